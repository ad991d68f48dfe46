// No lost work: autosave of a modified document and its recovery after a crash; a save killed midway
// leaves the old file intact; opening another file or closing with unsaved changes always asks.

#include <QAbstractButton>
#include <QListWidget>
#include <QPushButton>
#include <QApplication>
#include <QMessageBox>
#include <QProcess>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QUndoStack>

#include "io/plan/CatalogJson.h"
#include "ui/DocumentActions.h"
#include "ui/MainWindow.h"
#include "ui/ExampleGallery.h"
#include <QListWidget>
#include "ui/Planner.h"
#include "TestMain.h"
#include "TestSupport.h"
#include "ui/commands/ReplacePlan.h"
#include "ui/document/Autosave.h"
#include "ui/document/PlanDocument.h"

using namespace trainplan;

namespace {

/// Runs the recovery helper (a real process that edits, autosaves and aborts) and checks it crashed.
void crashAfterEditing(const QStringList &arguments)
{
    QProcess helper;
    helper.start(QStringLiteral(RECOVERYCRASH_PATH), arguments);
    QVERIFY(helper.waitForFinished(30000));
    QCOMPARE(helper.exitStatus(), QProcess::CrashExit);
}

/// Answers the next recovery dialog with the button `name` ("recover", "discard", "later") and records how
/// many recoveries it listed.
void answerRecoveryDialog(const QString &name, int *listed)
{
    QTimer::singleShot(0, [name, listed] {
        QWidget *dialog = QApplication::activeModalWidget();
        if (!dialog || dialog->objectName() != QLatin1String("recoveryDialog"))
            return;
        if (listed)
            *listed = dialog->findChild<QListWidget *>(QStringLiteral("recoveries"))->count();
        dialog->findChild<QPushButton *>(name)->click();
    });
}

QString writeExamplePlan(const QTemporaryDir &dir)
{
    const QString path = dir.filePath(QStringLiteral("plan.json"));
    QFile file(path);
    if (file.open(QIODevice::WriteOnly))
        file.write(io::builtinExamplePlan());
    return path;
}

/// Answers the next message box with `button` and records its text.
void answerNextMessageBox(QMessageBox::StandardButton button, QString *text)
{
    QTimer::singleShot(0, [button, text] {
        if (auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget())) {
            if (text)
                *text = box->text();
            box->button(button)->click();
        }
    });
}

/// Chooses `id` in the examples gallery as soon as it is shown (polling, as the gallery opens after the
/// message box that asks to save).
void chooseExampleWhenShown(const QString &id)
{
    auto *timer = new QTimer;
    timer->setInterval(10);
    QObject::connect(timer, &QTimer::timeout, [timer, id] {
        auto *gallery = qobject_cast<ExampleGallery *>(QApplication::activeModalWidget());
        if (!gallery)
            return;
        for (int row = 0; row < gallery->list()->count(); ++row)
            if (gallery->list()->item(row)->data(Qt::UserRole).toString() == id)
                gallery->list()->setCurrentRow(row);
        gallery->accept();
        timer->deleteLater();
    });
    timer->start();
}

} // namespace

class TestNoLostWork : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void autosaveWritesAndRecovers();
    void savingRemovesRecovery();
    void killedSaveKeepsOldFile();
    void openingAnotherFileAsks();
    void closingAsks();
    void recoveryIsOfferedWhenAFileIsOpened();
    void eachWindowHasItsOwnRecoveryFile();
    void aRecoveryFileNotOfferedIsNeverOverwritten();
};

