#pragma once
// Every rule a plan must satisfy before an estimator may run on it. Returns all problems, each naming
// the plan key and the rule; an empty list (or warnings only) means the estimators will not fail.
// Ranges and choices come from the key table (core/plan/PlanKeys); the rules between keys are here.

#include "core/common/Problem.h"
#include "core/hardware/Catalog.h"
#include "core/plan/Plan.h"

namespace trainplan {

Problems validatePlan(const Plan &plan, const Catalog &catalog);

/// validatePlan() for a plan that differs from an already validated one only in its layout (what a search
/// configuration changes). Ranges are checked again only for its numeric keys (parallel.*,
/// training.micro_batch, cluster.nodes) and training.global_batch; every cross-key rule runs as in
/// validatePlan().
Problems validateLayout(const Plan &plan, const Catalog &catalog);

} // namespace trainplan
