#pragma once
// No lost work: while a document is modified, its plan is written to a recovery file of its own every few
// seconds (atomically); a clean document (saved, or closed on purpose) removes it. Each window's file
// (recovery-<id>.json) is locked while the window lives, so at the next start, whatever the command line,
// the files no running window holds are the ones a crash left behind, and they are offered together.
// A window never writes into a recovery file it did not make or adopt.

#include <QDateTime>
#include <QLockFile>
#include <QObject>
#include <QTimer>

#include <memory>
#include <vector>

namespace trainplan {

class PlanDocument;

class Autosave : public QObject
{
    Q_OBJECT

public:
    /// A recovery file a previous session left behind.
    struct Recovery
    {
        QString recoveryPath; ///< the recovery file itself
        QString filePath;     ///< the file the plan came from (empty for an unsaved plan)
        QString planName;
        QByteArray plan;      ///< the plan file's bytes
        QDateTime written;
    };

    /// `directory` holds the recovery files (tests pass a temporary one); the default is
    /// defaultDirectory().
    explicit Autosave(PlanDocument *document, const QString &directory = {}, QObject *parent = nullptr);
    ~Autosave() override;

    /// The application's data location.
    static QString defaultDirectory();
    /// Recovery files in `directory` that no running window holds, oldest first.
    static std::vector<Recovery> orphans(const QString &directory = {});

    void setInterval(int milliseconds) { m_timer.setInterval(milliseconds); }
    QString recoveryPath() const { return m_path; }

    /// Writes the recovery file now (also done by the timer).
    bool writeNow();
    /// Removes the recovery file: the document is saved or was closed on purpose.
    void discard();
    /// Takes over a recovered file (after its plan was loaded into this window's document): this window's
    /// autosaves go to it from now on, and it is locked like the window's own.
    bool adopt(const QString &recoveryPath);

private:
    PlanDocument *m_document;
    QString m_path;
    std::unique_ptr<QLockFile> m_lock;
    QTimer m_timer;
};

} // namespace trainplan
