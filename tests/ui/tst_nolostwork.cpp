// No lost work: autosave of a modified document and its recovery after a crash; a save killed midway
// leaves the old file intact; opening another file or closing with unsaved changes always asks.

#include <QAbstractButton>
#include <QApplication>
#include <QMessageBox>
#include <QProcess>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QUndoStack>

#include "io/CatalogJson.h"
#include "ui/DocumentActions.h"
#include "ui/MainWindow.h"
#include "TestSupport.h"
#include "ui/commands/ReplacePlan.h"
#include "ui/document/Autosave.h"
#include "ui/commands/ReplacePlan.h"
#include "ui/document/PlanDocument.h"

using namespace trainplan;

namespace {

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
    Autosave autosave(&next, dir.path());
    const auto recovery = autosave.pendingRecovery();
    QVERIFY(recovery);
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

QTEST_MAIN(TestNoLostWork)
#include "tst_nolostwork.moc"
