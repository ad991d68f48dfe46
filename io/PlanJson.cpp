#include "io/PlanJson.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>

#include <cmath>

#include "io/CatalogJson.h"
#include "io/JsonDuplicates.h"
#include "io/JsonReader.h"
#include "core/plan/PlanValidation.h"

namespace trainplan::io {

namespace {

constexpr const char *kPrecisions = "\"fp32\", \"tf32\", \"fp16\", \"bf16\", \"fp8\"";
constexpr const char *kOptimizers = "\"adam\", \"sgd\"";
constexpr const char *kRecomputes = "\"none\", \"selective\", \"full\"";
constexpr const char *kSchedules = "\"gpipe\", \"1f1b\", \"interleaved\", \"zb-h1\"";
constexpr const char *kMlps = "\"gelu\", \"swiglu\"";
constexpr const char *kNorms = "\"layernorm\", \"rmsnorm\"";
constexpr const char *kPositions = "\"learned\", \"rotary\"";

std::string presetList(const Catalog &catalog)
{
    std::string list;
    for (const ModelSpec &m : catalog.models())
        list += (list.empty() ? "" : ", ") + m.presetId;
    return list;
}

void readModel(JsonReader r, const Catalog &catalog, ModelSpec &model)
{
    std::string preset;
    if (r.readString("preset", preset)) {
        if (const ModelSpec *base = catalog.model(preset))
            model = *base;
        else
            r.error("preset", "unknown preset \"" + preset + "\" (known: " + presetList(catalog) + ")");
    } else {
        // A custom shape needs its defining sizes; the rest have defaults.
        for (const char *key : {"layers", "hidden", "heads", "vocab", "seq_len"})
            r.requireKey(key);
        model.name = "custom";
    }
    const bool fromPreset = !model.presetId.empty();

    r.readString("name", model.name);
    r.readInteger("layers", model.layers);
    r.readInteger("hidden", model.hidden);
    r.readInteger("heads", model.heads);
    if (!r.readInteger("kv_heads", model.kvHeads) && !fromPreset)
        model.kvHeads = model.heads;
    if (!r.readInteger("ffn_hidden", model.ffnHidden) && !fromPreset)
        model.ffnHidden = 4 * model.hidden;
    r.readInteger("vocab", model.vocab);
    r.readInteger("seq_len", model.seqLen);
    const MlpKind mlpBefore = model.mlp;
    const bool mlpRead = r.readEnum("mlp", model.mlp, mlpFromString, kMlps);
    if (!fromPreset || (mlpRead && model.mlp != mlpBefore))
        applyArchitectureDefaults(model);
    r.readBool("tied_embeddings", model.tiedEmbeddings);
    r.readEnum("norm", model.norm, normFromString, kNorms);
    r.readBool("linear_bias", model.linearBias);
    r.readEnum("position_embedding", model.position, positionFromString, kPositions);
    r.readBool("dropout", model.dropout);
    r.reportUnknownKeys();
}

void readTraining(JsonReader r, TrainingConfig &t)
{
    r.requireKey("global_batch");
    r.readInteger("global_batch", t.globalBatch);
    r.readInteger("micro_batch", t.microBatch);
    r.readEnum("precision", t.precision, precisionFromString, kPrecisions);
    r.readEnum("optimizer", t.optimizer, optimizerFromString, kOptimizers);
    r.readEnum("recompute", t.recompute, recomputeFromString, kRecomputes);
    r.readBool("sequence_parallel", t.sequenceParallel);
    r.readBool("flash_attention", t.flashAttention);
    r.readBool("fp32_gradients", t.fp32Gradients);
    r.readNumber("allocator_reserve_fraction", t.allocatorReserveFraction);
    r.readBool("fused_kernels", t.fusedKernels);
    r.readNumber("padding_fraction", t.paddingFraction);
    r.reportUnknownKeys();
}

/// Returns whether `data` was given explicitly (otherwise it is derived from the GPU count).
bool readParallel(JsonReader r, ParallelConfig &p)
{
    const bool dataGiven = r.readInteger("data", p.data);
    r.readInteger("tensor", p.tensor);
    r.readInteger("pipeline", p.pipeline);
    r.readInteger("virtual_stages", p.virtualStages);
    r.readEnum("schedule", p.schedule, scheduleFromString, kSchedules);
    r.readInteger("zero_stage", p.zeroStage);
    r.readBool("offload_optimizer", p.offloadOptimizer);
    r.readNumber("bucket_bytes", p.bucketBytes);
    r.readBool("overlap_grad_reduce", p.overlapGradReduce);
    r.reportUnknownKeys();
    return dataGiven;
}

void readCluster(JsonReader r, ClusterConfig &c)
{
    if (!r.has("node_groups"))
        r.requireKey("device");
    const bool deviceGiven = r.readString("device", c.device);
    const bool perNodeGiven = r.readInteger("gpus_per_node", c.gpusPerNode);
    const bool nodesGiven = r.readInteger("nodes", c.nodes);
    r.readString("intra_node_link", c.intraNodeLink);
    r.readString("network", c.network);
    r.readNumber("intra_node_bandwidth", c.overrides.intraNodeBandwidthBytesPerSecond);
    r.readNumber("intra_node_latency", c.overrides.intraNodeLatencySeconds);
    r.readNumber("network_bandwidth", c.overrides.networkBandwidthBytesPerSecond);
    r.readNumber("network_latency", c.overrides.networkLatencySeconds);
    r.readNumber("runtime_context_bytes", c.overrides.runtimeContextBytes);
    for (JsonReader &d : r.objects("custom_devices")) {
        DeviceSpec device;
        readDevice(d, device);
        d.reportUnknownKeys();
        c.customDevices.push_back(std::move(device));
    }
    std::vector<NodeGroup> groups;
    for (JsonReader &g : r.objects("node_groups")) {
        NodeGroup group;
        g.requireKey("device");
        g.requireKey("nodes");
        g.readString("template", group.templateName);
        g.readString("device", group.device);
        g.readInteger("gpus_per_node", group.gpusPerNode);
        g.readInteger("nodes", group.nodes);
        g.readString("intra_node_link", group.intraNodeLink);
        g.reportUnknownKeys();
        groups.push_back(std::move(group));
    }
    if (!groups.empty()) {
        // The summary keys are optional with node groups; when given they must agree (validation says so).
        ClusterConfig derived = c;
        derived.setGroups(groups);
        if (!deviceGiven)
            c.device = derived.device;
        if (!perNodeGiven)
            c.gpusPerNode = derived.gpusPerNode;
        if (!nodesGiven)
            c.nodes = derived.nodes;
        if (!r.has("intra_node_link"))
            c.intraNodeLink = derived.intraNodeLink;
        c.nodeGroups = std::move(groups);
    }
    r.reportUnknownKeys();
}

} // namespace

PlanReadResult readPlan(const QByteArray &json, const Catalog &catalog)
{
    PlanReadResult result;
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        result.problems.push_back({Severity::Error, "",
                                   "malformed JSON at byte " + std::to_string(parseError.offset) + ": "
                                       + parseError.errorString().toStdString()});
        return result;
    }
    if (!doc.isObject()) {
        result.problems.push_back({Severity::Error, "", "a plan must be a JSON object"});
        return result;
    }
    if (const auto duplicate = findDuplicateKey(json)) {
        result.problems.push_back({Severity::Error, duplicate->toStdString(), "appears twice in the same object"});
        return result;
    }

