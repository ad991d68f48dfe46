#pragma once
// A small, exact simulation of PyTorch's caching allocator (c10/cuda/CUDACachingAllocator.cpp), for the
// Learn view's picture of one layer's segments and for checking the memory model's closed form:
//   - every request is rounded up to 512 bytes;
//   - requests up to 1 MiB come from the small pool, whose segments are 2 MiB;
//   - larger ones from the large pool: a request under 10 MiB gets a 20 MiB segment, a larger one a
//     segment of its own size rounded up to 2 MiB;
//   - a request takes the smallest free block of its pool that holds it (best fit), split when the rest is
//     worth keeping (small pool: at least 512 bytes; large pool: more than 1 MiB);
//   - a freed block merges with free neighbours of its segment; segments are never returned (no
//     empty_cache()), so the reserved total only grows.

#include <string>
#include <vector>

#include "core/plan/Plan.h"

namespace trainplan {

struct AllocatorBlock
{
    double offset = 0;
    double size = 0;
    int tensor = -1; ///< the live tensor it holds; -1: free
};

struct AllocatorSegment
{
    double size = 0;
    bool small = false; ///< the small pool's 2 MiB segments
    std::vector<AllocatorBlock> blocks; ///< by offset, covering the segment
};

class CachingAllocatorSim
{
public:
    /// Allocates `bytes` for a tensor of kind `kind` (a caller's label index); returns its id.
    int allocate(double bytes, int kind);
    /// Frees a live tensor (ignored when it is not live).
    void free(int tensor);

    double allocatedBytes() const { return m_allocated; } ///< live blocks (rounded to 512 B)
    double reservedBytes() const { return m_reserved; }   ///< every segment ever made
    const std::vector<AllocatorSegment> &segments() const { return m_segments; }
    int kindOf(int tensor) const
    {
        return tensor >= 0 && std::size_t(tensor) < m_kinds.size() ? m_kinds[std::size_t(tensor)] : -1;
    }

private:
    bool placeInFreeBlock(double size, bool small, int id);
    std::vector<AllocatorSegment> m_segments;
    std::vector<int> m_kinds;
    double m_allocated = 0;
    double m_reserved = 0;
};

/// The kinds of tensor a layer stores (LayerActivationBytes' parts) and its backward's transient gradients.
enum class LayerTensorKind { SequenceShardable, TensorSharded, AttentionScores, BackwardWorkspace };
inline constexpr int kLayerTensorKinds = 4;

/// One layer of the plan on one rank: the stored tensors of `microbatches` micro-batches allocated in
/// forward order, then its backward's transient gradients (the moment of the layer's peak).
struct LayerSegments
{
    CachingAllocatorSim allocator;
    int microbatches = 0;
    int tensorsPerMicrobatch = 0;
    double storedBytesPerMicrobatch = 0; ///< what the memory model counts (unrounded)
    double modelBlockBytes = 0; ///< the model's closed-form rounding: stored + rounding waste, all micro-batches
};
LayerSegments simulateLayerSegments(const Plan &plan, int microbatches);

} // namespace trainplan
