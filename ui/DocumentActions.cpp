#include "ui/DocumentActions.h"

#include "io/output/Format.h"

#include <algorithm>

#include <QTextEdit>

#include <QGridLayout>

#include "ui/ImportKeysDialog.h"
#include "ui/commands/ReplacePlan.h"

#include "io/interop/Import.h"
#include "io/common/SafeFile.h"
#include "io/interop/Export.h"

#include <QAction>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QSettings>
#include <QMessageBox>
#include <QWidget>

#include "io/plan/CatalogJson.h"
#include "io/plan/Examples.h"
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
    m_import = new QAction(tr("&Import Configuration…"), this);
    m_import->setObjectName(QStringLiteral("importConfiguration"));
    m_import->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_I));
    m_import->setStatusTip(tr("A plan from a Hugging Face config.json, a Megatron-LM script, a NeMo recipe, a "
                              "torchtitan job file or saved configuration, or "
                              "a DeepSpeed config (several at once: the model from one, the launch from another)"));
    connect(m_import, &QAction::triggered, this, [this] {
        const QStringList paths = QFileDialog::getOpenFileNames(
            m_dialogParent, tr("Import Configuration"), QString(),
            tr("Configurations (*.json *.sh *.txt *.args *.yaml *.yml *.toml *.log *.out);;All files (*)"));
        if (!paths.isEmpty())
            importFiles(paths);
    });
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

/// QMessageBox's details show five lines in a box of fixed size: these show twenty and the box resizes.
void DocumentActions::showResizableDetails(QMessageBox *box)
{
    box->setSizeGripEnabled(true);
    if (auto *grid = qobject_cast<QGridLayout *>(box->layout()))
        grid->setSizeConstraint(QLayout::SetNoConstraint);
    if (auto *details = box->findChild<QTextEdit *>()) {
        details->setMinimumHeight(details->fontMetrics().lineSpacing() * 20);
        details->setMinimumWidth(details->fontMetrics().averageCharWidth() * 90);
        details->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
        box->setMaximumSize(QWIDGETSIZE_MAX, QWIDGETSIZE_MAX);
    }
}

bool DocumentActions::importFiles(const QStringList &paths, const QStringList &sets, const QStringList &scriptArguments)
{
    io::ImportOptions options;
    options.scriptArguments = scriptArguments;
    const io::ImportResult result = io::importFiles(paths, sets, m_document->catalog(), options);
    QStringList names;
    for (const QString &p : paths)
        names << QFileInfo(p).fileName();
    // What the plan needs and no file says is asked for, prefilled with the example plan's values, never
    // taken from it unseen (issue 38); the import runs again with the answers.
    // A launch script run without the arguments it expands ($1 ...) is asked for them too.
    if (!result.missing.empty() && result.errors.size() == result.missing.size()) {
        auto *ask = new ImportKeysDialog(result.missing, names, m_document->catalog(), result.missingArguments,
                                         scriptArguments, m_dialogParent);
        ask->setAttribute(Qt::WA_DeleteOnClose);
        connect(ask, &QDialog::accepted, this, [this, paths, sets, ask] {
            const QStringList arguments = ask->scriptArguments();
            QStringList answers = ask->sets();
            // Run with its arguments the script may give what was asked for: an answer (prefilled with the
            // example's value) is kept only for a key it still leaves out, so it never overrides the script.
            if (!arguments.isEmpty()) {
                io::ImportOptions again;
                again.scriptArguments = arguments;
                const io::ImportResult rerun = io::importFiles(paths, sets, m_document->catalog(), again);
                answers.erase(std::remove_if(answers.begin(), answers.end(),
                                             [&rerun](const QString &answer) {
                                                 const QString path = answer.section(QLatin1Char('='), 0, 0);
                                                 return std::none_of(
                                                     rerun.missing.begin(), rerun.missing.end(),
                                                     [&path](const io::MissingKey &m) { return m.path == path; });
                                             }),
                              answers.end());
            }
            importFiles(paths, sets + answers, arguments);
        });
        ask->open();
        return false;
    }
    const QString report = io::importReport(result);
    // Window-modal and not blocking: the report stays readable beside the plan it made.
    auto *box = new QMessageBox(m_dialogParent);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setObjectName(QStringLiteral("importReport"));
    box->setWindowTitle(tr("Import"));
    box->setDetailedText(report);
    if (!result.ok()) {
        box->setIcon(QMessageBox::Warning);
        box->setText(tr("%1 do not make a valid plan; the plan is unchanged.").arg(names.join(QStringLiteral(", "))));
        box->setInformativeText(result.errors.empty() ? QString()
                                                      : result.errors.front().where() + QStringLiteral(": ") +
                                                            result.errors.front().text);
        box->open();
        return false;
    }
    m_document->undoStack()->push(
        new ReplacePlan(m_document, *result.plan, tr("Import %1").arg(names.join(QStringLiteral(", ")))));
    box->setIcon(QMessageBox::Information);
    box->setText(
        tr("Imported %n key(s) from %1.", nullptr, int(result.read.size())).arg(names.join(QStringLiteral(", "))));
    QString info = sets.isEmpty()
                       ? QString()
                       : tr("You gave %1 of its keys: %2. ").arg(sets.size()).arg(sets.join(QStringLiteral(", ")));
    if (!result.defaults.isEmpty())
        info += tr("No file gives its layout, so it takes the plan format's defaults (%1; all in the details). ")
                    .arg(QStringList(result.defaults.mid(0, 3) + result.defaults.mid(result.defaults.size() - 1))
                             .join(QStringLiteral(", ")));
    // A plan that does not fit says so at once, and where to look.
    if (const Estimate &e = m_document->estimate(); e.valid && !e.memory.fits) {
        box->setIcon(QMessageBox::Warning);
        info += tr("It does not fit: %1 on stage %2 of %3 per GPU; Search (Ctrl+3) finds layouts that fit. ")
                    .arg(fmt::gib(e.memory.peakBytes), QString::number(e.memory.peakStage),
                         fmt::gib(e.memory.capacityBytes, 0));
    }
    if (!result.warnings.empty())
        info += tr("%1 warnings in the details. ").arg(result.warnings.size());
    box->setInformativeText(info + tr("Undo restores the plan before the import."));
    showResizableDetails(box);
    box->open();
    return true;
}

