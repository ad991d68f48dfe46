#include "core/step/StepModel.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>

#include "core/cluster/Topology.h"
#include "core/common/Units.h"
#include "core/compute/LayerOps.h"
#include "core/memory/ActivationMemory.h"
#include "core/memory/ModelState.h"
#include "core/step/DataParallel.h"
#include "core/step/MuonStep.h"

namespace trainplan {

namespace {

/// The format a kernel runs in: the plan's, except that the FP8/FP4 family keeps attention (unless
/// fp8_attention), the output projection and a MoE layer's router GEMM in BF16, as Transformer Engine recipes in
/// Megatron-Core do (only the transformer layers' linear layers are FP8 modules; the router is a plain GEMM,
/// moe/moe_utils.py RouterGatingLinearFunction).
Precision opPrecision(const TrainingConfig &training, const Op &op)
{
    if (!isLowPrecisionMatmul(training.precision))
        return training.precision;
    // The SSD scan's kernels (mamba_ssm's Triton kernels) compute in the activations' 16-bit format; so do the
    // modules a per-module recipe keeps in BF16 (training.bf16_attention_projections, bf16_latent_projections).
    if (op.kind == OpKind::Attention && !op.attentionCore)
        return Precision::BF16;
    const bool attentionProjection = op.role == OpRole::QkvProjection || op.role == OpRole::KeyProjection ||
                                     op.role == OpRole::OutputProjection;
    if ((training.bf16AttentionProjections && attentionProjection) ||
        (training.bf16LatentProjections && op.role == OpRole::LatentProjection))
        return Precision::BF16;
    const bool router = op.role == OpRole::Router && op.kind == OpKind::Matmul;
    if ((op.attentionCore && !training.fp8Attention) || (op.scope == OpScope::Output && op.kind == OpKind::Matmul) ||
        router)
        return Precision::BF16;
    // FP8 attention is E4M3 whatever the linear layers' format (cuDNN's FP8 fused attention).
    if (op.attentionCore)
        return Precision::FP8;
    return training.precision;
}

struct Sums
{
    double forward = 0, backward = 0, recompute = 0;
    double computeBound = 0, memoryBound = 0; ///< kernel time by what limits it
    double recomputeFlops = 0;
    double weightGradient = 0; ///< half of each backward matmul: what a zero-bubble schedule defers (Qi et al. 2024)
    double forwardLaunches = 0, backwardLaunches = 0; ///< kernels the host launches itself (not from a CUDA graph)
    double forwardEnqueues = 0, backwardEnqueues = 0; ///< kernels native code enqueues inside those launches
};

/// Whether the host launches an op itself: every op without CUDA graphs; with per-layer graphs the ops
/// outside the transformer layers and a mixture of experts' routed part after the router, unless a fixed
/// capacity gives that part static shapes: Megatron-Core graphs the MoE module only with drop-padding
/// ("moe cuda graph is only supported with drop-padding MoE", transformer_config.py at d98e8a6), and
/// Megatron-Bridge's token-drop runs pad every expert to its capacity (training/utils/moe_token_drop.py,
/// apply_moe_token_drop: capacity factor 1.0, moe_pad_expert_input_to_capacity, at r0.1.0); none with the
/// whole step captured; with the router graphed, all but the router and the permutation's preprocessing.
bool launchedEagerly(const Op &op, const TrainingConfig &t)
{
    switch (t.cudaGraphs) {
    case CudaGraphs::None: return true;
    case CudaGraphs::Router: return op.role != OpRole::Router;
    case CudaGraphs::Layers:
        return op.scope != OpScope::Layer ||
               (op.part == LayerPart::MoeMlp && op.role != OpRole::Router && !t.layerGraphsHoldExperts());
    case CudaGraphs::Step: return false;
    }
    return true;
}

void accumulate(Sums &s, const Op &op, double count, const TrainingConfig &training)
{
    if (launchedEagerly(op, training)) {
        (op.pass == OpPass::Forward ? s.forwardLaunches : s.backwardLaunches) += op.launches * count;
        (op.pass == OpPass::Forward ? s.forwardEnqueues : s.backwardEnqueues) += op.enqueues * count;
    }
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

} // namespace

double hostLaunchSeconds(const Plan &plan, const DeviceSpec &device)
{
    return plan.cluster.overrides.hostLaunchSeconds.value_or(device.hostLaunchSeconds);
}

double hostEnqueueSeconds(const Plan &plan, const DeviceSpec &device)
{
    return plan.cluster.overrides.hostEnqueueSeconds.value_or(device.hostEnqueueSeconds);
}

double flexDispatchEfficiency(const Plan &plan, const DeviceSpec &device)
{
    return plan.cluster.overrides.flexDispatchEfficiency.value_or(device.flexDispatchEfficiency);
}

double networkAllToAllEfficiency(const Plan &plan, const DeviceSpec &device)
{
    const double own = device.networkAllToAllEfficiency > 0 ? device.networkAllToAllEfficiency
                                                            : device.networkEfficiency;
    return plan.cluster.overrides.networkAllToAllEfficiency.value_or(own);
}

double ncclAllToAllScaleUpShare(double limit, double ranks)
{
    constexpr double kFewRanks = 0.836; // rapidsmpf#590's three points: 0.699, 0.496, 0.426 at 2, 4, 8 ranks
    return ranks > 1.0 ? std::min(1.0, limit * (1.0 + kFewRanks / (ranks - 1.0))) : 1.0;
}

/// The many-rank limit in force: the plan's, else the device's; 0 where neither has one.
double intraNodeAllToAllLimit(const Plan &plan, const DeviceSpec &device)
{
    return plan.cluster.overrides.intraNodeAllToAllEfficiency.value_or(device.intraNodeAllToAllEfficiency);
}

double intraNodeAllToAllShare(const Plan &plan, const DeviceSpec &device, double ranks)
{
    const double limit = intraNodeAllToAllLimit(plan, device);
    // Measured up to 8 ranks; a larger domain (an NVL72 rack) is held at the 8-rank share, not the law's limit.
    constexpr double kMeasuredRanks = 8.0;
    return limit > 0 ? ncclAllToAllScaleUpShare(limit, std::min(ranks, kMeasuredRanks)) : device.intraNodeEfficiency;
}

double intraNodeAllToAllEfficiency(const Plan &plan, const DeviceSpec &device)
{
    const double limit = intraNodeAllToAllLimit(plan, device);
    return limit > 0 ? limit : device.intraNodeEfficiency;
}

std::int64_t expertDispatchDomain(const Plan &plan)
{
    // DeepEP's normal kernels join at most 8 ranks over NVLink (NUM_MAX_NVL_PEERS, a static assert in
    // csrc/deep_ep.hpp at deepseek-ai/DeepEP e02e4d2) and reach the others through their RDMA path; Megatron-Core
    // builds its Buffer without allow_mnnvl (megatron/core/transformer/moe/fused_a2a.py), which keeps NVSHMEM off
    // multi-node NVLink (deep_ep/buffer.py: NVSHMEM_DISABLE_MNNVL). HybridEP and NCCL span the whole domain.
    constexpr std::int64_t deepEpNvlinkPeers = 8;
    const std::int64_t domain = plan.cluster.fabricGpus();
    return plan.parallel.expertDispatcher == ExpertDispatcher::DeepEp ? std::min(domain, deepEpNvlinkPeers) : domain;
}

double hostLinkBytesPerSecond(const Plan &plan, const DeviceSpec &device)
{
    return plan.cluster.overrides.hostLinkBandwidthBytesPerSecond.value_or(device.hostLinkBandwidthBytesPerSecond);
}

ClusterLinks clusterLinks(const Plan &plan, const DeviceSpec &device)
{
    const ClusterOverrides &o = plan.cluster.overrides;
    ClusterLinks links;
    links.intraNodeNominalBytesPerSecond =
        o.intraNodeBandwidthBytesPerSecond.value_or(device.intraNodeBandwidthBytesPerSecond);
    links.networkNominalBytesPerSecond =
        o.networkBandwidthBytesPerSecond.value_or(device.networkBandwidthBytesPerSecond);
    links.intraNode.bandwidthBytesPerSecond = links.intraNodeNominalBytesPerSecond * device.intraNodeEfficiency;
    links.intraNode.latencySeconds = o.intraNodeLatencySeconds.value_or(device.intraNodeLatencySeconds);
    links.network.bandwidthBytesPerSecond = links.networkNominalBytesPerSecond * device.networkEfficiency;
    links.network.latencySeconds = o.networkLatencySeconds.value_or(device.networkLatencySeconds);
    if (plan.cluster.fabricGpus() <= 1) { // a "node" of one GPU has no scale-up link
        links.intraNode = links.network;
        links.intraNodeNominalBytesPerSecond = links.networkNominalBytesPerSecond;
    }

    // Megatron-Core's rank order: tensor ranks adjacent, then context, then data, then pipeline (outermost); the worst
    // group of each kind sets the pace (core/cluster/Topology). The unit is the scale-up domain: a node,
    // or an NVL72 rack whose NVLink joins the GPUs of 18 trays.
    const std::int64_t G = plan.cluster.fabricGpus();
    const auto placed = [&links](const GroupSpan &span) {
        return GroupPlacement{span.size, span.crossesNodes() ? span.minPerNode : span.size, links.intraNode,
                              links.network};
    };
    links.tensorGroup = placed(tensorGroupSpan(plan.parallel, G));
    links.dataGroup = placed(dataGroupSpan(plan.parallel, G));
    links.shardGroup = placed(shardGroupSpan(plan.parallel, G));
    links.replicaGroup = placed(replicaGroupSpan(plan.parallel, G));
    links.hpzGroup = placed(hpzGroupSpan(plan.parallel, plan.secondaryGroupRanks(), G));
    links.contextGroup = placed(contextGroupSpan(plan.parallel, G));
    links.expertGroup = placed(expertGroupSpan(plan.parallel, expertDispatchDomain(plan)));
    links.expertTensorGroup = placed(expertTensorGroupSpan(plan.parallel, G));
    links.expertDataGroup = placed(expertDataGroupSpan(plan.parallel, G));
    // DeepEP's RDMA kernels reach the NIC's nominal rate (43-58 GB/s per 400 Gb/s port at expert 16-64, DeepEP
    // docs/legacy.md); NCCL's all-to-all, point to point through each sender's own NIC, its own calibrated share
    // (networkAllToAllEfficiency), not the rings', and inside the NVLink domain its measured share, which falls with
    // the ranks (intraNodeAllToAllShare). Inside the NVLink domain the flex dispatchers reach what their
    // authors measure of the scale-up link (flexDispatchEfficiency: near all of it on Hopper, about half of
    // NVLink 5 on Blackwell).
    GroupPlacement &e = links.expertGroup;
    if (G > 1 && isFlexDispatcher(plan.parallel.expertDispatcher)) {
        e.network.bandwidthBytesPerSecond = links.networkNominalBytesPerSecond;
        e.intraNode.bandwidthBytesPerSecond =
            links.intraNodeNominalBytesPerSecond * flexDispatchEfficiency(plan, device);
    } else if (G > 1) {
        e.network.bandwidthBytesPerSecond =
            links.networkNominalBytesPerSecond * networkAllToAllEfficiency(plan, device);
        e.intraNode.bandwidthBytesPerSecond =
            links.intraNodeNominalBytesPerSecond *
            intraNodeAllToAllShare(plan, device, double(e.ranksInNode()));
    }
    links.stageGroup = placed(stageGroupSpan(plan.parallel, G));
    links.pipelineLink = pipelineSpan(plan.parallel, G).boundariesAcrossNodes > 0 ? links.network : links.intraNode;
    return links;
}

double routedTokenBytes(const Plan &plan)
{
    const double tokens = double(plan.model.seqLen) / double(plan.parallel.context) *
                          double(plan.training.microBatch) / double(plan.parallel.tensor);
    return activationElementBytes(plan.training.precision) * tokens * double(plan.model.routedWidth()) *
           plan.training.busiestExpertLoad();
}

double expertTensorGatherBytes(const Plan &plan)
{
    const ModelSpec &model = plan.model;
    const ParallelConfig &par = plan.parallel;
    const double et = double(par.expertTensorSize());
    if (!model.isMoe() || model.moeLayers() == 0 || et <= 1 || isFlexDispatcher(par.expertDispatcher))
        return 0.0;
    // The copies that reached this rank (k per local token, the busiest rank's load), from each expert tensor rank.
    return routedTokenBytes(plan) * double(model.expertsPerToken) * et;
}

double gatherBytes(const Plan &plan, double activationBytes, bool forward)
{
    const TrainingConfig &t = plan.training;
    const double q = activationElementBytes(t.precision);
    if (forward && t.gathersActivationsInFloat8())
        return activationBytes / q;
    return activationBytes * savedLinearInputBytes(t) / q;
}

namespace {

/// The ops of one micro-batch, timed and summed by scope and pass.
struct MicrobatchSums
{
    Sums layer, embedding, output;
    Sums denseMlp, moeMlp; ///< mixture of experts: the MLP of one dense layer, of one MoE layer
    Sums mamba;            ///< a hybrid model's Mamba-2 block
    Sums moeRouter;        ///< of the MoE layer's MLP: the router and the routing before the dispatcher's counts
    double attentionForward = 0, attentionBackward = 0;       ///< one layer's attention core, each pass
    double linearForward = 0, linearBackward = 0;             ///< one layer's linear-layer GEMMs, each pass
};

/// Room for one micro-batch's ops (a mixture of experts with FP8 and recomputation lists about a hundred):
/// the vector is filled once, without growing.
constexpr std::size_t kOpsPerMicrobatchHint = 160;

MicrobatchSums timeMicrobatchOps(const Plan &plan, const DeviceSpec &device, std::vector<Op> &ops)
{
    appendMicrobatchOps(plan, ops);
    MicrobatchSums m;
    const AttentionKernel kernel = plan.training.attentionKernel;
    const double attentionShare = attentionKernelShare(kernel, device);
    for (Op &op : ops) {
        // A flash kernel computes a head on its own head dimension: the padded columns take time too. The attention
        // kernel's share and padding are the attention kernel's own (not the SSD scan's Triton kernels').
        const bool attentionKernel = op.kind == OpKind::Attention && op.attentionCore;
        const double padded = attentionKernel && op.inner > 0 ? op.inner / kernelHeadDim(kernel, op.inner) : 1.0;
        const Precision precision = opPrecision(plan.training, op);
        // torchao's rowwise float8: its FP8 GEMMs at the rowwise kernel's rate.
        const bool rowwise = plan.training.fp8Recipe == Fp8Recipe::Rowwise && precision == Precision::FP8 &&
                             op.kind == OpKind::Matmul;
        timeOp(op, device, precision, attentionKernel ? attentionShare * padded : 1.0,
               rowwise ? kRowwiseFp8GemmShare : 1.0);
        const bool dense = op.part == LayerPart::DenseMlp, moe = op.part == LayerPart::MoeMlp;
        const bool mamba = op.part == LayerPart::Mamba;
        Sums &layerSums = dense ? m.denseMlp : moe ? m.moeMlp : mamba ? m.mamba : m.layer;
        accumulate(op.scope == OpScope::Layer       ? layerSums
                   : op.scope == OpScope::Embedding ? m.embedding
                                                    : m.output,
                   op, 1.0, plan.training);
        if (moe && op.role == OpRole::Router && op.scope == OpScope::Layer)
            accumulate(m.moeRouter, op, 1.0, plan.training);
        if (op.pass == OpPass::Backward && op.kind == OpKind::Matmul && !op.attentionCore)
            (op.scope == OpScope::Layer ? layerSums.weightGradient : m.output.weightGradient) += 0.5 * op.seconds;
        if (op.attentionCore && op.pass != OpPass::Recompute)
            (op.pass == OpPass::Forward ? m.attentionForward : m.attentionBackward) += op.seconds;
        if (op.scope == OpScope::Layer && op.kind == OpKind::Matmul && !op.attentionCore &&
            op.pass != OpPass::Recompute)
            (op.pass == OpPass::Forward ? m.linearForward : m.linearBackward) += op.seconds;
    }
    return m;
}

/// A stage's blocks of each kind times one block's sums of that kind (`field` of Sums): a transformer's layers
/// times its attention block and its MLPs as ModelSpec::blocksIn counts them, a hybrid model's blocks each.
double stageSum(const MicrobatchSums &m, const ModelSpec::BlockCounts &b, double Sums::*field)
{
    return double(b.attention) * (m.layer.*field) + double(b.denseMlp) * (m.denseMlp.*field) +
           double(b.moeMlp) * (m.moeMlp.*field) + double(b.mamba) * (m.mamba.*field);
}

/// Exposed context-parallel communication of one layer and one micro-batch, forward and backward.
struct ContextExchange
{
    double forward = 0, backward = 0;
};

/// Ring (Megatron-Core's p2p): c - 1 steps, each passing one rank's K and V (s/c tokens) to the next
/// rank while the attention of the block in hand runs; a step is exposed by what its transfer takes
/// beyond the block's compute. Backward passes K, V and their gradients (twice the bytes) around the
/// ring beside the backward blocks (Liu et al. 2023, Ring Attention; Megatron-Core context_parallel).
/// All-gather (Llama 3): K and V of the whole sequence gathered before attention, gathered again and
/// their gradients reduce-scattered in backward, not overlapped. All-to-all (Ulysses): Q, K, V swapped
/// from sequence to head shards before attention and the context back after, in both passes.
ContextExchange contextExchange(const Plan &plan, const ClusterLinks &links, const MicrobatchSums &m)
{
    const std::int64_t c = plan.parallel.context;
    if (c <= 1)
        return {};
    const ModelSpec &model = plan.model;
    const double q = activationElementBytes(plan.training.precision);
    const double t = double(plan.parallel.tensor);
    const double localTokens = double(model.seqLen) / double(c) * double(plan.training.microBatch);
    const double kvChunk = contextKvChunkBytes(plan); // one rank's K and V
    const GroupPlacement &group = links.contextGroup;
    ContextExchange x;
    switch (plan.parallel.contextComm) {
    case ContextComm::Ring: {
        const LinkTier &link = group.spansNodes() ? group.network : group.intraNode;
        const GroupPlacement pair{2, 1, link, link};
        const double send = collectiveSeconds(Collective::PointToPoint, CollectiveAlgorithm::Ring, kvChunk, pair);
        const double sendBack =
            collectiveSeconds(Collective::PointToPoint, CollectiveAlgorithm::Ring, 2.0 * kvChunk, pair);
        const double steps = double(c - 1);
        x.forward = steps * std::max(0.0, send - m.attentionForward / double(c));
        x.backward = steps * std::max(0.0, sendBack - m.attentionBackward / double(c));
        break;
    }
    case ContextComm::AllGather: {
        const double gathered = kvChunk * double(c);
        const double gather = bestCollective(Collective::AllGather, gathered, group).seconds;
        if (plan.training.framework == Framework::Fsdp) {
            // PyTorch's ring attention with its all-gather rotater (torch/distributed/tensor/experimental/
            // _attention.py, _templated_ring_attention and _AllGatherRotater): the gather of every rank's K and V
            // starts before the first (diagonal) step and is waited for at the second, so it runs beside 1/c of the
            // attention; the backward gathers them again the same way and passes the K and V gradients, accumulated
            // in FP32 (_cp_options.convert_to_f32), one rank on around the ring beside each step
            // (_templated_ring_attention_backward: dkv_rotater, _RotateMethod.ALL_TO_ALL).
            const LinkTier &link = group.spansNodes() ? group.network : group.intraNode;
            const GroupPlacement pair{2, 1, link, link};
            const double gradients = kvChunk * kFp32Bytes / q;
            const double pass =
                collectiveSeconds(Collective::PointToPoint, CollectiveAlgorithm::Ring, gradients, pair);
            const double stepForward = m.attentionForward / double(c), stepBackward = m.attentionBackward / double(c);
            x.forward = std::max(0.0, gather - stepForward);
            x.backward = std::max(0.0, gather - stepBackward) + double(c) * std::max(0.0, pass - stepBackward);
            break;
        }
        x.forward = gather;
        x.backward = gather + bestCollective(Collective::ReduceScatter, gathered, group).seconds;
        break;
    }
    case ContextComm::AllToAll: {
        const double qkv =
            q * localTokens * (double(model.qDim()) + 2.0 * double(attentionKvDim(model, plan.training))) / t;
        const double context = q * localTokens * double(model.qDim()) / t;
        x.forward = bestCollective(Collective::AllToAll, qkv, group).seconds +
                    bestCollective(Collective::AllToAll, context, group).seconds;
        x.backward = x.forward;
        break;
    }
    }
    return x;
}

/// Tensor-parallel collectives of one layer's pass (Shoeybi et al. 2019; Korthikanti et al. 2022): two
/// all-reduces of the s b h activation; with sequence parallelism each becomes an all-gather plus a
/// reduce-scatter of the same tensor. `gatherBytes`: what each all-gather moves, the activation unless the
/// input is gathered in a narrower format.
double tensorSecondsPerPass(const Plan &plan, const ClusterLinks &links, double activationBytes, double gatherBytes)
{
    if (plan.parallel.tensor <= 1)
        return 0.0;
    return plan.training.sequenceParallel
               ? 2.0 * (bestCollective(Collective::AllGather, gatherBytes, links.tensorGroup).seconds
                        + bestCollective(Collective::ReduceScatter, activationBytes, links.tensorGroup).seconds)
               : 2.0 * bestCollective(Collective::AllReduce, activationBytes, links.tensorGroup).seconds;
}

/// The share of an overlapped collective's time that still costs the GEMMs it hides behind: the
/// communication kernels take streaming multiprocessors and memory bandwidth from them (Transformer
/// Engine's userbuffers run the exchange on a few SMs and split each GEMM into tensor-size chunks). An
/// explicit assumption (Wang et al. 2023, "Overlap communication with dependent computation", report
/// 10-20% of the hidden time recovered as slowdown); fitted range [0.05, 0.3].
constexpr double kOverlapInterference = 0.15;

/// What a collective of `comm` seconds costs when overlapped with `compute` seconds of kernels.
double overlappedCost(double comm, double compute)
{
    return std::max(0.0, comm - compute) + kOverlapInterference * std::min(comm, compute);
}

/// One layer's tensor-parallel collectives per pass. `backwardAsync`: the backward collectives a layer
/// launches asynchronously beside its own GEMMs. Megatron-Core's sequence-parallel linears (Transformer
/// Engine's and its own) start a column-parallel layer's all-gather of its input, which the weight gradient
/// needs, before the input-gradient GEMM, and the reduce-scatter of that input gradient before the
/// weight-gradient GEMM, and wait for each after it (transformer_engine/pytorch/module/linear.py at d0067d0,
/// _Linear.backward: gather_along_first_dim and reduce_scatter_along_first_dim with async_op=True;
/// megatron/core/tensor_parallel/layers.py, LinearWithGradAccumulationAndAsyncCommunication.backward); a
/// row-parallel layer all-gathers its output gradient before its GEMMs (`backward`).
struct TensorPass
{
    double forward = 0, backward = 0, backwardAsync = 0;
};

TensorPass tensorPass(const Plan &plan, const ClusterLinks &links, double activation)
{
    const double backwardGather = gatherBytes(plan, activation, false);
    const double forward = tensorSecondsPerPass(plan, links, activation, gatherBytes(plan, activation, true));
    const double backward = tensorSecondsPerPass(plan, links, activation, backwardGather);
    if (plan.training.framework != Framework::Megatron || !plan.training.sequenceParallel || plan.parallel.tensor <= 1)
        return {forward, backward, 0.0};
    // Per block: the column-parallel layer's all-gather and reduce-scatter beside its GEMMs, the row-parallel
    // layer's all-gather of the output gradient before them.
    const double gather = bestCollective(Collective::AllGather, backwardGather, links.tensorGroup).seconds;
    return {forward, 2.0 * gather, backward};
}

/// Tensor-parallel time one layer adds per pass: all of it, or with tensor_comm_overlap what the linear
/// layers' GEMMs of that pass do not hide (under FSDP2, async TP hides its share of that). All of it where the
/// overlap is lost to the device's queues (Plan::tensorOverlapLost), but the backward's asynchronous
/// collectives, which hide behind the column-parallel layers' backward GEMMs (taken as half the layer's).
struct TensorComm
{
    double forward = 0, backward = 0;
};
TensorComm tensorComm(const Plan &plan, const DeviceSpec &device, const MicrobatchSums &m, const TensorPass &pass)
{
    if (!plan.parallel.tensorCommOverlap || plan.parallel.tensor <= 1 || plan.tensorOverlapLost(device))
        return {pass.forward, pass.backward + overlappedCost(pass.backwardAsync, 0.5 * m.linearBackward)};
    const double hidden = plan.training.framework == Framework::Fsdp ? kTorchAsyncTpHiddenShare : 1.0;
    const auto cost = [hidden](double comm, double linear) {
        return comm - hidden * (comm - overlappedCost(comm, linear));
    };
    return {cost(pass.forward, m.linearForward), cost(pass.backward + pass.backwardAsync, m.linearBackward)};
}

TensorPass scaled(TensorPass p, double share)
{
    return {share * p.forward, share * p.backward, share * p.backwardAsync};
}

/// A MoE layer's tensor-parallel time per pass. Its attention block's all-gather and reduce-scatter are a dense
/// layer's (half of `forwardPerPass`); its routed MLP has none of them (Megatron-Core's MoE layer routes the
/// sequence-parallel tokens where they are), only shared experts run the dense MLP's, and with expert tensor
/// parallelism the dispatcher all-gathers the routed copies over the expert tensor ranks and reduce-scatters the
/// experts' outputs (expertTensorGatherBytes), on the compute stream: Transformer Engine's userbuffers overlap
/// covers its Linear layers, not the grouped experts.
TensorComm moeTensorComm(const Plan &plan, const DeviceSpec &device, const ClusterLinks &links, const MicrobatchSums &m,
                         const TensorPass &pass)
{
    const double share = moeLayerTensorBlocks(plan.model) / 2.0; // of a dense layer's two blocks
    TensorComm c = tensorComm(plan, device, m, scaled(pass, share));
    const double gathered = expertTensorGatherBytes(plan);
    if (gathered > 0) {
        const double exchange = bestCollective(Collective::AllGather, gathered, links.expertTensorGroup).seconds +
                                bestCollective(Collective::ReduceScatter, gathered, links.expertTensorGroup).seconds;
        c.forward += exchange;
        c.backward += exchange;
    }
    return c;
}

} // namespace

namespace {

/// Contiguous routing's mean count of `units` (each u = E / units consecutive experts) that a block of
/// L = min(k, E) consecutive experts spans. The units tile the E experts, so a block's wrap from the last expert
/// to the first falls on a unit boundary and the count depends only on where the block starts inside its unit,
/// r = t k mod u: ceil((r + L) / u), at most all units. The starts t k (mod E) the gate cycles through take every
/// multiple of gcd(k, u) below u equally often.
double contiguousBlockUnits(std::int64_t experts, std::int64_t k, std::int64_t units)
{
    const std::int64_t u = experts / units, length = std::min(k, experts), step = std::gcd(k, u);
    double spanned = 0;
    for (std::int64_t r = 0; r < u; r += step)
        spanned += double(std::min(units, (r + length + u - 1) / u));
    return spanned / double(u / step);
}

} // namespace

double distinctDestinationNodes(const ModelSpec &model, double nodes, ExpertRouting routing)
{
    const auto units = std::int64_t(std::llround(nodes));
    if (routing == ExpertRouting::Contiguous && units >= 1 && model.experts > 0 && model.expertsPerToken > 0 &&
        model.experts % units == 0)
        return contiguousBlockUnits(model.experts, model.expertsPerToken, units);
    double reachable = nodes;
    if (model.routerGroups > 0 && model.routerGroupTopk > 0 && model.routerGroupTopk < model.routerGroups)
        reachable = std::min(nodes, double(model.routerGroupTopk) *
                                        std::max(1.0, std::ceil(nodes / double(model.routerGroups))));
    const double k = double(model.expertsPerToken);
    return reachable * (1.0 - std::pow(1.0 - 1.0 / reachable, k));
}

double remoteDestinations(const ModelSpec &model, double units, ExpertRouting routing)
{
    return units > 1.0 ? distinctDestinationNodes(model, units, routing) * (units - 1.0) / units : 0.0;
}

namespace {

/// One dispatch (or combine) of DeepEP's normal kernels: a token crosses the network once per remote
/// destination node (at the NIC's nominal rate, which clusterLinks gives the expert group) and fans out to its
/// experts' GPUs over the scale-up link, once to each destination rank but its own (remoteDestinations); the
/// two paths run concurrently.
double deepEpSeconds(const ModelSpec &model, ExpertRouting routing, double tokenBytes, const GroupPlacement &g)
{
    const double inside =
        tokenBytes * remoteDestinations(model, double(g.size), routing) / g.intraNode.bandwidthBytesPerSecond;
    if (!g.spansNodes())
        return g.intraNode.latencySeconds + inside;
    const double nodes = double(g.nodes());
    const double outside = tokenBytes * remoteDestinations(model, nodes, routing) / g.network.bandwidthBytesPerSecond;
    return g.network.latencySeconds * std::ceil(std::log2(nodes)) + std::max(inside, outside);
}

/// Expert-parallel all-to-all of one MoE layer and micro-batch: the tokens sent to their experts' ranks
/// (dispatch) and the results back (combine) in the forward pass, the gradients both ways in backward; the
/// busiest rank's volume (imbalance) sets the time. Megatron-Core's all-to-all dispatcher sends each of
/// the k copies of a token separately; DeepEP (parallel.expert_dispatcher "deepep") one per node. Not
/// overlapped with compute (Megatron-Core overlaps it only in its combined 1F1B A2A schedule, which this
/// model does not plan).
double expertAllToAllPerPass(const Plan &plan, const ClusterLinks &links)
{
    const ModelSpec &model = plan.model;
    if (!model.isMoe() || plan.parallel.expert <= 1)
        return 0.0;
    const double tokenBytes = routedTokenBytes(plan);
    if (isFlexDispatcher(plan.parallel.expertDispatcher))
        return 2.0 * deepEpSeconds(model, plan.training.expertRouting, tokenBytes, links.expertGroup);
    return 2.0 *
           bestCollective(Collective::AllToAll, tokenBytes * double(model.expertsPerToken), links.expertGroup).seconds;
}

/// One layer's blocking collectives per micro-batch: tensor-parallel (each pass), context-parallel and the
/// expert all-to-all (one pass).
struct LayerComm
{
    TensorComm tensor; ///< a dense layer's
    ContextExchange context;
    double expert = 0;
    TensorComm moeTensor; ///< a MoE layer's (moeTensorComm)
};

/// One micro-batch's time of each kind of unit on the compute stream, blocking collectives included (full
/// recompute replays the forward ones in backward, as does the "moe" module the dispatch), and the
/// kernels' memory-bound share: what the data-parallel model and the host's launches are set against.
StageCompute unitCompute(const Plan &plan, const MicrobatchSums &m, const LayerComm &c)
{
    // Full recomputation of some layers (training.recompute_layers): the layers' mean.
    const double full = plan.recomputedShare();
    const double replay = plan.training.recompute == Recompute::Full ? full : 1.0; // the recompute ops' share
    const double replayA2A = plan.training.recomputesMoeLayers() ? 1.0 : full;
    const auto commonForward = [&](const TensorComm &tp) { return m.layer.forward + tp.forward + c.context.forward; };
    const auto commonBackward = [&](const TensorComm &tp) {
        return m.layer.backward + replay * m.layer.recompute + tp.backward + c.context.backward +
               full * (tp.forward + c.context.forward);
    };
    StageCompute s;
    s.denseLayer = {commonForward(c.tensor) + m.denseMlp.forward,
                    commonBackward(c.tensor) + m.denseMlp.backward + replay * m.denseMlp.recompute};
    s.moeLayer = {commonForward(c.moeTensor) + m.moeMlp.forward + c.expert,
                  commonBackward(c.moeTensor) + m.moeMlp.backward + replay * m.moeMlp.recompute +
                      c.expert * (1.0 + replayA2A)};
    // A hybrid model's blocks: the attention block the common part with half the layer's tensor-parallel time and
    // the context exchange, every other block half the tensor-parallel time, a MoE block the rest of the MoE layer's.
    const TensorComm half{0.5 * c.tensor.forward, 0.5 * c.tensor.backward};
    const TensorComm moeRest{c.moeTensor.forward - half.forward, c.moeTensor.backward - half.backward};
    const auto block = [&](const Sums &part, const TensorComm &tp) {
        return UnitTime{part.forward + tp.forward,
                        part.backward + replay * part.recompute + tp.backward + full * tp.forward};
    };
    s.attentionBlock = {commonForward(half), commonBackward(half)};
    s.mambaBlock = block(m.mamba, half);
    s.denseBlock = block(m.denseMlp, half);
    s.moeBlock = block(m.moeMlp, moeRest);
    s.moeBlock.forward += c.expert;
    s.moeBlock.backward += c.expert * (1.0 + replayA2A);
    s.embedding = {m.embedding.forward, m.embedding.backward};
    s.output = {m.output.forward, m.output.backward};
    const double kernels = m.layer.computeBound + m.layer.memoryBound + m.denseMlp.computeBound + m.denseMlp.memoryBound
                           + m.moeMlp.computeBound + m.moeMlp.memoryBound + m.mamba.computeBound + m.mamba.memoryBound;
    s.memoryBoundShare =
        kernels > 0
            ? (m.layer.memoryBound + m.denseMlp.memoryBound + m.moeMlp.memoryBound + m.mamba.memoryBound) / kernels
            : 0.0;
    return s;
}

/// The pace stage's compute per micro-batch, as the data-parallel model reads it.
StageCompute stageCompute(const Plan &plan, const MicrobatchSums &m, const LayerComm &c, const StageTime &pace)
{
    StageCompute s = unitCompute(plan, m, c);
    s.forward = pace.forwardSeconds + pace.tensorCommForwardSeconds + pace.contextCommForwardSeconds +
                pace.expertCommForwardSeconds + pace.hostForwardSeconds + pace.offloadForwardSeconds;
    s.backward = pace.microbatchSeconds() - s.forward - pace.pipelineCommSeconds;
    return s;
}

/// The host's launches of one micro-batch on a stage, against the GPU time they feed. The host runs ahead of
/// the GPU while its kernels are longer than their launches; over a pass the GPU waits for the host by what
/// the launches take beyond the kernels (Megatron-Core's step is launched from Python, kernel by kernel,
/// unless CUDA graphs replay it). A dropless mixture of experts makes the host wait for each MoE layer's token
/// counts (the dispatcher sizes its buffers from them), so each layer is a pass of its own there; a fixed
/// capacity (token drop, or the padding a whole-step graph needs) removes the wait. In the forward the wait
/// splits the layer: the host cannot launch the dispatch, the experts and the combine before the router's
/// counts are back ("A synchronization is needed before expert parallel AlltoAll communication to get the
/// `input_splits` and `output_splits` CPU values", megatron/core/transformer/moe/token_dispatcher.py), so the
/// attention block and router, and what follows the counts, each expose what their launches take beyond their
/// own kernels; the backward reuses the counts. Per-layer graphs cost one launch per layer and pass.
struct HostTime
{
    double forward = 0, backward = 0;
};

/// The host's figures for a plan: what a part's eager launches and enqueues take of the host per micro-batch and
/// pass, and (`host`) with the one launch a graphed part's replay costs.
struct HostCosts
{
    double launch = 0, enqueue = 0, replay = 0;
    double launches(const Sums &part, bool forward) const
    {
        return (forward ? part.forwardLaunches : part.backwardLaunches) * launch +
               (forward ? part.forwardEnqueues : part.backwardEnqueues) * enqueue;
    }
    double host(const Sums &part, bool forward) const { return launches(part, forward) + replay * launch; }
};

/// A hybrid model's stage: its blocks run one after another. A dropless MoE block makes the host wait for its counts,
/// which cuts the stage into segments, each the blocks since the previous MoE block and this one's router (the
/// non-MoE blocks spread evenly over the segments here), and what follows the counts, as a transformer's MoE layer
/// is cut; the embedding and output on their own. Each block is graphed on its own (one replay launch). `ends`: the
/// embedding's and output's host and GPU time per pass; `u`: the blocks' GPU time, blocking collectives included.
HostTime hybridHostExposure(const Plan &plan, const MicrobatchSums &m, const StageCompute &u, const HostCosts &c,
                            double expertA2A, std::int64_t stage, bool waits,
                            const std::array<std::pair<double, double>, 2> &ends)
{
    const ModelSpec::BlockCounts b = plan.blocksOnStage(stage);
    const double moe = double(b.moeMlp);
    HostTime t;
    for (const bool forward : {true, false}) {
        const auto gpu = [&](const UnitTime &unit) { return forward ? unit.forward : unit.backward; };
        const double hOther = double(b.attention) * c.host(m.layer, forward) +
                              double(b.mamba) * c.host(m.mamba, forward) +
                              double(b.denseMlp) * c.host(m.denseMlp, forward);
        const double gOther = double(b.attention) * gpu(u.attentionBlock) + double(b.mamba) * gpu(u.mambaBlock) +
                              double(b.denseMlp) * gpu(u.denseBlock);
        const double hMoe = c.host(m.moeMlp, forward), gMoe = gpu(u.moeBlock);
        const auto [hEnds, gEnds] = ends[forward ? 0 : 1];
        double exposed = std::max(0.0, hOther + moe * hMoe + hEnds - gOther - moe * gMoe - gEnds);
        if (waits && moe > 0) {
            const double hAfter = forward ? c.launches(m.moeMlp, true) - c.launches(m.moeRouter, true) : 0.0;
            const double gAfter = forward ? std::min(gMoe, m.moeMlp.forward - m.moeRouter.forward + expertA2A) : 0.0;
            exposed = moe * (std::max(0.0, hOther / moe + hMoe - hAfter - (gOther / moe + gMoe - gAfter)) +
                             std::max(0.0, hAfter - gAfter)) +
                      std::max(0.0, hEnds - gEnds);
        }
        (forward ? t.forward : t.backward) = exposed;
    }
    return t;
}

HostTime hostExposure(const Plan &plan, const DeviceSpec &device, const MicrobatchSums &m, const StageCompute &u,
                      double expertA2A, std::int64_t stage)
{
    const HostCosts c{hostLaunchSeconds(plan, device), hostEnqueueSeconds(plan, device),
                      plan.training.cudaGraphs == CudaGraphs::Layers || plan.training.cudaGraphs == CudaGraphs::Router
                          ? 1.0
                          : 0.0};
    if (!(c.launch > 0 || c.enqueue > 0) || plan.training.cudaGraphs == CudaGraphs::Step)
        return {};
    const double layers = double(plan.layersOnStage(stage)), moeLayers = double(plan.moeLayersOnStage(stage));
    const double denseLayers = layers - moeLayers;
    const auto layerHost = [&](const Sums &mlp, bool forward) {
        return c.host(m.layer, forward) + c.launches(mlp, forward);
    };
    const bool firstStage = stage == 0, lastStage = stage == plan.parallel.pipeline - 1;
    const auto ends = [&](bool forward) {
        const double hostEnds = (firstStage ? c.launches(m.embedding, forward) : 0.0)
                                + (lastStage ? c.launches(m.output, forward) : 0.0);
        const double gpuEnds = (firstStage ? (forward ? u.embedding.forward : u.embedding.backward) : 0.0)
                               + (lastStage ? (forward ? u.output.forward : u.output.backward) : 0.0);
        return std::pair{hostEnds, gpuEnds};
    };
    const bool waitsPerLayer = plan.model.isMoe() && moeLayers > 0 && !plan.training.capacityFactor;
    if (plan.model.isHybrid())
        return hybridHostExposure(plan, m, u, c, expertA2A, stage, waitsPerLayer, {ends(true), ends(false)});
    HostTime t;
    for (const bool forward : {true, false}) {
        const double hDense = layerHost(plan.model.isMoe() ? m.denseMlp : Sums{}, forward);
        const double hMoe = layerHost(m.moeMlp, forward);
        const double gDense = forward ? u.denseLayer.forward : u.denseLayer.backward;
        const double gMoe = forward ? u.moeLayer.forward : u.moeLayer.backward;
        const auto [hEnds, gEnds] = ends(forward);
        // The forward MoE layer in two parts around the counts: after them the routed MLP and the dispatch and
        // combine (one pass of the all-to-all), before them the rest.
        const double hAfter = forward ? c.launches(m.moeMlp, true) - c.launches(m.moeRouter, true) : 0.0;
        const double gAfter = forward ? std::min(gMoe, m.moeMlp.forward - m.moeRouter.forward + expertA2A) : 0.0;
        const double moeExposed =
            std::max(0.0, hMoe - hAfter - (gMoe - gAfter)) + std::max(0.0, hAfter - gAfter);
        const double exposed = waitsPerLayer ? denseLayers * std::max(0.0, hDense - gDense) + moeLayers * moeExposed +
                                                   std::max(0.0, hEnds - gEnds)
                                             : std::max(0.0, denseLayers * hDense + moeLayers * hMoe + hEnds -
                                                                 denseLayers * gDense - moeLayers * gMoe - gEnds);
        (forward ? t.forward : t.backward) = exposed;
    }
    return t;
}

/// What one MoE layer's dispatch and combine cost on the compute stream for one micro-batch: `a2a` is one
/// pass's dispatch and combine, `replayed` what recomputation adds. Without overlap all of it. With
/// parallel.expert_comm_overlap (Megatron-Core --overlap-moe-expert-parallel-comm with --delay-wgrad-compute)
/// the combined 1F1B schedule runs one micro-batch's forward beside another's backward, layer by layer
/// (megatron/core/models/common/model_chunk_schedule_plan.py): the backward combine beside the forward's
/// attention block, the forward dispatch beside the experts' backward (input gradients), the backward dispatch
/// beside the experts' weight gradients and forward, the forward combine beside the attention block's
/// backward. Each collective is exposed by what it takes beyond the compute it runs beside, and the hidden
/// part costs that compute the dispatcher's SMs (HybridEP 32, Megatron-Bridge's moe_hybridep_num_sms; DeepEP
/// 20, Megatron-Core's moe_deepep_num_sms; NCCL's all-to-all 16) of the device's. It needs two micro-batches
/// in flight; the replayed collectives stay exposed.
double expertOverlapCost(const Plan &plan, const DeviceSpec &device, const MicrobatchSums &m, double a2a,
                         double replayed)
{
    if (!plan.parallel.expertCommOverlap || plan.microbatches() < 2 || !(a2a > 0))
        return 2.0 * a2a + replayed;
    const double c = 0.5 * a2a; // one dispatch or one combine
    double attentionForward = m.layer.forward, attentionBackward = m.layer.backward + m.layer.recompute;
    if (plan.model.isHybrid()) {
        // A hybrid model's MoE block sits beside the blocks between it and the next: their mean share.
        ModelSpec::BlockCounts others = plan.model.blocksIn(0, plan.model.layers);
        const double segments = double(std::max<std::int64_t>(1, others.moeMlp));
        others.moeMlp = 0;
        const auto share = [&](double Sums::*field) { return stageSum(m, others, field) / segments; };
        attentionForward = share(&Sums::forward);
        attentionBackward = share(&Sums::backward) + share(&Sums::recompute);
    }
    const double expertsInput = m.moeMlp.backward + m.moeMlp.recompute - m.moeMlp.weightGradient;
    const double expertsRest = m.moeMlp.weightGradient + m.moeMlp.forward;
    const ExpertDispatcher d = plan.parallel.expertDispatcher;
    const double sms = d == ExpertDispatcher::HybridEp ? 32.0 : d == ExpertDispatcher::DeepEp ? 20.0 : 16.0;
    const double share = device.multiprocessors > 0 ? std::min(0.5, sms / device.multiprocessors) : 0.0;
    double cost = replayed;
    for (const double window : {attentionForward, expertsInput, expertsRest, attentionBackward})
        cost += std::max(0.0, c - window) + share * std::min(c, window);
    return cost;
}

/// A hybrid stage's tensor-parallel time (`backward`: every pass, `forward`: the forward's) from a dense and a MoE
/// layer's (`layer`, `moeLayer`, each {every pass, forward}): one all-gather and reduce-scatter pair per attention,
/// Mamba or dense MLP block (half a transformer layer's two); a MoE block's are its shared experts' and its
/// expert-tensor exchange, a MoE layer's less its attention block's half.
TensorComm hybridTensorComm(const ModelSpec::BlockCounts &b, std::pair<double, double> layer,
                            std::pair<double, double> moeLayer)
{
    const double pairs = double(b.attention + b.mamba + b.denseMlp), moe = double(b.moeMlp);
    return {0.5 * pairs * layer.second + moe * (moeLayer.second - 0.5 * layer.second),
            0.5 * pairs * layer.first + moe * (moeLayer.first - 0.5 * layer.first)};
}

/// Per-stage micro-batch times: the layers of the stage, the embedding on the first and the output on the
/// last, tensor-parallel collectives (forward and backward; full recompute replays the forward ones; the
/// embedding and the output layer add one each) and the point-to-point transfers.
/// Activation offload (training.activation_offload_layers; Megatron-Core's cpu_offloading): each offloaded
/// layer's stored tensors go to the host over the host link behind the next layer's forward and come back
/// ahead of its backward behind the previous layer's backward, on the copy engines; what a copy takes
/// beyond the layer it hides behind is exposed.
struct OffloadTime
{
    double forward = 0, backward = 0;
};
OffloadTime offloadExposure(const Plan &plan, const DeviceSpec &device, const StageActivations &a,
                            const StageCompute &u, std::int64_t stage)
{
    const double layers = double(a.offloadedLayers);
    const double link = hostLinkBytesPerSecond(plan, device);
    if (!(layers > 0) || !(link > 0) || !(a.offloadedBytes > 0) || !(a.microbatchesInFlight > 0))
        return {};
    const double copy = a.offloadedBytes / (layers * a.microbatchesInFlight) / link; // one layer, one micro-batch
    const double share = double(plan.moeLayersOnStage(stage)) / std::max(1.0, double(plan.layersOnStage(stage)));
    const double forward = (1.0 - share) * u.denseLayer.forward + share * u.moeLayer.forward;
    const double backward = (1.0 - share) * u.denseLayer.backward + share * u.moeLayer.backward;
    return {layers * std::max(0.0, copy - forward), layers * std::max(0.0, copy - backward)};
}

/// One MoE layer's expert all-to-all per micro-batch: a pass's dispatch and combine, what the step exposes of a
/// layer's, and the layer's in all (forward, backward and any replay).
struct LayerA2A
{
    double pass = 0, exposed = 0, layer = 0;
};

/// The last stage's output layer (its logits and loss) and the multi-token-prediction modules after the last layer
/// (Megatron-Core's MultiTokenPredictionBlock on the last stage): each an attention and an MLP block, its 2h -> h
/// projection left out (under 1% of a block), and its own logits and loss; a MoE module exchanges its tokens like
/// any MoE layer. The output layer's weight gradient is the stage's already.
/// The last stage's output layer and MTP modules; the MTP blocks at the BF16 sums (`bf16`) where a per-module recipe
/// keeps the modules in BF16 (training.bf16_mtp_modules).
void addOutputAndMtp(const Plan &plan, const MicrobatchSums &m, const std::optional<MicrobatchSums> &bf16,
                     const LayerA2A &a2a, StageTime &st)
{
    const MicrobatchSums &mtpSums = bf16 && keepsBf16Mtp(plan.model, plan.training) ? *bf16 : m;
    const ModelSpec::BlockCounts mtp = plan.model.mtpBlocks();
    const double heads = double(std::max<std::int64_t>(0, plan.model.mtpLayers));
    st.forwardSeconds += stageSum(mtpSums, mtp, &Sums::forward) + (1.0 + heads) * m.output.forward;
    st.backwardSeconds += stageSum(mtpSums, mtp, &Sums::backward) + (1.0 + heads) * m.output.backward;
    st.weightGradientSeconds += stageSum(mtpSums, mtp, &Sums::weightGradient) + heads * m.output.weightGradient;
    st.expertCommSeconds += double(mtp.moeMlp) * a2a.exposed;
    if (a2a.layer > 0)
        st.expertCommForwardSeconds += double(mtp.moeMlp) * a2a.pass * a2a.exposed / a2a.layer;
}

/// `a` with the share `w` of its values taken from `b` instead.
Sums mixed(const Sums &a, const Sums &b, double w)
{
    const auto mix = [&](double Sums::*f) { return (1.0 - w) * (a.*f) + w * (b.*f); };
    Sums s;
    for (double Sums::*f : {&Sums::forward, &Sums::backward, &Sums::recompute, &Sums::computeBound, &Sums::memoryBound,
                            &Sums::recomputeFlops, &Sums::weightGradient, &Sums::forwardLaunches,
                            &Sums::backwardLaunches, &Sums::forwardEnqueues, &Sums::backwardEnqueues})
        s.*f = mix(f);
    return s;
}

/// One block of each kind on `stage`, as the stage's blocks run on average: where training.bf16_layers_at_start /
/// _at_end keep some of them in BF16, their share of each kind at the BF16 sums (`bf16`), the rest at the plan's.
/// Every per-block figure of the stage (its compute, the host's launches against it) takes the mix.
MicrobatchSums stageSums(const Plan &plan, const MicrobatchSums &m, const std::optional<MicrobatchSums> &bf16,
                         std::int64_t stage)
{
    if (!bf16)
        return m;
    const ModelSpec::BlockCounts all = plan.blocksOnStage(stage), kept = plan.bf16BlocksOnStage(stage);
    const auto share = [](std::int64_t part, std::int64_t whole) {
        return whole > 0 ? double(part) / double(whole) : 0.0;
    };
    MicrobatchSums s = m;
    s.layer = mixed(m.layer, bf16->layer, share(kept.attention, all.attention));
    s.mamba = mixed(m.mamba, bf16->mamba, share(kept.mamba, all.mamba));
    s.denseMlp = mixed(m.denseMlp, bf16->denseMlp, share(kept.denseMlp, all.denseMlp));
    s.moeMlp = mixed(m.moeMlp, bf16->moeMlp, share(kept.moeMlp, all.moeMlp));
    s.moeRouter = mixed(m.moeRouter, bf16->moeRouter, share(kept.moeMlp, all.moeMlp));
    return s;
}

/// The sums of the layers training.bf16_layers_at_start / _at_end keep in BF16: the plan's ops timed again in BF16.
std::optional<MicrobatchSums> bf16LayerSums(const Plan &plan, const DeviceSpec &device)
{
    if (!plan.keepsBf16Layers() && !keepsBf16Mtp(plan.model, plan.training))
        return std::nullopt;
    Plan bf16 = plan;
    bf16.training.precision = Precision::BF16;
    std::vector<Op> ops;
    ops.reserve(kOpsPerMicrobatchHint);
    return timeMicrobatchOps(bf16, device, ops);
}

void stageTimes(const Plan &plan, const DeviceSpec &device, const MemoryEstimate &memory,
                const MicrobatchSums &planSums, const std::optional<MicrobatchSums> &bf16, const LayerComm &comm,
                double p2p, StepEstimate &est)
{
    const TensorComm &tp = comm.tensor, &moeTp = comm.moeTensor;
    const ContextExchange &cx = comm.context;
    const double expertA2A = comm.expert;
    const std::int64_t p = plan.parallel.pipeline;
    const double tpPerPass = tp.forward, tpEnds = tpPerPass; // embedding forward + output backward: half a layer each
    est.stages.resize(std::size_t(p));
    double slowest = -1;
    for (std::int64_t s = 0; s < p; ++s) {
        StageTime &st = est.stages[std::size_t(s)];
        const MicrobatchSums m = stageSums(plan, planSums, bf16, s);
        const StageCompute units = unitCompute(plan, m, comm);
        const double layersPerStage = double(plan.layersOnStage(s)); // uneven splits: this stage's own
        const double moeLayers = double(plan.moeLayersOnStage(s));
        const ModelSpec::BlockCounts blocks = plan.blocksOnStage(s);
        const bool hybrid = plan.model.isHybrid();
        // Full recomputation replays the forward of its share of the layers (training.recompute_layers),
        // selective recomputation its modules in every layer.
        const double full = plan.recomputedShare(s);
        const double replay = plan.training.recompute == Recompute::Full ? full : 1.0;
        const double tpLayer = tp.forward + tp.backward + full * tp.forward;
        const double moeTpLayer = moeTp.forward + moeTp.backward + full * moeTp.forward;
        st.forwardSeconds = stageSum(m, blocks, &Sums::forward);
        st.backwardSeconds = stageSum(m, blocks, &Sums::backward);
        st.recomputeSeconds = replay * stageSum(m, blocks, &Sums::recompute);
        // Full recompute and the "moe" module replay the forward dispatch and combine.
        const double a2aRecompute = (plan.training.recomputesMoeLayers() ? 1.0 : full) * expertA2A;
        const double a2aLayer = 2.0 * expertA2A + a2aRecompute;
        const double a2aExposed = expertOverlapCost(plan, device, m, expertA2A, a2aRecompute);
        st.expertCommSeconds = moeLayers * a2aExposed;
        st.expertCommForwardSeconds = a2aLayer > 0 ? moeLayers * expertA2A * a2aExposed / a2aLayer : 0.0;
        const TensorComm stageTp =
            hybrid ? hybridTensorComm(blocks, {tpLayer, tpPerPass}, {moeTpLayer, moeTp.forward})
                   : TensorComm{(layersPerStage - moeLayers) * tpPerPass + moeLayers * moeTp.forward,
                                (layersPerStage - moeLayers) * tpLayer + moeLayers * moeTpLayer};
        st.tensorCommSeconds = stageTp.backward;
        st.tensorCommForwardSeconds = stageTp.forward + (s == 0 ? tpEnds : 0.0);
        // Full recompute replays the forward exchange too. Attention blocks exchange keys and values.
        const double cxRecompute = full * cx.forward;
        const double attentionBlocks = double(blocks.attention);
        st.contextCommSeconds = attentionBlocks * (cx.forward + cx.backward + cxRecompute);
        st.contextCommForwardSeconds = attentionBlocks * cx.forward;
        st.weightGradientSeconds =
            stageSum(m, blocks, &Sums::weightGradient) + (s == p - 1 ? m.output.weightGradient : 0.0);
        if (s == 0) {
            st.forwardSeconds += m.embedding.forward;
            st.backwardSeconds += m.embedding.backward;
        }
        if (s == p - 1) {
            addOutputAndMtp(plan, m, bf16, {expertA2A, a2aExposed, a2aLayer}, st);
            // Megatron-Core's deferred output-layer weight gradients: the first micro-batches' GEMMs move from
            // their backward to the stage's drain (finish_embedding_wgrad_compute, schedules.py at d98e8a6).
            if (const std::int64_t deferred = plan.deferredWgradMicrobatches(); deferred > 0) {
                const double share = double(deferred) / double(plan.microbatchesPerRun());
                st.backwardSeconds -= share * m.output.weightGradient;
                st.weightGradientSeconds -= share * m.output.weightGradient;
                st.drainSeconds = double(deferred) * m.output.weightGradient;
            }
        }
        if (s == 0 || s == p - 1)
            st.tensorCommSeconds += (s == 0 ? tpEnds : 0.0) + (s == p - 1 ? tpEnds : 0.0);
        st.pipelineCommSeconds = p2p;
        const HostTime host = hostExposure(plan, device, m, units, expertA2A, s);
        st.hostForwardSeconds = host.forward;
        st.hostSeconds = host.forward + host.backward;
        if (std::size_t(s) < memory.stages.size()) {
            const OffloadTime offload =
                offloadExposure(plan, device, memory.stages[std::size_t(s)].activations, units, s);
            st.offloadForwardSeconds = offload.forward;
            st.offloadSeconds = offload.forward + offload.backward;
        }
        if (st.microbatchSeconds() > slowest) {
            slowest = st.microbatchSeconds();
            est.slowestStage = s;
        }
    }
}

/// The pipeline part of the step beyond m micro-batch times: the simulated schedule's makespan, or the
/// analytic bubble (p - 1)/v of the slowest stage (Narayanan et al. 2021; ZB-H1 drains without waiting
/// for the weight gradients), once per run of the schedule (training.schedule_microbatches: PyTorch's
/// pipelining fills and drains the pipeline for every local batch). Sets the bubble fraction and, when
/// simulated, the timeline of one run.
double pipelineBubble(const Plan &plan, double p2pOneWay, bool simulate, StepEstimate &est)
{
    const ParallelConfig &par = plan.parallel;
    const std::int64_t p = par.pipeline;
    if (p <= 1)
        return 0.0;
    const double microbatches = double(plan.microbatches()), runs = double(plan.scheduleRuns());
    const double perRun = double(plan.microbatchesPerRun());
    const StageTime &pace = est.stages[std::size_t(est.slowestStage)];
    if (simulate && plan.microbatchesPerRun() <= (std::int64_t(1) << 24)) {
        PipelineInput in;
        in.schedule = par.schedule;
        in.stages = std::int32_t(p);
        in.microbatches = std::int32_t(plan.microbatchesPerRun());
        in.chunks = std::int32_t(par.virtualStages);
        for (const StageTime &st : est.stages) {
            in.forwardSeconds.push_back(st.forwardSeconds + st.tensorCommForwardSeconds + st.contextCommForwardSeconds +
                                        st.expertCommForwardSeconds + st.hostForwardSeconds + st.offloadForwardSeconds +
                                        p2pOneWay);
            in.backwardSeconds.push_back(st.backwardSeconds + st.recomputeSeconds + st.tensorCommSeconds -
                                         st.tensorCommForwardSeconds + st.contextCommSeconds -
                                         st.contextCommForwardSeconds + st.expertCommSeconds -
                                         st.expertCommForwardSeconds + st.hostSeconds - st.hostForwardSeconds +
                                         st.offloadSeconds - st.offloadForwardSeconds + p2pOneWay +
                                         st.drainSeconds / perRun); // the simulator takes it from the first ones
            in.weightGradientSeconds.push_back(st.weightGradientSeconds);
            in.drainSeconds.push_back(st.drainSeconds);
        }
        in.drainMicrobatches = std::int32_t(std::max<std::int64_t>(1, plan.deferredWgradMicrobatches()));
        est.pipeline = trainplan::simulatePipeline(in);
        if (est.pipeline.valid) {
            est.bubbleFraction = est.pipeline.bubbleFraction;
            return runs * std::max(0.0, est.pipeline.makespan - perRun * pace.microbatchSeconds());
        }
    }
    // Qi et al. 2024, Table 1, with B the input gradient and W the weight gradient (the micro-batch's time is
    // F + B + W): 1F1B (p - 1)(F + B + W); ZB-H1, whose W fill the gaps, (p - 1)(F + B - W); ZB-H2, whose
    // deeper warm-up lets W fill the rest, (p - 1)(F + B - 2W). At least the forward ramp stays within one step.
    const double w = pace.weightGradientSeconds;
    const double fill = par.schedule == Schedule::ZeroBubbleH1   ? 2.0 * w
                        : par.schedule == Schedule::ZeroBubbleH2 ? 3.0 * w
                                                                 : 0.0;
    const double ramp = splitsBackward(par.schedule) ? pace.forwardSeconds : 0.0;
    const double perMicrobatch = std::max(pace.microbatchSeconds() - fill, ramp);
    // The last stage's deferred weight gradients wait for its last backward, then run while the stages before
    // it finish theirs: about (p - 1)/v backward passes of the pace.
    const StageTime &last = est.stages.back();
    const double chunkPasses = double(p - 1) / double(par.virtualStages);
    const double drainExposed =
        std::max(0.0, last.drainSeconds - chunkPasses * (pace.microbatchSeconds() - pace.forwardSeconds));
    const double bubble = runs * (chunkPasses * perMicrobatch + drainExposed);
    est.bubbleFraction = bubble / (microbatches * pace.microbatchSeconds() + bubble);
    return bubble;
}

/// FP8 with per-tensor (delayed) scaling: Transformer Engine all-reduces the amax of every FP8 tensor
/// across the amax-reduction group, the data x context x tensor ranks of a stage (Megatron-Core's
/// get_amax_reduction_group), when a forward fp8_autocast region closes and once in its backward
/// (transformer_engine/pytorch/fp8.py, FP8GlobalStateManager.reduce_and_update_fp8_tensors). Megatron-Core
/// opens one region per model chunk's forward (TransformerBlock), so a stage pays two small blocking
/// all-reduces per chunk and micro-batch: latency-bound, and more of it the more nodes the group spans.
/// Block-scaled formats (FP8 blockwise, MXFP8, NVFP4) compute their scales locally: none.
double fp8AmaxSyncSeconds(const Plan &plan, const ClusterLinks &links)
{
    const ParallelConfig &par = plan.parallel;
    // Delayed scaling alone reduces amax histories (PlanEnums.h, Fp8Recipe).
    if (plan.training.precision != Precision::FP8 || plan.training.fp8Recipe != Fp8Recipe::Delayed)
        return 0.0;
    // One FP32 amax per FP8 tensor: input, weight and gradient of each of a layer's four linear layers (a hybrid
    // model's block has two).
    const double layersPerChunk = double(plan.layersPerStage()) / double(par.virtualStages);
    const double linears = plan.model.isHybrid() ? 2.0 : 4.0;
    const double amaxBytes = 4.0 * 3.0 * linears * std::max(1.0, layersPerChunk);
    const double perRegion = bestCollective(Collective::AllReduce, amaxBytes, links.stageGroup).seconds;
    return double(plan.microbatches()) * 2.0 * double(par.virtualStages) * perRegion;
}

/// Throughput and FLOP accounting: tokens/s, model and hardware FLOPs, MFU and HFU.
void throughput(const Plan &plan, const DeviceSpec &device, const MicrobatchSums &m, StepEstimate &est)
{
    const ModelSpec &model = plan.model;
    const TrainingConfig &training = plan.training;
    const double gpus = double(plan.cluster.gpus());
    const double sequences = double(training.globalBatch);
    est.tokensPerSecond = sequences * double(model.seqLen) / est.stepSeconds;
    est.validTokensPerSecond = est.tokensPerSecond * (1.0 - training.paddingFraction);
    // Packed documents: the attention the ops do (LayerOps' span), not a whole sequence's.
    est.modelFlopsPerStep =
        3.0 * modelForwardFlopsPerSequence(model, false, attentionSpan(model, training)) * sequences;
    const double microbatchesInJob = sequences / double(training.microBatch);
    // Recomputed matmul FLOPs of one micro-batch through every layer (a transformer's attention blocks; a hybrid
    // model's blocks of every kind).
    const double recomputeFlops = model.isHybrid() ? stageSum(m, model.blocksIn(0, model.layers), &Sums::recomputeFlops)
                                                   : m.layer.recomputeFlops * double(model.layers);
    est.hardwareFlopsPerStep = est.modelFlopsPerStep + recomputeFlops * double(plan.parallel.tensor) *
                                                           double(plan.parallel.context) * microbatchesInJob;
    est.modelFlopsPerGpu = est.modelFlopsPerStep / (gpus * est.stepSeconds);
    est.hardwareFlopsPerGpu = est.hardwareFlopsPerStep / (gpus * est.stepSeconds);
    const double peak = device.peakFlops(training.precision);
    est.mfu = peak > 0 ? est.modelFlopsPerGpu / peak : 0.0;
    est.hfu = peak > 0 ? est.hardwareFlopsPerGpu / peak : 0.0;
}

double share(double part, double whole) { return whole > 0 ? part / whole : 0.0; }

/// The limiting resource, with its evidence. Kernel time is split by what bounds each kernel, scaled to
/// the step's compute + recompute time.
void limitingResource(const Plan &plan, const MemoryEstimate &memory, const MicrobatchSums &m, double optimizer,
                      StepEstimate &est)
{
    if (!memory.fits) {
        est.bottleneck = Bottleneck::Capacity;
        est.evidence = capacityEvidence(memory.stages[std::size_t(memory.peakStage)]);
        return;
    }
    const double layersPerStage = double(plan.layersPerStage());
    const auto &b = est.breakdown;
    const ModelSpec::BlockCounts blocks = plan.blocksOnStage(est.slowestStage);
    const bool hybrid = plan.model.isHybrid();
    const double computeBound =
        (hybrid ? stageSum(m, blocks, &Sums::computeBound) : layersPerStage * m.layer.computeBound) +
        m.embedding.computeBound + m.output.computeBound;
    const double memoryBound =
        (hybrid ? stageSum(m, blocks, &Sums::memoryBound) : layersPerStage * m.layer.memoryBound) +
        m.embedding.memoryBound + m.output.memoryBound;
    const double kernels = b[std::size_t(TimeCategory::Compute)] + b[std::size_t(TimeCategory::Recompute)];
    const double kernelTotal = computeBound + memoryBound;
    const double arithmetic = kernelTotal > 0 ? kernels * computeBound / kernelTotal : 0.0;
    const double movement = kernels - arithmetic + optimizer;
    const double communication = b[std::size_t(TimeCategory::TensorComm)] + b[std::size_t(TimeCategory::ContextComm)]
                                 + b[std::size_t(TimeCategory::ExpertComm)]
                                 + b[std::size_t(TimeCategory::PipelineComm)] + b[std::size_t(TimeCategory::DataComm)];
    const double bubble = b[std::size_t(TimeCategory::PipelineBubble)];
    const std::array<std::pair<Bottleneck, double>, 4> candidates{{{Bottleneck::Arithmetic, arithmetic},
                                                                  {Bottleneck::MemoryMovement, movement},
                                                                  {Bottleneck::Communication, communication},
                                                                  {Bottleneck::PipelineIdle, bubble}}};
    const auto worst = *std::max_element(candidates.begin(), candidates.end(),
                                         [](const auto &x, const auto &y) { return x.second < y.second; });
    const double step = est.stepSeconds;
    est.bottleneck = worst.first;
    est.evidence = {};
    est.evidence.share = share(worst.second, step);
    est.evidence.mfu = est.mfu;
    est.evidence.tensorShare = share(b[std::size_t(TimeCategory::TensorComm)], step);
    est.evidence.pipelineShare = share(b[std::size_t(TimeCategory::PipelineComm)], step);
    est.evidence.dataShare = share(b[std::size_t(TimeCategory::DataComm)], step);
    est.evidence.contextShare = share(b[std::size_t(TimeCategory::ContextComm)], step);
    est.evidence.expertShare = share(b[std::size_t(TimeCategory::ExpertComm)], step);
}

} // namespace

BottleneckEvidence capacityEvidence(const StageMemory &stage)
{
    BottleneckEvidence e;
    e.stage = stage.stage;
    e.peakBytes = stage.peakBytes;
    e.capacityBytes = stage.capacityBytes;
    return e;
}

StepEstimate estimateStep(const Plan &plan, const DeviceSpec &device, const MemoryEstimate &memory,
                          bool simulatePipeline, bool tensorWithinNode)
{
    const TrainingConfig &training = plan.training;
    const ParallelConfig &par = plan.parallel;
    ClusterLinks links = clusterLinks(plan, device);
    if (tensorWithinNode)
        links.tensorGroup.perNode = links.tensorGroup.size;

    StepEstimate est;
    est.ops.reserve(kOpsPerMicrobatchHint);
    const MicrobatchSums sums = timeMicrobatchOps(plan, device, est.ops);
    // One h-wide activation of this rank's tokens (s / context of each sequence).
    const double activation = activationElementBytes(training.precision) * double(plan.model.seqLen) /
                              double(par.context) * double(training.microBatch) * double(plan.model.hidden);
    // Pipeline: each rank receives an activation and a gradient per micro-batch and chunk; Megatron's
    // scatter/gather sends 1/t of it per tensor rank (Narayanan et al. 2021 Sec. 4.1). The blocking
    // send/receive occupies the stage.
    // With overlap_p2p_comm the transfer of one chunk runs beside the next chunk's compute (Megatron-LM's
    // default under the interleaved schedule, --no-overlap-p2p-communication to turn it off).
    const double boundaryBytes = activation / double(par.tensor);
    const double perChunk = par.pipeline > 1
                                ? collectiveSeconds(Collective::PointToPoint, CollectiveAlgorithm::Ring, boundaryBytes,
                                                    {2, 1, links.pipelineLink, links.pipelineLink})
                                : 0.0;
    const double chunkForward = (plan.model.isHybrid()
                                     ? stageSum(sums, plan.model.blocksIn(0, plan.model.layers), &Sums::forward) /
                                           double(par.pipeline)
                                     : double(plan.layersPerStage()) * sums.layer.forward) /
                                double(par.virtualStages);
    // Each model chunk's pass of a pipelined schedule waits on its receive, then the host launches the chunk:
    // the device's schedule-step overhead is exposed once per chunk pass (docs/CALIBRATION.md).
    const double scheduleStep = par.pipeline > 1 ? device.scheduleStepSeconds : 0.0;
    // Megatron-Core overlaps them only in its interleaved schedule (schedules.py: overlap_p2p_comm is read by
    // forward_backward_pipelining_with_interleaving alone, and Megatron-LM's arguments.py turns it off
    // without interleaving).
    const bool overlapP2p =
        par.overlapP2pComm && (training.framework != Framework::Megatron || par.virtualStages > 1);
    const double p2pOneWay =
        double(par.virtualStages) * ((overlapP2p ? overlappedCost(perChunk, chunkForward) : perChunk) + scheduleStep);
    const TensorPass tp = tensorPass(plan, links, activation);
    const LayerComm perLayer{tensorComm(plan, device, sums, tp), contextExchange(plan, links, sums),
                             expertAllToAllPerPass(plan, links), moeTensorComm(plan, device, links, sums, tp)};
    stageTimes(plan, device, memory, sums, bf16LayerSums(plan, device), perLayer, 2.0 * p2pOneWay, est);
    const StageTime &pace = est.stages[std::size_t(est.slowestStage)];
    const double bubble = pipelineBubble(plan, p2pOneWay, simulatePipeline, est);

    const StateBytesPerParameter perParam = stateBytesPerParameter(training);
    const StageMemory &paceMemory = memory.stages[std::size_t(est.slowestStage)];
    const DataParallelTime dp =
        dataParallelTime(plan, device, links, perParam, paceMemory, stageCompute(plan, sums, perLayer, pace));
    const double dataExposed = dp.exposedSeconds + fp8AmaxSyncSeconds(plan, links);
    const OptimizerTime optimizerStep = optimizerTime(plan, device, perParam, paceMemory,
                                                      pace.backwardSeconds + pace.recomputeSeconds, est.ops);
    const double optimizer = optimizerStep.seconds + muonTime(plan, device, links, est.slowestStage, est.ops).seconds();

    const double microbatches = double(plan.microbatches());
    auto &b = est.breakdown;
    b[std::size_t(TimeCategory::Compute)] = microbatches * (pace.forwardSeconds + pace.backwardSeconds);
    b[std::size_t(TimeCategory::Recompute)] = microbatches * pace.recomputeSeconds;
    b[std::size_t(TimeCategory::TensorComm)] = microbatches * pace.tensorCommSeconds;
    b[std::size_t(TimeCategory::ContextComm)] = microbatches * pace.contextCommSeconds;
    b[std::size_t(TimeCategory::ExpertComm)] = microbatches * pace.expertCommSeconds;
    b[std::size_t(TimeCategory::PipelineComm)] = microbatches * pace.pipelineCommSeconds;
    b[std::size_t(TimeCategory::PipelineBubble)] = bubble;
    b[std::size_t(TimeCategory::DataComm)] = dataExposed;
    b[std::size_t(TimeCategory::Optimizer)] = optimizer;
    b[std::size_t(TimeCategory::HostLaunch)] = microbatches * pace.hostSeconds;
    b[std::size_t(TimeCategory::ActivationOffload)] = microbatches * pace.offloadSeconds;
    b[std::size_t(TimeCategory::Other)] = 0.0;
    for (double seconds : b)
        est.stepSeconds += seconds;
    est.dataParallelHiddenSeconds = dp.hiddenSeconds;
    est.dataParallelSlowdownSeconds = dp.slowdownSeconds;
    est.hostUpdateSeconds = optimizerStep.hostUpdateSeconds;
    est.floor = trafficFloor(plan, device, links, memory, est);
    throughput(plan, device, sums, est);
    limitingResource(plan, memory, sums, optimizer, est);
    return est;
}

} // namespace trainplan
