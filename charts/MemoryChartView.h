#pragma once
// Memory per GPU by pipeline stage, stacked by component (parameters, gradients, optimizer, activations,
// other), against the device capacity; the part of a stage above capacity keeps its component colours and
// is hatched and outlined in the warning colour; a pinned baseline's stage peaks are dashed outlines. Axis
// ticks at 1, 2, 2.5 or 5 x 10^k GiB. A toggle switches to the reference
// text's Figure 16.2 view: replicated state vs ZeRO stages 1-3 for the current model and data-parallel
// worker count. Qt Charts; reads only the Estimate.

#include <QChartView>

#include "charts/ExportableChart.h"

class QBarCategoryAxis;
class QBarSet;
class QLineSeries;
class QStackedBarSeries;
class QValueAxis;

namespace trainplan {

class ChartSource;
class MemoryOverlay;

class MemoryChartView : public QChartView, public ExportableChart
{
    Q_OBJECT

public:
    explicit MemoryChartView(ChartSource *document, QWidget *parent = nullptr);

    void setZeroComparison(bool on);
    bool zeroComparison() const { return m_zeroComparison; }
    /// Stacked values currently drawn, per bar set: for tests and CSV export.
    QList<QList<qreal>> seriesValues() const;
    /// The hover text of a stage's bar: every component with its value, and the three peaks.
    QString stageTooltip(int stage) const;
    /// The whole title (unwrapped).
    QString title() const { return m_title; }
    /// Over-capacity regions drawn, per stage over capacity: {stage, capacity GiB, peak GiB}.
    QList<QVector<double>> overCapacityRegions() const;
    /// Baseline stage peaks drawn as outlines (GiB; empty without a baseline).
    QList<double> baselinePeaks() const;
    /// The value axis's tick interval (GiB).
    double tickInterval() const;

    QString exportName() const override { return QStringLiteral("memory"); }
    QString exportCsv() const override;
    void renderChart(QPainter *painter, const QRectF &target, const QSizeF &logicalSize) override;
    QWidget *chartWidget() override { return this; }

protected:
    void changeEvent(QEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void showEvent(QShowEvent *event) override;

private:
    void refresh();
    void redraw();
    void drawStages();
    void connectStageHover(QStackedBarSeries *series);
    void drawZeroComparison();

    /// Updates the stage bars in place when only values changed (the common case while editing):
    /// rebuilding Qt Charts series costs several milliseconds on a 64-stage plan.
    bool updateStagesInPlace();
    void setStageTitle();
    void setStageAxis(double highestGib);
    void updateOverlay();
    /// Legend entries for what the overlay draws (empty series with its pen or brush).
    void addOverlayLegend(QValueAxis *x, QValueAxis *y, bool fits, bool baseline);
    void setTitleFitted(const QString &title, double width);

    ChartSource *m_document;
    bool m_zeroComparison = false;
    // The stage view's items, kept between edits (null when the chart shows something else).
    QStackedBarSeries *m_stageSeries = nullptr;
    QList<QBarSet *> m_stageSets;
    QLineSeries *m_capacity = nullptr;
    QValueAxis *m_stageAxisY = nullptr;
    bool m_stageDark = false;
    bool m_stale = false; ///< a plan change arrived while the chart was on a hidden page
    MemoryOverlay *m_overlay = nullptr;
    QString m_title;
};

} // namespace trainplan
