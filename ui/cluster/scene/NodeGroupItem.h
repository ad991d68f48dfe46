#pragma once
// One node group on the cluster canvas, drawn in full in paint(): a header (template, device, link, node
// count, the group's step time in a mixed cluster) and its nodes of GPU cells, coloured by the canvas's
// overlay. A group of thousands of nodes is drawn aggregated (a row of nodes, an ellipsis, the last node)
// until expanded. An item shows one node group for its life (the canvas replaces it when that group's
// values change); place() moves it when groups before it come, go or grow, or the estimate changes.

#include <QGraphicsItem>
#include <QPalette>
#include <QStringList>

#include "core/plan/Plan.h"

namespace trainplan {

class ClusterCanvas;

class NodeGroupItem : public QGraphicsItem
{
public:
    NodeGroupItem(ClusterCanvas *canvas, int index, NodeGroup group, std::int64_t firstNode, int deviceColour, qreal y);

    int index() const { return m_index; }
    /// Its position in the list, its first node, its device's colour and its top; lays the item out again
    /// (the header shows the group's step time from the estimate).
    void place(int index, std::int64_t firstNode, int deviceColour, qreal y);
    const NodeGroup &group() const { return m_group; }
    QRectF boundingRect() const override;
    qreal height() const { return m_height; }
    /// The Expand/Collapse link: at the end of the header's last detail line, or on a line of its own.
    QRectF expanderRect() const { return m_expander; }
    bool hasExpander() const { return m_group.nodes > m_perRow; }
    /// Scene rectangle of the first drawn node.
    QRectF firstNodeRect() const { return nodeRect(0).translated(pos()); }

    void paint(QPainter *painter, const QStyleOptionGraphicsItem *, QWidget *widget) override;
    /// Group-relative node index and GPU under a point of the item, for tool tips.
    QString describe(const QPointF &p) const;

protected:
    void hoverMoveEvent(QGraphicsSceneHoverEvent *event) override;

private:
    void paintHeader(QPainter *painter, const QPalette &palette, const QRectF &frame) const;
    void paintNodes(QPainter *painter, const QPalette &palette, const QRectF &frame) const;
    /// A scale-up domain of several nodes (an NVL72 rack of trays) drawn as one outline around its trays.
    void paintRacks(QPainter *painter, const QPalette &palette) const;
    std::int64_t nodesPerRack() const;
    void paintNode(QPainter *painter, const QPalette &palette, std::int64_t node, const QRectF &r) const;
    int shownNodes() const;
    QSizeF nodeSize() const;
    QRectF nodeRect(int slot) const;
    void layout();
    /// The header's lines at the card's width: the title (bold) with the node count beside it or under it,
    /// then the details (small), wrapped, never elided; its height sets where the nodes start.
    void layoutHeader(qreal width);
    QString titleText() const;
    QString countText() const;
    QString detailText() const;

    ClusterCanvas *m_canvas;
    int m_index;
    NodeGroup m_group;
    std::int64_t m_firstNode = 0;
    int m_deviceColour = 0; ///< the first group with this device's index: one colour per device
    int m_perRow = 2;
    qreal m_height = 0;
    qreal m_header = 42;           ///< header height
    QStringList m_titleLines;      ///< bold; the count on the last one when it fits there
    bool m_countBesideTitle = true;
    QStringList m_detailLines;     ///< small
    QRectF m_expander;
};

} // namespace trainplan
