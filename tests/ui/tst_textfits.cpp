// Text that fits (issue 40): the main window's five pages at 1280x800 and 1920x1080, with a baseline
// pinned, with an invalid plan and after the editor dock is hidden and shown again, and the Learn pages, draw
// no text item that is elided ("…"), clipped by its widget, or laid over another text item; the charts are
// checked the same way at the size they have in the window. The method is the chart-export test's: a paint
// device that records each text item with its box and clip (TextRecorder.h). Editable fields (line edits,
// spin boxes, text views) are left out: their text scrolls by design. The window also fits a 1280x800
// screen with its title bar.

#include <QAbstractButton>
#include <QAbstractScrollArea>
#include <QAbstractSpinBox>
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPainter>
#include <QScreen>
#include <QScrollBar>
#include <QSet>
#include <QStandardPaths>
#include <QTabBar>
#include <QTest>
#include <QUndoStack>

#include <qcustomplot.h>

#include "TestMain.h"
#include "TestSupport.h"
#include "TextRecorder.h"
#include "io/plan/CatalogJson.h"
#include "ui/FormWidgets.h"
#include "ui/MainWindow.h"
#include "charts/MemoryChartView.h"
#include "charts/PlotView.h"
#include "ui/document/PlanDocument.h"
#include "ui/learn/LearnPages.h"
#include "ui/learn/LearnWindow.h"

using namespace trainplan;

namespace {

constexpr QChar kEllipsis(0x2026);

void settle()
{
    for (int i = 0; i < 8; ++i) {
        QApplication::processEvents();
        QTest::qWait(5);
    }
}

/// Where text scrolls or is typed: not judged (a line edit's text, a spin box's, a text view's).
bool editable(QWidget *w, QWidget *top)
{
    for (QWidget *p = w; p && p != top->parentWidget(); p = p->parentWidget())
        if (qobject_cast<QLineEdit *>(p) || qobject_cast<QAbstractSpinBox *>(p) || p->inherits("QPlainTextEdit") || p->inherits("QTextEdit"))
            return true;
    return false;
}

bool overlap(const QRectF &a, const QRectF &b)
{
    const QRectF both = a.intersected(b);
    return !both.isEmpty() && both.width() * both.height() > 0.2 * std::min(a.width() * a.height(), b.width() * b.height());
}

/// The text items of a recording that break the rules, worded.
QStringList judge(const std::vector<test::DrawnText> &texts, const QRectF &bounds, const std::vector<QRectF> &skip, bool overlaps,
                  const QSet<QString> &wholeTexts)
{
    QStringList bad;
    std::vector<const test::DrawnText *> judged;
    for (const test::DrawnText &t : texts) {
        if (std::any_of(skip.begin(), skip.end(), [&](const QRectF &r) { return r.contains(t.box.center()); }))
            continue;
        const QString where = QStringLiteral("\"%1\" at %2,%3").arg(t.text.left(70)).arg(int(t.box.x())).arg(int(t.box.y()));
        // A text cut short ("NVS…"), not a text that is whole with its "…" (an action's "Open…").
        if (t.text.contains(kEllipsis) && !wholeTexts.contains(t.text))
            bad << where + QStringLiteral(" is elided");
        if (!t.clip.isEmpty() && !test::contains(t.clip, t.box, 1.0 + 0.08 * t.box.height()))
            bad << where + QStringLiteral(" is clipped to %1x%2").arg(int(t.clip.width())).arg(int(t.clip.height()));
        else if (!test::contains(bounds, t.box, 1.0))
            bad << where + QStringLiteral(" leaves its %1x%2").arg(int(bounds.width())).arg(int(bounds.height()));
        judged.push_back(&t);
    }
    if (overlaps)
        for (std::size_t i = 0; i < judged.size(); ++i)
            for (std::size_t j = i + 1; j < judged.size(); ++j)
                if (overlap(judged[i]->box, judged[j]->box))
                    bad << QStringLiteral("\"%1\" lies over \"%2\"").arg(judged[i]->text.left(40), judged[j]->text.left(40));
    return bad;
}

/// Every text the window's widgets hold whole (a button's, an action's, a list's): a "…" in them is theirs.
QSet<QString> wholeTexts(QWidget *top)
{
    QSet<QString> texts;
    const auto add = [&](QString text) { texts << text.remove(QLatin1Char('&')); };
    for (QAbstractButton *b : top->findChildren<QAbstractButton *>())
        add(b->text());
    for (QAction *a : top->findChildren<QAction *>())
        add(a->text());
    for (QLabel *l : top->findChildren<QLabel *>())
        add(l->text());
    for (QComboBox *c : top->findChildren<QComboBox *>())
        for (int i = 0; i < c->count(); ++i)
            add(c->itemText(i));
    for (QListWidget *l : top->findChildren<QListWidget *>())
        for (int i = 0; i < l->count(); ++i)
            add(l->item(i)->text());
    for (QTabBar *t : top->findChildren<QTabBar *>())
        for (int i = 0; i < t->count(); ++i)
            add(t->tabText(i));
    return texts;
}

/// The part of `w` its ancestors show, in its own coordinates: a parent cuts what lies outside it, except where
/// it is a scroll area's viewport with a scroll bar that reaches the rest (a table's header scrolls with it).
QRectF shownPart(QWidget *w, QWidget *window)
{
    QRectF shown(-1e6, -1e6, 2e6, 2e6);
    bool scrollsDown = false, scrollsAcross = false; // a scroll bar reaches past the cut in that direction
    for (QWidget *q = w; q; q = q->parentWidget()) {
        if (const auto *area = qobject_cast<QAbstractScrollArea *>(q->parentWidget()); area && area->viewport() == q) {
            if (const auto *table = qobject_cast<QAbstractScrollArea *>(area->parentWidget()); table && qobject_cast<const QHeaderView *>(area))
                area = table;
            scrollsDown = scrollsDown || area->verticalScrollBar()->isVisibleTo(area);
            scrollsAcross = scrollsAcross || area->horizontalScrollBar()->isVisibleTo(area);
        }
        QRectF cut(QPointF(w->mapFrom(q, QPoint(0, 0))), QSizeF(q->size()));
        if (scrollsDown)
            cut.adjust(0, -1e6, 0, 1e6);
        if (scrollsAcross)
            cut.adjust(-1e6, 0, 1e6, 0);
        shown = shown.intersected(cut);
        if (q == window)
            break;
    }
    return shown;
}

/// The window as the screen shows it, widget by widget, each text item judged against its own widget (charts
/// draw pixmaps, not text: they are judged apart).
QStringList windowText(QWidget *window)
{
    const QSet<QString> whole = wholeTexts(window);
    QStringList bad;
    QList<QWidget *> widgets = window->findChildren<QWidget *>();
    widgets.prepend(window);
    for (QWidget *w : widgets) {
        if (!w->isVisibleTo(window) || w->size().isEmpty() || editable(w, window))
            continue;
        test::TextRecorder recorder(w->size());
        w->render(&recorder, QPoint(), QRegion(), QWidget::RenderFlags());
        const QString name = w->objectName().isEmpty() ? QLatin1String(w->metaObject()->className()) : w->objectName();
        const QRectF bounds = shownPart(w, window);
        for (const QString &b : judge(recorder.texts(), bounds, {}, false, whole))
            bad << name + QStringLiteral(": ") + b;
    }
    return bad;
}

/// A chart at the size it has on screen, each of its text items inside it, unclipped, whole and apart.
QStringList chartText(ExportableChart *chart, QWidget *widget)
{
    const QSize size = widget->size();
    test::TextRecorder recorder(size);
    {
        QPainter painter(&recorder);
        chart->renderChart(&painter, QRectF(QPointF(0, 0), QSizeF(size)), QSizeF(size));
    }
    QStringList bad = judge(recorder.texts(), QRectF(QPointF(0, 0), QSizeF(size)), {}, true, {});
    for (QString &b : bad)
        b.prepend(chart->exportName() + QStringLiteral(": "));
    return bad;
}

QStringList allCharts(MainWindow &window)
{
    QStringList bad;
    for (PlotView *view : window.findChildren<PlotView *>())
        if (view->isVisibleTo(&window))
            bad << chartText(view, view);
    for (MemoryChartView *view : window.findChildren<MemoryChartView *>())
        if (view->isVisibleTo(&window))
            bad << chartText(view, view);
    return bad;
}

} // namespace

