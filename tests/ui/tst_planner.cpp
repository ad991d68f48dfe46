// The planner window offscreen: editing a field changes the charts and undo restores them; a slider drag
// is one undo step; save -> load -> save gives identical bytes; do -> undo -> redo restores the state;
// invalid files show their problems and keep the document; nothing draws NaN.

#include <cmath>

#include <QApplication>
#include <QGroupBox>
#include <QStyleFactory>
#include <memory>
#include <QLabel>
#include <QMessageBox>
#include <QSignalSpy>
#include <QLineEdit>
#include <QSlider>
#include <QStandardPaths>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QTest>
#include <QTimer>
#include <QUndoStack>

#include <qcustomplot.h>

#include "core/common/Units.h"
#include "core/plan/PlanKeys.h"
#include "core/plan/PlanName.h"
#include "io/plan/CatalogJson.h"
#include "ui/DocumentActions.h"
#include "ui/MainWindow.h"
#include "ui/FrameStyle.h"
#include "ui/commands/ChangePlanValue.h"
#include "io/plan/PlanJson.h"
#include "ui/SummaryStrip.h"
#include "TestMain.h"
#include "TestSupport.h"
#include "charts/MemoryChartView.h"
#include "charts/PipelineGanttView.h"
#include "charts/RooflineView.h"
#include "charts/ScalingView.h"
#include "charts/StepBreakdownView.h"
#include "ui/document/PlanDocument.h"
#include "ui/editors/PlanEditor.h"

using namespace trainplan;

namespace {

struct PlannerFixture
{
    PlanDocument document{io::builtinCatalog()};
    MainWindow window{&document};
    PlannerFixture()
    {
        QString error;
        if (!document.loadFromBytes(io::builtinExamplePlan(), QString(), &error))
            qFatal("example: %s", qPrintable(error));
    }
    /// Loads a gallery plan (resources/examples/ID.json) and shows the window at 1280 x 800.
    bool showExample(const char *id)
    {
        QFile file(QStringLiteral(TRAINPLAN_SOURCE_DIR "/resources/examples/%1.json").arg(QLatin1String(id)));
        QString error;
        if (!file.open(QIODevice::ReadOnly) || !document.loadFromBytes(file.readAll(), QString(), &error))
            return false;
        window.resize(1280, 800);
        window.show();
        return QTest::qWaitForWindowExposed(&window);
    }
};

QVector<double> graphValues(QCustomPlot *plot, int graph)
{
    QVector<double> values;
    for (auto it = plot->graph(graph)->data()->constBegin(); it != plot->graph(graph)->data()->constEnd(); ++it)
        values << it->value;
    return values;
}

} // namespace

class TestPlanner : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void editingChangesChartsAndUndoRestoresThem();
    void memoryBandMarksAPeakThatMayNotFit();
    void sliderDragIsOneUndoStep();
    void saveLoadSaveIsByteIdentical();
    void doUndoRedoRestoresState();
    void invalidFilesShowProblemsAndKeepDocument_data();
    void invalidFilesShowProblemsAndKeepDocument();
    void invalidEditShowsRuleInlineAndNoNumbers();
    void rooflineHoverDescribesOp();
    void ganttDrawsEveryOp();
    void zeroComparisonMatchesFigure16_2();
    void undoWorksWhileTheEditedFieldHasFocus();
    void scalingTitleSpeaksOfThePlan();
    void expertDispatchIsEditedInTheWindow();
    void lostTensorOverlapIsSaidUnderItsField();
    void separateQkvIsEditedInTheWindow();
    void repeatedKvHeadsAreEditedInTheWindow();
    void architectureAndReductionKeysAreEdited();
    void everyKeyHasAControl();
    void zeroPlusPlusIsEditedInTheWindow();
    void fp8ScalingIsEditedInTheWindow();
    void offloadedShareIsEditedInTheWindow();
    void pagedStashIsEditedInTheWindow();
    void attentionReplayIsEditedInTheWindow();
    void ropeFusionAndClampAreEditedInTheWindow();
    void bf16LayersAreEditedInTheWindow();
    void stageLayersAreEditedInTheWindow();
    void hybridPatternIsEditedInTheWindow();
    void latentMoeIsEditedInTheWindow();
    void expertsOnADenseModelRouteTopTwo();
    void textContrastInBothPalettes();
    void groupBoxFrameLooksAsFusionDrawsIt();
    void dataParallelReadoutSaysWhenTheLayoutDoesNotDivide();
    void stepChartHoverGivesFormulaAndSource();
    void oneEstimatePerEditAndPreciseSignals();
};

// One edit, one estimate (issue 41): the document names the keys the edit changed (tensor, and data
// parallelism that follows it) before estimateChanged; the editor shows them and the automatic name
// (which follows every key); undo is one more estimate, an edit to the same value none.
void TestPlanner::oneEstimatePerEditAndPreciseSignals()
{
    PlannerFixture f;
    QSignalSpy keys(&f.document, &PlanDocument::keyChanged);
    QSignalSpy estimates(&f.document, &PlanDocument::estimateChanged);
    QSignalSpy groups(&f.document, &PlanDocument::nodeGroupChanged);
    const int made = f.document.estimateCount();
    auto *name = f.window.findChild<QLineEdit *>(QStringLiteral("name"));
    QVERIFY(name);
    auto *tensor = f.window.findChild<QSpinBox *>(QStringLiteral("parallel.tensor"));
    QCOMPARE(tensor->value(), 8);
    const QString nameBefore = name->placeholderText();
    tensor->setValue(4);
    QCOMPARE(f.document.estimateCount(), made + 1);
    QCOMPARE(estimates.size(), 1);
    QStringList paths;
    for (const QList<QVariant> &k : keys)
        paths << k.at(0).toString();
    QCOMPARE(paths, (QStringList{QStringLiteral("parallel.data"), QStringLiteral("parallel.tensor")}));
    QVERIFY(groups.isEmpty());
    QCOMPARE(f.document.plan().parallel.data, 16);
    QVERIFY2(f.window.findChild<QLabel *>(QStringLiteral("parallel.data"))->text().startsWith(QStringLiteral("16 ")),
             qPrintable(f.window.findChild<QLabel *>(QStringLiteral("parallel.data"))->text()));
    const QString automatic = QString::fromStdString(automaticPlanName(f.document.plan(), f.document.catalog()));
    QCOMPARE(name->placeholderText(), automatic);
    QVERIFY2(automatic != nameBefore, qPrintable(automatic)); // the name says the layout
    f.document.undoStack()->undo();
    QCOMPARE(f.document.estimateCount(), made + 2);
    QCOMPARE(tensor->value(), 8);
    // Setting the plan it already has makes no estimate and says nothing.
    f.document.setPlan(f.document.plan());
    QCOMPARE(f.document.estimateCount(), made + 2);
    QCOMPARE(estimates.size(), 2);
}

