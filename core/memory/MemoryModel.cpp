#include "core/memory/MemoryModel.h"

#include <algorithm>

#include "core/memory/ActivationMemory.h"
#include "core/memory/ModelState.h"
#include "core/model/ModelSpec.h"

namespace trainplan {

double lastStageEmbeddingCopy(const Plan &plan)
{
    const ModelSpec &m = plan.model;
    if (!m.tiedEmbeddings || plan.parallel.pipeline <= 1)
        return 0.0;
    return double(m.vocab) * double(m.hidden) / double(plan.parallel.tensor);
}

double stageParameterCount(const Plan &plan, std::int64_t stage)
{
    const ModelSpec &m = plan.model;
    const std::int64_t t = plan.parallel.tensor;
    const std::int64_t p = plan.parallel.pipeline;
    double count = layersParameters(m, plan.firstLayerOfStage(stage), plan.layersOnStage(stage)).perTensorRank(t);
    if (stage == 0)
        count += embeddingParameters(m).perTensorRank(t);
    if (stage == p - 1) {
        count += outputParameters(m).perTensorRank(t);
        count += lastStageEmbeddingCopy(plan);
        count += mtpParameters(m).perTensorRank(t);
    }
    return count + stageExpertParameterCount(plan, stage);
}

double stageExpertParameterCount(const Plan &plan, std::int64_t stage)
{
    const ModelSpec &m = plan.model;
    if (!m.isMoe())
        return 0.0;
    const std::int64_t shards = plan.parallel.expertShards();
    double count = layersParameters(m, plan.firstLayerOfStage(stage), plan.layersOnStage(stage)).expertPerRank(shards);
    if (stage == plan.parallel.pipeline - 1)
        count += mtpParameters(m).expertPerRank(shards);
    return count;
}

double contextKvChunkBytes(const Plan &plan)
{
    const ModelSpec &m = plan.model;
    return activationElementBytes(plan.training.precision) * double(m.seqLen) / double(plan.parallel.context)
           * double(plan.training.microBatch) * 2.0 * double(m.kvDim()) / double(plan.parallel.tensor);
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
               * (2.0 * double(m.qDim()) + 2.0 * double(m.kvDim())) / t;
    }
    return 0.0;
}

namespace {

/// Largest unit ZeRO-3 gathers at once on this stage: a transformer layer, or the embedding/output matrix.
double largestGatherUnit(const Plan &plan, std::int64_t stage)
{
    const ModelSpec &m = plan.model;
    const std::int64_t t = plan.parallel.tensor;
    double unit = layerParameters(m).perTensorRank(t);
    if (stage == 0)
        unit = std::max(unit, embeddingParameters(m).perTensorRank(t));
    if (stage == plan.parallel.pipeline - 1)
        unit = std::max(unit, outputParameters(m).perTensorRank(t) + lastStageEmbeddingCopy(plan));
    return unit;
}

using Terms = std::array<double, kOtherTermCount>;

/// What every stage of a plan shares.
struct StageInputs
{
    StateBytesPerParameter perParam;
    double perLayer = 0;               ///< stored activations of one layer, one micro-batch
    double moeExtra = 0;               ///< what a MoE layer stores beyond that
    double embeddingPerMicrobatch = 0;
    double outputPerMicrobatch = 0;
    double recomputeWorkspace = 0;
    double runtimeContext = 0;
    double boundaryTensor = 0;         ///< one pipeline send or receive buffer
    double contextKvBuffers = 0;       ///< K and V blocks of other context ranks in flight (one layer)
    double replicas = 1;               ///< ranks sharing the gradient reduction and ZeRO: data x context
    bool zeroGathers = false;          ///< ZeRO-3 gathers parameters (more than one replica)
};

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
    in.moeExtra = moeLayerExtraActivationBytes(plan) / c;
    in.embeddingPerMicrobatch = embeddingActivationBytes(m, training, t) / c;
    in.outputPerMicrobatch = outputActivationBytes(m, training, t) / c;
    in.recomputeWorkspace = recomputeWorkspaceBytes(m, training, t) / c;
    in.runtimeContext = plan.cluster.overrides.runtimeContextBytes.value_or(device.runtimeContextBytes);
    const double q = activationElementBytes(training.precision);
    in.boundaryTensor = q * double(m.seqLen) / c * double(training.microBatch) * double(m.hidden)
                        / (training.sequenceParallel ? double(t) : 1.0);
    in.contextKvBuffers = contextKvBufferBytes(plan);
    in.replicas = double(plan.parallel.data) * c;
    in.zeroGathers = plan.parallel.zeroStage >= 3 && in.replicas > 1;
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
    a.microbatchesInFlight = microbatchesInFlight(par.schedule, p, par.virtualStages, plan.microbatches(), s);
    a.layerBytes = (double(a.layers) * in.perLayer + double(plan.moeLayersOnStage(s)) * in.moeExtra) * a.microbatchesInFlight;
    if (s == 0)
        a.embeddingBytes = in.embeddingPerMicrobatch * a.microbatchesInFlight;
    if (s == p - 1) {
        // The last rank finishes each micro-batch's forward and starts its backward at once, so it holds the
        // logits of one micro-batch (all m under GPipe, where backward waits for every forward).
        const double logitsInFlight = par.schedule == Schedule::GPipe && p > 1 ? double(plan.microbatches()) : 1.0;
        a.outputBytes = in.outputPerMicrobatch * logitsInFlight;
    }
    return a;
}

