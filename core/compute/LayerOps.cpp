#include "core/compute/LayerOps.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

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
    double od;     ///< attention output width (heads x value head size)
    double span;   ///< keys a query's document spans: s, or the packed document length with flash attention
    double akv;    ///< K and V width the attention kernel reads: kv, or qd when training.repeat_kv_heads repeats them
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
    x.od = double(m.attentionOutDim());
    x.span = double(attentionSpan(m, training));
    x.akv = double(attentionKvDim(m, training));
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
Op matmul(const char *name, OpPass pass, OpScope scope, double rows, double inner, double cols, double q,
          double batch = 1.0)
{
    Op op = make(name, OpKind::Matmul, pass, scope, 2.0 * batch * rows * inner * cols,
                 q * batch * (rows * inner + inner * cols + rows * cols));
    op.batch = batch;
    op.rows = rows;
    op.inner = inner;
    op.cols = cols;
    return op;
}

/// Q, K and V from the layer input. MHA/GQA: one column-parallel GEMM. MLA (DeepSeek-V2 section 2.1):
/// the down projections to the query latent and to the key/value latent (+ the shared rotary key) run on
/// every tensor rank; the up projections split by heads.
void appendProjections(const Plan &plan, const Shapes &x, OpPass pass, std::vector<Op> &ops)
{
    const ModelSpec &m = plan.model;
    const OpScope L = OpScope::Layer;
    if (!m.isMla()) {
        const auto add = [&](const char *name, double width, OpRole role) {
            Op op = matmul(name, pass, L, x.M, x.h, width, x.q);
            op.role = role;
            ops.push_back(op);
        };
        if (!plan.training.runsSeparateQkv()) {
            add("QKV projection", (x.qd + 2.0 * x.kv) / x.t, OpRole::QkvProjection);
            return;
        }
        // training.separate_qkv: three GEMMs at their own sizes, each reading the whole input.
        add("query projection", x.qd / x.t, OpRole::QkvProjection);
        add("key projection", x.kv / x.t, OpRole::KeyProjection);
        add("value projection", x.kv / x.t, OpRole::QkvProjection);
        return;
    }
    const double qLora = double(m.qLoraRank), kvLora = double(m.kvLoraRank);
    const auto up = [](Op op) {
        op.role = OpRole::MlaUpProjection;
        return op;
    };
    if (m.qLoraRank > 0) {
        ops.push_back(matmul("MLA query down", pass, L, x.M, x.h, qLora, x.q));
        ops.push_back(up(matmul("MLA query up", pass, L, x.M, qLora, x.qd / x.t, x.q)));
    } else {
        ops.push_back(matmul("MLA query", pass, L, x.M, x.h, x.qd / x.t, x.q));
    }
    ops.push_back(matmul("MLA key/value down", pass, L, x.M, x.h, kvLora + double(m.qkRopeHeadDim), x.q));
    ops.push_back(up(matmul("MLA key/value up", pass, L, x.M, kvLora,
                            double(m.heads) * double(m.qkNopeHeadDim + m.vHeadDim) / x.t, x.q)));
}

/// A clamped gated activation's clamp as separate kernels ahead of the activation (runsEagerActivationClamp), on
/// the up projection's output of `upBytes`: forward, two clamps each reading and writing one half and a cat
/// reading and writing the whole (4 x upBytes, 3 kernels); backward, each clamp's gradient reads the gradient
/// and the input half and writes one half, and the chunk's gradient concatenates the halves (5 x upBytes, 3).
void addEagerClamp(Op &act, double upBytes)
{
    act.backwardBytes = 1.5 * act.bytes + 5.0 * upBytes; // backwardOf's element-wise rule, then the clamp's
    act.backwardLaunches = act.launches + 3.0;
    act.bytes += 4.0 * upBytes;
    act.launches += 3.0;
}

/// One MLP of `rows` tokens, `width` wide per rank, `batch` of them (grouped experts): up, activation, down.
/// `groupedKernel`: the routed experts as one fused grouped kernel per projection (training.fused_expert_mlp):
/// one launch each, the activation in the up projection's epilogue, which writes its output once in the
/// low format (the activation op then only carries that write and launches nothing).
void appendMlp(const Plan &plan, const Shapes &x, OpPass pass, LayerPart part, double rows, double width, double batch,
               const char *const names[3], std::vector<Op> &ops, bool groupedKernel = false)
{
    const bool fused = plan.training.fusesElementwise();
    const bool gated = plan.model.mlp == MlpKind::SwiGlu;
    const double up = gated ? 2.0 * width : width;
    Op upOp = matmul(names[0], pass, OpScope::Layer, rows, x.h, up, x.q, batch);
    upOp.part = part;
    upOp.role = OpRole::MlpUp;
    ops.push_back(upOp);
    // bias + activation (GELU) or SiLU x gate (SwiGLU): fused reads the up output once and writes the
    // activation; unfused, the bias add and the activation (and the gate product) each read and write.
    const double upBytes = x.q * batch * rows * up;
    const double actBytes = x.q * batch * rows * width;
    const double lowBytes = isLowPrecisionMatmul(plan.training.precision) ? 1.0 : x.q;
    const double activationBytes = groupedKernel ? lowBytes / x.q * actBytes
                                   : fused       ? upBytes + actBytes
                                                 : (gated ? 5.0 * actBytes : 4.0 * actBytes);
    Op act = elementwise(names[1], OpKind::Elementwise, pass, OpScope::Layer, batch * rows * width,
                         8.0 * batch * rows * width, activationBytes);
    act.part = part;
    act.role = OpRole::MlpActivation;
    act.launches = groupedKernel ? 0.0 : 1.0;
    if (!groupedKernel && runsEagerActivationClamp(plan.model, plan.training))
        addEagerClamp(act, upBytes);
    ops.push_back(act);
    Op down = matmul(names[2], pass, OpScope::Layer, rows, width, x.h, x.q, batch);
    down.part = part;
    down.role = OpRole::MlpDown;
    ops.push_back(down);
}

/// How a framework runs the local experts' GEMMs of one projection. Megatron-Core: Transformer Engine's
/// GroupedLinear, one call whose C++ loop runs a GEMM per expert over kGroupedGemmStreams streams (cuBLAS;
/// TE's CUTLASS grouped kernel only with NVTE_USE_CUTLASS_GROUPED_GEMM=1, default 0, docs/envvars.rst), so one
/// launch and an enqueue per expert; one kernel with training.fused_expert_mlp. PyTorch-native (torchtitan's
/// GroupedExperts): torch._grouped_mm, one kernel for all local experts (torchtitan b5bcd76,
/// torchtitan/models/common/moe.py). DeepSpeed: its Experts module calls each local expert in turn from Python
/// (deepspeed/moe/experts.py, Experts.forward), one launch and GEMM after another.
void setExpertGemmKernels(const Plan &plan, Op &op)
{
    const double experts = op.batch;
    op.launches = 1.0;
    op.enqueues = 0.0;
    if (plan.training.fusedExpertMlp || plan.training.framework == Framework::Fsdp)
        return; // one grouped kernel (concurrentKernels 0)
    const bool megatron = plan.training.framework == Framework::Megatron;
    op.concurrentKernels = megatron ? kGroupedGemmStreams : 1.0;
    (megatron ? op.enqueues : op.launches) = experts;
}

