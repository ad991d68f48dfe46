#include "ui/cluster/ClusterInspector.h"

#include <tuple>

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QUndoStack>
#include <QVBoxLayout>

#include "ui/cluster/ClusterCanvas.h"
#include "ui/cluster/ClusterEdits.h"
#include "core/cluster/Topology.h"
#include "ui/commands/ClusterCommands.h"
#include "core/common/Units.h"
#include "core/step/StepModel.h"
#include "ui/document/PlanDocument.h"
#include "ui/FormWidgets.h"
#include "io/plan/ProblemWords.h"

namespace trainplan {

namespace {

QString text(const std::string &s) { return QString::fromStdString(s); }


QString landingLine(const QString &what, const GroupLanding &l, bool racks)
{
    if (l.size <= 1)
        return QString();
    // The unit is the scale-up domain: a node, or a rack of trays (NVL72) when the plan sets one.
    const QString where =
        racks ? (l.crossesNodes ? QObject::tr("across %1 NVLink domains").arg(l.nodesSpanned)
                                : QObject::tr("inside one NVLink domain"))
              : (l.crossesNodes ? QObject::tr("across %1 nodes").arg(l.nodesSpanned) : QObject::tr("inside a node"));
    // The link's figure is what the fields above set; collectives achieve the calibrated share of it.
    const QString achieved = text(units::formatNumber(l.bandwidthBytesPerSecond / units::Giga, 0));
    const QString rate =
        l.nominalBandwidthBytesPerSecond > l.bandwidthBytesPerSecond * 1.005
            ? QObject::tr("achieves %1 of %2 GB/s per GPU")
                  .arg(achieved, text(units::formatNumber(l.nominalBandwidthBytesPerSecond / units::Giga, 0)))
            : QObject::tr("%1 GB/s per GPU").arg(achieved);
    return QObject::tr("<b>%1</b> (%2 × %3 GPUs): %4, over %5 (%6)<br>")
        .arg(what)
        .arg(l.groups)
        .arg(l.size)
        .arg(where, text(l.link).toHtmlEscaped(), rate);
}

/// A spin box for one of the cluster's figures in its display unit, named for tests.
QDoubleSpinBox *figureBox(const QString &name, double minimum, double maximum, int decimals, const QString &suffix,
                          const QString &tooltip)
{
    auto *box = new QDoubleSpinBox;
    box->setObjectName(name);
    box->setRange(minimum, maximum);
    box->setDecimals(decimals);
    box->setSuffix(suffix);
    box->setToolTip(tooltip);
    return box;
}

/// A spin box for a bandwidth in GB/s.
QDoubleSpinBox *bandwidthBox(const QString &name, double minimum, double maximum, int decimals, const QString &tooltip)
{
    return figureBox(name, minimum, maximum, decimals, QObject::tr(" GB/s"), tooltip);
}

} // namespace

ClusterInspector::ClusterInspector(PlanDocument *document, ClusterCanvas *canvas, const PaletteCatalog *palette,
                                   QWidget *parent)
    : QWidget(parent)
    , m_document(document)
    , m_canvas(canvas)
    , m_palette(palette)
{
    // The form scrolls, so the dock can be short on a 1280x800 screen.
    auto *scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    auto *content = new QWidget;
    scroll->setWidget(content);
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(scroll);
    auto *column = new QVBoxLayout(content);
    column->setContentsMargins(4, 0, 4, 0);

    column->addWidget(createClusterBox());
    column->addWidget(createGroupBox());
    column->addWidget(createPlacementBox(), 1);

    for (QComboBox *combo : {m_network, m_overlay, m_device, m_link}) {
        combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        combo->setMinimumContentsLength(10);
    }
    // The form scrolls down, never sideways: the inspector is never narrower than its form and a scroll bar,
    // or the fields' right ends would be cut off under the scroll bar.
    setMinimumWidth(content->minimumSizeHint().width() + scroll->verticalScrollBar()->sizeHint().width() + 2);
    connectNetworkEdits();
    connectFigureEdits();
    connect(m_overlay, &QComboBox::currentIndexChanged, this, [this](int index) {
        m_canvas->setOverlay(ClusterCanvas::Overlay(m_overlay->itemData(index).toInt()));
        refreshLegend();
    });
    connect(m_device, &QComboBox::currentIndexChanged, this, [this] { editGroup(NodeGroupField::Device); });
    connect(m_gpus, &QSpinBox::valueChanged, this, [this] { editGroup(NodeGroupField::GpusPerNode); });
    connect(m_nodes, &QSpinBox::valueChanged, this, [this] { editGroup(NodeGroupField::Nodes); });
    connect(m_link, &QComboBox::currentIndexChanged, this, [this] { editGroup(NodeGroupField::IntraNodeLink); });
    connect(m_remove, &QPushButton::clicked, this, [this] { m_canvas->removeGroup(m_canvas->selectedGroup()); });
    connect(m_canvas, &ClusterCanvas::groupSelected, this, &ClusterInspector::refresh);
    connect(m_document, &PlanDocument::planChanged, this, &ClusterInspector::refresh);
    refresh();
}

QGroupBox *ClusterInspector::createClusterBox()
{
    auto *clusterBox = new QGroupBox(tr("Cluster"));
    auto *clusterForm = new QFormLayout(clusterBox);
    m_network = new ChoiceBox;
    m_network->setObjectName(QStringLiteral("network"));
    m_network->addItem(tr("Device default"), QString());
    for (const LinkSpec &l : m_document->catalog().networks())
        m_network->addItem(text(l.name), text(l.id));
    clusterForm->addRow(tr("Network"), m_network);
    m_networkBandwidth = bandwidthBox(QStringLiteral("networkBandwidth"), 0.01, 10000, 2,
                                      tr("Network bandwidth per GPU and direction (cluster.network_bandwidth); "
                                         "choosing a network tier resets it"));
    clusterForm->addRow(tr("  per GPU"), m_networkBandwidth);
    m_networkLatency = figureBox(QStringLiteral("networkLatency"), 0, 10000, 1, tr(" µs"),
                                 tr("Latency per message step (cluster.network_latency)"));
    clusterForm->addRow(tr("  latency"), m_networkLatency);
    m_hostLink = bandwidthBox(
        QStringLiteral("hostLinkBandwidth"), 0.1, 10000, 1,
        tr("Each GPU's link to host memory (PCIe, NVLink-C2C), one direction (cluster.host_link_bandwidth): "
           "an offloaded optimizer's gradients go to the host and its parameters come back over it"));
    clusterForm->addRow(tr("Host link per GPU"), m_hostLink);
    m_hostMemory =
        bandwidthBox(QStringLiteral("hostMemoryBandwidth"), 0.1, 100000, 1,
                     tr("One node's host DRAM bandwidth, all sockets (cluster.host_memory_bandwidth): an offloaded "
                        "optimizer step streams every GPU's shard of the node through it"));
    clusterForm->addRow(tr("Host memory per node"), m_hostMemory);
    m_hostLaunch = figureBox(
        QStringLiteral("hostLaunch"), 0, 10000, 1, tr(" µs"),
        tr("The host CPU's time per kernel it launches from the framework (cluster.host_launch_overhead): a GPU "
           "whose kernels are shorter waits for its host unless CUDA graphs replay them (Training: CUDA graphs)"));
    clusterForm->addRow(tr("Host launch per kernel"), m_hostLaunch);
    m_hostEnqueue = figureBox(
        QStringLiteral("hostEnqueue"), 0, 10000, 1, tr(" µs"),
        tr("The host CPU's time per kernel a library's native code enqueues inside one launch "
           "(cluster.host_enqueue_overhead): Transformer Engine's grouped expert GEMM quantizes, allocates and "
           "runs a GEMM per local expert from one call"));
    clusterForm->addRow(tr("Enqueue per kernel"), m_hostEnqueue);
    addDispatchFigureFields(clusterForm);
    addDeviceFigureFields(clusterForm);
    auto *overlay = new ChoiceBox;
    m_overlay = overlay;
    m_overlay->setObjectName(QStringLiteral("overlay"));
    m_overlay->addItem(tr("Accelerator"), int(ClusterCanvas::Overlay::Devices));
    m_overlay->addItem(tr("Tensor-parallel group"), int(ClusterCanvas::Overlay::TensorGroups));
    m_overlay->addItem(tr("Pipeline stage"), int(ClusterCanvas::Overlay::PipelineStages));
    m_overlay->addItem(tr("Data-parallel replica"), int(ClusterCanvas::Overlay::DataReplicas));
    m_overlay->addItem(tr("Gradient all-reduce group"), int(ClusterCanvas::Overlay::GradientGroups));
    m_overlay->addItem(tr("Context-parallel group"), int(ClusterCanvas::Overlay::ContextGroups));
    m_overlay->addItem(tr("Expert-parallel group"), int(ClusterCanvas::Overlay::ExpertGroups));
    const QStringList shortNames{tr("Accelerator"), tr("Tensor group"), tr("Pipeline stage"), tr("Data replica"),
                                 tr("Gradient group"), tr("Context group"), tr("Expert group")};
    for (int i = 0; i < m_overlay->count(); ++i)
        overlay->setShortText(i, shortNames.value(i));
    clusterForm->addRow(tr("Colour by"), m_overlay);
    m_legend = new WrappedLabel;
    m_legend->setObjectName(QStringLiteral("overlayLegend"));
    m_legend->setWordWrap(true);
    m_legend->setTextFormat(Qt::RichText);
    clusterForm->addRow(m_legend);

    return clusterBox;
}

/// The shares of their links the expert dispatchers reach: DeepEP's and HybridEP's of the NVLink, NCCL's all-to-all's
/// of the NIC and of the NVLink.
void ClusterInspector::addDispatchFigureFields(QFormLayout *clusterForm)
{
    const auto share = [&](QDoubleSpinBox *&box, const char *name, const QString &label, const QString &tip) {
        box = figureBox(QLatin1String(name), 0.01, 1, 2, QString(), tip);
        clusterForm->addRow(label, box);
    };
    share(m_flexDispatch, "flexDispatch", tr("Flex dispatch efficiency"),
          tr("The share of the scale-up link's nominal rate DeepEP's and HybridEP's dispatch and combine reach inside "
             "the NVLink domain (cluster.flex_dispatch_efficiency; Parallel: Expert dispatcher): about all of it on "
             "Hopper, about half of NVLink 5 on Blackwell, as their authors measure it"));
    share(m_networkAllToAll, "networkAllToAll", tr("All-to-all network"),
          tr("The share of each GPU's network share NCCL's all-to-all reaches across nodes "
             "(cluster.network_alltoall_efficiency; Parallel: Expert dispatcher all-to-all): each copy for another "
             "node leaves through its sender's own NIC, point to point, not through the rings of the other "
             "collectives"));
    share(m_intraNodeAllToAll, "intraNodeAllToAll", tr("All-to-all scale-up"),
          tr("The share of the scale-up link NCCL's all-to-all reaches among many ranks of one NVLink domain "
             "(cluster.intra_node_alltoall_efficiency; Parallel: Expert dispatcher all-to-all); fewer ranks reach "
             "more, two about 1.8 times as much, as NCCL's measured bus bandwidth on 8-GPU B200 nodes falls with "
             "the peers. Without a figure for the device, the rings' share"));
}

/// The figures every node group's device or link would give, overridden for the cluster: the scale-up link's
/// bandwidth and latency, the CUDA context's memory.
void ClusterInspector::addDeviceFigureFields(QFormLayout *clusterForm)
{
    m_intraBandwidth = bandwidthBox(
        QStringLiteral("intraNodeBandwidth"), 0.1, 100000, 1,
        tr("Scale-up link (NVLink, xGMI) bandwidth per GPU and direction (cluster.intra_node_bandwidth): "
           "in force over every node group's intra-node link"));
    clusterForm->addRow(tr("Scale-up per GPU"), m_intraBandwidth);
    m_intraLatency = figureBox(QStringLiteral("intraNodeLatency"), 0, 10000, 2, tr(" µs"),
                               tr("Scale-up link latency per message step (cluster.intra_node_latency)"));
    clusterForm->addRow(tr("  latency"), m_intraLatency);
    m_runtimeContext = figureBox(QStringLiteral("runtimeContext"), 0, 64, 2, tr(" GiB"),
                                 tr("Memory each GPU gives the CUDA context, driver and libraries before the "
                                    "framework allocates (cluster.runtime_context_bytes): counted in the "
                                    "device peak (nvidia-smi)"));
    clusterForm->addRow(tr("CUDA context per GPU"), m_runtimeContext);
}

QGroupBox *ClusterInspector::createGroupBox()
{
    auto *groupBox = new QGroupBox(tr("Node group"));
    auto *groupForm = new QFormLayout(groupBox);
    m_groupTitle = new WrappedLabel;
    m_groupTitle->setWordWrap(true);
    groupForm->addRow(m_groupTitle);
    m_device = new ChoiceBox;
    m_device->setObjectName(QStringLiteral("groupDevice"));
    groupForm->addRow(tr("Accelerator"), m_device);
    m_gpus = new QSpinBox;
    m_gpus->setObjectName(QStringLiteral("groupGpus"));
    m_gpus->setRange(1, 1024);
    groupForm->addRow(tr("GPUs per node"), m_gpus);
    m_nodes = new QSpinBox;
    m_nodes->setObjectName(QStringLiteral("groupNodes"));
    m_nodes->setRange(1, 1 << 20);
    m_nodes->setAccelerated(true);
    groupForm->addRow(tr("Nodes"), m_nodes);
    m_link = new ChoiceBox;
    m_link->setObjectName(QStringLiteral("groupLink"));
    m_link->addItem(tr("Device's own"), QString());
    for (const LinkSpec &l : m_document->catalog().intraNodeLinks())
        m_link->addItem(text(l.name), text(l.id));
    groupForm->addRow(tr("Intra-node link"), m_link);
    m_remove = new QPushButton(tr("Remove Node Group"));
    groupForm->addRow(m_remove);

    return groupBox;
}

QGroupBox *ClusterInspector::createPlacementBox()
{
    auto *placementBox = new QGroupBox(tr("Placement"));
    auto *placementColumn = new QVBoxLayout(placementBox);
    m_placement = new WrappedLabel;
    m_placement->setObjectName(QStringLiteral("placement"));
    m_placement->setWordWrap(true);
    m_placement->setTextFormat(Qt::RichText);
    m_placement->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_placement->setTextInteractionFlags(Qt::TextSelectableByMouse);
    placementColumn->addWidget(m_placement);

    return placementBox;
}

/// The network tier: choosing one clears the bandwidth and latency overrides.
void ClusterInspector::connectNetworkEdits()
{
    connect(m_network, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (m_updating || index < 0)
            return;
        Plan plan = m_document->plan();
        plan.cluster.network = m_network->itemData(index).toString().toStdString();
        plan.cluster.overrides.networkBandwidthBytesPerSecond.reset();
        plan.cluster.overrides.networkLatencySeconds.reset();
        if (plan == m_document->plan())
            return;
        m_document->undoStack()->push(new SetClusterValue(m_document, "cluster.network", plan,
                                                          tr("Change network to %1").arg(m_network->itemText(index))));
    });
}

