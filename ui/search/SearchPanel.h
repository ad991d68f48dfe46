#pragma once
// The Search panel: constraints, a Search button with progress and Cancel, the ranked results in a
// sortable table (double-click loads a plan as one undo step), the Pareto front (throughput vs memory
// headroom, coloured by GPU count) and the rejected plans grouped by cause. The search runs on worker
// threads (core/search); the panel polls its progress, so no signal crosses threads.

#include <QWidget>

#include <atomic>
#include <memory>
#include <optional>

#include "core/search/Search.h"

class QCheckBox;
class QDoubleSpinBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QSpinBox;
class QTableView;
class QTabWidget;
class QTimer;
class QTreeWidget;
class QCustomPlot;
template<typename T> class QFutureWatcher;

class QFormLayout;
class QHBoxLayout;

namespace trainplan {

class PlanDocument;
class SearchResultsModel;

class SearchPanel : public QWidget
{
    Q_OBJECT

public:
    explicit SearchPanel(PlanDocument *document, QWidget *parent = nullptr);
    ~SearchPanel() override;

    void startSearch();
    void cancelSearch();
    bool isRunning() const;
    /// Loads result `row` of the table (in its current sort order) into the document: one undo step.
    void loadResult(int row);

    const SearchOutcome &outcome() const { return m_outcome; }

    QTableView *table() const { return m_table; }
    QLabel *summary() const { return m_summary; }
    QTreeWidget *rejectedTree() const { return m_rejected; }
    QCustomPlot *paretoPlot() const { return m_pareto; }
    QPushButton *searchButton() const { return m_searchButton; }
    /// Widget position of Pareto point `index` on the chart (for tests and keyboard users).
    QPoint paretoPixel(int index) const;

signals:
    void finished();

private:
    SearchConstraints constraints() const;
    QFormLayout *createConstraints();
    QHBoxLayout *createControls();
    void createResults();
    void connectPareto();
    void showOutcome();
    void drawPareto();
    void syncConstraintDefaults();
    void markStale();
    void resetForNewDocument();
    const SearchScore *scoreAt(const QPoint &position) const;
    void loadPlan(const Plan &plan, const QString &text);

    PlanDocument *m_document;
    Plan m_searchedPlan;
    SearchOutcome m_outcome;
    bool m_stale = false;
    bool m_rangeEdited = false; ///< the user set the node range: it no longer follows the plan's node count
    bool m_syncing = false;
    int m_generation = 0;       ///< documents loaded so far: a search started for an earlier one is dropped
    int m_searchGeneration = 0;
    std::atomic<bool> m_cancel{false};
    std::atomic<std::int64_t> m_done{0};
    std::atomic<std::int64_t> m_total{0};
    QFutureWatcher<SearchOutcome> *m_watcher;
    QTimer *m_poll;

    QSpinBox *m_minNodes;
    QSpinBox *m_maxNodes;
    QDoubleSpinBox *m_headroom;
    QCheckBox *m_fixTensor;
    QCheckBox *m_fixPipeline;
    QCheckBox *m_fixMicroBatch;
    QCheckBox *m_acrossNodes;
    QCheckBox *m_keepMargin;
    QCheckBox *m_rejectUncertain;
    QCheckBox *m_offload;
    QPushButton *m_searchButton;
    QPushButton *m_cancelButton;
    QProgressBar *m_progress;
    QLabel *m_summary;
    QTabWidget *m_tabs;
    SearchResultsModel *m_model;
    QSortFilterProxyModel *m_proxy;
    QTableView *m_table;
    QCustomPlot *m_pareto;
    QTreeWidget *m_rejected;
};

} // namespace trainplan