// Type tensor 4, Enter, Ctrl+Z with the field still focused: the edit is undone.
void TestPlanner::undoWorksWhileTheEditedFieldHasFocus()
{
    PlannerFixture f;
    f.window.show();
    QVERIFY(QTest::qWaitForWindowActive(&f.window));
    auto *tensor = f.window.findChild<QSpinBox *>(QStringLiteral("parallel.tensor"));
    tensor->setFocus();
    tensor->selectAll();
    QTest::keyClicks(tensor, QStringLiteral("4"));
    QTest::keyClick(tensor, Qt::Key_Return);
    QCOMPARE(tensor->text(), QStringLiteral("4"));
    QCOMPARE(f.document.plan().parallel.tensor, 4);
    QCOMPARE(f.document.undoStack()->undoText(), QStringLiteral("Change tensor parallelism"));
    QVERIFY(tensor->hasFocus());
    QTest::keyClick(tensor, Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(f.document.plan().parallel.tensor, 8);
    QCOMPARE(tensor->value(), 8);
    QTest::keyClick(tensor, Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
    QCOMPARE(f.document.plan().parallel.tensor, 4);
}

// The title gives the plan's own efficiency, and its point is marked on both curves, also for a replica
// count that is not a power of two.
void TestPlanner::scalingTitleSpeaksOfThePlan()
{
    PlannerFixture f;
    const ScalingPoint *strong = f.document.estimate().scaling->planStrong();
    QVERIFY(strong);
    QCOMPARE(strong->workers, 8);
    QCustomPlot *plot = f.window.scaling()->plot();
    const QString title = f.window.scaling()->title();
    QVERIFY2(title.contains(QStringLiteral("8 replicas at %1 efficiency").arg(QString::fromStdString(units::formatPercent(strong->efficiency, 1)))),
             qPrintable(title));
    QVERIFY(!title.contains(QStringLiteral("4096")));
    // 144 replicas (as Llama 3.1 405B's published layout has): its point is computed and ringed.
    Plan plan = test::presetPlan("llama3.1-405b", 8, 9, 144, 1, 144 * 16);
    plan.training.recompute = Recompute::Full;
    f.document.setPlan(plan);
    QVERIFY(f.document.estimate().valid);
    QVERIFY(f.document.estimate().scaling->planStrong() || f.document.estimate().scaling->planWeak());
    bool ringed = false;
    for (int g = 0; g < plot->graphCount(); ++g)
        if (plot->graph(g)->name().startsWith(QStringLiteral("this plan (144 replicas)")))
            ringed = plot->graph(g)->data()->size() >= 1;
    QVERIFY(ringed);
    // ZeRO-2 under DeepSpeed: the weak curve rises above 100% (each replica's optimizer shard shrinks), the
    // title says why and the efficiency axis shows the whole curve.
    f.document.setPlan(test::examplePlan("llama2-7b-deepspeed-zero2-8-a100"));
    double most = 0;
    for (const ScalingPoint &p : f.document.estimate().scaling->weak)
        most = std::max(most, p.efficiency);
    QVERIFY2(most > 1.0 && most < 1.02, qPrintable(QString::number(most)));
    // The title names the peak and where it is, not only "over 100%" beside the plan's own (lower) figure.
    std::int64_t at = 0;
    for (const ScalingPoint &p : f.document.estimate().scaling->weak)
        if (p.efficiency == most)
            at = p.workers;
    const QString peak = QStringLiteral("%1 at %2 replicas, over 100% as ZeRO shards the optimizer step")
                             .arg(QString::fromStdString(units::formatPercent(most, 1)))
                             .arg(at);
    QVERIFY2(f.window.scaling()->title().contains(peak), qPrintable(f.window.scaling()->title() + " / " + peak));
    QVERIFY(plot->yAxis2->range().upper >= most);
}

// The fit tile prices the memory band (issues 36 and 37): Qwen3-30B-A3B on 8 H100 fills 97% of each device, inside
// its 5% margin ("tight"); without the margin it still fits as estimated, but the peak at the band's upper edge does
// not ("uncertain"), and the tooltip says how far the band reaches.
void TestPlanner::memoryBandMarksAPeakThatMayNotFit()
{
    PlannerFixture f;
    QVERIFY(f.showExample("qwen3-30b-a3b-8-h100"));
    const auto fit = [&f] { return f.window.summary()->fitText(); };
    QVERIFY2(fit().startsWith(QStringLiteral("Fits, tight")), qPrintable(fit()));
    auto *margin = f.window.findChild<QDoubleSpinBox *>(QStringLiteral("training.memory_margin"));
    QVERIFY(margin);
    margin->setValue(0.0);
    QCOMPARE(f.document.plan().training.memoryMargin, 0.0);
    QVERIFY2(fit().startsWith(QStringLiteral("Fits, uncertain")), qPrintable(fit()));
    const QString tip = f.window.summary()->fitToolTip();
    QVERIFY2(tip.contains(QStringLiteral("comparable published peaks")), qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("it may not fit")), qPrintable(tip));
    f.document.undoStack()->undo();
    QVERIFY(fit().startsWith(QStringLiteral("Fits, tight")));
}

void TestPlanner::editingChangesChartsAndUndoRestoresThem()
{
    PlannerFixture f;
    const auto memoryBefore = f.window.memoryChart()->seriesValues();
    const auto rooflineBefore = graphValues(f.window.roofline()->plot(), 0);
    const auto scalingBefore = graphValues(f.window.scaling()->plot(), 1);
    const QString fitBefore = f.window.summary()->fitText();

    auto *seq = f.window.findChild<QSpinBox *>(QStringLiteral("model.seq_len"));
    QVERIFY(seq);
    seq->setValue(4096);
    QCOMPARE(f.document.plan().model.seqLen, 4096);
    QVERIFY(f.window.memoryChart()->seriesValues() != memoryBefore); // activations grow
    QVERIFY(graphValues(f.window.roofline()->plot(), 0) != rooflineBefore);
    QVERIFY(graphValues(f.window.scaling()->plot(), 1) != scalingBefore);
    QVERIFY(f.window.summary()->fitText() != fitBefore);
    QVERIFY(f.document.isModified());

    f.document.undoStack()->undo();
    QCOMPARE(f.document.plan().model.seqLen, 2048);
    QCOMPARE(seq->value(), 2048);
    QCOMPARE(f.window.memoryChart()->seriesValues(), memoryBefore);
    QCOMPARE(graphValues(f.window.roofline()->plot(), 0), rooflineBefore);
    QCOMPARE(graphValues(f.window.scaling()->plot(), 1), scalingBefore);
    QCOMPARE(f.window.summary()->fitText(), fitBefore);
    QVERIFY(!f.document.isModified());
}

void TestPlanner::sliderDragIsOneUndoStep()
{
    PlannerFixture f;
    auto *slider = f.window.findChild<QSlider *>(QStringLiteral("training.micro_batch"));
    QVERIFY(slider);
    const int commands = f.document.undoStack()->count();
    slider->setSliderDown(true);
    for (int v = 1; v <= 3; ++v)
        slider->setValue(v); // 2, 4, 8 sequences
    slider->setSliderDown(false);
    QCOMPARE(f.document.plan().training.microBatch, 8);
    QCOMPARE(f.document.undoStack()->count(), commands + 1);
    QCOMPARE(f.document.undoStack()->undoText(), QStringLiteral("Change micro-batch"));
    f.document.undoStack()->undo();
    QCOMPARE(f.document.plan().training.microBatch, 1);
    QCOMPARE(slider->value(), 0);
    // Dragging back to the start leaves no command behind.
    slider->setValue(2);
    slider->setValue(0);
    QCOMPARE(f.document.undoStack()->index(), commands);
}

void TestPlanner::saveLoadSaveIsByteIdentical()
{
    PlannerFixture f;
    f.window.findChild<QSpinBox *>(QStringLiteral("parallel.tensor"))->setValue(4); // data follows: 16
    QCOMPARE(f.document.plan().parallel.data, 16);
    QTemporaryDir dir;
    QString error;
    const QString first = dir.filePath("a.json"), second = dir.filePath("b.json");
    QVERIFY2(f.document.save(first, &error), qPrintable(error));
    PlanDocument reloaded(io::builtinCatalog());
    QVERIFY2(reloaded.load(first, &error), qPrintable(error));
    QVERIFY(reloaded.save(second, &error));
    QFile a(first), b(second);
    QVERIFY(a.open(QIODevice::ReadOnly) && b.open(QIODevice::ReadOnly));
    QCOMPARE(b.readAll(), a.readAll());
}

void TestPlanner::doUndoRedoRestoresState()
{
    PlannerFixture f;
    const Plan start = f.document.plan();
    f.window.findChild<QSpinBox *>(QStringLiteral("parallel.pipeline"))->setValue(4);
    f.window.findChild<QSpinBox *>(QStringLiteral("cluster.nodes"))->setValue(32);
    const Plan edited = f.document.plan();
    QCOMPARE(edited.parallel.data, 8); // 256 GPUs / (8 x 4)
    QVERIFY(!(edited == start));
    QUndoStack *stack = f.document.undoStack();
    while (stack->canUndo())
        stack->undo();
    QVERIFY(f.document.plan() == start);
    while (stack->canRedo())
        stack->redo();
    QVERIFY(f.document.plan() == edited);
}

void TestPlanner::invalidFilesShowProblemsAndKeepDocument_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("expected");
    const QByteArray valid = io::builtinExamplePlan();
    QTest::newRow("malformed") << QByteArray("{\"format\": ") << "malformed JSON";
    QTest::newRow("tensor does not divide heads") << QByteArray(valid).replace("\"tensor\": 8", "\"tensor\": 7")
                                                  << "parallel.tensor: Tensor parallel (7) must divide the 96 attention heads";
    QTest::newRow("unknown device") << QByteArray(valid).replace("a100-sxm4-80gb", "tpu-v9") << "cluster.device: unknown device";
    QTest::newRow("gpu count") << QByteArray(valid).replace("\"nodes\": 64", "\"nodes\": 63") << "parallel.pipeline: Tensor parallel x pipeline stages (8 x 8) must divide the 504 GPUs (63 nodes x 8) into whole data-parallel replicas; valid stage counts nearby: 1 or 3";
    QTest::newRow("newer version") << QByteArray(valid).replace("\"version\": 1", "\"version\": 7") << "newer Trainplan";
}

