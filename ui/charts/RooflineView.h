#pragma once
// Roofline of the plan's device (Williams et al. 2009): log-log ceilings per precision, the ridge point
// of the plan's precision, and every op of one micro-batch placed by arithmetic intensity and attained
// throughput. Hovering an op shows its name, pass, FLOPs, bytes and time. QCustomPlot; reads only the
// Estimate.

#include <QWidget>

#include <vector>

class QCustomPlot;

namespace trainplan {

class PlanDocument;

class RooflineView : public QWidget
{
    Q_OBJECT

public:
    explicit RooflineView(PlanDocument *document, QWidget *parent = nullptr);

    QCustomPlot *plot() const { return m_plot; }
    /// The op nearest to a widget position (within a few pixels), as tooltip text; empty if none.
    QString describeOpAt(const QPoint &position) const;

protected:
    void changeEvent(QEvent *event) override;

private:
    void refresh();

    PlanDocument *m_document;
    QCustomPlot *m_plot;
    std::vector<std::size_t> m_opIndex; ///< per plotted point (graph, i): index into the Estimate's ops
};

} // namespace trainplan
