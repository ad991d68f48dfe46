#pragma once
// The planner's windows: each its own document, undo stack and autosave, deleted on close. At every
// start, whatever the command line, the recovery files a crash left behind (Autosave::orphans) are offered
// together; each recovered plan opens in a window of its own (the first window when it holds nothing of
// the user's yet).

#include <QObject>
#include <QPointer>
#include <QString>

#include <vector>

#include "ui/document/Autosave.h"

namespace trainplan {

class Catalog;
class MainWindow;

class Planner : public QObject
{
    Q_OBJECT

public:
    /// `recoveryDirectory` empty: Autosave::defaultDirectory().
    explicit Planner(const Catalog &catalog, QString recoveryDirectory = {}, QObject *parent = nullptr);

    /// A new window with a new document holding the built-in example.
    MainWindow *newWindow();
    /// The first window on `planFile` (empty: the built-in example), shown; then the recovery offer.
    MainWindow *start(const QString &planFile);
    /// Offers every orphan recovery file in one dialog; returns how many plans were recovered.
    int offerRecoveries(MainWindow *first, bool firstIsFree);
    /// Loads a recovery into a window (its autosave adopts the file); false with a message when the plan
    /// is not valid any more.
    bool recoverInto(MainWindow *window, const Autosave::Recovery &recovery);

    std::vector<MainWindow *> windows() const;

private:
    const Catalog &m_catalog;
    QString m_recoveryDirectory;
    std::vector<QPointer<MainWindow>> m_windows;
};

} // namespace trainplan
