#pragma once
// Gantt chart of the simulated pipeline schedule: stages down, time across; forward, backward (input
// gradient) and weight-gradient ops in distinct colours with micro-batch numbers where they fit; idle time
// is the empty space. Draws the Estimate's timeline without knowing the schedule. QCustomPlot, with a
// plottable that merges ops narrower than a pixel, so 10^5 ops draw within a frame.

#include "ui/charts/PlotView.h"

namespace trainplan {

class GanttPlottable;

class PipelineGanttView : public PlotView
{
    Q_OBJECT

public:
    explicit PipelineGanttView(PlanDocument *document, QWidget *parent = nullptr);

    QString exportName() const override { return QStringLiteral("pipeline"); }
    QString exportCsv() const override;
    /// Number of ops drawn (0 without a pipeline).
    std::size_t opCount() const;

protected:
    void draw() override;

private:
    GanttPlottable *m_gantt;
};

} // namespace trainplan
