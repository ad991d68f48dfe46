// The planner window offscreen: menu skeleton, the built-in example shown, save/load through the
// document, unsaved-change tracking.

#include <QAction>
#include <QDockWidget>
#include <QMenuBar>
#include <QStandardPaths>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QComboBox>
#include <QLineEdit>
#include <QTextBrowser>
#include <QDialog>
#include <QTextEdit>
#include <QTest>
#include <QTableWidget>
#include <QUndoCommand>

#include "io/plan/CatalogJson.h"
#include "ui/MainWindow.h"
#include "ui/calibrate/CalibrateDialog.h"
#include "ui/profile/ProfileDialog.h"
#include "io/measure/MeasurementsCsv.h"
#include "ui/cluster/ClusterView.h"
#include "ui/cluster/CustomCatalog.h"
#include "ui/ExampleGallery.h"
#include "ui/DocumentActions.h"
#include "io/plan/Examples.h"
#include "io/plan/PlanJson.h"
#include "core/estimate/Estimate.h"
#include <QListWidget>
#include <QRegularExpression>
#include <QSet>
#include "TestMain.h"
#include "TestSupport.h"
#include "ui/document/PlanDocument.h"

using namespace trainplan;

namespace {
/// Minimal command to exercise the document's undo plumbing until editors bring their own.
class SetMicroBatch : public QUndoCommand
{
public:
    SetMicroBatch(PlanDocument *doc, std::int64_t value) : m_doc(doc), m_before(doc->plan()), m_after(doc->plan())
    {
        m_after.training.microBatch = value;
    }
    void redo() override { m_doc->setPlan(m_after); }
    void undo() override { m_doc->setPlan(m_before); }

private:
    PlanDocument *m_doc;
    Plan m_before, m_after;
};
} // namespace

class TestMainWindow : public QObject
{
    Q_OBJECT

private slots:
    void menuSkeleton();
    void examplesGallery();
    void showsExampleEstimate();
    void saveLoadRoundTripAndModifiedFlag();
    void importIsOneUndoStepAndDropsImport();
    void importAsksForScriptArguments();
    void importAsksWhatDeepSpeedLeavesToTheTrainer();
    void calibrateDialogKeepsTheDevice();
    void profileDialogFollowsThePlan();
};

void TestMainWindow::menuSkeleton()
{
    PlanDocument document(io::builtinCatalog());
    MainWindow window(&document);
    QStringList menus;
    for (QAction *a : window.menuBar()->actions())
        menus << a->text().remove('&');
    QCOMPARE(menus, (QStringList{"File", "Edit", "View", "Compare", "Tools", "Help"}));
    // Pages in the tabs' order on Ctrl+1 to Ctrl+5 (Ctrl+2 and Ctrl+3 were unused), the older keys kept.
    const auto keys = [&](const char *name) { return window.findChild<QAction *>(QLatin1String(name))->shortcuts(); };
    QCOMPARE(keys("showCharts").front(), QKeySequence(Qt::CTRL | Qt::Key_1));
    QVERIFY(keys("showClusterBuilder").contains(QKeySequence(Qt::CTRL | Qt::Key_2)) && keys("showClusterBuilder").contains(QKeySequence(Qt::CTRL | Qt::Key_B)));
    QVERIFY(keys("showSearch").contains(QKeySequence(Qt::CTRL | Qt::Key_3)));
    QCOMPARE(keys("showCompare").front(), QKeySequence(Qt::CTRL | Qt::Key_4));
    QCOMPARE(keys("showDetails").front(), QKeySequence(Qt::CTRL | Qt::Key_5));
    // Help has the manual (the README's usage sections) and every shortcut, taken from the menus themselves.
    window.findChild<QAction *>(QStringLiteral("openManual"))->trigger();
    auto *manual = window.findChild<QDialog *>(QStringLiteral("manual"));
    QVERIFY(manual && manual->isVisible());
    const QString manualText = manual->findChild<QTextBrowser *>()->toPlainText();
    QVERIFY(manualText.contains(QStringLiteral("The planner window")) && manualText.contains(QStringLiteral("Cluster builder")));
    QVERIFY(!manualText.contains(QStringLiteral("Quick start")));
    window.findChild<QAction *>(QStringLiteral("showShortcuts"))->trigger();
    const QString shortcuts = window.findChild<QDialog *>(QStringLiteral("shortcuts"))->findChild<QTextBrowser *>()->toPlainText();
    for (const QString &expected : {QKeySequence(Qt::CTRL | Qt::Key_2).toString(QKeySequence::NativeText), QStringLiteral("Search Plans"),
                                    QStringLiteral("Report (PDF)"), QStringLiteral("Present")})
        QVERIFY2(shortcuts.contains(expected), qPrintable(expected));
}

