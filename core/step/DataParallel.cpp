#include "core/step/DataParallel.h"

#include <algorithm>
#include <cmath>

#include "core/compute/LayerOps.h"
#include "core/step/Overlap.h"

namespace trainplan {

namespace {

/// A streaming kernel on the host (an offloaded Adam step: about 30 bytes moved per parameter for a dozen
/// FLOPs, far under a server CPU's ridge point) reaches this share of the DRAM channels' peak: STREAM
/// Triad on two-socket Xeon and EPYC servers reaches 70-80% (McCalpin's STREAM results). An explicit
/// assumption for DeepSpeed's CPUAdam (its own vectorised, OpenMP-threaded kernel), shown with the optimizer step.
constexpr double kHostStreamShare = 0.7;
/// PyTorch's fused CPU AdamW (torch.optim.AdamW(fused=True) on host tensors), the kernel Megatron-Core's
/// HybridDeviceOptimizer builds (megatron/core/optimizer/__init__.py) and FSDP2's CPU offload steps with,
/// measured: Megatron-Bridge's CPU-offloading study (skills/nemo-mbridge-perf-cpu-offloading/card.yaml at
/// 067f987df, Qwen3-30B-A3B at TP 2, PP 2, EP 4 on two 8-GPU H100 nodes, jobs 10611042-10609512) adds 3.19 s to a
/// 0.996 s step with every rank's 1.91 B-parameter shard stepped on the host, eight ranks to a two-socket Xeon
/// 8480C host: after the 15 GB of FP32 gradients and parameters over the host links, 53 GB of update traffic per
/// rank in about 2.9 s, 0.24 of the host's 614 GB/s. Read from that run alone; its 25%, 50% and 75% runs and the
/// memory each saved are the checks (tst_validation bridgeOptimizerOffloadStudy).
constexpr double kTorchCpuAdamStreamShare = 0.24;

double seconds(Collective c, double bytes, const GroupPlacement &g)
{
    return g.size > 1 && bytes > 0 ? bestCollective(c, bytes, g).seconds : 0.0;
}

/// Bytes one rank's collective moves through its HBM: what arrives is written, what leaves is read.
double hbmBytes(double bytes, const GroupPlacement &g)
{
    return g.size > 1 ? 2.0 * bytes * double(g.size - 1) / double(g.size) : 0.0;
}

/// A collective over both groups at once: the dense part over data x context, the experts' over their
/// expert-data group, one after the other on the rank's links.
struct Split
{
    double dense = 0, experts = 0; ///< buffer bytes
};

struct Accounting
{
    const ReductionGroups &groups;
    double hbmRate = 0;
    double hbm = 0; ///< bytes the collectives costed so far moved through HBM (per micro-batch or step)

