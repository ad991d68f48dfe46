#include "charts/PlotView.h"

#include <QEvent>
#include <QHelpEvent>
#include <QToolTip>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include <algorithm>
#include <vector>

#include "io/output/Format.h"
#include "charts/ChartExport.h"
#include "charts/ChartStyle.h"
#include "charts/ChartSource.h"

namespace trainplan {

PlotView::PlotView(ChartSource *document, QWidget *parent)
    : QWidget(parent), m_document(document), m_plot(new QCustomPlot(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    setMinimumSize(320, 200);
    m_plot->plotLayout()->insertRow(0);
    m_title = new QCPTextElement(m_plot, QString(), chartstyle::titleFont(font()));
    m_plot->plotLayout()->addElement(0, 0, m_title);
    m_plot->legend->setFont(smallFont());
    m_plot->legend->setRowSpacing(-2);
    installChartExportActions(this, m_plot);
}

void PlotView::renderChart(QPainter *painter, const QRectF &target, const QSizeF &logicalSize)
{
    if (m_stale)
        redraw();
    fitTitle(logicalSize.width());
    fitLegend(logicalSize.width());
    renderPlot(m_plot, painter, target, logicalSize);
    fitTitle(m_plot->width());
    fitLegend(m_plot->width());
}

void PlotView::fitTitle(double width)
{
    // Word-wrapped to the chart's width: a title never leaves the chart.
    const QString text = chartstyle::wrapTitle(m_fullTitle, m_title->font(), width).join(QLatin1Char('\n'));
    if (text != m_title->text())
        m_title->setText(text);
}

void PlotView::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    fitTitle(width());
    fitLegend(width());
}

void PlotView::startFollowingDocument()
{
    connect(m_document, &ChartSource::planChanged, this, &PlotView::refresh);
    connect(m_document, &ChartSource::baselineChanged, this, &PlotView::refresh);
    refresh();
}

void PlotView::fitLegend(double width)
{
    // As many columns as fit at this width, each as wide as its own widest entry (entries fill columns
    // first: entry i in column i % columns): no entry is ever clipped, and one long entry ("FP8 = FP8
    // blockwise 1979 TFLOP/s") does not force every column to its width.
    if (!m_legendUnderTitle || !m_plot->legend->visible())
        return;
    const QFontMetricsF metrics(m_plot->legend->font());
    std::vector<double> widths;
    for (int i = 0; i < m_plot->legend->itemCount(); ++i)
        if (auto *item = qobject_cast<QCPPlottableLegendItem *>(m_plot->legend->item(i)))
            widths.push_back(metrics.horizontalAdvance(item->plottable()->name()));
    const double entryExtra = m_plot->legend->iconSize().width() + m_plot->legend->iconTextPadding() + 16;
    int columns = 1;
    for (int c = std::max(1, m_legendColumns); c > 1; --c) {
        std::vector<double> column(std::size_t(c), 0.0);
        for (std::size_t i = 0; i < widths.size(); ++i)
            column[i % std::size_t(c)] = std::max(column[i % std::size_t(c)], widths[i] + entryExtra);
        double total = 0;
        for (const double w : column)
            total += w;
        if (total <= width - 16) {
            columns = c;
            break;
        }
    }
    if (m_plot->legend->wrap() != columns) {
        m_plot->legend->setWrap(columns);
        m_plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
    }
}

void PlotView::showHoverText()
{
    m_plot->setMouseTracking(true);
    m_plot->installEventFilter(this);
}

bool PlotView::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_plot && event->type() == QEvent::ToolTip) {
        auto *help = static_cast<QHelpEvent *>(event);
        const QString text = hoverText(help->pos());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, m_plot);
        return true;
    }
    return QWidget::eventFilter(watched, event);
}

void PlotView::placeLegendUnderTitle(int columns)
{
    m_legendUnderTitle = true;
    m_legendColumns = columns;
    // In its own row under the title: it never covers data, and wraps instead of clipping.
    m_plot->legend->setVisible(true);
    m_plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    m_plot->legend->setWrap(columns);
    m_plot->plotLayout()->insertRow(1);
    m_plot->plotLayout()->addElement(1, 0, m_plot->legend);
    m_plot->legend->setMargins(QMargins(4, 0, 4, 0));
    m_plot->legend->setBorderPen(Qt::NoPen);
    m_plot->plotLayout()->setRowStretchFactor(1, 0.001);
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
    // A chart on a page the window does not show waits: an edit on the cluster page pays for the canvas,
    // not for five charts nobody sees. Hidden windows (reports, tests) draw at once.
    if (window()->isVisible() && !isVisible()) {
        m_stale = true;
        return;
    }
    redraw();
}

void PlotView::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    if (m_stale)
        redraw();
}

void PlotView::redraw()
{
    m_stale = false;
    chartstyle::apply(m_plot, palette());
    m_title->setTextColor(palette().color(QPalette::WindowText));
    // The axes the errors hid come back before the chart draws itself.
    for (const auto &[axis, shown] : std::as_const(m_axesShown))
        if (auto *a = qobject_cast<QCPAxis *>(axis.data()))
            a->setVisible(shown);
    m_axesShown.clear();
    if (m_errors)
        m_plot->removeItem(m_errors);
    draw();
    fitLegend(width());
    showPlanErrors();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void PlotView::showPlanErrors()
{
    if (m_document->estimate().valid)
        return;
    for (QCPAxis *a : m_plot->axisRect()->axes()) {
        m_axesShown.append({QPointer<QObject>(a), a->visible()});
        a->setVisible(false);
    }
    m_plot->legend->setVisible(false);
    // The first errors, each wrapped to the chart's width.
    const QFontMetrics metrics(font());
    const int room = std::max(120, width() - 48);
    QStringList lines;
    for (const QString &line : fmt::planErrors(m_document->problems())) {
        QString current;
        for (const QString &word : line.split(QLatin1Char(' '))) {
            const QString next = current.isEmpty() ? word : current + QLatin1Char(' ') + word;
            if (!current.isEmpty() && metrics.horizontalAdvance(next) > room) {
                lines << current;
                current = QStringLiteral("   ") + word;
            } else {
                current = next;
            }
        }
        lines << current;
    }
    m_errors = new QCPItemText(m_plot);
    m_errors->setClipToAxisRect(false);
    m_errors->position->setType(QCPItemPosition::ptViewportRatio);
    m_errors->position->setCoords(0.5, 0.5);
    m_errors->setPositionAlignment(Qt::AlignCenter);
    m_errors->setTextAlignment(Qt::AlignLeft);
    m_errors->setFont(font());
    m_errors->setColor(palette().color(QPalette::WindowText));
    m_errors->setText(lines.join(QLatin1Char('\n')));
}

} // namespace trainplan
