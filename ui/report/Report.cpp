#include "ui/report/Report.h"

#include <QApplication>
#include <QBuffer>
#include <QDir>
#include <QFileInfo>
#include <QFontDatabase>
#include <QPdfWriter>
#include <QSaveFile>
#include <QSettings>
#include <QStyle>
#include <QTextDocument>

#include <memory>

#include <qcustomplot.h>

#include "io/CatalogJson.h"
#include "io/PlanJson.h"
#include "core/advice/Interventions.h"
#include "ui/charts/ChartExport.h"
#include "ui/charts/MemoryChartView.h"
#include "ui/charts/PipelineGanttView.h"
#include "ui/charts/RooflineView.h"
#include "ui/charts/ScalingView.h"
#include "core/cluster/Topology.h"
#include "core/common/Units.h"
#include "ui/document/PlanDocument.h"
#include "core/memory/MemoryTerms.h"
#include "core/memory/ModelState.h"
#include "core/precision/PrecisionPolicy.h"

namespace trainplan {

namespace {

constexpr const char *kPageSizeKey = "report/pageSize";

QString text(const std::string &s) { return QString::fromStdString(s).toHtmlEscaped(); }
QString num(double v, int decimals) { return QString::fromStdString(units::formatNumber(v, decimals)); }
QString gib(double bytes) { return num(bytes / units::GiB, 2) + QStringLiteral(" GiB"); }
QString pct(double fraction) { return num(100.0 * fraction, 1) + QStringLiteral("%"); }
QString count(double v) { return QString::fromStdString(units::formatCount(v)); }

QString duration(double seconds) { return QString::fromStdString(units::formatDuration(seconds)); }

/// Charts made for the report: hidden, light palette whatever the window uses, bound to the document.
struct ReportCharts
{
    explicit ReportCharts(PlanDocument *document)
        : memory(document), roofline(document), scaling(document), pipeline(document)
    {
        const QPalette light = QApplication::style()->standardPalette();
        for (QWidget *w : {static_cast<QWidget *>(&memory), static_cast<QWidget *>(&roofline),
                           static_cast<QWidget *>(&scaling), static_cast<QWidget *>(&pipeline)}) {
            w->setAttribute(Qt::WA_DontShowOnScreen);
            w->setPalette(light);
            w->resize(1000, 600);
        }
    }
    std::vector<ExportableChart *> all() { return {&memory, &roofline, &scaling, &pipeline}; }

    MemoryChartView memory;
    RooflineView roofline;
    ScalingView scaling;
    PipelineGanttView pipeline;
};

/// Flows headings, HTML blocks and charts down A4/Letter pages (device units: pixels at 96 dpi).
class PageFlow
{
public:
    /// `totalPages` > 0 prints "page k of N" (known from a first pass).
    PageFlow(QPdfWriter &pdf, const QString &footer, int totalPages = 0)
        : m_pdf(pdf), m_painter(&pdf), m_footer(footer), m_totalPages(totalPages)
    {
        m_painter.setRenderHint(QPainter::Antialiasing);
        m_painter.setRenderHint(QPainter::TextAntialiasing);
        const QRectF full(QPointF(0, 0), QSizeF(pdf.width(), pdf.height()));
        m_content = full.adjusted(64, 56, -64, -64);
        m_y = m_content.top();
        m_base = QFont(QStringLiteral("DejaVu Sans"));
        m_base.setPointSizeF(9.0);
        drawFooter();
    }
    ~PageFlow() { m_painter.end(); }

    bool isActive() const { return m_painter.isActive(); }
    QPainter &painter() { return m_painter; }
    int pages() const { return m_page; }
    double width() const { return m_content.width(); }
    double remaining() const { return m_content.bottom() - m_y; }

    void newPage()
    {
        m_pdf.newPage();
        ++m_page;
        m_y = m_content.top();
        drawFooter();
    }
    void space(double pixels) { m_y += pixels; }

    /// A rich-text block; moved to a new page when it does not fit the rest of this one. `keepWithNext`
    /// reserves that much more room (a heading stays with the start of its section).
    void html(const QString &body, double keepWithNext = 0)
    {
        // A pending heading travels with the block after it: never alone at the foot of a page.
        const QString html = m_pendingHeading + body;
        m_pendingHeading.clear();
        QTextDocument doc;
        doc.setDefaultFont(m_base);
        doc.setDocumentMargin(0);
        doc.setDefaultStyleSheet(styleSheet());
        doc.setTextWidth(width());
        doc.setHtml(html);
        const double height = doc.size().height();
        if (height + keepWithNext > remaining() && m_y > m_content.top() + 1)
            newPage();
        // Taller than a page (never for the blocks this report makes): drawn in page-sized slices.
        double drawn = 0;
        while (drawn < height) {
            const double slice = std::min(height - drawn, remaining());
            m_painter.save();
            m_painter.translate(m_content.left(), m_y - drawn);
            doc.drawContents(&m_painter, QRectF(0, drawn, width(), slice));
            m_painter.restore();
            drawn += slice;
            m_y += slice;
            if (drawn < height)
                newPage();
        }
        m_y += 6;
    }

