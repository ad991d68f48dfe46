// Compare mode and the charts added with it, offscreen: the step chart's bars sum to the step time for
// the plan and the pinned baseline; the summary's deltas and the Compare page's rows follow a change; the
// memory chart marks the part over capacity and the baseline's peaks; automatic names follow the plan; the
// run fields are editable and a plan that does not fit has no time or cost; a Qt Charts legend never elides.

#include <QApplication>
#include <QChart>
#include <QLegend>
#include <QLegendMarker>
#include <QLineEdit>
#include <QPushButton>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTest>

#include "io/output/ComparisonJson.h"
#include "io/output/Evidence.h"
#include "TestMain.h"
#include <QUndoStack>

#include "core/common/Units.h"
#include "core/estimate/Comparison.h"
#include "io/plan/CatalogJson.h"
#include "io/plan/Examples.h"
#include "ui/MainWindow.h"
#include "ui/SummaryStrip.h"
#include "charts/ChartExport.h"
#include "charts/MemoryChartView.h"
#include "charts/StepBreakdownView.h"
#include "ui/compare/ComparisonView.h"
#include "ui/document/PlanDocument.h"

using namespace trainplan;

namespace {

QByteArray exampleBytes(const QString &id)
{
    for (const io::ExamplePlan &e : io::builtinExamples())
        if (e.id == id)
            return e.bytes;
    return {};
}

struct CompareFixture
{
    PlanDocument document{io::builtinCatalog()};
    MainWindow window{&document};
    explicit CompareFixture(const QString &example = QStringLiteral("gpt3-175b-tp8-pp8"))
    {
        QString error;
        if (!document.loadFromBytes(exampleBytes(example), QString(), &error))
            qFatal("example %s: %s", qPrintable(example), qPrintable(error));
        window.resize(1280, 800);
    }
    /// The example with the interleaved schedule (v = 2), as a user would set it after pinning.
    void interleave()
    {
        Plan plan = document.plan();
        plan.parallel.schedule = Schedule::Interleaved;
        plan.parallel.virtualStages = 2;
        document.setPlan(plan);
    }
};

double sum(const std::array<double, kStepPartCount> &parts)
{
    double total = 0;
    for (double p : parts)
        total += p;
    return total;
}

} // namespace

class TestCompare : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void stepChartSumsToTheStep();
    void summaryDeltasAndComparePage();
    void memoryChartMarksOverCapacityAndBaseline();
    void automaticNameFollowsThePlan();
    void runFieldsAreEditableAndNoCostWhenItDoesNotFit();
    void legendNeverElides();
};

void TestCompare::stepChartSumsToTheStep()
{
    CompareFixture f;
    const Estimate &e = f.document.estimate();
    std::vector<std::array<double, kStepPartCount>> drawn = f.window.stepChart()->drawnSeconds();
    QCOMPARE(drawn.size(), std::size_t(1));
    // The parts are laid end to end: their sum is the step time (within rounding).
    QVERIFY(qAbs(sum(drawn[0]) - e.step.stepSeconds) < 1e-9 * e.step.stepSeconds);
    const double baselineStep = e.step.stepSeconds;
    f.document.pinBaseline();
    f.interleave();
    drawn = f.window.stepChart()->drawnSeconds();
    QCOMPARE(drawn.size(), std::size_t(2));
    QVERIFY(qAbs(sum(drawn[0]) - f.document.estimate().step.stepSeconds) < 1e-9 * baselineStep);
    QVERIFY(qAbs(sum(drawn[1]) - baselineStep) < 1e-9 * baselineStep);
    // Interleaving shrinks the bubble and leaves the forward compute as it was.
    QVERIFY(drawn[0][std::size_t(StepPart::PipelineIdle)] < drawn[1][std::size_t(StepPart::PipelineIdle)]);
    QCOMPARE(drawn[0][std::size_t(StepPart::Forward)], drawn[1][std::size_t(StepPart::Forward)]);
    QVERIFY(f.window.stepChart()->describe(1, StepPart::Backward).contains(QStringLiteral("s")));
    QVERIFY(f.window.stepChart()->legendNames().contains(QStringLiteral("pipeline bubble + transfers")));
}

