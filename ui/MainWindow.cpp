#include "ui/MainWindow.h"

#include <functional>

#include <QDialogButtonBox>
#include <QFile>
#include <QScreen>
#include <QTextBrowser>
#include <QUrl>
#include <QMimeData>
#include <QDropEvent>
#include <QDragEnterEvent>

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
#include <QTabWidget>
#include <QUndoStack>
#include <QVBoxLayout>

#include "ui/DocumentActions.h"
#include "ui/document/Autosave.h"
#include "ui/EstimateView.h"
#include "ui/FormWidgets.h"
#include "ui/SummaryStrip.h"
#include "ui/calibrate/CalibrateDialog.h"
#include "ui/profile/ProfileDialog.h"
#include "ui/cluster/ClusterView.h"
#include "ui/learn/LearnWindow.h"
#include "ui/report/Report.h"
#include "ui/search/SearchPanel.h"
#include "charts/MemoryChartView.h"
#include "charts/PipelineGanttView.h"
#include "charts/RooflineView.h"
#include "charts/ScalingView.h"
#include "charts/StepBreakdownView.h"
#include "ui/compare/ComparisonView.h"
#include "io/plan/PlanJson.h"
#include "ui/document/PlanDocument.h"
#include "ui/editors/PlanEditor.h"
#include "ui/FrameStyle.h"
#include "io/plan/ProblemWords.h"

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
        QApplication::setStyle(new FrameStyle(QStyleFactory::create(platformStyle)));
        QApplication::setPalette(platform);
        return;
    }
    QApplication::setStyle(new FrameStyle(QStyleFactory::create(QStringLiteral("Fusion"))));
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

/// A chart in a card: every chart has the same frame, whatever draws it.
static QWidget *card(QWidget *chart)
{
    auto *frame = new QFrame;
    frame->setFrameShape(QFrame::StyledPanel);
    frame->setObjectName(QStringLiteral("chartCard"));
    auto *layout = new QVBoxLayout(frame);
    layout->setContentsMargins(1, 1, 1, 1);
    layout->addWidget(chart);
    return frame;
}

static QSplitter *splitter(Qt::Orientation orientation, std::initializer_list<QWidget *> widgets, QList<int> sizes)
{
    auto *s = new QSplitter(orientation);
    for (QWidget *w : widgets)
        s->addWidget(w);
    s->setChildrenCollapsible(false);
    s->setSizes(sizes);
    for (int i = 0; i < s->count(); ++i)
        s->setStretchFactor(i, sizes.value(i));
    return s;
}

MainWindow::MainWindow(PlanDocument *document, const QString &recoveryDirectory, QWidget *parent)
    : QMainWindow(parent), m_document(document), m_actions(new DocumentActions(document, this))
{
    auto *central = new QWidget(this);
    auto *column = new QVBoxLayout(central);
    column->setContentsMargins(6, 6, 6, 6);
    column->setSpacing(4);
    m_summary = new SummaryStrip(document, central);
    connect(m_summary, &SummaryStrip::searchRequested, this, [this] { showPage(Page::Search); });
    column->addWidget(m_summary);

    // The charts page: where the step goes across the top, memory and roofline, then scaling and the step
    // timeline; each in a card, splitters between them.
    m_step = new StepBreakdownView(document);
    m_memory = new MemoryChartView(document);
    m_roofline = new RooflineView(document);
    m_scaling = new ScalingView(document);
    m_pipeline = new PipelineGanttView(document);
    auto *top = splitter(Qt::Horizontal, {card(m_memory), card(m_roofline)}, {1000, 1000});
    auto *bottom = splitter(Qt::Horizontal, {card(m_scaling), card(m_pipeline)}, {1000, 1000});
    auto *charts = splitter(Qt::Vertical, {card(m_step), top, bottom}, {180, 1000, 1000});

    // Pages that would crush the charts in a dock are tabs beside them; the summary stays in sight.
    m_pages = new QTabWidget;
    m_pages->setObjectName(QStringLiteral("pages"));
    m_pages->setDocumentMode(true);
    m_clusterView = new ClusterView(document);
    m_searchPanel = new SearchPanel(document);
    m_comparison = new ComparisonView(document);
    m_pages->addTab(charts, tr("Charts"));
    m_pages->addTab(m_clusterView, tr("Cluster Builder"));
    m_pages->addTab(m_searchPanel, tr("Search"));
    m_pages->addTab(m_comparison, tr("Compare"));
    m_pages->addTab(new EstimateView(document), tr("Details"));
    column->addWidget(m_pages, 1);
    setCentralWidget(central);
    setAcceptDrops(true);

    m_editorDock = new QDockWidget(tr("Plan"), this);
    m_editorDock->setObjectName(QStringLiteral("planDock"));
    auto *editor = new PlanEditor(document);
    m_editorDock->setWidget(editor);
    m_editorDock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable |
                              QDockWidget::DockWidgetClosable);
    addDockWidget(Qt::LeftDockWidgetArea, m_editorDock);
    connect(editor, &PlanEditor::clusterBuilderRequested, this, [this] { showPage(Page::Cluster); });
    connect(editor, &PlanEditor::noteEdit, this, [this](const QString &note) { statusBar()->showMessage(note, 8000); });
    connect(m_clusterView, &ClusterView::statusMessage, this, [this](const QString &message) {
        statusBar()->showMessage(message, 6000);
    });
    connect(m_comparison, &ComparisonView::pinRequested, m_document, &PlanDocument::pinBaseline);
    connect(m_comparison, &ComparisonView::openBaselineRequested, this, &MainWindow::openBaseline);

    m_autosave = new Autosave(document, recoveryDirectory, this);
    qApp->installEventFilter(this); // Undo and Redo wherever the focus is (eventFilter)
    createMenus();
    connect(document, &PlanDocument::planChanged, this, &MainWindow::updateTitle);
    connect(document, &PlanDocument::filePathChanged, this, &MainWindow::updateTitle);
    connect(document, &PlanDocument::modifiedChanged, this, &QWidget::setWindowModified);
    updateTitle();

    resize(sizeOnScreen(this, QSize(1280, 800)));
    resizeDocks({m_editorDock}, {340}, Qt::Horizontal);
    QSettings settings;
    restoreGeometry(settings.value(kGeometryKey).toByteArray());
    restoreState(settings.value(kStateKey).toByteArray());
}

