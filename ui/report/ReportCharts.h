#pragma once
// The five charts made for a report or a PNG export: hidden, in a light palette whatever the window
// uses, bound to the document like the window's.

#include <vector>

#include "ui/charts/MemoryChartView.h"
#include "ui/charts/PipelineGanttView.h"
#include "ui/charts/RooflineView.h"
#include "ui/charts/ScalingView.h"
#include "ui/charts/StepBreakdownView.h"

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
