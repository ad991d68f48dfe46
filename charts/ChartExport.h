#pragma once
// Chart exports: PNG at a chosen pixel size and DPI, SVG and PDF (vector), the clipboard, CSV. Every file
// is written through QSaveFile: an error leaves no half-written file. Plus the charts' context-menu
// actions (Copy, Export Chart..., Export Data...).

#include <QByteArray>
#include <QImage>
#include <QSize>
#include <QString>

#include <optional>

class QPainter;
class QCustomPlot;
class QRectF;
class QSizeF;
class QWidget;
class QChart;
class QChartView;

namespace trainplan {

class ExportableChart;

/// Lays `plot` out at `logicalSize` and draws it scaled into `target` (vector on vector devices): the
/// renderChart() of every QCustomPlot chart.
void renderPlot(QCustomPlot *plot, QPainter *painter, const QRectF &target, const QSizeF &logicalSize);

/// Pixels of the PNG; DPI sets the scale (192 dpi draws the chart at 2x the 96-dpi layout) and the
/// file's resolution metadata.
/// Every export lays the chart out at `pixels` x 96 / `dpi` (what the window would show at that size) and
/// scales it up: fonts, margins and lines grow with the DPI, so a chart looks the same at any size and DPI.
QSizeF logicalExportSize(QSize pixels, int dpi);
/// Draws the chart filling `pixels` of a 96-dpi paint device at `dpi` (the PNG export and its tests).
void paintChart(ExportableChart &chart, QPainter &painter, QSize pixels, int dpi);
QImage renderChartImage(ExportableChart &chart, QSize pixels, int dpi);
/// The chart as PNG bytes at `pixels` and `dpi` (48-1200); empty with `error` set for a bad size.
std::optional<QByteArray> chartPngBytes(ExportableChart &chart, QSize pixels, int dpi, QString *error);
bool saveChartPng(ExportableChart &chart, const QString &path, QSize pixels, int dpi, QString *error);
/// The SVG's size and view box are the logical size.
bool saveChartSvg(ExportableChart &chart, const QString &path, QSize size, int dpi, QString *error);
/// One page of the logical size (at 72 points per 96 pixels).
bool saveChartPdf(ExportableChart &chart, const QString &path, QSize size, int dpi, QString *error);
/// By the path's suffix: .png, .svg or .pdf (anything else is an error naming the suffixes).
bool saveChart(ExportableChart &chart, const QString &path, QSize size, int dpi, QString *error);
bool saveChartCsv(ExportableChart &chart, const QString &path, QString *error);
/// PNG data at 2x for high-DPI paste targets.
void copyChartToClipboard(ExportableChart &chart, QSize logicalSize);

/// Asks for a path, size and DPI and exports the chart (the Export Chart... action).
void exportChartInteractively(ExportableChart *chart, QWidget *parent);

/// Adds Copy / Export Chart... / Export Data (CSV)... to `target`'s context menu.
void installChartExportActions(ExportableChart *chart, QWidget *target);

/// Draws a Qt Charts view laid out at `logicalSize` into `target` (vector on SVG and PDF devices), then
/// lays it out at its widget size again.
void renderChartView(QChartView *view, QPainter *painter, const QRectF &target, const QSizeF &logicalSize);

/// A series property: the series' legend entry may go when the legend has no room for it (the chart's title
/// already says what it is, as the memory chart's title gives the capacity and the baseline's peak).
inline constexpr char kLegendOptional[] = "trainplan.legendOptional";

/// Puts a Qt Charts legend under the plot when every entry fits on one row of `size`'s width, and to the
/// right of it (one entry a line) otherwise, so no legend text is ever elided; at the right, entries marked
/// kLegendOptional go when the column would not fit under the title.
void fitChartLegend(QChart *chart, QSizeF size);

} // namespace trainplan