void TestPlanner::invalidFilesShowProblemsAndKeepDocument()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, expected);
    PlannerFixture f;
    f.window.findChild<QSpinBox *>(QStringLiteral("model.layers"))->setValue(48);
    const Plan before = f.document.plan();
    QTemporaryDir dir;
    const QString path = dir.filePath("bad.json");
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(json);
    file.close();
    QString shown;
    QTimer::singleShot(0, [&shown] {
        if (auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget())) {
            shown = box->text();
            box->accept();
        }
    });
    QVERIFY(!f.window.documentActions()->openFile(path));
    QVERIFY2(shown.contains(expected), qPrintable(shown));
    QVERIFY(f.document.plan() == before);
    QVERIFY(f.document.isModified()); // the unsaved edit is still there
}

void TestPlanner::invalidEditShowsRuleInlineAndNoNumbers()
{
    PlannerFixture f;
    f.window.findChild<QSpinBox *>(QStringLiteral("model.heads"))->setValue(100); // 8 does not divide 100
    QVERIFY(!f.document.estimate().valid);
    bool shown = false;
    for (QLabel *label : f.window.findChildren<QLabel *>())
        shown |= label->isVisibleTo(&f.window) && label->text().contains(QStringLiteral("Attention heads (100) must divide the hidden size (12288)"));
    QVERIFY(shown);
    QVERIFY(f.window.summary()->fitText().contains(QStringLiteral("Invalid plan")));
    for (QLabel *label : f.window.summary()->findChildren<QLabel *>())
        QVERIFY(!label->text().contains(QStringLiteral("nan")) && !label->text().contains(QStringLiteral("inf")));
    // The charts say why instead of drawing empty axes (issue 40): no axis shown, the rule in the chart.
    for (PlotView *view : std::initializer_list<PlotView *>{f.window.roofline(), f.window.scaling()}) {
        QCustomPlot *plot = view->plot();
        for (QCPAxis *axis : plot->axisRect()->axes())
            QVERIFY(!axis->visible());
        bool said = false;
        for (int i = 0; i < plot->itemCount(); ++i)
            if (auto *text = qobject_cast<QCPItemText *>(plot->item(i)))
                said |= text->text().contains(QStringLiteral("model.heads")) && text->text().contains(QStringLiteral("must divide"));
        QVERIFY(said);
    }
    f.document.undoStack()->undo();
    QVERIFY(f.document.estimate().valid);
    // And the axes come back with a valid plan.
    QVERIFY(f.window.roofline()->plot()->xAxis->visible() && f.window.scaling()->plot()->yAxis2->visible());
}

void TestPlanner::rooflineHoverDescribesOp()
{
    PlannerFixture f;
    f.window.resize(1280, 800);
    f.window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&f.window));
    QCustomPlot *plot = f.window.roofline()->plot();
    plot->replot();
    QCPGraph *forward = plot->graph(0);
    QVERIFY(forward->dataCount() > 5);
    const auto point = forward->data()->constBegin();
    const QPointF pixel = forward->coordsToPixels(point->key, point->value);
    const QString text = f.window.roofline()->describeOpAt(pixel.toPoint());
    QVERIFY2(text.contains(QStringLiteral("FLOPs")) && text.contains(QStringLiteral("forward")), qPrintable(text));
    QVERIFY(f.window.roofline()->describeOpAt(QPoint(-100, -100)).isEmpty());
}

void TestPlanner::ganttDrawsEveryOp()
{
    PlannerFixture f;
    PipelineGanttView *gantt = f.window.pipeline();
    // 8 stages x 192 micro-batches x (forward + backward), then each stage's data-parallel sync and optimizer.
    QCOMPARE(gantt->opCount(), std::size_t(8 * 192 * 2 + 8 * 2));
    // The legend lists the kinds present: 1F1B has no separate weight-gradient op.
    QCOMPARE(gantt->legendNames(), (QStringList{"forward", "backward", "data-parallel comm.", "optimizer"}));
    // The time axis covers the whole step, not only the schedule.
    QVERIFY(gantt->plot()->xAxis->range().upper >= f.document.estimate().step.stepSeconds);
    // Hover names the op under the pointer: the first op of stage 0 is the forward of micro-batch 0.
    gantt->resize(1200, 600);
    gantt->plot()->replot();
    QCOMPARE(gantt->describeAt(gantt->segmentCentre(0)).section(QLatin1Char('\n'), 0, 0),
             QStringLiteral("Stage 0: forward of micro-batch 0"));
    const std::size_t last = gantt->opCount() - 1;
    QVERIFY(gantt->describeAt(gantt->segmentCentre(last)).startsWith(QStringLiteral("Stage 7: optimizer")));

    f.window.findChild<QComboBox *>(QStringLiteral("parallel.schedule"))->setCurrentIndex(int(Schedule::ZeroBubbleH1));
    QVERIFY(gantt->legendNames().contains(QStringLiteral("weight gradient (W)")));
    QVERIFY(!gantt->legendNames().contains(QStringLiteral("backward")));

    // One stage: 512 GPUs / tensor 8 = 64 replicas, 1536 / 64 = 24 micro-batches one after the other.
    f.window.findChild<QSpinBox *>(QStringLiteral("parallel.pipeline"))->setValue(1);
    QCOMPARE(gantt->opCount(), std::size_t(24 * 2 + 2));
    QVERIFY(gantt->plot()->yAxis->visible());

    // The baseline's schedule under the plan's, kept across edits (copied only when the baseline changes):
    // pinned at one stage, it stays at 50 segments while the plan goes back to 8 stages; pinned again, it
    // follows; cleared, it goes.
    QCOMPARE(gantt->baselineOpCount(), std::size_t(0));
    f.document.pinBaseline();
    QCOMPARE(gantt->baselineOpCount(), std::size_t(24 * 2 + 2));
    f.window.findChild<QSpinBox *>(QStringLiteral("parallel.pipeline"))->setValue(8);
    QCOMPARE(gantt->baselineOpCount(), std::size_t(24 * 2 + 2));
    const std::size_t eightStages = gantt->opCount();
    QVERIFY(eightStages > std::size_t(24 * 2 + 2));
    f.document.pinBaseline();
    QCOMPARE(gantt->baselineOpCount(), eightStages);
    f.document.clearBaseline();
    QCOMPARE(gantt->baselineOpCount(), std::size_t(0));
}

void TestPlanner::zeroComparisonMatchesFigure16_2()
{
    // Figure 16.2's accounting: 16-bit parameters and gradients, FP32 master and moments (16 bytes per
    // parameter replicated); ZeRO 1/2/3 divide optimizer, + gradients, + parameters by the W workers.
    PlannerFixture f;
    f.window.memoryChart()->setZeroComparison(true);
    const auto sets = f.window.memoryChart()->seriesValues();
    QCOMPARE(sets.size(), 4);
    // Drawn in GiB, as every memory figure of the window.
    const double P = f.document.estimate().model.parameters / units::GiB, W = double(f.document.plan().parallel.data);
    const double expected[] = {16 * P, P * (2 + 2 + 12 / W), P * (2 + (2 + 12) / W), P * 16 / W};
    for (int stage = 0; stage < 4; ++stage) {
        double total = 0;
        for (const auto &set : sets)
            total += set[stage];
        TP_COMPARE_REL(total, expected[stage], 1e-12);
    }
    QCOMPARE(sets[2][0], 4 * P); // the FP32 master copy, replicated
}

void TestPlanner::expertDispatchIsEditedInTheWindow()
{
    // The DeepEP gallery plan: its dispatcher, router groups and whole-layer recomputation are fields of the
    // editor; switching to the all-to-all dispatcher sends 8 copies per token instead of ~3.6 nodes' worth, at
    // 0.70 of the NIC instead of DeepEP's nominal rate, and lengthens the step; undo restores it. A dense plan
    // hides the fields.
    PlannerFixture f;
    QVERIFY(f.showExample("deepseek-v3-1024-h100-deepep"));
    QString error;
    auto *dispatcher = f.window.findChild<QComboBox *>(QStringLiteral("parallel.expert_dispatcher"));
    auto *groups = f.window.findChild<QSpinBox *>(QStringLiteral("model.router_groups"));
    auto *recomputeMoe = f.window.findChild<QCheckBox *>(QStringLiteral("training.recompute_moe"));
    QVERIFY(dispatcher && groups && recomputeMoe);
    QVERIFY(dispatcher->isVisibleTo(&f.window) && groups->isVisibleTo(&f.window) && recomputeMoe->isVisibleTo(&f.window));
    QCOMPARE(groups->value(), 8);
    QVERIFY(recomputeMoe->isChecked());
    const double deepEp = f.document.estimate().step.stepSeconds;
    const double deepEpComm = f.document.estimate().step.category(TimeCategory::ExpertComm);
    dispatcher->setCurrentIndex(0); // the choices in the enum's order: alltoall, deepep
    QCOMPARE(f.document.plan().parallel.expertDispatcher, ExpertDispatcher::AllToAll);
    QVERIFY(f.document.estimate().step.category(TimeCategory::ExpertComm) > 3.0 * deepEpComm);
    QVERIFY(f.document.estimate().step.stepSeconds > deepEp);
    f.document.undoStack()->undo();
    QCOMPARE(f.document.plan().parallel.expertDispatcher, ExpertDispatcher::DeepEp);
    QCOMPARE(f.document.estimate().step.stepSeconds, deepEp);
    QVERIFY(f.document.loadFromBytes(io::builtinExamplePlan(), QString(), &error));
    QVERIFY(!dispatcher->isVisibleTo(&f.window) && !groups->isVisibleTo(&f.window));
}

