#pragma once
// The reference text's illustrative models, parameterised for the classroom figures.

#include <cstdint>
#include <vector>

namespace trainplan {

/// Figure 16.5: compute 1/W plus communication a log2 W + b (W - 1), added (no overlap) or hidden behind
/// compute where it can be (overlap: step = max(compute, communication)). W runs through the powers of two up
/// to maxWorkers and ends at maxWorkers itself.
struct ScalingCurve
{
    std::vector<double> workers;
    std::vector<double> stepTime;
    std::vector<double> speedup;
    std::vector<double> efficiency;
};
ScalingCurve illustrativeScaling(double logTerm = 0.012, double linearTerm = 0.0008, bool overlap = false,
                                 int maxWorkers = 128);

/// Forward pipeline utilisation bound m / (m + p - 1) (GPipe; reference text Level 3).
double pipelineUtilisation(std::int64_t stages, std::int64_t microbatches);

} // namespace trainplan
