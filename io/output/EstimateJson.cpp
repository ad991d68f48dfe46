#include "io/output/EstimateJson.h"
#include "io/output/MemoryTermSources.h"
#include "io/output/StepTerms.h"

#include "io/output/Evidence.h"

#include "core/common/Units.h"

#include "io/output/PrecisionPolicy.h"

#include "core/memory/MemoryTerms.h"
#include "io/plan/ProblemWords.h"

namespace trainplan::io {

namespace {

QJsonObject stageToJson(const StageMemory &s)
{
    QJsonObject other;
    for (std::size_t i = 0; i < kOtherTermCount; ++i)
        other[QLatin1String(termInfo(OtherTerm(i)).key)] = s.other[i];

    const StageActivations &a = s.activations;
    return QJsonObject{
        {"stage", double(s.stage)},
        {"capacity_bytes", s.capacityBytes},
        {"layers", double(a.layers)},
        {"parameters", s.parameterCount},
        {"parameters_bytes", s.parametersBytes},
        {"expert_parameters_bytes", s.expertParametersBytes},
        {"gradients_bytes", s.gradientsBytes},
        {"optimizer_bytes", s.optimizerBytes},
        {"activations_bytes", s.activationsBytes},
        {"other_bytes", s.otherBytes},
        {"other", other},
        {"peak_bytes", s.peakBytes},
        {"allocated_bytes", s.allocatedBytes},
        {"reserved_bytes", s.reservedBytes},
        {"device_bytes", s.deviceBytes},
        {"allocator", QJsonObject{{"rounding_bytes", s.allocator.roundingBytes},
                                  {"fragmentation_bytes", s.allocator.fragmentationBytes},
                                  {"fraction_override", s.allocator.fractionOverride}}},
        {"peak_phase", QLatin1String(toString(s.peakPhase))},
        {"host_optimizer_bytes", s.hostOptimizerBytes},
        {"host_parameters_bytes", s.hostParametersBytes},
        {"activations", QJsonObject{
                            {"per_layer_bytes", a.perLayerBytes},
                            {"microbatches_in_flight", a.microbatchesInFlight},
                            {"layers_bytes", a.layerBytes},
                            {"recomputed_layers", qint64(a.recomputedLayers)},
                            {"offloaded_layers", qint64(a.offloadedLayers)},
                            {"offloaded_bytes", a.offloadedBytes},
                            {"embedding_bytes", a.embeddingBytes},
                            {"output_bytes", a.outputBytes},
                            {"weight_gradients_pending", a.weightGradientsPending},
                            {"pending_weight_gradients_bytes", a.pendingWeightGradientBytes},
                            {"stored_bytes", a.storedBytes()},
                        }},
        {"phases", QJsonObject{
                       {"forward_backward_bytes", s.forwardBackwardBytes},
                       {"optimizer_step_bytes", s.optimizerStepBytes},
                   }},
    };
}

QJsonObject termsToJson()
{
    QJsonObject terms;
    const auto add = [&](const TermInfo &info, const MemoryTermSource &words) {
        terms[QLatin1String(info.key)] = QJsonObject{{"label", QLatin1String(info.label)},
                                                     {"formula", QLatin1String(words.formula)},
                                                     {"source", QLatin1String(words.source)}};
    };
    for (std::size_t i = 0; i < kStateTermCount; ++i)
        add(termInfo(StateTerm(i)), memoryTermSource(StateTerm(i)));
    for (std::size_t i = 0; i < kOtherTermCount; ++i)
        add(termInfo(OtherTerm(i)), memoryTermSource(OtherTerm(i)));
    return terms;
}

QJsonArray scalingToJson(const std::vector<ScalingPoint> &points)
{
    QJsonArray out;
    for (const ScalingPoint &p : points)
        out.append(QJsonObject{{"workers", double(p.workers)},
                               {"step_seconds", p.stepSeconds},
                               {"speedup", p.speedup},
                               {"efficiency", p.efficiency}});
    return out;
}

QJsonObject pipelineToJson(const Plan &plan, const StepEstimate &step, bool timeline)
{
    QJsonObject o{{"schedule", QLatin1String(toString(plan.parallel.schedule))},
                  {"stages", double(plan.parallel.pipeline)},
                  {"virtual_stages", double(plan.parallel.virtualStages)},
                  {"microbatches", double(plan.microbatches())},
                  {"bubble_fraction", step.bubbleFraction},
                  {"simulated", step.pipeline.valid}};
    // Layers on each stage (all its chunks): even, or the uneven split of first/last_stage_layers.
    QJsonArray layers;
    for (std::int64_t s = 0; s < plan.parallel.pipeline; ++s)
        layers.append(double(plan.layersOnStage(s)));
    o["stage_layers"] = layers;
    const PipelineTimeline &tl = step.pipeline;
    if (!tl.valid)
        return o;
    const auto array = [](const std::vector<double> &values) {
        QJsonArray a;
        for (double x : values)
            a.append(x);
        return a;
    };
    o["makespan_seconds"] = tl.makespan;
    o["stage_bubble_fraction"] = array(tl.stageBubbleFraction);
    o["stage_idle_seconds"] = array(tl.stageIdleSeconds);
    o["peak_in_flight"] = array(tl.peakInFlight);
    if (timeline) {
        QJsonArray stages;
        for (std::size_t s = 0; s + 1 < tl.stageBegin.size(); ++s) {
            QJsonArray ops;
            for (std::size_t i = tl.stageBegin[s]; i < tl.stageBegin[s + 1]; ++i) {
                const PipelineOp &op = tl.ops[i];
                ops.append(QJsonObject{{"kind", QLatin1String(toString(op.kind))},
                                       {"microbatch", op.microbatch},
                                       {"chunk", op.chunk},
                                       {"start", op.start},
                                       {"end", op.end}});
            }
            stages.append(QJsonObject{{"stage", double(s)}, {"ops", ops}});
        }
        o["timeline"] = stages;
    }
    return o;
}

/// The step's traffic floor (core/step/TrafficFloor): the seconds, the dominant kind, each kind's bytes per GPU.
QJsonObject floorToJson(const StepEstimate &step)
{
    const TrafficFloor &f = step.floor;
    QJsonObject kinds;
    for (std::size_t k = 0; k < kFloorKindCount; ++k) {
        const FloorBytes &b = f.bytes[k];
        if (b.network > 0 || b.received > 0)
            kinds[QLatin1String(toString(FloorKind(k)))] = QJsonObject{
                {"network_bytes", b.network}, {"received_bytes", b.received}, {"seconds", f.secondsOf(FloorKind(k))}};
    }
    return QJsonObject{{"seconds", f.seconds},
                       {"dominant", QLatin1String(toString(f.dominant))},
                       {"network_bandwidth", f.networkBytesPerSecond},
                       {"scale_up_bandwidth", f.scaleUpBytesPerSecond},
                       {"sharded_phases_seconds", f.shardedPhasesSeconds},
                       {"links_seconds", f.linksSeconds},
                       {"kinds", kinds},
                       {"message", trafficFloorSummary(step)}};
}

QJsonObject stepToJson(const Plan &plan, const StepEstimate &step, const RooflineSummary &roofline)
{
    QJsonObject breakdown;
    for (std::size_t i = 0; i < kTimeCategoryCount; ++i)
        breakdown[QLatin1String(toString(TimeCategory(i)))] = step.breakdown[i];
    QJsonObject parts;
    QJsonObject terms; // the parts with what each is and where its formula comes from (io/output/StepTerms)
    const auto stepPartSeconds = stepParts(plan, step);
    for (std::size_t i = 0; i < kStepPartCount; ++i) {
        parts[QLatin1String(toString(StepPart(i)))] = stepPartSeconds[i];
        const StepTermInfo &info = stepTermInfo(StepPart(i));
        terms[QLatin1String(toString(StepPart(i)))] = QJsonObject{{"seconds", stepPartSeconds[i]},
                                                                  {"label", QLatin1String(labelOf(StepPart(i)))},
                                                                  {"formula", QString::fromUtf8(info.formula)},
                                                                  {"source", QString::fromUtf8(info.source)}};
    }
    QJsonArray stages;
    for (const StageTime &s : step.stages)
        stages.append(QJsonObject{{"forward_seconds", s.forwardSeconds},
                                  {"backward_seconds", s.backwardSeconds},
                                  {"recompute_seconds", s.recomputeSeconds},
                                  {"tensor_comm_seconds", s.tensorCommSeconds},
                                  {"context_comm_seconds", s.contextCommSeconds},
                                  {"pipeline_comm_seconds", s.pipelineCommSeconds},
                                  {"microbatch_seconds", s.microbatchSeconds()}});
    QJsonArray ops;
    for (const Op &op : step.ops)
        ops.append(QJsonObject{{"name", QLatin1String(op.name)},
                               {"kind", QLatin1String(toString(op.kind))},
                               {"pass", QLatin1String(toString(op.pass))},
                               {"flops", op.flops},
                               {"bytes", op.bytes},
                               {"seconds", op.seconds},
                               {"intensity", op.intensity()},
                               {"memory_bound", op.memoryBound}});
    return QJsonObject{
        {"time", QJsonObject{{"step_seconds", step.stepSeconds},
                             {"breakdown", breakdown},
                             {"parts", parts},
                             {"terms", terms},
                             {"floor", floorToJson(step)},
                             {"data_parallel_hidden_seconds", step.dataParallelHiddenSeconds},
                             {"data_parallel_slowdown_seconds", step.dataParallelSlowdownSeconds},
                             {"host_update_seconds", step.hostUpdateSeconds},
                             {"stages", stages},
                             {"slowest_stage", double(step.slowestStage)}}},
        {"throughput", QJsonObject{{"tokens_per_second", step.tokensPerSecond},
                                   {"valid_tokens_per_second", step.validTokensPerSecond},
                                   {"model_tflops_per_gpu", step.modelFlopsPerGpu / units::Tera},
                                   {"hardware_tflops_per_gpu", step.hardwareFlopsPerGpu / units::Tera},
                                   {"mfu", step.mfu},
                                   {"hfu", step.hfu},
                                   {"model_flops_per_step", step.modelFlopsPerStep},
                                   {"hardware_flops_per_step", step.hardwareFlopsPerStep}}},
        {"pipeline", pipelineToJson(plan, step, false)},
        {"bottleneck", QLatin1String(toString(step.bottleneck))},
        {"bottleneck_evidence", bottleneckEvidence(step.bottleneck, step.evidence)},
        {"roofline", QJsonObject{{"peak_flops", roofline.plan.peakFlops},
                                 {"memory_bandwidth", roofline.bandwidthBytesPerSecond},
                                 {"ridge_point", roofline.plan.ridgePoint},
                                 {"ops", ops}}},
    };
}

QJsonObject landingToJson(const GroupLanding &l)
{
    return QJsonObject{
        {"size", double(l.size)},
        {"groups", double(l.groups)},
        {"nodes_spanned", double(l.nodesSpanned)},
        {"crosses_nodes", l.crossesNodes},
        {"link", QString::fromStdString(l.link)},
        {"bandwidth", l.bandwidthBytesPerSecond},
        {"nominal_bandwidth", l.nominalBandwidthBytesPerSecond},
        {"latency", l.latencySeconds},
    };
}

QJsonObject placementToJson(const PlacementReport &p)
{
    QJsonArray flags;
    for (const PlacementFlag &f : p.flags)
        flags.append(QJsonObject{{"key", QString::fromStdString(f.key)}, {"message", placementFlagText(f)}});
    return QJsonObject{
        {"tensor", landingToJson(p.tensor)},
        {"data", landingToJson(p.data)},
        {"context", landingToJson(p.context)},
        {"expert", landingToJson(p.expert)},
        {"expert_data", landingToJson(p.expertData)},
        {"pipeline", landingToJson(p.pipeline)},
        {"pipeline_boundaries_across_nodes", double(p.pipelineBoundariesAcrossNodes)},
        {"stages_misaligned", p.stagesMisaligned},
        {"tensor_across_nodes_seconds", p.tensorAcrossNodesSeconds},
        {"flags", flags},
    };
}

/// What each kind of peak is published as, and which terms it adds.
QJsonObject peakKindsToJson()
{
    QJsonObject kinds;
    for (const MemoryKind kind : {MemoryKind::Allocated, MemoryKind::Reserved, MemoryKind::Device}) {
        QJsonArray terms;
        for (std::size_t i = 0; i < kOtherTermCount; ++i)
            if (kindOf(OtherTerm(i)) == kind)
                terms.append(QLatin1String(termInfo(OtherTerm(i)).key));
        const char *key = kind == MemoryKind::Allocated  ? "allocated"
                          : kind == MemoryKind::Reserved ? "reserved"
                                                         : "device";
        kinds[QLatin1String(key)] =
            QJsonObject{{"published_as", QLatin1String(publishedAs(kind))}, {"adds_terms", terms}};
    }
    return kinds;
}

/// The largest components of the peak stage when the plan is tight (what to shrink), else empty.
QJsonArray tightComponents(const MemoryEstimate &memory)
{
    QJsonArray out;
    if (!memory.tight || memory.stages.empty())
        return out;
    for (const auto &[label, bytes] : largestComponents(memory.stages[std::size_t(memory.peakStage)], 3))
        out.append(QJsonObject{{"label", QLatin1String(label)}, {"bytes", bytes}});
    return out;
}

/// For a tight plan, the estimated term that would push it over and the growth that would (else empty, as
/// tight_components is: JSON null is what a NaN would become).
QJsonObject tightTerm(const MemoryEstimate &memory)
{
    const MemoryPressure p = memoryPressure(memory);
    if (!memory.tight || !p.label)
        return {};
    return QJsonObject{{"label", QLatin1String(p.label)}, {"bytes", p.bytes}, {"headroom_bytes", p.headroomBytes},
                       {"growth_to_overflow", p.growthToOverflow}};
}

QJsonObject memoryToJson(const MemoryEstimate &memory)
{
    QJsonArray stages;
    for (const StageMemory &s : memory.stages)
        stages.append(stageToJson(s));
    return QJsonObject{
        {"capacity_bytes", memory.capacityBytes},
        {"peak_bytes", memory.peakBytes},
        {"peak_stage", double(memory.peakStage)},
        {"headroom_bytes", memory.headroomBytes()},
        {"fits", memory.fits},
        {"allocated_bytes", memory.allocatedBytes},
        {"reserved_bytes", memory.reservedBytes},
        {"device_bytes", memory.deviceBytes},
        {"margin_bytes", memory.marginBytes},
        {"tight", memory.tight},
        {"tight_components", tightComponents(memory)},
        {"tight_term", tightTerm(memory)},
        {"peak_kinds", peakKindsToJson()},
        {"stages", stages},
        {"terms", termsToJson()},
    };
}

QJsonArray nodeGroupsToJson(const std::vector<NodeGroupEstimate> &nodeGroups)
{
    QJsonArray groups;
    for (const NodeGroupEstimate &g : nodeGroups)
        groups.append(QJsonObject{
            {"device", QString::fromStdString(g.device)},
            {"device_name", QString::fromStdString(g.deviceName)},
            {"intra_node_link", QString::fromStdString(g.intraNodeLink)},
            {"first_node", double(g.firstNode)},
            {"nodes", double(g.nodes)},
            {"step_seconds", g.stepSeconds},
            {"paces", g.paces},
            {"fits", g.fits},
            {"gpus", double(g.gpus)},
            {"peak_flops", g.peakFlops},
            {"idle_share", g.idleShare},
        });
    return groups;
}

QJsonObject runToJson(const RunConfig &config, const RunEstimate &run)
{
    return QJsonObject{
        {"token_budget", config.tokenBudget},
        {"steps", run.steps},
        {"training_seconds", run.trainingSeconds},
        {"days", run.days},
        {"gpu_hours", run.gpuHours},
        {"cost", run.cost},
        {"price_per_gpu_hour", config.pricePerGpuHour},
        {"busy_fraction", run.busyFraction},
        {"energy_kwh", run.energyJoules / units::JoulesPerKilowattHour},
        {"checkpoint_bytes", run.checkpointBytes},
        {"checkpoint_bytes_per_gpu", run.checkpointBytesPerGpu},
        {"checkpoint_write_seconds", run.checkpointWriteSeconds},
        {"cluster_mtbf_seconds", run.clusterMtbfSeconds},
        {"checkpoint_interval_seconds", run.checkpointIntervalSeconds},
        {"young_interval_seconds", run.youngIntervalSeconds},
        {"overhead_fraction", run.overheadFraction},
        {"expected_failures", run.expectedFailures},
        {"days_with_failures", run.daysWithFailures},
    };
}

QJsonObject precisionToJson(const PrecisionPolicy &policy)
{
    QJsonArray rows;
    for (const PrecisionRow &row : policy.rows)
        rows.append(QJsonObject{{"tensor", QString::fromStdString(row.tensor)},
                                {"held", QString::fromStdString(row.held)},
                                {"computed", QString::fromStdString(row.computed)},
                                {"communicated", QString::fromStdString(row.communicated)},
                                {"note", QString::fromStdString(row.note)}});
    return QJsonObject{{"tensors", rows}, {"loss_scaling", QString::fromStdString(policy.lossScaling)}};
}

} // namespace

QJsonArray outsideToJson(const Accuracy &a)
{
    QJsonArray outside;
    for (AccuracyDimension d : a.outside)
        outside.append(QLatin1String(toString(d)));
    return outside;
}

/// The error band (issue 37's public keys; fractions of the estimate).
QJsonObject accuracyToJson(const Accuracy &a)
{
    QJsonArray sources;
    for (const std::string &s : a.sources)
        sources.append(QString::fromStdString(s));
    const QJsonArray outside = outsideToJson(a);
    return QJsonObject{
        {"expected_error", a.expectedError},
        {"band_80", a.band80},
        {"comparable_runs", a.comparableRuns},
        {"sources", sources},
        {"validated", a.validated},
        {"outside", outside},
        {"memory_band_80", a.memoryBand80},
        {"memory_comparable_runs", a.memoryComparableRuns},
        {"memory_validated", a.memoryValidated},
    };
}

QJsonArray problemsToJson(const Problems &problems, Severity severity)
{
    QJsonArray out;
    for (const Problem &p : problems)
        if (p.severity == severity)
            out.append(p.key.empty() ? problemText(p)
                                     : QString::fromStdString(p.key) + QStringLiteral(": ") + problemText(p));
    return out;
}

QJsonObject estimateToJson(const Plan &plan, const Estimate &e, bool timeline)
{
    QJsonObject root;
    root["format"] = QLatin1String(kEstimateFormat);
    root["version"] = 1;
    root["valid"] = e.valid;
    const Problems problems = estimateProblems(e);
    root["errors"] = problemsToJson(problems, Severity::Error);
    root["warnings"] = problemsToJson(problems, Severity::Warning);
    root["plan"] = QJsonObject{
        {"name", QString::fromStdString(plan.name)},
        {"model", QString::fromStdString(plan.model.name)},
        {"device", QString::fromStdString(plan.cluster.device)},
        {"gpus", double(plan.cluster.gpus())},
        {"data", double(plan.parallel.data)},
        {"tensor", double(plan.parallel.tensor)},
        {"pipeline", double(plan.parallel.pipeline)},
        {"context", double(plan.parallel.context)},
    };
    if (!e.valid)
        return root;
    root["model"] = QJsonObject{
        {"parameters", e.model.parameters},
        {"parameters_per_layer", e.model.parametersPerLayer},
        {"active_parameters", e.model.activeParameters},
        {"microbatches", double(e.model.microbatches)},
    };
    root["memory"] = memoryToJson(e.memory);
    const QJsonObject step = stepToJson(plan, e.step, detailsOf(e).roofline);
    for (auto it = step.begin(); it != step.end(); ++it)
        root[it.key()] = it.value();
    if (timeline)
        root["pipeline"] = pipelineToJson(plan, e.step, true);
    root["scaling"] =
        QJsonObject{{"strong", scalingToJson(scalingOf(e).strong)}, {"weak", scalingToJson(scalingOf(e).weak)}};
    root["placement"] = placementToJson(e.placement);
    root["node_groups"] = nodeGroupsToJson(e.nodeGroups);
    QJsonObject throughput = root["throughput"].toObject();
    throughput["idle_share"] = e.idleShare;
    root["throughput"] = throughput;
    root["run"] = runToJson(plan.run, e.run);
    root["precision_policy"] = precisionToJson(precisionPolicy(plan));
    QJsonObject accuracy = accuracyToJson(detailsOf(e).accuracy);
    // The memory band's upper edge on the peak, and whether the device holds it (issues 33 and 36).
    accuracy["memory_peak_upper_bytes"] = memoryPeakUpperBytes(e.memory.peakBytes, detailsOf(e).accuracy);
    accuracy["may_not_fit"] = mayNotFit(e.memory, detailsOf(e).accuracy);
    root["accuracy"] = accuracy;
    return root;
}

} // namespace trainplan::io
