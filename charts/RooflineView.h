#pragma once
// Roofline of the plan's device (Williams et al. 2009): log-log ceilings per precision, the ridge point
// of the plan's precision, and every op of one micro-batch placed by arithmetic intensity and attained
// throughput. Hovering an op shows its name, pass, FLOPs, bytes and time. QCustomPlot; reads only the
// Estimate.

#include "charts/PlotView.h"

namespace trainplan {

struct Estimate;

class RooflineView : public PlotView
{
    Q_OBJECT

public:
    explicit RooflineView(ChartSource *document, QWidget *parent = nullptr);

    QString exportName() const override { return QStringLiteral("roofline"); }
    QString exportCsv() const override;

    /// The op nearest to a widget position (within a few pixels), as tooltip text; empty if none.
    QString describeOpAt(const QPoint &position) const;

protected:
    void draw() override;
    void drawOps(const Estimate &e, double &lowest, double &highest);
    void drawRoofs(const Estimate &e, double &highest);
};

} // namespace trainplan