/// Transient terms of the forward/backward phase.
Terms forwardBackwardTerms(const Plan &plan, const StageInputs &in, const StageMemory &st)
{
    const ParallelConfig &par = plan.parallel;
    Terms fb{};
    fb[std::size_t(OtherTerm::RuntimeContext)] = in.runtimeContext;
    if (in.replicas > 1 && !in.zeroGathers)
        fb[std::size_t(OtherTerm::DataParallelBuckets)] = std::min(2.0 * par.bucketBytes, st.gradientsBytes);
    if (par.pipeline > 1)
        fb[std::size_t(OtherTerm::PipelineBuffers)] = 2.0 * in.boundaryTensor;
    if (in.zeroGathers)
        fb[std::size_t(OtherTerm::ZeroGatheredParameters)] =
            (2.0 * in.perParam.gathered + in.perParam.gradients) * largestGatherUnit(plan, st.stage);
    fb[std::size_t(OtherTerm::RecomputeWorkspace)] = in.recomputeWorkspace;
    fb[std::size_t(OtherTerm::ContextKvBuffers)] = in.contextKvBuffers;
    double dynamic = st.activations.storedBytes();
    for (std::size_t i = 0; i < kOtherTermCount; ++i)
        if (i != std::size_t(OtherTerm::RuntimeContext))
            dynamic += fb[i];
    fb[std::size_t(OtherTerm::AllocatorReserve)] = plan.training.allocatorReserveFraction * dynamic;
    return fb;
}

/// Transient terms of the optimizer-step phase: activations are freed; 16-bit gradients are upcast for
/// the FP32 update.
Terms optimizerStepTerms(const Plan &plan, const StageInputs &in, const StageMemory &st, const Terms &fb)
{
    const ParallelConfig &par = plan.parallel;
    Terms opt{};
    opt[std::size_t(OtherTerm::RuntimeContext)] = in.runtimeContext;
    opt[std::size_t(OtherTerm::DataParallelBuckets)] = fb[std::size_t(OtherTerm::DataParallelBuckets)];
    if (!par.offloadOptimizer && in.perParam.gradients < kFp32Bytes) {
        const double shardParams = st.parameterCount / (par.zeroStage >= 1 ? in.replicas : 1.0);
        opt[std::size_t(OtherTerm::OptimizerWorkspace)] = kFp32Bytes * shardParams;
    }
    const double dynamic = opt[std::size_t(OtherTerm::DataParallelBuckets)] + opt[std::size_t(OtherTerm::OptimizerWorkspace)];
    opt[std::size_t(OtherTerm::AllocatorReserve)] = plan.training.allocatorReserveFraction * dynamic;
    return opt;
}

double sum(const Terms &terms)
{
    double total = 0;
    for (double v : terms)
        total += v;
    return total;
}

StageMemory stageMemory(const Plan &plan, const DeviceSpec &device, const StageInputs &in, std::int64_t s)
{
    const ParallelConfig &par = plan.parallel;
    StageMemory st;
    st.stage = s;
    st.capacityBytes = device.memoryBytes;
    st.parameterCount = stageParameterCount(plan, s);
    st.expertParameterCount = stageExpertParameterCount(plan, s);
    // Dense parameters are reduced and sharded over data x context; expert parameters over their own
    // expert-data group, data x context x tensor / (expert x expert_tensor) (Megatron-Core).
    const ModelStateBytes state = shardedModelState(st.parameterCount - st.expertParameterCount, in.perParam, in.replicas, par.zeroStage);
    const ModelStateBytes experts = shardedModelState(st.expertParameterCount, in.perParam, double(par.expertDataSize()), par.zeroStage);
    st.parametersBytes = state.parameters + experts.parameters;
    st.expertParametersBytes = experts.parameters;
    st.gradientsBytes = state.gradients + experts.gradients;
    (par.offloadOptimizer ? st.hostOptimizerBytes : st.optimizerBytes) = state.optimizer + experts.optimizer;
    st.activations = stageActivations(plan, in, s);

    const Terms fb = forwardBackwardTerms(plan, in, st);
    const Terms opt = optimizerStepTerms(plan, in, st, fb);
    const double persistent = st.parametersBytes + st.gradientsBytes + st.optimizerBytes;
    const double fbOther = sum(fb), optOther = sum(opt);
    st.forwardBackwardBytes = persistent + st.activations.storedBytes() + fbOther;
    st.optimizerStepBytes = persistent + optOther;
    // The stage's peak is the larger phase; its components describe that moment.
    const bool optimizerPeak = st.optimizerStepBytes > st.forwardBackwardBytes;
    st.peakPhase = optimizerPeak ? MemoryPhase::OptimizerStep : MemoryPhase::ForwardBackward;
    st.other = optimizerPeak ? opt : fb;
    st.otherBytes = optimizerPeak ? optOther : fbOther;
    st.activationsBytes = optimizerPeak ? 0.0 : st.activations.storedBytes();
    st.peakBytes = optimizerPeak ? st.optimizerStepBytes : st.forwardBackwardBytes;
    return st;
}

} // namespace

MemoryEstimate estimateMemory(const Plan &plan, const DeviceSpec &device)
{
    const StageInputs in = stageInputs(plan, device);
    MemoryEstimate est;
    est.capacityBytes = device.memoryBytes;
    est.stages.reserve(std::size_t(plan.parallel.pipeline));
    for (std::int64_t s = 0; s < plan.parallel.pipeline; ++s) {
        est.stages.push_back(stageMemory(plan, device, in, s));
        const StageMemory &st = est.stages.back();
        if (s == 0 || st.peakBytes > est.peakBytes) {
            est.peakBytes = st.peakBytes;
            est.peakStage = s;
        }
    }
    est.fits = est.peakBytes <= est.capacityBytes;
    return est;
}

} // namespace trainplan
