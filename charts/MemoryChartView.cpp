#include "charts/MemoryChartView.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QCoreApplication>
#include <QEvent>
#include <QGraphicsItem>
#include <QPainter>
#include <QGraphicsLayout>
#include <QLegendMarker>
#include <QLineSeries>
#include <QStackedBarSeries>
#include <QToolTip>
#include <QCursor>
#include <QValueAxis>

#include <qcustomplot.h>

#include <cmath>

#include "charts/ChartStyle.h"
#include "io/output/Format.h"
#include "core/common/Units.h"
#include "io/output/ChartCsv.h"
#include "charts/ChartExport.h"
#include "charts/ChartSource.h"
#include "core/memory/MemoryTerms.h"

namespace trainplan {

namespace {

/// A tick interval of 1, 2, 2.5 or 5 x 10^k giving four to six intervals up to `top`.
double niceTickInterval(double top)
{
    if (!(top > 0) || !std::isfinite(top))
        return 1.0;
    const double raw = top / 5.0;
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
        if (m * magnitude >= raw)
            return m * magnitude;
    return 10.0 * magnitude;
}

} // namespace

/// Drawn over the bars, in chart coordinates: the part of each stage above capacity (hatched, outlined in
/// the warning colour, the component colours visible through it) and the baseline's stage peaks (dashed
/// outlines). A scene item, so exports draw it too.
class MemoryOverlay : public QGraphicsItem
{
public:
    explicit MemoryOverlay(QChart *chart) : QGraphicsItem(chart), m_chart(chart) { setZValue(100); }

    QList<QVector<double>> over;   ///< {stage, capacity GiB, peak GiB}
    QList<double> baseline;        ///< baseline peak per stage, GiB
    double barWidth = 0.7;
    QColor warning, outline;
    QAbstractSeries *series = nullptr;
    QString errors; ///< a plan with errors: what the chart says instead of its bars

    QRectF boundingRect() const override { return m_area; }
    /// Follows the plot area; the scene must hear of a changed bounding rectangle before it changes.
    void setArea(const QRectF &area)
    {
        prepareGeometryChange();
        m_area = area;
        update();
    }
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *, QWidget *) override
    {
        if (!errors.isEmpty()) {
            painter->setPen(outline);
            const QRectF area = m_chart->plotArea().adjusted(16, 8, -16, -8);
            painter->drawText(area, Qt::AlignCenter | Qt::TextWordWrap, errors);
            return;
        }
        if (!series)
            return;
        painter->save();
        painter->setClipRect(m_chart->plotArea());
        const auto rect = [&](double stage, double low, double high, double width) {
            const QPointF a = m_chart->mapToPosition(QPointF(stage - width / 2, high), series);
            const QPointF b = m_chart->mapToPosition(QPointF(stage + width / 2, low), series);
            return QRectF(a, b).normalized();
        };
        for (const QVector<double> &o : over) {
            const QRectF r = rect(o[0], o[1], o[2], barWidth);
            QColor hatch = warning;
            painter->setPen(Qt::NoPen);
            painter->setBrush(QBrush(hatch, Qt::BDiagPattern));
            painter->drawRect(r);
            painter->setBrush(Qt::NoBrush);
            painter->setPen(QPen(warning, 2));
            painter->drawRect(r);
        }
        painter->setBrush(Qt::NoBrush);
        // A cosmetic one-pixel dash on axis-aligned rectangles, without antialiasing: the raster engine draws
        // it directly, where a 1.5 px antialiased dash went through the path stroker (a quarter of a redraw
        // with 64 stages' outlines).
        QPen dashed(outline, 1, Qt::DashLine);
        dashed.setCosmetic(true);
        painter->setPen(dashed);
        painter->setRenderHint(QPainter::Antialiasing, false);
        for (int s = 0; s < baseline.size(); ++s)
            painter->drawRect(rect(s, 0, baseline[s], std::min(0.95, barWidth + 0.12)));
        painter->restore();
    }

private:
    QChart *m_chart;
    QRectF m_area;
};

