#pragma once
// What each part of the step time is, how it is computed and where the formula comes from: the step-time
// counterpart of core/memory/MemoryTerms, for the estimate's JSON (time.terms), the step chart's hover and
// the report. Words live here, next to io/output/Evidence, not in core: core returns the seconds.

#include <array>

#include "core/step/StepTimeline.h"

namespace trainplan::io {

/// How a part's seconds are computed and where the formula comes from. Its key and label are the part's own
/// spelling and label (toString, labelOf: core/step/StepTimeline's enum table).
struct StepTermInfo
{
    const char *formula; ///< how the seconds are computed, in the plan's symbols (ASCII)
    const char *source;  ///< papers, framework sources or the calibration behind it
};

/// One entry per StepPart; its seconds are stepParts() (core/step/StepTimeline), which add up to the step.
const StepTermInfo &stepTermInfo(StepPart part);

} // namespace trainplan::io
