// The readers' shared part (io/interop/ImportReaders.h): conversions, the leaf mapping, the JSON helpers.

#include "io/interop/ImportReaders.h"
#include "io/plan/JsonDuplicates.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>

#include <cmath>
#include <optional>

namespace trainplan::io::reading {

namespace {

/// Megatron-Core's per-layer MoE pattern (--moe-layer-freq as a Python list expression, "([0]*3+[1]*58)",
/// or a YAML list): 1 where a layer routes. Terms joined by '+', each a bracketed list of 0/1 or a
/// parenthesised expression, optionally repeated "*N". Empty when the text is not of that form.
class LayerPatternParser
{
public:
    explicit LayerPatternParser(QString text) : m_text(std::move(text).remove(QLatin1Char(' '))) {}
    std::optional<std::vector<int>> parse()
    {
        std::optional<std::vector<int>> v = sum();
        return v && m_at == m_text.size() && !v->empty() && v->size() <= 100000 ? v : std::nullopt;
    }

private:
    std::optional<std::vector<int>> sum()
    {
        std::optional<std::vector<int>> out = term();
        while (out && peek('+')) {
            ++m_at;
            const std::optional<std::vector<int>> next = term();
            if (!next)
                return std::nullopt;
            out->insert(out->end(), next->begin(), next->end());
        }
        return out;
    }
    std::optional<std::vector<int>> term()
    {
        std::optional<std::vector<int>> v = peek('(') ? group() : peek('[') ? list() : std::nullopt;
        while (v && peek('*')) {
            ++m_at;
            qsizetype end = m_at;
            while (end < m_text.size() && m_text[end].isDigit())
                ++end;
            const int times = m_text.mid(m_at, end - m_at).toInt();
            if (end == m_at || end - m_at > 6)
                return std::nullopt; // "*" without a count, or an absurd one
            m_at = end;
            if (times < 0 || double(v->size()) * times > 100000)
                return std::nullopt;
            std::vector<int> repeated;
            for (int i = 0; i < times; ++i)
                repeated.insert(repeated.end(), v->begin(), v->end());
            v = std::move(repeated);
        }
        return v;
    }
    std::optional<std::vector<int>> group()
    {
        ++m_at;
        std::optional<std::vector<int>> v = sum();
        if (!v || !peek(')'))
            return std::nullopt;
        ++m_at;
        return v;
    }
    std::optional<std::vector<int>> list()
    {
        const qsizetype end = m_text.indexOf(QLatin1Char(']'), m_at);
        if (end < 0)
            return std::nullopt;
        std::vector<int> v;
        for (const QString &item : m_text.mid(m_at + 1, end - m_at - 1).split(QLatin1Char(','), Qt::SkipEmptyParts)) {
            if (item != QLatin1String("0") && item != QLatin1String("1"))
                return std::nullopt;
            v.push_back(item.toInt());
        }
        m_at = end + 1;
        return v;
    }
    bool peek(char c) const { return m_at < m_text.size() && m_text[m_at] == QLatin1Char(c); }

