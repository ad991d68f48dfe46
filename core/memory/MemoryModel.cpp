#include "core/memory/MemoryModel.h"

#include "core/common/Units.h"

#include <algorithm>

#include "core/memory/ActivationMemory.h"
#include "core/memory/ModelState.h"
#include "core/model/ModelSpec.h"

namespace trainplan {

double stageParameterCount(const Plan &plan, std::int64_t stage)
{
    const ModelSpec &m = plan.model;
    const std::int64_t t = plan.parallel.tensor;
    const std::int64_t p = plan.parallel.pipeline;
    double count = double(plan.layersPerStage()) * layerParameters(m).perTensorRank(t);
    if (stage == 0)
        count += embeddingParameters(m).perTensorRank(t);
    if (stage == p - 1) {
        count += outputParameters(m).perTensorRank(t);
        if (m.tiedEmbeddings && p > 1)
            count += double(m.vocab) * double(m.hidden) / double(t);
    }
    return count;
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
        unit = std::max(unit, outputParameters(m).perTensorRank(t)
                                  + (m.tiedEmbeddings && plan.parallel.pipeline > 1 ? double(m.vocab) * double(m.hidden) / double(t) : 0.0));
    return unit;
}

} // namespace

MemoryEstimate estimateMemory(const Plan &plan, const DeviceSpec &device)
{
    const ModelSpec &m = plan.model;
    const TrainingConfig &tr = plan.training;
    const ParallelConfig &par = plan.parallel;
    const std::int64_t t = par.tensor;
    const std::int64_t p = par.pipeline;
    const std::int64_t d = par.data;
    const int zero = par.zeroStage;

    const StateBytesPerParameter perParam = stateBytesPerParameter(tr.precision, tr.optimizer, tr.fp32Gradients);
    const double q = activationElementBytes(tr.precision);
    const double perLayer = storedLayerActivations(m, tr, t).total();
    const double embeddingPerMicrobatch = embeddingActivationBytes(m, tr, t);
    const double outputPerMicrobatch = outputActivationBytes(m, tr, t);
    const double recomputeWorkspace = recomputeWorkspaceBytes(m, tr, t);
    const double runtimeContext = plan.cluster.overrides.runtimeContextBytes.value_or(device.runtimeContextBytes);
    const double boundaryTensor = q * double(m.seqLen) * double(tr.microBatch) * double(m.hidden)
                                  / (tr.sequenceParallel ? double(t) : 1.0);
    const bool zeroGathers = zero >= 3 && d > 1;

    MemoryEstimate est;
    est.capacityBytes = device.memoryBytes;
    est.stages.reserve(std::size_t(p));

    for (std::int64_t s = 0; s < p; ++s) {
        StageMemory st;
        st.stage = s;
        st.capacityBytes = device.memoryBytes;
        st.parameterCount = stageParameterCount(plan, s);
        const ModelStateBytes state = shardedModelState(st.parameterCount, perParam, d, zero);
        st.parametersBytes = state.parameters;
        st.gradientsBytes = state.gradients;
        if (par.offloadOptimizer)
            st.hostOptimizerBytes = state.optimizer;
        else
            st.optimizerBytes = state.optimizer;

        StageActivations &a = st.activations;
        a.layers = plan.layersPerStage();
        a.perLayerBytes = perLayer;
        a.microbatchesInFlight = microbatchesInFlight(par.schedule, p, par.virtualStages, plan.microbatches(), s);
        a.layerBytes = double(a.layers) * perLayer * a.microbatchesInFlight;
        if (s == 0)
            a.embeddingBytes = embeddingPerMicrobatch * a.microbatchesInFlight;
        if (s == p - 1) {
            // The last rank finishes each micro-batch's forward and starts its backward at once, so it
            // holds the logits of one micro-batch (all m under GPipe, where backward waits for every forward).
            const double logitsInFlight = par.schedule == Schedule::GPipe && p > 1 ? double(plan.microbatches()) : 1.0;
            a.outputBytes = outputPerMicrobatch * logitsInFlight;
        }

        // Forward/backward phase.
        std::array<double, kOtherTermCount> fb{};
        fb[std::size_t(OtherTerm::RuntimeContext)] = runtimeContext;
        if (d > 1 && !zeroGathers)
            fb[std::size_t(OtherTerm::DataParallelBuckets)] = std::min(2.0 * par.bucketBytes, st.gradientsBytes);
        if (p > 1)
            fb[std::size_t(OtherTerm::PipelineBuffers)] = 2.0 * boundaryTensor;
        if (zeroGathers)
            fb[std::size_t(OtherTerm::ZeroGatheredParameters)] =
                (2.0 * perParam.parameters + perParam.gradients) * largestGatherUnit(plan, s);
        fb[std::size_t(OtherTerm::RecomputeWorkspace)] = recomputeWorkspace;
        double fbDynamic = a.storedBytes();
        for (std::size_t i = 0; i < kOtherTermCount; ++i)
            if (i != std::size_t(OtherTerm::RuntimeContext))
                fbDynamic += fb[i];
        fb[std::size_t(OtherTerm::AllocatorReserve)] = tr.allocatorReserveFraction * fbDynamic;

        // Optimizer-step phase: activations are freed; 16-bit gradients are upcast for the FP32 update.
        std::array<double, kOtherTermCount> opt{};
        opt[std::size_t(OtherTerm::RuntimeContext)] = runtimeContext;
        opt[std::size_t(OtherTerm::DataParallelBuckets)] = fb[std::size_t(OtherTerm::DataParallelBuckets)];
        if (!par.offloadOptimizer && perParam.gradients < kFp32Bytes) {
            const double shardParams = st.parameterCount / (zero >= 1 ? double(d) : 1.0);
            opt[std::size_t(OtherTerm::OptimizerWorkspace)] = kFp32Bytes * shardParams;
        }
        const double optDynamic = opt[std::size_t(OtherTerm::DataParallelBuckets)]
                                  + opt[std::size_t(OtherTerm::OptimizerWorkspace)];
        opt[std::size_t(OtherTerm::AllocatorReserve)] = tr.allocatorReserveFraction * optDynamic;

        const double persistent = st.parametersBytes + st.gradientsBytes + st.optimizerBytes;
        double fbOther = 0, optOther = 0;
        for (std::size_t i = 0; i < kOtherTermCount; ++i) {
            fbOther += fb[i];
            optOther += opt[i];
        }
        st.forwardBackwardBytes = persistent + a.storedBytes() + fbOther;
        st.optimizerStepBytes = persistent + optOther;

        if (st.optimizerStepBytes > st.forwardBackwardBytes) {
            st.peakPhase = MemoryPhase::OptimizerStep;
            st.other = opt;
            st.otherBytes = optOther;
            st.activationsBytes = 0;
            st.peakBytes = st.optimizerStepBytes;
        } else {
            st.peakPhase = MemoryPhase::ForwardBackward;
            st.other = fb;
            st.otherBytes = fbOther;
            st.activationsBytes = a.storedBytes();
            st.peakBytes = st.forwardBackwardBytes;
        }

        if (s == 0 || st.peakBytes > est.peakBytes) {
            est.peakBytes = st.peakBytes;
            est.peakStage = s;
        }
        est.stages.push_back(st);
    }
    est.fits = est.peakBytes <= est.capacityBytes;
    return est;
}

} // namespace trainplan
