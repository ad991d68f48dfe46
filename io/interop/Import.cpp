#include "io/interop/Import.h"
#include "io/interop/ImportReaders.h"

#include <optional>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

#include "io/plan/CatalogJson.h"
#include "io/plan/PlanJson.h"
#include "io/common/SafeFile.h"
#include "core/plan/PlanKeys.h"
#include "io/plan/ProblemWords.h"

namespace trainplan::io {

const char *formatName(ImportFormat format)
{
    switch (format) {
    case ImportFormat::HuggingFace: return "Hugging Face config.json";
    case ImportFormat::Megatron: return "Megatron-LM arguments";
    case ImportFormat::NeMo: return "NeMo / Megatron-Bridge recipe";
    case ImportFormat::Torchtitan: return "torchtitan job file";
    case ImportFormat::DeepSpeed: return "DeepSpeed config";
    case ImportFormat::LlmFoundry: return "llm-foundry training YAML";
    case ImportFormat::Unknown: break;
    }
    return "unknown";
}

ImportFormat detectFormat(const QString &path, const QByteArray &bytes)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (bytes.contains(reading::kBridgeLogConfigurationLine)) // a Megatron-Bridge training log, any suffix
        return ImportFormat::NeMo;
    if (suffix == QLatin1String("yaml") || suffix == QLatin1String("yml"))
        return reading::isLlmFoundryYaml(bytes) ? ImportFormat::LlmFoundry : ImportFormat::NeMo;
    if (suffix == QLatin1String("toml"))
        return ImportFormat::Torchtitan;
    const QJsonDocument doc = QJsonDocument::fromJson(relaxedJson(bytes));
    if (doc.isObject()) {
        const QJsonObject o = doc.object();
        // torchtitan's saved job configuration (--debug.save_config_file: Trainer.Config.to_dict()).
        if (o.contains(QLatin1String("model_spec")) && o.contains(QLatin1String("parallelism")))
            return ImportFormat::Torchtitan;
        if (o.contains(QLatin1String("zero_optimization")) ||
            o.contains(QLatin1String("train_micro_batch_size_per_gpu")) ||
            o.contains(QLatin1String("train_batch_size")))
            return ImportFormat::DeepSpeed;
        if (o.contains(QLatin1String("model_type")) || o.contains(QLatin1String("architectures")) ||
            o.contains(QLatin1String("num_hidden_layers")) || o.contains(QLatin1String("n_layer")) ||
            o.contains(QLatin1String("text_config")))
            return ImportFormat::HuggingFace;
        return ImportFormat::Unknown;
    }
    if (bytes.contains("--num-layers") || bytes.contains("--hidden-size") ||
        bytes.contains("--tensor-model-parallel-size") || bytes.contains("--micro-batch-size") ||
        bytes.contains("--seq-length") || bytes.contains("pretrain_gpt.py") || bytes.contains("pretrain_mamba.py"))
        return ImportFormat::Megatron; // a script running Megatron-LM's entry point, even with its flags elsewhere
    return ImportFormat::Unknown;
}

