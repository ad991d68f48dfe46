#include "io/output/SearchJson.h"

#include <QJsonArray>
#include <QJsonDocument>

#include "io/output/EstimateJson.h"
#include "io/output/Evidence.h"
#include "io/plan/PlanJson.h"

namespace trainplan::io {

namespace {

QJsonObject configToJson(const SearchConfig &c)
{
    return QJsonObject{
        {"nodes", double(c.nodes)},
        {"data", double(c.data)},
        {"tensor", double(c.tensor)},
        {"pipeline", double(c.pipeline)},
        {"context", double(c.context)},
        {"virtual_stages", double(c.virtualStages)},
        {"first_stage_layers", double(c.firstStageLayers)},
        {"last_stage_layers", double(c.lastStageLayers)},
        {"stage_layers_listed", c.listedStages},
        {"micro_batch", double(c.microBatch)},
        {"schedule", QLatin1String(toString(c.schedule))},
        {"zero_stage", double(c.zeroStage)},
        {"recompute", QLatin1String(toString(c.recompute))},
        {"sequence_parallel", c.sequenceParallel},
        {"offload_optimizer", c.offload},
        {"expert", double(c.expert)},
        {"expert_tensor", double(c.expertTensor)},
        {"expert_dispatcher", QLatin1String(toString(c.dispatcher))},
        {"expert_comm_overlap", c.expertCommOverlap},
        {"cuda_graphs", QLatin1String(toString(c.cudaGraphs))},
    };
}

/// A result's plan, complete but without the searched plan's free text repeated per result: its name is
/// the result's rank and layout (the searched plan's name is the root's plan_name), and its custom devices
/// keep their figures but not their source notes.
QJsonObject resultPlanToJson(const RankedPlan &r, const Catalog &catalog)
{
    Plan plan = r.plan;
    plan.name = "search #" + std::to_string(r.rank) + ": " + describeConfig(r.score.config).toStdString();
    for (DeviceSpec &d : plan.cluster.customDevices)
        d.source.clear();
    return QJsonDocument::fromJson(writePlan(plan, catalog)).object();
}

QJsonObject rankedToJson(const RankedPlan &r, const Catalog &catalog)
{
    QJsonObject o = scoreToJson(r.score);
    o["rank"] = r.rank;
    o["ties_best"] = r.tiesBest;
    o["plan"] = resultPlanToJson(r, catalog);
    return o;
}

} // namespace

QJsonObject scoreToJson(const SearchScore &s)
{
    return QJsonObject{
        {"config", configToJson(s.config)},
        {"gpus", double(s.gpus)},
        {"tokens_per_second", s.tokensPerSecond},
        {"step_seconds", s.stepSeconds},
        {"peak_bytes", s.peakBytes},
        {"capacity_bytes", s.capacityBytes},
        {"headroom_bytes", s.headroomBytes},
        {"may_not_fit", s.mayNotFit},
        {"mfu", s.mfu},
        {"bottleneck", QLatin1String(toString(s.bottleneck))},
        {"expert_comm_seconds", s.expertCommSeconds},
        {"data_comm_seconds", s.dataCommSeconds},
        {"floor_seconds", s.floorSeconds},
        {"floor_kind", QLatin1String(toString(s.floorKind))},
        {"data_floor_seconds", s.dataFloorSeconds},
        {"data_floor_network_bytes", s.dataFloorNetworkBytes},
    };
}

QJsonObject searchToJson(const SearchOutcome &outcome, const SearchConstraints &constraints, const Catalog &catalog)
{
    QJsonArray top, pareto, rejected, expertLayouts, zeroStages;
    for (const ZeroStageResult &z : outcome.zeroStages)
        zeroStages.append(QJsonObject{{"zero_stage", double(z.zeroStage)},
                                      {"evaluated", double(z.evaluated)},
                                      {"feasible", double(z.feasible)},
                                      {"best", z.feasible > 0 ? QJsonValue(scoreToJson(z.best)) : QJsonValue()},
                                      {"message", zeroStageMessage(z, outcome)}});
    for (const ExpertLayoutResult &l : outcome.expertLayouts)
        expertLayouts.append(QJsonObject{{"expert", double(l.expert)},
                                         {"expert_tensor", double(l.expertTensor)},
                                         {"evaluated", double(l.evaluated)},
                                         {"feasible", double(l.feasible)},
                                         {"best", l.feasible > 0 ? QJsonValue(scoreToJson(l.best)) : QJsonValue()},
                                         {"message", expertLayoutMessage(l, outcome)}});
    for (const RankedPlan &r : outcome.top)
        top.append(rankedToJson(r, catalog));
    for (const RankedPlan &r : outcome.pareto)
        pareto.append(rankedToJson(r, catalog));
    for (const RejectionGroup &g : outcome.rejected)
        rejected.append(QJsonObject{{"cause", QLatin1String(toString(g.cause))},
                                    {"resource", rejectionResource(g.cause)},
                                    {"key", QString::fromStdString(g.key)},
                                    {"count", double(g.count)},
                                    {"message", rejectionMessage(g, outcome)},
                                    {"example", configToJson(g.example.config)}});
    QJsonObject root{
        {"format", "trainplan-search"},
        {"version", 1},
        {"evaluated", double(outcome.evaluated)},
        {"feasible", double(outcome.feasible)},
        {"seconds", outcome.seconds},
        {"configs_per_second", outcome.seconds > 0 ? double(outcome.evaluated) / outcome.seconds : 0.0},
        {"threads", outcome.threads},
        {"cancelled", outcome.cancelled},
        {"min_headroom_bytes", constraints.minHeadroomBytes},
        {"keep_memory_margin", constraints.keepMemoryMargin},
        {"reject_uncertain_memory", constraints.rejectUncertainMemory},
        {"plan_name", QString::fromStdString(outcome.planName)},
        {"top", top},
        {"pareto", pareto},
        {"rejected", rejected},
        {"expert_layouts", expertLayouts},
        {"zero_stages", zeroStages},
    };
    if (const QString reason = noFeasibleReason(outcome); !reason.isEmpty())
        root["no_feasible_reason"] = reason;
    const auto ties =
        std::count_if(outcome.top.begin(), outcome.top.end(), [](const RankedPlan &r) { return r.tiesBest; });
    root["accuracy"] = QJsonObject{{"band_80", outcome.bestAccuracy.band80},
                                   {"validated", outcome.bestAccuracy.validated},
                                   {"outside", outsideToJson(outcome.bestAccuracy)},
                                   {"ties_best", double(ties)},
                                   {"memory_band_80", outcome.bestAccuracy.memoryBand80},
                                   {"best_may_not_fit", bestMayNotFit(outcome)}};
    return root;
}

} // namespace trainplan::io