/// Megatron-Core's paged stashing (training.moe_paged_stash; megatron/core/transformer/moe/paged_stash.py, merged
/// in Megatron-LM f007db77b, May 2026): after a MoE layer's forward, every tensor Transformer Engine's fused grouped
/// MLP keeps for its backward is copied into a paged buffer (offload_to_stash), and back into a tensor of the
/// rank's capacity shape before the layer's backward (reload_from_stash). TE marks the first projection's input,
/// the activation's input, the routing weights and the second projection's input (mark_grouped_tensor in
/// transformer_engine/pytorch/ops/fused/grouped_mlp.py); MXFP8 keeps the projections' inputs column-wise only, an
/// E4M3 byte and an E8M0 scale per 32 elements, NVFP4 both layouts at half a byte and an E4M3 scale per 16. Each
/// copy reads and writes them once: 2 x the kept bytes in forward and again in backward. The copies run on a side
/// stream beside the neighbouring layers' attention and all-to-all, but their kernels (grids of up to 2,048
/// programs) need the SMs the persistent attention and GEMM kernels hold, so they are counted as memory-bound
/// time of the layer (an assumption: no published timing separates them). Launches per kept tensor: the copy, two
/// metadata zeroings and the free-list update forward (4); the copy back and its free-list update backward (2);
/// six tensors (the two inputs' data and scales count apart).
Op pagedStashCopy(const Plan &plan, const Shapes &x, OpPass pass, double rows, double width)
{
    const bool gated = plan.model.mlp == MlpKind::SwiGlu;
    const double up = gated ? 2.0 * width : width;
    const Precision p = plan.training.precision;
    const double low = p == Precision::MXFP8   ? 1.0 + 1.0 / 32.0
                       : p == Precision::NVFP4 ? 2.0 * (0.5 + 1.0 / 16.0)
                                               : x.q; // column-wise low-format bytes per element of an input
    const double kept = rows * (low * (x.h + width) + x.q * up + kFp32Bytes);
    constexpr double kTensors = 6.0;
    Op op = elementwise("paged stash copy", OpKind::Elementwise, pass, OpScope::Layer, rows * (x.h + width + up), 0.0,
                        2.0 * kept);
    op.backwardBytes = 2.0 * kept;
    op.launches = 4.0 * kTensors;
    op.backwardLaunches = 2.0 * kTensors;
    return op;
}

/// A mixture-of-experts MLP on this rank (Megatron-Core's MoE layer with the all-to-all dispatcher): the
/// router GEMM over the experts, permuting the k copies of each token into expert order, the grouped GEMMs
/// of the local experts, unpermuting and the weighted sum; shared experts as a dense MLP. The busiest
/// expert sets the pace: rows per local expert = tokens x k x expert x expert_tensor / (tensor x experts)
/// x imbalance (capped by the capacity factor when tokens are dropped).
void appendMoe(const Plan &plan, const Shapes &x, OpPass pass, std::vector<Op> &ops)
{
    const ModelSpec &m = plan.model;
    const ParallelConfig &par = plan.parallel;
    const double experts = double(m.experts), k = double(m.expertsPerToken);
    const double load = plan.training.busiestExpertLoad();
    const double routed = x.M * k / x.t;                                             // token copies per rank (mean)
    const double rowsPerExpert = routed * double(par.expertShards()) / experts * load; // busiest local expert
    const double localExperts = experts / double(par.expert);
    const auto tag = [](Op op) {
        op.part = LayerPart::MoeMlp;
        return op;
    };
    Op router = tag(matmul("router", pass, OpScope::Layer, x.M / x.rowT, x.h, experts, x.q));
    router.role = OpRole::Router;
    ops.push_back(router);
    // A latent MoE routes latent-wide rows: the routed path below runs on r, its projections beside it on x.
    Shapes r = x;
    r.h = double(m.routedWidth());
    if (m.moeLatentSize > 0) {
        Op down = tag(matmul("latent down projection", pass, OpScope::Layer, x.M / x.rowT, x.h, r.h, x.q));
        down.role = OpRole::LatentProjection;
        ops.push_back(down);
    }
    const RoutingLaunches launches = routingLaunches(plan);
    Op route =
        tag(elementwise("router top-k, permute", OpKind::Elementwise, pass, OpScope::Layer, routed * load * r.h,
                        routed * load * r.h, 2.0 * x.q * routed * load * r.h + kFp32Bytes * (x.M / x.rowT) * experts));
    route.launches = launches.route.forward;
    route.backwardLaunches = launches.route.backward;
    route.role = OpRole::Router;
    ops.push_back(route);
    static const char *const expertNames[3] = {"expert up (grouped)", "expert activation", "expert down (grouped)"};
    const std::size_t up = ops.size();
    appendMlp(plan, r, pass, LayerPart::MoeMlp, rowsPerExpert, double(m.expertWidth()) / double(par.expertTensorSize()),
              localExperts, expertNames, ops, plan.training.fusedExpertMlp);
    setExpertGemmKernels(plan, ops[up]);
    setExpertGemmKernels(plan, ops[up + 2]);
    for (const auto &[back, role] :
         {std::pair{3, OpRole::ExpertGemm}, std::pair{2, OpRole::ExpertActivation}, std::pair{1, OpRole::ExpertGemm}})
        ops[ops.size() - std::size_t(back)].role = role;
    // Megatron-Core adds a biased expert's second-projection bias itself, scaled by each row's routing
    // probability, outside Transformer Engine: one local expert at a time from Python, torch.cat([t + b * p for t,
    // b, p in zip(torch.split(output, tokens_per_expert), biases, torch.split(probs, tokens_per_expert))])
    // (megatron/core/transformer/moe/experts.py `_apply_bias`, from a329dd6da, September 2025): b * p, the sum and
    // the concatenation's copy, 6 tensors' worth of the routed rows forward, 8 backward (the bias and probability
    // gradients' products and sums). The fused grouped MLP scales the bias in its epilogue. Its bytes only: its
    // per-expert kernels are host work the host figures, fitted per module call, cannot price (CALIBRATION.md).
    if (m.linearBias && plan.training.framework == Framework::Megatron && !plan.training.fusedExpertMlp) {
        const double elements = rowsPerExpert * localExperts * r.h;
        Op bias = tag(elementwise("expert output bias", OpKind::Elementwise, pass, OpScope::Layer, elements,
                                  2.0 * elements, 6.0 * x.q * elements));
        bias.backwardBytes = 8.0 * x.q * elements;
        bias.launches = 0.0;
        bias.backwardLaunches = 0.0;
        ops.push_back(bias);
    }
    Op combine =
        tag(elementwise("unpermute, combine", OpKind::Elementwise, pass, OpScope::Layer, routed * load * r.h,
                        2.0 * routed * load * r.h, 2.0 * x.q * routed * load * r.h + x.q * x.M / x.rowT * r.h));
    combine.launches = launches.combine.forward;
    combine.backwardLaunches = launches.combine.backward;
    ops.push_back(combine);
    if (m.moeLatentSize > 0) {
        Op up = tag(matmul("latent up projection", pass, OpScope::Layer, x.M / x.rowT, r.h, x.h, x.q));
        up.role = OpRole::LatentProjection;
        ops.push_back(up);
    }
    if (plan.training.moePagedStash && plan.training.framework == Framework::Megatron)
        ops.push_back(tag(pagedStashCopy(plan, r, pass, rowsPerExpert * localExperts,
                                         double(m.expertWidth()) / double(par.expertTensorSize()))));
    if (m.sharedExperts > 0) {
        static const char *const sharedNames[3] = {"shared expert up", "shared expert activation",
                                                   "shared expert down"};
        appendMlp(plan, x, pass, LayerPart::MoeMlp, x.M, double(m.sharedExperts) * double(m.expertWidth()) / x.t, 1.0,
                  sharedNames, ops);
    }
}