namespace {

QString valueText(const QJsonValue &v)
{
    if (v.isString())
        return QStringLiteral("\"%1\"").arg(v.toString());
    if (v.isBool())
        return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    return v.toVariant().toString();
}

void setPath(QJsonObject &doc, const QString &path, const QJsonValue &value)
{
    const QString section = path.section('.', 0, 0), key = path.section('.', 1);
    QJsonObject s = doc.value(section).toObject();
    s[key] = value;
    doc[section] = s;
}

/// Keys two files give: the first file's value wins only if they agree; otherwise an error naming both.
std::map<QString, ImportedKey> combine(const std::vector<FileImport> &files, ImportResult &result)
{
    std::map<QString, ImportedKey> keys;
    for (const FileImport &f : files)
        for (const ImportedKey &k : f.keys) {
            result.read.push_back(k);
            const auto [it, added] = keys.emplace(k.path, k);
            // An FP8-family recipe also says bf16 (its parameters and the rest): the low format wins.
            if (!added && k.path == QLatin1String("training.precision")) {
                const auto lowPrecision = [](const QJsonValue &v) {
                    return v.toString().startsWith(QLatin1String("fp8")) ||
                           v.toString().startsWith(QLatin1String("mx")) || v.toString().startsWith(QLatin1String("nv"));
                };
                // ... and a recipe (blockwise, mxfp8) is more specific than the format (fp8).
                if ((lowPrecision(k.value) && it->second.value == QJsonValue(QStringLiteral("bf16"))) ||
                    (lowPrecision(k.value) && k.value != QJsonValue(QStringLiteral("fp8")) &&
                     it->second.value == QJsonValue(QStringLiteral("fp8"))))
                    it->second = k;
                if (lowPrecision(k.value) != lowPrecision(it->second.value) || lowPrecision(k.value))
                    continue;
            }
            // Attention and hidden dropout are one switch in the plan (model.dropout): on if either is. With
            // one of them off, the plan counts that one's masks too; said, not refused.
            if (!added && k.path == QLatin1String(reading::kDropout)) {
                if ((k.value.toDouble() > 0) != (it->second.value.toDouble() > 0))
                    result.warnings.push_back(
                        {k.file, k.line,
                         QStringLiteral("%1 %2 and %3 %4: the plan has one dropout switch; planned with dropout, "
                                        "so the activations count masks the %5 has not")
                             .arg(it->second.source, valueText(it->second.value), k.source, valueText(k.value),
                                  k.value.toDouble() > 0 ? it->second.source : k.source)});
                if (k.value.toDouble() > it->second.value.toDouble())
                    it->second = k;
                continue;
            }
            // A format's default (what a script that says nothing trains) gives way to a file that says.
            if (!added && it->second.weak && !k.weak)
                it->second = k;
            if (!added && (k.weak || it->second.weak))
                continue;
            if (!added && it->second.value != k.value)
                result.errors.push_back(
                    {k.file, k.line,
                     QStringLiteral("%1: %2 here (%3) but %4 in %5 (%6)")
                         .arg(k.path, valueText(k.value), k.source, valueText(it->second.value),
                              ImportMessage{it->second.file, it->second.line, {}}.where(), it->second.source)});
        }
    return keys;
}

/// Each key's value in its plan key's range and choices, refused where the file wrote it ("tp.sh:2:
/// tensor_model_parallel_size: parallel.tensor must be ..."). The plan reader would find it later, but only
/// after what is derived from it (a vocabulary padded to a multiple of the tensor size) had gone wrong.
void checkRanges(const std::map<QString, ImportedKey> &keys, ImportResult &result)
{
    for (const auto &[path, k] : keys) {
        const PlanKey *key = findPlanKey(path.toStdString());
        KeyValue value;
        if (!key)
            continue;
        if (key->type == KeyType::Integer && k.value.isDouble() && std::abs(k.value.toDouble()) < 9e18)
            value = std::int64_t(k.value.toDouble());
        else if (key->type == KeyType::Number && k.value.isDouble())
            value = k.value.toDouble();
        else if ((key->type == KeyType::Enum || key->type == KeyType::String) && k.value.isString())
            value = k.value.toString().toStdString();
        else
            continue; // a type the plan reader names
        if (const std::optional<Problem> problem = checkValue(*key, value))
            result.errors.push_back(
                {k.file, k.line, QStringLiteral("%1: %2 %3").arg(k.source, path, problemText(*problem))});
    }
}

/// A pseudo-key's value, removed from the keys; nullopt when no file gave it.
std::optional<ImportedKey> takeKey(std::map<QString, ImportedKey> &keys, const char *path)
{
    std::optional<ImportedKey> k;
    if (const auto it = keys.find(QLatin1String(path)); it != keys.end()) {
        k = it->second;
        keys.erase(it);
    }
    return k;
}

/// Fully sharded data parallelism as Megatron-LM runs it: Megatron-FSDP shards what its
/// --data-parallel-sharding-strategy names (megatron/training/arguments.py: no_shard, optim, optim_grads,
/// optim_grads_params, the default), the ZeRO stage of that name; --use-torch-fsdp2 is PyTorch's FSDP2,
/// fully sharded with its own buffers (framework "fsdp").
void resolveFsdp(std::map<QString, ImportedKey> &keys)
{
    const std::optional<ImportedKey> megatron = takeKey(keys, "derived.megatron_fsdp"),
                                     sharding = takeKey(keys, "derived.fsdp_sharding"),
                                     torch = takeKey(keys, "derived.torch_fsdp2");
    const auto set = [&](const char *path, const QJsonValue &value, const ImportedKey &from, const QString &why) {
        // The sharding the file asks for wins over --use-distributed-optimizer's stage 1; --set wins over both.
        if (!keys.count(QLatin1String(path)) || keys[QLatin1String(path)].file != QLatin1String("--set"))
            keys[QLatin1String(path)] = {QLatin1String(path), value, from.file, from.line, from.source + why};
    };
    if (torch && torch->value.toBool()) {
        set("parallel.zero_stage", 3, *torch, QStringLiteral(": PyTorch FSDP2, fully sharded"));
        set("training.framework", QStringLiteral("fsdp"), *torch, QString());
    } else if (megatron && megatron->value.toBool()) {
        static const QStringList stages{"no_shard", "optim", "optim_grads", "optim_grads_params"};
        const QString strategy = sharding ? sharding->value.toString() : QStringLiteral("optim_grads_params");
        set("parallel.zero_stage", double(std::max<qsizetype>(0, stages.indexOf(strategy))),
            sharding ? *sharding : *megatron, QStringLiteral(": Megatron-FSDP sharding %1").arg(strategy));
    }
}

using Keys = std::map<QString, ImportedKey>;

/// Sets `path` from the file position and name of `from`, with `note` after the name.
void deriveKey(Keys &keys, const char *path, const QJsonValue &value, const ImportedKey &from, const QString &note = {})
{
    keys[QLatin1String(path)] = {QLatin1String(path), value, from.file, from.line, from.source + note};
}

/// A key's number, or `fallback` when no file gave it.
double numberOf(const Keys &keys, const char *path, double fallback)
{
    const auto it = keys.find(QLatin1String(path));
    return it != keys.end() ? it->second.value.toDouble() : fallback;
}

/// Layers per virtual stage to virtual stages (and the interleaved schedule they imply).
void resolveVirtualStages(Keys &keys, ImportResult &result)
{
    if (const auto it = keys.find(QStringLiteral("derived.layers_per_virtual_stage")); it != keys.end()) {
        const double layers = numberOf(keys, "model.layers", 0), p = numberOf(keys, "parallel.pipeline", 1);
        const double n = it->second.value.toDouble();
        if (layers > 0 && n > 0 && std::fmod(layers, p * n) == 0) {
            deriveKey(keys, "parallel.virtual_stages", layers / (p * n), it->second);
            deriveKey(keys, "parallel.schedule", QStringLiteral("interleaved"), it->second);
        } else {
            result.warnings.push_back(
                {it->second.file, it->second.line,
                 QStringLiteral("%1 %2: needs the layer count and the pipeline size that divide by it")
                     .arg(it->second.source)
                     .arg(n)});
        }
        keys.erase(it);
    }
    if (const auto v = keys.find(QStringLiteral("parallel.virtual_stages"));
        v != keys.end() && v->second.value.toDouble() > 1 && !keys.count(QStringLiteral("parallel.schedule")))
        deriveKey(keys, "parallel.schedule", QStringLiteral("interleaved"), v->second);
}

/// Megatron-Core's pipeline layout string as its model chunks' contents, in chunk order (E the embedding, t a
/// decoder layer, m a multi-token-prediction layer, L the loss; '|' ends a chunk, "x*n" and "(...)*n"
/// repeat, commas are cosmetic), parsed as megatron/core/transformer/pipeline_parallel_layer_layout.py's
/// parse_str_to_list does: one pass of each repetition in turn (so no nested groups). Empty with `error` set
/// when the text is not one.
QStringList expandPipelineLayout(QString text, QString &error)
{
    constexpr qsizetype kMaxLayout = 1'000'000; // characters once expanded: more chunks than any machine
    text.remove(QLatin1Char(',')).remove(QLatin1Char(' '));
    static const QRegularExpression group(QStringLiteral("\\(([^)]+)\\)\\*(\\d+)"));
    static const QRegularExpression single(QStringLiteral("(.)\\*(\\d+)"));
    for (const QRegularExpression *pattern : {&group, &single}) {
        QString expanded;
        qsizetype at = 0;
        for (QRegularExpressionMatchIterator it = pattern->globalMatch(text); it.hasNext();) {
            const QRegularExpressionMatch m = it.next();
            const qsizetype count = m.captured(2).size() > 7 ? kMaxLayout + 1 : m.captured(2).toLongLong();
            if (expanded.size() + m.captured(1).size() * count > kMaxLayout) {
                error = QStringLiteral("repeats %1 %2 times").arg(m.captured(1), m.captured(2));
                return {};
            }
            expanded += QStringView(text).mid(at, m.capturedStart() - at);
            expanded += m.captured(1).repeated(count);
            at = m.capturedEnd();
        }
        expanded += QStringView(text).mid(at);
        text = expanded;
    }
    if (text.contains(QLatin1Char('(')) || text.contains(QLatin1Char(')'))) {
        error = QStringLiteral("a group left after one pass of (...)*n: Megatron-Core's parser does not nest them");
        return {};
    }
    for (const QChar c : text)
        if (!QStringLiteral("ELtm|").contains(c)) {
            error = QStringLiteral("'%1' is no layer (E embedding, t decoder, m MTP, L loss, | a chunk's end)").arg(c);
            return {};
        }
    return text.split(QLatin1Char('|'));
}

/// A pipeline layout's decoder layers per pipeline rank (chunk i runs on rank i mod p), or the reason it
/// cannot be read with the plan key it concerns.
struct LayoutRanks
{
    std::vector<std::int64_t> layers; ///< decoder layers per rank
    std::int64_t chunksPerRank = 1;
    std::int64_t mtpRank = -1;
    QString error;
    const char *key = nullptr;
};

LayoutRanks layoutRanks(const QString &text, std::int64_t p, double modelLayers, double mtpLayers)
{
    LayoutRanks r;
    const auto fail = [&](const QString &why, const char *key) {
        r.error = why;
        r.key = key;
        return r;
    };
    const QStringList chunks = expandPipelineLayout(text, r.error);
    if (!r.error.isEmpty() || chunks.isEmpty())
        return fail(r.error.isEmpty() ? QStringLiteral("no chunks") : r.error, "parallel.first_stage_layers");
    if (p < 1 || chunks.size() % p != 0)
        return fail(QStringLiteral("%1 chunks do not divide among %2 pipeline stages").arg(chunks.size()).arg(p),
                    "parallel.pipeline");
    const QString all = chunks.join(QString());
    if (!all.startsWith(QLatin1Char('E')) || !all.endsWith(QLatin1Char('L')) || all.count(QLatin1Char('E')) != 1 ||
        all.count(QLatin1Char('L')) != 1)
        return fail(QStringLiteral("the embedding must come first and the loss last, once each"),
                    "parallel.first_stage_layers");
    const qsizetype decoders = all.count(QLatin1Char('t')), mtp = all.count(QLatin1Char('m'));
    if (modelLayers > 0 && double(decoders) != modelLayers)
        return fail(QStringLiteral("it places %1 decoder layers, the model has %2").arg(decoders).arg(modelLayers),
                    "model.layers");
    if (mtpLayers > 0 && double(mtp) != mtpLayers)
        return fail(
            QStringLiteral("it places %1 multi-token-prediction layers, the model has %2").arg(mtp).arg(mtpLayers),
            "model.mtp_layers");
    r.chunksPerRank = chunks.size() / p;
    r.layers.assign(std::size_t(p), 0);
    for (qsizetype i = 0; i < chunks.size(); ++i) {
        r.layers[std::size_t(i % p)] += chunks[i].count(QLatin1Char('t'));
        if (chunks[i].contains(QLatin1Char('m')))
            r.mtpRank = i % p;
    }
    if (const auto empty = std::find(r.layers.begin(), r.layers.end(), 0); empty != r.layers.end())
        return fail(QStringLiteral("stage %1 holds no decoder layer; a plan's stages hold one at least")
                        .arg(empty - r.layers.begin()),
                    "parallel.stage_layers");
    return r;
}

/// --pipeline-model-parallel-layout: the plan holds the first and last ranks' decoder layers when the ranks
/// between them hold equal shares, every rank's (parallel.stage_layers) when they differ, and the chunks per
/// rank as virtual stages. What --set gives wins.
void resolvePipelineLayout(Keys &keys, ImportResult &result)
{
    const auto it = keys.find(QString::fromLatin1(reading::kPipelineLayout));
    if (it == keys.end())
        return;
    const ImportedKey from = it->second;
    keys.erase(it);
    const QString text = from.value.toString(), quoted = reading::shortText(text);
    const auto bySet = [&](const char *path) {
        const auto k = keys.find(QLatin1String(path));
        return k != keys.end() && k->second.file == QLatin1String("--set");
    };
    const auto p = std::int64_t(numberOf(keys, "parallel.pipeline", 1));
    const LayoutRanks ranks =
        layoutRanks(text, p, numberOf(keys, "model.layers", 0), numberOf(keys, "model.mtp_layers", 0));
    const std::int64_t v = ranks.chunksPerRank;
    const double givenV = numberOf(keys, "parallel.virtual_stages", 0);
    const bool splitBySet = bySet("parallel.first_stage_layers") || bySet("parallel.last_stage_layers") ||
                            bySet("parallel.stage_layers");
    const QString error =
        !ranks.error.isEmpty() ? ranks.error
        : givenV > 0 && givenV != double(v) && !bySet("parallel.virtual_stages")
            ? QStringLiteral("it gives %1 chunks per stage, the virtual stages say %2").arg(v).arg(givenV)
            : QString();
    // A split the plan cannot hold is no error when --set gives the stages' layers (checked by the plan's rules).
    const bool splitReplaced =
        splitBySet && ranks.key && QLatin1String(ranks.key).contains(QLatin1String("stage_layers"));
    if (!error.isEmpty() && !splitReplaced) {
        result.errors.push_back(
            {from.file, from.line,
             QStringLiteral("%1 %2: %3 (%4)")
                 .arg(from.source, quoted, error, QLatin1String(ranks.key ? ranks.key : "parallel.virtual_stages"))});
        return;
    }
    const QString source = QStringLiteral(" (%1)").arg(quoted);
    const auto derive = [&](const char *path, const QJsonValue &value) {
        if (!bySet(path))
            deriveKey(keys, path, value, from, source);
    };
    if (v > 1) {
        derive("parallel.virtual_stages", double(v));
        derive("parallel.schedule", QStringLiteral("interleaved"));
        // The interleaved schedule overlaps its transfers unless the file says otherwise (ReadMegatron.cpp).
        if (!keys.count(QStringLiteral("parallel.overlap_p2p_comm")))
            derive("parallel.overlap_p2p_comm", true);
    }
    if (p < 2 || splitBySet)
        return;
    // A rank that differs from the middle ranks' share is the plan's uneven first or last stage.
    const std::int64_t first = ranks.layers.front(), last = ranks.layers.back();
    const std::int64_t share = p > 2 ? ranks.layers[1] : 0;
    const std::vector<std::int64_t> middle(ranks.layers.begin() + 1, ranks.layers.end() - 1);
    const bool evenMiddle = std::adjacent_find(middle.begin(), middle.end(), std::not_equal_to<>()) == middle.end();
    // Stages between the first and the last that differ, or a middle share the chunks do not divide (the
    // first and last stage layers need it divisible; a list of every stage's layers does not): every stage's.
    if (!evenMiddle || (v > 1 && share % v != 0)) {
        QJsonArray list;
        for (const std::int64_t n : ranks.layers)
            list.append(double(n));
        derive("parallel.stage_layers", list);
    } else if (!bySet("parallel.stage_layers")) {
        if (share != first)
            derive("parallel.first_stage_layers", double(first));
        if (share != last)
            derive("parallel.last_stage_layers", double(last));
    }
    if (ranks.mtpRank >= 0 && ranks.mtpRank != p - 1)
        result.warnings.push_back({from.file, from.line,
                                   QStringLiteral("%1 %2: the multi-token-prediction layer runs on stage %3; the plan "
                                                  "places it on the last stage (%4)")
                                       .arg(from.source, quoted)
                                       .arg(ranks.mtpRank)
                                       .arg(p - 1)});
}

/// A hybrid model's layers are its pattern's symbols: where no file gives the layer count, the pattern's length is it,
/// as Megatron-LM derives num_layers from the pattern (megatron/training/arguments.py lines 787-797 at d98e8a6). A
/// count that disagrees with the pattern stays, for the plan's check to name.
void layersFromPattern(Keys &keys)
{
    const auto it = keys.find(QStringLiteral("model.hybrid_pattern"));
    if (it != keys.end() && !keys.count(QStringLiteral("model.layers")))
        deriveKey(keys, "model.layers", double(it->second.value.toString().size()), it->second,
                  QStringLiteral(" (its length)"));
}

/// The shared experts' count from their total width, the vocabulary padded as Megatron pads it, dropout.
void resolveShape(Keys &keys, ImportResult &result)
{
    // Megatron-Core's moe_shared_expert_intermediate_size is the shared experts' total width: shared
    // experts x one expert's width.
    if (const auto it = keys.find(QStringLiteral("derived.shared_expert_width")); it != keys.end()) {
        const double width = numberOf(keys, "model.expert_ffn_hidden", numberOf(keys, "model.ffn_hidden", 0));
        const double total = it->second.value.toDouble();
        if (width > 0 && total > 0 && std::fmod(total, width) == 0) {
            deriveKey(keys, "model.shared_experts", total / width, it->second, QStringLiteral(" / expert width"));
        } else if (width > 0 && total > 0) {
            // The plan's shared experts have the routed experts' width: the nearest count, said.
            const double count = std::max(1.0, std::round(total / width));
            deriveKey(keys, "model.shared_experts", count, it->second, QStringLiteral(" / expert width, rounded"));
            result.warnings.push_back({it->second.file, it->second.line,
                                       QStringLiteral("%1 %2: planned as %3 shared experts of the routed width %4 "
                                                      "(%5 wide in all)")
                                           .arg(it->second.source)
                                           .arg(total)
                                           .arg(count)
                                           .arg(width)
                                           .arg(count * width)});
        } else {
            result.warnings.push_back(
                {it->second.file, it->second.line,
                 QStringLiteral("%1 %2: needs an expert width (moe_ffn_hidden_size) to count the shared experts")
                     .arg(it->second.source)
                     .arg(total)});
        }
        keys.erase(it);
    }
    if (const auto it = keys.find(QStringLiteral("derived.tokenizer_vocab")); it != keys.end()) {
        const double multiple = numberOf(keys, "derived.vocab_multiple", 128) * numberOf(keys, "parallel.tensor", 1);
        if (!keys.count(QStringLiteral("model.vocab")) && multiple > 0)
            deriveKey(keys, "model.vocab", std::ceil(it->second.value.toDouble() / multiple) * multiple, it->second,
                      QStringLiteral(", padded to a multiple of %1").arg(multiple));
        keys.erase(it);
        keys.erase(QStringLiteral("derived.vocab_multiple"));
    }
    if (const auto it = keys.find(QStringLiteral("derived.dropout")); it != keys.end()) {
        deriveKey(keys, "model.dropout", it->second.value.toDouble() > 0, it->second);
        keys.erase(it);
    }
}

/// The GPUs the keys (or the base) give: nodes x GPUs per node, 8 per node unless said; 0 without a node count.
double gpusOf(const Keys &keys, const QJsonObject &base)
{
    return numberOf(keys, "cluster.nodes", base["cluster"]["nodes"].toDouble()) *
           numberOf(keys, "cluster.gpus_per_node", base["cluster"]["gpus_per_node"].toDouble(8));
}

/// The gradient buckets from hidden_size^2, and the global batch from the gradient accumulation.
void resolveBatch(Keys &keys, const QJsonObject &base)
{
    if (const auto it = keys.find(QStringLiteral("derived.bucket_hidden_squared")); it != keys.end()) {
        const double hidden = numberOf(keys, "model.hidden", 0);
        if (hidden > 0 && !keys.count(QStringLiteral("parallel.bucket_bytes")))
            deriveKey(keys, "parallel.bucket_bytes", it->second.value.toDouble() * hidden * hidden, it->second,
                      QStringLiteral(": hidden_size^2 16-bit gradients"));
        keys.erase(it);
    }
    if (const auto it = keys.find(QStringLiteral("derived.gradient_accumulation")); it != keys.end()) {
        // The plan format's defaults where the base (the example plan, if asked for) has none: 8 GPUs per
        // node, micro-batch 1; without a node count the global batch stays unknown (a missing key).
        const double gpus = gpusOf(keys, base);
        const double data = gpus / (numberOf(keys, "parallel.tensor", 1) * numberOf(keys, "parallel.pipeline", 1) *
                                    numberOf(keys, "parallel.context", 1));
        const double accumulation = it->second.value.toDouble();
        // A global batch and the accumulation steps without the micro-batch: the micro-batch is what makes them
        // agree (DeepSpeed's train_batch_size with gradient_accumulation_steps: micro = train_batch / world /
        // grad_acc, deepspeed/runtime/config.py, _set_batch_related_parameters).
        const bool microGiven = keys.count(QStringLiteral("training.micro_batch")) > 0;
        if (keys.count(QStringLiteral("training.global_batch")) && !microGiven && data >= 1 && accumulation > 0) {
            const double derived = numberOf(keys, "training.global_batch", 0) / (accumulation * data);
            if (derived >= 1 && derived == std::floor(derived))
                deriveKey(keys, "training.micro_batch", derived, it->second,
                          QStringLiteral(": global batch / (accumulation steps x data-parallel size)"));
        }
        if (!keys.count(QStringLiteral("training.global_batch")) && gpus > 0 && accumulation > 0) {
            const double micro = numberOf(keys, "training.micro_batch", base["training"]["micro_batch"].toDouble(1));
            deriveKey(keys, "training.global_batch", micro * it->second.value.toDouble() * data, it->second,
                      QStringLiteral(" x micro-batch x data-parallel size"));
        }
        keys.erase(it);
    }
}

/// Megatron-Core's --num-distributed-optimizer-instances k: the distributed optimizer's state sharded over
/// data x context / k contiguous ranks (megatron/core/parallel_state.py, the intra-partial data-parallel
/// groups), the plan's shard group; k must divide them ("Data parallel size should be divisible by partial
/// DistOpt shard factor").
void resolveOptimizerInstances(Keys &keys, const QJsonObject &base, ImportResult &result)
{
    const auto it = keys.find(QStringLiteral("derived.optimizer_instances"));
    if (it == keys.end())
        return;
    const ImportedKey from = it->second;
    keys.erase(it);
    const double k = from.value.toDouble();
    if (k <= 1 || keys.count(QStringLiteral("parallel.shard_group")))
        return;
    const double ranks =
        gpusOf(keys, base) / (numberOf(keys, "parallel.tensor", 1) * numberOf(keys, "parallel.pipeline", 1));
    if (ranks <= 0)
        return result.warnings.push_back(
            {from.file, from.line,
             QStringLiteral("%1 %2: needs the node count to size the shard group (parallel.shard_group)")
                 .arg(from.source)
                 .arg(k)});
    if (ranks < k || std::fmod(ranks, k) != 0)
        return result.errors.push_back(
            {from.file, from.line,
             QStringLiteral("%1 %2 must divide the %3 data x context ranks (parallel.shard_group)")
                 .arg(from.source)
                 .arg(k)
                 .arg(ranks)});
    deriveKey(keys, "parallel.shard_group", ranks / k, from,
              QStringLiteral(": data x context ranks / %1 instances").arg(k));
}

/// Qi et al.'s fork: --enable-zero-bubble schedules automatically under --zero-bubble-max-pending-backward, ZB-1p
/// at the pipeline size and ZB-2p at twice it (the fork's README): zb-h1 and zb-h2, the handcrafted schedules of
/// those limits. Its V schedule (two stages per rank) and its adaptive "auto" limit are planned as zb-h1, said.
void resolveZeroBubble(Keys &keys, ImportResult &result)
{
    const std::optional<ImportedKey> on = takeKey(keys, "derived.zero_bubble"),
                                     pending = takeKey(keys, "derived.zero_bubble_pending"),
                                     v = takeKey(keys, "derived.zero_bubble_v");
    const bool vShape = v && v->value.toBool();
    if (!(on && on->value.toBool()) && !vShape)
        return;
    if (const auto it = keys.find(QStringLiteral("parallel.schedule"));
        it != keys.end() && it->second.file == QLatin1String("--set"))
        return;
    const ImportedKey &from = vShape ? *v : *on;
    const QString limit = pending ? pending->value.toString() : QStringLiteral("auto");
    bool isNumber = false;
    const double n = limit.toDouble(&isNumber), p = numberOf(keys, "parallel.pipeline", 1);
    const bool deep = !vShape && isNumber && p > 1 && n >= 2.0 * p;
    const QString note = deep ? QStringLiteral(": ZB-2p, twice the %1 stages").arg(p) : QStringLiteral(": zero bubble");
    deriveKey(keys, "parallel.schedule", deep ? QStringLiteral("zb-h2") : QStringLiteral("zb-h1"),
              pending && !vShape ? *pending : from, note);
    if (vShape)
        result.warnings.push_back(
            {from.file, from.line,
             QStringLiteral("%1: the V schedule (two stages per rank) is planned as ZB-H1 with one "
                            "stage per rank, whose bubble is larger")
                 .arg(from.source)});
    else if (!isNumber)
        result.warnings.push_back(
            {from.file, from.line,
             QStringLiteral("%1 %2: the fork adapts its memory limit; planned as ZB-H1, at 1F1B's "
                            "memory (set parallel.schedule to zb-h2 for twice the stages)")
                 .arg(pending ? pending->source : QStringLiteral("zero_bubble_max_pending_backward"), limit)});
}

/// Whether the keys give a model's shape (its layers, width or heads) rather than a preset.
bool givesShape(const std::map<QString, ImportedKey> &keys)
{
    return keys.count(QStringLiteral("model.layers")) || keys.count(QStringLiteral("model.hidden")) ||
           keys.count(QStringLiteral("model.heads"));
}

/// A Hugging Face Hub checkpoint the files name (llm-foundry's hf_causal_lm): the catalog preset that lists it as
/// its checkpoint (models.json hf_ids, each a preset whose source is that config.json), unless a preset or a shape
/// is given; else it is named in a warning and the model is asked for.
void resolveCheckpoint(Keys &keys, const Catalog &catalog, ImportResult &result)
{
    const std::optional<ImportedKey> taken = takeKey(keys, reading::kCheckpoint);
    if (!taken)
        return;
    const ImportedKey &from = *taken;
    const QString name = from.value.toString().trimmed();
    if (keys.count(QStringLiteral("model.preset")) || givesShape(keys))
        return;
    for (const ModelSpec &m : catalog.models())
        for (const std::string &id : m.huggingFaceIds)
            if (name.compare(QString::fromStdString(id), Qt::CaseInsensitive) == 0) {
                deriveKey(keys, "model.preset", QString::fromStdString(m.presetId), from,
                          QStringLiteral(": the catalog's preset of that checkpoint (its config.json's shape)"));
                return;
            }
    result.warnings.push_back({from.file, from.line,
                               QStringLiteral("%1 %2: the model is this Hugging Face checkpoint, which no preset "
                                              "lists; import its config.json beside this file for its shape")
                                   .arg(from.source, name)});
}

/// Pseudo-keys that need other keys: layers per virtual stage, gradient accumulation, dropout.
void resolveDerived(Keys &keys, const QJsonObject &base, ImportResult &result)
{
    resolveFsdp(keys);
    resolveVirtualStages(keys, result);
    resolvePipelineLayout(keys, result);
    layersFromPattern(keys);
    resolveShape(keys, result);
    resolveBatch(keys, base);
    resolveOptimizerInstances(keys, base, result);
    resolveZeroBubble(keys, result);
}

/// The example plan's model key that a given model keeps from it unless the files say (model.seq_len,
/// model.vocab: its preset's), as the plan file spells it.
QJsonValue exampleModelKey(const char *path)
{
    static const QJsonObject model = [] {
        const PlanReadResult example = readPlan(builtinExamplePlan(), builtinCatalog());
        return example.plan ? QJsonObject{{QStringLiteral("seq_len"), double(example.plan->model.seqLen)},
                                          {QStringLiteral("vocab"), double(example.plan->model.vocab)}}
                            : QJsonObject{{QStringLiteral("seq_len"), 2048.0}, {QStringLiteral("vocab"), 50257.0}};
    }();
    return model.value(QLatin1String(path).mid(6)); // after "model."
}

bool anyUnder(const std::map<QString, ImportedKey> &keys, const char *prefix)
{
    for (const auto &[path, k] : keys)
        if (path.startsWith(QLatin1String(prefix)))
            return true;
    return false;
}

/// The example plan, less what the imported keys replace (ImportOptions::assumeExample): a model given by
/// the files replaces the example's whole model (its sequence length and vocabulary stay unless given), then the
/// example's layout, made for its own model, gives way to the plan format's defaults (data parallel over
/// every GPU) for what the files do not say.
QJsonObject exampleDocument(const std::map<QString, ImportedKey> &keys)
{
    QJsonObject base = QJsonDocument::fromJson(builtinExamplePlan()).object();
    base.remove(QStringLiteral("description"));
    base.remove(QStringLiteral("name"));
    if (anyUnder(keys, "model.")) // the example's sequence length stays (an assumption) unless the files give one
        base[QStringLiteral("model")] = QJsonObject{{QStringLiteral("seq_len"), exampleModelKey("model.seq_len")},
                                                    {QStringLiteral("vocab"), exampleModelKey("model.vocab")}};
    if (anyUnder(keys, "model.") || anyUnder(keys, "parallel.") || anyUnder(keys, "cluster."))
        base[QStringLiteral("parallel")] = QJsonObject{};
    return base;
}

/// What a plan needs that has no default worth planning on. The rest takes the plan format's documented
/// defaults (docs/PLAN_FORMAT.md: no recomputation, micro-batch 1, Adam, 8 GPUs per node, ...).
std::vector<MissingKey> neededKeys(const std::map<QString, ImportedKey> &keys)
{
    const QJsonObject example = QJsonDocument::fromJson(builtinExamplePlan()).object();
    const auto exampleValue = [&](const QString &path) -> QJsonValue {
        return path == QLatin1String("model.seq_len") || path == QLatin1String("model.vocab")
                   ? exampleModelKey(path.toLatin1().constData())
                   : example[path.section('.', 0, 0)][path.section('.', 1)];
    };
    std::vector<MissingKey> needed;
    const auto need = [&](const char *path, const char *meaning) {
        if (!keys.count(QLatin1String(path)))
            needed.push_back({QLatin1String(path), exampleValue(QLatin1String(path)), QLatin1String(meaning)});
    };
    if (!keys.count(QStringLiteral("cluster.node_groups"))) {
        need("cluster.device", "the accelerator's device id");
        need("cluster.nodes", "the number of nodes, of cluster.gpus_per_node GPUs each, 8 unless given");
    }
    // A model is given by a preset or by its shape; a file that gives only run settings under model (a
    // Megatron-Bridge override file's model.seq_length and parallel sizes, its model in the Python recipe)
    // gives none, and is asked for the model, not for a vocabulary.
    const bool shape = givesShape(keys);
    if (!keys.count(QStringLiteral("model.preset")) && !shape)
        need("model.preset", "the model: a preset id, or import its Hugging Face config.json with the rest");
    else if (!keys.count(QStringLiteral("model.preset"))) {
        need("model.seq_len", "tokens per training sequence; a model's config gives its longest context, not this");
        need("model.vocab", "the vocabulary, as a size or a tokenizer of known size (the model's Hugging Face "
                            "config.json gives vocab_size)");
    }
    need("training.global_batch", "sequences per optimizer step");
    // DeepSpeed's "auto" (deepSpeedAuto): the Hugging Face Trainer fills them from its own arguments, which no
    // file here holds.
    if (keys.count(QString::fromLatin1(reading::kTrainerMicroBatch)))
        need("training.micro_batch", "sequences per GPU per micro-batch (train_micro_batch_size_per_gpu \"auto\": "
                                     "the Hugging Face Trainer's per_device_train_batch_size)");
    if (keys.count(QString::fromLatin1(reading::kTrainerPrecision)))
        need("training.precision", "the precision (bf16.enabled or fp16.enabled \"auto\": the Hugging Face "
                                   "Trainer's --bf16 or --fp16, FP32 without either)");
    return needed;
}

/// The assumptions (assumeExample): every key the example plan gives that no file and no --set gives.
void listAssumptions(const QJsonObject &doc, const std::map<QString, ImportedKey> &keys, ImportResult &result)
{
    for (auto section = doc.begin(); section != doc.end(); ++section) {
        if (!section.value().isObject())
            continue;
        const QJsonObject o = section.value().toObject();
        for (auto it = o.begin(); it != o.end(); ++it) {
            const QString path = section.key() + '.' + it.key();
            if (!keys.count(path))
                result.assumptions << QStringLiteral("%1 = %2 (the example plan)").arg(path, valueText(it.value()));
        }
    }
}

/// The choices that shape a plan's memory and speed which no file and no --set gave: they are the plan
/// format's defaults, and the report says so (issue 40: an import "did not fit" with no word of why).
void listDefaults(const Plan &plan, const std::map<QString, ImportedKey> &keys, ImportResult &result)
{
    static const char *const shaping[] = {
        "parallel.tensor",          "parallel.pipeline",         "parallel.context",   "parallel.expert",
        "parallel.zero_stage",      "training.micro_batch",      "training.recompute", "training.precision",
        "training.flash_attention", "training.sequence_parallel"};
    for (const char *path : shaping) {
        const PlanKey *key = findPlanKey(path);
        if (keys.count(QLatin1String(path)) || !key ||
            (QLatin1String(path) == QLatin1String("parallel.expert") && !plan.model.isMoe()))
            continue;
        result.defaults << QStringLiteral("%1 = %2").arg(QLatin1String(path),
                                                         QString::fromStdString(formatValue(key->get(plan))));
    }
    if (!keys.count(QStringLiteral("parallel.data")))
        result.defaults
            << QStringLiteral("parallel.data = %1 (the GPUs over tensor x pipeline x context)").arg(plan.parallel.data);
}

/// A file that gave no key at all: an import of nothing is an error, not the example plan.
void refuseEmpty(const QString &name, const FileImport &f, ImportResult &result)
{
    // Only a format's defaults (a pyproject.toml read as a torchtitan job file) is nothing read either.
    if (std::all_of(f.keys.begin(), f.keys.end(), [](const ImportedKey &k) { return k.weak; }) && f.errors.empty())
        result.errors.push_back(
            {name, 0,
             QStringLiteral("no setting Trainplan plans was read from it (read as %1%2); is it the run's "
                            "configuration?")
                 .arg(QLatin1String(formatName(f.format)),
                      f.notPlanned.isEmpty() ? QString()
                                             : QStringLiteral(", only ") + f.notPlanned.join(QStringLiteral(", ")))});
}

/// "key=value" overrides (numbers, true/false, otherwise text): they replace what the files say, and
/// derived keys (a global batch from accumulation steps) follow them.
bool applySets(std::map<QString, ImportedKey> &keys, const QStringList &sets, ImportResult &result)
{
    std::map<QString, QString> given;
    for (const QString &set : sets) {
        const qsizetype eq = set.indexOf('=');
        const QString path = set.left(eq).trimmed(), text = set.mid(eq + 1).trimmed();
        if (eq <= 0 || !path.contains('.')) {
            result.errors.push_back(
                {QStringLiteral("--set"), 0,
                 QStringLiteral("%1: write KEY=VALUE with a plan key such as parallel.tensor=8").arg(set)});
            return false;
        }
        if (const auto [it, first] = given.emplace(path, text); !first) {
            result.errors.push_back(
                {QStringLiteral("--set"), 0,
                 QStringLiteral("%1 is set twice (%2 and %3): give each key once").arg(path, it->second, text)});
            return false;
        }
        bool ok = false;
        const double number = text.toDouble(&ok);
        QJsonValue value = ok                               ? QJsonValue(number)
                           : text == QLatin1String("true")  ? QJsonValue(true)
                           : text == QLatin1String("false") ? QJsonValue(false)
                                                            : QJsonValue(text);
        // A list key (parallel.stage_layers=10,11,11,8) as the array the plan file holds.
        const PlanKey *key = findPlanKey(path.toStdString());
        if (key && key->type == KeyType::IntegerList) {
            const auto list = parseIntegerList(text.toStdString());
            if (!list) {
                result.errors.push_back(
                    {QStringLiteral("--set"), 0,
                     QStringLiteral("%1: %2").arg(path, problemText(*checkValue(*key, text.toStdString())))});
                return false;
            }
            QJsonArray array;
            for (const std::int64_t v : *list)
                array.append(double(v));
            value = array;
        }
        keys[path] = {path, value, QStringLiteral("--set"), 0, set};
        result.overrides << QStringLiteral("%1 = %2").arg(path, valueText(value));
    }
    return true;
}

} // namespace

