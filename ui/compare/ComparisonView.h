#pragma once
// The Compare page: the pinned baseline against the plan. The headline numbers with their changes (better
// in green, worse in red) and every key that differs, in the editor's words; an empty state explains how
// to pin a baseline. Reads core/estimate/Comparison; the charts draw their own overlays.

#include <QWidget>

class QLabel;
class QPushButton;
class QStackedWidget;
class QTableWidget;

namespace trainplan {

class PlanDocument;

class ComparisonView : public QWidget
{
    Q_OBJECT

public:
    explicit ComparisonView(PlanDocument *document, QWidget *parent = nullptr);

    QTableWidget *metricsTable() const { return m_metrics; }
    QTableWidget *differencesTable() const { return m_differences; }

signals:
    void pinRequested();
    void openBaselineRequested();

protected:
    void showEvent(QShowEvent *event) override;

private:
    /// Refills the tables now, or when the page is next shown if the window shows another page.
    void refresh();
    bool m_stale = false;

    PlanDocument *m_document;
    QStackedWidget *m_pages;
    QLabel *m_heading;
    QTableWidget *m_metrics;
    QTableWidget *m_differences;
};

} // namespace trainplan
