#include "core/plan/Plan.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace trainplan {

bool isSixteenBitStorage(Precision p)
{
    return p == Precision::FP16 || p == Precision::BF16 || isLowPrecisionMatmul(p);
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
    const double split = double(plan.parallel.tensor) * double(plan.parallel.pipeline) * double(plan.parallel.context);
    if (plan.cluster.gpusPerNode > 0 && plan.cluster.nodes > 0 && split > 0 && gpus <= double(std::int64_t(1) << 40)
        && std::fmod(gpus, split) == 0.0)
        plan.parallel.data = std::int64_t(gpus / split);
}

std::optional<Problem> completeEdit(Plan &plan, std::string_view keyPath)
{
    ModelSpec &m = plan.model;
    if (keyPath != "model.experts")
        return std::nullopt;
    if (m.experts > 0 && m.expertsPerToken == 0) {
        m.expertsPerToken = std::min<std::int64_t>(2, m.experts);
        return ruleProblem(Severity::Warning, "model.experts_per_token", "experts.top2_default",
                           {std::to_string(m.expertsPerToken)});
    }
    if (m.experts == 0 && m.expertsPerToken > 0) {
        m.expertsPerToken = 0;
        return ruleProblem(Severity::Warning, "model.experts_per_token", "experts.none_routed");
    }
    return std::nullopt;
}

std::int64_t Plan::microbatches() const
{
    const std::int64_t perStep = training.microBatch * parallel.data;
    return perStep > 0 ? training.globalBatch / perStep : 0;
}

std::int64_t Plan::microbatchesPerRun() const
{
    const std::int64_t m = microbatches();
    const std::int64_t run = training.scheduleMicrobatches;
    const bool splits = training.framework == Framework::Fsdp && parallel.pipeline > 1 && run > 0 && run < m;
    return splits && m % run == 0 ? run : m;
}

std::int64_t Plan::scheduleRuns() const
{
    const std::int64_t run = microbatchesPerRun();
    return run > 0 ? microbatches() / run : 1;
}

bool Plan::embeddingWgradDeferralAllowed() const
{
    return training.framework == Framework::Megatron && parallel.pipeline > 1 && parallel.zeroStage < 3;
}

std::int64_t Plan::deferredWgradMicrobatches() const
{
    if (!training.deferEmbeddingWgrad || !embeddingWgradDeferralAllowed())
        return 0;
    const std::int64_t m = microbatchesPerRun(), limit = training.wgradDeferralLimit;
    return limit > 0 ? std::min(limit, m) : m;
}

bool Plan::listedStages() const
{
    return parallel.pipeline > 1 && std::int64_t(parallel.stageLayers.size()) == parallel.pipeline;
}

bool Plan::unevenStages() const
{
    return parallel.pipeline > 1 &&
           (parallel.firstStageLayers > 0 || parallel.lastStageLayers > 0 || !parallel.stageLayers.empty());
}

std::int64_t middleStageLayers(std::int64_t layers, std::int64_t p, std::int64_t first, std::int64_t last)
{
    const std::int64_t middle = p - (first > 0 ? 1 : 0) - (last > 0 ? 1 : 0);
    return middle > 0 ? std::max<std::int64_t>(0, layers - first - last) / middle : 0;
}

bool interleavedChunksFit(std::int64_t layers, std::int64_t p, std::int64_t v, std::int64_t first, std::int64_t last)
{
    if (v <= 1)
        return true;
    if (first == 0 && last == 0)
        return p > 0 && layers % (p * v) == 0;
    return middleStageLayers(layers, p, first, last) % v == 0 && (first == 0 || first >= v - 1) &&
           (last == 0 || last >= v - 1);
}

std::int64_t Plan::firstLayerOfStage(std::int64_t stage) const
{
    if (stage <= 0)
        return 0;
    if (listedStages()) {
        std::int64_t first = 0;
        for (std::int64_t s = 0; s < stage && s < std::int64_t(parallel.stageLayers.size()); ++s)
            first += parallel.stageLayers[std::size_t(s)];
        return first;
    }
    // Stage 0 holds its own share, the stages between it and `stage` (middle stages: stage >= 2 means at
    // least 3 stages) the middle share each.
    return layersOnStage(0) + (stage - 1) * layersOnStage(1);
}

bool Plan::bf16LayersApply() const
{
    return training.framework == Framework::Megatron && isLowPrecisionMatmul(training.precision);
}

bool Plan::keepsBf16Layers() const
{
    return bf16LayersApply() && (training.bf16LayersAtStart > 0 || training.bf16LayersAtEnd > 0);
}

ModelSpec::BlockCounts Plan::bf16BlocksOnStage(std::int64_t stage) const
{
    ModelSpec::BlockCounts b;
    if (!keepsBf16Layers())
        return b;
    const std::int64_t first = firstLayerOfStage(stage), end = first + layersOnStage(stage);
    const auto add = [&](std::int64_t from, std::int64_t to) { // the layers [from, to) of the model on this stage
        const std::int64_t a = std::max(from, first), z = std::min(to, end);
        if (z <= a)
            return;
        const ModelSpec::BlockCounts part = model.blocksIn(a, z - a);
        b.attention += part.attention;
        b.mamba += part.mamba;
        b.denseMlp += part.denseMlp;
        b.moeMlp += part.moeMlp;
    };
    const std::int64_t start = std::min(training.bf16LayersAtStart, model.layers);
    add(0, start);
    add(std::max(start, model.layers - training.bf16LayersAtEnd), model.layers);
    return b;
}

