#pragma once
// No lost work: while the document is modified, its plan is written to a recovery file every few
// seconds (atomically); a clean document (saved, or closed on purpose) removes it. At the next start a
// recovery file left behind by a crash is offered back.

#include <QDateTime>
#include <QObject>
#include <QTimer>

#include <optional>

namespace trainplan {

class PlanDocument;

class Autosave : public QObject
{
    Q_OBJECT

public:
    struct Recovery
    {
        QString filePath;  ///< the file the plan came from (empty for an unsaved plan)
        QByteArray plan;   ///< the plan file's bytes
        QDateTime written;
    };

    /// `directory` holds the recovery file (tests pass a temporary one); the default is the
    /// application's data location.
    explicit Autosave(PlanDocument *document, const QString &directory = {}, QObject *parent = nullptr);

    void setInterval(int milliseconds) { m_timer.setInterval(milliseconds); }
    QString recoveryPath() const { return m_path; }

    /// What a previous session left behind, if anything.
    std::optional<Recovery> pendingRecovery() const;
    /// Writes the recovery file now (also done by the timer).
    bool writeNow();
    /// Removes the recovery file: the document is saved or was closed on purpose.
    void discard();

private:
    PlanDocument *m_document;
    QString m_path;
    QTimer m_timer;
};

} // namespace trainplan