MemoryChartView::MemoryChartView(ChartSource *document, QWidget *parent)
    : QChartView(parent), m_document(document)
{
    setRenderHint(QPainter::Antialiasing);
    setMinimumSize(320, 200);
    chart()->legend()->setAlignment(Qt::AlignBottom);
    chart()->setTheme(QChart::ChartThemeBlueIcy); // any theme but the two refresh() picks: it sets fonts once
    chart()->setMargins(QMargins(4, 2, 4, 2));
    chart()->setBackgroundRoundness(0);
    m_overlay = new MemoryOverlay(chart());
    connect(chart(), &QChart::plotAreaChanged, this, [this](const QRectF &area) { m_overlay->setArea(area); });
    connect(m_document, &ChartSource::planChanged, this, &MemoryChartView::refresh);
    connect(m_document, &ChartSource::baselineChanged, this, [this] {
        m_stageSeries = nullptr; // the axis range may change: rebuild
        refresh();
    });
    refresh();
    installChartExportActions(this, this);
}

void MemoryChartView::setZeroComparison(bool on)
{
    if (m_zeroComparison == on)
        return;
    m_zeroComparison = on;
    refresh();
}

void MemoryChartView::showEvent(QShowEvent *event)
{
    QChartView::showEvent(event);
    if (m_stale)
        redraw();
}

void MemoryChartView::resizeEvent(QResizeEvent *event)
{
    QChartView::resizeEvent(event);
    setTitleFitted(m_title, width());
    fitChartLegend(chart(), size()); // after the title: its lines take the legend's room
}

void MemoryChartView::setTitleFitted(const QString &title, double width)
{
    m_title = title;
    // The title's room is the chart's inside its margins and its background's inset, not the view's width:
    // wrapped to the view it came out a little too long, and Qt Charts elided it.
    const QMarginsF margins = chart()->margins();
    const double room = width - margins.left() - margins.right() - 2 * chart()->backgroundRoundness() - 28;
    chart()->setTitle(chartstyle::wrapTitle(title, chart()->titleFont(), room).join(QStringLiteral("<br>")));
}

QList<QVector<double>> MemoryChartView::overCapacityRegions() const
{
    return m_overlay->series ? m_overlay->over : QList<QVector<double>>();
}

QList<double> MemoryChartView::baselinePeaks() const
{
    return m_overlay->series ? m_overlay->baseline : QList<double>();
}

double MemoryChartView::tickInterval() const
{
    for (QAbstractAxis *axis : chart()->axes(Qt::Vertical))
        if (auto *value = qobject_cast<QValueAxis *>(axis))
            return value->tickInterval();
    return 0;
}

void MemoryChartView::setStageAxis(double highestGib)
{
    const double interval = niceTickInterval(highestGib * 1.05);
    m_stageAxisY->setTickType(QValueAxis::TicksDynamic);
    m_stageAxisY->setTickAnchor(0);
    m_stageAxisY->setTickInterval(interval);
    m_stageAxisY->setRange(0, std::ceil(highestGib * 1.05 / interval) * interval);
    m_stageAxisY->setLabelFormat(interval == std::floor(interval) ? QStringLiteral("%.0f") : QStringLiteral("%.1f"));
}

void MemoryChartView::updateOverlay()
{
    const Estimate &e = m_document->estimate();
    m_overlay->over.clear();
    m_overlay->baseline.clear();
    m_overlay->series = m_stageSeries;
    m_overlay->outline = palette().color(QPalette::WindowText);
    m_overlay->errors = e.valid ? QString() : fmt::planErrors(m_document->problems()).join(QLatin1Char('\n'));
    if (!m_stageSeries || !e.valid) {
        m_overlay->update();
        return;
    }
    constexpr double GiB = units::GiB;
    for (const StageMemory &s : e.memory.stages)
        if (s.peakBytes > s.capacityBytes)
            m_overlay->over << QVector<double>{double(s.stage), s.capacityBytes / GiB, s.peakBytes / GiB};
    if (m_document->hasBaseline() && m_document->baselineEstimate().valid)
        for (const StageMemory &s : m_document->baselineEstimate().memory.stages)
            m_overlay->baseline << s.peakBytes / GiB;
    m_overlay->barWidth = m_stageSeries->barWidth();
    m_overlay->warning = chartstyle::warning(palette());
    m_overlay->outline = palette().color(QPalette::WindowText);
    m_overlay->update();
}

