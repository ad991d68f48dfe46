#include "charts/StepBreakdownView.h"

#include <QHelpEvent>
#include <QToolTip>

#include <qcustomplot.h>

#include "io/output/ChartCsv.h"
#include "io/output/Evidence.h"
#include "io/output/StepTerms.h"
#include "io/output/Format.h"
#include "charts/ChartStyle.h"
#include "charts/ChartSource.h"

namespace trainplan {

QString stepPartWords(StepPart part)
{
    switch (part) {
    case StepPart::Forward: return StepBreakdownView::tr("forward");
    case StepPart::Backward: return StepBreakdownView::tr("backward");
    case StepPart::Recompute: return StepBreakdownView::tr("recompute");
    case StepPart::TensorComm: return StepBreakdownView::tr("tensor-parallel comm.");
    case StepPart::ContextComm: return StepBreakdownView::tr("context-parallel KV exchange");
    case StepPart::ExpertComm: return StepBreakdownView::tr("expert dispatch and combine");
    case StepPart::PipelineIdle: return StepBreakdownView::tr("pipeline bubble + transfers");
    case StepPart::DataComm: return StepBreakdownView::tr("data-parallel / ZeRO comm.");
    case StepPart::Optimizer: return StepBreakdownView::tr("optimizer");
    case StepPart::HostLaunch: return StepBreakdownView::tr("host launch");
    case StepPart::ActivationOffload: return StepBreakdownView::tr("activation offload");
    case StepPart::Other: return StepBreakdownView::tr("other");
    }
    return {};
}

QColor stepPartColour(StepPart part, const QPalette &palette)
{
    // Forward, backward and data-parallel communication as in the step timeline.
    const int index[] = {0, 1, 5, 4, 8, 9, 6, 3, 7, 10, 11, 2};
    static_assert(std::size(index) == kStepPartCount);
    return chartstyle::series(index[std::size_t(part)], palette);
}

namespace {
constexpr double kPlanKey = 1.0, kBaselineKey = 0.0; ///< the plan's bar on top, the baseline's under it
constexpr double kBandOffset = 0.38;                ///< the band's whisker over the plan's bar (0.3 high)
}

StepBreakdownView::StepBreakdownView(ChartSource *document, QWidget *parent)
    : PlotView(document, parent)
{
    setMinimumSize(320, 130);
    // Horizontal bars: the key axis is the vertical one.
    QCPBars *below = nullptr;
    for (std::size_t k = 0; k < kStepPartCount; ++k) {
        auto *bars = new QCPBars(m_plot->yAxis, m_plot->xAxis);
        bars->setName(stepPartWords(StepPart(k)));
        bars->setWidth(0.6);
        bars->setStackingGap(0);
        if (below)
            bars->moveAbove(below);
        below = bars;
        m_bars[k] = bars;
    }
    // The plan's error band (issue 37) as a whisker just above its bar: a point at the step time with value errors.
    m_band = new QCPGraph(m_plot->yAxis, m_plot->xAxis);
    m_band->setLineStyle(QCPGraph::lsNone);
    m_band->setName(tr("80% error band"));
    m_bandWhisker = new QCPErrorBars(m_plot->yAxis, m_plot->xAxis);
    m_bandWhisker->setErrorType(QCPErrorBars::etValueError);
    m_bandWhisker->setDataPlottable(m_band);
    m_bandWhisker->setWhiskerWidth(8);
    m_bandWhisker->setSymbolGap(0);
    m_plot->xAxis->setLabel(tr("Seconds per step"));
    QSharedPointer<QCPAxisTickerText> names(new QCPAxisTickerText);
    m_plot->yAxis->setTicker(names);
    m_plot->yAxis->setSubTicks(false);
    m_plot->yAxis->grid()->setVisible(false);
    placeLegendUnderTitle(4);
    // Title, two legend rows, a bar and the time axis: below this the plot's layout would squeeze the title.
    setMinimumHeight(fontMetrics().height() * 11);
    showHoverText();
    startFollowingDocument();
}

void StepBreakdownView::draw()
{
    const Estimate &e = m_document->estimate();
    const bool baseline = e.valid && m_document->hasBaseline() && m_document->baselineEstimate().valid;
    m_plot->legend->clearItems();
    for (std::size_t k = 0; k < kStepPartCount; ++k) {
        QCPBars *bars = m_bars[k];
        const QColor colour = stepPartColour(StepPart(k), palette());
        bars->setPen(Qt::NoPen);
        bars->setBrush(colour);
        QVector<double> keys, values;
        // Keys in ascending order (the baseline's bar is under the plan's): QCPBars stacks by sorted key.
        if (baseline) {
            keys << kBaselineKey;
            values << m_document->baselineEstimate().parts[k];
        }
        if (e.valid) {
            keys << kPlanKey;
            values << e.parts[k];
        }
        bars->setData(keys, values, true);
        const bool used = (e.valid && e.parts[k] > 0) || (baseline && m_document->baselineEstimate().parts[k] > 0);
        if (used)
            bars->addToLegend();
    }
    m_plot->legend->setVisible(e.valid);
    auto ticker = qSharedPointerCast<QCPAxisTickerText>(m_plot->yAxis->ticker());
    ticker->clear();
    ticker->addTick(kPlanKey, tr("This plan"));
    if (baseline)
        ticker->addTick(kBaselineKey, tr("Baseline"));
    m_plot->yAxis->setRange(baseline ? -0.6 : 0.5, 1.5);
    m_plot->xAxis->setVisible(e.valid);
    m_plot->yAxis->setVisible(e.valid);
    if (!e.valid) {
        drawBand(0, 0);
        setTitle(tr("Where the step goes: the plan has errors"));
        return;
    }
    const Accuracy &accuracy = detailsOf(e).accuracy;
    const double band = accuracy.assessed ? accuracy.band80 : 0.0;
    drawBand(e.step.stepSeconds, band);
    double longest = e.step.stepSeconds * (1 + band);
    if (baseline)
        longest = std::max(longest, m_document->baselineEstimate().step.stepSeconds);
    m_plot->xAxis->setRange(0, longest * 1.02);
    std::size_t largest = 0;
    for (std::size_t k = 1; k < kStepPartCount; ++k)
        if (e.parts[k] > e.parts[largest])
            largest = k;
    const QString bandWords = !accuracy.assessed   ? QString()
                              : accuracy.validated ? tr(" (%1)").arg(io::accuracyBand(accuracy))
                                                   : tr(" (%1, not validated)").arg(io::accuracyBand(accuracy));
    QString title =
        tr("Where the %1 s step goes%4: %2 takes %3")
            .arg(fmt::number(e.step.stepSeconds, e.step.stepSeconds < 10 ? 3 : 1), stepPartWords(StepPart(largest)),
                 fmt::percent(e.parts[largest] / e.step.stepSeconds, 0), bandWords);
    if (baseline)
        title += tr(" (baseline: %1 s)").arg(fmt::number(m_document->baselineEstimate().step.stepSeconds, 3));
    setTitle(title);
}

void StepBreakdownView::drawBand(double stepSeconds, double band)
{
    const QColor ink = palette().color(QPalette::WindowText);
    m_bandWhisker->setPen(QPen(ink, 1.5));
    m_band->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssNone));
    if (stepSeconds <= 0 || band <= 0) {
        m_band->data()->clear();
        m_bandWhisker->data()->clear();
        return;
    }
    m_band->setData({kPlanKey + kBandOffset}, {stepSeconds});
    const double error = stepSeconds * band;
    m_bandWhisker->setData({error}, {error});
}

