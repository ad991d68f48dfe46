#pragma once

#include <QImage>
#include <QProxyStyle>

namespace trainplan {

/// The application's style: the platform's (or Fusion), with Fusion's group-box frame drawn from opaque
/// lines. Fusion stretches a nine-patch image over the whole box, and Qt's raster engine blends a translucent
/// source over more than 96 scan lines on its thread pool (qdrawhelper's parallel fills): on a cluster edit a
/// third of the plan dock's repaint went to waking and waiting for those threads. FrameStyle reads Fusion's
/// own image: its corners are drawn as they are, its edges and fill as lines of its colours over the
/// palette's window colour, which is what Fusion's blend gives. Other styles draw their own frame.
class FrameStyle : public QProxyStyle
{
public:
    explicit FrameStyle(QStyle *base);
    void drawPrimitive(PrimitiveElement element, const QStyleOption *option, QPainter *painter,
                       const QWidget *widget = nullptr) const override;
    /// Whether it draws the group-box frame itself (its base is Fusion and Fusion's image was read).
    bool drawsGroupBoxFrames() const { return !m_image.isNull(); }

private:
    void drawGroupBoxFrame(const QRect &frame, const QPalette &palette, QPainter *painter) const;

    QImage m_image; ///< Fusion's nine-patch, premultiplied; null for other styles
};

} // namespace trainplan