void MemoryChartView::changeEvent(QEvent *event)
{
    QChartView::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        m_stageSeries = nullptr; // colours change: rebuild
        refresh();
    }
}

QList<QList<qreal>> MemoryChartView::seriesValues() const
{
    QList<QList<qreal>> out;
    for (QAbstractSeries *s : chart()->series())
        if (auto *bars = qobject_cast<QStackedBarSeries *>(s))
            for (QBarSet *set : bars->barSets()) {
                QList<qreal> values;
                for (int i = 0; i < set->count(); ++i)
                    values << set->at(i);
                out << values;
            }
    return out;
}

void MemoryChartView::refresh()
{
    // As PlotView: a chart on a page the window does not show redraws when it is next shown.
    if (window()->isVisible() && !isVisible()) {
        m_stale = true;
        return;
    }
    redraw();
}

void MemoryChartView::redraw()
{
    m_stale = false;
    if (!m_zeroComparison && m_document->estimate().valid && updateStagesInPlace())
        return;
    QChart *c = chart();
    m_stageSeries = nullptr;
    m_stageSets.clear();
    m_capacity = nullptr;
    m_stageAxisY = nullptr;
    m_overlay->series = nullptr;
    c->removeAllSeries();
    for (QAbstractAxis *axis : c->axes()) {
        c->removeAxis(axis); // hands ownership back: delete it (LeakSanitizer found this)
        delete axis;
    }
    const QChart::ChartTheme theme = chartstyle::isDark(palette()) ? QChart::ChartThemeDark : QChart::ChartThemeLight;
    if (c->theme() != theme) {
        c->setTheme(theme); // resets fonts: set the legend's again
        QFont legendFont = font();
        legendFont.setPointSizeF(std::max(7.0, legendFont.pointSizeF() - 1.5));
        c->legend()->setFont(legendFont);
        c->legend()->setMarkerShape(QLegend::MarkerShapeRectangle);
    }
    c->setBackgroundRoundness(0);
    c->setTitleFont(chartstyle::titleFont(font()));
    c->setBackgroundBrush(palette().color(QPalette::Base));
    c->setTitleBrush(palette().color(QPalette::WindowText));
    if (!m_document->estimate().valid) {
        setTitleFitted(tr("Memory: the plan has errors"), width());
        c->legend()->setVisible(false);
        updateOverlay();
        return;
    }
    c->legend()->setVisible(true);
    if (m_zeroComparison) {
        drawZeroComparison();
        updateOverlay();
    } else {
        drawStages();
    }
    c->legend()->setLabelColor(palette().color(QPalette::WindowText));
    fitChartLegend(c, size());
}

namespace {

/// The stacked components of a stage, as the GPU reports it: what is allocated (parameters, a mixture of
/// experts' dense then expert ones; gradients; optimizer state; activations; buffers), then the caching
/// allocator's overhead up to the reserved peak, then the device's extras up to the device-used peak.
QList<qreal> stageComponents(const StageMemory &s, bool moe)
{
    QList<qreal> out{s.parametersBytes,
                     s.gradientsBytes,
                     s.optimizerBytes,
                     s.activationsBytes,
                     s.otherOfKind(MemoryKind::Allocated),
                     s.otherOfKind(MemoryKind::Reserved),
                     s.otherOfKind(MemoryKind::Device)};
    if (moe) {
        out[0] = s.parametersBytes - s.expertParametersBytes;
        out.insert(1, s.expertParametersBytes);
    }
    return out;
}

/// Their legend names and colour indices (expert parameters in the colour of the step chart's all-to-all);
/// the device extras are hatched (drawStages()).
QList<std::pair<QString, int>> stageComponentNames(bool moe)
{
    QList<std::pair<QString, int>> out{{MemoryChartView::tr("Params"), 0},
                                       {MemoryChartView::tr("Grads"), 1},
                                       {MemoryChartView::tr("Optimizer"), 2},
                                       {MemoryChartView::tr("Activations"), 3},
                                       {MemoryChartView::tr("Buffers"), 7},
                                       {MemoryChartView::tr("Allocator"), 8},
                                       {MemoryChartView::tr("Device extras"), 7}};
    if (moe) {
        out[0].first = MemoryChartView::tr("Dense params");
        out.insert(1, {MemoryChartView::tr("Expert params"), 9}); // the step chart's expert colour
    }
    return out;
}

} // namespace

