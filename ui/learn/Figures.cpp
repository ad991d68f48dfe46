#include "ui/learn/Figures.h"

#include <QEvent>
#include <QPainter>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include "charts/ChartExport.h"

namespace trainplan {

PaintedFigure::PaintedFigure(QString name, QWidget *parent) : QWidget(parent), m_name(std::move(name))
{
    setMinimumSize(400, 240);
    installChartExportActions(this, this);
}

void PaintedFigure::renderChart(QPainter *painter, const QRectF &target, const QSizeF &logicalSize)
{
    painter->save();
    painter->translate(target.topLeft());
    painter->scale(target.width() / logicalSize.width(), target.height() / logicalSize.height());
    painter->setRenderHint(QPainter::Antialiasing);
    painter->fillRect(QRectF(QPointF(0, 0), logicalSize), palette().color(QPalette::Base));
    paintFigure(*painter, logicalSize);
    painter->restore();
}

void PaintedFigure::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.fillRect(rect(), palette().color(QPalette::Base));
    paintFigure(painter, size());
}

PlotFigure::PlotFigure(QString name, std::function<QString()> csv, QWidget *parent)
    : QWidget(parent), m_name(std::move(name)), m_csv(std::move(csv)), m_plot(new QCustomPlot(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    setMinimumSize(400, 260);
    installChartExportActions(this, m_plot);
}

QCPAxisRect *PlotFigure::setSecondPanel(bool on)
{
    QCPLayoutGrid *grid = m_plot->plotLayout();
    QCPAxisRect *second = m_plot->axisRectCount() > 1 ? m_plot->axisRect(1) : nullptr;
    if (on && !second) {
        second = new QCPAxisRect(m_plot);
        grid->addElement(0, 1, second);
        applyFonts();
    } else if (!on && second) {
        for (QCPAbstractPlottable *p : second->plottables())
            m_plot->removePlottable(p);
        grid->remove(second); // deletes it
        grid->simplify();
        second = nullptr;
    }
    return second;
}

void PlotFigure::applyFonts()
{
    QFont small = font();
    small.setPointSizeF(font().pointSizeF() * 0.9);
    for (QCPAxisRect *rect : m_plot->axisRects())
        for (QCPAxis *axis : rect->axes()) {
            axis->setTickLabelFont(small);
            axis->setLabelFont(font());
        }
    m_plot->legend->setFont(small);
}

void PlotFigure::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() != QEvent::FontChange)
        return;
    applyFonts();
    m_plot->replot();
}

void PlotFigure::renderChart(QPainter *painter, const QRectF &target, const QSizeF &logicalSize)
{
    renderPlot(m_plot, painter, target, logicalSize);
}

} // namespace trainplan
