#include "ui/cluster/scene/NodeGroupItem.h"

#include <QGraphicsSceneHoverEvent>
#include <QPainter>

#include <algorithm>

#include "core/cluster/Topology.h"
#include "core/common/Units.h"
#include "io/output/Format.h"
#include "charts/ChartStyle.h"
#include "ui/cluster/ClusterCanvas.h"
#include "ui/cluster/scene/SceneGeometry.h"
#include "ui/document/PlanDocument.h"

namespace trainplan {

using namespace scene;

NodeGroupItem::NodeGroupItem(ClusterCanvas *canvas, int index, NodeGroup group, std::int64_t firstNode,
                             int deviceColour, qreal y)
    : m_canvas(canvas)
    , m_index(index)
    , m_group(std::move(group))
    , m_firstNode(firstNode)
    , m_deviceColour(deviceColour)
    , m_height(42)
{
    setPos(kMargin, y);
    setAcceptHoverEvents(true);
    layout();
}

void NodeGroupItem::place(int index, std::int64_t firstNode, int deviceColour, qreal y)
{
    prepareGeometryChange();
    m_index = index;
    m_firstNode = firstNode;
    m_deviceColour = deviceColour;
    setPos(kMargin, y);
    layout();
    update();
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

namespace {

constexpr qreal kBoldLine = 18, kSmallLine = 15, kTextLeft = 10;

QFont boldFont(QFont f)
{
    f.setBold(true);
    return f;
}

QFont smallFont(QFont f)
{
    f.setPointSizeF(f.pointSizeF() * 0.9);
    return f;
}

/// `text` in lines of at most `width` pixels, broken between words (a word wider than a line stays whole).
QStringList wrapWords(const QString &text, const QFontMetricsF &metrics, qreal width)
{
    QStringList lines;
    QString line;
    for (const QString &word : text.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        const QString longer = line.isEmpty() ? word : line + QLatin1Char(' ') + word;
        if (!line.isEmpty() && metrics.horizontalAdvance(longer) > width) {
            lines << line;
            line = word;
        } else {
            line = longer;
        }
    }
    if (!line.isEmpty())
        lines << line;
    return lines;
}

} // namespace

QString NodeGroupItem::titleText() const
{
    const NodeGroup &g = m_group;
    const PlanDocument *document = m_canvas->document();
    const DeviceSpec *device = document->catalog().device(g.device, document->plan().cluster.customDevices);
    const QString deviceName =
        device ? fmt::text(device->name) : QObject::tr("unknown device \"%1\"").arg(fmt::text(g.device));
    return g.templateName.empty() ? QObject::tr("%1 × %2").arg(g.gpusPerNode).arg(deviceName)
                                  : fmt::text(g.templateName);
}

QString NodeGroupItem::countText() const
{
    const NodeGroup &g = m_group;
    return QObject::tr("× %1 node%2 · %3 GPUs")
        .arg(g.nodes)
        .arg(g.nodes == 1 ? QString() : QStringLiteral("s"))
        .arg(g.nodes * g.gpusPerNode);
}

QString NodeGroupItem::detailText() const
{
    const NodeGroup &g = m_group;
    const PlanDocument *document = m_canvas->document();
    QString link = QObject::tr("device's own scale-up link");
    if (const LinkSpec *l = document->catalog().intraNodeLink(g.intraNodeLink))
        link = fmt::text(l->name);
    QString detail = QObject::tr("%1 per node · %2").arg(g.gpusPerNode).arg(link);
    if (nodesPerRack() > 1)
        detail += QObject::tr(" · racks of %1 trays (dashed): one NVLink domain of %2 GPUs")
                      .arg(nodesPerRack())
                      .arg(nodesPerRack() * g.gpusPerNode);
    for (const NodeGroupEstimate &ge : document->estimate().nodeGroups)
        if (ge.firstNode == m_firstNode)
            detail += QObject::tr(" · step %1 s%2")
                          .arg(fmt::number(ge.stepSeconds, 2))
                          .arg(ge.paces ? QObject::tr(" (sets the pace)") : QString());
    return detail;
}

void NodeGroupItem::layoutHeader(qreal width)
{
    const QFontMetricsF bold(boldFont(m_canvas->font())), small(smallFont(m_canvas->font()));
    const qreal room = std::max<qreal>(60, width - 2 * kTextLeft);
    m_titleLines = wrapWords(titleText(), bold, room);
    const qreal count = bold.horizontalAdvance(countText());
    m_countBesideTitle = bold.horizontalAdvance(m_titleLines.back()) + 16 + count <= room;
    m_detailLines = wrapWords(detailText(), small, room);
    qreal y = 4 + kBoldLine * qreal(m_titleLines.size() + (m_countBesideTitle ? 0 : 1)) +
              kSmallLine * qreal(m_detailLines.size());
    m_expander = QRectF();
    if (hasExpander()) {
        const QString expander = QObject::tr("Collapse ▴");
        const qreal w = small.horizontalAdvance(expander) + 4;
        if (small.horizontalAdvance(m_detailLines.back()) + 16 + w <= room) {
            m_expander = QRectF(width - kTextLeft - w, y - kSmallLine, w, kSmallLine);
        } else {
            m_expander = QRectF(width - kTextLeft - w, y, w, kSmallLine);
            y += kSmallLine;
        }
    }
    m_header = y + 6;
}

void NodeGroupItem::paintHeader(QPainter *painter, const QPalette &palette, const QRectF &frame) const
{
    painter->setFont(boldFont(painter->font()));
    painter->setPen(palette.color(QPalette::Text));
    qreal y = 4;
    for (const QString &line : m_titleLines) {
        painter->drawText(QRectF(kTextLeft, y, frame.width() - 2 * kTextLeft, kBoldLine),
                          Qt::AlignLeft | Qt::AlignVCenter, line);
        y += kBoldLine;
    }
    const QRectF count(kTextLeft, m_countBesideTitle ? y - kBoldLine : y, frame.width() - 2 * kTextLeft, kBoldLine);
    painter->drawText(count, (m_countBesideTitle ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter, countText());
    if (!m_countBesideTitle)
        y += kBoldLine;
    const QFont small = smallFont(painter->font());
    QFont plain = small;
    plain.setBold(false);
    painter->setFont(plain);
    painter->setPen(palette.color(QPalette::PlaceholderText));
    for (const QString &line : m_detailLines) {
        painter->drawText(QRectF(kTextLeft, y, frame.width() - 2 * kTextLeft, kSmallLine),
                          Qt::AlignLeft | Qt::AlignVCenter, line);
        y += kSmallLine;
    }
    if (hasExpander()) {
        painter->setPen(chartstyle::isDark(palette) ? palette.color(QPalette::Highlight).lighter(150)
                                                    : palette.color(QPalette::Link));
        painter->drawText(m_expander, Qt::AlignRight | Qt::AlignVCenter,
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
        while (end < shown && end / m_perRow == slot / m_perRow && nodeAt(end) >= 0 &&
               (m_firstNode + nodeAt(end)) / perRack == rack)
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
            painter->drawText(nodeRect(slot), Qt::AlignCenter, QObject::tr("+%1").arg(g.nodes - shown + 1));
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
        QString text =
            plan.parallel.context > 1
                ? QObject::tr("Node %1%8, GPU %2: rank %3\ntensor rank %4 · context rank %7 · data replica %5 · "
                              "pipeline stage %6")
                      .arg(m_firstNode + node)
                      .arg(gpu)
                      .arg(rank)
                      .arg(c.tensor)
                      .arg(c.data)
                      .arg(c.stage)
                      .arg(c.context)
                      .arg(where)
                : QObject::tr("Node %1%7, GPU %2: rank %3\ntensor rank %4 · data replica %5 · pipeline stage %6")
                      .arg(m_firstNode + node)
                      .arg(gpu)
                      .arg(rank)
                      .arg(c.tensor)
                      .arg(c.data)
                      .arg(c.stage)
                      .arg(where);
        if (plan.model.isMoe() && plan.parallel.expert > 1) {
            // Megatron-Core's expert rank order: expert-tensor fastest, then expert (core/cluster/Topology).
            const std::int64_t et = std::max<std::int64_t>(1, plan.parallel.expertTensorSize());
            const std::int64_t expertRank = (rank / et) % plan.parallel.expert;
            const std::int64_t local = plan.model.experts / plan.parallel.expert;
            text += QObject::tr("\nexpert rank %1 of %2: routed experts %3-%4")
                        .arg(expertRank)
                        .arg(plan.parallel.expert)
                        .arg(expertRank * local)
                        .arg(expertRank * local + local - 1);
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
    return {10 + col * (size.width() + kNodeGap), m_header + row * (size.height() + kNodeGap), size.width(),
            size.height()};
}

void NodeGroupItem::layout()
{
    const QSizeF size = nodeSize();
    m_perRow = std::max(2, int((m_canvas->sceneWidth() - 2 * kMargin - 20 + kNodeGap) / (size.width() + kNodeGap)));
    const int rows = (shownNodes() + m_perRow - 1) / m_perRow;
    const bool more = m_canvas->isExpanded(m_index) && m_group.nodes > kMaxExpandedNodes;
    layoutHeader(m_canvas->sceneWidth() - 2 * kMargin);
    m_height = m_header + rows * (size.height() + kNodeGap) + 6 + (more ? 20 : 0);
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
        painter->setBrush(overlay == ClusterCanvas::Overlay::Devices
                              ? chartstyle::series(m_deviceColour, palette)
                              : overlayColour(overlayGroup(overlay, par, rank), palette));
        const int row = int(i / kCellsPerRow);
        const int col = int(i % kCellsPerRow);
        painter->drawRect(QRectF(r.left() + kNodePad + col * (kCell + kCellGap),
                                 r.top() + kNodePad + row * (kCell + kCellGap), kCell, kCell));
    }
}

} // namespace trainplan
