#include "ui/charts/MemoryChartView.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QCoreApplication>
#include <QEvent>
#include <QGraphicsLayout>
#include <QLegendMarker>
#include <QLineSeries>
#include <QStackedBarSeries>
#include <QValueAxis>

#include <qcustomplot.h>

#include <cmath>

#include "ui/charts/ChartStyle.h"
#include "core/common/Units.h"
#include "io/ChartCsv.h"
#include "ui/charts/ChartExport.h"
#include "ui/document/PlanDocument.h"
#include "core/memory/MemoryTerms.h"

namespace trainplan {

namespace {

/// A tidy upper bound for a GiB axis: 1, 2 or 5 x 10^k above the largest value.
double niceCeiling(double value)
{
    if (!(value > 0) || !std::isfinite(value))
        return 1.0;
    const double magnitude = std::pow(10.0, std::floor(std::log10(value)));
    for (double step : {1.0, 2.0, 2.5, 5.0, 10.0})
        if (step * magnitude >= value)
            return step * magnitude;
    return 10.0 * magnitude;
}

} // namespace

MemoryChartView::MemoryChartView(PlanDocument *document, QWidget *parent)
    : QChartView(parent), m_document(document)
{
    setRenderHint(QPainter::Antialiasing);
    setMinimumSize(320, 200);
    chart()->legend()->setAlignment(Qt::AlignBottom);
    chart()->setTheme(QChart::ChartThemeBlueIcy); // any theme but the two refresh() picks: it sets fonts once
    chart()->setMargins(QMargins(4, 4, 4, 4));
    connect(m_document, &PlanDocument::planChanged, this, &MemoryChartView::refresh);
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
    if (!m_zeroComparison && m_document->estimate().valid && updateStagesInPlace())
        return;
    QChart *c = chart();
    m_stageSeries = nullptr;
    m_stageSets.clear();
    m_capacity = nullptr;
    m_stageAxisY = nullptr;
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
    c->setBackgroundBrush(palette().color(QPalette::Base));
    c->setTitleBrush(palette().color(QPalette::WindowText));
    if (!m_document->estimate().valid) {
        c->setTitle(tr("Memory: the plan has errors (see the editor)"));
        return;
    }
    if (m_zeroComparison)
        drawZeroComparison();
    else
        drawStages();
    c->legend()->setLabelColor(palette().color(QPalette::WindowText));
}

bool MemoryChartView::updateStagesInPlace()
{
    const MemoryEstimate &memory = m_document->estimate().memory;
    if (!m_stageSeries || m_stageSets.size() != 5 || m_stageDark != chartstyle::isDark(palette())
        || m_stageSets.front()->count() != int(memory.stages.size()))
        return false;
    constexpr double GiB = units::GiB;
    double highest = memory.capacityBytes;
    QList<qreal> values[5];
    QList<int> over;
    for (const StageMemory &s : memory.stages) {
        values[0] << s.parametersBytes / GiB;
        values[1] << s.gradientsBytes / GiB;
        values[2] << s.optimizerBytes / GiB;
        values[3] << s.activationsBytes / GiB;
        values[4] << s.otherBytes / GiB;
        highest = std::max(highest, s.peakBytes);
        if (s.peakBytes > memory.capacityBytes)
            over << int(s.stage);
    }
    // Whole-set updates: one change signal per set instead of one per bar.
    for (int k = 0; k < 5; ++k) {
        QBarSet *set = m_stageSets[k];
        set->remove(0, set->count());
        set->append(values[k]);
        set->deselectAllBars();
        set->selectBars(over);
    }
    m_stageAxisY->setRange(0, niceCeiling(highest / GiB * 1.05));
    m_capacity->replace(0, -0.5, memory.capacityBytes / GiB);
    m_capacity->replace(1, double(memory.stages.size()) - 0.5, memory.capacityBytes / GiB);
    m_capacity->setPen(QPen(memory.fits ? palette().color(QPalette::WindowText) : chartstyle::warning(palette()), 2, Qt::DashLine));
    setStageTitle();
    return true;
}

void MemoryChartView::setStageTitle()
{
    const MemoryEstimate &memory = m_document->estimate().memory;
    const StageMemory &peak = memory.stages[std::size_t(memory.peakStage)];
    chart()->setTitle(memory.fits ? tr("Memory per GPU: peak %1 (stage %2)")
                                        .arg(QString::fromStdString(units::formatBytes(peak.peakBytes, units::ByteUnit::GiB, 1)))
                                        .arg(peak.stage)
                                  : tr("Memory per GPU: stage %1 is %2 over")
                                        .arg(peak.stage)
                                        .arg(QString::fromStdString(units::formatBytes(-memory.headroomBytes(), units::ByteUnit::GiB, 1))));
}

void MemoryChartView::drawStages()
{
    const MemoryEstimate &memory = m_document->estimate().memory;
    QChart *c = chart();
    auto *series = new QStackedBarSeries;
    const QString names[] = {tr("Params"), tr("Grads"), tr("Optimizer"), tr("Activations")};
    QList<QBarSet *> sets;
    for (int i = 0; i < 4; ++i) {
        auto *set = new QBarSet(names[i]);
        set->setColor(chartstyle::series(i, palette()));
        set->setBorderColor(Qt::transparent);
        sets << set;
    }
    auto *other = new QBarSet(tr("Other"));
    other->setColor(chartstyle::series(7, palette()));
    other->setBorderColor(Qt::transparent);
    sets << other;

    double highest = memory.capacityBytes;
    constexpr double GiB = units::GiB;
    for (const StageMemory &s : memory.stages) {
        *sets[0] << s.parametersBytes / GiB;
        *sets[1] << s.gradientsBytes / GiB;
        *sets[2] << s.optimizerBytes / GiB;
        *sets[3] << s.activationsBytes / GiB;
        *sets[4] << s.otherBytes / GiB;
        const bool over = s.peakBytes > memory.capacityBytes; // drawn in the warning colour
        highest = std::max(highest, s.peakBytes);
        if (over)
            for (QBarSet *set : sets) {
                set->setSelectedColor(chartstyle::warning(palette()));
                set->selectBar(int(s.stage));
            }
    }
    for (QBarSet *set : sets)
        series->append(set);
    series->setBarWidth(memory.stages.size() > 32 ? 0.95 : 0.7);
    c->addSeries(series);

    // A value axis with a few ticks, not a category axis: Qt Charts re-lays out every category label
    // (as rich text) on each change, which cost most of an edit's redraw on 64-stage plans.
    auto *x = new QValueAxis;
    const double n = double(memory.stages.size());
    x->setRange(-0.5, n - 0.5);
    x->setTickType(QValueAxis::TicksDynamic);
    x->setTickAnchor(0);
    x->setTickInterval(std::max(1.0, std::ceil(n / 8.0)));
    x->setLabelFormat(QStringLiteral("%.0f"));
    x->setMinorTickCount(0);
    x->setGridLineVisible(false);
    x->setTitleText(tr("Pipeline stage"));
    auto *y = new QValueAxis;
    y->setRange(0, niceCeiling(highest / GiB * 1.05));
    y->setLabelFormat(QStringLiteral("%.0f"));
    y->setTitleText(tr("GiB per GPU"));
    c->addAxis(x, Qt::AlignBottom);
    c->addAxis(y, Qt::AlignLeft);
    series->attachAxis(x);
    series->attachAxis(y);

    auto *capacity = new QLineSeries;
    capacity->setName(tr("Capacity"));
    capacity->append(-0.5, memory.capacityBytes / GiB);
    capacity->append(double(memory.stages.size()) - 0.5, memory.capacityBytes / GiB);
    capacity->setPen(QPen(memory.fits ? palette().color(QPalette::WindowText) : chartstyle::warning(palette()), 2, Qt::DashLine));
    c->addSeries(capacity);
    capacity->attachAxis(x);
    capacity->attachAxis(y);

    m_stageSeries = series;
    m_stageSets = sets;
    m_capacity = capacity;
    m_stageAxisY = y;
    m_stageDark = chartstyle::isDark(palette());
    setStageTitle();
    setToolTip(tr("Stacked per component at each stage's peak; the formulas: %1; %2")
                   .arg(QLatin1String(termInfo(StateTerm::Activations).formula), QLatin1String(termInfo(StateTerm::Optimizer).formula)));
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
    for (const ModelStateBytes &state : e.zeroComparison) {
        const double parts[] = {state.parameters, state.gradients, state.master, state.moments()};
        for (int i = 0; i < 4; ++i)
            *sets[i] << parts[i] / units::GB;
        highest = std::max(highest, state.total() / units::GB);
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
    y->setRange(0, niceCeiling(highest * 1.1));
    y->setTitleText(tr("GB per worker"));
    y->setLabelFormat(QStringLiteral("%.0f"));
    c->addAxis(x, Qt::AlignBottom);
    c->addAxis(y, Qt::AlignLeft);
    series->attachAxis(x);
    series->attachAxis(y);
    c->setTitle(tr("Model state per worker: %1 parameters, %2 workers (Fig. 16.2)")
                    .arg(QString::fromStdString(units::formatCount(P, 1)))
                    .arg(plan.parallel.data));
    setToolTip(tr("M_state = P (q_p + q_g + q_o); ZeRO stage 1 divides the optimizer term by W, stage 2 also the "
                  "gradients, stage 3 also the parameters (Rajbhandari et al. 2020)"));
}

QString MemoryChartView::exportCsv() const
{
    return io::memoryCsv(m_document->estimate());
}

void MemoryChartView::renderChart(QPainter *painter, const QRectF &target, const QSizeF &logicalSize)
{
    // Lay the chart out at the export size, draw it, then give it back to the view.
    QChart *c = chart();
    const QSizeF oldSize = c->size();
    const QRectF oldScene = scene()->sceneRect();
    const QRectF logical(QPointF(0, 0), logicalSize);
    c->resize(logicalSize);
    scene()->setSceneRect(logical);
    if (c->layout())
        c->layout()->activate();
    QCoreApplication::sendPostedEvents(c, QEvent::LayoutRequest);
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing);
    painter->fillRect(target, c->backgroundBrush());
    scene()->render(painter, target, logical, Qt::IgnoreAspectRatio);
    painter->restore();
    c->resize(oldSize);
    scene()->setSceneRect(oldScene);
    if (c->layout())
        c->layout()->activate();
}

} // namespace trainplan
