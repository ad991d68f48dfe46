#pragma once
// Pipeline schedules and the event simulator behind the bubble chart.
//
// A schedule builder gives each stage the order in which it runs its ops (forward F, backward B, or for
// zero-bubble schedules the input-gradient B and the weight-gradient W separately). The simulator then
// times every op as early as its stage and its inputs allow: F of a model chunk after F of the previous
// chunk plus the transfer, B after B of the next chunk plus the transfer (the last chunk's B after its
// own F), W after its B. The result is plain data: per stage, each op with start, end, micro-batch,
// chunk and kind; the Gantt chart draws it without knowing the schedule.
//
// Schedules: GPipe (Huang et al. 2019: all forwards, then all backwards), 1F1B (Narayanan et al. 2019),
// interleaved 1F1B with v chunks per stage (Narayanan et al. 2021; Megatron-LM's order), and ZB-H1
// (Qi et al. 2024: backward split into B and W, W deferred to fill the drain, same peak activations as
// 1F1B).

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/plan/PlanEnums.h"

namespace trainplan {

enum class PipelineOpKind : std::uint8_t { Forward, Backward, BackwardInput, BackwardWeight };
constexpr auto enumNames(PipelineOpKind)
{
    using N = EnumName<PipelineOpKind>;
    return std::array{N{PipelineOpKind::Forward, "F", "Forward"}, N{PipelineOpKind::Backward, "B", "Backward"},
                      N{PipelineOpKind::BackwardInput, "B", "Input gradient"},
                      N{PipelineOpKind::BackwardWeight, "W", "Weight gradient"}};
}
inline const char *toString(PipelineOpKind v) { return spellingOf(v); }

struct PipelineOp
{
    std::int32_t stage = 0;
    std::int32_t microbatch = 0;
    std::int32_t chunk = 0; ///< model chunk on this stage (0 unless interleaved)
    PipelineOpKind kind = PipelineOpKind::Forward;
    double start = 0;
    double end = 0;
};

struct PipelineInput
{
    Schedule schedule = Schedule::OneFOneB;
    std::int32_t stages = 1;
    std::int32_t microbatches = 1;
    std::int32_t chunks = 1; ///< model chunks per stage (interleaved)
    /// Per stage, one micro-batch through all of the stage's layers (each chunk takes 1/chunks of it).
    std::vector<double> forwardSeconds;
    std::vector<double> backwardSeconds;       ///< whole backward (B + W)
    std::vector<double> weightGradientSeconds; ///< the W part of backwardSeconds; used by ZB-H1 (empty: 0)
    /// Per stage, work it runs after its last op, once per run (empty: none), as `drainMicrobatches` weight-
    /// gradient ops of micro-batches 0, 1, ...: Megatron-Core's deferred output-layer weight gradients, run on
    /// the last stage while the stages before it drain (--defer-embedding-wgrad-compute). Each is taken out of
    /// its micro-batch's backward of the stage's last chunk (backwardSeconds holds the whole backward).
    std::vector<double> drainSeconds;
    std::int32_t drainMicrobatches = 1;
    double transferSeconds = 0; ///< point-to-point time of one activation or gradient between stages
    bool forwardOnly = false;   ///< only forward passes (the reference text's utilisation bound)
};

struct PipelineTimeline
{
    bool valid = false;
    std::string error; ///< why the input could not be simulated (never for a validated plan)

    std::vector<PipelineOp> ops;            ///< grouped by stage, each stage in execution order
    std::vector<std::size_t> stageBegin;    ///< ops of stage s are [stageBegin[s], stageBegin[s + 1])
    double makespan = 0;                    ///< first start to last end
    double bubbleFraction = 0;              ///< idle stage-time / total stage-time (stages x makespan)
    std::vector<double> stageBusySeconds;
    std::vector<double> stageIdleSeconds;
    std::vector<double> stageBubbleFraction;
    /// Peak number of micro-batches whose activations a stage holds (forward done, input gradient not
    /// yet): counted in chunk-micro-batches / chunks, so a full stage's worth is 1.
    std::vector<double> peakInFlight;
};

/// Builds the schedule and simulates it. Checks its input; never throws.
PipelineTimeline simulatePipeline(const PipelineInput &input);

/// Peak in-flight micro-batches per stage from the schedule's order alone (it does not depend on times).
std::vector<double> scheduledPeakInFlight(Schedule schedule, std::int32_t stages, std::int32_t microbatches,
                                          std::int32_t chunks);

} // namespace trainplan
