#pragma once
// The step timeline: stages down, time across, the whole step on one axis. The pipeline schedule (or, with
// one stage, its micro-batches one after the other), then the exposed data-parallel / ZeRO communication
// and the optimizer update; idle time is the empty space. Forward, backward, weight-gradient,
// communication and optimizer in the legend's colours; blocks too narrow to see merge into runs drawn as
// bands, one per kind, as tall as the kind's share of the run, so the colours stay those of the legend at
// any zoom; neighbouring micro-batches alternate in shade. Hover names the op. Draws the Estimate's
// StepTimeline (core/step) without knowing the schedule; with a pinned baseline its timeline is drawn in
// a thin strip under each stage. QCustomPlot.

#include "charts/PlotView.h"

#include "core/step/StepTimeline.h"

namespace trainplan {

class GanttPlottable;

class PipelineGanttView : public PlotView
{
    Q_OBJECT

public:
    explicit PipelineGanttView(ChartSource *document, QWidget *parent = nullptr);

    QString exportName() const override { return QStringLiteral("pipeline"); }
    QString exportCsv() const override;
    /// Number of segments drawn (pipeline ops, or grouped micro-batches, plus the end of the step).
    std::size_t opCount() const;
    std::size_t baselineOpCount() const; ///< the pinned baseline's segments drawn under the plan's (0 without one)
    /// Legend entries shown (one per kind of segment present).
    QStringList legendNames() const;
    /// What the tooltip says at a widget position ("" over empty space).
    QString describeAt(const QPointF &position) const;
    /// The widget position of the middle of a segment (for tests).
    QPointF segmentCentre(std::size_t index) const;

protected:
    void draw() override;
    QString hoverText(const QPointF &position) const override { return describeAt(position); }

private:
    GanttPlottable *m_gantt;
    GanttPlottable *m_baseline;
    bool m_baselineShown = false; ///< m_baseline holds the pinned baseline's timeline
    bool m_baselineStale = true;  ///< the baseline changed since it was copied
};

/// The colour of each kind of segment (the legend's).
QColor segmentColour(SegmentKind kind, const QPalette &palette);

} // namespace trainplan
