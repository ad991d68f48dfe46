// The hostile user's findings, each kept as a test through the real binary: infinite results, long
// strings, special files as input and output, unwritable standard output, escaped duplicate keys, oversized
// clusters and search spaces, an empty path and a number too large for JSON.

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

#include "CliRun.h"
#include "TestMain.h"
#include "TestSupport.h"

namespace {

const QString kHardeningExample = QStringLiteral(TRAINPLAN_SOURCE_DIR "/resources/examples/gpt3-175b-tp8-pp8.json");

using trainplan::test::Run;

Run runCli(const QStringList &arguments, const QString &stdoutFile = {})
{
    return trainplan::test::runTrainplan(arguments, trainplan::test::RunOptions().stdoutTo(stdoutFile));
}

QJsonObject example()
{
    QFile file(kHardeningExample);
    file.open(QIODevice::ReadOnly);
    return QJsonDocument::fromJson(file.readAll()).object();
}

QString writePlan(const QTemporaryDir &dir, const QJsonObject &plan, const QString &name = QStringLiteral("plan.json"))
{
    const QString path = dir.filePath(name);
    QFile file(path);
    file.open(QIODevice::WriteOnly);
    file.write(QJsonDocument(plan).toJson());
    return path;
}

/// The example with `section.key` set to `value`.
QJsonObject withValue(const QString &section, const QString &key, const QJsonValue &value)
{
    QJsonObject plan = example();
    QJsonObject s = plan.value(section).toObject();
    s.insert(key, value);
    plan.insert(section, s);
    return plan;
}

} // namespace

class TestHardening : public QObject
{
    Q_OBJECT

private slots:
    void infiniteResultsAreRefused_data();
    void infiniteResultsAreRefused();
    void longNamesAreRefusedQuickly();
    void searchResultsDoNotRepeatThePlansStrings();
    void specialFilesAreNotRead();
    void reportNeverReplacesSpecialFilesOrItsPlan();
    void unwritableStandardOutputFails();
    void escapedDuplicateKeysAreFound();
    void oversizedClustersAndSearchSpacesAreRefused();
    void emptyPathAndHugeNumbersSayWhat();
};

void TestHardening::infiniteResultsAreRefused_data()
{
    QTest::addColumn<QString>("section");
    QTest::addColumn<QString>("key");
    QTest::addColumn<double>("value");
    QTest::addColumn<QString>("rule");
    QTest::newRow("bucket_bytes 1e-300") << "parallel" << "bucket_bytes" << 1e-300 << "in [1000, 1e11] bytes";
    QTest::newRow("network_bandwidth 1e-300") << "cluster" << "network_bandwidth" << 1e-300 << "in [1e6, 1e14] bytes/s";
    QTest::newRow("intra_node_bandwidth 1e-300") << "cluster" << "intra_node_bandwidth" << 1e-300 << "in [1e6, 1e14] bytes/s";
    QTest::newRow("network_latency 1e308") << "cluster" << "network_latency" << 1e308 << "in [0, 1) s";
    QTest::newRow("intra_node_latency 1e308") << "cluster" << "intra_node_latency" << 1e308 << "in [0, 1) s";
    QTest::newRow("checkpoint_bandwidth 1e-300") << "run" << "checkpoint_bandwidth" << 1e-300 << "in [1e6, 1e14] bytes/s";
    QTest::newRow("gpu_mtbf_hours 1e-300") << "run" << "gpu_mtbf_hours" << 1e-300 << "in [1, 1e7] hours";
    QTest::newRow("gpu_mtbf_hours 1e308") << "run" << "gpu_mtbf_hours" << 1e308 << "in [1, 1e7] hours";
    QTest::newRow("restart_seconds 1e308") << "run" << "restart_seconds" << 1e308 << "in [0, 1e6] s";
}

// Each value that made an infinite estimate is refused with its key and range by estimate, search and report.
void TestHardening::infiniteResultsAreRefused()
{
    QFETCH(QString, section);
    QFETCH(QString, key);
    QFETCH(double, value);
    QFETCH(QString, rule);
    QTemporaryDir dir;
    const QString plan = writePlan(dir, withValue(section, key, value));
    for (const QStringList &command : {QStringList{QStringLiteral("estimate"), plan}, QStringList{QStringLiteral("search"), plan},
                                       QStringList{QStringLiteral("report"), plan, QStringLiteral("-o"), dir.filePath("r.pdf")}}) {
        const Run run = runCli(command);
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains(section + QLatin1Char('.') + key + QStringLiteral(": must be ") + rule), qPrintable(run.err));
        QVERIFY(run.out.isEmpty());
    }
    QVERIFY(!QFile::exists(dir.filePath("r.pdf")));
}

