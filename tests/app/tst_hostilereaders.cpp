// The third hardening round (issue 39), each finding kept as a test through the real binary: the importers'
// expansion and nesting bombs, special files given to import, profile and calibrate, a full disk under every
// writer (the file it replaces kept whole), outputs that are inputs, calibration rows outside physics, import
// values that were guessed, and the small ones (two custom devices with one id, control characters in a
// plan name).

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
#include "io/plan/CatalogJson.h"

using namespace trainplan;
using trainplan::test::Run;
using trainplan::test::runTrainplan;

namespace {

const QString kHostileExample = QStringLiteral(TRAINPLAN_SOURCE_DIR "/resources/examples/gpt3-175b-tp8-pp8.json");
const QString kTrace = QStringLiteral(TRAINPLAN_TEST_DATA_DIR "/traces/small-two-steps.json");
const QString kConfig = QStringLiteral(TRAINPLAN_TEST_DATA_DIR "/import/llama3-8b-config.json");

QString write(const QTemporaryDir &dir, const QString &name, const QByteArray &bytes)
{
    const QString path = dir.filePath(name);
    QDir().mkpath(QFileInfo(path).path());
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size())
        qFatal("cannot write %s", qPrintable(path));
    return path;
}

QByteArray contents(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray("(unreadable)");
}

QByteArray exampleBytes()
{
    return contents(kHostileExample);
}

/// A Megatron-LM script whose variables each expand to four copies of the one before, `levels` deep.
QByteArray shellBomb(int levels)
{
    QByteArray s = "A0=--num-layers\n";
    for (int i = 1; i <= levels; ++i)
        s += QByteArray("A%1=\"$A%0 $A%0 $A%0 $A%0\"\n").replace("%1", QByteArray::number(i)).replace("%0", QByteArray::number(i - 1));
    return s + "torchrun pretrain_gpt.py $A" + QByteArray::number(levels) + "\n";
}

/// YAML aliases nine deep, each naming the one before nine times (9^9 values); as lists or as maps.
QByteArray yamlBomb(bool maps)
{
    QByteArray s = maps ? "a0: &a0 {x: 1}\n" : "a0: &a0 [x, x, x, x, x, x, x, x, x]\n";
    for (int i = 1; i <= 9; ++i) {
        QByteArrayList items;
        for (int j = 0; j < 9; ++j)
            items << (maps ? "k" + QByteArray::number(j) + ": " : QByteArray()) + "*a" + QByteArray::number(i - 1);
        s += "a" + QByteArray::number(i) + ": &a" + QByteArray::number(i) + (maps ? " {" : " [") + items.join(", ") + (maps ? "}\n" : "]\n");
    }
    return s + "trainer:\n  devices: *a9\n";
}

/// The measurements CSV of two runs of the example plan (copied beside it as plan.json).
QString measurements(const QTemporaryDir &dir, const QByteArray &header, const QByteArray &firstRow)
{
    write(dir, QStringLiteral("plan.json"), exampleBytes());
    return write(dir, QStringLiteral("m.csv"), header + "\n" + firstRow + "\nplan.json,41.5\n");
}

} // namespace

class TestHostileReaders : public QObject
{
    Q_OBJECT

private slots:
    void expansionAndNestingBombsAreRefused_data();
    void expansionAndNestingBombsAreRefused();
    void specialFilesAreNotRead();
    void aFullDiskKeepsTheFileItWouldReplace();
    void anOutputThatIsAnInputIsRefused();
    void aPngLinkIsReplacedNotItsTarget();
    void calibrationRowsOutsidePhysicsAreRefused_data();
    void calibrationRowsOutsidePhysicsAreRefused();
    void calibratedDeviceIdsAreChecked();
    void importValuesAreCheckedNotGuessed_data();
    void importValuesAreCheckedNotGuessed();
    void keysGivenTwiceAreRefused();
    void customDevicesNeedTheirOwnIds();
    void controlCharactersNeverReachTheTerminal();
    void calibrateHelpNamesItsArgument();
};