std::int64_t Plan::layersOnStage(std::int64_t stage) const
{
    const std::int64_t p = parallel.pipeline;
    if (p <= 0)
        return 0;
    if (!unevenStages())
        return model.layers / p;
    if (listedStages())
        return stage >= 0 && stage < p ? parallel.stageLayers[std::size_t(stage)] : 0;
    const std::int64_t first = parallel.firstStageLayers, last = parallel.lastStageLayers;
    if (stage == 0 && first > 0)
        return first;
    if (stage == p - 1 && last > 0)
        return last;
    return middleStageLayers(model.layers, p, first, last);
}

std::int64_t Plan::recomputedLayersOnStage(std::int64_t stage) const
{
    if (training.recompute != Recompute::Full)
        return 0;
    const std::int64_t layers = layersOnStage(stage);
    if (training.recomputeInterval > 1) // torchtitan's every k-th layer of the rank's stage
        return layers / training.recomputeInterval;
    if (training.recomputeLayers <= 0)
        return layers;
    return std::min(layers, training.recomputeLayers * std::max<std::int64_t>(1, parallel.virtualStages));
}

std::int64_t Plan::recomputeChunkInEffect() const
{
    const TrainingConfig &t = training;
    const bool chunked = t.recompute == Recompute::Full && t.recomputeChunk > 1 && t.recomputeLayers <= 0 &&
                         t.recomputeInterval <= 1;
    return chunked ? t.recomputeChunk : 1;
}

std::int64_t Plan::checkpointedInputsOnStage(std::int64_t stage) const
{
    const std::int64_t layers = layersOnStage(stage);
    const std::int64_t n = recomputeChunkInEffect();
    if (n <= 1 || layers <= 0)
        return layers;
    // Megatron-Core's uniform method checkpoints each model chunk's layers in groups of n (the last one
    // shorter) (megatron/core/recompute.py at d98e8a6: "Uniformly divide the total number of layers and
    // checkpoint the input activation of each divided chunk").
    const std::int64_t v = std::max<std::int64_t>(1, parallel.virtualStages);
    const std::int64_t perChunk = (layers + v - 1) / v;
    return std::min(layers, v * ((perChunk + n - 1) / n));
}

double Plan::recomputedShare(std::int64_t stage) const
{
    const std::int64_t layers = layersOnStage(stage);
    return layers > 0 ? double(recomputedLayersOnStage(stage)) / double(layers) : 0.0;
}

double Plan::recomputedShare() const
{
    if (training.recompute != Recompute::Full)
        return 0.0;
    std::int64_t recomputed = 0, layers = 0;
    for (std::int64_t s = 0; s < std::max<std::int64_t>(1, parallel.pipeline); ++s) {
        recomputed += recomputedLayersOnStage(s);
        layers += layersOnStage(s);
    }
    return layers > 0 ? double(recomputed) / double(layers) : 0.0;
}

bool Plan::runsManyDeviceQueues() const
{
    if (training.framework != Framework::Megatron)
        return false;
    return overlapsExpertAllToAll() || parallel.zeroStage == 3;
}

bool Plan::tensorOverlapLost(const DeviceSpec &device) const
{
    return training.framework == Framework::Megatron && parallel.tensorCommOverlap && parallel.tensor > 1 &&
           device.overlapNeedsOneQueue() && runsManyDeviceQueues();
}

std::int64_t Plan::offloadedLayersOnStage(std::int64_t stage) const
{
    return std::min(layersOnStage(stage), std::max<std::int64_t>(0, training.activationOffloadLayers));
}

std::int64_t Plan::layersPerStage() const
{
    if (!unevenStages())
        return parallel.pipeline > 0 ? model.layers / parallel.pipeline : 0;
    std::int64_t most = 0;
    if (listedStages()) {
        for (const std::int64_t layers : parallel.stageLayers)
            most = std::max(most, layers);
        return most;
    }
    for (const std::int64_t s : {std::int64_t(0), std::int64_t(1), parallel.pipeline - 1})
        most = std::max(most, layersOnStage(s));
    return most;
}

std::pair<std::int64_t, std::int64_t> unevenSplit(std::int64_t layers, std::int64_t p, bool lightLast)
{
    if (p < 3)
        return {0, 0};
    const std::int64_t middle = (layers + p - 1) / p;
    const std::int64_t rest = layers - (p - 2) * middle;
    const std::int64_t smaller = rest / 2, larger = rest - rest / 2;
    const std::int64_t first = lightLast ? larger : smaller, last = lightLast ? smaller : larger;
    if (first < 1 || last > middle)
        return {0, 0};
    return {first, last};
}

} // namespace trainplan
