#include "ui/learn/pages/Pages.h"
#include "io/output/Format.h"

#include <QPainter>
#include <QVBoxLayout>

#include "learn/NumberFormat.h"
#include "io/output/ChartCsv.h"
#include "charts/ChartStyle.h"
#include "ui/document/PlanDocument.h"
#include "ui/learn/Figures.h"
#include "ui/learn/pages/PageWidgets.h"

namespace trainplan {

namespace {

/// The layer ranges pipeline stage `stage` holds: one, or with an interleaved schedule v chunks of
/// L / (p v) layers, chunk j being model chunk j p + stage (Narayanan et al. 2021, Section 2.2).
QStringList stageRanges(const Plan &plan, std::int64_t stage)
{
    const ParallelConfig &par = plan.parallel;
    const std::int64_t p = std::max<std::int64_t>(1, par.pipeline);
    const std::int64_t v = par.schedule == Schedule::Interleaved ? std::max<std::int64_t>(1, par.virtualStages) : 1;
    const std::int64_t chunk = std::max<std::int64_t>(1, plan.model.layers / (p * v));
    QStringList ranges;
    if (plan.unevenStages()) { // one contiguous range of this stage's own size
        std::int64_t first = 1;
        for (std::int64_t i = 0; i < stage; ++i)
            first += plan.layersOnStage(i);
        return {QStringLiteral("%1-%2").arg(first).arg(first + plan.layersOnStage(stage) - 1)};
    }
    for (std::int64_t j = 0; j < v; ++j) {
        const std::int64_t first = (j * p + stage) * chunk + 1;
        ranges << QStringLiteral("%1-%2").arg(first).arg(first + chunk - 1);
    }
    return ranges;
}

/// The figure's label for a stage: "layers 1-12", or "3 chunks of 4" over "1-4, 33-36, …".
QString stageLayers(const Plan &plan, std::int64_t stage)
{
    const QStringList ranges = stageRanges(plan, stage);
    if (ranges.size() == 1)
        return QObject::tr("layers %1").arg(ranges.front());
    const std::int64_t chunk = plan.model.layers / std::max<std::int64_t>(1, plan.parallel.pipeline * ranges.size());
    return QObject::tr("%1 chunks of %2\n%3, %4%5")
        .arg(ranges.size())
        .arg(chunk)
        .arg(ranges[0], ranges[1], ranges.size() > 2 ? QStringLiteral(", …") : QString());
}

using namespace learn;

// --- Figure 16.6: the four parallelisms from the plan -----------------------------------------------

class ParallelismFigure : public PaintedFigure
{
public:
    explicit ParallelismFigure(PlanDocument *d)
        : PaintedFigure(QStringLiteral("figure-16-6-parallelism"))
        , m_document(d)
    {
        setMinimumHeight(380);
    }
    QString exportCsv() const override
    {
        const Plan &plan = m_document->plan();
        const ParallelConfig &p = plan.parallel;
        QString csv = QStringLiteral("dimension,size\ndata,%1\ntensor,%2\npipeline,%3\nzero_stage,%4\n")
                          .arg(p.data)
                          .arg(p.tensor)
                          .arg(p.pipeline)
                          .arg(p.zeroStage);
        if (p.context > 1)
            csv += QStringLiteral("context,%1\n").arg(p.context);
        if (plan.model.isMoe())
            csv += QStringLiteral("expert,%1\n").arg(p.expert);
        csv += QStringLiteral("\nstage,layers\n");
        for (std::int64_t i = 0; i < p.pipeline; ++i)
            csv += QStringLiteral("%1,\"%2\"\n").arg(i).arg(stageRanges(plan, i).join(QStringLiteral(", ")));
        return csv;
    }

protected:
    void paintFigure(QPainter &p, const QSizeF &size) override
    {
        // The text's four, and the plan's context and expert parallelism when it has them.
        const std::vector<Row> all = rows(m_document->plan());
        const double rowH = size.height() / double(all.size());
        for (std::size_t r = 0; r < all.size(); ++r)
            paintRow(p, QRectF(0, double(r) * rowH, size.width(), rowH), all[r]);
    }

private:
    /// One way of dividing the work: its title and caption, and its groups drawn as boxes (at most 8).
    struct Row
    {
        QString title, caption;
        std::int64_t count = 1;
        std::function<QString(std::int64_t)> label; ///< group i's box
        int colour = 0;                             ///< the first group's series colour
    };

