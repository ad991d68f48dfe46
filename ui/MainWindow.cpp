#include "ui/MainWindow.h"

#include <QAbstractSpinBox>
#include <QAction>
#include <QActionGroup>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QKeyEvent>
#include <QLineEdit>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QStyle>
#include <QStyleFactory>
#include <QUndoStack>
#include <QVBoxLayout>

#include "ui/DocumentActions.h"
#include "ui/document/Autosave.h"
#include "ui/EstimateView.h"
#include "ui/SummaryStrip.h"
#include "ui/cluster/ClusterView.h"
#include "ui/learn/LearnWindow.h"
#include "ui/report/Report.h"
#include "ui/search/SearchPanel.h"
#include "ui/charts/MemoryChartView.h"
#include "ui/charts/PipelineGanttView.h"
#include "ui/charts/RooflineView.h"
#include "ui/charts/ScalingView.h"
#include "ui/document/PlanDocument.h"
#include "ui/editors/PlanEditor.h"

namespace trainplan {

namespace {
constexpr auto kGeometryKey = "mainWindow/geometry";
constexpr auto kStateKey = "mainWindow/state";
constexpr auto kDarkPaletteKey = "view/darkPalette";
constexpr auto kZeroComparisonKey = "view/memoryZeroComparison";
} // namespace

void applyPalette(bool dark)
{
    static const QPalette platform = QApplication::palette();
    static const QString platformStyle = QApplication::style()->name();
    if (!dark) {
        QApplication::setStyle(QStyleFactory::create(platformStyle));
        QApplication::setPalette(platform);
        return;
    }
    QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    QPalette p;
    const QColor window(45, 47, 50), base(33, 35, 38), text(225, 227, 230), highlight(42, 130, 218);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, window);
    p.setColor(QPalette::ToolTipBase, base);
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, window);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::Highlight, highlight);
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::PlaceholderText, QColor(150, 150, 150));
    p.setColor(QPalette::Disabled, QPalette::Text, QColor(120, 120, 120));
    p.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(120, 120, 120));
    QApplication::setPalette(p);
}

MainWindow::MainWindow(PlanDocument *document, const QString &recoveryDirectory, QWidget *parent)
    : QMainWindow(parent), m_document(document), m_actions(new DocumentActions(document, this))
{
    auto *central = new QWidget(this);
    auto *column = new QVBoxLayout(central);
    column->setContentsMargins(6, 6, 6, 6);
    m_summary = new SummaryStrip(document, central);
    column->addWidget(m_summary);

    m_memory = new MemoryChartView(document);
    m_roofline = new RooflineView(document);
    m_scaling = new ScalingView(document);
    m_pipeline = new PipelineGanttView(document);
    auto *top = new QSplitter(Qt::Horizontal);
    top->addWidget(m_memory);
    top->addWidget(m_roofline);
    auto *bottom = new QSplitter(Qt::Horizontal);
    bottom->addWidget(m_scaling);
    bottom->addWidget(m_pipeline);
    auto *rows = new QSplitter(Qt::Vertical);
    rows->addWidget(top);
    rows->addWidget(bottom);
    for (QSplitter *s : {top, bottom, rows}) {
        s->setChildrenCollapsible(false);
        s->setStretchFactor(0, 1);
        s->setStretchFactor(1, 1);
        s->setSizes({1000, 1000}); // equal halves, whatever the charts' size hints
    }
    column->addWidget(rows, 1);
    setCentralWidget(central);

    m_editorDock = new QDockWidget(tr("Plan"), this);
    m_editorDock->setObjectName(QStringLiteral("planDock"));
    auto *editor = new PlanEditor(document);
    m_editorDock->setWidget(editor);
    m_editorDock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable | QDockWidget::DockWidgetClosable);
    addDockWidget(Qt::LeftDockWidgetArea, m_editorDock);
    m_detailsDock = new QDockWidget(tr("Details"), this);
    m_detailsDock->setObjectName(QStringLiteral("detailsDock"));
    m_detailsDock->setWidget(new EstimateView(document));
    addDockWidget(Qt::BottomDockWidgetArea, m_detailsDock);
    m_detailsDock->hide();
    m_clusterView = new ClusterView(document);
    m_clusterDock = new QDockWidget(tr("Cluster"), this);
    m_clusterDock->setObjectName(QStringLiteral("clusterDock"));
    m_clusterDock->setWidget(m_clusterView);
    addDockWidget(Qt::BottomDockWidgetArea, m_clusterDock);
    tabifyDockWidget(m_detailsDock, m_clusterDock);
    m_clusterDock->hide();
    m_searchPanel = new SearchPanel(document);
    m_searchDock = new QDockWidget(tr("Search"), this);
    m_searchDock->setObjectName(QStringLiteral("searchDock"));
    m_searchDock->setWidget(m_searchPanel);
    addDockWidget(Qt::BottomDockWidgetArea, m_searchDock);
    tabifyDockWidget(m_clusterDock, m_searchDock);
    m_searchDock->hide();
    connect(editor, &PlanEditor::clusterBuilderRequested, this, [this] {
        m_clusterDock->show();
        m_clusterDock->raise();
    });
    connect(m_clusterView, &ClusterView::statusMessage, this, [this](const QString &message) {
        statusBar()->showMessage(message, 6000);
    });

    m_autosave = new Autosave(document, recoveryDirectory, this);
    qApp->installEventFilter(this); // Undo and Redo wherever the focus is (eventFilter)
    createMenus();
    connect(document, &PlanDocument::planChanged, this, &MainWindow::updateTitle);
    connect(document, &PlanDocument::filePathChanged, this, &MainWindow::updateTitle);
    connect(document, &PlanDocument::modifiedChanged, this, &QWidget::setWindowModified);
    updateTitle();

    resize(1280, 800);
    QSettings settings;
    restoreGeometry(settings.value(kGeometryKey).toByteArray());
    restoreState(settings.value(kStateKey).toByteArray());
}

