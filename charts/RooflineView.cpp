#include "charts/RooflineView.h"

#include <QToolTip>

#include <qcustomplot.h>

#include <cmath>

#include "charts/ChartStyle.h"
#include "core/common/Units.h"
#include "core/compute/Roofline.h"
#include "io/output/Format.h"
#include "io/output/ChartCsv.h"
#include "charts/ChartSource.h"

namespace trainplan {

namespace {
constexpr double kMinIntensity = 0.01;
constexpr double kMaxIntensity = 1e5;
constexpr int kFirstOpGraph = 0; // op graphs come first: forward, backward, recompute

/// The op's shape on this rank: "[8192 x 12288] x [12288 x 4608]" (x 96 when batched), or its elements.
QString shapeText(const Op &op)
{
    const auto n = [](double v) { return fmt::grouped(v); };
    if (op.batch > 0)
        return QObject::tr("[%1 × %2] × [%2 × %3]%4")
            .arg(n(op.rows), n(op.inner), n(op.cols),
                 op.batch > 1 ? QObject::tr(", %1 times").arg(n(op.batch)) : QString());
    if (op.rows > 0)
        return QObject::tr("%1 elements").arg(n(op.rows));
    return {};
}

QString opText(const Op &op)
{
    // One table row per line; no line wraps (white-space: nowrap), so "TFLOP/s" stays whole.
    const double attained = op.seconds > 0 ? op.flops / op.seconds : 0.0;
    const QString shape = shapeText(op);
    return QObject::tr("<p style='white-space:nowrap'><b>%1</b> (%2, %3)%4<br>FLOPs %5, bytes %6<br>"
                       "intensity %7 FLOP/B, %8&nbsp;TFLOP/s<br>time %9 ms, %10</p>")
        .arg(QLatin1String(op.name), QString::fromLatin1(labelOf(op.pass)).toLower(),
             QString::fromLatin1(labelOf(op.kind)).toLower(),
             shape.isEmpty() ? QString() : QStringLiteral("<br>") + shape)
        .arg(fmt::count(op.flops), fmt::bytes(op.bytes))
        .arg(fmt::number(op.intensity(), 1))
        .arg(fmt::teraflops(attained, 1))
        .arg(fmt::number(op.seconds / units::Milli, 3))
        .arg(op.memoryBound ? QObject::tr("bandwidth-bound") : QObject::tr("compute-bound"));
}
} // namespace

RooflineView::RooflineView(ChartSource *document, QWidget *parent)
    : PlotView(document, parent)
{
    m_plot->setMouseTracking(true);
    for (QCPAxis *axis : {m_plot->xAxis, m_plot->yAxis}) {
        axis->setScaleType(QCPAxis::stLogarithmic);
        axis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
        axis->setNumberFormat(QStringLiteral("eb"));
        axis->setNumberPrecision(0);
    }
    m_plot->xAxis->setLabel(tr("Arithmetic intensity (FLOP/byte)"));
    m_plot->yAxis->setLabel(tr("Throughput (TFLOP/s)"));
    placeLegendUnderTitle(6);
    connect(m_plot, &QCustomPlot::mouseMove, this, [this](QMouseEvent *event) {
        const QString text = describeOpAt(event->pos());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(m_plot->mapToGlobal(event->pos()), text, m_plot);
    });
    startFollowingDocument();
}

QString RooflineView::describeOpAt(const QPoint &position) const
{
    const Estimate &e = m_document->estimate();
    if (!e.valid)
        return {};
    double best = 8.0; // pixels
    const Op *nearest = nullptr;
    for (int g = kFirstOpGraph; g < kFirstOpGraph + 3 && g < m_plot->graphCount(); ++g) {
        const QCPGraph *graph = m_plot->graph(g);
        for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it) {
            const QPointF pixel = graph->coordsToPixels(it->key, it->value);
            const double distance = std::hypot(pixel.x() - position.x(), pixel.y() - position.y());
            if (distance < best) {
                best = distance;
                // The point's key and value identify the op: find it among the ops of that pass.
                for (const Op &op : e.step.ops)
                    if (op.seconds > 0 && std::abs(op.intensity() - it->key) <= 1e-9 * it->key
                        && std::abs(op.flops / op.seconds / units::Tera - it->value) <= 1e-9 * it->value)
                        nearest = &op;
            }
        }
    }
    return nearest ? opText(*nearest) : QString();
}

