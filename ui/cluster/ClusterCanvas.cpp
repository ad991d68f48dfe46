#include "ui/cluster/ClusterCanvas.h"

#include <QContextMenuEvent>
#include <QGraphicsItem>
#include <QGraphicsSceneHoverEvent>
#include <QKeyEvent>
#include <QMenu>
#include <QMimeData>
#include <QPainter>
#include <QUndoStack>

#include <algorithm>
#include <cmath>

#include "ui/charts/ChartStyle.h"
#include "core/cluster/Topology.h"
#include "ui/commands/ReplacePlan.h"
#include "core/common/Units.h"
#include "ui/document/PlanDocument.h"

namespace trainplan {

namespace {

// Scene geometry (scene units are pixels at 100% zoom). The width follows the viewport.
constexpr qreal kMargin = 12;
constexpr qreal kNetworkHeight = 34;
constexpr qreal kConnector = 22;
constexpr qreal kHeader = 42;
constexpr qreal kCell = 9;      // one GPU
constexpr qreal kCellGap = 2;
constexpr qreal kNodePad = 4;
constexpr qreal kNodeGap = 6;
constexpr int kCellsPerRow = 8;
constexpr int kMaxExpandedNodes = 512; // an expanded group draws at most this many nodes, then a count

QString text(const std::string &s) { return QString::fromStdString(s); }

} // namespace

/// One node group, drawn in full in paint(): a header and its nodes of GPU cells. The canvas rebuilds its
/// items on every plan change, so the group, its first node and its colour are fixed for an item's life.
class NodeGroupItem : public QGraphicsItem
{
public:
    NodeGroupItem(ClusterCanvas *canvas, int index, NodeGroup group, std::int64_t firstNode, int deviceColour, qreal y)
        : m_canvas(canvas), m_index(index), m_group(std::move(group)), m_firstNode(firstNode), m_deviceColour(deviceColour)
    {
        setPos(kMargin, y);
        setAcceptHoverEvents(true);
        layout();
    }

    int index() const { return m_index; }
    QRectF boundingRect() const override { return {0, 0, m_canvas->sceneWidth() - 2 * kMargin, m_height}; }
    qreal height() const { return m_height; }
    QRectF expanderRect() const { return {boundingRect().width() - 92, 22, 86, 16}; }
    bool hasExpander() const { return group().nodes > m_perRow; }
    /// Scene rectangle of the first drawn node.
    QRectF firstNodeRect() const { return nodeRect(0).translated(pos()); }

