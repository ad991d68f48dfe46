// The Learn view offscreen: every figure and exercise page opens and navigates with the keyboard; the
// exercise pages show the hand-derived answers; the number-format probe shows FP16 overflowing where BF16
// does not; the roofline's roof drags; the scaling figure's overlap toggle changes the curve; the
// parallelism figure follows the plan; presentation mode enlarges fonts and raises contrast; figures
// export at the requested size; exercise 16's search picks pure data parallelism.

#include <cmath>

#include <QApplication>
#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QSpinBox>
#include <QTest>
#include <QUndoStack>

#include <qcustomplot.h>

#include "TestMain.h"
#include "TestSupport.h"
#include "io/plan/CatalogJson.h"
#include "ui/MainWindow.h"
#include "charts/ChartExport.h"
#include "charts/ExportableChart.h"
#include "ui/document/PlanDocument.h"
#include "ui/learn/LearnPages.h"
#include "ui/learn/LearnWindow.h"
#include "ui/learn/pages/PageWidgets.h"
#include "charts/ChartStyle.h"

using namespace trainplan;

namespace {

struct LearnFixture
{
    PlanDocument document{io::builtinCatalog()};
    MainWindow window{&document};
    LearnWindow *learn = nullptr;
    LearnFixture()
    {
        QString error;
        if (!document.loadFromBytes(io::builtinExamplePlan(), QString(), &error))
            qFatal("%s", qPrintable(error));
        learn = window.learnWindow();
        learn->resize(1280, 800);
        learn->show();
        QApplication::processEvents();
    }
    QString pageText(int index) const
    {
        QString all;
        for (QLabel *l : learn->page(index)->findChildren<QLabel *>())
            all += l->text() + QLatin1Char('\n');
        return all;
    }
};

} // namespace

