#include "core/comm/Collectives.h"

#include <algorithm>
#include <cmath>

namespace trainplan {

namespace {

/// The link a flat (ring or tree) algorithm is limited by once the group leaves a node: the hops between
/// nodes, which carry the traffic of the group's `perNode` ranks through their NIC shares (NCCL runs one
/// ring per NIC), never faster than the scale-up link.
LinkTier flatLink(const GroupPlacement &g)
{
    if (!g.spansNodes())
        return g.intraNode;
    LinkTier link = g.network;
    link.bandwidthBytesPerSecond =
        std::min(g.intraNode.bandwidthBytesPerSecond,
                 double(std::max<std::int64_t>(g.perNode, 1)) * g.network.bandwidthBytesPerSecond);
    return link;
}

double ringSeconds(Collective c, double bytes, double n, const LinkTier &link)
{
    const double share = (n - 1.0) / n;
    switch (c) {
    case Collective::AllReduce: // reduce-scatter then all-gather
        return 2.0 * (n - 1.0) * link.latencySeconds + 2.0 * share * bytes / link.bandwidthBytesPerSecond;
    case Collective::AllGather:
    case Collective::ReduceScatter:
        return (n - 1.0) * link.latencySeconds + share * bytes / link.bandwidthBytesPerSecond;
    case Collective::Broadcast: // pipelined ring broadcast
        return (n - 1.0) * link.latencySeconds + bytes / link.bandwidthBytesPerSecond;
    case Collective::PointToPoint:
        return link.latencySeconds + bytes / link.bandwidthBytesPerSecond;
    case Collective::AllToAll:
        return (n - 1.0) * link.latencySeconds + share * bytes / link.bandwidthBytesPerSecond;
    }
    return 0.0;
}

/// All-to-all: pairwise exchanges run concurrently; a rank's bytes for the other ranks of its node move
/// over the scale-up link while those for other nodes leave through its NIC share (Jacobs et al. 2023).
double allToAllSeconds(double bytes, const GroupPlacement &g)
{
    const double n = double(g.size);
    if (!g.spansNodes())
        return ringSeconds(Collective::AllToAll, bytes, n, g.intraNode);
    const double local = double(std::max<std::int64_t>(1, g.perNode));
    const double inside = (local - 1.0) / n * bytes / g.intraNode.bandwidthBytesPerSecond;
    const double outside = (n - local) / n * bytes / g.network.bandwidthBytesPerSecond;
    return g.network.latencySeconds * std::ceil(std::log2(n)) + std::max(inside, outside);
}

double treeSeconds(Collective c, double bytes, double n, const LinkTier &link)
{
    // Pipelined (double binary) trees: log2(n) latency steps, the message crossing each link about once
    // per direction.
    const double depth = std::ceil(std::log2(n));
    switch (c) {
    case Collective::AllReduce:
        return 2.0 * depth * link.latencySeconds + 2.0 * bytes / link.bandwidthBytesPerSecond;
    case Collective::Broadcast:
        return depth * link.latencySeconds + bytes / link.bandwidthBytesPerSecond;
    default: // gathers and scatters have no tree variant in NCCL: use the ring
        return ringSeconds(c, bytes, n, link);
    }
}

double hierarchicalSeconds(Collective c, double bytes, const GroupPlacement &g)
{
    // Inside each node over the scale-up link, then across nodes: every GPU drives its own NIC share
    // with 1/perNode of the data, then back inside the node.
    const double local = double(g.perNode);
    const double nodes = double(g.nodes());
    switch (c) {
    case Collective::AllReduce:
        return ringSeconds(Collective::ReduceScatter, bytes, local, g.intraNode)
               + ringSeconds(Collective::AllReduce, bytes / local, nodes, g.network)
               + ringSeconds(Collective::AllGather, bytes, local, g.intraNode);
    case Collective::AllGather:
    case Collective::ReduceScatter:
        return ringSeconds(c, bytes / local, nodes, g.network) + ringSeconds(c, bytes, local, g.intraNode);
    case Collective::Broadcast:
        return ringSeconds(c, bytes, nodes, g.network) + ringSeconds(c, bytes, local, g.intraNode);
    case Collective::PointToPoint:
        return ringSeconds(c, bytes, 2.0, g.network);
    case Collective::AllToAll:
        return allToAllSeconds(bytes, g);
    }
    return 0.0;
}

} // namespace

double collectiveSeconds(Collective c, CollectiveAlgorithm algorithm, double bytes, const GroupPlacement &g)
{
    if (bytes <= 0)
        return 0.0;
    if (c == Collective::PointToPoint)
        return ringSeconds(c, bytes, 2.0, flatLink(g));
    if (g.size <= 1)
        return 0.0;
    if (c == Collective::AllToAll)
        return allToAllSeconds(bytes, g);
    const double n = double(g.size);
    switch (algorithm) {
    case CollectiveAlgorithm::Ring:
        return ringSeconds(c, bytes, n, flatLink(g));
    case CollectiveAlgorithm::Tree:
        return treeSeconds(c, bytes, n, flatLink(g));
    case CollectiveAlgorithm::Hierarchical:
        return g.spansNodes() && g.perNode > 1 ? hierarchicalSeconds(c, bytes, g)
                                               : ringSeconds(c, bytes, n, flatLink(g));
    }
    return 0.0;
}

CollectiveCost bestCollective(Collective c, double bytes, const GroupPlacement &g)
{
    CollectiveCost best{collectiveSeconds(c, CollectiveAlgorithm::Ring, bytes, g), CollectiveAlgorithm::Ring};
    if (c == Collective::PointToPoint || c == Collective::AllToAll || g.size <= 1)
        return best;
    // NCCL chooses between its ring and tree algorithms; the two-level hierarchical scheme is what
    // frameworks build on top (Megatron-LM's and DeepSpeed's hierarchical options), so it is costed on
    // request but not picked automatically. The DLPerf cross-node rows (one NIC per node) match the ring.
    const double tree = collectiveSeconds(c, CollectiveAlgorithm::Tree, bytes, g);
    if (tree < best.seconds)
        best = {tree, CollectiveAlgorithm::Tree};
    return best;
}

} // namespace trainplan