// New from Example offers a gallery: at least 8 plans, each with a one-line description, covering every
// model family and device family of the catalog, one that does not fit and a small one for class.
void TestMainWindow::examplesGallery()
{
    const QList<io::ExamplePlan> &examples = io::builtinExamples();
    QVERIFY(examples.size() >= 8);
    QCOMPARE(examples.front().id, QStringLiteral("gpt3-175b-tp8-pp8")); // the default first
    const Catalog &catalog = io::builtinCatalog();
    QSet<QString> models, devices;
    bool oneDoesNotFit = false, smallForClass = false;
    for (const io::ExamplePlan &e : examples) {
        QVERIFY2(!e.description.isEmpty() && !e.description.contains(QLatin1Char('\n')), qPrintable(e.id));
        const io::PlanReadResult read = io::readPlan(e.bytes, catalog);
        QVERIFY2(read.plan, qPrintable(e.id));
        const Estimate estimate = trainplan::estimate(*read.plan, catalog);
        QVERIFY2(estimate.valid, qPrintable(e.id));
        oneDoesNotFit = oneDoesNotFit || !estimate.memory.fits;
        smallForClass = smallForClass || (read.plan->model.presetId == "gpt2-small" && read.plan->cluster.nodes == 1);
        if (!read.plan->model.presetId.empty()) // a model given by its shape (MPT-7B from llm-foundry's YAML) is no family
            models << QString::fromStdString(read.plan->model.presetId).section(QLatin1Char('-'), 0, 0).remove(QRegularExpression("[0-9.]+$"));
        for (const NodeGroup &g : read.plan->cluster.groups())
            devices << QString::fromStdString(g.device).section(QLatin1Char('-'), 0, 0).remove(QRegularExpression("[0-9]+$"));
    }
    QVERIFY(oneDoesNotFit);
    QVERIFY(smallForClass);
    // Model families (gpt, megatron, llama) and device families (v, a, h, b, mi) of the catalog.
    QSet<QString> catalogModels, catalogDevices;
    for (const ModelSpec &m : catalog.models())
        catalogModels << QString::fromStdString(m.presetId).section(QLatin1Char('-'), 0, 0).remove(QRegularExpression("[0-9.]+$"));
    for (const DeviceSpec &d : catalog.devices())
        catalogDevices << QString::fromStdString(d.id).section(QLatin1Char('-'), 0, 0).remove(QRegularExpression("[0-9]+$"));
    QCOMPARE(models, catalogModels);
    QCOMPARE(devices, catalogDevices);

    // The dialog lists them with their descriptions; loading one replaces the document, unmodified.
    PlanDocument document(io::builtinCatalog());
    MainWindow window(&document);
    ExampleGallery gallery(&window);
    QCOMPARE(gallery.list()->count(), int(examples.size()));
    QVERIFY(gallery.list()->item(1)->text().contains(examples[1].description));
    QVERIFY(window.documentActions()->loadExample(QStringLiteral("gpt2-small-classroom")));
    QCOMPARE(document.plan().model.presetId, std::string("gpt2-small"));
    QVERIFY(!document.isModified());
}

void TestMainWindow::showsExampleEstimate()
{
    PlanDocument document(io::builtinCatalog());
    MainWindow window(&document);
    QString error;
    QVERIFY2(document.loadFromBytes(io::builtinExamplePlan(), QString(), &error), qPrintable(error));
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.showPage(MainWindow::Page::Details); // the Details page writes its table when shown
    auto *view = window.findChild<QPlainTextEdit *>();
    QVERIFY(view);
    QVERIFY(view->toPlainText().contains("174.62 B parameters"));
    QVERIFY(window.windowTitle().contains("GPT-3 175B"));
    QVERIFY(!window.isWindowModified());
}

