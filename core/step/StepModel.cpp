#include "core/step/StepModel.h"

#include <algorithm>
#include <cmath>

#include "core/cluster/Topology.h"
#include "core/common/Units.h"
#include "core/compute/LayerOps.h"
#include "core/memory/ActivationMemory.h"
#include "core/memory/ModelState.h"

namespace trainplan {

namespace {

/// Host-side rate of a CPU optimizer step per GPU (ZeRO-Offload's CPU Adam): a share of the host's
/// memory bandwidth. An explicit assumption, shown in the Optimizer category.
constexpr double kHostUpdateBytesPerSecondPerGpu = 25e9;

struct Sums
{
    double forward = 0, backward = 0, recompute = 0;
    double computeBound = 0, memoryBound = 0; ///< kernel time by what limits it
    double recomputeFlops = 0;
};

void accumulate(Sums &s, const Op &op, double count)
{
    const double t = op.seconds * count;
    switch (op.pass) {
    case OpPass::Forward: s.forward += t; break;
    case OpPass::Backward: s.backward += t; break;
    case OpPass::Recompute:
        s.recompute += t;
        if (op.kind == OpKind::Matmul || op.kind == OpKind::Attention)
            s.recomputeFlops += op.flops * count;
        break;
    }
    (op.memoryBound ? s.memoryBound : s.computeBound) += t;
}

std::string percent(double part, double whole)
{
    return units::formatNumber(whole > 0 ? 100.0 * part / whole : 0.0, 0) + "%";
}

} // namespace

ClusterLinks clusterLinks(const Plan &plan, const DeviceSpec &device)
{
    const ClusterOverrides &o = plan.cluster.overrides;
    ClusterLinks links;
    links.intraNode.bandwidthBytesPerSecond =
        o.intraNodeBandwidthBytesPerSecond.value_or(device.intraNodeBandwidthBytesPerSecond) * device.intraNodeEfficiency;
    links.intraNode.latencySeconds = o.intraNodeLatencySeconds.value_or(device.intraNodeLatencySeconds);
    links.network.bandwidthBytesPerSecond =
        o.networkBandwidthBytesPerSecond.value_or(device.networkBandwidthBytesPerSecond) * device.networkEfficiency;
    links.network.latencySeconds = o.networkLatencySeconds.value_or(device.networkLatencySeconds);
    if (plan.cluster.gpusPerNode <= 1) // a "node" of one GPU has no scale-up link
        links.intraNode = links.network;

    // Megatron-LM's rank order: tensor ranks adjacent, then data, then pipeline (outermost); the worst
    // group of each kind sets the pace (core/cluster/Topology).
    const std::int64_t G = plan.cluster.gpusPerNode;
    const GroupSpan tensor = tensorGroupSpan(plan.parallel, G);
    const GroupSpan data = dataGroupSpan(plan.parallel, G);
    links.tensorGroup = {tensor.size, tensor.crossesNodes() ? tensor.minPerNode : tensor.size, links.intraNode, links.network};
    links.dataGroup = {data.size, data.crossesNodes() ? data.minPerNode : data.size, links.intraNode, links.network};
    links.pipelineLink = pipelineSpan(plan.parallel, G).boundariesAcrossNodes > 0 ? links.network : links.intraNode;
    return links;
}

StepEstimate estimateStep(const Plan &plan, const DeviceSpec &device, const MemoryEstimate &memory, bool simulatePipeline,
                          bool tensorWithinNode)
{
    const ModelSpec &m = plan.model;
    const TrainingConfig &tr = plan.training;
    const ParallelConfig &par = plan.parallel;
    const std::int64_t p = par.pipeline;
    const std::int64_t d = par.data;
    const double v = double(par.virtualStages);
    const double microbatches = double(plan.microbatches());
    const double layersPerStage = double(plan.layersPerStage());
    ClusterLinks links = clusterLinks(plan, device);
    if (tensorWithinNode)
        links.tensorGroup.perNode = links.tensorGroup.size;

    StepEstimate est;
    appendMicrobatchOps(plan, est.ops);
    Sums layer, embedding, output;
    double layerWeightGradient = 0, outputWeightGradient = 0; // half of each backward matmul (Qi et al. 2024)
    for (Op &op : est.ops) {
        timeOp(op, device, tr.precision);
        accumulate(op.scope == OpScope::Layer ? layer : op.scope == OpScope::Embedding ? embedding : output, op, 1.0);
        if (op.pass == OpPass::Backward && op.kind == OpKind::Matmul)
            (op.scope == OpScope::Layer ? layerWeightGradient : outputWeightGradient) += 0.5 * op.seconds;
    }

    // Tensor-parallel collectives per layer and micro-batch (Shoeybi et al. 2019; Korthikanti et al.
    // 2022): two all-reduces of the s b h activation forward and two backward; with sequence parallelism
    // each becomes an all-gather plus a reduce-scatter of the same tensor. Full recompute replays the
    // forward ones. The embedding and the output layer add one each.
    const double activation = activationElementBytes(tr.precision) * double(m.seqLen) * double(tr.microBatch) * double(m.hidden);
    double tpPerPass = 0;
    if (par.tensor > 1) {
        tpPerPass = tr.sequenceParallel
                        ? 2.0 * (bestCollective(Collective::AllGather, activation, links.tensorGroup).seconds
                                 + bestCollective(Collective::ReduceScatter, activation, links.tensorGroup).seconds)
                        : 2.0 * bestCollective(Collective::AllReduce, activation, links.tensorGroup).seconds;
    }
    const double tpLayer = 2.0 * tpPerPass + (tr.recompute == Recompute::Full ? tpPerPass : 0.0);
    const double tpEnds = tpPerPass; // embedding forward + output backward: half a layer's worth each

    // Pipeline: each rank receives an activation and a gradient per micro-batch and chunk; Megatron's
    // scatter/gather sends 1/t of it per tensor rank (Narayanan et al. 2021 Sec. 4.1). The blocking
    // send/receive occupies the stage.
    const double boundaryBytes = activation / double(par.tensor);
    const double p2pOneWay = p > 1 ? v * collectiveSeconds(Collective::PointToPoint, CollectiveAlgorithm::Ring, boundaryBytes,
                                                           {2, 1, links.pipelineLink, links.pipelineLink})
                                   : 0.0;
    const double p2p = 2.0 * p2pOneWay;

    // Per-stage micro-batch times; the slowest stage sets the pace.
    est.stages.resize(std::size_t(p));
    double slowest = -1;
    for (std::int64_t s = 0; s < p; ++s) {
        StageTime &st = est.stages[std::size_t(s)];
        st.forwardSeconds = layersPerStage * layer.forward;
        st.backwardSeconds = layersPerStage * layer.backward;
        st.recomputeSeconds = layersPerStage * layer.recompute;
        st.tensorCommSeconds = layersPerStage * tpLayer;
        st.tensorCommForwardSeconds = layersPerStage * tpPerPass + (s == 0 ? tpEnds : 0.0);
        st.weightGradientSeconds = layersPerStage * layerWeightGradient + (s == p - 1 ? outputWeightGradient : 0.0);
        if (s == 0) {
            st.forwardSeconds += embedding.forward;
            st.backwardSeconds += embedding.backward;
        }
        if (s == p - 1) {
            st.forwardSeconds += output.forward;
            st.backwardSeconds += output.backward;
        }
        if (s == 0 || s == p - 1)
            st.tensorCommSeconds += (s == 0 ? tpEnds : 0.0) + (s == p - 1 ? tpEnds : 0.0);
        st.pipelineCommSeconds = p2p;
        if (st.microbatchSeconds() > slowest) {
            slowest = st.microbatchSeconds();
            est.slowestStage = s;
        }
    }
    const StageTime &pace = est.stages[std::size_t(est.slowestStage)];

    // The pipeline part of the step: the simulated schedule's makespan, or the analytic bubble.
    double bubble = 0;
    if (p > 1) {
        bool simulated = false;
        if (simulatePipeline && plan.microbatches() <= (std::int64_t(1) << 24)) {
            PipelineInput in;
            in.schedule = par.schedule;
            in.stages = std::int32_t(p);
            in.microbatches = std::int32_t(plan.microbatches());
            in.chunks = std::int32_t(par.virtualStages);
            for (const StageTime &st : est.stages) {
                in.forwardSeconds.push_back(st.forwardSeconds + st.tensorCommForwardSeconds + p2pOneWay);
                in.backwardSeconds.push_back(st.backwardSeconds + st.recomputeSeconds + st.tensorCommSeconds
                                             - st.tensorCommForwardSeconds + p2pOneWay);
                in.weightGradientSeconds.push_back(st.weightGradientSeconds);
            }
            est.pipeline = trainplan::simulatePipeline(in);
            if (est.pipeline.valid) {
                bubble = std::max(0.0, est.pipeline.makespan - microbatches * pace.microbatchSeconds());
                est.bubbleFraction = est.pipeline.bubbleFraction;
                simulated = true;
            }
        }
        if (!simulated) {
            // Analytic: (p - 1)/v micro-batch times of the slowest stage (Narayanan et al. 2021); ZB-H1
            // drains without waiting for the weight gradients.
            const double perMicrobatch = pace.microbatchSeconds()
                                         - (par.schedule == Schedule::ZeroBubbleH1 ? pace.weightGradientSeconds : 0.0);
            bubble = double(p - 1) / v * perMicrobatch;
            est.bubbleFraction = bubble / (microbatches * pace.microbatchSeconds() + bubble);
        }
    }

    // Data-parallel synchronisation of the stage's gradients, in buckets.
    const StateBytesPerParameter perParam = stateBytesPerParameter(tr.precision, tr.optimizer, tr.fp32Gradients);
    const StageMemory &stageMemory = memory.stages[std::size_t(est.slowestStage)];
    const double localParameters = stageMemory.parameterCount;
    const double gradientBytes = localParameters * perParam.gradients;
    double dataExposed = 0;
    if (d > 1) {
        const double computePerMicrobatch = pace.forwardSeconds + pace.backwardSeconds + pace.recomputeSeconds;
        if (par.zeroStage >= 3) {
            // ZeRO-3: gather the parameters for forward and again for backward, reduce-scatter the
            // gradients, every micro-batch: 1.5x the data-parallel volume, overlapped with compute by
            // prefetching; the first unit's gather is never hidden.
            const double paramBytes = localParameters * perParam.parameters;
            const double gather = bestCollective(Collective::AllGather, paramBytes, links.dataGroup).seconds;
            const double scatter = bestCollective(Collective::ReduceScatter, gradientBytes, links.dataGroup).seconds;
            const double perMicrobatch = 2.0 * gather + scatter;
            const double firstUnit = gather / std::max(1.0, layersPerStage);
            dataExposed = microbatches * std::max(0.0, perMicrobatch - computePerMicrobatch) + firstUnit;
        } else {
            // Buckets of bucket_bytes: all-reduce (ZeRO 0) or reduce-scatter (ZeRO 1/2) as each fills
            // during the last backward; the last bucket never overlaps. ZeRO 1/2 then all-gather the
            // updated parameters after the optimizer step.
            const Collective reduce = par.zeroStage == 0 ? Collective::AllReduce : Collective::ReduceScatter;
            const double bucket = std::min(par.bucketBytes, gradientBytes);
            const double buckets = std::ceil(gradientBytes / bucket);
            const double perBucket = bestCollective(reduce, bucket, links.dataGroup).seconds;
            const double total = buckets * perBucket;
            const double window = pace.backwardSeconds + pace.recomputeSeconds;
            dataExposed = par.overlapGradReduce ? std::max(perBucket, total - window) : total;
            if (par.zeroStage >= 1)
                dataExposed += bestCollective(Collective::AllGather, localParameters * perParam.parameters, links.dataGroup).seconds;
        }
    }

    // Optimizer update on this GPU's shard; with offload, gradients go to the host and parameters come
    // back over PCIe, and the CPU does the update.
    const double shard = localParameters / (par.zeroStage >= 1 ? double(d) : 1.0);
    Op update = optimizerOp(plan, shard);
    timeOp(update, device, tr.precision);
    double optimizerSeconds = update.seconds;
    if (par.offloadOptimizer && device.hostLinkBandwidthBytesPerSecond > 0)
        optimizerSeconds = shard * (perParam.gradients + perParam.parameters) / device.hostLinkBandwidthBytesPerSecond
                           + update.bytes / kHostUpdateBytesPerSecondPerGpu;
    est.ops.push_back(update);

    auto &b = est.breakdown;
    b[std::size_t(TimeCategory::Compute)] = microbatches * (pace.forwardSeconds + pace.backwardSeconds);
    b[std::size_t(TimeCategory::Recompute)] = microbatches * pace.recomputeSeconds;
    b[std::size_t(TimeCategory::TensorComm)] = microbatches * pace.tensorCommSeconds;
    b[std::size_t(TimeCategory::PipelineComm)] = microbatches * pace.pipelineCommSeconds;
    b[std::size_t(TimeCategory::PipelineBubble)] = bubble;
    b[std::size_t(TimeCategory::DataComm)] = dataExposed;
    b[std::size_t(TimeCategory::Optimizer)] = optimizerSeconds;
    b[std::size_t(TimeCategory::Other)] = 0.0;
    for (double seconds : b)
        est.stepSeconds += seconds;

    // Throughput and FLOP accounting.
    const double gpus = double(plan.cluster.gpus());
    const double sequences = double(tr.globalBatch);
    est.tokensPerSecond = sequences * double(m.seqLen) / est.stepSeconds;
    est.validTokensPerSecond = est.tokensPerSecond * (1.0 - tr.paddingFraction);
    est.modelFlopsPerStep = 3.0 * modelForwardFlopsPerSequence(m) * sequences;
    const double microbatchesInJob = sequences / double(tr.microBatch);
    est.hardwareFlopsPerStep = est.modelFlopsPerStep
                               + layer.recomputeFlops * double(m.layers) * double(par.tensor) * microbatchesInJob;
    est.modelFlopsPerGpu = est.modelFlopsPerStep / (gpus * est.stepSeconds);
    est.hardwareFlopsPerGpu = est.hardwareFlopsPerStep / (gpus * est.stepSeconds);
    const double peak = device.peakFlops(tr.precision);
    est.mfu = peak > 0 ? est.modelFlopsPerGpu / peak : 0.0;
    est.hfu = peak > 0 ? est.hardwareFlopsPerGpu / peak : 0.0;

    // The limiting resource, with evidence.
    const double step = est.stepSeconds;
    if (!memory.fits) {
        const StageMemory &worst = memory.stages[std::size_t(memory.peakStage)];
        est.bottleneck = Bottleneck::Capacity;
        est.bottleneckEvidence = capacityEvidence(worst);
        return est;
    }
    // Kernel time split by what bounds each kernel, scaled to the step's compute + recompute time.
    Sums all = layer;
    all.computeBound = layersPerStage * layer.computeBound + embedding.computeBound + output.computeBound;
    all.memoryBound = layersPerStage * layer.memoryBound + embedding.memoryBound + output.memoryBound;
    const double kernels = b[std::size_t(TimeCategory::Compute)] + b[std::size_t(TimeCategory::Recompute)];
    const double kernelTotal = all.computeBound + all.memoryBound;
    const double arithmetic = kernelTotal > 0 ? kernels * all.computeBound / kernelTotal : 0.0;
    const double movement = kernels - arithmetic + optimizerSeconds;
    const double communication = b[std::size_t(TimeCategory::TensorComm)] + b[std::size_t(TimeCategory::PipelineComm)]
                                 + b[std::size_t(TimeCategory::DataComm)];
    const std::array<std::pair<Bottleneck, double>, 4> candidates{{{Bottleneck::Arithmetic, arithmetic},
                                                                  {Bottleneck::MemoryMovement, movement},
                                                                  {Bottleneck::Communication, communication},
                                                                  {Bottleneck::PipelineIdle, bubble}}};
    const auto worst = *std::max_element(candidates.begin(), candidates.end(),
                                         [](const auto &x, const auto &y) { return x.second < y.second; });
    est.bottleneck = worst.first;
    switch (worst.first) {
    case Bottleneck::Arithmetic:
        est.bottleneckEvidence = percent(arithmetic, step) + " of the step is compute-bound kernels; MFU " + percent(est.mfu, 1.0);
        break;
    case Bottleneck::MemoryMovement:
        est.bottleneckEvidence = percent(movement, step) + " of the step is bandwidth-bound kernels and the optimizer update";
        break;
    case Bottleneck::Communication:
        est.bottleneckEvidence = percent(communication, step) + " of the step is exposed communication (tensor "
                                 + percent(b[std::size_t(TimeCategory::TensorComm)], step) + ", pipeline "
                                 + percent(b[std::size_t(TimeCategory::PipelineComm)], step) + ", data "
                                 + percent(b[std::size_t(TimeCategory::DataComm)], step) + ")";
        break;
    case Bottleneck::PipelineIdle:
        est.bottleneckEvidence = percent(bubble, step) + " of the step is pipeline bubble";
        break;
    case Bottleneck::Capacity:
        break;
    }
    return est;
}

} // namespace trainplan
