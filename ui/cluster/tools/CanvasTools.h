#pragma once
// The canvas's mouse tools: the canvas only forwards events to the current one (Tiled's AbstractTool).

#include <QMouseEvent>

#include "ui/cluster/ClusterCanvas.h"
#include "ui/cluster/scene/NodeGroupItem.h"

namespace trainplan {

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

} // namespace trainplan
