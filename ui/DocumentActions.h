#pragma once
// File actions (New, Open, Save, Save As, Quit) and the unsaved-changes prompt, kept out of MainWindow
// so the window only wires components (Tiled's MapDocumentActionHandler).

#include <QObject>
#include <QStringList>

class QAction;
class QMenu;
class QWidget;

class QMessageBox;

namespace trainplan {

class PlanDocument;

class DocumentActions : public QObject
{
    Q_OBJECT

public:
    DocumentActions(PlanDocument *document, QWidget *dialogParent);

    QAction *newAction() const { return m_new; }
    QAction *openAction() const { return m_open; }
    QAction *importAction() const { return m_import; }
    QAction *saveAction() const { return m_save; }
    QAction *saveAsAction() const { return m_saveAs; }
    QAction *quitAction() const { return m_quit; }
    QMenu *recentMenu() const { return m_recent; }
    QStringList recentFiles() const;

    /// Opens `path` into the document, reporting failures in a message box; false leaves the document as is.
    bool openFile(const QString &path);
    /// Imports configuration files (io/interop/Import.h) into the document as one undo step, with `sets` (plan
    /// "key=value") applied last, and says what was read and not understood; false (the plan unchanged)
    /// when they do not make a valid plan, or when keys the files do not give are being asked for (the
    /// window-modal "importKeys" dialog, which imports again when accepted).
    bool importFiles(const QStringList &paths, const QStringList &sets = {}, const QStringList &scriptArguments = {});
    /// Writes the plan's launch configuration for `target` (io/interop/Export.h: 0 megatron, 1 nemo, 2 torchtitan,
    /// 3 deepspeed) to `path` (asked for when empty) and lists what the target cannot express.
    bool exportLaunch(int target, QString path = QString());
    /// Plan files open; other files import (dropped on the window).
    bool openOrImport(const QStringList &paths);
    /// Asks to save unsaved changes; false when the user cancels (or the save failed).
    bool maybeSave();

public slots:
    void newFromExample();
    /// Loads the built-in example `id` (io/plan/Examples) as a new, unsaved document.
    bool loadExample(const QString &id);
    void open();
    bool save();
    bool saveAs();

private:
    static void showResizableDetails(QMessageBox *box);
    void rememberFile(const QString &path);
    void rebuildRecentMenu();

    PlanDocument *m_document;
    QMenu *m_recent;
    QWidget *m_dialogParent;
    QAction *m_new;
    QAction *m_open;
    QAction *m_import;
    QAction *m_save;
    QAction *m_saveAs;
    QAction *m_quit;
};

} // namespace trainplan
