#pragma once
// The reference text's diagnostic map (Figure 16.1) made quantitative: for each of the four limiting
// resources, the interventions it lists, each applied to the current plan as one change and estimated
// by the same core. The limiting resource's best intervention is the suggested change.

#include <string>
#include <vector>

#include "core/advice/Intervention.h"
#include "core/estimate/Estimate.h"

namespace trainplan {


/// The id of every intervention the diagnostic map can suggest (for a view that makes room for each label).
std::vector<std::string> interventionIds();

/// Every applicable intervention, estimated (no scaling curves, analytic pipeline). Interventions that
/// do not change the plan (already on) are left out.
std::vector<Intervention> evaluateInterventions(const Plan &plan, const Catalog &catalog);

/// The suggested change for the plan's limiting resource: a plan that does not fit gets the fitting
/// intervention with the best throughput; one that fits, the fastest intervention that still fits and
/// beats it (one that fits only as estimated, not at its memory band's upper edge, is marked, not passed over).
/// Empty when none helps.
std::optional<std::size_t> suggestedChange(const std::vector<Intervention> &interventions, const Estimate &current);

/// The diagnostic map for a plan and its estimate: every intervention and the suggested change (what the
/// window and the report show beside the estimate). Empty for an invalid plan.
Advice advise(const Plan &plan, const Catalog &catalog, const Estimate &current);

} // namespace trainplan
