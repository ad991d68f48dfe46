// The planner window offscreen: menu skeleton, the built-in example shown, save/load through the
// document, unsaved-change tracking.

#include <QAction>
#include <QDockWidget>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoCommand>

#include "io/CatalogJson.h"
#include "ui/MainWindow.h"
#include "TestSupport.h"
#include "ui/document/PlanDocument.h"

using namespace trainplan;

namespace {
/// Minimal command to exercise the document's undo plumbing until editors bring their own.
class SetMicroBatch : public QUndoCommand
{
public:
    SetMicroBatch(PlanDocument *doc, std::int64_t value) : m_doc(doc), m_before(doc->plan()), m_after(doc->plan())
    {
        m_after.training.microBatch = value;
    }
    void redo() override { m_doc->setPlan(m_after); }
    void undo() override { m_doc->setPlan(m_before); }

private:
    PlanDocument *m_doc;
    Plan m_before, m_after;
};
} // namespace

class TestMainWindow : public QObject
{
    Q_OBJECT

private slots:
    void menuSkeleton();
    void showsExampleEstimate();
    void saveLoadRoundTripAndModifiedFlag();
};

void TestMainWindow::menuSkeleton()
{
    PlanDocument document(io::builtinCatalog());
    MainWindow window(&document);
    QStringList menus;
    for (QAction *a : window.menuBar()->actions())
        menus << a->text().remove('&');
    QCOMPARE(menus, (QStringList{"File", "Edit", "View", "Help"}));
}

void TestMainWindow::showsExampleEstimate()
{
    PlanDocument document(io::builtinCatalog());
    MainWindow window(&document);
    QString error;
    QVERIFY2(document.loadFromBytes(io::builtinExamplePlan(), QString(), &error), qPrintable(error));
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    auto *details = window.findChild<QDockWidget *>(QStringLiteral("detailsDock"));
    QVERIFY(details);
    details->show(); // the Details dock writes its table when shown
    auto *view = window.findChild<QPlainTextEdit *>();
    QVERIFY(view);
    QVERIFY(view->toPlainText().contains("174.62 B parameters"));
    QVERIFY(window.windowTitle().contains("GPT-3 175B"));
    QVERIFY(!window.isWindowModified());
}

void TestMainWindow::saveLoadRoundTripAndModifiedFlag()
{
    PlanDocument document(io::builtinCatalog());
    QString error;
    QVERIFY(document.loadFromBytes(io::builtinExamplePlan(), QString(), &error));
    const Estimate before = document.estimate();

    document.undoStack()->push(new SetMicroBatch(&document, 2));
    QVERIFY(document.isModified());
    QCOMPARE(document.plan().training.microBatch, 2);
    QVERIFY(document.estimate().memory.peakBytes > before.memory.peakBytes);
    document.undoStack()->undo();
    QCOMPARE(document.plan().training.microBatch, 1);
    QCOMPARE(document.estimate().memory.peakBytes, before.memory.peakBytes);
    document.undoStack()->redo();

    QTemporaryDir dir;
    const QString path = dir.filePath("plan.json");
    QVERIFY2(document.save(path, &error), qPrintable(error));
    QVERIFY(!document.isModified());
    QCOMPARE(document.filePath(), path);

    PlanDocument reloaded(io::builtinCatalog());
    QVERIFY2(reloaded.load(path, &error), qPrintable(error));
    QVERIFY(reloaded.plan() == document.plan());

    // Saving into a directory that does not exist fails with a message and keeps the document modified.
    document.undoStack()->push(new SetMicroBatch(&document, 4));
    QVERIFY(!document.save(dir.filePath("missing/dir/plan.json"), &error));
    QVERIFY(!error.isEmpty());
    QVERIFY(document.isModified());
}

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