void MainWindow::createMenus()
{
    createFileMenu();
    QMenu *edit = menuBar()->addMenu(tr("&Edit"));
    QAction *undo = m_document->undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setShortcuts(QKeySequence::Undo);
    QAction *redo = m_document->undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setShortcuts(QKeySequence::Redo);
    edit->addAction(undo);
    edit->addAction(redo);

    createViewMenu();
    createHelpMenu();
}

void MainWindow::createFileMenu()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    file->addAction(m_actions->newAction());
    file->addAction(m_actions->openAction());
    file->addMenu(m_actions->recentMenu());
    file->addSeparator();
    file->addAction(m_actions->saveAction());
    file->addAction(m_actions->saveAsAction());
    file->addSeparator();
    QMenu *exportMenu = file->addMenu(tr("&Export"));
    QAction *report = exportMenu->addAction(tr("&Report (PDF)…"));
    report->setObjectName(QStringLiteral("exportReport"));
    report->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    connect(report, &QAction::triggered, this, &MainWindow::exportReport);
    QAction *charts = exportMenu->addAction(tr("All &Charts (PNG)…"));
    connect(charts, &QAction::triggered, this, &MainWindow::exportCharts);
    exportMenu->addSeparator();
    QMenu *pageSize = exportMenu->addMenu(tr("Report &Page Size"));
    auto *pageSizes = new QActionGroup(pageSize);
    for (const auto &[label, id] : {std::pair{tr("A4"), QPageSize::A4}, std::pair{tr("US Letter"), QPageSize::Letter}}) {
        QAction *a = pageSize->addAction(label);
        a->setCheckable(true);
        a->setChecked(reportPageSizeFromSettings() == id);
        pageSizes->addAction(a);
        connect(a, &QAction::triggered, this, [id] { setReportPageSizeInSettings(id); });
    }
    file->addSeparator();
    file->addAction(m_actions->quitAction());

}

void MainWindow::createViewMenu()
{
    QMenu *view = menuBar()->addMenu(tr("&View"));
    view->addAction(m_editorDock->toggleViewAction());
    view->addAction(m_detailsDock->toggleViewAction());
    QAction *cluster = m_clusterDock->toggleViewAction();
    cluster->setText(tr("&Cluster Builder"));
    cluster->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_B));
    view->addAction(cluster);
    QAction *search = m_searchDock->toggleViewAction();
    search->setText(tr("&Search Plans"));
    search->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F));
    view->addAction(search);
    view->addSeparator();
    QSettings settings;
    QAction *zero = view->addAction(tr("Memory: &ZeRO Comparison (Figure 16.2)"));
    zero->setCheckable(true);
    zero->setChecked(settings.value(kZeroComparisonKey, false).toBool());
    m_memory->setZeroComparison(zero->isChecked());
    connect(zero, &QAction::toggled, this, [this](bool on) {
        m_memory->setZeroComparison(on);
        QSettings().setValue(kZeroComparisonKey, on);
    });
    QAction *dark = view->addAction(tr("&Dark Palette"));
    dark->setCheckable(true);
    dark->setChecked(settings.value(kDarkPaletteKey, false).toBool());
    connect(dark, &QAction::toggled, this, [](bool on) {
        applyPalette(on);
        QSettings().setValue(kDarkPaletteKey, on);
    });

}

