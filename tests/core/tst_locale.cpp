// Numbers are read and written the same under a comma-decimal locale (the GUI calls setlocale from the
// user's environment). The locale is compiled into a temporary directory with localedef when the system
// lacks it, so the test always runs under a real comma-decimal C locale.

#include <QDir>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <clocale>
#include <cstdio>
#include <cstdlib>

#include "io/output/Evidence.h"
#include "io/output/EstimateJson.h"
#include "io/output/EstimateTable.h"
#include "io/plan/PlanJson.h"
#include "TestMain.h"
#include "TestSupport.h"
#include "core/common/Units.h"
#include "core/estimate/Estimate.h"

using namespace trainplan;

class TestLocale : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase() { std::setlocale(LC_ALL, "C"); }
    void formattingIgnoresTheLocale();
    void planFilesReadAndWriteTheSame();

private:
    QTemporaryDir m_localeDir;
};

void TestLocale::initTestCase()
{
    if (!std::setlocale(LC_ALL, "de_DE.UTF-8")) {
        // Compile the German locale into a private directory (needs the `locales` package's sources).
        const QString target = m_localeDir.filePath(QStringLiteral("de_DE.UTF-8"));
        QProcess localedef;
        localedef.start(QStringLiteral("localedef"), {"-i", "de_DE", "-f", "UTF-8", target});
        QVERIFY2(localedef.waitForFinished(60000), "localedef did not finish");
        qputenv("LOCPATH", QFile::encodeName(m_localeDir.path()));
        QVERIFY2(std::setlocale(LC_ALL, "de_DE.UTF-8"),
                 "cannot set or build the de_DE.UTF-8 locale: install Debian's `locales` package (tools/setup.sh does)");
    }
    char buffer[16];
    std::snprintf(buffer, sizeof buffer, "%.1f", 1.5);
    QCOMPARE(QByteArray(buffer), QByteArray("1,5")); // the C library now writes commas
}

void TestLocale::formattingIgnoresTheLocale()
{
    QCOMPARE(units::formatNumber(1.5, 2), std::string("1.50"));
    QCOMPARE(units::formatNumber(-0.0001, 2), std::string("0.00"));
    QCOMPARE(units::formatBytes(1.5 * units::GiB), std::string("1.50 GiB"));
    const Catalog &catalog = io::builtinCatalog();
    const io::PlanReadResult read = io::readPlan(io::builtinExamplePlan(), catalog);
    QVERIFY(read.plan);
    const Estimate e = estimate(*read.plan, catalog);
    const QString table = io::estimateToTable(*read.plan, e);
    QVERIFY2(table.contains(QStringLiteral("174.62 B parameters")), qPrintable(table.left(300)));
    QVERIFY(!table.contains(QStringLiteral("174,62")));
    const QByteArray json = QJsonDocument(io::estimateToJson(*read.plan, e)).toJson();
    const QJsonObject memory = QJsonDocument::fromJson(json).object().value("memory").toObject();
    QVERIFY(memory.value("peak_bytes").toDouble() > 1e9);
    const QString evidence = io::bottleneckEvidence(e.step.bottleneck, e.step.evidence);
    QVERIFY(!evidence.isEmpty());
    QVERIFY(evidence.contains(QRegularExpression("^\\d+%")));
}

void TestLocale::planFilesReadAndWriteTheSame()
{
    const Catalog &catalog = io::builtinCatalog();
    QByteArray json = io::builtinExamplePlan();
    json.replace(QByteArray("\"micro_batch\": 1,"), QByteArray("\"micro_batch\": 1, \"allocator_reserve_fraction\": 0.125, \"padding_fraction\": 0.25,"));
    const io::PlanReadResult read = io::readPlan(json, catalog);
    QVERIFY(read.plan);
    QCOMPARE(read.plan->training.allocatorReserveFraction, std::optional<double>(0.125));
    QCOMPARE(read.plan->training.paddingFraction, 0.25);
    const QByteArray written = io::writePlan(*read.plan, catalog);
    QVERIFY(written.contains("0.125"));
    QVERIFY(!written.contains("0,125"));
}

TRAINPLAN_TEST_APPLESS_MAIN(TestLocale)
#include "tst_locale.moc"