    void heading(const QString &title, int level = 1)
    {
        const QString tag = level == 1 ? QStringLiteral("h1") : QStringLiteral("h2");
        if (m_y > m_content.top() + 1)
            space(level == 1 ? 10 : 4);
        m_pendingHeading += QStringLiteral("<%1>%2</%1>").arg(tag, title.toHtmlEscaped());
    }

    void chart(ExportableChart &chart, double height, const QString &caption)
    {
        if (!m_pendingHeading.isEmpty())
            html(QString(), height + 24);
        if (height + 24 > remaining())
            newPage();
        const QRectF target(m_content.left(), m_y, width(), height);
        chart.renderChart(&m_painter, target, target.size());
        m_painter.setPen(QColor(200, 200, 200));
        m_painter.setBrush(Qt::NoBrush);
        m_painter.drawRect(target);
        m_y += height + 4;
        html(QStringLiteral("<p class=\"caption\">%1</p>").arg(caption.toHtmlEscaped()));
    }

private:
    static QString styleSheet()
    {
        return QStringLiteral(
            "h1 { font-size: 15pt; font-weight: bold; color: #1f3a5f; margin-top: 6px; margin-bottom: 4px; }"
            "h2 { font-size: 11pt; font-weight: bold; color: #1f3a5f; margin-top: 4px; margin-bottom: 2px; }"
            "p { margin-top: 0px; margin-bottom: 4px; }"
            "p.caption { font-size: 8pt; color: #555555; }"
            "p.note { font-size: 8pt; color: #555555; }"
            "table { border-collapse: collapse; }"
            "th { background-color: #e8edf3; font-weight: bold; padding: 2px 5px; text-align: left; }"
            "td { padding: 2px 5px; }"
            "td.n { text-align: right; }"
            "th.n { text-align: right; }"
            "pre { font-family: 'DejaVu Sans Mono'; font-size: 7.5pt; }");
    }

    void drawFooter()
    {
        QFont small = m_base;
        small.setPointSizeF(7.5);
        m_painter.save();
        m_painter.setFont(small);
        m_painter.setPen(QColor(120, 120, 120));
        const QRectF band(m_content.left(), m_content.bottom() + 20, m_content.width(), 16);
        m_painter.drawText(band, Qt::AlignLeft | Qt::AlignVCenter, m_footer);
        m_painter.drawText(band, Qt::AlignRight | Qt::AlignVCenter,
                           m_totalPages > 0 ? QObject::tr("page %1 of %2").arg(m_page).arg(m_totalPages) : QObject::tr("page %1").arg(m_page));
        m_painter.setPen(QColor(210, 210, 210));
        m_painter.drawLine(QPointF(m_content.left(), band.top() - 4), QPointF(m_content.right(), band.top() - 4));
        m_painter.restore();
    }