bool DocumentActions::exportLaunch(int target, QString path)
{
    const auto t = io::ExportTarget(target);
    static const char *names[] = {QT_TR_NOOP("Megatron-LM launch script"), QT_TR_NOOP("NeMo recipe"),
                                  QT_TR_NOOP("torchtitan job file"), QT_TR_NOOP("DeepSpeed config"),
                                  QT_TR_NOOP("llm-foundry training YAML")};
    const QString name = tr(names[target]);
    if (path.isEmpty()) {
        const QString suffix = QLatin1String(io::fileSuffixOf(t));
        path =
            QFileDialog::getSaveFileName(m_dialogParent, tr("Export %1").arg(name), QStringLiteral("launch.") + suffix,
                                         tr("%1 (*.%2);;All files (*)").arg(name, suffix));
        if (path.isEmpty())
            return false;
    }
    const io::ExportResult result = io::exportPlan(m_document->plan(), t, m_document->catalog());
    QString error;
    if (!io::writeAtomically(path, result.text, &error)) {
        QMessageBox::critical(m_dialogParent, tr("Export %1").arg(name),
                              tr("%1 could not be written:\n\n%2").arg(path, error));
        return false;
    }
    auto *box = new QMessageBox(QMessageBox::Information, tr("Export %1").arg(name),
                                tr("Wrote %1.").arg(QFileInfo(path).fileName()), QMessageBox::Ok, m_dialogParent);
    box->setObjectName(QStringLiteral("exportLaunchReport"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    const QString keys = result.notExpressed.isEmpty() ? tr("Every key of the plan is in it.")
                                                       : tr("%n key(s) it cannot express (see the details).", nullptr,
                                                            int(result.notExpressed.size()));
    if (!result.warnings.isEmpty()) {
        box->setIcon(QMessageBox::Warning);
        box->setText(
            tr("Wrote %1, but %2.").arg(QFileInfo(path).fileName(), result.warnings.join(QStringLiteral("; "))));
    }
    box->setInformativeText(keys);
    box->setDetailedText((result.warnings + result.notExpressed).join('\n'));
    showResizableDetails(box);
    box->open();
    return true;
}

bool DocumentActions::openOrImport(const QStringList &paths)
{
    if (paths.size() == 1 && paths.front().endsWith(QLatin1String(".json"), Qt::CaseInsensitive)) {
        QFile f(paths.front());
        if (f.open(QIODevice::ReadOnly) && f.read(4096).contains("\"trainplan-plan\""))
            return maybeSave() && openFile(paths.front());
    }
    return importFiles(paths);
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
    QString path =
        QFileDialog::getSaveFileName(m_dialogParent, tr("Save Plan As"), m_document->displayName(), kPlanFilter);
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