void TestNoLostWork::autosaveWritesAndRecovers()
{
    QTemporaryDir dir;
    Plan edited;
    {
        PlanDocument document(io::builtinCatalog());
        QString error;
        QVERIFY(document.loadFromBytes(io::builtinExamplePlan(), dir.filePath("plan.json"), &error));
        Autosave autosave(&document, dir.path());
        autosave.setInterval(20);
        Plan plan = document.plan();
        plan.training.microBatch = 2;
        document.undoStack()->push(new ReplacePlan(&document, plan, "edit"));
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(autosave.recoveryPath()), 2000);
        edited = document.plan();
        // The process "crashes" here: nothing removes the recovery file.
    }
    PlanDocument next(io::builtinCatalog());
    const std::vector<Autosave::Recovery> orphans = Autosave::orphans(dir.path());
    QCOMPARE(int(orphans.size()), 1);
    const Autosave::Recovery *recovery = &orphans.front();
    QCOMPARE(recovery->filePath, dir.filePath("plan.json"));
    QString error;
    QVERIFY2(next.recover(recovery->plan, recovery->filePath, &error), qPrintable(error));
    QVERIFY(next.plan() == edited);
    QVERIFY(next.isModified());
    QCOMPARE(next.filePath(), dir.filePath("plan.json"));
}

void TestNoLostWork::savingRemovesRecovery()
{
    QTemporaryDir dir;
    PlanDocument document(io::builtinCatalog());
    QString error;
    QVERIFY(document.loadFromBytes(io::builtinExamplePlan(), QString(), &error));
    Autosave autosave(&document, dir.path());
    Plan plan = document.plan();
    plan.model.seqLen = 4096;
    document.undoStack()->push(new ReplacePlan(&document, plan, "edit"));
    QVERIFY(autosave.writeNow());
    QVERIFY(QFile::exists(autosave.recoveryPath()));
    QVERIFY(document.save(dir.filePath("saved.json"), &error));
    QVERIFY(!QFile::exists(autosave.recoveryPath()));
    // A clean document writes nothing.
    QVERIFY(!autosave.writeNow());
}

void TestNoLostWork::killedSaveKeepsOldFile()
{
    QTemporaryDir dir;
    const QString path = dir.filePath("plan.json");
    QFile original(path);
    QVERIFY(original.open(QIODevice::WriteOnly));
    const QByteArray before = io::builtinExamplePlan();
    original.write(before);
    original.close();

    QProcess helper;
    helper.start(QStringLiteral(SAVECRASH_PATH), {path});
    QVERIFY(helper.waitForFinished(10000));
    QCOMPARE(helper.exitStatus(), QProcess::CrashExit);

    QVERIFY(original.open(QIODevice::ReadOnly));
    QCOMPARE(original.readAll(), before);
    PlanDocument document(io::builtinCatalog());
    QString error;
    QVERIFY2(document.load(path, &error), qPrintable(error));
}

void TestNoLostWork::openingAnotherFileAsks()
{
    PlanDocument document(io::builtinCatalog());
    MainWindow window(&document);
    QString error;
    QVERIFY(document.loadFromBytes(io::builtinExamplePlan(), QString(), &error));
    window.findChild<QSpinBox *>(QStringLiteral("model.layers"))->setValue(48);
    const Plan edited = document.plan();
    QString asked;
    answerNextMessageBox(QMessageBox::Cancel, &asked);
    window.documentActions()->newFromExample();
    QVERIFY2(asked.contains(QStringLiteral("unsaved changes")), qPrintable(asked));
    QVERIFY(document.plan() == edited);
    QVERIFY(document.isModified());
    // Discarding replaces the document.
    answerNextMessageBox(QMessageBox::Discard, nullptr);
    chooseExampleWhenShown(QStringLiteral("gpt3-175b-tp8-pp8"));
    window.documentActions()->newFromExample();
    QVERIFY(!document.isModified());
    QCOMPARE(document.plan().model.layers, 96);
}

void TestNoLostWork::closingAsks()
{
    PlanDocument document(io::builtinCatalog());
    MainWindow window(&document);
    QString error;
    QVERIFY(document.loadFromBytes(io::builtinExamplePlan(), QString(), &error));
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.findChild<QSpinBox *>(QStringLiteral("model.layers"))->setValue(48);
    QString asked;
    answerNextMessageBox(QMessageBox::Cancel, &asked);
    QVERIFY(!window.close());
    QVERIFY(asked.contains(QStringLiteral("unsaved changes")));
    QVERIFY(window.isVisible());
    answerNextMessageBox(QMessageBox::Discard, nullptr);
    QVERIFY(window.close());
}

