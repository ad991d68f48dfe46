#include "ui/cluster/ClusterCanvas.h"

#include <optional>

#include "core/cluster/Topology.h"
#include "charts/ChartStyle.h"

#include <QContextMenuEvent>
#include <QKeyEvent>
#include <QMenu>
#include <QMimeData>
#include <QUndoStack>

#include <algorithm>

#include "ui/cluster/scene/NetworkItem.h"
#include "ui/cluster/scene/NodeGroupItem.h"
#include "ui/cluster/scene/SceneGeometry.h"
#include "ui/cluster/tools/CanvasTools.h"
#include "ui/commands/ClusterCommands.h"
#include "ui/document/PlanDocument.h"

namespace trainplan {

using namespace scene;

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
    connect(m_document, &PlanDocument::nodeGroupsRemoved, this, &ClusterCanvas::removeItems);
    connect(m_document, &PlanDocument::nodeGroupsInserted, this, &ClusterCanvas::insertItems);
    connect(m_document, &PlanDocument::nodeGroupChanged, this, &ClusterCanvas::replaceItem);
    connect(m_document, &PlanDocument::estimateChanged, this, &ClusterCanvas::placeItems);
    rebuild();
}

ClusterCanvas::~ClusterCanvas() = default;

void ClusterCanvas::rebuild()
{
    scene()->clear();
    m_groups.clear();
    m_network = new NetworkItem(this);
    scene()->addItem(m_network);
    m_sceneWidth = std::max<qreal>(280, viewport()->width() - 2);
    insertItems(0, int(m_document->plan().cluster.groups().size()) - 1);
    placeItems();
}

NodeGroupItem *ClusterCanvas::makeItem(int index) const
{
    const std::vector<NodeGroup> groups = m_document->plan().cluster.groups();
    auto *item = new NodeGroupItem(const_cast<ClusterCanvas *>(this), index, groups[std::size_t(index)], 0, 0, 0);
    scene()->addItem(item);
    return item;
}

void ClusterCanvas::removeItems(int first, int last)
{
    for (int i = last; i >= first && i < int(m_groups.size()); --i) {
        delete m_groups[std::size_t(i)]; // leaves the scene
        m_groups.erase(m_groups.begin() + i);
    }
    // Selection and expansion follow their groups; a removed group's expansion goes with it, and its
    // selection passes to the group that takes its place (or the new last one), as before the removal.
    const int count = last - first + 1;
    const auto shift = [&](int i) { return i > last ? i - count : (i >= first ? -1 : i); };
    if (m_selected >= first && m_selected <= last)
        m_selected = m_groups.empty() ? -1 : std::min(first, int(m_groups.size()) - 1);
    else
        m_selected = shift(m_selected);
    std::set<int> expanded;
    for (int i : m_expanded)
        if (shift(i) >= 0)
            expanded.insert(shift(i));
    m_expanded = std::move(expanded);
}

void ClusterCanvas::insertItems(int first, int last)
{
    const int count = last - first + 1;
    if (count <= 0)
        return;
    if (m_selected >= first)
        m_selected += count;
    std::set<int> expanded;
    for (int i : m_expanded)
        expanded.insert(i >= first ? i + count : i);
    m_expanded = std::move(expanded);
    for (int i = first; i <= last; ++i)
        m_groups.insert(m_groups.begin() + i, makeItem(i));
}

void ClusterCanvas::replaceItem(int index)
{
    if (index < 0 || index >= int(m_groups.size()))
        return;
    delete m_groups[std::size_t(index)];
    m_groups[std::size_t(index)] = makeItem(index);
}

void ClusterCanvas::placeItems()
{
    std::vector<NodeGroup> groups;
    groups.reserve(m_groups.size());
    for (const NodeGroupItem *item : m_groups)
        groups.push_back(item->group());
    qreal y = kMargin + kNetworkHeight + kConnector;
    std::int64_t firstNode = 0;
    for (int i = 0; i < int(groups.size()); ++i) {
        const auto sameDevice = std::find_if(groups.begin(), groups.end(), [&](const NodeGroup &g) {
            return g.device == groups[std::size_t(i)].device;
        });
        NodeGroupItem *item = m_groups[std::size_t(i)];
        item->place(i, firstNode, int(sameDevice - groups.begin()), y);
        firstNode += groups[std::size_t(i)].nodes;
        y += item->height() + kConnector;
    }
    if (m_network)
        m_network->update(); // the network's figures
    // Room below the last group: the drop zone for a new group.
    scene()->setSceneRect(0, 0, sceneWidth(), y + 60);
}

NodeGroupItem *ClusterCanvas::groupItem(int index) const
{
    return index >= 0 && index < int(m_groups.size()) ? m_groups[std::size_t(index)] : nullptr;
}