// Pai-Megatron-Patch's run_mcore_llama3_1.sh takes the model size, batch, sequence and layout as $1 ... $25
// (its README runs it as "sh run_mcore_llama3_1.sh dsw 8B 1 8 1e-5 1e-6 128 128 bf16 4 2 1 true true true false
// false false 100000 ..."): the window asks for those arguments beside the keys, and the script run with them
// gives what was asked (the answers prefilled with the example's values do not override it).
void TestMainWindow::importAsksForScriptArguments()
{
    PlanDocument document(io::builtinCatalog());
    MainWindow window(&document);
    QString error;
    QVERIFY2(document.loadFromBytes(io::builtinExamplePlan(), QString(), &error), qPrintable(error));
    const QString script = test::dataPath(QStringLiteral("import/real/run_mcore_llama3_1.sh"));
    QVERIFY(!window.documentActions()->importFiles({script}));
    auto *ask = window.findChild<QDialog *>(QStringLiteral("importKeys"));
    QVERIFY(ask);
    auto *arguments = ask->findChild<QLineEdit *>(QStringLiteral("scriptArguments"));
    QVERIFY(arguments);
    QVERIFY(arguments->toolTip().contains(QStringLiteral("$1 ... $25")));
    // Without its arguments the script's model (a case on $2) is unknown: the model is asked for.
    QVERIFY(ask->findChild<QComboBox *>(QStringLiteral("model.preset")));
    arguments->setText(QStringLiteral("dsw 8B 1 8 1e-5 1e-6 128 128 bf16 4 2 1 true true true false false false 100000 "
                                      "/mnt/data /mnt/data /mnt/ckpt 10000 100 /workspace/out"));
    ask->findChild<QComboBox *>(QStringLiteral("cluster.device"))->setCurrentText(QStringLiteral("h100-sxm5-80gb"));
    ask->accept();
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    QCOMPARE(document.plan().model.layers, 32);
    QCOMPARE(document.plan().model.seqLen, 128);     // $7, not the example's 2048 prefilled
    QCOMPARE(document.plan().model.vocab, 128256);   // LLama3Tokenizer's 128,000 + EXTRA_VOCAB_SIZE 256
    QCOMPARE(document.plan().parallel.tensor, 4);    // ${10}
    QCOMPARE(document.plan().parallel.pipeline, 2);  // ${11}
    QCOMPARE(document.plan().training.globalBatch, 8); // $4
    QCOMPARE(document.plan().cluster.device, std::string("h100-sxm5-80gb"));
    auto *report = window.findChild<QMessageBox *>(QStringLiteral("importReport"));
    QVERIFY(report && report->detailedText().contains(QStringLiteral("Launch scripts read as run with 25 argument(s): dsw 8B")));
    report->close();
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
}

// A DeepSpeed config written for the Hugging Face Trainer ("auto" micro-batch and precision, DeepSpeedExamples'
// tensor_parallel/hf_integration/ds_config.json): the window asks for both beside the model and the batch, the
// precision offered by its spellings, and plans what is answered.
void TestMainWindow::importAsksWhatDeepSpeedLeavesToTheTrainer()
{
    PlanDocument document(io::builtinCatalog());
    MainWindow window(&document);
    QString error;
    QVERIFY2(document.loadFromBytes(io::builtinExamplePlan(), QString(), &error), qPrintable(error));
    const QString config = test::dataPath(QStringLiteral("import/real/deepspeed/tensor_parallel__hf_integration__ds_config.json"));
    QVERIFY(!window.documentActions()->importFiles({config}));
    auto *ask = window.findChild<QDialog *>(QStringLiteral("importKeys"));
    QVERIFY(ask);
    auto *micro = ask->findChild<QComboBox *>(QStringLiteral("training.micro_batch"));
    auto *precision = ask->findChild<QComboBox *>(QStringLiteral("training.precision"));
    QVERIFY(micro && precision);
    QVERIFY(precision->findText(QStringLiteral("bf16")) >= 0 && precision->findText(QStringLiteral("fp32")) >= 0);
    const std::pair<const char *, const char *> answers[] = {
        {"cluster.device", "h100-sxm5-80gb"}, {"cluster.nodes", "1"}, {"model.preset", "llama3-8b"},
        {"training.global_batch", "64"},     {"training.micro_batch", "8"}, {"training.precision", "bf16"}};
    for (const auto &[path, value] : answers) {
        auto *box = ask->findChild<QComboBox *>(QLatin1String(path));
        QVERIFY2(box, path);
        box->setCurrentText(QLatin1String(value));
    }
    ask->accept();
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    QCOMPARE(document.plan().training.microBatch, 8);
    QCOMPARE(document.plan().training.precision, Precision::BF16);
    QCOMPARE(document.plan().parallel.tensor, 4); // tensor_parallel.autotp_size
    if (auto *report = window.findChild<QMessageBox *>(QStringLiteral("importReport")))
        report->close();
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
}