void TestCompare::summaryDeltasAndComparePage()
{
    CompareFixture f;
    QVERIFY(f.window.summary()->deltas().join(QString()).isEmpty()); // no baseline: no delta lines
    f.document.pinBaseline();
    const double before = f.document.estimate().step.stepSeconds;
    f.interleave();
    const double after = f.document.estimate().step.stepSeconds;
    const QString expected = QString::fromStdString(units::formatPercent(after / before - 1, 1));
    const QStringList deltas = f.window.summary()->deltas();
    QVERIFY2(deltas[1].contains(expected), qPrintable(deltas[1] + " vs " + expected));
    QVERIFY(deltas[1].contains(QStringLiteral("vs baseline")));

    ComparisonView *page = f.window.comparison();
    QCOMPARE(page->metricsTable()->rowCount(), int(kComparedMetricCount) + 1); // and whether each fits
    const int fits = int(kComparedMetricCount);
    QCOMPARE(page->metricsTable()->item(fits, 0)->text(), QStringLiteral("Fits"));
    QCOMPARE(page->metricsTable()->item(fits, 2)->text(),
             io::fitText(f.document.estimate().memory.fits,
                         mayNotFit(f.document.estimate().memory, detailsOf(f.document.estimate()).accuracy)));
    QCOMPARE(page->differencesTable()->rowCount(), 2); // schedule and virtual stages
    QStringList keys;
    for (int row = 0; row < 2; ++row)
        keys << page->differencesTable()->item(row, 0)->text();
    QVERIFY2(keys.join(' ').contains("parallel.schedule") && keys.join(' ').contains("parallel.virtual_stages"), qPrintable(keys.join(' ')));
    f.document.clearBaseline();
    QVERIFY(f.window.summary()->deltas().join(QString()).isEmpty());
    QCOMPARE(f.window.stepChart()->drawnSeconds().size(), std::size_t(1));
}

void TestCompare::memoryChartMarksOverCapacityAndBaseline()
{
    CompareFixture f(QStringLiteral("gpt3-175b-does-not-fit"));
    const MemoryEstimate &m = f.document.estimate().memory;
    QVERIFY(!m.fits);
    const QList<QVector<double>> over = f.window.memoryChart()->overCapacityRegions();
    QCOMPARE(over.size(), 1); // one pipeline stage, over its 40 GiB
    QCOMPARE(over[0][0], 0.0);
    QCOMPARE(over[0][1], 40.0);
    QVERIFY(qAbs(over[0][2] - m.peakBytes / units::GiB) < 1e-9);
    // The components stay stacked in their own colours underneath: five sets, summing to the peak.
    const QList<QList<qreal>> values = f.window.memoryChart()->seriesValues();
    double stacked = 0;
    for (const QList<qreal> &set : values)
        stacked += set.value(0);
    QVERIFY(qAbs(stacked - m.peakBytes / units::GiB) < 1e-6);
    // Ticks at a round interval (1, 2, 2.5 or 5 x 10^k) that reach past the peak in four to six steps.
    const double tick = f.window.memoryChart()->tickInterval();
    const double mantissa = tick / std::pow(10.0, std::floor(std::log10(tick)));
    QVERIFY2(mantissa == 1 || mantissa == 2 || mantissa == 2.5 || mantissa == 5, qPrintable(QString::number(tick)));
    const double intervals = std::ceil(m.peakBytes / units::GiB * 1.05 / tick);
    QVERIFY(intervals >= 4 && intervals <= 6);

    CompareFixture g;
    QVERIFY(g.window.memoryChart()->baselinePeaks().isEmpty());
    g.document.pinBaseline();
    const MemoryEstimate &pinned = g.document.baselineEstimate().memory;
    g.interleave();
    const QList<double> peaks = g.window.memoryChart()->baselinePeaks();
    QCOMPARE(peaks.size(), int(pinned.stages.size()));
    for (int s = 0; s < peaks.size(); ++s)
        QCOMPARE(peaks[s], pinned.stages[std::size_t(s)].peakBytes / units::GiB);
}

void TestCompare::automaticNameFollowsThePlan()
{
    CompareFixture f; // the default example has no name: its name is made from the plan
    QVERIFY(f.document.plan().name.empty());
    QCOMPARE(f.document.planName(), QStringLiteral("GPT-3 175B on 512 A100 SXM4 80GB, data 8 x tensor 8 x pipeline 8"));
    Plan plan = f.document.plan();
    plan.parallel.tensor = 4;
    plan.parallel.data = 16;
    f.document.setPlan(plan);
    QCOMPARE(f.document.planName(), QStringLiteral("GPT-3 175B on 512 A100 SXM4 80GB, data 16 x tensor 4 x pipeline 8"));
    // A typed name sticks through later edits.
    auto *name = f.window.findChild<QLineEdit *>(QStringLiteral("name"));
    QVERIFY(name);
    name->setText(QStringLiteral("Our 175B run"));
    emit name->editingFinished();
    QCOMPARE(f.document.plan().name, std::string("Our 175B run"));
    plan = f.document.plan();
    plan.parallel.tensor = 8;
    plan.parallel.data = 8;
    f.document.setPlan(plan);
    QCOMPARE(f.document.planName(), QStringLiteral("Our 175B run"));
    // Undoing the typed name gives the automatic name back.
    f.document.undoStack()->undo();
    QVERIFY(f.document.plan().name.empty());
    QVERIFY2(f.document.planName().startsWith(QStringLiteral("GPT-3 175B on 512 A100 SXM4 80GB, data ")), qPrintable(f.document.planName()));
}