namespace {
/// The group kind an overlay colours by (core/cluster/Topology places the groups).
std::optional<GroupKind> overlayKind(ClusterCanvas::Overlay overlay)
{
    switch (overlay) {
    case ClusterCanvas::Overlay::TensorGroups: return GroupKind::Tensor;
    case ClusterCanvas::Overlay::PipelineStages: return GroupKind::Stage;
    case ClusterCanvas::Overlay::DataReplicas: return GroupKind::Replica;
    case ClusterCanvas::Overlay::GradientGroups: return GroupKind::Gradient;
    case ClusterCanvas::Overlay::ContextGroups: return GroupKind::Context;
    case ClusterCanvas::Overlay::ExpertGroups: return GroupKind::Expert;
    case ClusterCanvas::Overlay::Devices: break;
    }
    return std::nullopt;
}
} // namespace

int overlayGroup(ClusterCanvas::Overlay overlay, const ParallelConfig &parallel, std::int64_t rank)
{
    const std::optional<GroupKind> kind = overlayKind(overlay);
    return kind ? int(groupOf(*kind, parallel, rank)) : 0;
}

std::int64_t overlayGroupCount(ClusterCanvas::Overlay overlay, const ParallelConfig &parallel)
{
    const std::optional<GroupKind> kind = overlayKind(overlay);
    return kind ? groupCount(*kind, parallel) : 1;
}

QColor overlayColour(int group, const QPalette &palette)
{
    // Eight hues, then the same hues lighter and darker: 24 groups in a row tell apart, so a colouring with
    // 64 groups (tensor groups) never aliases one with 8 (replicas).
    const QColor base = chartstyle::series(group % kOverlayColours, palette);
    switch ((group / kOverlayColours) % 3) {
    case 1: return base.lighter(150);
    case 2: return base.darker(160);
    default: return base;
    }
}

QString overlayLegend(ClusterCanvas::Overlay overlay, const ParallelConfig &parallel)
{
    const std::int64_t gpus = parallel.data * parallel.tensor * parallel.pipeline * parallel.context;
    const std::int64_t count = overlayGroupCount(overlay, parallel);
    switch (overlay) {
    case ClusterCanvas::Overlay::TensorGroups:
        return QObject::
            tr("%1 tensor-parallel groups of %2 GPUs (they all-reduce activations every layer); a red outline marks a "
               "node holding part of a group that crosses nodes")
                .arg(count)
                .arg(parallel.tensor);
    case ClusterCanvas::Overlay::PipelineStages:
        return QObject::tr("%1 pipeline stages of %2 GPUs each (neighbours pass activations and gradients)")
            .arg(count)
            .arg(gpus / std::max<std::int64_t>(1, parallel.pipeline));
    case ClusterCanvas::Overlay::DataReplicas:
        return parallel.context > 1
                   ? QObject::tr("%1 data-parallel replicas of %2 GPUs (each a whole copy of the model, tensor x "
                                 "pipeline x context)")
                         .arg(count)
                         .arg(parallel.tensor * parallel.pipeline * parallel.context)
                   : QObject::tr(
                         "%1 data-parallel replicas of %2 GPUs (each a whole copy of the model, tensor x pipeline)")
                         .arg(count)
                         .arg(parallel.tensor * parallel.pipeline);
    case ClusterCanvas::Overlay::GradientGroups:
        return QObject::tr(
                   "%1 gradient all-reduce groups of %2 GPUs (the same shard of the model in every replica and context "
                   "rank: they reduce gradients together)")
            .arg(count)
            .arg(parallel.data * parallel.context);
    case ClusterCanvas::Overlay::ContextGroups:
        return parallel.context > 1
                   ? QObject::tr(
                         "%1 context-parallel groups of %2 GPUs (each holds 1/%2 of every sequence; they pass keys and "
                         "values every layer)")
                         .arg(count)
                         .arg(parallel.context)
                   : QObject::tr(
                         "No context parallelism: every GPU holds whole sequences (set Context parallel above 1)");
    case ClusterCanvas::Overlay::ExpertGroups:
        return parallel.expert > 1
                   ? QObject::tr(
                         "%1 expert-parallel groups of %2 GPUs (each holds 1/%2 of the routed experts; they exchange "
                         "tokens by all-to-all in every mixture-of-experts layer, dispatch and combine)")
                         .arg(count)
                         .arg(parallel.expert)
                   : QObject::tr(
                         "No expert parallelism: every GPU holds all routed experts (a mixture-of-experts model with "
                         "Expert parallel above 1 splits them)");
    case ClusterCanvas::Overlay::Devices: break;
    }
    return QObject::tr("Each GPU in its accelerator's colour");
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
    placeItems();
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
    m_document->undoStack()->push(new ApplyClusterEdit(m_document, *edit));
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
    m_document->undoStack()->push(new ApplyClusterEdit(m_document, *edit));
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
    if (std::abs(std::max<qreal>(280, viewport()->width() - 2) - m_sceneWidth) >= 1)
        rebuild(); // a few items: re-laid out to the new width
}

void ClusterCanvas::dragLeaveEvent(QDragLeaveEvent *) { setDropTarget(-2); }

void ClusterCanvas::dropEvent(QDropEvent *event)
{
    setDropTarget(-2);
    const auto entry =
        PaletteEntry::fromString(QString::fromUtf8(event->mimeData()->data(QLatin1String(kPaletteMimeType))));
    if (!entry) {
        event->ignore();
        return;
    }
    apply(*entry, groupAt(event->position().toPoint()));
    event->acceptProposedAction();
}

} // namespace trainplan
