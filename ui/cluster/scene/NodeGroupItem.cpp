#include "ui/cluster/scene/NodeGroupItem.h"

#include <QGraphicsSceneHoverEvent>
#include <QPainter>

#include <algorithm>

#include "core/cluster/Topology.h"
#include "core/common/Units.h"
#include "ui/Format.h"
#include "ui/charts/ChartStyle.h"
#include "ui/cluster/ClusterCanvas.h"
#include "ui/cluster/scene/SceneGeometry.h"
#include "ui/document/PlanDocument.h"

namespace trainplan {

using namespace scene;

NodeGroupItem::NodeGroupItem(ClusterCanvas *canvas, int index, NodeGroup group, std::int64_t firstNode, int deviceColour, qreal y)
    : m_canvas(canvas), m_index(index), m_group(std::move(group)), m_firstNode(firstNode), m_deviceColour(deviceColour),
      m_height(kHeader)
{
    setPos(kMargin, y);
    setAcceptHoverEvents(true);
    layout();
}

QRectF NodeGroupItem::boundingRect() const
{
    return {0, 0, m_canvas->sceneWidth() - 2 * kMargin, m_height};
}

void NodeGroupItem::paint(QPainter *painter, const QStyleOptionGraphicsItem *, QWidget *widget)
{
    const QPalette palette = widget ? widget->palette() : QPalette();
    const bool selected = m_canvas->selectedGroup() == m_index;
    const bool dropHere = m_canvas->dropTarget() == m_index;
    const QRectF frame = boundingRect().adjusted(0.5, 0.5, -0.5, -0.5);

    // Connector to the network bar above.
    painter->setPen(QPen(palette.color(QPalette::Mid), 2));
    painter->drawLine(QPointF(24, -kConnector), QPointF(24, 0));
    painter->setPen(QPen(dropHere || selected ? palette.color(QPalette::Highlight) : palette.color(QPalette::Mid),
                         dropHere || selected ? 2.5 : 1));
    painter->setBrush(dropHere ? palette.color(QPalette::Highlight).lighter(180) : palette.color(QPalette::Base));
    painter->drawRoundedRect(frame, 6, 6);
    paintHeader(painter, palette, frame);
    paintNodes(painter, palette, frame);
}

void NodeGroupItem::paintHeader(QPainter *painter, const QPalette &palette, const QRectF &frame) const
{
    const NodeGroup &g = m_group;
    const PlanDocument *document = m_canvas->document();
    const Plan &plan = document->plan();
    // Template / device / link, and the count.
    const DeviceSpec *device = document->catalog().device(g.device, plan.cluster.customDevices);
    const QString deviceName = device ? fmt::text(device->name) : QObject::tr("unknown device \"%1\"").arg(fmt::text(g.device));
    QString link = QObject::tr("device's own scale-up link");
    if (const LinkSpec *l = document->catalog().intraNodeLink(g.intraNodeLink))
        link = fmt::text(l->name);
    QFont bold = painter->font();
    bold.setBold(true);
    painter->setFont(bold);
    painter->setPen(palette.color(QPalette::Text));
    const QString title = g.templateName.empty() ? QObject::tr("%1 × %2").arg(g.gpusPerNode).arg(deviceName) : fmt::text(g.templateName);
    const QRectF line1(10, 4, frame.width() - 200, 18);
    painter->drawText(line1, Qt::AlignLeft | Qt::AlignVCenter, painter->fontMetrics().elidedText(title, Qt::ElideRight, int(line1.width())));
    const QString count = QObject::tr("× %1 node%2 · %3 GPUs")
                              .arg(g.nodes)
                              .arg(g.nodes == 1 ? QString() : QStringLiteral("s"))
                              .arg(g.nodes * g.gpusPerNode);
    painter->drawText(QRectF(frame.width() - 190, 4, 182, 18), Qt::AlignRight | Qt::AlignVCenter, count);
    QFont small = painter->font();
    small.setBold(false);
    small.setPointSizeF(small.pointSizeF() * 0.9);
    painter->setFont(small);
    painter->setPen(palette.color(QPalette::PlaceholderText));
    QString detail = QObject::tr("%1 per node · %2").arg(g.gpusPerNode).arg(link);
    if (nodesPerRack() > 1)
        detail += QObject::tr(" · racks of %1 trays (dashed): one NVLink domain of %2 GPUs")
                      .arg(nodesPerRack())
                      .arg(nodesPerRack() * g.gpusPerNode);
    for (const NodeGroupEstimate &ge : document->estimate().nodeGroups)
        if (ge.firstNode == m_firstNode)
            detail += QObject::tr(" · step %1 s%2").arg(fmt::number(ge.stepSeconds, 2)).arg(ge.paces ? QObject::tr(" (sets the pace)") : QString());
    const QRectF line2(10, 22, frame.width() - (hasExpander() ? 110 : 20), 16);
    painter->drawText(line2, Qt::AlignLeft | Qt::AlignVCenter, painter->fontMetrics().elidedText(detail, Qt::ElideRight, int(line2.width())));
    if (hasExpander()) {
        painter->setPen(chartstyle::isDark(palette) ? palette.color(QPalette::Highlight).lighter(150) : palette.color(QPalette::Link));
        painter->drawText(expanderRect(), Qt::AlignRight | Qt::AlignVCenter,
                          m_canvas->isExpanded(m_index) ? QObject::tr("Collapse ▴") : QObject::tr("Expand ▾"));
    }
}

std::int64_t NodeGroupItem::nodesPerRack() const
{
    const std::int64_t domain = m_canvas->document()->plan().cluster.fabricGpus();
    return std::max<std::int64_t>(1, domain / std::max<std::int64_t>(1, m_group.gpusPerNode));
}

void NodeGroupItem::paintRacks(QPainter *painter, const QPalette &palette) const
{
    const std::int64_t perRack = nodesPerRack();
    if (perRack <= 1)
        return;
    // One outline per rack and row of the drawing: consecutive slots of the same rack on one row.
    const bool ellipsis = !m_canvas->isExpanded(m_index) && m_group.nodes > m_perRow;
    const int shown = shownNodes();
    const auto nodeAt = [&](int slot) -> std::int64_t {
        if (ellipsis && slot == shown - 2)
            return -1;
        return (ellipsis && slot == shown - 1) ? m_group.nodes - 1 : slot;
    };
    painter->setPen(QPen(palette.color(QPalette::Mid), 1.5, Qt::DashLine));
    painter->setBrush(Qt::NoBrush);
    const qreal pad = kNodeGap / 2 - 0.5;
    for (int slot = 0; slot < shown;) {
        const std::int64_t node = nodeAt(slot);
        if (node < 0) {
            ++slot;
            continue;
        }
        const std::int64_t rack = (m_firstNode + node) / perRack;
        int end = slot + 1;
        while (end < shown && end / m_perRow == slot / m_perRow && nodeAt(end) >= 0 && (m_firstNode + nodeAt(end)) / perRack == rack)
            ++end;
        painter->drawRoundedRect(nodeRect(slot).united(nodeRect(end - 1)).adjusted(-pad, -pad, pad, pad), 4, 4);
        slot = end;
    }
}

void NodeGroupItem::paintNodes(QPainter *painter, const QPalette &palette, const QRectF &frame) const
{
    const NodeGroup &g = m_group;
    const int shown = shownNodes();
    const bool ellipsis = !m_canvas->isExpanded(m_index) && g.nodes > m_perRow;
    paintRacks(painter, palette);
    for (int slot = 0; slot < shown; ++slot) {
        std::int64_t node = slot;
        if (ellipsis && slot == shown - 2) {
            painter->setPen(palette.color(QPalette::PlaceholderText));
            painter->drawText(nodeRect(slot), Qt::AlignCenter, QObject::tr("… %1 …").arg(g.nodes - shown + 1));
            continue;
        }
        if (ellipsis && slot == shown - 1)
            node = g.nodes - 1;
        paintNode(painter, palette, node, nodeRect(slot));
    }
    if (m_canvas->isExpanded(m_index) && g.nodes > kMaxExpandedNodes) {
        painter->setPen(palette.color(QPalette::PlaceholderText));
        painter->drawText(QRectF(10, m_height - 20, frame.width() - 20, 16), Qt::AlignLeft | Qt::AlignVCenter,
                          QObject::tr("… and %1 more nodes like these").arg(g.nodes - kMaxExpandedNodes));
    }
}

QString NodeGroupItem::describe(const QPointF &p) const
{
    const NodeGroup &g = m_group;
    const bool ellipsis = !m_canvas->isExpanded(m_index) && g.nodes > m_perRow;
    const int shown = shownNodes();
    for (int slot = 0; slot < shown; ++slot) {
        const QRectF r = nodeRect(slot);
        if (!r.contains(p))
            continue;
        if (ellipsis && slot == shown - 2)
            return QObject::tr("%1 more nodes like these (Expand to see them)").arg(g.nodes - shown + 1);
        const std::int64_t node = ellipsis && slot == shown - 1 ? g.nodes - 1 : slot;
        const int col = int((p.x() - r.left() - kNodePad) / (kCell + kCellGap));
        const int row = int((p.y() - r.top() - kNodePad) / (kCell + kCellGap));
        const std::int64_t gpu = std::clamp<std::int64_t>(row * kCellsPerRow + col, 0, g.gpusPerNode - 1);
        const std::int64_t rank = (m_firstNode + node) * g.gpusPerNode + gpu;
        const RankCoordinates c = coordinatesOf(m_canvas->document()->plan().parallel, rank);
        const QString where = nodesPerRack() > 1 ? QObject::tr(" (rack %1, tray %2)")
                                                      .arg((m_firstNode + node) / nodesPerRack())
                                                      .arg((m_firstNode + node) % nodesPerRack())
                                                : QString();
        const Plan &plan = m_canvas->document()->plan();
        QString text = plan.parallel.context > 1
                           ? QObject::tr("Node %1%8, GPU %2: rank %3\ntensor rank %4 · context rank %7 · data replica %5 · pipeline stage %6")
                                 .arg(m_firstNode + node).arg(gpu).arg(rank).arg(c.tensor).arg(c.data).arg(c.stage).arg(c.context).arg(where)
                           : QObject::tr("Node %1%7, GPU %2: rank %3\ntensor rank %4 · data replica %5 · pipeline stage %6")
                                 .arg(m_firstNode + node).arg(gpu).arg(rank).arg(c.tensor).arg(c.data).arg(c.stage).arg(where);
        if (plan.model.isMoe() && plan.parallel.expert > 1) {
            // Megatron-Core's expert rank order: expert-tensor fastest, then expert (core/cluster/Topology).
            const std::int64_t et = std::max<std::int64_t>(1, plan.parallel.expertTensorSize());
            const std::int64_t expertRank = (rank / et) % plan.parallel.expert;
            const std::int64_t local = plan.model.experts / plan.parallel.expert;
            text += QObject::tr("\nexpert rank %1 of %2: routed experts %3-%4")
                        .arg(expertRank).arg(plan.parallel.expert).arg(expertRank * local).arg(expertRank * local + local - 1);
        }
        return text;
    }
    return QString();
}

void NodeGroupItem::hoverMoveEvent(QGraphicsSceneHoverEvent *event)
{
    setToolTip(describe(event->pos()));
}

int NodeGroupItem::shownNodes() const
{
    const std::int64_t nodes = std::max<std::int64_t>(0, m_group.nodes);
    if (m_canvas->isExpanded(m_index))
        return int(std::min<std::int64_t>(nodes, kMaxExpandedNodes));
    return int(std::min<std::int64_t>(nodes, m_perRow));
}

QSizeF NodeGroupItem::nodeSize() const
{
    const std::int64_t gpus = std::clamp<std::int64_t>(m_group.gpusPerNode, 1, 1024);
    const int cols = int(std::min<std::int64_t>(gpus, kCellsPerRow));
    const int rows = int((gpus + kCellsPerRow - 1) / kCellsPerRow);
    return {cols * (kCell + kCellGap) - kCellGap + 2 * kNodePad, rows * (kCell + kCellGap) - kCellGap + 2 * kNodePad};
}

QRectF NodeGroupItem::nodeRect(int slot) const
{
    const QSizeF size = nodeSize();
    const int row = slot / m_perRow;
    const int col = slot % m_perRow;
    return {10 + col * (size.width() + kNodeGap), kHeader + row * (size.height() + kNodeGap), size.width(), size.height()};
}

void NodeGroupItem::layout()
{
    const QSizeF size = nodeSize();
    m_perRow = std::max(2, int((m_canvas->sceneWidth() - 2 * kMargin - 20 + kNodeGap) / (size.width() + kNodeGap)));
    const int rows = (shownNodes() + m_perRow - 1) / m_perRow;
    const bool more = m_canvas->isExpanded(m_index) && m_group.nodes > kMaxExpandedNodes;
    m_height = kHeader + rows * (size.height() + kNodeGap) + 6 + (more ? 20 : 0);
}

void NodeGroupItem::paintNode(QPainter *painter, const QPalette &palette, std::int64_t node, const QRectF &r) const
{
    const std::int64_t G = m_group.gpusPerNode;
    const ParallelConfig &par = m_canvas->document()->plan().parallel;
    const bool valid = m_canvas->document()->estimate().valid;
    const ClusterCanvas::Overlay overlay = valid ? m_canvas->overlay() : ClusterCanvas::Overlay::Devices;
    // A node hosting part of a tensor group that leaves its scale-up domain (a node, or an NVL72 rack of
    // trays) gets the warning outline (core/cluster/Topology).
    const std::int64_t domain = m_canvas->document()->plan().cluster.fabricGpus();
    const std::int64_t nodesPerDomain = std::max<std::int64_t>(1, domain / std::max<std::int64_t>(1, G));
    const bool crossing = valid && overlay == ClusterCanvas::Overlay::TensorGroups
                          && nodeHostsTensorGroupAcrossNodes(par, domain, (m_firstNode + node) / nodesPerDomain);
    painter->setPen(QPen(crossing ? chartstyle::warning(palette) : palette.color(QPalette::Mid), crossing ? 2 : 1));
    painter->setBrush(palette.color(QPalette::AlternateBase));
    painter->drawRoundedRect(r, 3, 3);
    painter->setPen(Qt::NoPen);
    const std::int64_t firstRank = (m_firstNode + node) * G;
    for (std::int64_t i = 0; i < G; ++i) {
        const std::int64_t rank = firstRank + i;
        painter->setBrush(overlay == ClusterCanvas::Overlay::Devices ? chartstyle::series(m_deviceColour, palette)
                                                                      : overlayColour(overlayGroup(overlay, par, rank), palette));
        const int row = int(i / kCellsPerRow);
        const int col = int(i % kCellsPerRow);
        painter->drawRect(QRectF(r.left() + kNodePad + col * (kCell + kCellGap), r.top() + kNodePad + row * (kCell + kCellGap), kCell, kCell));
    }
}

} // namespace trainplan