/// A norm over `elements` h-wide values: one kernel reading and writing them once (Megatron-Core's and
/// Transformer Engine's fused norms, PyTorch's LayerNorm, or any norm torch.compile generates). An eager
/// RMSNorm written in PyTorch ops (torchtitan's, Llama's reference code) runs six kernels in FP32: the upcast
/// (read q, write 4), the square (4, 4), the mean (4), the scale by the reciprocal root (4, 4), the downcast
/// (4, q) and the weight (q, q): 28 + 4q bytes per element.
Op normOp(const Plan &plan, const char *name, OpPass pass, OpScope scope, double elements, double q)
{
    const bool eager = runsEagerRmsNorm(plan.model, plan.training);
    Op op = elementwise(name, OpKind::Norm, pass, scope, elements, 5.0 * elements,
                        (eager ? 7.0 * kFp32Bytes + 4.0 * q : 2.0 * q) * elements);
    op.launches = eager ? 6.0 : 1.0;
    return op;
}

/// The bias, dropout and residual add that end a block, `bytes` of row traffic (layerForward's count).
Op residualOp(const Shapes &x, OpPass pass, double bytes)
{
    return elementwise("bias, dropout, residual", OpKind::Elementwise, pass, OpScope::Layer, x.M * x.h / x.rowT,
                       3.0 * x.M * x.h / x.rowT, bytes);
}

/// Megatron-Core's Mamba-2 block (megatron/core/ssm/mamba_layer.py and mamba_mixer.py, MambaMixer.forward and
/// _ssm_training at core_v0.16.0): the pre-norm (fused into the input projection's LayerNormLinear), the input
/// projection to z, x, B, C and dt, the layout copies around the scan (rearrange(...).contiguous() to batch-first
/// and back; none at micro-batch 1, where the permuted view is contiguous), mamba_ssm's
/// mamba_split_conv1d_scan_combined (the depthwise convolution, SiLU, the chunked SSD scan and the z gate: Dao & Gu
/// 2024, "Transformers are SSMs", Sec. 6; appendSsdKernels), the grouped RMSNorm over d_inner, the output projection
/// and the bias-dropout-add residual. The scan runs in chunks of Q = 128 tokens (MambaMixer chunk_size).
constexpr double kMambaChunk = 128.0;

/// The conv1d and SSD scan's FLOPs per token over all tensor ranks, as the model's FLOPs count them: per token each
/// group's C B^T inside its chunk (2 Q N), per head the masked product with X counted whole (2 Q P), the chunk's
/// state (2 N P) and the output from the states passed in (2 N P), and the kernel-4 convolution.
double mambaScanFlopsPerToken(const ModelSpec &m)
{
    const double N = double(m.mambaStateDim), P = double(m.mambaHeadDim), groups = double(m.mambaGroups);
    const double convChannels = double(m.mambaInner()) + 2.0 * groups * N;
    return 2.0 * double(kMambaConvKernel) * convChannels + groups * 2.0 * kMambaChunk * N +
           double(m.mambaHeadCount()) * (2.0 * kMambaChunk * P + 4.0 * N * P);
}

/// The sizes the SSD kernels move on this rank (elements): Megatron-Core's MambaMixer splits heads and groups over
/// the tensor ranks (and context ranks, after its all-to-all), so per rank the tokens x.M see heads / t of them.
struct SsdSizes
{
    double x = 0, bc = 0, states = 0, cb = 0, dt = 0, chunks = 0, heads = 0, groups = 0, n = 0, p = 0;
};

SsdSizes ssdSizes(const ModelSpec &m, const Shapes &x)
{
    SsdSizes z;
    z.heads = double(m.mambaHeadCount()) / x.t;
    z.groups = double(m.mambaGroups) / x.t;
    z.n = double(m.mambaStateDim);
    z.p = double(m.mambaHeadDim);
    z.chunks = x.M / kMambaChunk;
    z.x = x.M * z.heads * z.p;                                 // x, z, the output, their gradients
    z.bc = x.M * z.groups * z.n;                               // B or C
    z.states = z.chunks * z.heads * z.p * z.n;                 // one chunk state per head and chunk
    z.cb = z.chunks * z.groups * kMambaChunk * kMambaChunk;    // C B^T per group and chunk, FP32
    z.dt = x.M * z.heads;                                      // dt and its cumulative sums, FP32
    return z;
}

