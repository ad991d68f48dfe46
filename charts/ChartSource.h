#pragma once
// What a chart reads: the plan, its Estimate and the estimate's problems in words, and the Estimate of a
// pinned baseline; planChanged() and baselineChanged() say when they change. The window's PlanDocument is
// one (ui/document), and a chart knows nothing more of it: no undo stack, no file, no other view.

#include <QObject>

#include "core/common/Problem.h"
#include "core/estimate/Estimate.h"
#include "core/plan/Plan.h"

namespace trainplan {

class ChartSource : public QObject
{
    Q_OBJECT

public:
    using QObject::QObject;

    virtual const Plan &plan() const = 0;
    virtual const Estimate &estimate() const = 0;
    /// The estimate's problems in words (what a chart shows instead of itself for a plan with errors).
    virtual const Problems &problems() const = 0;
    virtual bool hasBaseline() const = 0;
    /// Only while hasBaseline().
    virtual const Estimate &baselineEstimate() const = 0;

signals:
    void planChanged();
    /// A baseline was pinned, replaced or cleared (charts redraw their overlays).
    void baselineChanged();
};

} // namespace trainplan
