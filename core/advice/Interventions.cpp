#include "core/advice/Interventions.h"

#include "core/estimate/Accuracy.h"

#include <optional>

namespace trainplan {

namespace {

std::string num(std::int64_t v) { return std::to_string(v); }
std::string from(const char *key, const std::string &value) { return std::string(key) + ": " + value + " -> "; }

/// One intervention of the diagnostic map: its column, its name, the change in the plan's keys, and how it
/// applies (a rule that does not apply leaves the plan as it is, and the intervention is left out).
struct Rule
{
    Bottleneck resource;
    const char *id; ///< stable; its label is io's (io/output/Evidence interventionLabel)
    std::string (*change)(const Plan &);
    void (*apply)(Plan &);
};

const Rule kRules[] = {
    // Capacity: recompute, shard the state, split the model further, smaller micro-batches, offload.
    {Bottleneck::Capacity, "selective_recomputation",
     [](const Plan &p) { return from("training.recompute", toString(p.training.recompute)) + "selective"; },
     [](Plan &p) {
         if (p.training.recompute == Recompute::None)
             p.training.switchRecompute(Recompute::Selective);
     }},
    {Bottleneck::Capacity, "full_recomputation",
     [](const Plan &p) { return from("training.recompute", toString(p.training.recompute)) + "full"; },
     [](Plan &p) { p.training.switchRecompute(Recompute::Full); }},
    {Bottleneck::Capacity, "shard_optimizer_state_zero_1",
     [](const Plan &p) { return from("parallel.zero_stage", num(p.parallel.zeroStage)) + "1"; },
     [](Plan &p) {
         if (p.parallel.zeroStage < 1 && p.parallel.data > 1)
             p.parallel.zeroStage = 1;
     }},
    {Bottleneck::Capacity, "shard_gradients_too_zero_2",
     [](const Plan &p) { return from("parallel.zero_stage", num(p.parallel.zeroStage)) + "2"; },
     [](Plan &p) {
         if (p.parallel.zeroStage < 2 && p.parallel.data > 1)
             p.parallel.zeroStage = 2;
     }},
    {Bottleneck::Capacity, "double_pipeline_stages",
     [](const Plan &p) { return from("parallel.pipeline", num(p.parallel.pipeline)) + num(p.parallel.pipeline * 2); },
     [](Plan &p) { p.parallel.pipeline *= 2; }},
    {Bottleneck::Capacity, "halve_the_micro_batch",
     [](const Plan &p) {
         return from("training.micro_batch", num(p.training.microBatch)) + num(p.training.microBatch / 2);
     },
     [](Plan &p) {
         if (p.training.microBatch > 1)
             p.training.microBatch /= 2;
     }},
    {Bottleneck::Capacity, "recompute_whole_moe_layers",
     [](const Plan &) { return std::string("training.recompute_moe: false -> true"); },
     [](Plan &p) {
         if (p.model.isMoe() && p.training.recompute == Recompute::Selective)
             p.training.recomputeMoe = true;
     }},
    {Bottleneck::Capacity, "offload_optimizer_state",
     [](const Plan &) { return std::string("parallel.offload_optimizer: false -> true"); },
     [](Plan &p) { p.parallel.offloadOptimizer = true; }},
    // Megatron-Core's CPU optimizer steps a share of each shard on the host (--optimizer-offload-fraction): half of
    // the moments leave the GPU for about half of the whole offload's time.
    {Bottleneck::Capacity, "offload_half_the_optimizer",
     [](const Plan &) {
         return std::string("parallel.offload_optimizer: false -> true, parallel.optimizer_offload_fraction: 0.5");
     },
     [](Plan &p) {
         if (p.training.framework == Framework::Megatron && !p.parallel.offloadOptimizer) {
             p.parallel.offloadOptimizer = true;
             p.parallel.optimizerOffloadFraction = 0.5;
         }
     }},
    // Memory movement: fuse element-wise chains, fused attention, bigger kernels.
    {Bottleneck::MemoryMovement, "fuse_element_wise_kernels",
     [](const Plan &) { return std::string("training.fused_kernels: false -> true"); },
     [](Plan &p) { p.training.fusedKernels = true; }},
    // Transformer Engine's fused rotary embedding: one read and write of Q and K instead of a dozen kernels each
    // (Megatron-Core without --no-rope-fusion; Megatron-Bridge turns it off for YaRN positions).
    {Bottleneck::MemoryMovement, "fused_rotary_embedding",
     [](const Plan &) { return std::string("training.fused_rope: false -> true"); },
     [](Plan &p) {
         if (runsUnfusedRotary(p.model, p.training))
             p.training.fusedRope = true;
     }},
    // One fused AdamW kernel in place of torch's foreach passes or a per-parameter loop (torch.optim.AdamW(fused=True),
    // torchtitan --optimizer.fused): each state read and written once (core/compute/LayerOps.cpp optimizerOp).
    {Bottleneck::MemoryMovement, "fused_adamw",
     [](const Plan &p) {
         return from("training.optimizer_kernel", toString(p.training.optimizerKernelInEffect())) + "fused";
     },
     [](Plan &p) {
         if (p.training.optimizer == Optimizer::Adam && p.training.optimizerKernelInEffect() != OptimizerKernel::Fused)
             p.training.optimizerKernel = OptimizerKernel::Fused;
     }},
    {Bottleneck::MemoryMovement, "flash_attention",
     [](const Plan &) { return std::string("training.flash_attention: false -> true"); },
     [](Plan &p) { p.training.flashAttention = true; }},
    {Bottleneck::MemoryMovement, "double_the_micro_batch",
     [](const Plan &p) {
         return from("training.micro_batch", num(p.training.microBatch)) + num(p.training.microBatch * 2);
     },
     [](Plan &p) { p.training.microBatch *= 2; }},
    // Arithmetic: a faster number format; fewer replayed FLOPs.
    {Bottleneck::Arithmetic, "fp8_matrix_multiplies",
     [](const Plan &p) { return from("training.precision", toString(p.training.precision)) + "fp8"; },
     [](Plan &p) {
         if (p.training.precision == Precision::BF16 || p.training.precision == Precision::FP16)
             p.training.precision = Precision::FP8;
     }},
    {Bottleneck::Arithmetic, "no_recomputation",
     [](const Plan &p) { return from("training.recompute", toString(p.training.recompute)) + "none"; },
     [](Plan &p) { p.training.switchRecompute(Recompute::None); }},
    {Bottleneck::Arithmetic, "bf16_mixed_precision",
     [](const Plan &p) { return from("training.precision", toString(p.training.precision)) + "bf16"; },
     [](Plan &p) {
         if (p.training.precision == Precision::FP32 || p.training.precision == Precision::TF32)
             p.training.precision = Precision::BF16;
     }},
    // Communication and coordination: overlap, sequence parallelism, smaller tensor groups, fewer bubbles
    // (more micro-batches, interleaving, zero-bubble schedule).
    {Bottleneck::Communication, "overlap_gradient_reduction",
     [](const Plan &) { return std::string("parallel.overlap_grad_reduce: false -> true"); },
     [](Plan &p) { p.parallel.overlapGradReduce = true; }},
    // Megatron-Core's CPU optimizer with its copies on their own streams (--overlap-cpu-optimizer-d2h-h2d).
    {Bottleneck::Communication, "overlap_offload_copies",
     [](const Plan &) { return std::string("parallel.overlap_offload_copies: false -> true"); },
     [](Plan &p) {
         if (p.training.framework == Framework::Megatron && p.parallel.offloadOptimizer)
             p.parallel.overlapOffloadCopies = true;
     }},
    {Bottleneck::Communication, "deepep_expert_dispatcher",
     [](const Plan &) { return std::string("parallel.expert_dispatcher: alltoall -> deepep"); },
     [](Plan &p) {
         if (p.model.isMoe() && p.parallel.expert > 1 && p.parallel.expertDispatcher == ExpertDispatcher::AllToAll)
             p.parallel.expertDispatcher = ExpertDispatcher::DeepEp;
     }},
    // Transformer Engine's fused router and token permutation: fewer launches for a host that sets the pace
    // (Megatron-Core --moe-router-fusion, --moe-permute-fusion).
    {Bottleneck::Communication, "fused_moe_routing",
     [](const Plan &) { return std::string("training.moe_router_fusion, training.moe_permute_fusion: false -> true"); },
     [](Plan &p) {
         if (p.model.isMoe() && p.training.framework == Framework::Megatron) {
             p.training.moeRouterFusion = true;
             p.training.moePermuteFusion = true;
         }
     }},
    // Whole experts per rank: no expert tensor gather and reduce-scatter of the routed copies (the change NVIDIA's
    // v25.05.01 Grok-1 recipe made, 1.23-1.24x measured on 512 H100).
    {Bottleneck::Communication, "whole_experts_per_rank",
     [](const Plan &p) {
         return from("parallel.expert_tensor", num(p.parallel.expertTensorSize())) + "1";
     },
     [](Plan &p) {
         if (p.model.isMoe() && p.parallel.expertTensorSize() > 1)
             p.parallel.expertTensor = 1;
     }},
    {Bottleneck::Communication, "sequence_parallelism",
     [](const Plan &) { return std::string("training.sequence_parallel: false -> true"); },
     [](Plan &p) {
         if (p.parallel.tensor > 1)
             p.training.sequenceParallel = true;
     }},
    {Bottleneck::Communication, "halve_tensor_parallelism",
     [](const Plan &p) { return from("parallel.tensor", num(p.parallel.tensor)) + num(p.parallel.tensor / 2); },
     [](Plan &p) {
         if (p.parallel.tensor > 1)
             p.parallel.tensor /= 2;
     }},
    {Bottleneck::Communication, "interleave_the_pipeline_v2",
     [](const Plan &) { return std::string("parallel.schedule: interleaved, virtual_stages: 2"); },
     [](Plan &p) {
         if (p.parallel.pipeline > 1 && p.parallel.virtualStages == 1) {
             p.parallel.schedule = Schedule::Interleaved;
             p.parallel.virtualStages = 2;
         }
     }},
    {Bottleneck::Communication, "zero_bubble_schedule_zb_h1",
     [](const Plan &p) { return from("parallel.schedule", toString(p.parallel.schedule)) + "zb-h1"; },
     [](Plan &p) {
         if (p.parallel.pipeline > 1 && p.parallel.virtualStages == 1)
             p.parallel.schedule = Schedule::ZeroBubbleH1;
     }},
    // The last stage's output-layer weight gradients run in the pipeline's drain (Megatron-Core
    // --defer-embedding-wgrad-compute, as NeMo's and Megatron-Bridge's large-model recipes run them).
    {Bottleneck::Communication, "defer_output_wgrad",
     [](const Plan &) { return std::string("training.defer_embedding_wgrad: false -> true"); },
     [](Plan &p) {
         if (p.embeddingWgradDeferralAllowed())
             p.training.deferEmbeddingWgrad = true;
     }},
    {Bottleneck::Communication, "halve_pipeline_stages",
     [](const Plan &p) { return from("parallel.pipeline", num(p.parallel.pipeline)) + num(p.parallel.pipeline / 2); },
     [](Plan &p) {
         if (p.parallel.pipeline > 1)
             p.parallel.pipeline /= 2;
     }},
};

/// The rule applied to the plan and estimated; nullopt when it changes nothing.
std::optional<Intervention> evaluate(const Rule &rule, const Plan &plan, const Estimate &current,
                                     const Catalog &catalog)
{
    Intervention in;
    in.resource = rule.resource;
    in.id = rule.id;
    in.change = rule.change(plan);
    in.plan = plan;
    rule.apply(in.plan);
    if (in.plan == plan)
        return std::nullopt;
    deriveDataParallel(in.plan);
    const Estimate e = estimate(in.plan, catalog, EstimateOptions::analytic());
    in.valid = e.valid;
    if (!e.valid) {
        if (const Problem *p = firstError(e.problems))
            in.invalid = *p;
        return in;
    }
    in.fits = e.memory.fits;
    in.mayNotFit = mayNotFit(e.memory, assessAccuracy(accuracyCoordinates(in.plan, e), builtinHeldOutRuns()));
    in.tokensPerSecond = e.step.tokensPerSecond;
    in.peakBytes = e.memory.peakBytes;
    in.stepSeconds = e.step.stepSeconds;
    if (current.valid && current.step.tokensPerSecond > 0)
        in.speedup = e.step.tokensPerSecond / current.step.tokensPerSecond;
    if (current.valid && current.memory.peakBytes > 0)
        in.memoryChange = e.memory.peakBytes / current.memory.peakBytes - 1.0;
    return in;
}

} // namespace

std::vector<std::string> interventionIds()
{
    std::vector<std::string> ids;
    for (const Rule &r : kRules)
        ids.emplace_back(r.id);
    return ids;
}

std::vector<Intervention> evaluateInterventions(const Plan &plan, const Catalog &catalog)
{
    const Estimate current = estimate(plan, catalog, EstimateOptions::analytic());
    std::vector<Intervention> out;
    for (const Rule &rule : kRules)
        if (std::optional<Intervention> in = evaluate(rule, plan, current, catalog))
            out.push_back(std::move(*in));
    return out;
}

std::optional<std::size_t> suggestedChange(const std::vector<Intervention> &interventions, const Estimate &current)
{
    if (!current.valid)
        return std::nullopt;
    // A change that fits only as estimated, not at its memory band's upper edge, is still suggested when it is the
    // fastest: the views say so (Intervention::mayNotFit) rather than hide a 1.4x for a 1.01x that surely fits.
    std::optional<std::size_t> best;
    for (std::size_t i = 0; i < interventions.size(); ++i) {
        const Intervention &in = interventions[i];
        if (!in.valid || !in.fits)
            continue;
        if (current.memory.fits && in.tokensPerSecond <= current.step.tokensPerSecond * 1.005)
            continue; // must help by more than half a percent
        if (!best || in.tokensPerSecond > interventions[*best].tokensPerSecond)
            best = i;
    }
    return best;
}

Advice advise(const Plan &plan, const Catalog &catalog, const Estimate &current)
{
    Advice advice;
    if (!current.valid)
        return advice;
    advice.evaluated = true;
    advice.interventions = evaluateInterventions(plan, catalog);
    advice.suggested = suggestedChange(advice.interventions, current);
    return advice;
}

} // namespace trainplan
