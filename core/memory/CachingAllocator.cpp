#include "core/memory/CachingAllocator.h"

#include <cmath>
#include <limits>

#include "core/memory/ActivationMemory.h"
#include "core/memory/MemoryModel.h"

namespace trainplan {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kMinBlock = 512.0, kSmallSize = kMiB, kSmallBuffer = 2.0 * kMiB, kMinLargeAlloc = 10.0 * kMiB,
                 kLargeBuffer = 20.0 * kMiB, kRoundLarge = 2.0 * kMiB;

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
        blocks.insert(blocks.begin() + std::ptrdiff_t(bestBlock) + 1, AllocatorBlock{blocks[bestBlock].offset + size, rest, -1});
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
    seg.size = small ? kSmallBuffer : size < kMinLargeAlloc ? kLargeBuffer : std::ceil(size / kRoundLarge) * kRoundLarge;
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
    const ModelSpec &m = plan.model;
    const TrainingConfig &training = plan.training;
    const double t = double(plan.parallel.tensor);
    const double q = activationElementBytes(training.precision);
    const double tokens = double(m.seqLen) / double(plan.parallel.context) * double(training.microBatch);
    const LayerActivationBytes layer = storedLayerActivations(m, training, plan.parallel.tensor);
    // The same units as the memory model's rounding: an h-wide activation sharded as its part is, and one
    // score matrix per head group on this rank.
    const double units[] = {q * tokens * double(m.hidden) / (training.sequenceParallel ? t : 1.0), q * tokens * double(m.hidden) / t,
                            q * tokens * double(m.seqLen) * double(m.heads) / t};
    const double parts[] = {layer.sequenceShardable, layer.tensorSharded, layer.attentionScores};
    LayerSegments out;
    out.microbatches = std::max(1, microbatches);
    out.storedBytesPerMicrobatch = layer.total() / double(plan.parallel.context);
    for (int mb = 0; mb < out.microbatches; ++mb)
        for (int k = 0; k < 3; ++k) {
            if (!(units[k] > 0) || !(parts[k] > 0))
                continue;
            double left = parts[k] / double(plan.parallel.context);
            for (; left > 0.5 * units[k]; left -= units[k]) {
                out.allocator.allocate(std::min(units[k], left), k);
                out.modelBlockBytes += allocatorBlockBytes(std::min(units[k], left));
                if (mb == 0)
                    ++out.tensorsPerMicrobatch;
            }
        }
    // The backward's transient gradients of this layer: the largest tensors' gradients, two at a time.
    const double scores = layer.attentionScores > 0 ? double(m.heads) * double(m.seqLen) : 0.0;
    const double workspace = q * tokens * (scores + double(m.ffnHidden)) / t;
    if (workspace > 0) {
        out.allocator.allocate(workspace, int(LayerTensorKind::BackwardWorkspace));
        out.allocator.allocate(workspace, int(LayerTensorKind::BackwardWorkspace));
    }
    return out;
}

} // namespace trainplan
