#pragma once
// One kernel of a training step with its real shape after the tensor/sequence split: FLOPs and bytes
// moved to and from HBM, and its time on a device.

#include <array>
#include <cstdint>

#include "core/common/EnumNames.h"

#include "core/hardware/DeviceSpec.h"
#include "core/common/Precision.h"
#include "core/plan/PlanEnums.h"

namespace trainplan {

enum class OpKind { Matmul, Attention, Elementwise, Norm, Embedding, Loss, Optimizer };
constexpr auto enumNames(OpKind)
{
    using N = EnumName<OpKind>;
    return std::array{N{OpKind::Matmul, "matmul", "Matmul"}, N{OpKind::Attention, "attention", "Attention"},
                      N{OpKind::Elementwise, "elementwise", "Element-wise"}, N{OpKind::Norm, "norm", "Norm"},
                      N{OpKind::Embedding, "embedding", "Embedding"}, N{OpKind::Loss, "loss", "Loss"},
                      N{OpKind::Optimizer, "optimizer", "Optimizer"}};
}
inline const char *toString(OpKind v) { return spellingOf(v); }
enum class OpPass { Forward, Backward, Recompute };
constexpr auto enumNames(OpPass)
{
    using N = EnumName<OpPass>;
    return std::array{N{OpPass::Forward, "forward", "Forward"}, N{OpPass::Backward, "backward", "Backward"},
                      N{OpPass::Recompute, "recompute", "Recompute"}};
}
inline const char *toString(OpPass v) { return spellingOf(v); }
/// Which part of the model an op belongs to; multiplies it by the layers of a stage or places it on
/// the first/last stage.
enum class OpScope { Layer, Embedding, Output, Step };
/// Which layers a Layer op belongs to: all of them, or (in a mixture of experts) only the dense-MLP layers
/// or only the MoE layers; the step model multiplies each by its count on the stage. In a hybrid model each
/// part is one kind of block: Common the attention blocks, DenseMlp and MoeMlp the MLP blocks, Mamba the
/// Mamba-2 mixers (ModelSpec::blocksIn).
enum class LayerPart { Common, DenseMlp, MoeMlp, Mamba };
/// What selective recomputation's modules and the views single out, beside an op's kind and part: MLA's up
/// projections (mla_up_proj), the routed experts' grouped GEMMs and their activation function (moe_act).
/// What a kernel is within its layer, where a rule needs more than its kind: recompute modules, the experts'
/// grouped GEMMs, the router, and the projections op-level checkpointing saves or replays.
enum class OpRole {
    None,
    MlaUpProjection,
    ExpertGemm,
    ExpertActivation,
    Router,
    QkvProjection, ///< the fused projection, or the query and value GEMMs with training.separate_qkv
    KeyProjection, ///< the key GEMM with training.separate_qkv
    OutputProjection,
    MlpUp,
    MlpActivation, ///< a dense or shared MLP's activation function (the routed experts' is ExpertActivation)
    MlpDown,
    LatentProjection ///< a latent MoE's projection into or out of the latent width
};

struct Op
{
    const char *name = "";
    OpKind kind = OpKind::Elementwise;
    OpPass pass = OpPass::Forward;
    OpScope scope = OpScope::Layer;
    double flops = 0;
    double bytes = 0;
    double seconds = 0; ///< filled by timeOp()
    bool memoryBound = false;
    bool attentionCore = false; ///< QK^T, softmax, PV or the fused kernel: what a context-parallel ring overlaps
    LayerPart part = LayerPart::Common;
    OpRole role = OpRole::None;
    /// Shape on this rank: matmuls and attention [rows x inner] x [inner x cols], `batch` times (batch 0:
    /// not a matmul); other ops touch `rows` elements.
    double batch = 0, rows = 0, inner = 0, cols = 0;
    /// Launches the host makes from the framework for this op, each at the host's launch cost (a matmul's
    /// backward: the input and the weight gradient; a mixture of experts' routing and permutation: their
    /// several kernels; DeepSpeed's experts: one call per local expert).
    double launches = 1;
    /// The launches of this op's backward where they are not the forward's (a fused router's backward is
    /// fewer kernels than its forward); negative: backwardOf's rule.
    double backwardLaunches = -1;
    /// The bytes this op's backward moves where backwardOf's rule does not apply (a fused cross-entropy's
    /// backward rescales the gradient its forward wrote); negative: backwardOf's rule.
    double backwardBytes = -1;
    /// The FLOPs of this op's backward where backwardOf's rule does not apply (the SSD scan's backward kernels
    /// replay and differentiate its forward's); negative: backwardOf's rule.
    double backwardFlops = -1;
    /// Kernels a library's native code enqueues inside those launches, each at the host's enqueue cost:
    /// Transformer Engine's GroupedLinear runs a GEMM per local expert from one call (and its backward
    /// one per expert in each of its two calls); its grouped quantize one cast per expert.
    double enqueues = 0;
    /// A matmul run as one GEMM kernel per batch entry (the local experts' GEMMs): how many of them run at once
    /// (Transformer Engine's grouped GEMMs: its compute streams; DeepSpeed's experts: one after another).
    /// 0: one kernel for the whole batch (a batched or grouped GEMM).
    double concurrentKernels = 0;

