#pragma once
// The automatic plan name: model, GPUs and layout ("GPT-3 175B on 512 A100 SXM4 80GB, data 8 x tensor 8 x
// pipeline 8"). A plan whose name is empty or its automatic name follows the plan as it is edited; a name
// the user typed stays.

#include <string>

#include "core/hardware/Catalog.h"
#include "core/plan/Plan.h"

namespace trainplan {

std::string automaticPlanName(const Plan &plan, const Catalog &catalog);

/// Whether the plan's name is automatic (empty, or the automatic name of the plan).
bool hasAutomaticName(const Plan &plan, const Catalog &catalog);

/// The name to show: the plan's own, or its automatic name.
std::string planDisplayName(const Plan &plan, const Catalog &catalog);

} // namespace trainplan