// Names: 200 characters at most, refused beyond with the rule; a megabyte of name is refused at once.
void TestHardening::longNamesAreRefusedQuickly()
{
    QTemporaryDir dir;
    QJsonObject plan = example();
    plan.insert(QStringLiteral("name"), QString(200, QLatin1Char('n')));
    QCOMPARE(runCli({QStringLiteral("estimate"), writePlan(dir, plan)}).exitCode, 0);
    plan.insert(QStringLiteral("name"), QString(201, QLatin1Char('n')));
    Run run = runCli({QStringLiteral("estimate"), writePlan(dir, plan)});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains(QStringLiteral("name: must be at most 200 characters long (got 201)")), qPrintable(run.err));
    plan.insert(QStringLiteral("name"), QString(1 << 20, QLatin1Char('n')));
    const QString huge = writePlan(dir, plan);
    for (const char *command : {"estimate", "search", "report"}) {
        run = command == QByteArray("report") ? runCli({QString::fromLatin1(command), huge, QStringLiteral("-o"), dir.filePath("r.pdf")})
                                              : runCli({QString::fromLatin1(command), huge});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains(QStringLiteral("name: the string is 1048576 characters long; at most 2000")), qPrintable(run.err.left(300)));
        QVERIFY2(run.err.size() < 2000, "the message does not repeat the string");
        QVERIFY2(run.milliseconds < 20000, qPrintable(QString::number(run.milliseconds)));
    }
}

// The searched plan's name is in the output once, however many results there are.
void TestHardening::searchResultsDoNotRepeatThePlansStrings()
{
    QTemporaryDir dir;
    QJsonObject plan = example();
    const QString name = QStringLiteral("A plan whose name is long ") + QString(150, QLatin1Char('x'));
    plan.insert(QStringLiteral("name"), name);
    const Run run = runCli({QStringLiteral("search"), writePlan(dir, plan), QStringLiteral("--top"), QStringLiteral("50")});
    QCOMPARE(run.exitCode, 0);
    const QJsonObject out = QJsonDocument::fromJson(run.out).object();
    QCOMPARE(out.value("top").toArray().size(), 50);
    QCOMPARE(out.value("plan_name").toString(), name);
    QCOMPARE(run.out.count(name.toUtf8()), 1);
    const QString first = out.value("top").toArray().first().toObject().value("plan").toObject().value("name").toString();
    QVERIFY2(first.startsWith(QStringLiteral("search #1: data ")), qPrintable(first));
}

// A named pipe (or a directory) as the plan path is refused at once instead of waiting forever.
void TestHardening::specialFilesAreNotRead()
{
    QTemporaryDir dir;
    const QString fifo = dir.filePath(QStringLiteral("plan.fifo"));
    QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
    for (const QString &path : {fifo, dir.path()}) {
        for (const QStringList &command : {QStringList{QStringLiteral("estimate"), path}, QStringList{QStringLiteral("search"), path},
                                           QStringList{QStringLiteral("report"), path, QStringLiteral("-o"), dir.filePath("r.pdf")}}) {
            const Run run = runCli(command);
            QCOMPARE(run.exitCode, 1);
            QVERIFY2(run.err.contains(QStringLiteral("not a regular file")), qPrintable(run.err));
        }
    }
}

// report -o on a FIFO, a device or a directory exits 3 and leaves it alone; -o on its own plan is refused.
void TestHardening::reportNeverReplacesSpecialFilesOrItsPlan()
{
    QTemporaryDir dir;
    const QString plan = writePlan(dir, example());
    const QString fifo = dir.filePath(QStringLiteral("out.fifo"));
    QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
    QStringList targets{fifo, dir.path()};
    if (QFileInfo::exists(QStringLiteral("/dev/full")))
        targets << QStringLiteral("/dev/full");
    for (const QString &target : targets) {
        const Run run = runCli({QStringLiteral("report"), plan, QStringLiteral("-o"), target});
        QCOMPARE(run.exitCode, 3);
        QVERIFY2(run.err.contains(QStringLiteral("is not a regular file")), qPrintable(run.err));
        QVERIFY(!QFileInfo(target).isFile());
    }
    struct stat fifoStat;
    QCOMPARE(::stat(QFile::encodeName(fifo).constData(), &fifoStat), 0);
    QVERIFY(S_ISFIFO(fifoStat.st_mode));
    const Run pngs = runCli({QStringLiteral("report"), plan, QStringLiteral("--png"), plan});
    QCOMPARE(pngs.exitCode, 3);

    QFile before(plan);
    QVERIFY(before.open(QIODevice::ReadOnly));
    const QByteArray bytes = before.readAll();
    before.close();
    const Run self = runCli({QStringLiteral("report"), plan, QStringLiteral("-o"), plan});
    QCOMPARE(self.exitCode, 3);
    QVERIFY2(self.err.contains(QStringLiteral("is also an input of this command")), qPrintable(self.err));
    QVERIFY(before.open(QIODevice::ReadOnly));
    QCOMPARE(before.readAll(), bytes);
}