void TestHostileReaders::expansionAndNestingBombsAreRefused_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("error");
    // Each a few hundred bytes; before: 4.9 GB then bad_alloc, 120 s and 8.8 GB, 11.6 GB, a stack overflow, a segfault.
    QTest::newRow("shell x4 per level, 16 levels") << QStringLiteral("bomb.sh") << shellBomb(16)
                                                   << QStringLiteral("bomb.sh:10: a word expands to more than 1 MiB");
    QTest::newRow("YAML list aliases nine deep") << QStringLiteral("bomb.yaml") << yamlBomb(false)
                                                 << QStringLiteral("bomb.yaml:1: more than 200000 values (aliases that repeat aliases)");
    QTest::newRow("YAML map aliases nine deep") << QStringLiteral("bombmap.yaml") << yamlBomb(true)
                                                << QStringLiteral("bombmap.yaml:1: more than 200000 values (aliases that repeat aliases)");
    QTest::newRow("YAML alias inside what it names") << QStringLiteral("self.yaml") << QByteArray("a: &a\n  b: *a\n")
                                                     << QStringLiteral("self.yaml:1: nested more than 64 levels deep");
    QTest::newRow("TOML dotted key 30,000 deep") << QStringLiteral("deep.toml") << ("[" + QByteArrayList(30000, "k").join('.') + "]\nx = 1\n")
                                                 << QStringLiteral("deep.toml:1: a key of more than 64 dotted parts");
    QTest::newRow("shell expansions 5,000 deep") << QStringLiteral("nest.sh")
                                                 << ("X=" + QByteArrayList(5000, "${A:-").join() + "x" + QByteArray(5000, '}')
                                                     + "\ntorchrun pretrain_gpt.py --num-layers 2 $X\n")
                                                 << QStringLiteral("nest.sh:1: expansions nested more than 64 deep");
    // Arithmetic 5,000 parentheses deep stays unknown (as written), never a stack overflow.
    QTest::newRow("shell arithmetic 5,000 deep") << QStringLiteral("arith.sh")
                                                 << ("X=$((" + QByteArray(5000, '(') + "1" + QByteArray(5000, ')') + "))\ntorchrun pretrain_gpt.py --num-layers $X\n")
                                                 << QStringLiteral("arith.sh: no setting Trainplan plans was read from it");
}

void TestHostileReaders::expansionAndNestingBombsAreRefused()
{
    QFETCH(QString, name);
    QFETCH(QByteArray, bytes);
    QFETCH(QString, error);
    QVERIFY(bytes.size() < 200000);
    QTemporaryDir dir;
    const QString path = write(dir, name, bytes);
    QVERIFY(QFileInfo::exists(path));
    const Run run = runTrainplan({QStringLiteral("import"), name, QStringLiteral("-o"), dir.filePath(QStringLiteral("out.json"))},
                                 test::RunOptions().in(dir.path()).timeoutMilliseconds(30000));
    QVERIFY2(run.exitCode == 1, qPrintable(QStringLiteral("exit %1: %2").arg(run.exitCode).arg(run.err)));
    QVERIFY2(run.err.contains(QStringLiteral("error: ") + error), qPrintable(run.err));
    QVERIFY2(run.milliseconds < 10000, qPrintable(QString::number(run.milliseconds)));
    QVERIFY(!QFileInfo::exists(dir.filePath(QStringLiteral("out.json"))));
}

