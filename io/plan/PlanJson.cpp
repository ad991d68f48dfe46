#include "io/plan/PlanJson.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>

#include <algorithm>
#include <cmath>

#include "core/plan/PlanKeys.h"
#include "io/plan/CatalogJson.h"
#include "io/plan/JsonDuplicates.h"
#include "io/plan/JsonReader.h"
#include "core/plan/PlanValidation.h"
#include "io/plan/ProblemWords.h"

namespace trainplan::io {

namespace {

std::string presetList(const Catalog &catalog)
{
    std::string list;
    for (const ModelSpec &m : catalog.models())
        list += (list.empty() ? "" : ", ") + m.presetId;
    return list;
}

/// Keys of the table a section of the file gave.
class GivenKeys
{
public:
    void add(const PlanKey &key) { m_keys.push_back(&key); }
    bool has(std::string_view path) const
    {
        for (const PlanKey *k : m_keys)
            if (path == k->path)
                return true;
        return false;
    }

private:
    std::vector<const PlanKey *> m_keys;
};

/// Reads one key of the table from its section's reader into the plan; returns whether the file gave a
/// valid value. Ranges are validatePlan()'s (it sees every plan, not only files); types and choices are
/// checked here.
bool readKey(JsonReader &r, const PlanKey &key, Plan &plan)
{
    const std::string name(key.name());
    KeyValue value;
    switch (key.type) {
    case KeyType::Integer: {
        std::int64_t v = 0;
        if (!r.readInteger(name.c_str(), v))
            return false;
        value = v;
        break;
    }
    case KeyType::Number: {
        double v = 0;
        if (!r.readNumber(name.c_str(), v))
            return false;
        value = v;
        break;
    }
    case KeyType::Bool: {
        bool v = false;
        if (!r.readBool(name.c_str(), v))
            return false;
        value = v;
        break;
    }
    case KeyType::Enum:
    case KeyType::String: {
        std::string v;
        if (!r.readString(name.c_str(), v))
            return false;
        value = v;
        break;
    }
    case KeyType::IntegerList: {
        std::vector<std::int64_t> v;
        if (!r.readIntegerList(name.c_str(), v))
            return false;
        value = integerListText(v);
        break;
    }
    case KeyType::Array:
        return false;
    }
    if (key.type == KeyType::Enum)
        if (const std::optional<Problem> problem = checkValue(key, value)) {
            r.error(name.c_str(), problemMessage(*problem));
            return false;
        }
    key.set(plan, value);
    return true;
}

/// Reads every key of `section` the table can read, except those in `skip`.
GivenKeys readSection(JsonReader &r, std::string_view section, Plan &plan,
                      std::initializer_list<std::string_view> skip = {})
{
    GivenKeys given;
    for (const PlanKey &key : planKeys()) {
        if (key.section() != section || !key.accessible() ||
            std::find(skip.begin(), skip.end(), key.path) != skip.end())
            continue;
        if (readKey(r, key, plan))
            given.add(key);
    }
    return given;
}

} // namespace

void readModelKeys(JsonReader &r, ModelSpec &model)
{
    Plan plan;
    plan.model = model;
    const bool fromPreset = !model.presetId.empty();
    const MlpKind mlpBefore = model.mlp;
    const bool mlpRead = readKey(r, *findPlanKey("model.mlp"), plan);
    // The architecture details follow the MLP kind unless the file says otherwise.
    if (!fromPreset || (mlpRead && plan.model.mlp != mlpBefore))
        applyArchitectureDefaults(plan.model);
    const GivenKeys given = readSection(r, "model", plan, {"model.mlp"});
    if (!fromPreset && !given.has("model.kv_heads"))
        plan.model.kvHeads = plan.model.heads;
    if (!fromPreset && !given.has("model.ffn_hidden"))
        plan.model.ffnHidden = 4 * plan.model.hidden;
    model = std::move(plan.model);
}

namespace {

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
    readModelKeys(r, model);
    r.reportUnknownKeys();
}

void readNodeGroups(JsonReader &r, ClusterConfig &c, const GivenKeys &given)
{
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
    if (groups.empty())
        return;
    // The summary keys are optional with node groups; when given they must agree (validation says so).
    ClusterConfig derived = c;
    derived.setGroups(groups);
    if (!given.has("cluster.device"))
        c.device = derived.device;
    if (!given.has("cluster.gpus_per_node"))
        c.gpusPerNode = derived.gpusPerNode;
    if (!given.has("cluster.nodes"))
        c.nodes = derived.nodes;
    if (!r.has("intra_node_link"))
        c.intraNodeLink = derived.intraNodeLink;
    c.nodeGroups = std::move(groups);
}

void readCluster(JsonReader r, Plan &plan)
{
    if (!r.has("node_groups"))
        r.requireKey("device");
    const GivenKeys given = readSection(r, "cluster", plan);
    for (JsonReader &d : r.objects("custom_devices")) {
        DeviceSpec device;
        readDevice(d, device);
        d.reportUnknownKeys();
        plan.cluster.customDevices.push_back(std::move(device));
    }
    readNodeGroups(r, plan.cluster, given);
    r.reportUnknownKeys();
}

/// A section that is keys of the table only.
GivenKeys readObject(JsonReader &root, const char *section, Plan &plan)
{
    JsonReader r = root.object(section);
    if (std::string_view(section) == "training")
        r.requireKey("global_batch");
    GivenKeys given = readSection(r, section, plan);
    r.reportUnknownKeys();
    return given;
}

void readHeader(JsonReader &root)
{
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
}

/// Keys longer than this and strings longer than kMaxTextLength are refused before anything reads them:
/// no message, output or search result can then grow with a pathological string.
constexpr qsizetype kMaxKeyLength = 100;

/// The first over-long key or string in the tree, as an error naming where it is.
bool checkSizes(const QJsonValue &value, const QString &path, Problems &problems)
{
    const auto fail = [&](const QString &where, const std::string &rule) {
        problems.push_back(wordedProblem(Severity::Error, where.left(200).toStdString(), rule));
        return false;
    };
    if (value.isString() && value.toString().size() > qsizetype(kMaxTextLength))
        return fail(path, "the string is " + std::to_string(value.toString().size()) + " characters long; at most "
                              + std::to_string(kMaxTextLength) + " are allowed in a plan file");
    if (value.isArray()) {
        const QJsonArray array = value.toArray();
        for (qsizetype i = 0; i < array.size(); ++i)
            if (!checkSizes(array.at(i), QStringLiteral("%1[%2]").arg(path).arg(i), problems))
                return false;
    }
    if (value.isObject()) {
        const QJsonObject object = value.toObject();
        for (auto it = object.begin(); it != object.end(); ++it) {
            const QString key = path.isEmpty() ? it.key() : path + QLatin1Char('.') + it.key();
            if (it.key().size() > kMaxKeyLength)
                return fail(key.left(kMaxKeyLength) + QStringLiteral("…"),
                            "a key of " + std::to_string(it.key().size()) + " characters; no plan key is longer than "
                                + std::to_string(kMaxKeyLength));
            if (!checkSizes(it.value(), key, problems))
                return false;
        }
    }
    return true;
}

/// The parsed document's plan, before validation; false when the JSON is not a plan object.
bool parseDocument(const QByteArray &json, Problems &problems, QJsonObject &object)
{
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        // Name the key whose value the parser stopped in ("1e400" is an illegal number, say), where it can.
        const std::optional<QString> key = keyPathAt(json, parseError.offset);
        problems.push_back(wordedProblem(Severity::Error, key ? key->left(200).toStdString() : std::string(),
                            "malformed JSON at byte " + std::to_string(parseError.offset) + ": "
                                + parseError.errorString().toStdString()));
        return false;
    }
    if (!doc.isObject()) {
        problems.push_back(wordedProblem(Severity::Error, "", "a plan must be a JSON object"));
        return false;
    }
    if (const auto duplicate = findDuplicateKey(json)) {
        problems.push_back(
            wordedProblem(Severity::Error, duplicate->left(200).toStdString(), "appears twice in the same object"));
        return false;
    }
    object = doc.object();
    return checkSizes(object, QString(), problems);
}

} // namespace

