// Exported charts look like the window's at any size and DPI: every text item lies inside the image and
// inside the region it is clipped to (a clipped legend or axis title would not), and every legend entry is
// drawn whole. A recording paint device collects each text item with its box in device pixels.

#include <QPainter>
#include <QTest>

#include <qcustomplot.h>

#include "TestMain.h"
#include "TestSupport.h"
#include "TextRecorder.h"
#include "charts/ChartExport.h"
#include "charts/PlotView.h"
#include "ui/document/PlanDocument.h"
#include "ui/report/ReportCharts.h"

using namespace trainplan;
using test::contains;
using test::DrawnText;
using test::TextRecorder;

class TestChartExport : public QObject
{
    Q_OBJECT

private slots:
    void textFitsAtEverySizeAndDpi_data();
    void textFitsAtEverySizeAndDpi();
};

void TestChartExport::textFitsAtEverySizeAndDpi_data()
{
    QTest::addColumn<QSize>("pixels");
    QTest::addColumn<int>("dpi");
    QTest::newRow("800x500 at 96 dpi") << QSize(800, 500) << 96;
    QTest::newRow("1600x1000 at 192 dpi (the default)") << QSize(1600, 1000) << 192;
    QTest::newRow("3000x2000 at 300 dpi") << QSize(3000, 2000) << 300;
}

void TestChartExport::textFitsAtEverySizeAndDpi()
{
    QFETCH(QSize, pixels);
    QFETCH(int, dpi);
    PlanDocument document(io::builtinCatalog());
    document.setPlan(test::presetPlan("gpt3-175b", 8, 8, 8, 1, 1536));
    ReportCharts charts(&document);
    for (ExportableChart *chart : charts.all()) {
        TextRecorder recorder(pixels);
        {
            QPainter painter(&recorder);
            paintChart(*chart, painter, pixels, dpi);
        }
        const QString name = chart->exportName();
        QVERIFY2(recorder.texts().size() >= 8, qPrintable(name)); // a title, axis labels, ticks, a legend
        const QRectF page(QPointF(0, 0), QSizeF(pixels));
        for (const DrawnText &t : recorder.texts()) {
            const QString where = QStringLiteral("%1: \"%2\" at %3,%4 %5x%6").arg(name, t.text).arg(t.box.x()).arg(t.box.y())
                                      .arg(t.box.width()).arg(t.box.height());
            QVERIFY2(contains(page, t.box, 1.0), qPrintable(where + QStringLiteral(" leaves the image")));
            QVERIFY2(t.clip.isEmpty() || contains(t.clip, t.box, 1.0 + 0.01 * t.box.height()),
                     qPrintable(where + QStringLiteral(" is clipped")));
            QVERIFY2(!t.text.contains(QChar(0x2026)), qPrintable(where + QStringLiteral(" is elided")));
        }
        // Every legend entry of a QCustomPlot chart is drawn whole.
        if (auto *view = dynamic_cast<PlotView *>(chart)) {
            QCPLegend *legend = view->plot()->legend;
            for (int i = 0; legend && legend->visible() && i < legend->itemCount(); ++i) {
                auto *item = qobject_cast<QCPPlottableLegendItem *>(legend->item(i));
                if (!item || item->plottable()->name().isEmpty())
                    continue;
                const QString entry = item->plottable()->name();
                const bool drawn = std::any_of(recorder.texts().begin(), recorder.texts().end(),
                                               [&](const DrawnText &t) { return t.text == entry; });
                QVERIFY2(drawn, qPrintable(name + QStringLiteral(": legend entry \"") + entry + QStringLiteral("\" not drawn whole")));
            }
        }
    }
}

TRAINPLAN_TEST_MAIN(TestChartExport)
#include "tst_chartexport.moc"
