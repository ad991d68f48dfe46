#include "core/cluster/Topology.h"

#include <algorithm>

namespace trainplan {

std::optional<DeviceSpec> resolvedDevice(const ClusterConfig &cluster, const Catalog &catalog, const NodeGroup &group)
{
    const DeviceSpec *base = catalog.device(group.device, cluster.customDevices);
    if (!base)
        return std::nullopt;
    DeviceSpec d = *base;
    if (const LinkSpec *link = catalog.intraNodeLink(group.intraNodeLink)) {
        d.intraNodeBandwidthBytesPerSecond = link->bandwidthBytesPerSecond;
        d.intraNodeLatencySeconds = link->latencySeconds;
    }
    if (const LinkSpec *net = catalog.network(cluster.network)) {
        d.networkBandwidthBytesPerSecond = net->bandwidthBytesPerSecond;
        d.networkLatencySeconds = net->latencySeconds;
    }
    return d;
}

std::string intraNodeLinkName(const Catalog &catalog, const NodeGroup &group, const DeviceSpec &device)
{
    if (const LinkSpec *link = catalog.intraNodeLink(group.intraNodeLink))
        return link->name;
    return device.name + " scale-up link";
}

std::string networkName(const ClusterConfig &cluster, const Catalog &catalog, const DeviceSpec &device)
{
    if (const LinkSpec *net = catalog.network(cluster.network))
        return net->name;
    return device.name + " network";
}

RankCoordinates coordinatesOf(const ParallelConfig &parallel, std::int64_t rank)
{
    const std::int64_t t = std::max<std::int64_t>(1, parallel.tensor);
    const std::int64_t c = std::max<std::int64_t>(1, parallel.context);
    const std::int64_t d = std::max<std::int64_t>(1, parallel.data);
    const std::int64_t p = std::max<std::int64_t>(1, parallel.pipeline);
    if (parallel.rankOrder == RankOrder::StagesInside) // tp-cp-ep-pp-dp
        return {rank % t, rank / (t * c * p), (rank / (t * c)) % p, (rank / t) % c};
    return {rank % t, (rank / (t * c)) % d, rank / (t * c * d), (rank / t) % c};
}

std::int64_t groupOf(GroupKind kind, const ParallelConfig &parallel, std::int64_t rank)
{
    const RankCoordinates c = coordinatesOf(parallel, rank);
    const std::int64_t t = std::max<std::int64_t>(1, parallel.tensor);
    const std::int64_t cp = std::max<std::int64_t>(1, parallel.context);
    const std::int64_t d = std::max<std::int64_t>(1, parallel.data);
    switch (kind) {
    case GroupKind::Tensor: return c.context + cp * (c.data + c.stage * d);
    case GroupKind::Context: return c.tensor + t * (c.data + c.stage * d);
    case GroupKind::Replica: return c.data;
    case GroupKind::Gradient: return c.tensor + c.stage * t;
    case GroupKind::Stage: return c.stage;
    case GroupKind::Expert: {
        // Megatron-Core's expert rank order (expert tensor, expert, expert data, pipeline): blocks of
        // expert x expert_tensor ranks, a group being one expert-tensor index of a block.
        const std::int64_t et = std::max<std::int64_t>(1, parallel.expertTensorSize());
        const std::int64_t e = std::max<std::int64_t>(1, parallel.expert);
        return (rank / (et * e)) * et + rank % et;
    }
    }
    return 0;
}

std::int64_t groupCount(GroupKind kind, const ParallelConfig &parallel)
{
    const std::int64_t t = std::max<std::int64_t>(1, parallel.tensor);
    const std::int64_t cp = std::max<std::int64_t>(1, parallel.context);
    const std::int64_t d = std::max<std::int64_t>(1, parallel.data);
    const std::int64_t p = std::max<std::int64_t>(1, parallel.pipeline);
    switch (kind) {
    case GroupKind::Tensor: return d * p * cp;
    case GroupKind::Context: return t * d * p;
    case GroupKind::Replica: return d;
    case GroupKind::Gradient: return t * p;
    case GroupKind::Stage: return p;
    case GroupKind::Expert:
        return std::max<std::int64_t>(1, t * cp * d * p / std::max<std::int64_t>(1, parallel.expert));
    }
    return 1;
}

namespace {

std::int64_t nodeOf(std::int64_t rank, std::int64_t gpusPerNode) { return rank / gpusPerNode; }

/// Nodes touched by the ranks first, first + stride, ..., first + (count - 1) stride, and the fewest of
/// them in one touched node.
GroupSpan spanOf(std::int64_t first, std::int64_t stride, std::int64_t count, std::int64_t gpusPerNode)
{
    GroupSpan span;
    span.size = count;
    const std::int64_t firstNode = nodeOf(first, gpusPerNode);
    const std::int64_t lastNode = nodeOf(first + (count - 1) * stride, gpusPerNode);
    if (firstNode == lastNode) {
        span.nodesSpanned = 1;
        span.minPerNode = count;
        return span;
    }
    if (stride >= gpusPerNode) { // every rank on its own node
        span.nodesSpanned = count;
        span.minPerNode = 1;
        return span;
    }
    span.nodesSpanned = lastNode - firstNode + 1;
    // Ranks in the first and the last node: the partial ends.
    const std::int64_t firstNodeEnd = (firstNode + 1) * gpusPerNode; // exclusive
    const std::int64_t inFirst = (firstNodeEnd - first + stride - 1) / stride;
    const std::int64_t inLast = count - (lastNode * gpusPerNode - first + stride - 1) / stride;
    const std::int64_t inMiddle = span.nodesSpanned > 2 ? gpusPerNode / stride : count;
    span.minPerNode = std::max<std::int64_t>(1, std::min({inFirst, inLast, inMiddle}));
    return span;
}

/// Nodes touched by the ascending ranks rankAt(0), ..., rankAt(count - 1), and the fewest of them in one
/// touched node: the span of a group whose ranks are not evenly spaced (the data x context group when the
/// stages sit inside the data replicas).
template<typename RankAt>
GroupSpan spanOfRanks(RankAt rankAt, std::int64_t count, std::int64_t gpusPerNode)
{
    GroupSpan span;
    span.size = count;
    span.nodesSpanned = 0;
    span.minPerNode = count;
    std::int64_t node = -1, run = 0;
    for (std::int64_t u = 0; u < count; ++u) {
        const std::int64_t n = nodeOf(rankAt(u), gpusPerNode);
        if (n != node) {
            if (run > 0)
                span.minPerNode = std::min(span.minPerNode, run);
            node = n;
            run = 0;
            ++span.nodesSpanned;
        }
        ++run;
    }
    span.minPerNode = std::max<std::int64_t>(1, std::min(span.minPerNode, run));
    span.nodesSpanned = std::max<std::int64_t>(1, span.nodesSpanned);
    return span;
}

/// The worse of two spans: more nodes, or as many with fewer ranks in one of them.
GroupSpan worse(const GroupSpan &a, const GroupSpan &b)
{
    return (b.nodesSpanned > a.nodesSpanned || (b.nodesSpanned == a.nodesSpanned && b.minPerNode < a.minPerNode)) ? b
                                                                                                                 : a;
}

/// Groups of an irregular layout looked at for the worst span: all of them while their ranks number at most
/// kIrregularRanksLooked, else as many as fit, spread over them (at least the first and the last; a layout
/// repeats with the node size, so a spread sample meets the offsets it has). Bounds an estimate's placement
/// work, which the search repeats for every layout.
constexpr std::int64_t kIrregularRanksLooked = 16384;
std::int64_t irregularGroupsLooked(std::int64_t groups, std::int64_t ranksPerGroup)
{
    const std::int64_t fit = kIrregularRanksLooked / std::max<std::int64_t>(1, ranksPerGroup);
    return std::min(groups, std::max<std::int64_t>(2, fit));
}
/// The n-th of `looked` groups spread over `groups`, the first and the last among them.
std::int64_t sampledGroup(std::int64_t n, std::int64_t looked, std::int64_t groups)
{
    return looked < groups ? n * (groups - 1) / (looked - 1) : n;
}

/// Worst span of groups [first(k), ...] for k in [0, groups): the layout repeats with period
/// gpusPerNode, so at most that many groups are looked at.
template<typename First>
GroupSpan worstSpan(std::int64_t groups, First first, std::int64_t stride, std::int64_t count, std::int64_t gpusPerNode)
{
    GroupSpan worst;
    worst.size = count;
    worst.minPerNode = count;
    const std::int64_t limit = std::min(groups, std::max<std::int64_t>(1, gpusPerNode) + 1);
    for (std::int64_t k = 0; k < limit; ++k)
        worst = worse(worst, spanOf(first(k), stride, count, gpusPerNode));
    return worst;
}

/// Groups of `size` adjacent ranks over all GPUs (the innermost of a rank order: tensor, or expert tensor).
GroupSpan adjacentGroupSpan(const ParallelConfig &parallel, std::int64_t size, std::int64_t gpusPerNode)
{
    const std::int64_t n = std::max<std::int64_t>(1, size);
    if (gpusPerNode < 1)
        return {n, n, 1};
    const std::int64_t ranks = std::max<std::int64_t>(1, parallel.data) * std::max<std::int64_t>(1, parallel.context) *
                               std::max<std::int64_t>(1, parallel.tensor) *
                               std::max<std::int64_t>(1, parallel.pipeline);
    const std::int64_t groups = std::max<std::int64_t>(1, ranks / n);
    return worstSpan(groups, [n](std::int64_t k) { return k * n; }, 1, n, gpusPerNode);
}

} // namespace

GroupSpan tensorGroupSpan(const ParallelConfig &parallel, std::int64_t gpusPerNode)
{
    return adjacentGroupSpan(parallel, parallel.tensor, gpusPerNode);
}

bool nodeHostsTensorGroupAcrossNodes(const ParallelConfig &parallel, std::int64_t gpusPerNode, std::int64_t node)
{
    // Tensor ranks are adjacent (Megatron's order): a group crosses a node boundary when the node's first
    // or one-past-last rank is not a multiple of the tensor size.
    const std::int64_t t = parallel.tensor;
    const std::int64_t firstRank = node * gpusPerNode;
    return t > 1 && ((firstRank % t) != 0 || ((firstRank + gpusPerNode) % t) != 0);
}

GroupSpan contextGroupSpan(const ParallelConfig &parallel, std::int64_t gpusPerNode)
{
    const std::int64_t t = std::max<std::int64_t>(1, parallel.tensor);
    const std::int64_t c = std::max<std::int64_t>(1, parallel.context);
    const std::int64_t groups =
        t * std::max<std::int64_t>(1, parallel.data) * std::max<std::int64_t>(1, parallel.pipeline);
    if (gpusPerNode < 1)
        return {c, c, 1};
    // Group k: tensor index k % t of the (data, stage) block k / t; its ranks are t apart.
    return worstSpan(groups, [t, c](std::int64_t k) { return (k / t) * t * c + k % t; }, t, c, gpusPerNode);
}

GroupSpan expertTensorGroupSpan(const ParallelConfig &parallel, std::int64_t gpusPerNode)
{
    return adjacentGroupSpan(parallel, parallel.expertTensorSize(), gpusPerNode);
}

GroupSpan expertGroupSpan(const ParallelConfig &parallel, std::int64_t gpusPerNode)
{
    const std::int64_t et = std::max<std::int64_t>(1, parallel.expertTensorSize());
    const std::int64_t e = std::max<std::int64_t>(1, parallel.expert);
    const std::int64_t groups =
        std::max<std::int64_t>(1, parallel.data * parallel.context * parallel.tensor * parallel.pipeline / e);
    if (gpusPerNode < 1)
        return {e, e, 1};
    // Group k: expert-tensor index k % et of the block k / et; its ranks are et apart.
    return worstSpan(groups, [et, e](std::int64_t k) { return (k / et) * et * e + k % et; }, et, e, gpusPerNode);
}

GroupSpan expertDataGroupSpan(const ParallelConfig &parallel, std::int64_t gpusPerNode)
{
    const std::int64_t shards = std::max<std::int64_t>(1, parallel.expertShards());
    const std::int64_t n = std::max<std::int64_t>(1, parallel.tensor) * std::max<std::int64_t>(1, parallel.data)
                           * std::max<std::int64_t>(1, parallel.context);
    const std::int64_t size = parallel.expertDataSize();
    const std::int64_t groups = shards * std::max<std::int64_t>(1, parallel.pipeline);
    if (gpusPerNode < 1)
        return {size, size, 1};
    // Stages inside the data replicas (the expert order tp-ep-pp-dp): shard k % shards of stage k / shards is at
    // shard + shards (stage + p u) for its u-th expert-data rank, `shards` x pipeline apart.
    if (parallel.rankOrder == RankOrder::StagesInside)
        return worstSpan(
            groups, [](std::int64_t k) { return k; }, groups, size, gpusPerNode);
    // Group k: shard k % shards of stage k / shards; its ranks are `shards` apart.
    return worstSpan(
        groups, [shards, n](std::int64_t k) { return (k / shards) * n + k % shards; }, shards, size, gpusPerNode);
}

namespace {

/// The same groups when the stages sit inside the data replicas (tp-cp-ep-pp-dp): data x context index j of a
/// tensor index and stage is context j % c of data replica j / c, at tensor + t (context + c (stage + p data)).
GroupSpan dataSubgroupSpanStagesInside(const ParallelConfig &parallel, std::int64_t gpusPerNode, std::int64_t count,
                                       std::int64_t step)
{
    const std::int64_t t = std::max<std::int64_t>(1, parallel.tensor);
    const std::int64_t c = std::max<std::int64_t>(1, parallel.context);
    const std::int64_t p = std::max<std::int64_t>(1, parallel.pipeline);
    const std::int64_t dc = std::max<std::int64_t>(1, parallel.data) * c;
    const std::int64_t perStage = std::max<std::int64_t>(1, dc / count);
    const std::int64_t groups = t * perStage * p;
    GroupSpan worst{count, 1, count};
    const std::int64_t looked = irregularGroupsLooked(groups, count);
    for (std::int64_t n = 0; n < looked; ++n) {
        const std::int64_t k = sampledGroup(n, looked, groups);
        const std::int64_t i = k % t, g = (k / t) % perStage, s = k / (t * perStage);
        worst = worse(worst, spanOfRanks(
                                 [&](std::int64_t u) {
                                     const std::int64_t j = step == 1 ? g * count + u : g + u * step;
                                     return i + t * (j % c + c * (s + p * (j / c)));
                                 },
                                 count, gpusPerNode));
    }
    return worst;
}

/// Groups of `count` of a stage's data x context ranks for one tensor index, `step` data ranks apart: the
/// whole data group (count d x c, step 1), HSDP's shard groups (consecutive ranks) or its replica groups (one
/// rank of each shard group, step = the shard group's size). Context sits inside data in the rank order, so
/// the data x context ranks of one tensor index are t apart.
GroupSpan dataSubgroupSpan(const ParallelConfig &parallel, std::int64_t gpusPerNode, std::int64_t count,
                           std::int64_t step)
{
    const std::int64_t t = std::max<std::int64_t>(1, parallel.tensor);
    const std::int64_t dc = std::max<std::int64_t>(1, parallel.data) * std::max<std::int64_t>(1, parallel.context);
    const std::int64_t perStage = std::max<std::int64_t>(1, dc / count); // groups per tensor index and stage
    const std::int64_t groups = t * perStage * std::max<std::int64_t>(1, parallel.pipeline);
    if (gpusPerNode < 1)
        return {count, count, 1};
    if (parallel.rankOrder == RankOrder::StagesInside)
        return dataSubgroupSpanStagesInside(parallel, gpusPerNode, count, step);
    // Group k: tensor index k % t, group j = (k / t) % perStage of stage k / (t perStage); its first data rank
    // is j x count when its ranks are consecutive, j when they are strided.
    return worstSpan(
        groups,
        [t, dc, count, step, perStage](std::int64_t k) {
            const std::int64_t j = (k / t) % perStage;
            return (k / (t * perStage)) * t * dc + (step == 1 ? j * count : j) * t + k % t;
        },
        t * step, count, gpusPerNode);
}

} // namespace

GroupSpan dataGroupSpan(const ParallelConfig &parallel, std::int64_t gpusPerNode)
{
    return dataSubgroupSpan(parallel, gpusPerNode,
                            std::max<std::int64_t>(1, parallel.data) * std::max<std::int64_t>(1, parallel.context), 1);
}

GroupSpan shardGroupSpan(const ParallelConfig &parallel, std::int64_t gpusPerNode)
{
    return dataSubgroupSpan(parallel, gpusPerNode, parallel.shardRanks(), 1);
}

GroupSpan hpzGroupSpan(const ParallelConfig &parallel, std::int64_t ranks, std::int64_t gpusPerNode)
{
    return dataSubgroupSpan(parallel, gpusPerNode, ranks, 1);
}

GroupSpan replicaGroupSpan(const ParallelConfig &parallel, std::int64_t gpusPerNode)
{
    return dataSubgroupSpan(parallel, gpusPerNode, parallel.shardReplicas(), parallel.shardRanks());
}

GroupSpan stageGroupSpan(const ParallelConfig &parallel, std::int64_t gpusPerNode)
{
    const std::int64_t tc = std::max<std::int64_t>(1, parallel.tensor) * std::max<std::int64_t>(1, parallel.context);
    const std::int64_t n = tc * std::max<std::int64_t>(1, parallel.data);
    const std::int64_t p = std::max<std::int64_t>(1, parallel.pipeline);
    if (gpusPerNode < 1)
        return {n, n, 1};
    if (parallel.rankOrder == RankOrder::StagesInside) { // a stage's tensor x context block in every replica
        GroupSpan worst{n, 1, n};
        const std::int64_t looked = irregularGroupsLooked(p, n);
        for (std::int64_t k = 0; k < looked; ++k) {
            const std::int64_t s = sampledGroup(k, looked, p);
            worst = worse(worst, spanOfRanks([&](std::int64_t u) { return u % tc + tc * (s + p * (u / tc)); }, n,
                                             gpusPerNode));
        }
        return worst;
    }
    return worstSpan(p, [n](std::int64_t k) { return k * n; }, 1, n, gpusPerNode);
}

PipelineSpan pipelineSpan(const ParallelConfig &parallel, std::int64_t gpusPerNode)
{
    PipelineSpan span;
    const std::int64_t p = std::max<std::int64_t>(1, parallel.pipeline);
    const std::int64_t tc = std::max<std::int64_t>(1, parallel.tensor) * std::max<std::int64_t>(1, parallel.context);
    const bool inside = parallel.rankOrder == RankOrder::StagesInside;
    // The ranks of a stage that sit together: the whole stage (tensor x context x data), or with the stages
    // inside the replicas one replica's tensor x context block, the next stage's block right after it.
    const std::int64_t stage = inside ? tc : tc * std::max<std::int64_t>(1, parallel.data);
    const std::int64_t replicas = inside ? std::max<std::int64_t>(1, parallel.data) : 1;
    span.boundaries = p - 1;
    if (gpusPerNode < 1)
        return span;
    // Boundary s -> s + 1: rank i of stage s and rank i of stage s + 1 (every i, in every replica); count the
    // boundaries where any such pair sits on different nodes. The layout repeats every node, so replicas
    // beyond a node's worth add no new offset.
    for (std::int64_t s = 0; s + 1 < p; ++s) {
        bool across = stage >= gpusPerNode;
        for (std::int64_t r = 0; r < std::min(replicas, gpusPerNode + 1) && !across; ++r) {
            const std::int64_t first = s * stage + r * p * stage;
            across = nodeOf(first, gpusPerNode) != nodeOf(first + 2 * stage - 1, gpusPerNode);
        }
        span.boundariesAcrossNodes += across ? 1 : 0;
    }
    span.stagesMisaligned = p > 1 && stage % gpusPerNode != 0 && gpusPerNode % stage != 0;
    return span;
}

} // namespace trainplan
