#include "io/output/Evidence.h"
#include "io/output/Format.h"

#include <QCoreApplication>

#include <algorithm>
#include <QStringList>

#include "core/common/Units.h"
#include "io/plan/ProblemWords.h"

namespace trainplan::io {

namespace {

QString words(const char *sourceText) { return QCoreApplication::translate("Evidence", sourceText); }
QString pct(double fraction) { return QString::fromStdString(units::formatPercent(fraction, 0)); }
using fmt::duration, fmt::gib, fmt::text;

QString plans(std::int64_t count)
{
    return count == 1 ? words("%1 plan").arg(count) : words("%1 plans").arg(count);
}

} // namespace

QString bottleneckEvidence(Bottleneck bottleneck, const BottleneckEvidence &e)
{
    switch (bottleneck) {
    case Bottleneck::Capacity:
        return words("stage %1 needs %2 of %3 device memory").arg(e.stage).arg(gib(e.peakBytes), gib(e.capacityBytes));
    case Bottleneck::Arithmetic:
        return words("%1 of the step is compute-bound kernels; MFU %2").arg(pct(e.share), pct(e.mfu));
    case Bottleneck::MemoryMovement:
        return words("%1 of the step is bandwidth-bound kernels and the optimizer update").arg(pct(e.share));
    case Bottleneck::Communication: {
        // The kinds that take a share: tensor, pipeline and data always; context and expert when present.
        QString kinds =
            words("tensor %1, pipeline %2, data %3").arg(pct(e.tensorShare), pct(e.pipelineShare), pct(e.dataShare));
        if (e.contextShare > 0)
            kinds += words(", context %1").arg(pct(e.contextShare));
        if (e.expertShare > 0)
            kinds = words("expert all-to-all %1, ").arg(pct(e.expertShare)) + kinds;
        return words("%1 of the step is exposed communication (%2)").arg(pct(e.share), kinds);
    }
    case Bottleneck::PipelineIdle:
        return words("%1 of the step is pipeline bubble").arg(pct(e.share));
    }
    return {};
}

QString placementFlagText(const PlacementFlag &f)
{
    if (f.kind == PlacementFlag::Kind::StagesMisaligned)
        return words("pipeline stages of %1 GPUs (tensor x data) do not line up with %2-GPU nodes: stage 0 ends inside "
                     "node "
                     "%3, so stages share nodes and %4; choose a pipeline size that gives each stage whole nodes or a "
                     "divisor of a node")
            .arg(f.stageGpus)
            .arg(f.gpusPerNode)
            .arg(f.firstStageEndNode)
            .arg(f.dataCrossesNodes ? words("data-parallel groups straddle nodes")
                                    : words("stage boundaries fall inside nodes"));
    const QString where = f.tensor > f.gpusPerNode
                              ? words("tensor-parallel groups of %1 span %2 nodes of %3 GPUs")
                                    .arg(f.tensor)
                                    .arg(f.nodesSpanned)
                                    .arg(f.gpusPerNode)
                              : words("tensor %1 does not divide the %2 GPUs of a node, so some tensor-parallel groups "
                                      "straddle two nodes")
                                    .arg(f.tensor)
                                    .arg(f.gpusPerNode);
    return words(
               "%1: their collectives run over %2 (%3 of the step is tensor-parallel communication); that costs %4 per "
               "step (%5) against keeping each group inside a node on %6")
        .arg(where, text(f.network), pct(f.commShare), duration(f.costSeconds), pct(f.costShare),
             text(f.intraNodeLink));
}

QString mixedClusterNote(const Estimate &e)
{
    if (e.nodeGroups.empty() || !e.device)
        return {};
    QStringList kinds;
    std::size_t next = 0;
    for (const NodeGroupEstimate &g : e.nodeGroups)
        if (g.kind == next) { // each kind once, in order of appearance
            kinds << QStringLiteral("%1 (%2)").arg(text(g.deviceName), duration(g.stepSeconds));
            ++next;
        }
    return words(
               "mixed cluster: %1. Every rank waits for the slowest at each synchronisation, so %2 sets the step time; "
               "memory is checked per stage on the devices that hold it (not averaged)")
        .arg(kinds.join(QStringLiteral(", ")), text(e.device->name));
}

Problems estimateProblems(const Estimate &e)
{
    Problems out = e.problems;
    if (const QString note = mixedClusterNote(e); !note.isEmpty())
        out.push_back(wordedProblem(Severity::Warning, "cluster.node_groups", note.toStdString()));
    for (const PlacementFlag &f : e.placement.flags)
        out.push_back(wordedProblem(Severity::Warning, f.key, placementFlagText(f).toStdString()));
    return out;
}

QString describeConfig(const SearchConfig &c)
{
    QString s = words("data %1 x tensor %2 x pipeline %3").arg(c.data).arg(c.tensor).arg(c.pipeline);
    if (c.context > 1)
        s += words(" x context %1").arg(c.context);
    if (c.virtualStages > 1)
        s += words(" (v %1)").arg(c.virtualStages);
    if (c.expert > 1 || c.expertTensor > 0)
        s += c.expertTensor > 0 ? words(", expert %1 x expert tensor %2").arg(c.expert).arg(c.expertTensor)
                                : words(", expert %1").arg(c.expert);
    if (c.firstStageLayers > 0 || c.lastStageLayers > 0)
        s += words(" (first %1, last %2 layers)").arg(c.firstStageLayers).arg(c.lastStageLayers);
    else if (c.listedStages)
        s += words(" (the plan's layers per stage)");
    s += words(", micro-batch %1, %2, ZeRO %3, recompute %4")
             .arg(c.microBatch)
             .arg(QLatin1String(toString(c.schedule)))
             .arg(c.zeroStage)
             .arg(QLatin1String(toString(c.recompute)));
    if (c.sequenceParallel)
        s += words(", SP");
    if (c.offload)
        s += words(", offload");
    if (c.expert > 1 && c.dispatcher != ExpertDispatcher::AllToAll)
        s += words(", %1").arg(c.dispatcher == ExpertDispatcher::HybridEp ? words("HybridEP") : words("DeepEP"));
    if (c.expert > 1 && c.expertCommOverlap)
        s += words(", all-to-all overlapped");
    if (c.cudaGraphs != CudaGraphs::None)
        s += words(", CUDA graphs: %1").arg(QLatin1String(toString(c.cudaGraphs)));
    return s;
}

QString describeConfigBriefly(const SearchConfig &c)
{
    QStringList sizes{QStringLiteral("d%1").arg(c.data), QStringLiteral("t%1").arg(c.tensor),
                      QStringLiteral("p%1").arg(c.pipeline)};
    if (c.context > 1)
        sizes << QStringLiteral("c%1").arg(c.context);
    if (c.expert > 1)
        sizes << QStringLiteral("e%1").arg(c.expert);
    if (c.expertTensor > 0 && c.expertTensor != c.tensor)
        sizes << QStringLiteral("et%1").arg(c.expertTensor);
    QStringList parts{sizes.join(QLatin1Char(' '))};
    if (c.firstStageLayers > 0 || c.lastStageLayers > 0)
        parts << words("%1+…+%2 layers").arg(c.firstStageLayers).arg(c.lastStageLayers);
    else if (c.listedStages)
        parts << words("listed layers");
    if (c.schedule == Schedule::Interleaved)
        parts << words("%1 chunks").arg(c.virtualStages);
    else if (c.pipeline > 1 && c.schedule != Schedule::OneFOneB)
        parts << QLatin1String(toString(c.schedule));
    parts << words("mb %1").arg(c.microBatch);
    if (c.zeroStage > 0)
        parts << QStringLiteral("ZeRO-%1").arg(c.zeroStage);
    if (c.recompute != Recompute::None)
        parts << QLatin1String(toString(c.recompute));
    if (c.sequenceParallel)
        parts << words("SP");
    if (c.offload)
        parts << words("offload");
    if (c.expert > 1 && c.dispatcher != ExpertDispatcher::AllToAll)
        parts << (c.dispatcher == ExpertDispatcher::HybridEp ? words("HybridEP") : words("DeepEP"));
    if (c.expert > 1 && c.expertCommOverlap)
        parts << words("a2a overlap");
    if (c.cudaGraphs != CudaGraphs::None)
        parts << words("graphs %1").arg(QLatin1String(toString(c.cudaGraphs)));
    return parts.join(QStringLiteral(" · "));
}

QString rejectionResource(RejectCause cause)
{
    switch (cause) {
    case RejectCause::Invalid: return QStringLiteral("validity");
    case RejectCause::DoesNotFit:
    case RejectCause::Headroom: return QStringLiteral("capacity");
    case RejectCause::TensorAcrossNodes: return QStringLiteral("communication");
    }
    return {};
}

QString rejectionMessage(const RejectionGroup &g, const SearchOutcome &o)
{
    const SearchScore &ex = g.example;
    switch (g.cause) {
    case RejectCause::Invalid:
        return words("%1: %2 break a rule, e.g. %3: %4")
            .arg(text(g.key), plans(g.count), describeConfig(ex.config), problemText(ex.problem));
    case RejectCause::DoesNotFit: {
        // Three decimals when two would print the same number twice.
        const int decimals = (ex.peakBytes - ex.capacityBytes) < 0.01 * units::GiB ? 3 : 2;
        return words("pipeline %1: %2 do not fit; the leanest needs %3 of %4, %5 %6 of it (%7)")
            .arg(ex.config.pipeline)
            .arg(plans(g.count), gib(ex.peakBytes, decimals), gib(ex.capacityBytes, 2), text(ex.component),
                 gib(ex.componentBytes), describeConfig(ex.config));
    }
    case RejectCause::TensorAcrossNodes: {
        const QString behind =
            o.bestTokensPerSecond > 0
                ? words(", %1 below the best plan").arg(pct(1.0 - ex.tokensPerSecond / o.bestTokensPerSecond))
                : QString();
        return words("tensor %1 crosses nodes: %2 of the step is tensor-parallel communication in the fastest of them "
                     "(%3 "
                     "tokens/s%4); %5")
            .arg(ex.config.tensor)
            .arg(pct(ex.tensorCommShare), fmt::number(ex.tokensPerSecond, 0), behind, plans(g.count));
    }
    case RejectCause::Headroom:
        if (o.rejectUncertainMemory)
            return words("%1 fit but leave less free than %2their memory estimate's error band may take: they may "
                         "not fit; the most leaves %3 (%4)")
                .arg(plans(g.count),
                     (o.minHeadroomBytes > 0 ? gib(o.minHeadroomBytes) + words(", ") : QString()) +
                         (o.keepMemoryMargin ? words("their memory margin or ") : QString()),
                     gib(ex.headroomBytes), describeConfig(ex.config));
        if (o.keepMemoryMargin && o.minHeadroomBytes <= 0)
            return words("%1 fit only within their memory margin (training.memory_margin of capacity): tight, so not "
                         "recommended; the most leaves %2 (%3)")
                .arg(plans(g.count), gib(ex.headroomBytes), describeConfig(ex.config));
        if (o.keepMemoryMargin)
            return words("%1 fit but leave less than %2 or their memory margin (training.memory_margin of capacity) "
                         "free: "
                         "tight; the most leaves %3 (%4)")
                .arg(plans(g.count), gib(o.minHeadroomBytes), gib(ex.headroomBytes), describeConfig(ex.config));
        return words("%1 fit but leave less than %2 free; the most leaves %3 (%4)")
            .arg(plans(g.count), gib(o.minHeadroomBytes), gib(ex.headroomBytes), describeConfig(ex.config));
    }
    return {};
}

namespace {

/// An expert layout's name, unambiguous whatever the tensor size: with expert_tensor 0 the experts' MLPs are
/// split over the tensor ranks, otherwise over expert_tensor of them.
QString expertLayoutName(std::int64_t expert, std::int64_t expertTensor)
{
    return expertTensor > 0 ? words("expert %1 x expert tensor %2").arg(expert).arg(expertTensor)
                            : words("expert %1 with the experts split over the tensor ranks").arg(expert);
}

QString tokensPerSecond(double v)
{
    return words("%1 tokens/s").arg(QString::fromStdString(units::formatGrouped(v)));
}

/// A group of plans none of which is feasible, with the rule most of them break where they break one.
QString noneFeasible(const QString &name, std::int64_t evaluated, const Problem &common)
{
    const QString none = words("%1: none of its %2 plans is feasible").arg(name).arg(evaluated);
    return common.key.empty() ? none
                              : words("%1; most break this rule: %2")
                                    .arg(none, QString::fromStdString(io::problemMessage(common)));
}

} // namespace

QString expertLayoutMessage(const ExpertLayoutResult &l, const SearchOutcome &o)
{
    const QString name = expertLayoutName(l.expert, l.expertTensor);
    if (l.feasible == 0)
        return noneFeasible(name, l.evaluated, l.commonProblem);
    const SearchScore &b = l.best;
    const ExpertLayoutResult &first = o.expertLayouts.front();
    const SearchScore &best = first.best;
    const QString a2a = words("exposed dispatch/combine all-to-all %1 s of a %2 s step")
                            .arg(fmt::number(b.expertCommSeconds, 2), fmt::number(b.stepSeconds, 2));
    if (&l == &first || b.tokensPerSecond >= best.tokensPerSecond)
        return words("%1: the fastest expert layout, %2; %3").arg(name, tokensPerSecond(b.tokensPerSecond), a2a);
    const QString behind =
        words("%1: its fastest plan is %2 below the best, %3 (%4)")
            .arg(name, pct(1.0 - b.tokensPerSecond / best.tokensPerSecond),
                 expertLayoutName(first.expert, first.expertTensor), tokensPerSecond(best.tokensPerSecond));
    // The all-to-all rules the layout out when its extra exposed time is most of the extra step time.
    const double extraStep = b.stepSeconds - best.stepSeconds, extraA2a = b.expertCommSeconds - best.expertCommSeconds;
    if (extraStep > 0 && extraA2a >= 0.5 * extraStep)
        return words("%1; its %2 (%3 s more than the best's) is what rules it out")
            .arg(behind, a2a, fmt::number(extraA2a, 2));
    return words("%1; %2").arg(behind, a2a);
}

QString trafficFloorText(const SearchScore &s, double parameters)
{
    const SearchConfig &c = s.config;
    const std::int64_t ranks = c.data * c.context;
    const QString what = c.zeroStage >= 3 ? words("gathered for each micro-batch and their gradients reduce-scattered")
                         : c.zeroStage == 2
                             ? words("reduced after each micro-batch's backward and gathered after the step")
                         : c.zeroStage == 1 ? words("reduced and gathered once per step")
                                            : words("all-reduced once per step");
    const QString count = QString::fromStdString(units::formatCount(s.rankParameters, 1));
    const QString held =
        s.rankParameters < 0.999 * parameters
            ? words("the %1 parameters each GPU holds (of the model's %2)")
                  .arg(count, QString::fromStdString(units::formatCount(parameters, 0)))
            : words("the model's %1 parameters").arg(QString::fromStdString(units::formatCount(parameters, 0)));
    return words("over %1 data-parallel ranks %2 are %3: %4 per GPU through its %5 network share, at least %6 s; %7 s "
                 "of the "
                 "%8 s step is exposed data-parallel time")
        .arg(ranks)
        .arg(held, what, QString::fromStdString(units::formatBytes(s.dataFloorNetworkBytes, units::ByteUnit::Auto, 2)),
             QString::fromStdString(units::formatBandwidth(s.networkBytesPerSecond, 0)),
             fmt::number(s.dataFloorSeconds, 2), fmt::number(s.dataCommSeconds, 2), fmt::number(s.stepSeconds, 2));
}

QString zeroStageMessage(const ZeroStageResult &z, const SearchOutcome &o)
{
    const QString name = QStringLiteral("ZeRO-%1").arg(z.zeroStage);
    if (z.feasible == 0)
        return noneFeasible(name, z.evaluated, z.commonProblem);
    const SearchScore &b = z.best;
    const SearchScore &best = o.zeroStages.front().best;
    const QString floor = trafficFloorText(b, o.parameters);
    if (&z == &o.zeroStages.front() || b.tokensPerSecond >= best.tokensPerSecond)
        return words("%1: the fastest ZeRO stage, %2 (%3); %4")
            .arg(name, tokensPerSecond(b.tokensPerSecond), describeConfigBriefly(b.config), floor);
    const QString behind =
        words("%1: its fastest plan (%2) is %3 below the best, ZeRO-%4 (%5)")
            .arg(name, describeConfigBriefly(b.config), pct(1.0 - b.tokensPerSecond / best.tokensPerSecond))
            .arg(o.zeroStages.front().zeroStage)
            .arg(tokensPerSecond(best.tokensPerSecond));
    // The parameter traffic rules the stage out when its exposed time or its floor beyond the best's step is
    // most of the extra step time.
    const double extraStep = b.stepSeconds - best.stepSeconds, extraData = b.dataCommSeconds - best.dataCommSeconds;
    if (extraStep > 0 && (extraData >= 0.5 * extraStep || b.dataFloorSeconds >= best.stepSeconds))
        return words("%1; %2: that is what rules it out").arg(behind, floor);
    return words("%1; %2").arg(behind, floor);
}

QString outsideDimensions(const Accuracy &a)
{
    QStringList names;
    for (AccuracyDimension d : a.outside)
        names << words(labelOf(d));
    return names.join(QStringLiteral(", "));
}

QString accuracyBand(const Accuracy &a)
{
    return a.assessed ? words("\u00b1%1%").arg(fmt::number(100 * a.band80, 0)) : QString();
}

QString accuracyBandText(const Accuracy &a)
{
    if (!a.assessed)
        return words("no band");
    return a.validated ? accuracyBand(a) : words("%1 (not validated)").arg(accuracyBand(a));
}

QString accuracySummary(const Accuracy &a)
{
    if (!a.assessed)
        return words("no published run to compare with: the estimate has no error band");
    const QString within = words("within %1% for 80% of %2 comparable published runs (%3 sources; median error %4%)")
                               .arg(fmt::number(100 * a.band80, 0))
                               .arg(a.comparableRuns)
                               .arg(a.sources.size())
                               .arg(fmt::number(100 * a.expectedError, 1));
    if (a.validated)
        return within;
    if (a.outside.empty())
        return words("not validated: only %1").arg(within);
    return words("not validated: the published runs do not cover its %1; the nearest are %2")
        .arg(outsideDimensions(a), within);
}

QString memoryBandSummary(const MemoryEstimate &m, const Accuracy &a)
{
    if (a.memoryComparableRuns <= 0)
        return QString();
    const double upper = memoryPeakUpperBytes(m.peakBytes, a);
    const QString within = words("within %1% for 80% of %2 comparable published peaks%3: up to %4")
                               .arg(fmt::number(100 * a.memoryBand80, 0))
                               .arg(a.memoryComparableRuns)
                               .arg(a.memoryValidated ? QString() : words(" (not validated)"))
                               .arg(fmt::gib(upper, 1));
    if (!mayNotFit(m, a))
        return within;
    return words("%1, more than the %2 device: it may not fit").arg(within, fmt::gib(m.capacityBytes, 0));
}

QString trafficFloorSummary(const StepEstimate &st)
{
    const TrafficFloor &f = st.floor;
    if (!(f.seconds > 0))
        return words("no communication: the step has no traffic floor");
    const FloorBytes &b = f.bytes[std::size_t(f.dominant)];
    const QString network =
        b.network > 0 ? words("%1 per GPU through the network share")
                            .arg(QString::fromStdString(units::formatBytes(b.network, units::ByteUnit::Auto, 2)))
                      : words("none of it through the network");
    QString text = words("the step cannot be shorter than %1 s (it is %2 s)")
                       .arg(fmt::number(f.seconds, 2), fmt::number(st.stepSeconds, 2));
    if (f.shardedPhasesSeconds >= f.seconds)
        text += words(": ZeRO-3's forward and backward passes each take their gathers' floor or their compute, "
                      "whichever is longer");
    text += words(". Its collectives alone need %1 s over the links' nominal figures (%2 GB/s network share, %3 GB/s "
                  "scale-up per "
                  "GPU), most of it %4: %5 s, %6 and %7 received in all")
                .arg(fmt::number(f.linksSeconds, 2), fmt::number(f.networkBytesPerSecond / units::Giga, 0),
                     fmt::number(f.scaleUpBytesPerSecond / units::Giga, 0),
                     QString::fromLatin1(labelOf(f.dominant)).toLower(), fmt::number(f.secondsOf(f.dominant), 2),
                     network, QString::fromStdString(units::formatBytes(b.received, units::ByteUnit::Auto, 2)));
    if (st.dataParallelSlowdownSeconds > 0)
        text +=
            words("; the %1 s of data-parallel collectives hidden behind compute slow it by %2 s (NCCL's SMs and HBM)")
                .arg(fmt::number(st.dataParallelHiddenSeconds, 2), fmt::number(st.dataParallelSlowdownSeconds, 2));
    return text;
}

QString noFeasibleReason(const SearchOutcome &o)
{
    if (o.feasible > 0 || !o.valid)
        return {};
    if (o.noLayout)
        return words("no layout of %1 GPUs splits the global batch of %2 sequences and the model's %3 layers and %4 "
                     "heads "
                     "within the constraints")
            .arg(o.gpus)
            .arg(o.globalBatch)
            .arg(o.layers)
            .arg(o.heads);
    QString reason = words("no plan is feasible. ");
    for (std::size_t i = 0; i < o.rejected.size() && i < 3; ++i)
        reason += (i ? QStringLiteral(" ") : QString()) + rejectionMessage(o.rejected[i], o) + QLatin1Char('.');
    return reason;
}

namespace {

/// The diagnostic map's interventions by id (core/advice/Interventions), as the window and the report name them.
const std::pair<const char *, const char *> kInterventionLabels[] = {
    {"selective_recomputation", QT_TRANSLATE_NOOP("Evidence", "Selective recomputation")},
    {"full_recomputation", QT_TRANSLATE_NOOP("Evidence", "Full recomputation")},
    {"shard_optimizer_state_zero_1", QT_TRANSLATE_NOOP("Evidence", "Shard optimizer state (ZeRO-1)")},
    {"shard_gradients_too_zero_2", QT_TRANSLATE_NOOP("Evidence", "Shard gradients too (ZeRO-2)")},
    {"double_pipeline_stages", QT_TRANSLATE_NOOP("Evidence", "Double pipeline stages")},
    {"halve_the_micro_batch", QT_TRANSLATE_NOOP("Evidence", "Halve the micro-batch")},
    {"recompute_whole_moe_layers", QT_TRANSLATE_NOOP("Evidence", "Recompute whole MoE layers")},
    {"offload_optimizer_state", QT_TRANSLATE_NOOP("Evidence", "Offload optimizer state")},
    {"offload_half_the_optimizer", QT_TRANSLATE_NOOP("Evidence", "Offload half the optimizer")},
    {"fuse_element_wise_kernels", QT_TRANSLATE_NOOP("Evidence", "Fuse element-wise kernels")},
    {"fused_rotary_embedding", QT_TRANSLATE_NOOP("Evidence", "Fused rotary embedding")},
    {"fused_adamw", QT_TRANSLATE_NOOP("Evidence", "Fused AdamW kernel")},
    {"flash_attention", QT_TRANSLATE_NOOP("Evidence", "Flash attention")},
    {"double_the_micro_batch", QT_TRANSLATE_NOOP("Evidence", "Double the micro-batch")},
    {"fp8_matrix_multiplies", QT_TRANSLATE_NOOP("Evidence", "FP8 matrix multiplies")},
    {"no_recomputation", QT_TRANSLATE_NOOP("Evidence", "No recomputation")},
    {"bf16_mixed_precision", QT_TRANSLATE_NOOP("Evidence", "BF16 mixed precision")},
    {"overlap_gradient_reduction", QT_TRANSLATE_NOOP("Evidence", "Overlap gradient reduction")},
    {"overlap_offload_copies", QT_TRANSLATE_NOOP("Evidence", "Overlap the offload's copies")},
    {"deepep_expert_dispatcher", QT_TRANSLATE_NOOP("Evidence", "DeepEP expert dispatcher")},
    {"fused_moe_routing", QT_TRANSLATE_NOOP("Evidence", "Fused MoE router and permutation")},
    {"defer_output_wgrad", QT_TRANSLATE_NOOP("Evidence", "Output weight gradients in the drain")},
    {"whole_experts_per_rank", QT_TRANSLATE_NOOP("Evidence", "Whole experts (expert tensor 1)")},
    {"sequence_parallelism", QT_TRANSLATE_NOOP("Evidence", "Sequence parallelism")},
    {"halve_tensor_parallelism", QT_TRANSLATE_NOOP("Evidence", "Halve tensor parallelism")},
    {"interleave_the_pipeline_v2", QT_TRANSLATE_NOOP("Evidence", "Interleave the pipeline (v = 2)")},
    {"zero_bubble_schedule_zb_h1", QT_TRANSLATE_NOOP("Evidence", "Zero-bubble schedule (ZB-H1)")},
    {"halve_pipeline_stages", QT_TRANSLATE_NOOP("Evidence", "Halve pipeline stages")},
};

} // namespace

QString interventionLabel(const std::string &id)
{
    for (const auto &[key, label] : kInterventionLabels)
        if (id == key)
            return words(label);
    return QString::fromStdString(id);
}

} // namespace trainplan::io