// import, profile and calibrate of /dev/zero, /dev/urandom or a FIFO used to hang or abort; profile
// --measurements to /dev/full or a FIFO hung.
void TestHostileReaders::specialFilesAreNotRead()
{
    QTemporaryDir dir;
    const QString fifo = dir.filePath(QStringLiteral("f.fifo"));
    QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
    for (const QString &special : {QStringLiteral("/dev/zero"), QStringLiteral("/dev/urandom"), fifo}) {
        for (const QStringList &command : {QStringList{QStringLiteral("import"), special}, QStringList{QStringLiteral("profile"), special, kHostileExample},
                                           QStringList{QStringLiteral("calibrate"), special, QStringLiteral("--base"), QStringLiteral("a100-sxm4-80gb")}}) {
            const Run run = runTrainplan(command, test::RunOptions().timeoutMilliseconds(20000));
            QVERIFY2(run.exitCode == 1, qPrintable(command.join(' ') + QStringLiteral(": exit %1").arg(run.exitCode)));
            QVERIFY2(run.err.contains(special + QStringLiteral(": not a regular file (a named pipe, socket or device)")), qPrintable(run.err));
        }
    }
    for (const QString &target : {QStringLiteral("/dev/full"), fifo}) {
        const Run run = runTrainplan({QStringLiteral("profile"), kTrace, kHostileExample, QStringLiteral("--measurements"), target}, test::RunOptions().timeoutMilliseconds(20000));
        QCOMPARE(run.exitCode, 3);
        QVERIFY2(run.err.contains(QStringLiteral("not a regular file")), qPrintable(run.err));
    }
}

// A write past the file-size limit fails with EFBIG, as a write to a full disk fails with ENOSPC: every writer
// says so, exits 3, and the file it was replacing is byte for byte what it was (export, import and calibrate
// used to leave it at 0 bytes and exit 0; profile left half a CSV row; report --png one of five PNGs).
void TestHostileReaders::aFullDiskKeepsTheFileItWouldReplace()
{
    QTemporaryDir dir;
    const QByteArray old = "the file this command must not destroy\n";
    const QString csv = measurements(dir, "plan,step_seconds", "plan.json,40.1");
    write(dir, QStringLiteral("pngs/memory.png"), old);
    struct Case
    {
        QStringList arguments;
        QString target;
    };
    const QList<Case> cases{
        {{QStringLiteral("export"), kHostileExample, QStringLiteral("--to"), QStringLiteral("megatron"), QStringLiteral("-o")}, QStringLiteral("existing.sh")},
        {{QStringLiteral("import"), kConfig, QStringLiteral("--assume-example"), QStringLiteral("-o")}, QStringLiteral("existing.json")},
        {{QStringLiteral("calibrate"), csv, QStringLiteral("--base"), QStringLiteral("a100-sxm4-80gb"), QStringLiteral("-o")},
         QStringLiteral("device.json")},
        {{QStringLiteral("report"), kHostileExample, QStringLiteral("--png")}, QStringLiteral("pngs")}};
    for (const Case &c : cases) {
        const QString target = dir.filePath(c.target);
        const QString kept = c.target == QLatin1String("pngs") ? dir.filePath(QStringLiteral("pngs/memory.png")) : write(dir, c.target, old);
        const Run run = runTrainplan(c.arguments + QStringList{target}, test::RunOptions().in(dir.path()).maxFileBytes(256));
        QVERIFY2(run.exitCode == 3, qPrintable(c.arguments.first() + QStringLiteral(": exit %1: %2").arg(run.exitCode).arg(run.err)));
        QVERIFY2(run.err.contains(QStringLiteral("File too large")) && !run.err.contains(QStringLiteral("wrote ")), qPrintable(run.err));
        QCOMPARE(contents(kept), old);
    }
    QCOMPARE(QDir(dir.filePath(QStringLiteral("pngs"))).entryList(QDir::Files), QStringList{QStringLiteral("memory.png")});
    // profile --measurements appends a row to an existing CSV (one it wrote): on a full disk the CSV is as it was.
    const QString traced = dir.filePath(QStringLiteral("traced.csv"));
    QCOMPARE(runTrainplan({QStringLiteral("profile"), kTrace, kHostileExample, QStringLiteral("--measurements"), traced}).exitCode, 0);
    const QByteArray before = contents(traced);
    QVERIFY(before.size() > 64 && before.count('\n') == 2);
    const Run profile = runTrainplan({QStringLiteral("profile"), kTrace, kHostileExample, QStringLiteral("--measurements"), traced}, test::RunOptions().in(dir.path()).maxFileBytes(64));
    QCOMPARE(profile.exitCode, 3);
    QVERIFY2(profile.err.contains(QStringLiteral("File too large")), qPrintable(profile.err));
    QCOMPARE(contents(traced), before);
    // Nothing half-written is left behind.
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden, QDir::Name),
             (QStringList{QStringLiteral("device.json"), QStringLiteral("existing.json"), QStringLiteral("existing.sh"), QStringLiteral("m.csv"),
                          QStringLiteral("plan.json"), QStringLiteral("traced.csv")}));
}

