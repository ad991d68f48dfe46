#pragma once
// The planner window. Wiring only: the document, the action handler, the plan editor, the summary strip
// and the four charts.

#include <QMainWindow>

class QAction;

namespace trainplan {

class Autosave;
class ClusterView;
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

    DocumentActions *documentActions() const { return m_actions; }
    MemoryChartView *memoryChart() const { return m_memory; }
    RooflineView *roofline() const { return m_roofline; }
    ScalingView *scaling() const { return m_scaling; }
    PipelineGanttView *pipeline() const { return m_pipeline; }
    SummaryStrip *summary() const { return m_summary; }
    ClusterView *clusterView() const { return m_clusterView; }
    QDockWidget *clusterDock() const { return m_clusterDock; }
    SearchPanel *searchPanel() const { return m_searchPanel; }
    QDockWidget *searchDock() const { return m_searchDock; }
    /// The Learn view (created on first use).
    LearnWindow *learnWindow();
    Autosave *autosave() const { return m_autosave; }

protected:
    void closeEvent(QCloseEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void createMenus();
    void createFileMenu();
    void createViewMenu();
    void createHelpMenu();
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
    QDockWidget *m_editorDock;
    QDockWidget *m_detailsDock;
    QDockWidget *m_clusterDock;
    ClusterView *m_clusterView;
    QDockWidget *m_searchDock;
    SearchPanel *m_searchPanel;
    LearnWindow *m_learn = nullptr;
    Autosave *m_autosave;
};

/// Fusion with a dark palette, or the platform's default palette.
void applyPalette(bool dark);

} // namespace trainplan
