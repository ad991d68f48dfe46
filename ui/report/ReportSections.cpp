#include "ui/report/ReportSections.h"

#include "core/cluster/Topology.h"
#include "core/compute/LayerOps.h"
#include "core/compute/Op.h"
#include "core/common/Units.h"
#include "core/memory/MemoryModel.h"
#include "core/memory/MemoryTerms.h"
#include "core/memory/ModelState.h"
#include "core/estimate/Comparison.h"
#include "core/plan/PlanKeys.h"
#include "core/step/StepModel.h"
#include "core/step/DataParallel.h"
#include "io/output/ComparisonJson.h"
#include "io/output/Evidence.h"
#include "io/output/MemoryTermSources.h"
#include "io/output/StepTerms.h"
#include "io/plan/PlanJson.h"
#include "io/output/Format.h"
#include "ui/document/PlanDocument.h"
#include "ui/report/PageFlow.h"
#include "ui/report/ReportCharts.h"
#include "io/output/PrecisionPolicy.h"
#include "io/plan/ProblemWords.h"

namespace trainplan {

namespace {

QString text(const std::string &s) { return QString::fromStdString(s).toHtmlEscaped(); }
QString gib(double bytes) { return fmt::gib(bytes, 2); }
QString pct(double fraction) { return fmt::percent(fraction, 1); }
QString count(double v) { return fmt::count(v); }
QString duration(double seconds) { return fmt::duration(seconds); }
QString evidence(const StepEstimate &st) { return io::bottleneckEvidence(st.bottleneck, st.evidence).toHtmlEscaped(); }

/// What every section reads.
struct Context
{
    const PlanDocument &document;
    const Plan &plan;
    const Estimate &e;
    const EstimateDetails &details; ///< the window's estimate always has them (detailsOf)
    const Advice &advice;
    const Catalog &catalog;
    const DeviceSpec &device;
    ReportCharts &charts;
};

/// An amount in the plan's currency ("$1,061,321", "1,061,321 CHF"; cents under 100).
QString money(const Context &c, double amount)
{
    return fmt::currency(amount, c.plan.run.currency);
}

QString clusterSummary(const Context &c)
{
    QString cluster;
    for (const NodeGroup &g : c.plan.cluster.groups()) {
        const DeviceSpec *d = c.catalog.device(g.device, c.plan.cluster.customDevices);
        cluster += (cluster.isEmpty() ? QString() : QStringLiteral("; ")) +
                   QObject::tr("%1 × %2 %3")
                       .arg(fmt::counted(g.nodes, QObject::tr("node"), QObject::tr("nodes")))
                       .arg(g.gpusPerNode)
                       .arg(d ? text(d->name) : text(g.device));
    }
    return cluster;
}

/// The memory band on the peak, after the fit (" (within 18% for 80% of ... : up to 84.1 GiB)"), "" without one.
QString memoryBand(const Context &c, const Estimate &e)
{
    const QString band = io::memoryBandSummary(e.memory, c.details.accuracy);
    return band.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(band.toHtmlEscaped());
}

void titlePage(PageFlow &flow, const Context &c, const QDateTime &date)
{
    const Estimate &e = c.e;
    const StepEstimate &st = e.step;
    const ParallelConfig &par = c.plan.parallel;
    const Intervention *suggestion = c.advice.suggestion();
    flow.space(120);
    flow.html(QStringLiteral("<p style=\"font-size:26pt; font-weight:bold; color:#1f3a5f\">%1</p>"
                             "<p style=\"font-size:16pt\">%2</p>")
                  .arg(QObject::tr("Efficiency audit"), c.document.planName().toHtmlEscaped()));
    if (!c.plan.description.empty())
        flow.html(QStringLiteral("<p>%1</p>").arg(text(c.plan.description)));
    flow.space(20);
    flow.html(htmlFacts(
        {{QObject::tr("Date"), date.toString(QStringLiteral("yyyy-MM-dd HH:mm"))},
         {QObject::tr("Model"),
          QObject::tr("%1, %2 parameters").arg(text(c.plan.model.name), count(e.model.parameters))},
         {QObject::tr("Device"), text(c.device.name)},
         {QObject::tr("GPUs"), QObject::tr("%1 (%2)").arg(e.model.gpus).arg(clusterSummary(c))},
         {QObject::tr("Layout"),
          par.context > 1
              ? QObject::tr("data %1 × tensor %2 × pipeline %3 × context %4 (%5)")
                    .arg(par.data)
                    .arg(par.tensor)
                    .arg(par.pipeline)
                    .arg(par.context)
                    .arg(QString::fromLatin1(labelOf(par.contextComm)))
              : QObject::tr("data %1 × tensor %2 × pipeline %3").arg(par.data).arg(par.tensor).arg(par.pipeline)}}));
    flow.space(16);
    flow.html(QStringLiteral("<h2>%1</h2>").arg(QObject::tr("Summary")));
    const QString peak = QObject::tr("peak %1 of %2").arg(gib(e.memory.peakBytes), gib(e.memory.capacityBytes));
    flow.html(htmlFacts({
        {QObject::tr("Fits in memory"),
         (e.memory.fits ? QObject::tr("yes: %1").arg(peak) : QObject::tr("<b>no</b>: %1").arg(peak)) +
             memoryBand(c, e)},
        {QObject::tr("Step time"), fmt::number(st.stepSeconds, 3) + QStringLiteral(" s ") +
                                       io::accuracyBandText(c.details.accuracy).toHtmlEscaped()},
        {QObject::tr("Throughput"), QObject::tr("%1 tokens/s").arg(fmt::number(st.tokensPerSecond, 0)) +
                                        QLatin1Char(' ') + io::accuracyBandText(c.details.accuracy).toHtmlEscaped()},
        {QObject::tr("How far off"), io::accuracySummary(c.details.accuracy).toHtmlEscaped()},
        {QObject::tr("MFU / HFU"), pct(st.mfu) + QStringLiteral(" / ") + pct(st.hfu)},
        {QObject::tr("Limiting resource"),
         QStringLiteral("%1: %2").arg(QString::fromLatin1(toString(st.bottleneck)), evidence(st))},
        {QObject::tr("Suggested change"),
         suggestion ? QObject::tr("%1 (%2): %3 tokens/s, %4× throughput%5")
                          .arg(io::interventionLabel(suggestion->id), text(suggestion->change),
                               fmt::number(suggestion->tokensPerSecond, 0), fmt::number(suggestion->speedup, 2),
                               suggestion->mayNotFit
                                   ? QObject::tr("; it may not fit (its memory band passes the device)")
                                   : QString())
                    : QObject::tr("none of the interventions in the diagnostic map helps by more than 0.5%")},
        {QObject::tr("Time to train"),
         e.memory.fits ? QObject::tr("%1 days for %2 tokens, %3")
                             .arg(fmt::number(e.run.days, 1), count(c.plan.run.tokenBudget), money(c, e.run.cost))
                       : QObject::tr("<b>does not fit</b>: the plan cannot run, so it has no time or cost")},
    }));
    flow.newPage();
}

/// Mixture of experts: the experts, total and active parameters, which layers route.
QList<std::pair<QString, QString>> mixtureOfExpertsFacts(const Context &c)
{
    const ModelSpec &m = c.plan.model;
    const QString shared = m.sharedExperts > 0 ? QObject::tr(" + %1 shared").arg(m.sharedExperts) : QString();
    QString layers = QObject::tr("%1 of %2 layers route tokens").arg(m.moeLayers()).arg(m.layers);
    if (m.denseLayers > 0)
        layers += QObject::tr(" (the first %1 dense)").arg(m.denseLayers);
    if (m.moeLayerInterval > 1)
        layers += QObject::tr(", every %1th after them").arg(m.moeLayerInterval);
    const QString latent = m.moeLatentSize > 0
                               ? QObject::tr(" on %1-wide latent rows (projected from and back to %2 around the "
                                             "dispatch)")
                                     .arg(m.moeLatentSize)
                                     .arg(m.hidden)
                               : QString();
    QString mtp = m.mtpLayers > 0 ? QObject::tr("; %1 multi-token-prediction layer(s)").arg(m.mtpLayers) : QString();
    if (m.mtpLayers > 0 && m.mtpRepeated)
        mtp += QObject::tr(", one module's weights repeated");
    return {
        {QObject::tr("Mixture of experts"),
         QObject::tr("%1 routed experts%2, top-%3 per token, each %4 wide%5; %6%7")
             .arg(m.experts)
             .arg(shared)
             .arg(m.expertsPerToken)
             .arg(m.expertWidth())
             .arg(latent)
             .arg(layers)
             .arg(mtp)},
        {QObject::tr("Total / active parameters"),
         QObject::tr("%1 total (every expert's weights are stored and trained); %2 active per "
                     "token (what one token passes through; model FLOPs count these)")
             .arg(count(c.e.model.parameters), count(c.e.model.activeParameters))}};
}

/// NCCL's all-to-all on the expert group's links: its ranks inside one NVLink domain, its share of the scale-up link
/// among them, and whether the group spans domains.
struct NcclDispatch
{
    double ranks = 1, scaleUpShare = 1;
    bool spansNodes = false;
};

NcclDispatch ncclDispatch(const Context &c)
{
    const GroupPlacement e = clusterLinks(c.plan, c.device).expertGroup;
    const double ranks = double(e.ranksInNode());
    return {ranks, intraNodeAllToAllShare(c.plan, c.device, ranks), e.spansNodes()};
}

/// NCCL's dispatch in the routing row: its share of the NVLink among the group's ranks in one domain and, when the
/// group spans domains, of each sender's NIC.
QString ncclDispatchText(const Context &c)
{
    const NcclDispatch nccl = ncclDispatch(c);
    QString text = QObject::tr("all-to-all: one copy per routed expert through NCCL, inside the NVLink domain at %1 "
                               "of the scale-up link among its %2 ranks (cluster.intra_node_alltoall_efficiency)")
                       .arg(fmt::number(nccl.scaleUpShare, 2))
                       .arg(nccl.ranks);
    if (nccl.spansNodes)
        text += QObject::tr("; across nodes each copy leaves through its sender's own NIC at %1 of its rate "
                            "(cluster.network_alltoall_efficiency)")
                    .arg(fmt::number(networkAllToAllEfficiency(c.plan, c.device), 2));
    return text;
}

/// The expert layout and the routing assumptions behind the expert GEMMs and the all-to-all.
QList<std::pair<QString, QString>> expertLayoutFacts(const Context &c)
{
    const ModelSpec &m = c.plan.model;
    const ParallelConfig &par = c.plan.parallel;
    const TrainingConfig &training = c.plan.training;
    const double a2a = c.e.step.category(TimeCategory::ExpertComm);
    QString routing =
        training.capacityFactor
            ? QObject::tr("capacity factor %1: an expert takes at most %1× its balanced share, the rest dropped")
                  .arg(fmt::number(*training.capacityFactor, 2))
            : QObject::tr("dropless (no capacity factor)");
    if (!training.capacityFactor && training.expertImbalance == 1.0)
        routing += QObject::tr("; balanced, as NVIDIA's performance recipes force it: a run that routes freely is "
                               "slower (Megatron-Bridge's Qwen3-30B-A3B verification run 1.23× its forced-balance "
                               "twin at step 100; set training.expert_imbalance, docs/CALIBRATION.md)");
    if (training.expertRouting == ExpertRouting::Contiguous)
        routing += QObject::tr("; contiguous routing (training.expert_routing): token t goes to experts t·%1 to "
                               "t·%1 + %2, balanced, each token on the fewest ranks (a benchmark gate)")
                       .arg(m.expertsPerToken)
                       .arg(m.expertsPerToken - 1);
    else if (m.routerGroups > 0 && m.routerGroupTopk < m.routerGroups)
        routing += QObject::tr("; group-limited: a token's experts come from %1 of %2 expert groups")
                       .arg(m.routerGroupTopk)
                       .arg(m.routerGroups);
    const QString nvlinkShare = fmt::number(flexDispatchEfficiency(c.plan, c.device), 2);
    const QString dispatcher =
        par.expertDispatcher == ExpertDispatcher::HybridEp
            ? QObject::tr(
                  "HybridEP: a token crosses the network once per destination NVLink domain, at the NIC's rate, and "
                  "the NVLink once per destination GPU, at %1 of its rate (cluster.flex_dispatch_efficiency)")
                  .arg(nvlinkShare)
        : par.expertDispatcher == ExpertDispatcher::DeepEp
            ? QObject::tr("DeepEP: a token crosses the network once per destination node, at the NIC's rate, and "
                          "the NVLink once per destination GPU, at %1 of its rate (cluster.flex_dispatch_efficiency)")
                  .arg(nvlinkShare)
            : ncclDispatchText(c);
    return {{QObject::tr("Expert layout"),
             QObject::tr("expert %1 × expert tensor %2: %3 routed experts per GPU; expert gradients and "
                         "optimizer state reduced and sharded over %4 expert-data ranks")
                 .arg(par.expert)
                 .arg(par.expertTensorSize())
                 .arg(m.experts / std::max<std::int64_t>(1, par.expert))
                 .arg(par.expertDataSize())},
            {QObject::tr("Routing assumptions"),
             QObject::tr("%1; the busiest expert takes %2× the mean (expert_imbalance) and sets the pace "
                         "of the grouped GEMMs and the all-to-all; dispatch and combine by %4, %5: %3 s exposed "
                         "per step")
                 .arg(routing, fmt::number(training.busiestExpertLoad(), 2), fmt::number(a2a, 2), dispatcher,
                      par.expertCommOverlap && c.plan.microbatches() >= 2
                          ? QObject::tr("each beside another micro-batch's compute (parallel.expert_comm_overlap)")
                          : QObject::tr("not overlapped with compute"))}};
}

/// The parameter count and one layer's share; a hybrid has no one layer, so each kind of block its own size.
QString parametersFact(const ModelSpec &m, const Estimate &e)
{
    if (!m.isHybrid())
        return QObject::tr("%1 (%2 per layer)").arg(count(e.model.parameters), count(e.model.parametersPerLayer));
    const ModelSpec::BlockCounts b = m.blocksIn(0, m.layers);
    QStringList sizes;
    for (const auto &[symbol, n, name] : {std::tuple{'M', b.mamba, QObject::tr("Mamba-2")},
                                          std::tuple{'*', b.attention, QObject::tr("attention")},
                                          std::tuple{'-', b.denseMlp, QObject::tr("dense MLP")},
                                          std::tuple{'E', b.moeMlp, QObject::tr("MoE")}})
        if (n > 0)
            sizes << QObject::tr("%1 %2").arg(name, count(blockParameters(m, symbol).total()));
    return QObject::tr("%1 (per block: %2)").arg(count(e.model.parameters), sizes.join(QStringLiteral(", ")));
}

void modelSection(PageFlow &flow, const Context &c)
{
    const ModelSpec &m = c.plan.model;
    const TrainingConfig &training = c.plan.training;
    const Estimate &e = c.e;
    flow.heading(QObject::tr("1. Model and input shapes"));
    QList<std::pair<QString, QString>> facts{
        {QObject::tr("Layers, hidden, heads"), QObject::tr("%1 layers, hidden %2, %3 heads (%4 key/value), MLP %5 (%6)")
                                                   .arg(m.layers)
                                                   .arg(m.hidden)
                                                   .arg(m.heads)
                                                   .arg(m.kvHeads)
                                                   .arg(m.ffnHidden)
                                                   .arg(QString::fromLatin1(toString(m.mlp)))},
        {QObject::tr("Vocabulary, sequence"), QObject::tr("%1 tokens, sequence length %2").arg(m.vocab).arg(m.seqLen)},
        {QObject::tr("Parameters"), parametersFact(m, e)},
        {QObject::tr("Micro-batch"),
         fmt::counted(training.microBatch, QObject::tr("sequence"), QObject::tr("sequences")) +
             QObject::tr(" per GPU")},
        {QObject::tr("Global batch"),
         QObject::tr("%1 = %2 tokens per step")
             .arg(fmt::counted(training.globalBatch, QObject::tr("sequence"), QObject::tr("sequences")))
             .arg(count(double(training.globalBatch) * double(m.seqLen)))},
        {QObject::tr("Accumulation"),
         QObject::tr("%1 per pipeline per step (global / (micro × data))")
             .arg(fmt::counted(e.model.microbatches, QObject::tr("micro-batch"), QObject::tr("micro-batches")))},
        {QObject::tr("Valid-token fraction"),
         pct(1.0 - training.paddingFraction) + QObject::tr(" (padding %1)").arg(pct(training.paddingFraction)) +
             (training.documentLength > 0 ? QObject::tr("; packed documents of %1 tokens, attention "
                                                        "within each")
                                                .arg(training.documentLength)
                                          : QString())},
        {QObject::tr("Recomputation"),
         QString::fromLatin1(toString(training.recompute)) +
             (training.recomputeMlaUpProjection ? QObject::tr(" + MLA up projections") : QString()) +
             (training.recomputeExpertActivation ? QObject::tr(" + expert activations") : QString()) +
             (training.recomputeMoe ? QObject::tr(" + whole MoE layers (dispatch replayed)") : QString()) +
             (training.recomputeDenseMlp ? QObject::tr(" + dense MLPs") : QString()) +
             (training.recomputeAttention ? QObject::tr(" + the attention kernel (not in the policy's save list)")
                                          : QString()) +
             (training.flashAttention ? QObject::tr(", flash attention") : QString()) +
             (training.fusedKernels ? QObject::tr(", fused element-wise kernels") : QObject::tr(", unfused kernels"))},
    };
    if (m.isMoe()) {
        const QList<std::pair<QString, QString>> moe = mixtureOfExpertsFacts(c);
        for (qsizetype i = 0; i < moe.size(); ++i)
            facts.insert(3 + i, moe[i]);
    }
    if (m.isHybrid()) {
        const ModelSpec::BlockCounts b = m.blocksIn(0, m.layers);
        facts.insert(1, {QObject::tr("Hybrid layers"),
                         QObject::tr("%1 Mamba-2 (%2 heads of %3, state %4, %5 groups), %6 attention, %7 dense MLP, %8 "
                                     "MoE blocks, one per layer: %9")
                             .arg(b.mamba)
                             .arg(m.mambaHeadCount())
                             .arg(m.mambaHeadDim)
                             .arg(m.mambaStateDim)
                             .arg(m.mambaGroups)
                             .arg(b.attention)
                             .arg(b.denseMlp)
                             .arg(b.moeMlp)
                             .arg(QString::fromStdString(m.hybridPattern).toHtmlEscaped())});
    }
    if (m.isMla())
        facts.insert(1,
                     {QObject::tr("Attention"),
                      QObject::tr("multi-head latent attention: query rank %1, key/value rank %2, head sizes %3 + %4 "
                                  "(rotary) for queries and keys, %5 for values")
                          .arg(m.qLoraRank)
                          .arg(m.kvLoraRank)
                          .arg(m.qkNopeHeadDim)
                          .arg(m.qkRopeHeadDim)
                          .arg(m.vHeadDim)});
    flow.html(htmlFacts(facts));
}

void precisionSection(PageFlow &flow, const Context &c)
{
    const TrainingConfig &training = c.plan.training;
    const ParallelConfig &par = c.plan.parallel;
    flow.heading(QObject::tr("2. Precision policy"));
    QList<QStringList> rows;
    const io::PrecisionPolicy policy = io::precisionPolicy(c.plan);
    for (const io::PrecisionRow &r : policy.rows)
        rows << QStringList{text(r.tensor), text(r.held), text(r.computed), text(r.communicated), text(r.note)};
    flow.html(htmlTable({QObject::tr("Tensor"), QObject::tr("Held"), QObject::tr("Computed"),
                         QObject::tr("Communicated"), QObject::tr("Note")},
                        rows));
    flow.html(QObject::tr("<p><b>Loss scaling:</b> %1.</p>").arg(text(policy.lossScaling)));
    const StateBytesPerParameter perParam = stateBytesPerParameter(training);
    const QString muonState = QString::fromStdString(io::muonStateWords(training));
    flow.html(QObject::tr(
                  "<p><b>Optimizer-state representation:</b> %1 bytes per parameter for parameters, %2 for gradients, "
                  "%3 for the optimizer (%4)%5.</p>")
                  .arg(fmt::number(perParam.parameters, 0), fmt::number(perParam.gradients, 0),
                       fmt::number(perParam.optimizer, 0),
                       training.framework == Framework::Fsdp
                           ? (training.optimizer == Optimizer::Adam
                                  ? QObject::tr("FP32 parameter shards, which FSDP steps in place, and two Adam "
                                                "moments")
                                  : QObject::tr("FP32 parameter shards, which FSDP steps in place, and momentum"))
                       : training.optimizer == Optimizer::Adam ? QObject::tr("FP32 master weights and two Adam moments")
                       : training.usesMuon() ? QObject::tr("FP32 master weights; %1").arg(muonState)
                                             : QObject::tr("FP32 master weights and momentum"),
                       par.zeroStage > 0 ? QObject::tr(", sharded over %1 data-parallel ranks by ZeRO-%2")
                                               .arg(par.data * par.context)
                                               .arg(par.zeroStage)
                                         : QObject::tr(", replicated on every data-parallel rank")));
}

QList<QStringList> placementRows(const PlacementReport &placement)
{
    QList<QStringList> rows;
    const auto landingRow = [&](const QString &what, const GroupLanding &l) {
        if (l.size > 1)
            rows << QStringList{what,
                                QString::number(l.groups),
                                QString::number(l.size),
                                l.crossesNodes ? QObject::tr("across %1 nodes").arg(l.nodesSpanned)
                                               : QObject::tr("inside a node"),
                                text(l.link),
                                fmt::gigabytesPerSecond(l.bandwidthBytesPerSecond, 0),
                                fmt::gigabytesPerSecond(l.nominalBandwidthBytesPerSecond, 0)};
    };
    landingRow(QObject::tr("Tensor-parallel"), placement.tensor);
    landingRow(QObject::tr("Context-parallel"), placement.context);
    landingRow(QObject::tr("Expert-parallel (all-to-all)"), placement.expert);
    landingRow(QObject::tr("Expert data (expert gradients)"), placement.expertData);
    landingRow(placement.context.size > 1 ? QObject::tr("Gradient (data × context)") : QObject::tr("Data-parallel"),
               placement.data);
    landingRow(QObject::tr("Pipeline neighbours"), placement.pipeline);
    return rows;
}

void parallelismSection(PageFlow &flow, const Context &c)
{
    const ParallelConfig &par = c.plan.parallel;
    const Precision precision = c.plan.training.precision;
    const DeviceSpec &device = c.device;
    flow.heading(QObject::tr("3. Parallelism, device and interconnect"));
    const QString linkName = text(intraNodeLinkName(c.catalog, c.plan.cluster.groups().front(), device));
    QList<std::pair<QString, QString>> facts{
        {QObject::tr("Dimensions"), par.context > 1
                                        ? QObject::tr("data %1 × tensor %2 × pipeline %3 × context %4 = %5 GPUs; %6")
                                              .arg(par.data)
                                              .arg(par.tensor)
                                              .arg(par.pipeline)
                                              .arg(par.context)
                                              .arg(c.e.model.gpus)
                                              .arg(QString::fromLatin1(labelOf(par.contextComm)))
                                        : QObject::tr("data %1 × tensor %2 × pipeline %3 = %4 GPUs")
                                              .arg(par.data)
                                              .arg(par.tensor)
                                              .arg(par.pipeline)
                                              .arg(c.e.model.gpus)},
        {QObject::tr("Rank order"), QObject::tr("%1; parallel.rank_order")
                                        .arg(QString::fromLatin1(labelOf(par.rankOrder)))},
        {QObject::tr("Schedule"),
         QObject::tr("%1, %2 per rank%3")
             .arg(QString::fromLatin1(labelOf(par.schedule)))
             .arg(fmt::counted(par.virtualStages, QObject::tr("virtual stage"), QObject::tr("virtual stages")))
             .arg(c.plan.training.sequenceParallel ? QObject::tr(", sequence parallel") : QString())},
        {QObject::tr("Layers per stage"),
         c.plan.listedStages()
             ? QObject::tr("listed: %1 (first to last stage; parallel.stage_layers)")
                   .arg(QString::fromStdString(integerListText(par.stageLayers)))
         : c.plan.unevenStages() ? QObject::tr("uneven: first stage %1, last stage %2, the stages between %3 each")
                                     .arg(c.plan.layersOnStage(0))
                                     .arg(c.plan.layersOnStage(par.pipeline - 1))
                                     .arg(c.plan.layersOnStage(1))
         : par.pipeline == 1
             ? QObject::tr("%1, one stage").arg(c.plan.layersOnStage(0))
             : QObject::tr("%1 on each of the %2 stages").arg(c.plan.layersOnStage(0)).arg(par.pipeline)},
        {QObject::tr("State sharding"),
         QObject::tr("ZeRO stage %1%2")
             .arg(par.zeroStage)
             .arg(!par.offloadOptimizer ? QString()
                  : c.plan.hostOptimizerShare() < 1.0
                      ? QObject::tr(", %1% of the optimizer's shard stepped on the host")
                            .arg(fmt::number(100.0 * c.plan.hostOptimizerShare(), 0))
                      : QObject::tr(", optimizer offloaded to the host"))},
        {QObject::tr("Device"), QObject::tr("%1: %2 TFLOP/s %3 peak, %4 HBM at %5 TB/s")
                                    .arg(text(device.name), fmt::teraflops(device.peakFlops(precision), 0),
                                         QString::fromLatin1(labelOf(precision)), gib(device.memoryBytes),
                                         fmt::number(device.memoryBandwidthBytesPerSecond / units::TB, 2))},
        {QObject::tr("Nodes"), QObject::tr("%1 of %2 GPUs; intra-node %3")
                                   .arg(fmt::counted(c.plan.cluster.nodes, QObject::tr("node"), QObject::tr("nodes")))
                                   .arg(c.plan.cluster.gpusPerNode)
                                   .arg(linkName)},
        {QObject::tr("Network"), text(networkName(c.plan.cluster, c.catalog, device))},
    };
    if (c.plan.model.isMoe())
        facts += expertLayoutFacts(c);
    flow.html(htmlFacts(facts));
    const QList<QStringList> rows = placementRows(c.e.placement);
    if (!rows.isEmpty()) {
        flow.html(htmlTable({QObject::tr("Group"), QObject::tr("Groups#"), QObject::tr("GPUs each#"),
                             QObject::tr("Placement"), QObject::tr("Link"), QObject::tr("Achieved GB/s#"),
                             QObject::tr("Link GB/s#")},
                            rows));
        flow.html(QStringLiteral("<p class=\"note\">%1</p>")
                      .arg(QObject::tr(
                          "Per GPU and direction. The link's figure is the catalogue's (or the plan's override); "
                          "collectives achieve its calibrated share (docs/CALIBRATION.md).")));
    }
    for (const Problem &p : c.document.problems())
        if (p.severity == Severity::Warning)
            flow.html(QStringLiteral("<p class=\"note\">⚠ %1</p>").arg(io::problemLine(p)));
}

/// The three peaks of the peak stage, each with what it adds and the published figure it matches.
void memoryPeaksTable(PageFlow &flow, const Context &c)
{
    const MemoryEstimate &memory = c.e.memory;
    const StageMemory &peak = memory.stages[std::size_t(memory.peakStage)];
    const double peaks[] = {peak.allocatedBytes, peak.reservedBytes, peak.deviceBytes};
    QList<QStringList> rows;
    for (const MemoryKind kind : {MemoryKind::Allocated, MemoryKind::Reserved, MemoryKind::Device}) {
        QStringList adds;
        if (kind == MemoryKind::Allocated)
            adds << QObject::tr("parameters, gradients, optimizer state, activations");
        for (std::size_t i = 0; i < kOtherTermCount; ++i)
            if (kindOf(OtherTerm(i)) == kind && peak.other[i] > 0)
                adds << QStringLiteral("%1 %2").arg(QString::fromLatin1(termInfo(OtherTerm(i)).label),
                                                    gib(peak.other[i]));
        rows << QStringList{QString::fromLatin1(labelOf(kind)), QStringLiteral("<b>%1</b>").arg(gib(peaks[int(kind)])),
                            adds.join(QStringLiteral("; ")), QString::fromLatin1(publishedAs(kind)).toHtmlEscaped()};
    }
    flow.html(
        htmlTable({QObject::tr("Peak"), QObject::tr("GiB#"), QObject::tr("Adds"), QObject::tr("Published as")}, rows));
    const StageMemory::AllocatorDetail &a = peak.allocator;
    flow.html(
        a.fractionOverride
            ? QObject::tr(
                  "<p class=\"note\">Allocator overhead: the plan's allocator_reserve_fraction (%1) of the phase's "
                  "dynamic memory, instead of the allocator model.</p>")
                  .arg(pct(c.plan.training.allocatorReserveFraction.value_or(0.0)))
            : QObject::tr(
                  "<p class=\"note\">Allocator overhead of stage %1: block rounding %2, fragmentation %3 (%4%5). "
                  "Framework: %6.</p>")
                  .arg(peak.stage)
                  .arg(gib(a.roundingBytes), gib(a.fragmentationBytes),
                       c.plan.training.expandableSegments
                           ? QObject::tr("expandable segments: page rounding only")
                           : QObject::tr(
                                 "micro-batches held while later ones allocate and free pin a share of their blocks"),
                       c.plan.parallel.schedule == Schedule::GPipe ? QObject::tr("; none under GPipe") : QString(),
                       QString::fromLatin1(labelOf(c.plan.training.framework))));
}

void memorySection(PageFlow &flow, const Context &c)
{
    const MemoryEstimate &memory = c.e.memory;
    flow.heading(QObject::tr("4. Memory peaks per stage and component"));
    QList<QStringList> rows;
    const auto g = [](double bytes) { return fmt::number(bytes / units::GiB, 2); };
    for (const StageMemory &s : memory.stages)
        rows << QStringList{QString::number(s.stage),
                            g(s.parametersBytes),
                            g(s.gradientsBytes),
                            g(s.optimizerBytes),
                            g(s.activationsBytes),
                            g(s.otherBytes),
                            g(s.allocatedBytes),
                            g(s.reservedBytes),
                            QStringLiteral("<b>%1</b>").arg(g(s.deviceBytes)),
                            s.peakPhase == MemoryPhase::OptimizerStep ? QObject::tr("optimizer")
                                                                      : QObject::tr("fwd/bwd")};
    // GiB; the capacity is in the sentence below (in a mixed cluster, per stage in the node-group table).
    chunkedTable(flow, {QObject::tr("Stage#"), QObject::tr("Params#"), QObject::tr("Grads#"), QObject::tr("Optim.#"),
                        QObject::tr("Activ.#"), QObject::tr("Other#"), QObject::tr("Alloc.#"), QObject::tr("Reserved#"),
                        QObject::tr("Device#"), QObject::tr("Phase")},
                 rows);
    const MemoryPressure pressure = memoryPressure(memory);
    const QString verdict =
        !memory.fits   ? QObject::tr("<b>does not fit</b>")
        : memory.tight ? QObject::tr("<b>fits, tight</b>: within the %1 margin; %2 (%3) %4% larger would not fit")
                             .arg(gib(memory.marginBytes), QLatin1String(pressure.label), gib(pressure.bytes),
                                  fmt::number(100 * pressure.growthToOverflow, 0))
                       : QObject::tr("fits");
    flow.html(QObject::tr("<p>Device-used peak %1 on stage %2 of %3 capacity: %4 (headroom %5).</p>")
                  .arg(gib(memory.peakBytes)).arg(memory.peakStage).arg(gib(memory.capacityBytes))
                  .arg(verdict, gib(memory.headroomBytes())));
    memoryPeaksTable(flow, c);
    flow.chart(c.charts.memory, 300,
               QObject::tr("Figure 1. Memory per GPU by pipeline stage: allocated components, the caching "
                           "allocator's overhead, then the device's extras (hatched), against the device capacity."));
}

void throughputSection(PageFlow &flow, const Context &c)
{
    const StepEstimate &st = c.e.step;
    flow.heading(QObject::tr("5. Throughput and step-time decomposition"));
    flow.html(htmlFacts({
        {QObject::tr("Step time"), fmt::number(st.stepSeconds, 3) + QStringLiteral(" s")},
        {QObject::tr("Tokens/s"), fmt::number(st.tokensPerSecond, 0)},
        {QObject::tr("Valid tokens/s"), fmt::number(st.validTokensPerSecond, 0)},
        {QObject::tr("Model TFLOP/s per GPU"), fmt::teraflops(st.modelFlopsPerGpu, 1)},
        {QObject::tr("Hardware TFLOP/s per GPU"), fmt::teraflops(st.hardwareFlopsPerGpu, 1)},
        {QObject::tr("MFU / HFU"), pct(st.mfu) + QStringLiteral(" / ") + pct(st.hfu)},
    }));
    QList<QStringList> rows;
    // The step's parts end to end (they sum to the step time): what Figure 2 draws.
    for (std::size_t i = 0; i < kStepPartCount; ++i)
        rows << QStringList{QString::fromLatin1(labelOf(StepPart(i))), fmt::number(c.e.parts[i], 4),
                            pct(st.stepSeconds > 0 ? c.e.parts[i] / st.stepSeconds : 0.0)};
    rows << QStringList{QObject::tr("<b>Step</b>"), QStringLiteral("<b>%1</b>").arg(fmt::number(st.stepSeconds, 4)),
                        pct(1.0)};
    flow.html(htmlTable({QObject::tr("Part of the step"), QObject::tr("Seconds#"), QObject::tr("Share#")}, rows,
                        QStringLiteral("70%")));
    flow.html(QObject::tr("<p class=\"note\">How each part is computed and where its formula comes from: section 10, "
                          "\"Assumptions and sources\" (in the JSON: time.terms).</p>"));
    const double exposed = st.category(TimeCategory::TensorComm) + st.category(TimeCategory::ContextComm)
                           + st.category(TimeCategory::PipelineComm) + st.category(TimeCategory::DataComm);
    const QString context = c.plan.parallel.context > 1
                                ? QObject::tr(", context-parallel %1 s (%2 exchange over %3 GPUs)")
                                      .arg(fmt::number(st.category(TimeCategory::ContextComm), 3),
                                           QString::fromLatin1(labelOf(c.plan.parallel.contextComm)))
                                      .arg(c.plan.parallel.context)
                                : QString();
    flow.html(QObject::tr("<p><b>Exposed communication:</b> %1 s per step (%2): tensor-parallel %3 s%7, pipeline %4 s, "
                          "data-parallel %5 s. "
                          "<b>Pipeline idle:</b> %6 of all stage-time.</p>")
                  .arg(fmt::number(exposed, 3), pct(st.stepSeconds > 0 ? exposed / st.stepSeconds : 0.0),
                       fmt::number(st.category(TimeCategory::TensorComm), 3),
                       fmt::number(st.category(TimeCategory::PipelineComm), 3),
                       fmt::number(st.category(TimeCategory::DataComm), 3), pct(st.bubbleFraction), context));
    flow.chart(c.charts.step, 170,
               QObject::tr("Figure 2. Where the step goes: its parts end to end, as the table above sums them."));
    flow.chart(c.charts.roofline, 300,
               QObject::tr("Figure 3. Roofline of one micro-batch's kernels on the slowest stage."));
    flow.chart(c.charts.pipeline, 280,
               QObject::tr("Figure 4. The whole step on one time axis: the pipeline schedule, then the exposed "
                           "data-parallel communication and the optimizer."));
}

void scalingSection(PageFlow &flow, const Context &c)
{
    const ParallelConfig &par = c.plan.parallel;
    flow.heading(QObject::tr("6. Scaling baseline"));
    const auto at = [&](const std::vector<ScalingPoint> &curve) -> const ScalingPoint * {
        for (const ScalingPoint &p : curve)
            if (p.workers == par.data)
                return &p;
        return nullptr;
    };
    const ScalingPoint *strong = at(scalingOf(c.e).strong);
    const ScalingPoint *weak = at(scalingOf(c.e).weak);
    const QString replica = par.context > 1 ? QObject::tr("tensor %1 × pipeline %2 × context %3 = %4 GPUs")
                                                  .arg(par.tensor)
                                                  .arg(par.pipeline)
                                                  .arg(par.context)
                                                  .arg(par.tensor * par.pipeline * par.context)
                                            : QObject::tr("tensor %1 × pipeline %2 = %3 GPUs")
                                                  .arg(par.tensor)
                                                  .arg(par.pipeline)
                                                  .arg(par.tensor * par.pipeline);
    const std::int64_t base = scalingOf(c.e).baseWorkers();
    const QString baseline =
        base > 1 ? QObject::tr("%1 replicas of %2 (the fewest that can run the plan%3), counted as linear up to "
                               "there; speedup S(W) = %1 × T(%1)/T(W)")
                       .arg(base)
                       .arg(replica, c.plan.model.isMoe() ? QObject::tr(": its expert groups need them") : QString())
                 : QObject::tr("one replica of %1; speedup S(W) = T(1)/T(W)").arg(replica);
    flow.html(
        QObject::tr("<p>Baseline: %1 over W data-parallel replicas. At this plan's %2 replicas: strong scaling %3, "
                    "weak scaling %4.</p>")
            .arg(baseline)
            .arg(par.data)
            .arg(strong ? QObject::tr("speedup %1, efficiency %2")
                              .arg(fmt::number(strong->speedup, 1), pct(strong->efficiency))
                        : QObject::tr("n/a"),
                 weak ? QObject::tr("efficiency %1").arg(pct(weak->efficiency)) : QObject::tr("n/a")),
        284); // with its chart
    flow.chart(c.charts.scaling, 280,
               base > 1 ? QObject::tr("Figure 5. Strong and weak scaling against the %1-replica baseline.").arg(base)
                        : QObject::tr("Figure 5. Strong and weak scaling against the one-replica baseline."));
}

void costSection(PageFlow &flow, const Context &c)
{
    const RunEstimate &run = c.e.run;
    const TrainingConfig &training = c.plan.training;
    flow.heading(QObject::tr("7. Time and cost to train"));
    if (!c.e.memory.fits) {
        flow.html(
            QObject::tr(
                "<p><b>The plan does not fit</b> the GPUs' memory (stage %1 needs %2 of %3), so it cannot run: it "
                "has no time or cost to train. Sections 4 and 9 show what to change.</p>")
                .arg(c.e.memory.peakStage)
                .arg(gib(c.e.memory.peakBytes), gib(c.e.memory.capacityBytes)));
        return;
    }
    QList<QStringList> rows;
    const auto costRow = [&](const QString &name, const RunEstimate &r, std::int64_t gpus) {
        rows << QStringList{name,
                            QString::number(gpus),
                            fmt::number(r.days, 1),
                            fmt::number(r.gpuHours, 0),
                            fmt::number(r.energyJoules / units::JoulesPerKilowattHour, 0),
                            money(c, r.cost),
                            fmt::number(r.daysWithFailures, 1)};
    };
    costRow(QObject::tr("This plan"), run, c.e.model.gpus);
    if (const PlanDocument::SearchBest *best = c.document.searchBest())
        costRow(mayNotFit(best->estimate.memory, detailsOf(best->estimate).accuracy)
                    ? QObject::tr("Best plan found by the search (may not fit: its memory band passes the device)")
                    : QObject::tr("Best plan found by the search"),
                best->estimate.run, best->estimate.model.gpus);
    flow.html(htmlTable({QObject::tr("Plan"), QObject::tr("GPUs#"), QObject::tr("Days#"), QObject::tr("GPU-hours#"),
                         QObject::tr("Energy kWh#"), QObject::tr("Cost#"), QObject::tr("Days with failures#")},
                        rows));
    flow.html(
        QObject::tr(
            "<p>%1 tokens in %2 steps of %3 tokens. Cost at %4 per GPU-hour. Energy: GPUs × board power (%5 W) × "
            "busy fraction (%6 of the step runs kernels) × time; GPUs only, without host, network and cooling.</p>")
            .arg(count(c.plan.run.tokenBudget), fmt::number(run.steps, 0),
                 count(double(training.globalBatch) * double(c.plan.model.seqLen)),
                 money(c, c.plan.run.pricePerGpuHour), fmt::number(c.device.boardPowerWatts, 0),
                 pct(run.busyFraction)));
}

void checkpointSection(PageFlow &flow, const Context &c)
{
    const RunEstimate &run = c.e.run;
    const RunConfig &r = c.plan.run;
    flow.heading(QObject::tr("8. Checkpoint cost and failures"));
    flow.html(htmlFacts({
        {QObject::tr("Checkpoint size"),
         QObject::tr("%1 (parameters and optimizer state; gradients are not saved); largest shard %2 per GPU")
             .arg(gib(run.checkpointBytes), gib(run.checkpointBytesPerGpu))},
        {QObject::tr("Write time"),
         QObject::tr("%1 at %2 GB/s, %3")
             .arg(duration(run.checkpointWriteSeconds), fmt::gigabytesPerSecond(r.checkpointBandwidthBytesPerSecond, 1),
                  r.shardedCheckpoint ? QObject::tr("sharded (every rank writes its shard)")
                                      : QObject::tr("gathered to one writer"))},
        {QObject::tr("Cluster MTBF"), QObject::tr("%1 (%2 h per GPU / %3 GPUs)")
                                          .arg(duration(run.clusterMtbfSeconds), fmt::number(r.gpuMtbfHours, 0))
                                          .arg(c.e.model.gpus)},
        {QObject::tr("Checkpoint interval"),
         QObject::tr("%1 (Daly 2006; Young 1974: %2)")
             .arg(duration(run.checkpointIntervalSeconds), duration(run.youngIntervalSeconds))},
        {QObject::tr("Overhead"), QObject::tr("%1 of useful time (writes, lost work, restarts of %2)")
                                      .arg(pct(run.overheadFraction), duration(r.restartSeconds))},
        {QObject::tr("Expected failures"),
         QObject::tr("%1 over %2 days")
             .arg(fmt::number(run.expectedFailures, 1), fmt::number(run.daysWithFailures, 1))},
    }));
}

void adviceSection(PageFlow &flow, const Context &c)
{
    const StepEstimate &st = c.e.step;
    flow.heading(QObject::tr("9. Limiting resource and what to change"));
    flow.html(QObject::tr("<p><b>Limited by %1:</b> %2.</p>")
                  .arg(QString::fromLatin1(toString(st.bottleneck)), evidence(st)));
    if (const Intervention *s = c.advice.suggestion())
        flow.html(QObject::tr("<p><b>Suggested change:</b> %1 (%2): %3 tokens/s (%4× the current plan), peak "
                              "%5%6.</p>")
                      .arg(io::interventionLabel(s->id), text(s->change), fmt::number(s->tokensPerSecond, 0),
                           fmt::number(s->speedup, 2), gib(s->peakBytes),
                           s->mayNotFit ? QObject::tr(", which may not fit: its memory band passes the device")
                                        : QString()));
    QList<QStringList> rows;
    QStringList notApplicable;
    for (const Intervention &in : c.advice.interventions) {
        if (!in.valid) {
            notApplicable << QStringLiteral("%1 (%2)").arg(io::interventionLabel(in.id), io::problemLine(in.invalid));
            continue;
        }
        rows << QStringList{QString::fromLatin1(labelOf(in.resource)),
                            io::interventionLabel(in.id),
                            in.fits ? (in.mayNotFit ? QObject::tr("may not fit") : QObject::tr("fits"))
                                    : QObject::tr("too big"),
                            fmt::number(in.tokensPerSecond, 0),
                            in.speedup > 0 ? fmt::number(in.speedup, 2) + QStringLiteral("×") : QString(),
                            gib(in.peakBytes)};
    }
    flow.html(QObject::tr(
        "<p>Each intervention of the diagnostic map (Figure 16.1) applied alone to this plan and estimated:</p>"));
    chunkedTable(flow,
                 {QObject::tr("Resource"), QObject::tr("Intervention"), QObject::tr("Memory"), QObject::tr("Tokens/s#"),
                  QObject::tr("Speedup#"), QObject::tr("Peak#")},
                 rows, 24);
    if (!notApplicable.isEmpty())
        flow.html(QObject::tr("<p class=\"note\">Not applicable here: %1.</p>")
                      .arg(notApplicable.join(QStringLiteral("; "))));
}

QList<QStringList> sourceRows(const Context &c)
{
    QList<QStringList> rows;
    rows << QStringList{QObject::tr("Device figures"), text(c.device.name), text(c.device.source)};
    rows << QStringList{QObject::tr("Kernel and link efficiency"),
                        QObject::tr("efficiency(size) = max × size / (size + half)"),
                        QObject::tr("calibrated on published runs (docs/CALIBRATION.md)")};
    const auto term = [&](const TermInfo &t, const io::MemoryTermSource &words) {
        rows << QStringList{QString::fromLatin1(t.label), QString::fromLatin1(words.formula).toHtmlEscaped(),
                            QString::fromLatin1(words.source).toHtmlEscaped()};
    };
    for (std::size_t i = 0; i < kStateTermCount; ++i)
        term(termInfo(StateTerm(i)), io::memoryTermSource(StateTerm(i)));
    for (std::size_t i = 0; i < kOtherTermCount; ++i)
        term(termInfo(OtherTerm(i)), io::memoryTermSource(OtherTerm(i)));
    // The step time's parts this plan has (io/output/StepTerms; time.terms in the JSON), as section 5's table sums
    // them.
    for (std::size_t i = 0; i < kStepPartCount; ++i)
        if (c.e.parts[i] > 0) {
            const io::StepTermInfo &t = io::stepTermInfo(StepPart(i));
            rows << QStringList{QObject::tr("Step time: %1").arg(QString::fromLatin1(labelOf(StepPart(i)))),
                                QString::fromUtf8(t.formula).toHtmlEscaped(),
                                QString::fromUtf8(t.source).toHtmlEscaped()};
        }
    for (const NodeGroup &g : c.plan.cluster.groups())
        if (const LinkSpec *l = c.catalog.intraNodeLink(g.intraNodeLink))
            rows << QStringList{QObject::tr("Intra-node link"), text(l->name), text(l->source)};
    if (const LinkSpec *net = c.catalog.network(c.plan.cluster.network))
        rows << QStringList{QObject::tr("Network"), text(net->name), text(net->source)};
    return rows;
}

/// The software the step runs with, where the plan sets it: CUDA graphs and the host's launches, the expert
/// all-to-all overlap, activation offload, partial recomputation, sliding-window attention.
/// The PyTorch-native settings (issue 35): element-wise fusion, the attention kernel, torchtitan's
/// checkpointing, hybrid sharding and FSDP2 inside pipeline stages.
/// How the cross-entropy runs and what its logits hold on the last stage at the loss.
QStringList lossRow(const Context &c)
{
    const LossKernel kernel = c.plan.training.lossKernelInEffect();
    const QString how = kernel == LossKernel::Eager ? QObject::tr("eager PyTorch cross-entropy on FP32 logits")
                        : kernel == LossKernel::Fused
                            ? QObject::tr("fused cross-entropy kernel (torch.compile, flash-attn)")
                        : kernel == LossKernel::TransformerEngine
                            ? QObject::tr("Transformer Engine's parallel cross-entropy on the 16-bit logits "
                                          "(Megatron-Core, cross_entropy_fusion_impl te)")
                            : QObject::tr("in-place vocab-parallel cross-entropy (Megatron)");
    const double perLogit = lossBytesPerLogit(c.plan);
    return {QObject::tr("Loss kernel"),
            QObject::tr("%1: %2 bytes per logit at the loss, %3 on the last stage beside the activations")
                .arg(how, fmt::number(perLogit, 0), gib(perLogit * logitsPerMicrobatch(c.plan))),
            QObject::tr("Megatron-Core tensor_parallel/cross_entropy.py; Transformer Engine triton/cross_entropy.py; "
                        "PyTorch log_softmax backward and DTensor loss parallel "
                        "(torch/distributed/tensor/parallel/loss.py); torchtitan components/loss.py "
                        "(training.loss_kernel)")};
}

/// DeepSpeed's ZeRO++ options the plan uses, with what each changes.
QList<QStringList> zeroPlusPlusRows(const Context &c)
{
    const ParallelConfig &p = c.plan.parallel;
    const std::int64_t hpz = c.plan.secondaryGroupRanks();
    if (!c.plan.zeroPlusPlusAllowed() || !(p.zeroQuantizedWeights || hpz > 1 || p.zeroQuantizedGradients))
        return {};
    QStringList parts;
    if (p.zeroQuantizedWeights)
        parts << QObject::tr("qwZ: parameters gathered as INT8 blocks, half a 16-bit gather's bytes");
    if (hpz > 1)
        parts << QObject::tr("hpZ: a secondary 16-bit copy sharded over %1 ranks, from which the backward gathers "
                             "inside that group")
                     .arg(hpz);
    if (p.zeroQuantizedGradients)
        parts << QObject::tr("qgZ: gradients reduce-scattered as INT4 through all-to-alls, a quarter of the bytes");
    return {QStringList{QObject::tr("ZeRO++"), parts.join(QStringLiteral("; ")),
                        QObject::tr("Wang et al. 2023, ZeRO++, Secs. 3.1-3.3 (3M to 0.75M across nodes with all "
                                    "three); DeepSpeed zero_optimization zero_quantized_weights, "
                                    "zero_hpz_partition_size, zero_quantized_gradients")}};
}

/// FSDP2's own mechanisms the plan uses: hybrid sharding, async TP, sharding inside pipeline stages, and the
/// pipeline outputs PyTorch's schedule keeps.
QList<QStringList> fsdpRows(const Context &c)
{
    QList<QStringList> rows;
    const TrainingConfig &t = c.plan.training;
    if (t.framework == Framework::Fsdp && c.plan.parallel.shardReplicas() > 1)
        rows << QStringList{
            QObject::tr("Hybrid sharding (HSDP)"),
            QObject::tr("state sharded over %1 ranks and replicated %2 times: each unit gathered and "
                        "reduce-scattered inside its shard group, the gradient shards all-reduced across replicas")
                .arg(c.plan.parallel.shardRanks())
                .arg(c.plan.parallel.shardReplicas()),
            QObject::tr("PyTorch FSDP2 on a 2-D device mesh (fully_shard with (replicate, shard)); torchtitan "
                        "data_parallel_replicate_degree")};
    if (t.framework == Framework::Fsdp && c.plan.parallel.tensorCommOverlap && c.plan.parallel.tensor > 1)
        rows << QStringList{
            QObject::tr("Async tensor parallelism"),
            QObject::tr("torch.compile's micro-pipeline TP: fused all-gather + matmul and matmul + reduce-scatter "
                        "hide %1 of what a full overlap behind the linear GEMMs would (the backward's summed input "
                        "gradients are not fused); %2 s of tensor-parallel traffic exposed this step")
                .arg(fmt::number(kTorchAsyncTpHiddenShare, 2),
                     fmt::number(c.e.step.category(TimeCategory::TensorComm), 2)),
            QObject::tr("torchtitan benchmarks asyncTP_llama3_h100_2025-06 and llama3_h100_202412 Table 4 (the same "
                        "layouts with and without it); torch/_inductor/fx_passes/micro_pipeline_tp.py")};
    if (t.framework == Framework::Fsdp && c.plan.parallel.pipeline > 1 && c.plan.scheduleRuns() > 1)
        rows << QStringList{
            QObject::tr("Schedule runs"),
            QObject::tr("the pipeline schedule runs %1 times per step, %2 micro-batches each "
                        "(training.schedule_microbatches), each run with its own fill, drain and gradient "
                        "reduce-scatter")
                .arg(c.plan.scheduleRuns())
                .arg(c.plan.microbatchesPerRun()),
            QObject::tr("torchtitan and NeMo Automodel run PyTorch's pipelining schedule once per local batch and "
                        "accumulate gradients over the local batches")};
    if (t.framework == Framework::Fsdp && c.plan.parallel.pipeline > 1 && c.plan.microbatchesPerRun() > 1)
        rows << QStringList{
            QObject::tr("FSDP2 inside pipeline stages"),
            QObject::tr("gradients reduce-scattered on each schedule run's last backward only; until then each "
                        "stage's unsharded gradients accumulate in FP32"),
            QObject::tr("PyTorch torch/distributed/pipelining/stage.py (backward_maybe_with_nosync); torchtitan "
                        "apply_fsdp (no resharding after forward with pipeline parallelism)")};
    if (const double kept = keptPipelineOutputBytes(c.plan); kept > 0)
        rows << QStringList{
            QObject::tr("Pipeline outputs kept"),
            QObject::tr("the last stage keeps every micro-batch's logits until the step ends, for the output step() "
                        "returns: %1 beside the micro-batch at its last backward")
                .arg(gib(kept)),
            QObject::tr("PyTorch torch/distributed/pipelining/stage.py (output_chunks) before pytorch#165822; "
                        "torchtitan e5ef99aa passes return_outputs=False (training.keep_pipeline_outputs)")};
    return rows;
}

QList<QStringList> pytorchRows(const Context &c)
{
    QList<QStringList> rows;
    const TrainingConfig &t = c.plan.training;
    if (t.framework != Framework::Megatron)
        rows << QStringList{
            QObject::tr("Element-wise chains"),
            t.fusesElementwise()
                ? QObject::tr("fused: each norm, rotary embedding, activation and residual chain is one kernel")
            : t.fusedNorm
                ? QObject::tr("eager PyTorch with a fused RMSNorm kernel (torchtitan's fused_rmsnorm): the "
                              "rotary embedding in FP32 (2q + 16 bytes per query and key element, its FP32 "
                              "queries and keys kept for backward)")
                : QObject::tr("eager PyTorch: RMSNorm as six FP32 kernels (28 + 4q bytes per element against a "
                              "fused norm's 2q, its FP32 upcast kept for backward), the rotary embedding in "
                              "FP32 (2q + 16 bytes per query and key element)"),
            QObject::tr("Ansel et al. 2024 (PyTorch 2, TorchInductor); Llama's reference RMSNorm and rotary code "
                        "(training.compile)")};
    if (t.flashAttention && t.attentionKernel != AttentionKernel::Fused) {
        const double headDim = double(c.plan.model.headDim());
        const double kernelDim = kernelHeadDim(t.attentionKernel, headDim);
        const bool triton = t.attentionKernel == AttentionKernel::Triton;
        QString what = (triton ? QObject::tr("FlashAttention in Triton at %1 of the fused kernel's speed on this "
                                             "device (FlashAttention-2's %2, over %3)")
                                     .arg(fmt::number(attentionKernelShare(t.attentionKernel, c.device), 2),
                                          fmt::number(c.device.flash2AttentionShare, 2),
                                          fmt::number(kFlash2OverTritonSpeed, 1))
                               : QObject::tr("FlashAttention-2 at %1 of the fused kernel's speed on this device")
                                     .arg(fmt::number(c.device.flash2AttentionShare, 2)));
        if (kernelDim > headDim)
            what += QObject::tr("; heads of %1 run on its %2 kernel, %3 of the time computing padding")
                        .arg(headDim)
                        .arg(kernelDim)
                        .arg(pct(1.0 - headDim / kernelDim));
        rows << QStringList{QObject::tr("Attention kernel"), what,
                            triton ? QObject::tr("Dao 2023 (FlashAttention-2: 1.3–2.5× FlashAttention in Triton, "
                                                 "Sec. 4.1); flash_attn_triton.py (head block the next power of two)")
                                   : QObject::tr("Shah et al. 2024 (FlashAttention-3, Figure 5: FlashAttention-2 at "
                                                 "0.59–0.63 of cuDNN's kernel on H100); flash-attn static_switch.h "
                                                 "(kernels for head sizes 32 to 256 in steps of 32)")};
    }
    if (t.runsSeparateQkv())
        rows << QStringList{
            QObject::tr("Q, K and V projections"),
            QObject::tr("three GEMMs over the same input, each reading it whole; with tensor parallelism the key and "
                        "value GEMMs are %1 columns wide per rank")
                .arg(c.plan.model.kvDim() / c.plan.parallel.tensor),
            QObject::tr("torchtitan models/llama/model.py (wq, wk, wv; fused wqkv since ad7a86533); Hugging Face's "
                        "q_proj, k_proj, v_proj (training.separate_qkv)")};
    if (expandsKvHeads(c.plan.model, t))
        rows << QStringList{
            QObject::tr("K and V repeated per query head"),
            QObject::tr("each of the %1 key and value heads is copied for the %2 query heads that share it before the "
                        "attention kernel, which reads and keeps them %2 times as wide; context parallelism exchanges "
                        "them so")
                .arg(c.plan.model.kvHeads)
                .arg(c.plan.model.heads / std::max<std::int64_t>(1, c.plan.model.kvHeads)),
            QObject::tr("torchtitan models/llama/model.py repeat_kv (until ff0829c10, January 2026); PyTorch's "
                        "context parallelism wraps scaled_dot_product_attention (training.repeat_kv_heads)")};
    if (t.recompute == Recompute::Ops)
        rows << QStringList{
            QObject::tr("Op-level checkpointing"),
            QObject::tr("each layer keeps its input, Q, V, the attention output and the first MLP projection's "
                        "output; wk, wo, w3 and the element-wise ops are replayed in backward"),
            QObject::tr("torchtitan parallelize_llama.py (_save_list, every other aten.mm saved)")};
    if (t.recompute == Recompute::Full && t.recomputeInterval > 1)
        rows << QStringList{
            QObject::tr("Checkpointing every k-th layer"),
            QObject::tr("one layer in %1 keeps only its input and is replayed; the others keep everything")
                .arg(t.recomputeInterval),
            QObject::tr("torchtitan activation_checkpoint.selective_ac_option")};
    rows << fsdpRows(c);
    rows << zeroPlusPlusRows(c);
    return rows;
}

/// A mixture of experts' routing and permutation launches, fused or not (training.moe_router_fusion,
/// training.moe_permute_fusion).
QStringList routingRow(const Plan &plan)
{
    const RoutingLaunches r = routingLaunches(plan);
    const auto fused = [](bool f) { return f ? QObject::tr("fused") : QObject::tr("unfused"); };
    return {QObject::tr("MoE routing launches"),
            QObject::tr("router %1, token permutation %2: %3 + %4 launches a layer's forward, %5 + %6 its backward "
                        "(routing and dispatch + combine)")
                .arg(plan.training.framework != Framework::Megatron ? QObject::tr("the framework's")
                                                                      : fused(r.fusedRouter),
                     fused(r.fusedPermute))
                .arg(r.route.forward).arg(r.combine.forward).arg(r.route.backward).arg(r.combine.backward),
            QObject::tr("Megatron-Core's MoE layer (router.py, moe_utils.py, token_dispatcher.py): PyTorch ops, or "
                        "Transformer Engine's fused kernels with --moe-router-fusion and --moe-permute-fusion "
                        "(HybridEP permutes in its dispatch); docs/CALIBRATION.md")};
}

/// What runs as separate PyTorch kernels beside Megatron-Core's fused ones: an unfused rotary embedding
/// (training.fused_rope) and a clamped activation's clamp (model.activation_clamp).
QList<QStringList> unfusedChainRows(const Plan &plan)
{
    QList<QStringList> rows;
    if (runsUnfusedRotary(plan.model, plan.training))
        rows << QStringList{
            QObject::tr("Rotary embedding"),
            QObject::tr("unfused: Q and K each through about a dozen 16-bit PyTorch kernels (the products with the "
                        "cosines and sines, the rotated half, the sum): 12 tensors' worth of memory traffic forward, "
                        "13 backward, instead of one read and write in Transformer Engine's kernel"),
            QObject::tr("Megatron-Core rope_utils.py _apply_rotary_pos_emb_bshd; Megatron-Bridge turns the fusion "
                        "off for YaRN and other non-RoPE positions (utils/fusions.py; training.fused_rope)")};
    if (runsEagerActivationClamp(plan.model, plan.training))
        rows << QStringList{
            QObject::tr("Activation clamp"),
            QObject::tr("the up projection's output clamped at %1 by two clamps and a concatenation ahead of the "
                        "activation (4 times its bytes forward, 5 backward), and kept twice for backward unless "
                        "the activation is recomputed or runs in a fused grouped MLP")
                .arg(fmt::number(plan.model.activationClamp, 1)),
            QObject::tr("Megatron-Core fused_bias_geglu.py weighted_bias_quick_geglu_impl (GPT-OSS's clamped "
                        "quick-GEGLU; model.activation_clamp)")};
    return rows;
}

/// The modules a per-module recipe keeps in BF16 ("the attention projections, the latent projections"), empty
/// where none is or the plan has no low-precision format.
QString bf16ModulesText(const Plan &plan)
{
    const TrainingConfig &t = plan.training;
    if (!isLowPrecisionMatmul(t.precision))
        return {};
    QStringList names;
    if (t.bf16AttentionProjections)
        names << QObject::tr("the attention projections");
    if (keepsBf16LatentProjections(plan.model, t))
        names << QObject::tr("the latent projections");
    if (keepsBf16Mtp(plan.model, t))
        names << QObject::tr("the MTP modules");
    return names.join(QStringLiteral(", "));
}

/// "the first 2 and the last 14 layers", naming only the ends that keep any.
QString bf16LayersText(const TrainingConfig &t)
{
    if (t.bf16LayersAtStart > 0 && t.bf16LayersAtEnd > 0)
        return QObject::tr("the first %1 and the last %2 layers").arg(t.bf16LayersAtStart).arg(t.bf16LayersAtEnd);
    const std::int64_t n = t.bf16LayersAtStart > 0 ? t.bf16LayersAtStart : t.bf16LayersAtEnd;
    if (n == 1)
        return t.bf16LayersAtStart > 0 ? QObject::tr("the first layer") : QObject::tr("the last layer");
    return (t.bf16LayersAtStart > 0 ? QObject::tr("the first %1 layers") : QObject::tr("the last %1 layers")).arg(n);
}

/// The modules and layers kept out of a FP8 or FP4 format in BF16 (training.bf16_* keys).
QList<QStringList> bf16Rows(const Context &c)
{
    QList<QStringList> rows;
    if (const QString modules = bf16ModulesText(c.plan); !modules.isEmpty())
        rows << QStringList{
            QObject::tr("BF16 modules"),
            QObject::tr("%1 run in BF16 in every layer, outside the %2 recipe")
                .arg(modules, QString::fromLatin1(toString(c.plan.training.precision)).toUpper()),
            QObject::tr("a per-module quantization recipe (Megatron-Core quant_recipe; Megatron-Bridge's "
                        "Nemotron 3 Super NVFP4 te_quant.cfg)")};
    if (c.plan.keepsBf16Layers())
        rows << QStringList{
            QObject::tr("BF16 layers"),
            QObject::tr("%1 run their linear layers in BF16, outside the %2 recipe, and keep their inputs in 16 bits")
                .arg(bf16LayersText(c.plan.training),
                     QString::fromLatin1(toString(c.plan.training.precision)).toUpper()),
            QObject::tr("Megatron-Core fp8_utils.py / fp4_utils.py get_fp8_context, get_fp4_context "
                        "(--first-last-layers-bf16; training.bf16_layers_at_start, bf16_layers_at_end)")};
    return rows;
}

QList<QStringList> softwareRows(const Context &c)
{
    QList<QStringList> rows;
    const double launch = hostLaunchSeconds(c.plan, c.device), enqueue = hostEnqueueSeconds(c.plan, c.device);
    const CudaGraphs graphs = c.plan.training.cudaGraphs;
    rows << QStringList{
        QObject::tr("Host launch"),
        graphs == CudaGraphs::Step
            ? QObject::tr("the whole step replayed as CUDA graphs: no kernel waits for the host")
            : QObject::tr("CUDA graphs: %1; %2 µs of host time per kernel launched eagerly and %3 µs per kernel a "
                          "library enqueues inside a launch (a grouped expert GEMM's per-expert GEMMs); the GPU "
                          "waits where a pass's (a dropless MoE layer's) launches outlast its kernels: %4 s this "
                          "step")
                  .arg(QLatin1String(toString(graphs)), fmt::number(launch * 1e6, 1), fmt::number(enqueue * 1e6, 1),
                       fmt::number(c.e.step.category(TimeCategory::HostLaunch), 2)),
        QObject::tr("fitted per host CPU (x86, Grace), the enqueue once for both, on the Megatron-Bridge rows that "
                    "differ in CUDA graphs, micro-batch and local experts (docs/CALIBRATION.md)")};
    if (c.plan.model.isMoe() && graphs != CudaGraphs::Step)
        rows << routingRow(c.plan);
    if (c.plan.model.isMoe() && graphs == CudaGraphs::Layers)
        rows << QStringList{
            QObject::tr("Experts in the layer graphs"),
            c.plan.training.layerGraphsHoldExperts()
                ? QObject::tr("yes: the capacity factor pads each expert to fixed shapes, so the layer's graph holds "
                              "the routed experts too")
                : QObject::tr("no: dropless routing sizes the experts' work on the host, so they launch eagerly"),
            QObject::tr("Megatron-Core graphs the MoE module only with drop-padding (transformer_config.py)")};
    if (c.plan.model.isMoe() && c.plan.parallel.expert > 1 && c.plan.parallel.expertCommOverlap)
        rows << QStringList{
            QObject::tr("Expert all-to-all overlap"),
            QObject::tr("combined 1F1B: the backward combine beside the forward attention, the forward dispatch beside "
                        "the experts' backward, the backward dispatch beside their weight gradients and forward, the "
                        "forward combine beside the attention's backward; each exposed beyond its window, the hidden "
                        "part costing the dispatcher's SMs"),
            QObject::tr(
                "Megatron-Core models/common/model_chunk_schedule_plan.py (--overlap-moe-expert-parallel-comm)")};
    if (c.plan.training.activationOffloadLayers > 0)
        rows << QStringList{
            QObject::tr("Activation offload"),
            QObject::tr("%1 layers per stage copied to the host after their forward and back before their backward "
                        "over the host link (%2), beside the next layer's compute; two stay on the device: %3 s "
                        "exposed this step")
                .arg(c.plan.training.activationOffloadLayers)
                .arg(fmt::gigabytesPerSecond(hostLinkBytesPerSecond(c.plan, c.device), 0))
                .arg(fmt::number(c.e.step.category(TimeCategory::ActivationOffload), 2)),
            QObject::tr("Megatron-Core cpu_offloading (--cpu-offloading-num-layers)")};
    if (c.plan.training.recompute == Recompute::Full && c.plan.training.recomputeLayers > 0)
        rows << QStringList{
            QObject::tr("Partial recomputation"),
            QObject::tr("%1 layers of each model chunk keep only their input and are replayed; the others keep all "
                        "their activations")
                .arg(c.plan.training.recomputeLayers),
            QObject::tr("Megatron-Core --recompute-method block --recompute-num-layers")};
    rows << lossRow(c);
    rows << pytorchRows(c);
    if (c.plan.model.slidingWindow > 0)
        rows << QStringList{
            QObject::tr("Sliding-window attention"),
            QObject::tr(
                "%1-token window, %2; a windowed layer's attention work is that of a causal prefix of 2w − w²/s")
                .arg(c.plan.model.slidingWindow)
                .arg(c.plan.model.fullAttentionInterval > 0 ? QObject::tr("one layer in %1 attends to the whole prefix")
                                                                  .arg(c.plan.model.fullAttentionInterval)
                                                            : QObject::tr("every layer windowed")),
            QObject::tr("Beltagy et al. 2020 (Longformer); OpenAI 2025 (gpt-oss model card: alternating 128-token "
                        "banded attention)")};
    rows << unfusedChainRows(c.plan);
    rows << bf16Rows(c);
    return rows;
}

/// The pipeline's schedule and its per-chunk host step.
QList<QStringList> scheduleRows(const Context &c)
{
    QList<QStringList> rows;
    rows << QStringList{QObject::tr("Pipeline"),
                        QObject::tr("simulated schedule (GPipe, 1F1B, interleaved, ZB-H1, ZB-H2)"),
                        QObject::tr("Huang et al. 2019; Narayanan et al. 2021; Qi et al. 2024")};
    if (c.plan.parallel.pipeline > 1 && c.device.scheduleStepSeconds > 0)
        rows << QStringList{
            QObject::tr("Schedule step"),
            QObject::tr("%1 µs of host time exposed at each model-chunk pass (2 × %2 per micro-batch on a stage)")
                .arg(fmt::number(c.device.scheduleStepSeconds * 1e6, 0))
                .arg(c.plan.parallel.virtualStages),
            QObject::tr("fitted on NVIDIA's DGX Cloud and Megatron-Bridge recipe runs (docs/CALIBRATION.md)")};
    if (const std::int64_t deferred = c.plan.deferredWgradMicrobatches(); deferred > 0) {
        const StageTime &last = c.e.step.stages.back();
        rows << QStringList{
            QObject::tr("Deferred output weight gradients"),
            QObject::tr("the last stage runs the output layer's weight-gradient GEMMs of %1 of its %2 micro-batches "
                        "(%3 s) after its last backward, while the stages before it drain, and keeps their logit "
                        "gradients and inputs until then (%4)")
                .arg(deferred)
                .arg(c.plan.microbatchesPerRun())
                .arg(fmt::number(last.drainSeconds, 3),
                     gib(c.e.memory.stages.back().otherTerm(OtherTerm::DeferredWeightGradients))),
            QObject::tr("Megatron-Core --defer-embedding-wgrad-compute, --wgrad-deferral-limit (schedules.py "
                        "finish_embedding_wgrad_compute); on in NeMo's performance recipes of Llama 3 70B, Llama "
                        "3.1 405B, GPT-3 175B and Nemotron-4 340B and in Megatron-Bridge's GPT-3 175B recipe")};
    }
    return rows;
}

/// The expert dispatch's formula for the plan's dispatcher.
QList<QStringList> expertDispatchRows(const Context &c)
{
    QList<QStringList> rows;
    if (c.plan.model.isMoe() && c.plan.parallel.expert > 1)
        rows << (isFlexDispatcher(c.plan.parallel.expertDispatcher)
                     ? QStringList{c.plan.parallel.expertDispatcher == ExpertDispatcher::DeepEp
                                       ? QObject::tr("Expert dispatch (DeepEP)")
                                       : QObject::tr("Expert dispatch (HybridEP)"),
                                   QObject::tr("per layer and pass 2 × [α⌈log₂N⌉ + max(k·q·s·h·(n−1)/n ÷ (e·NVLink), "
                                               "q·s·h·D·(N−1)/N ÷ NIC)], "
                                               "D = R(1 − (1 − 1/R)ᵏ) nodes reached of the R a token may use, "
                                               "e = %1 the NVLink share the kernels reach")
                                       .arg(fmt::number(flexDispatchEfficiency(c.plan, c.device), 2)),
                                   QObject::tr("DeepEP docs/legacy.md (43–58 GB/s per 400 Gb/s port at EP 16–64) and "
                                               "README (153–158 of 160 GB/s NVLink on H800); "
                                               "docs/README_Hybrid-EP.md (448–569 of 900 GB/s on GB200); "
                                               "DeepSeek-V3 report Sec. 2.1.2 (node-limited routing)")}
                     : QStringList{
                           QObject::tr("Expert dispatch (all-to-all)"),
                           QObject::tr("per layer and pass 2 × [α⌈log₂n⌉ + max(k·q·s·h·(m−1)/n ÷ (b·NVLink), "
                                       "k·q·s·h·(n−m)/n ÷ (a·NIC))], "
                                       "m ranks of the group per node, a = %1 the NIC share NCCL's all-to-all "
                                       "reaches, b = %2 its NVLink share among m ranks")
                               .arg(fmt::number(networkAllToAllEfficiency(c.plan, c.device), 2))
                               .arg(fmt::number(ncclDispatch(c).scaleUpShare, 2)),
                           QObject::tr(
                               "Megatron-Core all-to-all token dispatcher; pairwise exchanges (Jacobs et al. 2023); "
                               "at most a single NIC's rate, 46–49 of 50 GB/s on NDR (NVIDIA/nccl-tests#267); "
                               "the share a fitted on the expert-parallel runs across nodes (docs/CALIBRATION.md); "
                               "b from NCCL's all-to-all on B200 nodes, 629/446/383 of 900 GB/s at 2/4/8 ranks "
                               "(rapidsai/rapidsmpf#590)")});
    return rows;
}

/// The error band, the traffic floor and how hidden collectives are costed.
QList<QStringList> communicationRows(const Context &c)
{
    QList<QStringList> rows;
    rows << QStringList{
        QObject::tr("Error band"), io::accuracySummary(c.details.accuracy).toHtmlEscaped(),
        QObject::tr("held-out errors of the published runs (resources/accuracy/heldout_runs.csv; docs/CALIBRATION.md, "
                    "\"Error bands\")")};
    rows << QStringList{
        QObject::tr("Traffic floor"), io::trafficFloorSummary(c.e.step).toHtmlEscaped(),
        QObject::tr("bytes each rank must move at the links' nominal figures (NCCL rings enter each node once per "
                    "channel; in-network reduction saves at most half an all-reduce)")};
    if (c.plan.parallel.zeroStage >= 3 && c.plan.parallel.data * c.plan.parallel.context > 1)
        rows << QStringList{
            QObject::tr("ZeRO-3 overlap"),
            QObject::tr("per unit and pass: the next unit's gather behind this unit's compute; the first gather of "
                        "each pass and the last reduce-scatter exposed; gathered again for backward unless kept "
                        "(reshard_after_forward)"),
            QObject::tr("Rajbhandari et al. 2020 (ZeRO, Sec. 7); Zhao et al. 2023 (PyTorch FSDP, Sec. 3.3)")};
    rows << QStringList{
        QObject::tr("Overlapped collectives"),
        QObject::tr("the compute beside a hidden collective loses NCCL's SMs (%1 of %2 across nodes, %3 inside one "
                    "NVLink domain) and, in its memory-bound kernels, the HBM the collective's bytes cross: %4 s this "
                    "step")
            .arg(16)
            .arg(fmt::number(c.device.multiprocessors, 0))
            .arg(5)
            .arg(fmt::number(c.e.step.dataParallelSlowdownSeconds, 2)),
        QObject::tr("Megatron-Core, megatron_fsdp DistributedDataParallelConfig.nccl_ub (SMs per all-gather and "
                    "reduce-scatter with NCCL user buffers)")};
    return rows;
}

/// The optimizer state's formats and its offload to the host.
QList<QStringList> optimizerStateRows(const Context &c)
{
    QList<QStringList> rows;
    if (const TrainingConfig &t = c.plan.training;
        t.optimizerMoments != MomentFormat::Fp32 || t.masterWeights != MasterFormat::Fp32)
        rows << QStringList{
            QObject::tr("Optimizer state"),
            QObject::tr("moments in %1, master copy in %2: %3 bytes per parameter of the optimizer's shard")
                .arg(QLatin1String(labelOf(t.optimizerMoments)), QLatin1String(labelOf(t.masterWeights)),
                     fmt::number(stateBytesPerParameter(t).optimizer, 0)),
            QObject::tr("Apex DistributedFusedAdam (dtype: moments and parameter shard); Megatron-Core's "
                        "precision-aware optimizer (--exp-avg-dtype, --main-params-dtype)")};
    if (c.plan.parallel.offloadOptimizer)
        rows << QStringList{
            QObject::tr("Optimizer offload"),
            (c.plan.training.framework == Framework::Megatron
                 ? QObject::tr("gradients to the host after the backward (Megatron-Core copies them in "
                               "the optimizer step), ")
                 : QObject::tr("gradients to the host behind the last backward, ")) +
                QObject::tr("the host's update of %1% of each shard, the node's shards through %2 of its %3 GB/s of "
                            "memory bandwidth, parameters back: %4 s of host update this step")
                    .arg(fmt::number(100.0 * c.plan.hostOptimizerShare(), 0))
                    .arg(fmt::number(hostAdamStreamShare(c.plan), 2))
                    .arg(fmt::gigabytesPerSecond(c.plan.cluster.overrides.hostMemoryBandwidthBytesPerSecond.value_or(
                                                     c.device.hostMemoryBandwidthBytesPerSecond),
                                                 0))
                    .arg(fmt::number(c.e.step.hostUpdateSeconds, 2)),
            QObject::tr("Ren et al. 2021 (ZeRO-Offload, Sec. 4: gradients offloaded during backward); "
                        "Megatron-Core cpu_offloading/hybrid_optimizer.py (step: the copy after the "
                        "backward); DeepSpeed's CPUAdam: STREAM Triad on two-socket servers (McCalpin); "
                        "PyTorch's fused CPU AdamW: Megatron-Bridge's CPU-offloading study (Qwen3-30B-A3B, "
                        "2 x 8 H100)")};
    return rows;
}

/// Failures, checkpoints and the run's price.
QList<QStringList> runRows(const Context &c)
{
    const RunConfig &r = c.plan.run;
    QList<QStringList> rows;
    rows << QStringList{
        QObject::tr("GPU MTBF"), QObject::tr("%1 h per GPU").arg(fmt::number(r.gpuMtbfHours, 0)),
        QObject::tr(
            "Llama 3 (Dubey et al. 2024): 419 unexpected interruptions in 54 days on 16,384 GPUs ≈ 50,700 GPU-hours")};
    rows << QStringList{QObject::tr("Checkpoint interval"), QObject::tr("τ = √(2δM)[1 + ⅓√(δ/2M) + (δ/2M)/9] − δ"),
                        QObject::tr("Daly 2006; Young 1974")};
    rows << QStringList{QObject::tr("Price, storage, restart"),
                        QObject::tr("%1 per GPU-hour, %2 GB/s, %3 s")
                            .arg(money(c, r.pricePerGpuHour),
                                 fmt::gigabytesPerSecond(r.checkpointBandwidthBytesPerSecond, 1),
                                 fmt::number(r.restartSeconds, 0)),
                        QObject::tr("user assumptions (plan keys run.*)")};
    return rows;
}

void sourcesSection(PageFlow &flow, const Context &c)
{
    flow.heading(QObject::tr("10. Assumptions and sources"));
    QList<QStringList> rows = sourceRows(c);
    rows << scheduleRows(c) << softwareRows(c) << expertDispatchRows(c) << communicationRows(c) << optimizerStateRows(c)
         << runRows(c);
    chunkedTable(flow, {QObject::tr("Assumption"), QObject::tr("Value or formula"), QObject::tr("Source")}, rows, 12);
}

void comparisonSection(PageFlow &flow, const Context &c)
{
    // Only with a pinned baseline (the window's compare mode): the headline numbers side by side and the
    // keys that differ, as the Compare page shows them.
    if (!c.document.hasBaseline())
        return;
    const Plan &before = c.document.baselinePlan();
    const PlanComparison cmp = comparePlans(before, c.document.baselineEstimate(), c.plan, c.e);
    flow.heading(QObject::tr("Against the baseline"));
    flow.html(QObject::tr("<p>Baseline: %1. This plan: %2.</p>")
                  .arg(c.document.baselineName().toHtmlEscaped(), c.document.planName().toHtmlEscaped()));
    QList<QStringList> rows;
    for (const MetricComparison &m : cmp.metrics)
        rows << QStringList{QString::fromLatin1(labelOf(m.metric)),
                            io::metricText(m.metric, m.before, before.run.currency).toHtmlEscaped(),
                            io::metricText(m.metric, m.after, c.plan.run.currency).toHtmlEscaped(),
                            io::changeText(m).toHtmlEscaped()};
    flow.html(htmlTable(
        {QObject::tr("Metric"), QObject::tr("Baseline#"), QObject::tr("This plan#"), QObject::tr("Change#")}, rows));
    QList<QStringList> keys;
    for (const KeyDifference &d : cmp.differences)
        keys << QStringList{text(d.path), text(d.before), text(d.after)};
    if (keys.isEmpty())
        flow.html(QObject::tr("<p>The two plans have the same keys.</p>"));
    else
        chunkedTable(flow, {QObject::tr("Key that differs"), QObject::tr("Baseline"), QObject::tr("This plan")}, keys,
                     24);
}

/// `line` in pieces of at most `columns` characters, broken at spaces (a longer word is cut), each piece after
/// the first indented two spaces beyond the line's own indentation.
QStringList wrapCode(const QString &line, qsizetype columns)
{
    QStringList pieces;
    qsizetype indent = 0;
    while (indent < line.size() && line[indent] == QLatin1Char(' '))
        ++indent;
    const QString continuation(std::min<qsizetype>(indent + 2, columns / 2), QLatin1Char(' '));
    QString rest = line;
    while (rest.size() > columns) {
        qsizetype cut = rest.lastIndexOf(QLatin1Char(' '), columns);
        if (cut <= continuation.size())
            cut = columns;
        pieces << rest.left(cut);
        rest = continuation + rest.mid(cut).trimmed();
    }
    pieces << rest;
    return pieces;
}

void planAppendix(PageFlow &flow, const Context &c)
{
    flow.newPage();
    flow.heading(QObject::tr("Appendix: the plan file"));
    // Long lines (a description, a custom device's notes) wrap between words at 88 columns, the page's width
    // in the code font, continued under their key's indentation plus two; a <pre> would run them off the page.
    QStringList lines;
    for (const QString &line : QString::fromUtf8(io::writePlan(c.plan, c.catalog)).split(QLatin1Char('\n')))
        lines << wrapCode(line, 88);
    for (qsizetype i = 0; i < lines.size(); i += 60)
        flow.html(QStringLiteral("<pre>%1</pre>").arg(lines.mid(i, 60).join(QLatin1Char('\n')).toHtmlEscaped()));
}

} // namespace

void writeReportSections(PageFlow &flow, const PlanDocument &document, ReportCharts &charts, const QDateTime &date)
{
    const Context c{document,          document.plan(),    document.estimate(),         detailsOf(document.estimate()),
                    document.advice(), document.catalog(), *document.estimate().device, charts};
    titlePage(flow, c, date);
    comparisonSection(flow, c);
    modelSection(flow, c);
    precisionSection(flow, c);
    parallelismSection(flow, c);
    memorySection(flow, c);
    throughputSection(flow, c);
    scalingSection(flow, c);
    costSection(flow, c);
    checkpointSection(flow, c);
    adviceSection(flow, c);
    sourcesSection(flow, c);
    planAppendix(flow, c);
}

} // namespace trainplan
