#pragma once
// Activation memory of a transformer, following Korthikanti et al. 2022 ("Reducing Activation
// Recomputation in Large Transformer Models", Table 2 and Sec. 4), generalised to grouped-query
// attention, SwiGLU MLPs, models without dropout and 32-bit activations.
//
// For the GPT shape the paper assumes (MHA, 4h GELU MLP, dropout, 16-bit activations) the per-layer
// terms reduce exactly to the paper's formulas:
//   no parallelism           s b h (34 + 5 a s / h)
//   tensor parallel          s b h (10 + 24/t + 5 a s / (h t))
//   tensor + sequence par.   s b h (34/t + 5 a s / (h t))
//   selective recompute      the 5as/h score term is dropped (also with flash attention)
//   full recompute           2 s b h (layer input only; divided by t with sequence parallelism)

#include <algorithm>
#include <cstdint>

#include "core/model/ModelSpec.h"
#include "core/plan/Plan.h"

namespace trainplan {

/// One dense activation tensor, M = B S H q (reference text, Level 2).
inline double activationTensorBytes(double batch, double seq, double hidden, double bytesPerElement)
{
    return batch * seq * hidden * bytesPerElement;
}

/// Bytes per stored activation element: 2 for 16-bit storage (fp16/bf16, and fp8 training, which keeps
/// 16-bit activations between FP8 matrix multiplies), 4 for fp32/tf32.
double activationElementBytes(Precision precision);

/// Bytes per element of a linear layer's input in the format it is computed in. Transformer Engine's FP8 and
/// FP4 recipes (Megatron-Core's linears) quantize the input: te.Linear, LayerNormLinear and GroupedLinear save
/// the quantized tensor (its columnwise copy) for the weight-gradient GEMM (transformer_engine/pytorch/module/
/// linear.py, _Linear.forward: ctx.save_for_backward of the quantized inputmat), and under sequence parallelism
/// a column-parallel layer all-gathers it quantized (gather_along_first_dim with the input quantizer; before
/// TE 2.0 cast_to_fp8 ahead of the gather): 1 byte in FP8 (MX scales, 1/32, left out), 0.5 + 1/16 in NVFP4.
/// Elsewhere, and in BF16, the activations' format.
double savedLinearInputBytes(const TrainingConfig &training);

/// What one MoE layer stores beyond a dense layer of ffn_hidden (one micro-batch, one rank, before the
/// context split): router probabilities, permuted token copies (top-k x imbalance, capped by the capacity
/// factor), expert up and activation outputs, outputs before the combine, shared experts; minus the dense
/// MLP's. 0 for dense models and under full recomputation; under op-level checkpointing (recompute "ops") what
/// torchtitan's policy saves: the expert-parallel dispatch and combine outputs and, as their turns in its count of
/// matmuls fall, the router's and the shared expert's outputs.
double moeLayerExtraActivationBytes(const Plan &plan);
/// Under the "moe" recompute module (training.recompute_moe) and op-level checkpointing: the MoE layer's
/// activations rebuilt during its backward, held for one layer at a time.
double moeLayerRecomputeWorkspaceBytes(const Plan &plan);

/// Stored activation bytes of one transformer layer for one micro-batch on one tensor rank.
struct LayerActivationBytes
{
    double sequenceShardable = 0; ///< norm inputs, QKV/MLP inputs, dropout masks: / t only with sequence parallelism
    double tensorSharded = 0;     ///< Q, K, V, context, MLP intermediates: / t
    double attentionScores = 0;   ///< softmax output, dropout mask and output: / t; 0 when not stored
    double total() const { return sequenceShardable + tensorSharded + attentionScores; }
};

/// What one block of each kind of a hybrid model keeps for backward, one micro-batch, one rank, before the context
/// split (ModelSpec::hybridPattern), under the plan's recompute: the attention block the norm input, the QKV input,
/// Q, K, V and the context (and the scores when they are stored); a dense MLP block its norm input, its input and
/// its intermediates; a MoE block its norm input and input and what moeMlpActivationBytes counts; a Mamba-2 block
/// its norm input, the in-projection's input, the projection's output zxbcdt and the scan's output out_x (what
/// mamba_ssm's MambaSplitConv1dScanCombinedFn saves), the grouped norm's input and the out-projection's input.
/// Full recomputation keeps each block's input (Megatron-Core checkpoints every layer, one block each here).
struct HybridBlockActivations
{
    double attention = 0, mamba = 0, denseMlp = 0, moeMlp = 0;
    double max() const { return std::max(std::max(attention, mamba), std::max(denseMlp, moeMlp)); }
    /// What `b`'s blocks keep together.
    double of(const ModelSpec::BlockCounts &b) const
    {
        return double(b.attention) * attention + double(b.mamba) * mamba + double(b.denseMlp) * denseMlp +
               double(b.moeMlp) * moeMlp;
    }
};
HybridBlockActivations hybridBlockActivations(const Plan &plan, bool full = false);

/// What one layer keeps for backward under the plan's recompute, flash and sequence-parallel choices.
LayerActivationBytes storedLayerActivations(const ModelSpec &model, const TrainingConfig &training,
                                            std::int64_t tensor);

/// What one layer would keep with no recomputation at all (the input to recompute trade-offs).
LayerActivationBytes fullLayerActivations(const ModelSpec &model, const TrainingConfig &training, std::int64_t tensor);

/// Transient bytes materialised while one layer's backward replays its forward: the whole layer under
/// full recompute, the attention scores under selective recompute (none with flash attention).
double recomputeWorkspaceBytes(const ModelSpec &model, const TrainingConfig &training, std::int64_t tensor);

/// First stage, per micro-batch: the embedding-output dropout mask (Korthikanti Sec. 4.3).
double embeddingActivationBytes(const ModelSpec &model, const TrainingConfig &training, std::int64_t tensor);

/// Last stage, per micro-batch: final-norm input, output-projection input and FP32 logits for the
/// cross-entropy, 4 s b V / t (Korthikanti Sec. 4.3).
double outputActivationBytes(const ModelSpec &model, const TrainingConfig &training, std::int64_t tensor);

/// Micro-batches whose activations pipeline rank `stage` holds at its peak, in units of the rank's
/// full set of layers:
///   no pipeline: 1 (micro-batches run one after another: gradient accumulation);
///   GPipe: all m (every forward runs before any backward);
///   1F1B and ZB-H1: min(p - stage, m) (Narayanan et al. 2021; Korthikanti Eq. 5; Qi et al. 2024);
///   interleaved with v chunks: min(2(p - stage - 1) + (v - 1) p + 1, m v) / v chunk-micro-batches,
///   Megatron-LM's warm-up count; on the first rank this is p (1 + (p - 1)/(p v)) (Korthikanti Sec. 4.2.3).
double microbatchesInFlight(Schedule schedule, std::int64_t pipeline, std::int64_t virtualStages,
                            std::int64_t microbatches, std::int64_t stage);

/// What a zero-bubble stage (ZB-H1, ZB-H2) holds where its order (core/pipeline/ZeroBubbleOrder.h) holds the
/// most bytes: micro-batches between their F and their B, each `inFlightBytes`, and micro-batches past their B
/// whose W has not run, each `pendingBytes`. Stage s keeps as many W's pending as its warm-up is short of the
/// first stage's, so every stage holds at most p (ZB-H1) or 2p - 1 (ZB-H2) micro-batches between F and W.
struct ZeroBubbleHeld
{
    double inFlight = 0;
    double pending = 0;
};
ZeroBubbleHeld zeroBubbleHeld(Schedule schedule, std::int64_t pipeline, std::int64_t microbatches, std::int64_t stage,
                              double inFlightBytes, double pendingBytes);

/// What one micro-batch waiting for its W holds on one rank, per layer: every linear layer's input and output
/// gradient, which the zero-bubble fork keeps for the deferred weight-gradient GEMM (WeightGradStore.put of
/// grad_output and input, megatron/core/tensor_parallel/layers.py at 39f2c186; its own estimate, 32 h bytes per
/// token for GPT's layer, runtime.py `w_mem_approx`). A mixture-of-experts layer's experts hold the same for
/// their routed token copies.
double pendingWeightGradientBytes(const Plan &plan, bool moeLayer);

} // namespace trainplan