bool MemoryChartView::updateStagesInPlace()
{
    const MemoryEstimate &memory = m_document->estimate().memory;
    // The baseline only changes the overlay and the axis, unless its stages reach past the plan's.
    const bool baseline = m_document->hasBaseline() && m_document->baselineEstimate().valid;
    const int legendEntries = 2 + (memory.fits ? 0 : 1) + (baseline ? 1 : 0);
    const bool moe = m_document->plan().model.isMoe();
    if (!m_stageSeries || m_stageSets.size() != stageComponentNames(moe).size() ||
        m_stageDark != chartstyle::isDark(palette()) || m_stageSets.front()->count() != int(memory.stages.size()) ||
        chart()->series().size() != legendEntries ||
        (baseline && m_document->baselineEstimate().memory.stages.size() > memory.stages.size()))
        return false;
    constexpr double GiB = units::GiB;
    double highest = memory.capacityBytes;
    QList<QList<qreal>> values(m_stageSets.size());
    for (const StageMemory &s : memory.stages) {
        const QList<qreal> parts = stageComponents(s, moe);
        for (qsizetype k = 0; k < parts.size(); ++k)
            values[k] << parts[k] / GiB;
        highest = std::max(highest, s.peakBytes);
    }
    if (baseline)
        highest = std::max(highest, m_document->baselineEstimate().memory.peakBytes);
    // Whole-set updates: one change signal per set instead of one per bar.
    for (qsizetype k = 0; k < m_stageSets.size(); ++k) {
        QBarSet *set = m_stageSets[k];
        set->remove(0, set->count());
        set->append(values[k]);
    }
    setStageAxis(highest / GiB);
    m_capacity->replace(0, -0.5, memory.capacityBytes / GiB);
    m_capacity->replace(1, double(memory.stages.size()) - 0.5, memory.capacityBytes / GiB);
    m_capacity->setPen(
        QPen(memory.fits ? palette().color(QPalette::WindowText) : chartstyle::warning(palette()), 2, Qt::DashLine));
    setStageTitle();
    updateOverlay();
    return true;
}

void MemoryChartView::setStageTitle()
{
    const MemoryEstimate &memory = m_document->estimate().memory;
    const StageMemory &peak = memory.stages[std::size_t(memory.peakStage)];
    const MemoryPressure pressure = memoryPressure(memory);
    // The memory band on the peak (issue 37), and where its upper edge passes the device (issue 36).
    const Accuracy &accuracy = detailsOf(m_document->estimate()).accuracy;
    const QString band = accuracy.memoryComparableRuns > 0
                             ? tr(" \u00b1%1%").arg(fmt::number(100 * accuracy.memoryBand80, 0))
                             : QString();
    QString note;
    if (memory.tight)
        note = tr(", tight: %1 +%2% would not fit")
                   .arg(QLatin1String(pressure.label), fmt::number(100 * pressure.growthToOverflow, 0));
    else if (mayNotFit(memory, accuracy))
        note = tr(", uncertain: up to %1 at the band's edge")
                   .arg(fmt::gib(memoryPeakUpperBytes(peak.peakBytes, accuracy), 1));
    QString title = memory.fits ? tr("Memory per GPU: peak %1%2 of %3 (stage %4%5; allocated %6, reserved %7)")
                                      .arg(fmt::gib(peak.peakBytes, 1), band, fmt::gib(memory.capacityBytes, 0))
                                      .arg(peak.stage)
                                      .arg(note, fmt::gib(peak.allocatedBytes, 1), fmt::gib(peak.reservedBytes, 1))
                                : tr("Memory per GPU: stage %1 is %2 over its %3 (hatched)")
                                      .arg(peak.stage)
                                      .arg(fmt::gib(-memory.headroomBytes(), 1), fmt::gib(memory.capacityBytes, 0));
    if (m_document->hasBaseline() && m_document->baselineEstimate().valid)
        title += tr("; baseline peak %1 (dashed)").arg(fmt::gib(m_document->baselineEstimate().memory.peakBytes, 1));
    setTitleFitted(title, width());
}

