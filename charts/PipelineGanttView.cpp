#include "charts/PipelineGanttView.h"

#include <QHelpEvent>
#include <QToolTip>

#include <qcustomplot.h>

#include <algorithm>

#include "core/common/EnumNames.h"
#include "io/output/ChartCsv.h"
#include "io/output/Format.h"
#include "charts/ChartStyle.h"
#include "charts/ChartSource.h"

namespace trainplan {

QColor segmentColour(SegmentKind kind, const QPalette &palette)
{
    switch (kind) {
    case SegmentKind::Forward: return chartstyle::series(0, palette);
    case SegmentKind::Backward:
    case SegmentKind::InputGradient: return chartstyle::series(1, palette);
    case SegmentKind::WeightGradient: return chartstyle::series(2, palette);
    case SegmentKind::DataComm: return chartstyle::series(3, palette);
    case SegmentKind::Optimizer: return chartstyle::series(7, palette);
    case SegmentKind::ExpertComm: return chartstyle::series(9, palette); // the step chart's expert dispatch and combine
    }
    return chartstyle::series(7, palette);
}

namespace {

QString kindWords(SegmentKind kind)
{
    switch (kind) {
    case SegmentKind::Forward: return PipelineGanttView::tr("forward");
    case SegmentKind::Backward: return PipelineGanttView::tr("backward");
    case SegmentKind::InputGradient: return PipelineGanttView::tr("input gradient (B)");
    case SegmentKind::WeightGradient: return PipelineGanttView::tr("weight gradient (W)");
    case SegmentKind::DataComm: return PipelineGanttView::tr("data-parallel comm.");
    case SegmentKind::Optimizer: return PipelineGanttView::tr("optimizer");
    case SegmentKind::ExpertComm: return PipelineGanttView::tr("expert dispatch and combine");
    }
    return {};
}

} // namespace

/// A stage label per row while the rows are at least a label tall; otherwise every second, fourth, ... stage
/// (16 stage labels smeared into one another at 1280 pixels). Decided whenever the ticks are made, so a
/// resized chart gets its own.
class StageTicker : public QCPAxisTicker
{
public:
    explicit StageTicker(QCPAxis *axis) : m_axis(axis) { setTickStepStrategy(tssReadability); }

protected:
    double getTickStep(const QCPRange &range) override
    {
        const double pixels = std::max(1.0, double(m_axis->axisRect()->height()));
        const double perRow = pixels / std::max(1.0, range.size());
        const double label = 1.15 * QFontMetricsF(m_axis->tickLabelFont()).height();
        double step = 1;
        while (step * perRow < label && step < range.size())
            step *= 2;
        return step;
    }
    int getSubTickCount(double) override { return 0; }

private:
    QCPAxis *m_axis;
};

/// Draws a StepTimeline: one row per stage (key axis = time, value axis = stage). `band` places the bars in
/// the row: the plan fills most of it; a baseline a thin strip at its bottom.
class GanttPlottable : public QCPAbstractPlottable
{
public:
    GanttPlottable(QCPAxis *keyAxis, QCPAxis *valueAxis, double top, double bottom, bool ghost)
        : QCPAbstractPlottable(keyAxis, valueAxis), m_top(top), m_bottom(bottom), m_ghost(ghost)
    {
    }

    void setTimeline(const StepTimeline &timeline) { m_timeline = timeline; }
    void setColours(const QPalette &palette)
    {
        for (std::size_t k = 0; k < kSegmentKindCount; ++k) {
            QColor c = segmentColour(SegmentKind(k), palette);
            if (m_ghost)
                c.setAlphaF(0.55f);
            m_colours[k] = c;
            m_shaded[k] = chartstyle::isDark(palette) ? c.darker(125) : c.lighter(125);
        }
        m_text = QColor(Qt::white);
    }
    const StepTimeline &timeline() const { return m_timeline; }