/// The figures the cluster overrides (the network's, the host's, the scale-up link's, the CUDA context's), each
/// field in its display unit; each edit one undo step (spin boxes merge).
void ClusterInspector::connectFigureEdits()
{
    for (const auto &[box, field, scale, text, key] :
         {std::tuple{m_networkBandwidth, &ClusterOverrides::networkBandwidthBytesPerSecond, units::Giga,
                     tr("Change network bandwidth"), "cluster.network_bandwidth"},
          std::tuple{m_networkLatency, &ClusterOverrides::networkLatencySeconds, units::Micro,
                     tr("Change network latency"), "cluster.network_latency"},
          std::tuple{m_hostLink, &ClusterOverrides::hostLinkBandwidthBytesPerSecond, units::Giga,
                     tr("Change host link bandwidth"), "cluster.host_link_bandwidth"},
          std::tuple{m_hostMemory, &ClusterOverrides::hostMemoryBandwidthBytesPerSecond, units::Giga,
                     tr("Change host memory bandwidth"), "cluster.host_memory_bandwidth"},
          std::tuple{m_hostLaunch, &ClusterOverrides::hostLaunchSeconds, units::Micro,
                     tr("Change host launch overhead"), "cluster.host_launch_overhead"},
          std::tuple{m_hostEnqueue, &ClusterOverrides::hostEnqueueSeconds, units::Micro,
                     tr("Change host enqueue overhead"), "cluster.host_enqueue_overhead"},
          std::tuple{m_flexDispatch, &ClusterOverrides::flexDispatchEfficiency, 1.0,
                     tr("Change flex dispatch efficiency"), "cluster.flex_dispatch_efficiency"},
          std::tuple{m_networkAllToAll, &ClusterOverrides::networkAllToAllEfficiency, 1.0,
                     tr("Change all-to-all network efficiency"), "cluster.network_alltoall_efficiency"},
          std::tuple{m_intraNodeAllToAll, &ClusterOverrides::intraNodeAllToAllEfficiency, 1.0,
                     tr("Change all-to-all scale-up efficiency"), "cluster.intra_node_alltoall_efficiency"},
          std::tuple{m_intraBandwidth, &ClusterOverrides::intraNodeBandwidthBytesPerSecond, units::Giga,
                     tr("Change scale-up bandwidth"), "cluster.intra_node_bandwidth"},
          std::tuple{m_intraLatency, &ClusterOverrides::intraNodeLatencySeconds, units::Micro,
                     tr("Change scale-up latency"), "cluster.intra_node_latency"},
          std::tuple{m_runtimeContext, &ClusterOverrides::runtimeContextBytes, units::GiB,
                     tr("Change CUDA context memory"), "cluster.runtime_context_bytes"}})
        connect(box, &QDoubleSpinBox::valueChanged, this,
                [this, field = field, scale = scale, text = text, key = key](double value) {
                    if (m_updating)
                        return;
                    Plan plan = m_document->plan();
                    plan.cluster.overrides.*field = value * scale;
                    m_document->undoStack()->push(new SetClusterValue(m_document, key, plan, text));
                });
}