void MainWindow::showPage(Page page)
{
    m_pages->setCurrentIndex(int(page));
}

MainWindow::Page MainWindow::currentPage() const
{
    return Page(m_pages->currentIndex());
}

void MainWindow::dragEnterEvent(QDragEnterEvent *event)
{
    if (event->mimeData()->hasUrls())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent *event)
{
    QStringList paths;
    for (const QUrl &url : event->mimeData()->urls())
        if (url.isLocalFile())
            paths << url.toLocalFile();
    if (paths.isEmpty())
        return;
    event->acceptProposedAction();
    m_actions->openOrImport(paths);
}

void MainWindow::openBaseline()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Open Baseline"), QString(),
                                                      tr("Trainplan plans (*.json);;All files (*)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!loadBaseline(path, &error))
        QMessageBox::warning(this, tr("Open Baseline"), tr("%1 is not a valid plan:\n\n%2").arg(path, error));
}

bool MainWindow::loadBaseline(const QString &path, QString *error)
{
    Problems problems;
    const std::optional<QByteArray> bytes = io::readPlanBytes(path, problems);
    if (!bytes) {
        *error = io::problemLine(problems.front());
        return false;
    }
    const io::PlanReadResult read = io::readPlan(*bytes, m_document->catalog());
    if (!read.plan) {
        QStringList lines;
        for (const Problem &p : read.problems)
            if (p.isError())
                lines << io::problemLine(p);
        *error = lines.join(QLatin1Char('\n'));
        return false;
    }
    m_document->setBaseline(*read.plan, QFileInfo(path).fileName());
    showPage(Page::Compare);
    return true;
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
    createCompareMenu();
    createToolsMenu();
    createHelpMenu();
}