void RooflineView::drawOps(const Estimate &e, double &lowest, double &highest)
{
    // The plan's ops: forward, backward, recompute.
    const OpPass passes[] = {OpPass::Forward, OpPass::Backward, OpPass::Recompute};
    const QString names[] = {tr("forward"), tr("backward"), tr("recomputed")};
    for (int i = 0; i < 3; ++i) {
        QCPGraph *g = m_plot->addGraph();
        g->setName(names[i]);
        g->setLineStyle(QCPGraph::lsNone);
        g->setScatterStyle(QCPScatterStyle(i == 1 ? QCPScatterStyle::ssTriangle : QCPScatterStyle::ssDisc,
                                           chartstyle::series(i, palette()), 7));
        QVector<double> x, y;
        for (const Op &op : e.step.ops) {
            if (op.pass != passes[i] || op.seconds <= 0 || op.flops <= 0 || op.bytes <= 0)
                continue;
            const double attained = op.flops / op.seconds / units::Tera;
            x << std::clamp(op.intensity(), kMinIntensity, kMaxIntensity);
            y << attained;
            lowest = std::min(lowest, attained);
            highest = std::max(highest, attained);
        }
        g->setData(x, y);
        if (x.isEmpty())
            g->removeFromLegend();
    }
    // A mixture of experts: its grouped expert GEMMs ringed on top of their passes' points (their shapes
    // follow the tokens each local expert gets, so they sit below the dense GEMMs when the experts are
    // many and small).
    QVector<double> x, y;
    for (const Op &op : e.step.ops)
        if (op.role == OpRole::ExpertGemm && op.seconds > 0 && op.flops > 0 && op.bytes > 0) {
            x << std::clamp(op.intensity(), kMinIntensity, kMaxIntensity);
            y << op.flops / op.seconds / units::Tera;
        }
    if (!x.isEmpty()) {
        QCPGraph *g = m_plot->addGraph();
        g->setName(tr("expert GEMMs"));
        g->setLineStyle(QCPGraph::lsNone);
        QCPScatterStyle ring(QCPScatterStyle::ssSquare, 12);
        ring.setPen(QPen(chartstyle::series(9, palette()), 1.6));
        g->setScatterStyle(ring);
        g->setData(x, y);
    }
}

void RooflineView::drawRoofs(const Estimate &e, double &highest)
{
    const Precision precision = detailsOf(e).roofline.plan.precision;
    const double bandwidth = detailsOf(e).roofline.bandwidthBytesPerSecond;
    // Ceilings: min(peak, bandwidth x I) for every precision the device has; the plan's precision bold.
    // Formats with the same peak share one line and one legend entry ("FP16 = BF16 312 TFLOP/s"), so no
    // roof hides under another.
    int colour = 3;
    std::vector<std::pair<double, QStringList>> peaks;
    std::vector<bool> mineOf;
    for (const Roof &roof : detailsOf(e).roofline.roofs) {
        auto it = std::find_if(peaks.begin(), peaks.end(), [&](const auto &p) { return p.first == roof.peakFlops; });
        if (it == peaks.end()) {
            peaks.push_back({roof.peakFlops, {}});
            mineOf.push_back(false);
            it = peaks.end() - 1;
        }
        // A recipe of a format already named (FP8 blockwise beside FP8) adds nothing to the entry.
        const QString name = QString::fromLatin1(labelOf(roof.precision));
        if (std::none_of(it->second.begin(), it->second.end(),
                         [&](const QString &n) { return name.startsWith(n + QLatin1Char(' ')); }))
            it->second << name;
        if (roof.precision == precision)
            mineOf[std::size_t(it - peaks.begin())] = true;
    }
    for (std::size_t r = 0; r < peaks.size(); ++r) {
        const double peak = peaks[r].first;
        const bool mine = mineOf[r];
        QCPGraph *g = m_plot->addGraph();
        // Short, so that the legend takes two rows and leaves the plot its height: the unit is the axis's.
        g->setName(tr("%1 roof %2").arg(peaks[r].second.join(QLatin1Char('/')), fmt::teraflops(peak, 0)));
        QVector<double> x, y;
        const double ridge = ridgePoint(peak, bandwidth);
        for (double i : {kMinIntensity, ridge, kMaxIntensity}) {
            x << i;
            y << attainableFlops(i, peak, bandwidth) / units::Tera;
        }
        g->setData(x, y, true);
        // Solid strokes: dashed ones cost several milliseconds per redraw in the raster engine.
        QColor other = chartstyle::series(colour++, palette());
        other.setAlpha(170);
        g->setPen(QPen(mine ? palette().color(QPalette::WindowText) : other, mine ? 2.5 : 1.2));
        highest = std::max(highest, peak / units::Tera);
        if (mine) {
            auto *line = new QCPItemStraightLine(m_plot);
            line->point1->setCoords(ridge, 1e-6);
            line->point2->setCoords(ridge, 1e9);
            line->setPen(QPen(palette().color(QPalette::WindowText), 1, Qt::DotLine));
            auto *label = new QCPItemText(m_plot);
            label->position->setCoords(ridge, peak / units::Tera);
            label->setPositionAlignment(Qt::AlignRight | Qt::AlignBottom);
            label->setColor(palette().color(QPalette::WindowText));
            label->setText(tr("ridge %1 FLOP/B ").arg(ridge, 0, 'f', 0));
        }
    }
}

void RooflineView::draw()
{
    m_plot->clearGraphs();
    m_plot->clearItems();
    const Estimate &e = m_document->estimate();
    if (!e.valid) {
        setTitle(tr("Roofline: the plan has errors"));
        return;
    }
    const DeviceSpec &d = *e.device;
    double lowest = 1e30, highest = 0;
    drawOps(e, lowest, highest);
    drawRoofs(e, highest);
    m_plot->xAxis->setRange(kMinIntensity, kMaxIntensity);
    m_plot->yAxis->setRange(std::max(1e-4, std::min(lowest, highest) / 3.0), highest * 3.0);
    setTitle(tr("Roofline: %1, one micro-batch")
                 .arg(QString::fromStdString(d.name).remove(QStringLiteral("NVIDIA ")).remove(QStringLiteral("AMD "))));
}

QString RooflineView::exportCsv() const
{
    return io::rooflineCsv(m_document->estimate());
}

} // namespace trainplan
