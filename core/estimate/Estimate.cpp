#include "core/estimate/Estimate.h"

#include <algorithm>

#include "core/cluster/Topology.h"
#include "core/common/Units.h"
#include "core/plan/PlanValidation.h"

namespace trainplan {

namespace {

std::string percent(double fraction) { return units::formatNumber(100.0 * fraction, 0) + "%"; }

GroupLanding landing(const GroupSpan &span, std::int64_t groups, const GroupPlacement &placement,
                     const std::string &intraName, const std::string &networkName)
{
    GroupLanding l;
    l.size = span.size;
    l.groups = groups;
    l.nodesSpanned = span.nodesSpanned;
    l.crossesNodes = span.crossesNodes();
    const LinkTier &tier = l.crossesNodes ? placement.network : placement.intraNode;
    l.link = l.crossesNodes ? networkName : intraName;
    l.bandwidthBytesPerSecond = tier.bandwidthBytesPerSecond;
    l.latencySeconds = tier.latencySeconds;
    return l;
}

/// Which link each kind of group uses, and what a user should change.
PlacementReport placementReport(const Plan &plan, const Catalog &catalog, const DeviceSpec &device,
                                const NodeGroup &group, const MemoryEstimate &memory, const StepEstimate &step,
                                bool simulatePipeline)
{
    const ParallelConfig &par = plan.parallel;
    const std::int64_t G = plan.cluster.gpusPerNode;
    const ClusterLinks links = clusterLinks(plan, device);
    const std::string intraName = G > 1 ? intraNodeLinkName(catalog, group, device) : networkName(plan.cluster, catalog, device);
    const std::string netName = networkName(plan.cluster, catalog, device);

    PlacementReport r;
    const GroupSpan tensor = tensorGroupSpan(par, G);
    const GroupSpan data = dataGroupSpan(par, G);
    const PipelineSpan pipe = pipelineSpan(par, G);
    r.tensor = landing(tensor, par.data * par.pipeline, links.tensorGroup, intraName, netName);
    r.data = landing(data, par.tensor * par.pipeline, links.dataGroup, intraName, netName);
    r.pipeline.size = par.pipeline > 1 ? 2 : 1;
    r.pipeline.groups = par.pipeline - 1;
    r.pipeline.crossesNodes = pipe.boundariesAcrossNodes > 0;
    r.pipeline.nodesSpanned = r.pipeline.crossesNodes ? 2 : 1;
    r.pipeline.link = r.pipeline.crossesNodes ? netName : intraName;
    r.pipeline.bandwidthBytesPerSecond = links.pipelineLink.bandwidthBytesPerSecond;
    r.pipeline.latencySeconds = links.pipelineLink.latencySeconds;
    r.pipelineBoundariesAcrossNodes = pipe.boundariesAcrossNodes;
    r.stagesMisaligned = pipe.stagesMisaligned;

    if (tensor.crossesNodes() && par.tensor > 1) {
        const StepEstimate within = estimateStep(plan, device, memory, simulatePipeline, true);
        r.tensorAcrossNodesSeconds = std::max(0.0, step.stepSeconds - within.stepSeconds);
        const double share = step.stepSeconds > 0 ? step.category(TimeCategory::TensorComm) / step.stepSeconds : 0.0;
        const std::string where = par.tensor > G ? "tensor-parallel groups of " + std::to_string(par.tensor) + " span "
                                                       + std::to_string(tensor.nodesSpanned) + " nodes of " + std::to_string(G)
                                                       + " GPUs"
                                                 : "tensor " + std::to_string(par.tensor) + " does not divide the "
                                                       + std::to_string(G) + " GPUs of a node, so some tensor-parallel "
                                                         "groups straddle two nodes";
        r.flags.push_back({Severity::Warning, "parallel.tensor",
                           where + ": their collectives run over " + netName + " (" + percent(share)
                               + " of the step is tensor-parallel communication); that costs "
                               + units::formatDuration(r.tensorAcrossNodesSeconds) + " per step ("
                               + percent(step.stepSeconds > 0 ? r.tensorAcrossNodesSeconds / step.stepSeconds : 0.0)
                               + ") against keeping each group inside a node on " + intraName});
    }
    if (pipe.stagesMisaligned) {
        const std::int64_t stageGpus = par.tensor * par.data;
        r.flags.push_back({Severity::Warning, "parallel.pipeline",
                           "pipeline stages of " + std::to_string(stageGpus) + " GPUs (tensor x data) do not line up with "
                               + std::to_string(G) + "-GPU nodes: stage 0 ends inside node "
                               + std::to_string((stageGpus - 1) / G) + ", so stages share nodes and "
                               + (data.crossesNodes() ? "data-parallel groups straddle nodes" : "stage boundaries fall inside nodes")
                               + "; choose a pipeline size that gives each stage whole nodes or a divisor of a node"});
    }
    return r;
}

/// Node indices [first, last] the ranks of pipeline stage `s` occupy.
std::pair<std::int64_t, std::int64_t> stageNodes(const Plan &plan, std::int64_t s)
{
    const std::int64_t stageGpus = plan.parallel.tensor * plan.parallel.data;
    const std::int64_t G = plan.cluster.gpusPerNode;
    return {s * stageGpus / G, ((s + 1) * stageGpus - 1) / G};
}

struct GroupRun
{
    NodeGroup group;
    DeviceSpec device;
    MemoryEstimate memory;
    StepEstimate step;
    Plan plan; ///< the plan as if the whole cluster were this group's kind of node
};

} // namespace

Estimate estimate(const Plan &plan, const Catalog &catalog, const EstimateOptions &options)
{
    Estimate e;
    e.problems = validatePlan(plan, catalog);
    if (hasErrors(e.problems))
        return e;
    e.valid = true;
    e.model.parameters = totalParameters(plan.model);
    e.model.parametersPerLayer = layerParameters(plan.model).total();
    e.model.microbatches = plan.microbatches();
    e.model.gpus = plan.cluster.gpus();

    // One run per distinct (device, intra-node link) of the node groups.
    const std::vector<NodeGroup> groups = plan.cluster.groups();
    std::vector<GroupRun> runs;
    std::vector<std::size_t> runOfGroup;
    for (const NodeGroup &g : groups) {
        auto it = std::find_if(runs.begin(), runs.end(), [&](const GroupRun &r) {
            return r.group.device == g.device && r.group.intraNodeLink == g.intraNodeLink;
        });
        if (it == runs.end()) {
            GroupRun run{g, *resolvedDevice(plan.cluster, catalog, g), {}, {}, plan};
            run.plan.cluster.device = g.device;
            run.plan.cluster.intraNodeLink = g.intraNodeLink;
            run.plan.cluster.nodeGroups.clear();
            run.memory = estimateMemory(run.plan, run.device);
            run.step = estimateStep(run.plan, run.device, run.memory, options.simulatePipeline);
            runs.push_back(std::move(run));
            it = runs.end() - 1;
        }
        runOfGroup.push_back(std::size_t(it - runs.begin()));
    }

    std::size_t pace = 0;
    for (std::size_t i = 1; i < runs.size(); ++i)
        if (runs[i].step.stepSeconds > runs[pace].step.stepSeconds)
            pace = i;
    GroupRun &paced = runs[pace];
    e.device = paced.device;
    e.memory = paced.memory;
    e.step = paced.step;

    if (runs.size() > 1) {
        // Each stage's memory on the node group holding it with the least headroom.
        std::vector<std::int64_t> firstNode(groups.size(), 0);
        for (std::size_t i = 1; i < groups.size(); ++i)
            firstNode[i] = firstNode[i - 1] + groups[i - 1].nodes;
        std::vector<bool> groupFits(groups.size(), true);
        MemoryEstimate &mem = e.memory;
        mem.capacityBytes = paced.device.memoryBytes;
        mem.fits = true;
        double worstHeadroom = 0;
        for (std::size_t s = 0; s < mem.stages.size(); ++s) {
            const auto [lo, hi] = stageNodes(plan, std::int64_t(s));
            bool first = true;
            for (std::size_t gi = 0; gi < groups.size(); ++gi) {
                if (firstNode[gi] > hi || firstNode[gi] + groups[gi].nodes - 1 < lo)
                    continue;
                const StageMemory &candidate = runs[runOfGroup[gi]].memory.stages[s];
                const bool fitsHere = candidate.peakBytes <= candidate.capacityBytes;
                groupFits[gi] = groupFits[gi] && fitsHere;
                const StageMemory &current = mem.stages[s];
                if (first || candidate.capacityBytes - candidate.peakBytes < current.capacityBytes - current.peakBytes)
                    mem.stages[s] = candidate;
                first = false;
            }
            const StageMemory &st = mem.stages[s];
            mem.capacityBytes = std::min(mem.capacityBytes, st.capacityBytes);
            mem.fits = mem.fits && st.peakBytes <= st.capacityBytes;
            const double headroom = st.capacityBytes - st.peakBytes;
            if (s == 0 || headroom < worstHeadroom) {
                worstHeadroom = headroom;
                mem.peakStage = std::int64_t(s);
            }
        }
        mem.peakBytes = 0;
        for (const StageMemory &st : mem.stages)
            mem.peakBytes = std::max(mem.peakBytes, st.peakBytes);
        if (!mem.fits && paced.memory.fits) { // capacity now limits: recompute the evidence on the paced run
            e.step.bottleneck = Bottleneck::Capacity;
            e.step.bottleneckEvidence = capacityEvidence(mem.stages[std::size_t(mem.peakStage)]);
        }
        std::string names;
        for (std::size_t gi = 0; gi < groups.size(); ++gi) {
            const GroupRun &run = runs[runOfGroup[gi]];
            NodeGroupEstimate g;
            g.device = run.device.id;
            g.deviceName = run.device.name;
            g.intraNodeLink = intraNodeLinkName(catalog, groups[gi], run.device);
            g.firstNode = firstNode[gi];
            g.nodes = groups[gi].nodes;
            g.stepSeconds = run.step.stepSeconds;
            g.paces = runOfGroup[gi] == pace;
            g.fits = groupFits[gi];
            e.nodeGroups.push_back(g);
        }
        for (std::size_t i = 0; i < runs.size(); ++i)
            names += (i ? ", " : "") + runs[i].device.name + " (" + units::formatDuration(runs[i].step.stepSeconds) + ")";
        e.problems.push_back({Severity::Warning, "cluster.node_groups",
                              "mixed cluster: " + names + ". Every rank waits for the slowest at each synchronisation, so "
                                  + paced.device.name + " sets the step time; memory is checked per stage on the devices "
                                                        "that hold it (not averaged)"});
    }

    e.placement = placementReport(paced.plan, catalog, paced.device, paced.group, paced.memory, paced.step,
                                  options.simulatePipeline);
    e.problems.insert(e.problems.end(), e.placement.flags.begin(), e.placement.flags.end());
    e.run = estimateRun(plan, paced.device, e.memory, e.step);
    if (options.scaling)
        e.scaling = scalingCurves(paced.plan, paced.device);
    return e;
}

} // namespace trainplan
