#include "io/plan/CatalogJson.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <optional>

#include "io/plan/JsonDuplicates.h"
#include "io/plan/JsonReader.h"
#include "io/plan/PlanJson.h"
#include "core/plan/Plan.h"
#include "core/plan/PlanKeys.h"
#include "io/plan/ProblemWords.h"

namespace trainplan::io {

namespace {

/// Parses `json` and checks its format tag; nullopt (and the problem) when it is not a JSON object.
std::optional<QJsonObject> parseCatalogDocument(const QByteArray &json, const char *format, Problems &problems)
{
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError || !doc.isObject()) {
        problems.push_back(
            wordedProblem(Severity::Error, "", "malformed JSON: " + parseError.errorString().toStdString()));
        return std::nullopt;
    }
    if (const auto duplicate = findDuplicateKey(json)) {
        problems.push_back(
            wordedProblem(Severity::Error, duplicate->toStdString(), "appears twice in the same object"));
        return std::nullopt;
    }
    const QJsonObject root = doc.object();
    if (root.value("format").toString() != QLatin1String(format))
        problems.push_back(wordedProblem(Severity::Error, "format", std::string("must be \"") + format + "\""));
    return root;
}

/// Calls `readEntry` for each element of `arrayKey`.
template<typename ReadEntry>
void readEntries(const QJsonObject &root, const char *arrayKey, Problems &problems, ReadEntry readEntry)
{
    const QJsonArray entries = root.value(QLatin1String(arrayKey)).toArray();
    for (qsizetype i = 0; i < entries.size(); ++i) {
        const QString path = QStringLiteral("%1[%2]").arg(QLatin1String(arrayKey)).arg(i);
        JsonReader r(entries.at(i).toObject(), path, problems);
        const std::size_t before = problems.size();
        // The entry is added only if reading it found no error (checked after all its keys are read).
        const auto entryValid = [&problems, before] {
            for (std::size_t k = before; k < problems.size(); ++k)
                if (problems[k].isError())
                    return false;
            return true;
        };
        readEntry(r, entryValid);
        r.reportUnknownKeys();
    }
}

/// A document with one array of entries (devices.json, models.json).
template<typename ReadEntry>
Problems readCatalogDocument(const QByteArray &json, const char *format, const char *arrayKey, ReadEntry readEntry)
{
    Problems problems;
    if (const std::optional<QJsonObject> root = parseCatalogDocument(json, format, problems))
        readEntries(*root, arrayKey, problems, readEntry);
    return problems;
}

} // namespace