// The desktop entry starts `trainplan %f`: after a crash, opening a file still offers the recovery, and the
// recovered plan opens in a window of its own next to the file's.
void TestNoLostWork::recoveryIsOfferedWhenAFileIsOpened()
{
    QTemporaryDir dir;
    const QString plan = writeExamplePlan(dir);
    const QString recovery = dir.filePath(QStringLiteral("recovery"));
    crashAfterEditing({QStringLiteral("one"), plan, recovery});
    QCOMPARE(int(Autosave::orphans(recovery).size()), 1);

    Planner planner(io::builtinCatalog(), recovery);
    int listed = 0;
    answerRecoveryDialog(QStringLiteral("recover"), &listed);
    MainWindow *first = planner.start(plan);
    QCOMPARE(listed, 1);
    const std::vector<MainWindow *> windows = planner.windows();
    QCOMPARE(int(windows.size()), 2);
    QCOMPARE(first->document()->filePath(), plan);
    QVERIFY(!first->document()->isModified());
    PlanDocument *recovered = windows[1]->document();
    QVERIFY(recovered->isModified());
    QCOMPARE(recovered->plan().training.microBatch, 4);
    QCOMPARE(recovered->filePath(), plan);
    // The recovered window keeps that file: nothing is left to offer while it runs.
    QVERIFY(Autosave::orphans(recovery).empty());
    for (MainWindow *w : windows)
        w->document()->undoStack()->setClean();
    for (MainWindow *w : windows)
        w->close();
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete); // before the directory goes
}

// Window B saving its own plan keeps window A's recovery file; after the crash A's edit is offered.
void TestNoLostWork::eachWindowHasItsOwnRecoveryFile()
{
    QTemporaryDir dir;
    const QString plan = writeExamplePlan(dir);
    const QString recovery = dir.filePath(QStringLiteral("recovery"));
    crashAfterEditing({QStringLiteral("two"), plan, recovery, dir.filePath(QStringLiteral("saved.json"))});
    const std::vector<Autosave::Recovery> orphans = Autosave::orphans(recovery);
    QCOMPARE(int(orphans.size()), 1);
    PlanDocument document(io::builtinCatalog());
    QString error;
    QVERIFY2(document.recover(orphans.front().plan, orphans.front().filePath, &error), qPrintable(error));
    QCOMPARE(document.plan().training.microBatch, 4); // A's edit (B had set 2 and saved)
}

// "Not Now" leaves the recovery for the next start: this session's autosaves go to its own file.
void TestNoLostWork::aRecoveryFileNotOfferedIsNeverOverwritten()
{
    QTemporaryDir dir;
    const QString plan = writeExamplePlan(dir);
    const QString recovery = dir.filePath(QStringLiteral("recovery"));
    crashAfterEditing({QStringLiteral("one"), plan, recovery});
    const Autosave::Recovery left = Autosave::orphans(recovery).front();
    QFile leftFile(left.recoveryPath);
    QVERIFY(leftFile.open(QIODevice::ReadOnly));
    const QByteArray before = leftFile.readAll();
    leftFile.close();

    Planner planner(io::builtinCatalog(), recovery);
    answerRecoveryDialog(QStringLiteral("later"), nullptr);
    MainWindow *window = planner.start(plan);
    window->findChild<QSpinBox *>(QStringLiteral("model.layers"))->setValue(48);
    QVERIFY(window->autosave()->writeNow());
    QVERIFY(window->autosave()->recoveryPath() != left.recoveryPath);
    QVERIFY(leftFile.open(QIODevice::ReadOnly));
    QCOMPARE(leftFile.readAll(), before);
    leftFile.close();
    const std::vector<Autosave::Recovery> still = Autosave::orphans(recovery);
    QCOMPARE(int(still.size()), 1); // this window's own file is held; the crashed one is still offered
    QCOMPARE(still.front().recoveryPath, left.recoveryPath);
    window->document()->undoStack()->setClean();
    window->close();
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete); // before the directory goes
}

TRAINPLAN_TEST_MAIN(TestNoLostWork)
#include "tst_nolostwork.moc"
