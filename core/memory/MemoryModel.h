#pragma once
// Per-GPU memory of every pipeline stage, by component, at the stage's peak over the step.
//
// The step has two phases whose memory differs:
//   forward/backward: model state + stored activations of the micro-batches in flight + transient
//                     buffers (runtime context, gradient buckets, pipeline buffers, ZeRO-3 gathered
//                     parameters, recompute workspace) + allocator reserve;
//   optimizer step:   model state + runtime context + gradient buckets + optimizer workspace + reserve.
// A stage's peak is the larger phase, not the sum of everything ever allocated. Components reported for
// a stage describe that peak moment, so parameters + gradients + optimizer + activations + other = peak.
//
// Three peaks, as GPUs are reported (MemoryTerms.h, MemoryKind): allocated (the tensors), reserved (+ the
// caching allocator's rounding and fragmentation; segments are never returned, so the reserved peak keeps
// what the forward/backward phase reserved when the optimizer step's requests do not fit in it) and device
// (+ CUDA context, NCCL buffers, library workspaces). peakBytes is the device peak; fits compares it.

#include <algorithm>
#include <array>
#include <string>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/hardware/DeviceSpec.h"
#include "core/memory/MemoryTerms.h"
#include "core/memory/ModelState.h"
#include "core/plan/Plan.h"
#include "core/common/EnumNames.h"

namespace trainplan {

enum class MemoryPhase { ForwardBackward, OptimizerStep };
constexpr auto enumNames(MemoryPhase)
{
    return std::array{EnumName<MemoryPhase>{MemoryPhase::ForwardBackward, "forward_backward", "Forward/backward"},
                      EnumName<MemoryPhase>{MemoryPhase::OptimizerStep, "optimizer_step", "Optimizer step"}};
}
inline const char *toString(MemoryPhase v) { return spellingOf(v); }

struct StageActivations
{
    std::int64_t layers = 0;            ///< transformer layers on this rank (all chunks)
    double perLayerBytes = 0;           ///< one layer, one micro-batch, as stored for backward
    double microbatchesInFlight = 0;    ///< at the stage's peak, in units of all its layers
    double layerBytes = 0;              ///< layers x perLayerBytes x microbatchesInFlight (kept on the device)
    std::int64_t recomputedLayers = 0;  ///< of the layers, those full recomputation replays (training.recompute_layers)
    std::int64_t offloadedLayers = 0;   ///< of the layers, those whose activations go to host memory
    double offloadedBytes = 0;          ///< their activations in host memory at the peak (not on the device)
    double embeddingBytes = 0;          ///< first stage: embedding dropout mask x in flight
    double outputBytes = 0;             ///< last stage: logits and output inputs x in flight
    double weightGradientsPending = 0;  ///< zero-bubble: micro-batches past B whose W has not run, at the peak
    double pendingWeightGradientBytes = 0; ///< what those keep for W: their linear layers' inputs and gradients
    double storedBytes() const { return layerBytes + embeddingBytes + outputBytes + pendingWeightGradientBytes; }
};

struct StageMemory
{
    std::int64_t stage = 0;
    double parameterCount = 0; ///< parameters of this stage on one tensor rank (before ZeRO sharding)
    double expertParameterCount = 0; ///< of which routed-expert parameters (this rank's expert shard)
    double expertParametersBytes = 0; ///< their share of parametersBytes

    double parametersBytes = 0;
    double gradientsBytes = 0;
    double optimizerBytes = 0; ///< on the GPU; 0 when offloaded
    double activationsBytes = 0; ///< at the peak phase (0 if the optimizer step is the peak)
    std::array<double, kOtherTermCount> other{}; ///< transient terms at the peak phase
    double otherBytes = 0;
    double peakBytes = 0;
    double capacityBytes = 0; ///< memory of the device holding this stage (the smallest, in a mixed cluster)
    MemoryPhase peakPhase = MemoryPhase::ForwardBackward;

    StageActivations activations;  ///< stored activations in the forward/backward phase, itemised
    double forwardBackwardBytes = 0;
    double optimizerStepBytes = 0;
    double hostOptimizerBytes = 0; ///< optimizer state moved to host memory by offload
    double hostParametersBytes = 0; ///< ZeRO-3 parameter shards moved to host memory by parameter offload

    /// The three peaks of this stage over the step (each phase's maximum; reserved never decreases).
    double allocatedBytes = 0;
    double reservedBytes = 0;
    double deviceBytes = 0; ///< = peakBytes
    /// The allocator overhead of the peak phase, itemised (their sum is the AllocatorReserve term).
    struct AllocatorDetail
    {
        double roundingBytes = 0;      ///< live blocks rounded up to the allocator's sizes
        double fragmentationBytes = 0; ///< free space pinned inside segments by interleaved lifetimes
        bool fractionOverride = false; ///< allocator_reserve_fraction replaced the model
    } allocator;

    double otherTerm(OtherTerm t) const { return other[std::size_t(t)]; }
    /// Sum of the peak phase's terms of one kind (persistent state and activations are allocated).
    double otherOfKind(MemoryKind kind) const;
};

/// Share of a held micro-batch's activation blocks pinned by the blocks later micro-batches allocate and
/// free around them (fitted on the zero-bubble pipeline runs' reserved peaks; docs/CALIBRATION.md).
inline constexpr double kAllocatorPinnedShare = 0.10;

struct MemoryEstimate
{
    double capacityBytes = 0;
    double peakBytes = 0; ///< maximum over stages of the device-used peak
    std::int64_t peakStage = 0;
    bool fits = false;
    /// Maxima over stages of each kind of peak (deviceBytes = peakBytes).
    double allocatedBytes = 0;
    double reservedBytes = 0;
    double deviceBytes = 0;
    /// The plan's training.memory_margin as bytes of capacity; tight: fits, but within the margin.
    double marginBytes = 0;
    bool tight = false;
    std::vector<StageMemory> stages;