namespace {

/// Every figure the estimators divide by or add up is checked: no device can make a step time negative or
/// infinite (a fuzzed catalog with a negative latency did).
void checkDevice(JsonReader &r, const DeviceSpec &d)
{
    const auto positive = [&](const char *key, double value) {
        if (!(value > 0))
            r.error(key, "must be positive");
    };
    const auto nonNegative = [&](const char *key, double value) {
        if (!(value >= 0))
            r.error(key, "must not be negative");
    };
    positive("memory_bytes", d.memoryBytes);
    positive("memory_bandwidth", d.memoryBandwidthBytesPerSecond);
    positive("intra_node_bandwidth", d.intraNodeBandwidthBytesPerSecond);
    positive("network_bandwidth", d.networkBandwidthBytesPerSecond);
    nonNegative("runtime_context_bytes", d.runtimeContextBytes);
    nonNegative("board_power_watts", d.boardPowerWatts);
    nonNegative("intra_node_latency", d.intraNodeLatencySeconds);
    nonNegative("network_latency", d.networkLatencySeconds);
    nonNegative("host_link_bandwidth", d.hostLinkBandwidthBytesPerSecond);
    nonNegative("host_memory_bandwidth", d.hostMemoryBandwidthBytesPerSecond);
    nonNegative("multiprocessors", d.multiprocessors);
    nonNegative("host_launch_overhead", d.hostLaunchSeconds);
    nonNegative("host_enqueue_overhead", d.hostEnqueueSeconds);
    nonNegative("schedule_step_overhead", d.scheduleStepSeconds);
    // Physical ranges (as the plan's keys have): no device, however odd, makes an estimate infinite.
    const auto within = [&](const char *key, double value, double low, double high, const char *unit) {
        if (value > 0 && value < low)
            r.error(key, "must be at least " + QString::number(low, 'g', 6).toStdString() + " " + unit);
        if (value > high)
            r.error(key, "must be at most " + QString::number(high, 'g', 6).toStdString() + " " + unit);
    };
    within("memory_bytes", d.memoryBytes, 1e6, 1e13, "bytes");
    within("memory_bandwidth", d.memoryBandwidthBytesPerSecond, 1e6, 1e14, "bytes/s");
    within("intra_node_bandwidth", d.intraNodeBandwidthBytesPerSecond, 1e6, 1e14, "bytes/s");
    within("network_bandwidth", d.networkBandwidthBytesPerSecond, 1e6, 1e14, "bytes/s");
    within("host_link_bandwidth", d.hostLinkBandwidthBytesPerSecond, 1e6, 1e14, "bytes/s");
    within("host_memory_bandwidth", d.hostMemoryBandwidthBytesPerSecond, 1e6, 1e14, "bytes/s");
    within("multiprocessors", d.multiprocessors, 1, 4096, "multiprocessors");
    within("host_launch_overhead", d.hostLaunchSeconds, 0, 0.01, "s");
    within("host_enqueue_overhead", d.hostEnqueueSeconds, 0, 0.01, "s");
    within("runtime_context_bytes", d.runtimeContextBytes, 0, 1e12, "bytes");
    within("board_power_watts", d.boardPowerWatts, 0, 1e5, "W");
    within("intra_node_latency", d.intraNodeLatencySeconds, 0, 0.999, "s");
    within("network_latency", d.networkLatencySeconds, 0, 0.999, "s");
    within("schedule_step_overhead", d.scheduleStepSeconds, 0, 0.1, "s");
    for (std::size_t i = 0; i < kPrecisionCount; ++i)
        if (d.peakFlopsPerSecond[i] > 1e18)
            r.error("peak_flops", std::string(toString(Precision(i))) + " must be at most 1e18 FLOP/s");
    if (d.matmulEfficiency.halfSize > 1e18 || d.memoryEfficiency.halfSize > 1e18)
        r.error("matmul_efficiency", "half sizes must be at most 1e18");
    if (!(d.flash2AttentionShare > 0 && d.flash2AttentionShare <= 1))
        r.error("flash2_attention_share", "must be in (0, 1]");
    if (!(d.attentionEfficiency > 0 && d.attentionEfficiency <= 1))
        r.error("attention_efficiency", "must be in (0, 1]");
    if (!(d.lowPrecisionEfficiency > 0 && d.lowPrecisionEfficiency <= 1))
        r.error("low_precision_efficiency", "must be in (0, 1]");
    if (!(d.fp4Efficiency >= 0 && d.fp4Efficiency <= 1))
        r.error("fp4_efficiency", "must be in [0, 1] (0: the low-precision efficiency)");
}

} // namespace