// Grok-1 on 512 H100 overlaps its tensor-parallel collectives; ticking the expert all-to-all overlap takes the
// one hardware queue Hopper's tensor-parallel overlap needs: the field says so under it, whole, the
// tensor-parallel time becomes what it is without that overlap, and undo takes both back.
void TestPlanner::lostTensorOverlapIsSaidUnderItsField()
{
    PlannerFixture f;
    QVERIFY(f.showExample("grok-1-512-h100"));
    const auto said = [&f] {
        for (QLabel *label : f.window.findChildren<QLabel *>(QStringLiteral("problem")))
            if (label->isVisibleTo(&f.window) && label->text().contains(QLatin1String("hides nothing")))
                return true;
        return false;
    };
    QVERIFY(f.document.plan().parallel.tensorCommOverlap && !said());
    const double overlapped = f.document.estimate().step.category(TimeCategory::TensorComm);
    auto *expertOverlap = f.window.findChild<QCheckBox *>(QStringLiteral("parallel.expert_comm_overlap"));
    QVERIFY(expertOverlap && expertOverlap->isVisibleTo(&f.window));
    expertOverlap->setChecked(true);
    QVERIFY(f.document.plan().parallel.expertCommOverlap && f.document.estimate().valid);
    QVERIFY(said());
    // The whole sentence shows: the label is as high as its text needs at its width (the form had given a
    // three-line problem the height of two and cut it off).
    QTest::qWait(100);
    for (QLabel *label : f.window.findChildren<QLabel *>(QStringLiteral("problem")))
        if (label->isVisibleTo(&f.window))
            QVERIFY2(label->height() >= label->heightForWidth(label->width()),
                     qPrintable(QStringLiteral("%1 px of %2").arg(label->height()).arg(label->heightForWidth(label->width()))));
    Plan without = f.document.plan();
    without.parallel.tensorCommOverlap = false;
    const Estimate exposed = estimate(without, io::builtinCatalog(), EstimateOptions::analytic());
    QCOMPARE(f.document.estimate().step.category(TimeCategory::TensorComm), exposed.step.category(TimeCategory::TensorComm));
    QVERIFY(exposed.step.category(TimeCategory::TensorComm) > overlapped);
    f.document.undoStack()->undo();
    QVERIFY(!f.document.plan().parallel.expertCommOverlap && !said());
}

// The 32K-token torchtitan plan repeats K and V for the query heads (repeat_kv at 9dec370); unticking the box
// drops the copies and the wider K and V the attention reads, so the step shortens; undo restores it. Under
// Megatron-Core the row is hidden (its attention never repeats them).
void TestPlanner::repeatedKvHeadsAreEditedInTheWindow()
{
    PlannerFixture f;
    QVERIFY(f.showExample("llama3.1-8b-torchtitan-32k-8-h100"));
    QString error;
    auto *box = f.window.findChild<QCheckBox *>(QStringLiteral("training.repeat_kv_heads"));
    QVERIFY(box && box->isChecked() && box->isEnabled());
    const double repeated = f.document.estimate().step.stepSeconds;
    box->click();
    QVERIFY(!f.document.plan().training.repeatKvHeads);
    QVERIFY(f.document.estimate().step.stepSeconds < repeated);
    f.document.undoStack()->undo();
    QVERIFY(f.document.plan().training.repeatKvHeads);
    QCOMPARE(f.document.estimate().step.stepSeconds, repeated);
    QVERIFY(box->isVisibleTo(&f.window));
    QVERIFY(f.document.loadFromBytes(io::builtinExamplePlan(), QString(), &error)); // Megatron-Core
    QVERIFY(!box->isVisibleTo(&f.window));
}

// The torchtitan gallery plan runs Q, K and V as three GEMMs; its check box fuses them (a shorter step under
// TP 8, whose key and value GEMMs are narrow), undo restores them; under Megatron-Core its row is hidden.
void TestPlanner::separateQkvIsEditedInTheWindow()
{
    PlannerFixture f;
    QVERIFY(f.showExample("llama3.1-405b-torchtitan-4d-512-h100"));
    QString error;
    auto *box = f.window.findChild<QCheckBox *>(QStringLiteral("training.separate_qkv"));
    QVERIFY(box && box->isChecked() && box->isEnabled());
    const double separate = f.document.estimate().step.stepSeconds;
    box->click();
    QVERIFY(!f.document.plan().training.separateQkv);
    QVERIFY(f.document.estimate().step.stepSeconds < separate);
    f.document.undoStack()->undo();
    QVERIFY(f.document.plan().training.separateQkv);
    QCOMPARE(f.document.estimate().step.stepSeconds, separate);
    QVERIFY(box->isVisibleTo(&f.window));
    QVERIFY(f.document.loadFromBytes(io::builtinExamplePlan(), QString(), &error)); // Megatron-Core
    QVERIFY(!box->isVisibleTo(&f.window));
}

// Keys the engine reads that had no line in the window: the model's MLP, norm, positions, biases, dropout and tied
// embeddings, FP32 gradients (under FSDP the reduce-scatter's dtype), padding, the gradient bucket and its
// overlap. Each is a control named by its key; an edit is one undo step. On the torchtitan 8B plan (FSDP over
// 8 GPUs) BF16 reduction halves the bytes the gradient reduce-scatters move; GeLU for SwiGLU lowers the
// parameter count.
void TestPlanner::architectureAndReductionKeysAreEdited()
{
    PlannerFixture f;
    QVERIFY(f.showExample("llama3.1-8b-torchtitan-32k-8-h100"));
    for (const char *key : {"model.tied_embeddings", "model.linear_bias", "model.dropout", "training.fp32_gradients",
                            "parallel.overlap_grad_reduce"})
        QVERIFY2(f.window.findChild<QCheckBox *>(QLatin1String(key)), key);
    for (const char *key : {"model.mlp", "model.norm", "model.position_embedding"})
        QVERIFY2(f.window.findChild<QComboBox *>(QLatin1String(key)), key);
    for (const char *key : {"training.padding_fraction", "parallel.bucket_bytes"})
        QVERIFY2(f.window.findChild<QDoubleSpinBox *>(QLatin1String(key)), key);
    auto *fp32 = f.window.findChild<QCheckBox *>(QStringLiteral("training.fp32_gradients"));
    QVERIFY(fp32->isChecked() && fp32->isVisibleTo(&f.window));
    const auto reduced = [&] {
        return f.document.estimate().step.floor.bytes[std::size_t(FloorKind::GradientReduce)].received;
    };
    const double floatReduce = reduced();
    QVERIFY(floatReduce > 0);
    fp32->click();
    QVERIFY(!f.document.plan().training.fp32Gradients);
    QCOMPARE(reduced(), floatReduce / 2);
    f.document.undoStack()->undo();
    QVERIFY(f.document.plan().training.fp32Gradients);
    auto *mlp = f.window.findChild<QComboBox *>(QStringLiteral("model.mlp"));
    const double parameters = f.document.estimate().model.parameters;
    const std::vector<KeyChoice> &kinds = findPlanKey("model.mlp")->choices();
    const auto gelu = std::find_if(kinds.begin(), kinds.end(), [](const KeyChoice &c) { return c.spelling == "gelu"; });
    QVERIFY(gelu != kinds.end());
    mlp->setCurrentIndex(int(gelu - kinds.begin()));
    QCOMPARE(f.document.plan().model.mlp, MlpKind::Gelu);
    QVERIFY(f.document.estimate().model.parameters < parameters); // two MLP matrices instead of three
    f.document.undoStack()->undo();
    QCOMPARE(f.document.plan().model.mlp, MlpKind::SwiGlu);
}

