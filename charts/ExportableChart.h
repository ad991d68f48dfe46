#pragma once
// What every chart offers for export: a name, its data as CSV, and a rendering at any logical size into
// any painter (vector on SVG and PDF devices). The four chart views implement it; ChartExport and the
// report use only this interface.

#include <QRectF>
#include <QSizeF>
#include <QString>

class QPainter;
class QWidget;

namespace trainplan {

class ExportableChart
{
public:
    virtual ~ExportableChart() = default;

    /// File stem: "memory", "roofline", "scaling", "pipeline".
    virtual QString exportName() const = 0;
    /// The data the chart draws, as CSV (io/output/ChartCsv).
    virtual QString exportCsv() const = 0;
    /// Lays the chart out at `logicalSize` (pixels at 96 dpi) and draws it scaled into `target`.
    virtual void renderChart(QPainter *painter, const QRectF &target, const QSizeF &logicalSize) = 0;
    virtual QWidget *chartWidget() = 0;
};

} // namespace trainplan