void readDevice(JsonReader &r, DeviceSpec &d)
{
    for (const char *key : {"id", "name", "peak_flops", "memory_bytes", "memory_bandwidth"})
        r.requireKey(key);
    r.readString("id", d.id);
    r.readString("name", d.name);
    r.readString("source", d.source);
    r.readString("generation", d.generation);
    std::string notes;
    r.readString("notes", notes);
    JsonReader peaks = r.object("peak_flops");
    for (std::size_t i = 0; i < kPrecisionCount; ++i) {
        const char *name = toString(Precision(i));
        peaks.readNumber(name, d.peakFlopsPerSecond[i]);
        if (d.peakFlopsPerSecond[i] < 0)
            peaks.error(name, "must not be negative");
    }
    peaks.reportUnknownKeys();
    // Blockwise-scaled FP8 runs on the FP8 tensor cores: their peak unless the file gives another.
    double &blockwise = d.peakFlopsPerSecond[std::size_t(Precision::FP8Blockwise)];
    if (blockwise == 0)
        blockwise = d.peakFlopsPerSecond[std::size_t(Precision::FP8)];
    r.readNumber("memory_bytes", d.memoryBytes);
    r.readNumber("memory_bandwidth", d.memoryBandwidthBytesPerSecond);
    r.readNumber("intra_node_bandwidth", d.intraNodeBandwidthBytesPerSecond);
    r.readNumber("network_bandwidth", d.networkBandwidthBytesPerSecond);
    r.readNumber("runtime_context_bytes", d.runtimeContextBytes);
    r.readNumber("board_power_watts", d.boardPowerWatts);
    const auto readCurve = [&](const char *key, const char *halfKey, EfficiencyCurve &curve) {
        JsonReader c = r.object(key);
        c.readNumber("max", curve.max);
        c.readNumber(halfKey, curve.halfSize);
        if (!(curve.max > 0 && curve.max <= 1))
            c.error("max", "must be in (0, 1]");
        if (curve.halfSize < 0)
            c.error(halfKey, "must not be negative");
        c.reportUnknownKeys();
    };
    readCurve("matmul_efficiency", "half_flops", d.matmulEfficiency);
    readCurve("memory_efficiency", "half_bytes", d.memoryEfficiency);
    r.readNumber("attention_efficiency", d.attentionEfficiency);
    r.readNumber("flash2_attention_share", d.flash2AttentionShare);
    r.readNumber("low_precision_efficiency", d.lowPrecisionEfficiency);
    r.readNumber("fp4_efficiency", d.fp4Efficiency);
    r.readNumber("intra_node_latency", d.intraNodeLatencySeconds);
    r.readNumber("network_latency", d.networkLatencySeconds);
    r.readNumber("intra_node_efficiency", d.intraNodeEfficiency);
    r.readNumber("network_efficiency", d.networkEfficiency);
    r.readNumber("network_alltoall_efficiency", d.networkAllToAllEfficiency);
    r.readNumber("intra_node_alltoall_efficiency", d.intraNodeAllToAllEfficiency);
    r.readNumber("flex_dispatch_efficiency", d.flexDispatchEfficiency);
    r.readNumber("host_link_bandwidth", d.hostLinkBandwidthBytesPerSecond);
    r.readNumber("host_memory_bandwidth", d.hostMemoryBandwidthBytesPerSecond);
    r.readNumber("multiprocessors", d.multiprocessors);
    r.readNumber("host_launch_overhead", d.hostLaunchSeconds);
    r.readNumber("host_enqueue_overhead", d.hostEnqueueSeconds);
    r.readNumber("schedule_step_overhead", d.scheduleStepSeconds);
    if (!(d.intraNodeEfficiency > 0 && d.intraNodeEfficiency <= 1))
        r.error("intra_node_efficiency", "must be in (0, 1]");
    if (!(d.networkEfficiency > 0 && d.networkEfficiency <= 1))
        r.error("network_efficiency", "must be in (0, 1]");
    if (!(d.networkAllToAllEfficiency >= 0 && d.networkAllToAllEfficiency <= 1))
        r.error("network_alltoall_efficiency", "must be in [0, 1] (0: as network_efficiency)");
    if (!(d.intraNodeAllToAllEfficiency >= 0 && d.intraNodeAllToAllEfficiency <= 1))
        r.error("intra_node_alltoall_efficiency", "must be in [0, 1] (0: as intra_node_efficiency)");
    if (!(d.flexDispatchEfficiency > 0 && d.flexDispatchEfficiency <= 1))
        r.error("flex_dispatch_efficiency", "must be in (0, 1]");
    checkDevice(r, d);
}

