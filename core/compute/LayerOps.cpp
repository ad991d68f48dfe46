#include "core/compute/LayerOps.h"

#include <algorithm>

#include "core/memory/ActivationMemory.h"
#include "core/memory/ModelState.h"

namespace trainplan {

namespace {

struct Shapes
{
    double M;   ///< tokens per micro-batch on this rank: s x b / context
    double h, f, kv, V, s, b;
    double qd; ///< Q and attention-output width: heads x head size
    double sq;  ///< query tokens per sequence on this rank: s / context (keys and values span all s)
    double heads;  ///< query heads on this tensor rank
    double hd;     ///< head dimension
    double t;
    double q;      ///< bytes per activation element
    double rowT;   ///< divisor of h-wide element-wise tensors: t with sequence parallelism, else 1
    double upWidth; ///< MLP up-projection width (2f for SwiGLU)
    double mask;   ///< 1 byte per element when dropout is on, else 0
};

Shapes shapesOf(const Plan &plan)
{
    const ModelSpec &m = plan.model;
    const TrainingConfig &training = plan.training;
    Shapes x;
    x.s = double(m.seqLen);
    x.b = double(training.microBatch);
    // Context parallelism: every rank holds s / c tokens of each sequence; its queries attend to keys of
    // the whole sequence, balanced so each rank does 1/c of the causal work (Megatron-Core).
    x.sq = x.s / double(std::max<std::int64_t>(1, plan.parallel.context));
    x.M = x.sq * x.b;
    x.h = double(m.hidden);
    x.f = double(m.ffnHidden);
    x.kv = double(m.kvDim());
    x.qd = double(m.qDim());
    x.V = double(m.vocab);
    x.t = double(plan.parallel.tensor);
    x.heads = double(m.heads) / x.t;
    x.hd = double(m.headDim());
    x.q = activationElementBytes(training.precision);
    x.rowT = training.sequenceParallel ? x.t : 1.0;
    x.upWidth = m.mlp == MlpKind::SwiGlu ? 2.0 * x.f : x.f;
    x.mask = m.dropout ? 1.0 : 0.0;
    return x;
}

Op make(const char *name, OpKind kind, OpPass pass, OpScope scope, double flops, double bytes)
{
    Op op;
    op.name = name;
    op.kind = kind;
    op.pass = pass;
    op.scope = scope;
    op.flops = flops;
    op.bytes = bytes;
    return op;
}

/// An element-wise op over `elements` values (its shape for the roofline's tooltip).
Op elementwise(const char *name, OpKind kind, OpPass pass, OpScope scope, double elements, double flops, double bytes)
{
    Op op = make(name, kind, pass, scope, flops, bytes);
    op.rows = elements;
    return op;
}

/// A matmul [rows x inner] x [inner x cols] reading both operands and writing the result.
Op matmul(const char *name, OpPass pass, OpScope scope, double rows, double inner, double cols, double q, double batch = 1.0)
{
    Op op = make(name, OpKind::Matmul, pass, scope, 2.0 * batch * rows * inner * cols,
                 q * batch * (rows * inner + inner * cols + rows * cols));
    op.batch = batch;
    op.rows = rows;
    op.inner = inner;
    op.cols = cols;
    return op;
}

/// The forward ops of one layer; `attentionCoreOnly` keeps the ops selective recomputation replays.
void layerForward(const Plan &plan, const Shapes &x, OpPass pass, bool attentionCoreOnly, std::vector<Op> &ops)
{
    const bool fused = plan.training.fusedKernels;
    const bool flash = plan.training.flashAttention;
    const OpScope L = OpScope::Layer;
    const double rowBytes = x.q * x.M * x.h / x.rowT; // one h-wide activation on this rank

    if (!attentionCoreOnly) {
        ops.push_back(elementwise("input norm", OpKind::Norm, pass, L, x.M * x.h / x.rowT, 5.0 * x.M * x.h / x.rowT, 2.0 * rowBytes));
        ops.push_back(matmul("QKV projection", pass, L, x.M, x.h, (x.qd + 2.0 * x.kv) / x.t, x.q));
    }
    const double scores = x.b * x.heads * x.sq * x.s; // elements of the score tensor on this rank
    const double remoteKv = x.q * (x.s - x.sq) * x.b * 2.0 * x.kv / x.t; // other context ranks' K and V, read once
    if (flash) {
        if (!attentionCoreOnly) {
            // One kernel: QK^T and PV in on-chip memory; reads Q, K, V, writes the context. With the causal
            // mask it skips the blocks above the diagonal: half of the s^2 work (Dao 2023).
            Op op = make("flash attention", OpKind::Attention, pass, L, 2.0 * x.b * x.heads * x.sq * x.s * x.hd,
                         x.q * x.M * (2.0 * x.qd + 2.0 * x.kv) / x.t + remoteKv);
            op.batch = x.b * x.heads; // QK^T: [s x hd] x [hd x s] per head (and PV alike)
            op.rows = x.sq;
            op.inner = x.hd;
            op.cols = x.s;
            op.attentionCore = true;
            ops.push_back(op);
        }
    } else {
        const std::size_t coreBegin = ops.size();
        ops.push_back(matmul("attention scores QK^T", pass, L, x.sq, x.hd, x.s, x.q, x.b * x.heads));
        // scale + mask + softmax fused: one read and one write. Unfused (Megatron-LM's torch path): scale
        // (r+w), masked fill (r+w and the byte mask), and with 16-bit inputs the softmax runs in FP32
        // (Megatron turns softmax_in_fp32 on with query-key layer scaling): upcast (r q, w 4), softmax
        // (r 4, w 4), downcast (r 4, w q).
        const double unfusedPerScore = 4.0 * x.q + 1.0 + (x.q < kFp32Bytes ? x.q + 4.0 + 8.0 + 4.0 + x.q : 2.0 * x.q);
        ops.push_back(elementwise("scale, mask, softmax", OpKind::Elementwise, pass, L, scores, 5.0 * scores,
                                  (fused ? 2.0 * x.q : unfusedPerScore) * scores));
        if (x.mask > 0)
            ops.push_back(elementwise("attention dropout", OpKind::Elementwise, pass, L, scores, scores, (2.0 * x.q + 1.0) * scores));
        ops.push_back(matmul("attention context PV", pass, L, x.sq, x.s, x.hd, x.q, x.b * x.heads));
        for (std::size_t i = coreBegin; i < ops.size(); ++i)
            ops[i].attentionCore = true;
    }
    if (attentionCoreOnly)
        return;
    ops.push_back(matmul("output projection", pass, L, x.M, x.qd / x.t, x.h, x.q));
    // bias + dropout + residual add: reads the projection output and the residual, writes the sum (and
    // the dropout mask); unfused, bias (r+w), dropout (r+w+mask) and add (2r+w) each touch memory.
    const double residualBytes = (fused ? 3.0 : 7.0) * rowBytes + x.mask * x.M * x.h / x.rowT;
    ops.push_back(elementwise("bias, dropout, residual", OpKind::Elementwise, pass, L, x.M * x.h / x.rowT, 3.0 * x.M * x.h / x.rowT, residualBytes));
    ops.push_back(elementwise("post-attention norm", OpKind::Norm, pass, L, x.M * x.h / x.rowT, 5.0 * x.M * x.h / x.rowT, 2.0 * rowBytes));
    ops.push_back(matmul("MLP up", pass, L, x.M, x.h, x.upWidth / x.t, x.q));
    // bias + activation (GELU) or SiLU x gate (SwiGLU): fused reads the up output once and writes the
    // activation; unfused, the bias add and the activation (and the gate product) each read and write.
    const double upBytes = x.q * x.M * x.upWidth / x.t;
    const double actBytes = x.q * x.M * x.f / x.t;
    // Unfused GELU: bias add (r+w) then GELU (r+w); unfused SwiGLU: SiLU on the gate (r+w) then the
    // product with the up half (2r+w).
    const double activationBytes = fused ? upBytes + actBytes : (x.upWidth > x.f ? 5.0 * actBytes : 4.0 * actBytes);
    ops.push_back(elementwise(x.upWidth > x.f ? "SwiGLU" : "bias, GELU", OpKind::Elementwise, pass, L, x.M * x.f / x.t,
                              8.0 * x.M * x.f / x.t, activationBytes));
    ops.push_back(matmul("MLP down", pass, L, x.M, x.f / x.t, x.h, x.q));
    ops.push_back(elementwise("bias, dropout, residual", OpKind::Elementwise, pass, L, x.M * x.h / x.rowT, 3.0 * x.M * x.h / x.rowT, residualBytes));
}

/// Backward of a forward op: matmuls compute the input and weight gradients (2x FLOPs and bytes);
/// flash attention recomputes the scores and does 5 matmuls to the forward's 2 (Dao 2023, 2.5x);
/// element-wise ops read the output gradient and the saved input and write the input gradient.
Op backwardOf(const Op &forward)
{
    Op op = forward;
    op.pass = OpPass::Backward;
    switch (forward.kind) {
    case OpKind::Matmul:
        op.flops *= 2.0;
        op.bytes *= 2.0;
        break;
    case OpKind::Attention:
        op.flops *= 2.5;
        op.bytes *= 2.0;
        break;
    default:
        op.flops *= 2.0;
        op.bytes *= 1.5;
        break;
    }
    return op;
}

/// FP8/FP4 family: quantize kernels that are not fused into a norm or an activation (Transformer Engine's
/// LayerNormLinear and fused activations write FP8 directly). Forward: the attention output is cast
/// before the output projection (read 2, write 1 byte, amax on the way), and every linear input also gets
/// its column-wise copy for the weight gradient (1 byte written). Backward: the output gradient of each of
/// the four linear layers is cast both ways (read 2, write 1 + 1 bytes). Memory-bound.
void appendQuantizeOps(const Shapes &x, std::vector<Op> &ops)
{
    const double attnOut = x.M * x.qd / x.t;
    const double inputs = 2.0 * x.M * x.h / x.rowT + attnOut + x.M * x.f / x.t;
    ops.push_back(elementwise("quantize (cast, amax)", OpKind::Elementwise, OpPass::Forward, OpScope::Layer, attnOut + inputs,
                              2.0 * attnOut, 3.0 * x.q / 2.0 * attnOut + inputs));
    const double gradients = x.M * (x.qd + 2.0 * x.kv) / x.t + 2.0 * x.M * x.h / x.rowT + x.M * x.upWidth / x.t;
    ops.push_back(elementwise("quantize gradients (cast, transpose)", OpKind::Elementwise, OpPass::Backward, OpScope::Layer,
                              gradients, 2.0 * gradients, (x.q + 2.0) * gradients));
}

} // namespace

void appendMicrobatchOps(const Plan &plan, std::vector<Op> &ops)
{
    const Shapes x = shapesOf(plan);
    const std::size_t first = ops.size();
    layerForward(plan, x, OpPass::Forward, false, ops);

    // Embedding: gather the token rows (vocabulary-parallel, then reduced over t), add positions.
    const double rowBytes = x.q * x.M * x.h;
    ops.push_back(elementwise("embedding lookup", OpKind::Embedding, OpPass::Forward, OpScope::Embedding, x.M * x.h, x.M * x.h, 3.0 * rowBytes));
    // Output: final norm, logits projection, softmax cross-entropy in FP32 over V / t.
    ops.push_back(elementwise("final norm", OpKind::Norm, OpPass::Forward, OpScope::Output, x.M * x.h / x.rowT, 5.0 * x.M * x.h / x.rowT,
                              2.0 * rowBytes / x.rowT));
    ops.push_back(matmul("logits projection", OpPass::Forward, OpScope::Output, x.M, x.h, x.V / x.t, x.q));
    ops.push_back(elementwise("cross-entropy", OpKind::Loss, OpPass::Forward, OpScope::Output, x.M * x.V / x.t, 5.0 * x.M * x.V / x.t,
                              (x.q + 3.0 * kFp32Bytes) * x.M * x.V / x.t));

    const std::size_t forwardEnd = ops.size();
    for (std::size_t i = first; i < forwardEnd; ++i)
        ops.push_back(backwardOf(ops[i]));
    if (isLowPrecisionMatmul(plan.training.precision))
        appendQuantizeOps(x, ops);

    switch (plan.training.recompute) {
    case Recompute::None:
        break;
    case Recompute::Selective:
        if (!plan.training.flashAttention) // flash attention already recomputes its scores in backward
            layerForward(plan, x, OpPass::Recompute, true, ops);
        break;
    case Recompute::Full:
        layerForward(plan, x, OpPass::Recompute, false, ops);
        break;
    }
}

Op optimizerOp(const Plan &plan, double localParameters)
{
    // Adam with 16-bit parameters reads the gradient, FP32 master weights and two moments and writes the
    // master, the moments and the 16-bit copy; SGD keeps one moment. FP32 training has no separate copy.
    // Bytes: the gradient read, the optimizer state (master and moments) read and written, the working
    // copy written (and read too when there is no master copy). FLOPs per parameter: Adam's update takes
    // about 12, SGD with momentum 4.
    const TrainingConfig &training = plan.training;
    const StateBytesPerParameter b = stateBytesPerParameter(training);
    const double bytesPerParameter = b.gradients + 2.0 * b.optimizer + b.parameters + (b.master > 0 ? 0.0 : b.parameters);
    const double flopsPerParameter = training.optimizer == Optimizer::Adam ? 12.0 : 4.0;
    return make("optimizer update", OpKind::Optimizer, OpPass::Forward, OpScope::Step, flopsPerParameter * localParameters,
                bytesPerParameter * localParameters);
}

Op weightCastOp(const Plan &plan, double localParameters, const StateBytesPerParameter &perParam)
{
    const double source = plan.training.fp8ParamGather ? kFp32Bytes : kHalfBytes;
    return make("quantize weights", OpKind::Elementwise, OpPass::Forward, OpScope::Step, 2.0 * localParameters,
                (source + perParam.lowPrecisionCopies) * localParameters);
}

double modelForwardFlopsPerSequence(const ModelSpec &m)
{
    const double s = double(m.seqLen), h = double(m.hidden), f = double(m.ffnHidden), kv = double(m.kvDim());
    const double qd = double(m.qDim()); // h unless head_dim says otherwise
    const double up = m.mlp == MlpKind::SwiGlu ? 2.0 * f : f;
    const double perLayer = 2.0 * s * h * (qd + 2.0 * kv) // QKV
                            + 4.0 * s * s * qd            // scores and context, full s^2
                            + 2.0 * s * qd * h            // output projection
                            + 2.0 * s * h * up + 2.0 * s * f * h; // MLP
    return double(m.layers) * perLayer + 2.0 * s * h * double(m.vocab);
}

} // namespace trainplan