/// mamba_ssm's mamba_split_conv1d_scan_combined as Megatron-Core calls it (no norm or projection inside, z passed
/// for the gate), kernel by kernel from mamba_ssm/ops/triton/ssd_combined.py (state-spaces/mamba e9594ce,
/// MambaSplitConv1dScanCombinedFn and _mamba_chunk_scan_combined_fwd/_bwd): each op below is timed on its own, so
/// the scan costs the sum of its kernels' traffic, not one fused kernel's. Forward: causal_conv1d over x, B and C;
/// _chunk_cumsum_fwd and _chunk_state_fwd (each chunk's state, FP32); _state_passing_fwd (reads the FP32 states,
/// writes them in the activations' format); _bmm_chunk_fwd (C B^T, FP32); _chunk_scan_fwd (reads C B^T, x, z, C
/// and the states, writes the gated output and the ungated one it saves). The causal kernels skip the blocks above
/// the diagonal (IS_CAUSAL), so the masked product is half of 2 Q P per token and head. Backward: the convolution
/// and the four forward kernels replayed (the states passed in FP32 this time), then _chunk_scan_bwd_dz,
/// _chunk_scan_bwd_dstates, _state_passing_bwd, _chunk_scan_chunk_state_bwd_dx, _chunk_state_bwd_db,
/// _chunk_scan_bwd_dC, _chunk_scan_bwd_dcb, two _bmm_chunk_bwd, _chunk_scan_bwd_ddAcs_stable, _chunk_cumsum_bwd,
/// their split reductions and the convolution's backward. Each backward is listed under the forward op whose
/// tensors it replays or differentiates. The host launches keep the count the host figures were fitted with (six
/// forward, eleven backward: docs/CALIBRATION.md, "Host launch").
void appendSsdKernels(const Plan &plan, const Shapes &x, OpPass pass, std::vector<Op> &ops)
{
    const SsdSizes z = ssdSizes(plan.model, x);
    const double q = x.q, f = kFp32Bytes, Q = kMambaChunk, X = z.x, BC = z.bc, S = z.states, CB = z.cb, dt = z.dt;
    const double xBC = X + 2.0 * BC;
    // An op of the scan, its backward given (FLOPs, bytes, launches), and for the roofline's tooltip its shape: a
    // matmul's [rows x inner] x [inner x cols], `batch` times, or an element-wise op's `rows` elements.
    const auto add = [&](const char *name, OpKind kind, double flops, double bytes, double launches,
                         std::array<double, 3> backward, std::array<double, 4> shape) {
        Op op = make(name, kind, pass, OpScope::Layer, flops, bytes);
        op.part = LayerPart::Mamba;
        op.launches = launches;
        op.backwardFlops = backward[0];
        op.backwardBytes = backward[1];
        op.backwardLaunches = backward[2];
        op.batch = shape[0];
        op.rows = shape[1];
        op.inner = shape[2];
        op.cols = shape[3];
        ops.push_back(op);
    };
    // Launches as mamba_ssm runs them (ops/triton/ssd_combined.py at state-spaces/mamba e9594ce,
    // MambaSplitConv1dScanCombinedFn and _mamba_chunk_scan_combined_fwd/_bwd: one kernel per Triton call and per
    // PyTorch op that computes), and Megatron-Core's casts of the mixer's parameters around the call (mamba_mixer.py
    // `_ssm_training`: A = -exp(A_log.float()), dt_bias.float(), D.float(), five kernels each way). Forward: the
    // convolution, the cumulative sums and the chunk states, the state passing, C B^T and the chunk scan.
    // Backward: the convolution replayed, its backward and the copy into the input gradient; dt's clone, the
    // cumulative sums and chunk states replayed, dB and its sum over the heads of a group, the cumulative sums'
    // backward with dA's and dt_bias's sums; the state passing replayed and its backward, with the decays'
    // gradient's update and reversed cumulative sum (flip, cumsum, flip); C B^T replayed, dC B^T with its sum
    // over a group's heads and cast, and the two products into dB and dC; the gate's, the states', dx's (with
    // dD's sum) and dC's (with its sum) kernels, the stable decay gradient and its two adds.
    const double conv = 2.0 * double(kMambaConvKernel) * xBC;
    add("Mamba conv1d", OpKind::Elementwise, conv, 2.0 * q * xBC, 1.0 + 5.0, {3.0 * conv, 5.0 * q * xBC, 3.0 + 5.0},
        {0, xBC, 0, 0});
    // Each chunk's state: [P x Q] x [Q x N] per head and chunk, after the cumulative sums of dt; its backward replays
    // both and computes dB from x and the state gradients.
    const double stateFlops = 2.0 * X * z.n;
    const double stateBytes = q * (X + BC) + (q + 4.0 * f) * dt + f * S;
    const double dbBytes = q * (X + S + 2.0 * BC) + 2.0 * f * BC + 9.0 * f * dt + 3.0 * q * dt;
    add("SSD chunk state", OpKind::Attention, stateFlops, stateBytes, 2.0,
        {2.0 * stateFlops, stateBytes + dbBytes, 8.0}, {z.chunks * z.heads, z.p, Q, z.n});
    add("SSD state passing", OpKind::Elementwise, 2.0 * S, (f + q) * S, 1.0, {4.0 * S, 4.0 * f * S + 2.0 * q * S, 6.0},
        {0, S, 0, 0});
    // C B^T per group and chunk; its backward: the replay, dC B^T from x and the output gradient (per head, causal),
    // and the two products that turn it into dB and dC.
    const double cbFlops = 2.0 * x.M * Q * z.groups * z.n;
    const double cbBytes = 2.0 * q * BC + f * CB;
    const double cbBackwardBytes =
        cbBytes + 2.0 * q * X + 2.0 * f * dt + f * CB + 2.0 * (2.0 * q * BC + f * CB + f * BC);
    add("SSD C B^T", OpKind::Attention, cbFlops, cbBytes, 1.0, {3.0 * cbFlops + X * Q, cbBackwardBytes, 6.0},
        {z.chunks * z.groups, Q, z.n, Q});
    // The output: C B^T masked with the decays times x (causal: X Q), plus C times the states passed in (2 X N). Its
    // backward: the gate's gradient, the state gradients, dx (both paths), dC, and the decays' gradients.
    const double scanFlops = X * Q + 2.0 * X * z.n;
    const double scanBytes = f * CB + 4.0 * q * X + 2.0 * f * dt + q * (BC + S);
    const double scanBackwardBytes =
        13.0 * q * X + 4.0 * q * BC + 2.0 * q * S + f * S + 2.0 * f * CB + 2.0 * f * BC + 22.0 * f * dt;
    add("SSD chunk scan", OpKind::Attention, scanFlops, scanBytes, 1.0,
        {6.0 * X * z.n + 2.0 * X * Q, scanBackwardBytes, 9.0}, {z.chunks * z.heads, Q, z.n, z.p});
}

void appendMambaBlock(const Plan &plan, const Shapes &x, OpPass pass, double residualBytes, std::vector<Op> &ops)
{
    const ModelSpec &m = plan.model;
    const OpScope L = OpScope::Layer;
    const double inner = double(m.mambaInner()) / x.t;
    const double in = double(m.mambaInProjection()) / x.t;
    const auto tag = [](Op op) {
        op.part = LayerPart::Mamba;
        return op;
    };
    ops.push_back(tag(normOp(plan, "Mamba input norm", pass, L, x.M * x.h / x.rowT, x.q)));
    ops.push_back(tag(matmul("Mamba in-projection", pass, L, x.M, x.h, in, x.q)));
    // rearrange(..., "l b d -> b l d").contiguous() and back: a copy only when the micro-batch holds more than one
    // sequence (with b = 1 the permuted view is already contiguous, and .contiguous() returns it).
    if (x.b > 1.0) {
        Op copies = tag(elementwise("Mamba layout copies", OpKind::Elementwise, pass, L, x.M * (in + inner), 0.0,
                                    2.0 * x.q * x.M * (in + inner)));
        copies.launches = 2.0;
        ops.push_back(copies);
    }
    appendSsdKernels(plan, x, pass, ops);
    ops.push_back(tag(normOp(plan, "Mamba gated norm", pass, L, x.M * inner, x.q)));
    ops.push_back(tag(matmul("Mamba out-projection", pass, L, x.M, inner, x.h, x.q)));
    ops.push_back(tag(residualOp(x, pass, residualBytes)));
}

/// The MLP half of a layer after the post-attention norm: dense, or (mixture of experts) the dense MLP of
/// the dense layers and the MoE of the others, each tagged with its layer part; then the residual.
void appendMlpAndResidual(const Plan &plan, const Shapes &x, OpPass pass, double residualBytes, std::vector<Op> &ops)
{
    const ModelSpec &m = plan.model;
    const bool moe = m.isMoe() && m.moeLayers() > 0;
    static const char *const denseNames[3] = {"MLP up", "bias, GELU", "MLP down"};
    static const char *const gatedNames[3] = {"MLP up", "SwiGLU", "MLP down"};
    const char *const *names = m.mlp == MlpKind::SwiGlu ? gatedNames : denseNames;
    if (m.isHybrid()) {
        // Each MLP block of a hybrid model: its own pre-norm, the MLP, its own residual, all of its part.
        const auto block = [&](LayerPart part) {
            Op norm = normOp(plan, "pre-MLP norm", pass, OpScope::Layer, x.M * x.h / x.rowT, x.q);
            norm.part = part;
            ops.push_back(norm);
            if (part == LayerPart::MoeMlp)
                appendMoe(plan, x, pass, ops);
            else
                appendMlp(plan, x, pass, part, x.M, x.f / x.t, 1.0, names, ops);
            Op residual = residualOp(x, pass, residualBytes);
            residual.part = part;
            ops.push_back(residual);
        };
        const ModelSpec::BlockCounts b = m.blocksIn(0, m.layers);
        if (b.denseMlp > 0)
            block(LayerPart::DenseMlp);
        if (b.moeMlp > 0)
            block(LayerPart::MoeMlp);
        return;
    }
    if (!moe || m.moeLayers() < m.layers)
        appendMlp(plan, x, pass, moe ? LayerPart::DenseMlp : LayerPart::Common, x.M, x.f / x.t, 1.0, names, ops);
    if (moe)
        appendMoe(plan, x, pass, ops);
    ops.push_back(residualOp(x, pass, residualBytes));
}


