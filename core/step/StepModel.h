#pragma once
// Step time of a plan: per-micro-batch stage times from the op list and the collectives, the pipeline
// schedule (analytic bubble (p - 1)/(v m) until the pipeline simulator lands), data-parallel gradient
// synchronisation with bucketed overlap, the optimizer; throughput, MFU/HFU and the limiting resource.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/comm/Collectives.h"
#include "core/compute/Op.h"
#include "core/hardware/DeviceSpec.h"
#include "core/memory/MemoryModel.h"
#include "core/pipeline/PipelineSimulator.h"
#include "core/plan/Plan.h"

namespace trainplan {

/// Categories of the step-time decomposition (reference text Level 3: compute, memory stalls,
/// exposed communication, other). They add up to the step time.
enum class TimeCategory {
    Compute,          ///< forward and backward kernels (arithmetic and memory movement)
    Recompute,        ///< forward kernels replayed by activation recomputation
    TensorComm,       ///< tensor-parallel collectives (not overlapped)
    PipelineComm,     ///< activations and gradients between stages
    PipelineBubble,   ///< fill and drain of the pipeline
    DataComm,         ///< exposed data-parallel / ZeRO communication
    Optimizer,        ///< optimizer update (and host transfers with offload)
    Other,
};
inline constexpr std::size_t kTimeCategoryCount = 8;
const char *toString(TimeCategory category); ///< JSON key, e.g. "tensor_comm"
const char *labelOf(TimeCategory category);  ///< "Tensor-parallel communication"

enum class Bottleneck { Capacity, MemoryMovement, Arithmetic, Communication, PipelineIdle };
const char *toString(Bottleneck bottleneck); ///< "capacity", "memory_movement", ...

struct StageTime
{
    double forwardSeconds = 0;   ///< one micro-batch, kernels only
    double backwardSeconds = 0;
    double recomputeSeconds = 0;
    double tensorCommSeconds = 0;
    double tensorCommForwardSeconds = 0; ///< the forward part of tensorCommSeconds
    double pipelineCommSeconds = 0;
    double weightGradientSeconds = 0; ///< the weight-gradient matmuls inside backwardSeconds (ZB-H1's W)
    double microbatchSeconds() const
    {
        return forwardSeconds + backwardSeconds + recomputeSeconds + tensorCommSeconds + pipelineCommSeconds;
    }
};

struct StepEstimate
{
    double stepSeconds = 0;
    std::array<double, kTimeCategoryCount> breakdown{}; ///< seconds per category, summing to stepSeconds
    std::vector<StageTime> stages;
    std::int64_t slowestStage = 0;

    double tokensPerSecond = 0;
    double validTokensPerSecond = 0;
    double modelFlopsPerStep = 0;    ///< 3 x forward, no recompute, whole job
    double hardwareFlopsPerStep = 0; ///< recompute counted
    double modelFlopsPerGpu = 0;     ///< per second
    double hardwareFlopsPerGpu = 0;
    double mfu = 0;
    double hfu = 0;
    double bubbleFraction = 0;       ///< idle stage-time / total stage-time over the pipeline part of the step
    /// The simulated schedule (empty when the pipeline was not simulated: one stage, or the analytic
    /// bubble was asked for).
    PipelineTimeline pipeline;

    Bottleneck bottleneck = Bottleneck::Arithmetic;
    std::string bottleneckEvidence;

    /// The ops of one micro-batch on the slowest stage's rank (layer ops once), timed: the roofline view.
    std::vector<Op> ops;

    double category(TimeCategory c) const { return breakdown[std::size_t(c)]; }
};

/// Link tiers the plan's groups use (device figures, plan overrides, link efficiency applied).
struct ClusterLinks
{
    LinkTier intraNode;
    LinkTier network;
    GroupPlacement tensorGroup;
    GroupPlacement dataGroup;
    LinkTier pipelineLink;
};
ClusterLinks clusterLinks(const Plan &plan, const DeviceSpec &device);

/// Pure function of a validated plan, its device and its memory estimate. With `simulatePipeline` the
/// pipeline part of the step is the makespan of the simulated schedule (core/pipeline); without it, the
/// analytic bubble (p - 1)/v of the slowest stage's micro-batch time (ZB-H1: without its W part).
/// `tensorWithinNode` is a what-if for the placement report: every tensor group on the scale-up link.
StepEstimate estimateStep(const Plan &plan, const DeviceSpec &device, const MemoryEstimate &memory,
                          bool simulatePipeline = true, bool tensorWithinNode = false);

/// The plan's schedule as the simulator names it.
PipelineSchedule pipelineScheduleOf(Schedule schedule);

} // namespace trainplan
