#include "core/step/Overlap.h"

#include <algorithm>

namespace trainplan {

namespace {

/// The forward pass: gather i must end before unit i computes; gather i + 1 is issued when unit i starts
/// (prefetch) or ends, and starts once the stream is free. Returns the pass's end.
double forwardPass(const std::vector<ShardedUnit> &units, bool prefetch)
{
    double stream = units.front().gatherSeconds; // the first gather: nothing to hide it behind
    double ready = stream, compute = 0;
    for (std::size_t i = 0; i < units.size(); ++i) {
        const double start = std::max(compute, ready);
        if (i + 1 < units.size()) {
            const double issued = prefetch ? start : start + units[i].forwardSeconds;
            stream = std::max(stream, issued) + units[i + 1].gatherSeconds;
            ready = stream;
        }
        compute = start + units[i].forwardSeconds;
    }
    return compute;
}

/// The backward pass, last unit first: gather the unit (when the forward freed it), compute, then
/// reduce-scatter its gradients; the previous unit's gather is issued when this unit starts (prefetch),
/// ahead of this unit's reduce-scatter. Returns the pass's end, the last reduce-scatter included.
double backwardPass(const std::vector<ShardedUnit> &units, bool gatherForBackward, bool prefetch)
{
    const std::size_t n = units.size();
    double stream = gatherForBackward ? units.back().backwardGather() : 0.0;
    double ready = stream, compute = 0;
    for (std::size_t k = 0; k < n; ++k) {
        const ShardedUnit &u = units[n - 1 - k];
        const double start = std::max(compute, ready);
        const bool previous = gatherForBackward && k + 1 < n;
        if (previous && prefetch)
            stream = std::max(stream, start) + units[n - 2 - k].backwardGather();
        compute = start + u.backwardSeconds;
        if (previous && !prefetch)
            stream = std::max(stream, compute) + units[n - 2 - k].backwardGather();
        ready = previous ? stream : compute;
        stream = std::max(stream, compute) + u.reduceSeconds;
    }
    return std::max(compute, stream);
}

} // namespace

ShardedExposure shardedExposure(const std::vector<ShardedUnit> &units, bool gatherForBackward, bool prefetch)
{
    ShardedExposure x;
    if (units.empty())
        return x;
    double forward = 0, backward = 0;
    for (const ShardedUnit &u : units) {
        forward += u.forwardSeconds;
        backward += u.backwardSeconds;
        x.commSeconds += u.gatherSeconds + (gatherForBackward ? u.backwardGather() : 0.0) + u.reduceSeconds;
    }
    x.forward = std::max(0.0, forwardPass(units, prefetch) - forward);
    x.backward = std::max(0.0, backwardPass(units, gatherForBackward, prefetch) - backward);
    x.hiddenSeconds = std::max(0.0, x.commSeconds - x.forward - x.backward);
    return x;
}

double collectiveMultiprocessors(const GroupPlacement &group)
{
    if (group.size <= 1)
        return 0.0;
    if (!group.spansNodes())
        return 5.0; // inside one NVLink domain
    return group.perNode > 1 ? 16.0 : 4.0; // NVLink and the network, or the network alone
}

double overlapSlowdown(double hiddenSeconds, const GroupPlacement &group, double multiprocessors, double hbmSeconds,
                       double memoryBoundShare)
{
    if (hiddenSeconds <= 0)
        return 0.0;
    const double smShare =
        multiprocessors > 0 ? std::min(0.5, collectiveMultiprocessors(group) / multiprocessors) : 0.0;
    return smShare * hiddenSeconds + std::clamp(memoryBoundShare, 0.0, 1.0) * std::min(hbmSeconds, hiddenSeconds);
}

} // namespace trainplan