// export P -o P, import C -o C, calibrate M.csv -o M.csv or -o a plan the CSV names, report -o the baseline.
void TestHostileReaders::anOutputThatIsAnInputIsRefused()
{
    QTemporaryDir dir;
    const QString plan = write(dir, QStringLiteral("p.json"), exampleBytes());
    const QString config = write(dir, QStringLiteral("config.json"), contents(kConfig));
    const QString csv = measurements(dir, "plan,step_seconds", "plan.json,40.1");
    const QString named = dir.filePath(QStringLiteral("plan.json"));
    const QString baseline = write(dir, QStringLiteral("baseline.json"), exampleBytes());
    const QList<QStringList> commands{
        {QStringLiteral("export"), plan, QStringLiteral("--to"), QStringLiteral("megatron"), QStringLiteral("-o"), plan},
        {QStringLiteral("import"), config, QStringLiteral("--assume-example"), QStringLiteral("-o"), config},
        {QStringLiteral("calibrate"), csv, QStringLiteral("--base"), QStringLiteral("a100-sxm4-80gb"), QStringLiteral("-o"), csv},
        {QStringLiteral("calibrate"), csv, QStringLiteral("--base"), QStringLiteral("a100-sxm4-80gb"), QStringLiteral("-o"), named},
        {QStringLiteral("report"), plan, QStringLiteral("-o"), baseline, QStringLiteral("--baseline"), baseline}};
    for (const QStringList &command : commands) {
        const QString victim = command.at(command.indexOf(QStringLiteral("-o")) + 1);
        const QByteArray before = contents(victim);
        const Run run = runTrainplan(command);
        QVERIFY2(run.exitCode == 3, qPrintable(command.join(' ') + QStringLiteral(": exit %1").arg(run.exitCode)));
        QVERIFY2(run.err.contains(QStringLiteral("is also an input of this command")) || run.err.contains(QStringLiteral("is the input")),
                 qPrintable(run.err));
        QCOMPARE(contents(victim), before);
    }
}

// A --png target that is a symlink: the link is replaced by the chart, the file it pointed at is untouched.
void TestHostileReaders::aPngLinkIsReplacedNotItsTarget()
{
    QTemporaryDir dir;
    const QByteArray precious = "not a chart\n";
    const QString target = write(dir, QStringLiteral("precious.txt"), precious);
    QDir().mkpath(dir.filePath(QStringLiteral("pngs")));
    const QString link = dir.filePath(QStringLiteral("pngs/step.png"));
    QVERIFY(QFile::link(target, link));
    const Run run = runTrainplan({QStringLiteral("report"), kHostileExample, QStringLiteral("--png"), dir.filePath(QStringLiteral("pngs"))});
    QVERIFY2(run.exitCode == 0, qPrintable(run.err));
    QCOMPARE(contents(target), precious);
    const QFileInfo chart(link);
    QVERIFY(!chart.isSymLink() && chart.isFile());
    QVERIFY(contents(link).startsWith("\x89PNG"));
}

