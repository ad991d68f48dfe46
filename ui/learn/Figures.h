#pragma once
// Building blocks of the Learn view's figures: a painted figure and a QCustomPlot figure, both exportable
// like every chart (context menu: Copy, Export Chart..., Export Data).

#include <QWidget>

#include <functional>

#include "charts/ExportableChart.h"

class QCustomPlot;
class QCPAxisRect;

namespace trainplan {

/// A figure drawn with QPainter at any size (the diagnostic map, the parallelism schematics).
class PaintedFigure : public QWidget, public ExportableChart
{
    Q_OBJECT

public:
    PaintedFigure(QString name, QWidget *parent = nullptr);

    QString exportName() const override { return m_name; }
    void renderChart(QPainter *painter, const QRectF &target, const QSizeF &logicalSize) override;
    QWidget *chartWidget() override { return this; }

protected:
    /// Draws the figure in a `size` logical-pixel box at the origin.
    virtual void paintFigure(QPainter &painter, const QSizeF &size) = 0;
    void paintEvent(QPaintEvent *event) override;

private:
    QString m_name;
};

/// A QCustomPlot figure with a CSV provider.
class PlotFigure : public QWidget, public ExportableChart
{
    Q_OBJECT

public:
    PlotFigure(QString name, std::function<QString()> csv, QWidget *parent = nullptr);

    QCustomPlot *plot() const { return m_plot; }
    /// A second panel right of the first (the text's two-panel figures) or none; the panel, or nullptr.
    QCPAxisRect *setSecondPanel(bool on);
    QString exportName() const override { return m_name; }
    QString exportCsv() const override { return m_csv ? m_csv() : QString(); }
    void renderChart(QPainter *painter, const QRectF &target, const QSizeF &logicalSize) override;
    QWidget *chartWidget() override { return this; }

protected:
    /// The plot's fonts follow the widget's (presentation mode enlarges them).
    void changeEvent(QEvent *event) override;

private:
    void applyFonts();

    QString m_name;
    std::function<QString()> m_csv;
    QCustomPlot *m_plot;
};

} // namespace trainplan
