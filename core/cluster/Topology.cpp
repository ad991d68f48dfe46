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

/// Worst span of groups [first(k), ...] for k in [0, groups): the layout repeats with period
/// gpusPerNode, so at most that many groups are looked at.
template<typename First>
GroupSpan worstSpan(std::int64_t groups, First first, std::int64_t stride, std::int64_t count, std::int64_t gpusPerNode)
{
    GroupSpan worst;
    worst.size = count;
    worst.minPerNode = count;
    const std::int64_t limit = std::min(groups, std::max<std::int64_t>(1, gpusPerNode) + 1);
    for (std::int64_t k = 0; k < limit; ++k) {
        const GroupSpan s = spanOf(first(k), stride, count, gpusPerNode);
        if (s.nodesSpanned > worst.nodesSpanned ||
            (s.nodesSpanned == worst.nodesSpanned && s.minPerNode < worst.minPerNode))
            worst = s;
    }
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
    // Group k: shard k % shards of stage k / shards; its ranks are `shards` apart.
    return worstSpan(
        groups, [shards, n](std::int64_t k) { return (k / shards) * n + k % shards; }, shards, size, gpusPerNode);
}

namespace {

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
    const std::int64_t n = std::max<std::int64_t>(1, parallel.tensor) * std::max<std::int64_t>(1, parallel.data)
                           * std::max<std::int64_t>(1, parallel.context);
    if (gpusPerNode < 1)
        return {n, n, 1};
    return worstSpan(
        std::max<std::int64_t>(1, parallel.pipeline), [n](std::int64_t k) { return k * n; }, 1, n, gpusPerNode);
}

PipelineSpan pipelineSpan(const ParallelConfig &parallel, std::int64_t gpusPerNode)
{
    PipelineSpan span;
    const std::int64_t p = std::max<std::int64_t>(1, parallel.pipeline);
    const std::int64_t stage = std::max<std::int64_t>(1, parallel.tensor) * std::max<std::int64_t>(1, parallel.data)
                               * std::max<std::int64_t>(1, parallel.context);
    span.boundaries = p - 1;
    if (gpusPerNode < 1)
        return span;
    // Boundary s -> s + 1: rank i of stage s and rank i of stage s + 1 (every i); count the boundaries
    // where any such pair sits on different nodes.
    for (std::int64_t s = 0; s + 1 < p; ++s) {
        const std::int64_t first = s * stage;
        const bool across =
            stage >= gpusPerNode || nodeOf(first, gpusPerNode) != nodeOf(first + 2 * stage - 1, gpusPerNode);
        span.boundariesAcrossNodes += across ? 1 : 0;
    }
    span.stagesMisaligned = p > 1 && stage % gpusPerNode != 0 && gpusPerNode % stage != 0;
    return span;
}

} // namespace trainplan