/// Eager rotary embedding (Llama's reference apply_rotary_emb, as torchtitan runs it without
/// torch.compile): queries and keys upcast to FP32 (read q, write 4), multiplied as complex numbers by the
/// frequencies (4, 4) and cast back (4, q): 2q + 16 bytes per element, in about four kernels for each of Q
/// and K. A fused rotary kernel (Transformer Engine's, torch.compile's) is one read and one write inside
/// the projections' epilogue and the calibrated layer time; it adds no op here.
void appendEagerRotary(const Plan &plan, const Shapes &x, OpPass pass, std::vector<Op> &ops)
{
    const double elements = x.M * (x.qd + x.kv) / x.t;
    if (runsUnfusedRotary(plan.model, plan.training)) {
        // Megatron-Core's _apply_rotary_pos_emb_bshd on Q and on K, in 16 bits: t * cos, the rotated half
        // (a negation and a cat), times sin, the sum and the final cat with the empty pass-through part move 12
        // tensors' worth of bytes; with the cosines and sines computed and cast per call, 12 kernels a tensor.
        // Backward: the two products' gradients, the negation, the halves' cat, their sum and the slice's
        // zero-filled gradient, 13 tensors' worth in 7 kernels.
        Op op = elementwise("rotary embedding (unfused)", OpKind::Elementwise, pass, OpScope::Layer, elements,
                            6.0 * elements, 12.0 * x.q * elements);
        op.launches = 24.0;
        op.backwardBytes = 13.0 * x.q * elements;
        op.backwardLaunches = 14.0;
        ops.push_back(op);
        return;
    }
    if (!runsEagerRotary(plan.model, plan.training))
        return;
    Op op = elementwise("rotary embedding (eager)", OpKind::Elementwise, pass, OpScope::Layer, elements, 6.0 * elements,
                        (2.0 * x.q + 4.0 * kFp32Bytes) * elements);
    op.launches = 8.0;
    ops.push_back(op);
}

/// training.repeat_kv_heads: `repeat_kv` (an expand and a reshape that copies) writes K and V once per query head
/// that shares them, reading the grouped heads; its backward sums the repeated gradients back (torchtitan
/// models/llama/model.py `repeat_kv` at 9dec370). Eager, a copy kernel each for K and V; compiled, the key's
/// copy joins the rotary kernel that produced it (which then writes the repeated keys instead of its own output).
void appendKvRepeat(const Plan &plan, const Shapes &x, OpPass pass, std::vector<Op> &ops)
{
    if (!expandsKvHeads(plan.model, plan.training))
        return;
    const bool compiled = plan.training.fusesElementwise();
    const double bytes = x.q * x.M * (compiled ? 2.0 * x.akv : 2.0 * (x.kv + x.akv)) / x.t;
    Op op = elementwise("repeat K, V heads", OpKind::Elementwise, pass, OpScope::Layer, x.M * 2.0 * x.akv / x.t, 0.0,
                        bytes);
    op.launches = compiled ? 0.0 : 2.0;
    op.backwardBytes = x.q * x.M * 2.0 * (x.kv + x.akv) / x.t;
    op.backwardLaunches = compiled ? 0.0 : 2.0;
    ops.push_back(op);
}