    double selectTest(const QPointF &, bool, QVariant * = nullptr) const override { return -1; }
    QCPRange getKeyRange(bool &found, QCP::SignDomain = QCP::sdBoth) const override
    {
        found = m_timeline.valid;
        return QCPRange(0, found ? m_timeline.stepSeconds : 1);
    }
    QCPRange getValueRange(bool &found, QCP::SignDomain = QCP::sdBoth, const QCPRange & = QCPRange()) const override
    {
        found = m_timeline.valid;
        return QCPRange(-0.5, double(std::max(1, m_timeline.rows)) - 0.5);
    }
    /// The segment under a plot coordinate, or nullptr.
    const StepSegment *segmentAt(double time, double value) const
    {
        if (!m_timeline.valid)
            return nullptr;
        const double row = std::round(value);
        const double within = value - row;
        if (row < 0 || row >= m_timeline.rows || within < m_top || within > m_bottom)
            return nullptr;
        const auto begin = m_timeline.segments.begin() + std::ptrdiff_t(m_timeline.rowBegin[std::size_t(row)]);
        const auto end = m_timeline.segments.begin() + std::ptrdiff_t(m_timeline.rowBegin[std::size_t(row) + 1]);
        // Segments of a row are in time order: the last one starting at or before `time`.
        auto it = std::upper_bound(begin, end, time, [](double t, const StepSegment &s) { return t < s.start; });
        if (it == begin)
            return nullptr;
        --it;
        return time <= it->end ? &*it : nullptr;
    }

protected:
    void draw(QCPPainter *painter) override
    {
        if (!m_timeline.valid)
            return;
        const QCPRange visible = mKeyAxis->range();
        // The time axis is linear: map times to pixels with one multiply-add instead of coordToPixel per op.
        QCPAxis *keyAxis = mKeyAxis.data();
        const double x0 = keyAxis->coordToPixel(visible.lower), x1 = keyAxis->coordToPixel(visible.upper);
        m_x0 = x0;
        m_lower = visible.lower;
        m_scale = visible.size() > 0 ? (x1 - x0) / visible.size() : 0.0;
        m_labels = !m_ghost && m_timeline.segments.size() <= 4000;
        QFont small = painter->font();
        small.setPointSizeF(std::max(6.0, small.pointSizeF() - 2));
        painter->setFont(small);
        painter->setPen(Qt::NoPen);
        for (std::int32_t row = 0; row < m_timeline.rows; ++row)
            drawRow(painter, row, visible);
    }

    void drawLegendIcon(QCPPainter *, const QRectF &) const override {}

private:
    /// A stretch of segments each narrower than a few pixels, drawn as one rectangle split into bands.
    struct Run
    {
        bool open = false;
        double left = 0, right = 0;
        std::array<double, kSegmentKindCount> seconds{};
    };

    void drawRow(QCPPainter *painter, std::int32_t row, const QCPRange &visible)
    {
        QCPAxis *valueAxis = mValueAxis.data();
        const double top = valueAxis->coordToPixel(double(row) + m_top);
        const double bottom = valueAxis->coordToPixel(double(row) + m_bottom);
        const double y0 = std::min(top, bottom), y1 = std::max(top, bottom);
        Run run;
        for (std::size_t i = m_timeline.rowBegin[std::size_t(row)]; i < m_timeline.rowBegin[std::size_t(row) + 1];
             ++i) {
            const StepSegment &s = m_timeline.segments[i];
            if (s.end < visible.lower || s.start > visible.upper)
                continue;
            const double left = pixel(s.start), right = pixel(s.end);
            const std::size_t kind = std::size_t(s.kind);
            if (right - left < 3.0) {
                if (run.open && left - run.right > 1.0)
                    flush(painter, run, y0, y1);
                if (!run.open)
                    run = Run{true, left, right, {}};
                run.right = right;
                run.seconds[kind] += s.end - s.start;
                continue;
            }
            flush(painter, run, y0, y1);
            // Wide enough to see: its own block with a thin gap; neighbouring micro-batches alternate in shade.
            const QRectF rect(QPointF(left, y0), QPointF(right - 0.5, y1));
            painter->fillRect(rect, (s.microbatch >= 0 && (s.microbatch / std::max(1, s.microbatches)) % 2 == 1)
                                        ? m_shaded[kind]
                                        : m_colours[kind]);
            if (m_labels && s.microbatch >= 0 && rect.width() > 16 && rect.height() > 9) {
                painter->setPen(m_text);
                painter->drawText(rect, Qt::AlignCenter, QString::number(s.microbatch));
                painter->setPen(Qt::NoPen);
            }
        }
        flush(painter, run, y0, y1);
    }

