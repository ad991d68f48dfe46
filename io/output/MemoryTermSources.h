#pragma once
// How each memory term is computed and where the formula comes from: the words beside every memory number
// (the estimate's JSON "terms", the report's sources, tooltips). The terms themselves, their keys and labels,
// are core/memory/MemoryTerms'; the step-time counterpart is io/output/StepTerms.

#include "core/memory/MemoryTerms.h"

namespace trainplan::io {

struct MemoryTermSource
{
    const char *formula; ///< how it is computed, in the plan's symbols
    const char *source;  ///< paper, framework source or assumption behind it
};

const MemoryTermSource &memoryTermSource(OtherTerm term);
const MemoryTermSource &memoryTermSource(StateTerm term);

} // namespace trainplan::io
