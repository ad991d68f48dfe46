#pragma once
// Base of the QCustomPlot chart views: a plot with a title row, palette-derived styling, and a refresh
// from the Estimate on every plan change and palette change. A new chart subclasses it and implements
// draw(); it shares nothing with the other charts but the document.

#include <QPointer>
#include <QWidget>

#include "charts/ExportableChart.h"

class QCPItemText;
class QCPTextElement;
class QCustomPlot;

namespace trainplan {

class ChartSource;

class PlotView : public QWidget, public ExportableChart
{
    Q_OBJECT

public:
    QCustomPlot *plot() const { return m_plot; }
    /// The whole title (unwrapped).
    QString title() const;

    void renderChart(QPainter *painter, const QRectF &target, const QSizeF &logicalSize) override;
    QWidget *chartWidget() override { return this; }

protected:
    PlotView(ChartSource *document, QWidget *parent);

    /// Subclasses call this at the end of their constructor (draw() is virtual).
    void startFollowingDocument();
    /// Draws the chart from the document's Estimate; the base has reset the style and the title colour.
    virtual void draw() = 0;

    /// The title, wrapped to the chart's width wherever it is drawn (window or export).
    void setTitle(const QString &text);
    /// Moves the legend into a row of its own under the title, `columns` entries per line.
    void placeLegendUnderTitle(int columns);
    /// Shows hoverText() as the plot's tooltip wherever the pointer rests.
    void showHoverText();
    /// What the tooltip says at a plot position ("" over empty space).
    virtual QString hoverText(const QPointF &) const { return {}; }
    bool eventFilter(QObject *watched, QEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void showEvent(QShowEvent *event) override;
    QFont smallFont() const;
    void changeEvent(QEvent *event) override;

    ChartSource *m_document;
    QCustomPlot *m_plot;

private:
    /// Redraws now, or, while the window shows another page, when the chart is next shown.
    void refresh();
    void redraw();

    void fitTitle(double width);
    void fitLegend(double width);
    /// An invalid plan: no axes or legend, the plan's errors in the middle of the chart instead.
    void showPlanErrors();

    QPointer<QCPItemText> m_errors;
    QList<QPair<QPointer<QObject>, bool>> m_axesShown; ///< each axis's visibility before the errors hid it

    QCPTextElement *m_title;
    QString m_fullTitle;
    bool m_legendUnderTitle = false;
    int m_legendColumns = 3;
    bool m_stale = false;
};

} // namespace trainplan
