#include "core/memory/MemoryModel.h"

#include <algorithm>
#include <cmath>

#include "core/common/Units.h"
#include "core/memory/ActivationMemory.h"
#include "core/memory/ModelState.h"
#include "core/model/ModelSpec.h"
#include "core/model/WeightMatrices.h"

namespace trainplan {

double lastStageEmbeddingCopy(const Plan &plan)
{
    const ModelSpec &m = plan.model;
    if (!m.tiedEmbeddings || plan.parallel.pipeline <= 1)
        return 0.0;
    return double(m.vocab) * double(m.hidden) / double(plan.parallel.tensor);
}

namespace {

/// The parameter counts every stage's are sums of: computed once per estimate rather than once per stage
/// (the search estimates hundreds of thousands of plans of up to a hundred stages).
struct ParameterShapes
{
    LayerParameters dense, moe, mtp;
    double embedding = 0; ///< on one tensor rank of the first stage
    double output = 0;    ///< on one tensor rank of the last stage: output layer, tied copy and MTP modules
    double outputVectors = 0; ///< of `output`, what is not a layer's weight matrix: output layer, copy, MTP norms
    /// A layer's replicated parameters that are not matrices (norms, biases): Muon's plans only.
    double denseVectors = 0, moeVectors = 0;
};

ParameterShapes parameterShapes(const Plan &plan)
{
    const ModelSpec &m = plan.model;
    const std::int64_t t = plan.parallel.tensor;
    ParameterShapes s;
    s.dense = layerParameters(m);
    s.moe = m.isMoe() ? layerParameters(m, m.denseLayers + m.moeLayerInterval - 1) : s.dense;
    s.mtp = mtpParameters(m);
    s.embedding = embeddingParameters(m).perTensorRank(t);
    s.outputVectors = outputParameters(m).perTensorRank(t) + lastStageEmbeddingCopy(plan) + s.mtp.replicated;
    s.output = s.outputVectors + s.mtp.sharded / double(t);
    if (plan.training.usesMuon()) { // only Muon's state may differ between matrices and the rest
        const std::array<LayerKind, 2> kinds = layerKinds(m, 0, m.layers);
        s.denseVectors = s.dense.replicated - replicatedMatrixParameters(m, kinds[0].layer);
        s.moeVectors = s.moe.replicated - replicatedMatrixParameters(m, kinds[1].layer);
    }
    return s;
}

/// Parameters held by one rank of pipeline stage `stage`: its layers (dense ones over the tensor ranks,
/// routed experts over expert x expert_tensor), the embedding on the first stage, and the final norm and
/// output projection on the last (with tied embeddings and more than one stage the last rank keeps its own
/// copy of the word embedding, as Megatron-LM does) with the MTP modules.
struct StageParameters
{
    double all = 0;     ///< every parameter on one rank of the stage
    double experts = 0; ///< the routed experts' share of them
    /// What Muon leaves to Adam (emerging_optimizers.py, _is_muon_excluded: embeddings, the output layer and
    /// parameters that are not 2-D): the embedding, the output side and the norms. The column-parallel biases
    /// (a hidden-size share of their matrices) are counted as matrices. Told apart for Muon's plans only.
    double notMatrices = 0;
};

StageParameters stageParameters(const Plan &plan, const ParameterShapes &shapes, std::int64_t stage)
{
    const ModelSpec &m = plan.model;
    const std::int64_t p = plan.parallel.pipeline;
    const std::int64_t count = plan.layersOnStage(stage);
    const double moe = double(m.moeLayersIn(plan.firstLayerOfStage(stage), count));
    const double dense = double(count) - moe;
    const std::int64_t t = plan.parallel.tensor;
    const std::int64_t shards = plan.parallel.expertShards();
    StageParameters out;
    if (m.isHybrid()) { // each block by its kind (Muon, the only reader of notMatrices, takes no hybrid model)
        const LayerParameters blocks = layersParameters(m, plan.firstLayerOfStage(stage), count);
        out.experts = blocks.expertPerRank(shards) + (stage == p - 1 ? shapes.mtp.expertPerRank(shards) : 0.0);
        out.all = blocks.perTensorRank(t) + (stage == 0 ? shapes.embedding : 0.0) +
                  (stage == p - 1 ? shapes.output : 0.0) + out.experts;
        return out;
    }
    out.experts =
        m.isMoe() ? moe * shapes.moe.expertPerRank(shards) + (stage == p - 1 ? shapes.mtp.expertPerRank(shards) : 0.0)
                  : 0.0;
    out.all = dense * shapes.dense.perTensorRank(t) + moe * shapes.moe.perTensorRank(t) +
              (stage == 0 ? shapes.embedding : 0.0) + (stage == p - 1 ? shapes.output : 0.0) + out.experts;
    out.notMatrices = dense * shapes.denseVectors + moe * shapes.moeVectors +
                      (stage == 0 ? shapes.embedding : 0.0) + (stage == p - 1 ? shapes.outputVectors : 0.0);
    return out;
}

} // namespace

UnitParameters unitParameters(const Plan &plan)
{
    const ParameterShapes shapes = parameterShapes(plan);
    const std::int64_t t = plan.parallel.tensor, shards = plan.parallel.expertShards();
    UnitParameters u;
    u.denseLayer = shapes.dense.perTensorRank(t);
    u.moeLayer = shapes.moe.perTensorRank(t);
    u.moeLayerExperts = plan.model.isMoe() ? shapes.moe.expertPerRank(shards) : 0.0;
    u.embedding = shapes.embedding;
    u.outputExperts = plan.model.isMoe() ? shapes.mtp.expertPerRank(shards) : 0.0;
    u.output = shapes.output;
    u.outputVectors = shapes.outputVectors;
    return u;
}

double denseGatheredBytes(const Plan &plan, std::int64_t stage, double dense, const StateBytesPerParameter &b)
{
    if (b.edgeGathered() == b.gathered)
        return dense * b.gathered;
    const UnitParameters u = unitParameters(plan);
    const double edge = std::min(dense, (stage == 0 ? u.embedding : 0.0) +
                                            (stage == plan.parallel.pipeline - 1 ? u.outputVectors : 0.0));
    return b.gatheredBytes(dense, edge);
}

double logitsPerMicrobatch(const Plan &plan)
{
    const ModelSpec &m = plan.model;
    return double(m.seqLen) / double(plan.parallel.context) * double(plan.training.microBatch) * double(m.vocab)
           / double(plan.parallel.tensor);
}

double lossBytesPerLogit(const Plan &plan)
{
    switch (plan.training.lossKernelInEffect()) {
    case LossKernel::InPlace:
        return 6.0; // the output layer's 16-bit logits beside the FP32 copy worked in place
    case LossKernel::Eager:
        // Split over the vocabulary, DTensor's loss parallel (torch/distributed/tensor/parallel/loss.py):
        // its backward holds the saved log-softmax, a zeroed gradient, exp of the log-softmax, their sum and
        // the product: 16 bytes. Whole, log-softmax's output, its gradient and the input's gradient: 12.
        return plan.parallel.tensor > 1 ? 16.0 : 12.0;
    case LossKernel::Fused:
    case LossKernel::TransformerEngine:
    case LossKernel::Auto:
        break;
    }
    return kFp32Bytes; // the FP32 logits themselves
}

double lossWorkspaceBytes(const Plan &plan)
{
    // Beyond the FP32 logits the last stage's activations count (outputActivationBytes).
    return (lossBytesPerLogit(plan) - kFp32Bytes) * logitsPerMicrobatch(plan);
}

/// Megatron-Core's deferred output-layer weight gradients (training.defer_embedding_wgrad): for each deferred
/// micro-batch the last stage keeps the output layer's 16-bit input (sequence-parallel shard) and its logit
/// gradients until the drain (grad_output_buffer and embedding_activation_buffer, megatron/core/tensor_parallel/
/// layers.py and models/gpt/gpt_model.py at d98e8a6).
double deferredWeightGradientBytes(const Plan &plan)
{
    const std::int64_t deferred = plan.deferredWgradMicrobatches();
    if (deferred <= 0)
        return 0.0;
    const ModelSpec &m = plan.model;
    const TrainingConfig &t = plan.training;
    const double tokens = double(m.seqLen) / double(plan.parallel.context) * double(t.microBatch);
    const double input = tokens * double(m.hidden) / (t.sequenceParallel ? double(plan.parallel.tensor) : 1.0);
    return double(deferred) * activationElementBytes(t.precision) * (logitsPerMicrobatch(plan) + input);
}

double keptPipelineOutputBytes(const Plan &plan)
{
    if (!plan.training.keepPipelineOutputs || plan.training.framework != Framework::Fsdp || plan.parallel.pipeline < 2)
        return 0.0;
    return (double(plan.microbatchesPerRun()) - 1.0) * activationElementBytes(plan.training.precision) *
           logitsPerMicrobatch(plan);
}

double contextKvChunkBytes(const Plan &plan)
{
    const ModelSpec &m = plan.model;
    return activationElementBytes(plan.training.precision) * double(m.seqLen) / double(plan.parallel.context)
           * double(plan.training.microBatch) * 2.0 * double(attentionKvDim(m, plan.training))
           / double(plan.parallel.tensor);
}

double contextKvBufferBytes(const Plan &plan)
{
    const ParallelConfig &par = plan.parallel;
    if (par.context <= 1)
        return 0.0;
    const ModelSpec &m = plan.model;
    const TrainingConfig &training = plan.training;
    const double q = activationElementBytes(training.precision);
    const double t = double(par.tensor);
    const double kvChunk = contextKvChunkBytes(plan);
    switch (par.contextComm) {
    case ContextComm::Ring:
        // Backward passes K, V and their gradients: a block in hand and one arriving, each 2x a KV chunk.
        return 4.0 * kvChunk;
    case ContextComm::AllGather:
        // The whole sequence's K and V (and, in backward, their gradients before the reduce-scatter).
        return 2.0 * kvChunk * double(par.context);
    case ContextComm::AllToAll:
        // Q, K, V and the context in both layouts while they are exchanged.
        return 2.0 * q * double(m.seqLen) / double(par.context) * double(training.microBatch)
               * (2.0 * double(m.qDim()) + 2.0 * double(attentionKvDim(m, training))) / t;
    }
    return 0.0;
}

namespace {

/// A unit ZeRO-3 gathers at once: its parameters on this rank and the bytes each is gathered in.
struct GatherUnit
{
    double parameters = 0;
    double bytes = 0;
};

/// The units ZeRO-3 gathers on this stage that may be its largest: a transformer layer (a mixture-of-experts
/// layer with this rank's share of its routed experts, which ZeRO-3 gathers over the expert-data group), the
/// embedding and the output matrix, which a low-precision gather leaves in 16 bits (edgeGathered).
std::vector<GatherUnit> gatherUnits(const Plan &plan, std::int64_t stage, const StateBytesPerParameter &b)
{
    const ModelSpec &m = plan.model;
    const std::int64_t t = plan.parallel.tensor;
    std::vector<GatherUnit> units;
    if (plan.layersOnStage(stage) > plan.moeLayersOnStage(stage))
        units.push_back({layerParameters(m).perTensorRank(t), b.gathered});
    if (plan.moeLayersOnStage(stage) > 0) {
        const LayerParameters moe = layerParameters(m, m.denseLayers + m.moeLayerInterval - 1);
        // Experts sharded over an expert-data group of one rank are whole already: nothing to gather.
        const double experts =
            plan.parallel.expertDataSize() > 1 ? moe.expertPerRank(plan.parallel.expertShards()) : 0.0;
        units.push_back({moe.perTensorRank(t) + experts, b.gathered});
    }
    if (stage == 0)
        units.push_back({embeddingParameters(m).perTensorRank(t), b.edgeGathered()});
    if (stage == plan.parallel.pipeline - 1)
        units.push_back({outputParameters(m).perTensorRank(t) + lastStageEmbeddingCopy(plan), b.edgeGathered()});
    return units;
}

/// The most any one unit holds at once with `perParameter` bytes beside its gathered copies (`copies` of them).
double largestGathered(const std::vector<GatherUnit> &units, double copies, double perParameter)
{
    double most = 0;
    for (const GatherUnit &u : units)
        most = std::max(most, (copies * u.bytes + perParameter) * u.parameters);
    return most;
}

using Terms = std::array<double, kOtherTermCount>;

/// What every stage of a plan shares.
struct StageInputs
{
    StateBytesPerParameter perParam;
    double perLayer = 0;               ///< stored activations of one layer, one micro-batch
    HybridBlockActivations hybrid;     ///< a hybrid model's: of one block of each kind, one micro-batch
    double moeExtra = 0;               ///< what a MoE layer stores beyond that
    /// What one block of each kind stores beyond that when training.bf16_layers_at_start / _at_end keep it in BF16
    /// (its linear layers' inputs saved in 16 bits, not in the quantized copy), one micro-batch.
    HybridBlockActivations bf16Extra;
    double pendingPerLayer = 0;        ///< zero-bubble: what a layer keeps for a deferred W, one micro-batch
    double pendingPerMoeLayer = 0;     ///< the same for a mixture-of-experts layer
    /// Full recomputation of only some layers (training.recompute_layers): what each of the other layers
    /// stores, as without recomputation.
    double perLayerKept = 0, moeExtraKept = 0;
    double embeddingPerMicrobatch = 0;
    double outputPerMicrobatch = 0;
    double recomputeWorkspace = 0;
    double runtimeContext = 0;
    double boundaryTensor = 0;         ///< one pipeline send or receive buffer
    double contextKvBuffers = 0;       ///< K and V blocks of other context ranks in flight (one layer)
    double replicas = 1;               ///< ranks sharing the gradient reduction and ZeRO: data x context
    double shards = 1;                 ///< ranks the ZeRO state is split over: replicas, or HSDP's shard group
    bool zeroGathers = false;          ///< ZeRO-3 gathers parameters (more than one replica)
    double backwardWorkspace = 0;      ///< gradients one layer's backward holds at once
    double roundingPerLayer = 0;       ///< allocator rounding of one layer's stored tensors, one micro-batch
    double ncclBuffers = 0;            ///< NCCL buffers of every communicator but the pipeline's
    double ncclPerPipelinePeer = 0;    ///< NCCL buffers per neighbouring pipeline stage
    double libraryWorkspaces = 0;
    double lossWorkspace = 0;          ///< the cross-entropy's buffers beyond the stored FP32 logits (last stage)
    double deferredWeightGradients = 0; ///< deferred output-layer wgrad buffers (last stage)
    ParameterShapes parameters;        ///< what each stage's parameter count is made of
};


/// Allocator rounding of one layer's stored tensors for one micro-batch, each rounded as the caching
/// allocator rounds it.
double layerRoundingBytes(const LayerStoredTensors &layer)
{
    double waste = 0;
    for (std::size_t k = 0; k < layer.partBytes.size(); ++k)
        if (layer.unitBytes[k] > 0 && layer.partBytes[k] > 0)
            waste += layer.partBytes[k] / layer.unitBytes[k] *
                     (allocatorBlockBytes(layer.unitBytes[k]) - layer.unitBytes[k]);
    return waste;
}

/// NCCL's buffers for one communicator: per channel one receive connection of each protocol (NCCL
/// defaults: Simple NCCL_BUFFSIZE 4 MiB; LL128 120 x 640 x 8 x 8 B; LL 8 x 512 x 8 x 16 B).
double ncclCommunicatorBytes(bool crossesDomains)
{
    constexpr double kConnection = 4.0 * units::MiB + 120.0 * 640 * 8 * 8 + 8.0 * 512 * 8 * 16;
    return (crossesDomains ? 8.0 : 16.0) * kConnection;
}

/// DeepEP's normal-mode buffers for an expert group of `ranks` (parallel.expert_dispatcher "deepep"), allocated
/// outside the caching allocator: per channel (half of Megatron-Core's moe_deepep_num_sms, 20) and per NVLink
/// peer, the chunked receive tokens with their top-k indices, weights and scales (128 x 8 + 128 x 4 + 128 x 4
/// bytes); across nodes the same again per RDMA peer, twice (DeepEP csrc/config.hpp get_nvl_buffer_size_hint
/// and get_rdma_buffer_size_hint; receive depths 256 / 288 / 560 NVLink and 128 RDMA tokens from
/// Buffer.get_dispatch_config at <= 8, 16-64 and >= 128 ranks). DeepSeek-V3 at expert 64: 0.66 GiB.
double deepEpBufferBytes(const Plan &plan)
{
    const double ranks = double(plan.parallel.expert);
    if (!isFlexDispatcher(plan.parallel.expertDispatcher) || ranks <= 1) // HybridEP's buffers taken as DeepEP's
        return 0.0;
    constexpr double kChannels = 10.0, kNvlPeers = 8.0, kRdmaRecvTokens = 128.0;
    const double token =
        activationElementBytes(plan.training.precision) * double(plan.model.routedWidth()) + 128.0 * (8.0 + 4.0 + 4.0);
    const double nvlRecvTokens = ranks <= kNvlPeers ? 256.0 : ranks < 128 ? 288.0 : 560.0;
    const double nvl = kChannels * std::min(ranks, kNvlPeers) * nvlRecvTokens * token;
    const double rdma = ranks > kNvlPeers ? kChannels * (ranks / kNvlPeers) * kRdmaRecvTokens * 2.0 * token : 0.0;
    return nvl + rdma;
}

/// Every communicator one rank uses, in Megatron-Core's rank order (tensor, context, data, pipeline): a
/// group crosses scale-up domains when its span of consecutive ranks exceeds one domain.
double ncclBytes(const Plan &plan)
{
    const ParallelConfig &par = plan.parallel;
    const double domain = double(plan.cluster.fabricGpus());
    const double t = double(par.tensor), c = double(par.context), d = double(par.data);
    double bytes = 0;
    const auto add = [&](double size, double span) {
        if (size > 1)
            bytes += ncclCommunicatorBytes(span > domain);
    };
    add(t, t);
    add(c, t * c);
    add(d * c, t * c * d);
    if (plan.model.isMoe()) {
        add(double(par.expert), double(par.expertShards()));
        add(double(par.expertDataSize()), t * c * d);
        bytes += deepEpBufferBytes(plan);
    }
    return bytes;
}


StageInputs stageInputs(const Plan &plan, const DeviceSpec &device)
{
    const ModelSpec &m = plan.model;
    const TrainingConfig &training = plan.training;
    const std::int64_t t = plan.parallel.tensor;
    StageInputs in;
    in.perParam = stateBytesPerParameter(training);
    // Context parallelism: each rank keeps the activations of its s / c tokens of every sequence
    // (Megatron-Core context parallelism divides every per-token activation by c; the score tensor, when
    // stored, is (s / c) x s per head, also 1/c).
    const double c = double(plan.parallel.context);
    in.perLayer = storedLayerActivations(m, training, t).total() / c;
    if (m.isHybrid()) {
        in.hybrid = hybridBlockActivations(plan);
        for (double *bytes : {&in.hybrid.attention, &in.hybrid.mamba, &in.hybrid.denseMlp, &in.hybrid.moeMlp})
            *bytes /= c;
    }
    in.moeExtra = moeLayerExtraActivationBytes(plan) / c;
    if (plan.keepsBf16Layers()) {
        Plan bf16 = plan;
        bf16.training.precision = Precision::BF16;
        if (m.isHybrid()) {
            const HybridBlockActivations kept = hybridBlockActivations(bf16);
            in.bf16Extra = {kept.attention / c - in.hybrid.attention, kept.mamba / c - in.hybrid.mamba,
                            kept.denseMlp / c - in.hybrid.denseMlp, kept.moeMlp / c - in.hybrid.moeMlp};
        } else { // a transformer layer's extra in the attention slot, a MoE layer's routed part in the MoE slot
            in.bf16Extra = {storedLayerActivations(m, bf16.training, t).total() / c - in.perLayer, 0.0, 0.0,
                            moeLayerExtraActivationBytes(bf16) / c - in.moeExtra};
        }
    }
    if (splitsBackward(plan.parallel.schedule)) {
        in.pendingPerLayer = pendingWeightGradientBytes(plan, false);
        in.pendingPerMoeLayer = pendingWeightGradientBytes(plan, true);
    }
    Plan kept = plan;
    kept.training.recompute = Recompute::None;
    in.perLayerKept = storedLayerActivations(m, kept.training, t).total() / c;
    in.moeExtraKept = moeLayerExtraActivationBytes(kept) / c;
    in.embeddingPerMicrobatch = embeddingActivationBytes(m, training, t) / c;
    in.outputPerMicrobatch = outputActivationBytes(m, training, t) / c;
    // Megatron-Core's uniform method replays a whole chunk of layers at once, holding each layer's activations.
    in.recomputeWorkspace = double(std::min(plan.recomputeChunkInEffect(), std::max<std::int64_t>(1, m.layers))) *
                            std::max(recomputeWorkspaceBytes(m, training, t), moeLayerRecomputeWorkspaceBytes(plan)) /
                            c;
    if (m.isHybrid() && training.recompute == Recompute::Full) // the largest block, replayed whole
        in.recomputeWorkspace =
            std::max(hybridBlockActivations(plan, true).max(), moeLayerRecomputeWorkspaceBytes(plan)) / c;
    in.runtimeContext = plan.cluster.overrides.runtimeContextBytes.value_or(device.runtimeContextBytes);
    const double q = activationElementBytes(training.precision);
    in.boundaryTensor = q * double(m.seqLen) / c * double(training.microBatch) * double(m.hidden)
                        / (training.sequenceParallel ? double(t) : 1.0);
    in.contextKvBuffers = contextKvBufferBytes(plan);
    in.replicas = double(plan.parallel.data) * c;
    in.shards = double(plan.parallel.shardRanks()); // HSDP shards over its shard group only
    in.zeroGathers = plan.parallel.zeroStage >= 3 && in.shards > 1;
    in.backwardWorkspace = 2.0 * layerBackwardGradientBytes(plan);
    in.roundingPerLayer = layerRoundingBytes(layerStoredTensors(plan));
    if (m.isHybrid()) {
        // A Mamba block's widest gradient is its in-projection's output; a block holds about half a layer's tensors.
        const double inProjection = m.blocksIn(0, m.layers).mamba > 0 ? double(m.mambaInProjection()) : 0.0;
        in.backwardWorkspace =
            std::max(in.backwardWorkspace,
                     2.0 * q * double(m.seqLen) / c * double(training.microBatch) * inProjection / double(t));
        in.roundingPerLayer *= 0.5;
    }
    in.ncclBuffers = ncclBytes(plan);
    in.ncclPerPipelinePeer = 2.0 * 4.0 * units::MiB; // p2p: 2 channels x the Simple buffer per neighbour
    in.libraryWorkspaces = 3.0 * (device.supports(Precision::FP8) ? 32.0 : 4.0) * units::MiB;
    in.parameters = parameterShapes(plan);
    in.lossWorkspace = lossWorkspaceBytes(plan);
    in.deferredWeightGradients = deferredWeightGradientBytes(plan);
    return in;
}

/// Stored activations of the micro-batches the stage holds at its peak.
StageActivations stageActivations(const Plan &plan, const StageInputs &in, std::int64_t s)
{
    const ParallelConfig &par = plan.parallel;
    const std::int64_t p = par.pipeline;
    StageActivations a;
    a.layers = plan.layersOnStage(s);
    a.perLayerBytes = in.perLayer;
    a.microbatchesInFlight = microbatchesInFlight(par.schedule, p, par.virtualStages, plan.microbatchesPerRun(), s);
    // The expert all-to-all overlap (combined 1F1B) runs a micro-batch's forward beside another's backward,
    // layer by layer: each step pairs the forward of the next layer up with the backward of the next layer
    // down (model_chunk_schedule_plan.py, TransformerModelChunkSchedulePlan.run), so the forward stores a
    // layer as the backward frees one. Without pipelining (combined_1f1b_schedule_for_no_pipelining) that
    // holds one layer more than a micro-batch; with interleaving the schedule also runs one extra chunk's
    // forward before its 1F1B steps (schedules.py, get_pp_rank_microbatches: "we schedule one extra
    // micro-batch forward step"), one more chunk in flight, 1/v of the stage.
    if (plan.model.isMoe() && par.expert > 1 && par.expertCommOverlap && plan.microbatchesPerRun() >= 2 &&
        a.layers > 0) {
        const double extra =
            p > 1 ? 1.0 / double(std::max<std::int64_t>(1, par.virtualStages)) : 1.0 / double(a.layers);
        a.microbatchesInFlight = std::min(a.microbatchesInFlight + extra, double(plan.microbatchesPerRun()));
    }
    const double layers = double(a.layers), moeLayers = double(plan.moeLayersOnStage(s));
    double perMicrobatch = layers * in.perLayer + moeLayers * in.moeExtra;
    if (plan.model.isHybrid()) {
        perMicrobatch = in.hybrid.of(plan.blocksOnStage(s));
        a.perLayerBytes = layers > 0 ? perMicrobatch / layers : 0.0; // the stage's mean block
    }
    // The blocks kept in BF16 (training.bf16_layers_at_start / _at_end) save their linear inputs in 16 bits; a
    // transformer's extra counts per layer (attention) and per MoE layer (its routed part).
    if (plan.training.recompute != Recompute::Full)
        perMicrobatch += in.bf16Extra.of(plan.bf16BlocksOnStage(s));
    double perStoredLayer = layers > 0 ? perMicrobatch / layers : 0.0;
    if (const std::int64_t inputs = plan.checkpointedInputsOnStage(s); inputs < a.layers && layers > 0) {
        // Megatron-Core's uniform method: one input kept per chunk of layers (training.recompute_chunk).
        perMicrobatch = double(inputs) * in.perLayer + moeLayers * double(inputs) / layers * in.moeExtra;
        perStoredLayer = perMicrobatch / double(inputs);
    } else if (plan.training.recompute == Recompute::Full && plan.recomputedLayersOnStage(s) < a.layers) {
        // Megatron-Core's block method (the first recompute_layers layers of each chunk) or torchtitan's
        // every k-th layer: those keep their input, the rest everything (the MoE layers among them in
        // proportion).
        a.recomputedLayers = plan.recomputedLayersOnStage(s);
        const double keptLayers = layers - double(a.recomputedLayers);
        perMicrobatch = double(a.recomputedLayers) * in.perLayer + keptLayers * in.perLayerKept
                        + (layers > 0 ? moeLayers * keptLayers / layers : 0.0) * in.moeExtraKept;
        perStoredLayer = keptLayers > 0 ? (perMicrobatch - double(a.recomputedLayers) * in.perLayer) / keptLayers : 0.0;
    }
    if (splitsBackward(par.schedule) && p > 1) {
        // Zero bubble: where the stage's order holds the most, some micro-batches wait for their W, each
        // keeping its linear layers' inputs and output gradients.
        const double pending = (layers - moeLayers) * in.pendingPerLayer + moeLayers * in.pendingPerMoeLayer;
        const ZeroBubbleHeld held =
            zeroBubbleHeld(par.schedule, p, plan.microbatchesPerRun(), s, perMicrobatch, pending);
        a.microbatchesInFlight = held.inFlight;
        a.weightGradientsPending = held.pending;
        a.pendingWeightGradientBytes = held.pending * pending;
    }
    a.layerBytes = perMicrobatch * a.microbatchesInFlight;
    // Activation offload (Megatron-Core cpu_offloading): the offloaded layers' stored tensors live in host
    // memory; the device keeps two of them for one micro-batch, the one being sent and the one fetched
    // back ahead of its backward.
    a.offloadedLayers = plan.offloadedLayersOnStage(s);
    if (a.offloadedLayers > 0) {
        const double offloaded = std::min(double(a.offloadedLayers), layers - double(a.recomputedLayers));
        a.offloadedBytes = offloaded * perStoredLayer * a.microbatchesInFlight;
        a.layerBytes = std::max(0.0, a.layerBytes - a.offloadedBytes) + std::min(2.0, offloaded) * perStoredLayer;
    }
    if (s == 0)
        a.embeddingBytes = in.embeddingPerMicrobatch * a.microbatchesInFlight;
    if (s == p - 1) {
        // The last rank finishes each micro-batch's forward and starts its backward at once, so it holds the
        // logits of one micro-batch (all m under GPipe, where backward waits for every forward).
        const double logitsInFlight =
            par.schedule == Schedule::GPipe && p > 1 ? double(plan.microbatchesPerRun()) : 1.0;
        a.outputBytes = in.outputPerMicrobatch * logitsInFlight;
    }
    return a;
}

/// DeepSpeed's default reduce and all-gather bucket sizes (reduce_bucket_size, allgather_bucket_size: 5e8
/// elements each).
constexpr double kDeepSpeedBucketElements = 5e8;

std::size_t at(OtherTerm t)
{
    return std::size_t(t);
}

/// Parameters all-gathered at once under ZeRO-3: DeepSpeed and Megatron hold the unit in use, the
/// prefetched unit and its full gradient before the reduce-scatter; FSDP2 the same while resharding after
/// forward, and otherwise every block of the stage from its forward until its backward. Under PyTorch's
/// pipelining FSDP2 reduces only on a step's last backward (torch/distributed/pipelining/stage.py,
/// backward_maybe_with_nosync): until then each block's unsharded gradients accumulate, in the reduce dtype
/// (fp32_gradients; FP32 by torchtitan's default mixed_precision_reduce).
double gatheredParameterBytes(const Plan &plan, const StageInputs &in, const StageMemory &st)
{
    const std::vector<GatherUnit> units = gatherUnits(plan, st.stage, in.perParam);
    const bool fsdp = plan.training.framework == Framework::Fsdp;
    // FSDP2 produces the unit's gradient in the parameters' dtype (16 bits, whatever dtype a float8 all-gather
    // moved the weights in) and copies it into a reduce-dtype buffer for the reduce-scatter
    // (torch/distributed/fsdp/_fully_shard/_fsdp_collectives.py, foreach_reduce: foreach_reduce_scatter_copy_in):
    // both live at once.
    const double gradient = fsdp ? in.perParam.edgeGathered() + in.perParam.reduced : in.perParam.gradients;
    const double perUnit = largestGathered(units, 2.0, gradient); // the unit in use, the prefetched one
    const bool accumulates = fsdp && plan.parallel.pipeline > 1 && plan.microbatchesPerRun() > 1;
    // ZeRO++ hpZ: the secondary copy of the 16-bit dense parameters, sharded over its group, kept for the
    // backward gathers (Wang et al. 2023, Sec. 3.2).
    const auto hpz = double(plan.secondaryGroupRanks());
    const double secondary = hpz > 1 ? kHalfBytes * (st.parameterCount - st.expertParameterCount) / hpz : 0.0;
    if (!fsdp || (plan.parallel.reshardAfterForward && !accumulates))
        return perUnit + secondary;
    // Routed experts whose expert-data group is one rank are not sharded: FSDP2 leaves them out of their
    // block's unit (NeMo Automodel's moe/parallelizer.py apply_fsdp passes them as ignored_params, lines 153-162
    // at 89e3a9fdd), so they have no gathered copy and their gradients accumulate in place.
    const double whole = plan.parallel.expertDataSize() == 1 ? st.expertParameterCount : 0.0;
    const UnitParameters u = unitParameters(plan);
    const double blocks = st.parameterCount - whole - (st.stage == 0 ? u.embedding : 0.0)
                          - (st.stage == plan.parallel.pipeline - 1 ? u.output + u.outputExperts : 0.0);
    const double accumulated = accumulates ? in.perParam.reduced * (st.parameterCount - whole) : 0.0;
    if (plan.parallel.reshardAfterForward)
        return perUnit + accumulated;
    // Every block of the stage stays gathered: its layers' parameters on this rank, experts included.
    return in.perParam.gathered * blocks + largestGathered(units, 1.0, gradient) + accumulated;
}

/// Pipeline send and receive buffers of a stage. Megatron-Core and DeepSpeed: one activation received and one
/// sent. PyTorch's pipelining (framework fsdp): PipelineStage allocates a receive buffer per micro-batch and
/// model chunk for the activations (_prepare_forward_infra) and for their gradients (_create_grad_recv_info),
/// kept across steps, and holds each in-flight micro-batch's output in its fwd_cache until that backward
/// (torch/distributed/pipelining/stage.py); the received activations of the micro-batches in flight are the
/// first layer's inputs, which the activations already count. With training.keep_pipeline_outputs the last
/// stage also keeps every micro-batch's output, the model's 16-bit logits (its vocabulary share under loss
/// parallel), in output_chunks for the step's merged output (forward_one_chunk: "Prepare for final output
/// merge or reduction"; step() returns _merge_outputs(output_chunks)): at its last backward the other m - 1
/// are still held.
double pipelineBufferBytes(const Plan &plan, const StageInputs &in, const StageMemory &st)
{
    if (plan.training.framework != Framework::Fsdp)
        return 2.0 * in.boundaryTensor;
    const std::int64_t p = plan.parallel.pipeline;
    const double v = double(std::max<std::int64_t>(1, plan.parallel.virtualStages));
    const double m = double(plan.microbatchesPerRun()) * v, inFlight = st.activations.microbatchesInFlight * v;
    const bool receives = st.stage > 0 || v > 1, sends = st.stage < p - 1 || v > 1;
    const double buffers = (receives ? m - inFlight : 0.0) + (sends ? m + inFlight : 0.0);
    return std::max(buffers, 2.0) * in.boundaryTensor + (st.stage == p - 1 ? keptPipelineOutputBytes(plan) : 0.0);
}

/// The device's extras outside the caching allocator: the same in both phases.
void addDeviceExtras(const Plan &plan, const StageInputs &in, std::int64_t stage, Terms &terms)
{
    const std::int64_t p = plan.parallel.pipeline;
    const double neighbours = double((stage > 0 ? 1 : 0) + (stage + 1 < p ? 1 : 0));
    terms[at(OtherTerm::RuntimeContext)] = in.runtimeContext;
    terms[at(OtherTerm::NcclBuffers)] = in.ncclBuffers + neighbours * in.ncclPerPipelinePeer;
    terms[at(OtherTerm::LibraryWorkspaces)] = in.libraryWorkspaces;
}

double sumOfKind(const Terms &terms, MemoryKind kind)
{
    const double device = terms[at(OtherTerm::RuntimeContext)] + terms[at(OtherTerm::NcclBuffers)] +
                          terms[at(OtherTerm::LibraryWorkspaces)];
    const double reserved = terms[at(OtherTerm::AllocatorReserve)];
    if (kind == MemoryKind::Device)
        return device;
    if (kind == MemoryKind::Reserved)
        return reserved;
    double total = 0;
    for (double v : terms)
        total += v;
    return total - device - reserved;
}
static_assert(kindOf(OtherTerm::RuntimeContext) == MemoryKind::Device &&
                  kindOf(OtherTerm::NcclBuffers) == MemoryKind::Device &&
                  kindOf(OtherTerm::LibraryWorkspaces) == MemoryKind::Device &&
                  kindOf(OtherTerm::AllocatorReserve) == MemoryKind::Reserved,
              "sumOfKind() adds the device and reserved terms by name");

/// The caching allocator's overhead over `dynamic` allocated bytes of a phase: the plan's fraction when
/// set; otherwise block rounding of the stored activation tensors and the free space pinned by
/// micro-batches held while later ones allocate and free around them (none when every free follows every
/// allocation, as GPipe's backward, or with expandable segments, which remap freed pages).
StageMemory::AllocatorDetail allocatorOverhead(const Plan &plan, const StageInputs &in, const StageActivations &a,
                                               double dynamic)
{
    StageMemory::AllocatorDetail detail;
    if (plan.training.allocatorReserveFraction) {
        detail.fractionOverride = true;
        detail.roundingBytes = *plan.training.allocatorReserveFraction * dynamic;
        return detail;
    }
    const double inFlight = a.microbatchesInFlight;
    detail.roundingBytes = in.roundingPerLayer * double(a.layers) * inFlight;
    const bool interleavedLifetimes = plan.parallel.schedule != Schedule::GPipe && !plan.training.expandableSegments;
    // Every micro-batch held but the newest pins its blocks, a zero-bubble stage's pending W's among them.
    if (interleavedLifetimes && inFlight > 1) {
        const double newest = (a.storedBytes() - a.pendingWeightGradientBytes) / inFlight;
        detail.fragmentationBytes = kAllocatorPinnedShare * (a.storedBytes() - newest);
    }
    return detail;
}

/// Terms of the forward/backward phase (the allocator overhead in `detail`).
Terms forwardBackwardTerms(const Plan &plan, const StageInputs &in, const StageMemory &st,
                           StageMemory::AllocatorDetail &detail)
{
    const ParallelConfig &par = plan.parallel;
    Terms fb{};
    addDeviceExtras(plan, in, st.stage, fb);
    if (in.replicas > 1 && !in.zeroGathers && plan.training.framework == Framework::DeepSpeed)
        fb[at(OtherTerm::DataParallelBuckets)] =
            std::min(2.0 * kDeepSpeedBucketElements * in.perParam.gradients, st.gradientsBytes);
    if (par.pipeline > 1)
        fb[at(OtherTerm::PipelineBuffers)] = pipelineBufferBytes(plan, in, st);
    if (in.zeroGathers)
        fb[at(OtherTerm::ZeroGatheredParameters)] = gatheredParameterBytes(plan, in, st);
    fb[at(OtherTerm::RecomputeWorkspace)] = in.recomputeWorkspace;
    fb[at(OtherTerm::ContextKvBuffers)] = in.contextKvBuffers;
    if (st.activations.layers > 0)
        fb[at(OtherTerm::BackwardWorkspace)] = in.backwardWorkspace;
    if (st.stage == par.pipeline - 1) {
        fb[at(OtherTerm::LossWorkspace)] = in.lossWorkspace;
        fb[at(OtherTerm::DeferredWeightGradients)] = in.deferredWeightGradients;
    }
    detail = allocatorOverhead(plan, in, st.activations,
                               st.activations.storedBytes() + sumOfKind(fb, MemoryKind::Allocated));
    fb[at(OtherTerm::AllocatorReserve)] = detail.roundingBytes + detail.fragmentationBytes;
    return fb;
}

/// Muon: the Newton-Schulz working set of the largest matrix a rank of the stage iterates on (WeightMatrices.h);
/// the iterations run one matrix at a time.
double muonWorkspace(const Plan &plan, std::int64_t stage)
{
    if (!plan.training.usesMuon())
        return 0.0;
    double most = 0;
    for (const LayerKind &kind : layerKinds(plan.model, plan.firstLayerOfStage(stage), plan.layersOnStage(stage))) {
        if (kind.count <= 0)
            continue;
        for (const WeightMatrix &w : layerMatrices(plan.model, kind.layer)) {
            const std::int64_t ranks = w.expert ? plan.parallel.expertTensorSize() : plan.parallel.tensor;
            most = std::max(most, newtonSchulzWorkspaceBytes(iteratedShape(w, plan.training.muonTpMode, ranks)));
        }
    }
    return most;
}

/// Terms of the optimizer-step phase: activations are freed; 16-bit gradients are upcast to the master
/// weights' format for the update (none when the master copy is 16-bit too: DeepSpeed's
/// bf16_master_weights_and_grads keeps "master parameters and gradients in BF16", DeepSpeedExamples
/// training/bf16_master_weight/README.md); DeepSpeed's ZeRO-1/2 gathers the updated parameters bucket by bucket.
Terms optimizerStepTerms(const Plan &plan, const StageInputs &in, const StageMemory &st,
                         StageMemory::AllocatorDetail &detail)
{
    const ParallelConfig &par = plan.parallel;
    Terms opt{};
    addDeviceExtras(plan, in, st.stage, opt);
    // The shard this rank steps: dense parameters over the shard ranks, experts over their expert-data group.
    const double shardParams = par.optimizerParameters(st.parameterCount - st.expertParameterCount,
                                                       st.expertParameterCount);
    const double master = in.perParam.master > 0 ? in.perParam.master : kFp32Bytes;
    // Megatron-Core's distributed optimizer upcasts the main gradients on the GPU before its CPU optimizer copies
    // them (DistributedOptimizer._copy_model_grads_to_main_grads), offloaded or not.
    const bool upcastOnDevice = !par.offloadOptimizer || plan.training.framework == Framework::Megatron;
    if (upcastOnDevice && in.perParam.gradients < master)
        opt[at(OtherTerm::OptimizerWorkspace)] = master * shardParams;
    // torch.optim.AdamW's foreach path takes the square root of every second moment at once
    // (_multi_tensor_adamw: torch._foreach_sqrt(exp_avg_sqs)): an FP32 copy of the shard's parameters until the
    // update; fused multi-tensor kernels and per-parameter loops need none to speak of.
    if (!par.offloadOptimizer && plan.training.optimizerKernelInEffect() == OptimizerKernel::Foreach
        && plan.training.optimizer == Optimizer::Adam)
        opt[at(OtherTerm::OptimizerWorkspace)] += kFp32Bytes * shardParams;
    if (!par.offloadOptimizer)
        opt[at(OtherTerm::OptimizerWorkspace)] += muonWorkspace(plan, st.stage);
    if (plan.training.framework == Framework::DeepSpeed && in.replicas > 1 && par.zeroStage >= 1 && par.zeroStage <= 2)
        opt[at(OtherTerm::FrameworkBuffers)] =
            std::min(kDeepSpeedBucketElements * in.perParam.gathered, st.parametersBytes);
    detail = {};
    if (plan.training.allocatorReserveFraction) {
        detail.fractionOverride = true;
        detail.roundingBytes = *plan.training.allocatorReserveFraction * sumOfKind(opt, MemoryKind::Allocated);
    }
    opt[at(OtherTerm::AllocatorReserve)] = detail.roundingBytes;
    return opt;
}

double sum(const Terms &terms)
{
    double total = 0;
    for (double v : terms)
        total += v;
    return total;
}

/// Parameters, gradients and optimizer state of a stage (dense over data x context, experts over their
/// own expert-data group, Megatron-Core) and its stored activations.
void stageState(const Plan &plan, const StageInputs &in, StageMemory &st)
{
    const ParallelConfig &par = plan.parallel;
    const StageParameters counts = stageParameters(plan, in.parameters, st.stage);
    st.parameterCount = counts.all;
    st.expertParameterCount = counts.experts;
    const ModelStateBytes state =
        shardedModelState(st.parameterCount - st.expertParameterCount, in.perParam, in.shards, par.zeroStage);
    const ModelStateBytes experts =
        shardedModelState(st.expertParameterCount, in.perParam, double(par.expertDataSize()), par.zeroStage);
    const bool parametersOnHost = par.offloadParameters && par.zeroStage == 3;
    (parametersOnHost ? st.hostParametersBytes : st.parametersBytes) = state.parameters + experts.parameters;
    st.expertParametersBytes = parametersOnHost ? 0.0 : experts.parameters;
    st.gradientsBytes = state.gradients + experts.gradients;
    // Muon: the moments of what it leaves to Adam or Lion, sharded as the rest of the optimizer state.
    const double nonMatrixMoments =
        counts.notMatrices * in.perParam.nonMatrixMomentBytes / (par.zeroStage >= 1 ? std::max(1.0, in.shards) : 1.0);
    const double optimizerState = state.optimizer + experts.optimizer + nonMatrixMoments;
    if (par.offloadOptimizer && plan.training.framework == Framework::Megatron) {
        // Megatron-Core's HybridDeviceOptimizer steps a pinned host copy of the offloaded FP32 main parameters with
        // their moments on the host; the distributed optimizer keeps its FP32 main parameters on the GPU and the
        // copy-back hook writes the updated values into them (megatron/core/optimizer/cpu_offloading/
        // hybrid_optimizer.py, _get_sub_optimizer_param_groups and the step post-hook): only the moments of the
        // offloaded share leave the device.
        const double master = in.perParam.optimizer > 0
                                  ? (state.optimizer + experts.optimizer) * in.perParam.master / in.perParam.optimizer
                                  : 0.0;
        const double moments = optimizerState - master, share = plan.hostOptimizerShare();
        st.optimizerBytes = master + (1.0 - share) * moments;
        st.hostOptimizerBytes = share * (master + moments);
    } else {
        (par.offloadOptimizer ? st.hostOptimizerBytes : st.optimizerBytes) = optimizerState;
    }
    st.activations = stageActivations(plan, in, st.stage);
}

/// Fills `st` (built in place in the estimate's vector: the search estimates millions of plans).
void stageMemory(const Plan &plan, const DeviceSpec &device, const StageInputs &in, std::int64_t s, StageMemory &st)
{
    st.stage = s;
    st.capacityBytes = device.memoryBytes;
    stageState(plan, in, st);

    StageMemory::AllocatorDetail fbDetail, optDetail;
    const Terms fb = forwardBackwardTerms(plan, in, st, fbDetail);
    const Terms opt = optimizerStepTerms(plan, in, st, optDetail);
    const double persistent = st.parametersBytes + st.gradientsBytes + st.optimizerBytes;
    const double allocatedFb = persistent + st.activations.storedBytes() + sumOfKind(fb, MemoryKind::Allocated);
    const double allocatedOpt = persistent + sumOfKind(opt, MemoryKind::Allocated);
    const double reservedFb = allocatedFb + fb[at(OtherTerm::AllocatorReserve)];
    const double reservedOpt = allocatedOpt + opt[at(OtherTerm::AllocatorReserve)];
    const double extras = sumOfKind(fb, MemoryKind::Device);
    st.forwardBackwardBytes = reservedFb + extras;
    st.optimizerStepBytes = reservedOpt + extras;
    // Segments are never returned: the reserved peak is the larger phase's, and the allocated peak too.
    st.allocatedBytes = std::max(allocatedFb, allocatedOpt);
    st.reservedBytes = std::max(reservedFb, reservedOpt);
    st.deviceBytes = st.reservedBytes + extras;
    // The stage's peak is the larger phase; its components describe that moment.
    const bool optimizerPeak = reservedOpt > reservedFb;
    st.peakPhase = optimizerPeak ? MemoryPhase::OptimizerStep : MemoryPhase::ForwardBackward;
    st.other = optimizerPeak ? opt : fb;
    st.otherBytes = sum(st.other);
    st.allocator = optimizerPeak ? optDetail : fbDetail;
    st.activationsBytes = optimizerPeak ? 0.0 : st.activations.storedBytes();
    st.peakBytes = st.deviceBytes;
}

} // namespace

MemoryEstimate estimateMemory(const Plan &plan, const DeviceSpec &device)
{
    const StageInputs in = stageInputs(plan, device);
    MemoryEstimate est;
    est.capacityBytes = device.memoryBytes;
    est.stages.reserve(std::size_t(plan.parallel.pipeline));
    for (std::int64_t s = 0; s < plan.parallel.pipeline; ++s) {
        stageMemory(plan, device, in, s, est.stages.emplace_back());
        const StageMemory &st = est.stages.back();
        if (s == 0 || st.peakBytes > est.peakBytes) {
            est.peakBytes = st.peakBytes;
            est.peakStage = s;
        }
    }
    for (const StageMemory &st : est.stages) {
        est.allocatedBytes = std::max(est.allocatedBytes, st.allocatedBytes);
        est.reservedBytes = std::max(est.reservedBytes, st.reservedBytes);
    }
    est.deviceBytes = est.peakBytes;
    est.fits = est.peakBytes <= est.capacityBytes;
    est.marginBytes = plan.training.memoryMargin * est.capacityBytes;
    est.tight = est.fits && est.headroomBytes() < est.marginBytes;
    return est;
}

double StageMemory::otherOfKind(MemoryKind kind) const
{
    return sumOfKind(other, kind);
}

LayerStoredTensors layerStoredTensors(const Plan &plan)
{
    const ModelSpec &m = plan.model;
    const TrainingConfig &training = plan.training;
    const double t = double(plan.parallel.tensor), c = double(plan.parallel.context);
    const double q = activationElementBytes(training.precision);
    const double tokens = double(m.seqLen) / c * double(training.microBatch);
    const LayerActivationBytes layer = storedLayerActivations(m, training, plan.parallel.tensor);
    LayerStoredTensors out;
    out.partBytes = {layer.sequenceShardable / c, layer.tensorSharded / c, layer.attentionScores / c};
    out.unitBytes = {q * tokens * double(m.hidden) / (training.sequenceParallel ? t : 1.0),
                     q * tokens * double(m.hidden) / t, q * tokens * double(m.seqLen) * double(m.heads) / t};
    return out;
}

double layerBackwardGradientBytes(const Plan &plan)
{
    const ModelSpec &m = plan.model;
    const TrainingConfig &training = plan.training;
    const bool scoresStored = storedLayerActivations(m, training, plan.parallel.tensor).attentionScores > 0;
    const double scores = scoresStored ? double(m.heads) * double(m.seqLen) : 0.0;
    return activationElementBytes(training.precision) * double(training.microBatch) * double(m.seqLen) /
           double(plan.parallel.context) * (scores + double(m.ffnHidden)) / double(plan.parallel.tensor);
}

double allocatorBlockBytes(double size)
{
    // PyTorch c10/cuda/CUDACachingAllocator.cpp: kMinBlockSize 512 B, kSmallSize 1 MiB, kMinLargeAlloc
    // 10 MiB, kLargeBuffer 20 MiB, kRoundLarge 2 MiB.
    constexpr double kMinBlock = 512.0, kSmallSize = units::MiB, kMinLargeAlloc = 10.0 * units::MiB,
                     kLargeBuffer = 20.0 * units::MiB, kRoundLarge = 2.0 * units::MiB;
    if (!(size > 0))
        return 0.0;
    const double rounded = std::ceil(size / kMinBlock) * kMinBlock;
    if (rounded <= kSmallSize)
        return rounded;
    if (rounded < kMinLargeAlloc)
        return kLargeBuffer / std::floor(kLargeBuffer / rounded);
    return std::ceil(rounded / kRoundLarge) * kRoundLarge;
}

MemoryPressure memoryPressure(const MemoryEstimate &memory)
{
    MemoryPressure out;
    if (memory.stages.empty())
        return out;
    const StageMemory &st = memory.stages[std::size_t(memory.peakStage)];
    out.label = termInfo(StateTerm::Activations).label;
    out.bytes = st.activationsBytes;
    for (std::size_t i = 0; i < kOtherTermCount; ++i)
        if (st.other[i] > out.bytes) {
            out.label = termInfo(OtherTerm(i)).label;
            out.bytes = st.other[i];
        }
    out.headroomBytes = st.capacityBytes - st.peakBytes;
    out.growthToOverflow = out.bytes > 0 ? out.headroomBytes / out.bytes : 0.0;
    return out;
}

std::vector<std::pair<const char *, double>> largestComponents(const StageMemory &st, std::size_t n)
{
    std::vector<std::pair<const char *, double>> parts{{termInfo(StateTerm::Parameters).label, st.parametersBytes},
                                                       {termInfo(StateTerm::Gradients).label, st.gradientsBytes},
                                                       {termInfo(StateTerm::Optimizer).label, st.optimizerBytes},
                                                       {termInfo(StateTerm::Activations).label, st.activationsBytes}};
    for (std::size_t i = 0; i < kOtherTermCount; ++i)
        parts.emplace_back(termInfo(OtherTerm(i)).label, st.other[i]);
    std::stable_sort(parts.begin(), parts.end(), [](const auto &a, const auto &b) { return a.second > b.second; });
    parts.resize(std::min(n, parts.size()));
    return parts;
}

} // namespace trainplan