void ClusterInspector::editGroup(NodeGroupField field)
{
    if (m_updating)
        return;
    const std::vector<NodeGroup> groups = m_document->plan().cluster.groups();
    const int index = std::clamp(m_canvas->selectedGroup(), 0, int(groups.size()) - 1);
    NodeGroup g = groups[std::size_t(index)];
    QString what;
    switch (field) {
    case NodeGroupField::Device:
        g.device = m_device->currentData().toString().toStdString();
        g.templateName.clear();
        what = tr("accelerator");
        break;
    case NodeGroupField::GpusPerNode:
        g.gpusPerNode = m_gpus->value();
        g.templateName.clear();
        what = tr("GPUs per node");
        break;
    case NodeGroupField::Nodes:
        g.nodes = m_nodes->value();
        what = tr("node count");
        break;
    case NodeGroupField::IntraNodeLink:
        g.intraNodeLink = m_link->currentData().toString().toStdString();
        g.templateName.clear();
        what = tr("intra-node link");
        break;
    }
    const Plan plan = withGroup(m_document->plan(), index, g, *m_palette);
    if (plan == m_document->plan())
        return;
    m_document->undoStack()->push(new SetNodeGroupField(m_document, index, field, plan,
                                                        tr("Change %1 of node group %2").arg(what).arg(index + 1)));
}

