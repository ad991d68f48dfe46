#pragma once
// A read-only text view of the Estimate: the same table `trainplan estimate --format table` prints.
// The charts of the planner window replace it as they arrive.

#include <QPlainTextEdit>

namespace trainplan {

class PlanDocument;

class EstimateView : public QPlainTextEdit
{
    Q_OBJECT

public:
    explicit EstimateView(PlanDocument *document, QWidget *parent = nullptr);

protected:
    void showEvent(QShowEvent *event) override;

private:
    void refresh();

    PlanDocument *m_document;
    bool m_stale = true; ///< the plan changed while the view was hidden
};

} // namespace trainplan