namespace {

/// The stage axis says what is behind the bars: what each GPU holds of a sequence under context
/// parallelism, and that the parameters include the FP8/FP4 weight copies.
QString stageAxisTitle(const Plan &plan)
{
    QStringList notes;
    if (plan.parallel.context > 1)
        notes << MemoryChartView::tr("context %1: 1/%1 of each sequence").arg(plan.parallel.context);
    if (isLowPrecisionMatmul(plan.training.precision))
        notes
            << MemoryChartView::tr("params incl. %1 copies").arg(QString::fromLatin1(labelOf(plan.training.precision)));
    return notes.isEmpty() ? MemoryChartView::tr("Pipeline stage")
                           : MemoryChartView::tr("Pipeline stage (%1)").arg(notes.join(QStringLiteral("; ")));
}

} // namespace


void MemoryChartView::drawStages()
{
    const MemoryEstimate &memory = m_document->estimate().memory;
    QChart *c = chart();
    auto *series = new QStackedBarSeries;
    const bool moe = m_document->plan().model.isMoe();
    QList<QBarSet *> sets;
    const QList<std::pair<QString, int>> components = stageComponentNames(moe);
    for (const auto &[name, colour] : components) {
        auto *set = new QBarSet(name);
        set->setColor(chartstyle::series(colour, palette()));
        set->setBorderColor(Qt::transparent);
        sets << set;
    }
    // Device extras (context, NCCL, libraries) live outside the allocator: hatched over a light fill.
    sets.back()->setBrush(QBrush(chartstyle::series(7, palette()), Qt::BDiagPattern));
    sets.back()->setBorderColor(chartstyle::series(7, palette()));

    double highest = memory.capacityBytes;
    constexpr double GiB = units::GiB;
    for (const StageMemory &s : memory.stages) {
        const QList<qreal> parts = stageComponents(s, moe);
        for (qsizetype k = 0; k < parts.size(); ++k)
            *sets[k] << parts[k] / GiB;
        highest = std::max(highest, s.peakBytes);
    }
    const bool baseline = m_document->hasBaseline() && m_document->baselineEstimate().valid;
    double stages = double(memory.stages.size());
    if (baseline) {
        for (const StageMemory &s : m_document->baselineEstimate().memory.stages)
            highest = std::max(highest, s.peakBytes);
        stages = std::max(stages, double(m_document->baselineEstimate().memory.stages.size()));
    }
    for (QBarSet *set : sets)
        series->append(set);
    series->setBarWidth(memory.stages.size() > 32 ? 0.95 : 0.7);
    c->addSeries(series);

    // A value axis with a few ticks, not a category axis: Qt Charts re-lays out every category label
    // (as rich text) on each change, which cost most of an edit's redraw on 64-stage plans.
    auto *x = new QValueAxis;
    const double n = stages;
    x->setRange(-0.5, n - 0.5);
    x->setTickType(QValueAxis::TicksDynamic);
    x->setTickAnchor(0);
    x->setTickInterval(std::max(1.0, std::ceil(n / 8.0)));
    x->setLabelFormat(QStringLiteral("%.0f"));
    x->setMinorTickCount(0);
    x->setGridLineVisible(false);
    x->setTitleText(stageAxisTitle(m_document->plan()));
    auto *y = new QValueAxis;
    y->setTitleText(tr("GiB per GPU"));
    c->addAxis(x, Qt::AlignBottom);
    c->addAxis(y, Qt::AlignLeft);
    series->attachAxis(x);
    series->attachAxis(y);

    auto *capacity = new QLineSeries;
    capacity->setName(tr("Capacity"));
    capacity->setProperty(kLegendOptional, true); // the title gives it
    capacity->append(-0.5, memory.capacityBytes / GiB);
    capacity->append(double(memory.stages.size()) - 0.5, memory.capacityBytes / GiB);
    capacity->setPen(
        QPen(memory.fits ? palette().windowText().color() : chartstyle::warning(palette()), 2, Qt::DashLine));
    c->addSeries(capacity);
    capacity->attachAxis(x);
    capacity->attachAxis(y);

    connectStageHover(series);
    m_stageSeries = series;
    m_stageSets = sets;
    m_capacity = capacity;
    m_stageAxisY = y;
    m_stageDark = chartstyle::isDark(palette());
    setStageAxis(highest / GiB);
    addOverlayLegend(x, y, memory.fits, baseline);
    setStageTitle();
    updateOverlay();
    setToolTip(QString());
}

