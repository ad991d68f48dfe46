// The cluster builder offscreen, driven with real mouse events on the canvas viewport and real drop
// events: dropping a node adds GPUs and changes the estimate, undo removes it; a device or network
// dropped on the cluster changes its links; save -> load restores the same cluster; a tensor group
// spanning nodes is flagged with its cost; 1024 nodes draw as one aggregated item per group.

#include <QApplication>
#include <QComboBox>
#include <QStandardItemModel>
#include <QSet>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QDockWidget>
#include <QDropEvent>
#include <QLabel>
#include <QMimeData>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include "io/output/Evidence.h"
#include "io/plan/CatalogJson.h"
#include "ui/MainWindow.h"
#include "io/plan/PlanJson.h"
#include "TestMain.h"
#include "TestSupport.h"
#include "ui/cluster/ClusterCanvas.h"
#include "ui/cluster/ClusterInspector.h"
#include "ui/cluster/ClusterPalette.h"
#include "ui/cluster/ClusterView.h"
#include "ui/cluster/CustomCatalog.h"
#include "ui/cluster/CustomEntryDialogs.h"
#include "ui/commands/ChangePlanValue.h"
#include "ui/commands/ClusterCommands.h"
#include "ui/cluster/scene/NodeGroupItem.h"
#include "ui/document/PlanDocument.h"

using namespace trainplan;

namespace {

/// Llama-2-7B, tensor 8 on two DGX H100 nodes: data parallel 2, global batch 48 (divisible by 2, 3, 4).
Plan twoNodePlan()
{
    Plan plan = test::presetPlan("llama2-7b", 8, 1, 2, 1, 48, "h100-sxm5-80gb");
    plan.cluster.setGroups({{"DGX H100 (8 x H100 SXM, NVSwitch)", "h100-sxm5-80gb", 8, 2, "nvlink4-nvswitch"}});
    plan.cluster.network = "ib-ndr";
    return plan;
}

struct ClusterBuilderFixture
{
    PlanDocument document{io::builtinCatalog()};
    MainWindow window{&document};
    explicit ClusterBuilderFixture(const Plan &plan)
    {
        QString error;
        if (!document.loadFromBytes(io::writePlan(plan, io::builtinCatalog()), QString(), &error))
            qFatal("plan: %s", qPrintable(error));
        window.resize(1280, 800);
        window.show();
        window.showPage(MainWindow::Page::Cluster);
        QApplication::processEvents();
    }
    ClusterCanvas *canvas() const { return window.clusterView()->canvas(); }
    QWidget *viewport() const { return canvas()->viewport(); }
};

void clickOn(QWidget *viewport, const QPoint &at)
{
    QTest::mousePress(viewport, Qt::LeftButton, Qt::NoModifier, at);
    QTest::mouseMove(viewport, at);
    QTest::mouseRelease(viewport, Qt::LeftButton, Qt::NoModifier, at);
}

/// A drag from the palette as Qt delivers it to the canvas: enter, move, drop with the entry's mime data.
bool dropOn(QWidget *viewport, const PaletteEntry &entry, const QPoint &at)
{
    QMimeData mime;
    mime.setData(QLatin1String(kPaletteMimeType), entry.toString().toUtf8());
    QDragEnterEvent enter(at, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(viewport, &enter);
    if (!enter.isAccepted())
        return false;
    QDragMoveEvent move(at, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(viewport, &move);
    QDropEvent drop(QPointF(at), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(viewport, &drop);
    return drop.isAccepted();
}

bool problemsMention(const Estimate &e, const std::string &key, const std::string &text)
{
    for (const Problem &p : io::estimateProblems(e))
        if (p.key == key && io::problemMessage(p).find(text) != std::string::npos)
            return true;
    return false;
}

/// The canvas's node-group items in list order (their identity shows which ones an edit replaced).
QList<const NodeGroupItem *> groupItems(const ClusterCanvas *canvas)
{
    QList<const NodeGroupItem *> items;
    for (const QGraphicsItem *item : canvas->scene()->items())
        if (const auto *group = dynamic_cast<const NodeGroupItem *>(item))
            items << group;
    std::sort(items.begin(), items.end(),
              [](const NodeGroupItem *a, const NodeGroupItem *b) { return a->index() < b->index(); });
    return items;
}

} // namespace

// NCCL's all-to-all shares (cluster.network_alltoall_efficiency, cluster.intra_node_alltoall_efficiency): the
// field shows the device's figure; half of it sets the plan's override and lengthens the exposed expert dispatch
// by more than half; one undo step returns to the device's figure.
void allToAllShareField(const Plan &plan, const char *field, double shown,
                        std::optional<double> ClusterOverrides::*key, const char *undoText)
{
    ClusterBuilderFixture f(plan);
    QVERIFY(f.document.estimate().valid);
    auto *box = f.window.clusterView()->inspector()->findChild<QDoubleSpinBox *>(QLatin1String(field));
    QVERIFY(box);
    QCOMPARE(box->value(), shown);
    const double before = f.document.estimate().step.category(TimeCategory::ExpertComm);
    QVERIFY(before > 0);
    box->setValue(shown / 2);
    QCOMPARE(*(f.document.plan().cluster.overrides.*key), shown / 2);
    QVERIFY(f.document.estimate().step.category(TimeCategory::ExpertComm) > 1.5 * before);
    QCOMPARE(f.document.undoStack()->undoText(), QLatin1String(undoText));
    f.document.undoStack()->undo();
    QVERIFY(!(f.document.plan().cluster.overrides.*key));
    QCOMPARE(box->value(), shown);
}

class TestClusterBuilder : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("trainplan-tests"));
    }