    void paint(QPainter *painter, const QStyleOptionGraphicsItem *, QWidget *widget) override
    {
        const QPalette palette = widget ? widget->palette() : QPalette();
        const NodeGroup &g = group();
        const Plan &plan = m_canvas->document()->plan();
        const Estimate &e = m_canvas->document()->estimate();
        const bool selected = m_canvas->selectedGroup() == m_index;
        const bool dropHere = m_canvas->dropTarget() == m_index;
        const QRectF frame = boundingRect().adjusted(0.5, 0.5, -0.5, -0.5);

        // Connector to the network bar above.
        painter->setPen(QPen(palette.color(QPalette::Mid), 2));
        painter->drawLine(QPointF(24, -kConnector), QPointF(24, 0));

        painter->setPen(QPen(dropHere ? palette.color(QPalette::Highlight) : selected ? palette.color(QPalette::Highlight)
                                                                                      : palette.color(QPalette::Mid),
                             dropHere || selected ? 2.5 : 1));
        painter->setBrush(dropHere ? palette.color(QPalette::Highlight).lighter(180) : palette.color(QPalette::Base));
        painter->drawRoundedRect(frame, 6, 6);

        // Header: template / device / link, and the count.
        const DeviceSpec *device = m_canvas->document()->catalog().device(g.device, plan.cluster.customDevices);
        const QString deviceName = device ? text(device->name) : QObject::tr("unknown device \"%1\"").arg(text(g.device));
        QString link = QObject::tr("device's own scale-up link");
        if (const LinkSpec *l = m_canvas->document()->catalog().intraNodeLink(g.intraNodeLink))
            link = text(l->name);
        QFont bold = painter->font();
        bold.setBold(true);
        painter->setFont(bold);
        painter->setPen(palette.color(QPalette::Text));
        const QString title = g.templateName.empty() ? QObject::tr("%1 × %2").arg(g.gpusPerNode).arg(deviceName)
                                                     : text(g.templateName);
        const QRectF line1(10, 4, frame.width() - 200, 18);
        painter->drawText(line1, Qt::AlignLeft | Qt::AlignVCenter,
                          painter->fontMetrics().elidedText(title, Qt::ElideRight, int(line1.width())));
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
        for (const NodeGroupEstimate &ge : e.nodeGroups)
            if (ge.firstNode == firstNode())
                detail += QObject::tr(" · step %1 s%2").arg(text(units::formatNumber(ge.stepSeconds, 2)))
                              .arg(ge.paces ? QObject::tr(" (sets the pace)") : QString());
        const QRectF line2(10, 22, frame.width() - (hasExpander() ? 110 : 20), 16);
        painter->drawText(line2, Qt::AlignLeft | Qt::AlignVCenter,
                          painter->fontMetrics().elidedText(detail, Qt::ElideRight, int(line2.width())));
        if (hasExpander()) {
            painter->setPen(chartstyle::isDark(palette) ? palette.color(QPalette::Highlight).lighter(150)
                                                        : palette.color(QPalette::Link));
            painter->drawText(expanderRect(), Qt::AlignRight | Qt::AlignVCenter,
                              m_canvas->isExpanded(m_index) ? QObject::tr("Collapse ▴") : QObject::tr("Expand ▾"));
        }

        // Nodes.
        const int shown = shownNodes();
        const bool ellipsis = !m_canvas->isExpanded(m_index) && g.nodes > m_perRow;
        for (int slot = 0; slot < shown; ++slot) {
            std::int64_t node = slot;
            if (ellipsis && slot == shown - 2) {
                const QRectF r = nodeRect(slot);
                painter->setPen(palette.color(QPalette::PlaceholderText));
                painter->drawText(r, Qt::AlignCenter, QObject::tr("… %1 …").arg(g.nodes - shown + 1));
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

    /// Group-relative node index and GPU under a point of the item, for tool tips.
    QString describe(const QPointF &p) const
    {
        const NodeGroup &g = group();
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
            const std::int64_t rank = (firstNode() + node) * g.gpusPerNode + gpu;
            const Plan &plan = m_canvas->document()->plan();
            const RankCoordinates c = coordinatesOf(plan.parallel, rank);
            return QObject::tr("Node %1, GPU %2: rank %3\ntensor rank %4 · data replica %5 · pipeline stage %6")
                .arg(firstNode() + node).arg(gpu).arg(rank).arg(c.tensor).arg(c.data).arg(c.stage);
        }
        return QString();
    }

protected:
    void hoverMoveEvent(QGraphicsSceneHoverEvent *event) override { setToolTip(describe(event->pos())); }

private:
    const NodeGroup &group() const { return m_group; }
    std::int64_t firstNode() const { return m_firstNode; }
    int shownNodes() const
    {
        const std::int64_t nodes = std::max<std::int64_t>(0, group().nodes);
        if (m_canvas->isExpanded(m_index))
            return int(std::min<std::int64_t>(nodes, kMaxExpandedNodes));
        return int(std::min<std::int64_t>(nodes, m_perRow));
    }
    QSizeF nodeSize() const
    {
        const std::int64_t gpus = std::clamp<std::int64_t>(group().gpusPerNode, 1, 1024);
        const int cols = int(std::min<std::int64_t>(gpus, kCellsPerRow));
        const int rows = int((gpus + kCellsPerRow - 1) / kCellsPerRow);
        return {cols * (kCell + kCellGap) - kCellGap + 2 * kNodePad, rows * (kCell + kCellGap) - kCellGap + 2 * kNodePad};
    }
    QRectF nodeRect(int slot) const
    {
        const QSizeF size = nodeSize();
        const int row = slot / m_perRow;
        const int col = slot % m_perRow;
        return {10 + col * (size.width() + kNodeGap), kHeader + row * (size.height() + kNodeGap), size.width(), size.height()};
    }
    void layout()
    {
        const QSizeF size = nodeSize();
        m_perRow = std::max(2, int((m_canvas->sceneWidth() - 2 * kMargin - 20 + kNodeGap) / (size.width() + kNodeGap)));
        const int rows = (shownNodes() + m_perRow - 1) / m_perRow;
        const bool more = m_canvas->isExpanded(m_index) && group().nodes > kMaxExpandedNodes;
        m_height = kHeader + rows * (size.height() + kNodeGap) + 6 + (more ? 20 : 0);
    }

    void paintNode(QPainter *painter, const QPalette &palette, std::int64_t node, const QRectF &r) const
    {
        const NodeGroup &g = group();
        const Plan &plan = m_canvas->document()->plan();
        const ParallelConfig &par = plan.parallel;
        const std::int64_t G = g.gpusPerNode;
        const std::int64_t firstRank = (firstNode() + node) * G;
        const bool valid = m_canvas->document()->estimate().valid;
        const ClusterCanvas::Overlay overlay = valid ? m_canvas->overlay() : ClusterCanvas::Overlay::Devices;
        // A node hosting part of a tensor group that spans nodes gets the warning outline.
        bool crossing = false;
        if (valid && par.tensor > 1) {
            const std::int64_t t = par.tensor;
            crossing = (firstRank % t) != 0 || ((firstRank + G) % t) != 0;
        }
        painter->setPen(QPen(crossing && overlay == ClusterCanvas::Overlay::TensorGroups ? chartstyle::warning(palette)
                                                                                         : palette.color(QPalette::Mid),
                             crossing && overlay == ClusterCanvas::Overlay::TensorGroups ? 2 : 1));
        painter->setBrush(palette.color(QPalette::AlternateBase));
        painter->drawRoundedRect(r, 3, 3);
        painter->setPen(Qt::NoPen);
        for (std::int64_t i = 0; i < G; ++i) {
            const std::int64_t rank = firstRank + i;
            int colour = m_deviceColour;
            if (overlay != ClusterCanvas::Overlay::Devices) {
                const RankCoordinates c = coordinatesOf(par, rank);
                colour = overlay == ClusterCanvas::Overlay::TensorGroups ? int((rank / std::max<std::int64_t>(1, par.tensor)) % 8)
                         : overlay == ClusterCanvas::Overlay::PipelineStages ? int(c.stage % 8)
                                                                             : int(c.data % 8);
            }
            painter->setBrush(chartstyle::series(colour, palette));
            const int row = int(i / kCellsPerRow);
            const int col = int(i % kCellsPerRow);
            painter->drawRect(QRectF(r.left() + kNodePad + col * (kCell + kCellGap), r.top() + kNodePad + row * (kCell + kCellGap),
                                     kCell, kCell));
        }
    }

    ClusterCanvas *m_canvas;
    int m_index;
    NodeGroup m_group;
    std::int64_t m_firstNode = 0;
    int m_deviceColour = 0; ///< the first group with this device's index: one colour per device
    int m_perRow = 2;
    qreal m_height = kHeader;
};

/// The network tier bar across the top.
class NetworkItem : public QGraphicsItem
{
public:
    explicit NetworkItem(ClusterCanvas *canvas) : m_canvas(canvas) { setPos(kMargin, kMargin); }
    QRectF boundingRect() const override { return {0, 0, m_canvas->sceneWidth() - 2 * kMargin, kNetworkHeight}; }
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *, QWidget *widget) override
    {
        const QPalette palette = widget ? widget->palette() : QPalette();
        const Plan &plan = m_canvas->document()->plan();
        const Catalog &catalog = m_canvas->document()->catalog();
        const bool dropHere = m_canvas->dropTarget() == -1;
        painter->setPen(QPen(dropHere ? palette.color(QPalette::Highlight) : palette.color(QPalette::Mid), dropHere ? 2.5 : 1));
        painter->setBrush(palette.color(QPalette::Button));
        painter->drawRoundedRect(boundingRect().adjusted(0.5, 0.5, -0.5, -0.5), 6, 6);
        QString name;
        double bandwidth = 0, latency = 0;
        if (const LinkSpec *net = catalog.network(plan.cluster.network)) {
            name = text(net->name);
            bandwidth = net->bandwidthBytesPerSecond;
            latency = net->latencySeconds;
        } else if (const DeviceSpec *d = catalog.device(plan.cluster.device, plan.cluster.customDevices)) {
            name = QObject::tr("%1 default network").arg(text(d->name));
            bandwidth = d->networkBandwidthBytesPerSecond;
            latency = d->networkLatencySeconds;
        }
        painter->setPen(palette.color(QPalette::ButtonText));
        painter->drawText(boundingRect().adjusted(10, 0, -10, 0), Qt::AlignLeft | Qt::AlignVCenter,
                          QObject::tr("Network: %1 — %2 GB/s per GPU, %3 µs")
                              .arg(name, text(units::formatNumber(bandwidth / 1e9, 1)), text(units::formatNumber(latency * 1e6, 1))));
    }

private:
    ClusterCanvas *m_canvas;
};

/// Tools handle the canvas's mouse; the canvas only forwards events to the current one.
class CanvasTool
{
public:
    explicit CanvasTool(ClusterCanvas *canvas) : m_canvas(canvas) {}
    virtual ~CanvasTool() = default;
    virtual void press(QMouseEvent *) {}
    virtual void move(QMouseEvent *) {}
    virtual void release(QMouseEvent *) {}
    virtual Qt::CursorShape cursor() const { return Qt::ArrowCursor; }

protected:
    ClusterCanvas *m_canvas;
};

/// Click selects a node group; click on "Expand" toggles the aggregated drawing.
class SelectTool : public CanvasTool
{
public:
    using CanvasTool::CanvasTool;
    void press(QMouseEvent *event) override
    {
        if (event->button() != Qt::LeftButton)
            return;
        const int index = m_canvas->groupAt(event->position().toPoint());
        if (NodeGroupItem *item = m_canvas->groupItem(index)) {
            const QPointF local = item->mapFromScene(m_canvas->mapToScene(event->position().toPoint()));
            if (item->hasExpander() && item->expanderRect().contains(local)) {
                m_canvas->setExpanded(index, !m_canvas->isExpanded(index));
                return;
            }
        }
        m_canvas->selectGroup(index);
    }
};

/// Places the chosen palette entry where the mouse is released.
class PlaceTool : public CanvasTool
{
public:
    PlaceTool(ClusterCanvas *canvas, PaletteEntry entry) : CanvasTool(canvas), m_entry(std::move(entry)) {}
    void press(QMouseEvent *event) override { m_pressed = event->button() == Qt::LeftButton; }
    void move(QMouseEvent *event) override { m_canvas->setDropTarget(m_canvas->groupAt(event->position().toPoint())); }
    void release(QMouseEvent *event) override
    {
        if (!m_pressed || event->button() != Qt::LeftButton)
            return;
        m_pressed = false;
        const PaletteEntry entry = m_entry; // the tool is replaced below
        const int target = m_canvas->groupAt(event->position().toPoint());
        ClusterCanvas *canvas = m_canvas;
        canvas->setPlacementEntry(std::nullopt);
        canvas->apply(entry, target);
        emit canvas->placementFinished();
    }
    Qt::CursorShape cursor() const override { return Qt::CrossCursor; }

private:
    PaletteEntry m_entry;
    bool m_pressed = false;
};

ClusterCanvas::ClusterCanvas(PlanDocument *document, const PaletteCatalog *palette, QWidget *parent)
    : QGraphicsView(parent), m_document(document), m_palette(palette), m_tool(std::make_unique<SelectTool>(this))
{
    setObjectName(QStringLiteral("clusterCanvas"));
    setScene(new QGraphicsScene(this));
    setAcceptDrops(true);
    setRenderHint(QPainter::Antialiasing);
    setAlignment(Qt::AlignLeft | Qt::AlignTop);
    setViewportUpdateMode(QGraphicsView::MinimalViewportUpdate);
    setFocusPolicy(Qt::StrongFocus);
    setToolTip(QString());
    connect(m_document, &PlanDocument::planChanged, this, &ClusterCanvas::rebuild);
    rebuild();
}

ClusterCanvas::~ClusterCanvas() = default;

void ClusterCanvas::rebuild()
{
    scene()->clear();
    m_groups.clear();
    scene()->addItem(new NetworkItem(this));
    const std::vector<NodeGroup> groups = m_document->plan().cluster.groups();
    if (m_selected >= int(groups.size()))
        m_selected = -1;
    std::erase_if(m_expanded, [&](int i) { return i >= int(groups.size()); });
    m_sceneWidth = std::max<qreal>(420, viewport()->width() - 2);
    qreal y = kMargin + kNetworkHeight + kConnector;
    std::int64_t firstNode = 0;
    for (int i = 0; i < int(groups.size()); ++i) {
        const auto sameDevice = std::find_if(groups.begin(), groups.end(),
                                             [&](const NodeGroup &g) { return g.device == groups[std::size_t(i)].device; });
        auto *item = new NodeGroupItem(this, i, groups[std::size_t(i)], firstNode, int(sameDevice - groups.begin()), y);
        firstNode += groups[std::size_t(i)].nodes;
        scene()->addItem(item);
        m_groups.push_back(item);
        y += item->height() + kConnector;
    }
    // Room below the last group: the drop zone for a new group.
    scene()->setSceneRect(0, 0, sceneWidth(), y + 60);
}

NodeGroupItem *ClusterCanvas::groupItem(int index) const
{
    return index >= 0 && index < int(m_groups.size()) ? m_groups[std::size_t(index)] : nullptr;
}

void ClusterCanvas::setOverlay(Overlay overlay)
{
    m_overlay = overlay;
    viewport()->update();
}

void ClusterCanvas::setPlacementEntry(const std::optional<PaletteEntry> &entry)
{
    if (entry)
        m_tool = std::make_unique<PlaceTool>(this, *entry);
    else
        m_tool = std::make_unique<SelectTool>(this);
    viewport()->setCursor(m_tool->cursor());
    setDropTarget(-2);
}

bool ClusterCanvas::isPlacing() const { return dynamic_cast<PlaceTool *>(m_tool.get()) != nullptr; }

void ClusterCanvas::selectGroup(int index)
{
    if (index == m_selected)
        return;
    m_selected = index;
    viewport()->update();
    emit groupSelected(index);
}

void ClusterCanvas::setExpanded(int group, bool expanded)
{
    if (expanded)
        m_expanded.insert(group);
    else
        m_expanded.erase(group);
    rebuild();
}

int ClusterCanvas::groupAt(const QPoint &viewportPoint) const
{
    const QPointF p = mapToScene(viewportPoint);
    for (const NodeGroupItem *item : m_groups)
        if (item->sceneBoundingRect().contains(p))
            return item->index();
    return -1;
}

QPoint ClusterCanvas::viewportPointOfGroup(int index) const
{
    const NodeGroupItem *item = groupItem(index);
    return item ? mapFromScene(item->firstNodeRect().center()) : QPoint();
}

QPoint ClusterCanvas::viewportPointOfEmptySpace() const
{
    return mapFromScene(QPointF(sceneWidth() / 2, sceneRect().bottom() - 30));
}

QPoint ClusterCanvas::viewportPointOfExpander(int index) const
{
    const NodeGroupItem *item = groupItem(index);
    return item ? mapFromScene(item->mapToScene(item->expanderRect().center())) : QPoint();
}

bool ClusterCanvas::apply(const PaletteEntry &entry, int target)
{
    QString why;
    const std::optional<ClusterEdit> edit = applyPaletteEntry(m_document->plan(), entry, target, *m_palette, &why);
    if (!edit) {
        emit statusMessage(why);
        return false;
    }
    m_document->undoStack()->push(new ReplacePlan(m_document, edit->plan, edit->text));
    return true;
}

bool ClusterCanvas::removeGroup(int index)
{
    QString why;
    const std::optional<ClusterEdit> edit = removeNodeGroup(m_document->plan(), index, &why);
    if (!edit) {
        if (!why.isEmpty())
            emit statusMessage(why);
        return false;
    }
    m_document->undoStack()->push(new ReplacePlan(m_document, edit->plan, edit->text));
    return true;
}

void ClusterCanvas::setDropTarget(int index)
{
    if (index == m_dropTarget)
        return;
    m_dropTarget = index;
    viewport()->update();
}

void ClusterCanvas::mousePressEvent(QMouseEvent *event)
{
    setFocus(Qt::MouseFocusReason);
    m_tool->press(event);
}

void ClusterCanvas::mouseMoveEvent(QMouseEvent *event)
{
    m_tool->move(event);
    QGraphicsView::mouseMoveEvent(event); // hover tool tips
}

void ClusterCanvas::mouseReleaseEvent(QMouseEvent *event) { m_tool->release(event); }

void ClusterCanvas::keyPressEvent(QKeyEvent *event)
{
    if (event->key() == Qt::Key_Escape && isPlacing()) {
        setPlacementEntry(std::nullopt);
        emit placementFinished();
        return;
    }
    if ((event->key() == Qt::Key_Delete || event->key() == Qt::Key_Backspace) && m_selected >= 0) {
        removeGroup(m_selected);
        return;
    }
    QGraphicsView::keyPressEvent(event);
}

void ClusterCanvas::contextMenuEvent(QContextMenuEvent *event)
{
    const int index = groupAt(event->pos());
    if (index < 0)
        return;
    selectGroup(index);
    QMenu menu(this);
    QAction *expand = menu.addAction(isExpanded(index) ? tr("Collapse") : tr("Expand All Nodes"));
    QAction *remove = menu.addAction(tr("Remove Node Group"));
    remove->setEnabled(m_groups.size() > 1);
    QAction *chosen = menu.exec(event->globalPos());
    if (chosen == expand)
        setExpanded(index, !isExpanded(index));
    else if (chosen == remove)
        removeGroup(index);
}

void ClusterCanvas::dragEnterEvent(QDragEnterEvent *event)
{
    if (event->mimeData()->hasFormat(QLatin1String(kPaletteMimeType)))
        event->acceptProposedAction();
    else
        event->ignore();
}

void ClusterCanvas::dragMoveEvent(QDragMoveEvent *event)
{
    if (!event->mimeData()->hasFormat(QLatin1String(kPaletteMimeType))) {
        event->ignore();
        return;
    }
    setDropTarget(groupAt(event->position().toPoint()));
    event->acceptProposedAction();
}

void ClusterCanvas::resizeEvent(QResizeEvent *event)
{
    QGraphicsView::resizeEvent(event);
    if (std::abs(std::max<qreal>(420, viewport()->width() - 2) - m_sceneWidth) >= 1)
        rebuild(); // a few items: re-laid out to the new width
}

void ClusterCanvas::dragLeaveEvent(QDragLeaveEvent *) { setDropTarget(-2); }

void ClusterCanvas::dropEvent(QDropEvent *event)
{
    setDropTarget(-2);
    const auto entry = PaletteEntry::fromString(QString::fromUtf8(event->mimeData()->data(QLatin1String(kPaletteMimeType))));
    if (!entry) {
        event->ignore();
        return;
    }
    apply(*entry, groupAt(event->position().toPoint()));
    event->acceptProposedAction();
}

} // namespace trainplan
