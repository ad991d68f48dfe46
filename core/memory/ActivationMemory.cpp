#include "core/memory/ActivationMemory.h"
#include "core/pipeline/ZeroBubbleOrder.h"

#include <algorithm>

namespace trainplan {

namespace {

constexpr double kMaskBytes = 1.0; // dropout masks are stored as bytes
constexpr double kLogitBytes = 4.0; // logits are upcast to FP32 for the cross-entropy

/// PyTorch's tensor parallelism (DTensor, under framework fsdp) with sequence parallelism: a column-parallel
/// linear's autograd saves the input it was given, the all-gathered whole sequence (torch ColwiseParallel
/// after SequenceParallel; torchtitan apply_tp), where Megatron-Core saves the shard and all-gathers it again
/// in backward (Korthikanti et al. 2022, Sec. 4.2.2). The bytes per element of such a gathered input:
/// float8 under torchao's float8 tensor parallelism, else the activations' format; 0 when it does not apply.
double wholeSequenceInputBytes(const TrainingConfig &training, std::int64_t tensor, bool float8Gather)
{
    if (training.framework != Framework::Fsdp || !training.sequenceParallel || tensor <= 1)
        return 0.0;
    return float8Gather && training.gathersActivationsInFloat8() ? 1.0 : activationElementBytes(training.precision);
}

/// Bytes per MLP-width element a clamped activation keeps beside the unclamped one's: the clamps keep the up
/// projection's output (both halves, 2 elements per width) and the activation keeps the clamped copy
/// (runsEagerActivationClamp); the activation's own input is the clamped copy, so the up output is the extra.
double clampCopyBytes(const ModelSpec &m, const TrainingConfig &training)
{
    return runsEagerActivationClamp(m, training) ? 2.0 * activationElementBytes(training.precision) : 0.0;
}

/// A dense MLP's own stored tensors on one tensor rank for one micro-batch: GELU (and squared ReLU) keep the
/// activation's input and output, SwiGLU the gate and up outputs and their product; the last of them is the second
/// projection's input, kept as the linears keep their inputs. The MLP's input is the norm's, counted with the layer;
/// Megatron-Core's "mlp" recompute module keeps only that and rebuilds these in backward.
double denseMlpBytes(const ModelSpec &m, const TrainingConfig &training, std::int64_t tensor)
{
    const double q = activationElementBytes(training.precision), lp = savedLinearInputBytes(training);
    const double sb = double(m.seqLen) * double(training.microBatch);
    return ((m.mlp == MlpKind::SwiGlu ? 2.0 : 1.0) * q + lp + clampCopyBytes(m, training)) * sb * double(m.ffnHidden) /
           double(tensor);
}

LayerActivationBytes layerActivations(const ModelSpec &m, const TrainingConfig &training, std::int64_t tensor,
                                      bool keepScores, bool keepMlp = true)
{
    const double q = activationElementBytes(training.precision);
    const double sb = double(m.seqLen) * double(training.microBatch);
    const double h = double(m.hidden);
    const double kv = double(m.kvDim());
    const double qd = double(m.qDim()); // h unless head_dim says otherwise
    const double t = double(tensor);
    const double d = m.dropout ? 1.0 : 0.0;

    LayerActivationBytes a;
    const double lp = savedLinearInputBytes(training);
    // Two norm inputs (q each), the QKV input and the MLP input (as the linears keep them), two dropout masks
    // (1 byte each).
    a.sequenceShardable = sb * h * (2.0 * q + 2.0 * lp + 2.0 * d * kMaskBytes);
    if (training.sequenceParallel)
        a.sequenceShardable /= t;
    // DTensor's sequence parallelism keeps the QKV and MLP inputs whole, as gathered.
    if (const double whole = wholeSequenceInputBytes(training, tensor, true); whole > 0)
        a.sequenceShardable += 2.0 * sb * h * (whole - q / t);
    // Q and K for the scores, V for the context, the context itself (output-projection input). Multi-head
    // latent attention also keeps the latents its up projections read (query and key/value, with the
    // shared rotary key), on every tensor rank; recomputing the up projections (mla_up_proj) keeps only
    // those and rebuilds Q, K and V in backward.
    const bool rebuildQkv =
        m.isMla() && training.recompute == Recompute::Selective && training.recomputeMlaUpProjection;
    // The attention kernel keeps K and V as it reads them: repeated to the query heads with training.repeat_kv_heads.
    const double akv = double(attentionKvDim(m, training));
    double sharded = (rebuildQkv ? 0.0 : q * sb * (qd + akv) + q * sb * akv) + lp * sb * qd;
    if (m.isMla())
        a.sequenceShardable += q * sb * double(m.qLoraRank + m.kvLoraRank + m.qkRopeHeadDim);
    a.tensorSharded = sharded / t + (keepMlp ? denseMlpBytes(m, training, tensor) : 0.0);
    // Eager element-wise chains as torchtitan writes them (no torch.compile): RMSNorm saves its FP32 upcast
    // and its normalised output in place of the 16-bit input (+4 bytes per element for each of the two norms),
    // the rotary embedding its FP32 queries and keys (+4 per element); torch.compile's kernels save only
    // what the fused norm and rotary do (Llama's reference RMSNorm._norm(x.float()).type_as(x) and
    // apply_rotary_emb; LayerOps.cpp normOp, appendEagerRotary).
    if (runsEagerRmsNorm(m, training))
        a.sequenceShardable += 2.0 * kFp32Bytes * sb * h / (training.sequenceParallel ? t : 1.0);
    if (runsEagerRotary(m, training))
        a.tensorSharded += kFp32Bytes * sb * (qd + kv) / t;
    if (keepScores) {
        // Softmax output (q), plus dropout mask (1) and dropout output (q) when attention dropout is on.
        const double perScore = q + d * (kMaskBytes + q);
        a.attentionScores = perScore * double(m.heads) * double(m.seqLen) * sb / t;
    }
    return a;
}

/// Routed token copies the busiest rank's experts see in one micro-batch: its tokens' top-k copies at the
/// busiest expert's load, over the tensor ranks.
double routedCopies(const Plan &plan)
{
    const TrainingConfig &training = plan.training;
    return double(plan.model.seqLen) * double(training.microBatch) * double(plan.model.expertsPerToken) /
           double(plan.parallel.tensor) * training.busiestExpertLoad();
}

/// What one MoE layer's MLP stores for one micro-batch on one rank (its own tensors, not the dense MLP's).
double moeMlpActivationBytes(const Plan &plan)
{
    const ModelSpec &m = plan.model;
    const TrainingConfig &training = plan.training;
    const double q = activationElementBytes(training.precision);
    const double t = double(plan.parallel.tensor);
    const double sb = double(m.seqLen) * double(training.microBatch);
    // Kept per expert row: SwiGLU's gate and up outputs and their product (GELU: input and output); the
    // product (output) is rebuilt in backward under moe_act recomputation.
    const bool rebuildAct = training.recompute == Recompute::Selective && training.recomputeExpertActivation;
    const double denseAct = m.mlp == MlpKind::SwiGlu ? 3.0 : 2.0;
    const double act = denseAct - (rebuildAct ? 1.0 : 0.0);
    const double copies = routedCopies(plan);
    // Router probabilities (FP32), the permuted expert inputs, the experts' up/activation outputs, their
    // outputs before the weighted combine; shared experts like a dense MLP of their width.
    // The permuted inputs and the activation output are the expert linears' inputs, kept as they keep them.
    const double lp = savedLinearInputBytes(training);
    // The clamp's copy: inside moe_act's checkpoint when that is rebuilt, in the fused grouped MLP's epilogue with
    // training.fused_expert_mlp (megatron/core/transformer/moe/experts.py `_make_fused_ops`).
    const double clamp = training.fusedExpertMlp ? 0.0 : clampCopyBytes(m, training);
    const double kept = rebuildAct ? q * act : q * (act - 1.0) + lp + clamp;
    // A latent MoE's copies are latent-wide; its up projection keeps its latent-wide input (the combine's output).
    const double rows = sb / (training.sequenceParallel ? t : 1.0);
    const double latentInput = m.moeLatentSize > 0 ? rows * lp * double(m.moeLatentSize) : 0.0;
    return kFp32Bytes * rows * double(m.experts) + latentInput
           + copies * ((lp + q) * double(m.routedWidth()) + kept * double(m.expertWidth()))
           + sb * (q * (denseAct - 1.0) + lp + clampCopyBytes(m, training)) * double(m.sharedExperts) *
                 double(m.expertWidth()) / t;
}

/// torchtitan's op-level selective checkpointing (torchtitan parallelisms/parallelize_llama.py, _save_list
/// and _custom_policy; models/deepseek_v3/parallelize.py `_op_sac_save_list` at 114151ad4^): a layer keeps its
/// input, the attention kernel's output and the output of every odd-numbered matmul in the order they run
/// (Llama: wq, wv, w1, w2 of wq, wk, wv, wo, w1, w3, w2, or wqkv, w1, w2 with one fused QKV projection;
/// multi-head latent attention: the query and key/value latents and the output projection of wq_a, wq_b,
/// wkv_a, wkv_b, wo); the rest (the even matmuls, the norms, the rotary embedding, the activation) is replayed
/// in backward. A mixture-of-experts layer's router and shared expert take their turns in the count; its
/// routed experts' grouped GEMMs (aten._grouped_mm, not aten.mm) and activation are replayed.
LayerActivationBytes opCheckpointedActivations(const ModelSpec &m, const TrainingConfig &training, std::int64_t tensor,
                                               bool moeLayer = false)
{
    const double q = activationElementBytes(training.precision);
    const double sb = double(m.seqLen) * double(training.microBatch);
    const double t = double(tensor), sp = training.sequenceParallel ? t : 1.0;
    LayerActivationBytes a;
    a.sequenceShardable = q * sb * double(m.hidden) / sp;            // the layer's input
    if (!training.recomputeAttention) // the attention kernel's output, when the policy saves it
        a.tensorSharded = q * sb * double(m.attentionOutDim()) / t;
    int count = 0;
    // A matmul's output: a row-parallel one's (or an unsharded one's) over the sequence shard, a column-parallel
    // one's over the tensor ranks.
    const auto matmul = [&](double width, bool columnParallel) {
        if (++count % 2 == 0 || width <= 0)
            return;
        (columnParallel ? a.tensorSharded : a.sequenceShardable) += q * sb * width / (columnParallel ? t : sp);
    };
    if (m.isMla()) {
        if (m.qLoraRank > 0)
            matmul(double(m.qLoraRank), false);
        matmul(double(m.qDim()), true);
        matmul(double(m.kvLoraRank + m.qkRopeHeadDim), false);
        matmul(double(m.heads * (m.qkNopeHeadDim + m.vHeadDim)), true);
    } else if (training.runsSeparateQkv()) {
        matmul(double(m.qDim()), true);
        matmul(double(m.kvDim()), true);
        matmul(double(m.kvDim()), true);
    } else { // one fused QKV projection (torchtitan's wqkv since ad7a86533)
        matmul(double(m.qDim() + 2 * m.kvDim()), true);
    }
    matmul(double(m.hidden), false); // the output projection
    const bool gated = m.mlp == MlpKind::SwiGlu;
    const auto mlp = [&](double width) {
        matmul(width, true);
        if (gated)
            matmul(width, true);
        matmul(double(m.hidden), false);
    };
    if (moeLayer && m.isMoe()) {
        matmul(double(m.experts), false); // the router
        mlp(double(m.sharedExperts * m.expertWidth()));
    } else {
        mlp(double(m.ffnHidden));
    }
    return a;
}

/// A mixture-of-experts layer under torchtitan's op-level selective checkpointing beyond a dense layer: its
/// policy also saves the outputs of the expert-parallel dispatch and combine, which are communication ops
/// (all_to_all_single, or deepep.dispatch and deepep.combine, the hybridep ones, added to the save list:
/// models/deepseek_v3/parallelize.py at 114151ad4^; activation_checkpoint.py's default policy since). Without
/// expert parallelism no communication op hands the routed tokens over, and they are permuted again in
/// backward. One micro-batch, one rank.
double opCheckpointedMoeExtraBytes(const Plan &plan)
{
    const ModelSpec &m = plan.model;
    const TrainingConfig &training = plan.training;
    const double t = double(plan.parallel.tensor);
    const double sb = double(m.seqLen) * double(training.microBatch);
    double exchanged = 0.0;
    if (plan.parallel.expert > 1) {
        // DeepEP and HybridEP combine with the routing weights applied, returning one row per token; the
        // all-to-all returns every copy.
        const double copies = routedCopies(plan);
        const bool weightedCombine = plan.parallel.expertDispatcher != ExpertDispatcher::AllToAll;
        const double sp = training.sequenceParallel ? t : 1.0;
        exchanged = activationElementBytes(training.precision) * double(m.hidden) *
                    (copies + (weightedCombine ? sb / sp : copies));
    }
    return opCheckpointedActivations(m, training, plan.parallel.tensor, true).total() + exchanged -
           opCheckpointedActivations(m, training, plan.parallel.tensor).total();
}

} // namespace

double moeLayerExtraActivationBytes(const Plan &plan)
{
    const ModelSpec &m = plan.model;
    const TrainingConfig &training = plan.training;
    if (!m.isMoe() || training.recompute == Recompute::Full)
        return 0.0;
    if (training.recompute == Recompute::Ops)
        return opCheckpointedMoeExtraBytes(plan);
    // The dense layer's MLP, which a MoE layer's replaces (nothing under the "mlp" module: layerActivations).
    const double dense = training.recomputesDenseMlp() ? 0.0 : denseMlpBytes(m, training, plan.parallel.tensor);
    // Megatron-Core's "moe" recompute module keeps only the layer's input, which the attention block's output
    // already holds; the rest is rebuilt in backward (the workspace below).
    return (training.recomputesMoeLayers() ? 0.0 : moeMlpActivationBytes(plan)) - dense;
}

HybridBlockActivations hybridBlockActivations(const Plan &plan, bool full)
{
    const ModelSpec &m = plan.model;
    const TrainingConfig &training = plan.training;
    const Recompute recompute = full ? Recompute::None : training.recompute;
    const double q = activationElementBytes(training.precision), lp = savedLinearInputBytes(training);
    const double sb = double(m.seqLen) * double(training.microBatch), h = double(m.hidden);
    const double t = double(plan.parallel.tensor), sp = training.sequenceParallel ? t : 1.0;
    const double d = m.dropout ? kMaskBytes : 0.0;
    HybridBlockActivations a;
    const double input = q * sb * h / sp;
    if (recompute == Recompute::Full) {
        a.attention = a.mamba = a.denseMlp = a.moeMlp = input;
        return a;
    }
    const double block = (q + lp + d) * sb * h / sp; // the norm's input, the first linear's input, the dropout mask
    const double qd = double(m.qDim()), kv = double(m.kvDim());
    const bool scores = recompute == Recompute::None && !training.flashAttention;
    a.attention = block + (q * sb * (qd + kv) + q * sb * kv + lp * sb * qd) / t +
                  (scores ? (q + d * (kMaskBytes + q)) * double(m.heads) * double(m.seqLen) * sb / t : 0.0);
    const bool mlpReplayed = recompute == Recompute::Selective && training.recomputeDenseMlp;
    a.denseMlp = block + (mlpReplayed ? 0.0 : denseMlpBytes(m, training, plan.parallel.tensor));
    a.moeMlp = block + (m.isMoe() && !training.recomputesMoeLayers() ? moeMlpActivationBytes(plan) : 0.0);
    const double inner = double(m.mambaInner());
    a.mamba = block + (q * sb * double(m.mambaInProjection()) + 2.0 * q * sb * inner + lp * sb * inner) / t;
    return a;
}

double moeLayerRecomputeWorkspaceBytes(const Plan &plan)
{
    // The "moe" module and op-level checkpointing rebuild the routed experts' tensors in backward.
    const bool replays = plan.training.recomputesMoeLayers() || plan.training.recompute == Recompute::Ops;
    return plan.model.isMoe() && replays ? moeMlpActivationBytes(plan) : 0.0;
}

double activationElementBytes(Precision precision)
{
    return isSixteenBitStorage(precision) ? kHalfBytes : kFp32Bytes;
}

double savedLinearInputBytes(const TrainingConfig &training)
{
    if (training.framework != Framework::Megatron || !isLowPrecisionMatmul(training.precision))
        return activationElementBytes(training.precision);
    return training.precision == Precision::NVFP4 ? 0.5 + 1.0 / 16.0 : 1.0;
}

LayerActivationBytes fullLayerActivations(const ModelSpec &m, const TrainingConfig &training, std::int64_t tensor)
{
    return layerActivations(m, training, tensor, !training.flashAttention);
}

LayerActivationBytes storedLayerActivations(const ModelSpec &m, const TrainingConfig &training, std::int64_t tensor)
{
    switch (training.recompute) {
    case Recompute::None:
        return fullLayerActivations(m, training, tensor);
    case Recompute::Selective:
        return layerActivations(m, training, tensor, false, !training.recomputesDenseMlp());
    case Recompute::Ops:
        return opCheckpointedActivations(m, training, tensor);
    case Recompute::Full: {
        LayerActivationBytes a;
        const double q = activationElementBytes(training.precision);
        a.sequenceShardable = q * double(m.seqLen) * double(training.microBatch) * double(m.hidden);
        if (training.sequenceParallel)
            a.sequenceShardable /= double(tensor);
        return a;
    }
    }
    return {};
}

double recomputeWorkspaceBytes(const ModelSpec &m, const TrainingConfig &training, std::int64_t tensor)
{
    switch (training.recompute) {
    case Recompute::None:
        return 0.0;
    case Recompute::Selective: // the scores the attention core rebuilds, and the MLP the "mlp" module does
        return fullLayerActivations(m, training, tensor).attentionScores +
               (training.recomputesDenseMlp() ? denseMlpBytes(m, training, tensor) : 0.0);
    case Recompute::Ops: // the replayed tensors of one layer, rebuilt for its backward
        return std::max(0.0, fullLayerActivations(m, training, tensor).total() -
                                 opCheckpointedActivations(m, training, tensor).total());
    case Recompute::Full:
        return fullLayerActivations(m, training, tensor).total();
    }
    return 0.0;
}

double embeddingActivationBytes(const ModelSpec &m, const TrainingConfig &training, std::int64_t tensor)
{
    if (!m.dropout)
        return 0.0;
    const double mask = kMaskBytes * double(m.seqLen) * double(training.microBatch) * double(m.hidden);
    return training.sequenceParallel ? mask / double(tensor) : mask;
}

double outputActivationBytes(const ModelSpec &m, const TrainingConfig &training, std::int64_t tensor)
{
    const double q = activationElementBytes(training.precision);
    const double sb = double(m.seqLen) * double(training.microBatch);
    double inputs = 2.0 * q * sb * double(m.hidden); // final-norm input and output-projection input
    if (training.sequenceParallel)
        inputs /= double(tensor);
    // DTensor's sequence parallelism keeps the output projection's input whole (torchtitan leaves the output
    // layer out of float8).
    if (const double whole = wholeSequenceInputBytes(training, tensor, false); whole > 0)
        inputs += sb * double(m.hidden) * (whole - q / double(tensor));
    const double logits = kLogitBytes * sb * double(m.vocab) / double(tensor);
    return inputs + logits;
}

double microbatchesInFlight(Schedule schedule, std::int64_t pipeline, std::int64_t virtualStages,
                            std::int64_t microbatches, std::int64_t stage)
{
    const std::int64_t p = pipeline;
    const std::int64_t m = std::max<std::int64_t>(microbatches, 1);
    if (p <= 1)
        return 1.0;
    switch (schedule) {
    case Schedule::GPipe:
        return double(m);
    case Schedule::OneFOneB:
        return double(std::min(p - stage, m));
    case Schedule::ZeroBubbleH1: // B frees the activations as in 1F1B; the pending W's: zeroBubbleHeld
    case Schedule::ZeroBubbleH2: // 2 (p - s) - 1 forwards before the first B (Qi et al. 2024, Figure 3)
        return double(std::min(zeroBubbleWarmup(schedule, p, stage), m));
    case Schedule::Interleaved: {
        const std::int64_t v = std::max<std::int64_t>(virtualStages, 1);
        const std::int64_t chunks = std::min(2 * (p - stage - 1) + (v - 1) * p + 1, m * v);
        return double(chunks) / double(v);
    }
    }
    return 1.0;
}

ZeroBubbleHeld zeroBubbleHeld(Schedule schedule, std::int64_t pipeline, std::int64_t microbatches, std::int64_t stage,
                              double inFlightBytes, double pendingBytes)
{
    ZeroBubbleHeld peak, now;
    double most = -1.0;
    forEachZeroBubbleOp(schedule, std::int32_t(pipeline), std::int32_t(std::max<std::int64_t>(microbatches, 1)),
                        std::int32_t(stage), [&](ZeroBubbleOp op, std::int32_t) {
                            if (op == ZeroBubbleOp::Forward) {
                                now.inFlight += 1.0;
                            } else if (op == ZeroBubbleOp::InputGradient) {
                                now.inFlight -= 1.0;
                                now.pending += 1.0;
                            } else {
                                now.pending -= 1.0;
                            }
                            if (const double bytes = now.inFlight * inFlightBytes + now.pending * pendingBytes;
                                bytes > most) {
                                most = bytes;
                                peak = now;
                            }
                        });
    return peak;
}

double pendingWeightGradientBytes(const Plan &plan, bool moeLayer)
{
    const ModelSpec &m = plan.model;
    const TrainingConfig &training = plan.training;
    const double q = activationElementBytes(training.precision);
    const double sb = double(m.seqLen) * double(training.microBatch) / double(plan.parallel.context);
    const double t = double(plan.parallel.tensor), h = double(m.hidden);
    const double shard = training.sequenceParallel ? t : 1.0; // a column-parallel linear keeps its input's shard
    const double gate = m.mlp == MlpKind::SwiGlu ? 2.0 : 1.0;
    // Attention: the QKV linear's input and its Q, K, V gradients; the output projection's input (the context)
    // and its gradient, whole as a row-parallel linear receives it.
    const double attention = h / shard + double(m.qDim() + 2 * m.kvDim()) / t + double(m.qDim()) / t + h;
    // An MLP of width f: its first linear's input and (gated) output gradient, its second's input and gradient.
    const auto mlp = [&](double f) { return f > 0 ? h / shard + (gate + 1.0) * f / t + h : 0.0; };
    double mlpElements = mlp(double(m.ffnHidden));
    double routed = 0.0;
    if (moeLayer && m.isMoe()) {
        // The routed experts' linears see the token copies of the busiest rank, the shared experts every token.
        const double e = double(m.expertWidth());
        mlpElements = mlp(e * double(m.sharedExperts));
        routed = q * routedCopies(plan) / double(plan.parallel.context) * (2.0 * h + (gate + 1.0) * e);
    }
    return q * sb * (attention + mlpElements) + routed;
}

} // namespace trainplan