    double cost(Collective c, const Split &b)
    {
        hbm += hbmBytes(b.dense, groups.dense) + hbmBytes(b.experts, groups.experts);
        return seconds(c, b.dense, groups.dense) + seconds(c, b.experts, groups.experts);
    }
    double hbmSeconds() const { return hbmRate > 0 ? hbm / hbmRate : 0.0; }
};

/// The group the slowdown is read from: the one spanning more of the cluster.
const GroupPlacement &widerGroup(const ReductionGroups &g)
{
    return g.experts.size > 1 && g.experts.spansNodes() && !g.dense.spansNodes() ? g.experts : g.dense;
}

/// ZeRO-3: the pace stage's units in forward order, each gathered and reduce-scattered on its own.
std::vector<ShardedUnit> shardedUnits(const Plan &plan, const StateBytesPerParameter &perParam,
                                      const StageMemory &stage, const StageCompute &compute, Accounting &acc,
                                      double uploadBytesPerSecond)
{
    const UnitParameters u = unitParameters(plan);
    std::vector<ShardedUnit> units;
    // `edge`: of the unit's dense parameters, those a low-precision gather leaves in 16 bits (the embedding,
    // the output layer).
    const auto add = [&](const UnitTime &time, Split params, double edge = 0.0) {
        ShardedUnit unit;
        unit.forwardSeconds = time.forward;
        unit.backwardSeconds = time.backward;
        const double dense = perParam.gatheredBytes(params.dense, edge);
        const double experts = perParam.gatheredBytes(params.experts);
        unit.gatherSeconds = acc.cost(Collective::AllGather, {dense, experts});
        // Parameter offload: the rank's shard of the unit comes up the host link before the gather can start.
        if (uploadBytesPerSecond > 0)
            unit.gatherSeconds += plan.parallel.shardedParameters(dense, experts) / uploadBytesPerSecond;
        // ZeRO++ hpZ: the backward gathers the dense parameters from the secondary copy inside its group.
        if (const GroupPlacement &hpz = acc.groups.secondary; hpz.size > 1) {
            unit.backwardGatherSeconds = seconds(Collective::AllGather, dense, hpz) +
                                         seconds(Collective::AllGather, experts, acc.groups.experts);
        }
        unit.reduceSeconds = acc.cost(Collective::ReduceScatter,
                                      {params.dense * perParam.reduced, params.experts * perParam.reduced});
        if (acc.groups.replicas.size > 1) { // HSDP: the reduced shard all-reduced across the replicas
            const double shard = params.dense * perParam.reduced / double(acc.groups.dense.size);
            acc.hbm += 2.0 * hbmBytes(shard, acc.groups.replicas);
            unit.reduceSeconds += seconds(Collective::AllReduce, shard, acc.groups.replicas);
        }
        units.push_back(unit);
    };
    const std::int64_t s = stage.stage, p = plan.parallel.pipeline;
    if (s == 0)
        add(compute.embedding, {u.embedding, 0.0}, u.embedding);
    const std::int64_t first = plan.firstLayerOfStage(s), count = plan.layersOnStage(s);
    units.reserve(std::size_t(count) + 2);
    for (std::int64_t l = first; l < first + count; ++l) {
        if (plan.model.isMoeLayer(l))
            add(compute.moeLayer, {u.moeLayer, u.moeLayerExperts});
        else
            add(compute.denseLayer, {u.denseLayer, 0.0});
    }
    if (s == p - 1)
        add(compute.output, {u.output, u.outputExperts}, u.outputVectors);
    return units;
}

/// ZeRO-3 / FSDP: every micro-batch gathers each unit for its forward (and, when the forward freed them,
/// again for its backward) and reduce-scatters its gradients. The gathers prefetch one unit ahead under
/// FSDP2 and DeepSpeed by default, under Megatron-FSDP with overlap_param_gather.
DataParallelTime shardedTime(const Plan &plan, const DeviceSpec &device, const ReductionGroups &groups,
                             const StateBytesPerParameter &perParam, const StageMemory &stage,
                             const StageCompute &compute)
{
    Accounting acc{groups, device.memoryBandwidthBytesPerSecond * device.memoryEfficiency.max};
    const double upload = plan.parallel.offloadParameters ? hostLinkBytesPerSecond(plan, device) : 0.0;
    const std::vector<ShardedUnit> units =
        shardedUnits(plan, collectiveBytes(plan, perParam), stage, compute, acc, upload);
    const Framework framework = plan.training.framework;
    const bool prefetch = framework != Framework::Megatron || plan.parallel.overlapParamGather;
    const bool regather = framework != Framework::Fsdp || plan.parallel.reshardAfterForward;
    const ShardedExposure x = shardedExposure(units, regather, prefetch);
    double once = 0; // one gather and one reduce-scatter of every unit: what `acc` counted the HBM bytes of
    for (const ShardedUnit &unit : units)
        once += unit.gatherSeconds + unit.reduceSeconds;
    // Per run of the pipeline schedule (training.schedule_microbatches; one run per step otherwise).
    const double m = double(plan.microbatchesPerRun()), runs = double(plan.scheduleRuns());
    // PyTorch's pipelining syncs FSDP2's gradients on a run's last backward only (stage.py,
    // backward_maybe_with_nosync): the other micro-batches gather and reduce nothing.
    const bool syncLastOnly = framework == Framework::Fsdp && plan.parallel.pipeline > 1 && m > 1;
    ShardedExposure y = x; // a micro-batch that also reduces, or (syncLastOnly) one that only gathers
    if (syncLastOnly) {
        std::vector<ShardedUnit> gathersOnly = units;
        for (ShardedUnit &unit : gathersOnly)
            unit.reduceSeconds = 0.0;
        y = shardedExposure(gathersOnly, regather, prefetch);
    }
    const double others = m - 1.0;
    const double hbmPerSecond = once > 0 ? acc.hbmSeconds() / once : 0.0;
    const auto slowdown = [&](const ShardedExposure &e) {
        return overlapSlowdown(e.hiddenSeconds, widerGroup(groups), device.multiprocessors,
                               hbmPerSecond * e.hiddenSeconds, compute.memoryBoundShare);
    };
    DataParallelTime t;
    t.commSeconds = runs * (x.commSeconds + others * y.commSeconds);
    t.hiddenSeconds = runs * (x.hiddenSeconds + others * y.hiddenSeconds);
    t.slowdownSeconds = runs * (slowdown(x) + others * slowdown(y));
    t.exposedSeconds = runs * (x.forward + x.backward + others * (y.forward + y.backward)) + t.slowdownSeconds;
    return t;
}

/// ZeRO 0-2: gradient buckets reduced as they fill during a backward (the last one never hidden); ZeRO-2
/// holds only its gradient shard and so reduce-scatters after every micro-batch's backward (DeepSpeed
/// stage 2), ZeRO 0 and 1 after the last one only. ZeRO 1-2 then gather the updated parameters, bucket by
/// bucket behind the next forward with overlap_param_gather.
DataParallelTime bucketedTime(const Plan &plan, const DeviceSpec &device, const ReductionGroups &groups,
                              const StateBytesPerParameter &perParam, const StageMemory &stage,
                              const StageCompute &compute)
{
    const ParallelConfig &par = plan.parallel;
    Accounting acc{groups, device.memoryBandwidthBytesPerSecond * device.memoryEfficiency.max};
    const Split params{stage.parameterCount - stage.expertParameterCount, stage.expertParameterCount};
    const Split gradients{params.dense * perParam.reduced, params.experts * perParam.reduced};
    const double gradientBytes = gradients.dense + gradients.experts;
    if (gradientBytes <= 0)
        return {};
    const Collective reduce = par.zeroStage == 0 ? Collective::AllReduce : Collective::ReduceScatter;
    // Each group's gradients in buckets of bucket_bytes, each bucket its own collective.
    double buckets = 0, lastBucket = 0;
    const auto bucketed = [&](double bytes, const GroupPlacement &group) {
        if (bytes <= 0 || group.size <= 1)
            return 0.0;
        const double bucket = std::min(par.bucketBytes, bytes), count = std::ceil(bytes / bucket);
        double each = seconds(reduce, bucket, group);
        if (&group == &groups.dense && groups.replicas.size > 1) { // each reduced shard across the replicas
            const double shard = bucket / double(group.size);
            each += seconds(Collective::AllReduce, shard, groups.replicas);
            acc.hbm += count * 2.0 * hbmBytes(shard, groups.replicas);
        }
        buckets += count;
        lastBucket = std::max(lastBucket, each);
        acc.hbm += hbmBytes(bytes, group);
        return count * each;
    };
    const double total = bucketed(gradients.dense, groups.dense) + bucketed(gradients.experts, groups.experts);
    if (buckets <= 0)
        return {};
    const double window = compute.backward;
    const double reductions = par.zeroStage >= 2 ? double(plan.microbatches()) : 1.0;
    const double exposedEach = par.overlapGradReduce ? std::max(lastBucket, total - window) : total;
    DataParallelTime t;
    t.commSeconds = reductions * total;
    double hidden = reductions * std::max(0.0, total - exposedEach);
    double hbm = reductions * acc.hbmSeconds() * (total > 0 ? std::max(0.0, total - exposedEach) / total : 0.0);
    t.exposedSeconds = reductions * exposedEach;
    if (par.zeroStage >= 1) {
        Accounting gatherAcc{groups, acc.hbmRate};
        const double dense = denseGatheredBytes(plan, stage.stage, params.dense, perParam);
        const double gather = gatherAcc.cost(Collective::AllGather, {dense, params.experts * perParam.gathered});
        const double exposed = par.overlapParamGather ? std::max(gather / buckets, gather - compute.forward) : gather;
        t.commSeconds += gather;
        t.exposedSeconds += exposed;
        hidden += gather - exposed;
        hbm += gather > 0 ? gatherAcc.hbmSeconds() * (gather - exposed) / gather : 0.0;
    }
    t.hiddenSeconds = hidden;
    t.slowdownSeconds =
        overlapSlowdown(hidden, widerGroup(groups), device.multiprocessors, hbm, compute.memoryBoundShare);
    t.exposedSeconds += t.slowdownSeconds;
    return t;
}

} // namespace

ReductionGroups reductionGroups(const Plan &plan, const ClusterLinks &links)
{
    // ZeRO-3 gathers and reduce-scatters inside the shard group: the data group, or HSDP's shard group; so does
    // Megatron-Core's partial distributed optimizer (ZeRO 1 with a shard group: "gradient ReduceScatters
    // occur within the distributed domain, followed by AllReduce in the non-distributed domain. Parameter
    // AllGathers are performed only within the distributed domain", Megatron-Bridge docs/performance-guide.md,
    // num_distributed_optimizer_instances).
    const bool sharded =
        plan.parallel.zeroStage >= 3 || (plan.parallel.zeroStage >= 1 && plan.parallel.shardReplicas() > 1);
    ReductionGroups g{sharded ? links.shardGroup : links.dataGroup, links.expertDataGroup, links.replicaGroup,
                      links.hpzGroup};
    if (!plan.model.isMoe())
        g.experts.size = g.experts.perNode = 1;
    return g;
}

bool gathersMxfp8ThroughGradientBuffer(const Plan &plan)
{
    const TrainingConfig &t = plan.training;
    return t.framework == Framework::Megatron && t.precision == Precision::MXFP8 && t.fp8ParamGather &&
           plan.parallel.zeroStage >= 1 && plan.parallel.zeroStage < 3;
}

StateBytesPerParameter collectiveBytes(const Plan &plan, StateBytesPerParameter perParam)
{
    if (gathersMxfp8ThroughGradientBuffer(plan))
        perParam.gathered = perParam.reduced;
    if (!plan.zeroPlusPlusAllowed())
        return perParam;
    if (plan.parallel.zeroQuantizedWeights) { // qwZ quantizes every weight it gathers
        perParam.gathered = std::min(perParam.gathered, 1.0);
        perParam.gatheredUnquantized = std::min(perParam.edgeGathered(), 1.0);
    }
    if (plan.parallel.zeroQuantizedGradients)
        perParam.reduced = std::min(perParam.reduced, 0.5);
    return perParam;
}

DataParallelTime dataParallelTime(const Plan &plan, const DeviceSpec &device, const ClusterLinks &links,
                                  const StateBytesPerParameter &perParam, const StageMemory &stage,
                                  const StageCompute &compute)
{
    const ReductionGroups groups = reductionGroups(plan, links);
    if (groups.dense.size <= 1 && groups.experts.size <= 1)
        return {};
    if (plan.parallel.zeroStage >= 3)
        return shardedTime(plan, device, groups, perParam, stage, compute);
    return bucketedTime(plan, device, groups, collectiveBytes(plan, perParam), stage, compute);
}

double hostAdamStreamShare(const Plan &plan)
{
    return plan.training.framework == Framework::DeepSpeed ? kHostStreamShare : kTorchCpuAdamStreamShare;
}

OptimizerTime optimizerTime(const Plan &plan, const DeviceSpec &device, const StateBytesPerParameter &perParam,
                            const StageMemory &stage, double backwardWindow, std::vector<Op> &ops)
{
    const ParallelConfig &par = plan.parallel;
    const double shard =
        par.optimizerParameters(stage.parameterCount - stage.expertParameterCount, stage.expertParameterCount);
    Op update = optimizerOp(plan, shard);
    timeOp(update, device, plan.training.precision);
    OptimizerTime t;
    t.seconds = update.seconds;
    if (isLowPrecisionMatmul(plan.training.precision)) {
        // The FP8/FP4 weight copies are refreshed once per step from the updated weights: read the
        // 16-bit (or, with fp8_param_gather, the FP32 master) weights, write both quantized copies.
        Op cast = weightCastOp(plan, stage.parameterCount);
        timeOp(cast, device, plan.training.precision);
        t.seconds += cast.seconds;
        ops.push_back(cast);
    }
    const ClusterOverrides &o = plan.cluster.overrides;
    const double hostLink = hostLinkBytesPerSecond(plan, device);
    const double share = plan.hostOptimizerShare();
    if (share > 0 && hostLink > 0) {
        const bool megatron = plan.training.framework == Framework::Megatron;
        // Megatron-Core's CPU optimizer copies its FP32 main gradients out and its FP32 main parameters back
        // (HybridDeviceOptimizer with param_update_in_fp32 over the distributed optimizer's FP32 shard); the
        // others move the gradients and the working parameters.
        const double offloaded = share * shard;
        const double toHost = offloaded * (megatron ? kFp32Bytes : perParam.gradients) / hostLink;
        const double back =
            offloaded * (megatron ? kFp32Bytes : perParam.parameters - perParam.lowPrecisionCopies) / hostLink;
        // DeepSpeed's ZeRO-Offload streams each gradient to the host as the backward produces it (Ren et
        // al. 2021, Sec. 4), and so does FSDP2's post-backward hook. Megatron-Core's CPU optimizer does not:
        // HybridDeviceOptimizer.step() makes its copy stream wait for the compute stream and only then
        // copies every gradient (megatron/core/optimizer/cpu_offloading/hybrid_optimizer.py, step and
        // _set_sub_optimizer_grads), so its copy to the host follows the backward.
        const double streamedBehind = megatron ? 0.0 : backwardWindow;
        t.transferSeconds = std::max(0.0, toHost - streamedBehind) + back;
        // Every GPU of the node updates its shard on the same host.
        const double hostMemory =
            o.hostMemoryBandwidthBytesPerSecond.value_or(device.hostMemoryBandwidthBytesPerSecond);
        const double streamShare = hostAdamStreamShare(plan);
        const double perGpuRate =
            hostMemory * streamShare / double(std::max<std::int64_t>(1, plan.cluster.gpusPerNode));
        t.hostUpdateSeconds = perGpuRate > 0 ? share * update.bytes / perGpuRate : 0.0;
        // --overlap-cpu-optimizer-d2h-h2d: a CPU optimizer per parameter, whose copies out and back run on their own
        // streams while the host steps the others; the longer of the copies and the update sets the pace.
        if (megatron && plan.parallel.overlapOffloadCopies)
            t.transferSeconds = std::max(0.0, toHost + back - t.hostUpdateSeconds);
        // The GPU steps the rest of the shard while the host waits for the copies and steps its share
        // (HybridDeviceOptimizer.step launches the GPU optimizer before it runs the CPU ones).
        const double onDevice = (1.0 - share) * update.seconds;
        t.seconds = t.transferSeconds + std::max(onDevice, t.hostUpdateSeconds) + (t.seconds - update.seconds);
    }
    ops.push_back(update);
    return t;
}

} // namespace trainplan