    /// A merged run: one band per kind, as tall as the kind's share of the run's time, in the legend's
    /// colours (never a blend that the legend does not show).
    void flush(QCPPainter *painter, Run &run, double y0, double y1)
    {
        if (!run.open)
            return;
        run.open = false;
        double total = 0;
        for (double s : run.seconds)
            total += s;
        const double right = std::max(run.right, run.left + 1.0);
        double y = y0;
        for (std::size_t k = 0; k < kSegmentKindCount; ++k) {
            if (!(run.seconds[k] > 0) || !(total > 0))
                continue;
            const double h = (y1 - y0) * run.seconds[k] / total;
            painter->fillRect(QRectF(QPointF(run.left, y), QPointF(right, y + h)), m_colours[k]);
            y += h;
        }
    }

    StepTimeline m_timeline;
    double m_top, m_bottom;
    bool m_ghost;
    std::array<QColor, kSegmentKindCount> m_colours;
    std::array<QColor, kSegmentKindCount> m_shaded;
    QColor m_text;
    double pixel(double t) const { return m_x0 + (t - m_lower) * m_scale; }
    double m_x0 = 0, m_lower = 0, m_scale = 0; ///< the linear time axis, set per draw
    bool m_labels = true;
};

PipelineGanttView::PipelineGanttView(ChartSource *document, QWidget *parent)
    : PlotView(document, parent)
{
    m_gantt = new GanttPlottable(m_plot->xAxis, m_plot->yAxis, -0.4, 0.26, false);
    m_baseline = new GanttPlottable(m_plot->xAxis, m_plot->yAxis, 0.29, 0.42, true);
    m_gantt->removeFromLegend();
    m_baseline->removeFromLegend();
    m_plot->xAxis->setLabel(tr("Time in the step (s)"));
    m_plot->yAxis->setLabel(tr("Pipeline stage"));
    m_plot->yAxis->setRangeReversed(true);
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    m_plot->axisRect()->setRangeDrag(Qt::Horizontal);
    m_plot->axisRect()->setRangeZoom(Qt::Horizontal);
    // Legend: one swatch per kind present (graphs without data), in its own row under the title so it
    // never covers a stage.
    for (std::size_t k = 0; k < kSegmentKindCount; ++k) {
        QCPGraph *swatch = m_plot->addGraph();
        swatch->setName(kindWords(SegmentKind(k)));
        swatch->setLineStyle(QCPGraph::lsNone);
        swatch->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssSquare, 9));
    }
    placeLegendUnderTitle(3);
    showHoverText();
    connect(document, &ChartSource::baselineChanged, this, [this] { m_baselineStale = true; });
    startFollowingDocument(); // after: a new baseline is marked before the view redraws for it
}

std::size_t PipelineGanttView::opCount() const
{
    return m_gantt->timeline().segments.size();
}

std::size_t PipelineGanttView::baselineOpCount() const
{
    return m_baseline->timeline().segments.size();
}

QStringList PipelineGanttView::legendNames() const
{
    QStringList names;
    for (int i = 0; i < m_plot->legend->itemCount(); ++i)
        if (auto *item = qobject_cast<QCPPlottableLegendItem *>(m_plot->legend->item(i)))
            names << item->plottable()->name();
    return names;
}

QString PipelineGanttView::describeAt(const QPointF &position) const
{
    const double time = m_plot->xAxis->pixelToCoord(position.x());
    const double value = m_plot->yAxis->pixelToCoord(position.y());
    const GanttPlottable *sources[] = {m_gantt, m_baseline};
    for (const GanttPlottable *source : sources) {
        const StepSegment *s = source->segmentAt(time, value);
        if (!s)
            continue;
        QString what = kindWords(s->kind);
        if (s->microbatch >= 0)
            what = s->microbatches > 1 ? tr("%1 of micro-batches %2-%3")
                                             .arg(what)
                                             .arg(s->microbatch)
                                             .arg(s->microbatch + s->microbatches - 1)
                                       : tr("%1 of micro-batch %2").arg(what).arg(s->microbatch);
        if (s->chunk > 0 || m_document->plan().parallel.virtualStages > 1)
            what += tr(", model chunk %1").arg(s->chunk);
        const QString whose = source == m_baseline ? tr("Baseline, stage %1").arg(s->row) : tr("Stage %1").arg(s->row);
        return tr("%1: %2\n%3 to %4 s (%5)")
            .arg(whose, what, fmt::number(s->start, 3), fmt::number(s->end, 3), fmt::duration(s->end - s->start));
    }
    return {};
}