void TestMainWindow::importIsOneUndoStepAndDropsImport()
{
    PlanDocument document(io::builtinCatalog());
    MainWindow window(&document);
    QString error;
    QVERIFY2(document.loadFromBytes(io::builtinExamplePlan(), QString(), &error), qPrintable(error));
    // File > Import is in the menu with its shortcut.
    QAction *action = window.findChild<QAction *>(QStringLiteral("importConfiguration"));
    QVERIFY(action);
    QCOMPARE(action->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_I));
    const Plan before = document.plan();
    const QString config = test::dataPath(QStringLiteral("import/llama3-8b-config.json"));
    const QString launch = test::dataPath(QStringLiteral("import/pretrain_llama3_8b.sh"));
    // The script does not name the GPU: the window asks, prefilled with the example plan's and saying so,
    // and imports when the user answers (issue 38: nothing from the example plan unseen).
    QVERIFY(!window.documentActions()->importFiles({config, launch}));
    QVERIFY(document.plan() == before);
    const auto answer = [&window](const QStringList &expected, const QString &device) {
        auto *ask = window.findChild<QDialog *>(QStringLiteral("importKeys"));
        QVERIFY(ask);
        QStringList asked;
        for (auto *combo : ask->findChildren<QComboBox *>())
            asked << combo->objectName();
        QCOMPARE(asked, expected);
        auto *deviceBox = ask->findChild<QComboBox *>(QStringLiteral("cluster.device"));
        QCOMPARE(deviceBox->currentText(), QStringLiteral("a100-sxm4-80gb"));
        QVERIFY(deviceBox->findText(QStringLiteral("h100-sxm5-80gb")) >= 0); // the catalog's devices to pick from
        deviceBox->setCurrentText(device);
        ask->accept();
        QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    };
    answer({QStringLiteral("cluster.device")}, QStringLiteral("h100-sxm5-80gb"));
    QCOMPARE(document.plan().parallel.tensor, 2);
    QCOMPARE(document.plan().model.layers, 32);
    QCOMPARE(document.plan().cluster.device, std::string("h100-sxm5-80gb"));
    auto *report = window.findChild<QMessageBox *>(QStringLiteral("importReport"));
    QVERIFY(report);
    QVERIFY(report->detailedText().contains(QStringLiteral("pretrain_llama3_8b.sh:20")));
    QVERIFY(report->informativeText().contains(QStringLiteral("cluster.device=h100-sxm5-80gb")));
    // What no file gave is listed as the plan format's defaults, and the details show twenty lines and resize.
    QVERIFY2(report->detailedText().contains(QStringLiteral("The plan format's defaults")), qPrintable(report->detailedText()));
    QVERIFY(report->isSizeGripEnabled());
    auto *details = report->findChild<QTextEdit *>();
    QVERIFY(details && details->minimumHeight() >= 20 * details->fontMetrics().lineSpacing());
    report->close();
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    // One undo step restores the plan before the import.
    document.undoStack()->undo();
    QVERIFY(document.plan() == before);
    // Files that do not make a valid plan leave the plan as it is, and say why: FP8 on an A100.
    QVERIFY(!window.documentActions()->importFiles({test::dataPath(QStringLiteral("import/nemo_llama3_8b.yaml"))}));
    answer({QStringLiteral("cluster.device")}, QStringLiteral("a100-sxm4-80gb"));
    QVERIFY(document.plan() == before);
    report = window.findChild<QMessageBox *>(QStringLiteral("importReport"));
    QVERIFY(report && report->informativeText().contains(QStringLiteral("training.precision")));
    report->close();
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    // Dropped configuration files import (a model's config alone: the cluster, batch and sequence asked for);
    // a dropped plan file opens.
    QVERIFY(!window.documentActions()->openOrImport({config}));
    answer({QStringLiteral("cluster.device"), QStringLiteral("cluster.nodes"), QStringLiteral("model.seq_len"), QStringLiteral("training.global_batch")},
           QStringLiteral("h100-sxm5-80gb"));
    QCOMPARE(document.plan().model.vocab, 128256);
    QCOMPARE(document.plan().training.globalBatch, 1536); // the example's, shown and accepted
    QVERIFY(window.acceptDrops());
    // Llama 3 8B on data parallelism alone (no file gives a layout): it does not fit, and the report says so at
    // once with the defaults it took and where to look (issue 40, item 8).
    QVERIFY(!document.estimate().memory.fits);
    report = window.findChild<QMessageBox *>(QStringLiteral("importReport"));
    QVERIFY(report);
    QVERIFY2(report->informativeText().contains(QStringLiteral("does not fit")) && report->informativeText().contains(QStringLiteral("parallel.tensor = 1"))
                 && report->informativeText().contains(QStringLiteral("Search (Ctrl+3)")),
             qPrintable(report->informativeText()));
    report->close();
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);

    // File > Export > Launch Configuration writes the plan for Megatron-LM, and importing it gives it back; its
    // five targets are io::ExportTarget's, llm-foundry's YAML last.
    const QMenu *launchMenu = window.findChild<QMenu *>(QStringLiteral("exportLaunch"));
    QVERIFY(launchMenu && launchMenu->actions().size() == 5);
    QVERIFY(launchMenu->actions().back()->text().contains(QStringLiteral("llm-foundry")));
    QTemporaryDir dir;
    const QString script = dir.filePath(QStringLiteral("launch.sh"));
    QVERIFY(window.documentActions()->exportLaunch(0, script));
    auto *exported = window.findChild<QMessageBox *>(QStringLiteral("exportLaunchReport"));
    QVERIFY(exported && exported->detailedText().contains(QStringLiteral("cluster.device")));
    // The plan does not fit: the export warns (issue 40: "gives no warning").
    QVERIFY2(exported->text().contains(QStringLiteral("does not fit")), qPrintable(exported->text()));
    const Plan imported = document.plan();
    QVERIFY(!window.documentActions()->importFiles({script}));
    answer({QStringLiteral("cluster.device")}, QStringLiteral("h100-sxm5-80gb"));
    QCOMPARE(document.plan().parallel.tensor, imported.parallel.tensor);
    QCOMPARE(document.plan().model.layers, imported.model.layers);
}

