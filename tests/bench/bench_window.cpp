// One edit on the megatron-1t / 3072-GPU plan, end to end as in the running application: the undo
// command, the estimate (with the simulated pipeline and scaling curves), every view's refresh, then the
// event loop's work until the window is repainted (the charts' queued replots and the dirty regions).
// The goal is one frame (16 ms).

#include <QApplication>
#include <QDockWidget>
#include <QDragMoveEvent>
#include <QMimeData>
#include <QStandardPaths>
#include <QTest>
#include <QUndoStack>

#include "core/common/Allocator.h"
#include "io/plan/CatalogJson.h"
#include "ui/MainWindow.h"
#include "TestSupport.h"
#include "ui/cluster/ClusterCanvas.h"
#include "ui/cluster/ClusterView.h"
#include "ui/commands/ChangePlanValue.h"
#include "ui/document/PlanDocument.h"


// As the application does (app/main.cpp): freed memory is kept for the next estimate.
static const bool kAllocatorTuned = (trainplan::keepFreedMemoryForReuse(), true);
using namespace trainplan;

class BenchWindow : public QObject
{
    Q_OBJECT

private slots:
    // As the application starts (app/main.cpp): its style (ui/FrameStyle) and the light palette.
    void initTestCase() { applyPalette(false); }
    void editAndRedraw_data();
    void editAndRedraw();
    void dragOverLargeCluster();
    void dropNodeOnLargeCluster();
};

void BenchWindow::editAndRedraw_data()
{
    QTest::addColumn<QSize>("size");
    QTest::addColumn<bool>("baseline");
    QTest::newRow("1280x800") << QSize(1280, 800) << false;
    QTest::newRow("1920x1080") << QSize(1920, 1080) << false;
    // Compare mode: every chart also draws the pinned baseline, the summary its deltas.
    QTest::newRow("1920x1080 baseline pinned") << QSize(1920, 1080) << true;
}

void BenchWindow::editAndRedraw()
{
    QFETCH(QSize, size);
    QFETCH(bool, baseline);
    QStandardPaths::setTestModeEnabled(true);
    PlanDocument document(io::builtinCatalog());
    Plan plan = test::presetPlan("megatron-1t", 8, 64, 6, 1, 3072);
    plan.training.recompute = Recompute::Full;
    document.setPlan(plan);
    MainWindow window(&document);
    window.resize(size);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    if (baseline)
        document.pinBaseline();
    std::int64_t seq = 2048;
    QBENCHMARK {
        const std::int64_t next = seq == 2048 ? 1024 : 2048;
        document.undoStack()->push(new ChangePlanValue(&document, *findPlanKey("model.seq_len"), next));
        seq = next;
        QCoreApplication::processEvents(); // queued replots, layout and the repaint of what changed
    }
    QVERIFY(document.estimate().valid);
}

namespace {

/// Megatron 1T on 384 DGX A100 nodes (3072 GPUs), with the cluster builder open at 1920x1080.
struct LargeCluster
{
    PlanDocument document{io::builtinCatalog()};
    MainWindow window{&document};
    LargeCluster()
    {
        Plan plan = test::presetPlan("megatron-1t", 8, 64, 6, 1, 3072);
        plan.cluster.setGroups({{"DGX A100 (8 x A100 80GB, NVSwitch)", "a100-sxm4-80gb", 8, 384, "nvlink3-nvswitch"}});
        document.setPlan(plan);
        window.resize(1920, 1080);
        window.show();
        window.showPage(MainWindow::Page::Cluster);
        if (!QTest::qWaitForWindowExposed(&window))
            qWarning("the benchmark window was not exposed: the figures include its first paint");
    }
    ClusterCanvas *canvas() { return window.clusterView()->canvas(); }
};

} // namespace

// A palette entry dragged across the canvas: each move hit-tests the groups and repaints the target.
void BenchWindow::dragOverLargeCluster()
{
    LargeCluster f;
    QMimeData mime;
    mime.setData(QLatin1String(kPaletteMimeType), QByteArrayLiteral("template:dgx-a100-80gb"));
    QWidget *viewport = f.canvas()->viewport();
    const QPoint a = f.canvas()->viewportPointOfGroup(0);
    const QPoint b = f.canvas()->viewportPointOfEmptySpace();
    QDragEnterEvent enter(b, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(viewport, &enter);
    bool flip = false;
    QBENCHMARK {
        QDragMoveEvent move(flip ? a : b, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(viewport, &move);
        flip = !flip;
        QCoreApplication::processEvents();
    }
    QVERIFY(f.canvas()->dropTarget() >= -1);
}

// Dropping one more node: the undo command, the estimate of the 3080-GPU plan, every chart and the canvas.
void BenchWindow::dropNodeOnLargeCluster()
{
    LargeCluster f;
    QBENCHMARK {
        f.canvas()->apply({PaletteEntry::Kind::NodeTemplate, QStringLiteral("dgx-a100-80gb")}, 0);
        QCoreApplication::processEvents();
        f.document.undoStack()->undo();
        QCoreApplication::processEvents();
    }
    QCOMPARE(f.document.plan().cluster.nodes, 384);
}

QTEST_MAIN(BenchWindow)
#include "bench_window.moc"
