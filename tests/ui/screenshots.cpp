// Renders the planner window offscreen to PNGs for review (not a test): the cluster builder with a small
// and a large cluster at 1280x800 and 1920x1080. Usage: trainplan_screenshots OUTDIR
// (QT_QPA_PLATFORM=offscreen).

#include <algorithm>

#include <QApplication>
#include <QCheckBox>
#include <QLineEdit>
#include <QProgressBar>
#include <QSignalSpy>
#include <QChartView>
#include <QLegend>
#include <QGraphicsScene>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QStandardPaths>
#include <QScrollArea>
#include <QTabWidget>

#include "io/plan/CatalogJson.h"
#include "io/plan/Examples.h"
#include "ui/MainWindow.h"
#include "ui/DocumentActions.h"
#include "ui/calibrate/CalibrateDialog.h"
#include "ui/profile/ProfileDialog.h"
#include <QTemporaryDir>
#include "core/estimate/Estimate.h"
#include "io/plan/PlanJson.h"
#include "TestSupport.h"
#include "ui/cluster/ClusterCanvas.h"
#include "ui/cluster/ClusterInspector.h"
#include "ui/cluster/ClusterView.h"
#include "ui/learn/LearnPages.h"
#include "ui/learn/LearnWindow.h"
#include "ui/search/SearchPanel.h"
#include "ui/document/PlanDocument.h"

using namespace trainplan;

