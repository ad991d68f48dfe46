#include "core/plan/PlanValidation.h"

#include <cmath>
#include <string>

#include "core/cluster/Topology.h"

namespace trainplan {

namespace {

class Checker
{
public:
    explicit Checker(Problems &problems) : m_problems(problems) {}

    void error(std::string key, std::string message)
    {
        m_problems.push_back({Severity::Error, std::move(key), std::move(message)});
    }
    void warning(std::string key, std::string message)
    {
        m_problems.push_back({Severity::Warning, std::move(key), std::move(message)});
    }

    /// Checks 1 <= value <= kMaxPlanInteger; returns whether it holds.
    bool positive(const std::string &key, std::int64_t value)
    {
        if (value < 1) {
            error(key, "must be a positive integer (got " + std::to_string(value) + ")");
            return false;
        }
        if (value > kMaxPlanInteger) {
            error(key, "must be at most 2^40 (got " + std::to_string(value) + ")");
            return false;
        }
        return true;
    }

    /// Checks that divisor divides value; both already known positive.
    void divides(const std::string &key, std::int64_t divisor, const std::string &what, std::int64_t value,
                 const std::string &why = {})
    {
        if (value % divisor != 0)
            error(key, std::to_string(divisor) + " does not divide " + what + " (" + std::to_string(value) + ")"
                           + (why.empty() ? "" : "; " + why));
    }

private:
    Problems &m_problems;
};

} // namespace

Problems validatePlan(const Plan &plan, const Catalog &catalog)
{
    Problems problems;
    Checker check(problems);
    const ModelSpec &m = plan.model;
    const TrainingConfig &tr = plan.training;
    const ParallelConfig &par = plan.parallel;
    const ClusterConfig &cl = plan.cluster;

    // Model shape.
    const bool layersOk = check.positive("model.layers", m.layers);
    const bool hiddenOk = check.positive("model.hidden", m.hidden);
    const bool headsOk = check.positive("model.heads", m.heads);
    const bool kvOk = check.positive("model.kv_heads", m.kvHeads);
    const bool ffnOk = check.positive("model.ffn_hidden", m.ffnHidden);
    check.positive("model.vocab", m.vocab);
    check.positive("model.seq_len", m.seqLen);
    if (hiddenOk && headsOk)
        check.divides("model.heads", m.heads, "model.hidden", m.hidden, "the head dimension must be an integer");
    if (headsOk && kvOk)
        check.divides("model.kv_heads", m.kvHeads, "model.heads", m.heads, "query heads are grouped evenly over key/value heads");

    // Training.
    const bool globalOk = check.positive("training.global_batch", tr.globalBatch);
    const bool microOk = check.positive("training.micro_batch", tr.microBatch);
    if (!(tr.allocatorReserveFraction >= 0.0 && tr.allocatorReserveFraction < 1.0))
        check.error("training.allocator_reserve_fraction", "must be in [0, 1) (got " + std::to_string(tr.allocatorReserveFraction) + ")");

    if (!(tr.paddingFraction >= 0.0 && tr.paddingFraction < 1.0))
        check.error("training.padding_fraction", "must be in [0, 1) (got " + std::to_string(tr.paddingFraction) + ")");

    // Parallel layout.
    const bool dataOk = check.positive("parallel.data", par.data);
    const bool tensorOk = check.positive("parallel.tensor", par.tensor);
    const bool pipeOk = check.positive("parallel.pipeline", par.pipeline);
    const bool virtOk = check.positive("parallel.virtual_stages", par.virtualStages);
    if (par.zeroStage < 0 || par.zeroStage > 3)
        check.error("parallel.zero_stage", "must be 0, 1, 2 or 3 (got " + std::to_string(par.zeroStage) + ")");
    if (!(par.bucketBytes > 0.0 && par.bucketBytes <= 1e12))
        check.error("parallel.bucket_bytes", "must be a positive number of bytes, at most 1e12");
    if (pipeOk && par.pipeline > kMaxPipelineStages)
        check.error("parallel.pipeline", "must be at most " + std::to_string(kMaxPipelineStages) + " stages");

    if (tensorOk && headsOk)
        check.divides("parallel.tensor", par.tensor, "model.heads", m.heads, "each tensor rank holds whole attention heads");
    if (tensorOk && kvOk)
        check.divides("parallel.tensor", par.tensor, "model.kv_heads", m.kvHeads,
                      "each tensor rank holds whole key/value head groups (Megatron-LM's rule)");
    if (tensorOk && ffnOk)
        check.divides("parallel.tensor", par.tensor, "model.ffn_hidden", m.ffnHidden, "the MLP is split by columns");
    if (pipeOk && virtOk && layersOk) {
        const double chunks = double(par.pipeline) * double(par.virtualStages);
        if (chunks > double(m.layers) || m.layers % (par.pipeline * par.virtualStages) != 0)
            check.error("parallel.pipeline",
                        "model.layers (" + std::to_string(m.layers) + ") must divide evenly into pipeline x virtual_stages = "
                            + std::to_string(par.pipeline) + " x " + std::to_string(par.virtualStages) + " chunks");
    }
    if (virtOk && par.virtualStages > 1 && par.schedule != Schedule::Interleaved)
        check.error("parallel.virtual_stages", "more than one model chunk per stage needs \"schedule\": \"interleaved\"");
    if (par.schedule == Schedule::Interleaved && pipeOk && par.pipeline == 1)
        check.warning("parallel.schedule", "interleaved schedule with a single pipeline stage behaves like no pipeline");

    // Batch arithmetic.
    if (globalOk && microOk && dataOk) {
        const double perStep = double(tr.microBatch) * double(par.data);
        if (perStep > double(tr.globalBatch) || tr.globalBatch % (tr.microBatch * par.data) != 0)
            check.error("training.global_batch",
                        "must be a multiple of training.micro_batch x parallel.data = " + std::to_string(tr.microBatch) + " x "
                            + std::to_string(par.data) + " (got " + std::to_string(tr.globalBatch) + ")");
        else if (par.schedule == Schedule::Interleaved && par.virtualStages > 1 && pipeOk
                 && plan.microbatches() % par.pipeline != 0)
            check.error("training.global_batch",
                        "the interleaved schedule needs the micro-batch count (" + std::to_string(plan.microbatches())
                            + ") to be a multiple of parallel.pipeline (" + std::to_string(par.pipeline) + ")");
    }

    // Cluster.
    const bool perNodeOk = check.positive("cluster.gpus_per_node", cl.gpusPerNode);
    const bool nodesOk = check.positive("cluster.nodes", cl.nodes);
    bool groupsOk = true;
    const auto checkDevice = [&](const std::string &key, const std::string &id) {
        const DeviceSpec *device = findDevice(cl, catalog, id);
        if (!device)
            check.error(key, "unknown device \"" + id + "\" (not in the device catalog or the plan's custom_devices)");
        else if (!device->supports(tr.precision))
            check.error("training.precision", std::string(toString(tr.precision)) + " is not supported by " + device->name);
    };
    const auto checkLink = [&](const std::string &key, const std::string &id) {
        if (!id.empty() && !catalog.intraNodeLink(id))
            check.error(key, "unknown intra-node link \"" + id + "\" (see the cluster catalog)");
    };
    if (cl.nodeGroups.empty()) {
        checkDevice("cluster.device", cl.device);
        checkLink("cluster.intra_node_link", cl.intraNodeLink);
    }
    double groupNodes = 0;
    constexpr std::size_t kMaxNodeGroups = 256; // kinds of node, not nodes: a group has any node count
    if (cl.nodeGroups.size() > kMaxNodeGroups)
        check.error("cluster.node_groups", "at most " + std::to_string(kMaxNodeGroups) + " node groups (got "
                                               + std::to_string(cl.nodeGroups.size()) + "); merge groups of the same kind");
    for (std::size_t i = 0; i < cl.nodeGroups.size() && i < kMaxNodeGroups; ++i) {
        const NodeGroup &g = cl.nodeGroups[i];
        const std::string key = "cluster.node_groups[" + std::to_string(i) + "]";
        checkDevice(key + ".device", g.device);
        checkLink(key + ".intra_node_link", g.intraNodeLink);
        groupsOk = check.positive(key + ".gpus_per_node", g.gpusPerNode) && groupsOk;
        groupsOk = check.positive(key + ".nodes", g.nodes) && groupsOk;
        if (g.gpusPerNode != cl.nodeGroups.front().gpusPerNode) {
            groupsOk = false;
            check.error(key + ".gpus_per_node",
                        "every node group must have the same GPUs per node as the first (" + std::to_string(g.gpusPerNode)
                            + " vs " + std::to_string(cl.nodeGroups.front().gpusPerNode)
                            + "): the rank order places groups by whole nodes");
        }
        groupNodes += double(g.nodes);
    }
    if (!cl.nodeGroups.empty() && groupsOk && perNodeOk && nodesOk
        && (groupNodes != double(cl.nodes) || cl.gpusPerNode != cl.nodeGroups.front().gpusPerNode
            || cl.device != cl.nodeGroups.front().device))
        check.error("cluster.nodes", "must equal the sum of node_groups[].nodes (" + std::to_string(std::int64_t(groupNodes))
                                         + "), with gpus_per_node and device those of node_groups[0]");
    if (!cl.network.empty() && !catalog.network(cl.network))
        check.error("cluster.network", "unknown network tier \"" + cl.network + "\" (see the cluster catalog)");
    for (std::size_t i = 0; i < cl.customDevices.size(); ++i)
        if (catalog.device(cl.customDevices[i].id))
            check.error("cluster.custom_devices[" + std::to_string(i) + "].id",
                        "\"" + cl.customDevices[i].id + "\" is a built-in device id; give the custom device its own id");
    if (dataOk && tensorOk && pipeOk && perNodeOk && nodesOk) {
        const double workers = double(par.data) * double(par.tensor) * double(par.pipeline);
        const double gpus = double(cl.gpusPerNode) * double(cl.nodes);
        if (workers != gpus)
            check.error("parallel",
                        "data x tensor x pipeline = " + std::to_string(par.data) + " x " + std::to_string(par.tensor) + " x "
                            + std::to_string(par.pipeline) + " = " + std::to_string(std::int64_t(workers))
                            + " must equal the GPU count gpus_per_node x nodes = " + std::to_string(std::int64_t(gpus)));
    }

    const RunConfig &run = plan.run;
    if (!(run.tokenBudget > 0 && run.tokenBudget < 1e18))
        check.error("run.token_budget", "must be positive (and below 10^18 tokens)");
    if (!(run.pricePerGpuHour >= 0 && run.pricePerGpuHour < 1e9))
        check.error("run.price_per_gpu_hour", "must not be negative");
    if (!(run.checkpointBandwidth > 0 && std::isfinite(run.checkpointBandwidth)))
        check.error("run.checkpoint_bandwidth", "must be positive (bytes/s)");
    if (!(run.gpuMtbfHours > 0 && std::isfinite(run.gpuMtbfHours)))
        check.error("run.gpu_mtbf_hours", "must be positive");
    if (!(run.restartSeconds >= 0 && std::isfinite(run.restartSeconds)))
        check.error("run.restart_seconds", "must not be negative");

    const auto checkOverride = [&](const char *key, const std::optional<double> &v, bool zeroAllowed) {
        if (v && !(zeroAllowed ? *v >= 0.0 : *v > 0.0))
            check.error(key, zeroAllowed ? "must not be negative" : "must be positive");
    };
    checkOverride("cluster.intra_node_bandwidth", cl.overrides.intraNodeBandwidthBytesPerSecond, false);
    checkOverride("cluster.intra_node_latency", cl.overrides.intraNodeLatencySeconds, true);
    checkOverride("cluster.network_bandwidth", cl.overrides.networkBandwidthBytesPerSecond, false);
    checkOverride("cluster.network_latency", cl.overrides.networkLatencySeconds, true);
    checkOverride("cluster.runtime_context_bytes", cl.overrides.runtimeContextBytes, true);

    return problems;
}

} // namespace trainplan
