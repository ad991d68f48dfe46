#pragma once
// The Estimate: everything the views draw and the CLI prints, computed once per plan change.

#include <optional>
#include <string>
#include <vector>

#include "core/cluster/Placement.h"
#include "core/estimate/Accuracy.h"
#include "core/common/Problem.h"
#include "core/hardware/Catalog.h"
#include "core/compute/Roofline.h"
#include "core/memory/MemoryModel.h"
#include "core/memory/ModelState.h"
#include "core/run/RunCost.h"
#include "core/plan/Plan.h"
#include "core/step/Scaling.h"
#include "core/step/StepModel.h"
#include "core/step/StepTimeline.h"

namespace trainplan {

struct ModelSummary
{
    double parameters = 0; ///< total trainable parameters, counted once
    /// One transformer layer (attention and dense MLP); for a hybrid pattern the mean over its blocks, one per layer.
    double parametersPerLayer = 0;
    double activeParameters =
        0; ///< what one token computes with (== parameters for a dense model, minus the input embedding)
    std::int64_t microbatches = 0; ///< per pipeline per step
    std::int64_t gpus = 0;
};

/// One node group of a mixed cluster, estimated as if the whole job ran on its devices and links.
struct NodeGroupEstimate
{
    std::size_t kind = 0;   ///< groups of one kind (device and intra-node link) share a number, in order of appearance
    std::string device;     ///< device id
    std::string deviceName;
    std::string intraNodeLink; ///< link name
    std::int64_t firstNode = 0;
    std::int64_t nodes = 0;
    double stepSeconds = 0;
    bool paces = false;        ///< the slowest group: it sets the step time
    bool fits = true;          ///< every stage it hosts fits its memory
    std::int64_t gpus = 0;
    double peakFlops = 0;      ///< dense peak of its device in the plan's format
    double idleShare = 0;      ///< of each step, the time its GPUs wait for the pacing group
};

/// What only the views read (EstimateOptions::details): the roofs, the ZeRO comparison, the error band and the
/// whole-step timeline. (The precision policy, a table of words from the plan alone, is io/output's.)
struct EstimateDetails
{
    /// The pacing device's roofs: the plan's format and every other it has, with their ridge points.
    RooflineSummary roofline;
    /// Figure 16.2 for this plan: the whole model's persistent state per data-parallel worker, replicated
    /// and with ZeRO stages 1-3.
    std::array<ModelStateBytes, 4> zeroComparison{};
    /// How far off the step time and the memory peak may be: the band of the comparable published runs'
    /// held-out errors, and where the plan lies outside them.
    Accuracy accuracy;
    /// The whole step's timeline per stage (the Gantt chart): the schedule, then the exposed data-parallel
    /// communication and the optimizer.
    StepTimeline timeline;
};

/// The estimators' numbers for one plan. What only some callers need is optional and says when it is
/// there: the scaling curves (EstimateOptions::scaling) and the views' details (EstimateOptions::details).
/// The diagnostic map's advice is computed beside it (core/advice/Interventions, advise()).
struct Estimate
{
    bool valid = false;  ///< false when the plan has errors: only `problems` is meaningful then
    Problems problems;   ///< validation errors, warnings and the placement flags
    /// The device that sets the pace, with the plan's links applied (the slowest device of a mixed cluster).
    std::optional<DeviceSpec> device;
    ModelSummary model;
    MemoryEstimate memory;
    StepEstimate step;
    PlacementReport placement;
    RunEstimate run; ///< time, energy and cost to train the token budget; checkpoint cost
    /// Mixed clusters only (more than one device or intra-node link): each node group's estimate. The
    /// slowest group sets the step time; each stage's memory is checked on the devices that hold it.
    std::vector<NodeGroupEstimate> nodeGroups;
    /// Mixed clusters: the share of all GPU-time spent waiting for the pacing group (0 otherwise). MFU and
    /// HFU then count the peak of every GPU.
    double idleShare = 0;
    /// Where the step goes: the stacked step-time chart's parts, which sum to the step.
    std::array<double, kStepPartCount> parts{};
    std::optional<ScalingCurves> scaling;   ///< with EstimateOptions::scaling (a valid plan)
    std::optional<EstimateDetails> details; ///< with EstimateOptions::details (a valid plan)
};

struct EstimateOptions
{
    /// Scaling curves re-run the step model ~26 times; the search turns them off.
    bool scaling = true;
    /// Simulate the pipeline schedule (the Gantt chart's timeline); off: the analytic bubble.
    bool simulatePipeline = true;
    /// What only the views read (Estimate::details): the roofs, the Figure 16.2
    /// comparison, the accuracy band and the whole-step timeline.
    bool details = true;
    /// The search's shortcut: a plan on one kind of node whose memory does not fit gets its memory estimate
    /// only (no step time, placement or run cost); most of a large search space does not fit.
    bool memoryOnlyWhenOverCapacity = false;
    /// The placement report in full: link names and bandwidths, and what a tensor group across nodes
    /// costs (a second step estimate). Off (the search): each group's size and whether it crosses nodes.
    bool placementReport = true;
    /// The plan differs from an already validated one only in its layout (the search's configurations):
    /// validateLayout() instead of validatePlan().
    bool layoutOfValidatedPlan = false;

    /// No scaling curves, the analytic bubble and no view details: the cheap estimate the search and the
    /// advice make by the thousand.
    static EstimateOptions analytic() { return {false, false, false}; }
};

/// The estimate's details, or empty ones where it was made without them (what a writer that always writes
/// every key prints then).
const EstimateDetails &detailsOf(const Estimate &e);
/// The estimate's scaling curves, or empty curves where it was made without them.
const ScalingCurves &scalingOf(const Estimate &e);

/// The measured peak the memory band allows at its upper edge: the held-out errors are (predicted - measured) /
/// measured, so a peak whose error lies within the band b measures at most predicted / (1 - b). Without
/// comparable published peaks, the estimate itself.
double memoryPeakUpperBytes(double peakBytes, const Accuracy &accuracy);
/// Fits as estimated, but some stage's peak at the memory band's upper edge is more than its device holds: the
/// model cannot tell this plan from one that runs out of memory.
bool mayNotFit(const MemoryEstimate &memory, const Accuracy &accuracy);

/// Validates the plan, then runs every estimator. Pure: same inputs, same Estimate.
Estimate estimate(const Plan &plan, const Catalog &catalog, const EstimateOptions &options = {});

} // namespace trainplan
