#pragma once
// A paint device that records every text item drawn into it, with where it lands in device pixels and the
// clip it was drawn under: the method by which the chart-export and window tests find text that leaves its
// image, is clipped, or is elided.

#include <QPaintDevice>
#include <QPaintEngine>
#include <QPainter>
#include <QTextItem>

#include <climits>
#include <vector>

namespace trainplan::test {

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

inline bool contains(const QRectF &outer, const QRectF &inner, double tolerance)
{
    return inner.left() >= outer.left() - tolerance && inner.top() >= outer.top() - tolerance
           && inner.right() <= outer.right() + tolerance && inner.bottom() <= outer.bottom() + tolerance;
}

} // namespace trainplan::test
