#pragma once
// Speedup S(W) = T(1)/T(W) and parallel efficiency E(W) = S(W)/W over data-parallel workers on log2
// axes, with the ideal line; strong scaling (fixed global batch) and weak scaling (fixed per-replica
// batch). QCustomPlot; reads only the Estimate's scaling curves.

#include <QWidget>

class QCustomPlot;

namespace trainplan {

class PlanDocument;

class ScalingView : public QWidget
{
    Q_OBJECT

public:
    explicit ScalingView(PlanDocument *document, QWidget *parent = nullptr);
    QCustomPlot *plot() const { return m_plot; }

protected:
    void changeEvent(QEvent *event) override;

private:
    void refresh();

    PlanDocument *m_document;
    QCustomPlot *m_plot;
};

} // namespace trainplan
