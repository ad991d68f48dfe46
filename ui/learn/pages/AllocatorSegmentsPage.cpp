#include "ui/learn/pages/Pages.h"

#include <QCoreApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QSpinBox>
#include <QVBoxLayout>

#include <cmath>

#include "core/common/Units.h"
#include "core/memory/CachingAllocator.h"
#include "io/output/Format.h"
#include "charts/ChartStyle.h"
#include "ui/document/PlanDocument.h"
#include "ui/learn/Figures.h"
#include "ui/learn/pages/PageWidgets.h"

namespace trainplan {

namespace {

using namespace learn;

// --- The caching allocator's segments for one layer ------------------------------------------------

const char *kindLabel(int kind)
{
    switch (LayerTensorKind(kind)) {
    case LayerTensorKind::SequenceShardable:
        return QT_TRANSLATE_NOOP("AllocatorSegmentsPage", "norm, QKV and MLP inputs, masks");
    case LayerTensorKind::TensorSharded:
        return QT_TRANSLATE_NOOP("AllocatorSegmentsPage", "Q, K, V, context, MLP intermediates");
    case LayerTensorKind::AttentionScores: return QT_TRANSLATE_NOOP("AllocatorSegmentsPage", "attention scores");
    case LayerTensorKind::BackwardWorkspace:
        return QT_TRANSLATE_NOOP("AllocatorSegmentsPage", "backward gradients (transient)");
    }
    return "";
}

/// Every segment as a bar, wrapped into rows, at one bytes-per-pixel scale: live blocks coloured by kind,
/// free space hatched.
class SegmentsFigure : public PaintedFigure
{
public:
    SegmentsFigure() : PaintedFigure(QStringLiteral("allocator-segments-one-layer")) {}
    /// One row per block: segment, offset, size and what it holds.
    QString exportCsv() const override
    {
        QString out = QStringLiteral("segment,segment_bytes,offset_bytes,block_bytes,holds\n");
        const std::vector<AllocatorSegment> &segs = m_segments.allocator.segments();
        for (std::size_t s = 0; s < segs.size(); ++s)
            for (const AllocatorBlock &b : segs[s].blocks)
                out += QStringLiteral("%1,%2,%3,%4,\"%5\"\n")
                           .arg(s)
                           .arg(segs[s].size, 0, 'f', 0)
                           .arg(b.offset, 0, 'f', 0)
                           .arg(b.size, 0, 'f', 0)
                           .arg(b.tensor < 0 ? QStringLiteral("free")
                                             : QString::fromLatin1(kindLabel(m_segments.allocator.kindOf(b.tensor))));
        return out;
    }
    void setSegments(LayerSegments segments)
    {
        m_segments = std::move(segments);
        update();
    }

protected:
    void paintFigure(QPainter &painter, const QSizeF &size) override
    {
        const std::vector<AllocatorSegment> &segs = m_segments.allocator.segments();
        const double legendHeight = 22.0 * double(kLayerTensorKinds + 1) / 2.0 + 8.0;
        if (segs.empty() || size.width() < 100 || size.height() < legendHeight + 40)
            return;
        const QRectF area(8, 8, size.width() - 16, size.height() - legendHeight - 16);
        const double rowGap = 6;
        // The scale: the segments laid end to end over the rows that fit at a readable bar height.
        const double total = m_segments.allocator.reservedBytes();
        const int rows =
            std::clamp(int(std::ceil(total / (area.width() * 2e5))), 1, std::max(1, int(area.height() / 18)));
        const double bytesPerPixel = total / (area.width() * double(rows)) * 1.08;
        const double barHeight = std::min(64.0, (area.height() - rowGap * (rows - 1)) / rows);
        double x = area.left(), y = area.top();
        for (const AllocatorSegment &seg : segs) {
            const double w = std::max(2.0, seg.size / bytesPerPixel);
            if (x + w > area.right() && x > area.left()) {
                x = area.left();
                y += barHeight + rowGap;
            }
            for (const AllocatorBlock &b : seg.blocks) {
                const QRectF r(x + b.offset / bytesPerPixel, y, std::max(0.5, b.size / bytesPerPixel), barHeight);
                if (b.tensor < 0)
                    painter.fillRect(r, QBrush(chartstyle::series(7, palette()), Qt::BDiagPattern));
                else
                    painter.fillRect(r, chartstyle::series(m_segments.allocator.kindOf(b.tensor), palette()));
            }
            painter.setPen(QPen(palette().color(QPalette::WindowText), 1));
            painter.drawRect(QRectF(x, y, w, barHeight));
            x += w + 3;
        }
        paintLegend(painter, QPointF(8, size.height() - legendHeight));
    }

private:
    void paintLegend(QPainter &painter, QPointF at)
    {
        painter.setPen(palette().color(QPalette::WindowText));
        for (int k = 0; k <= kLayerTensorKinds; ++k) {
            const QPointF p = at + QPointF((k % 2) * 340.0, (k / 2) * 22.0);
            const QRectF swatch(p.x(), p.y() + 4, 14, 12);
            if (k == kLayerTensorKinds)
                painter.fillRect(swatch, QBrush(chartstyle::series(7, palette()), Qt::BDiagPattern));
            else
                painter.fillRect(swatch, chartstyle::series(k, palette()));
            const QString label = k == kLayerTensorKinds
                                      ? QCoreApplication::translate("AllocatorSegmentsPage",
                                                                    "free inside a segment (reserved, not allocated)")
                                      : QCoreApplication::translate("AllocatorSegmentsPage", kindLabel(k));
            painter.drawText(QPointF(p.x() + 20, p.y() + 15), label);
        }
    }
    LayerSegments m_segments;
};

class AllocatorSegmentsPage : public LearnPage
{
public:
    explicit AllocatorSegmentsPage(PlanDocument *d) : LearnPage(d, tr("The caching allocator's segments for one layer"))
    {
        auto *column = new QVBoxLayout(this);
        addHeading(
            column,
            tr("What one transformer layer of the plan stores for backward, tensor by tensor, as PyTorch's caching "
               "allocator lays it out: 512-byte blocks, 2 MiB segments for small tensors, 20 MiB segments shared "
               "by 1-10 MiB tensors, larger ones rounded to 2 MiB. Segments are never returned, so everything "
               "drawn counts in max_memory_reserved; only the coloured blocks in max_memory_allocated."));
        auto *controls = new QHBoxLayout;
        m_microbatches = new QSpinBox;
        m_microbatches->setObjectName(QStringLiteral("allocatorMicrobatches"));
        m_microbatches->setRange(1, 64);
        m_microbatches->setValue(2);
        m_microbatches->setSuffix(tr(" micro-batches held"));
        controls->addWidget(m_microbatches);
        controls->addStretch(1);
        column->addLayout(controls);
        m_figure = new SegmentsFigure;
        m_figure->setMinimumHeight(220);
        column->addWidget(m_figure, 1);
        m_summary = new QLabel;
        m_summary->setObjectName(QStringLiteral("allocatorSummary"));
        m_summary->setWordWrap(true);
        column->addWidget(m_summary);
        connect(m_microbatches, &QSpinBox::valueChanged, this, [this] { refresh(); });
    }
    ExportableChart *figure() override { return m_figure; }
    void refresh() override
    {
        const Plan &plan = m_document->plan();
        if (!m_document->estimate().valid)
            return;
        LayerSegments segs = simulateLayerSegments(plan, m_microbatches->value());
        const CachingAllocatorSim &a = segs.allocator;
        m_summary->setText(
            tr("%1 tensors per micro-batch (%2 stored) x %3, then the backward's gradients: %4 segments, "
               "allocated %5, reserved %6 (%7 rounding and segment tails). The memory model's closed form "
               "for the stored blocks: %8.")
                .arg(segs.tensorsPerMicrobatch)
                .arg(fmt::gib(segs.storedBytesPerMicrobatch, 3))
                .arg(segs.microbatches)
                .arg(a.segments().size())
                .arg(fmt::gib(a.allocatedBytes(), 3), fmt::gib(a.reservedBytes(), 3),
                     fmt::gib(a.reservedBytes() - a.allocatedBytes(), 3), fmt::gib(segs.modelBlockBytes, 3)));
        m_figure->setSegments(std::move(segs));
    }

private:
    QSpinBox *m_microbatches;
    SegmentsFigure *m_figure;
    QLabel *m_summary;
};

} // namespace

LearnPage *makeAllocatorSegmentsPage(PlanDocument *document)
{
    return new AllocatorSegmentsPage(document);
}

} // namespace trainplan
