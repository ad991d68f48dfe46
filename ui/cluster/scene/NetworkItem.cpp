#include "ui/cluster/scene/NetworkItem.h"

#include <QPainter>

#include "core/common/Units.h"
#include "io/output/Format.h"
#include "ui/cluster/ClusterCanvas.h"
#include "ui/cluster/scene/SceneGeometry.h"
#include "ui/document/PlanDocument.h"

namespace trainplan {

using namespace scene;

NetworkItem::NetworkItem(ClusterCanvas *canvas) : m_canvas(canvas)
{
    setPos(kMargin, kMargin);
}

QRectF NetworkItem::boundingRect() const
{
    return {0, 0, m_canvas->sceneWidth() - 2 * kMargin, kNetworkHeight};
}

void NetworkItem::paint(QPainter *painter, const QStyleOptionGraphicsItem *, QWidget *widget)
{
    const QPalette palette = widget ? widget->palette() : QPalette();
    const Plan &plan = m_canvas->document()->plan();
    const Catalog &catalog = m_canvas->document()->catalog();
    const bool dropHere = m_canvas->dropTarget() == -1;
    painter->setPen(
        QPen(dropHere ? palette.color(QPalette::Highlight) : palette.color(QPalette::Mid), dropHere ? 2.5 : 1));
    painter->setBrush(palette.color(QPalette::Button));
    painter->drawRoundedRect(boundingRect().adjusted(0.5, 0.5, -0.5, -0.5), 6, 6);
    QString name;
    double bandwidth = 0, latency = 0;
    if (const LinkSpec *net = catalog.network(plan.cluster.network)) {
        name = fmt::text(net->name);
        bandwidth = net->bandwidthBytesPerSecond;
        latency = net->latencySeconds;
    } else if (const DeviceSpec *d = catalog.device(plan.cluster.device, plan.cluster.customDevices)) {
        name = QObject::tr("%1 default network").arg(fmt::text(d->name));
        bandwidth = d->networkBandwidthBytesPerSecond;
        latency = d->networkLatencySeconds;
    }
    painter->setPen(palette.color(QPalette::ButtonText));
    painter->drawText(boundingRect().adjusted(10, 0, -10, 0), Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap,
                      QObject::tr("Network: %1 — %2 per GPU, %3 µs")
                          .arg(name, fmt::bandwidth(bandwidth, 1), fmt::number(latency / units::Micro, 1)));
}

} // namespace trainplan