void TestHostileReaders::calibrationRowsOutsidePhysicsAreRefused_data()
{
    QTest::addColumn<QByteArray>("header");
    QTest::addColumn<QByteArray>("row");
    QTest::addColumn<QString>("error");
    // Before: "cost inf -> inf", "inf%", every parameter "held" by one 5e-324 row, and a device written.
    const QString range = QStringLiteral("m.csv:2: step_seconds must be a number from 1e-06 to 1e+06 s (got \"%1\")");
    for (const char *value : {"inf", "5e-324", "1e-308", "-3", "nan", "0x20", "1e7"})
        QTest::addRow("step %s", value) << QByteArray("plan,step_seconds") << QByteArray("plan.json,") + value << range.arg(QLatin1String(value));
    QTest::newRow("throughput 1e13") << QByteArray("plan,tokens_per_second") << QByteArray("plan.json,1e13")
                                     << QStringLiteral("m.csv:2: tokens_per_second must be a number from 0.001 to 1e+12 tokens/s (got \"1e13\")");
    QTest::newRow("peak of a kilobyte") << QByteArray("plan,peak_bytes") << QByteArray("plan.json,1024")
                                        << QStringLiteral("m.csv:2: peak_bytes must be a number from 1e+06 to 1e+15 bytes (got \"1024\")");
    QTest::newRow("no measured column") << QByteArray("plan,notes") << QByteArray("plan.json,fast")
                                        << QStringLiteral("m.csv:1: the header has no measured column");
    QTest::newRow("a column twice") << QByteArray("plan,step_seconds,step_seconds") << QByteArray("plan.json,40,41")
                                    << QStringLiteral("m.csv:1: the column \"step_seconds\" appears more than once");
    QTest::newRow("stage 99,999,999,999") << QByteArray("plan,gemm_seconds,stage") << QByteArray("plan.json,10,99999999999")
                                          << QStringLiteral("stage must be one of the plan's pipeline stages, 0 to 7 (got 99999999999)");
}

void TestHostileReaders::calibrationRowsOutsidePhysicsAreRefused()
{
    QFETCH(QByteArray, header);
    QFETCH(QByteArray, row);
    QFETCH(QString, error);
    QTemporaryDir dir;
    const QString csv = measurements(dir, header, row);
    const QString device = dir.filePath(QStringLiteral("device.json"));
    const Run run = runTrainplan({QStringLiteral("calibrate"), csv, QStringLiteral("--base"), QStringLiteral("a100-sxm4-80gb"), QStringLiteral("-o"), device});
    QVERIFY2(run.exitCode == 1, qPrintable(QStringLiteral("exit %1: %2").arg(run.exitCode).arg(run.err)));
    QVERIFY2(run.err.contains(error), qPrintable(run.err));
    QVERIFY(!QFileInfo::exists(device));
}

// --id of a catalog device, or of 5,000 characters, wrote a device the reader then refused.
void TestHostileReaders::calibratedDeviceIdsAreChecked()
{
    QTemporaryDir dir;
    const QString csv = measurements(dir, "plan,step_seconds", "plan.json,40.1");
    const QString device = dir.filePath(QStringLiteral("device.json"));
    for (const auto &[id, error] : {std::pair{QStringLiteral("h100-sxm5-80gb"), QStringLiteral("--id \"h100-sxm5-80gb\" is a device of the catalog")},
                                    std::pair{QString(5000, QLatin1Char('x')), QStringLiteral("--id must be at most 64 characters long (got 5000)")},
                                    std::pair{QStringLiteral("a\tb"), QStringLiteral("--id must not contain control characters")}}) {
        const Run run = runTrainplan({QStringLiteral("calibrate"), csv, QStringLiteral("--base"), QStringLiteral("a100-sxm4-80gb"), QStringLiteral("--id"), id,
                                      QStringLiteral("-o"), device});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(error), qPrintable(run.err));
        QVERIFY(!QFileInfo::exists(device));
    }
    // A good id writes a device the reader accepts: the device file read back as a catalog.
    const Run run = runTrainplan({QStringLiteral("calibrate"), csv, QStringLiteral("--base"), QStringLiteral("a100-sxm4-80gb"), QStringLiteral("--id"),
                                  QStringLiteral("our-a100"), QStringLiteral("-o"), device});
    QVERIFY2(run.exitCode == 0, qPrintable(run.err));
    Catalog catalog = io::builtinCatalog();
    QVERIFY(io::readDevices(contents(device), catalog).empty());
    QVERIFY(catalog.device("our-a100"));
}