/// The forward ops of one layer; `attentionCoreOnly` keeps the ops selective recomputation replays.
void layerForward(const Plan &plan, const Shapes &x, OpPass pass, bool attentionCoreOnly, std::vector<Op> &ops)
{
    const bool fused = plan.training.fusesElementwise();
    const bool flash = plan.training.flashAttention;
    const OpScope L = OpScope::Layer;
    const double rowBytes = x.q * x.M * x.h / x.rowT; // one h-wide activation on this rank

    if (!attentionCoreOnly) {
        ops.push_back(normOp(plan, "input norm", pass, L, x.M * x.h / x.rowT, x.q));
        appendProjections(plan, x, pass, ops);
        appendEagerRotary(plan, x, pass, ops);
        appendKvRepeat(plan, x, pass, ops);
    }
    const double scores = x.b * x.heads * x.sq * x.s; // elements of the score tensor on this rank
    const double remoteKv = x.q * (x.s - x.sq) * x.b * 2.0 * x.akv / x.t; // other context ranks' K and V, read once
    if (flash) {
        if (!attentionCoreOnly) {
            // One kernel: QK^T and PV in on-chip memory; reads Q, K, V, writes the context. With the causal
            // mask it skips the blocks above the diagonal: half of the s^2 work (Dao 2023); with packed
            // documents of L tokens, half of s x L.
            Op op = make("flash attention", OpKind::Attention, pass, L, 2.0 * x.b * x.heads * x.sq * x.span * x.hd,
                         x.q * x.M * (2.0 * x.qd + 2.0 * x.akv) / x.t + remoteKv);
            op.batch = x.b * x.heads; // QK^T: [s x hd] x [hd x s] per head (and PV alike)
            op.rows = x.sq;
            op.inner = x.hd;
            op.cols = x.span;
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
            ops.push_back(elementwise("attention dropout", OpKind::Elementwise, pass, L, scores, scores,
                                      (2.0 * x.q + 1.0) * scores));
        ops.push_back(matmul("attention context PV", pass, L, x.sq, x.s, x.hd, x.q, x.b * x.heads));
        for (std::size_t i = coreBegin; i < ops.size(); ++i)
            ops[i].attentionCore = true;
    }
    if (attentionCoreOnly)
        return;
    Op output = matmul("output projection", pass, L, x.M, x.od / x.t, x.h, x.q);
    output.role = OpRole::OutputProjection;
    ops.push_back(output);
    // bias + dropout + residual add: reads the projection output and the residual, writes the sum (and
    // the dropout mask); unfused, bias (r+w), dropout (r+w+mask) and add (2r+w) each touch memory.
    const double residualBytes = (fused ? 3.0 : 7.0) * rowBytes + x.mask * x.M * x.h / x.rowT;
    ops.push_back(residualOp(x, pass, residualBytes));
    if (plan.model.isHybrid()) { // the attention block ends here; the model's other blocks follow
        if (plan.model.blocksIn(0, plan.model.layers).mamba > 0)
            appendMambaBlock(plan, x, pass, residualBytes, ops);
        appendMlpAndResidual(plan, x, pass, residualBytes, ops);
        return;
    }
    ops.push_back(normOp(plan, "post-attention norm", pass, L, x.M * x.h / x.rowT, x.q));
    appendMlpAndResidual(plan, x, pass, residualBytes, ops);
}

/// torchtitan's op-level selective checkpointing replays in backward what its policy does not save: every
/// element-wise op and every even-numbered matmul in the order the layer runs them (torchtitan
/// parallelize_llama.py, _save_list and _custom_policy: aten.mm and the scaled-dot-product attention kernels,
/// saving only odd-numbered mm; models/deepseek_v3/parallelize.py `_op_sac_save_list` at 114151ad4^): of wq,
/// wk, wv, wo, w1, w3, w2 the key GEMM, the output projection and w3; of a fused wqkv, wo, w1, w3, w2 wo and
/// w3; of multi-head latent attention's wq_a, wq_b, wkv_a, wkv_b, wo the up projections. The count runs over
/// the layer's ops as they are listed: the attention block's, then the dense MLP's or the MoE MLP's (the
/// router, then the shared expert), each from the attention block's count; a gated MLP's up projection is two
/// matmuls (w1, w3). The routed experts' grouped GEMMs are not aten.mm and are replayed whole; the attention
/// kernel's output is saved. The memory model keeps the rest (ActivationMemory.cpp, opCheckpointedActivations).
void appendOpReplay(const Plan &plan, std::vector<Op> &ops, std::size_t first, std::size_t forwardEnd)
{
    const bool gated = plan.model.mlp == MlpKind::SwiGlu;
    const bool attentionReplayed = plan.training.recomputeAttention; // the kernel is not in the save list
    int attention = 0;                           // matmuls of the common ops so far
    std::array<int, 4> mlp{-1, -1, -1, -1};       // per part past the attention block; -1 until its first matmul
    for (std::size_t i = first; i < forwardEnd; ++i) {
        const Op &op = ops[i];
        const bool attentionOp = op.kind == OpKind::Attention || op.attentionCore; // no aten.mm among them
        if (op.scope != OpScope::Layer || (attentionOp && !attentionReplayed))
            continue;
        double share = 1.0; // element-wise ops, the attention kernel and the routed experts' grouped GEMMs
        if (op.kind == OpKind::Matmul && op.role != OpRole::ExpertGemm && !attentionOp) {
            int &count = op.part == LayerPart::Common ? attention : mlp[std::size_t(op.part)];
            if (count < 0)
                count = attention;
            const int matmuls = gated && op.role == OpRole::MlpUp ? 2 : 1;
            int even = 0;
            for (int k = 0; k < matmuls; ++k)
                even += ++count % 2 == 0 ? 1 : 0;
            share = double(even) / double(matmuls);
        }
        if (share <= 0.0)
            continue;
        Op replay = op;
        replay.pass = OpPass::Recompute;
        replay.flops *= share;
        replay.bytes *= share;
        ops.push_back(replay);
    }
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
        op.launches *= 2.0; // the input and the weight gradient
        op.enqueues *= 2.0;
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
    if (forward.backwardLaunches >= 0.0)
        op.launches = forward.backwardLaunches;
    if (forward.backwardBytes >= 0.0)
        op.bytes = forward.backwardBytes;
    if (forward.backwardFlops >= 0.0)
        op.flops = forward.backwardFlops;
    return op;
}

/// FP8/FP4 family: quantize kernels that are not fused into a norm or an activation (Transformer Engine's
/// LayerNormLinear and fused activations write FP8 directly), per part of the layer. Forward: the attention
/// output is cast before the output projection (read 2, write 1 byte, amax on the way), and every linear
/// input also gets its column-wise copy for the weight gradient (1 byte written). Backward: the output
/// gradient of each linear layer is cast both ways (read 2, write 1 + 1 bytes). Memory-bound.
Op quantizeOp(bool backward, LayerPart part, double elements, double bytes)
{
    Op op =
        elementwise(backward ? "quantize gradients (cast, transpose)" : "quantize (cast, amax)", OpKind::Elementwise,
                    backward ? OpPass::Backward : OpPass::Forward, OpScope::Layer, elements, 2.0 * elements, bytes);
    op.part = part;
    return op;
}

/// The casts of an MLP whose up projection reads `rows` h-wide inputs per rank (`castInput`: not written in
/// FP8 by a fused norm, so cast here) and whose down projection reads `rows` x `width`.
void appendMlpQuantize(const Shapes &x, LayerPart part, double rows, double width, double upWidth, bool castInput,
                       std::vector<Op> &ops)
{
    const double in = rows * x.h, down = rows * width;
    ops.push_back(quantizeOp(false, part, in + down, (castInput ? (x.q + 2.0) : 1.0) * in + down));
    const double gradients = in + rows * upWidth;
    ops.push_back(quantizeOp(true, part, gradients, (x.q + 2.0) * gradients));
}

void appendQuantizeOps(const Plan &plan, const Shapes &x, std::vector<Op> &ops)
{
    const ModelSpec &m = plan.model;
    const double attnOut = x.M * x.qd / x.t, qkvIn = x.M * x.h / x.rowT;
    ops.push_back(
        quantizeOp(false, LayerPart::Common, 2.0 * attnOut + qkvIn, 3.0 * x.q / 2.0 * attnOut + qkvIn + attnOut));
    const double attnGradients = x.M * (x.qd + 2.0 * x.kv) / x.t + x.M * x.h / x.rowT;
    ops.push_back(quantizeOp(true, LayerPart::Common, attnGradients, (x.q + 2.0) * attnGradients));
    const bool moe = m.isMoe() && m.moeLayers() > 0;
    const double gate = m.mlp == MlpKind::SwiGlu ? 2.0 : 1.0;
    const ModelSpec::BlockCounts blocks = m.blocksIn(0, m.layers);
    if (m.isHybrid() && blocks.mamba > 0) // the in-projection's input comes in FP8 from its fused norm
        appendMlpQuantize(x, LayerPart::Mamba, x.M / x.rowT, double(m.mambaInner()) / x.t * x.rowT,
                          double(m.mambaInProjection()) / x.t * x.rowT, false, ops);
    if (m.isHybrid() ? blocks.denseMlp > 0 : (!moe || m.moeLayers() < m.layers))
        appendMlpQuantize(x, moe || m.isHybrid() ? LayerPart::DenseMlp : LayerPart::Common, x.M / x.rowT,
                          x.f / x.t * x.rowT, gate * x.f / x.t * x.rowT, false, ops);
    if (!moe)
        return;
    // Routed tokens arrive permuted (no norm writes them in FP8): each copy is cast; rows per rank as the
    // grouped GEMMs see them (all local experts, the busiest's load).
    const double etp = double(plan.parallel.expertTensorSize());
    const double rows = x.M * double(m.expertsPerToken) / x.t * etp * plan.training.busiestExpertLoad();
    const double width = double(m.expertWidth()) / etp;
    Shapes r = x; // a latent MoE's routed rows are latent-wide
    r.h = double(m.routedWidth());
    appendMlpQuantize(r, LayerPart::MoeMlp, rows, width, gate * width, true, ops);
    // Transformer Engine's grouped linear layers quantize each local expert's slice with a kernel of its own
    // from one call (tex.split_quantize), unless the fused grouped MLP quantizes in its GEMMs' epilogues.
    const double localExperts = double(m.experts) / double(plan.parallel.expert);
    for (std::size_t back : {std::size_t(1), std::size_t(2)})
        ops[ops.size() - back].enqueues = plan.training.fusedExpertMlp ? 0.0 : localExperts;
    if (m.sharedExperts > 0) {
        const double shared = double(m.sharedExperts) * double(m.expertWidth()) / x.t;
        appendMlpQuantize(x, LayerPart::MoeMlp, x.M, shared, gate * shared, false, ops);
    }
}

} // namespace