void TestMainWindow::calibrateDialogKeepsTheDevice()
{
    QStandardPaths::setTestModeEnabled(true); // the kept device goes to the test settings
    PlanDocument document(io::builtinCatalog());
    MainWindow window(&document);
    QString error;
    QVERIFY(document.loadFromBytes(io::builtinExamplePlan(), QString(), &error));
    QAction *tools = window.findChild<QAction *>(QStringLiteral("calibrateAction"));
    QVERIFY(tools);
    tools->trigger();
    auto *dialog = window.findChild<CalibrateDialog *>();
    QVERIFY(dialog);
    // Two runs of the example on its A100s, "measured" 10% slower than the catalog's A100 predicts.
    const QString plan = QStringLiteral(TRAINPLAN_SOURCE_DIR "/resources/examples/gpt3-175b-tp8-pp8.json");
    const Estimate e = estimate(document.plan(), io::builtinCatalog(), EstimateOptions::analytic());
    dialog->addMeasurement(plan, 1.1 * e.step.stepSeconds, 0, 0);
    dialog->addMeasurement(plan, 0, e.step.tokensPerSecond / 1.1, 0);
    QSignalSpy fitted(dialog, &CalibrateDialog::fitted);
    QVERIFY(dialog->fit());
    QVERIFY(dialog->isFitting());
    QVERIFY(!dialog->fit()); // one fit at a time
    QVERIFY(fitted.wait(60000));
    QVERIFY(!dialog->isFitting());
    QVERIFY(dialog->result().has_value());
    for (double after : dialog->result()->errorsAfter)
        QVERIFY2(std::abs(after) < 0.01, qPrintable(QString::number(after)));
    // A cell the CSV reader would refuse is refused here too, naming row and column; the last fit is kept.
    dialog->addMeasurement(plan, 0, 0, 0);
    auto *table = dialog->findChild<QTableWidget *>(QStringLiteral("calibrateRows"));
    QVERIFY(table);
    table->item(2, 1)->setText(QStringLiteral("inf"));
    QVERIFY(!dialog->fit());
    const QString report = dialog->findChild<QPlainTextEdit *>()->toPlainText();
    QVERIFY2(report.contains(QStringLiteral("row 3, Step (s): step_seconds must be a number from 1e-06 to 1e+06 s (got \"inf\")")),
             qPrintable(report));
    table->item(2, 1)->setText(QStringLiteral("5e-324"));
    QVERIFY(!dialog->fit());
    table->removeRow(2);
    dialog->keepDevice();
    const auto &mine = window.clusterView()->customCatalog()->devices();
    QVERIFY(std::any_of(mine.begin(), mine.end(), [](const DeviceSpec &d) { return d.id == "a100-sxm4-80gb-calibrated"; }));
    dialog->close();
}

