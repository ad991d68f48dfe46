#include "core/step/StepTimeline.h"

#include <algorithm>
#include <cmath>

namespace trainplan {

std::array<double, kStepPartCount> stepParts(const Plan &plan, const StepEstimate &step)
{
    std::array<double, kStepPartCount> parts{};
    if (step.stages.empty())
        return parts;
    const StageTime &pace = step.stages[std::size_t(step.slowestStage)];
    const double m = double(plan.microbatches());
    const auto part = [&](StepPart p) -> double & { return parts[std::size_t(p)]; };
    part(StepPart::Forward) = m * pace.forwardSeconds;
    part(StepPart::Backward) = m * pace.backwardSeconds;
    part(StepPart::Recompute) = step.category(TimeCategory::Recompute);
    part(StepPart::TensorComm) = step.category(TimeCategory::TensorComm);
    part(StepPart::ContextComm) = step.category(TimeCategory::ContextComm);
    part(StepPart::ExpertComm) = step.category(TimeCategory::ExpertComm);
    part(StepPart::PipelineIdle) =
        step.category(TimeCategory::PipelineBubble) + step.category(TimeCategory::PipelineComm);
    part(StepPart::DataComm) = step.category(TimeCategory::DataComm);
    part(StepPart::Optimizer) = step.category(TimeCategory::Optimizer);
    part(StepPart::HostLaunch) = step.category(TimeCategory::HostLaunch);
    part(StepPart::ActivationOffload) = step.category(TimeCategory::ActivationOffload);
    part(StepPart::Other) = step.category(TimeCategory::Other);
    return parts;
}

namespace {

SegmentKind segmentKind(PipelineOpKind kind)
{
    switch (kind) {
    case PipelineOpKind::Forward: return SegmentKind::Forward;
    case PipelineOpKind::Backward: return SegmentKind::Backward;
    case PipelineOpKind::BackwardInput: return SegmentKind::InputGradient;
    case PipelineOpKind::BackwardWeight: return SegmentKind::WeightGradient;
    }
    return SegmentKind::Forward;
}

/// Forward and backward time of one micro-batch on a stage, as the schedule runs them: the forward with
/// its tensor-parallel collectives, the backward with the recompute and the rest of the collectives, each
/// with one transfer.
std::pair<double, double> microbatchPasses(const StageTime &st)
{
    const double forward = st.forwardSeconds + st.tensorCommForwardSeconds + st.contextCommForwardSeconds +
                           st.expertCommForwardSeconds + st.hostForwardSeconds + st.offloadForwardSeconds +
                           0.5 * st.pipelineCommSeconds;
    return {forward, st.microbatchSeconds() - forward};
}

void addSegment(StepTimeline &t, StepSegment segment)
{
    if (!(segment.end > segment.start))
        return;
    t.present[std::size_t(segment.kind)] = true;
    t.segments.push_back(segment);
}

/// The share of a stage's forward and backward passes that is exposed expert all-to-all.
struct ExpertShares
{
    double forward = 0, backward = 0;
};
ExpertShares expertShares(const StageTime &st)
{
    const auto [forward, backward] = microbatchPasses(st);
    const double backwardComm = st.expertCommSeconds - st.expertCommForwardSeconds;
    return {forward > 0 ? std::clamp(st.expertCommForwardSeconds / forward, 0.0, 1.0) : 0.0,
            backward > 0 ? std::clamp(backwardComm / backward, 0.0, 1.0) : 0.0};
}

/// A forward or backward op with its exposed all-to-all as a second segment at its end.
void addPass(StepTimeline &t, StepSegment segment, double expertShare)
{
    const double split = segment.end - expertShare * (segment.end - segment.start);
    if (!(expertShare > 0) || segment.kind == SegmentKind::WeightGradient) {
        addSegment(t, segment);
        return;
    }
    StepSegment comm = segment;
    comm.kind = SegmentKind::ExpertComm;
    comm.start = split;
    segment.end = split;
    addSegment(t, segment);
    addSegment(t, comm);
}

/// The micro-batch part of one row without a schedule: forward and backward blocks, micro-batches grouped
/// so that all `rows` rows together hold at most kMaxOneStageSegments segments.
void layOutSequence(StepTimeline &t, std::int32_t row, std::int32_t rows, const StageTime &st,
                    std::int64_t microbatches)
{
    const auto [forward, backward] = microbatchPasses(st);
    const ExpertShares shares = expertShares(st);
    const std::int64_t perRow = std::max<std::int64_t>(2, kMaxOneStageSegments / std::max<std::int32_t>(1, rows));
    // A pass with exposed all-to-all is two segments (addPass).
    const std::int64_t perGroup = shares.forward > 0 || shares.backward > 0 ? 4 : 2;
    const std::int64_t group = std::max<std::int64_t>(1, (perGroup * microbatches + perRow - 1) / perRow);
    double clock = 0;
    for (std::int64_t first = 0; first < microbatches; first += group) {
        const std::int64_t count = std::min(group, microbatches - first);
        const auto mb = std::int32_t(std::min<std::int64_t>(first, INT32_MAX));
        const auto n = std::int32_t(std::min<std::int64_t>(count, INT32_MAX));
        addPass(t, {row, mb, n, 0, SegmentKind::Forward, clock, clock + double(count) * forward}, shares.forward);
        clock += double(count) * forward;
        addPass(t, {row, mb, n, 0, SegmentKind::Backward, clock, clock + double(count) * backward}, shares.backward);
        clock += double(count) * backward;
    }
}

} // namespace

StepTimeline stepTimeline(const Plan &plan, const StepEstimate &step)
{
    StepTimeline t;
    if (step.stages.empty() || !(step.stepSeconds > 0))
        return t;
    const std::int64_t microbatches = plan.microbatches();
    t.rows = std::int32_t(step.stages.size());
    t.stepSeconds = step.stepSeconds;
    const double tail = step.category(TimeCategory::DataComm) + step.category(TimeCategory::Optimizer)
                        + step.category(TimeCategory::Other);
    t.scheduleSeconds = std::max(0.0, step.stepSeconds - tail);
    t.simulated = step.pipeline.valid && std::size_t(t.rows) + 1 == step.pipeline.stageBegin.size();
    // The simulated schedule is one run (training.schedule_microbatches): drawn once per run, one after the
    // other, as many as stay within the segment budget (the rest are the same run again).
    const std::int64_t perRun = plan.microbatchesPerRun();
    const auto fitting = std::int64_t(kMaxSimulatedSegments / std::max<std::size_t>(1, step.pipeline.ops.size()));
    const std::int64_t runs = t.simulated ? std::clamp<std::int64_t>(fitting, 1, plan.scheduleRuns()) : 1;
    t.rowBegin.reserve(std::size_t(t.rows) + 1);
    // Each op at most two segments (its exposed all-to-all), and the data-parallel sync and optimizer per row.
    const std::size_t ops = t.simulated ? step.pipeline.ops.size() * std::size_t(runs) : kMaxOneStageSegments;
    t.segments.reserve(2 * ops + 2 * std::size_t(t.rows));
    for (std::int32_t row = 0; row < t.rows; ++row) {
        t.rowBegin.push_back(t.segments.size());
        if (t.simulated) {
            const PipelineTimeline &p = step.pipeline;
            const ExpertShares shares = expertShares(step.stages[std::size_t(row)]);
            for (std::int64_t run = 0; run < runs; ++run) {
                const double offset = double(run) * p.makespan;
                const auto first = std::int32_t(std::min<std::int64_t>(run * perRun, INT32_MAX));
                for (std::size_t i = p.stageBegin[std::size_t(row)]; i < p.stageBegin[std::size_t(row) + 1]; ++i) {
                    const PipelineOp &op = p.ops[i];
                    addPass(t,
                            {row, first + op.microbatch, 1, op.chunk, segmentKind(op.kind), offset + op.start,
                             offset + op.end},
                            op.kind == PipelineOpKind::Forward ? shares.forward : shares.backward);
                }
            }
        } else {
            layOutSequence(t, row, t.rows, step.stages[std::size_t(row)], microbatches);
        }
        double clock = t.scheduleSeconds;
        const double data = step.category(TimeCategory::DataComm);
        addSegment(t, {row, -1, 0, 0, SegmentKind::DataComm, clock, clock + data});
        clock += data;
        addSegment(t, {row, -1, 0, 0, SegmentKind::Optimizer, clock, clock + step.category(TimeCategory::Optimizer)});
    }
    t.rowBegin.push_back(t.segments.size());
    t.valid = true;
    return t;
}

} // namespace trainplan
