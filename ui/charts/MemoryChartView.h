#pragma once
// Memory per GPU by pipeline stage, stacked by component (parameters, gradients, optimizer, activations,
// other), against the device capacity; stages over capacity in red. A toggle switches to the reference
// text's Figure 16.2 view: replicated state vs ZeRO stages 1-3 for the current model and data-parallel
// worker count. Qt Charts; reads only the Estimate.

#include <QChartView>

namespace trainplan {

class PlanDocument;

class MemoryChartView : public QChartView
{
    Q_OBJECT

public:
    explicit MemoryChartView(PlanDocument *document, QWidget *parent = nullptr);

    void setZeroComparison(bool on);
    bool zeroComparison() const { return m_zeroComparison; }
    /// Stacked values currently drawn, per bar set: for tests and CSV export.
    QList<QList<qreal>> seriesValues() const;

protected:
    void changeEvent(QEvent *event) override;

private:
    void refresh();
    void drawStages();
    void drawZeroComparison();

    PlanDocument *m_document;
    bool m_zeroComparison = false;
};

} // namespace trainplan
