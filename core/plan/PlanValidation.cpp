#include "core/plan/PlanValidation.h"

#include <algorithm>
#include <string>
#include <tuple>

#include "core/plan/PlanKeys.h"

namespace trainplan {

namespace {

class Checker
{
public:
    Checker(const Plan &plan, Problems &problems) : m_plan(plan), m_problems(problems) {}

    /// `key` breaks `rule`; `values` are what its words name (io/plan/ProblemWords), `nearby` valid
    /// values to suggest.
    void error(std::string key, const char *rule, std::vector<std::string> values = {},
               std::vector<std::int64_t> nearby = {})
    {
        m_problems.push_back(ruleProblem(Severity::Error, std::move(key), rule, std::move(values), std::move(nearby)));
    }
    void warning(std::string key, const char *rule, std::vector<std::string> values = {})
    {
        m_problems.push_back(ruleProblem(Severity::Warning, std::move(key), rule, std::move(values)));
    }
    /// A problem a shared check found (a range, a length), reported on `key`.
    void error(std::string key, Problem problem)
    {
        problem.key = std::move(key);
        m_problems.push_back(std::move(problem));
    }

    /// Range and choice of every key in the table (or only the layout's); remembers which keys hold a valid
    /// value.
    void checkRanges(bool layoutOnly = false)
    {
        static const std::vector<bool> layout = [] {
            std::vector<bool> out;
            for (const PlanKey &key : planKeys())
                out.push_back(isLayoutKey(key));
            return out;
        }();
        const std::span<const PlanKey> keys = planKeys();
        for (std::size_t i = 0; i < keys.size(); ++i) {
            const PlanKey &key = keys[i];
            if (!key.accessible() || (layoutOnly && !layout[i]))
                continue;
            if (std::optional<Problem> problem = checkValue(key, key.get(m_plan))) {
                error(key.path, std::move(*problem));
                m_bad.push_back(key.path);
            }
        }
    }
    /// Whether every named key holds a value in its range (a cross-key rule needs them sound).
    bool ok(std::initializer_list<std::string_view> keys) const
    {
        if (m_bad.empty())
            return true;
        for (std::string_view k : keys)
            for (std::string_view bad : m_bad)
                if (k == bad)
                    return false;
        return true;
    }

    bool hasError(std::string_view key) const
    {
        return std::any_of(m_problems.begin(), m_problems.end(),
                           [&](const Problem &p) { return p.isError() && p.key == key; });
    }

    const Plan &plan() const { return m_plan; }

private:
    /// The numeric keys a search configuration sets (core/search/Search.cpp, applyConfig), and the global
    /// batch (the search's base check leaves it to the layout rules). The enums and switches it sets are
    /// typed fields: always one of their choices.
    static bool isLayoutKey(const PlanKey &key)
    {
        if (key.type != KeyType::Integer && key.type != KeyType::Number)
            return false;
        const std::string_view path = key.path;
        return key.section() == "parallel" || path == "training.micro_batch" || path == "training.global_batch" ||
               path == "cluster.nodes";
    }

