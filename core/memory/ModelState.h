#pragma once
// Persistent model state: parameters, gradients and optimizer tensors, and how ZeRO shards them.
//
//   M_state = P (q_p + q_g + q_o)                              (reference text, Level 3)
//   ZeRO stage 1 divides the optimizer term by W, stage 2 also the gradient term, stage 3 also the
//   parameter term (Rajbhandari et al. 2020, Table 1).

#include <array>
#include <cstdint>

#include "core/plan/Plan.h"

namespace trainplan {

struct StateBytesPerParameter
{
    double parameters = 0; ///< q_p
    double gradients = 0;  ///< q_g
    double optimizer = 0;  ///< q_o: moments (+ FP32 master copy when parameters are 16-bit)
    double master = 0;     ///< the FP32 master copy's share of q_o (0 with 32-bit storage)
    /// The low-precision weight copies' share of q_p: the FP8/FP4 family keeps each weight quantized for the
    /// forward (row-wise) and the backward (column-wise or transposed) matmuls, with their block scales, where
    /// the framework keeps them between uses: Megatron-Core and Megatron-DeepSpeed (megatron/model/transformer.py,
    /// lines 2078-2104) pass Transformer Engine's is_first_microbatch, which caches them; PyTorch's FSDP keeps none.
    double lowPrecisionCopies = 0;
    double gathered = 0;   ///< bytes per parameter in a parameter all-gather (ZeRO, distributed optimizer)
    /// Bytes per parameter of what a low-precision gather (fp8_param_gather) leaves in its 16-bit storage: the
    /// embedding and the output layer, which are no FP8 linears (torchtitan's float8 converter skips `output`,
    /// float8.py at 9dec370 and the tomls' filter_fqns since; Megatron-Core's output layer and embeddings are
    /// not Transformer Engine FP8 modules). 0: the same as `gathered`.
    double gatheredUnquantized = 0;
    double reduced = 0;    ///< bytes per gradient in the data-parallel reduction (all-reduce, reduce-scatter)
    /// Muon and Adaptive Muon: the moment bytes the parameters they leave out (embeddings, the output layer, norms)
    /// keep beyond what `optimizer` counts for every parameter: Adam's second moment beside Muon's one (+), Lion's
    /// one momentum beside Adaptive Muon's two (-), nothing otherwise.
    double nonMatrixMomentBytes = 0;

    double total() const { return parameters + gradients + optimizer; }
    double edgeGathered() const { return gatheredUnquantized > 0 ? gatheredUnquantized : gathered; }
    /// Bytes one all-gather of `parameters` moves, `edge` of them the embedding's or the output layer's.
    double gatheredBytes(double parameters, double edge = 0.0) const
    {
        return (parameters - edge) * gathered + edge * edgeGathered();
    }
    /// The reference text's mixed-precision Adam: 2 + 2 + (4 master + 8 moments) = 16 bytes per parameter.
    static StateBytesPerParameter mixedPrecisionAdam() { return {2, 2, 12, 4, 0, 2, 2}; }
};

/// The bytes a weight's quantized copies take for a low-precision matmul format: a row-wise and a column-wise
/// copy (FP8: 1 byte each; MXFP8 with an E8M0 scale per 32; NVFP4 half a byte with an E4M3 scale per 16); 0 for
/// 16- and 32-bit formats.
double quantizedWeightBytes(Precision precision);

/// Bytes per parameter for a precision and optimizer.
///  - 16-bit storage (fp16, bf16, fp8): q_p = 2, q_g = 2 (4 with fp32Gradients); Adam q_o = 4 (FP32
///    master) + 8 (two FP32 moments) = 12; SGD q_o = 4 (master) + 4 (momentum) = 8.
///  - 32-bit storage (fp32, tf32): q_p = q_g = 4; Adam q_o = 8; SGD q_o = 4 (no separate master copy).
StateBytesPerParameter stateBytesPerParameter(Precision precision, Optimizer optimizer, bool fp32Gradients = false);
/// The plan's training choices, with the FP8/FP4 family's weight copies: per-tensor and blockwise FP8 and
/// MXFP8 keep a row-wise and a column-wise 1-byte copy of every weight (Transformer Engine's Float8Tensor
/// and its transpose; MX adds one E8M0 scale per 32 elements each), NVFP4 two half-byte copies with an
/// E4M3 scale per 16 elements; with fp8_param_gather the BF16 working copy is dropped and parameters are
/// all-gathered in FP8 (Megatron-Core --fp8-param-gather). Under PyTorch's FSDP (framework "fsdp") the sharded
/// parameter is the optimizer's copy: FSDP casts it to the 16-bit compute dtype only when it gathers a unit,
/// and its gradient shard is in the parameter's dtype; fp32_gradients sets the reduction's dtype alone. Nor does
/// it keep quantized weights: they exist only gathered (fp8_param_gather) or inside the matmul that casts them.
StateBytesPerParameter stateBytesPerParameter(const TrainingConfig &training);

struct ModelStateBytes
{
    double parameters = 0;
    double gradients = 0;
    double optimizer = 0;
    double master = 0; ///< the FP32 master copy's part of `optimizer`

    double moments() const { return optimizer - master; }
    double total() const { return parameters + gradients + optimizer; }
};

/// Per-worker model state of `parameterCount` parameters replicated over `workers` data-parallel ranks
/// with the given ZeRO stage.
ModelStateBytes shardedModelState(double parameterCount, const StateBytesPerParameter &bytes, double workers,
                                  std::int64_t zeroStage);

/// Figure 16.2: the per-worker state replicated (ZeRO-0) and with ZeRO stages 1, 2 and 3.
std::array<ModelStateBytes, 4> zeroStageComparison(double parameterCount, const StateBytesPerParameter &bytes,
                                                   double workers);

} // namespace trainplan