void TestMainWindow::profileDialogFollowsThePlan()
{
    // Tools > Compare with a Profiler Trace on the GPT-3 example: a trace of its first stage whose GEMMs ran
    // 20% slower than estimated and whose exposed communication took twice as long.
    QTemporaryDir dir;
    const QString planPath = dir.filePath(QStringLiteral("gpt3.json")), tracePath = dir.filePath(QStringLiteral("rank0.json"));
    QVERIFY(QFile::copy(QStringLiteral(TRAINPLAN_SOURCE_DIR "/resources/examples/gpt3-175b-tp8-pp8.json"), planPath));
    PlanDocument document(io::builtinCatalog());
    QString error;
    QVERIFY(document.load(planPath, &error));
    MainWindow window(&document);
    QFile trace(tracePath);
    QVERIFY(trace.open(QIODevice::WriteOnly));
    trace.write(test::traceFromEstimate(document.plan(), document.estimate(), 0, 2, {1.2, 1, 1, 1, 2, 1}));
    trace.close();
    QAction *action = window.findChild<QAction *>(QStringLiteral("profileAction"));
    QVERIFY(action);
    action->trigger();
    auto *dialog = window.findChild<ProfileDialog *>();
    QVERIFY(dialog);
    QVERIFY(!dialog->comparison());
    QVERIFY(!dialog->loadTrace(dir.filePath(QStringLiteral("missing.json")), &error));
    QVERIFY(error.contains(QStringLiteral("missing.json: cannot be read")));
    QVERIFY(dialog->loadTrace(tracePath, &error));
    QVERIFY(dialog->comparison());
    const auto errorOf = [dialog](const char *key) {
        for (const ProfileRow &r : dialog->comparison()->rows)
            if (r.key == key)
                return r.error().value_or(99.0);
        return 99.0;
    };
    QVERIFY2(std::abs(errorOf("gemm") - (1 / 1.2 - 1)) < 1e-6, qPrintable(QString::number(errorOf("gemm"))));
    QVERIFY(std::abs(errorOf("communication_exposed") + 0.5) < 1e-6);
    QVERIFY(std::abs(errorOf("attention")) < 1e-6);
    // The largest disagreement heads the table: the step, which holds both.
    auto *table = dialog->findChild<QTableWidget *>(QStringLiteral("profileRows"));
    QVERIFY(table && table->rowCount() >= 7);
    QCOMPARE(table->item(0, 0)->text(), QStringLiteral("Step"));
    // Editing the plan re-estimates the comparison: two micro-batches' GEMMs per step are more work.
    const double before = dialog->comparison()->rows.front().estimatedSeconds.value();
    document.undoStack()->push(new SetMicroBatch(&document, 2));
    QVERIFY(dialog->comparison()->rows.front().estimatedSeconds.value() != before);
    document.undoStack()->undo();
    QCOMPARE(dialog->comparison()->rows.front().estimatedSeconds.value(), before);
    dialog->close();
}

void TestMainWindow::saveLoadRoundTripAndModifiedFlag()
{
    PlanDocument document(io::builtinCatalog());
    QString error;
    QVERIFY(document.loadFromBytes(io::builtinExamplePlan(), QString(), &error));
    const Estimate before = document.estimate();

    document.undoStack()->push(new SetMicroBatch(&document, 2));
    QVERIFY(document.isModified());
    QCOMPARE(document.plan().training.microBatch, 2);
    QVERIFY(document.estimate().memory.peakBytes > before.memory.peakBytes);
    document.undoStack()->undo();
    QCOMPARE(document.plan().training.microBatch, 1);
    QCOMPARE(document.estimate().memory.peakBytes, before.memory.peakBytes);
    document.undoStack()->redo();

    QTemporaryDir dir;
    const QString path = dir.filePath("plan.json");
    QVERIFY2(document.save(path, &error), qPrintable(error));
    QVERIFY(!document.isModified());
    QCOMPARE(document.filePath(), path);

    PlanDocument reloaded(io::builtinCatalog());
    QVERIFY2(reloaded.load(path, &error), qPrintable(error));
    QVERIFY(reloaded.plan() == document.plan());

    // Saving into a directory that does not exist fails with a message and keeps the document modified.
    document.undoStack()->push(new SetMicroBatch(&document, 4));
    QVERIFY(!document.save(dir.filePath("missing/dir/plan.json"), &error));
    QVERIFY(!error.isEmpty());
    QVERIFY(document.isModified());
}

TRAINPLAN_TEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
