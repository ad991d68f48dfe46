#include "charts/ScalingView.h"

#include <qcustomplot.h>

#include "io/output/Format.h"
#include "charts/ChartStyle.h"
#include "io/output/ChartCsv.h"
#include "charts/ChartSource.h"

namespace trainplan {

ScalingView::ScalingView(ChartSource *document, QWidget *parent)
    : PlotView(document, parent)
{
    QSharedPointer<QCPAxisTickerLog> ticker(new QCPAxisTickerLog);
    ticker->setLogBase(2);
    ticker->setSubTickCount(0);
    for (QCPAxis *axis : {m_plot->xAxis, m_plot->yAxis}) {
        axis->setScaleType(QCPAxis::stLogarithmic);
        axis->setTicker(ticker);
        axis->setNumberFormat(QStringLiteral("f"));
        axis->setNumberPrecision(0);
    }
    m_plot->xAxis->setLabel(tr("Data-parallel replicas W"));
    m_plot->yAxis->setLabel(tr("Speedup S(W)"));
    m_plot->yAxis2->setVisible(true);
    m_plot->yAxis2->setRange(0, 1.05);
    m_plot->yAxis2->setLabel(tr("Efficiency S/W"));
    placeLegendUnderTitle(3);
    startFollowingDocument();
}

void ScalingView::draw()
{
    m_plot->clearGraphs();
    const Estimate &e = m_document->estimate();
    if (!e.valid || scalingOf(e).strong.empty()) {
        setTitle(tr("Scaling: the plan has errors"));
        return;
    }
    double maxWorkers = 1, maxEfficiency = 1;
    std::int64_t peakWorkers = 0;
    for (const auto *curve : {&scalingOf(e).strong, &scalingOf(e).weak})
        for (const ScalingPoint &p : *curve) {
            maxWorkers = std::max(maxWorkers, double(p.workers));
            if (p.efficiency > maxEfficiency)
                peakWorkers = p.workers;
            maxEfficiency = std::max(maxEfficiency, p.efficiency);
        }

    QCPGraph *ideal = m_plot->addGraph();
    ideal->setName(tr("ideal"));
    ideal->setData({1.0, maxWorkers}, {1.0, maxWorkers});
    QColor idealColour = palette().color(QPalette::WindowText);
    idealColour.setAlpha(110);
    ideal->setPen(QPen(idealColour, 1));

    const auto addCurve = [&](const std::vector<ScalingPoint> &points, const QString &name, int colour) {
        QVector<double> w, s, eff;
        for (const ScalingPoint &p : points) {
            w << double(p.workers);
            s << p.speedup;
            eff << p.efficiency;
        }
        QCPGraph *speedup = m_plot->addGraph();
        speedup->setName(tr("%1 speedup").arg(name));
        speedup->setData(w, s);
        speedup->setPen(QPen(chartstyle::series(colour, palette()), 2.2));
        speedup->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 5));
        QCPGraph *efficiency = m_plot->addGraph(m_plot->xAxis, m_plot->yAxis2);
        efficiency->setName(tr("%1 efficiency").arg(name));
        efficiency->setData(w, eff);
        QColor faint = chartstyle::series(colour, palette());
        faint.setAlpha(140);
        efficiency->setPen(QPen(faint, 1.2)); // solid: dotted strokes are slow to draw
    };
    addCurve(scalingOf(e).strong, tr("strong"), 0);
    addCurve(scalingOf(e).weak, tr("weak"), 1);
    markPlan(scalingOf(e));
    m_plot->xAxis->setRange(0.8, maxWorkers * 1.25);
    m_plot->yAxis->setRange(0.8, maxWorkers * 1.25);
    m_plot->yAxis2->setRange(0, 1.05 * maxEfficiency);
    // The title speaks of the plan itself, not of the end of the sweep.
    const ScalingPoint *strong = scalingOf(e).planStrong();
    const ScalingPoint *weak = scalingOf(e).planWeak();
    if (strong && weak)
        setTitle(tr("Scaling: this plan's %1 replicas at %2 efficiency (strong), %3 (weak)")
                     .arg(scalingOf(e).planWorkers)
                     .arg(fmt::percent(strong->efficiency, 1), fmt::percent(weak->efficiency, 1)));
    else if (strong || weak)
        setTitle(tr("Scaling: this plan's %1 replicas at %2 efficiency (%3)")
                     .arg(scalingOf(e).planWorkers)
                     .arg(fmt::percent((strong ? strong : weak)->efficiency, 1), strong ? tr("strong") : tr("weak")));
    else
        setTitle(tr("Scaling from one replica (the plan's %1 are beyond the sweep)").arg(scalingOf(e).planWorkers));
    // Curves that start above one replica (a mixture of experts needs enough ranks for its expert groups;
    // a batch may not split into one replica's micro-batches) are relative to their first point: say so.
    // Above 100%: each replica's share of the sharded optimizer update shrinks as replicas are added.
    // Named where it happens: the plan's own point may well be below 100%.
    if (maxEfficiency > 1.0005 && m_document->plan().parallel.zeroStage >= 1)
        setTitle(title() + tr("; %1 at %2 replicas, over 100% as ZeRO shards the optimizer step")
                               .arg(fmt::percent(maxEfficiency, 1))
                               .arg(peakWorkers));
    const std::int64_t base = scalingOf(e).baseWorkers();
    if (base > 1)
        setTitle(title() + (m_document->plan().model.isMoe()
                                ? tr(", from %1 replicas (the fewest that hold its expert groups)").arg(base)
                                : tr(", relative to %1 replicas").arg(base)));
}

void ScalingView::markPlan(const ScalingCurves &scaling)
{
    // The plan's own point: a ring on each speedup and efficiency curve.
    const QColor ink = palette().color(QPalette::WindowText);
    QVector<double> w, s, eff;
    for (const ScalingPoint *p : {scaling.planStrong(), scaling.planWeak()})
        if (p) {
            w << double(p->workers);
            s << p->speedup;
            eff << p->efficiency;
        }
    if (w.isEmpty())
        return;
    QCPGraph *speedups = m_plot->addGraph();
    speedups->setName(tr("this plan (%1 replicas)").arg(scaling.planWorkers));
    speedups->setLineStyle(QCPGraph::lsNone);
    speedups->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(ink, 2), Qt::NoBrush, 13));
    speedups->setData(w, s);
    QCPGraph *efficiencies = m_plot->addGraph(m_plot->xAxis, m_plot->yAxis2);
    efficiencies->setLineStyle(QCPGraph::lsNone);
    efficiencies->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(ink, 2), Qt::NoBrush, 13));
    efficiencies->setData(w, eff);
    efficiencies->removeFromLegend();
}

QString ScalingView::exportCsv() const
{
    return io::scalingCsv(m_document->estimate());
}

} // namespace trainplan