PlanReadResult readPlan(const QByteArray &json, const Catalog &catalog)
{
    PlanReadResult result;
    QJsonObject object;
    if (!parseDocument(json, result.problems, object))
        return result;
    Problems &problems = result.problems;
    JsonReader root(object, QString(), problems);
    readHeader(root);
    Plan plan;
    readSection(root, "", plan);
    for (const char *key : {"model", "training", "parallel", "cluster"})
        root.requireKey(key);
    readModel(root.object("model"), catalog, plan.model);
    readObject(root, "training", plan);
    const bool dataGiven = readObject(root, "parallel", plan).has("parallel.data");
    readCluster(root.object("cluster"), plan);
    readObject(root, "run", plan);
    root.reportUnknownKeys();
    // parallel.data defaults to the GPUs left after tensor and pipeline, when they divide evenly.
    if (!dataGiven)
        deriveDataParallel(plan);
    // An absent name stays empty: the plan's automatic name (core/plan/PlanName) follows its edits.

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
    if (path.isEmpty()) {
        problems.push_back(wordedProblem(Severity::Error, "", "no plan file given (an empty path)"));
        return std::nullopt;
    }
    // Only regular files: reading a FIFO or a device would wait or read forever.
    const QFileInfo info(path);
    if (path != QLatin1String("-") && info.exists() && !info.isFile()) {
        const char *what = info.isDir() ? "a directory" : "a named pipe, socket or device";
        problems.push_back(wordedProblem(Severity::Error, "", std::string("not a regular file (") + what
                                                     + "): plans are read from files or from standard input (-)"));
        return std::nullopt;
    }
    QFile file(path);
    const bool ok = path == QLatin1String("-") ? file.open(stdin, QIODevice::ReadOnly) : file.open(QIODevice::ReadOnly);
    if (!ok) {
        problems.push_back(wordedProblem(
            Severity::Error, "", "cannot read " + path.toStdString() + ": " + file.errorString().toStdString()));
        return std::nullopt;
    }
    // A plan is a few kilobytes; refuse anything absurd rather than parse gigabytes.
    const QByteArray bytes = file.read(kMaxPlanBytes + 1);
    if (bytes.size() > kMaxPlanBytes) {
        problems.push_back(
            wordedProblem(Severity::Error, "", path.toStdString() + " is larger than 16 MiB: not a plan file"));
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

QJsonValue toJson(const KeyValue &value)
{
    if (const auto *i = std::get_if<std::int64_t>(&value))
        return double(*i);
    if (const auto *d = std::get_if<double>(&value))
        return *d;
    if (const auto *b = std::get_if<bool>(&value))
        return *b;
    if (const auto *s = std::get_if<std::string>(&value))
        return QString::fromStdString(*s);
    return QJsonValue(QJsonValue::Undefined);
}

/// The section's keys; `written(key, value)` decides which go in (absent optional keys never do).
template<typename Filter>
QJsonObject writeSection(const Plan &plan, std::string_view section, Filter written)
{
    QJsonObject o;
    for (const PlanKey &key : planKeys()) {
        if (key.section() != section || !key.accessible())
            continue;
        const KeyValue value = key.get(plan);
        const std::string *text = std::get_if<std::string>(&value);
        if (std::holds_alternative<std::monostate>(value) || (key.optional && text && text->empty()) ||
            !written(key, value))
            continue;
        const QString name = QString::fromUtf8(key.name().data(), qsizetype(key.name().size()));
        if (key.type == KeyType::IntegerList && text) {
            QJsonArray list;
            for (const std::int64_t v : parseIntegerList(*text).value_or(std::vector<std::int64_t>{}))
                list.append(double(v));
            o[name] = list;
            continue;
        }
        o[name] = toJson(value);
    }
    return o;
}

/// A preset-based model is the preset plus the keys that differ from it.
QJsonObject modelToJson(const Plan &plan, const Catalog &catalog)
{
    const ModelSpec &m = plan.model;
    const ModelSpec *preset = m.presetId.empty() ? nullptr : catalog.model(m.presetId);
    Plan base;
    if (preset)
        base.model = *preset;
    QJsonObject o = writeSection(plan, "model", [&](const PlanKey &key, const KeyValue &value) {
        return !preset || value != key.get(base);
    });
    if (preset)
        o["preset"] = QString::fromStdString(m.presetId);
    return o;
}

QJsonObject clusterToJson(const Plan &plan)
{
    const ClusterConfig &c = plan.cluster;
    QJsonObject cluster = writeSection(plan, "cluster", [](const PlanKey &key, const KeyValue &v) {
        const auto *number = std::get_if<std::int64_t>(&v);
        return !(key.zeroMeansUnset && number && *number == 0); // an unset scale-up domain is one node
    });
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
    return cluster;
}

} // namespace

QByteArray writePlan(const Plan &plan, const Catalog &catalog)
{
    // Every key, but one whose 0 means "not set" (an even pipeline split) only when set.
    const auto all = [](const PlanKey &key, const KeyValue &v) {
        const auto *number = std::get_if<std::int64_t>(&v);
        return !(key.zeroMeansUnset && number && *number == 0);
    };
    // An empty name (automatic) or description is left out.
    const auto given = [](const PlanKey &, const KeyValue &v) {
        const auto *text = std::get_if<std::string>(&v);
        return !text || !text->empty();
    };
    QJsonObject root = writeSection(plan, "", given);
    root["format"] = QLatin1String(kPlanFormat);
    root["version"] = kPlanVersion;
    root["model"] = modelToJson(plan, catalog);
    for (const char *section : {"training", "parallel", "run"})
        root[QLatin1String(section)] = writeSection(plan, section, all);
    root["cluster"] = clusterToJson(plan);
    return QJsonDocument(root).toJson(QJsonDocument::Indented);
}

} // namespace trainplan::io