/// Host launches of a mixture-of-experts layer's routing and permutation (the "router top-k, permute" op) and
/// of its unpermutation and combine, forward and backward: each PyTorch op or Transformer Engine call the
/// host makes, read from Megatron-Core's MoE layer at d98e8a6 (an approximate count: views are free,
/// a sort is one call).
/// - The router's score function and top-k (moe_utils.py topk_routing_with_score_function): unfused, top-k,
///   softmax, cast, the probabilities' zeros and scatter, the routing map's zeros, int, scatter and bool: 9;
///   group-limited routing adds the group scores' top-k and sum, the groups' top-k, their mask's zeros,
///   scatter, expansion and fill: 7. Fused (--moe-router-fusion), fused_topk_with_score_function: 1.
/// - The auxiliary loss (router.py, compute_routing_scores_for_aux_loss and the loss): unfused, score, top-k,
///   the map's four ops, the token counts and their all-reduce, the loss's two sums and two products, the
///   metrics tracker's two: 13; fused, the fused score and loss kernels with the counts, their all-reduce
///   and the tracker's: 6.
/// - The all-to-all dispatcher's preprocessing (token counts, splits, their copy to the host): 6 either way.
///   The permutation (moe_utils.py permute): unfused, the map's bool and transposed copy, an argsort, a
///   slice, a modulo, the probabilities' transposed copy and gather, the tokens' index_select: 10; fused
///   (--moe-permute-fusion), Transformer Engine's row-id map (3 kernels) and permute: 4. Sorting the received
///   chunks by local expert (sort_chunks_by_idxs): a concatenation per tensor, 2; fused 1. HybridEP permutes
///   inside its dispatch kernel (token_dispatcher.py _HybridEPManager), so it counts as fused.
/// - Combine: the chunks' sort back (2 / 1) and unpermute (moe_utils.py unpermute: the probabilities'
///   product, casts, zeros and scatter-add, 5; fused 1), and the weighted sum's add: 8 unfused, 3 fused.
/// - Backward: autograd replays the differentiable ones: unfused router 10, fused 3 (the fused top-k's and
///   aux loss's backward kernels); permutation's gradient 6 unfused, 2 fused; combine's 6 and 2.
/// Other frameworks keep one count, Megatron-Core's fused one (torchtitan's and DeepSpeed's routers are a
/// handful of PyTorch ops with a sort).
RoutingLaunches routingLaunches(const Plan &plan)
{
    const TrainingConfig &t = plan.training;
    const bool megatron = t.framework == Framework::Megatron;
    const bool fusedRouter = !megatron || t.moeRouterFusion;
    const bool fusedPermute =
        !megatron || t.moePermuteFusion || plan.parallel.expertDispatcher == ExpertDispatcher::HybridEp;
    const bool grouped = plan.model.routerGroups > 0 && plan.model.routerGroupTopk > 0;
    const double routerForward = fusedRouter ? 1.0 + 6.0 : 9.0 + (grouped ? 7.0 : 0.0) + 13.0;
    const double routerBackward = fusedRouter ? 3.0 : 10.0;
    const double permuteForward = 6.0 + (fusedPermute ? 4.0 + 1.0 : 10.0 + 2.0);
    const double permuteBackward = fusedPermute ? 2.0 : 6.0;
    RoutingLaunches l;
    l.fusedRouter = fusedRouter;
    l.fusedPermute = fusedPermute;
    l.route = {routerForward + permuteForward, routerBackward + permuteBackward};
    l.combine = fusedPermute ? PassLaunches{3.0, 2.0} : PassLaunches{8.0, 6.0};
    return l;
}

void appendMicrobatchOps(const Plan &plan, std::vector<Op> &ops)
{
    const Shapes x = shapesOf(plan);
    const std::size_t first = ops.size();
    layerForward(plan, x, OpPass::Forward, false, ops);

    // Embedding: gather the token rows (vocabulary-parallel, then reduced over t), add positions.
    const double rowBytes = x.q * x.M * x.h;
    ops.push_back(elementwise("embedding lookup", OpKind::Embedding, OpPass::Forward, OpScope::Embedding, x.M * x.h,
                              x.M * x.h, 3.0 * rowBytes));
    // Output: final norm, logits projection, softmax cross-entropy over V / t.
    ops.push_back(normOp(plan, "final norm", OpPass::Forward, OpScope::Output, x.M * x.h / x.rowT, x.q));
    ops.push_back(matmul("logits projection", OpPass::Forward, OpScope::Output, x.M, x.h, x.V / x.t, x.q));
    const double logits = x.M * x.V / x.t;
    Op loss = elementwise("cross-entropy", OpKind::Loss, OpPass::Forward, OpScope::Output, logits, 5.0 * logits,
                          (x.q + 3.0 * kFp32Bytes) * logits); // through FP32 copies (inplace, eager)
    if (plan.training.lossKernelInEffect() == LossKernel::TransformerEngine) {
        // Transformer Engine's parallel_cross_entropy (2.2 to 2.17): an online-softmax pass and a loss pass read
        // the 16-bit logits, the second writing the gradient over them (triton/cross_entropy.py,
        // cross_entropy_forward, `return loss, _input` at v2.8); its backward scales that gradient by the
        // per-token loss gradient (cross_entropy_backward, element_mul_kernel: a read and a write).
        loss.bytes = 3.0 * x.q * logits;
        loss.backwardBytes = 2.0 * x.q * logits;
    }
    ops.push_back(loss);

    const std::size_t forwardEnd = ops.size();
    for (std::size_t i = first; i < forwardEnd; ++i)
        ops.push_back(backwardOf(ops[i]));
    if (isLowPrecisionMatmul(plan.training.precision))
        appendQuantizeOps(plan, x, ops);

    switch (plan.training.recompute) {
    case Recompute::None:
        break;
    case Recompute::Selective: {
        if (!plan.training.flashAttention) // flash attention already recomputes its scores in backward
            layerForward(plan, x, OpPass::Recompute, true, ops);
        // Recompute modules: MLA's up projections (Q, K, V from the latents) and the experts' activation
        // function replay their forward ops in backward.
        const bool upProjections = plan.model.isMla() && plan.training.recomputeMlaUpProjection;
        const bool expertActivation = plan.model.isMoe() && plan.training.recomputeExpertActivation;
        const bool moeLayer = plan.model.isMoe() && plan.training.recomputesMoeLayers(); // the whole MoE MLP
        const bool denseMlp = plan.training.recomputeDenseMlp; // the dense MLP: its up, activation and down ops
        const auto inDenseMlp = [&](const Op &op) {
            const bool mlpOp =
                op.role == OpRole::MlpUp || op.role == OpRole::MlpActivation || op.role == OpRole::MlpDown;
            return mlpOp && (op.part == LayerPart::Common || op.part == LayerPart::DenseMlp);
        };
        for (std::size_t i = first; i < forwardEnd && (upProjections || expertActivation || moeLayer || denseMlp);
             ++i) {
            const OpRole role = ops[i].role;
            if ((upProjections && role == OpRole::MlaUpProjection) || (moeLayer && ops[i].part == LayerPart::MoeMlp) ||
                (expertActivation && role == OpRole::ExpertActivation) || (denseMlp && inDenseMlp(ops[i]))) {
                Op replay = ops[i];
                replay.pass = OpPass::Recompute;
                ops.push_back(replay);
            }
        }
        break;
    }
    case Recompute::Ops:
        appendOpReplay(plan, ops, first, forwardEnd);
        break;
    case Recompute::Full:
        layerForward(plan, x, OpPass::Recompute, false, ops);
        break;
    }
}