FileImport importFile(const QString &name, const QByteArray &bytes, ImportFormat format,
                      const QStringList &scriptArguments)
{
    switch (format) {
    case ImportFormat::HuggingFace: return reading::readHuggingFace(name, bytes);
    case ImportFormat::Megatron: return reading::readMegatron(name, bytes, scriptArguments);
    case ImportFormat::NeMo: return reading::readNemo(name, bytes);
    case ImportFormat::Torchtitan: return reading::readTorchtitan(name, bytes);
    case ImportFormat::DeepSpeed: return reading::readDeepSpeed(name, bytes);
    case ImportFormat::LlmFoundry: return reading::readLlmFoundry(name, bytes);
    case ImportFormat::Unknown: break;
    }
    FileImport out;
    out.errors.push_back(
        {name, 0,
         QStringLiteral("not a format Trainplan imports (a Hugging Face config.json, a Megatron-LM script or "
                        "argument file, a NeMo recipe or llm-foundry training .yaml, a torchtitan .toml or saved "
                        "configuration .json or a DeepSpeed .json)")});
    return out;
}

/// The imported file whose name (without its directory) is the one a script names, or files.end().
static std::vector<std::pair<QString, QByteArray>>::const_iterator
fileNamed(const std::vector<std::pair<QString, QByteArray>> &files, const QString &name)
{
    return std::find_if(files.begin(), files.end(), [&](const auto &f) {
        return !name.isEmpty() && f.first.section(QLatin1Char('/'), -1) == name;
    });
}

