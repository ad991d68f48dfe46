#pragma once
// The five charts made for a report or a PNG export: hidden, in a light palette whatever the window
// uses, bound to the document like the window's.

#include <vector>

#include "charts/MemoryChartView.h"
#include "charts/PipelineGanttView.h"
#include "charts/RooflineView.h"
#include "charts/ScalingView.h"
#include "charts/StepBreakdownView.h"

namespace trainplan {

struct ReportCharts
{
    explicit ReportCharts(PlanDocument *document);
    std::vector<ExportableChart *> all() { return {&step, &memory, &roofline, &scaling, &pipeline}; }

    MemoryChartView memory;
    RooflineView roofline;
    ScalingView scaling;
    PipelineGanttView pipeline;
    StepBreakdownView step;
};

} // namespace trainplan