    Problems &problems = result.problems;
    JsonReader root(doc.object(), QString(), problems);
    std::string format;
    root.requireKey("format");
    if (root.readString("format", format) && format != kPlanFormat)
        root.error("format", "must be \"" + std::string(kPlanFormat) + "\" (got \"" + format + "\")");
    std::int64_t version = 0;
    root.requireKey("version");
    if (root.readInteger("version", version) && version != kPlanVersion)
        root.error("version", version > kPlanVersion
                                  ? "file written by a newer Trainplan (version " + std::to_string(version)
                                        + "); this build reads version 1"
                                  : "must be 1 (got " + std::to_string(version) + ")");

    Plan plan;
    root.readString("name", plan.name);
    for (const char *key : {"model", "training", "parallel", "cluster"})
        root.requireKey(key);
    readModel(root.object("model"), catalog, plan.model);
    readTraining(root.object("training"), plan.training);
    const bool dataGiven = readParallel(root.object("parallel"), plan.parallel);
    readCluster(root.object("cluster"), plan.cluster);
    {
        JsonReader run = root.object("run");
        run.readNumber("token_budget", plan.run.tokenBudget);
        run.readNumber("price_per_gpu_hour", plan.run.pricePerGpuHour);
        run.readNumber("checkpoint_bandwidth", plan.run.checkpointBandwidth);
        run.readBool("sharded_checkpoint", plan.run.shardedCheckpoint);
        run.readNumber("gpu_mtbf_hours", plan.run.gpuMtbfHours);
        run.readNumber("restart_seconds", plan.run.restartSeconds);
        run.reportUnknownKeys();
    }
    root.reportUnknownKeys();