// Output that cannot be written (a full disk) is an error with the documented code, not a silent 0.
void TestHardening::unwritableStandardOutputFails()
{
    if (!QFileInfo::exists(QStringLiteral("/dev/full")))
        QFAIL("this test needs /dev/full");
    for (const char *command : {"estimate", "search"}) {
        const Run run = runCli({QString::fromLatin1(command), kHardeningExample}, QStringLiteral("/dev/full"));
        QCOMPARE(run.exitCode, 3);
        QVERIFY2(run.err.contains(QStringLiteral("cannot write to standard output: No space left on device")), qPrintable(run.err));
    }
}

// "global_batc\u0068" is global_batch: a duplicate, refused (keys compare after unescaping).
void TestHardening::escapedDuplicateKeysAreFound()
{
    QTemporaryDir dir;
    QFile file(kHardeningExample);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QByteArray bytes = file.readAll();
    bytes.replace("\"global_batch\": 1536,", "\"global_batch\": 1536, \"global_batc\\u0068\": 3072,");
    QVERIFY(bytes.contains("global_batc\\u0068"));
    const QString path = dir.filePath(QStringLiteral("dup.json"));
    QFile out(path);
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(bytes);
    out.close();
    const Run run = runCli({QStringLiteral("estimate"), path});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains(QStringLiteral("training.global_batch: appears twice in the same object")), qPrintable(run.err));
}

// One node of 2^20 GPUs is not a node; a search space too large to finish in seconds is refused with the way out.
void TestHardening::oversizedClustersAndSearchSpacesAreRefused()
{
    QTemporaryDir dir;
    QJsonObject plan = example();
    QJsonObject cluster = plan.value("cluster").toObject();
    cluster.insert(QStringLiteral("gpus_per_node"), 1 << 20);
    cluster.insert(QStringLiteral("nodes"), 1);
    plan.insert(QStringLiteral("cluster"), cluster);
    plan.insert(QStringLiteral("parallel"), QJsonObject{{"tensor", 8}, {"pipeline", 8}});
    Run run = runCli({QStringLiteral("search"), writePlan(dir, plan)});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains(QStringLiteral("cluster.gpus_per_node: must be a whole number from 1 to 576")), qPrintable(run.err));

    cluster.insert(QStringLiteral("gpus_per_node"), 576);
    plan.insert(QStringLiteral("cluster"), cluster);
    QJsonObject training = plan.value("training").toObject();
    training.insert(QStringLiteral("global_batch"), 2304); // 9 replicas x 256
    plan.insert(QStringLiteral("training"), training);
    run = runCli({QStringLiteral("search"), writePlan(dir, plan), QStringLiteral("--nodes"), QStringLiteral("1-100000")});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains(QStringLiteral("would take about")) || run.err.contains(QStringLiteral("more than 2000000 plans")),
             qPrintable(run.err));
    QVERIFY2(run.err.contains(QStringLiteral("narrow the node range")), qPrintable(run.err));
    QVERIFY2(run.milliseconds < 30000, qPrintable(QString::number(run.milliseconds)));
}

void TestHardening::emptyPathAndHugeNumbersSayWhat()
{
    Run run = runCli({QStringLiteral("estimate"), QString()});
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.startsWith(QStringLiteral("trainplan estimate: the plan path is empty")), qPrintable(run.err));
    QVERIFY2(!run.err.contains(QStringLiteral("QFSFileEngine")), qPrintable(run.err));

    QTemporaryDir dir;
    QFile file(kHardeningExample);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray bytes = file.readAll().replace("\"global_batch\": 1536", "\"global_batch\": 1e400");
    const QString path = dir.filePath(QStringLiteral("big.json"));
    QFile out(path);
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(bytes);
    out.close();
    run = runCli({QStringLiteral("estimate"), path});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains(QStringLiteral("training.global_batch: malformed JSON at byte")), qPrintable(run.err));
}

TRAINPLAN_TEST_GUILESS_MAIN(TestHardening)
#include "tst_hardening.moc"