QJsonObject deviceToJson(const DeviceSpec &d)
{
    QJsonObject peaks;
    for (std::size_t i = 0; i < kPrecisionCount; ++i)
        peaks[QLatin1String(toString(Precision(i)))] = d.peakFlopsPerSecond[i];
    return QJsonObject{
        {"id", QString::fromStdString(d.id)},
        {"name", QString::fromStdString(d.name)},
        {"source", QString::fromStdString(d.source)},
        {"generation", QString::fromStdString(d.generation)},
        {"peak_flops", peaks},
        {"memory_bytes", d.memoryBytes},
        {"memory_bandwidth", d.memoryBandwidthBytesPerSecond},
        {"intra_node_bandwidth", d.intraNodeBandwidthBytesPerSecond},
        {"network_bandwidth", d.networkBandwidthBytesPerSecond},
        {"runtime_context_bytes", d.runtimeContextBytes},
        {"board_power_watts", d.boardPowerWatts},
        {"matmul_efficiency",
         QJsonObject{{"max", d.matmulEfficiency.max}, {"half_flops", d.matmulEfficiency.halfSize}}},
        {"memory_efficiency",
         QJsonObject{{"max", d.memoryEfficiency.max}, {"half_bytes", d.memoryEfficiency.halfSize}}},
        {"attention_efficiency", d.attentionEfficiency},
        {"flash2_attention_share", d.flash2AttentionShare},
        {"low_precision_efficiency", d.lowPrecisionEfficiency},
        {"fp4_efficiency", d.fp4Efficiency},
        {"intra_node_latency", d.intraNodeLatencySeconds},
        {"network_latency", d.networkLatencySeconds},
        {"intra_node_efficiency", d.intraNodeEfficiency},
        {"network_efficiency", d.networkEfficiency},
        {"network_alltoall_efficiency", d.networkAllToAllEfficiency},
        {"intra_node_alltoall_efficiency", d.intraNodeAllToAllEfficiency},
        {"flex_dispatch_efficiency", d.flexDispatchEfficiency},
        {"host_link_bandwidth", d.hostLinkBandwidthBytesPerSecond},
        {"host_memory_bandwidth", d.hostMemoryBandwidthBytesPerSecond},
        {"multiprocessors", d.multiprocessors},
        {"host_launch_overhead", d.hostLaunchSeconds},
        {"host_enqueue_overhead", d.hostEnqueueSeconds},
        {"schedule_step_overhead", d.scheduleStepSeconds},
    };
}

DeviceSpec customDeviceTemplate()
{
    // Figures a user rarely knows for a new device: the A100's calibrated efficiencies and links.
    DeviceSpec d;
    if (const DeviceSpec *a100 = builtinCatalog().device("a100-sxm4-80gb"))
        d = *a100;
    d.id.clear();
    d.name.clear();
    // No published run was measured on a user's device: its plans are outside the validated runs (issue 37).
    d.generation.clear();
    d.source = "user-defined";
    return d;
}

Problems readDevices(const QByteArray &json, Catalog &catalog)
{
    return readCatalogDocument(json, "trainplan-devices", "devices", [&](JsonReader &r, const auto &entryValid) {
        DeviceSpec d;
        readDevice(r, d);
        if (!d.id.empty() && entryValid())
            catalog.addDevice(std::move(d));
    });
}

