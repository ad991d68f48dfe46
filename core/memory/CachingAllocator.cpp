#include "core/memory/CachingAllocator.h"

#include <cmath>
#include <limits>

#include "core/memory/MemoryModel.h"
#include "core/common/Units.h"

namespace trainplan {

namespace {

constexpr double kMinBlock = 512.0, kSmallSize = units::MiB, kSmallBuffer = 2.0 * units::MiB,
                 kMinLargeAlloc = 10.0 * units::MiB, kLargeBuffer = 20.0 * units::MiB, kRoundLarge = 2.0 * units::MiB;

double roundSize(double bytes)
{
    return std::max(kMinBlock, std::ceil(bytes / kMinBlock) * kMinBlock);
}

/// Worth keeping the rest of a block when splitting it (CUDACachingAllocator's should_split).
bool shouldSplit(double rest, bool small)
{
    return small ? rest >= kMinBlock : rest > kSmallSize;
}

} // namespace

bool CachingAllocatorSim::placeInFreeBlock(double size, bool small, int id)
{
    AllocatorSegment *bestSegment = nullptr;
    std::size_t bestBlock = 0;
    double bestSize = std::numeric_limits<double>::infinity();
    for (AllocatorSegment &seg : m_segments) {
        if (seg.small != small)
            continue;
        for (std::size_t b = 0; b < seg.blocks.size(); ++b)
            if (seg.blocks[b].tensor < 0 && seg.blocks[b].size >= size && seg.blocks[b].size < bestSize) {
                bestSegment = &seg;
                bestBlock = b;
                bestSize = seg.blocks[b].size;
            }
    }
    if (!bestSegment)
        return false;
    std::vector<AllocatorBlock> &blocks = bestSegment->blocks;
    const double rest = blocks[bestBlock].size - size;
    if (shouldSplit(rest, small)) {
        blocks.insert(blocks.begin() + std::ptrdiff_t(bestBlock) + 1,
                      AllocatorBlock{blocks[bestBlock].offset + size, rest, -1});
        blocks[bestBlock].size = size;
    }
    blocks[bestBlock].tensor = id;
    m_allocated += blocks[bestBlock].size;
    return true;
}

int CachingAllocatorSim::allocate(double bytes, int kind)
{
    const int id = int(m_kinds.size());
    m_kinds.push_back(kind);
    const double size = roundSize(bytes);
    const bool small = size <= kSmallSize;
    if (placeInFreeBlock(size, small, id))
        return id;
    AllocatorSegment seg;
    seg.small = small;
    seg.size = small                   ? kSmallBuffer
               : size < kMinLargeAlloc ? kLargeBuffer
                                       : std::ceil(size / kRoundLarge) * kRoundLarge;
    seg.blocks.push_back(AllocatorBlock{0, seg.size, -1});
    m_reserved += seg.size;
    m_segments.push_back(std::move(seg));
    placeInFreeBlock(size, small, id);
    return id;
}

void CachingAllocatorSim::free(int tensor)
{
    for (AllocatorSegment &seg : m_segments)
        for (std::size_t b = 0; b < seg.blocks.size(); ++b) {
            if (seg.blocks[b].tensor != tensor)
                continue;
            seg.blocks[b].tensor = -1;
            m_allocated -= seg.blocks[b].size;
            if (b + 1 < seg.blocks.size() && seg.blocks[b + 1].tensor < 0) { // merge with the next free block
                seg.blocks[b].size += seg.blocks[b + 1].size;
                seg.blocks.erase(seg.blocks.begin() + std::ptrdiff_t(b) + 1);
            }
            if (b > 0 && seg.blocks[b - 1].tensor < 0) { // and with the previous one
                seg.blocks[b - 1].size += seg.blocks[b].size;
                seg.blocks.erase(seg.blocks.begin() + std::ptrdiff_t(b));
            }
            return;
        }
}

LayerSegments simulateLayerSegments(const Plan &plan, int microbatches)
{
    const LayerStoredTensors layer = layerStoredTensors(plan);
    LayerSegments out;
    out.microbatches = std::max(1, microbatches);
    for (double part : layer.partBytes)
        out.storedBytesPerMicrobatch += part;
    for (int mb = 0; mb < out.microbatches; ++mb)
        for (std::size_t k = 0; k < layer.partBytes.size(); ++k) {
            const double unit = layer.unitBytes[k];
            if (!(unit > 0) || !(layer.partBytes[k] > 0))
                continue;
            for (double left = layer.partBytes[k]; left > 0.5 * unit; left -= unit) {
                out.allocator.allocate(std::min(unit, left), int(k));
                out.modelBlockBytes += allocatorBlockBytes(std::min(unit, left));
                if (mb == 0)
                    ++out.tensorsPerMicrobatch;
            }
        }
    // The backward's transient gradients of this layer: two at a time, as the memory model counts them.
    if (const double gradient = layerBackwardGradientBytes(plan); gradient > 0) {
        out.allocator.allocate(gradient, int(LayerTensorKind::BackwardWorkspace));
        out.allocator.allocate(gradient, int(LayerTensorKind::BackwardWorkspace));
    }
    return out;
}

} // namespace trainplan