void MainWindow::createFileMenu()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    file->addAction(m_actions->newAction());
    file->addAction(m_actions->openAction());
    file->addAction(m_actions->importAction());
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
    QMenu *launch = exportMenu->addMenu(tr("&Launch Configuration"));
    launch->setObjectName(QStringLiteral("exportLaunch"));
    const QString targets[] = {tr("&Megatron-LM Script…"), tr("&NeMo Recipe…"), tr("&torchtitan Job File…"),
                               tr("&DeepSpeed Config…"), tr("&llm-foundry Training YAML…")};
    for (int t = 0; t < int(std::size(targets)); ++t) // io::ExportTarget's order
        connect(launch->addAction(targets[t]), &QAction::triggered, this, [this, t] { m_actions->exportLaunch(t); });
    exportMenu->addSeparator();
    QMenu *pageSize = exportMenu->addMenu(tr("Report &Page Size"));
    auto *pageSizes = new QActionGroup(pageSize);
    for (const auto &[label, id] :
         {std::pair{tr("A4"), QPageSize::A4}, std::pair{tr("US Letter"), QPageSize::Letter}}) {
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
    view->addSeparator();
    // Ctrl+1 to Ctrl+5 in the tabs' order; the older Ctrl+B and Ctrl+Shift+F still work.
    const std::tuple<Page, QString, QList<QKeySequence>, const char *> pages[] = {
        {Page::Charts, tr("C&harts"), {QKeySequence(Qt::CTRL | Qt::Key_1)}, "showCharts"},
        {Page::Cluster,
         tr("&Cluster Builder"),
         {QKeySequence(Qt::CTRL | Qt::Key_2), QKeySequence(Qt::CTRL | Qt::Key_B)},
         "showClusterBuilder"},
        {Page::Search,
         tr("&Search Plans"),
         {QKeySequence(Qt::CTRL | Qt::Key_3), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F)},
         "showSearch"},
        {Page::Compare, tr("Co&mpare with Baseline"), {QKeySequence(Qt::CTRL | Qt::Key_4)}, "showCompare"},
        {Page::Details, tr("&Details (the estimate as a table)"), {QKeySequence(Qt::CTRL | Qt::Key_5)}, "showDetails"}};
    for (const auto &[page, text, keys, name] : pages) {
        QAction *a = view->addAction(text);
        a->setObjectName(QLatin1String(name));
        a->setShortcuts(keys);
        connect(a, &QAction::triggered, this, [this, page = page] { showPage(page); });
    }
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

void MainWindow::createToolsMenu()
{
    QMenu *tools = menuBar()->addMenu(tr("&Tools"));
    QAction *calibrate = tools->addAction(tr("&Calibrate a Device to Measured Runs…"));
    calibrate->setObjectName(QStringLiteral("calibrateAction"));
    connect(calibrate, &QAction::triggered, this, [this] {
        auto *dialog = new CalibrateDialog(m_document, m_clusterView->customCatalog(), this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->show();
    });
    QAction *profile = tools->addAction(tr("Compare with a &Profiler Trace…"));
    profile->setObjectName(QStringLiteral("profileAction"));
    connect(profile, &QAction::triggered, this, [this] {
        auto *dialog = new ProfileDialog(m_document, this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->show();
    });
}

void MainWindow::createCompareMenu()
{
    QMenu *compare = menuBar()->addMenu(tr("&Compare"));
    QAction *pin = compare->addAction(tr("&Pin Current Plan as Baseline"));
    pin->setObjectName(QStringLiteral("pinBaselineAction"));
    pin->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_B));
    connect(pin, &QAction::triggered, this, [this] {
        m_document->pinBaseline();
        statusBar()->showMessage(tr("Pinned \"%1\" as the baseline: edit the plan and every chart overlays it")
                                     .arg(m_document->baselineName()),
                                 6000);
    });
    QAction *open = compare->addAction(tr("&Open a Plan File as Baseline…"));
    connect(open, &QAction::triggered, this, &MainWindow::openBaseline);
    QAction *clear = compare->addAction(tr("&Clear Baseline"));
    clear->setEnabled(false);
    connect(clear, &QAction::triggered, m_document, &PlanDocument::clearBaseline);
    connect(m_document, &PlanDocument::baselineChanged, clear,
            [this, clear] { clear->setEnabled(m_document->hasBaseline()); });
    compare->addSeparator();
    QAction *show = compare->addAction(tr("Show the &Comparison"));
    connect(show, &QAction::triggered, this, [this] { showPage(Page::Compare); });
}

void MainWindow::createHelpMenu()
{
    QMenu *help = menuBar()->addMenu(tr("&Help"));
    QAction *learn = help->addAction(tr("&Learn: Figures and Exercises"));
    learn->setObjectName(QStringLiteral("openLearn"));
    learn->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_L));
    connect(learn, &QAction::triggered, this, [this] {
        learnWindow()->show();
        learnWindow()->raise();
        learnWindow()->activateWindow();
    });
    QAction *manual = help->addAction(tr("User &Manual"));
    manual->setObjectName(QStringLiteral("openManual"));
    manual->setShortcut(QKeySequence::HelpContents);
    connect(manual, &QAction::triggered, this, &MainWindow::showManual);
    QAction *keys = help->addAction(tr("&Keyboard Shortcuts"));
    keys->setObjectName(QStringLiteral("showShortcuts"));
    keys->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Slash));
    connect(keys, &QAction::triggered, this, &MainWindow::showShortcuts);
    help->addSeparator();
    QAction *about = help->addAction(tr("&About Trainplan"));
    about->setMenuRole(QAction::AboutRole);
    connect(about, &QAction::triggered, this, [this] {
        QMessageBox::about(
            this, tr("About Trainplan"),
            tr("<b>Trainplan %1</b><p>Will this training plan fit, how fast will it run, what limits it, "
               "and what should change?</p>")
                .arg(QApplication::applicationVersion()));
    });
}