/// A DeepSpeed config a launch script writes by sed from a template (Megatron-DeepSpeed's examples: sed
/// "s/GBSIZE/${global_batch_size}/" ds_config_gpt_TEMPLATE.json | ... > ${config_json}): the template imported
/// beside the script (the same file name) is read as the config with the script's substitutions made; without
/// it the import says which file to add.
static void readTemplatedConfigs(const std::vector<std::pair<QString, QByteArray>> &files,
                                 std::vector<FileImport> &imports)
{
    for (std::size_t i = 0; i < imports.size(); ++i)
        for (const FileImport::TemplatedConfig &t : imports[i].templatedConfigs) {
            const QString wanted = t.source.section(QLatin1Char('/'), -1);
            const auto given = fileNamed(files, wanted);
            if (given == files.end()) {
                imports[i].warnings.push_back(
                    {files[i].first, t.line,
                     QStringLiteral("deepspeed_config: written by sed from %1; import %2 with the script to plan what "
                                    "it says (ZeRO, offload, precision)")
                         .arg(t.source, wanted)});
                continue;
            }
            const std::size_t j = std::size_t(given - files.begin());
            const QString text = shell::substituted(QString::fromUtf8(given->second), t.substitutions);
            imports[j] = importFile(given->first, text.toUtf8(), ImportFormat::DeepSpeed);
        }
}