    // parallel.data defaults to the GPUs left after tensor and pipeline, when they divide evenly.
    if (!dataGiven)
        deriveDataParallel(plan);
    if (plan.name.empty())
        plan.name = plan.model.name;

    if (hasErrors(problems))
        return result;
    const Problems validation = validatePlan(plan, catalog);
    problems.insert(problems.end(), validation.begin(), validation.end());
    if (!hasErrors(problems))
        result.plan = std::move(plan);
    return result;
}

std::optional<QByteArray> readPlanBytes(const QString &path, Problems &problems)
{
    QFile file(path);
    const bool ok = path == QLatin1String("-") ? file.open(stdin, QIODevice::ReadOnly) : file.open(QIODevice::ReadOnly);
    if (!ok) {
        problems.push_back({Severity::Error, "", "cannot read " + path.toStdString() + ": " + file.errorString().toStdString()});
        return std::nullopt;
    }
    // A plan is a few kilobytes; refuse anything absurd rather than parse gigabytes.
    const QByteArray bytes = file.read(kMaxPlanBytes + 1);
    if (bytes.size() > kMaxPlanBytes) {
        problems.push_back({Severity::Error, "", path.toStdString() + " is larger than 16 MiB: not a plan file"});
        return std::nullopt;
    }
    return bytes;
}

PlanReadResult readPlanFile(const QString &path, const Catalog &catalog)
{
    PlanReadResult result;
    const std::optional<QByteArray> bytes = readPlanBytes(path, result.problems);
    return bytes ? readPlan(*bytes, catalog) : result;
}

namespace {

QJsonObject modelToJson(const ModelSpec &m, const Catalog &catalog)
{
    QJsonObject o;
    const ModelSpec *preset = m.presetId.empty() ? nullptr : catalog.model(m.presetId);
    if (preset)
        o["preset"] = QString::fromStdString(m.presetId);
    const auto put = [&](const char *key, auto mine, auto theirs, QJsonValue value) {
        if (!preset || mine != theirs)
            o[QLatin1String(key)] = value;
    };
    const ModelSpec empty;
    const ModelSpec &base = preset ? *preset : empty;
    put("name", m.name, base.name, QString::fromStdString(m.name));
    put("layers", m.layers, base.layers, double(m.layers));
    put("hidden", m.hidden, base.hidden, double(m.hidden));
    put("heads", m.heads, base.heads, double(m.heads));
    put("kv_heads", m.kvHeads, base.kvHeads, double(m.kvHeads));
    put("ffn_hidden", m.ffnHidden, base.ffnHidden, double(m.ffnHidden));
    put("vocab", m.vocab, base.vocab, double(m.vocab));
    put("seq_len", m.seqLen, base.seqLen, double(m.seqLen));
    put("mlp", m.mlp, base.mlp, QLatin1String(toString(m.mlp)));
    put("tied_embeddings", m.tiedEmbeddings, base.tiedEmbeddings, m.tiedEmbeddings);
    put("norm", m.norm, base.norm, QLatin1String(toString(m.norm)));
    put("linear_bias", m.linearBias, base.linearBias, m.linearBias);
    put("position_embedding", m.position, base.position, QLatin1String(toString(m.position)));
    put("dropout", m.dropout, base.dropout, m.dropout);
    return o;
}

} // namespace

