#include "core/pipeline/PipelineSimulator.h"

#include <algorithm>

namespace trainplan {

namespace {

/// One entry of a stage's order, before timing.
struct Slot
{
    std::int32_t microbatch;
    std::int32_t chunk;
    PipelineOpKind kind;
};

/// Appends one stage's ops, in the order the stage runs them, untimed (end = -1), straight into the
/// timeline; on the way it indexes forwards and input gradients by (micro-batch, model chunk) for the
/// simulator's dependency look-ups and counts the activations the stage holds.
struct Order
{
    PipelineOp *out;   ///< the timeline's storage, sized in advance
    std::size_t next;  ///< where this stage's next op goes
    std::int32_t stage;
    std::int32_t stages;
    std::size_t microbatchStride; ///< index entries per micro-batch: all model chunks
    std::int32_t *forwardIndex;   ///< [micro-batch][model chunk] -> op, or null
    std::int32_t *backwardIndex;
    std::int32_t held = 0;
    std::int32_t peak = 0;

    void push_back(const Slot &slot)
    {
        const std::size_t i = next++;
        out[i] = {stage, slot.microbatch, slot.chunk, slot.kind, 0, -1.0};
        const std::size_t k = std::size_t(slot.microbatch) * microbatchStride + std::size_t(slot.chunk * stages + stage);
        if (slot.kind == PipelineOpKind::Forward) {
            peak = std::max(peak, ++held);
            if (forwardIndex)
                forwardIndex[k] = std::int32_t(i);
        } else if (slot.kind != PipelineOpKind::BackwardWeight) {
            --held;
            if (backwardIndex)
                backwardIndex[k] = std::int32_t(i);
        }
    }
};

void gpipe(std::int32_t m, bool forwardOnly, Order &order)
{
    for (std::int32_t j = 0; j < m; ++j)
        order.push_back({j, 0, PipelineOpKind::Forward});
    if (forwardOnly)
        return;
    for (std::int32_t j = 0; j < m; ++j)
        order.push_back({j, 0, PipelineOpKind::Backward});
}

void oneFOneB(std::int32_t p, std::int32_t m, std::int32_t s, Order &order)
{
    // Warm-up: p - s - 1 forwards; steady state: one forward, one backward; cool-down: the backwards left.
    const std::int32_t warmup = std::min(p - s - 1, m);
    for (std::int32_t j = 0; j < warmup; ++j)
        order.push_back({j, 0, PipelineOpKind::Forward});
    for (std::int32_t j = 0; j < m - warmup; ++j) {
        order.push_back({warmup + j, 0, PipelineOpKind::Forward});
        order.push_back({j, 0, PipelineOpKind::Backward});
    }
    for (std::int32_t j = m - warmup; j < m; ++j)
        order.push_back({j, 0, PipelineOpKind::Backward});
}

void zeroBubbleH1(std::int32_t p, std::int32_t m, std::int32_t s, Order &order)
{
    // ZB-H1 (Qi et al. 2024, Fig. 3): p - s forwards to fill the pipeline, then for each micro-batch its
    // input gradient B, the next forward, and the weight gradient W. Only B travels upstream, so the
    // stage above waits for B alone instead of B + W, and each W fills the gap before the next B
    // arrives. At most p - s micro-batches hold activations between F and B, as in 1F1B.
    const std::int32_t warmup = std::min(p - s, m);
    for (std::int32_t j = 0; j < warmup; ++j)
        order.push_back({j, 0, PipelineOpKind::Forward});
    for (std::int32_t j = 0; j < m; ++j) {
        order.push_back({j, 0, PipelineOpKind::BackwardInput});
        if (warmup + j < m)
            order.push_back({warmup + j, 0, PipelineOpKind::Forward});
        order.push_back({j, 0, PipelineOpKind::BackwardWeight});
    }
}

void interleaved(std::int32_t p, std::int32_t m, std::int32_t v, std::int32_t s, Order &order)
{
    // Megatron-LM's interleaved 1F1B: unit k of this stage is micro-batch (k / (p v)) p + k % p of chunk
    // (k % (p v)) / p, backwards in reverse chunk order; warm-up (p - s - 1) 2 + (v - 1) p units.
    // Forward and backward units are walked with counters (no divisions: this runs per estimate).
    struct Walker
    {
        std::int32_t p, v, group = 0, inGroup = 0;
        Slot next(bool forward)
        {
            const std::int32_t chunk = inGroup / p;
            const Slot slot{group * p + inGroup % p, forward ? chunk : v - 1 - chunk,
                            forward ? PipelineOpKind::Forward : PipelineOpKind::Backward};
            if (++inGroup == p * v) {
                inGroup = 0;
                ++group;
            }
            return slot;
        }
    };
    Walker forward{p, v}, backward{p, v};
    const std::int32_t units = m * v;
    const std::int32_t warmup = std::min((p - s - 1) * 2 + (v - 1) * p, units);
    for (std::int32_t k = 0; k < warmup; ++k)
        order.push_back(forward.next(true));
    for (std::int32_t j = 0; j < units - warmup; ++j) {
        order.push_back(forward.next(true));
        order.push_back(backward.next(false));
    }
    for (std::int32_t k = units - warmup; k < units; ++k)
        order.push_back(backward.next(false));
}

/// Ops per stage for a schedule: forward and backward (and W) per micro-batch and chunk.
std::size_t opsPerStage(Schedule schedule, std::int32_t m, std::int32_t v, bool forwardOnly)
{
    const std::size_t kinds = forwardOnly ? 1 : schedule == Schedule::ZeroBubbleH1 ? 3 : 2;
    return std::size_t(m) * std::size_t(v) * kinds;
}

/// Every stage's ops in execution order, untimed; stageBegin[s] is where stage s starts. Fills the
/// index (2 x m x p v entries: forwards, then input gradients) when given, and returns each stage's
/// peak in-flight micro-batches.
std::vector<double> buildOrders(Schedule schedule, std::int32_t p, std::int32_t m, std::int32_t v, bool forwardOnly,
                                std::vector<PipelineOp> &ops, std::vector<std::size_t> &stageBegin,
                                std::vector<std::int32_t> *index = nullptr)
{
    const std::size_t perStage = opsPerStage(schedule, m, v, forwardOnly);
    ops.resize(perStage * std::size_t(p));
    stageBegin.resize(std::size_t(p) + 1);
    std::vector<double> peaks(static_cast<std::size_t>(p));
    const std::size_t stride = std::size_t(p) * std::size_t(v);
    std::int32_t *forwardIndex = index ? index->data() : nullptr;
    std::int32_t *backwardIndex = index ? index->data() + std::size_t(m) * stride : nullptr;
    for (std::int32_t s = 0; s < p; ++s) {
        stageBegin[std::size_t(s)] = std::size_t(s) * perStage;
        Order order{ops.data(), std::size_t(s) * perStage, s, p, stride, forwardIndex, backwardIndex};
        if (forwardOnly || schedule == Schedule::GPipe)
            gpipe(m, forwardOnly, order);
        else if (schedule == Schedule::OneFOneB || (schedule == Schedule::Interleaved && v == 1))
            oneFOneB(p, m, s, order);
        else if (schedule == Schedule::Interleaved)
            interleaved(p, m, v, s, order);
        else
            zeroBubbleH1(p, m, s, order);
        peaks[std::size_t(s)] = double(order.peak) / double(v);
    }
    stageBegin[std::size_t(p)] = ops.size();
    return peaks;
}

std::string checkInput(const PipelineInput &in)
{
    if (in.stages < 1 || in.microbatches < 1 || in.chunks < 1)
        return "stages, micro-batches and chunks must be at least 1";
    if (in.chunks > 1 && in.schedule != Schedule::Interleaved)
        return "more than one chunk per stage needs the interleaved schedule";
    if (in.schedule == Schedule::Interleaved && in.chunks > 1 && in.microbatches % in.stages != 0)
        return "the interleaved schedule needs micro-batches to be a multiple of the stage count";
    // 4096 stages x 2^20 micro-batch-chunks would be 10^10 ops: refuse rather than hang.
    const double ops = double(in.stages) * double(in.microbatches) * double(in.chunks) * 3.0;
    if (ops > 5e7)
        return "too many pipeline ops to simulate (stages x micro-batches x chunks above 1.6e7)";
    const auto sized = [&](const std::vector<double> &v, bool optional) {
        if (optional && v.empty())
            return true;
        if (v.size() != std::size_t(in.stages))
            return false;
        return std::all_of(v.begin(), v.end(), [](double x) { return x >= 0 && x < 1e12; });
    };
    if (!sized(in.forwardSeconds, false) || !sized(in.backwardSeconds, in.forwardOnly) || !sized(in.weightGradientSeconds, true))
        return "need one finite, non-negative forward (and backward) time per stage";
    if (!(in.transferSeconds >= 0 && in.transferSeconds < 1e12))
        return "the transfer time must be finite and non-negative";
    return {};
}

} // namespace

std::vector<double> scheduledPeakInFlight(Schedule schedule, std::int32_t stages, std::int32_t microbatches,
                                          std::int32_t chunks)
{
    std::vector<PipelineOp> ops;
    std::vector<std::size_t> stageBegin;
    return buildOrders(schedule, stages, microbatches, chunks, false, ops, stageBegin);
}

PipelineTimeline simulatePipeline(const PipelineInput &in)
{
    PipelineTimeline tl;
    tl.error = checkInput(in);
    if (!tl.error.empty())
        return tl;
    const std::int32_t p = in.stages, m = in.microbatches, v = in.chunks;
    // Forwards and input gradients indexed by (micro-batch, model chunk); model chunk q = chunk x p +
    // stage runs layers in model order. B and the input-gradient B never coexist, so they share a slot.
    const std::int32_t q = p * v;
    std::vector<std::int32_t> index(std::size_t(2) * std::size_t(m) * std::size_t(q), -1);
    tl.peakInFlight = buildOrders(in.schedule, p, m, v, in.forwardOnly, tl.ops, tl.stageBegin, &index);
    const std::int32_t *forwardIndex = index.data();
    const std::int32_t *backwardIndex = index.data() + std::size_t(m) * std::size_t(q);
    const std::size_t n = tl.ops.size();

    // Each op waits for its stage predecessor and one dependency: F for the previous chunk's F, B for
    // the next chunk's B (the last chunk's B for its own F), W for its B. A transfer separates chunks on
    // different stages. The stages are timed in sweeps, each stage running its order as far as its
    // dependencies are timed; sweeping up then down lets forwards flow down and backwards up in few
    // passes (about the number of micro-batch units, not the op count).
    std::vector<std::size_t> next(tl.stageBegin.begin(), tl.stageBegin.end() - 1);
    std::vector<double> stageFree(std::size_t(p), 0.0);
    const double transfer = p > 1 ? in.transferSeconds : 0.0;
    tl.stageBusySeconds.assign(std::size_t(p), 0.0);
    std::size_t remaining = n;
    bool upward = true;
    while (remaining > 0) {
        bool progress = false;
        for (std::int32_t k = 0; k < p; ++k) {
            const std::int32_t s = upward ? k : p - 1 - k;
            const std::size_t end = tl.stageBegin[std::size_t(s) + 1];
            const double forward = in.forwardSeconds[std::size_t(s)] / v;
            const double backward = in.forwardOnly ? 0.0 : in.backwardSeconds[std::size_t(s)] / v;
            const double weight = in.weightGradientSeconds.empty()
                                      ? 0.0
                                      : std::min(in.weightGradientSeconds[std::size_t(s)] / v, backward);
            std::size_t i = next[std::size_t(s)];
            double free = stageFree[std::size_t(s)], busy = 0;
            for (; i < end; ++i) {
                PipelineOp &op = tl.ops[i];
                const std::size_t row = std::size_t(op.microbatch) * std::size_t(q);
                const std::int32_t c = op.chunk * p + s;
                std::int32_t dep = -1;
                double duration = forward, gap = 0; // gap: the transfer when the input comes from another stage
                if (op.kind == PipelineOpKind::Forward) {
                    if (c > 0) {
                        dep = forwardIndex[row + std::size_t(c - 1)];
                        gap = transfer;
                    }
                } else if (op.kind == PipelineOpKind::BackwardWeight) {
                    dep = backwardIndex[row + std::size_t(c)];
                    duration = weight;
                } else {
                    if (c == q - 1) {
                        dep = forwardIndex[row + std::size_t(c)];
                    } else {
                        dep = backwardIndex[row + std::size_t(c + 1)];
                        gap = transfer;
                    }
                    duration = op.kind == PipelineOpKind::Backward ? backward : backward - weight;
                }
                double start = free;
                if (dep >= 0) {
                    const double inputEnd = tl.ops[std::size_t(dep)].end;
                    if (inputEnd < 0)
                        break; // not timed yet
                    start = std::max(start, inputEnd + gap);
                }
                op.start = start;
                op.end = free = start + duration;
                busy += duration;
            }
            if (i != next[std::size_t(s)]) {
                remaining -= i - next[std::size_t(s)];
                next[std::size_t(s)] = i;
                stageFree[std::size_t(s)] = free;
                tl.stageBusySeconds[std::size_t(s)] += busy;
                progress = true;
            }
        }
        if (!progress) {
            tl.error = "the schedule deadlocks: an op waits for one that runs after it on the same stage";
            tl.ops.clear();
            return tl;
        }
        upward = !upward;
    }

    // The first op of stage 0 starts at 0; each stage's last op is its latest.
    tl.makespan = *std::max_element(stageFree.begin(), stageFree.end());
    double idle = 0;
    for (std::int32_t s = 0; s < p; ++s) {
        const double stageIdle = tl.makespan - tl.stageBusySeconds[std::size_t(s)];
        tl.stageIdleSeconds.push_back(stageIdle);
        tl.stageBubbleFraction.push_back(tl.makespan > 0 ? stageIdle / tl.makespan : 0.0);
        idle += stageIdle;
    }
    tl.bubbleFraction = tl.makespan > 0 ? idle / (double(p) * tl.makespan) : 0.0;
    tl.valid = true;
    return tl;
}

} // namespace trainplan
