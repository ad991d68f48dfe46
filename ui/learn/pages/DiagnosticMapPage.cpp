#include "ui/learn/pages/Pages.h"
#include "ui/Format.h"

#include <QPainter>
#include <QVBoxLayout>

#include "core/advice/Interventions.h"
#include "core/common/Units.h"
#include "core/learn/NumberFormat.h"
#include "io/ChartCsv.h"
#include "io/Evidence.h"
#include "ui/charts/ChartStyle.h"
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
    explicit DiagnosticMapFigure(PlanDocument *document) : PaintedFigure(QStringLiteral("figure-16-1-diagnostic-map")), m_document(document)
    {
        setMinimumHeight(420);
    }
    QString exportCsv() const override
    {
        QString csv = QStringLiteral("resource,intervention,change,valid,fits,speedup,memory_change\n");
        for (const Intervention &in : interventions())
            csv += QStringLiteral("%1,\"%2\",\"%3\",%4,%5,%6,%7\n").arg(QLatin1String(toString(in.resource)), qs(in.label), qs(in.change))
                       .arg(in.valid ? 1 : 0).arg(in.fits ? 1 : 0).arg(in.speedup, 0, 'g', 17).arg(in.memoryChange, 0, 'g', 17);
        return csv;
    }

protected:
    void paintFigure(QPainter &p, const QSizeF &size) override
    {
        static const char *symptoms[] = {"model or batch does not fit", "compute units wait for tensors", "operations dominate step time",
                                         "workers wait for collectives"};
        static const char *responses[] = {"shard, recompute, offload", "fuse, reuse, increase intensity",
                                          "lower precision, better kernels", "overlap, reduce, place topology-aware"};
        const Estimate &e = m_document->estimate();
        const int limiting = e.valid ? int(diagnosticColumn(e.step.bottleneck)) : -1;
        const double gap = 10, colW = (size.width() - 5 * gap) / 4;
        QFont base = font();
        for (int j = 0; j < 4; ++j) {
            const double x = gap + j * (colW + gap);
            const QColor colour = chartstyle::series(j, palette());
            const bool hot = j == limiting;
            const auto box = [&](double y, double h, const QString &text, double alpha, bool bold) {
                const QColor c = over(colour, alpha, palette().color(QPalette::Base));
                p.setPen(hot ? QPen(chartstyle::warning(palette()), 3) : Qt::NoPen);
                p.setBrush(c);
                p.drawRoundedRect(QRectF(x, y, colW, h), 6, 6);
                QFont f = base;
                f.setBold(bold);
                p.setFont(f);
                p.setPen(textOn(c));
                p.drawText(QRectF(x + 6, y, colW - 12, h), Qt::AlignCenter | Qt::TextWordWrap, text);
            };
            box(gap, 44, QString::fromLatin1(labelOf(Bottleneck(j))) + (hot ? tr("  ◀ limits this plan") : QString()), 1.0, true);
            box(gap + 58, 44, tr(symptoms[j]), 0.8, false);
            box(gap + 116, 44, tr(responses[j]), 0.6, false);
            // The plan's interventions for this resource, with predicted effects.
            p.setFont(base);
            p.setPen(palette().color(QPalette::Text));
            double y = gap + 176;
            for (const Intervention &in : interventions()) {
                if (int(in.resource) != j)
                    continue;
                QString effect;
                if (!in.valid)
                    effect = tr("not valid here");
                else if (!in.fits)
                    effect = tr("does not fit (%1 GiB)").arg(fmt::number(in.peakBytes / units::GiB, 1));
                else
                    effect = tr("%1× tokens/s, memory %2%3%").arg(fmt::number(in.speedup, 2), in.memoryChange >= 0 ? QStringLiteral("+") : QString(),
                                                               fmt::number(100 * in.memoryChange, 0));
                const QRectF r(x, y, colW, 36);
                QFont b = base;
                b.setBold(true);
                b.setPointSizeF(base.pointSizeF() * 0.92);
                p.setFont(b);
                p.drawText(r, Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, qs(in.label));
                QFont s = base;
                s.setPointSizeF(base.pointSizeF() * 0.88);
                p.setFont(s);
                p.setPen(in.valid && in.fits && in.speedup > 1.005 ? chartstyle::series(2, palette()) : palette().color(QPalette::PlaceholderText));
                p.drawText(r.translated(0, 17), Qt::AlignLeft | Qt::AlignTop, effect);
                p.setPen(palette().color(QPalette::Text));
                y += 40;
                if (y > size.height() - 40)
                    break;
            }
        }
        if (e.valid) {
            p.setFont(base);
            p.setPen(palette().color(QPalette::Text));
            p.drawText(QRectF(gap, size.height() - 30, size.width() - 2 * gap, 26), Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap,
                       tr("Evidence: %1").arg(io::bottleneckEvidence(e.step.bottleneck, e.step.evidence)));
        }
    }

private:
    PlanDocument *m_document;
    /// Read at paint time from the document: the figure is right on first show, whatever was visible when
    /// the plan changed.
    const std::vector<Intervention> &interventions() const { return m_document->estimate().advice.interventions; }
};

class DiagnosticMapPage : public LearnPage
{
public:
    explicit DiagnosticMapPage(PlanDocument *d) : LearnPage(d, tr("16.1 The diagnostic map"))
    {
        auto *column = new QVBoxLayout(this);
        addHeading(column, tr("Four resources, their symptoms and interventions. The column that limits the current plan is outlined; "
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
