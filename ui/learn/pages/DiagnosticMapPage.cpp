#include "ui/learn/pages/Pages.h"
#include "io/output/Format.h"

#include <array>

#include <QPainter>
#include <QVBoxLayout>

#include "core/advice/Interventions.h"
#include "core/common/Units.h"
#include "learn/NumberFormat.h"
#include "io/output/ChartCsv.h"
#include "io/output/Evidence.h"
#include "charts/ChartStyle.h"
#include "ui/document/PlanDocument.h"
#include "ui/learn/Figures.h"
#include "ui/learn/pages/PageWidgets.h"

namespace trainplan {

namespace {

using namespace learn;

// --- Figure 16.1: the diagnostic map ---------------------------------------------------------------

class DiagnosticMapFigure : public PaintedFigure
{
public:
    explicit DiagnosticMapFigure(PlanDocument *document)
        : PaintedFigure(QStringLiteral("figure-16-1-diagnostic-map"))
        , m_document(document)
    {
        setMinimumHeight(420);
    }
    QString exportCsv() const override
    {
        QString csv = QStringLiteral("resource,intervention,change,valid,fits,speedup,memory_change,may_not_fit\n");
        for (const Intervention &in : interventions())
            csv += QStringLiteral("%1,\"%2\",\"%3\",%4,%5,%6,%7,%8\n")
                       .arg(QLatin1String(toString(in.resource)), io::interventionLabel(in.id), qs(in.change))
                       .arg(in.valid ? 1 : 0)
                       .arg(in.fits ? 1 : 0)
                       .arg(in.speedup, 0, 'g', 17)
                       .arg(in.memoryChange, 0, 'g', 17)
                       .arg(in.mayNotFit ? 1 : 0);
        return csv;
    }

protected:
    void paintFigure(QPainter &p, const QSizeF &size) override
    {
        static const char *symptoms[] = {"model or batch does not fit", "compute units wait for tensors",
                                         "operations dominate step time", "workers wait for collectives"};
        static const char *responses[] = {"shard, recompute, offload", "fuse, reuse, increase intensity",
                                          "lower precision, better kernels", "overlap, reduce, place topology-aware"};
        const Estimate &e = m_document->estimate();
        const int limiting = e.valid ? int(diagnosticColumn(e.step.bottleneck)) : -1;
        const double gap = 10, colW = (size.width() - 5 * gap) / 4;
        const QFont base = font();
        QFont bold = base, label = base, small = base;
        bold.setBold(true);
        label.setBold(true);
        label.setPointSizeF(base.pointSizeF() * 0.92);
        small.setPointSizeF(base.pointSizeF() * 0.88);
        // Every height is measured from the text at the font in force, so presentation mode's large type
        // grows the boxes instead of running out of them.
        const auto tall = [](const QFont &f, const QString &text, double width) {
            return QFontMetricsF(f)
                .boundingRect(QRectF(0, 0, width, 1e6), Qt::AlignLeft | Qt::TextWordWrap, text)
                .height();
        };
        std::array<std::array<QString, 3>, 4> boxes;
        std::array<double, 3> rowHeight{44, 44, 44};
        for (int j = 0; j < 4; ++j) {
            boxes[std::size_t(j)] = {QString::fromLatin1(labelOf(Bottleneck(j))) +
                                         (j == limiting ? tr("  ◀ limits this plan") : QString()),
                                     tr(symptoms[j]), tr(responses[j])};
            for (std::size_t r = 0; r < 3; ++r)
                rowHeight[r] =
                    std::max(rowHeight[r], tall(r == 0 ? bold : base, boxes[std::size_t(j)][r], colW - 12) + 12);
        }
        const QString evidence =
            e.valid ? tr("Evidence: %1").arg(io::bottleneckEvidence(e.step.bottleneck, e.step.evidence)) : QString();
        const double evidenceHeight = evidence.isEmpty() ? 0 : tall(base, evidence, size.width() - 2 * gap) + 8;
        const double bottom = size.height() - evidenceHeight - 4;
        for (int j = 0; j < 4; ++j) {
            const double x = gap + j * (colW + gap);
            const QColor colour = chartstyle::series(j, palette());
            const bool hot = j == limiting;
            double y = gap;
            for (std::size_t r = 0; r < 3; ++r) {
                const QColor c = over(colour, 1.0 - 0.2 * double(r), palette().color(QPalette::Base));
                p.setPen(hot ? QPen(chartstyle::warning(palette()), 3) : Qt::NoPen);
                p.setBrush(c);
                p.drawRoundedRect(QRectF(x, y, colW, rowHeight[r]), 6, 6);
                p.setFont(r == 0 ? bold : base);
                p.setPen(textOn(c));
                p.drawText(QRectF(x + 6, y, colW - 12, rowHeight[r]), Qt::AlignCenter | Qt::TextWordWrap,
                           boxes[std::size_t(j)][r]);
                y += rowHeight[r] + 14;
            }
            // The plan's interventions for this resource, with predicted effects.
            paintInterventions(p, j, QRectF(x, y + 2, colW, bottom - y - 2), label, small);
        }
        if (!evidence.isEmpty()) {
            p.setFont(base);
            p.setPen(palette().color(QPalette::Text));
            p.drawText(QRectF(gap, bottom, size.width() - 2 * gap, evidenceHeight),
                       Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap, evidence);
        }
    }

private:
    /// Resource `resource`'s interventions with their predicted effects, top-down in `room`, as many as fit.
    void paintInterventions(QPainter &p, int resource, const QRectF &room, const QFont &label, const QFont &small)
    {
        const auto tall = [](const QFont &f, const QString &text, double width) {
            return QFontMetricsF(f)
                .boundingRect(QRectF(0, 0, width, 1e6), Qt::AlignLeft | Qt::TextWordWrap, text)
                .height();
        };
        const double x = room.x(), w = room.width();
        double y = room.y();
        for (const Intervention &in : interventions()) {
            if (int(in.resource) != resource)
                continue;
            QString effect;
            if (!in.valid)
                effect = tr("not valid here");
            else if (!in.fits)
                effect = tr("does not fit (%1 GiB)").arg(fmt::number(in.peakBytes / units::GiB, 1));
            else
                effect = tr("%1× tokens/s, memory %2%3%%4")
                             .arg(fmt::number(in.speedup, 2), in.memoryChange >= 0 ? QStringLiteral("+") : QString(),
                                  fmt::number(100 * in.memoryChange, 0),
                                  in.mayNotFit ? tr(", may not fit") : QString()); // past its memory band's edge
            const double nameHeight = tall(label, io::interventionLabel(in.id), w),
                         effectHeight = tall(small, effect, w);
            if (y + nameHeight + effectHeight > room.bottom())
                break; // the rest would run into the evidence line
            p.setFont(label);
            p.setPen(palette().color(QPalette::Text));
            p.drawText(QRectF(x, y, w, nameHeight), Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap,
                       io::interventionLabel(in.id));
            p.setFont(small);
            const bool gains = in.valid && in.fits && in.speedup > 1.005;
            p.setPen(gains ? chartstyle::series(2, palette()) : palette().color(QPalette::PlaceholderText));
            p.drawText(QRectF(x, y + nameHeight, w, effectHeight), Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap,
                       effect);
            y += nameHeight + effectHeight + 8;
        }
    }

    PlanDocument *m_document;
    /// Read at paint time from the document: the figure is right on first show, whatever was visible when
    /// the plan changed.
    const std::vector<Intervention> &interventions() const { return m_document->advice().interventions; }
};

class DiagnosticMapPage : public LearnPage
{
public:
    explicit DiagnosticMapPage(PlanDocument *d) : LearnPage(d, tr("16.1 The diagnostic map"))
    {
        auto *column = new QVBoxLayout(this);
        addHeading(
            column,
            tr("Four resources, their symptoms and interventions. The column that limits the current plan is outlined; "
               "under each column every intervention is applied to the plan alone and estimated by the core."));
        m_figure = new DiagnosticMapFigure(d);
        column->addWidget(m_figure, 1);
    }
    ExportableChart *figure() override { return m_figure; }
    void refresh() override { m_figure->update(); }

private:
    DiagnosticMapFigure *m_figure;
};

} // namespace

LearnPage *makeDiagnosticMapPage(PlanDocument *document)
{
    return new DiagnosticMapPage(document);
}

} // namespace trainplan
