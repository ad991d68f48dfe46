#pragma once
// The memory terms an estimate itemises, with their JSON keys and short labels. How each is computed and
// where the formula comes from, the words a user reads beside the number, are io/output/MemoryTermSources'.

#include <array>
#include <cstddef>

namespace trainplan {

/// Transient terms, itemised under "other" in every estimate (new terms are appended: the order is the
/// JSON's and the tables').
enum class OtherTerm {
    RuntimeContext,
    DataParallelBuckets,
    PipelineBuffers,
    ZeroGatheredParameters,
    RecomputeWorkspace,
    ContextKvBuffers,
    OptimizerWorkspace,
    AllocatorReserve,
    BackwardWorkspace,
    FrameworkBuffers,
    NcclBuffers,
    LibraryWorkspaces,
    LossWorkspace,
    DeferredWeightGradients,
};
inline constexpr std::size_t kOtherTermCount = 14;

/// The three kinds of peak a GPU's memory is published as, each including the one before:
///   allocated: the tensors (torch.cuda.max_memory_allocated);
///   reserved:  + the caching allocator's rounding and fragmentation (torch.cuda.max_memory_reserved);
///   device:    + what lives outside the allocator: CUDA context, NCCL buffers, library workspaces
///              (nvidia-smi, DCGM).
enum class MemoryKind { Allocated, Reserved, Device };
inline constexpr std::size_t kMemoryKindCount = 3;

/// Which of the three a term belongs to (persistent state and activations are allocated): the CUDA
/// context, NCCL buffers and library workspaces are outside the caching allocator; its overhead is
/// reserved; the rest are tensors.
constexpr MemoryKind kindOf(OtherTerm term)
{
    switch (term) {
    case OtherTerm::RuntimeContext:
    case OtherTerm::NcclBuffers:
    case OtherTerm::LibraryWorkspaces:
        return MemoryKind::Device;
    case OtherTerm::AllocatorReserve:
        return MemoryKind::Reserved;
    default:
        return MemoryKind::Allocated;
    }
}
/// The kind's name as published ("max_memory_allocated", ...) and a short label.
const char *publishedAs(MemoryKind kind);
const char *labelOf(MemoryKind kind);

struct TermInfo
{
    const char *key;     ///< JSON key, e.g. "runtime_context_bytes"
    const char *label;   ///< short label for charts and tables
};

const TermInfo &termInfo(OtherTerm term);

/// The persistent and activation components (parameters, gradients, optimizer, activations).
enum class StateTerm { Parameters, Gradients, Optimizer, Activations };
inline constexpr std::size_t kStateTermCount = 4;
const TermInfo &termInfo(StateTerm term);

} // namespace trainplan