/// A launch script that sources another (`source $(dirname $SCRIPT_PATH)/common.sh`) runs with what that file
/// sets: its flags, its variables, the precision Megatron-LM would otherwise default. Imported beside the script
/// (the same file name) it is read as a file of its own; otherwise the import says, at the line, that it is not
/// read and that what the script leaves unsaid took the framework's defaults. Nothing is run or opened.
static void sayUnreadSources(const std::vector<std::pair<QString, QByteArray>> &files,
                             std::vector<FileImport> &imports)
{
    for (std::size_t i = 0; i < imports.size(); ++i)
        for (const FileImport::SourcedFile &f : imports[i].sourcedFiles) {
            const QString wanted = f.path.section(QLatin1Char('/'), -1);
            const bool known = !wanted.isEmpty() && !wanted.contains(QLatin1Char('$'));
            if (known && fileNamed(files, wanted) != files.end())
                continue;
            imports[i].warnings.push_back(
                {files[i].first, f.line,
                 QStringLiteral("sources %1, which is not imported: what it sets is not read, and what this script "
                                "leaves unsaid took Megatron-LM's defaults (the keys read marked so); %2")
                     .arg(f.path, known ? QStringLiteral("import %1 beside this script").arg(wanted)
                                        : QStringLiteral("import the file it names beside this script"))});
        }
}

