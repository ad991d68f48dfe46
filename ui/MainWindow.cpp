#include "MainWindow.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QUndoStack>

#include "DocumentActions.h"
#include "EstimateView.h"
#include "document/PlanDocument.h"

namespace trainplan {

namespace {
constexpr auto kGeometryKey = "mainWindow/geometry";
constexpr auto kStateKey = "mainWindow/state";
} // namespace

MainWindow::MainWindow(PlanDocument *document, QWidget *parent)
    : QMainWindow(parent), m_document(document), m_actions(new DocumentActions(document, this))
{
    setCentralWidget(new EstimateView(document, this));
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
    QMenu *file = menuBar()->addMenu(tr("&File"));
    file->addAction(m_actions->newAction());
    file->addAction(m_actions->openAction());
    file->addSeparator();
    file->addAction(m_actions->saveAction());
    file->addAction(m_actions->saveAsAction());
    file->addSeparator();
    file->addAction(m_actions->quitAction());

    QMenu *edit = menuBar()->addMenu(tr("&Edit"));
    QAction *undo = m_document->undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setShortcut(QKeySequence::Undo);
    QAction *redo = m_document->undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setShortcut(QKeySequence::Redo);
    edit->addAction(undo);
    edit->addAction(redo);

    menuBar()->addMenu(tr("&View"));

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    QAction *about = help->addAction(tr("&About Trainplan"));
    about->setMenuRole(QAction::AboutRole);
    connect(about, &QAction::triggered, this, [this] {
        QMessageBox::about(this, tr("About Trainplan"),
                           tr("<b>Trainplan %1</b><p>Will this training plan fit, how fast will it run, what limits it, "
                              "and what should change?</p>")
                               .arg(QApplication::applicationVersion()));
    });
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
    event->accept();
}

} // namespace trainplan