// A key the engine reads but the window cannot edit is not done (the brief): every plan key is either an editor
// row named by its path, or one of the controls listed here, each named by the widget that edits it elsewhere
// (the Cluster Builder's inspector, canvas and palette; the preset choice). The two file-format fields are not
// plan settings.
void TestPlanner::everyKeyHasAControl()
{
    PlannerFixture f;
    QVERIFY(f.showExample("deepseek-v3-1024-h100"));
    const std::map<std::string, const char *> elsewhere{
        {"model.name", "model.preset"},
        {"parallel.data", "parallel.data"}, // GPUs over the other sizes: shown, set by them
        {"cluster.network", "network"},
        {"cluster.intra_node_link", "groupLink"},
        {"cluster.node_groups", "clusterCanvas"},
        {"cluster.custom_devices", "newAccelerator"},
        {"cluster.network_bandwidth", "networkBandwidth"},
        {"cluster.network_latency", "networkLatency"},
        {"cluster.intra_node_bandwidth", "intraNodeBandwidth"},
        {"cluster.intra_node_latency", "intraNodeLatency"},
        {"cluster.runtime_context_bytes", "runtimeContext"},
        {"cluster.host_link_bandwidth", "hostLinkBandwidth"},
        {"cluster.host_memory_bandwidth", "hostMemoryBandwidth"},
        {"cluster.host_launch_overhead", "hostLaunch"},
        {"cluster.host_enqueue_overhead", "hostEnqueue"},
        {"cluster.flex_dispatch_efficiency", "flexDispatch"},
        {"cluster.network_alltoall_efficiency", "networkAllToAll"},
        {"cluster.intra_node_alltoall_efficiency", "intraNodeAllToAll"}};
    for (const PlanKey &key : planKeys()) {
        const std::string path(key.path);
        if (path == "format" || path == "version")
            continue;
        const auto other = elsewhere.find(path);
        const QString name = other != elsewhere.end() ? QLatin1String(other->second) : QLatin1String(key.path);
        QVERIFY2(key.editor != KeyEditor::None || other != elsewhere.end(), key.path);
        QVERIFY2(f.window.findChild<QWidget *>(name), qPrintable(QStringLiteral("%1: no control named %2")
                                                                     .arg(QLatin1String(key.path), name)));
    }
}

// The gallery's CPU-optimizer plan steps half of each shard on the host: the Parallelism dock's "Offloaded share"
// moves the optimizer's memory and time (all of it on the host: less memory, a longer step; the copies overlapped:
// a shorter one), one undo step each; under DeepSpeed, which offloads everything, the field is hidden.
void TestPlanner::offloadedShareIsEditedInTheWindow()
{
    PlannerFixture f;
    QVERIFY(f.showExample("qwen3-30b-a3b-optimizer-offload-16-h100"));
    auto *share = f.window.findChild<QDoubleSpinBox *>(QStringLiteral("parallel.optimizer_offload_fraction"));
    auto *overlap = f.window.findChild<QCheckBox *>(QStringLiteral("parallel.overlap_offload_copies"));
    QVERIFY(share && overlap);
    QVERIFY(share->isVisibleTo(&f.window) && overlap->isVisibleTo(&f.window));
    QCOMPARE(share->value(), 0.5);
    const Estimate half = f.document.estimate();
    share->setValue(1.0);
    QCOMPARE(f.document.plan().parallel.optimizerOffloadFraction, 1.0);
    const Estimate all = f.document.estimate();
    QVERIFY(all.memory.peakBytes < half.memory.peakBytes);
    QVERIFY(all.step.stepSeconds > half.step.stepSeconds);
    overlap->click();
    QVERIFY(f.document.plan().parallel.overlapOffloadCopies);
    QVERIFY(f.document.estimate().step.stepSeconds < all.step.stepSeconds);
    f.document.undoStack()->undo();
    f.document.undoStack()->undo();
    QCOMPARE(f.document.plan().parallel.optimizerOffloadFraction, 0.5);
    QCOMPARE(f.document.estimate().step.stepSeconds, half.step.stepSeconds);
    Plan deepspeed = f.document.plan();
    deepspeed.training.framework = Framework::DeepSpeed;
    deepspeed.parallel.optimizerOffloadFraction = 1.0;
    QString error;
    QVERIFY2(f.document.loadFromBytes(io::writePlan(deepspeed, io::builtinCatalog()), QString(), &error),
             qPrintable(error));
    QVERIFY(!share->isVisibleTo(&f.window));
}

// The gallery's FP8 current-scaling plan: its scaling is a choice in the Training dock; delayed scaling adds the
// amax reductions (a longer step) and lets the optimizer go to the host with FP8 gathers, which Megatron-LM refuses
// under tensorwise (the offload check box then names the rule); undo restores it; a BF16 plan hides the field.
void TestPlanner::fp8ScalingIsEditedInTheWindow()
{
    PlannerFixture f;
    QVERIFY(f.showExample("llama3-70b-fp8-current-scaling-64-h100"));
    auto *scaling = f.window.findChild<QComboBox *>(QStringLiteral("training.fp8_recipe"));
    auto *offload = f.window.findChild<QCheckBox *>(QStringLiteral("parallel.offload_optimizer"));
    QVERIFY(scaling && offload);
    QVERIFY(scaling->isVisibleTo(&f.window));
    QCOMPARE(f.document.plan().training.fp8Recipe, Fp8Recipe::Tensorwise);
    const double tensorwise = f.document.estimate().step.stepSeconds;
    scaling->setCurrentIndex(0); // the enum's order: delayed, tensorwise
    QCOMPARE(f.document.plan().training.fp8Recipe, Fp8Recipe::Delayed);
    QVERIFY(f.document.estimate().step.stepSeconds > tensorwise);
    offload->click();
    QVERIFY(f.document.estimate().valid); // delayed scaling offloads with FP8 gathers
    f.document.undoStack()->undo();
    f.document.undoStack()->undo();
    QCOMPARE(f.document.plan().training.fp8Recipe, Fp8Recipe::Tensorwise);
    QCOMPARE(f.document.estimate().step.stepSeconds, tensorwise);
    offload->click();
    QVERIFY(!f.document.estimate().valid);
    QVERIFY(std::any_of(f.document.estimate().problems.begin(), f.document.estimate().problems.end(),
                        [](const Problem &p) { return p.key == "parallel.offload_optimizer" && p.isError(); }));
    f.document.undoStack()->undo();
    QString error;
    QVERIFY(f.document.loadFromBytes(io::builtinExamplePlan(), QString(), &error)); // BF16
    QVERIFY(!scaling->isVisibleTo(&f.window));
}

// The gallery's Megatron-Bridge 26.06 Qwen3-30B-A3B plan stashes its experts' saved tensors in pages: the check box
// in the Training dock turns the copies off (a shorter step, the gallery's 5.56 s to 4.99 s), undo restores them,
// the DeepEP dispatcher with the stash names the rule, and a dense plan hides the box.
void TestPlanner::pagedStashIsEditedInTheWindow()
{
    PlannerFixture f;
    QVERIFY(f.showExample("qwen3-30b-a3b-8-gb300-paged-stash"));
    auto *stash = f.window.findChild<QCheckBox *>(QStringLiteral("training.moe_paged_stash"));
    QVERIFY(stash && stash->isVisibleTo(&f.window) && stash->isChecked());
    const double stashed = f.document.estimate().step.stepSeconds;
    stash->click();
    QVERIFY(!f.document.plan().training.moePagedStash);
    QVERIFY(f.document.estimate().step.stepSeconds < 0.95 * stashed);
    f.document.undoStack()->undo();
    QVERIFY(f.document.plan().training.moePagedStash);
    QCOMPARE(f.document.estimate().step.stepSeconds, stashed);
    auto *dispatcher = f.window.findChild<QComboBox *>(QStringLiteral("parallel.expert_dispatcher"));
    QVERIFY(dispatcher);
    dispatcher->setCurrentIndex(dispatcher->findText(QStringLiteral("DeepEP")));
    QCOMPARE(f.document.plan().parallel.expertDispatcher, ExpertDispatcher::DeepEp);
    QVERIFY(!f.document.estimate().valid);
    QVERIFY(std::any_of(f.document.estimate().problems.begin(), f.document.estimate().problems.end(),
                        [](const Problem &p) { return p.key == "training.moe_paged_stash" && p.isError(); }));
    f.document.undoStack()->undo();
    QVERIFY(f.document.estimate().valid);
    QString error;
    QVERIFY(f.document.loadFromBytes(io::builtinExamplePlan(), QString(), &error)); // a dense model
    QVERIFY(!stash->isVisibleTo(&f.window));
}