ImportResult importContents(const std::vector<std::pair<QString, QByteArray>> &files, const QStringList &sets,
                            const Catalog &catalog, const ImportOptions &options)
{
    ImportResult result;
    result.scriptArguments = options.scriptArguments;
    std::vector<FileImport> imports;
    for (const auto &[name, bytes] : files)
        imports.push_back(importFile(name, bytes, detectFormat(name, bytes), options.scriptArguments));
    readTemplatedConfigs(files, imports);
    sayUnreadSources(files, imports);
    for (std::size_t i = 0; i < files.size(); ++i) {
        const QString &name = files[i].first;
        result.missingArguments = std::max(result.missingArguments, imports[i].missingArguments);
        for (const ImportMessage &m : imports[i].warnings)
            result.warnings.push_back(m);
        for (const ImportMessage &m : imports[i].errors)
            result.errors.push_back(m);
        if (!imports[i].notPlanned.isEmpty())
            result.notPlanned << QStringLiteral("%1: %2").arg(name, imports[i].notPlanned.join(QStringLiteral(", ")));
        refuseEmpty(name, imports[i], result);
    }
    std::map<QString, ImportedKey> keys = combine(imports, result);
    if (!applySets(keys, sets, result) || !result.errors.empty())
        return result;
    checkRanges(keys, result);
    if (!result.errors.empty())
        return result;
    // Without the example, the plan format's defaults: the layout's section empty is data parallel over every GPU.
    QJsonObject doc =
        options.assumeExample ? exampleDocument(keys) : QJsonObject{{QStringLiteral("parallel"), QJsonObject{}}};
    resolveDerived(keys, doc, result);
    resolveCheckpoint(keys, catalog, result);
    result.missing = neededKeys(keys);
    keys.erase(QString::fromLatin1(reading::kTrainerMicroBatch));
    keys.erase(QString::fromLatin1(reading::kTrainerPrecision));
    if (!options.assumeExample) {
        for (const MissingKey &m : result.missing)
            result.errors.push_back(
                {m.path, 0,
                 QStringLiteral("no file gives %1; give it with --set %2=VALUE, or take the example plan's "
                                "%3 with --assume-example")
                     .arg(m.meaning, m.path, valueText(m.example))});
        if (!result.errors.empty())
            return result;
    }
    for (const auto &[path, k] : keys)
        setPath(doc, path, k.value);
    if (options.assumeExample)
        listAssumptions(doc, keys, result);
    doc[QStringLiteral("format")] = QStringLiteral("trainplan-plan");
    doc[QStringLiteral("version")] = 1;
    result.document = doc;
    PlanReadResult read = readPlan(QJsonDocument(doc).toJson(), catalog);
    for (const Problem &p : read.problems)
        (p.isError() ? result.errors : result.warnings)
            .push_back(
                {QStringLiteral("plan"), 0,
                 QStringLiteral("%1: %2").arg(QString::fromStdString(p.key), problemText(p))});
    if (read.plan && result.errors.empty()) {
        if (!options.assumeExample)
            listDefaults(*read.plan, keys, result);
        result.plan = std::move(read.plan);
    }
    return result;
}