void MemoryChartView::connectStageHover(QStackedBarSeries *series)
{
    connect(series, &QStackedBarSeries::hovered, this, [this](bool on, int index, QBarSet *) {
        if (on)
            QToolTip::showText(QCursor::pos(), stageTooltip(index), this);
        else
            QToolTip::hideText();
    });
}

QString MemoryChartView::stageTooltip(int index) const
{
    const MemoryEstimate &memory = m_document->estimate().memory;
    if (index < 0 || std::size_t(index) >= memory.stages.size())
        return {};
    const StageMemory &s = memory.stages[std::size_t(index)];
    QString html = tr("<b>Stage %1</b> at its %2 peak<table>")
                       .arg(s.stage)
                       .arg(QString::fromLatin1(labelOf(s.peakPhase)).toLower());
    const auto row = [&](const QString &label, double bytes, bool bold = false) {
        if (bytes <= 0 && !bold)
            return;
        const QString value = fmt::gib(bytes, 2);
        html += bold ? QStringLiteral("<tr><td><b>%1</b></td><td align=right><b>%2</b></td></tr>")
                           .arg(label.toHtmlEscaped(), value)
                     : QStringLiteral("<tr><td>&nbsp;&nbsp;%1</td><td align=right>%2</td></tr>")
                           .arg(label.toHtmlEscaped(), value);
    };
    for (const StateTerm t :
         {StateTerm::Parameters, StateTerm::Gradients, StateTerm::Optimizer, StateTerm::Activations})
        row(QLatin1String(termInfo(t).label),
            t == StateTerm::Parameters ? s.parametersBytes : t == StateTerm::Gradients ? s.gradientsBytes
                                                         : t == StateTerm::Optimizer   ? s.optimizerBytes
                                                                                       : s.activationsBytes);
    const double peaks[] = {s.allocatedBytes, s.reservedBytes, s.deviceBytes};
    for (const MemoryKind kind : {MemoryKind::Allocated, MemoryKind::Reserved, MemoryKind::Device}) {
        for (std::size_t i = 0; i < kOtherTermCount; ++i)
            if (kindOf(OtherTerm(i)) == kind)
                row(QLatin1String(termInfo(OtherTerm(i)).label), s.other[i]);
        row(tr("%1 peak").arg(QLatin1String(labelOf(kind))), peaks[int(kind)], true);
    }
    html += QStringLiteral("</table>");
    html += tr("of %1 capacity. Allocated is what torch.cuda.max_memory_allocated reports, reserved "
               "max_memory_reserved, device used nvidia-smi.").arg(fmt::gib(s.capacityBytes, 0));
    return html;
}

