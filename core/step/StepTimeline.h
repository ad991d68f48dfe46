#pragma once
// The whole step as views draw it: the stacked "where the step goes" parts and a timeline per pipeline
// stage on one time axis (the pipeline schedule or, with one stage, its micro-batches one after the
// other; then the exposed data-parallel / ZeRO communication and the optimizer update). Derived from a
// StepEstimate only; the parts add up to its step time and the timeline ends at it.

#include <array>
#include <cstdint>
#include <vector>

#include "core/common/EnumNames.h"
#include "core/plan/Plan.h"
#include "core/step/StepModel.h"

namespace trainplan {

/// The step-time chart's parts, in drawing order. Compute is split into forward and backward; the pipeline
/// bubble and the stage-to-stage transfers are one part.
enum class StepPart : std::uint8_t {
    Forward,
    Backward,
    Recompute,
    TensorComm,
    ContextComm,
    ExpertComm,
    PipelineIdle,
    DataComm,
    Optimizer,
    HostLaunch,
    ActivationOffload,
    Other,
};
constexpr auto enumNames(StepPart)
{
    using N = EnumName<StepPart>;
    return std::array{N{StepPart::Forward, "forward", "Forward"},
                      N{StepPart::Backward, "backward", "Backward"},
                      N{StepPart::Recompute, "recompute", "Recompute"},
                      N{StepPart::TensorComm, "tensor_comm", "Tensor-parallel communication (exposed)"},
                      N{StepPart::ContextComm, "context_comm", "Context-parallel KV exchange (exposed)"},
                      N{StepPart::ExpertComm, "expert_comm", "Expert dispatch and combine (exposed)"},
                      N{StepPart::PipelineIdle, "pipeline_idle", "Pipeline bubble and transfers"},
                      N{StepPart::DataComm, "data_comm", "Data-parallel / ZeRO communication (exposed)"},
                      N{StepPart::Optimizer, "optimizer", "Optimizer"},
                      N{StepPart::HostLaunch, "host_launch", "Host launch (exposed)"},
                      N{StepPart::ActivationOffload, "activation_offload", "Activation offload (exposed)"},
                      N{StepPart::Other, "other", "Other"}};
}
inline const char *toString(StepPart v) { return spellingOf(v); }
inline constexpr std::size_t kStepPartCount = enumCount<StepPart>();

/// Seconds per part of one step of the slowest stage; they add up to StepEstimate::stepSeconds.
std::array<double, kStepPartCount> stepParts(const Plan &plan, const StepEstimate &step);

/// What a timeline segment is. Forward/backward/input-gradient/weight-gradient come from the pipeline
/// schedule (or the one-stage sequence); the exposed expert all-to-all of each forward and backward is its
/// own segment at the op's end (its dispatches and combines run layer by layer inside the op: the segment is
/// their sum); the last two close the step on every stage.
enum class SegmentKind : std::uint8_t {
    Forward,
    Backward,
    InputGradient,
    WeightGradient,
    DataComm,
    Optimizer,
    ExpertComm
};
constexpr auto enumNames(SegmentKind)
{
    using N = EnumName<SegmentKind>;
    return std::array{N{SegmentKind::Forward, "forward", "Forward"},
                      N{SegmentKind::Backward, "backward", "Backward"},
                      N{SegmentKind::InputGradient, "input_gradient", "Input gradient"},
                      N{SegmentKind::WeightGradient, "weight_gradient", "Weight gradient"},
                      N{SegmentKind::DataComm, "data_comm", "Data-parallel / ZeRO communication"},
                      N{SegmentKind::Optimizer, "optimizer", "Optimizer"},
                      N{SegmentKind::ExpertComm, "expert_comm", "Expert dispatch and combine (exposed)"}};
}
inline const char *toString(SegmentKind v) { return spellingOf(v); }
inline constexpr std::size_t kSegmentKindCount = enumCount<SegmentKind>();

struct StepSegment
{
    std::int32_t row = 0;         ///< pipeline stage
    std::int32_t microbatch = 0;  ///< first micro-batch of the segment (-1: not a micro-batch op)
    std::int32_t microbatches = 1; ///< micro-batches it stands for (more than one when a long one-stage run is grouped)
    std::int32_t chunk = 0;
    SegmentKind kind = SegmentKind::Forward;
    double start = 0;
    double end = 0;
};

struct StepTimeline
{
    bool valid = false;
    std::int32_t rows = 0;
    std::vector<StepSegment> segments;      ///< grouped by row, each row in time order
    std::vector<std::size_t> rowBegin;      ///< segments of row r are [rowBegin[r], rowBegin[r + 1])
    double scheduleSeconds = 0;             ///< end of the micro-batch part (pipeline makespan)
    double stepSeconds = 0;                 ///< end of the step
    std::array<bool, kSegmentKindCount> present{}; ///< which kinds occur (the legend shows only these)
    bool simulated = false;                 ///< the micro-batch part is the simulated pipeline schedule
};

/// At most this many segments stand for all stages' micro-batches when the sequence is laid out without a
/// simulated schedule (longer runs group consecutive micro-batches): a segment at least 5 pixels wide on a
/// 1,280-pixel chart. Each segment costs about 15 ns: 1,024 of them were 40% of an analytic estimate of
/// DeepSeek-V3 with its view details (bench_estimate), 256 are a sixth.
inline constexpr std::int64_t kMaxOneStageSegments = 256;
/// The most simulated operations a timeline repeats over the runs of the pipeline schedule.
inline constexpr std::size_t kMaxSimulatedSegments = 200000;

/// The step's timeline. With a simulated pipeline it copies the schedule; with one stage it lays out the
/// micro-batches (forward, then backward with recompute and tensor communication); without either (the
/// analytic bubble) each stage's micro-batch part is one forward and one backward block of the whole
/// step's share. Every stage then runs the exposed data-parallel communication and the optimizer.
StepTimeline stepTimeline(const Plan &plan, const StepEstimate &step);

} // namespace trainplan
