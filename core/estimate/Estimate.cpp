#include "core/estimate/Estimate.h"

#include <algorithm>

#include "core/cluster/Topology.h"
#include "core/common/Units.h"
#include "core/plan/PlanValidation.h"

namespace trainplan {

namespace {

GroupLanding landing(const GroupSpan &span, std::int64_t groups, const GroupPlacement &placement,
                     const std::string &intraName, const std::string &networkName, const ClusterLinks &links)
{
    GroupLanding l;
    l.size = span.size;
    l.groups = groups;
    l.nodesSpanned = span.nodesSpanned;
    l.crossesNodes = span.crossesNodes();
    const LinkTier &tier = l.crossesNodes ? placement.network : placement.intraNode;
    l.link = l.crossesNodes ? networkName : intraName;
    l.bandwidthBytesPerSecond = tier.bandwidthBytesPerSecond;
    l.nominalBandwidthBytesPerSecond = links.nominalBytesPerSecond(l.crossesNodes);
    l.latencySeconds = tier.latencySeconds;
    return l;
}

/// Which link each kind of group uses, and what a user should change.
PlacementReport placementReport(const Plan &plan, const Catalog &catalog, const DeviceSpec &device,
                                const NodeGroup &group, const MemoryEstimate &memory, const StepEstimate &step,
                                bool simulatePipeline)
{
    const ParallelConfig &par = plan.parallel;
    const std::int64_t G = plan.cluster.fabricGpus(); // a node, or a scale-up domain of several
    const ClusterLinks links = clusterLinks(plan, device);
    const std::string intraName =
        G > 1 ? intraNodeLinkName(catalog, group, device) : networkName(plan.cluster, catalog, device);
    const std::string netName = networkName(plan.cluster, catalog, device);

    PlacementReport r;
    const GroupSpan tensor = tensorGroupSpan(par, G);
    const GroupSpan data = dataGroupSpan(par, G);
    const PipelineSpan pipe = pipelineSpan(par, G);
    r.tensor = landing(tensor, par.data * par.pipeline * par.context, links.tensorGroup, intraName, netName, links);
    r.data = landing(data, par.tensor * par.pipeline, links.dataGroup, intraName, netName, links);
    r.context = landing(contextGroupSpan(par, G), par.tensor * par.data * par.pipeline, links.contextGroup, intraName,
                        netName, links);
    if (plan.model.isMoe())
        r.expert = landing(expertGroupSpan(par, expertDispatchDomain(plan)),
                           par.data * par.context * par.tensor * par.pipeline / std::max<std::int64_t>(1, par.expert),
                           links.expertGroup, intraName, netName, links);
    if (plan.model.isMoe() && par.expertDataSize() > 1)
        r.expertData = landing(expertDataGroupSpan(par, G), par.expertShards() * par.pipeline, links.expertDataGroup,
                               intraName, netName, links);
    if (plan.model.isMoe() && isFlexDispatcher(par.expertDispatcher) && r.expert.crossesNodes) // its rate: clusterLinks
        r.expert.link += par.expertDispatcher == ExpertDispatcher::DeepEp ? " via DeepEP" : " via HybridEP";
    r.pipeline.size = par.pipeline > 1 ? 2 : 1;
    r.pipeline.groups = par.pipeline - 1;
    r.pipeline.crossesNodes = pipe.boundariesAcrossNodes > 0;
    r.pipeline.nodesSpanned = r.pipeline.crossesNodes ? 2 : 1;
    r.pipeline.link = r.pipeline.crossesNodes ? netName : intraName;
    r.pipeline.bandwidthBytesPerSecond = links.pipelineLink.bandwidthBytesPerSecond;
    r.pipeline.nominalBandwidthBytesPerSecond = links.nominalBytesPerSecond(r.pipeline.crossesNodes);
    r.pipeline.latencySeconds = links.pipelineLink.latencySeconds;
    r.pipelineBoundariesAcrossNodes = pipe.boundariesAcrossNodes;
    r.stagesMisaligned = pipe.stagesMisaligned;

    if (tensor.crossesNodes() && par.tensor > 1) {
        const StepEstimate within = estimateStep(plan, device, memory, simulatePipeline, true);
        r.tensorAcrossNodesSeconds = std::max(0.0, step.stepSeconds - within.stepSeconds);
        PlacementFlag f;
        f.kind = PlacementFlag::Kind::TensorAcrossNodes;
        f.key = "parallel.tensor";
        f.tensor = par.tensor;
        f.gpusPerNode = G;
        f.nodesSpanned = tensor.nodesSpanned;
        f.commShare = step.stepSeconds > 0 ? step.category(TimeCategory::TensorComm) / step.stepSeconds : 0.0;
        f.costSeconds = r.tensorAcrossNodesSeconds;
        f.costShare = step.stepSeconds > 0 ? r.tensorAcrossNodesSeconds / step.stepSeconds : 0.0;
        f.network = netName;
        f.intraNodeLink = intraName;
        r.flags.push_back(f);
    }
    if (pipe.stagesMisaligned) {
        PlacementFlag f;
        f.kind = PlacementFlag::Kind::StagesMisaligned;
        f.key = "parallel.pipeline";
        f.gpusPerNode = G;
        f.stageGpus = par.tensor * par.data * par.context;
        f.firstStageEndNode = (f.stageGpus - 1) / G;
        f.dataCrossesNodes = data.crossesNodes();
        r.flags.push_back(f);
    }
    return r;
}

/// The placement the search reads: each group's size and whether it crosses a node (or scale-up domain).
PlacementReport placementSpans(const Plan &plan)
{
    const ParallelConfig &par = plan.parallel;
    const std::int64_t G = plan.cluster.fabricGpus();
    const auto span = [](const GroupSpan &g) {
        GroupLanding l;
        l.size = g.size;
        l.nodesSpanned = g.nodesSpanned;
        l.crossesNodes = g.crossesNodes();
        return l;
    };
    PlacementReport r;
    r.tensor = span(tensorGroupSpan(par, G));
    r.data = span(dataGroupSpan(par, G));
    r.context = span(contextGroupSpan(par, G));
    if (plan.model.isMoe())
        r.expert = span(expertGroupSpan(par, expertDispatchDomain(plan)));
    return r;
}

/// Node indices [first, last] the ranks of pipeline stage `s` occupy.
std::pair<std::int64_t, std::int64_t> stageNodes(const Plan &plan, std::int64_t s)
{
    const std::int64_t stageGpus = plan.parallel.tensor * plan.parallel.data * plan.parallel.context;
    const std::int64_t G = plan.cluster.gpusPerNode;
    return {s * stageGpus / G, ((s + 1) * stageGpus - 1) / G};
}

struct GroupRun
{
    NodeGroup group;
    DeviceSpec device;
    MemoryEstimate memory;
    StepEstimate step;
    std::optional<Plan> own; ///< a mixed cluster's plan as if the whole cluster were this group's kind of node
    const Plan *plan = nullptr; ///< that plan, or the estimated plan itself on one kind of node
};

/// One run per distinct (device, intra-node link) of the node groups, and the run of each group.
struct Runs
{
    std::vector<NodeGroup> groups;
    std::vector<GroupRun> runs;
    std::vector<std::size_t> runOfGroup;
    std::size_t pace = 0; ///< the slowest run: it sets the step time
    bool memoryOnly = false; ///< EstimateOptions::memoryOnlyWhenOverCapacity took its shortcut
};

Runs estimateRuns(const Plan &plan, const Catalog &catalog, const EstimateOptions &options)
{
    Runs r;
    r.groups = plan.cluster.groups();
    r.runs.reserve(r.groups.size()); // a run's plan may point into the run itself: the runs never move
    for (const NodeGroup &g : r.groups) {
        auto it = std::find_if(r.runs.begin(), r.runs.end(), [&](const GroupRun &run) {
            return run.group.device == g.device && run.group.intraNodeLink == g.intraNodeLink;
        });
        if (it == r.runs.end()) {
            GroupRun &run = r.runs.emplace_back();
            run.group = g;
            run.device = *resolvedDevice(plan.cluster, catalog, g);
            run.plan = &plan;
            if (!plan.cluster.nodeGroups.empty()) { // no copy on one kind of node: the search estimates by the million
                Plan &own = run.own.emplace(plan);
                own.cluster.device = g.device;
                own.cluster.intraNodeLink = g.intraNodeLink;
                own.cluster.nodeGroups.clear();
                run.plan = &own;
            }
            run.memory = estimateMemory(*run.plan, run.device);
            if (options.memoryOnlyWhenOverCapacity && r.groups.size() == 1 && !run.memory.fits) {
                r.runOfGroup.push_back(0);
                r.memoryOnly = true;
                return r;
            }
            run.step = estimateStep(*run.plan, run.device, run.memory, options.simulatePipeline);
            it = r.runs.end() - 1;
        }
        r.runOfGroup.push_back(std::size_t(it - r.runs.begin()));
    }
    for (std::size_t i = 1; i < r.runs.size(); ++i)
        if (r.runs[i].step.stepSeconds > r.runs[r.pace].step.stepSeconds)
            r.pace = i;
    return r;
}

/// A mixed cluster: each stage's memory on the node group holding it with the least headroom; where each
/// group starts and whether it fits the stages it hosts.
void checkMixedMemory(const Plan &plan, const Runs &r, Estimate &e)
{
    const std::vector<NodeGroup> &groups = r.groups;
    std::vector<std::int64_t> firstNode(groups.size(), 0);
    for (std::size_t i = 1; i < groups.size(); ++i)
        firstNode[i] = firstNode[i - 1] + groups[i - 1].nodes;
    std::vector<bool> groupFits(groups.size(), true);
    MemoryEstimate &mem = e.memory;
    mem.capacityBytes = r.runs[r.pace].device.memoryBytes;
    mem.fits = true;
    double worstHeadroom = 0;
    for (std::size_t s = 0; s < mem.stages.size(); ++s) {
        const auto [lo, hi] = stageNodes(plan, std::int64_t(s));
        bool first = true;
        for (std::size_t gi = 0; gi < groups.size(); ++gi) {
            if (firstNode[gi] > hi || firstNode[gi] + groups[gi].nodes - 1 < lo)
                continue;
            const StageMemory &candidate = r.runs[r.runOfGroup[gi]].memory.stages[s];
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
    if (!mem.fits && r.runs[r.pace].memory.fits) { // capacity now limits: the evidence on the paced run
        e.step.bottleneck = Bottleneck::Capacity;
        e.step.evidence = capacityEvidence(mem.stages[std::size_t(mem.peakStage)]);
    }
    e.nodeGroups.resize(groups.size());
    for (std::size_t gi = 0; gi < groups.size(); ++gi) {
        e.nodeGroups[gi].firstNode = firstNode[gi];
        e.nodeGroups[gi].fits = groupFits[gi];
    }
}

/// A mixed cluster's MFU and HFU count the peak of every GPU, not only the pacing one; the faster groups
/// wait for the slowest one for the rest of each step (their idle share).
void mixedUtilisation(const Plan &plan, const Runs &r, Estimate &e)
{
    const Precision precision = plan.training.precision;
    double peakSum = 0, idleGpuSeconds = 0;
    for (std::size_t gi = 0; gi < r.groups.size(); ++gi) {
        const GroupRun &run = r.runs[r.runOfGroup[gi]];
        const double gpus = double(r.groups[gi].nodes * plan.cluster.gpusPerNode);
        NodeGroupEstimate &g = e.nodeGroups[gi];
        g.gpus = std::int64_t(gpus);
        g.peakFlops = run.device.peakFlops(precision);
        g.idleShare = e.step.stepSeconds > 0 ? std::max(0.0, 1.0 - run.step.stepSeconds / e.step.stepSeconds) : 0.0;
        peakSum += gpus * g.peakFlops;
        idleGpuSeconds += gpus * g.idleShare;
    }
    const double gpus = double(plan.cluster.gpus());
    if (peakSum > 0 && e.step.stepSeconds > 0) {
        e.step.mfu = e.step.modelFlopsPerStep / (e.step.stepSeconds * peakSum);
        e.step.hfu = e.step.hardwareFlopsPerStep / (e.step.stepSeconds * peakSum);
        e.step.evidence.mfu = e.step.mfu;
    }
    e.idleShare = gpus > 0 ? idleGpuSeconds / gpus : 0.0;
}

} // namespace

Estimate estimate(const Plan &plan, const Catalog &catalog, const EstimateOptions &options)
{
    Estimate e;
    e.problems = options.layoutOfValidatedPlan ? validateLayout(plan, catalog) : validatePlan(plan, catalog);
    if (hasErrors(e.problems))
        return e;
    e.valid = true;
    e.model.parameters = totalParameters(plan.model);
    e.model.parametersPerLayer =
        plan.model.isHybrid() ? layersParameters(plan.model, 0, plan.model.layers).total() / double(plan.model.layers)
                              : layerParameters(plan.model).total();
    e.model.activeParameters = activeParameters(plan.model);
    e.model.microbatches = plan.microbatches();
    e.model.gpus = plan.cluster.gpus();

    Runs r = estimateRuns(plan, catalog, options);
    GroupRun &paced = r.runs[r.pace];
    // One kind of node: the run's results move into the Estimate (a mixed cluster reads them on); e.device
    // is the paced run's device either way.
    const bool single = r.runs.size() == 1;
    e.device = single ? std::move(paced.device) : paced.device;
    e.memory = single ? std::move(paced.memory) : paced.memory;
    if (r.memoryOnly)
        return e;
    e.step = single ? std::move(paced.step) : paced.step;
    if (r.runs.size() > 1) {
        checkMixedMemory(plan, r, e);
        for (std::size_t gi = 0; gi < r.groups.size(); ++gi) {
            const GroupRun &run = r.runs[r.runOfGroup[gi]];
            NodeGroupEstimate &g = e.nodeGroups[gi];
            g.kind = r.runOfGroup[gi];
            g.device = run.device.id;
            g.deviceName = run.device.name;
            g.intraNodeLink = intraNodeLinkName(catalog, r.groups[gi], run.device);
            g.nodes = r.groups[gi].nodes;
            g.stepSeconds = run.step.stepSeconds;
            g.paces = r.runOfGroup[gi] == r.pace;
        }
        mixedUtilisation(plan, r, e);
    }

    if (options.placementReport) // the paced run's own estimates (moved into e on one kind of node)
        e.placement = placementReport(*paced.plan, catalog, *e.device, paced.group, single ? e.memory : paced.memory,
                                      single ? e.step : paced.step, options.simulatePipeline);
    else
        e.placement = placementSpans(*paced.plan);
    e.run = estimateRun(plan, *e.device, e.memory, e.step);
    e.parts = stepParts(plan, e.step);
    if (options.details) {
        EstimateDetails &d = e.details.emplace();
        d.roofline = rooflineOf(*e.device, plan.training.precision);
        d.zeroComparison = zeroStageComparison(e.model.parameters, stateBytesPerParameter(plan.training),
                                               double(plan.parallel.data));
        d.timeline = stepTimeline(plan, e.step);
        d.accuracy = assessAccuracy(accuracyCoordinates(plan, e), builtinHeldOutRuns());
    }
    if (options.scaling)
        e.scaling = scalingCurves(*paced.plan, *e.device);
    return e;
}

const EstimateDetails &detailsOf(const Estimate &e)
{
    static const EstimateDetails none{};
    return e.details ? *e.details : none;
}

double memoryPeakUpperBytes(double peakBytes, const Accuracy &accuracy)
{
    const double band = accuracy.memoryBand80;
    return accuracy.memoryComparableRuns > 0 && band > 0 && band < 1 ? peakBytes / (1.0 - band) : peakBytes;
}

bool mayNotFit(const MemoryEstimate &memory, const Accuracy &accuracy)
{
    if (!memory.fits)
        return false;
    if (memory.stages.empty())
        return memoryPeakUpperBytes(memory.peakBytes, accuracy) > memory.capacityBytes;
    return std::any_of(memory.stages.begin(), memory.stages.end(), [&](const StageMemory &s) {
        return memoryPeakUpperBytes(s.peakBytes, accuracy) > s.capacityBytes;
    });
}

const ScalingCurves &scalingOf(const Estimate &e)
{
    static const ScalingCurves none{};
    return e.scaling ? *e.scaling : none;
}

} // namespace trainplan
