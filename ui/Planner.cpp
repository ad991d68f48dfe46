#include "ui/Planner.h"

#include <QCheckBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFile>
#include <QLabel>
#include <QListWidget>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>
#include <QVBoxLayout>

#include "io/plan/CatalogJson.h"
#include "ui/DocumentActions.h"
#include "ui/MainWindow.h"
#include "ui/document/PlanDocument.h"

namespace trainplan {

namespace {

enum class Choice { Recover, Discard, Later };

/// One dialog for every recovery: a checkable list, Recover (the checked ones), Discard (all) and Not Now.
Choice askAboutRecoveries(QWidget *parent, const std::vector<Autosave::Recovery> &recoveries,
                          std::vector<bool> &checked)
{
    QDialog dialog(parent);
    dialog.setObjectName(QStringLiteral("recoveryDialog"));
    dialog.setWindowTitle(QObject::tr("Recover unsaved changes"));
    auto *text =
        new QLabel(QObject::tr("Trainplan did not close normally. These plans have changes that were not saved:"));
    text->setWordWrap(true);
    auto *list = new QListWidget;
    list->setObjectName(QStringLiteral("recoveries"));
    for (const Autosave::Recovery &r : recoveries) {
        const QString what = r.filePath.isEmpty() ? QObject::tr("%1 (never saved)").arg(r.planName) : r.filePath;
        auto *item =
            new QListWidgetItem(QObject::tr("%1, autosaved %2")
                                    .arg(what, QLocale().toString(r.written.toLocalTime(), QLocale::ShortFormat)));
        item->setCheckState(Qt::Checked);
        list->addItem(item);
    }
    auto *buttons = new QDialogButtonBox;
    QPushButton *recover = buttons->addButton(QObject::tr("Recover"), QDialogButtonBox::AcceptRole);
    recover->setObjectName(QStringLiteral("recover"));
    QPushButton *discard = buttons->addButton(QObject::tr("Discard All"), QDialogButtonBox::DestructiveRole);
    discard->setObjectName(QStringLiteral("discard"));
    QPushButton *later = buttons->addButton(QObject::tr("Not Now"), QDialogButtonBox::RejectRole);
    later->setObjectName(QStringLiteral("later"));
    Choice choice = Choice::Later;
    QObject::connect(recover, &QPushButton::clicked, &dialog, [&] { choice = Choice::Recover; dialog.accept(); });
    QObject::connect(discard, &QPushButton::clicked, &dialog, [&] { choice = Choice::Discard; dialog.accept(); });
    QObject::connect(later, &QPushButton::clicked, &dialog, [&] { choice = Choice::Later; dialog.reject(); });
    auto *layout = new QVBoxLayout(&dialog);
    layout->addWidget(text);
    layout->addWidget(list);
    layout->addWidget(new QLabel(QObject::tr("Plans you do not recover now are offered again at the next start.")));
    layout->addWidget(buttons);
    dialog.exec();
    checked.assign(recoveries.size(), false);
    for (int i = 0; i < list->count(); ++i)
        checked[std::size_t(i)] = list->item(i)->checkState() == Qt::Checked;
    return choice;
}

} // namespace

Planner::Planner(const Catalog &catalog, QString recoveryDirectory, QObject *parent)
    : QObject(parent), m_catalog(catalog), m_recoveryDirectory(std::move(recoveryDirectory))
{
}

MainWindow *Planner::newWindow()
{
    auto *document = new PlanDocument(m_catalog);
    auto *window = new MainWindow(document, m_recoveryDirectory);
    window->setAttribute(Qt::WA_DeleteOnClose);
    connect(window, &QObject::destroyed, document, &QObject::deleteLater);
    QString error;
    if (!document->loadFromBytes(io::builtinExamplePlan(), QString(), &error))
        qWarning("built-in example plan: %s", qPrintable(error));
    m_windows.emplace_back(window);
    return window;
}

MainWindow *Planner::start(const QString &planFile)
{
    MainWindow *first = newWindow();
    if (!planFile.isEmpty())
        first->documentActions()->openFile(planFile);
    first->show();
    offerRecoveries(first, planFile.isEmpty());
    return first;
}

int Planner::offerRecoveries(MainWindow *first, bool firstIsFree)
{
    const std::vector<Autosave::Recovery> recoveries = Autosave::orphans(m_recoveryDirectory);
    if (recoveries.empty())
        return 0;
    std::vector<bool> checked;
    const Choice choice = askAboutRecoveries(first, recoveries, checked);
    if (choice == Choice::Later)
        return 0;
    int recovered = 0;
    for (std::size_t i = 0; i < recoveries.size(); ++i) {
        if (choice == Choice::Discard) {
            QFile::remove(recoveries[i].recoveryPath);
            continue;
        }
        if (!checked[i])
            continue;
        MainWindow *window = firstIsFree && recovered == 0 ? first : newWindow();
        if (recoverInto(window, recoveries[i])) {
            window->show();
            ++recovered;
        } else if (window != first) {
            window->close();
        }
    }
    return recovered;
}

bool Planner::recoverInto(MainWindow *window, const Autosave::Recovery &recovery)
{
    QString error;
    if (!window->document()->recover(recovery.plan, recovery.filePath, &error)) {
        QMessageBox::warning(window, tr("Recover unsaved changes"),
                             tr("%1 does not hold a valid plan any more:\n\n%2").arg(recovery.recoveryPath, error));
        return false;
    }
    window->autosave()->adopt(recovery.recoveryPath);
    return true;
}

std::vector<MainWindow *> Planner::windows() const
{
    std::vector<MainWindow *> out;
    for (const QPointer<MainWindow> &w : m_windows)
        if (w)
            out.push_back(w);
    return out;
}

} // namespace trainplan