QByteArray writePlan(const Plan &plan, const Catalog &catalog)
{
    QJsonObject root;
    root["format"] = QLatin1String(kPlanFormat);
    root["version"] = kPlanVersion;
    root["name"] = QString::fromStdString(plan.name);
    root["model"] = modelToJson(plan.model, catalog);

    const TrainingConfig &t = plan.training;
    root["training"] = QJsonObject{
        {"global_batch", double(t.globalBatch)},
        {"micro_batch", double(t.microBatch)},
        {"precision", QLatin1String(toString(t.precision))},
        {"optimizer", QLatin1String(toString(t.optimizer))},
        {"recompute", QLatin1String(toString(t.recompute))},
        {"sequence_parallel", t.sequenceParallel},
        {"flash_attention", t.flashAttention},
        {"fp32_gradients", t.fp32Gradients},
        {"allocator_reserve_fraction", t.allocatorReserveFraction},
        {"fused_kernels", t.fusedKernels},
        {"padding_fraction", t.paddingFraction},
    };
    const ParallelConfig &p = plan.parallel;
    root["parallel"] = QJsonObject{
        {"data", double(p.data)},
        {"tensor", double(p.tensor)},
        {"pipeline", double(p.pipeline)},
        {"virtual_stages", double(p.virtualStages)},
        {"schedule", QLatin1String(toString(p.schedule))},
        {"zero_stage", p.zeroStage},
        {"offload_optimizer", p.offloadOptimizer},
        {"bucket_bytes", p.bucketBytes},
        {"overlap_grad_reduce", p.overlapGradReduce},
    };
    const ClusterConfig &c = plan.cluster;
    QJsonObject cluster{
        {"device", QString::fromStdString(c.device)},
        {"gpus_per_node", double(c.gpusPerNode)},
        {"nodes", double(c.nodes)},
    };
    const auto putOptional = [&](const char *key, const std::optional<double> &v) {
        if (v)
            cluster[QLatin1String(key)] = *v;
    };
    putOptional("intra_node_bandwidth", c.overrides.intraNodeBandwidthBytesPerSecond);
    putOptional("intra_node_latency", c.overrides.intraNodeLatencySeconds);
    putOptional("network_bandwidth", c.overrides.networkBandwidthBytesPerSecond);
    putOptional("network_latency", c.overrides.networkLatencySeconds);
    putOptional("runtime_context_bytes", c.overrides.runtimeContextBytes);
    if (!c.intraNodeLink.empty())
        cluster["intra_node_link"] = QString::fromStdString(c.intraNodeLink);
    if (!c.network.empty())
        cluster["network"] = QString::fromStdString(c.network);
    if (!c.nodeGroups.empty()) {
        QJsonArray groups;
        for (const NodeGroup &g : c.nodeGroups) {
            QJsonObject o{{"device", QString::fromStdString(g.device)},
                          {"gpus_per_node", double(g.gpusPerNode)},
                          {"nodes", double(g.nodes)}};
            if (!g.templateName.empty())
                o["template"] = QString::fromStdString(g.templateName);
            if (!g.intraNodeLink.empty())
                o["intra_node_link"] = QString::fromStdString(g.intraNodeLink);
            groups.append(o);
        }
        cluster["node_groups"] = groups;
    }
    if (!c.customDevices.empty()) {
        QJsonArray devices;
        for (const DeviceSpec &d : c.customDevices)
            devices.append(deviceToJson(d));
        cluster["custom_devices"] = devices;
    }
    root["cluster"] = cluster;
    const RunConfig &run = plan.run;
    root["run"] = QJsonObject{
        {"token_budget", run.tokenBudget},
        {"price_per_gpu_hour", run.pricePerGpuHour},
        {"checkpoint_bandwidth", run.checkpointBandwidth},
        {"sharded_checkpoint", run.shardedCheckpoint},
        {"gpu_mtbf_hours", run.gpuMtbfHours},
        {"restart_seconds", run.restartSeconds},
    };
    return QJsonDocument(root).toJson(QJsonDocument::Indented);
}

} // namespace trainplan::io