void ClusterInspector::refreshLegend()
{
    // Swatches of the first groups in their colours, then what a group is.
    const auto overlay = ClusterCanvas::Overlay(m_overlay->currentData().toInt());
    const ParallelConfig &par = m_document->plan().parallel;
    QString html;
    if (overlay != ClusterCanvas::Overlay::Devices) {
        const std::int64_t groups = overlayGroupCount(overlay, par);
        const int shown = int(std::min<std::int64_t>(groups, 3 * kOverlayColours));
        for (int g = 0; g < shown; ++g)
            html += QStringLiteral("<span style=\"color:%1\">&#9632;</span>&nbsp;%2 ")
                        .arg(overlayColour(g, palette()).name())
                        .arg(g);
        if (groups > shown)
            html += tr("… (colours repeat every %1 groups)").arg(shown);
        html += QStringLiteral("<br>");
    }
    m_legend->setText(html + overlayLegend(overlay, par).toHtmlEscaped());
}

/// Only the groups the plan has are offered for colouring: expert groups for a mixture of experts split over
/// expert ranks, context groups with context parallelism (a dense model offered 24 colours of one group).
void ClusterInspector::refreshOverlayChoices()
{
    const Plan &plan = m_document->plan();
    auto *model = qobject_cast<QStandardItemModel *>(m_overlay->model());
    const auto offer = [&](ClusterCanvas::Overlay overlay, bool available, const QString &why) {
        if (QStandardItem *item = model ? model->item(m_overlay->findData(int(overlay))) : nullptr) {
            item->setEnabled(available);
            item->setToolTip(available ? QString() : why);
        }
    };
    offer(ClusterCanvas::Overlay::ExpertGroups, plan.model.isMoe() && plan.parallel.expert > 1,
          plan.model.isMoe() ? tr("the experts are not split over ranks (parallel.expert 1)")
                             : tr("a dense model has no experts"));
    offer(ClusterCanvas::Overlay::ContextGroups, plan.parallel.context > 1,
          tr("no context parallelism (parallel.context 1)"));
    if (model && !model->item(m_overlay->currentIndex())->isEnabled())
        m_overlay->setCurrentIndex(m_overlay->findData(int(ClusterCanvas::Overlay::Devices)));
}

