#pragma once
// Names, formulas and sources of every memory term, so each number shown to a user (tooltip, report,
// CLI "explain") can say where it came from. Static text: building an estimate never formats strings.

#include <array>
#include <cstddef>

namespace trainplan {

/// Transient terms, itemised under "other" in every estimate.
enum class OtherTerm {
    RuntimeContext,
    DataParallelBuckets,
    PipelineBuffers,
    ZeroGatheredParameters,
    RecomputeWorkspace,
    ContextKvBuffers,
    OptimizerWorkspace,
    AllocatorReserve,
};
inline constexpr std::size_t kOtherTermCount = 8;

struct TermInfo
{
    const char *key;     ///< JSON key, e.g. "runtime_context_bytes"
    const char *label;   ///< short label for charts and tables
    const char *formula; ///< how it is computed, in the plan's symbols
    const char *source;  ///< paper or assumption behind it
};

const TermInfo &termInfo(OtherTerm term);

/// The persistent and activation components (parameters, gradients, optimizer, activations).
enum class StateTerm { Parameters, Gradients, Optimizer, Activations };
inline constexpr std::size_t kStateTermCount = 4;
const TermInfo &termInfo(StateTerm term);

} // namespace trainplan
