#pragma once
// Alpha-beta cost of collectives (Hockney; Thakur et al. 2005 for ring/tree; NCCL's hierarchical
// variants): T = alpha x steps + bytes on the slowest link / bandwidth. The reference text's
// T ~ alpha f(W) + (n/b) g(W).

#include <algorithm>
#include <array>
#include <cstdint>
#include "core/common/EnumNames.h"

namespace trainplan {

enum class Collective { AllReduce, AllGather, ReduceScatter, Broadcast, PointToPoint, AllToAll };
constexpr auto enumNames(Collective)
{
    using N = EnumName<Collective>;
    return std::array{N{Collective::AllReduce, "all-reduce", "All-reduce"},
                      N{Collective::AllGather, "all-gather", "All-gather"},
                      N{Collective::ReduceScatter, "reduce-scatter", "Reduce-scatter"},
                      N{Collective::Broadcast, "broadcast", "Broadcast"},
                      N{Collective::PointToPoint, "point-to-point", "Point-to-point"},
                      N{Collective::AllToAll, "all-to-all", "All-to-all"}};
}
inline const char *toString(Collective v) { return spellingOf(v); }
enum class CollectiveAlgorithm { Ring, Tree, Hierarchical };
constexpr auto enumNames(CollectiveAlgorithm)
{
    using N = EnumName<CollectiveAlgorithm>;
    return std::array{N{CollectiveAlgorithm::Ring, "ring", "Ring"}, N{CollectiveAlgorithm::Tree, "tree", "Tree"},
                      N{CollectiveAlgorithm::Hierarchical, "hierarchical", "Hierarchical"}};
}
inline const char *toString(CollectiveAlgorithm v) { return spellingOf(v); }

struct LinkTier
{
    double bandwidthBytesPerSecond = 0; ///< per GPU, one direction, already scaled by link efficiency
    double latencySeconds = 0;          ///< per message step
};

/// Where a communicator's ranks sit: `size` ranks, `perNode` of them in each node.
struct GroupPlacement
{
    std::int64_t size = 1;
    std::int64_t perNode = 1;
    LinkTier intraNode;
    LinkTier network;

    bool spansNodes() const { return size > perNode; }
    /// The group's ranks inside one node (scale-up domain).
    std::int64_t ranksInNode() const { return std::min(size, perNode); }
    std::int64_t nodes() const { return perNode > 0 ? (size + perNode - 1) / perNode : size; }
};

struct CollectiveCost
{
    double seconds = 0;
    CollectiveAlgorithm algorithm = CollectiveAlgorithm::Ring;
};

/// Cost of one collective of `bytes` (the full buffer: the all-reduced tensor, the gathered result,
/// the reduce-scatter input, the broadcast or sent message, one rank's all-to-all send buffer) with one
/// algorithm. All-to-all has one algorithm: every rank sends (n - 1)/n of its buffer, the share for ranks
/// in its node over the scale-up link and the rest through its own NIC share, both at once.
double collectiveSeconds(Collective collective, CollectiveAlgorithm algorithm, double bytes,
                         const GroupPlacement &group);

/// The cheaper of ring and tree for this size and placement, as NCCL's tuner picks; point-to-point and
/// single-rank groups have one cost.
CollectiveCost bestCollective(Collective collective, double bytes, const GroupPlacement &group);


} // namespace trainplan
