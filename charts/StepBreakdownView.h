#pragma once
// Where the step goes: the step time as one stacked horizontal bar (forward, backward, recompute, exposed
// tensor-parallel communication, pipeline bubble and transfers, exposed data-parallel / ZeRO communication,
// optimizer, other), the pinned baseline's bar under it, and a whisker for the plan's 80% error band. Hover gives each
// part's seconds and share; the legend lists the parts that take time. Reads the Estimate's step parts
// (core/step/StepTimeline). QCustomPlot: its legend wraps in a row under the title, which a chart one bar tall needs.

#include <array>

#include "core/step/StepTimeline.h"
#include "charts/PlotView.h"

class QCPBars;
class QCPErrorBars;
class QCPGraph;

namespace trainplan {

class StepBreakdownView : public PlotView
{
    Q_OBJECT

public:
    explicit StepBreakdownView(ChartSource *document, QWidget *parent = nullptr);

    QString exportName() const override { return QStringLiteral("step"); }
    QString exportCsv() const override;

    /// Seconds drawn per part: [0] the plan, [1] the baseline (when pinned).
    std::vector<std::array<double, kStepPartCount>> drawnSeconds() const;
    /// What hovering part `part` of bar `bar` (0: the plan, 1: the baseline) says.
    QString describe(int bar, StepPart part) const;
    /// What the tooltip says at a widget position ("" over empty space).
    QString describeAt(const QPointF &position) const;
    /// Legend entries shown.
    QStringList legendNames() const;

protected:
    void draw() override;
    QString hoverText(const QPointF &position) const override { return describeAt(position); }

private:
    /// The whisker of the plan's 80% error band around its step time (none for 0).
    void drawBand(double stepSeconds, double band);

    std::array<QCPBars *, kStepPartCount> m_bars{};
    QCPGraph *m_band = nullptr;
    QCPErrorBars *m_bandWhisker = nullptr;
};

/// The words and colour of a part (the legend's).
QString stepPartWords(StepPart part);
QColor stepPartColour(StepPart part, const QPalette &palette);

} // namespace trainplan
