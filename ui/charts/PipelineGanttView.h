#pragma once
// Gantt chart of the simulated pipeline schedule: stages down, time across; forward, backward (input
// gradient) and weight-gradient ops in distinct colours with micro-batch numbers where they fit; idle time
// is the empty space. Draws the Estimate's timeline without knowing the schedule. QCustomPlot, with a
// plottable that merges ops narrower than a pixel, so 10^5 ops draw within a frame.

#include <QWidget>

class QCustomPlot;

namespace trainplan {

class PlanDocument;
class GanttPlottable;

class PipelineGanttView : public QWidget
{
    Q_OBJECT

public:
    explicit PipelineGanttView(PlanDocument *document, QWidget *parent = nullptr);
    QCustomPlot *plot() const { return m_plot; }
    /// Number of ops drawn (0 without a pipeline).
    std::size_t opCount() const;

protected:
    void changeEvent(QEvent *event) override;

private:
    void refresh();

    PlanDocument *m_document;
    QCustomPlot *m_plot;
    GanttPlottable *m_gantt;
};

} // namespace trainplan