void ClusterInspector::refresh()
{
    refreshOverlayChoices();
    refreshLegend();
    m_updating = true;
    const Plan &plan = m_document->plan();
    const Catalog &catalog = m_document->catalog();
    m_network->setCurrentIndex(std::max(0, m_network->findData(text(plan.cluster.network))));
    // The network figures in force: override, else the tier, else the first group's device.
    double bandwidth = 0, latency = 0;
    if (const LinkSpec *net = catalog.network(plan.cluster.network)) {
        bandwidth = net->bandwidthBytesPerSecond;
        latency = net->latencySeconds;
    } else if (const DeviceSpec *d = catalog.device(plan.cluster.device, plan.cluster.customDevices)) {
        bandwidth = d->networkBandwidthBytesPerSecond;
        latency = d->networkLatencySeconds;
    }
    m_networkBandwidth->setValue(plan.cluster.overrides.networkBandwidthBytesPerSecond.value_or(bandwidth) /
                                 units::Giga);
    m_networkLatency->setValue(plan.cluster.overrides.networkLatencySeconds.value_or(latency) / units::Micro);
    // The host figures in force: override, else the first group's device.
    if (const DeviceSpec *d = catalog.device(plan.cluster.device, plan.cluster.customDevices)) {
        m_hostLink->setValue(hostLinkBytesPerSecond(plan, *d) / units::Giga);
        m_hostMemory->setValue(
            plan.cluster.overrides.hostMemoryBandwidthBytesPerSecond.value_or(d->hostMemoryBandwidthBytesPerSecond) /
            units::Giga);
        m_hostLaunch->setValue(hostLaunchSeconds(plan, *d) / units::Micro);
        m_hostEnqueue->setValue(hostEnqueueSeconds(plan, *d) / units::Micro);
        m_flexDispatch->setValue(flexDispatchEfficiency(plan, *d));
        m_networkAllToAll->setValue(networkAllToAllEfficiency(plan, *d));
        m_intraNodeAllToAll->setValue(intraNodeAllToAllEfficiency(plan, *d));
        m_runtimeContext->setValue(plan.cluster.overrides.runtimeContextBytes.value_or(d->runtimeContextBytes) /
                                   units::GiB);
    }
    // The scale-up figures in force: override, else the first group's link or device.
    if (const auto d = resolvedDevice(plan.cluster, catalog, plan.cluster.groups().front())) {
        const ClusterOverrides &o = plan.cluster.overrides;
        m_intraBandwidth->setValue(o.intraNodeBandwidthBytesPerSecond.value_or(d->intraNodeBandwidthBytesPerSecond) /
                                   units::Giga);
        m_intraLatency->setValue(o.intraNodeLatencySeconds.value_or(d->intraNodeLatencySeconds) / units::Micro);
    }

    const std::vector<NodeGroup> groups = plan.cluster.groups();
    const int index = std::clamp(m_canvas->selectedGroup(), 0, int(groups.size()) - 1);
    const NodeGroup &g = groups[std::size_t(index)];
    m_groupTitle->setText(
        tr("<b>Group %1 of %2</b>%3")
            .arg(index + 1)
            .arg(groups.size())
            .arg(g.templateName.empty() ? QString() : QStringLiteral(" · ") + text(g.templateName).toHtmlEscaped()));
    m_device->clear();
    for (const DeviceSpec &d : catalog.devices())
        m_device->addItem(text(d.name), text(d.id));
    std::vector<std::string> custom;
    for (const DeviceSpec &d : plan.cluster.customDevices)
        custom.push_back(d.id), m_device->addItem(tr("%1 (custom)").arg(text(d.name)), text(d.id));
    for (const DeviceSpec &d : m_palette->customDevices)
        if (std::find(custom.begin(), custom.end(), d.id) == custom.end())
            m_device->addItem(tr("%1 (custom)").arg(text(d.name)), text(d.id));
    m_device->setCurrentIndex(m_device->findData(text(g.device)));
    m_gpus->setValue(int(std::clamp<std::int64_t>(g.gpusPerNode, 1, 1024)));
    m_nodes->setValue(int(std::clamp<std::int64_t>(g.nodes, 1, 1 << 20)));
    m_link->setCurrentIndex(std::max(0, m_link->findData(text(g.intraNodeLink))));
    m_remove->setEnabled(groups.size() > 1);

    m_placement->setText(placementHtml());
    m_updating = false;
}

