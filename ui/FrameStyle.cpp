#include "ui/FrameStyle.h"

#include <QGroupBox>
#include <QPainter>
#include <QStyleOption>

namespace trainplan {

namespace {
// Fusion's frame (qfusionstyle.cpp, PE_FrameGroupBox): this image with 6-pixel margins, starting 3 pixels
// below the title's line.
constexpr auto kFusionFrame = ":/qt-project.org/styles/commonstyle/images/fusion_groupbox.png";
constexpr int kMargin = 6;
constexpr int kTopMargin = 3;

/// `over` under the translucent, premultiplied pixel `top`: the opaque colour of their blend.
QColor blend(QRgb top, const QColor &over)
{
    const int a = qAlpha(top);
    const auto mix = [a](int t, int u) { return t + (u * (255 - a) + 127) / 255; };
    return QColor(mix(qRed(top), over.red()), mix(qGreen(top), over.green()), mix(qBlue(top), over.blue()));
}
} // namespace

FrameStyle::FrameStyle(QStyle *base) : QProxyStyle(base)
{
    if (base && base->name().compare(QLatin1String("fusion"), Qt::CaseInsensitive) == 0)
        m_image = QImage(QLatin1String(kFusionFrame)).convertToFormat(QImage::Format_ARGB32_Premultiplied);
    if (m_image.width() <= 2 * kMargin || m_image.height() <= 2 * kMargin)
        m_image = QImage(); // not the image this code reads: Fusion draws its own
}

void FrameStyle::drawPrimitive(PrimitiveElement element, const QStyleOption *option, QPainter *painter,
                               const QWidget *widget) const
{
    if (element != PE_FrameGroupBox || m_image.isNull()) {
        QProxyStyle::drawPrimitive(element, option, painter, widget);
        return;
    }
    const auto *box = qobject_cast<const QGroupBox *>(widget);
    const int top = box && !box->isCheckable() && box->title().isEmpty()
                        ? kTopMargin
                        : qMax(pixelMetric(PM_ExclusiveIndicatorHeight, option, widget), option->fontMetrics.height())
                              + kTopMargin;
    const QRect frame = option->rect.adjusted(0, top, 0, 0);
    if (frame.width() < 2 * kMargin || frame.height() < 2 * kMargin) {
        QProxyStyle::drawPrimitive(element, option, painter, widget);
        return;
    }
    drawGroupBoxFrame(frame, option->palette, painter);
}

void FrameStyle::drawGroupBoxFrame(const QRect &frame, const QPalette &palette, QPainter *painter) const
{
    const QColor window = palette.color(QPalette::Window);
    const int w = m_image.width(), h = m_image.height(), midX = w / 2, midY = h / 2;
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing, false);
    // The corners as they are (6 x 6 pixels each: too few lines for the thread pool).
    painter->drawImage(frame.topLeft(), m_image, QRect(0, 0, kMargin, kMargin));
    painter->drawImage(QPoint(frame.right() - kMargin + 1, frame.top()), m_image,
                       QRect(w - kMargin, 0, kMargin, kMargin));
    painter->drawImage(QPoint(frame.left(), frame.bottom() - kMargin + 1), m_image,
                       QRect(0, h - kMargin, kMargin, kMargin));
    painter->drawImage(QPoint(frame.right() - kMargin + 1, frame.bottom() - kMargin + 1), m_image,
                       QRect(w - kMargin, h - kMargin, kMargin, kMargin));
    // The edges, one opaque line per pixel of the margin, and the fill.
    const int left = frame.left() + kMargin, right = frame.right() - kMargin;
    const int upper = frame.top() + kMargin, lower = frame.bottom() - kMargin;
    for (int i = 0; i < kMargin; ++i) {
        if (qAlpha(m_image.pixel(midX, i)) > 0) {
            painter->setPen(blend(m_image.pixel(midX, i), window));
            painter->drawLine(left, frame.top() + i, right, frame.top() + i);
        }
        if (qAlpha(m_image.pixel(midX, h - kMargin + i)) > 0) {
            painter->setPen(blend(m_image.pixel(midX, h - kMargin + i), window));
            painter->drawLine(left, frame.bottom() - kMargin + 1 + i, right, frame.bottom() - kMargin + 1 + i);
        }
        if (qAlpha(m_image.pixel(i, midY)) > 0) {
            painter->setPen(blend(m_image.pixel(i, midY), window));
            painter->drawLine(frame.left() + i, upper, frame.left() + i, lower);
        }
        if (qAlpha(m_image.pixel(w - kMargin + i, midY)) > 0) {
            painter->setPen(blend(m_image.pixel(w - kMargin + i, midY), window));
            painter->drawLine(frame.right() - kMargin + 1 + i, upper, frame.right() - kMargin + 1 + i, lower);
        }
    }
    painter->fillRect(QRect(QPoint(left, upper), QPoint(right, lower)), blend(m_image.pixel(midX, midY), window));
    painter->restore();
}

} // namespace trainplan
