// Exported charts look like the window's at any size and DPI: every text item lies inside the image and
// inside the region it is clipped to (a clipped legend or axis title would not), and every legend entry is
// drawn whole. A recording paint device collects each text item with its box in device pixels.

#include <QPaintDevice>
#include <QPaintEngine>
#include <QPainter>
#include <QTest>
#include <QTextItem>

#include <qcustomplot.h>

#include "TestSupport.h"
#include "ui/charts/ChartExport.h"
#include "ui/charts/PlotView.h"
#include "ui/document/PlanDocument.h"
#include "ui/report/ReportCharts.h"

using namespace trainplan;

namespace {

struct DrawnText
{
    QString text;
    QRectF box;  ///< device pixels
    QRectF clip; ///< device pixels; empty when not clipped
};

/// A paint engine that keeps the text it is asked to draw, with where it lands.
class TextEngine : public QPaintEngine
{
public:
    explicit TextEngine(const QPaintDevice *device) : QPaintEngine(QPaintEngine::AllFeatures), m_device(device) {}
    bool begin(QPaintDevice *) override { return true; }
    bool end() override { return true; }
    void updateState(const QPaintEngineState &) override {}
    void drawPixmap(const QRectF &, const QPixmap &, const QRectF &) override {}
    void drawPath(const QPainterPath &) override {}
    void drawPolygon(const QPointF *, int, PolygonDrawMode) override {}
    Type type() const override { return User; }

    void drawTextItem(const QPointF &p, const QTextItem &item) override
    {
        if (item.text().trimmed().isEmpty())
            return;
        const QTransform t = painter()->combinedTransform();
        const QFontMetricsF metrics(item.font(), m_device);
        const QRectF local(p.x(), p.y() - metrics.ascent(), metrics.horizontalAdvance(item.text()), metrics.ascent() + metrics.descent());
        DrawnText d{item.text(), t.mapRect(local), QRectF()};
        if (painter()->hasClipping())
            d.clip = t.mapRect(painter()->clipBoundingRect());
        texts.push_back(d);
    }

    std::vector<DrawnText> texts;

private:
    const QPaintDevice *m_device;
};

/// A 96-dpi device of `size` pixels that records text, as the PNG export's image is while painted.
class TextRecorder : public QPaintDevice
{
public:
    explicit TextRecorder(QSize size) : m_size(size), m_engine(this) {}
    QPaintEngine *paintEngine() const override { return const_cast<TextEngine *>(&m_engine); }
    const std::vector<DrawnText> &texts() const { return m_engine.texts; }

protected:
    int metric(PaintDeviceMetric m) const override
    {
        switch (m) {
        case PdmWidth: return m_size.width();
        case PdmHeight: return m_size.height();
        case PdmWidthMM: return int(m_size.width() * 25.4 / 96);
        case PdmHeightMM: return int(m_size.height() * 25.4 / 96);
        case PdmNumColors: return INT_MAX;
        case PdmDepth: return 32;
        case PdmDpiX:
        case PdmDpiY:
        case PdmPhysicalDpiX:
        case PdmPhysicalDpiY: return 96;
        case PdmDevicePixelRatio: return 1;
        case PdmDevicePixelRatioScaled: return int(QPaintDevice::devicePixelRatioFScale());
        }
        return 0;
    }

private:
    QSize m_size;
    TextEngine m_engine;
};

bool contains(const QRectF &outer, const QRectF &inner, double tolerance)
{
    return inner.left() >= outer.left() - tolerance && inner.top() >= outer.top() - tolerance
           && inner.right() <= outer.right() + tolerance && inner.bottom() <= outer.bottom() + tolerance;
}

} // namespace

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

QTEST_MAIN(TestChartExport)
#include "tst_chartexport.moc"