    QString m_text;
    qsizetype m_at = 0;
};

/// The plan's dense_layers and moe_layer_interval that give exactly this pattern (layer i routes when
/// i >= dense and (i - dense + 1) is a multiple of the interval), if any.
std::optional<std::pair<int, int>> denseAndInterval(const std::vector<int> &pattern)
{
    const int layers = int(pattern.size());
    const auto first = std::find(pattern.begin(), pattern.end(), 1);
    if (first == pattern.end())
        return std::nullopt;
    const int leading = int(first - pattern.begin());
    for (int interval = 1; interval <= leading + 1; ++interval) {
        const int dense = leading - (interval - 1);
        bool same = true;
        for (int i = 0; i < layers && same; ++i)
            same = pattern[std::size_t(i)] == ((i >= dense && (i - dense + 1) % interval == 0) ? 1 : 0);
        if (same)
            return std::pair{dense, interval};
    }
    return std::nullopt;
}

/// A --moe-layer-freq given as a pattern: the plan keys it means, or a warning that none can say it.
void mapLayerPattern(const QString &file, const Leaf &leaf, FileImport &out)
{
    QString text = leaf.value.toString();
    if (leaf.value.isArray()) {
        QStringList items;
        for (const QJsonValue v : leaf.value.toArray())
            items << QString::number(v.toInt(-1));
        text = QLatin1Char('[') + items.join(QLatin1Char(',')) + QLatin1Char(']');
    }
    const std::optional<std::vector<int>> pattern = LayerPatternParser(text).parse();
    const std::optional<std::pair<int, int>> plan = pattern ? denseAndInterval(*pattern) : std::nullopt;
    if (!plan) {
        out.warnings.push_back(
            {file, leaf.line,
             QStringLiteral("%1 = %2: not a pattern of dense first layers then every n-th layer routed, "
                            "which is what the plan can say (model.dense_layers, model.moe_layer_interval)")
                 .arg(leaf.name, text.left(80))});
        return;
    }
    out.keys.push_back({QStringLiteral("model.dense_layers"), plan->first, file, leaf.line, leaf.name});
    out.keys.push_back({QStringLiteral("model.moe_layer_interval"), plan->second, file, leaf.line, leaf.name});
}

/// Megatron-Core's selective recompute modules (a list: "core_attn mla_up_proj moe" or [mla_up_proj, moe_act]):
/// the ones a plan key holds become true; core_attn is what "selective" already means; the others are said.
void mapRecomputeModules(const QString &file, const Leaf &leaf, FileImport &out)
{
    QStringList modules;
    if (leaf.value.isArray()) {
        for (const QJsonValue &v : leaf.value.toArray())
            modules << v.toString();
    } else {
        static const QRegularExpression separators(QStringLiteral("[\\s,\\[\\]'\"]+"));
        modules = leaf.value.toString().split(separators, Qt::SkipEmptyParts);
    }
    static const std::pair<const char *, const char *> keys[] = {{"mla_up_proj", "training.recompute_mla_up_proj"},
                                                                 {"moe_act", "training.recompute_moe_act"},
                                                                 {"moe", "training.recompute_moe"},
                                                                 {"mlp", "training.recompute_mlp"}};
    QStringList unplanned;
    for (const QString &module : modules) {
        const auto it = std::find_if(std::begin(keys), std::end(keys),
                                     [&](const auto &k) { return module == QLatin1String(k.first); });
        if (it != std::end(keys))
            out.keys.push_back({QString::fromLatin1(it->second), true, file, leaf.line, leaf.name});
        else if (module != QLatin1String("core_attn"))
            unplanned << module;
    }
    if (!unplanned.isEmpty())
        out.warnings.push_back({file, leaf.line,
                                QStringLiteral("%1: module(s) %2 not planned (the plan recomputes the attention core, "
                                               "MLA's up projections, expert activations or whole MoE layers)")
                                    .arg(leaf.name, unplanned.join(QStringLiteral(", ")))});
}

} // namespace

std::vector<Leaf>::const_iterator findLeaf(const std::vector<Leaf> &leaves, const char *name)
{
    return std::find_if(leaves.begin(), leaves.end(), [name](const Leaf &l) { return l.name == QLatin1String(name); });
}

std::vector<Leaf>::const_iterator findLeafEnding(const std::vector<Leaf> &leaves, const char *tail)
{
    const QString dotted = QLatin1Char('.') + QLatin1String(tail);
    return std::find_if(leaves.begin(), leaves.end(),
                        [&](const Leaf &l) { return l.name == QLatin1String(tail) || l.name.endsWith(dotted); });
}

QJsonValue asInteger(const QJsonValue &v)
{
    bool ok = false;
    const double d = v.isString() ? v.toString().toDouble(&ok) : (ok = v.isDouble(), v.toDouble());
    return ok && std::isfinite(d) && d == std::floor(d) ? QJsonValue(d) : QJsonValue(QJsonValue::Undefined);
}

QJsonValue asHybridPattern(const QJsonValue &v)
{
    QString text = v.toString().section(QLatin1Char('/'), 0, 0);
    text.remove(QLatin1Char('|'));
    static const QRegularExpression planned(QStringLiteral("^[M*\\-E]+$"));
    return planned.match(text).hasMatch() ? QJsonValue(text) : QJsonValue(QJsonValue::Undefined);
}

QJsonValue asNumber(const QJsonValue &v)
{
    bool ok = false;
    const double d = v.isString() ? v.toString().toDouble(&ok) : (ok = v.isDouble(), v.toDouble());
    return ok && std::isfinite(d) ? QJsonValue(d) : QJsonValue(QJsonValue::Undefined);
}

QJsonValue windowLeft(const QJsonValue &v)
{
    QJsonValue left;
    if (v.isArray()) {
        if (v.toArray().isEmpty())
            return QJsonValue(QJsonValue::Undefined);
        left = asInteger(v.toArray().first());
    } else {
        QString text = v.toVariant().toString().trimmed();
        text.remove(QLatin1Char('(')).remove(QLatin1Char(')')).remove(QLatin1Char('[')).remove(QLatin1Char(']'));
        const QStringList parts = text.split(QLatin1Char(','));
        if (parts.size() != 2)
            return QJsonValue(QJsonValue::Undefined);
        left = asInteger(parts.front().trimmed());
    }
    if (!left.isDouble())
        return left;
    // (left, right) counts the keys before the query; the window holds the query too: Megatron-Bridge converts
    // HF's sliding_window w to window_size (w - 1, 0) (models/gpt_oss/gpt_oss_bridge.py). -1: no window.
    return left.toDouble() < 0 ? QJsonValue(0.0) : QJsonValue(left.toDouble() + 1.0);
}

const char *expectedNumber(const Convert &convert)
{
    using Function = QJsonValue (*)(const QJsonValue &);
    const Function *f = convert.target<Function>();
    return !f ? nullptr : *f == asInteger ? "a whole number" : *f == asNumber ? "a number" : nullptr;
}

bool truthy(const QJsonValue &v)
{
    if (v.isBool())
        return v.toBool();
    if (v.isDouble())
        return v.toDouble() != 0;
    const QString s = v.toString().trimmed().toLower();
    return s == QLatin1String("true") || s == QLatin1String("1") || s == QLatin1String("yes");
}

QJsonValue asBool(const QJsonValue &v)
{
    return truthy(v);
}

QJsonValue asNotBool(const QJsonValue &v)
{
    return !truthy(v);
}

Convert whenTrue(QJsonValue value)
{
    return [value](const QJsonValue &v) { return truthy(v) ? value : QJsonValue(QJsonValue::Undefined); };
}

Convert oneOf(const std::vector<std::pair<const char *, const char *>> &spellings)
{
    std::vector<std::pair<QString, QString>> map;
    for (const auto &[from, to] : spellings)
        map.emplace_back(QString::fromLatin1(from).toLower(), QString::fromLatin1(to));
    return [map](const QJsonValue &v) {
        const QString s = v.toVariant().toString().trimmed().toLower();
        for (const auto &[from, target] : map) {
            if (s != from)
                continue;
            bool whole = false;
            const int number = target.toInt(&whole);
            return target == QLatin1String("true")    ? QJsonValue(true) // the flags' values
                   : target == QLatin1String("false") ? QJsonValue(false)
                   : whole                            ? QJsonValue(number)
                                                      : QJsonValue(target);
        }
        return QJsonValue(QJsonValue::Undefined);
    };
}

void addTableRules(std::map<QString, Rule> &rules, std::span<const KeyName> table)
{
    for (const KeyName &n : table) {
        const Convert convert = n.form == NameForm::Integer ? Convert(asInteger)
                                : n.form == NameForm::Bool  ? Convert(asBool)
                                                            : oneOf(n.choices);
        rules.insert({QLatin1String(n.name), {n.path, convert}});
    }
}

void refuseLayers(const QString &file, int line, const QString &what, FileImport &out)
{
    out.errors.push_back(
        {file, line, QStringLiteral("%1 are not planned; model.layers counts the layers of a decoder-only transformer")
                         .arg(what)});
}

void refuseAdapters(const QString &file, const Leaf &at, FileImport &out)
{
    out.errors.push_back({file, at.line,
                          QStringLiteral("%1 %2: parameter-efficient tuning trains adapters beside a frozen model; a "
                                         "plan trains every parameter (their gradients and optimizer state), so it "
                                         "is not planned")
                              .arg(at.name, leafText(at.value))});
}

QString shortText(const QString &text)
{
    return text.size() <= 80 ? text : text.left(77) + QStringLiteral("...");
}

QString leafText(const QJsonValue &v)
{
    return shortText(v.isArray() ? QString::fromUtf8(QJsonDocument(v.toArray()).toJson(QJsonDocument::Compact))
                                 : v.toVariant().toString());
}

namespace {

/// Megatron-Core's FP8 recipe (--fp8-recipe; NeMo's and Megatron-Bridge's fp8_recipe). It chooses the FP8
/// format only when FP8 is on (--fp8-format, NeMo's fp8): Megatron's default recipe is "delayed" and a BF16 run
/// configuration still names one (Megatron-Bridge's MixedPrecisionConfig writes fp8_recipe "tensorwise" with
/// fp8 None). delayed and tensorwise are per-tensor FP8 and its scaling (training.fp8_recipe).
void mapFp8Recipe(const QString &file, const Leaf &leaf, const std::vector<Leaf> &leaves,
                  const std::function<QString(const QString &)> &keyOf, FileImport &out)
{
    const bool fp8On = std::any_of(leaves.begin(), leaves.end(), [&](const Leaf &l) {
        const QString k = keyOf(l.name);
        if (k != QLatin1String("fp8") && k != QLatin1String("fp8_format"))
            return false;
        const QString v = l.value.toVariant().toString().trimmed().toLower();
        return !l.value.isNull() && !v.isEmpty() && v != QLatin1String("null") && v != QLatin1String("none") &&
               v != QLatin1String("false") && v != QLatin1String("0");
    });
    if (!fp8On) {
        out.notPlanned << leaf.name;
        return;
    }
    const QString recipe = leaf.value.toString().trimmed().toLower();
    const auto push = [&](const char *path, const QString &value) {
        out.keys.push_back({QString::fromLatin1(path), value, file, leaf.line, leaf.name});
    };
    if (recipe == QLatin1String("blockwise")) {
        push("training.precision", QStringLiteral("fp8-blockwise"));
    } else if (recipe == QLatin1String("mxfp8")) {
        push("training.precision", QStringLiteral("mxfp8"));
    } else if (recipe == QLatin1String("delayed") || recipe == QLatin1String("tensorwise")) {
        push("training.precision", QStringLiteral("fp8"));
        push("training.fp8_recipe", recipe);
    } else {
        out.warnings.push_back(
            {file, leaf.line, QStringLiteral("%1: value %2 not understood").arg(leaf.name, leafText(leaf.value))});
    }
}

/// Megatron-Bridge's mixed-precision recipes name the FP8 scaling: ..._fp8_current_scaling_mixed is tensorwise,
/// ..._fp8_delayed_scaling_mixed delayed (src/megatron/bridge/training/mixed_precision.py). Its Nemotron 3 Super NVFP4
/// recipe keeps the last 14 layers in BF16 (nemotron_3_super_bf16_with_nvfp4_mixed, lines 413-421 at v0.4.0).
void mapBridgeFp8Scaling(const QString &file, const Leaf &leaf, FileImport &out)
{
    const QString name = leaf.value.toString().toLower().replace(QLatin1Char('-'), QLatin1Char('_'));
    const char *recipe = name.contains(QLatin1String("fp8_current_scaling")) ? "tensorwise"
                         : name.contains(QLatin1String("fp8_delayed_scaling")) ? "delayed"
                                                                                 : nullptr;
    if (recipe)
        out.keys.push_back({QStringLiteral("training.fp8_recipe"), QString::fromLatin1(recipe), file, leaf.line,
                            leaf.name});
    if (name.contains(QLatin1String("nemotron_3_super_bf16_with_nvfp4")))
        out.keys.push_back({QStringLiteral("training.bf16_layers_at_end"), 14, file, leaf.line, leaf.name});
}

/// Megatron-Core's first_last_layers_bf16 and its two counts (TransformerConfig, --first-last-layers-bf16,
/// --num-layers-at-start-in-bf16, --num-layers-at-end-in-bf16): the counts hold only with the switch on, and a count
/// the configuration leaves out is TransformerConfig's default, 1 (transformer_config.py at d98e8a64d).
void mapBf16Layers(const QString &file, const Leaf &leaf, const std::vector<Leaf> &leaves,
                   const std::function<QString(const QString &)> &keyOf, FileImport &out)
{
    const auto find = [&](const char *name) {
        return std::find_if(leaves.begin(), leaves.end(),
                            [&](const Leaf &l) { return keyOf(l.name) == QLatin1String(name); });
    };
    const auto on = find("first_last_layers_bf16");
    if (on == leaves.end() || !truthy(on->value)) {
        out.notPlanned << leaf.name;
        return;
    }
    const QString key = keyOf(leaf.name);
    const auto push = [&](const char *path, const QJsonValue &v) {
        out.keys.push_back({QString::fromLatin1(path), v, file, leaf.line, leaf.name});
    };
    if (key == QLatin1String("num_layers_at_start_in_bf16")) {
        push("training.bf16_layers_at_start", asInteger(leaf.value));
    } else if (key == QLatin1String("num_layers_at_end_in_bf16")) {
        push("training.bf16_layers_at_end", asInteger(leaf.value));
    } else {
        if (find("num_layers_at_start_in_bf16") == leaves.end())
            push("training.bf16_layers_at_start", 1);
        if (find("num_layers_at_end_in_bf16") == leaves.end())
            push("training.bf16_layers_at_end", 1);
    }
}

} // namespace

void mapLeaves(const QString &file, const std::vector<Leaf> &leaves, const std::map<QString, Rule> &rules,
               const std::function<QString(const QString &)> &keyOf, FileImport &out,
               const std::function<bool(const QString &)> &notPlanned)
{
    for (const Leaf &leaf : leaves) {
        const QString key = keyOf(leaf.name);
        if (key == QLatin1String("moe_layer_freq") &&
            (leaf.value.isArray() || leaf.value.toString().contains(QLatin1Char('[')))) {
            mapLayerPattern(file, leaf, out);
        } else if (key == QLatin1String("recompute_modules")) {
            mapRecomputeModules(file, leaf, out);
        } else if (key == QLatin1String("moe_shared_expert_intermediate_size")) {
            out.keys.push_back(
                {QString::fromLatin1(kSharedExpertWidth), asInteger(leaf.value), file, leaf.line, leaf.name});
        } else if (key == QLatin1String("shared_moe_ffn_hidden_size") || key == QLatin1String("enable_shared_expert")) {
            // Pai-Megatron-Patch's shared expert (megatron_patch/arguments.py at a098ca5, lines 432-435): its
            // width, there only with --enable-shared-expert.
            const bool enabled = std::any_of(leaves.begin(), leaves.end(), [&](const Leaf &l) {
                return keyOf(l.name) == QLatin1String("enable_shared_expert") && truthy(l.value);
            });
            if (key == QLatin1String("shared_moe_ffn_hidden_size") && enabled)
                out.keys.push_back(
                    {QString::fromLatin1(kSharedExpertWidth), asInteger(leaf.value), file, leaf.line, leaf.name});
            else
                out.notPlanned << leaf.name;
        } else if (key == QLatin1String("fp8_recipe")) { // Megatron-Core's, NeMo's and Megatron-Bridge's name
            mapFp8Recipe(file, leaf, leaves, keyOf, out);
        } else if (key == QLatin1String("first_last_layers_bf16") ||
                   key == QLatin1String("num_layers_at_start_in_bf16") ||
                   key == QLatin1String("num_layers_at_end_in_bf16")) {
            mapBf16Layers(file, leaf, leaves, keyOf, out);
        } else if (const auto it = rules.find(key); it != rules.end()) {
            if (key == QLatin1String("mixed_precision"))
                mapBridgeFp8Scaling(file, leaf, out);
            const QJsonValue v = it->second.convert(leaf.value);
            if (v.isUndefined() && leaf.value == QJsonValue(QStringLiteral("null")))
                out.notPlanned << leaf.name; // a YAML null: the framework's default, which the plan's is
            else if (v.isUndefined() && expectedNumber(it->second.convert) &&
                     !leaf.value.toString().contains(QLatin1String("${")))
                out.errors.push_back(
                    {file, leaf.line,
                     QStringLiteral("%1 must be %2 (got %3)")
                         .arg(leaf.name, QLatin1String(expectedNumber(it->second.convert)),
                              leaf.value.isBool() ? QStringLiteral("no number: true, false or a flag without a value")
                                                  : leafText(leaf.value))});
            else if (v.isUndefined() && !leaf.value.isBool())
                out.warnings.push_back(
                    {file, leaf.line,
                     QStringLiteral("%1: value %2 not understood").arg(leaf.name, leafText(leaf.value))});
            else if (!v.isUndefined())
                out.keys.push_back({QString::fromLatin1(it->second.path), v, file, leaf.line, leaf.name});
        } else if (key == QLatin1String("pipeline_model_parallel_layout") &&
                   leaf.value != QJsonValue(QStringLiteral("null")) && !leaf.value.isNull()) {
            out.keys.push_back({QString::fromLatin1(kPipelineLayout), leaf.value, file, leaf.line, leaf.name});
        } else if (key == QLatin1String("num_layers_per_virtual_pipeline_stage")) {
            out.keys.push_back(
                {QString::fromLatin1(kLayersPerVirtualStage), asInteger(leaf.value), file, leaf.line, leaf.name});
        } else if (key == QLatin1String("attention_dropout") || key == QLatin1String("hidden_dropout")) {
            out.keys.push_back({QString::fromLatin1(kDropout), asNumber(leaf.value), file, leaf.line, leaf.name});
        } else if (!notPlanned(key) &&
                   leaf.value != QJsonValue(QStringLiteral("null"))) { // null: a default left as it is
            out.warnings.push_back({file, leaf.line, QStringLiteral("%1 = %2: not understood, no plan key holds it")
                                                         .arg(leaf.name, leafText(leaf.value))});
        } else {
            out.notPlanned << leaf.name;
        }
    }
}

int lineOfKey(const QByteArray &bytes, const QString &key, qsizetype from)
{
    const qsizetype at = bytes.indexOf(QByteArray("\"") + key.toUtf8() + "\"", from);
    return at < 0 ? 0 : int(bytes.left(at).count('\n')) + 1;
}

namespace {

/// The leaves of `object`, whose key the file writes at `from`: each key's line is its first occurrence after its
/// parent's, so a nested "enabled" is found inside its own object, not at the first "enabled" of the file.
void jsonLeavesFrom(const QJsonObject &object, const QString &prefix, const QByteArray &bytes, qsizetype from,
                    std::vector<Leaf> &leaves)
{
    for (auto it = object.begin(); it != object.end(); ++it) {
        const QString name = prefix.isEmpty() ? it.key() : prefix + '.' + it.key();
        const qsizetype at = bytes.indexOf(QByteArray("\"") + it.key().toUtf8() + "\"", from);
        const qsizetype found = at < 0 ? bytes.indexOf(QByteArray("\"") + it.key().toUtf8() + "\"") : at;
        if (it.value().isObject())
            jsonLeavesFrom(it.value().toObject(), name, bytes, std::max<qsizetype>(found, 0), leaves);
        else
            leaves.push_back({name, it.value(), found < 0 ? 0 : int(bytes.left(found).count('\n')) + 1});
    }
}

} // namespace

void jsonLeaves(const QJsonObject &object, const QString &prefix, const QByteArray &bytes, std::vector<Leaf> &leaves)
{
    jsonLeavesFrom(object, prefix, bytes, 0, leaves);
}

bool refuseDuplicateKey(const QString &file, const QByteArray &bytes, FileImport &out)
{
    const std::optional<QString> twice = findDuplicateKey(bytes);
    if (twice)
        out.errors.push_back(
            {file, lineOfKey(bytes, twice->section('.', -1)),
             QStringLiteral("%1: written twice; the file means one of the values: remove the other").arg(*twice)});
    return twice.has_value();
}

} // namespace trainplan::io::reading
