#include "core/pipeline/PipelineSimulator.h"
#include "core/pipeline/ZeroBubbleOrder.h"

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
        const std::size_t k =
            std::size_t(slot.microbatch) * microbatchStride + std::size_t(slot.chunk * stages + stage);
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

/// Qi et al.'s zero-bubble orders (ZeroBubbleOrder.h), into the timeline.
void zeroBubble(Schedule schedule, std::int32_t p, std::int32_t m, std::int32_t s, Order &order)
{
    forEachZeroBubbleOp(schedule, p, m, s, [&](ZeroBubbleOp op, std::int32_t microbatch) {
        const PipelineOpKind kind = op == ZeroBubbleOp::Forward         ? PipelineOpKind::Forward
                                    : op == ZeroBubbleOp::InputGradient ? PipelineOpKind::BackwardInput
                                                                        : PipelineOpKind::BackwardWeight;
        order.push_back({microbatch, 0, kind});
    });
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
    const std::size_t kinds = forwardOnly ? 1 : splitsBackward(schedule) ? 3 : 2;
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
            zeroBubble(schedule, p, m, s, order);
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
    if (!sized(in.forwardSeconds, false) || !sized(in.backwardSeconds, in.forwardOnly) ||
        !sized(in.weightGradientSeconds, true) || !sized(in.drainSeconds, true))
        return "need one finite, non-negative forward (and backward) time per stage";
    if (!in.drainSeconds.empty() && (in.drainMicrobatches < 1 || in.drainMicrobatches > in.microbatches))
        return "the deferred weight gradients must belong to between 1 and all of the micro-batches";
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

namespace {

/// Times the ops of a schedule: each op waits for its stage predecessor and one dependency (F for the
/// previous chunk's F, B for the next chunk's B, the last chunk's B for its own F, W for its B); a transfer
/// separates chunks on different stages.
class ScheduleTimer
{
public:
    ScheduleTimer(const PipelineInput &in, PipelineTimeline &tl, const std::vector<std::int32_t> &index)
        : m_in(in), m_tl(tl), m_q(in.stages * in.chunks), m_forwardIndex(index.data()),
          m_backwardIndex(index.data() + std::size_t(in.microbatches) * std::size_t(m_q)),
          m_next(tl.stageBegin.begin(), tl.stageBegin.end() - 1), m_stageFree(std::size_t(in.stages), 0.0),
          m_transfer(in.stages > 1 ? in.transferSeconds : 0.0)
    {
        m_tl.stageBusySeconds.assign(std::size_t(in.stages), 0.0);
    }

    /// Runs stage `s`'s order as far as its dependencies are timed; returns how many ops it timed.
    std::size_t advance(std::int32_t s)
    {
        const std::int32_t v = m_in.chunks;
        const std::size_t end = m_tl.stageBegin[std::size_t(s) + 1];
        const double forward = m_in.forwardSeconds[std::size_t(s)] / v;
        const double backward = m_in.forwardOnly ? 0.0 : m_in.backwardSeconds[std::size_t(s)] / v;
        const double weight = m_in.weightGradientSeconds.empty()
                                  ? 0.0
                                  : std::min(m_in.weightGradientSeconds[std::size_t(s)] / v, backward);
        // The deferred weight gradients leave the backward passes of the first micro-batches' last chunk.
        const double deferred =
            m_in.drainSeconds.empty() ? 0.0 : m_in.drainSeconds[std::size_t(s)] / double(m_in.drainMicrobatches);
        const std::size_t first = m_next[std::size_t(s)];
        std::size_t i = first;
        double free = m_stageFree[std::size_t(s)], busy = 0;
        for (; i < end; ++i) {
            PipelineOp &op = m_tl.ops[i];
            const auto [dep, gap] = dependency(op, s);
            const bool defers = op.kind == PipelineOpKind::Backward && op.chunk == v - 1 &&
                                op.microbatch < m_in.drainMicrobatches;
            const double duration = op.kind == PipelineOpKind::Forward          ? forward
                                    : op.kind == PipelineOpKind::BackwardWeight ? weight
                                    : op.kind == PipelineOpKind::Backward
                                        ? (defers ? std::max(0.0, backward - deferred) : backward)
                                        : backward - weight;
            double start = free;
            if (dep >= 0) {
                const double inputEnd = m_tl.ops[std::size_t(dep)].end;
                if (inputEnd < 0)
                    break; // not timed yet
                start = std::max(start, inputEnd + gap);
            }
            op.start = start;
            op.end = free = start + duration;
            busy += duration;
        }
        m_next[std::size_t(s)] = i;
        m_stageFree[std::size_t(s)] = free;
        m_tl.stageBusySeconds[std::size_t(s)] += busy;
        return i - first;
    }

    const std::vector<double> &stageFree() const { return m_stageFree; }

private:
    /// The op this one waits for (-1: none) and the transfer between them.
    std::pair<std::int32_t, double> dependency(const PipelineOp &op, std::int32_t s) const
    {
        const std::size_t row = std::size_t(op.microbatch) * std::size_t(m_q);
        const std::int32_t c = op.chunk * m_in.stages + s;
        if (op.kind == PipelineOpKind::Forward)
            return c > 0 ? std::pair{m_forwardIndex[row + std::size_t(c - 1)], m_transfer} : std::pair{-1, 0.0};
        if (op.kind == PipelineOpKind::BackwardWeight)
            return {m_backwardIndex[row + std::size_t(c)], 0.0};
        if (c == m_q - 1)
            return {m_forwardIndex[row + std::size_t(c)], 0.0};
        return {m_backwardIndex[row + std::size_t(c + 1)], m_transfer};
    }

    const PipelineInput &m_in;
    PipelineTimeline &m_tl;
    const std::int32_t m_q;
    const std::int32_t *m_forwardIndex;
    const std::int32_t *m_backwardIndex;
    std::vector<std::size_t> m_next;
    std::vector<double> m_stageFree;
    const double m_transfer;
};

/// Each stage's drain work (PipelineInput::drainSeconds) after its last op, as weight-gradient ops of the first
/// micro-batches; moves the stages' finishing times.
void appendDrains(const PipelineInput &in, PipelineTimeline &tl, std::vector<double> &stageFree)
{
    for (std::int32_t s = in.stages - 1; s >= 0; --s) {
        const double drain = in.drainSeconds[std::size_t(s)];
        if (!(drain > 0))
            continue;
        const double each = drain / double(in.drainMicrobatches);
        std::vector<PipelineOp> ops;
        double clock = stageFree[std::size_t(s)];
        for (std::int32_t mb = 0; mb < in.drainMicrobatches; ++mb, clock += each)
            ops.push_back({s, mb, in.chunks - 1, PipelineOpKind::BackwardWeight, clock, clock + each});
        const std::size_t at = tl.stageBegin[std::size_t(s) + 1];
        tl.ops.insert(tl.ops.begin() + std::ptrdiff_t(at), ops.begin(), ops.end());
        for (std::size_t k = std::size_t(s) + 1; k < tl.stageBegin.size(); ++k)
            tl.stageBegin[k] += ops.size();
        stageFree[std::size_t(s)] += drain;
        tl.stageBusySeconds[std::size_t(s)] += drain;
    }
}

/// Makespan, idle time and bubble fractions of a timed schedule.
void summarise(PipelineTimeline &tl, const std::vector<double> &stageFree)
{
    // The first op of stage 0 starts at 0; each stage's last op is its latest.
    tl.makespan = *std::max_element(stageFree.begin(), stageFree.end());
    double idle = 0;
    for (std::size_t s = 0; s < stageFree.size(); ++s) {
        const double stageIdle = tl.makespan - tl.stageBusySeconds[s];
        tl.stageIdleSeconds.push_back(stageIdle);
        tl.stageBubbleFraction.push_back(tl.makespan > 0 ? stageIdle / tl.makespan : 0.0);
        idle += stageIdle;
    }
    tl.bubbleFraction = tl.makespan > 0 ? idle / (double(stageFree.size()) * tl.makespan) : 0.0;
}

} // namespace

PipelineTimeline simulatePipeline(const PipelineInput &in)
{
    PipelineTimeline tl;
    tl.error = checkInput(in);
    if (!tl.error.empty())
        return tl;
    const std::int32_t p = in.stages, m = in.microbatches, v = in.chunks;
    // Forwards and input gradients indexed by (micro-batch, model chunk); model chunk q = chunk x p +
    // stage runs layers in model order. B and the input-gradient B never coexist, so they share a slot.
    std::vector<std::int32_t> index(std::size_t(2) * std::size_t(m) * std::size_t(p * v), -1);
    tl.peakInFlight = buildOrders(in.schedule, p, m, v, in.forwardOnly, tl.ops, tl.stageBegin, &index);

    // The stages are timed in sweeps, each stage running its order as far as its dependencies are timed;
    // sweeping up then down lets forwards flow down and backwards up in few passes (about the number of
    // micro-batch units, not the op count).
    ScheduleTimer timer(in, tl, index);
    std::size_t remaining = tl.ops.size();
    bool upward = true;
    while (remaining > 0) {
        std::size_t timed = 0;
        for (std::int32_t k = 0; k < p; ++k)
            timed += timer.advance(upward ? k : p - 1 - k);
        if (timed == 0) {
            tl.error = "the schedule deadlocks: an op waits for one that runs after it on the same stage";
            tl.ops.clear();
            return tl;
        }
        remaining -= timed;
        upward = !upward;
    }
    std::vector<double> stageFree = timer.stageFree();
    if (!in.drainSeconds.empty())
        appendDrains(in, tl, stageFree);
    summarise(tl, stageFree);
    tl.valid = true;
    return tl;
}

} // namespace trainplan