    std::vector<Row> rows(const Plan &plan) const
    {
        const ParallelConfig &par = plan.parallel;
        const std::int64_t perReplica = plan.training.globalBatch / std::max<std::int64_t>(1, par.data);
        const QString sequences = fmt::counted(plan.training.globalBatch, tr("sequence"), tr("sequences"));
        std::vector<Row> out;
        out.push_back({tr("Data parallel: %1").arg(fmt::counted(par.data, tr("replica"), tr("replicas"))),
                       tr("each replica holds the whole (tensor x pipeline) model and %1 of the step's %2; gradients "
                          "are all-reduced")
                           .arg(perReplica)
                           .arg(sequences),
                       par.data, [=](std::int64_t i) { return tr("replica %1\n%2 seq.").arg(i).arg(perReplica); }, 0});
        out.push_back(
            {tr("Tensor parallel: %1 of every layer").arg(fmt::counted(par.tensor, tr("shard"), tr("shards"))),
             tr("column-parallel then row-parallel matrices: one all-reduce%1 per block, inside a node")
                 .arg(plan.training.sequenceParallel ? tr(" (reduce-scatter + all-gather with SP)") : QString()),
             par.tensor, [=](std::int64_t i) { return tr("columns %1/%2").arg(i + 1).arg(par.tensor); }, 2});
        out.push_back({tr("Pipeline parallel: %1 (%2, %3)")
                           .arg(fmt::counted(par.pipeline, tr("stage"), tr("stages")),
                                fmt::counted(plan.microbatches(), tr("micro-batch"), tr("micro-batches")),
                                QString::fromLatin1(labelOf(par.schedule))),
                       tr("activations go forward and gradients back between neighbouring stages; fill and drain "
                          "leave bubbles"),
                       par.pipeline, [plan](std::int64_t i) { return stageLayers(plan, i); }, 4});
        if (par.context > 1)
            out.push_back(
                {tr("Context parallel: %1 of every sequence").arg(fmt::counted(par.context, tr("slice"), tr("slices"))),
                 tr("each rank holds %1 of the %2 tokens; keys and values pass between them for attention")
                     .arg(plan.model.seqLen / par.context)
                     .arg(plan.model.seqLen),
                 par.context, [=](std::int64_t i) { return tr("tokens %1/%2").arg(i + 1).arg(par.context); }, 5});
        if (plan.model.isMoe())
            out.push_back(expertRow(plan));
        out.push_back(shardingRow(par));
        return out;
    }

    static Row expertRow(const Plan &plan)
    {
        const ParallelConfig &par = plan.parallel;
        const std::int64_t local = plan.model.experts / std::max<std::int64_t>(1, par.expert);
        return {tr("Expert parallel: %1 experts over %2")
                    .arg(plan.model.experts)
                    .arg(fmt::counted(par.expert, tr("rank"), tr("ranks"))),
                tr("each rank holds %1 of every expert layer; tokens are dispatched to their top %2 and combined back "
                   "(all-to-all)")
                    .arg(fmt::counted(local, tr("expert"), tr("experts")))
                    .arg(plan.model.expertsPerToken),
                par.expert,
                [=](std::int64_t i) { return tr("experts %1-%2").arg(i * local).arg(i * local + local - 1); }, 1};
    }

    static Row shardingRow(const ParallelConfig &par)
    {
        const bool sharded = par.zeroStage > 0 && par.data > 1;
        if (!sharded)
            return {tr("State sharding: off (replicated state)"), tr("every replica keeps the full optimizer state"), 1,
                    [](std::int64_t) { return tr("full state"); }, 6};
        const QString what = par.zeroStage == 1   ? tr("optimizer state")
                             : par.zeroStage == 2 ? tr("optimizer state and gradients")
                                                  : tr("all model state");
        return {tr("State sharding: ZeRO-%1 over %2 replicas").arg(par.zeroStage).arg(par.data),
                tr("computation replicated, %1 partitioned; reduce-scatter and all-gather replace the all-reduce")
                    .arg(what),
                par.data, [](std::int64_t i) { return tr("state shard %1").arg(i); }, 6};
    }

    /// A row in `r`: the title above, the caption below, the groups' boxes between (the last one stands for
    /// the last group after an ellipsis when there are more than 8).
    void paintRow(QPainter &p, const QRectF &r, const Row &row) const
    {
        const double y = r.y(), rowH = r.height(), width = r.width();
        QFont bold = font();
        bold.setBold(true);
        p.setFont(bold);
        p.setPen(palette().color(QPalette::Text));
        p.drawText(QRectF(8, y + 2, width - 16, 18), Qt::AlignLeft | Qt::AlignVCenter, row.title);
        p.setFont(font());
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(QRectF(8, y + rowH - 22, width - 16, 18), Qt::AlignLeft | Qt::AlignVCenter, row.caption);
        const int shown = int(std::min<std::int64_t>(row.count, 8));
        const bool more = row.count > 8;
        const double slotCount = shown + (more ? 1 : 0);
        const double w = (width - 16 - (slotCount - 1) * 6) / slotCount;
        for (int i = 0; i < shown; ++i) {
            const std::int64_t index = more && i == shown - 1 ? row.count - 1 : i;
            const double x = 8 + (i + (more && i == shown - 1 ? 1 : 0)) * (w + 6);
            QColor c = chartstyle::series((row.colour + int(index)) % 8, palette());
            p.setPen(Qt::NoPen);
            p.setBrush(c);
            const QRectF box(x, y + 22, w, rowH - 50);
            p.drawRoundedRect(box, 4, 4);
            p.setPen(textOn(c));
            p.drawText(box.adjusted(3, 0, -3, 0), Qt::AlignCenter | Qt::TextWordWrap, row.label(index));
        }
        if (more) {
            p.setPen(palette().color(QPalette::Text));
            p.drawText(QRectF(8 + (shown - 1) * (w + 6), y + 22, w, rowH - 50), Qt::AlignCenter,
                       QStringLiteral("… %1 …").arg(row.count - shown));
        }
    }

    PlanDocument *m_document;
};

class ParallelismPage : public LearnPage
{
public:
    explicit ParallelismPage(PlanDocument *d) : LearnPage(d, tr("16.6 Four ways to divide the work"))
    {
        auto *column = new QVBoxLayout(this);
        addHeading(
            column,
            tr("Data, tensor, pipeline and state-sharded parallelism divide different objects, drawn with the current "
               "plan's group sizes."));
        m_figure = new ParallelismFigure(d);
        column->addWidget(m_figure, 1);
    }
    ExportableChart *figure() override { return m_figure; }
    void refresh() override { m_figure->update(); }

private:
    ParallelismFigure *m_figure;
};

} // namespace

LearnPage *makeParallelismPage(PlanDocument *document)
{
    return new ParallelismPage(document);
}

} // namespace trainplan
