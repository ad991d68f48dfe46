#include "core/advice/Interventions.h"

#include <functional>

#include "core/common/Units.h"

namespace trainplan {

namespace {

std::string num(std::int64_t v) { return std::to_string(v); }

} // namespace

std::vector<Intervention> evaluateInterventions(const Plan &plan, const Catalog &catalog)
{
    const EstimateOptions fast = EstimateOptions::analytic();
    const Estimate current = estimate(plan, catalog, fast);

    std::vector<Intervention> out;
    const auto add = [&](Bottleneck resource, std::string label, std::string change, const std::function<void(Plan &)> &apply) {
        Intervention in;
        in.resource = resource;
        in.label = std::move(label);
        in.change = std::move(change);
        in.plan = plan;
        apply(in.plan);
        if (in.plan == plan)
            return;
        deriveDataParallel(in.plan);
        const Estimate e = estimate(in.plan, catalog, fast);
        in.valid = e.valid;
        if (!e.valid) {
            for (const Problem &p : e.problems)
                if (p.isError()) {
                    in.invalidReason = toString(p);
                    break;
                }
        } else {
            in.fits = e.memory.fits;
            in.tokensPerSecond = e.step.tokensPerSecond;
            in.peakBytes = e.memory.peakBytes;
            in.stepSeconds = e.step.stepSeconds;
            if (current.valid && current.step.tokensPerSecond > 0)
                in.speedup = e.step.tokensPerSecond / current.step.tokensPerSecond;
            if (current.valid && current.memory.peakBytes > 0)
                in.memoryChange = e.memory.peakBytes / current.memory.peakBytes - 1.0;
        }
        out.push_back(std::move(in));
    };
    const TrainingConfig &tr = plan.training;
    const ParallelConfig &par = plan.parallel;

    // Capacity: recompute, shard the state, split the model further, smaller micro-batches, offload.
    add(Bottleneck::Capacity, "Selective recomputation", std::string("training.recompute: ") + toString(tr.recompute) + " -> selective",
        [](Plan &p) { if (p.training.recompute == Recompute::None) p.training.recompute = Recompute::Selective; });
    add(Bottleneck::Capacity, "Full recomputation", std::string("training.recompute: ") + toString(tr.recompute) + " -> full",
        [](Plan &p) { p.training.recompute = Recompute::Full; });
    add(Bottleneck::Capacity, "Shard optimizer state (ZeRO-1)", "parallel.zero_stage: " + num(par.zeroStage) + " -> 1",
        [](Plan &p) { if (p.parallel.zeroStage < 1 && p.parallel.data > 1) p.parallel.zeroStage = 1; });
    add(Bottleneck::Capacity, "Shard gradients too (ZeRO-2)", "parallel.zero_stage: " + num(par.zeroStage) + " -> 2",
        [](Plan &p) { if (p.parallel.zeroStage < 2 && p.parallel.data > 1) p.parallel.zeroStage = 2; });
    add(Bottleneck::Capacity, "Double pipeline stages", "parallel.pipeline: " + num(par.pipeline) + " -> " + num(par.pipeline * 2),
        [](Plan &p) { p.parallel.pipeline *= 2; });
    add(Bottleneck::Capacity, "Halve the micro-batch", "training.micro_batch: " + num(tr.microBatch) + " -> " + num(tr.microBatch / 2),
        [](Plan &p) { if (p.training.microBatch > 1) p.training.microBatch /= 2; });
    add(Bottleneck::Capacity, "Offload optimizer state", "parallel.offload_optimizer: false -> true",
        [](Plan &p) { p.parallel.offloadOptimizer = true; });

    // Memory movement: fuse element-wise chains, fused attention, bigger kernels.
    add(Bottleneck::MemoryMovement, "Fuse element-wise kernels", "training.fused_kernels: false -> true",
        [](Plan &p) { p.training.fusedKernels = true; });
    add(Bottleneck::MemoryMovement, "Flash attention", "training.flash_attention: false -> true",
        [](Plan &p) { p.training.flashAttention = true; });
    add(Bottleneck::MemoryMovement, "Double the micro-batch", "training.micro_batch: " + num(tr.microBatch) + " -> " + num(tr.microBatch * 2),
        [](Plan &p) { p.training.microBatch *= 2; });

    // Arithmetic: a faster number format; fewer replayed FLOPs.
    add(Bottleneck::Arithmetic, "FP8 matrix multiplies", std::string("training.precision: ") + toString(tr.precision) + " -> fp8",
        [](Plan &p) { if (p.training.precision == Precision::BF16 || p.training.precision == Precision::FP16) p.training.precision = Precision::FP8; });
    add(Bottleneck::Arithmetic, "No recomputation", std::string("training.recompute: ") + toString(tr.recompute) + " -> none",
        [](Plan &p) { p.training.recompute = Recompute::None; });
    add(Bottleneck::Arithmetic, "BF16 mixed precision", std::string("training.precision: ") + toString(tr.precision) + " -> bf16",
        [](Plan &p) { if (p.training.precision == Precision::FP32 || p.training.precision == Precision::TF32) p.training.precision = Precision::BF16; });

    // Communication and coordination: overlap, sequence parallelism, smaller tensor groups, fewer
    // bubbles (more micro-batches, interleaving, zero-bubble schedule).
    add(Bottleneck::Communication, "Overlap gradient reduction", "parallel.overlap_grad_reduce: false -> true",
        [](Plan &p) { p.parallel.overlapGradReduce = true; });
    add(Bottleneck::Communication, "Sequence parallelism", "training.sequence_parallel: false -> true",
        [](Plan &p) { if (p.parallel.tensor > 1) p.training.sequenceParallel = true; });
    add(Bottleneck::Communication, "Halve tensor parallelism", "parallel.tensor: " + num(par.tensor) + " -> " + num(par.tensor / 2),
        [](Plan &p) { if (p.parallel.tensor > 1) p.parallel.tensor /= 2; });
    add(Bottleneck::Communication, "Interleave the pipeline (v = 2)", "parallel.schedule: interleaved, virtual_stages: 2",
        [](Plan &p) {
            if (p.parallel.pipeline > 1 && p.parallel.virtualStages == 1) {
                p.parallel.schedule = Schedule::Interleaved;
                p.parallel.virtualStages = 2;
            }
        });
    add(Bottleneck::Communication, "Zero-bubble schedule (ZB-H1)", std::string("parallel.schedule: ") + toString(par.schedule) + " -> zb-h1",
        [](Plan &p) { if (p.parallel.pipeline > 1 && p.parallel.virtualStages == 1) p.parallel.schedule = Schedule::ZeroBubbleH1; });
    add(Bottleneck::Communication, "Halve pipeline stages", "parallel.pipeline: " + num(par.pipeline) + " -> " + num(par.pipeline / 2),
        [](Plan &p) { if (p.parallel.pipeline > 1) p.parallel.pipeline /= 2; });
    return out;
}

std::optional<std::size_t> suggestedChange(const std::vector<Intervention> &interventions, const Estimate &current)
{
    if (!current.valid)
        return std::nullopt;
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

Estimate estimateWithAdvice(const Plan &plan, const Catalog &catalog, const EstimateOptions &options)
{
    Estimate e = estimate(plan, catalog, options);
    if (!e.valid)
        return e;
    e.advice.evaluated = true;
    e.advice.interventions = evaluateInterventions(plan, catalog);
    e.advice.suggested = suggestedChange(e.advice.interventions, e);
    return e;
}

} // namespace trainplan
