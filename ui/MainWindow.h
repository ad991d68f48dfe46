#pragma once
// The planner window. Wiring only: the document, the action handler, the plan editor (a dock), the summary
// strip, and the pages: the five charts, the cluster builder, the search, the comparison with a pinned
// baseline and the estimate as a table (tabs, so no page crushes the charts).

#include <QMainWindow>

class QAction;
class QTabWidget;

namespace trainplan {

class Autosave;
class ClusterView;
class ComparisonView;
class StepBreakdownView;
class SearchPanel;
class LearnWindow;
class DocumentActions;
class MemoryChartView;
class PipelineGanttView;
class PlanDocument;
class RooflineView;
class ScalingView;
class SummaryStrip;

class MainWindow : public QMainWindow
{
    Q_OBJECT

public:
    /// `recoveryDirectory`: where the autosave keeps its recovery file (empty: Autosave::defaultDirectory()).
    explicit MainWindow(PlanDocument *document, const QString &recoveryDirectory = {}, QWidget *parent = nullptr);

    PlanDocument *document() const { return m_document; }

    enum class Page { Charts, Cluster, Search, Compare, Details };
    void showPage(Page page);
    Page currentPage() const;
    /// Reads a plan file as the pinned baseline; false with the reason when it is not a valid plan.
    bool loadBaseline(const QString &path, QString *error);

    DocumentActions *documentActions() const { return m_actions; }
    StepBreakdownView *stepChart() const { return m_step; }
    ComparisonView *comparison() const { return m_comparison; }
    MemoryChartView *memoryChart() const { return m_memory; }
    RooflineView *roofline() const { return m_roofline; }
    ScalingView *scaling() const { return m_scaling; }
    PipelineGanttView *pipeline() const { return m_pipeline; }
    SummaryStrip *summary() const { return m_summary; }
    ClusterView *clusterView() const { return m_clusterView; }
    SearchPanel *searchPanel() const { return m_searchPanel; }
    /// The Learn view (created on first use).
    LearnWindow *learnWindow();
    Autosave *autosave() const { return m_autosave; }

protected:
    void closeEvent(QCloseEvent *event) override;
    /// Files dropped on the window: a plan file opens, configuration files import (File > Import).
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void createMenus();
    void createFileMenu();
    void createViewMenu();
    void createCompareMenu();
    void createToolsMenu();
    void createHelpMenu();
    void showManual();
    void showShortcuts();
    void helpDialog(const QString &name, const QString &title, const QString &markdown, bool large);
    void openBaseline();
    void exportReport();
    void exportCharts();
    void updateTitle();

    PlanDocument *m_document;
    DocumentActions *m_actions;
    SummaryStrip *m_summary;
    MemoryChartView *m_memory;
    RooflineView *m_roofline;
    ScalingView *m_scaling;
    PipelineGanttView *m_pipeline;
    StepBreakdownView *m_step;
    QDockWidget *m_editorDock;
    QTabWidget *m_pages;
    ClusterView *m_clusterView;
    SearchPanel *m_searchPanel;
    ComparisonView *m_comparison;
    LearnWindow *m_learn = nullptr;
    Autosave *m_autosave;
};

/// Fusion with a dark palette, or the platform's default palette.
void applyPalette(bool dark);

} // namespace trainplan
