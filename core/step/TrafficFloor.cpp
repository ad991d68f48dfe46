#include "core/step/TrafficFloor.h"

#include <algorithm>
#include <cmath>

#include "core/compute/LayerOps.h"
#include "core/memory/MemoryModel.h"
#include "core/memory/ActivationMemory.h"
#include "core/memory/ModelState.h"
#include "core/step/DataParallel.h"
#include "core/step/StepModel.h"
#include "core/cluster/Topology.h"

namespace trainplan {

FloorBytes collectiveFloorBytes(Collective c, double bytes, const GroupPlacement &g)
{
    if (bytes <= 0)
        return {};
    if (c == Collective::PointToPoint)
        return {g.spansNodes() ? bytes : 0.0, bytes};
    if (g.size <= 1)
        return {};
    const double n = double(g.size);
    const double perDomain = double(std::max<std::int64_t>(1, g.spansNodes() ? g.perNode : g.size));
    const double domains = std::ceil(n / perDomain);
    const double received = bytes * (n - 1.0) / n;
    switch (c) {
    case Collective::AllGather:
    case Collective::ReduceScatter:
    case Collective::AllReduce: // in-network reduction saves at most half of its two passes
    case Collective::Broadcast:
        return {g.spansNodes() ? bytes * (domains - 1.0) / domains / perDomain : 0.0, received};
    case Collective::AllToAll:
        return {g.spansNodes() ? bytes * (n - perDomain) / n : 0.0, received};
    case Collective::PointToPoint: break;
    }
    return {};
}

namespace {

struct Counter
{
    TrafficFloor &floor;
    void add(FloorKind kind, Collective c, double bytes, const GroupPlacement &g, double times)
    {
        if (times > 0)
            floor.bytes[std::size_t(kind)] += collectiveFloorBytes(c, bytes, g) * times;
    }
};

double floorSeconds(const FloorBytes &b, const TrafficFloor &f)
{
    const double both = f.networkBytesPerSecond + f.scaleUpBytesPerSecond;
    return std::max(f.networkBytesPerSecond > 0 ? b.network / f.networkBytesPerSecond : 0.0,
                    both > 0 ? b.received / both : 0.0);
}

/// The data-parallel collectives of the pace stage; for ZeRO-3 also each pass's floor against its compute.
void dataParallelFloor(const Plan &plan, const ClusterLinks &links, const StateBytesPerParameter &q,
                       const StageMemory &stage, const StageTime &pace, Counter &count)
{
    const ParallelConfig &par = plan.parallel;
    const ReductionGroups g = reductionGroups(plan, links);
    const double dense = stage.parameterCount - stage.expertParameterCount, experts = stage.expertParameterCount;
    const double denseGathered = denseGatheredBytes(plan, stage.stage, dense, q);
    const double m = double(plan.microbatches());
    if (par.zeroStage >= 3) {
        const bool regather = plan.training.framework != Framework::Fsdp || par.reshardAfterForward;
        TrafficFloor forward = count.floor, backward = count.floor; // the rates; bytes start at zero
        forward.bytes = backward.bytes = {};
        Counter f{forward}, b{backward};
        for (Counter *c : {&f, &b}) {
            if (c == &b && !regather)
                continue;
            // ZeRO++ hpZ: the backward gathers the dense parameters inside the secondary group.
            const GroupPlacement &denseGroup = c == &b && g.secondary.size > 1 ? g.secondary : g.dense;
            c->add(FloorKind::ParameterGather, Collective::AllGather, denseGathered, denseGroup, 1.0);
            c->add(FloorKind::ParameterGather, Collective::AllGather, experts * q.gathered, g.experts, 1.0);
        }
        // Under PyTorch's pipelining FSDP2 reduce-scatters on each schedule run's last backward only
        // (DataParallel.cpp).
        const bool syncLastOnly =
            plan.training.framework == Framework::Fsdp && par.pipeline > 1 && plan.microbatchesPerRun() > 1;
        TrafficFloor reduce = count.floor;
        reduce.bytes = {};
        Counter r{reduce};
        r.add(FloorKind::GradientReduce, Collective::ReduceScatter, dense * q.reduced, g.dense, 1.0);
        r.add(FloorKind::GradientReduce, Collective::ReduceScatter, experts * q.reduced, g.experts, 1.0);
        if (g.replicas.size > 1) // HSDP: the reduced shard all-reduced across the replicas
            r.add(FloorKind::GradientReduce, Collective::AllReduce, dense * q.reduced / double(g.dense.size),
                  g.replicas, 1.0);
        const double reductions = syncLastOnly ? double(plan.scheduleRuns()) : m;
        FloorBytes fb, bb, rb;
        for (std::size_t k = 0; k < kFloorKindCount; ++k) {
            fb += forward.bytes[k];
            bb += backward.bytes[k];
            rb += reduce.bytes[k];
            count.floor.bytes[k] += (forward.bytes[k] + backward.bytes[k]) * m + reduce.bytes[k] * reductions;
        }
        FloorBytes bbWithReduce = bb;
        bbWithReduce += rb;
        const double fwdCompute = pace.forwardSeconds + pace.tensorCommForwardSeconds + pace.contextCommForwardSeconds +
                                  pace.expertCommForwardSeconds;
        const double bwdCompute = pace.microbatchSeconds() - fwdCompute - pace.pipelineCommSeconds;
        const double fwdPhase = std::max(fwdCompute, floorSeconds(fb, count.floor));
        count.floor.shardedPhasesSeconds = m * fwdPhase +
                                           reductions * std::max(bwdCompute, floorSeconds(bbWithReduce, count.floor)) +
                                           (m - reductions) * std::max(bwdCompute, floorSeconds(bb, count.floor));
        return;
    }
    const Collective reduce = par.zeroStage == 0 ? Collective::AllReduce : Collective::ReduceScatter;
    const double reductions = par.zeroStage >= 2 ? m : 1.0;
    count.add(FloorKind::GradientReduce, reduce, dense * q.reduced, g.dense, reductions);
    count.add(FloorKind::GradientReduce, reduce, experts * q.reduced, g.experts, reductions);
    if (par.zeroStage >= 1 && g.replicas.size > 1) // the partial distributed optimizer's shards across replicas
        count.add(FloorKind::GradientReduce, Collective::AllReduce, dense * q.reduced / double(g.dense.size),
                  g.replicas, reductions);
    if (par.zeroStage >= 1) {
        count.add(FloorKind::ParameterGather, Collective::AllGather, denseGathered, g.dense, 1.0);
        count.add(FloorKind::ParameterGather, Collective::AllGather, experts * q.gathered, g.experts, 1.0);
    }
}

/// The blocks of `stage` that all-gather and reduce-scatter over the tensor ranks once per pass: a transformer
/// layer's attention block and MLP, a MoE layer's attention block and shared experts; a hybrid model's attention,
/// Mamba and dense MLP blocks one each, its MoE blocks their shared experts'.
double tensorBlocksOnStage(const Plan &plan, std::int64_t stage)
{
    const ModelSpec &model = plan.model;
    if (model.isHybrid()) {
        const ModelSpec::BlockCounts b = plan.blocksOnStage(stage);
        return double(b.attention + b.mamba + b.denseMlp) + (moeLayerTensorBlocks(model) - 1.0) * double(b.moeMlp);
    }
    const double layers = double(plan.layersOnStage(stage)), moeLayers = double(plan.moeLayersOnStage(stage));
    return 2.0 * (layers - moeLayers) + moeLayerTensorBlocks(model) * moeLayers;
}

/// The per-layer collectives of the pace stage: tensor, context and expert parallelism, and the pipeline.
void layerFloor(const Plan &plan, const ClusterLinks &links, std::int64_t stage, Counter &count)
{
    const ModelSpec &model = plan.model;
    const TrainingConfig &t = plan.training;
    const ParallelConfig &par = plan.parallel;
    const double m = double(plan.microbatches());
    // The last stage's MoE multi-token-prediction modules exchange their tokens as its MoE layers do (the step
    // model's addOutputAndMtp).
    const double mtpMoe = stage == plan.parallel.pipeline - 1 ? double(model.mtpBlocks().moeMlp) : 0.0;
    const double moeLayers = double(plan.moeLayersOnStage(stage)) + mtpMoe;
    const double passes = 2.0 + plan.recomputedShare(stage); // forward, backward, the replayed forward
    const double q = activationElementBytes(t.precision);
    const double activation =
        q * double(model.seqLen) / double(par.context) * double(t.microBatch) * double(model.hidden);
    if (par.tensor > 1) {
        const double perLayer = passes * tensorBlocksOnStage(plan, stage) * m;
        if (t.sequenceParallel) {
            // Every pass at the forward's all-gather format, the narrowest a pass gathers in (gatherBytes).
            count.add(FloorKind::Tensor, Collective::AllGather, gatherBytes(plan, activation, true), links.tensorGroup,
                      perLayer);
            count.add(FloorKind::Tensor, Collective::ReduceScatter, activation, links.tensorGroup, perLayer);
        } else {
            count.add(FloorKind::Tensor, Collective::AllReduce, activation, links.tensorGroup, perLayer);
        }
    }
    if (const double gathered = expertTensorGatherBytes(plan); gathered > 0 && moeLayers > 0) {
        count.add(FloorKind::Tensor, Collective::AllGather, gathered, links.expertTensorGroup, passes * moeLayers * m);
        count.add(FloorKind::Tensor, Collective::ReduceScatter, gathered, links.expertTensorGroup,
                  passes * moeLayers * m);
    }
    if (par.context > 1) {
        const double kv = contextKvChunkBytes(plan), c = double(par.context);
        const double perLayer = double(plan.blocksOnStage(stage).attention) * m; // the attention blocks exchange
        switch (par.contextComm) {
        case ContextComm::Ring: // c - 1 steps forward (and replayed), K, V and their gradients backward
            count.add(FloorKind::Context, Collective::PointToPoint, kv, links.contextGroup,
                      (c - 1.0) * (passes - 1.0 + 2.0) * perLayer);
            break;
        case ContextComm::AllGather:
            count.add(FloorKind::Context, Collective::AllGather, kv * c, links.contextGroup, passes * perLayer);
            count.add(FloorKind::Context, Collective::ReduceScatter, kv * c, links.contextGroup, perLayer);
            break;
        case ContextComm::AllToAll: {
            const double tokens = double(model.seqLen) / c * double(t.microBatch);
            const double qkv = q * tokens * (double(model.qDim()) + 2.0 * double(model.kvDim())) / double(par.tensor);
            const double ctx = q * tokens * double(model.qDim()) / double(par.tensor);
            count.add(FloorKind::Context, Collective::AllToAll, qkv + ctx, links.contextGroup, passes * perLayer);
            break;
        }
        }
    }
    if (model.isMoe() && par.expert > 1 && moeLayers > 0) {
        const double tokenBytes = routedTokenBytes(plan);
        const double replay = t.recomputesMoeLayers() ? 3.0 : 2.0 + plan.recomputedShare(stage);
        const double times = 2.0 * replay * moeLayers * m; // dispatch and combine, each pass
        if (isFlexDispatcher(par.expertDispatcher)) {
            // One copy per remote destination node crosses the network and one per destination rank the
            // scale-up link (DeepEP's and HybridEP's deduplication).
            const GroupPlacement &g = links.expertGroup;
            const double remote = g.spansNodes() ? remoteDestinations(model, double(g.nodes()), t.expertRouting) : 0.0;
            const double copies = tokenBytes * remoteDestinations(model, double(g.size), t.expertRouting);
            count.floor.bytes[std::size_t(FloorKind::Expert)] += FloorBytes{tokenBytes * remote, copies} * times;
        } else {
            count.add(FloorKind::Expert, Collective::AllToAll, tokenBytes * double(model.expertsPerToken),
                      links.expertGroup, times);
        }
    }
    if (par.pipeline > 1) {
        // An activation in per chunk and micro-batch, and a gradient (the first stage's first chunk receives
        // no activation, the last stage's last chunk no gradient).
        const double boundary = activation / double(par.tensor);
        const double v = double(par.virtualStages);
        const double transfers = (stage == 0 || stage == par.pipeline - 1 ? 2.0 * v - 1.0 : 2.0 * v) * m;
        const bool crosses = pipelineSpan(par, plan.cluster.fabricGpus()).boundariesAcrossNodes > 0;
        count.floor.bytes[std::size_t(FloorKind::Pipeline)] +=
            FloorBytes{crosses ? boundary : 0.0, boundary} * transfers;
    }
}

} // namespace

double TrafficFloor::secondsOf(FloorKind k) const
{
    const FloorBytes &b = bytes[std::size_t(k)];
    if (k == FloorKind::Offload)
        return hostLinkBytesPerSecond > 0 ? b.received / hostLinkBytesPerSecond : 0.0;
    return floorSeconds(b, *this);
}

TrafficFloor trafficFloor(const Plan &plan, const DeviceSpec &device, const ClusterLinks &links,
                          const MemoryEstimate &memory, const StepEstimate &step)
{
    TrafficFloor floor;
    if (step.stages.empty() || memory.stages.empty())
        return floor;
    floor.networkBytesPerSecond = links.networkNominalBytesPerSecond;
    floor.scaleUpBytesPerSecond = plan.cluster.fabricGpus() > 1 ? links.intraNodeNominalBytesPerSecond : 0.0;
    floor.hostLinkBytesPerSecond = hostLinkBytesPerSecond(plan, device);
    const std::int64_t s = step.slowestStage;
    const StageMemory &stage = memory.stages[std::size_t(s)];
    const StateBytesPerParameter q = stateBytesPerParameter(plan.training);
    Counter count{floor};
    dataParallelFloor(plan, links, collectiveBytes(plan, q), stage, step.stages[std::size_t(s)], count);
    layerFloor(plan, links, s, count);
    if (const double share = plan.hostOptimizerShare(); share > 0) {
        const double shard = plan.parallel.optimizerParameters(stage.parameterCount - stage.expertParameterCount,
                                                               stage.expertParameterCount);
        // Megatron-Core's CPU optimizer moves FP32 main gradients and parameters (optimizerTime).
        const double perParameter = plan.training.framework == Framework::Megatron
                                        ? 2.0 * kFp32Bytes
                                        : q.gradients + q.parameters - q.lowPrecisionCopies;
        floor.bytes[std::size_t(FloorKind::Offload)].received += share * shard * perParameter;
    }
    if (plan.parallel.offloadParameters && plan.parallel.zeroStage == 3) { // each gather's shard uploaded first
        const bool regather = plan.training.framework != Framework::Fsdp || plan.parallel.reshardAfterForward;
        const double dense = stage.parameterCount - stage.expertParameterCount;
        const double shard = plan.parallel.shardedParameters(denseGatheredBytes(plan, stage.stage, dense, q),
                                                             stage.expertParameterCount * q.gathered);
        floor.bytes[std::size_t(FloorKind::Offload)].received +=
            shard * (regather ? 2.0 : 1.0) * double(plan.microbatches());
    }
    FloorBytes all{};
    for (std::size_t k = 0; k < kFloorKindCount; ++k)
        if (FloorKind(k) != FloorKind::Offload)
            all += floor.bytes[k];
    floor.linksSeconds = std::max(floorSeconds(all, floor), floor.secondsOf(FloorKind::Offload));
    floor.seconds = std::max(floor.linksSeconds, floor.shardedPhasesSeconds);
    double most = -1;
    for (std::size_t k = 0; k < kFloorKindCount; ++k)
        if (floor.secondsOf(FloorKind(k)) > most) {
            most = floor.secondsOf(FloorKind(k));
            floor.dominant = FloorKind(k);
        }
    return floor;
}

} // namespace trainplan