std::vector<std::array<double, kStepPartCount>> StepBreakdownView::drawnSeconds() const
{
    std::vector<std::array<double, kStepPartCount>> out;
    for (const double key : {kPlanKey, kBaselineKey}) {
        std::array<double, kStepPartCount> row{};
        bool found = false;
        for (std::size_t k = 0; k < kStepPartCount; ++k)
            for (auto it = m_bars[k]->data()->constBegin(); it != m_bars[k]->data()->constEnd(); ++it)
                if (it->key == key) {
                    row[k] = it->value;
                    found = true;
                }
        if (found)
            out.push_back(row);
    }
    return out;
}

QStringList StepBreakdownView::legendNames() const
{
    QStringList names;
    for (int i = 0; i < m_plot->legend->itemCount(); ++i)
        if (auto *item = qobject_cast<QCPPlottableLegendItem *>(m_plot->legend->item(i)))
            names << item->plottable()->name();
    return names;
}

QString StepBreakdownView::describe(int bar, StepPart part) const
{
    const bool baseline = bar == 1;
    if (baseline && !m_document->hasBaseline())
        return {};
    const Estimate &e = baseline ? m_document->baselineEstimate() : m_document->estimate();
    if (!e.valid)
        return {};
    const double seconds = e.parts[std::size_t(part)];
    QString what = stepPartWords(part);
    what[0] = what[0].toUpper();
    return tr("%1%2: %3 s, %4 of the step")
        .arg(baseline ? tr("Baseline, ") : QString(), what, fmt::number(seconds, 3),
             fmt::percent(e.step.stepSeconds > 0 ? seconds / e.step.stepSeconds : 0.0, 1));
}

QString StepBreakdownView::describeAt(const QPointF &position) const
{
    const double key = m_plot->yAxis->pixelToCoord(position.y());
    const double seconds = m_plot->xAxis->pixelToCoord(position.x());
    for (const auto &[barKey, bar] : {std::pair{kPlanKey, 0}, std::pair{kBaselineKey, 1}}) {
        if (std::abs(key - barKey) > 0.3 || (bar == 1 && !m_document->hasBaseline()))
            continue;
        const Estimate &e = bar == 1 ? m_document->baselineEstimate() : m_document->estimate();
        if (!e.valid)
            return {};
        double start = 0;
        for (std::size_t k = 0; k < kStepPartCount; ++k) {
            if (seconds >= start && seconds < start + e.parts[k]) {
                // The part, then how it is computed and where the formula comes from (io/output/StepTerms; time.terms).
                const io::StepTermInfo &term = io::stepTermInfo(StepPart(k));
                return tr("<p><b>%1</b><br>%2<br><i>Source: %3</i></p>")
                    .arg(describe(bar, StepPart(k)).toHtmlEscaped(), QString::fromUtf8(term.formula).toHtmlEscaped(),
                         QString::fromUtf8(term.source).toHtmlEscaped());
            }
            start += e.parts[k];
        }
    }
    return {};
}


QString StepBreakdownView::exportCsv() const
{
    return io::stepPartsCsv(m_document->estimate(),
                            m_document->hasBaseline() ? &m_document->baselineEstimate() : nullptr);
}

} // namespace trainplan