void MainWindow::createHelpMenu()
{
    QMenu *help = menuBar()->addMenu(tr("&Help"));
    QAction *learn = help->addAction(tr("&Learn: Figures and Exercises"));
    learn->setObjectName(QStringLiteral("openLearn"));
    learn->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_L));
    connect(learn, &QAction::triggered, this, [this] { learnWindow()->show(); learnWindow()->raise(); learnWindow()->activateWindow(); });
    help->addSeparator();
    QAction *about = help->addAction(tr("&About Trainplan"));
    about->setMenuRole(QAction::AboutRole);
    connect(about, &QAction::triggered, this, [this] {
        QMessageBox::about(this, tr("About Trainplan"),
                           tr("<b>Trainplan %1</b><p>Will this training plan fit, how fast will it run, what limits it, "
                              "and what should change?</p>")
                               .arg(QApplication::applicationVersion()));
    });
}

LearnWindow *MainWindow::learnWindow()
{
    if (!m_learn) {
        m_learn = new LearnWindow(m_document, this);
        m_learn->setWindowFlag(Qt::Window);
    }
    return m_learn;
}

void MainWindow::exportReport()
{
    if (!m_document->estimate().valid) {
        QMessageBox::warning(this, tr("Export Report"), tr("The plan has errors; fix them (they are shown under their fields) "
                                                           "before exporting a report."));
        return;
    }
    QSettings settings;
    const QString dir = settings.value(QStringLiteral("export/dir"), QDir::homePath()).toString();
    const QString stem = QFileInfo(m_document->displayName()).completeBaseName();
    const QString path = QFileDialog::getSaveFileName(this, tr("Export Report"), dir + QLatin1Char('/') + stem + QStringLiteral("-audit.pdf"),
                                                      tr("PDF document (*.pdf)"));
    if (path.isEmpty())
        return;
    ReportOptions options;
    options.pageSize = reportPageSizeFromSettings();
    QString error;
    QApplication::setOverrideCursor(Qt::WaitCursor);
    const bool ok = writeReportFile(m_document, path, options, &error);
    QApplication::restoreOverrideCursor();
    if (!ok) {
        QMessageBox::warning(this, tr("Export Report"), error);
        return;
    }
    settings.setValue(QStringLiteral("export/dir"), QFileInfo(path).absolutePath());
    statusBar()->showMessage(tr("Wrote %1").arg(QDir::toNativeSeparators(path)), 6000);
}

void MainWindow::exportCharts()
{
    QSettings settings;
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Export All Charts"),
                                                          settings.value(QStringLiteral("export/dir"), QDir::homePath()).toString());
    if (dir.isEmpty())
        return;
    QStringList written;
    QString error;
    if (!writeChartPngs(m_document, dir, QSize(settings.value(QStringLiteral("export/width"), 1600).toInt(),
                                                settings.value(QStringLiteral("export/height"), 1000).toInt()),
                        settings.value(QStringLiteral("export/dpi"), 192).toInt(), &written, &error)) {
        QMessageBox::warning(this, tr("Export All Charts"), error);
        return;
    }
    statusBar()->showMessage(tr("Wrote %1 charts to %2").arg(written.size()).arg(QDir::toNativeSeparators(dir)), 6000);
}

bool MainWindow::eventFilter(QObject *watched, QEvent *event)
{
    // Undo and Redo work wherever the focus is once a value is committed: a spin box or a combo box would
    // otherwise take Ctrl+Z for its own text; a line edit keeps it while it holds uncommitted typing.
    if (event->type() != QEvent::ShortcutOverride)
        return QMainWindow::eventFilter(watched, event);
    auto *widget = qobject_cast<QWidget *>(watched);
    auto *key = static_cast<QKeyEvent *>(event);
    if (!widget || widget->window() != this || !(key->matches(QKeySequence::Undo) || key->matches(QKeySequence::Redo)))
        return false;
    if (auto *line = qobject_cast<QLineEdit *>(widget); line && line->isModified()
                                                         && !qobject_cast<QAbstractSpinBox *>(line->parentWidget()))
        return false;
    event->ignore();
    return true;
}

void MainWindow::updateTitle()
{
    setWindowTitle(tr("%1[*] - Trainplan").arg(m_document->displayName()));
    setWindowModified(m_document->isModified());
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    if (!m_actions->maybeSave()) {
        event->ignore();
        return;
    }
    QSettings settings;
    settings.setValue(kGeometryKey, saveGeometry());
    settings.setValue(kStateKey, saveState());
    m_autosave->discard(); // saved or discarded on purpose: nothing to recover
    event->accept();
}

} // namespace trainplan