class TestLearnView : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void keyboardVisitsEveryPage()
    {
        LearnFixture f;
        QCOMPARE(f.learn->pageCount(), 8 + 22);
        QCOMPARE(f.learn->currentPage(), 0);
        for (int i = 1; i < f.learn->pageCount(); ++i) {
            QTest::keyClick(f.learn, Qt::Key_Right);
            QCOMPARE(f.learn->currentPage(), i);
        }
        QTest::keyClick(f.learn, Qt::Key_Right); // stays on the last page
        QCOMPARE(f.learn->currentPage(), f.learn->pageCount() - 1);
        QTest::keyClick(f.learn, Qt::Key_Home);
        QCOMPARE(f.learn->currentPage(), 0);
        QTest::keyClick(f.learn, Qt::Key_PageDown);
        QCOMPARE(f.learn->currentPage(), 1);
        QTest::keyClick(f.learn, Qt::Key_Left);
        QCOMPARE(f.learn->currentPage(), 0);
    }

    void exercisesShowTheirAnswers()
    {
        LearnFixture f;
        const int first = 8;
        f.learn->showPage(first + 13); // exercise 14
        QVERIFY2(f.pageText(first + 13).contains(QStringLiteral("82.1%")), qPrintable(f.pageText(first + 13)));
        f.learn->showPage(first + 5); // exercise 6
        QVERIFY(f.pageText(first + 5).contains(QStringLiteral("100 FLOP/byte")));
        // Changing an input recomputes: 300 TFLOP/s over 2 TB/s -> 150.
        f.learn->page(first + 5)->findChildren<QDoubleSpinBox *>().front()->setValue(300);
        QVERIFY(f.pageText(first + 5).contains(QStringLiteral("150 FLOP/byte")));
        f.learn->showPage(first + 1); // exercise 2
        QVERIFY(f.pageText(first + 1).contains(QStringLiteral("ZeRO-1 3.50 GB, ZeRO-2 2.75 GB, ZeRO-3 2.00 GB")));
        // Exercise 15 shows this plan's stage times; exercise 3 its transient memory terms.
        f.learn->showPage(first + 14);
        QVERIFY(f.pageText(first + 14).contains(QStringLiteral("slowest")));
        f.learn->showPage(first + 2);
        QVERIFY(f.pageText(first + 2).contains(QStringLiteral("Runtime context")) || f.pageText(first + 2).contains(QStringLiteral("runtime")));
    }

    // Exercise 16: the search for a model that fits on one device picks data parallelism only.
    void exerciseSixteenRunsTheSearch()
    {
        LearnFixture f;
        f.learn->showPage(8 + 15);
        QPushButton *run = f.learn->page(8 + 15)->findChild<QPushButton *>(QStringLiteral("runDemo"));
        QVERIFY(run);
        QTest::mouseClick(run, Qt::LeftButton);
        const QString text = f.pageText(8 + 15);
        QVERIFY2(text.contains(QStringLiteral("#1: data 8 × tensor 1 × pipeline 1")), qPrintable(text));
        // Three results, three different lines: every dimension that tells them apart is named.
        QStringList lines;
        for (const QString &line : text.split(QStringLiteral("<br>")))
            if (line.startsWith(QLatin1Char('#')))
                lines << line.section(QStringLiteral(": "), 1, 1);
        QCOMPARE(lines.size(), 3);
        QCOMPARE(QSet<QString>(lines.begin(), lines.end()).size(), 3);
    }

    // Each exercise's answer shows in the window and hides in presentation mode until Reveal.
    void exerciseRevealInPresentation()
    {
        LearnFixture f;
        const int page = 8 + 5; // exercise 6: the ridge point
        f.learn->showPage(page);
        QPushButton *reveal = f.learn->page(page)->findChild<QPushButton *>(QStringLiteral("reveal"));
        QLabel *answer = f.learn->page(page)->findChild<QLabel *>(QStringLiteral("answer"));
        QVERIFY(reveal && answer);
        QVERIFY(answer->isVisibleTo(f.learn->page(page)));
        f.learn->setPresenting(true);
        QVERIFY(!answer->isVisibleTo(f.learn->page(page)));
        QTest::mouseClick(reveal, Qt::LeftButton);
        QVERIFY(answer->isVisibleTo(f.learn->page(page)));
        QVERIFY(answer->text().contains(QStringLiteral("100"))); // 200 TFLOP/s / 2 TB/s = 100 FLOP/byte
        f.learn->setPresenting(false);
        QVERIFY(answer->isVisibleTo(f.learn->page(page)));
    }

    // The allocator's segments for one layer of the built-in example (GPT-3 175B, t = 8, sequence parallel):
    // 17 tensors of 6 MiB per micro-batch, three to a 20 MiB segment, and the count follows the spin box.
    void allocatorSegmentsOfOneLayer()
    {
        LearnFixture f;
        f.learn->showPage(7);
        auto *spin = f.learn->page(7)->findChild<QSpinBox *>(QStringLiteral("allocatorMicrobatches"));
        QVERIFY(spin);
        spin->setValue(3);
        const QString text = f.pageText(7);
        QVERIFY2(text.contains(QStringLiteral("17 tensors per micro-batch")) && text.contains(QStringLiteral("x 3")), qPrintable(text));
        QVERIFY(text.contains(QStringLiteral("max_memory_reserved")));
        const QString csv = f.learn->page(7)->figure()->exportCsv();
        QCOMPARE(csv.count(QStringLiteral(",20971520,")) >= 17, true); // 20 MiB segments
        QVERIFY(csv.contains(QStringLiteral("free")));
    }

    // 16.6 with an interleaved plan: each stage's chunks, not a contiguous range.
    void parallelismLabelsInterleavedChunks()
    {
        LearnFixture f;
        Plan plan = f.document.plan(); // GPT-3 175B: 96 layers, pipeline 8
        plan.parallel.schedule = Schedule::Interleaved;
        plan.parallel.virtualStages = 3;
        f.document.setPlan(plan);
        f.learn->showPage(5);
        f.learn->page(5)->refresh();
        QImage image(800, 600, QImage::Format_ARGB32);
        QPainter painter(&image);
        f.learn->page(5)->figure()->renderChart(&painter, QRectF(0, 0, 800, 600), QSizeF(800, 600));
        // 96 / (8 x 3) = 4 layers a chunk; stage 0 holds chunks 0, 8, 16: layers 1-4, 33-36, 65-68.
        const QString csv = f.learn->page(5)->figure()->exportCsv();
        QVERIFY2(csv.contains(QStringLiteral("1-4, 33-36")), qPrintable(csv.left(600)));
        // A mixture of experts draws its expert parallelism, and context parallelism where the plan has it
        // (issue 40: 16.6 showed none for DeepSeek-V3).
        f.document.setPlan(test::examplePlan("deepseek-v3-1024-h100"));
        f.learn->page(5)->refresh();
        f.learn->page(5)->figure()->renderChart(&painter, QRectF(0, 0, 800, 600), QSizeF(800, 600));
        const Plan moe = f.document.plan();
        QVERIFY2(f.learn->page(5)->figure()->exportCsv().contains(QStringLiteral("\nexpert,%1\n").arg(moe.parallel.expert)),
                 qPrintable(f.learn->page(5)->figure()->exportCsv().left(300)));
        Plan context = test::examplePlan("llama3.1-8b-128k-context-h100");
        f.document.setPlan(context);
        QVERIFY(f.learn->page(5)->figure()->exportCsv().contains(QStringLiteral("\ncontext,%1\n").arg(context.parallel.context)));
    }

    void numberFormatProbe()
    {
        LearnFixture f;
        f.learn->showPage(2);
        QLineEdit *value = f.learn->page(2)->findChild<QLineEdit *>(QStringLiteral("probeValue"));
        value->setText(QStringLiteral("1e8"));
        QTableWidget *probe = f.learn->page(2)->findChild<QTableWidget *>(QStringLiteral("probe"));
        QCOMPARE(probe->rowCount(), 8); // FP32 ... FP8 E5M2, MXFP8, NVFP4
        const auto row = [&](const QString &name) {
            for (int r = 0; r < probe->rowCount(); ++r)
                if (probe->item(r, 0)->text() == name)
                    return r;
            return -1;
        };
        QCOMPARE(probe->item(row(QStringLiteral("FP16")), 2)->text(), QStringLiteral("overflow"));
        QCOMPARE(probe->item(row(QStringLiteral("BF16")), 1)->text(), QStringLiteral("100139008"));
        // Loss scaling column: the 1e-8 gradient underflows in FP16 and survives scaled.
        QVERIFY(probe->item(row(QStringLiteral("FP16")), 4)->text().contains(QStringLiteral("underflow")));
        const double recovered = probe->item(row(QStringLiteral("FP16")), 5)->text().section(QLatin1Char(' '), 0, 0).toDouble();
        QVERIFY2(std::abs(recovered / 1e-8 - 1) < std::ldexp(1.0, -11), qPrintable(probe->item(row(QStringLiteral("FP16")), 5)->text()));
        QTableWidget *formats = f.learn->page(2)->findChild<QTableWidget *>(QStringLiteral("formats"));
        QCOMPARE(formats->item(4, 2)->text(), QStringLiteral("448")); // FP8 E4M3
    }

    // Dragging the flat roof changes the peak; dragging on the slope changes the bandwidth.
    void rooflineDrags()
    {
        LearnFixture f;
        f.learn->showPage(3);
        QDoubleSpinBox *peak = f.learn->page(3)->findChild<QDoubleSpinBox *>(QStringLiteral("peak"));
        QDoubleSpinBox *bandwidth = f.learn->page(3)->findChild<QDoubleSpinBox *>(QStringLiteral("bandwidth"));
        QCustomPlot *plot = f.learn->page(3)->findChild<QCustomPlot *>();
        QVERIFY(plot && peak && bandwidth);
        const QPoint roof(int(plot->xAxis->coordToPixel(3000)), int(plot->yAxis->coordToPixel(300)));
        const QPoint lower(roof.x(), int(plot->yAxis->coordToPixel(100)));
        QTest::mousePress(plot, Qt::LeftButton, Qt::NoModifier, roof);
        QTest::mouseMove(plot, lower);
        QTest::mouseRelease(plot, Qt::LeftButton, Qt::NoModifier, lower);
        QVERIFY2(std::abs(peak->value() - 100) < 5, qPrintable(QString::number(peak->value())));
        // Slope through (I = 1, 5 TFLOP/s): bandwidth 5 TB/s.
        const QPoint slope(int(plot->xAxis->coordToPixel(1)), int(plot->yAxis->coordToPixel(1.5)));
        const QPoint target(int(plot->xAxis->coordToPixel(1)), int(plot->yAxis->coordToPixel(5)));
        QTest::mousePress(plot, Qt::LeftButton, Qt::NoModifier, slope);
        QTest::mouseMove(plot, target);
        QTest::mouseRelease(plot, Qt::LeftButton, Qt::NoModifier, target);
        QVERIFY2(std::abs(bandwidth->value() - 5) < 0.3, qPrintable(QString::number(bandwidth->value())));
        // The text's three examples never sit above the dragged ceilings, and stay on the chart.
        QCPGraph *examples = plot->graph(1);
        QCOMPARE(examples->dataCount(), 3);
        for (auto it = examples->data()->constBegin(); it != examples->data()->constEnd(); ++it) {
            const double roofAt = std::min(peak->value(), bandwidth->value() * it->key);
            QVERIFY2(it->value <= roofAt * (1 + 1e-9), qPrintable(QStringLiteral("%1 at I = %2").arg(it->value).arg(it->key)));
            QVERIFY(it->value >= plot->yAxis->range().lower && it->value <= plot->yAxis->range().upper);
        }
        // At the text's ceilings (300 TFLOP/s, 1.5 TB/s) they are the text's points.
        peak->setValue(300);
        bandwidth->setValue(1.5);
        QCOMPARE(plot->graph(1)->data()->at(2)->value, 220.0);
    }

    void scalingOverlapToggle()
    {
        LearnFixture f;
        f.learn->showPage(4);
        QCustomPlot *plot = f.learn->page(4)->findChild<QCustomPlot *>();
        const double without = (plot->graph(1)->data()->constEnd() - 1)->value;
        QCOMPARE(without, 1.0 / 0.1934125); // the text's model at 128 workers, no overlap
        f.learn->page(4)->findChild<QCheckBox *>(QStringLiteral("overlap"))->setChecked(true);
        const double with = (plot->graph(1)->data()->constEnd() - 1)->value;
        QCOMPARE(with, 1.0 / 0.1856);
    }

    void presentationModeAndExport()
    {
        LearnFixture f;
        const double normal = f.learn->font().pointSizeF();
        f.learn->setPresenting(true);
        QVERIFY(f.learn->isPresenting());
        QVERIFY(f.learn->font().pointSizeF() >= 1.5 * normal);
        QCOMPARE(f.learn->palette().color(QPalette::Window), QColor(Qt::black));
        QTest::keyClick(f.learn, Qt::Key_Escape);
        QVERIFY(!f.learn->isPresenting());
        QCOMPARE(f.learn->font().pointSizeF(), normal);

        QTemporaryDir dir;
        for (int page : {0, 1, 2, 3, 4, 5}) {
            f.learn->showPage(page);
            ExportableChart *figure = f.learn->page(page)->figure();
            QVERIFY(figure);
            const QString path = dir.filePath(figure->exportName() + QStringLiteral(".png"));
            QString error;
            QVERIFY2(saveChart(*figure, path, QSize(1000, 600), 96, &error), qPrintable(error));
            QCOMPARE(QImage(path).size(), QSize(1000, 600));
            QVERIFY(!figure->exportCsv().isEmpty());
        }
    }

    // Presentation mode: the navigation keys turn pages even when an input has the focus; an input takes
    // the keyboard only after a click on it.
    void presentationKeysNeverEditInputs()
    {
        LearnFixture f;
        f.learn->setPresenting(true);
        QVERIFY(QTest::qWaitForWindowExposed(f.learn));
        for (const int key : {int(Qt::Key_Right), int(Qt::Key_PageDown), int(Qt::Key_Space), int(Qt::Key_Up)}) {
            f.learn->showPage(1); // 16.2: inputs for parameters, workers and bytes
            QDoubleSpinBox *params = f.learn->page(1)->findChildren<QDoubleSpinBox *>().front();
            const double before = params->value();
            params->setFocus();
            QTest::keyClick(params, Qt::Key(key));
            QCOMPARE(params->value(), before);
            QCOMPARE(f.learn->currentPage(), key == Qt::Key_Up ? 0 : 2);
        }
        f.learn->showPage(2); // 16.3: the arrows move the page, not a table cell
        QTableWidget *formats = f.learn->page(2)->findChild<QTableWidget *>(QStringLiteral("formats"));
        formats->setFocus();
        formats->setCurrentCell(0, 0);
        QTest::keyClick(formats, Qt::Key_Right);
        QCOMPARE(f.learn->currentPage(), 3);
        QCOMPARE(formats->currentColumn(), 0);
        // After a click the input takes the keyboard.
        f.learn->showPage(1);
        QDoubleSpinBox *params = f.learn->page(1)->findChildren<QDoubleSpinBox *>().front();
        const double before = params->value();
        QTest::mouseClick(params->findChild<QLineEdit *>(), Qt::LeftButton);
        params->setFocus();
        QTest::keyClick(params, Qt::Key_Up);
        QCOMPARE(f.learn->currentPage(), 1);
        QVERIFY(params->value() > before);
        f.learn->setPresenting(false);
    }

    // Presentation mode after a click on Reveal: the button does not keep the keyboard (Space turns the page
    // instead of hiding the answer again, Right does not step into an input).
    void presentationRevealKeepsNoKeyboard()
    {
        LearnFixture f;
        f.learn->setPresenting(true);
        QVERIFY(QTest::qWaitForWindowExposed(f.learn));
        const int page = 8 + 5; // exercise 6
        f.learn->showPage(page);
        QPushButton *reveal = f.learn->page(page)->findChild<QPushButton *>(QStringLiteral("reveal"));
        QLabel *answer = f.learn->page(page)->findChild<QLabel *>(QStringLiteral("answer"));
        QTest::mouseClick(reveal, Qt::LeftButton);
        QVERIFY(answer->isVisibleTo(f.learn->page(page)));
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Space);
        QCOMPARE(f.learn->currentPage(), page + 1);
        QVERIFY(answer->isVisibleTo(f.learn->page(page)));
        f.learn->showPage(page);
        QTest::mouseClick(reveal, Qt::LeftButton); // hides it; the button still has no keyboard
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Right);
        QCOMPARE(f.learn->currentPage(), page + 1);
        f.learn->setPresenting(false);
    }

    // Exercise 4's batch input, clicked in presentation mode: Page Down stops at 1 (a positive count, not 0 and
    // an error), and Ctrl+Z gives back the text's 8 whatever has the focus.
    void exerciseInputsStayValidAndUndo()
    {
        LearnFixture f;
        f.learn->setPresenting(true);
        QVERIFY(QTest::qWaitForWindowExposed(f.learn));
        const int page = 8 + 3; // exercise 4
        f.learn->showPage(page);
        QDoubleSpinBox *batch = f.learn->page(page)->findChildren<QDoubleSpinBox *>().front();
        QCOMPARE(batch->value(), 8.0);
        QTest::mouseClick(batch->findChild<QLineEdit *>(), Qt::LeftButton);
        batch->setFocus();
        QTest::keyClick(batch, Qt::Key_Up);
        QCOMPARE(batch->value(), 9.0);
        QTest::keyClick(batch, Qt::Key_PageDown);
        QTest::keyClick(batch, Qt::Key_PageDown);
        QCOMPARE(batch->value(), 1.0);
        QCOMPARE(f.learn->currentPage(), page);
        QLabel *answer = f.learn->page(page)->findChild<QLabel *>(QStringLiteral("answer"));
        QVERIFY2(!answer->text().contains(QStringLiteral("must be")), qPrintable(answer->text()));
        // One undo step per input: the Up and both Page Downs go together.
        QTest::keySequence(batch, QKeySequence::Undo);
        QCOMPARE(batch->value(), 8.0);
        QVERIFY2(answer->text().contains(QStringLiteral("128 MiB")), qPrintable(answer->text())); // 8 x 2048 x 4096 x 2 B
        QTest::keySequence(batch, QKeySequence::Redo);
        QCOMPARE(batch->value(), 1.0);
        f.learn->setPresenting(false);
    }

    // One switch hides every answer and exercise 16's search result; presentation mode turns it on and puts
    // it back as it was.
    void oneSwitchHidesEveryAnswer()
    {
        LearnFixture f;
        auto *learn = f.learn;
        const auto answerShown = [learn](int page) {
            return learn->page(page)->findChild<QLabel *>(QStringLiteral("answer"))->isVisibleTo(learn->page(page));
        };
        QVERIFY(!f.learn->answersHidden());
        QVERIFY(answerShown(8) && answerShown(8 + 21));
        f.learn->setAnswersHidden(true);
        for (int page = 8; page < f.learn->pageCount(); ++page)
            QVERIFY2(!answerShown(page), qPrintable(QString::number(page)));
        const int sixteen = 8 + 15;
        QVERIFY(!f.learn->page(sixteen)->findChild<QLabel *>(QStringLiteral("demo"))->isVisibleTo(f.learn->page(sixteen)));
        f.learn->setAnswersHidden(false);
        f.learn->setPresenting(true);
        QVERIFY(f.learn->answersHidden() && !answerShown(8));
        f.learn->setPresenting(false);
        QVERIFY(!f.learn->answersHidden() && answerShown(8));
    }

    // 16.1's boxes: the text on every box (each resource's colour at full, 0.8 and 0.6 strength over the
    // background) reads at WCAG's 4.5:1 or better, in the desktop palette and in presentation colours.
    void diagnosticMapTextContrast()
    {
        LearnFixture f;
        const auto luminance = [](const QColor &c) {
            const auto channel = [](double v) { return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
            return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF());
        };
        for (const bool presenting : {false, true}) {
            f.learn->setPresenting(presenting);
            const QPalette palette = f.learn->page(0)->palette();
            for (int j = 0; j < 4; ++j)
                for (const double alpha : {1.0, 0.8, 0.6}) {
                    const QColor box = learn::over(chartstyle::series(j, palette), alpha, palette.color(QPalette::Base));
                    const double a = luminance(box), b = luminance(learn::textOn(box));
                    const double ratio = (std::max(a, b) + 0.05) / (std::min(a, b) + 0.05);
                    QVERIFY2(ratio >= 4.5, qPrintable(QStringLiteral("series %1 at %2: %3:1").arg(j).arg(alpha).arg(ratio, 0, 'f', 2)));
                }
        }
        f.learn->setPresenting(false);
    }

    // The figures carry the text's labels: 16.2's legend names each term's format and each bar its total
    // (16.0, 5.5, 3.75 and 2.0 GB for 1 B parameters on 8 workers); 16.4 draws the dashed ridge line at
    // 300 / 1.5 = 200 FLOP/byte and names its three examples.
    void figuresCarryTheTextsLabels()
    {
        LearnFixture f;
        f.learn->showPage(1);
        QCustomPlot *state = f.learn->page(1)->findChild<QCustomPlot *>();
        QStringList names, totals;
        for (int i = 0; i < state->plottableCount(); ++i)
            names << state->plottable(i)->name();
        QCOMPARE(names, QStringList({QStringLiteral("FP16 parameters"), QStringLiteral("FP16 gradients"), QStringLiteral("FP32 master weights"),
                                     QStringLiteral("FP32 Adam moments")}));
        for (int i = 0; i < state->itemCount(); ++i)
            if (auto *text = qobject_cast<QCPItemText *>(state->item(i)))
                totals << text->text();
        QCOMPARE(totals, QStringList({QStringLiteral("16.0 GB"), QStringLiteral("5.5 GB"), QStringLiteral("3.8 GB"), QStringLiteral("2.0 GB")}));
        f.learn->showPage(3);
        QCustomPlot *roofline = f.learn->page(3)->findChild<QCustomPlot *>();
        QCPGraph *ridge = nullptr;
        for (int g = 0; g < roofline->graphCount(); ++g)
            if (roofline->graph(g)->name().startsWith(QStringLiteral("ridge point")))
                ridge = roofline->graph(g);
        QVERIFY(ridge);
        QCOMPARE(ridge->pen().style(), Qt::DashLine);
        QCOMPARE(ridge->data()->at(0)->key, 200.0);
        QStringList labels;
        for (int i = 0; i < roofline->itemCount(); ++i)
            if (auto *text = qobject_cast<QCPItemText *>(roofline->item(i)))
                labels << text->text();
        QCOMPARE(labels, QStringList({QStringLiteral("element-wise"), QStringLiteral("normalisation"), QStringLiteral("matrix multiply")}));
    }

    // 16.3 and 16.5 as the text lays them out: two panels side by side, each on its own axes, with the same
    // values; and back to one plot with a right axis.
    void twoPanelsAsTheText()
    {
        LearnFixture f;
        for (const int page : {2, 4}) {
            f.learn->showPage(page);
            QCustomPlot *plot = f.learn->page(page)->findChild<QCustomPlot *>();
            QCheckBox *panels = f.learn->page(page)->findChild<QCheckBox *>(QStringLiteral("twoPanels"));
            QVERIFY(plot && panels);
            QCOMPARE(plot->axisRectCount(), 1);
            const QCPAbstractPlottable *second = plot->plottable(plot->plottableCount() - 1);
            QCOMPARE(second->valueAxis(), plot->yAxis2);
            QCPRange before;
            bool found = false;
            before = second->getValueRange(found);
            panels->setChecked(true);
            QCOMPARE(plot->axisRectCount(), 2);
            second = plot->plottable(plot->plottableCount() - 1);
            QCOMPARE(second->valueAxis()->axisRect(), plot->axisRect(1));
            QVERIFY(!plot->yAxis2->visible());
            const QCPRange after = second->getValueRange(found);
            QCOMPARE(after.lower, before.lower);
            QCOMPARE(after.upper, before.upper);
            panels->setChecked(false);
            QCOMPARE(plot->axisRectCount(), 1);
            QCOMPARE(plot->plottable(plot->plottableCount() - 1)->valueAxis(), plot->yAxis2);
        }
    }
};

TRAINPLAN_TEST_MAIN(TestLearnView)
#include "tst_learn.moc"