void TestCompare::runFieldsAreEditableAndNoCostWhenItDoesNotFit()
{
    CompareFixture f;
    auto *currency = f.window.findChild<QLineEdit *>(QStringLiteral("run.currency"));
    QVERIFY(currency);
    currency->setText(QStringLiteral("EUR"));
    emit currency->editingFinished();
    QCOMPARE(f.document.plan().run.currency, std::string("EUR"));
    const QString cost = QString::fromStdString(units::formatCurrency(f.document.estimate().run.cost, "EUR"));
    QVERIFY2(f.window.summary()->runText().contains(cost), qPrintable(f.window.summary()->runText()));
    QVERIFY(cost.startsWith(QStringLiteral("\u20ac")));

    CompareFixture g(QStringLiteral("gpt3-175b-does-not-fit"));
    QCOMPARE(g.window.summary()->runText(), QStringLiteral("Does not fit, no time or cost to train"));
    QVERIFY(g.window.summary()->fitText().startsWith(QStringLiteral("Does not fit: needs 408.1 GiB of 40 GiB")));
    // No single intervention makes GPT-3 175B fit on 64 A100-40GB with tensor 8 and no pipeline: the strip
    // offers the search, which opens the Search page.
    QPushButton *next = g.window.summary()->nextStepButton();
    QVERIFY(!next->isHidden());
    QVERIFY2(next->text().startsWith(QStringLiteral("Search for a Plan")), qPrintable(next->text()));
    QTest::mouseClick(next, Qt::LeftButton);
    QCOMPARE(g.window.currentPage(), MainWindow::Page::Search);
    // A plan that fits with a suggested change offers it, and applying it is one undo step.
    QVERIFY(f.document.advice().suggestion());
    QPushButton *tryIt = f.window.summary()->nextStepButton();
    QVERIFY(tryIt->text().startsWith(QStringLiteral("Try: ")));
    QVERIFY(tryIt->toolTip().contains(io::interventionLabel(f.document.advice().suggestion()->id)));
    const Plan suggested = f.document.advice().suggestion()->plan;
    const int steps = f.document.undoStack()->count();
    QTest::mouseClick(tryIt, Qt::LeftButton);
    QCOMPARE(f.document.undoStack()->count(), steps + 1);
    QVERIFY(f.document.plan() == suggested);
}

void TestCompare::legendNeverElides()
{
    CompareFixture f(QStringLiteral("gpt3-175b-does-not-fit")); // seven entries with "Over capacity"
    QChart *chart = f.window.memoryChart()->chart();
    f.window.show(); // a marker is visible only in a shown chart
    QVERIFY(QTest::qWaitForWindowExposed(&f.window));
    const auto shown = [chart](const QString &name) {
        for (QLegendMarker *m : chart->legend()->markers())
            if (m->label() == name)
                return m->isVisible();
        return false;
    };
    fitChartLegend(chart, QSizeF(1600, 600));
    QCOMPARE(chart->legend()->alignment(), Qt::Alignment(Qt::AlignBottom));
    QVERIFY(shown(QStringLiteral("Capacity")) && shown(QStringLiteral("Over capacity")));
    fitChartLegend(chart, QSizeF(420, 600)); // too narrow for one row: one entry a line at the right
    QCOMPARE(chart->legend()->alignment(), Qt::Alignment(Qt::AlignRight));
    QVERIFY(shown(QStringLiteral("Capacity")) && shown(QStringLiteral("Over capacity")));
    // Too short for the column: the entries the title names go (capacity, hatching), the stack's stay.
    fitChartLegend(chart, QSizeF(420, 200));
    QVERIFY(!shown(QStringLiteral("Capacity")) && !shown(QStringLiteral("Over capacity")));
    QVERIFY(shown(QStringLiteral("Params")) && shown(QStringLiteral("Activations")));
    // Wide again: all of them.
    fitChartLegend(chart, QSizeF(1600, 200));
    QVERIFY(shown(QStringLiteral("Capacity")) && shown(QStringLiteral("Over capacity")));
}

TRAINPLAN_TEST_MAIN(TestCompare)
#include "tst_compare.moc"
