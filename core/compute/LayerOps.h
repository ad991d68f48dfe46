#pragma once
// The op list of a training step with real shapes after the tensor and sequence split, for one
// micro-batch on one tensor rank: a transformer layer (forward, backward, and the forward ops replayed by
// recomputation), the embedding, the output projection and loss, and the optimizer update.

#include <vector>

#include "core/compute/Op.h"
#include "core/plan/Plan.h"

namespace trainplan {

/// Host launches of one pass of an op.
struct PassLaunches
{
    double forward = 0, backward = 0;
};

/// Host launches of a mixture-of-experts layer's routing and token permutation, and of its unpermutation
/// and combine, as the plan's framework and fusion keys make them (training.moe_router_fusion,
/// training.moe_permute_fusion): what the "router top-k, permute" and "unpermute, combine" ops carry.
struct RoutingLaunches
{
    PassLaunches route, combine;
    bool fusedRouter = false, fusedPermute = false; ///< as counted: Transformer Engine's kernels, or as fused
};
RoutingLaunches routingLaunches(const Plan &plan);

/// How many times a stage runs a Layer op of `part` per micro-batch: its blocks of that kind (Common: its
/// attention blocks, every layer of a transformer).
inline double blocksOfPart(const ModelSpec::BlockCounts &b, LayerPart part)
{
    switch (part) {
    case LayerPart::Common: return double(b.attention);
    case LayerPart::DenseMlp: return double(b.denseMlp);
    case LayerPart::MoeMlp: return double(b.moeMlp);
    case LayerPart::Mamba: return double(b.mamba);
    }
    return 0.0;
}

/// Appends the ops of one micro-batch: layer ops (scope Layer, counted once: multiply by the layers of a
/// stage), embedding ops (first stage), output ops (last stage). Times are not filled in.
void appendMicrobatchOps(const Plan &plan, std::vector<Op> &ops);

/// One matmul [rows x inner] x [inner x cols] outside the layers' ops (the optimizer's own), reading both operands
/// and writing the result in `bytesPerElement`. Its time is not filled in.
Op matmulOp(const char *name, OpScope scope, double rows, double inner, double cols, double bytesPerElement);

/// The optimizer update of `localParameters` parameters (one GPU's shard), memory-bound.
Op optimizerOp(const Plan &plan, double localParameters);

/// FP8/FP4 family: refreshing the quantized weight copies of `localParameters` once per step.
Op weightCastOp(const Plan &plan, double localParameters);

/// Keys one query attends to: the sequence, or with packed documents the document length, where flash
/// attention's variable-length masks keep each query within its document; with a sliding window the
/// layers' mean, a windowed layer counting as a causal prefix of 2w - w^2 / s (the same pairs).
std::int64_t attentionSpan(const ModelSpec &model, const TrainingConfig &training);

/// Forward matmul FLOPs of the whole model for one sequence, attention scores counted in full (s^2, not
/// halved for the causal mask): the convention of Narayanan et al. 2021 and llm-foundry's MFU; with
/// `causalHalved`, the score term halved as NVIDIA's newer recipes count it. A mixture of experts counts
/// the router, the top-k routed and the shared experts (active parameters), and its MTP modules.
/// `span` (attentionSpan; 0 = the sequence) is the keys each query attends to: with packed documents the
/// score term is s x span instead of s^2, the work the model does (NVIDIA's FLOP count for its packed
/// fine-tuning recipes has no full-sequence attention term either).
double modelForwardFlopsPerSequence(const ModelSpec &model, bool causalHalved = false, std::int64_t span = 0);

} // namespace trainplan
