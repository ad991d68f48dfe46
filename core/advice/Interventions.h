#pragma once
// The reference text's diagnostic map (Figure 16.1) made quantitative: for each of the four limiting
// resources, the interventions it lists, each applied to the current plan as one change and estimated
// by the same core. The limiting resource's best intervention is the suggested change.

#include <string>
#include <vector>

#include "core/estimate/Estimate.h"

namespace trainplan {


struct Intervention
{
    Bottleneck resource = Bottleneck::Capacity; ///< its column of the diagnostic map
    std::string label;  ///< "Selective recomputation", "Interleave the pipeline (v = 2)"
    std::string change; ///< "training.recompute: none -> selective"
    Plan plan;          ///< the plan with the change applied
    bool valid = false; ///< the changed plan passes validation
    std::string invalidReason;
    bool fits = false;
    double tokensPerSecond = 0;
    double peakBytes = 0;
    double stepSeconds = 0;
    double speedup = 0;          ///< tokens/s relative to the current plan (0 when the current plan does not run)
    double memoryChange = 0;     ///< peak bytes relative to the current plan, minus 1
};

/// Every applicable intervention, estimated (no scaling curves, analytic pipeline). Interventions that
/// do not change the plan (already on) are left out.
std::vector<Intervention> evaluateInterventions(const Plan &plan, const Catalog &catalog);

/// The suggested change for the plan's limiting resource: a plan that does not fit gets the fitting
/// intervention with the best throughput; one that fits, the fastest intervention that still fits and
/// beats it. nullptr when none helps.
const Intervention *suggestedChange(const std::vector<Intervention> &interventions, const Estimate &current);

} // namespace trainplan
