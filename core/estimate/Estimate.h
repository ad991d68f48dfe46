#pragma once
// The Estimate: everything the views draw and the CLI prints, computed once per plan change.

#include "common/Problem.h"
#include "hardware/Catalog.h"
#include "memory/MemoryModel.h"
#include "plan/Plan.h"
#include "step/Scaling.h"
#include "step/StepModel.h"

namespace trainplan {

struct ModelSummary
{
    double parameters = 0; ///< total trainable parameters, counted once
    double parametersPerLayer = 0;
    std::int64_t microbatches = 0; ///< per pipeline per step
    std::int64_t gpus = 0;
};

struct Estimate
{
    bool valid = false;  ///< false when the plan has errors: only `problems` is meaningful then
    Problems problems;   ///< validation errors and warnings
    const DeviceSpec *device = nullptr; ///< points into the catalog the estimate was made with
    ModelSummary model;
    MemoryEstimate memory;
    StepEstimate step;
    ScalingCurves scaling; ///< empty unless EstimateOptions::scaling
};

struct EstimateOptions
{
    /// Scaling curves re-run the step model ~26 times; the search turns them off.
    bool scaling = true;
    /// Simulate the pipeline schedule (the Gantt chart's timeline); off: the analytic bubble.
    bool simulatePipeline = true;
};

/// Validates the plan, then runs every estimator. Pure: same inputs, same Estimate.
Estimate estimate(const Plan &plan, const Catalog &catalog, const EstimateOptions &options = {});

} // namespace trainplan