    // Pick a node template in the palette, click on the empty canvas: a third DGX H100 node joins the
    // group, data parallelism follows (2 -> 3), throughput rises; undo restores the plan exactly.
    void placingANodeAddsGpusAndUndoRemovesIt()
    {
        ClusterBuilderFixture f(twoNodePlan());
        const Plan before = f.document.plan();
        const double tokensBefore = f.document.estimate().step.tokensPerSecond;
        QVERIFY(f.document.estimate().valid);
        QCOMPARE(f.document.plan().cluster.gpus(), 16);

        QVERIFY(f.window.clusterView()->palette()->selectEntry({PaletteEntry::Kind::NodeTemplate, "dgx-h100"}));
        QVERIFY(f.canvas()->isPlacing());
        clickOn(f.viewport(), f.canvas()->viewportPointOfEmptySpace());

        QVERIFY(!f.canvas()->isPlacing());
        QCOMPARE(f.document.plan().cluster.gpus(), 24);
        QCOMPARE(f.document.plan().cluster.nodes, 3);
        QCOMPARE(f.document.plan().parallel.data, 3);
        QVERIFY(f.document.estimate().valid);
        QVERIFY(f.document.estimate().step.tokensPerSecond > 1.3 * tokensBefore);
        QCOMPARE(f.document.undoStack()->undoText(), QStringLiteral("Add DGX H100 (8 x H100 SXM, NVSwitch) node"));

        f.document.undoStack()->undo();
        QCOMPARE(f.document.plan(), before);
        QCOMPARE(f.document.estimate().step.tokensPerSecond, tokensBefore);
    }

    // Real drop events: a different node template on empty space starts a second group (a mixed
    // cluster, paced by the slower A100); a network on the bar changes the tier; a device on a group
    // changes that group's accelerator.
    void droppingEntriesEditsTheCluster()
    {
        ClusterBuilderFixture f(twoNodePlan());
        QVERIFY(dropOn(f.viewport(), {PaletteEntry::Kind::NodeTemplate, "dgx-a100-80gb"}, f.canvas()->viewportPointOfEmptySpace()));
        QCOMPARE(int(f.document.plan().cluster.nodeGroups.size()), 2);
        QCOMPARE(f.document.plan().cluster.gpus(), 24);
        QCOMPARE(int(f.document.estimate().nodeGroups.size()), 2);
        QVERIFY(f.document.estimate().nodeGroups[1].paces);
        QCOMPARE(f.document.estimate().device->id, std::string("a100-sxm4-80gb"));

        const double dataCommNdr = f.document.estimate().step.category(TimeCategory::DataComm);
        QVERIFY(dropOn(f.viewport(), {PaletteEntry::Kind::Network, "ethernet-100-node"}, QPoint(40, 20)));
        QCOMPARE(f.document.plan().cluster.network, std::string("ethernet-100-node"));
        QVERIFY(f.document.estimate().step.category(TimeCategory::DataComm) > dataCommNdr);

        QVERIFY(dropOn(f.viewport(), {PaletteEntry::Kind::Device, "h100-sxm5-80gb"}, f.canvas()->viewportPointOfGroup(1)));
        QCOMPARE(f.document.plan().cluster.nodeGroups[1].device, std::string("h100-sxm5-80gb"));
        QCOMPARE(f.document.undoStack()->count(), 3);
        f.document.undoStack()->undo();
        QCOMPARE(f.document.plan().cluster.nodeGroups[1].device, std::string("a100-sxm4-80gb"));
    }