    double intensity() const { return bytes > 0 ? flops / bytes : 0.0; }
};

/// Time of one op: the larger of FLOPs / (peak x matmul efficiency) and bytes / (HBM bandwidth x memory
/// efficiency), each efficiency depending on the op's size (DeviceSpec::EfficiencyCurve).
/// `attentionShare`: the attention kernel's speed over the device's fused one (DeviceSpec::flash2AttentionShare).
/// `matmulShare`: a matmul kernel's speed over the format's usual one (kRowwiseFp8GemmShare).
void timeOp(Op &op, const DeviceSpec &device, Precision precision, double attentionShare = 1.0,
            double matmulShare = 1.0);

/// torchao's rowwise float8 (training.fp8_recipe rowwise) over its tensorwise float8, per FP8 matmul: the CUTLASS
/// rowwise-scaled GEMM in place of cuBLAS's tensorwise one ("Fastest option" is tensorwise, torchao/float8/config.py
/// at 36027d82d) and the casts along the other axis the weight gradient needs. One figure, fitted on torchao's one
/// published pair (docs/source/workflows/training.md: Llama 3 8B on 8 H100, micro-batch 1, 8,192 tokens, compiled,
/// FSDP2, per-op checkpointing: BF16 6,150 tokens/s, tensorwise with float8 all-gather 7,689.5, rowwise with BF16
/// all-gather 6,768; docs/CALIBRATION.md).
constexpr double kRowwiseFp8GemmShare = 0.73;

/// FlashAttention-2 over the FlashAttention written in Triton: "1.3-2.5x faster than FlashAttention in Triton"
/// (Dao 2023, FlashAttention-2, Sec. 4.1, A100, forward and backward); the bottom of that range, where A100's
/// published runs of both kernels put it (docs/CALIBRATION.md, "Attention kernel").
constexpr double kFlash2OverTritonSpeed = 1.3;

/// Transformer Engine's GroupedLinear (Megatron-Core's grouped expert GEMMs) runs one cuBLAS GEMM per local expert,
/// round-robin over its compute streams: transformer_engine/common/gemm/cublaslt_gemm.cu multi_stream_cublas_gemm,
/// util/multi_stream.cpp num_compute_streams = 4 (TransformerEngine d0067d0; the CUTLASS grouped kernel is opt-in,
/// NVTE_USE_CUTLASS_GROUPED_GEMM, Hopper BF16 only). Each GEMM pays the small-size cost of its own size (the
/// efficiency curve's half size); four streams overlap four of them.
constexpr double kGroupedGemmStreams = 4.0;

/// The small-size costs an op pays one after another: 1 for one GEMM (or one grouped kernel, or a matmul's
/// input and weight gradients, calibrated as one), local experts / concurrentKernels for per-expert GEMMs.
double kernelsInSeries(const Op &op);

/// The attention kernel's speed over the device's fused one: FlashAttention-2 at the device's
/// flash2_attention_share, the Triton kernel that over kFlash2OverTritonSpeed.
double attentionKernelShare(AttentionKernel kernel, const DeviceSpec &device);

/// The head dimension a kernel computes a head of `headDim` with, its columns beyond `headDim` computed as zeros.
/// FlashAttention-2 is compiled for head sizes 32, 64, 96, 128, 160, 192, 224 and 256 and runs a head on the
/// smallest that holds it (flash-attn csrc/flash_attn/src/static_switch.h, HEADDIM_SWITCH; flash_api.cpp:
/// head_size_rounded = round_multiple(head_size, 32) up to 192, else 256; PyTorch's SDPA flash backend vendors the
/// same kernels): a head of 112 runs as 128, one of 80 as 96. The Triton kernel's block is the next power of two,
/// at least 16 (flash_attn_triton.py: BLOCK_HEADDIM = max(triton.next_power_of_2(d), 16)). The fused kernels' is
/// taken as it is (no published rule; "fused" on Ampere is FA2 as Transformer Engine runs it, left unrounded too:
/// every Ampere row with flash attention has heads of 128).
double kernelHeadDim(AttentionKernel kernel, double headDim);

} // namespace trainplan