Problems readClusterCatalog(const QByteArray &json, Catalog &catalog)
{
    Problems problems;
    const std::optional<QJsonObject> root = parseCatalogDocument(json, "trainplan-cluster", problems);
    if (!root)
        return problems;
    const auto readLinks = [&](const char *arrayKey, bool network) {
        readEntries(*root, arrayKey, problems, [&](JsonReader &r, const auto &entryValid) {
            LinkSpec l;
            for (const char *key : {"id", "name", "bandwidth", "latency"})
                r.requireKey(key);
            r.readString("id", l.id);
            r.readString("name", l.name);
            r.readString("source", l.source);
            r.readNumber("bandwidth", l.bandwidthBytesPerSecond);
            r.readNumber("latency", l.latencySeconds);
            if (!(l.bandwidthBytesPerSecond > 0))
                r.error("bandwidth", "must be positive");
            if (!(l.latencySeconds >= 0))
                r.error("latency", "must not be negative");
            if (!l.id.empty() && entryValid())
                network ? catalog.addNetwork(std::move(l)) : catalog.addIntraNodeLink(std::move(l));
        });
    };
    readLinks("intra_node_links", false);
    readLinks("networks", true);
    readEntries(*root, "node_templates", problems, [&](JsonReader &r, const auto &entryValid) {
        NodeTemplate n;
        for (const char *key : {"id", "name", "device", "gpus_per_node"})
            r.requireKey(key);
        r.readString("id", n.id);
        r.readString("name", n.name);
        r.readString("device", n.device);
        r.readInteger("gpus_per_node", n.gpusPerNode);
        r.readString("intra_node_link", n.intraNodeLink);
        r.readInteger("scale_up_domain", n.scaleUpDomain);
        r.readString("source", n.source);
        if (n.gpusPerNode < 1 || n.gpusPerNode > 1024)
            r.error("gpus_per_node", "must be in 1..1024");
        if (n.scaleUpDomain < 0 || n.scaleUpDomain > 576 || (n.gpusPerNode > 0 && n.scaleUpDomain % n.gpusPerNode != 0))
            r.error("scale_up_domain", "must be 0 or whole nodes, at most 576 GPUs");
        if (!catalog.device(n.device))
            r.error("device", "unknown device \"" + n.device + "\"");
        if (!n.intraNodeLink.empty() && !catalog.intraNodeLink(n.intraNodeLink))
            r.error("intra_node_link", "unknown intra-node link \"" + n.intraNodeLink + "\"");
        if (!n.id.empty() && entryValid())
            catalog.addNodeTemplate(std::move(n));
    });
    return problems;
}

Problems readModels(const QByteArray &json, Catalog &catalog)
{
    return readCatalogDocument(json, "trainplan-models", "models", [&](JsonReader &r, const auto &entryValid) {
        ModelSpec m;
        for (const char *key : {"id", "name", "layers", "hidden", "heads", "vocab", "seq_len", "mlp", "source"})
            r.requireKey(key);
        std::string id;
        r.readString("id", id);
        r.readString("source", m.source);
        r.readStringList("hf_ids", m.huggingFaceIds);
        readModelKeys(r, m); // a preset is written like a custom model of a plan file
        m.presetId = id;
        double published = 0;
        r.readNumber("published_parameters", published); // documentation for tests and tooltips
        r.readNumber("published_active_parameters", published);
        bool countsEmbedding = false;
        r.readBool("active_counts_embedding", countsEmbedding);
        if (!m.presetId.empty() && entryValid())
            catalog.addModel(std::move(m));
    });
}

const Catalog &builtinCatalog()
{
    static const Catalog catalog = [] {
        Catalog c;
        for (const auto &[path, reader] :
             {std::pair{":/trainplan/devices.json", &readDevices}, std::pair{":/trainplan/models.json", &readModels},
              std::pair{":/trainplan/cluster.json", &readClusterCatalog}}) {
            QFile file{QString::fromLatin1(path)};
            if (file.open(QIODevice::ReadOnly)) {
                const Problems problems = reader(file.readAll(), c);
                if (hasErrors(problems))
                    qWarning("built-in catalog %s: %s", path, qPrintable(problemLine(problems.front())));
            } else {
                qWarning("built-in catalog %s is missing", path);
            }
        }
        return c;
    }();
    return catalog;
}

QByteArray builtinExamplePlan()
{
    QFile file(QStringLiteral(":/trainplan/examples/gpt3-175b-tp8-pp8.json"));
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

std::optional<QString> checkNewDeviceId(const QString &id, const Catalog &catalog)
{
    if (id.trimmed().isEmpty())
        return QStringLiteral("must not be empty");
    if (const std::optional<Problem> length = checkLength(id.toStdString(), kMaxIdLength))
        return problemText(*length);
    if (std::any_of(id.begin(), id.end(), [](QChar c) { return c.category() == QChar::Other_Control; }))
        return QStringLiteral("must not contain control characters");
    if (catalog.device(id.toStdString()))
        return QStringLiteral("\"%1\" is a device of the catalog; give the new device its own id").arg(id);
    return std::nullopt;
}

} // namespace trainplan::io
