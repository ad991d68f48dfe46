#include "core/plan/Plan.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace trainplan {

bool isSixteenBitStorage(Precision p)
{
    return p == Precision::FP16 || p == Precision::BF16 || p == Precision::FP8;
}

std::int64_t ClusterConfig::gpus() const
{
    if (nodeGroups.empty())
        return gpusPerNode * nodes;
    std::int64_t total = 0;
    for (const NodeGroup &g : nodeGroups)
        total += g.gpusPerNode * g.nodes;
    return total;
}

std::vector<NodeGroup> ClusterConfig::groups() const
{
    if (!nodeGroups.empty())
        return nodeGroups;
    return {NodeGroup{std::string(), device, gpusPerNode, nodes, intraNodeLink}};
}

void ClusterConfig::setGroups(std::vector<NodeGroup> groups)
{
    if (groups.empty())
        return; // a cluster has at least one node group; callers refuse to remove the last
    device = groups.front().device;
    gpusPerNode = groups.front().gpusPerNode;
    intraNodeLink = groups.front().intraNodeLink;
    nodes = 0;
    for (const NodeGroup &g : groups)
        nodes += g.nodes;
    if (groups.size() == 1 && groups.front().templateName.empty())
        groups.clear();
    nodeGroups = std::move(groups);
}

bool ClusterConfig::isMixed() const
{
    for (const NodeGroup &g : nodeGroups)
        if (g.device != device || g.intraNodeLink != intraNodeLink || g.gpusPerNode != gpusPerNode)
            return true;
    return false;
}

void ClusterConfig::setDevice(const std::string &id)
{
    device = id;
    for (NodeGroup &g : nodeGroups)
        g.device = id;
}

void ClusterConfig::setGpusPerNode(std::int64_t gpus)
{
    gpusPerNode = gpus;
    for (NodeGroup &g : nodeGroups)
        g.gpusPerNode = gpus;
}

void ClusterConfig::setNodes(std::int64_t count)
{
    if (nodeGroups.empty()) {
        nodes = count;
        return;
    }
    std::vector<NodeGroup> groups = nodeGroups;
    const std::int64_t others = nodes - groups.back().nodes;
    groups.back().nodes = std::max<std::int64_t>(1, count - others);
    setGroups(std::move(groups));
}

void deriveDataParallel(Plan &plan)
{
    // In doubles: the sizes may be anything up to 2^53 before validation.
    const double gpus = double(plan.cluster.gpusPerNode) * double(plan.cluster.nodes);
    const double split = double(plan.parallel.tensor) * double(plan.parallel.pipeline);
    if (plan.cluster.gpusPerNode > 0 && plan.cluster.nodes > 0 && split > 0 && gpus <= double(std::int64_t(1) << 40)
        && std::fmod(gpus, split) == 0.0)
        plan.parallel.data = std::int64_t(gpus / split);
}

std::int64_t Plan::microbatches() const
{
    const std::int64_t perStep = training.microBatch * parallel.data;
    return perStep > 0 ? training.globalBatch / perStep : 0;
}

std::int64_t Plan::layersPerStage() const
{
    return parallel.pipeline > 0 ? model.layers / parallel.pipeline : 0;
}

} // namespace trainplan