    /// Least free memory over stages (each against its own device's capacity).
    double headroomBytes() const
    {
        if (stages.empty())
            return capacityBytes - peakBytes;
        double least = stages.front().capacityBytes - stages.front().peakBytes;
        for (const StageMemory &s : stages)
            least = std::min(least, s.capacityBytes - s.peakBytes);
        return least;
    }
};

/// The `n` largest components of a stage at its peak (parameters, gradients, optimizer, activations and
/// each other term), largest first, with their labels: what a tight plan should shrink.
std::vector<std::pair<const char *, double>> largestComponents(const StageMemory &stage, std::size_t n);

/// What would push a tight plan over: of the peak stage's estimated terms (stored activations and the
/// transient buffers; the model state is exact arithmetic), the largest, and how much it may grow before the
/// stage's peak reaches capacity. label is null for a plan without stages.
struct MemoryPressure
{
    const char *label = nullptr;
    double bytes = 0;
    double headroomBytes = 0;    ///< the peak stage's free memory
    double growthToOverflow = 0; ///< headroom / bytes: the fraction by which the term may grow
};
MemoryPressure memoryPressure(const MemoryEstimate &memory);

/// One layer's stored activations on one rank for one micro-batch, as the allocator sees them: per part
/// (sequence-shardable, tensor-sharded, attention scores) its bytes and the size of one of its tensors
/// (an h-wide activation sharded as the part is; one rank's score matrices).
struct LayerStoredTensors
{
    std::array<double, 3> partBytes{};
    std::array<double, 3> unitBytes{};
};
LayerStoredTensors layerStoredTensors(const Plan &plan);

/// One of the gradients one layer's backward holds at once (two are live): q b (s/c) (a s / t when the
/// scores are stored + ffn / t).
double layerBackwardGradientBytes(const Plan &plan);

/// PyTorch's caching allocator's bytes for a request of `size` (CUDACachingAllocator: 512-byte blocks;
/// requests under 1 MiB from 2 MiB small segments; 1-10 MiB requests carved from shared 20 MiB segments,
/// the segment's unusable tail shared among them; larger ones rounded up to 2 MiB).
double allocatorBlockBytes(double size);

/// Pure function of a validated plan and its device. Never throws.
MemoryEstimate estimateMemory(const Plan &plan, const DeviceSpec &device);

/// The logits of one micro-batch on one rank of the last stage: (s/c) b V / t.
double logitsPerMicrobatch(const Plan &plan);
/// What the cross-entropy holds per logit at the loss's peak, by training.loss_kernel (PlanEnums.h,
/// LossKernel): inplace 6, eager 12 (16 split over tensor ranks), fused and te 4 bytes.
double lossBytesPerLogit(const Plan &plan);
/// Of that, what the stored FP32 logits (4 bytes, in the activations) do not already count, for one
/// micro-batch: the loss-workspace term.
double lossWorkspaceBytes(const Plan &plan);
/// With training.keep_pipeline_outputs, PyTorch's pipelining (framework fsdp, pipeline stages) keeps every
/// micro-batch's 16-bit logits on the last stage until the step ends: at its last backward, the other m - 1
/// beside the one in flight (a part of the last stage's pipeline buffers). 0 otherwise.
double keptPipelineOutputBytes(const Plan &plan);
/// The last stage's buffers for Megatron-Core's deferred output-layer weight gradients
/// (training.defer_embedding_wgrad): each deferred micro-batch's logit gradients and output-layer input.
double deferredWeightGradientBytes(const Plan &plan);

/// One context rank's keys and values for one layer and micro-batch: its s / c tokens x 2 kv / t, in the
/// activation format (what a ring step passes on).
double contextKvChunkBytes(const Plan &plan);

/// Context parallelism's transient KV buffers on one rank for the layer being computed (0 without it):
/// ring: a block in hand and one in flight, each K, V and (backward) their gradients of s / c tokens;
/// all-gather: K and V of the whole sequence; all-to-all: Q, K, V and the context in both layouts.
double contextKvBufferBytes(const Plan &plan);

/// With tied embeddings and more than one stage, the last rank keeps its own copy of the word embedding
/// for the output projection (Megatron-LM): vocab x hidden / tensor parameters; 0 otherwise.
double lastStageEmbeddingCopy(const Plan &plan);

/// One rank's parameters of each kind of unit ZeRO-3 gathers (the tensor and expert splits applied, before
/// ZeRO's sharding): a dense layer; a mixture-of-experts layer's dense part (attention, router, shared
/// experts) and its share of the routed experts, which ZeRO-3 gathers over the expert-data group; the
/// embedding (first stage) and the output side (last stage: final norm, output layer, the tied copy and
/// the MTP modules, whose routed experts are `outputExperts`).
struct UnitParameters
{
    double denseLayer = 0, moeLayer = 0, moeLayerExperts = 0, embedding = 0, output = 0, outputExperts = 0;
    double outputVectors = 0; ///< of `output`, what is no layer's weight matrix (the output layer, copy, MTP norms)
};
UnitParameters unitParameters(const Plan &plan);
/// Bytes one all-gather of `dense` parameters of `stage` moves: the embedding (first stage) and the output layer
/// (last stage) in their 16-bit format (StateBytesPerParameter::edgeGathered), the rest at `b.gathered`.
double denseGatheredBytes(const Plan &plan, std::int64_t stage, double dense, const StateBytesPerParameter &b);

} // namespace trainplan