QPointF PipelineGanttView::segmentCentre(std::size_t index) const
{
    const StepSegment &s = m_gantt->timeline().segments.at(index);
    return {m_plot->xAxis->coordToPixel(0.5 * (s.start + s.end)), m_plot->yAxis->coordToPixel(double(s.row) - 0.07)};
}


void PipelineGanttView::draw()
{
    const Estimate &e = m_document->estimate();
    const StepTimeline empty;
    m_gantt->setTimeline(e.valid ? detailsOf(e).timeline : empty);
    m_gantt->setColours(palette());
    // The baseline's timeline (as long as the plan's) is copied only when the baseline changes, not per edit.
    const bool baseline = e.valid && m_document->hasBaseline() && m_document->baselineEstimate().valid;
    if (baseline != m_baselineShown || m_baselineStale) {
        m_baseline->setTimeline(baseline ? detailsOf(m_document->baselineEstimate()).timeline : empty);
        m_baselineShown = baseline;
        m_baselineStale = false;
    }
    m_baseline->setColours(palette());
    m_plot->legend->clearItems();
    for (std::size_t k = 0; k < kSegmentKindCount && int(k) < m_plot->graphCount(); ++k) {
        QCPGraph *swatch = m_plot->graph(int(k));
        const QColor colour = segmentColour(SegmentKind(k), palette());
        QCPScatterStyle style = swatch->scatterStyle();
        style.setPen(QPen(colour));
        style.setBrush(colour);
        swatch->setScatterStyle(style);
        if (e.valid && detailsOf(e).timeline.present[k])
            swatch->addToLegend();
    }
    m_plot->legend->setVisible(e.valid);
    if (!e.valid) {
        setTitle(tr("Step timeline: the plan has errors"));
        m_plot->xAxis->setVisible(false);
        m_plot->yAxis->setVisible(false);
        return;
    }
    m_plot->xAxis->setVisible(true);
    m_plot->yAxis->setVisible(true);
    const Plan &plan = m_document->plan();
    const StepTimeline &t = detailsOf(e).timeline;
    const QString tail = tr("then data-parallel sync %1 and optimizer %2")
                             .arg(fmt::duration(e.step.category(TimeCategory::DataComm)),
                                  fmt::duration(e.step.category(TimeCategory::Optimizer)));
    if (plan.parallel.pipeline > 1) {
        // PyTorch's pipelining may run the schedule once per local batch (training.schedule_microbatches).
        const QString microbatches = plan.scheduleRuns() > 1 ? tr("%1 runs of %2 micro-batches")
                                                                   .arg(plan.scheduleRuns())
                                                                   .arg(plan.microbatchesPerRun())
                                                             : tr("%1 micro-batches").arg(plan.microbatches());
        setTitle(tr("Step: %1, %2 stages x %3, pipeline idle %4; %5")
                     .arg(QString::fromLatin1(labelOf(plan.parallel.schedule)))
                     .arg(plan.parallel.pipeline)
                     .arg(microbatches, fmt::percent(e.step.bubbleFraction, 1), tail));
        m_plot->yAxis->setLabel(tr("Pipeline stage"));
    } else {
        setTitle(tr("Step: one stage, %1, %2")
                     .arg(fmt::counted(plan.microbatches(), tr("micro-batch"), tr("micro-batches")), tail));
        m_plot->yAxis->setLabel(tr("Stage"));
    }
    const int rows = std::max(1, t.rows);
    m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new StageTicker(m_plot->yAxis)));
    m_plot->yAxis->setNumberFormat(QStringLiteral("f"));
    m_plot->yAxis->setNumberPrecision(0);
    m_plot->yAxis->setRange(-0.6, double(rows) - 0.4);
    const double end =
        std::max(t.stepSeconds, baseline ? detailsOf(m_document->baselineEstimate()).timeline.stepSeconds : 0.0);
    m_plot->xAxis->setRange(0, end * 1.01);
}

QString PipelineGanttView::exportCsv() const
{
    return io::pipelineCsv(m_document->estimate());
}

} // namespace trainplan
