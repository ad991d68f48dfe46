#pragma once
// Speedup S(W) = T(1)/T(W) and parallel efficiency E(W) = S(W)/W over data-parallel workers on log2
// axes, with the ideal line; strong scaling (fixed global batch) and weak scaling (fixed per-replica
// batch). QCustomPlot; reads only the Estimate's scaling curves.

#include "ui/charts/PlotView.h"

namespace trainplan {

class ScalingView : public PlotView
{
    Q_OBJECT

public:
    explicit ScalingView(PlanDocument *document, QWidget *parent = nullptr);

    QString exportName() const override { return QStringLiteral("scaling"); }
    QString exportCsv() const override;

protected:
    void draw() override;
};

} // namespace trainplan
