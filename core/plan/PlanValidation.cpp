#include "core/plan/PlanValidation.h"

#include <string>
#include <tuple>

#include "core/plan/PlanKeys.h"

namespace trainplan {

namespace {

class Checker
{
public:
    Checker(const Plan &plan, Problems &problems) : m_plan(plan), m_problems(problems) {}

    void error(std::string key, std::string message)
    {
        m_problems.push_back({Severity::Error, std::move(key), std::move(message)});
    }
    void warning(std::string key, std::string message)
    {
        m_problems.push_back({Severity::Warning, std::move(key), std::move(message)});
    }

    /// Range and choice of every key in the table; remembers which keys hold a valid value.
    void checkRanges()
    {
        for (const PlanKey &key : planKeys()) {
            if (!key.accessible())
                continue;
            if (const auto problem = checkValue(key, key.get(m_plan))) {
                error(key.path, *problem);
                m_bad.push_back(key.path);
            }
        }
    }
    /// Whether every named key holds a value in its range (a cross-key rule needs them sound).
    bool ok(std::initializer_list<std::string_view> keys) const
    {
        for (std::string_view k : keys)
            for (std::string_view bad : m_bad)
                if (k == bad)
                    return false;
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

    const Plan &plan() const { return m_plan; }

private:
    const Plan &m_plan;
    Problems &m_problems;
    std::vector<std::string_view> m_bad;
};

void checkModelShape(Checker &check)
{
    const ModelSpec &m = check.plan().model;
    if (check.ok({"model.hidden", "model.heads"}))
        check.divides("model.heads", m.heads, "model.hidden", m.hidden, "the head dimension must be an integer");
    if (check.ok({"model.heads", "model.kv_heads"}))
        check.divides("model.kv_heads", m.kvHeads, "model.heads", m.heads, "query heads are grouped evenly over key/value heads");
}

void checkLayout(Checker &check)
{
    const ModelSpec &m = check.plan().model;
    const ParallelConfig &par = check.plan().parallel;
    if (check.ok({"parallel.tensor", "model.heads"}))
        check.divides("parallel.tensor", par.tensor, "model.heads", m.heads, "each tensor rank holds whole attention heads");
    if (check.ok({"parallel.tensor", "model.kv_heads"}))
        check.divides("parallel.tensor", par.tensor, "model.kv_heads", m.kvHeads,
                      "each tensor rank holds whole key/value head groups (Megatron-LM's rule)");
    if (check.ok({"parallel.tensor", "model.ffn_hidden"}))
        check.divides("parallel.tensor", par.tensor, "model.ffn_hidden", m.ffnHidden, "the MLP is split by columns");
    if (check.ok({"parallel.pipeline", "parallel.virtual_stages", "model.layers"})) {
        const double chunks = double(par.pipeline) * double(par.virtualStages);
        if (chunks > double(m.layers) || m.layers % (par.pipeline * par.virtualStages) != 0)
            check.error("parallel.pipeline",
                        "model.layers (" + std::to_string(m.layers) + ") must divide evenly into pipeline x virtual_stages = "
                            + std::to_string(par.pipeline) + " x " + std::to_string(par.virtualStages) + " chunks");
    }
    if (check.ok({"parallel.virtual_stages"}) && par.virtualStages > 1 && par.schedule != Schedule::Interleaved)
        check.error("parallel.virtual_stages", "more than one model chunk per stage needs \"schedule\": \"interleaved\"");
    if (par.schedule == Schedule::Interleaved && check.ok({"parallel.pipeline"}) && par.pipeline == 1)
        check.warning("parallel.schedule", "interleaved schedule with a single pipeline stage behaves like no pipeline");
}

void checkBatch(Checker &check)
{
    const Plan &plan = check.plan();
    const TrainingConfig &training = plan.training;
    const ParallelConfig &par = plan.parallel;
    if (!check.ok({"training.global_batch", "training.micro_batch", "parallel.data"}))
        return;
    const double perStep = double(training.microBatch) * double(par.data);
    if (perStep > double(training.globalBatch) || training.globalBatch % (training.microBatch * par.data) != 0)
        check.error("training.global_batch",
                    "must be a multiple of training.micro_batch x parallel.data = " + std::to_string(training.microBatch) + " x "
                        + std::to_string(par.data) + " (got " + std::to_string(training.globalBatch) + ")");
    else if (par.schedule == Schedule::Interleaved && par.virtualStages > 1 && check.ok({"parallel.pipeline"})
             && plan.microbatches() % par.pipeline != 0)
        check.error("training.global_batch",
                    "the interleaved schedule needs the micro-batch count (" + std::to_string(plan.microbatches())
                        + ") to be a multiple of parallel.pipeline (" + std::to_string(par.pipeline) + ")");
}

void checkDevicesAndLinks(Checker &check, const Catalog &catalog)
{
    const ClusterConfig &cl = check.plan().cluster;
    const Precision precision = check.plan().training.precision;
    const auto checkDevice = [&](const std::string &key, const std::string &id) {
        const DeviceSpec *device = catalog.device(id, cl.customDevices);
        if (!device)
            check.error(key, "unknown device \"" + id + "\" (not in the device catalog or the plan's custom_devices)");
        else if (!device->supports(precision))
            check.error("training.precision", std::string(toString(precision)) + " is not supported by " + device->name);
    };
    const auto checkLink = [&](const std::string &key, const std::string &id) {
        if (!id.empty() && !catalog.intraNodeLink(id))
            check.error(key, "unknown intra-node link \"" + id + "\" (see the cluster catalog)");
    };
    if (cl.nodeGroups.empty()) {
        checkDevice("cluster.device", cl.device);
        checkLink("cluster.intra_node_link", cl.intraNodeLink);
    }
    for (std::size_t i = 0; i < cl.nodeGroups.size() && i < kMaxNodeGroups; ++i) {
        const std::string key = "cluster.node_groups[" + std::to_string(i) + "]";
        checkDevice(key + ".device", cl.nodeGroups[i].device);
        checkLink(key + ".intra_node_link", cl.nodeGroups[i].intraNodeLink);
    }
    if (!cl.network.empty() && !catalog.network(cl.network))
        check.error("cluster.network", "unknown network tier \"" + cl.network + "\" (see the cluster catalog)");
}

/// The plan's own devices: how many, their texts' lengths, and ids that do not shadow built-in ones.
void checkCustomDevices(Checker &check, const Catalog &catalog)
{
    const std::vector<DeviceSpec> &devices = check.plan().cluster.customDevices;
    if (devices.size() > kMaxCustomDevices)
        check.error("cluster.custom_devices", "at most " + std::to_string(kMaxCustomDevices) + " custom devices (got "
                                                  + std::to_string(devices.size()) + ")");
    for (std::size_t i = 0; i < devices.size() && i < kMaxCustomDevices; ++i) {
        const DeviceSpec &d = devices[i];
        const std::string key = "cluster.custom_devices[" + std::to_string(i) + "]";
        for (const auto &[field, text, maximum] : {std::tuple{".id", &d.id, kMaxIdLength}, std::tuple{".name", &d.name, kMaxNameLength},
                                                   std::tuple{".source", &d.source, kMaxTextLength}})
            if (const auto problem = checkLength(*text, maximum))
                check.error(key + field, *problem);
        if (catalog.device(d.id))
            check.error(key + ".id", "\"" + d.id + "\" is a built-in device id; give the custom device its own id");
    }
}

/// Node groups: sizes, one node size for all, and the summary keys agreeing with them. Returns whether
/// the groups are sound.
bool checkNodeGroups(Checker &check)
{
    const ClusterConfig &cl = check.plan().cluster;
    if (cl.nodeGroups.size() > kMaxNodeGroups)
        check.error("cluster.node_groups", "at most " + std::to_string(kMaxNodeGroups) + " node groups (got "
                                               + std::to_string(cl.nodeGroups.size()) + "); merge groups of the same kind");
    bool groupsOk = true;
    double groupNodes = 0;
    const auto positive = [&](const std::string &key, std::int64_t value) {
        const PlanKey &rule = *findPlanKey(key.substr(key.rfind('.')) == ".nodes" ? "cluster.nodes" : "cluster.gpus_per_node");
        if (const auto problem = checkValue(rule, value)) {
            check.error(key, *problem);
            return false;
        }
        return true;
    };
    for (std::size_t i = 0; i < cl.nodeGroups.size() && i < kMaxNodeGroups; ++i) {
        const NodeGroup &g = cl.nodeGroups[i];
        const std::string key = "cluster.node_groups[" + std::to_string(i) + "]";
        for (const auto &[field, text, maximum] : {std::tuple{".template", &g.templateName, kMaxNameLength},
                                                   std::tuple{".device", &g.device, kMaxIdLength},
                                                   std::tuple{".intra_node_link", &g.intraNodeLink, kMaxIdLength}})
            if (const auto problem = checkLength(*text, maximum))
                check.error(key + field, *problem);
        groupsOk = positive(key + ".gpus_per_node", g.gpusPerNode) && groupsOk;
        groupsOk = positive(key + ".nodes", g.nodes) && groupsOk;
        if (g.gpusPerNode != cl.nodeGroups.front().gpusPerNode) {
            groupsOk = false;
            check.error(key + ".gpus_per_node",
                        "every node group must have the same GPUs per node as the first (" + std::to_string(g.gpusPerNode)
                            + " vs " + std::to_string(cl.nodeGroups.front().gpusPerNode)
                            + "): the rank order places groups by whole nodes");
        }
        groupNodes += double(g.nodes);
    }
    if (!cl.nodeGroups.empty() && groupsOk && check.ok({"cluster.gpus_per_node", "cluster.nodes"})
        && (groupNodes != double(cl.nodes) || cl.gpusPerNode != cl.nodeGroups.front().gpusPerNode
            || cl.device != cl.nodeGroups.front().device))
        check.error("cluster.nodes", "must equal the sum of node_groups[].nodes (" + std::to_string(std::int64_t(groupNodes))
                                         + "), with gpus_per_node and device those of node_groups[0]");
    return groupsOk;
}

void checkGpuCount(Checker &check)
{
    const ParallelConfig &par = check.plan().parallel;
    const ClusterConfig &cl = check.plan().cluster;
    if (!check.ok({"parallel.data", "parallel.tensor", "parallel.pipeline", "cluster.gpus_per_node", "cluster.nodes"}))
        return;
    const double workers = double(par.data) * double(par.tensor) * double(par.pipeline);
    const double gpus = double(cl.gpusPerNode) * double(cl.nodes);
    if (workers != gpus)
        check.error("parallel", "data x tensor x pipeline = " + std::to_string(par.data) + " x " + std::to_string(par.tensor)
                                    + " x " + std::to_string(par.pipeline) + " = " + std::to_string(std::int64_t(workers))
                                    + " must equal the GPU count gpus_per_node x nodes = " + std::to_string(std::int64_t(gpus)));
}

} // namespace

Problems validatePlan(const Plan &plan, const Catalog &catalog)
{
    Problems problems;
    Checker check(plan, problems);
    check.checkRanges();
    checkModelShape(check);
    checkLayout(check);
    checkBatch(check);
    checkDevicesAndLinks(check, catalog);
    checkCustomDevices(check, catalog);
    checkNodeGroups(check);
    checkGpuCount(check);
    return problems;
}

} // namespace trainplan