// The gallery's torchtitan run on B200 (August 2025) left cuDNN's attention out of its op-level save list: the
// Training dock's box keeps the output instead (a shorter step, more memory: 32 layers x 8,192 x 4,096 x 2 bytes
// stored, less the one layer's that the replay rebuilt at the peak), undo restores it, full recomputation hides the box and an edit setting it there names the rule.
void TestPlanner::attentionReplayIsEditedInTheWindow()
{
    PlannerFixture f;
    QVERIFY(f.showExample("llama3-8b-torchtitan-cudnn-8-b200"));
    auto *box = f.window.findChild<QCheckBox *>(QStringLiteral("training.recompute_attention"));
    QVERIFY(box && box->isVisibleTo(&f.window) && box->isChecked());
    const double replayedPeak = f.document.estimate().memory.peakBytes;
    const double replayedStep = f.document.estimate().step.stepSeconds;
    box->click();
    QVERIFY(!f.document.plan().training.recomputeAttention);
    TP_COMPARE_REL(f.document.estimate().memory.peakBytes - replayedPeak, 31.0 * 8192.0 * 4096.0 * 2.0, 1e-9);
    QVERIFY(f.document.estimate().step.stepSeconds < replayedStep);
    f.document.undoStack()->undo();
    QVERIFY(f.document.plan().training.recomputeAttention);
    QCOMPARE(f.document.estimate().step.stepSeconds, replayedStep);
    auto *recompute = f.window.findChild<QComboBox *>(QStringLiteral("training.recompute"));
    QVERIFY(recompute);
    recompute->setCurrentIndex(recompute->findText(QStringLiteral("Full")));
    QCOMPARE(f.document.plan().training.recompute, Recompute::Full);
    QVERIFY(!f.document.estimate().valid);
    QVERIFY(std::any_of(f.document.estimate().problems.begin(), f.document.estimate().problems.end(),
                        [](const Problem &p) { return p.key == "training.recompute_attention" && p.isError(); }));
    QVERIFY(box->isVisibleTo(&f.window)); // shown while it is in error, so it can be turned off
    box->click();
    QVERIFY(f.document.estimate().valid);
    QVERIFY(!box->isVisibleTo(&f.window));
}

// The GPT-OSS gallery plan runs its rotary embedding unfused and clamps its activation (training.fused_rope,
// model.activation_clamp): ticking the fusion removes the unfused kernels and shortens the step, undo restores
// it; the clamp is a field of the Model dock whose 0 removes the clamp's kernels; under FSDP the fusion box hides
// (torch.compile decides there).
void TestPlanner::ropeFusionAndClampAreEditedInTheWindow()
{
    PlannerFixture f;
    QVERIFY(f.showExample("gpt-oss-120b-64-h100"));
    auto *rope = f.window.findChild<QCheckBox *>(QStringLiteral("training.fused_rope"));
    QVERIFY(rope && rope->isVisibleTo(&f.window) && !rope->isChecked());
    const double unfused = f.document.estimate().step.stepSeconds;
    rope->click();
    QVERIFY(f.document.plan().training.fusedRope);
    QVERIFY(!test::findOp(f.document.estimate(), "rotary embedding (unfused)", OpPass::Forward));
    QVERIFY(f.document.estimate().step.stepSeconds < unfused);
    f.document.undoStack()->undo();
    QVERIFY(!f.document.plan().training.fusedRope);
    QCOMPARE(f.document.estimate().step.stepSeconds, unfused);
    auto *clamp = f.window.findChild<QDoubleSpinBox *>(QStringLiteral("model.activation_clamp"));
    QVERIFY(clamp && clamp->isVisibleTo(&f.window));
    QCOMPARE(clamp->value(), 7.0);
    clamp->setValue(0.0);
    QCOMPARE(f.document.plan().model.activationClamp, 0.0);
    QVERIFY(f.document.estimate().step.stepSeconds < unfused);
    f.document.undoStack()->undo();
    QCOMPARE(f.document.plan().model.activationClamp, 7.0);
    QCOMPARE(f.document.estimate().step.stepSeconds, unfused);
    auto *framework = f.window.findChild<QComboBox *>(QStringLiteral("training.framework"));
    QVERIFY(framework);
    framework->setCurrentIndex(framework->findText(QStringLiteral("PyTorch FSDP2")));
    QCOMPARE(f.document.plan().training.framework, Framework::Fsdp);
    QVERIFY(!rope->isVisibleTo(&f.window));
}

// The NVFP4 Nemotron 3 Super plan keeps its last 14 blocks in BF16: a Training dock spin box; none in BF16 shortens
// the step (their GEMMs back at the FP4 rate), undo restores it in one step; more than the model's layers per stage
// names Megatron-Core's rule on the key; in a 16-bit plan the count warns that it does nothing, and once cleared the
// boxes hide.
void TestPlanner::bf16LayersAreEditedInTheWindow()
{
    PlannerFixture f;
    QVERIFY(f.showExample("nemotron-3-super-nvfp4-64-gb300"));
    auto *end = f.window.findChild<QSpinBox *>(QStringLiteral("training.bf16_layers_at_end"));
    auto *start = f.window.findChild<QSpinBox *>(QStringLiteral("training.bf16_layers_at_start"));
    QVERIFY(end && end->isVisibleTo(&f.window) && start && start->isVisibleTo(&f.window));
    QCOMPARE(end->value(), 14);
    const double kept = f.document.estimate().step.stepSeconds;
    end->setValue(0);
    QCOMPARE(f.document.plan().training.bf16LayersAtEnd, 0);
    QVERIFY(f.document.estimate().step.stepSeconds < kept);
    f.document.undoStack()->undo();
    QCOMPARE(f.document.plan().training.bf16LayersAtEnd, 14);
    QCOMPARE(f.document.estimate().step.stepSeconds, kept);
    // Its te_quant.cfg's modules are three boxes of the same dock: the attention projections back at FP4 shorten
    // the step, one undo step restores it.
    auto *attention = f.window.findChild<QCheckBox *>(QStringLiteral("training.bf16_attention_projections"));
    QVERIFY(attention && attention->isVisibleTo(&f.window) && attention->isChecked());
    attention->click();
    QVERIFY(!f.document.plan().training.bf16AttentionProjections);
    QVERIFY(f.document.estimate().step.stepSeconds < kept);
    f.document.undoStack()->undo();
    QCOMPARE(f.document.estimate().step.stepSeconds, kept);
    for (const char *name : {"training.bf16_latent_projections", "training.bf16_mtp_modules"}) {
        auto *box = f.window.findChild<QCheckBox *>(QLatin1String(name));
        QVERIFY2(box && box->isVisibleTo(&f.window) && box->isChecked(), name);
    }
    start->setValue(89);
    QVERIFY(!f.document.estimate().valid);
    QVERIFY(test::errorOn(f.document.estimate(), "training.bf16_layers_at_start"));
    f.document.undoStack()->undo();
    QVERIFY(f.document.estimate().valid);
    auto *precision = f.window.findChild<QComboBox *>(QStringLiteral("training.precision"));
    QVERIFY(precision);
    precision->setCurrentIndex(precision->findText(QStringLiteral("BF16")));
    QCOMPARE(f.document.plan().training.precision, Precision::BF16);
    QVERIFY(end->isVisibleTo(&f.window)); // still set: its warning says it has no effect
    QVERIFY(test::hasProblem(f.document.estimate().problems, "training.bf16_layers_at_end", "no effect"));
    end->setValue(0);
    QVERIFY(!end->isVisibleTo(&f.window) && !start->isVisibleTo(&f.window));
    QVERIFY(attention->isVisibleTo(&f.window)); // still on, and warned about, until it is turned off
    attention->click();
    QVERIFY(!attention->isVisibleTo(&f.window));
}

