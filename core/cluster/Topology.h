#pragma once
// Where ranks land in the cluster: devices and links of each node group, Megatron-Core's rank order
// (tensor innermost, then context, then data, then pipeline; Narayanan et al. 2021 Sec. 3 and
// Megatron-Core's parallel_state "tp-cp-ep-dp-pp" order; or with parallel.rank_order "tp-cp-ep-pp-dp",
// Megatron-LM's --use-tp-pp-dp-mapping, the stages inside each data replica) and how many nodes each kind of
// parallel group spans.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/hardware/Catalog.h"
#include "core/plan/Plan.h"

namespace trainplan {

/// The device a node group runs, with the group's intra-node link and the cluster's network tier in
/// place of the device's own link figures (plan overrides still win later, in clusterLinks()).
/// Empty when the device is unknown.
std::optional<DeviceSpec> resolvedDevice(const ClusterConfig &cluster, const Catalog &catalog, const NodeGroup &group);

/// Display names of the links: the catalog's name, or "<device> scale-up link" / "<device> network"
/// for a device's own figures.
std::string intraNodeLinkName(const Catalog &catalog, const NodeGroup &group, const DeviceSpec &device);
std::string networkName(const ClusterConfig &cluster, const Catalog &catalog, const DeviceSpec &device);

/// A rank's position in the four parallel dimensions.
struct RankCoordinates
{
    std::int64_t tensor = 0;
    std::int64_t data = 0;
    std::int64_t stage = 0;
    std::int64_t context = 0;
};
RankCoordinates coordinatesOf(const ParallelConfig &parallel, std::int64_t rank);

/// The kinds of group a rank belongs to, as the span functions below place them.
enum class GroupKind
{
    Tensor,   ///< tensor-parallel group: `tensor` adjacent ranks (tensorGroupSpan)
    Context,  ///< context-parallel group: `context` ranks of one tensor index, `tensor` apart (contextGroupSpan)
    Replica,  ///< data-parallel replica: every rank of one data index, a whole copy of the model
    Gradient, ///< gradient-reduction group: data x context ranks of one tensor index and stage (dataGroupSpan)
    Stage,    ///< pipeline stage: tensor x context x data ranks, adjacent in the default order (stageGroupSpan)
    Expert,   ///< expert-parallel (all-to-all) group: `expert` ranks, expert_tensor apart (expertGroupSpan)
};
/// The index of the group of `kind` that `rank` is in, in [0, groupCount(kind)): the one place the rank
/// order is turned into groups (the cluster builder colours by it; the span functions place the same groups).
std::int64_t groupOf(GroupKind kind, const ParallelConfig &parallel, std::int64_t rank);
/// How many groups of `kind` the layout has, from the parallel sizes.
std::int64_t groupCount(GroupKind kind, const ParallelConfig &parallel);

/// How the groups of one kind sit on nodes of `gpusPerNode`: the worst group decides.
struct GroupSpan
{
    std::int64_t size = 1;          ///< ranks per group
    std::int64_t nodesSpanned = 1;  ///< most nodes one group touches
    std::int64_t minPerNode = 1;    ///< fewest of a group's ranks in one node (the worst group)
    bool crossesNodes() const { return nodesSpanned > 1; }
};
GroupSpan tensorGroupSpan(const ParallelConfig &parallel, std::int64_t gpusPerNode);
/// Whether node `node` (of `gpusPerNode` GPUs) hosts part of a tensor-parallel group that spans nodes.
bool nodeHostsTensorGroupAcrossNodes(const ParallelConfig &parallel, std::int64_t gpusPerNode, std::int64_t node);
/// The gradient-reduction group: data x context ranks of one tensor index and stage (Megatron-Core
/// reduces gradients and shards the distributed optimizer over data and context together).
GroupSpan dataGroupSpan(const ParallelConfig &parallel, std::int64_t gpusPerNode);
/// Hybrid sharding (parallel.shard_group): one shard group (consecutive data ranks of a tensor index and
/// stage) and one replica group (a rank of each shard group); without it the data group and a single rank.
GroupSpan shardGroupSpan(const ParallelConfig &parallel, std::int64_t gpusPerNode);
/// ZeRO++ hpZ's secondary group: `ranks` consecutive ranks of the shard group (Plan::secondaryGroupRanks).
GroupSpan hpzGroupSpan(const ParallelConfig &parallel, std::int64_t ranks, std::int64_t gpusPerNode);
GroupSpan replicaGroupSpan(const ParallelConfig &parallel, std::int64_t gpusPerNode);
/// All tensor x context x data ranks of one pipeline stage, adjacent in the rank order (Transformer Engine's
/// FP8 amax-reduction group in Megatron-Core).
GroupSpan stageGroupSpan(const ParallelConfig &parallel, std::int64_t gpusPerNode);
/// The context-parallel group: `context` ranks of one tensor index, `tensor` apart.
GroupSpan contextGroupSpan(const ParallelConfig &parallel, std::int64_t gpusPerNode);
/// The expert-tensor-parallel group: expert_tensor adjacent ranks (innermost in Megatron-Core's expert rank order).
GroupSpan expertTensorGroupSpan(const ParallelConfig &parallel, std::int64_t gpusPerNode);
/// The expert-parallel group (the all-to-all's): `expert` ranks of one expert-tensor index, expert_tensor
/// apart (Megatron-Core's expert rank order: expert tensor, expert, expert data, pipeline).
GroupSpan expertGroupSpan(const ParallelConfig &parallel, std::int64_t gpusPerNode);
/// The expert-data-parallel group (the routed experts' gradient reduction and ZeRO sharding): the ranks of a
/// stage holding the same expert shard, expert x expert_tensor apart, so that with expert groups of a node or
/// more each node holds one rank of it.
GroupSpan expertDataGroupSpan(const ParallelConfig &parallel, std::int64_t gpusPerNode);

/// Pipeline neighbours: how many of the p - 1 stage boundaries put the two stages' ranks on different
/// nodes, and whether some stage starts or ends inside a node it shares with another stage in a way that
/// makes its groups straddle nodes.
struct PipelineSpan
{
    std::int64_t boundaries = 0;        ///< p - 1
    std::int64_t boundariesAcrossNodes = 0;
    bool stagesMisaligned = false;       ///< a stage's GPUs neither fill whole nodes nor tile one node
};
PipelineSpan pipelineSpan(const ParallelConfig &parallel, std::int64_t gpusPerNode);

} // namespace trainplan
