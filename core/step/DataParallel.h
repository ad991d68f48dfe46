#pragma once
// Data-parallel synchronisation of one step on the pace stage, as it runs beside the compute (core/step/
// Overlap): ZeRO-3's per-unit gathers and reduce-scatters, the gradient buckets of ZeRO 0-2 behind each
// backward that reduces, the distributed optimizer's parameter gather behind the next forward; the
// slowdown the hidden part costs the compute beside it; the optimizer step on the GPU or, offloaded, its
// transfers and the host's update. Dense parameters reduce over data x context, the routed experts over
// their own expert-data group (Megatron-Core); both share the rank's links.

#include "core/hardware/DeviceSpec.h"
#include "core/memory/MemoryModel.h"
#include "core/memory/ModelState.h"
#include "core/plan/Plan.h"
#include "core/step/StepModel.h"

namespace trainplan {

/// One micro-batch's time on the compute stream of one unit ZeRO-3 gathers, the stage's blocking
/// collectives included (backward with any recompute).
struct UnitTime
{
    double forward = 0, backward = 0;
};

/// What the data-parallel model needs of the pace stage's compute, per micro-batch.
struct StageCompute
{
    UnitTime denseLayer, moeLayer, embedding, output;
    /// A hybrid model's blocks (ModelSpec::hybridPattern): each with half a dense layer's tensor-parallel time
    /// (a MoE block the rest of a MoE layer's), so that an attention block and an MLP block are a transformer layer.
    UnitTime attentionBlock, mambaBlock, denseBlock, moeBlock;
    double forward = 0, backward = 0; ///< the whole stage (kernels and blocking collectives)
    double memoryBoundShare = 0;      ///< of its kernel time: what HBM traffic beside it slows
};

struct DataParallelTime
{
    double exposedSeconds = 0;  ///< the step's exposed data-parallel time, the slowdown included
    double slowdownSeconds = 0; ///< of which: what the hidden collectives cost the compute beside them
    double hiddenSeconds = 0;   ///< collectives that ran beside compute
    double commSeconds = 0;     ///< every data-parallel collective of the step, at the collective model's rates
};

/// Exposed data-parallel synchronisation of the pace stage (`stage`: its memory, for the parameter
/// counts) for the whole step.
DataParallelTime dataParallelTime(const Plan &plan, const DeviceSpec &device, const ClusterLinks &links,
                                  const StateBytesPerParameter &perParam, const StageMemory &stage,
                                  const StageCompute &compute);

/// The two groups a stage's parameters synchronise over: dense ones over data x context, the routed
/// experts over their expert-data group (on the data group's links).
struct ReductionGroups
{
    GroupPlacement dense, experts;
    GroupPlacement replicas; ///< HSDP: the dense gradient shards' all-reduce across replicas (size 1 without it)
    GroupPlacement secondary; ///< ZeRO++ hpZ: the dense backward gathers' group (size 1 without it)
};
ReductionGroups reductionGroups(const Plan &plan, const ClusterLinks &links);

/// Whether Megatron-Core's distributed optimizer gathers MXFP8 parameters in the gradient buffer's format: with
/// fp8_param_gather an MXFP8 run reuses the gradient buffer for the parameter all-gather
/// (reuse_grad_buf_for_mxfp8_param_ag): the updated main parameters are copied into it
/// (`_copy_main_params_to_param_buffer`), gathered, and only then cast into the MXFP8 weights
/// (param_and_grad_buffer.py `_post_param_sync`, copy_tensors_to_quantized_params, at d98e8a64d). Its MoE guide
/// counts the FP8 gather's halving "except MXFP8" (megatron/core/transformer/moe/README.md), and Megatron-Bridge
/// requires the reuse with MXFP8 and fp8_param_gather (training/mixed_precision.py __post_init__ from r0.1.0,
/// bf16_with_mxfp8_mixed). Megatron-FSDP (ZeRO-3) gathers the MXFP8 rows for the forward and the columns for the
/// backward (megatron_fsdp/param_and_grad_buffer.py, the transpose buffer) and turns the reuse off.
bool gathersMxfp8ThroughGradientBuffer(const Plan &plan);

/// The bytes per parameter the data-parallel collectives move: the MXFP8 gather above in the gradient buffer's
/// format; ZeRO++'s qwZ gathers INT8 (1 byte; the block scales are not counted) where the plan gathers 16 bits,
/// and qgZ reduce-scatters INT4 (half a byte) through its all-to-alls (Wang et al. 2023, Secs. 3.1 and 3.3).
StateBytesPerParameter collectiveBytes(const Plan &plan, StateBytesPerParameter perParam);

/// The optimizer step's time: on the GPU, the update of this rank's shard (and the FP8/FP4 weight casts);
/// offloaded (parallel.offload_optimizer), the gradients to the host (DeepSpeed's ZeRO-Offload and FSDP2
/// stream them behind the backward as it produces them; Megatron-Core's CPU optimizer copies them after it),
/// the host's update of every GPU's shard of the node through the host's memory, and the parameters back,
/// both exposed. The shard is the stage's dense parameters over the shard ranks and its experts over their
/// expert-data group. Appends the update (and cast) ops.
struct OptimizerTime
{
    double seconds = 0;
    double hostUpdateSeconds = 0; ///< offload: the host's part
    double transferSeconds = 0;   ///< offload: the transfers' exposed part
};
/// The share of the host's DRAM bandwidth an offloaded Adam step streams at: DeepSpeed's CPUAdam 0.7 (an
/// assumption, STREAM Triad), PyTorch's fused CPU AdamW (Megatron-Core's CPU optimizer, FSDP2) 0.24 (measured).
double hostAdamStreamShare(const Plan &plan);
OptimizerTime optimizerTime(const Plan &plan, const DeviceSpec &device, const StateBytesPerParameter &perParam,
                            const StageMemory &stage, double backwardWindow, std::vector<Op> &ops);

} // namespace trainplan