// The FP8-CS gallery plan's layers per stage (Megatron-Bridge's layout: 9 layers beside the output on the last
// stage) are a line of the Parallelism dock: an even list lengthens the step, undo restores it, a list that
// does not add up names the rule and leaves the plan invalid, an empty line returns to the even split.
void TestPlanner::stageLayersAreEditedInTheWindow()
{
    PlannerFixture f;
    QVERIFY(f.showExample("llama3-70b-fp8-current-scaling-64-h100"));
    auto *line = f.window.findChild<QLineEdit *>(QStringLiteral("parallel.stage_layers"));
    QVERIFY(line && line->isVisibleTo(&f.window));
    QCOMPARE(line->text(), QStringLiteral("10, 10, 10, 11, 10, 10, 10, 9"));
    const double balanced = f.document.estimate().step.stepSeconds;
    const auto enter = [&](const QString &text) {
        line->setText(text);
        line->setModified(true);
        emit line->editingFinished();
    };
    enter(QStringLiteral("10,10,10,10,10,10,10,10"));
    QCOMPARE(f.document.plan().parallel.stageLayers, std::vector<std::int64_t>(8, 10));
    QVERIFY(f.document.estimate().step.stepSeconds > balanced);
    f.document.undoStack()->undo();
    QCOMPARE(f.document.estimate().step.stepSeconds, balanced);
    enter(QStringLiteral("10, 10, 10, 11, 10, 10, 10, 10"));
    QVERIFY(!f.document.estimate().valid);
    QVERIFY(std::any_of(f.document.estimate().problems.begin(), f.document.estimate().problems.end(),
                        [](const Problem &p) { return p.key == "parallel.stage_layers" && p.isError(); }));
    f.document.undoStack()->undo();
    enter(QString());
    QVERIFY(f.document.plan().parallel.stageLayers.empty());
    QVERIFY(f.document.estimate().valid);
    QString error;
    QVERIFY(f.document.loadFromBytes(io::builtinExamplePlan(), QString(), &error));
    QCOMPARE(line->text(), QString());
}

// The gallery's Nemotron 3 Nano plan: its hybrid layer pattern is a line of the Model dock beside the Mamba-2 keys,
// and hides the dense-layer keys a pattern replaces. Writing its MoE blocks as Mamba-2 ones leaves the experts no
// place (the rule is named), undo restores the step; a symbol Megatron-Core has not names the rule and position;
// attention blocks in place of Mamba-2 ones change the step's arithmetic; a transformer hides the Mamba keys.
void TestPlanner::hybridPatternIsEditedInTheWindow()
{
    PlannerFixture f;
    QVERIFY(f.showExample("nemotron-3-nano-8-gb300"));
    auto *line = f.window.findChild<QLineEdit *>(QStringLiteral("model.hybrid_pattern"));
    QVERIFY(line && line->isVisibleTo(&f.window));
    QCOMPARE(line->text(), QStringLiteral("MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME"));
    auto *groups = f.window.findChild<QSpinBox *>(QStringLiteral("model.mamba_groups"));
    QVERIFY(groups && groups->isVisibleTo(&f.window));
    auto *dense = f.window.findChild<QSpinBox *>(QStringLiteral("model.dense_layers"));
    QVERIFY(dense && !dense->isVisibleTo(&f.window));
    const double hybrid = f.document.estimate().step.stepSeconds;
    const double hybridFlops = f.document.estimate().step.modelFlopsPerStep;
    const auto enter = [&](const QString &text) {
        line->setText(text);
        line->setModified(true);
        emit line->editingFinished();
    };
    QString noMoe = line->text();
    noMoe.replace(QLatin1Char('E'), QLatin1Char('M')); // 46 Mamba-2 and 6 attention blocks
    enter(noMoe);
    QCOMPARE(f.document.plan().model.hybridPattern, noMoe.toStdString());
    QVERIFY(!f.document.estimate().valid); // the experts have no E to live in
    QVERIFY(std::any_of(f.document.estimate().problems.begin(), f.document.estimate().problems.end(),
                        [](const Problem &p) { return p.key == "model.experts" && p.isError(); }));
    f.document.undoStack()->undo();
    QCOMPARE(f.document.estimate().step.stepSeconds, hybrid);
    QString text = line->text();
    text[3] = QLatin1Char('X');
    enter(text);
    QVERIFY(!f.document.estimate().valid);
    QVERIFY(std::any_of(f.document.estimate().problems.begin(), f.document.estimate().problems.end(), [](const Problem &p) {
        return p.key == "model.hybrid_pattern" && io::problemMessage(p).find("position 4") != std::string::npos;
    }));
    f.document.undoStack()->undo();
    QVERIFY(f.document.estimate().valid);
    // Six more attention blocks in place of Mamba-2 ones: causal attention over 8,192 tokens of 32 heads of 128
    // (2 x 8,192 x 4,096 FLOPs a token forward, beside 47 M in its projections) does more arithmetic than a Mamba-2
    // block's projections and scan (81 M), so the step's model FLOPs grow, and its time moves.
    text = line->text();
    for (int i = 0, turned = 0; i < text.size() && turned < 6; ++i)
        if (text[i] == QLatin1Char('M') && i % 2 == 0 && ++turned)
            text[i] = QLatin1Char('*');
    enter(text);
    QVERIFY(f.document.estimate().valid);
    QVERIFY(f.document.estimate().step.modelFlopsPerStep > hybridFlops);
    QVERIFY2(std::abs(f.document.estimate().step.stepSeconds - hybrid) > 1e-3 * hybrid,
             qPrintable(QStringLiteral("%1 s vs %2 s").arg(f.document.estimate().step.stepSeconds).arg(hybrid)));
    QString error;
    QVERIFY(f.document.loadFromBytes(io::builtinExamplePlan(), QString(), &error)); // a dense transformer
    QVERIFY(!groups->isVisibleTo(&f.window));
    QCOMPARE(line->text(), QString());
    // Choosing a hybrid preset brings its pattern and mixer keys into view, in one undoable step.
    auto *preset = f.window.findChild<QComboBox *>(QStringLiteral("model.preset"));
    QVERIFY(preset);
    const int h8 = preset->findData(QStringLiteral("nemotron-h-8b"));
    QVERIFY(h8 >= 0);
    preset->setCurrentIndex(h8);
    emit preset->activated(h8);
    QCOMPARE(line->text().size(), 52);
    QCOMPARE(line->text().count(QLatin1Char('*')), 4);
    QVERIFY(groups->isVisibleTo(&f.window) && !dense->isVisibleTo(&f.window));
    // The example's pipeline stages do not divide 52 layers, which is said; nothing about the pattern is.
    QVERIFY(std::none_of(
        f.document.estimate().problems.begin(), f.document.estimate().problems.end(),
        [](const Problem &p) { return p.key == "model.hybrid_pattern" || p.key.rfind("model.mamba", 0) == 0; }));
    f.document.undoStack()->undo();
    QCOMPARE(line->text(), QString());
}

// The gallery's Nemotron 3 Super: its latent width and repeated MTP module are Model fields; widening the latent to
// the hidden size moves four times the bytes through the dispatcher and lengthens the step, undo restores it; on a
// dense model both fields hide (nothing to route, no MTP module).
void TestPlanner::latentMoeIsEditedInTheWindow()
{
    PlannerFixture f;
    QVERIFY(f.showExample("nemotron-3-super-64-gb300"));
    auto *latent = f.window.findChild<QSpinBox *>(QStringLiteral("model.moe_latent_size"));
    auto *repeated = f.window.findChild<QCheckBox *>(QStringLiteral("model.mtp_repeated"));
    QVERIFY(latent && repeated);
    QVERIFY(latent->isVisibleTo(&f.window) && repeated->isVisibleTo(&f.window));
    QCOMPARE(latent->value(), 1024);
    QVERIFY(repeated->isChecked());
    const Estimate before = f.document.estimate();
    QVERIFY(before.valid);
    latent->setValue(4096);
    QCOMPARE(f.document.plan().model.moeLatentSize, 4096);
    QVERIFY(f.document.estimate().step.category(TimeCategory::ExpertComm) >
            3.0 * before.step.category(TimeCategory::ExpertComm));
    QVERIFY(f.document.estimate().step.stepSeconds > before.step.stepSeconds);
    f.document.undoStack()->undo();
    QCOMPARE(f.document.estimate().step.stepSeconds, before.step.stepSeconds);
    // One module's weights or two: the parameters the last stage keeps, not the time.
    repeated->click();
    QVERIFY(!f.document.plan().model.mtpRepeated);
    QVERIFY(f.document.estimate().memory.peakBytes > before.memory.peakBytes);
    f.document.undoStack()->undo();
    QVERIFY(f.document.plan().model.mtpRepeated);
    QString error;
    QVERIFY(f.document.loadFromBytes(io::builtinExamplePlan(), QString(), &error)); // a dense transformer
    QVERIFY(!latent->isVisibleTo(&f.window) && !repeated->isVisibleTo(&f.window));
}

