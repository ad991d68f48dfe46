#include "ui/charts/PlotView.h"

#include <QEvent>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include "ui/charts/ChartExport.h"
#include "ui/charts/ChartStyle.h"
#include "ui/document/PlanDocument.h"

namespace trainplan {

PlotView::PlotView(PlanDocument *document, QWidget *parent)
    : QWidget(parent), m_document(document), m_plot(new QCustomPlot(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    setMinimumSize(320, 200);
    m_plot->plotLayout()->insertRow(0);
    QFont titleFont = font();
    titleFont.setPointSizeF(titleFont.pointSizeF() + 1);
    titleFont.setBold(true);
    m_title = new QCPTextElement(m_plot, QString(), titleFont);
    m_plot->plotLayout()->addElement(0, 0, m_title);
    m_plot->legend->setFont(smallFont());
    m_plot->legend->setRowSpacing(-2);
    installChartExportActions(this, m_plot);
}

void PlotView::renderChart(QPainter *painter, const QRectF &target, const QSizeF &logicalSize)
{
    fitTitle(logicalSize.width());
    renderPlot(m_plot, painter, target, logicalSize);
    fitTitle(m_plot->width());
}

void PlotView::fitTitle(double width)
{
    // Word-wrapped to the chart's width (at most three lines): a title never leaves the chart.
    const QFontMetricsF metrics(m_title->font());
    const double room = std::max(40.0, width - 12.0);
    QStringList lines;
    QString line;
    for (const QString &word : m_fullTitle.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        const QString candidate = line.isEmpty() ? word : line + QLatin1Char(' ') + word;
        if (!line.isEmpty() && metrics.horizontalAdvance(candidate) > room) {
            lines << line;
            line = word;
        } else {
            line = candidate;
        }
    }
    if (!line.isEmpty())
        lines << line;
    if (lines.size() > 3) {
        const QString rest = lines.mid(2).join(QLatin1Char(' '));
        lines = lines.mid(0, 2);
        lines << metrics.elidedText(rest, Qt::ElideRight, room);
    }
    const QString text = lines.join(QLatin1Char('\n'));
    if (text != m_title->text())
        m_title->setText(text);
}

void PlotView::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    fitTitle(width());
}

void PlotView::startFollowingDocument()
{
    connect(m_document, &PlanDocument::planChanged, this, &PlotView::refresh);
    refresh();
}

void PlotView::setTitle(const QString &text)
{
    m_fullTitle = text;
    fitTitle(width());
}

QString PlotView::title() const
{
    return m_fullTitle;
}

QFont PlotView::smallFont() const
{
    QFont f = font();
    f.setPointSizeF(std::max(7.0, f.pointSizeF() - 1.5));
    return f;
}

void PlotView::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        refresh();
}

void PlotView::refresh()
{
    chartstyle::apply(m_plot, palette());
    m_title->setTextColor(palette().color(QPalette::WindowText));
    draw();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace trainplan