namespace {

/// Lets every deferred layout (Qt Charts lays out on posted events, in rounds) finish, as a user's
/// window does between frames.
void settle()
{
    // deleteLater() only runs from an event loop; outside exec() it needs asking for (Qt Charts deletes
    // the graphics of a removed axis that way).
    for (int i = 0; i < 4; ++i) {
        QApplication::processEvents(QEventLoop::AllEvents, 10);
        QApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    }
}

bool wanted(const QString &name);

void shoot(const Plan &plan, const QString &name, const QString &dir, int overlay, bool dark)
{
    if (!wanted(name))
        return;
    applyPalette(dark);
    for (const QSize size : {QSize(1280, 800), QSize(1920, 1080)}) {
        PlanDocument document(io::builtinCatalog());
        QString error;
        if (!document.loadFromBytes(io::writePlan(plan, io::builtinCatalog()), QString(), &error))
            qFatal("%s", qPrintable(error));
        MainWindow window(&document);
        window.resize(size);
        window.show();
        window.showPage(MainWindow::Page::Cluster);
        settle();
        window.clusterView()->inspector()->overlayCombo()->setCurrentIndex(overlay);
        settle();
        const QString file = QStringLiteral("%1/%2-%3x%4.png").arg(dir, name).arg(size.width()).arg(size.height());
        window.grab().save(file);
        qInfo("%s", qPrintable(file));
    }
}

/// The charts page of every gallery example, at both sizes, light and dark; then the example with a pinned
/// baseline (compare mode) and the Compare page.
/// SCREENSHOTS_ONLY=word,word shoots only the scenarios whose name contains one of the words (all by default).
bool wanted(const QString &name)
{
    const QStringList only = qEnvironmentVariable("SCREENSHOTS_ONLY").split(QLatin1Char(','), Qt::SkipEmptyParts);
    return only.isEmpty() || std::any_of(only.begin(), only.end(), [&](const QString &w) { return name.contains(w); });
}

/// A plan with errors (tensor 7, which divides neither the heads nor the GPUs): every chart says why instead
/// of drawing empty axes.
void shootInvalid(const QString &dir)
{
    for (const bool dark : {false, true})
        for (const QSize size : {QSize(1280, 800), QSize(1920, 1080)}) {
            applyPalette(dark);
            PlanDocument document(io::builtinCatalog());
            QString error;
            document.loadFromBytes(io::builtinExamplePlan(), QString(), &error);
            MainWindow window(&document);
            window.resize(size);
            window.show();
            Plan plan = document.plan();
            plan.parallel.tensor = 7;
            document.setPlan(plan);
            settle();
            const QString file = QStringLiteral("%1/window-invalid-%2x%3%4.png").arg(dir).arg(size.width()).arg(size.height())
                                     .arg(dark ? QStringLiteral("-dark") : QString());
            window.grab().save(file);
            qInfo("%s", qPrintable(file));
        }
    applyPalette(false);
}

void shootWindows(const QString &dir)
{
    for (const bool dark : {false, true}) {
        applyPalette(dark);
        for (const io::ExamplePlan &example : io::builtinExamples())
            for (const QSize size : {QSize(1280, 800), QSize(1920, 1080)}) {
                if (!wanted(QStringLiteral("window-") + example.id))
                    continue;
                PlanDocument document(io::builtinCatalog());
                QString error;
                if (!document.loadFromBytes(example.bytes, QString(), &error))
                    qFatal("%s", qPrintable(error));
                MainWindow window(&document);
                window.resize(size);
                window.show();
                settle();
                const QString file = QStringLiteral("%1/window-%2-%3x%4%5.png")
                                         .arg(dir, example.id)
                                         .arg(size.width())
                                         .arg(size.height())
                                         .arg(dark ? QStringLiteral("-dark") : QString());
                window.grab().save(file);
                qInfo("%s", qPrintable(file));
                // A mixture of experts, a ZeRO++ plan, listed stage layers or deferred output weight gradients: the
                // editor scrolled to those fields as well; SCREENSHOTS_FIELD=key scrolls to that key's field instead.
                const QString field = qEnvironmentVariable("SCREENSHOTS_FIELD");
                QWidget *dispatcher = window.findChild<QWidget *>(
                    field.isEmpty() ? QStringLiteral("parallel.expert_dispatcher") : field);
                if ((!dispatcher || !dispatcher->isVisibleTo(&window)) && field.isEmpty())
                    dispatcher = window.findChild<QWidget *>(QStringLiteral("parallel.zero_quantized_gradients"));
                if ((!dispatcher || !dispatcher->isVisibleTo(&window)) && field.isEmpty() &&
                    document.plan().deferredWgradMicrobatches() > 0)
                    dispatcher = window.findChild<QWidget *>(QStringLiteral("training.wgrad_deferral_limit"));
                if ((!dispatcher || !dispatcher->isVisibleTo(&window)) && field.isEmpty() && document.plan().listedStages())
                    dispatcher = window.findChild<QWidget *>(QStringLiteral("parallel.stage_layers"));
                if (dispatcher && !dispatcher->isVisibleTo(&window) && !field.isEmpty()) { // a Cluster page field
                    window.showPage(MainWindow::Page::Cluster);
                    settle();
                }
                if (dispatcher && dispatcher->isVisibleTo(&window)) {
                    for (QScrollArea *area : window.findChildren<QScrollArea *>())
                        if (area->isAncestorOf(dispatcher))
                            area->ensureWidgetVisible(dispatcher);
                    settle();
                    const QString editor = QString(file).replace(QStringLiteral("/window-"), QStringLiteral("/editor-"));
                    window.grab().save(editor);
                    qInfo("%s", qPrintable(editor));
                }
            }
    }
    applyPalette(false);
    for (const QSize size : {QSize(1280, 800), QSize(1920, 1080)}) {
        if (!wanted(QStringLiteral("compare")))
            break;
        PlanDocument document(io::builtinCatalog());
        QString error;
        document.loadFromBytes(io::builtinExamplePlan(), QString(), &error);
        MainWindow window(&document);
        window.resize(size);
        window.show();
        document.pinBaseline();
        Plan plan = document.plan();
        plan.parallel.schedule = Schedule::Interleaved;
        plan.parallel.virtualStages = 2;
        plan.parallel.zeroStage = 1;
        document.setPlan(plan);
        settle();
        window.grab().save(QStringLiteral("%1/compare-charts-%2x%3.png").arg(dir).arg(size.width()).arg(size.height()));
        window.showPage(MainWindow::Page::Compare);
        settle();
        window.grab().save(QStringLiteral("%1/compare-page-%2x%3.png").arg(dir).arg(size.width()).arg(size.height()));
    }
}

} // namespace