    const Plan &m_plan;
    Problems &m_problems;
    std::vector<std::string_view> m_bad;
};

/// Up to three values nearest to `current` in [1, maximum] that keep `valid`, in increasing order (none
/// when there is none).
template<typename Valid>
std::vector<std::int64_t> nearestValid(std::int64_t current, std::int64_t maximum, Valid valid)
{
    std::vector<std::int64_t> found;
    // Walk outwards from the current value; the rules here are divisibility, so a valid value is never
    // far in a range of at most ~2^24 (the walk is bounded all the same).
    for (std::int64_t d = 1; found.size() < 3 && d <= (std::int64_t(1) << 22); ++d) {
        const bool belowIn = current - d >= 1, aboveIn = current + d <= maximum;
        if (!belowIn && !aboveIn)
            break;
        if (belowIn && valid(current - d))
            found.push_back(current - d);
        if (aboveIn && found.size() < 3 && valid(current + d))
            found.push_back(current + d);
    }
    std::sort(found.begin(), found.end());
    return found;
}

std::string num(std::int64_t v) { return std::to_string(v); }

void checkModelShape(Checker &check)
{
    const ModelSpec &m = check.plan().model;
    if (check.ok({"model.hidden", "model.heads"}) && m.headDimension == 0 && m.hidden % m.heads != 0)
        check.error("model.heads", "heads.divide_hidden", {num(m.heads), num(m.hidden)},
                    nearestValid(m.heads, m.hidden, [&](std::int64_t h) { return m.hidden % h == 0; }));
    if (check.ok({"model.heads", "model.kv_heads"}) && m.heads % m.kvHeads != 0)
        check.error("model.kv_heads", "kv_heads.divide_heads", {num(m.kvHeads), num(m.heads)},
                    nearestValid(m.kvHeads, m.heads, [&](std::int64_t k) { return m.heads % k == 0; }));
}

/// Whether tensor parallel `t` keeps the model's rules (Megatron-LM: whole heads and key/value head
/// groups per rank, the MLP split by columns).
bool tensorKeepsModel(const ModelSpec &m, std::int64_t t)
{
    return m.heads % t == 0 && m.kvHeads % t == 0 && m.ffnHidden % t == 0;
}

void checkTensor(Checker &check)
{
    const Plan &plan = check.plan();
    const ModelSpec &m = plan.model;
    const std::int64_t t = plan.parallel.tensor;
    if (!check.ok({"parallel.tensor", "model.heads", "model.kv_heads", "model.ffn_hidden"}) || tensorKeepsModel(m, t))
        return;
    // values: the tensor size, then the heads, key/value heads and MLP width it breaks ("" for one it keeps).
    std::vector<std::string> values{num(t)};
    for (const std::int64_t size : {m.heads, m.kvHeads, m.ffnHidden})
        values.push_back(size % t != 0 ? num(size) : std::string());
    const std::int64_t gpus = plan.cluster.gpusPerNode * plan.cluster.nodes;
    const bool gpusOk = check.ok({"cluster.gpus_per_node", "cluster.nodes", "parallel.pipeline"});
    check.error("parallel.tensor", "tensor.divides_model", std::move(values),
                nearestValid(t, std::min<std::int64_t>(m.heads, 65536), [&](std::int64_t c) {
                    return tensorKeepsModel(m, c) && (!gpusOk || gpus % (c * plan.parallel.pipeline) == 0);
                }));
}

/// Megatron-Core's uneven split: the first and/or last stage hold the given layers, the others share the
/// rest evenly (each at least one layer); not combined with interleaving.
bool unevenSplitValid(std::int64_t layers, std::int64_t p, std::int64_t first, std::int64_t last)
{
    if (p < 2 || first < 0 || last < 0 || first + last > layers)
        return false;
    const std::int64_t middle = p - (first > 0 ? 1 : 0) - (last > 0 ? 1 : 0);
    const std::int64_t rest = layers - first - last;
    return middle == 0 ? rest == 0 : rest >= middle && rest % middle == 0;
}

void checkUnevenStages(Checker &check)
{
    const Plan &plan = check.plan();
    const ModelSpec &m = plan.model;
    const ParallelConfig &par = plan.parallel;
    const char *key = par.firstStageLayers > 0 ? "parallel.first_stage_layers" : "parallel.last_stage_layers";
    if (!check.ok({"parallel.pipeline", "parallel.virtual_stages", "model.layers", "parallel.first_stage_layers",
                   "parallel.last_stage_layers"}))
        return;
    if (par.pipeline < 2) {
        check.error(key, "stages.uneven_needs_pipeline", {num(par.pipeline)});
        return;
    }
    const std::int64_t v = par.virtualStages;
    if (unevenSplitValid(m.layers, par.pipeline, par.firstStageLayers, par.lastStageLayers)) {
        if (!interleavedChunksFit(m.layers, par.pipeline, v, par.firstStageLayers, par.lastStageLayers))
            check.error(key, "stages.uneven_interleaved",
                        {num(v),
                         num(middleStageLayers(m.layers, par.pipeline, par.firstStageLayers, par.lastStageLayers)),
                         num(v - 1)});
        return;
    }
    const std::int64_t middle = par.pipeline - (par.firstStageLayers > 0 ? 1 : 0) - (par.lastStageLayers > 0 ? 1 : 0);
    std::vector<std::int64_t> values = par.firstStageLayers > 0
                                   ? nearestValid(par.firstStageLayers, m.layers, [&](std::int64_t f) {
                                         return unevenSplitValid(m.layers, par.pipeline, f, par.lastStageLayers);
                                     })
                                   : nearestValid(par.lastStageLayers, m.layers, [&](std::int64_t l) {
                                         return unevenSplitValid(m.layers, par.pipeline, par.firstStageLayers, l);
                                     });
    check.error(key, "stages.uneven_split",
                {num(par.firstStageLayers), num(par.lastStageLayers), num(m.layers), num(middle)}, std::move(values));
}

/// parallel.stage_layers: one entry per stage, adding up to the model's layers, each stage at least one layer
/// per model chunk; not beside first/last_stage_layers.
void checkStageList(Checker &check)
{
    const Plan &plan = check.plan();
    const ParallelConfig &par = plan.parallel;
    const char *key = "parallel.stage_layers";
    if (!check.ok({"parallel.pipeline", "parallel.virtual_stages", "model.layers", key}))
        return;
    if (par.firstStageLayers > 0 || par.lastStageLayers > 0) {
        check.error(key, "stages.list_with_first_last");
        return;
    }
    if (par.pipeline < 2) {
        check.error(key, "stages.list_needs_pipeline", {num(par.pipeline)});
        return;
    }
    const auto stages = std::int64_t(par.stageLayers.size());
    if (stages != par.pipeline) {
        check.error(key, "stages.list_length", {num(stages), num(par.pipeline)});
        return;
    }
    std::int64_t sum = 0;
    for (const std::int64_t layers : par.stageLayers)
        sum += layers;
    if (sum != plan.model.layers) {
        check.error(key, "stages.list_sum", {num(sum), num(plan.model.layers)});
        return;
    }
    for (std::int64_t s = 0; s < stages; ++s)
        if (par.stageLayers[std::size_t(s)] < par.virtualStages) {
            check.error(key, "stages.list_chunks",
                        {num(par.virtualStages), num(s), num(par.stageLayers[std::size_t(s)])});
            return;
        }
}

void checkPipeline(Checker &check)
{
    const ModelSpec &m = check.plan().model;
    const ParallelConfig &par = check.plan().parallel;
    if (!par.stageLayers.empty()) {
        checkStageList(check);
    } else if (check.plan().unevenStages() || par.firstStageLayers > 0 || par.lastStageLayers > 0) {
        checkUnevenStages(check);
    } else if (check.ok({"parallel.pipeline", "parallel.virtual_stages", "model.layers"})) {
        const double chunks = double(par.pipeline) * double(par.virtualStages);
        if (chunks > double(m.layers) || m.layers % (par.pipeline * par.virtualStages) != 0) {
            const std::int64_t v = par.virtualStages;
            const ClusterConfig &cl = check.plan().cluster;
            const bool gpusOk = check.ok({"cluster.gpus_per_node", "cluster.nodes", "parallel.tensor"});
            const std::int64_t gpus = cl.gpusPerNode * cl.nodes;
            // Without interleaving, more than two stages may also split the layers unevenly.
            const char *rule = v > 1               ? "pipeline.virtual_divides_layers"
                               : par.pipeline > 2 ? "pipeline.divides_layers_or_uneven"
                                                  : "pipeline.divides_layers";
            check.error("parallel.pipeline", rule, {num(par.pipeline), num(m.layers), num(v)},
                        nearestValid(par.pipeline, m.layers, [&](std::int64_t p) {
                            return m.layers % (p * v) == 0 && (!gpusOk || gpus % (p * par.tensor) == 0);
                        }));
        }
    }
    if (check.ok({"parallel.virtual_stages"}) && par.virtualStages > 1 && par.schedule != Schedule::Interleaved)
        check.error("parallel.virtual_stages", "virtual_stages.need_interleaved");
    if (par.schedule == Schedule::Interleaved && check.ok({"parallel.pipeline"}) && par.pipeline == 1)
        check.warning("parallel.schedule", "schedule.interleaved_one_stage");
    // Megatron-Core and DeepSpeed ship no zero-bubble schedule (Qi et al.'s is a fork of Megatron-LM); PyTorch's
    // pipelining runs one with 1F1B's memory (torch.distributed.pipelining ScheduleInterleavedZeroBubble). The
    // 2p-in-flight one is the fork's alone (ZB-2p: --zero-bubble-max-pending-backward at twice the stages,
    // its README).
    if (par.schedule == Schedule::ZeroBubbleH1 && par.pipeline > 1 &&
        check.plan().training.framework != Framework::Fsdp)
        check.warning("parallel.schedule", "schedule.zero_bubble_framework",
                      {std::string(labelOf(check.plan().training.framework))});
    if (par.schedule == Schedule::ZeroBubbleH2 && par.pipeline > 1)
        check.warning("parallel.schedule", "schedule.zero_bubble_h2_framework");
    // DeepSpeed's pipeline engine refuses ZeRO stages 2 and 3 with pipeline parallelism (deepspeed/runtime/pipe/
    // engine.py: "ZeRO-2 and ZeRO-3 are incompatible with pipeline parallelism"), and Megatron-LM's distributed
    // optimizer shards only the optimizer state (stage 1): with micro-batches in flight on every stage,
    // sharded gradients would be reduce-scattered and partitioned parameters gathered again for each of them.
    // PyTorch's pipelining runs FSDP2 inside each stage (torchtitan's 3D and 4D layouts): its stage sets
    // requires_gradient_sync only on a step's last backward (torch/distributed/pipelining/stage.py,
    // backward_maybe_with_nosync), and torchtitan keeps the parameters gathered from forward to backward
    // (reshard_after_forward false with pipeline parallelism, parallelize_llama.py apply_fsdp): allowed under
    // framework "fsdp".
    if (check.ok({"parallel.zero_stage", "parallel.pipeline"}) && par.zeroStage >= 2 && par.pipeline > 1
        && check.plan().training.framework != Framework::Fsdp)
        check.error("parallel.zero_stage", par.zeroStage >= 3 ? "zero3.with_pipeline" : "zero2.with_pipeline",
                    {num(par.zeroStage), num(par.pipeline)});
}

/// A scale-up domain (an NVL72 rack) is made of whole nodes (its trays).
void checkScaleUpDomain(Checker &check)
{
    const ClusterConfig &cl = check.plan().cluster;
    if (cl.scaleUpDomain == 0 || !check.ok({"cluster.scale_up_domain", "cluster.gpus_per_node"}))
        return;
    if (cl.scaleUpDomain % cl.gpusPerNode != 0)
        check.error("cluster.scale_up_domain", "scale_up.whole_nodes", {num(cl.scaleUpDomain), num(cl.gpusPerNode)},
                    nearestValid(cl.scaleUpDomain, 576, [&](std::int64_t g) { return g % cl.gpusPerNode == 0; }));
}

void checkBatch(Checker &check)
{
    const Plan &plan = check.plan();
    const TrainingConfig &training = plan.training;
    const ParallelConfig &par = plan.parallel;
    if (!check.ok({"training.global_batch", "training.micro_batch", "parallel.data"}))
        return;
    const double perStep = double(training.microBatch) * double(par.data);
    if (perStep > double(training.globalBatch) || training.globalBatch % (training.microBatch * par.data) != 0) {
        const std::int64_t unit = training.microBatch * par.data;
        std::vector<std::int64_t> near;
        if (unit > 0 && unit <= (std::int64_t(1) << 40)) {
            const std::int64_t below = training.globalBatch / unit * unit;
            near = below > 0 ? std::vector<std::int64_t>{below, below + unit} : std::vector<std::int64_t>{unit};
        }
        check.error("training.global_batch", "batch.multiple",
                    {num(training.globalBatch), num(training.microBatch), num(par.data), num(unit)}, std::move(near));
    } else if (const std::int64_t run = training.scheduleMicrobatches;
               run > 0 && run < plan.microbatches() && par.pipeline > 1 && training.framework != Framework::Fsdp) {
        check.error("training.schedule_microbatches", "schedule_runs.framework",
                    {num(run), std::string(toString(training.framework))});
    } else if (run > 0 && par.pipeline > 1 && plan.microbatches() % run != 0) {
        check.error("training.schedule_microbatches", "schedule_runs.divide", {num(run), num(plan.microbatches())});
    } else if (par.schedule == Schedule::Interleaved && par.virtualStages > 1 && check.ok({"parallel.pipeline"})
               && plan.microbatchesPerRun() % par.pipeline != 0) {
        check.error(plan.scheduleRuns() > 1 ? "training.schedule_microbatches" : "training.global_batch",
                    "batch.interleaved_microbatches", {num(plan.microbatchesPerRun()), num(par.pipeline)});
    }
}

void checkDevicesAndLinks(Checker &check, const Catalog &catalog)
{
    const ClusterConfig &cl = check.plan().cluster;
    const Precision precision = check.plan().training.precision;
    const auto checkDevice = [&](const std::string &key, const std::string &id) {
        const DeviceSpec *device = catalog.device(id, cl.customDevices);
        if (!device)
            check.error(key, "device.unknown", {id});
        else if (!device->supports(precision)) {
            // Name the formats the device does run (FP8 needs Hopper or later; MXFP8 and NVFP4 Blackwell).
            std::string supported;
            for (std::size_t i = 0; i < kPrecisionCount; ++i)
                if (device->supports(Precision(i)))
                    supported += (supported.empty() ? "" : ", ") + std::string(toString(Precision(i)));
            check.error("training.precision", "precision.unsupported",
                        {std::string(toString(precision)), device->name, std::string(labelOf(precision)), supported});
        }
    };
    for (const auto &[key, on] : {std::pair{"training.fp8_param_gather", check.plan().training.fp8ParamGather},
                                  std::pair{"training.fp8_attention", check.plan().training.fp8Attention}})
        if (on && !isLowPrecisionMatmul(precision))
            check.error(key, "low_precision.needed", {std::string(key).substr(9), std::string(toString(precision))});
    const auto checkLink = [&](const std::string &key, const std::string &id) {
        if (!id.empty() && !catalog.intraNodeLink(id))
            check.error(key, "link.unknown", {id});
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
        check.error("cluster.network", "network.unknown", {cl.network});
}

/// The plan's own devices: how many, their texts' lengths, and ids that do not shadow built-in ones.
void checkCustomDevices(Checker &check, const Catalog &catalog)
{
    const std::vector<DeviceSpec> &devices = check.plan().cluster.customDevices;
    if (devices.size() > kMaxCustomDevices)
        check.error("cluster.custom_devices", "custom_devices.too_many",
                    {std::to_string(kMaxCustomDevices), std::to_string(devices.size())});
    for (std::size_t i = 0; i < devices.size() && i < kMaxCustomDevices; ++i) {
        const DeviceSpec &d = devices[i];
        const std::string key = "cluster.custom_devices[" + std::to_string(i) + "]";
        for (const auto &[field, text, maximum] :
             {std::tuple{".id", &d.id, kMaxIdLength}, std::tuple{".name", &d.name, kMaxNameLength},
              std::tuple{".source", &d.source, kMaxTextLength}})
            if (std::optional<Problem> problem = checkLength(*text, maximum))
                check.error(key + field, std::move(*problem));
        if (catalog.device(d.id))
            check.error(key + ".id", "custom_device.builtin_id", {d.id});
        for (std::size_t j = 0; j < i; ++j)
            if (devices[j].id == d.id) {
                check.error(key + ".id", "custom_device.duplicate_id", {d.id, std::to_string(j)});
                break;
            }
    }
}

/// Node groups: sizes, one node size for all, and the summary keys agreeing with them. Returns whether
/// the groups are sound.
bool checkNodeGroups(Checker &check)
{
    const ClusterConfig &cl = check.plan().cluster;
    if (cl.nodeGroups.size() > kMaxNodeGroups)
        check.error("cluster.node_groups", "node_groups.too_many",
                    {std::to_string(kMaxNodeGroups), std::to_string(cl.nodeGroups.size())});
    bool groupsOk = true;
    double groupNodes = 0;
    const auto positive = [&](const std::string &key, std::int64_t value) {
        const PlanKey &rule =
            *findPlanKey(key.substr(key.rfind('.')) == ".nodes" ? "cluster.nodes" : "cluster.gpus_per_node");
        if (std::optional<Problem> problem = checkValue(rule, value)) {
            check.error(key, std::move(*problem));
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
            if (std::optional<Problem> problem = checkLength(*text, maximum))
                check.error(key + field, std::move(*problem));
        groupsOk = positive(key + ".gpus_per_node", g.gpusPerNode) && groupsOk;
        groupsOk = positive(key + ".nodes", g.nodes) && groupsOk;
        if (g.gpusPerNode != cl.nodeGroups.front().gpusPerNode) {
            groupsOk = false;
            check.error(key + ".gpus_per_node", "node_group.gpus_per_node",
                        {std::to_string(g.gpusPerNode), std::to_string(cl.nodeGroups.front().gpusPerNode)});
        }
        groupNodes += double(g.nodes);
    }
    if (!cl.nodeGroups.empty() && groupsOk && check.ok({"cluster.gpus_per_node", "cluster.nodes"})
        && (groupNodes != double(cl.nodes) || cl.gpusPerNode != cl.nodeGroups.front().gpusPerNode
            || cl.device != cl.nodeGroups.front().device))
        check.error("cluster.nodes", "nodes.sum_of_groups", {std::to_string(std::int64_t(groupNodes))});
    return groupsOk;
}

/// Context parallelism (Megatron-Core): each rank holds two of 2 x context chunks of every sequence
/// (causal load balancing), so seq_len must split into 2 x context equal chunks; the all-to-all exchange
/// gives each rank whole query and key/value heads, so both head counts split over tensor x context.
void checkContext(Checker &check)
{
    const Plan &plan = check.plan();
    const ModelSpec &m = plan.model;
    const std::int64_t c = plan.parallel.context;
    if (!check.ok({"parallel.context", "model.seq_len"}) || c <= 1)
        return;
    if (m.seqLen % (2 * c) != 0) {
        check.error("parallel.context", "context.divides_sequence", {num(c), num(m.seqLen), num(2 * c)},
                    nearestValid(c, std::min<std::int64_t>(m.seqLen / 2, 65536),
                                 [&](std::int64_t v) { return m.seqLen % (2 * v) == 0; }));
        return;
    }
    if (plan.parallel.contextComm == ContextComm::AllToAll &&
        check.ok({"parallel.tensor", "model.heads", "model.kv_heads"})) {
        const std::int64_t split = plan.parallel.tensor * c;
        if (m.heads % split != 0 || m.kvHeads % split != 0)
            check.error("parallel.context_comm", "context_comm.all_to_all_heads",
                        {num(m.heads), num(m.kvHeads), num(split)});
    }
}

/// Group-limited routing: groups that split the experts evenly, a per-token group limit within them that
/// still holds top-k experts.
void checkRouterGroups(Checker &check)
{
    const ModelSpec &m = check.plan().model;
    if (!check.ok({"model.router_groups", "model.router_group_topk"}) ||
        (m.routerGroups == 0 && m.routerGroupTopk == 0))
        return;
    if (m.routerGroups == 0 || m.routerGroupTopk == 0) {
        check.error(m.routerGroups == 0 ? "model.router_groups" : "model.router_group_topk", "router_groups.together",
                    {num(m.routerGroups), num(m.routerGroupTopk)});
        return;
    }
    if (m.experts % m.routerGroups != 0) {
        check.error("model.router_groups", "router_groups.divide_experts", {num(m.routerGroups), num(m.experts)});
        return;
    }
    if (m.routerGroupTopk > m.routerGroups || m.routerGroupTopk * (m.experts / m.routerGroups) < m.expertsPerToken)
        check.error(
            "model.router_group_topk", "router_group_topk.hold_experts",
            {num(m.routerGroupTopk), num(m.routerGroups), num(m.expertsPerToken), num(m.experts / m.routerGroups)});
}

/// Mixture of experts: top-k within the experts, dense first layers below the layer count.
void checkExperts(Checker &check)
{
    const ModelSpec &m = check.plan().model;
    if (!check.ok({"model.experts", "model.experts_per_token", "model.dense_layers", "model.layers"}) || m.experts == 0)
        return;
    if (m.expertsPerToken < 1 || m.expertsPerToken > m.experts)
        check.error("model.experts_per_token", "experts_per_token.range", {num(m.expertsPerToken), num(m.experts)});
    if (m.denseLayers >= m.layers)
        check.error("model.dense_layers", "dense_layers.fewer", {num(m.denseLayers), num(m.layers)});
    checkRouterGroups(check);
}

/// Latent MoE layers and repeated multi-token-prediction modules: Megatron-Core's, on the models that have them.
void checkLatentAndMtp(Checker &check)
{
    const Plan &plan = check.plan();
    const ModelSpec &m = plan.model;
    if (check.ok({"model.moe_latent_size", "model.experts"}) && m.moeLatentSize > 0 && m.experts == 0)
        check.error("model.moe_latent_size", "moe_latent_size.needs_experts", {num(m.moeLatentSize)});
    if (check.ok({"model.moe_latent_size", "training.framework"}) && m.moeLatentSize > 0 &&
        plan.training.framework != Framework::Megatron)
        check.error("model.moe_latent_size", "moe_latent_size.framework",
                    {std::string(toString(plan.training.framework))});
    // Megatron-Core takes any width; one at or above hidden moves more than the plain MoE would.
    if (check.ok({"model.moe_latent_size", "model.hidden"}) && m.experts > 0 && m.moeLatentSize >= m.hidden)
        check.warning("model.moe_latent_size", "moe_latent_size.not_narrower", {num(m.moeLatentSize), num(m.hidden)});
    if (check.ok({"model.mtp_repeated", "model.mtp_layers"}) && m.mtpRepeated && m.mtpLayers == 0)
        check.error("model.mtp_repeated", "mtp_repeated.needs_mtp", {});
}

/// Expert parallelism: whole experts per rank, expert groups that tile the data x context x tensor ranks.
void checkExpertParallel(Checker &check)
{
    const Plan &plan = check.plan();
    const ModelSpec &m = plan.model;
    const ParallelConfig &par = plan.parallel;
    if (!check.ok(
            {"parallel.expert", "parallel.expert_tensor", "parallel.tensor", "parallel.context", "model.experts"}))
        return;
    if (m.experts == 0) {
        if (par.expert > 1)
            check.error("parallel.expert", "expert.needs_moe", {num(par.expert)});
        return;
    }
    if (m.experts % par.expert != 0) {
        check.error("parallel.expert", "expert.divides_experts", {num(par.expert), num(m.experts)},
                    nearestValid(par.expert, m.experts, [&](std::int64_t e) { return m.experts % e == 0; }));
        return;
    }
    const std::int64_t et = par.expertTensorSize();
    if (check.ok({"model.expert_ffn_hidden", "model.ffn_hidden"}) && m.expertWidth() % et != 0) {
        check.error("parallel.expert_tensor", "expert_tensor.divides_width", {num(et), num(m.expertWidth())});
        return;
    }
    if (!check.ok({"parallel.data"}))
        return;
    const std::int64_t ranks = par.data * par.context * par.tensor;
    if (ranks % (par.expert * et) != 0)
        check.error("parallel.expert", "expert.tiles_ranks", {num(par.expert), num(et), num(ranks)},
                    nearestValid(par.expert, std::min<std::int64_t>(m.experts, 65536), [&](std::int64_t e) {
                        return m.experts % e == 0 && ranks % (e * et) == 0;
                    }));
}

/// Megatron-Core's all-to-all overlap (overlap_moe_expert_parallel_comm) and what it refuses beside it
/// (transformer_config.py at d98e8a6, since MR 3470 of August 2025, "Support Expert Parallel A2A Overlapping"):
/// expert parallelism, virtual stages when there are pipeline stages, no full recomputation and no recomputed
/// MoE layer, at most one MTP layer.
void checkExpertCommOverlap(Checker &check)
{
    const Plan &plan = check.plan();
    const ParallelConfig &par = plan.parallel;
    const TrainingConfig &t = plan.training;
    if (!plan.model.isMoe() || !par.expertCommOverlap || t.framework != Framework::Megatron)
        return;
    const char *key = "parallel.expert_comm_overlap";
    if (check.ok({"parallel.expert"}) && par.expert < 2)
        check.error(key, "expert_comm_overlap.needs_expert");
    if (check.ok({"parallel.pipeline", "parallel.virtual_stages"}) && par.pipeline > 1 && par.virtualStages < 2)
        check.error(key, "expert_comm_overlap.needs_virtual_stages", {num(par.pipeline)});
    if (t.recompute == Recompute::Full)
        check.error(key, "expert_comm_overlap.full_recompute");
    if (t.recomputesMoeLayers())
        check.error(key, "expert_comm_overlap.moe_recompute");
    if (check.ok({"model.mtp_layers"}) && plan.model.mtpLayers > 1)
        check.error(key, "expert_comm_overlap.mtp_layers", {num(plan.model.mtpLayers)});
    // The overlapped schedule (combined 1F1B) asks the model for its schedule plan, which only GPTModel builds
    // (megatron/core/pipeline_parallel/combined_1f1b.py, `build_schedule_plan`; HybridModel and MambaModel have
    // none, and pretrain_mamba.py's forward step returns no plan; Megatron-LM d98e8a64d, August 2026).
    if (check.ok({"model.hybrid_pattern"}) && plan.model.isHybrid())
        check.error(key, "expert_comm_overlap.hybrid");
}

/// Megatron-Core's paged stashing of the routed experts' saved tensors (--moe-paged-stash) needs what Megatron-Core
/// asks of it (megatron/core/transformer/transformer_config.py at core_v0.18.0): a rank capacity factor, which only
/// the HybridEP dispatcher has and which needs Transformer Engine's op fuser (lines 1515-1526; the op fuser's grouped
/// MLP is what marks the tensors the stash takes, transformer_engine/pytorch/ops/fused/grouped_mlp.py,
/// mark_grouped_tensor), and no activation offload ("moe_paged_stash cannot be enabled with cpu_offloading",
/// lines 1683-1686).
void checkPagedStash(Checker &check)
{
    const Plan &plan = check.plan();
    const TrainingConfig &t = plan.training;
    if (!t.moePagedStash)
        return;
    const char *key = "training.moe_paged_stash";
    if (!plan.model.isMoe()) {
        check.warning(key, "moe_paged_stash.not_moe");
        return;
    }
    if (t.framework != Framework::Megatron) {
        check.error(key, "moe_paged_stash.framework", {std::string(toString(t.framework))});
        return;
    }
    if (plan.parallel.expertDispatcher != ExpertDispatcher::HybridEp)
        check.error(key, "moe_paged_stash.dispatcher", {std::string(toString(plan.parallel.expertDispatcher))});
    if (!t.fusedExpertMlp)
        check.error(key, "moe_paged_stash.needs_fused_mlp");
    if (t.activationOffloadLayers > 0)
        check.error(key, "moe_paged_stash.activation_offload", {num(t.activationOffloadLayers)});
}

/// CUDA graphs and the expert all-to-all overlap outside Megatron-Core. torchtitan captures the forward and
/// backward of a step as one CUDA graph since f84224af0 (August 2026; training.disable_cuda_graphs), without
/// pipeline parallelism ("CUDA graphs do not support pipeline parallelism yet") and, with expert parallelism,
/// only with a dispatcher that never waits on the host (HybridEP with a fixed capacity): torchtitan/trainer.py
/// _validate_cuda_graphs, lines 168-199 at b5bcd76c6. It graphs no single layer, and DeepSpeed's training
/// engine captures none. The all-to-all overlap is Megatron-Core's combined 1F1B schedule
/// (--overlap-moe-expert-parallel-comm), which neither PyTorch's pipelining nor DeepSpeed runs.
void checkSoftwareOutsideMegatron(Checker &check)
{
    const Plan &plan = check.plan();
    const TrainingConfig &t = plan.training;
    const ParallelConfig &par = plan.parallel;
    if (t.framework == Framework::Megatron)
        return;
    const std::string framework = toString(t.framework);
    if (t.cudaGraphs != CudaGraphs::None && (t.framework != Framework::Fsdp || t.cudaGraphs != CudaGraphs::Step))
        check.error("training.cuda_graphs", "cuda_graphs.framework", {std::string(toString(t.cudaGraphs)), framework});
    else if (t.cudaGraphs == CudaGraphs::Step && par.pipeline > 1)
        check.error("training.cuda_graphs", "cuda_graphs.fsdp_pipeline", {num(par.pipeline)});
    else if (t.cudaGraphs == CudaGraphs::Step && plan.model.isMoe() && par.expert > 1 &&
             (par.expertDispatcher != ExpertDispatcher::HybridEp || !t.capacityFactor))
        check.error("training.cuda_graphs", "cuda_graphs.fsdp_dispatcher",
                    {std::string(toString(par.expertDispatcher))});
    if (plan.model.isMoe() && par.expertCommOverlap)
        check.error("parallel.expert_comm_overlap", "expert_comm_overlap.framework", {framework});
}

/// Megatron-Core's deferred output-layer weight gradients (--defer-embedding-wgrad-compute) fill the last stage's
/// pipeline drain: Megatron-Core refuses them without pipeline stages ("Cannot defer embedding wgrad compute when
/// pipeline model parallel is not used", model_parallel_config.py at d98e8a6), NeMo's and Megatron-Bridge's
/// performance scripts turn them off under Megatron-FSDP ("it cannot work with FSDP together",
/// scripts/performance/utils/helpers.py at Megatron-Bridge r0.1.0), and no other framework has them.
void checkEmbeddingWgradDeferral(Checker &check)
{
    const Plan &plan = check.plan();
    const TrainingConfig &t = plan.training;
    if (!t.deferEmbeddingWgrad)
        return;
    const char *key = "training.defer_embedding_wgrad";
    if (t.framework != Framework::Megatron)
        check.error(key, "defer_wgrad.framework", {std::string(toString(t.framework))});
    else if (plan.parallel.pipeline <= 1)
        check.error(key, "defer_wgrad.needs_pipeline");
    else if (plan.parallel.zeroStage >= 3)
        check.error(key, "defer_wgrad.fsdp");
}

/// Megatron-Core's per-layer CUDA graphs (--cuda-graph-impl local or transformer_engine: training.cuda_graphs
/// router or layers) refuse full recomputation ("full recompute is only supported with full iteration CUDA
/// graph") and activation offloading ("CUDA graphs not supported with CPU offloading"): transformer_config.py at
/// d98e8a6 (releases before December 2025 refused any recomputation but selective with attention graphs).
/// The whole step's graph (full_iteration) allows both. Nor do they capture a layer under Megatron-FSDP (ZeRO-3),
/// whose module hooks gather and free each layer's parameters on the host's schedule: "Megatron FSDP module hooks
/// are incompatible with Transformer Engine CUDA graph capture" (Megatron-Bridge r0.6.0,
/// src/megatron/bridge/recipes/nemotronh/gb200/nemotron_3_nano.py, the FSDP config, which turns graphs off); Megatron-
/// FSDP's graph-safe mode (megatron_fsdp_cuda_graph_mode, Megatron-LM 67b2f3878f, May 2026) is for the whole
/// forward-backward graph.
void checkLayerGraphs(Checker &check)
{
    const Plan &plan = check.plan();
    const TrainingConfig &t = plan.training;
    const bool layerGraphs = t.cudaGraphs == CudaGraphs::Layers || t.cudaGraphs == CudaGraphs::Router;
    if (t.framework != Framework::Megatron || !layerGraphs)
        return;
    if (t.recompute == Recompute::Full)
        check.error("training.cuda_graphs", "cuda_graphs.full_recompute", {std::string(toString(t.cudaGraphs))});
    if (check.ok({"parallel.zero_stage"}) && plan.parallel.zeroStage >= 3)
        check.error("training.cuda_graphs", "cuda_graphs.megatron_fsdp", {std::string(toString(t.cudaGraphs))});
    if (t.activationOffloadLayers > 0)
        check.error("training.cuda_graphs", "cuda_graphs.activation_offload", {std::string(toString(t.cudaGraphs))});
}

/// A whole-step graph under Megatron-Core captures the MoE layers only at fixed shapes: "when
/// --moe-expert-capacity-factor and --moe-pad-expert-input-to-capacity are not set, the resulting dynamic shapes
/// make MoE layers uncapturable" (megatron/core/transformer/moe/README.md, CUDA Graph, at core_v0.18.0), unless the
/// HybridEP dispatcher is given the rank's capacity (moe_expert_rank_capacity_factor), which sizes its buffers
/// without waiting on the host (fused_a2a.py HybridEPDispatch: num_permuted_tokens, non_blocking) and is how every
/// full-iteration MoE recipe of Megatron-Bridge runs. The all-to-all and DeepEP dispatchers wait for each layer's
/// token counts.
void checkStepGraphExperts(Checker &check)
{
    const Plan &plan = check.plan();
    const TrainingConfig &t = plan.training;
    if (t.framework != Framework::Megatron || t.cudaGraphs != CudaGraphs::Step || !plan.model.isMoe() ||
        t.capacityFactor || plan.parallel.expertDispatcher == ExpertDispatcher::HybridEp)
        return;
    check.error("training.cuda_graphs", "cuda_graphs.step_dynamic_experts",
                {std::string(toString(plan.parallel.expertDispatcher))});
}

/// Multi-head latent attention needs its latent and head sizes.
void checkLatentAttention(Checker &check)
{
    const ModelSpec &m = check.plan().model;
    if (!m.isMla())
        return;
    for (const auto &[key, value] :
         {std::pair{"model.kv_lora_rank", m.kvLoraRank}, std::pair{"model.qk_nope_head_dim", m.qkNopeHeadDim},
          std::pair{"model.qk_rope_head_dim", m.qkRopeHeadDim}, std::pair{"model.v_head_dim", m.vHeadDim}})
        if (value <= 0 && check.ok({key}))
            check.error(key, "mla.needs_size", {key});
}

/// Hybrid Mamba-Transformer models (model.hybrid_pattern): Megatron-Core's symbols, one per layer (megatron/core/ssm/
/// mamba_hybrid_layer_allocation.py, Symbols and validate_segment_layers: "M", "*", "-", "E"; the pattern's length
/// is num_layers), experts where E says so, and Mamba-2's head split (MambaMixer: "nheads must be evenly divisble by
/// tp_size", "ngroups must be evenly divisible by tp_size", "nheads must be evenly divisible by ngroups"). What
/// Trainplan does not model for them is refused, each with its rule: another framework than Megatron-Core's
/// MambaModel, ZeRO-3, context parallelism (Mamba's own all-to-all of heads), the zero-bubble schedules, partial
/// full recomputation, op-level checkpointing, activation offload and Muon.
void checkHybrid(Checker &check)
{
    const Plan &plan = check.plan();
    const ModelSpec &m = plan.model;
    if (!m.isHybrid())
        return;
    const char *key = "model.hybrid_pattern";
    const std::size_t bad = m.hybridPattern.find_first_not_of("M*-E");
    if (bad != std::string::npos) {
        // Every symbol before `bad` is ASCII, so it is also the character's position; name the whole UTF-8
        // character, not its first byte.
        const unsigned char lead = static_cast<unsigned char>(m.hybridPattern[bad]);
        const std::size_t width = lead < 0xC0 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
        check.error(key, "hybrid_pattern.symbols", {m.hybridPattern.substr(bad, width), num(std::int64_t(bad) + 1)});
        return;
    }
    if (check.ok({"model.layers"}) && std::int64_t(m.hybridPattern.size()) != m.layers)
        check.error(key, "hybrid_pattern.length", {num(std::int64_t(m.hybridPattern.size())), num(m.layers)});
    const bool routed = m.hybridPattern.find('E') != std::string::npos;
    if (routed && m.experts <= 0)
        check.error(key, "hybrid_pattern.needs_experts");
    else if (!routed && m.experts > 0)
        check.error("model.experts", "hybrid_pattern.experts_unplaced", {num(m.experts)});
    if (m.isMoe() && (m.denseLayers > 0 || m.moeLayerInterval > 1))
        check.warning("model.dense_layers", "hybrid_pattern.moe_placement");
    const TrainingConfig &t = plan.training;
    const ParallelConfig &par = plan.parallel;
    if (t.framework != Framework::Megatron)
        check.error("training.framework", "hybrid_pattern.framework", {std::string(toString(t.framework))});
    if (check.ok({"parallel.zero_stage"}) && par.zeroStage >= 3)
        check.error("parallel.zero_stage", "hybrid_pattern.zero3");
    if (check.ok({"parallel.context"}) && par.context > 1)
        check.error("parallel.context", "hybrid_pattern.context", {num(par.context)});
    if (splitsBackward(par.schedule))
        check.error("parallel.schedule", "hybrid_pattern.schedule", {std::string(toString(par.schedule))});
    if (t.recompute == Recompute::Ops ||
        (t.recompute == Recompute::Full && (t.recomputeLayers > 0 || t.recomputeInterval > 0 || t.recomputeChunk > 1)))
        check.error("training.recompute", "hybrid_pattern.recompute");
    if (t.activationOffloadLayers > 0)
        check.error("training.activation_offload_layers", "hybrid_pattern.offload", {num(t.activationOffloadLayers)});
    if (t.usesMuon())
        check.error("training.optimizer", "hybrid_pattern.muon");
    if (m.isMla())
        check.error("model.attention", "hybrid_pattern.mla");
    if (m.hybridPattern.find('M') == std::string::npos)
        return;
    const std::int64_t heads = m.mambaHeadCount();
    if (heads <= 0) {
        check.error("model.mamba_heads", "mamba_heads.positive");
        return;
    }
    if (check.ok({"model.mamba_groups"}) && heads % m.mambaGroups != 0)
        check.error("model.mamba_groups", "mamba_groups.divide_heads", {num(m.mambaGroups), num(heads)});
    if (check.ok({"parallel.tensor", "model.mamba_groups"}) &&
        (heads % par.tensor != 0 || m.mambaGroups % par.tensor != 0))
        check.error("parallel.tensor", "mamba.tensor", {num(par.tensor), num(heads), num(m.mambaGroups)});
}

/// Packed sequences: documents no longer than the sequence; without flash attention the masked scores are
/// still computed for the whole sequence, so the length changes nothing (said, not refused).
void checkDocumentLength(Checker &check)
{
    const Plan &plan = check.plan();
    const std::int64_t length = plan.training.documentLength;
    if (length <= 0 || !check.ok({"training.document_length", "model.seq_len"}))
        return;
    if (length > plan.model.seqLen)
        check.error("training.document_length", "document_length.at_most_sequence",
                    {std::to_string(length), std::to_string(plan.model.seqLen)});
    else if (!plan.training.flashAttention)
        check.warning("training.document_length", "document_length.needs_flash");
}

/// Sliding-window attention saves work only in a kernel that skips the tiles outside the band.
void checkSlidingWindow(Checker &check)
{
    const Plan &plan = check.plan();
    if (plan.model.slidingWindow > 0 && plan.model.slidingWindow < plan.model.seqLen && !plan.training.flashAttention)
        check.warning("model.sliding_window", "sliding_window.needs_flash");
    if (plan.model.fullAttentionInterval > 0 && plan.model.slidingWindow <= 0)
        check.warning("model.full_attention_interval", "full_attention_interval.needs_window");
    // A clamp limits the two halves of a gated activation's input; a plain MLP has no halves to clamp.
    if (plan.model.activationClamp > 0 && plan.model.mlp != MlpKind::SwiGlu)
        check.warning("model.activation_clamp", "activation_clamp.needs_gated");
}

/// A flash kernel runs heads up to its largest compiled head size: 128 for the Triton FlashAttention
/// (flash_attn_triton.py: "assert d <= 128, 'FlashAttention only support head dimensions up to 128'"), 256 for
/// FlashAttention-2 (flash-attn flash_api.cpp: "FlashAttention forward only supports head dimension at most 256").
void checkAttentionKernel(Checker &check)
{
    const Plan &plan = check.plan();
    const AttentionKernel kernel = plan.training.attentionKernel;
    if (!plan.training.flashAttention || kernel == AttentionKernel::Fused || !check.ok({"model.hidden", "model.heads"}))
        return;
    const std::int64_t limit = kernel == AttentionKernel::Triton ? 128 : 256, headDim = plan.model.headDim();
    if (headDim > limit)
        check.error("training.attention_kernel", "attention_kernel.head_size",
                    {spellingOf(kernel), std::to_string(limit), std::to_string(headDim)});
    // Neither kernel takes a learned sink logit (flash-attn's flash_attn_func has no such argument; Transformer
    // Engine's backend selection rules FlashAttention 2, 3 and 4 out for softmax_type "learnable" and runs it in
    // cuDNN's fused attention from cuDNN 9.13.1, else unfused: TE's attention backend selection matrix, main at
    // 815bf369).
    if (plan.model.attentionSinks)
        check.error("training.attention_kernel", "attention_kernel.sinks", {spellingOf(kernel)});
}

/// The newer software settings: each says when it does nothing, none is refused.
void checkSoftwareSettings(Checker &check)
{
    const Plan &plan = check.plan();
    const TrainingConfig &t = plan.training;
    if (t.recomputeLayers > 0 && t.recompute != Recompute::Full)
        check.warning("training.recompute_layers", "recompute_layers.needs_full");
    if (t.activationOffloadLayers > 0 && check.ok({"parallel.pipeline", "model.layers"}) &&
        t.activationOffloadLayers > plan.layersPerStage())
        check.warning("training.activation_offload_layers", "activation_offload_layers.beyond_stage",
                      {num(t.activationOffloadLayers), num(plan.layersPerStage())});
    if (plan.model.isMoe() && plan.parallel.expertCommOverlap &&
        check.ok({"training.global_batch", "training.micro_batch", "parallel.data"}) && plan.microbatches() < 2)
        check.warning("parallel.expert_comm_overlap", "expert_comm_overlap.one_microbatch");
    if (t.recomputeInterval > 1 && t.recompute != Recompute::Full)
        check.warning("training.recompute_interval", "recompute_interval.needs_full");
    if (t.recomputeInterval > 1 && t.recomputeLayers > 0)
        check.warning("training.recompute_interval", "recompute_interval.with_layers");
    if (t.recomputeChunk > 1 && t.recompute != Recompute::Full)
        check.warning("training.recompute_chunk", "recompute_chunk.needs_full");
    if (t.recomputeChunk > 1 && (t.recomputeLayers > 0 || t.recomputeInterval > 1))
        check.warning("training.recompute_chunk", "recompute_chunk.with_layers");
    if (t.compile && t.framework == Framework::Megatron)
        check.warning("training.compile", "compile.megatron");
    if (t.recompute == Recompute::Ops && t.framework == Framework::Megatron)
        check.warning("training.recompute", "recompute.ops_megatron");
    if (t.masterWeights != MasterFormat::Fp32 && !isSixteenBitStorage(t.precision))
        check.warning("training.master_weights", "master_weights.ignored", {std::string(toString(t.precision))});
    if (plan.model.isMoe() && t.fusedExpertMlp && t.precision != Precision::MXFP8)
        check.warning("training.fused_expert_mlp", "fused_expert_mlp.not_mxfp8", {std::string(toString(t.precision))});
}

/// Recomputation modules (Megatron-Core --recompute-modules) belong to selective recomputation and to the
/// part of the model they name.
void checkRecomputeModules(Checker &check)
{
    const Plan &plan = check.plan();
    const TrainingConfig &t = plan.training;
    const auto rule = [&](bool on, const char *key, bool applies, const char *needs) {
        if (!on)
            return;
        if (t.recompute != Recompute::Selective)
            check.error(key, "recompute_module.needs_selective", {key});
        else if (!applies)
            check.error(key, needs, {key});
    };
    rule(t.recomputeMlaUpProjection, "training.recompute_mla_up_proj", plan.model.isMla(),
         "recompute_module.needs_mla");
    rule(t.recomputeExpertActivation, "training.recompute_moe_act", plan.model.isMoe(), "recompute_module.needs_moe");
    rule(t.recomputeMoe, "training.recompute_moe", plan.model.isMoe(), "recompute_module.needs_moe");
    rule(t.recomputeDenseMlp, "training.recompute_mlp", true, "");
    if (t.recomputeAttention && t.recompute != Recompute::Ops)
        check.error("training.recompute_attention", "recompute_attention.needs_ops", {});
}

/// Tensor-parallel overlap chunks the all-gathers and reduce-scatters of sequence parallelism.
/// FSDP shards parameters, gradients and optimizer state (ZeRO-3); resharding is FSDP's switch.
void checkFramework(Checker &check)
{
    const Plan &plan = check.plan();
    if (plan.training.framework == Framework::Fsdp && check.ok({"parallel.zero_stage"}) && plan.parallel.zeroStage != 3)
        check.error("training.framework", "framework.fsdp_needs_zero3", {num(plan.parallel.zeroStage)});
    // Megatron-LM's arguments.py (d98e8a6, "Optimizer CPU offload check"): "When `--fp8-param-gather` is
    // enabled, the optimizer cpu offload must be used in conjunction with `--fp8-recipe delayed`". Only fp8 with
    // training.fp8_recipe delayed is; fp8 tensorwise, fp8-blockwise, mxfp8 and nvfp4 are not.
    const TrainingConfig &t = plan.training;
    const bool delayed = t.precision == Precision::FP8 && t.fp8Recipe == Fp8Recipe::Delayed;
    if (t.framework == Framework::Megatron && plan.parallel.offloadOptimizer && t.fp8ParamGather &&
        isLowPrecisionMatmul(t.precision) && !delayed)
        check.error("parallel.offload_optimizer", "offload.fp8_gather_needs_delayed",
                    {t.precision == Precision::FP8 ? std::string("fp8 tensorwise")
                                                    : std::string(toString(t.precision))});
    // Muon as Megatron-LM runs it (arguments.py at d98e8a6, "emerging optimizer check"): with the distributed
    // optimizer it becomes the layer-wise one, and "Emerging optimizer does not support Torch-FSDP2 / Megatron-FSDP".
    if (t.usesMuon() && t.framework != Framework::Megatron)
        check.error("training.optimizer", "optimizer.muon_framework",
                    {std::string(toString(t.framework)), toString(t.optimizer)});
    else if (t.usesMuon() && check.ok({"parallel.zero_stage"}) && plan.parallel.zeroStage > 1)
        check.error("training.optimizer", "optimizer.muon_zero", {num(plan.parallel.zeroStage), toString(t.optimizer)});
    // Megatron-Core's CPU optimizer steps Adam or SGD (HybridDeviceOptimizer: CPUAdam or CPUSGD); its Muon path,
    // _get_megatron_emerging_optimizer, has no offload (megatron/core/optimizer/__init__.py at d98e8a6).
    if (t.usesMuon() && plan.parallel.offloadOptimizer)
        check.error("parallel.offload_optimizer", "optimizer.muon_offload",
                    {t.optimizer == Optimizer::Muon ? "Muon" : "Adaptive Muon"});
    // Only Megatron-Core's HybridDeviceOptimizer splits a shard between host and GPU (offload_fraction); DeepSpeed's
    // ZeRO-Offload and FSDP2's CPUOffloadPolicy move every optimizer state they hold.
    if (plan.parallel.offloadOptimizer && t.framework != Framework::Megatron &&
        check.ok({"parallel.optimizer_offload_fraction"}) && plan.parallel.optimizerOffloadFraction < 1.0)
        check.error("parallel.optimizer_offload_fraction", "offload.fraction_needs_megatron",
                    {boundText(plan.parallel.optimizerOffloadFraction), std::string(toString(t.framework))});
    if (plan.parallel.offloadParameters && check.ok({"parallel.zero_stage"}) && !plan.parameterOffloadAllowed())
        check.error("parallel.offload_parameters", "offload.parameters_need_zero3",
                    {num(plan.parallel.zeroStage), std::string(toString(t.framework))});
}

/// torchao's rowwise float8 is torchao's: Transformer Engine scales per tensor (delayed or current), per block or
/// per MX group; and torchao all-gathers FSDP's parameters in float8 only with tensorwise scaling
/// (torchao/float8/config.py line 272 at 36027d82d: "enable_fsdp_float8_all_gather only supports tensorwise").
void checkFp8Recipe(Checker &check)
{
    const TrainingConfig &t = check.plan().training;
    if (t.fp8Recipe != Fp8Recipe::Rowwise || t.precision != Precision::FP8)
        return;
    if (t.framework != Framework::Fsdp)
        check.error("training.fp8_recipe", "fp8_recipe.rowwise_torchao", {toString(t.framework)});
    else if (t.fp8ParamGather)
        check.error("training.fp8_param_gather", "fp8_param_gather.rowwise");
}

/// Megatron-Core's first_last_layers_bf16 (training.bf16_layers_at_start / _at_end): refused with delayed scaling
/// ("Delayed scaling does not support first / last layer in BF16."), and each count at most a pipeline stage's
/// share of the layers (num_layers // pipeline_model_parallel_size; transformer_config.py __post_init__ at
/// d98e8a64d); without a FP8 or FP4 format under Megatron-Core every layer is in 16 bits already.
void checkBf16Layers(Checker &check)
{
    const Plan &plan = check.plan();
    const TrainingConfig &t = plan.training;
    // A module kept in BF16 needs a low-precision format to be kept out of.
    for (const auto &[path, on] : {std::pair{"training.bf16_attention_projections", t.bf16AttentionProjections},
                                   std::pair{"training.bf16_latent_projections", t.bf16LatentProjections},
                                   std::pair{"training.bf16_mtp_modules", t.bf16MtpModules}})
        if (on && !isLowPrecisionMatmul(t.precision))
            check.warning(path, "bf16_modules.needs_low_precision", {std::string(toString(t.precision))});
    if (t.bf16LayersAtStart <= 0 && t.bf16LayersAtEnd <= 0)
        return;
    const char *key = t.bf16LayersAtEnd > 0 ? "training.bf16_layers_at_end" : "training.bf16_layers_at_start";
    if (!plan.keepsBf16Layers()) {
        check.warning(key, "bf16_layers.needs_low_precision",
                      {std::string(toString(t.precision)), std::string(toString(t.framework))});
        return;
    }
    if (t.precision == Precision::FP8 && t.fp8Recipe == Fp8Recipe::Delayed)
        check.error(key, "bf16_layers.delayed");
    const std::int64_t perStage = plan.parallel.pipeline > 0 ? plan.model.layers / plan.parallel.pipeline : 0;
    for (const auto &[path, count] : {std::pair{"training.bf16_layers_at_start", t.bf16LayersAtStart},
                                      std::pair{"training.bf16_layers_at_end", t.bf16LayersAtEnd}})
        if (count > perStage)
            check.error(path, "bf16_layers.per_stage", {num(count), num(perStage)});
}

/// Hybrid sharding where the framework has it (Plan::shardGroupAllowed): a shard group of at least two ranks that
/// divides the data x context ranks.
void checkShardGroup(Checker &check)
{
    const Plan &plan = check.plan();
    const ParallelConfig &par = plan.parallel;
    if (par.shardGroup <= 0 || !check.ok({"parallel.data", "parallel.context"}))
        return;
    const std::int64_t dc = par.data * par.context;
    if (!plan.shardGroupAllowed())
        check.error("parallel.shard_group", "shard_group.needs_fsdp");
    else if (par.shardGroup < 2 || dc % par.shardGroup != 0)
        check.error("parallel.shard_group", "shard_group.divides_ranks", {num(par.shardGroup), num(dc)});
    else if (par.shardGroup == dc)
        check.warning("parallel.shard_group", "shard_group.all_ranks", {num(dc)});
}

/// Megatron-LM's stages-inside-data rank order (--use-tp-pp-dp-mapping, initialize.py line 395 at d98e8a6) is
/// Megatron-LM's alone (DeepSpeed's PipeModelDataParallelTopology and torchtitan's device mesh put the stages
/// outermost); Megatron-FSDP refuses it (Megatron-Bridge docs/training/megatron-fsdp.md line 69 at 067f987df);
/// with pipeline stages the experts' data ranks must be the attention's (parallel_state.py
/// initialize_model_parallel at d98e8a6: "When not using pp-last rank ordering, the data parallel size of the
/// attention and moe layers must be the same"), so expert x expert_tensor = tensor x context.
void checkRankOrder(Checker &check)
{
    const Plan &plan = check.plan();
    const ParallelConfig &par = plan.parallel;
    if (par.rankOrder != RankOrder::StagesInside)
        return;
    if (plan.training.framework != Framework::Megatron)
        check.error("parallel.rank_order", "rank_order.megatron_only", {toString(plan.training.framework)});
    else if (check.ok({"parallel.zero_stage"}) && par.zeroStage == 3)
        check.error("parallel.rank_order", "rank_order.megatron_fsdp");
    if (plan.model.isMoe() && par.pipeline > 1 &&
        check.ok({"parallel.expert", "parallel.expert_tensor", "parallel.tensor", "parallel.context"}) &&
        par.expert * par.expertTensorSize() != par.tensor * par.context)
        check.error("parallel.rank_order", "rank_order.expert_data",
                    {num(par.expert), num(par.expertTensorSize()), num(par.tensor), num(par.context)});
}

/// ZeRO++ where DeepSpeed has it (Plan::zeroPlusPlusAllowed), hpZ's group dividing the shard ranks.
void checkZeroPlusPlus(Checker &check)
{
    const Plan &plan = check.plan();
    const ParallelConfig &par = plan.parallel;
    const std::pair<const char *, bool> options[] = {{"parallel.zero_quantized_weights", par.zeroQuantizedWeights},
                                                     {"parallel.zero_hpz_partition", par.zeroHpzPartition > 1},
                                                     {"parallel.zero_quantized_gradients", par.zeroQuantizedGradients}};
    for (const auto &[key, on] : options)
        if (on && !plan.zeroPlusPlusAllowed())
            check.error(key, "zero_plus_plus.needs_deepspeed_zero3", {key});
    if (par.zeroHpzPartition > 1 && plan.zeroPlusPlusAllowed() && check.ok({"parallel.data", "parallel.context"}) &&
        par.hpzRanks() == 1)
        check.error("parallel.zero_hpz_partition", "zero_hpz_partition.divides_ranks",
                    {num(par.zeroHpzPartition), num(par.shardRanks())});
}

void checkOverlap(Checker &check)
{
    const Plan &plan = check.plan();
    if (plan.parallel.tensorCommOverlap && plan.parallel.tensor > 1 && !plan.training.sequenceParallel)
        check.error("parallel.tensor_comm_overlap", "tensor_comm_overlap.needs_sequence_parallel");
}

/// Megatron-Core's tensor-parallel overlap next to what needs more than one hardware queue (the expert all-to-all
/// overlap, Megatron-FSDP) on a part that keeps launch order only with one (Plan::tensorOverlapLost): said on the
/// overlap's key, naming the device and what takes the queues; the estimate counts the collectives as exposed.
void checkOverlapQueues(Checker &check, const Catalog &catalog)
{
    const Plan &plan = check.plan();
    const ClusterConfig &cl = plan.cluster;
    std::vector<std::string> ids;
    for (std::size_t i = 0; i < cl.nodeGroups.size() && i < kMaxNodeGroups; ++i)
        ids.push_back(cl.nodeGroups[i].device);
    if (ids.empty())
        ids.push_back(cl.device);
    for (const std::string &id : ids) {
        const DeviceSpec *device = catalog.device(id, cl.customDevices);
        if (!device || !plan.tensorOverlapLost(*device))
            continue;
        check.warning("parallel.tensor_comm_overlap", "tensor_comm_overlap.lost_to_queues",
                      {device->name, plan.overlapsExpertAllToAll() ? "parallel.expert_comm_overlap"
                                                                   : "Megatron-FSDP (ZeRO stage 3)"});
        return;
    }
}

/// tensor x pipeline x context must divide the GPUs (then the data-parallel replicas are GPUs / (tensor x
/// pipeline x context)). The window derives the replicas, so a broken split is reported on the key that
/// breaks it.
void checkGpuCount(Checker &check)
{
    const ParallelConfig &par = check.plan().parallel;
    const ClusterConfig &cl = check.plan().cluster;
    const ModelSpec &m = check.plan().model;
    if (!check.ok({"parallel.data", "parallel.tensor", "parallel.pipeline", "parallel.context", "cluster.gpus_per_node",
                   "cluster.nodes"}))
        return;
    const std::int64_t c = par.context;
    const double workers = double(par.data) * double(par.tensor) * double(par.pipeline) * double(c);
    const double gpus = double(cl.gpusPerNode) * double(cl.nodes);
    if (workers == gpus)
        return;
    const auto g = std::int64_t(gpus);
    // values: tensor, pipeline, context, the GPUs, nodes and GPUs per node.
    const char *rule = c > 1 ? "gpus.split_with_context" : "gpus.split";
    const std::vector<std::string> values{num(par.tensor), num(par.pipeline), num(c),
                                          num(g),          num(cl.nodes),     num(cl.gpusPerNode)};
    if (g % (par.tensor * par.pipeline * c) == 0) {
        check.error("parallel.data", c > 1 ? "data.derived_with_context" : "data.derived",
                    {num(g), num(par.tensor), num(par.pipeline), num(c), num(g / (par.tensor * par.pipeline * c)),
                     num(par.data)});
    } else if (check.hasError("parallel.pipeline") || check.hasError("parallel.tensor") ||
               check.hasError("parallel.context")) {
        return; // already reported on the key, with values that keep this rule too
    } else if (c > 1 && g % (par.tensor * par.pipeline) == 0) {
        check.error("parallel.context", rule, values,
                    nearestValid(c, std::min<std::int64_t>(g, 65536), [&](std::int64_t v) {
                        return g % (par.tensor * par.pipeline * v) == 0 && m.seqLen % (2 * v) == 0;
                    }));
    } else if (g % (par.tensor * c) == 0 && par.pipeline > 1) {
        check.error("parallel.pipeline", rule, values, nearestValid(par.pipeline, m.layers, [&](std::int64_t p) {
                        return g % (par.tensor * c * p) == 0 && m.layers > 0 && m.layers % (p * par.virtualStages) == 0;
                    }));
    } else {
        check.error("parallel.tensor", rule, values,
                    nearestValid(par.tensor, std::min<std::int64_t>(g, 65536), [&](std::int64_t t) {
                        return g % (t * par.pipeline * c) == 0 && tensorKeepsModel(m, t);
                    }));
    }
}

} // namespace

namespace {

Problems validate(const Plan &plan, const Catalog &catalog, bool layoutOnly)
{
    Problems problems;
    Checker check(plan, problems);
    check.checkRanges(layoutOnly);
    checkModelShape(check);
    checkTensor(check);
    checkContext(check);
    checkExperts(check);
    checkLatentAndMtp(check);
    checkExpertParallel(check);
    checkExpertCommOverlap(check);
    checkPagedStash(check);
    checkLayerGraphs(check);
    checkStepGraphExperts(check);
    checkSoftwareOutsideMegatron(check);
    checkEmbeddingWgradDeferral(check);
    checkLatentAttention(check);
    checkHybrid(check);
    checkRecomputeModules(check);
    checkDocumentLength(check);
    checkSlidingWindow(check);
    checkAttentionKernel(check);
    checkSoftwareSettings(check);
    checkFramework(check);
    checkShardGroup(check);
    checkFp8Recipe(check);
    checkBf16Layers(check);
    checkRankOrder(check);
    checkZeroPlusPlus(check);
    checkOverlap(check);
    checkPipeline(check);
    checkBatch(check);
    checkScaleUpDomain(check);
    checkDevicesAndLinks(check, catalog);
    checkOverlapQueues(check, catalog);
    checkCustomDevices(check, catalog);
    checkNodeGroups(check);
    checkGpuCount(check);
    return problems;
}

} // namespace

Problems validatePlan(const Plan &plan, const Catalog &catalog)
{
    return validate(plan, catalog, false);
}

Problems validateLayout(const Plan &plan, const Catalog &catalog)
{
    return validate(plan, catalog, true);
}

} // namespace trainplan