/// The placement report: which link each group's collectives land on, and the plan's placement warnings.
QString ClusterInspector::placementHtml() const
{
    const Plan &plan = m_document->plan();
    const Estimate &e = m_document->estimate();
    QString html;
    if (!e.valid) {
        html = tr("<i>No placement: the plan has errors.</i><br>");
        for (const Problem &p : m_document->problems())
            if (p.isError() && (p.key.rfind("cluster", 0) == 0 || p.key.rfind("parallel", 0) == 0))
                html += QStringLiteral("• <b>%1</b>: %2<br>")
                            .arg(text(p.key).toHtmlEscaped(), io::problemText(p).toHtmlEscaped());
    } else {
        const PlacementReport &r = e.placement;
        const bool racks = plan.cluster.fabricGpus() > plan.cluster.gpusPerNode;
        html += landingLine(tr("Tensor groups"), r.tensor, racks);
        if (plan.parallel.context > 1)
            html += landingLine(tr("Context groups"), r.context, racks);
        html +=
            landingLine(plan.parallel.context > 1 ? tr("Gradient groups (data x context)") : tr("Data-parallel groups"),
                        r.data, racks);
        html += landingLine(tr("Expert groups (all-to-all)"), r.expert, racks);
        html += landingLine(tr("Expert-data groups (expert gradients)"), r.expertData, racks);
        if (plan.parallel.pipeline > 1)
            html += tr("<b>Pipeline</b> (%1 stages): %2 of %3 stage boundaries cross nodes, over %4<br>")
                        .arg(plan.parallel.pipeline)
                        .arg(r.pipelineBoundariesAcrossNodes)
                        .arg(plan.parallel.pipeline - 1)
                        .arg(text(r.pipeline.link).toHtmlEscaped());
        if (html.isEmpty())
            html = tr("One GPU per replica: no collectives.<br>");
        for (const Problem &p : m_document->problems())
            if (p.severity == Severity::Warning && (p.key.rfind("parallel", 0) == 0 || p.key.rfind("cluster", 0) == 0))
                html += QStringLiteral("<span style=\"color:#d55e00\">⚠ %1</span><br>")
                            .arg(io::problemText(p).toHtmlEscaped());
    }
    return html;
}

} // namespace trainplan
