#pragma once
// Every rule a plan must satisfy before an estimator may run on it. Returns all problems, each naming
// the plan key and the rule; an empty list (or warnings only) means the estimators will not fail.

#include "core/common/Problem.h"
#include "core/hardware/Catalog.h"
#include "core/plan/Plan.h"

namespace trainplan {

/// Largest integer a plan may hold for a size: keeps every product of sizes finite in a double and
/// every per-stage loop short.
inline constexpr std::int64_t kMaxPlanInteger = std::int64_t(1) << 40;
/// Pipeline stages are simulated one by one; beyond this a plan is not a training plan.
inline constexpr std::int64_t kMaxPipelineStages = 4096;

Problems validatePlan(const Plan &plan, const Catalog &catalog);

} // namespace trainplan
