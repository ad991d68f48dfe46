#include "ui/charts/PipelineGanttView.h"

#include <qcustomplot.h>

#include "ui/charts/ChartStyle.h"
#include "io/ChartCsv.h"
#include "ui/document/PlanDocument.h"

namespace trainplan {

/// Draws a PipelineTimeline: one row per stage (key axis = time, value axis = stage).
class GanttPlottable : public QCPAbstractPlottable
{
public:
    GanttPlottable(QCPAxis *keyAxis, QCPAxis *valueAxis) : QCPAbstractPlottable(keyAxis, valueAxis) {}

    void setTimeline(const PipelineTimeline &timeline, const QColor colours[3], const QColor &text)
    {
        m_timeline = timeline;
        for (int i = 0; i < 3; ++i)
            m_colours[i] = colours[i];
        m_text = text;
    }
    std::size_t opCount() const { return m_timeline.ops.size(); }

    double selectTest(const QPointF &, bool, QVariant * = nullptr) const override { return -1; }
    QCPRange getKeyRange(bool &found, QCP::SignDomain = QCP::sdBoth) const override
    {
        found = m_timeline.valid && !m_timeline.ops.empty();
        return QCPRange(0, found ? m_timeline.makespan : 1);
    }
    QCPRange getValueRange(bool &found, QCP::SignDomain = QCP::sdBoth, const QCPRange & = QCPRange()) const override
    {
        found = m_timeline.valid;
        return QCPRange(-0.5, double(m_timeline.stageBegin.empty() ? 1 : m_timeline.stageBegin.size() - 1) - 0.5);
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
        const double scale = visible.size() > 0 ? (x1 - x0) / visible.size() : 0.0;
        const auto pixel = [&](double t) { return x0 + (t - visible.lower) * scale; };
        const bool labels = m_timeline.ops.size() <= 4000;
        QFont small = painter->font();
        small.setPointSizeF(std::max(6.0, small.pointSizeF() - 2));
        painter->setFont(small);
        painter->setPen(Qt::NoPen);
        for (std::size_t s = 0; s + 1 < m_timeline.stageBegin.size(); ++s) {
            QCPAxis *valueAxis = mValueAxis.data();
            const double top = valueAxis->coordToPixel(double(s) - 0.38);
            const double bottom = valueAxis->coordToPixel(double(s) + 0.38);
            // Ops narrower than a few pixels merge into one rectangle per busy stretch, coloured by the
            // time share of each kind in it: 10^5 ops draw as a few hundred rectangles.
            bool inRun = false;
            double runLeft = 0, runRight = 0, runShare[3] = {0, 0, 0};
            const auto flush = [&] {
                if (!inRun)
                    return;
                const double total = runShare[0] + runShare[1] + runShare[2];
                double rgb[3] = {0, 0, 0};
                for (int k = 0; k < 3; ++k) {
                    const double w = total > 0 ? runShare[k] / total : 1.0 / 3.0;
                    rgb[0] += w * m_colours[k].redF();
                    rgb[1] += w * m_colours[k].greenF();
                    rgb[2] += w * m_colours[k].blueF();
                }
                painter->fillRect(QRectF(QPointF(runLeft, top), QPointF(std::max(runRight, runLeft + 1.0), bottom)),
                                  QColor::fromRgbF(float(rgb[0]), float(rgb[1]), float(rgb[2])));
                inRun = false;
                runShare[0] = runShare[1] = runShare[2] = 0;
            };
            for (std::size_t i = m_timeline.stageBegin[s]; i < m_timeline.stageBegin[s + 1]; ++i) {
                const PipelineOp &op = m_timeline.ops[i];
                if (op.end < visible.lower || op.start > visible.upper)
                    continue;
                const int kind = op.kind == PipelineOpKind::Forward ? 0 : op.kind == PipelineOpKind::BackwardWeight ? 2 : 1;
                const double left = pixel(op.start);
                const double right = pixel(op.end);
                if (inRun && left - runRight < 1.0 && right - left < 3.0) {
                    runRight = right;
                    runShare[kind] += op.end - op.start;
                    continue;
                }
                flush();
                if (right - left >= 3.0) {
                    // Wide enough to see: its own block with a thin gap, and the micro-batch number if it fits.
                    const QRectF rect(QPointF(left, top), QPointF(right - 0.5, bottom));
                    painter->fillRect(rect, m_colours[kind]);
                    if (labels && rect.width() > 16) {
                        painter->setPen(m_text);
                        painter->drawText(rect, Qt::AlignCenter, QString::number(op.microbatch));
                        painter->setPen(Qt::NoPen);
                    }
                } else {
                    inRun = true;
                    runLeft = left;
                    runRight = right;
                    runShare[kind] = op.end - op.start;
                }
            }
            flush();
        }
    }