    void saveLoadRestoresTheCluster()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("cluster.json"));
        ClusterConfig saved;
        {
            ClusterBuilderFixture f(twoNodePlan());
            QVERIFY(dropOn(f.viewport(), {PaletteEntry::Kind::NodeTemplate, "dgx-a100-80gb"}, f.canvas()->viewportPointOfEmptySpace()));
            QVERIFY(dropOn(f.viewport(), {PaletteEntry::Kind::IntraNodeLink, "pcie4-x16"}, f.canvas()->viewportPointOfGroup(1)));
            QString error;
            QVERIFY2(f.document.save(path, &error), qPrintable(error));
            saved = f.document.plan().cluster;
        }
        QCOMPARE(int(saved.nodeGroups.size()), 2);
        QCOMPARE(saved.nodeGroups[1].intraNodeLink, std::string("pcie4-x16"));
        PlanDocument loaded(io::builtinCatalog());
        QString error;
        QVERIFY2(loaded.load(path, &error), qPrintable(error));
        QCOMPARE(loaded.plan().cluster, saved);
        MainWindow window(&loaded);
        QVERIFY(window.clusterView()->canvas()->viewportPointOfGroup(1) != QPoint());
    }

    // Tensor 16 on 8-GPU nodes: the estimate flags it with its cost; the inspector shows it.
    void tensorGroupAcrossNodesIsFlagged()
    {
        Plan plan = twoNodePlan();
        ClusterBuilderFixture f(plan);
        f.document.undoStack()->push(new ChangePlanValue(&f.document, *findPlanKey("parallel.tensor"), std::int64_t(16)));
        QVERIFY(f.document.estimate().valid);
        QCOMPARE(f.document.plan().parallel.data, 1);
        QVERIFY(f.document.estimate().placement.tensor.crossesNodes);
        QVERIFY(f.document.estimate().placement.tensorAcrossNodesSeconds > 0);
        QVERIFY(problemsMention(f.document.estimate(), "parallel.tensor", "span 2 nodes"));
        const QString shown = f.window.clusterView()->inspector()->placementLabel()->text();
        QVERIFY2(shown.contains(QStringLiteral("span 2 nodes")) && shown.contains(QStringLiteral(" per step (")), qPrintable(shown));
        QVERIFY(shown.contains(QStringLiteral("across 2 nodes")));
    }

    // GPT-3's 8 x 8 x 8 on 64 nodes of 8: every colouring partitions the GPUs differently, so no two
    // colourings draw the same picture, and the legend counts the groups.
    void colouringsTellTheirGroupsApart()
    {
        Plan plan = test::presetPlan("gpt3-175b", 8, 8, 8, 1, 1536);
        ClusterBuilderFixture f(plan);
        const ParallelConfig &par = f.document.plan().parallel;
        const QPalette palette = f.window.palette();
        const auto picture = [&par, &palette](ClusterCanvas::Overlay overlay) {
            QStringList colours;
            for (std::int64_t rank = 0; rank < 512; ++rank)
                colours << overlayColour(overlayGroup(overlay, par, rank), palette).name();
            return colours;
        };
        using O = ClusterCanvas::Overlay;
        const O overlays[] = {O::TensorGroups, O::PipelineStages, O::DataReplicas, O::GradientGroups};
        // The legend's group count, from the sizes alone, is the number of distinct groups over the ranks.
        for (O o : overlays) {
            QSet<int> groups;
            for (std::int64_t rank = 0; rank < 512; ++rank)
                groups << overlayGroup(o, par, rank);
            QCOMPARE(overlayGroupCount(o, par), std::int64_t(groups.size()));
        }
        for (O a : overlays)
            for (O b : overlays)
                if (a != b)
                    QVERIFY2(picture(a) != picture(b), qPrintable(QStringLiteral("%1 vs %2").arg(int(a)).arg(int(b))));
        // Ranks are tensor-fastest (Megatron's order): a tensor group is one node, a gradient group takes one
        // GPU of each of eight nodes; the eight GPUs of a node are eight gradient groups.
        QCOMPARE(overlayGroup(O::TensorGroups, par, 0), overlayGroup(O::TensorGroups, par, 7));
        QVERIFY(overlayGroup(O::TensorGroups, par, 7) != overlayGroup(O::TensorGroups, par, 8));
        QSet<int> inNode;
        for (int rank = 0; rank < 8; ++rank)
            inNode << overlayGroup(O::GradientGroups, par, rank);
        QCOMPARE(inNode.size(), 8);
        QCOMPARE(overlayGroup(O::GradientGroups, par, 3), overlayGroup(O::GradientGroups, par, 3 + 8)); // next replica
        // The legend names the groups.
        QComboBox *overlay = f.window.clusterView()->inspector()->overlayCombo();
        overlay->setCurrentIndex(overlay->findData(int(O::TensorGroups)));
        QVERIFY2(f.window.clusterView()->inspector()->overlayLegendLabel()->text().contains(QStringLiteral("64 tensor-parallel groups of 8 GPUs")),
                 qPrintable(f.window.clusterView()->inspector()->overlayLegendLabel()->text()));
        overlay->setCurrentIndex(overlay->findData(int(O::DataReplicas)));
        QVERIFY(f.window.clusterView()->inspector()->overlayLegendLabel()->text().contains(QStringLiteral("8 data-parallel replicas of 64 GPUs")));
        // Only the groups the plan has are offered: a dense model without context parallelism has neither expert
        // nor context groups to colour; a mixture of experts split over expert ranks has expert groups.
        auto *items = qobject_cast<QStandardItemModel *>(overlay->model());
        const auto offered = [&](O o) { return items->item(overlay->findData(int(o)))->isEnabled(); };
        QVERIFY(!offered(O::ExpertGroups) && !offered(O::ContextGroups) && offered(O::TensorGroups));
        overlay->setCurrentIndex(overlay->findData(int(O::TensorGroups)));
        f.document.setPlan(test::examplePlan("deepseek-v3-1024-h100"));
        QVERIFY(offered(O::ExpertGroups));
        overlay->setCurrentIndex(overlay->findData(int(O::ExpertGroups)));
        f.document.setPlan(test::examplePlan("gpt3-175b-tp8-pp8")); // colouring by a group it does not have falls back
        QCOMPARE(overlay->currentData().toInt(), int(O::Devices));
    }

    // A rack-scale template comes a whole NVLink domain at a time: dropping GB200 NVL72 adds its 18 trays of
    // 4 GPUs and sets the plan's scale-up domain to 72; undo takes both back.
    void nvl72TemplateAddsARack()
    {
        Plan plan = twoNodePlan();
        ClusterBuilderFixture f(plan);
        const std::int64_t before = f.document.plan().cluster.gpus();
        f.canvas()->apply({PaletteEntry::Kind::NodeTemplate, QStringLiteral("gb200-nvl72")}, -1);
        const ClusterConfig &c = f.document.plan().cluster;
        QCOMPARE(c.gpus(), before + 72);
        QCOMPARE(c.scaleUpDomain, 72);
        const std::vector<NodeGroup> groups = c.groups();
        QCOMPARE(groups.back().device, std::string("gb200"));
        QCOMPARE(groups.back().gpusPerNode, 4);
        QCOMPARE(groups.back().nodes, 18);
        f.document.undoStack()->undo();
        QCOMPARE(f.document.plan().cluster.gpus(), before);
        QCOMPARE(f.document.plan().cluster.scaleUpDomain, 0);
    }

    // A held-down spin box is one undo step; the node count follows.
    void nodeCountEditsMerge()
    {
        ClusterBuilderFixture f(twoNodePlan());
        QSpinBox *nodes = f.window.clusterView()->inspector()->nodesSpin();
        QCOMPARE(nodes->value(), 2);
        nodes->setValue(3);
        nodes->setValue(4);
        QCOMPARE(f.document.plan().cluster.nodes, 4);
        QCOMPARE(f.document.plan().parallel.data, 4);
        QCOMPARE(f.document.undoStack()->count(), 1);
        f.document.undoStack()->undo();
        QCOMPARE(f.document.plan().cluster.nodes, 2);
        QCOMPARE(nodes->value(), 2);
    }

    // The network's bandwidth per GPU is editable: it becomes the plan's override and slows the data-parallel
    // all-reduce in proportion; choosing a tier again clears it.
    void networkBandwidthOverride()
    {
        ClusterBuilderFixture f(twoNodePlan());
        QDoubleSpinBox *bandwidth = f.window.clusterView()->inspector()->networkBandwidthSpin();
        QCOMPARE(bandwidth->value(), 50.0); // InfiniBand NDR, 400 Gb/s per GPU
        const double before = f.document.estimate().placement.data.bandwidthBytesPerSecond;
        // The placement says what the collectives achieve of the figure in the field, not a second figure
        // that contradicts it.
        QLabel *placement = f.window.clusterView()->inspector()->placementLabel();
        const auto achieves = [](double achieved, double nominal) {
            return QStringLiteral("achieves %1 of %2 GB/s per GPU").arg(qRound(achieved / 1e9)).arg(qRound(nominal / 1e9));
        };
        QVERIFY2(placement->text().contains(achieves(before, 50e9)), qPrintable(placement->text()));
        bandwidth->setValue(20.0);
        QCOMPARE(*f.document.plan().cluster.overrides.networkBandwidthBytesPerSecond, 20e9);
        QCOMPARE(f.document.estimate().placement.data.bandwidthBytesPerSecond, before * 20.0 / 50.0);
        QVERIFY2(placement->text().contains(achieves(before * 20.0 / 50.0, 20e9)), qPrintable(placement->text()));
        bandwidth->setValue(12.5);
        QCOMPARE(*f.document.plan().cluster.overrides.networkBandwidthBytesPerSecond, 12.5e9);
        QCOMPARE(f.document.estimate().placement.data.bandwidthBytesPerSecond, before / 4);
        f.document.undoStack()->undo();
        f.document.undoStack()->undo();
        QVERIFY(!f.document.plan().cluster.overrides.networkBandwidthBytesPerSecond);
        QCOMPARE(bandwidth->value(), 50.0);
    }

    // Across nodes: Qwen3-30B-A3B with expert 16 over two DGX H100, the H100's 0.70.
    void allToAllNetworkEfficiency()
    {
        Plan plan = twoNodePlan();
        plan.model = *io::builtinCatalog().model("qwen3-30b-a3b");
        plan.parallel.tensor = 1;
        plan.parallel.data = 16;
        plan.parallel.expert = 16;
        plan.training.globalBatch = 64;
        allToAllShareField(plan, "networkAllToAll", 0.70, &ClusterOverrides::networkAllToAllEfficiency,
                           "Change all-to-all network efficiency");
    }

    // Inside the NVLink domain: Qwen3-30B-A3B with expert 8 on one DGX B200, the Blackwell parts' 0.38.
    void allToAllScaleUpEfficiency()
    {
        allToAllShareField(test::qwen3On8B200(), "intraNodeAllToAll", 0.38,
                           &ClusterOverrides::intraNodeAllToAllEfficiency, "Change all-to-all scale-up efficiency");
    }

    // The host figures an offloaded optimizer pays (issue 33): the fields show the device's DGX H100 figures,
    // an edit sets the plan's override and moves the host's update by the ratio, undo returns to the device's.
    void hostFiguresForOffload()
    {
        Plan plan = twoNodePlan();
        plan.parallel.offloadOptimizer = true;
        ClusterBuilderFixture f(plan);
        ClusterInspector *inspector = f.window.clusterView()->inspector();
        auto *link = inspector->findChild<QDoubleSpinBox *>(QStringLiteral("hostLinkBandwidth"));
        auto *memory = inspector->findChild<QDoubleSpinBox *>(QStringLiteral("hostMemoryBandwidth"));
        QVERIFY(link && memory);
        QCOMPARE(link->value(), 50.0);    // PCIe Gen5 x16 per GPU
        QCOMPARE(memory->value(), 614.4); // two Xeon 8480C, 8 DDR5-4800 channels each
        const double before = f.document.estimate().step.hostUpdateSeconds;
        QVERIFY(before > 0);
        memory->setValue(307.2);
        QCOMPARE(*f.document.plan().cluster.overrides.hostMemoryBandwidthBytesPerSecond, 307.2e9);
        TP_COMPARE_REL(f.document.estimate().step.hostUpdateSeconds, 2.0 * before, 1e-9);
        link->setValue(25.0);
        QCOMPARE(*f.document.plan().cluster.overrides.hostLinkBandwidthBytesPerSecond, 25e9);
        QCOMPARE(f.document.undoStack()->undoText(), QStringLiteral("Change host link bandwidth"));
        f.document.undoStack()->undo();
        f.document.undoStack()->undo();
        QVERIFY(!f.document.plan().cluster.overrides.hostMemoryBandwidthBytesPerSecond);
        QVERIFY(!f.document.plan().cluster.overrides.hostLinkBandwidthBytesPerSecond);
        QCOMPARE(memory->value(), 614.4);
    }

    // The scale-up link and the CUDA context (keys the window could not set): the fields show the NVLink 4 link's
    // 450 GB/s and 1 us and the H100's 0.75 GiB context; halving the bandwidth halves what the tensor-parallel
    // group achieves, a larger context raises the device peak by the difference; each edit is an undo step.
    void scaleUpAndContextFigures()
    {
        ClusterBuilderFixture f(twoNodePlan());
        ClusterInspector *inspector = f.window.clusterView()->inspector();
        auto *bandwidth = inspector->findChild<QDoubleSpinBox *>(QStringLiteral("intraNodeBandwidth"));
        auto *latency = inspector->findChild<QDoubleSpinBox *>(QStringLiteral("intraNodeLatency"));
        auto *context = inspector->findChild<QDoubleSpinBox *>(QStringLiteral("runtimeContext"));
        QVERIFY(bandwidth && latency && context);
        QCOMPARE(bandwidth->value(), 450.0);
        QCOMPARE(latency->value(), 1.0);
        QCOMPARE(context->value(), 0.75);
        const double tensor = f.document.estimate().placement.tensor.bandwidthBytesPerSecond;
        const double device = f.document.estimate().memory.deviceBytes;
        bandwidth->setValue(225.0);
        QCOMPARE(*f.document.plan().cluster.overrides.intraNodeBandwidthBytesPerSecond, 225e9);
        TP_COMPARE_REL(f.document.estimate().placement.tensor.bandwidthBytesPerSecond, tensor / 2, 1e-9);
        QCOMPARE(f.document.undoStack()->undoText(), QStringLiteral("Change scale-up bandwidth"));
        context->setValue(2.0);
        QCOMPARE(*f.document.plan().cluster.overrides.runtimeContextBytes, 2.0 * 1024 * 1024 * 1024);
        TP_COMPARE_REL(f.document.estimate().memory.deviceBytes, device + 1.25 * 1024 * 1024 * 1024, 1e-9);
        f.document.undoStack()->undo();
        f.document.undoStack()->undo();
        QVERIFY(!f.document.plan().cluster.overrides.intraNodeBandwidthBytesPerSecond);
        QVERIFY(!f.document.plan().cluster.overrides.runtimeContextBytes);
        QCOMPARE(bandwidth->value(), 450.0);
        QCOMPARE(context->value(), 0.75);
    }

    // 1024 nodes: one item per node group plus the network bar, expanded or not.
    void largeClusterIsAggregated()
    {
        Plan plan = test::presetPlan("gpt3-175b", 8, 16, 64, 1, 1536);
        plan.cluster.setGroups({{"DGX A100 (8 x A100 80GB, NVSwitch)", "a100-sxm4-80gb", 8, 1024, "nvlink3-nvswitch"}});
        ClusterBuilderFixture f(plan);
        QVERIFY(f.document.estimate().valid);
        QCOMPARE(f.canvas()->scene()->items().size(), 2);
        const qreal collapsed = f.canvas()->sceneRect().height();
        clickOn(f.viewport(), f.canvas()->viewportPointOfExpander(0));
        QVERIFY(f.canvas()->isExpanded(0));
        QCOMPARE(f.canvas()->scene()->items().size(), 2);
        // Expanded: 512 of the 1024 nodes drawn (six 8-GPU nodes per row: 86 rows), then a count.
        QVERIFY(f.canvas()->sceneRect().height() > collapsed + 85 * 17);
        QVERIFY2(f.canvas()->sceneRect().height() < 5000,
                 qPrintable(QStringLiteral("height %1 at width %2").arg(f.canvas()->sceneRect().height())
                                .arg(f.canvas()->viewport()->width())));
        // Selection by click, removal refused for the only group.
        clickOn(f.viewport(), f.canvas()->viewportPointOfGroup(0));
        QCOMPARE(f.canvas()->selectedGroup(), 0);
        QVERIFY(!f.canvas()->removeGroup(0));
    }

    // A custom device from settings, dropped on a group, travels with the plan file.
    void customDeviceTravelsWithThePlan()
    {
        ClusterBuilderFixture f(twoNodePlan());
        DeviceSpec custom = io::customDeviceTemplate();
        custom.name = "Lab accelerator";
        custom.id = customId(QString::fromStdString(custom.name));
        QCOMPARE(custom.id, std::string("custom-lab-accelerator"));
        custom.memoryBytes = 40.0 * (1 << 30);
        f.window.clusterView()->customCatalog()->addDevice(custom);
        QVERIFY(f.window.clusterView()->palette()->selectEntry({PaletteEntry::Kind::Device, "custom-lab-accelerator"}));
        clickOn(f.viewport(), f.canvas()->viewportPointOfGroup(0));
        QCOMPARE(f.document.plan().cluster.device, std::string("custom-lab-accelerator"));
        QCOMPARE(int(f.document.plan().cluster.customDevices.size()), 1);
        QVERIFY(f.document.estimate().valid);
        QCOMPARE(f.document.estimate().memory.capacityBytes, 40.0 * (1 << 30));
        const io::PlanReadResult reread = io::readPlan(io::writePlan(f.document.plan(), io::builtinCatalog()), io::builtinCatalog());
        QVERIFY(reread.plan);
        QCOMPARE(reread.plan->cluster.customDevices.front(), custom);
        // Settings keep it for the next session.
        CustomCatalog nextSession;
        QVERIFY(!nextSession.devices().empty());
        QCOMPARE(nextSession.devices().back().name, std::string("Lab accelerator"));
    }

    // Mixed GPUs per node are refused with the rule, never silently averaged.
    void mixedNodeSizesAreRefusedWithTheRule()
    {
        ClusterBuilderFixture f(twoNodePlan());
        QVERIFY(dropOn(f.viewport(), {PaletteEntry::Kind::NodeTemplate, "mi300x-4"}, f.canvas()->viewportPointOfEmptySpace()));
        QVERIFY(!f.document.estimate().valid);
        QVERIFY(problemsMention(f.document.estimate(), "cluster.node_groups[1].gpus_per_node", "same GPUs per node"));
        QVERIFY(f.window.clusterView()->inspector()->placementLabel()->text().contains(QStringLiteral("same GPUs per node")));
    }

    // Edits of different values never share an undo step, whatever the group's index (issue 41: merge keys
    // built as field x 100 + group index merged group 100's GPUs per node into group 0's node count).
    void groupsPastOneHundredEditInTheirOwnSteps()
    {
        Plan plan = twoNodePlan();
        std::vector<NodeGroup> groups;
        for (int i = 0; i < 101; ++i)
            groups.push_back({"", i % 2 ? "a100-sxm4-80gb" : "h100-sxm5-80gb", 8, 1, ""});
        plan.cluster.setGroups(groups);
        plan.training.globalBatch = 808;
        deriveDataParallel(plan);
        ClusterBuilderFixture f(plan);
        QCOMPARE(f.document.plan().cluster.groups().size(), std::size_t(101));
        ClusterInspector *inspector = f.window.clusterView()->inspector();
        auto *gpus = f.window.findChild<QSpinBox *>(QStringLiteral("groupGpus"));
        QVERIFY(gpus);
        f.canvas()->selectGroup(0);
        inspector->nodesSpin()->setValue(2);
        inspector->nodesSpin()->setValue(3); // the same value held down: one step
        // Group 100's edit: the document says which group changed and makes one estimate; the canvas
        // replaces that group's item and keeps the other 100.
        const QList<const NodeGroupItem *> before = groupItems(f.canvas());
        QCOMPARE(before.size(), 101);
        // Each item marked: a replaced item is a new one without the mark (its address may be the freed one's).
        constexpr int kMark = 0x7e57;
        for (int i = 0; i < 101; ++i)
            const_cast<NodeGroupItem *>(before[i])->setData(kMark, i);
        QSignalSpy changed(&f.document, &PlanDocument::nodeGroupChanged);
        QSignalSpy inserted(&f.document, &PlanDocument::nodeGroupsInserted);
        QSignalSpy removed(&f.document, &PlanDocument::nodeGroupsRemoved);
        QSignalSpy keys(&f.document, &PlanDocument::keyChanged);
        QSignalSpy estimates(&f.document, &PlanDocument::estimateChanged);
        const int made = f.document.estimateCount();
        f.canvas()->selectGroup(100);
        gpus->setValue(4);
        QCOMPARE(changed.size(), 1);
        QCOMPARE(changed.at(0).at(0).toInt(), 100);
        QVERIFY(inserted.isEmpty() && removed.isEmpty());
        QStringList paths;
        for (const QList<QVariant> &k : keys)
            paths << k.at(0).toString();
        // Group 100 is not the first: the summary keys that mirror the first group (cluster.gpus_per_node)
        // keep their values.
        QVERIFY2(paths.contains(QStringLiteral("cluster.node_groups")), qPrintable(paths.join(' ')));
        QVERIFY2(!paths.contains(QStringLiteral("cluster.gpus_per_node")), qPrintable(paths.join(' ')));
        QCOMPARE(estimates.size(), 1);
        QCOMPARE(f.document.estimateCount(), made + 1);
        const QList<const NodeGroupItem *> after = groupItems(f.canvas());
        QCOMPARE(after.size(), 101);
        for (int i = 0; i < 101; ++i)
            QCOMPARE(after[i]->data(kMark).isValid(), i != 100);
        QCOMPARE(after[100]->group().gpusPerNode, 4);
        QCOMPARE(after[100]->index(), 100);

        // Two typed steps with their ids: group 0's node count, group 100's GPUs per node.
        QCOMPARE(f.document.undoStack()->count(), 2);
        const auto *first = dynamic_cast<const SetNodeGroupField *>(f.document.undoStack()->command(0));
        const auto *second = dynamic_cast<const SetNodeGroupField *>(f.document.undoStack()->command(1));
        QVERIFY(first && second);
        QCOMPARE(first->id(), int(CommandId::SetNodeGroupField));
        QCOMPARE(first->index(), 0);
        QVERIFY(first->field() == NodeGroupField::Nodes);
        QCOMPARE(second->index(), 100);
        QVERIFY(second->field() == NodeGroupField::GpusPerNode);
        f.document.undoStack()->undo();
        QCOMPARE(f.document.plan().cluster.groups()[100].gpusPerNode, 8);
        QCOMPARE(f.document.plan().cluster.groups()[0].nodes, 3);
        f.document.undoStack()->undo();
        QCOMPARE(f.document.plan().cluster.groups()[0].nodes, 1);
    }

    // A group inserted in the middle and removed again (issue 41): the document names the range, the canvas
    // keeps every other group's item (renumbered) and the selection follows its group; each edit is its
    // own typed step.
    void insertedAndRemovedGroupsKeepTheOthers()
    {
        Plan plan = twoNodePlan();
        plan.cluster.setGroups({{"", "h100-sxm5-80gb", 8, 1, ""}, {"", "a100-sxm4-80gb", 8, 1, ""},
                                {"", "h100-sxm5-80gb", 8, 1, "pcie5-x16"}});
        deriveDataParallel(plan);
        ClusterBuilderFixture f(plan);
        const QList<const NodeGroupItem *> before = groupItems(f.canvas());
        QCOMPARE(before.size(), 3);
        constexpr int kMark = 0x7e57; // kept items keep their mark; a rebuilt one would not, whatever its address
        for (int i = 0; i < 3; ++i)
            const_cast<NodeGroupItem *>(before[i])->setData(kMark, i);
        f.canvas()->selectGroup(2);
        QSignalSpy inserted(&f.document, &PlanDocument::nodeGroupsInserted);
        QSignalSpy removed(&f.document, &PlanDocument::nodeGroupsRemoved);
        QSignalSpy changed(&f.document, &PlanDocument::nodeGroupChanged);
        // A B200 node dropped on group 0 (another kind of node) becomes a group of its own after it.
        QVERIFY(f.canvas()->apply({PaletteEntry::Kind::NodeTemplate, "dgx-b200"}, 0));
        QCOMPARE(inserted.size(), 1);
        QCOMPARE(inserted.at(0).at(0).toInt(), 1);
        QCOMPARE(inserted.at(0).at(1).toInt(), 1);
        QVERIFY(removed.isEmpty() && changed.isEmpty());
        const QList<const NodeGroupItem *> grown = groupItems(f.canvas());
        QCOMPARE(grown.size(), 4);
        QCOMPARE(grown[0], before[0]);
        QCOMPARE(grown[2], before[1]);
        QCOMPARE(grown[3], before[2]);
        QCOMPARE(grown[0]->data(kMark), QVariant(0));
        QCOMPARE(grown[2]->data(kMark), QVariant(1));
        QCOMPARE(grown[3]->data(kMark), QVariant(2));
        QVERIFY(!grown[1]->data(kMark).isValid());
        QCOMPARE(grown[1]->group().device, std::string("b200"));
        QCOMPARE(grown[2]->index(), 2);
        QCOMPARE(f.canvas()->selectedGroup(), 3); // the PCIe H100 group, now fourth
        QCOMPARE(f.canvas()->groupAt(f.canvas()->viewportPointOfGroup(3)), 3);
        QCOMPARE(f.document.undoStack()->command(0)->id(), int(CommandId::AddNodeGroup));
        QCOMPARE(dynamic_cast<const ApplyClusterEdit *>(f.document.undoStack()->command(0))->group(), 1);

        QVERIFY(f.canvas()->removeGroup(1));
        QCOMPARE(removed.size(), 1);
        QCOMPARE(removed.at(0).at(0).toInt(), 1);
        QCOMPARE(groupItems(f.canvas()), before);
        QCOMPARE(f.canvas()->selectedGroup(), 2);
        // Removing the selected group selects the one that takes its place (here the new last one).
        f.canvas()->selectGroup(2);
        QVERIFY(f.canvas()->removeGroup(2));
        QCOMPARE(f.canvas()->selectedGroup(), 1);
        f.document.undoStack()->undo();
        QCOMPARE(f.document.undoStack()->command(1)->id(), int(CommandId::RemoveNodeGroup));
        QCOMPARE(dynamic_cast<const ApplyClusterEdit *>(f.document.undoStack()->command(1))->group(), 1);
        QCOMPARE(f.document.plan(), plan);
        // Undo brings the B200 group back at its place.
        f.document.undoStack()->undo();
        QCOMPARE(groupItems(f.canvas()).size(), 4);
        QCOMPARE(groupItems(f.canvas())[1]->group().device, std::string("b200"));
    }
};

TRAINPLAN_TEST_MAIN(TestClusterBuilder)
#include "tst_clusterbuilder.moc"