    QPdfWriter &m_pdf;
    QPainter m_painter;
    QString m_footer;
    int m_totalPages = 0;
    QRectF m_content;
    QFont m_base;
    QString m_pendingHeading;
    double m_y = 0;
    int m_page = 1;
};

/// A table: header cells (a trailing '#' marks a numeric, right-aligned column) and rows.
QString table(const QStringList &header, const QList<QStringList> &rows, const QString &width = QStringLiteral("100%"))
{
    QString html = QStringLiteral("<table width=\"%1\" cellspacing=\"0\" border=\"0\"><tr>").arg(width);
    QList<bool> numeric;
    for (QString h : header) {
        const bool n = h.endsWith(QLatin1Char('#'));
        numeric << n;
        if (n)
            h.chop(1);
        html += QStringLiteral("<th%1>%2</th>").arg(n ? QStringLiteral(" class=\"n\"") : QString(), h.toHtmlEscaped());
    }
    html += QStringLiteral("</tr>");
    for (qsizetype r = 0; r < rows.size(); ++r) {
        html += r % 2 ? QStringLiteral("<tr style=\"background-color:#f6f8fa\">") : QStringLiteral("<tr>");
        for (qsizetype c = 0; c < rows[r].size(); ++c)
            html += QStringLiteral("<td%1>%2</td>")
                        .arg(c < numeric.size() && numeric[c] ? QStringLiteral(" class=\"n\"") : QString(),
                             rows[r][c].isEmpty() ? QStringLiteral("—") : rows[r][c]);
        html += QStringLiteral("</tr>");
    }
    return html + QStringLiteral("</table>");
}

/// Key-value rows as a two-column table.
QString facts(const QList<QPair<QString, QString>> &rows)
{
    QString html = QStringLiteral("<table width=\"100%\" cellspacing=\"0\" border=\"0\">");
    for (qsizetype r = 0; r < rows.size(); ++r)
        html += QStringLiteral("<tr%1><td width=\"27%\"><b>%2</b></td><td>%3</td></tr>")
                    .arg(r % 2 ? QStringLiteral(" style=\"background-color:#f6f8fa\"") : QString(), rows[r].first.toHtmlEscaped(),
                         rows[r].second);
    return html + QStringLiteral("</table>");
}

/// Tables longer than `perBlock` rows become several blocks (each one fits a page).
template<typename Flow>
void chunkedTable(Flow &flow, const QStringList &header, const QList<QStringList> &rows, int perBlock = 28)
{
    for (qsizetype i = 0; i < rows.size() || i == 0; i += perBlock) {
        flow.html(table(header, rows.mid(i, perBlock)));
        if (rows.isEmpty())
            break;
    }
}

void writeSections(PageFlow &flow, PlanDocument *document, ReportCharts &charts, const ReportOptions &options)
{
    const Plan &plan = document->plan();
    const Estimate &e = document->estimate();
    const Catalog &catalog = document->catalog();
    const DeviceSpec &device = *e.device;
    const ModelSpec &m = plan.model;
    const TrainingConfig &tr = plan.training;
    const ParallelConfig &par = plan.parallel;
    const StepEstimate &st = e.step;
    const std::vector<Intervention> interventions = evaluateInterventions(plan, catalog);
    const Intervention *suggestion = suggestedChange(interventions, e);

    // Title page.
    flow.space(120);
    flow.html(QStringLiteral("<p style=\"font-size:26pt; font-weight:bold; color:#1f3a5f\">%1</p>"
                             "<p style=\"font-size:16pt\">%2</p>")
                  .arg(QObject::tr("Efficiency audit"), text(plan.name)));
    flow.space(20);
    const std::vector<NodeGroup> groups = plan.cluster.groups();
    QString cluster;
    for (const NodeGroup &g : groups) {
        const DeviceSpec *d = catalog.device(g.device, plan.cluster.customDevices);
        cluster += (cluster.isEmpty() ? QString() : QStringLiteral("; "))
                   + QObject::tr("%1 nodes × %2 %3").arg(g.nodes).arg(g.gpusPerNode).arg(d ? text(d->name) : text(g.device));
    }
    flow.html(facts({{QObject::tr("Date"), options.date.toString(QStringLiteral("yyyy-MM-dd HH:mm"))},
                     {QObject::tr("Model"), QObject::tr("%1, %2 parameters").arg(text(m.name), count(e.model.parameters))},
                     {QObject::tr("Device"), text(device.name)},
                     {QObject::tr("GPUs"), QObject::tr("%1 (%2)").arg(e.model.gpus).arg(cluster)},
                     {QObject::tr("Layout"), QObject::tr("data %1 × tensor %2 × pipeline %3").arg(par.data).arg(par.tensor).arg(par.pipeline)}}));
    flow.space(16);
    flow.html(QStringLiteral("<h2>%1</h2>").arg(QObject::tr("Summary")));
    flow.html(facts({
        {QObject::tr("Fits in memory"), e.memory.fits ? QObject::tr("yes: peak %1 of %2").arg(gib(e.memory.peakBytes), gib(e.memory.capacityBytes))
                                                      : QObject::tr("<b>no</b>: peak %1 of %2").arg(gib(e.memory.peakBytes), gib(e.memory.capacityBytes))},
        {QObject::tr("Step time"), num(st.stepSeconds, 3) + QStringLiteral(" s")},
        {QObject::tr("Throughput"), QObject::tr("%1 tokens/s").arg(num(st.tokensPerSecond, 0))},
        {QObject::tr("MFU / HFU"), pct(st.mfu) + QStringLiteral(" / ") + pct(st.hfu)},
        {QObject::tr("Limiting resource"), QStringLiteral("%1: %2").arg(QString::fromLatin1(toString(st.bottleneck)), text(st.bottleneckEvidence))},
        {QObject::tr("Suggested change"), suggestion ? QObject::tr("%1 (%2): %3 tokens/s, %4× throughput")
                                                           .arg(text(suggestion->label), text(suggestion->change), num(suggestion->tokensPerSecond, 0),
                                                                num(suggestion->speedup, 2))
                                                     : QObject::tr("none of the interventions in the diagnostic map helps by more than 0.5%")},
        {QObject::tr("Time to train"), QObject::tr("%1 days for %2 tokens").arg(num(e.run.days, 1), count(plan.run.tokenBudget))},
    }));
    flow.newPage();

    // 1. Model and input shapes.
    flow.heading(QObject::tr("1. Model and input shapes"));
    const std::int64_t accumulation = e.model.microbatches;
    flow.html(facts({
        {QObject::tr("Layers, hidden, heads"), QObject::tr("%1 layers, hidden %2, %3 heads (%4 key/value), MLP %5 (%6)")
                                                   .arg(m.layers).arg(m.hidden).arg(m.heads).arg(m.kvHeads).arg(m.ffnHidden)
                                                   .arg(QString::fromLatin1(toString(m.mlp)))},
        {QObject::tr("Vocabulary, sequence"), QObject::tr("%1 tokens, sequence length %2").arg(m.vocab).arg(m.seqLen)},
        {QObject::tr("Parameters"), QObject::tr("%1 (%2 per layer)").arg(count(e.model.parameters), count(e.model.parametersPerLayer))},
        {QObject::tr("Micro-batch"), QObject::tr("%1 sequences per GPU").arg(tr.microBatch)},
        {QObject::tr("Global batch"), QObject::tr("%1 sequences = %2 tokens per step").arg(tr.globalBatch).arg(count(double(tr.globalBatch) * double(m.seqLen)))},
        {QObject::tr("Accumulation"), QObject::tr("%1 micro-batches per pipeline per step (global / (micro × data))").arg(accumulation)},
        {QObject::tr("Valid-token fraction"), pct(1.0 - tr.paddingFraction) + QObject::tr(" (padding %1)").arg(pct(tr.paddingFraction))},
        {QObject::tr("Recomputation"), QString::fromLatin1(toString(tr.recompute))
                                            + (tr.flashAttention ? QObject::tr(", flash attention") : QString())
                                            + (tr.fusedKernels ? QObject::tr(", fused element-wise kernels") : QObject::tr(", unfused kernels"))},
    }));

    // 2. Precision policy.
    flow.heading(QObject::tr("2. Precision policy"));
    const PrecisionPolicy policy = precisionPolicy(plan);
    QList<QStringList> precisionRows;
    for (const PrecisionRow &r : policy.rows)
        precisionRows << QStringList{text(r.tensor), text(r.held), text(r.computed), text(r.communicated), text(r.note)};
    flow.html(table({QObject::tr("Tensor"), QObject::tr("Held"), QObject::tr("Computed"), QObject::tr("Communicated"), QObject::tr("Note")},
                    precisionRows));
    flow.html(QObject::tr("<p><b>Loss scaling:</b> %1.</p>").arg(text(policy.lossScaling)));
    const StateBytesPerParameter perParam = stateBytesPerParameter(tr.precision, tr.optimizer, tr.fp32Gradients);
    flow.html(QObject::tr("<p><b>Optimizer-state representation:</b> %1 bytes per parameter for parameters, %2 for gradients, "
                          "%3 for the optimizer (%4)%5.</p>")
                  .arg(num(perParam.parameters, 0), num(perParam.gradients, 0), num(perParam.optimizer, 0),
                       tr.optimizer == Optimizer::Adam ? QObject::tr("FP32 master weights and two Adam moments")
                                                       : QObject::tr("FP32 master weights and momentum"),
                       par.zeroStage > 0 ? QObject::tr(", sharded over %1 data-parallel ranks by ZeRO-%2").arg(par.data).arg(par.zeroStage)
                                         : QObject::tr(", replicated on every data-parallel rank")));

    // 3. Parallelism and topology.
    flow.heading(QObject::tr("3. Parallelism, device and interconnect"));
    QString linkName = text(intraNodeLinkName(catalog, groups.front(), device));
    flow.html(facts({
        {QObject::tr("Dimensions"), QObject::tr("data %1 × tensor %2 × pipeline %3 = %4 GPUs").arg(par.data).arg(par.tensor).arg(par.pipeline).arg(e.model.gpus)},
        {QObject::tr("Schedule"), QObject::tr("%1, %2 virtual stage(s) per rank%3").arg(QString::fromLatin1(toString(par.schedule))).arg(par.virtualStages)
                                      .arg(tr.sequenceParallel ? QObject::tr(", sequence parallel") : QString())},
        {QObject::tr("State sharding"), QObject::tr("ZeRO stage %1%2").arg(par.zeroStage).arg(par.offloadOptimizer ? QObject::tr(", optimizer offloaded to the host") : QString())},
        {QObject::tr("Device"), QObject::tr("%1: %2 TFLOP/s %3 peak, %4 HBM at %5 TB/s").arg(text(device.name), num(device.peakFlops(tr.precision) / 1e12, 0),
                                                                                          QString::fromLatin1(toString(tr.precision)).toUpper(), gib(device.memoryBytes),
                                                                                          num(device.memoryBandwidthBytesPerSecond / 1e12, 2))},
        {QObject::tr("Nodes"), QObject::tr("%1 nodes of %2 GPUs; intra-node %3").arg(plan.cluster.nodes).arg(plan.cluster.gpusPerNode).arg(linkName)},
        {QObject::tr("Network"), text(networkName(plan.cluster, catalog, device))},
    }));
    QList<QStringList> placementRows;
    const auto landingRow = [&](const QString &what, const GroupLanding &l) {
        if (l.size > 1)
            placementRows << QStringList{what, QString::number(l.groups), QString::number(l.size),
                                         l.crossesNodes ? QObject::tr("across %1 nodes").arg(l.nodesSpanned) : QObject::tr("inside a node"),
                                         text(l.link), num(l.bandwidthBytesPerSecond / 1e9, 0)};
    };
    landingRow(QObject::tr("Tensor-parallel"), e.placement.tensor);
    landingRow(QObject::tr("Data-parallel"), e.placement.data);
    landingRow(QObject::tr("Pipeline neighbours"), e.placement.pipeline);
    if (!placementRows.isEmpty())
        flow.html(table({QObject::tr("Group"), QObject::tr("Groups#"), QObject::tr("GPUs each#"), QObject::tr("Placement"),
                         QObject::tr("Link"), QObject::tr("GB/s per GPU#")},
                        placementRows));
    for (const Problem &p : e.problems)
        if (p.severity == Severity::Warning)
            flow.html(QStringLiteral("<p class=\"note\">⚠ %1</p>").arg(text(toString(p))));

    // 4. Memory.
    flow.heading(QObject::tr("4. Memory peaks per stage and component"));
    QList<QStringList> memoryRows;
    for (const StageMemory &s : e.memory.stages)
        memoryRows << QStringList{QString::number(s.stage), num(s.parametersBytes / units::GiB, 2), num(s.gradientsBytes / units::GiB, 2),
                                  num(s.optimizerBytes / units::GiB, 2), num(s.activationsBytes / units::GiB, 2), num(s.otherBytes / units::GiB, 2),
                                  QStringLiteral("<b>%1</b>").arg(num(s.peakBytes / units::GiB, 2)), num(s.capacityBytes / units::GiB, 1),
                                  QString::fromLatin1(toString(s.peakPhase))};
    chunkedTable(flow, {QObject::tr("Stage#"), QObject::tr("Params#"), QObject::tr("Grads#"), QObject::tr("Optimizer#"),
                        QObject::tr("Activations#"), QObject::tr("Other#"), QObject::tr("Peak GiB#"), QObject::tr("Capacity#"), QObject::tr("Peak phase")},
                 memoryRows);
    flow.html(QObject::tr("<p>Peak %1 on stage %2 of %3 capacity: %4 (headroom %5).</p>")
                  .arg(gib(e.memory.peakBytes)).arg(e.memory.peakStage).arg(gib(e.memory.capacityBytes))
                  .arg(e.memory.fits ? QObject::tr("fits") : QObject::tr("<b>does not fit</b>"), gib(e.memory.headroomBytes())));
    flow.chart(charts.memory, 300, QObject::tr("Figure 1. Memory per GPU by pipeline stage, stacked by component, against the device capacity."));

    // 5. Throughput and step time.
    flow.heading(QObject::tr("5. Throughput and step-time decomposition"));
    flow.html(facts({
        {QObject::tr("Step time"), num(st.stepSeconds, 3) + QStringLiteral(" s")},
        {QObject::tr("Tokens/s"), num(st.tokensPerSecond, 0)},
        {QObject::tr("Valid tokens/s"), num(st.validTokensPerSecond, 0)},
        {QObject::tr("Model TFLOP/s per GPU"), num(st.modelFlopsPerGpu / 1e12, 1)},
        {QObject::tr("Hardware TFLOP/s per GPU"), num(st.hardwareFlopsPerGpu / 1e12, 1)},
        {QObject::tr("MFU / HFU"), pct(st.mfu) + QStringLiteral(" / ") + pct(st.hfu)},
    }));
    QList<QStringList> breakdownRows;
    for (std::size_t i = 0; i < kTimeCategoryCount; ++i)
        breakdownRows << QStringList{QString::fromLatin1(labelOf(TimeCategory(i))), num(st.breakdown[i], 4),
                                     pct(st.stepSeconds > 0 ? st.breakdown[i] / st.stepSeconds : 0.0)};
    flow.html(table({QObject::tr("Category"), QObject::tr("Seconds#"), QObject::tr("Share#")}, breakdownRows, QStringLiteral("70%")));
    const double exposed = st.category(TimeCategory::TensorComm) + st.category(TimeCategory::PipelineComm) + st.category(TimeCategory::DataComm);
    flow.html(QObject::tr("<p><b>Exposed communication:</b> %1 s per step (%2): tensor-parallel %3 s, pipeline %4 s, data-parallel %5 s. "
                          "<b>Pipeline idle:</b> %6 of all stage-time.</p>")
                  .arg(num(exposed, 3), pct(st.stepSeconds > 0 ? exposed / st.stepSeconds : 0.0), num(st.category(TimeCategory::TensorComm), 3),
                       num(st.category(TimeCategory::PipelineComm), 3), num(st.category(TimeCategory::DataComm), 3), pct(st.bubbleFraction)));
    flow.chart(charts.roofline, 300, QObject::tr("Figure 2. Roofline of one micro-batch's kernels on the slowest stage."));
    flow.chart(charts.pipeline, 280, QObject::tr("Figure 3. The simulated pipeline schedule of one step."));

    // 6. Scaling baseline.
    flow.heading(QObject::tr("6. Scaling baseline"));
    const auto at = [&](const std::vector<ScalingPoint> &curve) -> const ScalingPoint * {
        for (const ScalingPoint &p : curve)
            if (p.workers == par.data)
                return &p;
        return nullptr;
    };
    const ScalingPoint *strong = at(e.scaling.strong);
    const ScalingPoint *weak = at(e.scaling.weak);
    flow.html(QObject::tr("<p>Baseline: one replica of tensor %1 × pipeline %2 = %3 GPUs; speedup S(W) = T(1)/T(W) over W data-parallel "
                          "replicas. At this plan's %4 replicas: strong scaling %5, weak scaling %6.</p>")
                  .arg(par.tensor).arg(par.pipeline).arg(par.tensor * par.pipeline).arg(par.data)
                  .arg(strong ? QObject::tr("speedup %1, efficiency %2").arg(num(strong->speedup, 1), pct(strong->efficiency)) : QObject::tr("n/a"),
                       weak ? QObject::tr("efficiency %1").arg(pct(weak->efficiency)) : QObject::tr("n/a")),
              284); // with its chart
    flow.chart(charts.scaling, 280, QObject::tr("Figure 4. Strong and weak scaling against the one-replica baseline."));

    // 7. Time and cost to train.
    flow.heading(QObject::tr("7. Time and cost to train"));
    const RunEstimate &run = e.run;
    QList<QStringList> costRows;
    const auto costRow = [&](const QString &name, const RunEstimate &r, std::int64_t gpus) {
        costRows << QStringList{name, QString::number(gpus), num(r.days, 1), num(r.gpuHours, 0), num(r.energyJoules / 3.6e6, 0),
                                num(r.cost, 0), num(r.daysWithFailures, 1)};
    };
    costRow(QObject::tr("This plan"), run, e.model.gpus);
    if (options.alternative) {
        const Estimate alt = estimate(*options.alternative, catalog);
        if (alt.valid)
            costRow(QObject::tr("Best plan found by the search"), alt.run, alt.model.gpus);
    }
    flow.html(table({QObject::tr("Plan"), QObject::tr("GPUs#"), QObject::tr("Days#"), QObject::tr("GPU-hours#"), QObject::tr("Energy kWh#"),
                     QObject::tr("Cost#"), QObject::tr("Days with failures#")},
                    costRows));
    flow.html(QObject::tr("<p>%1 tokens in %2 steps of %3 tokens. Cost at %4 per GPU-hour. Energy: GPUs × board power (%5 W) × "
                          "busy fraction (%6 of the step runs kernels) × time; GPUs only, without host, network and cooling.</p>")
                  .arg(count(plan.run.tokenBudget), num(run.steps, 0), count(double(tr.globalBatch) * double(m.seqLen)),
                       num(plan.run.pricePerGpuHour, 2), num(device.boardPowerWatts, 0), pct(run.busyFraction)));

    // 8. Checkpoint cost and failures.
    flow.heading(QObject::tr("8. Checkpoint cost and failures"));
    flow.html(facts({
        {QObject::tr("Checkpoint size"), QObject::tr("%1 (parameters and optimizer state; gradients are not saved); largest shard %2 per GPU")
                                             .arg(gib(run.checkpointBytes), gib(run.checkpointBytesPerGpu))},
        {QObject::tr("Write time"), QObject::tr("%1 at %2 GB/s, %3").arg(duration(run.checkpointWriteSeconds), num(plan.run.checkpointBandwidthBytesPerSecond / 1e9, 1),
                                                                     plan.run.shardedCheckpoint ? QObject::tr("sharded (every rank writes its shard)")
                                                                                                : QObject::tr("gathered to one writer"))},
        {QObject::tr("Cluster MTBF"), QObject::tr("%1 (%2 h per GPU / %3 GPUs)").arg(duration(run.clusterMtbfSeconds), num(plan.run.gpuMtbfHours, 0)).arg(e.model.gpus)},
        {QObject::tr("Checkpoint interval"), QObject::tr("%1 (Daly 2006; Young 1974: %2)").arg(duration(run.checkpointIntervalSeconds), duration(run.youngIntervalSeconds))},
        {QObject::tr("Overhead"), QObject::tr("%1 of useful time (writes, lost work, restarts of %2)").arg(pct(run.overheadFraction), duration(plan.run.restartSeconds))},
        {QObject::tr("Expected failures"), QObject::tr("%1 over %2 days").arg(num(run.expectedFailures, 1), num(run.daysWithFailures, 1))},
    }));

    // 9. Limiting resource and interventions.
    flow.heading(QObject::tr("9. Limiting resource and what to change"));
    flow.html(QObject::tr("<p><b>Limited by %1:</b> %2.</p>").arg(QString::fromLatin1(toString(st.bottleneck)), text(st.bottleneckEvidence)));
    if (suggestion)
        flow.html(QObject::tr("<p><b>Suggested change:</b> %1 (%2): %3 tokens/s (%4× the current plan), peak %5.</p>")
                      .arg(text(suggestion->label), text(suggestion->change), num(suggestion->tokensPerSecond, 0), num(suggestion->speedup, 2),
                           gib(suggestion->peakBytes)));
    QList<QStringList> interventionRows;
    QStringList notApplicable;
    for (const Intervention &in : interventions) {
        if (!in.valid) {
            notApplicable << QStringLiteral("%1 (%2)").arg(text(in.label), text(in.invalidReason));
            continue;
        }
        interventionRows << QStringList{QString::fromLatin1(labelOf(in.resource)), text(in.label),
                                        in.fits ? QObject::tr("fits") : QObject::tr("too big"), num(in.tokensPerSecond, 0),
                                        in.speedup > 0 ? num(in.speedup, 2) + QStringLiteral("×") : QString(), gib(in.peakBytes)};
    }
    flow.html(QObject::tr("<p>Each intervention of the diagnostic map (Figure 16.1) applied alone to this plan and estimated:</p>"));
    chunkedTable(flow, {QObject::tr("Resource"), QObject::tr("Intervention"), QObject::tr("Memory"), QObject::tr("Tokens/s#"),
                        QObject::tr("Speedup#"), QObject::tr("Peak#")},
                 interventionRows, 24);
    if (!notApplicable.isEmpty())
        flow.html(QObject::tr("<p class=\"note\">Not applicable here: %1.</p>").arg(notApplicable.join(QStringLiteral("; "))));

    // 10. Assumptions and sources.
    flow.heading(QObject::tr("10. Assumptions and sources"));
    QList<QStringList> sourceRows;
    sourceRows << QStringList{QObject::tr("Device figures"), text(device.name), text(device.source)};
    sourceRows << QStringList{QObject::tr("Kernel and link efficiency"), QObject::tr("efficiency(size) = max × size / (size + half)"),
                              QObject::tr("calibrated on published runs (docs/CALIBRATION.md)")};
    for (std::size_t i = 0; i < kStateTermCount; ++i) {
        const TermInfo &t = termInfo(StateTerm(i));
        sourceRows << QStringList{QString::fromLatin1(t.label), QString::fromLatin1(t.formula).toHtmlEscaped(), QString::fromLatin1(t.source).toHtmlEscaped()};
    }
    for (std::size_t i = 0; i < kOtherTermCount; ++i) {
        const TermInfo &t = termInfo(OtherTerm(i));
        sourceRows << QStringList{QString::fromLatin1(t.label), QString::fromLatin1(t.formula).toHtmlEscaped(), QString::fromLatin1(t.source).toHtmlEscaped()};
    }
    for (const NodeGroup &g : groups)
        if (const LinkSpec *l = catalog.intraNodeLink(g.intraNodeLink))
            sourceRows << QStringList{QObject::tr("Intra-node link"), text(l->name), text(l->source)};
    if (const LinkSpec *net = catalog.network(plan.cluster.network))
        sourceRows << QStringList{QObject::tr("Network"), text(net->name), text(net->source)};
    sourceRows << QStringList{QObject::tr("Pipeline"), QObject::tr("simulated schedule (GPipe, 1F1B, interleaved, ZB-H1)"),
                              QObject::tr("Huang et al. 2019; Narayanan et al. 2021; Qi et al. 2024")};
    sourceRows << QStringList{QObject::tr("GPU MTBF"), QObject::tr("%1 h per GPU").arg(num(plan.run.gpuMtbfHours, 0)),
                              QObject::tr("Llama 3 (Dubey et al. 2024): 419 unexpected interruptions in 54 days on 16,384 GPUs ≈ 50,700 GPU-hours")};
    sourceRows << QStringList{QObject::tr("Checkpoint interval"), QObject::tr("τ = √(2δM)[1 + ⅓√(δ/2M) + (δ/2M)/9] − δ"),
                              QObject::tr("Daly 2006; Young 1974")};
    sourceRows << QStringList{QObject::tr("Price, storage, restart"),
                              QObject::tr("%1 per GPU-hour, %2 GB/s, %3 s").arg(num(plan.run.pricePerGpuHour, 2), num(plan.run.checkpointBandwidthBytesPerSecond / 1e9, 1),
                                                                               num(plan.run.restartSeconds, 0)),
                              QObject::tr("user assumptions (plan keys run.*)")};
    chunkedTable(flow, {QObject::tr("Assumption"), QObject::tr("Value or formula"), QObject::tr("Source")}, sourceRows, 12);

    // Appendix: the plan file.
    flow.newPage();
    flow.heading(QObject::tr("Appendix: the plan file"));
    const QStringList lines = QString::fromUtf8(io::writePlan(plan, catalog)).split(QLatin1Char('\n'));
    for (qsizetype i = 0; i < lines.size(); i += 60)
        flow.html(QStringLiteral("<pre>%1</pre>").arg(lines.mid(i, 60).join(QLatin1Char('\n')).toHtmlEscaped()));
}

} // namespace

QPageSize::PageSizeId reportPageSizeFromSettings()
{
    return QSettings().value(kPageSizeKey).toString() == QLatin1String("letter") ? QPageSize::Letter : QPageSize::A4;
}

void setReportPageSizeInSettings(QPageSize::PageSizeId size)
{
    QSettings().setValue(kPageSizeKey, size == QPageSize::Letter ? QStringLiteral("letter") : QStringLiteral("a4"));
}

int writeReport(PlanDocument *document, QIODevice *device, const ReportOptions &options, QString *error)
{
    const Estimate &e = document->estimate();
    if (!e.valid) {
        if (error) {
            QStringList lines;
            for (const Problem &p : e.problems)
                if (p.isError())
                    lines << QString::fromStdString(toString(p));
            *error = QObject::tr("the plan has errors:\n%1").arg(lines.join(QLatin1Char('\n')));
        }
        return 0;
    }
    ReportCharts charts(document);
    // Two passes: the first counts the pages for the "page k of N" footers.
    int pages = 0;
    for (int pass = 0; pass < 2; ++pass) {
        QBuffer scratch;
        scratch.open(QIODevice::WriteOnly);
        QPdfWriter pdf(pass == 0 ? static_cast<QIODevice *>(&scratch) : device);
        pdf.setResolution(96);
        pdf.setCreator(QStringLiteral("Trainplan %1").arg(QCoreApplication::applicationVersion()));
        pdf.setTitle(QObject::tr("Efficiency audit: %1").arg(QString::fromStdString(document->plan().name)));
        pdf.setPageSize(QPageSize(options.pageSize));
        pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
        PageFlow flow(pdf, QObject::tr("Trainplan efficiency audit · %1").arg(QString::fromStdString(document->plan().name)), pages);
        if (!flow.isActive()) {
            if (error)
                *error = QObject::tr("cannot start the PDF");
            return 0;
        }
        writeSections(flow, document, charts, options);
        pages = flow.pages();
    }
    return pages;
}

bool writeReportFile(PlanDocument *document, const QString &path, const ReportOptions &options, QString *error)
{
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    if (writeReport(document, &buffer, options, error) == 0)
        return false;
    buffer.close();
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit()) {
        if (error)
            *error = QObject::tr("cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

bool writeChartPngs(PlanDocument *document, const QString &dir, QSize pixels, int dpi, QStringList *written, QString *error)
{
    if (!document->estimate().valid) {
        QString reason;
        writeReport(document, nullptr, {}, &reason);
        if (error)
            *error = reason;
        return false;
    }
    if (!QDir().mkpath(dir)) {
        if (error)
            *error = QObject::tr("cannot create the directory %1").arg(dir);
        return false;
    }
    ReportCharts charts(document);
    for (ExportableChart *chart : charts.all()) {
        const QString path = QDir(dir).filePath(chart->exportName() + QStringLiteral(".png"));
        if (!saveChartPng(*chart, path, pixels, dpi, error))
            return false;
        if (written)
            *written << path;
    }
    return true;
}

} // namespace trainplan
