#pragma once
// The cluster canvas: a view of the document's cluster (network tier on top, node groups below, each
// drawn as its nodes of GPU cells). A group of thousands of nodes is one item drawn aggregated (a few
// nodes, an ellipsis, the last node) and expands on request, never 10,000 items. Items hold only a
// node-group index; tools handle the mouse (select, or place the palette entry at the next click);
// every edit goes through an undo command. The canvas follows the document's precise signals: it removes,
// inserts or replaces only the items of the node groups an edit touched, then places every item again
// once the estimate is made (their headers show a mixed cluster's per-group step time).

#include <QGraphicsView>

#include <memory>
#include <optional>
#include <set>

#include "ui/cluster/ClusterEdits.h"

namespace trainplan {

class PlanDocument;
class CanvasTool;
class NodeGroupItem;

class ClusterCanvas : public QGraphicsView
{
    Q_OBJECT

public:
    /// What the GPU cells' colours show.
    enum class Overlay {
        Devices,
        TensorGroups,
        PipelineStages,
        DataReplicas,
        GradientGroups,
        ContextGroups,
        ExpertGroups
    };

    ClusterCanvas(PlanDocument *document, const PaletteCatalog *palette, QWidget *parent = nullptr);
    ~ClusterCanvas() override;

    Overlay overlay() const { return m_overlay; }
    void setOverlay(Overlay overlay);

    /// Arms the placement tool with `entry` (nullopt: back to the select tool).
    void setPlacementEntry(const std::optional<PaletteEntry> &entry);
    bool isPlacing() const;

    int selectedGroup() const { return m_selected; }
    void selectGroup(int index);
    bool isExpanded(int group) const { return m_expanded.count(group) > 0; }
    void setExpanded(int group, bool expanded);

    /// Node group under a viewport point, or -1.
    int groupAt(const QPoint &viewportPoint) const;
    /// Viewport points for tests and keyboard actions: a group's first node, and empty space below.
    QPoint viewportPointOfGroup(int index) const;
    QPoint viewportPointOfEmptySpace() const;
    QPoint viewportPointOfExpander(int index) const;

    /// Applies a palette entry at a node group (-1: empty canvas) as one undo step; false (and a status
    /// message) when it changes nothing.
    bool apply(const PaletteEntry &entry, int target);
    bool removeGroup(int index);

    /// The document, the overlay and the expansion state, as the items draw them.
    PlanDocument *document() const { return m_document; }
    int dropTarget() const { return m_dropTarget; }
    qreal sceneWidth() const { return m_sceneWidth; }

signals:
    void groupSelected(int index);
    void statusMessage(const QString &message);
    /// The placement tool placed its entry (or was cancelled): the palette clears its selection.
    void placementFinished();

protected:
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    void contextMenuEvent(QContextMenuEvent *event) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dragMoveEvent(QDragMoveEvent *event) override;
    void dragLeaveEvent(QDragLeaveEvent *event) override;
    void dropEvent(QDropEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    friend class SelectTool;
    friend class PlaceTool;
    void rebuild();
    /// Each item at its place (index, first node, device colour, top) after the list or the estimate moved.
    void placeItems();
    void removeItems(int first, int last);
    void insertItems(int first, int last);
    void replaceItem(int index);
    NodeGroupItem *makeItem(int index) const;
    void setDropTarget(int index);
    NodeGroupItem *groupItem(int index) const;

    PlanDocument *m_document;
    const PaletteCatalog *m_palette;
    Overlay m_overlay = Overlay::Devices;
    int m_selected = -1;
    int m_dropTarget = -2; ///< -2: no drag; -1: empty canvas; >= 0: a node group
    qreal m_sceneWidth = 660;
    std::set<int> m_expanded;
    std::vector<NodeGroupItem *> m_groups;
    QGraphicsItem *m_network = nullptr;
    std::unique_ptr<CanvasTool> m_tool;
};

/// Hues an overlay cycles through (with three shades each: 24 distinct colours).
inline constexpr int kOverlayColours = 8;
/// The group of `rank` in an overlay (tensor group, stage, replica, gradient all-reduce group).
int overlayGroup(ClusterCanvas::Overlay overlay, const ParallelConfig &parallel, std::int64_t rank);
/// How many groups an overlay has (from the parallel sizes, without walking the ranks).
std::int64_t overlayGroupCount(ClusterCanvas::Overlay overlay, const ParallelConfig &parallel);
/// The colour of overlay group `group`: eight hues in three shades.
QColor overlayColour(int group, const QPalette &palette);
/// The overlay's legend sentence: how many groups of how many GPUs, and what they do together.
QString overlayLegend(ClusterCanvas::Overlay overlay, const ParallelConfig &parallel);

} // namespace trainplan