    void drawLegendIcon(QCPPainter *painter, const QRectF &rect) const override
    {
        const double third = rect.width() / 3.0;
        for (int i = 0; i < 3; ++i)
            painter->fillRect(QRectF(rect.left() + i * third, rect.top(), third, rect.height()), m_colours[i]);
    }

private:
    PipelineTimeline m_timeline;
    QColor m_colours[3];
    QColor m_text;
};

PipelineGanttView::PipelineGanttView(PlanDocument *document, QWidget *parent)
    : PlotView(document, parent)
{
    m_gantt = new GanttPlottable(m_plot->xAxis, m_plot->yAxis);
    m_gantt->setName(tr("forward / backward / weight gradient"));
    m_plot->xAxis->setLabel(tr("Time in the step (s)"));
    m_plot->yAxis->setLabel(tr("Pipeline stage"));
    m_plot->yAxis->setRangeReversed(true);
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    m_plot->axisRect()->setRangeDrag(Qt::Horizontal);
    m_plot->axisRect()->setRangeZoom(Qt::Horizontal);
    // Legend: one swatch per op kind (graphs without data).
    const QString kinds[] = {tr("forward"), tr("backward"), tr("weight gradient")};
    for (int i = 0; i < 3; ++i) {
        QCPGraph *swatch = m_plot->addGraph();
        swatch->setName(kinds[i]);
        swatch->setLineStyle(QCPGraph::lsNone);
        swatch->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssSquare, 9));
    }
    m_gantt->removeFromLegend();
    m_plot->legend->setVisible(true);
    m_plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    m_plot->legend->setWrap(3);
    // The legend gets its own row under the title, so it never covers a stage.
    m_plot->plotLayout()->insertRow(1);
    m_plot->plotLayout()->addElement(1, 0, m_plot->legend);
    m_plot->legend->setMargins(QMargins(4, 0, 4, 0));
    m_plot->legend->setBorderPen(Qt::NoPen);
    m_plot->plotLayout()->setRowStretchFactor(1, 0.001);
    startFollowingDocument();
}

std::size_t PipelineGanttView::opCount() const
{
    return m_gantt->opCount();
}

void PipelineGanttView::draw()
{
    const Estimate &e = m_document->estimate();
    const QColor colours[3] = {chartstyle::series(0, palette()), chartstyle::series(1, palette()), chartstyle::series(2, palette())};
    m_gantt->setTimeline(e.valid ? e.step.pipeline : PipelineTimeline{}, colours, QColor(Qt::white));
    for (int i = 0; i < 3 && i < m_plot->graphCount(); ++i) {
        QCPScatterStyle style = m_plot->graph(i)->scatterStyle();
        style.setPen(QPen(colours[i]));
        style.setBrush(colours[i]);
        m_plot->graph(i)->setScatterStyle(style);
    }
    if (!e.valid) {
        setTitle(tr("Pipeline: the plan has errors"));
    } else if (!e.step.pipeline.valid) {
        setTitle(tr("Pipeline: one stage, no schedule to draw (set pipeline stages above 1)"));
    } else {
        const Plan &plan = m_document->plan();
        const PipelineTimeline &tl = e.step.pipeline;
        setTitle(tr("Pipeline %1: %2 x %3 micro-batches, idle %4%")
                           .arg(QString::fromLatin1(toString(plan.parallel.schedule)).toUpper())
                           .arg(plan.parallel.pipeline)
                           .arg(plan.microbatches())
                           .arg(100.0 * tl.bubbleFraction, 0, 'f', 1));
        const std::size_t stages = tl.stageBegin.size() - 1;
        if (stages <= 16) {
            QSharedPointer<QCPAxisTickerFixed> ticker(new QCPAxisTickerFixed);
            ticker->setTickStep(1.0);
            ticker->setScaleStrategy(QCPAxisTickerFixed::ssNone);
            m_plot->yAxis->setTicker(ticker);
        } else {
            m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
        }
        m_plot->yAxis->setNumberFormat(QStringLiteral("f"));
        m_plot->yAxis->setNumberPrecision(0);
        m_plot->yAxis->setRange(-0.6, double(stages) - 0.4);
        m_plot->xAxis->setRange(0, tl.makespan * 1.01);
    }
}

QString PipelineGanttView::exportCsv() const
{
    return io::pipelineCsv(m_document->estimate());
}

} // namespace trainplan
