#pragma once
// Speedup S(W) = T(1)/T(W) and parallel efficiency E(W) = S(W)/W over data-parallel workers on log2
// axes, with the ideal line; strong scaling (fixed global batch) and weak scaling (fixed per-replica
// batch); the plan's own point ringed on both, its efficiency in the title. QCustomPlot; reads only the
// Estimate's scaling curves.

#include "core/step/Scaling.h"
#include "charts/PlotView.h"

namespace trainplan {

class ScalingView : public PlotView
{
    Q_OBJECT

public:
    explicit ScalingView(ChartSource *document, QWidget *parent = nullptr);

    QString exportName() const override { return QStringLiteral("scaling"); }
    QString exportCsv() const override;

protected:
    void draw() override;

private:
    void markPlan(const ScalingCurves &scaling);
};

} // namespace trainplan