void TestHostileReaders::importValuesAreCheckedNotGuessed_data()
{
    QTest::addColumn<QByteArray>("value");
    QTest::addColumn<QString>("error");
    // Before: tensor 1 with a warning.
    for (const char *value : {"nan", "0x20", "32.5", "1e400"})
        QTest::addRow("TP=%s", value) << QByteArray(value) << QStringLiteral("tp.sh:2: tensor_model_parallel_size must be a whole number (got %1)").arg(QLatin1String(value));
    // A whole number outside the key's range, named where the script wrote it (it was "model.vocab: is
    // required", from the vocabulary padded to a multiple of the tensor size).
    for (const char *value : {"-2", "0", "5000000"})
        QTest::addRow("TP=%s", value) << QByteArray(value)
                                      << QStringLiteral("tp.sh:2: tensor_model_parallel_size: parallel.tensor must be a whole number from 1 to 65536 (got %1)")
                                             .arg(QLatin1String(value));
    QTest::newRow("TP empty") << QByteArray() << QStringLiteral("tp.sh:2: tensor_model_parallel_size must be a whole number (got no number");
}

void TestHostileReaders::importValuesAreCheckedNotGuessed()
{
    QFETCH(QByteArray, value);
    QFETCH(QString, error);
    QTemporaryDir dir;
    const QString script = write(dir, QStringLiteral("tp.sh"), "TP=" + value + "\ntorchrun pretrain_gpt.py --num-layers 32 --hidden-size 4096 "
                                                                 "--num-attention-heads 32 --seq-length 4096 --tensor-model-parallel-size $TP\n");
    QVERIFY(QFileInfo::exists(script));
    const Run run = runTrainplan({QStringLiteral("import"), QStringLiteral("tp.sh"), QStringLiteral("--assume-example"), QStringLiteral("-o"),
                                  dir.filePath(QStringLiteral("p.json"))},
                                 test::RunOptions().in(dir.path()));
    QVERIFY2(run.exitCode == 1, qPrintable(QStringLiteral("exit %1: %2").arg(run.exitCode).arg(run.err)));
    QVERIFY2(run.err.contains(QStringLiteral("error: ") + error), qPrintable(run.err));
    QVERIFY(!QFileInfo::exists(dir.filePath(QStringLiteral("p.json"))));
}

// A key twice in a config.json, --set with one key twice, search --fix with one dimension twice: each took the
// last silently. And the import report listed no --set overrides.
void TestHostileReaders::keysGivenTwiceAreRefused()
{
    QTemporaryDir dir;
    QByteArray config = contents(kConfig);
    config.replace("{", "{\n  \"num_hidden_layers\": 2,");
    const QString twice = write(dir, QStringLiteral("dup/config.json"), config);
    Run run = runTrainplan({QStringLiteral("import"), twice, QStringLiteral("--assume-example")});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains(QStringLiteral("config.json:2: num_hidden_layers: written twice")), qPrintable(run.err));

    run = runTrainplan({QStringLiteral("import"), kConfig, QStringLiteral("--assume-example"), QStringLiteral("--set"), QStringLiteral("parallel.tensor=2"),
                        QStringLiteral("--set"), QStringLiteral("parallel.tensor=4")});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains(QStringLiteral("--set: parallel.tensor is set twice (2 and 4): give each key once")), qPrintable(run.err));

    run = runTrainplan({QStringLiteral("search"), kHostileExample, QStringLiteral("--fix"), QStringLiteral("tensor=8"), QStringLiteral("--fix"), QStringLiteral("tensor=4")});
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains(QStringLiteral("--fix: parallel.tensor is fixed twice ('tensor=8' and 'tensor=4'): fix each dimension once")), qPrintable(run.err));

    run = runTrainplan({QStringLiteral("import"), kConfig, QStringLiteral("--set"),
                        QStringLiteral("cluster.nodes=2,cluster.device=h100-sxm5-80gb,training.global_batch=512,model.seq_len=8192")});
    QVERIFY2(run.exitCode == 0, qPrintable(run.err));
    QVERIFY2(run.err.contains(QStringLiteral("Set with --set (over what the files say):\n  cluster.nodes = 2\n  cluster.device = \"h100-sxm5-80gb\"\n"
                                             "  training.global_batch = 512\n")),
             qPrintable(run.err));
    QCOMPARE(QJsonDocument::fromJson(run.out).object().value(QStringLiteral("cluster")).toObject().value(QStringLiteral("nodes")).toInt(), 2);
}

