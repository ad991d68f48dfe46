#include "ui/DocumentActions.h"

#include <QAction>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QSettings>
#include <QMessageBox>
#include <QWidget>

#include "io/CatalogJson.h"
#include "io/Examples.h"
#include "ui/ExampleGallery.h"
#include "ui/document/PlanDocument.h"

namespace trainplan {

namespace {
const QString kPlanFilter = QObject::tr("Trainplan plans (*.json);;All files (*)");
constexpr auto kRecentFilesKey = "file/recentFiles";
constexpr int kMaxRecentFiles = 8;
} // namespace

DocumentActions::DocumentActions(PlanDocument *document, QWidget *dialogParent)
    : QObject(dialogParent), m_document(document), m_dialogParent(dialogParent)
{
    m_new = new QAction(tr("&New from Example"), this);
    m_new->setShortcut(QKeySequence::New);
    m_open = new QAction(tr("&Open..."), this);
    m_open->setShortcut(QKeySequence::Open);
    m_save = new QAction(tr("&Save"), this);
    m_save->setShortcut(QKeySequence::Save);
    m_saveAs = new QAction(tr("Save &As..."), this);
    m_saveAs->setShortcut(QKeySequence::SaveAs);
    m_quit = new QAction(tr("&Quit"), this);
    m_quit->setShortcut(QKeySequence::Quit);
    m_quit->setMenuRole(QAction::QuitRole);

    connect(m_new, &QAction::triggered, this, &DocumentActions::newFromExample);
    connect(m_open, &QAction::triggered, this, &DocumentActions::open);
    connect(m_save, &QAction::triggered, this, &DocumentActions::save);
    connect(m_saveAs, &QAction::triggered, this, &DocumentActions::saveAs);
    connect(m_quit, &QAction::triggered, m_dialogParent, &QWidget::close);

    m_recent = new QMenu(tr("Open &Recent"), dialogParent);
    rebuildRecentMenu();
}

QStringList DocumentActions::recentFiles() const
{
    return QSettings().value(kRecentFilesKey).toStringList();
}

void DocumentActions::rememberFile(const QString &path)
{
    QStringList files = recentFiles();
    const QString absolute = QFileInfo(path).absoluteFilePath();
    files.removeAll(absolute);
    files.prepend(absolute);
    while (files.size() > kMaxRecentFiles)
        files.removeLast();
    QSettings().setValue(kRecentFilesKey, files);
    rebuildRecentMenu();
}

void DocumentActions::rebuildRecentMenu()
{
    m_recent->clear();
    const QStringList files = recentFiles();
    for (const QString &path : files) {
        QAction *action = m_recent->addAction(QFileInfo(path).fileName());
        action->setToolTip(path);
        action->setStatusTip(path);
        connect(action, &QAction::triggered, this, [this, path] {
            if (maybeSave())
                openFile(path);
        });
    }
    m_recent->setEnabled(!files.isEmpty());
}

void DocumentActions::newFromExample()
{
    if (!maybeSave())
        return;
    ExampleGallery gallery(m_dialogParent);
    if (gallery.exec() == QDialog::Accepted)
        loadExample(gallery.chosenId());
}

bool DocumentActions::loadExample(const QString &id)
{
    for (const io::ExamplePlan &e : io::builtinExamples()) {
        if (e.id != id)
            continue;
        QString error;
        if (m_document->loadFromBytes(e.bytes, QString(), &error))
            return true;
        QMessageBox::critical(m_dialogParent, tr("Built-in example"), error);
        return false;
    }
    return false;
}

void DocumentActions::open()
{
    if (!maybeSave())
        return;
    const QString path = QFileDialog::getOpenFileName(m_dialogParent, tr("Open Plan"), QString(), kPlanFilter);
    if (!path.isEmpty())
        openFile(path);
}

bool DocumentActions::openFile(const QString &path)
{
    QString error;
    if (m_document->load(path, &error)) {
        rememberFile(path);
        return true;
    }
    QMessageBox::critical(m_dialogParent, tr("Cannot open plan"), tr("%1 is not a valid plan:\n\n%2").arg(path, error));
    return false;
}

bool DocumentActions::save()
{
    if (m_document->filePath().isEmpty())
        return saveAs();
    QString error;
    if (m_document->save(m_document->filePath(), &error)) {
        rememberFile(m_document->filePath());
        return true;
    }
    QMessageBox::critical(m_dialogParent, tr("Cannot save plan"), error);
    return false;
}

bool DocumentActions::saveAs()
{
    QString path = QFileDialog::getSaveFileName(m_dialogParent, tr("Save Plan As"), m_document->displayName(), kPlanFilter);
    if (path.isEmpty())
        return false;
    if (!path.endsWith(QLatin1String(".json"), Qt::CaseInsensitive))
        path += QLatin1String(".json");
    QString error;
    if (m_document->save(path, &error)) {
        rememberFile(path);
        return true;
    }
    QMessageBox::critical(m_dialogParent, tr("Cannot save plan"), error);
    return false;
}

bool DocumentActions::maybeSave()
{
    if (!m_document->isModified())
        return true;
    const auto answer = QMessageBox::warning(m_dialogParent, tr("Unsaved changes"),
                                             tr("%1 has unsaved changes. Save them?").arg(m_document->displayName()),
                                             QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
    if (answer == QMessageBox::Save)
        return save();
    return answer == QMessageBox::Discard;
}

} // namespace trainplan
