#pragma once
// The network tier bar across the top of the cluster canvas: the scale-out network, its bandwidth per
// GPU and its latency; a drop target for network entries of the palette.

#include <QGraphicsItem>

namespace trainplan {

class ClusterCanvas;

class NetworkItem : public QGraphicsItem
{
public:
    explicit NetworkItem(ClusterCanvas *canvas);
    QRectF boundingRect() const override;
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *, QWidget *widget) override;

private:
    ClusterCanvas *m_canvas;
};

} // namespace trainplan