/// Help > User Manual: the README's sections on using Trainplan (compiled in), from "Use" on.
void MainWindow::showManual()
{
    QFile file(QStringLiteral(":/trainplan/README.md"));
    QString text =
        file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : tr("The manual is not compiled in.");
    if (const qsizetype use = text.indexOf(QStringLiteral("\n## Use")); use >= 0)
        text = QStringLiteral("# Trainplan user manual\n") + text.mid(use);
    helpDialog(QStringLiteral("manual"), tr("Trainplan User Manual"), text, true);
}

/// Help > Keyboard Shortcuts: every menu action with a shortcut, as the menus have them, and the Learn
/// window's presentation keys.
void MainWindow::showShortcuts()
{
    QString text = tr("| Action | Keys |\n|---|---|\n");
    const std::function<void(QMenu *, const QString &)> walk = [&](QMenu *menu, const QString &path) {
        for (QAction *a : menu->actions()) {
            const QString name = path + a->text().remove(QLatin1Char('&'));
            if (a->menu())
                walk(a->menu(), name + QStringLiteral(" > "));
            else if (!a->shortcuts().isEmpty()) {
                QStringList keys;
                for (const QKeySequence &k : a->shortcuts())
                    keys << k.toString(QKeySequence::NativeText);
                text += QStringLiteral("| %1 | %2 |\n").arg(name, keys.join(QStringLiteral(", ")));
            }
        }
    };
    for (QAction *top : menuBar()->actions())
        if (top->menu())
            walk(top->menu(), top->text().remove(QLatin1Char('&')) + QStringLiteral(" > "));
    text +=
        tr("\n**Learn window** (Ctrl+L): Right, Page Down or Space for the next page; Left or Page Up for the "
           "previous one; Home and End for the first and the last; F5: Present (full screen, large type; Esc leaves). "
           "While presenting, these keys turn pages even from an input; a click on an input gives it the keyboard."
           "\n\n**Editing**: Ctrl+Z and Ctrl+Shift+Z undo and redo even with a field focused; every edit is one undo "
           "step.\n");
    helpDialog(QStringLiteral("shortcuts"), tr("Keyboard Shortcuts"), text, false);
}

void MainWindow::helpDialog(const QString &name, const QString &title, const QString &markdown, bool large)
{
    auto *dialog = findChild<QDialog *>(name);
    QTextBrowser *browser = nullptr;
    if (!dialog) {
        dialog = new QDialog(this);
        dialog->setObjectName(name);
        dialog->setWindowTitle(title);
        auto *layout = new QVBoxLayout(dialog);
        browser = new QTextBrowser(dialog);
        browser->setOpenExternalLinks(true);
        layout->addWidget(browser);
        auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
        connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::close);
        layout->addWidget(buttons);
        // Within the screen at 1280x800 and larger.
        const QRect screen = this->screen() ? this->screen()->availableGeometry() : QRect(0, 0, 1280, 800);
        dialog->resize(std::min(large ? 900 : 620, screen.width() - 40),
                       std::min(large ? 700 : 560, screen.height() - 80));
    } else {
        browser = dialog->findChild<QTextBrowser *>();
    }
    browser->setMarkdown(markdown);
    dialog->show();
    dialog->raise();
    dialog->activateWindow();
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
        QMessageBox::warning(this, tr("Export Report"),
                             tr("The plan has errors; fix them (they are shown under their fields) "
                                "before exporting a report."));
        return;
    }
    QSettings settings;
    const QString dir = settings.value(QStringLiteral("export/dir"), QDir::homePath()).toString();
    const QString stem = QFileInfo(m_document->displayName()).completeBaseName();
    const QString path = QFileDialog::getSaveFileName(this, tr("Export Report"),
                                                      dir + QLatin1Char('/') + stem + QStringLiteral("-audit.pdf"),
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
    const QString dir = QFileDialog::getExistingDirectory(
        this, tr("Export All Charts"), settings.value(QStringLiteral("export/dir"), QDir::homePath()).toString());
    if (dir.isEmpty())
        return;
    QStringList written;
    QString error;
    if (!writeChartPngs(m_document, dir,
                        QSize(settings.value(QStringLiteral("export/width"), 1600).toInt(),
                              settings.value(QStringLiteral("export/height"), 1000).toInt()),
                        settings.value(QStringLiteral("export/dpi"), 192).toInt(), {m_document->filePath()}, &written,
                        &error)) {
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