/// The Learn view: every figure page and two exercises, normal and in presentation colours.
void shootLearn(const QString &dir)
{
    PlanDocument document(io::builtinCatalog());
    QString error;
    document.loadFromBytes(io::builtinExamplePlan(), QString(), &error);
    MainWindow window(&document);
    LearnWindow *learn = window.learnWindow();
    for (const QSize size : {QSize(1280, 800), QSize(1920, 1080)}) {
        learn->resize(size);
        learn->show();
        for (int page : {0, 1, 2, 3, 4, 5, 6, 7, 8 + 13, 8 + 9}) {
            learn->showPage(page);
            settle();
            const QString file = QStringLiteral("%1/learn-%2-%3x%4.png").arg(dir).arg(page).arg(size.width()).arg(size.height());
            learn->grab().save(file);
            qInfo("%s", qPrintable(file));
        }
    }
    // 16.3 and 16.5 in the text's two panels.
    learn->resize(1280, 800);
    for (int page : {2, 4}) {
        learn->showPage(page);
        learn->page(page)->findChild<QCheckBox *>(QStringLiteral("twoPanels"))->setChecked(true);
        settle();
        const QString file = QStringLiteral("%1/learn-%2-two-panels.png").arg(dir).arg(page);
        learn->grab().save(file);
        qInfo("%s", qPrintable(file));
    }
    learn->setPresenting(true);
    learn->resize(1920, 1080);
    for (int page : {0, 3}) {
        learn->showPage(page);
        settle();
        const QString file = QStringLiteral("%1/learn-present-%2.png").arg(dir).arg(page);
        learn->grab().save(file);
        qInfo("%s", qPrintable(file));
    }
}

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    QStandardPaths::setTestModeEnabled(true);
    const QString dir = argc > 1 ? QString::fromLocal8Bit(argv[1]) : QDir::currentPath();
    QDir().mkpath(dir);

    shootWindows(dir);
    if (wanted(QStringLiteral("window-invalid")))
        shootInvalid(dir);
    if (wanted(QStringLiteral("learn")))
        shootLearn(dir);

    Plan small = test::presetPlan("llama2-7b", 8, 1, 2, 1, 48, "h100-sxm5-80gb");
    small.cluster.setGroups({{"DGX H100 (8 x H100 SXM, NVSwitch)", "h100-sxm5-80gb", 8, 2, "nvlink4-nvswitch"}});
    small.cluster.network = "ib-ndr";
    shoot(small, QStringLiteral("cluster-small"), dir, 1, false);

    Plan large = test::presetPlan("gpt3-175b", 8, 16, 64, 1, 1536);
    large.cluster.setGroups({{"DGX A100 (8 x A100 80GB, NVSwitch)", "a100-sxm4-80gb", 8, 768, "nvlink3-nvswitch"},
                             {"DGX H100 (8 x H100 SXM, NVSwitch)", "h100-sxm5-80gb", 8, 256, "nvlink4-nvswitch"}});
    large.cluster.network = "ib-hdr";
    shoot(large, QStringLiteral("cluster-large"), dir, 2, false);
    shoot(large, QStringLiteral("cluster-large-dark"), dir, 2, true);

    // Context-parallel groups: tensor 2 x context 4 x data 4 on 4 nodes, coloured by context group.
    Plan context = test::presetPlan("llama3.1-8b", 2, 1, 4, 1, 16, "h100-sxm5-80gb");
    context.model.seqLen = 65536;
    context.parallel.context = 4;
    context.cluster.nodes = 4;
    context.training.flashAttention = true;
    context.training.sequenceParallel = true;
    context.parallel.zeroStage = 1;
    shoot(context, QStringLiteral("cluster-context"), dir, 5, false);

    // Expert-parallel groups: Mixtral 8x7B, tensor 2 x data 8 on 2 nodes, expert 8 x expert tensor 1.
    Plan experts = test::presetPlan("mixtral-8x7b", 2, 1, 8, 1, 64, "h100-sxm5-80gb");
    experts.parallel.expert = 8;
    experts.parallel.expertTensor = 1;
    experts.training.flashAttention = true;
    experts.training.sequenceParallel = true;
    experts.parallel.zeroStage = 1;
    shoot(experts, QStringLiteral("cluster-expert"), dir, 6, false);

    // A GB200 NVL72 rack: 18 trays of 4 GPUs in one NVLink domain, drawn as a rack.
    Plan rack = test::presetPlan("llama3.1-70b", 8, 1, 9, 1, 72, "gb200");
    rack.cluster.setGroups({{"GB200 NVL72 (18 trays x 4 GB200)", "gb200", 4, 36, ""}});
    rack.cluster.scaleUpDomain = 72;
    rack.parallel.data = 18;
    rack.parallel.zeroStage = 1;
    rack.training.globalBatch = 144;
    rack.training.flashAttention = true;
    rack.training.sequenceParallel = true;
    rack.training.recompute = Recompute::Selective;
    shoot(rack, QStringLiteral("cluster-nvl72"), dir, 1, false);
    // The fit tile of a plan that fits as estimated but not at its memory band's upper edge (Qwen3-30B-A3B on 8
    // H100s without its memory margin).
    for (const QSize size : {QSize(1280, 800), QSize(1920, 1080)}) {
        if (!wanted(QStringLiteral("window-uncertain")))
            break;
        PlanDocument document(io::builtinCatalog());
        Plan plan = test::examplePlan("qwen3-30b-a3b-8-h100");
        plan.training.memoryMargin = 0;
        document.setPlan(plan);
        MainWindow window(&document);
        window.resize(size);
        window.show();
        settle();
        const QString file = QStringLiteral("%1/window-uncertain-%2x%3.png").arg(dir).arg(size.width()).arg(size.height());
        window.grab().save(file);
        qInfo("%s", qPrintable(file));
    }
    if (!qEnvironmentVariable("SCREENSHOTS_ONLY").isEmpty())
        return 0;

    // The Search panel after a search of the built-in example, and of a mixture of experts (Qwen3-30B-A3B on
    // 32 H100s, tensor and pipeline held at 1: the expert sizes and their verdicts).
    applyPalette(false);
    Plan moe = test::presetPlan("qwen3-30b-a3b", 1, 1, 32, 1, 256, "h100-sxm5-80gb");
    moe.training.flashAttention = true;
    // And DeepSeek-V3 on the gallery's 1,024 H100s: the ZeRO stages and their traffic floors in the Rejected tab.
    const Plan deepseek = test::examplePlan("deepseek-v3-1024-h100");
    // And llm-foundry's MPT-7B on 64 H100s, whose best plan leaves less free than its memory band may take.
    const Plan foundry = test::examplePlan("mpt-7b-llmfoundry-64-h100");
    for (const QString &name : {QStringLiteral("search"), QStringLiteral("search-moe"), QStringLiteral("search-deepseek"),
                                QStringLiteral("search-tight")}) {
        for (const QSize size : {QSize(1280, 800), QSize(1920, 1080)}) {
            PlanDocument document(io::builtinCatalog());
            QString error;
            document.loadFromBytes(io::builtinExamplePlan(), QString(), &error);
            if (name == QLatin1String("search-moe"))
                document.setPlan(moe);
            if (name == QLatin1String("search-deepseek"))
                document.setPlan(deepseek);
            if (name == QLatin1String("search-tight"))
                document.setPlan(foundry);
            MainWindow window(&document);
            window.resize(size);
            window.show();
            window.showPage(MainWindow::Page::Search);
            settle();
            window.searchPanel()->startSearch();
            while (window.searchPanel()->isRunning())
                QApplication::processEvents(QEventLoop::AllEvents, 20);
            settle();
            for (int tab = 0; tab < 3; ++tab) {
                window.searchPanel()->findChild<QTabWidget *>()->setCurrentIndex(tab);
                settle();
                const QString file = QStringLiteral("%1/%2-%3-%4x%5.png").arg(dir, name).arg(tab).arg(size.width()).arg(size.height());
                window.grab().save(file);
                qInfo("%s", qPrintable(file));
            }
        }
    }
    // Tools > Calibrate on the zero-bubble paper's A100 runs (1F1B, throughput).
    {
        PlanDocument document(io::builtinCatalog());
        QString error;
        document.loadFromBytes(io::builtinExamplePlan(), QString(), &error);
        MainWindow window(&document);
        CalibrateDialog dialog(&document, window.clusterView()->customCatalog(), &window);
        const Plan plan = document.plan();
        const QString planFile = QStringLiteral(TRAINPLAN_SOURCE_DIR "/resources/examples/gpt3-175b-tp8-pp8.json");
        const Estimate e = estimate(plan, io::builtinCatalog(), EstimateOptions::analytic());
        dialog.addMeasurement(planFile, 1.08 * e.step.stepSeconds, 0, 0);
        dialog.addMeasurement(planFile, 0, e.step.tokensPerSecond / 1.05, 0);
        dialog.addMeasurement(QStringLiteral(TRAINPLAN_SOURCE_DIR "/resources/examples/megatron-1t-3072-a100.json"), 0, 0, 52.0);
        dialog.resize(1100, 700);
        dialog.show();
        QSignalSpy fitted(&dialog, &CalibrateDialog::fitted);
        dialog.fit();
        fitted.wait(120000);
        settle();
        dialog.grab().save(dir + QStringLiteral("/calibrate-dialog.png"));
        for (int i = 0; i < 60; ++i) // a longer fit, caught running: its progress and the Cancel button
            dialog.addMeasurement(planFile, (1.0 + 0.002 * i) * e.step.stepSeconds, 0, 0);
        dialog.fit();
        for (int i = 0; i < 100 && dialog.findChild<QProgressBar *>()->value() < 2; ++i)
            QTest::qWait(50);
        dialog.grab().save(dir + QStringLiteral("/calibrate-dialog-fitting.png"));
        dialog.cancelFit();
    }
    // File > Import of a model's config alone: the keys no file gives, asked for (issue 38).
    {
        PlanDocument document(io::builtinCatalog());
        QString error;
        document.loadFromBytes(io::builtinExamplePlan(), QString(), &error);
        MainWindow window(&document);
        window.documentActions()->importFiles({QStringLiteral(TRAINPLAN_SOURCE_DIR "/tests/data/import/llama3-8b-config.json")});
        if (auto *ask = window.findChild<QDialog *>(QStringLiteral("importKeys"))) {
            ask->show();
            settle();
            ask->grab().save(dir + QStringLiteral("/import-keys-dialog.png"));
        }
        // A launch script with positional parameters: its arguments asked for beside the keys.
        window.documentActions()->importFiles({QStringLiteral(TRAINPLAN_SOURCE_DIR "/tests/data/import/real/run_mcore_llama3_1.sh")});
        const QList<QDialog *> asks = window.findChildren<QDialog *>(QStringLiteral("importKeys"));
        for (QDialog *ask : asks)
            if (ask->findChild<QLineEdit *>(QStringLiteral("scriptArguments"))) {
                ask->show();
                settle();
                ask->grab().save(dir + QStringLiteral("/import-script-arguments-dialog.png"));
            }
        // llm-foundry's MPT-7B pretraining YAML: the model, batch and FSDP read; the cluster asked for.
        window.documentActions()->importFiles(
            {QStringLiteral(TRAINPLAN_SOURCE_DIR "/tests/data/import/real/llm-foundry/pretrain__mpt-7b.yaml")});
        const QList<QDialog *> foundry = window.findChildren<QDialog *>(QStringLiteral("importKeys"));
        if (!foundry.isEmpty()) {
            foundry.back()->show();
            settle();
            foundry.back()->grab().save(dir + QStringLiteral("/import-llmfoundry-dialog.png"));
        }
        // A DeepSpeed config for the Hugging Face Trainer: its "auto" micro-batch and precision asked for.
        window.documentActions()->importFiles({QStringLiteral(
            TRAINPLAN_SOURCE_DIR "/tests/data/import/real/deepspeed/tensor_parallel__hf_integration__ds_config.json")});
        const QList<QDialog *> trainer = window.findChildren<QDialog *>(QStringLiteral("importKeys"));
        if (!trainer.isEmpty()) {
            trainer.back()->show();
            settle();
            trainer.back()->grab().save(dir + QStringLiteral("/import-deepspeed-auto-dialog.png"));
        }
    }
    // Tools > Compare with a Profiler Trace: a trace of the example's first stage with slower GEMMs and
    // more exposed communication than estimated.
    {
        PlanDocument document(io::builtinCatalog());
        QString error;
        document.loadFromBytes(io::builtinExamplePlan(), QString(), &error);
        MainWindow window(&document);
        QTemporaryDir tmp;
        QFile trace(tmp.filePath(QStringLiteral("rank0.pt.trace.json")));
        trace.open(QIODevice::WriteOnly);
        trace.write(test::traceFromEstimate(document.plan(), document.estimate(), 0, 3, {1.15, 0.9, 1.3, 1, 1.8, 1.1}));
        trace.close();
        for (const QSize size : {QSize(860, 680), QSize(1200, 800)}) {
            ProfileDialog dialog(&document, &window);
            dialog.loadTrace(trace.fileName(), &error);
            dialog.resize(size);
            dialog.show();
            settle();
            dialog.grab().save(dir + QStringLiteral("/profile-dialog-%1.png").arg(size.width()));
        }
    }
    return 0;
}