Op matmulOp(const char *name, OpScope scope, double rows, double inner, double cols, double bytesPerElement)
{
    return matmul(name, OpPass::Forward, scope, rows, inner, cols, bytesPerElement);
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
    double bytesPerParameter = b.gradients + 2.0 * b.optimizer + b.parameters + (b.master > 0 ? 0.0 : b.parameters);
    const OptimizerKernel kernel = training.optimizerKernelInEffect();
    if (training.optimizer == Optimizer::Adam && kernel != OptimizerKernel::Fused) {
        // An unfused AdamW runs each step of the update as its own element-wise pass, reading and writing whole
        // tensors. With p the stepped parameter's bytes, g the gradient's and m a moment's: torch.optim.AdamW's
        // foreach path (_multi_tensor_adamw) multiplies the parameters by the decay (2p), lerps the first moment
        // toward the gradient (2m + g), scales the second (2m) and adds the squared gradient (2m + g), takes its
        // square root into a temporary (2m), divides it by the bias correction (2m), adds eps (2m) and applies
        // addcdiv to the parameters (2p + 2m): 4p + 2g + 14m. Composer's DecoupledAdamW (llm-foundry's
        // decoupled_adamw) does the same one parameter at a time with the first moment's mul_ and add_ apart:
        // 4p + 2g + 16m (composer/optim/decoupled_weight_decay.py, DecoupledAdamW.adamw). A fused kernel reads
        // and writes each once (above). A separate 16-bit working copy is then written from the master.
        const double stepped = b.master > 0 ? b.master : b.parameters;
        const double moment = 0.5 * (b.optimizer - b.master);
        const double moments = kernel == OptimizerKernel::Loop ? 16.0 : 14.0;
        bytesPerParameter = 4.0 * stepped + 2.0 * b.gradients + moments * moment +
                            (b.master > 0 && b.parameters > b.lowPrecisionCopies
                                ? b.master + b.parameters - b.lowPrecisionCopies
                                : 0.0);
    }
    const double flopsPerParameter = training.keepsTwoMoments() ? 12.0 : 4.0;
    return make("optimizer update", OpKind::Optimizer, OpPass::Forward, OpScope::Step,
                flopsPerParameter * localParameters, bytesPerParameter * localParameters);
}

Op weightCastOp(const Plan &plan, double localParameters)
{
    const double source = plan.training.fp8ParamGather ? kFp32Bytes : kHalfBytes;
    return make("quantize weights", OpKind::Elementwise, OpPass::Forward, OpScope::Step, 2.0 * localParameters,
                (source + quantizedWeightBytes(plan.training.precision)) * localParameters);
}

std::int64_t attentionSpan(const ModelSpec &model, const TrainingConfig &training)
{
    const std::int64_t document = training.documentLength;
    const std::int64_t span =
        training.flashAttention && document > 0 && document < model.seqLen ? document : model.seqLen;
    const double w = double(model.slidingWindow);
    if (!training.flashAttention || !(w > 0) || w >= double(span))
        return span;
    // A windowed layer's query at position i sees min(i, w) keys: s w - w^2 / 2 pairs per sequence, the
    // s x span / 2 of a causal prefix at span 2w - w^2 / s. Flash attention skips the tiles outside the
    // band; the unfused path computes every score and masks them, so it keeps the whole span.
    const double windowed = 2.0 * w - w * w / double(span);
    const double full = model.fullAttentionShare();
    return std::llround(full * double(span) + (1.0 - full) * windowed);
}

double modelForwardFlopsPerSequence(const ModelSpec &m, bool causalHalved, std::int64_t span)
{
    const double s = double(m.seqLen), h = double(m.hidden), f = double(m.ffnHidden), kv = double(m.kvDim());
    const double qd = double(m.qDim()); // h unless head_dim says otherwise
    const double gated = m.mlp == MlpKind::SwiGlu ? 3.0 : 2.0;
    double projections = 2.0 * s * h * (qd + 2.0 * kv); // QKV
    if (m.isMla()) {
        const double qLora = double(m.qLoraRank), kvLora = double(m.kvLoraRank), heads = double(m.heads);
        projections =
            2.0 * s * (m.qLoraRank > 0 ? h * qLora + qLora * qd : h * qd) +
            2.0 * s * (h * (kvLora + double(m.qkRopeHeadDim)) + kvLora * heads * double(m.qkNopeHeadDim + m.vHeadDim));
    }
    const double keys = span > 0 && span < m.seqLen ? double(span) : s;
    const double scores = (causalHalved ? 2.0 : 4.0) * s * keys * double(m.heads) * double(m.headDim()); // QK^T and PV
    const double attention = projections + scores + 2.0 * s * double(m.attentionOutDim()) * h;
    const double denseMlp = 2.0 * gated * s * h * f;
    // A MoE layer: the router, top-k routed experts and the shared ones (what NVIDIA's MoE formulas count).
    // A latent MoE's routed experts run on its latent width, with its two projections (hidden to latent and back).
    const double expertMlp = 2.0 * gated * s * h * double(m.expertWidth());
    const double latent = double(m.routedWidth()), latentProjections = m.moeLatentSize > 0 ? 4.0 * s * h * latent : 0.0;
    const double moeMlp = 2.0 * s * h * double(m.experts) + double(m.sharedExperts) * expertMlp +
                          double(m.expertsPerToken) * expertMlp * latent / h + latentProjections;
    const double moeLayers = double(m.moeLayers()), denseLayers = double(m.layers) - moeLayers;
    double total =
        double(m.layers) * attention + denseLayers * denseMlp + moeLayers * moeMlp + 2.0 * s * h * double(m.vocab);
    if (m.isHybrid()) {
        // Each block on its own: the Mamba-2 mixers' projections, convolution and SSD scan (appendMambaBlock's count,
        // whole model), the attention blocks, the dense and the MoE MLP blocks.
        const ModelSpec::BlockCounts b = m.blocksIn(0, m.layers);
        const double mamba = 2.0 * s * h * double(m.mambaInProjection()) + s * mambaScanFlopsPerToken(m) +
                             2.0 * s * double(m.mambaInner()) * h;
        total = double(b.attention) * attention + double(b.mamba) * mamba + double(b.denseMlp) * denseMlp +
                double(b.moeMlp) * moeMlp + 2.0 * s * h * double(m.vocab);
        if (m.mtpLayers > 0) // each module an attention block and an MLP block ("*E"), its projection and logits
            total += double(m.mtpLayers) * (attention + (m.isMoe() ? moeMlp : denseMlp) + 2.0 * s * 2.0 * h * h +
                                            2.0 * s * h * double(m.vocab));
        return total;
    }
    // Multi-token prediction: each module is a layer of the last kind, a 2h -> h projection and its own logits.
    if (m.mtpLayers > 0)
        total += double(m.mtpLayers) * (attention + (m.isMoeLayer(m.layers - 1) ? moeMlp : denseMlp) +
                                        2.0 * s * 2.0 * h * h + 2.0 * s * h * double(m.vocab));
    return total;
}

} // namespace trainplan
