#pragma once
// The diagnostic map's interventions as data (core/advice/Interventions computes them): each one change to
// the plan, estimated; the suggested change among them. Kept apart from the functions so a view can hold
// them beside its Estimate without knowing how they are made.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/common/Problem.h"
#include "core/plan/Plan.h"
#include "core/step/StepModel.h"

namespace trainplan {

struct Intervention
{
    Bottleneck resource = Bottleneck::Capacity; ///< its column of the diagnostic map
    std::string id;     ///< "selective_recomputation"; its label is io's (io::interventionLabel)
    std::string change; ///< "training.recompute: none -> selective"
    Plan plan;          ///< the plan with the change applied
    bool valid = false; ///< the changed plan passes validation
    Problem invalid;    ///< when not valid: the first rule the changed plan breaks (io words it)
    bool fits = false;
    /// Fits as estimated but not at its memory band's upper edge (mayNotFit, core/estimate): the report, the
    /// diagnostic map's table and the window's suggestion say so.
    bool mayNotFit = false;
    double tokensPerSecond = 0;
    double peakBytes = 0;
    double stepSeconds = 0;
    double speedup = 0;          ///< tokens/s relative to the current plan (0 when the current plan does not run)
    double memoryChange = 0;     ///< peak bytes relative to the current plan, minus 1
};

/// Every intervention of the diagnostic map applied to a plan, and the one to suggest.
struct Advice
{
    bool evaluated = false; ///< false unless advise() evaluated a valid plan
    std::vector<Intervention> interventions;
    std::optional<std::size_t> suggested; ///< index into interventions; empty when none helps

    const Intervention *suggestion() const { return suggested ? &interventions[*suggested] : nullptr; }
};

} // namespace trainplan