// The gallery's ZeRO++ plan: its three options are in the Parallelism dock; turning the quantized gathers off
// lengthens the step, undo restores it; the secondary partition is a spin box; under Megatron-Core they hide.
void TestPlanner::zeroPlusPlusIsEditedInTheWindow()
{
    PlannerFixture f;
    QVERIFY(f.showExample("llama2-13b-zeropp-64-a100-ethernet"));
    auto *weights = f.window.findChild<QCheckBox *>(QStringLiteral("parallel.zero_quantized_weights"));
    auto *gradients = f.window.findChild<QCheckBox *>(QStringLiteral("parallel.zero_quantized_gradients"));
    auto *hpz = f.window.findChild<QSpinBox *>(QStringLiteral("parallel.zero_hpz_partition"));
    QVERIFY(weights && gradients && hpz);
    QVERIFY(weights->isChecked() && gradients->isChecked() && weights->isEnabled());
    QCOMPARE(hpz->value(), 8);
    const double quantized = f.document.estimate().step.stepSeconds;
    weights->click();
    QVERIFY(!f.document.plan().parallel.zeroQuantizedWeights);
    QVERIFY(f.document.estimate().step.stepSeconds > quantized);
    f.document.undoStack()->undo();
    QVERIFY(f.document.plan().parallel.zeroQuantizedWeights);
    QCOMPARE(f.document.estimate().step.stepSeconds, quantized);
    QVERIFY(weights->isVisibleTo(&f.window) && hpz->isVisibleTo(&f.window));
    QString error;
    QVERIFY(f.document.loadFromBytes(io::builtinExamplePlan(), QString(), &error)); // Megatron-Core
    QVERIFY(!weights->isVisibleTo(&f.window) && !hpz->isVisibleTo(&f.window));
}

// Experts 0 -> 8 on a dense model: each token goes to the top two (it was invalid at once with experts per
// token 0), the status bar says why, and one undo gives back the dense model.
void TestPlanner::expertsOnADenseModelRouteTopTwo()
{
    PlannerFixture f;
    const Plan dense = f.document.plan();
    QCOMPARE(dense.model.experts, 0);
    QSignalSpy notes(f.window.findChild<PlanEditor *>(), &PlanEditor::noteEdit);
    auto *experts = f.window.findChild<QSpinBox *>(QStringLiteral("model.experts"));
    QVERIFY(experts);
    experts->setValue(8);
    QCOMPARE(f.document.plan().model.experts, 8);
    QCOMPARE(f.document.plan().model.expertsPerToken, 2);
    QVERIFY(f.document.estimate().valid);
    QCOMPARE(notes.size(), 1);
    QVERIFY(notes.front().front().toString().contains(QStringLiteral("top-2")));
    f.document.undoStack()->undo();
    QVERIFY(f.document.plan() == dense);
    f.document.undoStack()->redo();
    QCOMPARE(f.document.plan().model.expertsPerToken, 2);
}

namespace {

/// WCAG 2's relative luminance and contrast ratio.
double luminance(const QColor &c)
{
    const auto channel = [](double v) { return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF());
}
double contrast(const QColor &a, const QColor &b)
{
    const double la = luminance(a), lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

} // namespace

// Every label of the summary strip (values, captions, deltas against a baseline) and every problem under a
// field reads at WCAG's 4.5:1 on its background in both palettes, also after switching while the window is open
// (issue 40: near-black values on dark grey, a dim red).
void TestPlanner::textContrastInBothPalettes()
{
    PlannerFixture f;
    f.window.show();
    f.document.pinBaseline();
    Plan plan = f.document.plan();
    plan.parallel.zeroStage = 0;
    f.document.setPlan(plan); // deltas against the baseline, some worse
    for (const bool dark : {true, false, true}) {
        applyPalette(dark);
        QApplication::processEvents();
        const QColor window = QApplication::palette().color(QPalette::Window);
        for (QLabel *label : f.window.summary()->findChildren<QLabel *>()) {
            if (!label->isVisibleTo(&f.window) || label->text().isEmpty())
                continue;
            const double ratio = contrast(label->palette().color(label->foregroundRole()), window);
            QVERIFY2(ratio >= 4.5, qPrintable(QStringLiteral("%1 palette, \"%2\": %3:1").arg(dark ? "dark" : "light", label->text()).arg(ratio)));
        }
        // A problem under its field.
        f.window.findChild<QSpinBox *>(QStringLiteral("model.heads"))->setValue(100);
        bool checked = false;
        for (QLabel *label : f.window.findChildren<QLabel *>(QStringLiteral("problem")))
            if (label->isVisibleTo(&f.window)) {
                checked = true;
                const double ratio = contrast(label->palette().color(QPalette::WindowText), window);
                QVERIFY2(ratio >= 4.5, qPrintable(QStringLiteral("%1 palette, problem: %2:1").arg(dark ? "dark" : "light").arg(ratio)));
            }
        QVERIFY(checked);
        f.document.undoStack()->undo();
    }
    applyPalette(false);
}

// The application's style draws Fusion's group-box frame in solid colours (ui/FrameStyle: Fusion's stretched
// image is blended on Qt's thread pool, a third of the plan dock's repaint); every pixel of the frame, its
// border, inner line and fill, within 2 of what Fusion itself draws, in both palettes.
void TestPlanner::groupBoxFrameLooksAsFusionDrawsIt()
{
    const auto render = [](QStyle *style, const QPalette &palette) {
        QGroupBox box(QStringLiteral("Training"));
        box.setStyle(style);
        box.setPalette(palette);
        box.resize(220, 160);
        QImage image(box.size(), QImage::Format_RGB32);
        box.render(&image);
        return image;
    };
    for (const bool dark : {false, true}) {
        applyPalette(dark);
        const QPalette palette = QApplication::palette();
        std::unique_ptr<QStyle> fusion(QStyleFactory::create(QStringLiteral("Fusion")));
        FrameStyle ours(QStyleFactory::create(QStringLiteral("Fusion")));
        QVERIFY(ours.drawsGroupBoxFrames());
        const QImage expected = render(fusion.get(), palette);
        const QImage actual = render(&ours, palette);
        int differing = 0, worst = 0;
        for (int y = 0; y < expected.height(); ++y)
            for (int x = 0; x < expected.width(); ++x) {
                const QRgb a = expected.pixel(x, y), b = actual.pixel(x, y);
                const int d = std::max({std::abs(qRed(a) - qRed(b)), std::abs(qGreen(a) - qGreen(b)), std::abs(qBlue(a) - qBlue(b))});
                worst = std::max(worst, d);
                differing += d > 2;
            }
        QVERIFY2(differing == 0, qPrintable(QStringLiteral("%1 palette: %2 pixels differ, by up to %3").arg(dark ? "dark" : "light").arg(differing).arg(worst)));
        // And the frame is there: the border differs from the window colour.
        QVERIFY(actual.pixel(1, 80) != palette.color(QPalette::Window).rgb());
    }
    applyPalette(false);
}

// The data-parallel readout writes "=" only for a layout that multiplies out to the cluster's GPUs: one node
// more on the example's cluster (1032 GPUs under tensor 8 x pipeline 16) read "8 (GPUs 1032 = 8 x 8 x 16)".
void TestPlanner::dataParallelReadoutSaysWhenTheLayoutDoesNotDivide()
{
    PlannerFixture f;
    auto *readout = f.window.findChild<QLabel *>(QStringLiteral("parallel.data"));
    QVERIFY(readout);
    const Plan &plan = f.document.plan();
    QCOMPARE(plan.parallel.data * plan.parallel.tensor * plan.parallel.pipeline * plan.parallel.context, plan.cluster.gpus());
    QVERIFY2(readout->text().contains(QStringLiteral(" = ")), qPrintable(readout->text()));
    f.document.undoStack()->push(new ChangePlanValue(&f.document, *findPlanKey("cluster.nodes"), plan.cluster.nodes + 1));
    QVERIFY(!f.document.estimate().valid);
    QVERIFY2(readout->text().contains(QStringLiteral("GPUs %1 \u2260 ").arg(f.document.plan().cluster.gpus())), qPrintable(readout->text()));
    f.document.undoStack()->undo();
    QVERIFY2(readout->text().contains(QStringLiteral(" = ")), qPrintable(readout->text()));
}

// Hovering a part of the step chart names the part, its seconds, how they are computed and the source
// (io/output/StepTerms, issue 41): the forward part of the example's bar.
void TestPlanner::stepChartHoverGivesFormulaAndSource()
{
    PlannerFixture f;
    f.window.resize(1280, 800);
    f.window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&f.window));
    StepBreakdownView *chart = f.window.stepChart();
    chart->plot()->replot();
    const double forward = f.document.estimate().parts[std::size_t(StepPart::Forward)];
    QVERIFY(forward > 0);
    const QPointF at(chart->plot()->xAxis->coordToPixel(forward / 2), chart->plot()->yAxis->coordToPixel(1.0));
    const QString text = chart->describeAt(at);
    QVERIFY2(text.contains(QStringLiteral("Forward: ")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("matmul efficiency at its size")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("Source: roofline per kernel (Williams et al. 2009)")), qPrintable(text));
}

TRAINPLAN_TEST_MAIN(TestPlanner)
#include "tst_planner.moc"