class TestTextFits : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void mainPages_data()
    {
        QTest::addColumn<QString>("example");
        QTest::addColumn<QSize>("size");
        for (const char *example : {"gpt3-175b-tp8-pp8", "deepseek-v3-1024-h100", "llama3.1-70b-gb200-nvl72", "llama3.1-405b-16384-h100"})
            for (const QSize size : {QSize(1280, 800), QSize(1920, 1080)})
                QTest::newRow(qPrintable(QStringLiteral("%1 %2x%3").arg(QLatin1String(example)).arg(size.width()).arg(size.height())))
                    << QString::fromLatin1(example) << size;
    }

    void mainPages()
    {
        QFETCH(QString, example);
        QFETCH(QSize, size);
        PlanDocument document(io::builtinCatalog());
        document.setPlan(test::examplePlan(example.toLatin1().constData()));
        MainWindow window(&document);
        window.resize(size);
        window.show();
        settle();
        // It fits the screen with its title bar (about 40 pixels).
        QVERIFY2(window.minimumSizeHint().width() <= 1280 && window.minimumSizeHint().height() <= 760,
                 qPrintable(QStringLiteral("minimum %1x%2").arg(window.minimumSizeHint().width()).arg(window.minimumSizeHint().height())));
        QStringList bad = windowText(&window) + allCharts(window);
        for (const MainWindow::Page page : {MainWindow::Page::Cluster, MainWindow::Page::Search, MainWindow::Page::Compare, MainWindow::Page::Details}) {
            window.showPage(page);
            settle();
            for (const QString &b : windowText(&window))
                bad << QStringLiteral("page %1: %2").arg(int(page)).arg(b);
        }
        window.showPage(MainWindow::Page::Charts);
        // A baseline pinned and the plan edited: deltas in the strip, the baseline in every chart.
        document.pinBaseline();
        Plan plan = document.plan();
        plan.training.microBatch *= 2;
        document.setPlan(plan);
        settle();
        for (const QString &b : windowText(&window) + allCharts(window))
            bad << QStringLiteral("with a baseline: ") + b;
        // The editor dock hidden, then shown again: the charts' titles fit their new width at once.
        QDockWidget *dock = window.findChild<QDockWidget *>();
        dock->hide();
        settle();
        dock->show();
        settle();
        for (const QString &b : allCharts(window))
            bad << QStringLiteral("dock shown again: ") + b;
        // An invalid plan: the problem under its field, the strip and the charts say so whole.
        plan.parallel.tensor = 7;
        document.setPlan(plan);
        settle();
        for (const QString &b : windowText(&window))
            bad << QStringLiteral("invalid: ") + b;
        for (const QString &b : bad)
            qInfo().noquote() << b;
        QVERIFY2(bad.isEmpty(), qPrintable(QStringLiteral("%1 text items do not fit (listed above)").arg(bad.size())));
    }

    /// A choice too long for its box shows its longest form that fits: without its parenthesis, then the
    /// parenthesis alone, then the short text it was given; never a cut word or an ellipsis.
    void choiceBoxForms()
    {
        QCOMPARE(ChoiceBox::formsOf(QStringLiteral("InfiniBand NDR (400 Gb/s per GPU)")),
                 QStringList({QStringLiteral("InfiniBand NDR (400 Gb/s per GPU)"), QStringLiteral("InfiniBand NDR")}));
        QCOMPARE(ChoiceBox::formsOf(QStringLiteral("Selective (attention)")),
                 QStringList({QStringLiteral("Selective (attention)"), QStringLiteral("Selective")}));
        QCOMPARE(ChoiceBox::formsOf(QStringLiteral("NVIDIA GB200 (NVL72)")),
                 QStringList({QStringLiteral("NVIDIA GB200 (NVL72)"), QStringLiteral("NVIDIA GB200"), QStringLiteral("NVL72")}));
        ChoiceBox box;
        box.addItem(QStringLiteral("Tensor-parallel group"));
        box.setShortText(0, QStringLiteral("Tensor group"));
        const auto painted = [&box](int width) {
            box.resize(width, box.sizeHint().height());
            test::TextRecorder recorder(box.size());
            box.render(&recorder);
            return recorder.texts().empty() ? QString() : recorder.texts().front().text;
        };
        QCOMPARE(painted(400), QStringLiteral("Tensor-parallel group"));
        const int shortWidth = box.fontMetrics().horizontalAdvance(QStringLiteral("Tensor group"));
        QCOMPARE(painted(shortWidth + 60), QStringLiteral("Tensor group"));
    }

    /// A new window is no larger than the screen less a title bar (the offscreen screen is 800x600): the
    /// main window asks for 1280x800 and the Learn window for 1200x800, both more than fits here.
    void windowsOpenOnScreen()
    {
        PlanDocument document(io::builtinCatalog());
        document.setPlan(test::examplePlan("gpt3-175b-tp8-pp8"));
        MainWindow window(&document);
        const QSize room = QGuiApplication::primaryScreen()->availableGeometry().size() - QSize(8, 40);
        QVERIFY2(room.width() < 1200 && room.height() < 800, "the test needs a screen smaller than the windows ask for");
        QCOMPARE(window.size(), window.size().boundedTo(room));
        QCOMPARE(window.learnWindow()->size(), window.learnWindow()->size().boundedTo(room));
    }

    void learnPages_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::newRow("1280x800") << QSize(1280, 800);
        QTest::newRow("1920x1080") << QSize(1920, 1080);
    }

    void learnPages()
    {
        QFETCH(QSize, size);
        PlanDocument document(io::builtinCatalog());
        document.setPlan(test::examplePlan("gpt3-175b-tp8-pp8"));
        MainWindow window(&document);
        LearnWindow *learn = window.learnWindow();
        // The window opens within the screen, title bar included.
        QVERIFY(learn->minimumSizeHint().height() <= 760);
        learn->resize(size.width(), size.height() - 40);
        learn->show();
        QStringList bad;
        for (int page = 0; page < learn->pageCount(); ++page) {
            learn->showPage(page);
            settle();
            for (const QString &b : windowText(learn))
                bad << QStringLiteral("page %1: %2").arg(page).arg(b);
            if (ExportableChart *figure = learn->page(page)->figure())
                if (QWidget *w = figure->chartWidget(); w && w->isVisibleTo(learn))
                    for (const QString &b : chartText(figure, w))
                        bad << QStringLiteral("page %1 figure: %2").arg(page).arg(b);
        }
        for (const QString &b : bad)
            qInfo().noquote() << b;
        QVERIFY2(bad.isEmpty(), qPrintable(QStringLiteral("%1 text items do not fit (listed above)").arg(bad.size())));
    }
};

TRAINPLAN_TEST_MAIN(TestTextFits)
#include "tst_textfits.moc"
