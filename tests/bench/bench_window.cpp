// One edit on the megatron-1t / 3072-GPU plan, end to end as in the running application: the undo
// command, the estimate (with the simulated pipeline and scaling curves), every view's refresh, then the
// event loop's work until the window is repainted (the charts' queued replots and the dirty regions).
// The goal is one frame (16 ms).

#include <QStandardPaths>
#include <QTest>
#include <QUndoStack>

#include "CatalogJson.h"
#include "MainWindow.h"
#include "TestSupport.h"
#include "commands/ChangePlanValue.h"
#include "document/PlanDocument.h"

using namespace trainplan;

class BenchWindow : public QObject
{
    Q_OBJECT

private slots:
    void editAndRedraw_data();
    void editAndRedraw();
};

void BenchWindow::editAndRedraw_data()
{
    QTest::addColumn<QSize>("size");
    QTest::newRow("1280x800") << QSize(1280, 800);
    QTest::newRow("1920x1080") << QSize(1920, 1080);
}

void BenchWindow::editAndRedraw()
{
    QFETCH(QSize, size);
    QStandardPaths::setTestModeEnabled(true);
    PlanDocument document(io::builtinCatalog());
    Plan plan = test::presetPlan("megatron-1t", 8, 64, 6, 1, 3072);
    plan.training.recompute = Recompute::Full;
    document.setPlan(plan);
    MainWindow window(&document);
    window.resize(size);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    std::int64_t seq = 2048;
    QBENCHMARK {
        const std::int64_t next = seq == 2048 ? 1024 : 2048;
        document.undoStack()->push(new ChangePlanValue<std::int64_t>(&document, PlanField::SeqLen, seq, next,
                                                                     [](Plan &p, std::int64_t v) { p.model.seqLen = v; }));
        seq = next;
        QCoreApplication::processEvents(); // queued replots, layout and the repaint of what changed
    }
    QVERIFY(document.estimate().valid);
}

QTEST_MAIN(BenchWindow)
#include "bench_window.moc"