void TestHostileReaders::customDevicesNeedTheirOwnIds()
{
    QTemporaryDir dir;
    QJsonObject plan = QJsonDocument::fromJson(exampleBytes()).object();
    DeviceSpec mine = io::customDeviceTemplate();
    mine.id = "our-a100";
    mine.name = "Our A100";
    QJsonObject cluster = plan.value(QStringLiteral("cluster")).toObject();
    cluster.insert(QStringLiteral("custom_devices"), QJsonArray{io::deviceToJson(mine), io::deviceToJson(mine)});
    cluster.insert(QStringLiteral("device"), QStringLiteral("our-a100"));
    plan.insert(QStringLiteral("cluster"), cluster);
    const QString path = write(dir, QStringLiteral("two.json"), QJsonDocument(plan).toJson());
    const Run run = runTrainplan({QStringLiteral("estimate"), path});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains(QStringLiteral("cluster.custom_devices[1].id: \"our-a100\" is also the id of cluster.custom_devices[0]")),
             qPrintable(run.err));
}

// A plan name with an escape sequence, a carriage return or a bidirectional override reached the terminal raw.
void TestHostileReaders::controlCharactersNeverReachTheTerminal()
{
    QTemporaryDir dir;
    QJsonObject plan = QJsonDocument::fromJson(exampleBytes()).object();
    plan.insert(QStringLiteral("name"), QStringLiteral("ours\x1b[2J\rfake\u202Eevil"));
    const QString path = write(dir, QStringLiteral("p.json"), QJsonDocument(plan).toJson());
    for (const QStringList &command : {QStringList{QStringLiteral("estimate"), path, QStringLiteral("--format"), QStringLiteral("table")},
                                       QStringList{QStringLiteral("compare"), kHostileExample, path, QStringLiteral("--format"), QStringLiteral("table")}}) {
        const Run run = runTrainplan(command);
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const QString text = QString::fromUtf8(run.out);
        QVERIFY2(text.contains(QStringLiteral("ours\\u{001b}[2J\\u{000d}fake\\u{202e}evil")), qPrintable(text.left(400)));
        for (const QChar c : text)
            QVERIFY2(c == QLatin1Char('\n') || (c.category() != QChar::Other_Control && c.category() != QChar::Other_Format),
                     qPrintable(QString::number(c.unicode(), 16)));
    }
}

void TestHostileReaders::calibrateHelpNamesItsArgument()
{
    const Run run = runTrainplan({QStringLiteral("calibrate"), QStringLiteral("--help")});
    QCOMPARE(run.exitCode, 0);
    const QString help = QString::fromUtf8(run.out);
    QVERIFY2(help.contains(QStringLiteral("MEASURED.csv")) && help.contains(QStringLiteral("3 the output cannot be written.")), qPrintable(help));
    QVERIFY2(!help.contains(QStringLiteral("Plan file")), qPrintable(help));
}

TRAINPLAN_TEST_GUILESS_MAIN(TestHostileReaders)
#include "tst_hostilereaders.moc"