void MemoryChartView::addOverlayLegend(QValueAxis *x, QValueAxis *y, bool fits, bool baseline)
{
    QChart *c = chart();
    // Legend entries for the overlay: the hatch only when a stage is over capacity, the outline only with
    // a baseline.
    if (!fits) {
        auto *hatch = new QLineSeries;
        hatch->setName(tr("Over capacity"));
        hatch->setProperty(kLegendOptional, true); // the title says "(hatched)"
        hatch->setPen(QPen(chartstyle::warning(palette()), 2));
        c->addSeries(hatch);
        hatch->attachAxis(x);
        hatch->attachAxis(y);
        if (QLegendMarker *marker = c->legend()->markers(hatch).value(0))
            marker->setBrush(QBrush(chartstyle::warning(palette()), Qt::BDiagPattern));
    }
    if (baseline) {
        auto *outline = new QLineSeries;
        outline->setName(tr("Baseline peak"));
        outline->setProperty(kLegendOptional, true); // the title gives it
        outline->setPen(QPen(palette().color(QPalette::WindowText), 1.5, Qt::DashLine));
        c->addSeries(outline);
        outline->attachAxis(x);
        outline->attachAxis(y);
    }
}

void MemoryChartView::drawZeroComparison()
{
    // Reference text Figure 16.2: persistent model state per worker for P parameters over W data-parallel
    // workers, replicated and with ZeRO stages 1-3 (16-bit parameters and gradients, FP32 master and moments).
    const Plan &plan = m_document->plan();
    const Estimate &e = m_document->estimate();
    const double P = e.model.parameters;
    const QStringList labels{tr("Params"), tr("Grads"), tr("FP32 master"), tr("Moments")};
    QList<QBarSet *> sets;
    for (int i = 0; i < 4; ++i) {
        auto *set = new QBarSet(labels[i]);
        set->setColor(chartstyle::series(i, palette()));
        set->setBorderColor(Qt::transparent);
        sets << set;
    }
    double highest = 0;
    for (const ModelStateBytes &state : detailsOf(e).zeroComparison) {
        const double parts[] = {state.parameters, state.gradients, state.master, state.moments()};
        for (int i = 0; i < 4; ++i)
            *sets[i] << parts[i] / units::GiB;
        highest = std::max(highest, state.total() / units::GiB);
    }
    auto *series = new QStackedBarSeries;
    for (QBarSet *set : sets)
        series->append(set);
    series->setLabelsVisible(false);
    QChart *c = chart();
    c->addSeries(series);
    auto *x = new QBarCategoryAxis;
    x->append({tr("replicated"), tr("ZeRO-1"), tr("ZeRO-2"), tr("ZeRO-3")});
    auto *y = new QValueAxis;
    y->setTitleText(tr("GiB per worker"));
    c->addAxis(x, Qt::AlignBottom);
    c->addAxis(y, Qt::AlignLeft);
    series->attachAxis(x);
    series->attachAxis(y);
    m_stageAxisY = y;
    setStageAxis(highest);
    m_stageAxisY = nullptr;
    setTitleFitted(tr("Model state per worker: %1 parameters, %2 workers (Fig. 16.2)")
                       .arg(QString::fromStdString(units::formatCount(P, 1)))
                       .arg(plan.parallel.data),
                   width());
    setToolTip(tr("M_state = P (q_p + q_g + q_o); ZeRO stage 1 divides the optimizer term by W, stage 2 also the "
                  "gradients, stage 3 also the parameters (Rajbhandari et al. 2020)"));
}

QString MemoryChartView::exportCsv() const
{
    return io::memoryCsv(m_document->estimate());
}

void MemoryChartView::renderChart(QPainter *painter, const QRectF &target, const QSizeF &logicalSize)
{
    if (m_stale)
        redraw();
    setTitleFitted(m_title, logicalSize.width());
    renderChartView(this, painter, target, logicalSize);
    setTitleFitted(m_title, width());
}

} // namespace trainplan