ImportResult importFiles(const QStringList &paths, const QStringList &sets, const Catalog &catalog,
                         const ImportOptions &options)
{
    std::vector<std::pair<QString, QByteArray>> files;
    ImportResult unreadable;
    for (const QString &path : paths) {
        QString error;
        if (std::optional<QByteArray> bytes =
                readRegularFile(path, kMaxConfigurationBytes, QStringLiteral("a configuration file"), &error))
            files.emplace_back(path, std::move(*bytes));
        else
            unreadable.errors.push_back({path, 0, error});
    }
    if (!unreadable.errors.empty())
        return unreadable;
    return importContents(files, sets, catalog, options);
}

QString importReport(const ImportResult &r)
{
    QString out;
    if (!r.scriptArguments.isEmpty())
        out += QStringLiteral("Launch scripts read as run with %1 argument(s): %2\n")
                   .arg(r.scriptArguments.size())
                   .arg(r.scriptArguments.join(QLatin1Char(' ')));
    if (r.missingArguments > 0)
        out += QStringLiteral("The launch script expands $1 ... $%1, run without them here (values with '$' stay "
                              "unread): give the arguments it is run with (--script-args \"A B ...\")\n")
                   .arg(r.missingArguments);
    out += QStringLiteral("Read %1 keys:\n").arg(r.read.size());
    for (const ImportedKey &k : r.read)
        out += QStringLiteral("  %1 = %2  (%3, %4)\n")
                   .arg(k.path, valueText(k.value), ImportMessage{k.file, k.line, {}}.where(), k.source);
    if (!r.notPlanned.isEmpty())
        out += QStringLiteral("Read, not planned (hyperparameters, data, logging, I/O):\n  ") +
               r.notPlanned.join(QStringLiteral("\n  ")) + '\n';
    if (!r.overrides.isEmpty())
        out += QStringLiteral("Set with --set (over what the files say):\n  ") +
               r.overrides.join(QStringLiteral("\n  ")) + '\n';
    if (!r.assumptions.isEmpty())
        out += QStringLiteral("Assumed, no file gives them:\n  ") + r.assumptions.join(QStringLiteral("\n  ")) + '\n';
    if (!r.defaults.isEmpty())
        out += QStringLiteral("The plan format's defaults, no file gives them:\n  ") +
               r.defaults.join(QStringLiteral("\n  ")) + '\n';
    for (const ImportMessage &m : r.warnings)
        out += QStringLiteral("warning: %1: %2\n").arg(m.where(), m.text);
    for (const ImportMessage &m : r.errors)
        out += QStringLiteral("error: %1: %2\n").arg(m.where(), m.text);
    return out;
}

} // namespace trainplan::io
