// The five readers of io/interop/Import.h: each turns a file into leaves (its own dotted names, values, lines),
// then maps the leaves it understands to plan keys through its table.

#include "io/interop/Import.h"
#include "io/plan/JsonDuplicates.h"
#include "io/interop/DeepSpeedNames.h"
#include "io/interop/MegatronArguments.h"
#include "io/interop/ShellScript.h"
#include "io/interop/TorchtitanNames.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>
#include <QRegularExpression>

#include <yaml-cpp/yaml.h>

#include <toml++/toml.h>

#include <cstring>
#include <functional>
#include <map>

namespace trainplan::io {

namespace {

/// A value as the file wrote it, with its line (1-based; 0 when unknown).
struct Leaf
{
    QString name;
    QJsonValue value;
    int line = 0;
};

/// The leaf of that dotted name, or leaves.end().
std::vector<Leaf>::const_iterator findLeaf(const std::vector<Leaf> &leaves, const char *name)
{
    return std::find_if(leaves.begin(), leaves.end(), [name](const Leaf &l) { return l.name == QLatin1String(name); });
}

/// The leaf whose last dotted sections are `tail` (a recipe nests its keys: "model.tokenizer.type" for
/// "tokenizer.type"), or leaves.end().
std::vector<Leaf>::const_iterator findLeafEnding(const std::vector<Leaf> &leaves, const char *tail)
{
    const QString dotted = QLatin1Char('.') + QLatin1String(tail);
    return std::find_if(leaves.begin(), leaves.end(),
                        [&](const Leaf &l) { return l.name == QLatin1String(tail) || l.name.endsWith(dotted); });
}

/// Converts a leaf's value to a plan key's value; Undefined: nothing to set (e.g. "bf16": false).
using Convert = std::function<QJsonValue(const QJsonValue &)>;

struct Rule
{
    const char *path;
    Convert convert;
};

QJsonValue asInteger(const QJsonValue &v)
{
    bool ok = false;
    const double d = v.isString() ? v.toString().toDouble(&ok) : (ok = v.isDouble(), v.toDouble());
    return ok && std::isfinite(d) && d == std::floor(d) ? QJsonValue(d) : QJsonValue(QJsonValue::Undefined);
}

QJsonValue asNumber(const QJsonValue &v)
{
    bool ok = false;
    const double d = v.isString() ? v.toString().toDouble(&ok) : (ok = v.isDouble(), v.toDouble());
    return ok && std::isfinite(d) ? QJsonValue(d) : QJsonValue(QJsonValue::Undefined);
}

/// What a rule's numeric conversion expects, or nullptr for the others: a value it refuses ("nan", "0x20",
/// "32.5" for a whole number, an empty value) is an error, never the plan's default taken in its place.
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

/// A flag that, when set, gives a fixed value.
Convert whenTrue(QJsonValue value)
{
    return [value](const QJsonValue &v) { return truthy(v) ? value : QJsonValue(QJsonValue::Undefined); };
}

/// One of a few spellings (case-insensitive) to a plan spelling.
Convert oneOf(const std::vector<std::pair<const char *, const char *>> &spellings)
{
    std::vector<std::pair<QString, QString>> map;
    for (const auto &[from, to] : spellings)
        map.emplace_back(QString::fromLatin1(from).toLower(), QString::fromLatin1(to));
    return [map](const QJsonValue &v) {
        const QString s = v.toVariant().toString().trimmed().toLower();
        for (const auto &[from, target] : map)
            if (s == from) // "true" and "false" are the flags' values
                return target == QLatin1String("true")    ? QJsonValue(true)
                       : target == QLatin1String("false") ? QJsonValue(false)
                                                          : QJsonValue(target);
        return QJsonValue(QJsonValue::Undefined);
    };
}

/// The model's shape: Megatron-Core's configuration names of it.
std::map<QString, Rule> megatronModelRules()
{
    return {
        {"swiglu", {"model.mlp", whenTrue(QStringLiteral("swiglu"))}},
        {"gated_linear_unit", {"model.mlp", whenTrue(QStringLiteral("swiglu"))}},
        {"normalization", {"model.norm", oneOf({{"rmsnorm", "rmsnorm"}, {"layernorm", "layernorm"}})}},
        {"position_embedding_type",
         {"model.position_embedding", oneOf({{"rope", "rotary"}, {"learned_absolute", "learned"}})}},
        {"untie_embeddings_and_output_weights", {"model.tied_embeddings", asNotBool}},
        {"share_embeddings_and_output_weights", {"model.tied_embeddings", asBool}},
        {"disable_bias_linear", {"model.linear_bias", whenTrue(false)}},
        {"add_bias_linear", {"model.linear_bias", asBool}},
        {"moe_layer_freq", {"model.moe_layer_interval", asInteger}},
        {"moe_enable_deepep", {"parallel.expert_dispatcher", whenTrue(QStringLiteral("deepep"))}},
        {"moe_flex_dispatcher_backend",
         {"parallel.expert_dispatcher", oneOf({{"deepep", "deepep"}, {"hybridep", "hybridep"}})}},
        {"cuda_graph_impl",
         {"training.cuda_graphs",
          oneOf(
              {{"none", "none"}, {"local", "layers"}, {"transformer_engine", "layers"}, {"full_iteration", "step"}})}},
        {"softmax_type", {"model.attention_sinks", oneOf({{"learnable", "true"}, {"vanilla", "false"}})}},
        {"multi_latent_attention", {"model.attention", whenTrue(QStringLiteral("mla"))}},
    };
}

/// A number format as Megatron-Core, Apex and NeMo spell an optimizer-state dtype ("bf16", "torch.bfloat16", "fp32").
Convert stateFormat()
{
    return oneOf({{"fp32", "fp32"},
                  {"float32", "fp32"},
                  {"float", "fp32"},
                  {"torch.float32", "fp32"},
                  {"bf16", "bf16"},
                  {"bfloat16", "bf16"},
                  {"torch.bfloat16", "bf16"},
                  {"fp16", "fp16"},
                  {"float16", "fp16"},
                  {"half", "fp16"},
                  {"torch.float16", "fp16"},
                  {"fp8", "fp8"},
                  {"uint8", "fp8"},
                  {"torch.uint8", "fp8"}});
}

/// Megatron-Core's configuration names (its arguments with '-' as '_', and NeMo's recipe fields): the model's
/// (megatronModelRules) and the training's, parallelism's and cluster's.
/// The launch and runtime names beside the layout: the optimizer's state, FSDP, the CPU optimizer, the
/// launcher's node counts, and NeMo 1's and Megatron-Bridge's spellings of names megatronRules also reads.
std::map<QString, Rule> megatronRuntimeRules()
{
    return {
        // Megatron-Core's precision-aware optimizer (--exp-avg-dtype, --exp-avg-sq-dtype, --main-params-dtype;
        // megatron/training/arguments.py), the same names in Megatron-Bridge's OptimizerConfig.
        {"exp_avg_dtype", {"training.optimizer_moments", stateFormat()}},
        {"exp_avg_sq_dtype", {"training.optimizer_moments", stateFormat()}},
        {"main_params_dtype", {"training.master_weights", stateFormat()}},
        // Megatron-FSDP (--use-megatron-fsdp with --data-parallel-sharding-strategy, default
        // optim_grads_params) and PyTorch FSDP2 inside Megatron-LM (--use-torch-fsdp2): resolved
        // together (io/interop/Import.cpp, resolveFsdp).
        {"use_megatron_fsdp", {"derived.megatron_fsdp", asBool}},
        {"data_parallel_sharding_strategy",
         {"derived.fsdp_sharding", oneOf({{"no_shard", "no_shard"},
                                          {"optim", "optim"},
                                          {"optim_grads", "optim_grads"},
                                          {"optim_grads_params", "optim_grads_params"}})}},
        {"use_torch_fsdp2", {"derived.torch_fsdp2", asBool}},
        // Megatron-Core's CPU optimizer (--optimizer-cpu-offload; arguments.py), Megatron-Bridge's
        // OptimizerConfig.optimizer_cpu_offload.
        {"nnodes", {"cluster.nodes", asInteger}},
        {"num_nodes", {"cluster.nodes", asInteger}},
        {"nproc_per_node", {"cluster.gpus_per_node", asInteger}},
        {"squared_relu", {"model.mlp", whenTrue(QStringLiteral("relu2"))}},
        {"activation_func", {"model.mlp", oneOf({{"squared_relu", "relu2"}})}},
        {"optimizer", {"training.optimizer", oneOf({{"adam", "adam"}, {"sgd", "sgd"}})}},
        {"cp_comm_type",
         {"parallel.context_comm", oneOf({{"p2p", "ring"}, {"all_gather", "all-gather"}, {"a2a", "all-to-all"}})}},
        // NeMo 1's names (NeMo-Framework-Launcher conf/training, megatron_gpt_config.yaml): the gated
        // activations, fused ("fast-") or not, are the gated MLP's shape.
        {"activation",
         {"model.mlp", oneOf({{"fast-swiglu", "swiglu"},
                              {"swiglu", "swiglu"},
                              {"fast-geglu", "swiglu"},
                              {"geglu", "swiglu"},
                              {"fast-reglu", "swiglu"},
                              {"reglu", "swiglu"},
                              {"gelu", "gelu"},
                              {"squared-relu", "relu2"}})}},
        {"activations_checkpoint_granularity",
         {"training.recompute", oneOf({{"null", "none"}, {"selective", "selective"}, {"full", "full"}})}},
        {"use_flash_attention", {"training.flash_attention", asBool}},
        {"overlap_grad_sync", {"parallel.overlap_grad_reduce", asBool}},
        {"overlap_param_sync", {"parallel.overlap_param_gather", asBool}},
        {"encoder_seq_length", {"model.seq_len", asInteger}}, // weak: the model's longest (readNemo)
        {"ub_tp_comm_overlap", {"parallel.tensor_comm_overlap", asBool}},
        {"bias", {"model.linear_bias", asBool}},
    };
}

/// A name table's rules (io/interop/KeyNames): a whole number, a flag, or one of a choice's spellings.
void addTableRules(std::map<QString, Rule> &rules, std::span<const KeyName> table)
{
    for (const KeyName &n : table) {
        const Convert convert = n.form == NameForm::Integer ? Convert(asInteger)
                                : n.form == NameForm::Bool  ? Convert(asBool)
                                                            : oneOf(n.choices);
        rules.insert({QLatin1String(n.name), {n.path, convert}});
    }
}

/// The names of io/interop/MegatronArguments' table: each argument's destination, read as its form says (a
/// switch's "no-" spelling as its key's opposite), and its configuration field where that differs.
std::map<QString, Rule> megatronArgumentRules()
{
    std::map<QString, Rule> rules;
    for (const megatron::Argument &a : megatron::arguments()) {
        const Convert convert = a.form == megatron::Form::Integer  ? Convert(asInteger)
                                : a.form == megatron::Form::Switch ? Convert(asBool)
                                                                   : Convert(asNotBool); // Form::Off
        rules.insert({megatron::configName(a), {a.path, convert}});
        if (a.field) // the configuration's field: the positive sense, a number or a flag
            rules.insert({QLatin1String(a.field), {a.path, a.form == megatron::Form::Integer ? Convert(asInteger)
                                                                                              : Convert(asBool)}});
    }
    return rules;
}

const std::map<QString, Rule> &megatronRules()
{
    static const std::map<QString, Rule> rules = [] {
        std::map<QString, Rule> r = megatronArgumentRules();
        r.merge(megatronModelRules());
        r.insert({
            {"bf16", {"training.precision", whenTrue(QStringLiteral("bf16"))}},
            {"fp16", {"training.precision", whenTrue(QStringLiteral("fp16"))}},
            {"fp8_format", {"training.precision", oneOf({{"hybrid", "fp8"}, {"e4m3", "fp8"}})}},
            {"fp8", {"training.precision", oneOf({{"hybrid", "fp8"}, {"e4m3", "fp8"}, {"true", "fp8"}})}},
            {"fp8_recipe",
             {"training.precision",
              oneOf({{"blockwise", "fp8-blockwise"}, {"mxfp8", "mxfp8"}, {"delayed", "fp8"}, {"tensorwise", "fp8"}})}},
            {"attention_backend",
             {"training.flash_attention",
              oneOf(
                  {{"flash", "true"}, {"fused", "true"}, {"auto", "true"}, {"unfused", "false"}, {"local", "false"}})}},
            {"recompute_granularity",
             {"training.recompute",
              oneOf({{"full", "full"}, {"selective", "selective"}, {"null", "none"}, {"none", "none"}})}},
            {"recompute_activations", {"training.recompute", whenTrue(QStringLiteral("selective"))}},
            {"use_distributed_optimizer", {"parallel.zero_stage", whenTrue(1)}},
        });
        r.merge(megatronRuntimeRules()); // keeps r's rule for a name both have, as one insert of both would
        return r;
    }();
    return rules;
}

// Pseudo-keys resolved when the files are combined (io/interop/Import.cpp): they need other keys' values.
constexpr const char *kLayersPerVirtualStage = "derived.layers_per_virtual_stage";
constexpr const char *kAccumulation = "derived.gradient_accumulation";
constexpr const char *kDropout = "derived.dropout";
constexpr const char *kSharedExpertWidth = "derived.shared_expert_width";

/// Names read and deliberately not planned: hyperparameters, data, logging, checkpoints, I/O.
bool ignoredName(const QString &name)
{
    static const QRegularExpression ignored(
        QStringLiteral("^(lr|min_lr|lr_.*|weight_decay|clip_grad|adam_.*|init_method_std|log.*|tensorboard.*|wandb.*|"
                       "eval.*|save.*|load|data.*|"
                       "tokenizer.*|vocab_file|merge_file|split|train_iters|train_samples|seed|exit.*|profile.*|timing."
                       "*|max_position_embeddings|"
                       "use_mcore_models|transformer_impl|ckpt.*|dist_ckpt.*|distributed_timeout.*|manual_gc.*|num_"
                       "workers|group_query_attention|"
                       "make_vocab_size_divisible_by|no_.*|bias_.*_fusion|masked_softmax_fusion|rotary_.*|norm_epsilon|"
                       "moe_router_.*|moe_aux_.*|"
                       "moe_token_dispatcher_type|moe_grouped_gemm|moe_z_loss_coeff|moe_permute_fusion|accumulate_"
                       "allreduce_grads_in_fp32|"
                       "master_addr|master_port|node_rank|rdzv_.*|standalone|cross_entropy_loss_fusion|mock_data|"
                       "distributed_backend|ddp_.*|grad_reduce_in_fp32|calculate_per_token_loss|spec|micro_batch_size_"
                       "per_gpu|recompute_method|"
                       "recompute_num_layers|use_precision_aware_optimizer|optimizer_offload_fraction)$"));
    return ignored.match(name).hasMatch();
}

/// A leaf's value as a message quotes it (a list as JSON, "[0,0,1]").
/// A value as a message quotes it: at most 80 characters (a value of a megabyte never floods the terminal).
QString shortText(const QString &text)
{
    return text.size() <= 80 ? text : text.left(77) + QStringLiteral("...");
}

QString leafText(const QJsonValue &v)
{
    return shortText(v.isArray() ? QString::fromUtf8(QJsonDocument(v.toArray()).toJson(QJsonDocument::Compact))
                                 : v.toVariant().toString());
}

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
                                                                 {"moe", "training.recompute_moe"}};
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

/// Maps leaves through a table; dropouts and virtual stages become pseudo-keys; the rest are warnings.
void mapLeaves(const QString &file, const std::vector<Leaf> &leaves, const std::map<QString, Rule> &rules,
               const std::function<QString(const QString &)> &keyOf, FileImport &out,
               const std::function<bool(const QString &)> &notPlanned = ignoredName)
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
        } else if (const auto it = rules.find(key); it != rules.end()) {
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

// --- Megatron-LM arguments -----------------------------------------------------------------------------

/// The words a script passes to Megatron-LM: the command that runs a Python entry point with the most flags
/// (torchrun ... pretrain_gpt.py ..., its launcher's own flags with it), as bash would expand it
/// (io/interop/ShellScript.h); an argument file (no such command) is all its words.
std::vector<shell::Field> megatronArguments(const shell::Script &script)
{
    const std::vector<shell::Command> &commands = script.commands;
    const auto flags = [](const shell::Command &c) {
        return std::count_if(c.words.begin(), c.words.end(),
                             [](const shell::Field &f) { return f.text.startsWith(QLatin1String("--")); });
    };
    const shell::Command *best = nullptr;
    for (const shell::Command &c : commands) {
        const bool runsPython = std::any_of(c.words.begin(), c.words.end(), [](const shell::Field &f) {
            return f.text.endsWith(QLatin1String(".py"));
        });
        if (runsPython && (!best || flags(c) > flags(*best)))
            best = &c;
    }
    if (best && flags(*best) > 0)
        return best->words;
    std::vector<shell::Field> all;
    for (const shell::Command &c : commands)
        all.insert(all.end(), c.words.begin(), c.words.end());
    return all;
}

/// A script that gives the model's shape trains Megatron-LM's defaults where it says nothing: tied
/// embeddings, biases, LayerNorm, GELU, learned positions, dropout 0.1, FP32, no recomputation, no
/// sequence parallelism, flash attention or distributed optimizer, no overlapped gradient reduction.
/// They are weak: a file that says otherwise wins without a conflict.
void addMegatronDefaults(const QString &file, const std::vector<Leaf> &leaves, FileImport &out)
{
    const auto has = [&](const char *names) {
        const QStringList any = QString::fromLatin1(names).split('|');
        return std::any_of(leaves.begin(), leaves.end(), [&](const Leaf &l) { return any.contains(l.name); });
    };
    if (!has("num_layers"))
        return;
    const QString source = QStringLiteral("(Megatron-LM's default)");
    const std::pair<const char *, std::pair<const char *, QJsonValue>> defaults[] = {
        {"untie_embeddings_and_output_weights", {"model.tied_embeddings", true}},
        {"disable_bias_linear", {"model.linear_bias", true}},
        {"normalization", {"model.norm", QStringLiteral("layernorm")}},
        {"swiglu|squared_relu", {"model.mlp", QStringLiteral("gelu")}},
        {"position_embedding_type", {"model.position_embedding", QStringLiteral("learned")}},
        {"hidden_dropout|attention_dropout", {"model.dropout", true}},
        {"bf16|fp16|fp8_format", {"training.precision", QStringLiteral("fp32")}},
        {"recompute_granularity|recompute_activations", {"training.recompute", QStringLiteral("none")}},
        {"sequence_parallel", {"training.sequence_parallel", false}},
        {"use_flash_attn|attention_backend", {"training.flash_attention", false}},
        {"use_distributed_optimizer", {"parallel.zero_stage", 0}},
        {"overlap_grad_reduce", {"parallel.overlap_grad_reduce", false}}};
    for (const auto &[flags, key] : defaults)
        if (!has(flags))
            out.keys.push_back({QLatin1String(key.first), key.second, file, 0, source, true});
    // The interleaved schedule overlaps its transfers unless --no-overlap-p2p-communication says otherwise
    // (arguments.py since Megatron-LM 4eeff55; without interleaving Megatron turns the overlap off).
    if (has("num_virtual_stages_per_pipeline_rank|num_layers_per_virtual_pipeline_stage") &&
        !has("no_overlap_p2p_communication|overlap_p2p_communication|overlap_p2p_comm"))
        out.keys.push_back({QStringLiteral("parallel.overlap_p2p_comm"), true, file, 0, source, true});
}

/// Megatron-Core's CPU optimizer moves optimizer_offload_fraction of the state to the host, 0.0 unless set
/// (megatron/core/optimizer/optimizer_config.py): --optimizer-cpu-offload alone offloads nothing, and Megatron-LM's
/// own guide gives --optimizer-offload-fraction 1.0 with it (docs/user-guide/features/optimizer_cpu_offload.md).
/// The plan offloads all of the state or none: a fraction under one is read as the nearer, with a warning.
void megatronOffloadFraction(const QString &file, const std::vector<Leaf> &leaves, FileImport &out)
{
    const auto offload = findLeafEnding(leaves, "optimizer_cpu_offload");
    if (offload == leaves.end() || !truthy(offload->value))
        return;
    const auto given = findLeafEnding(leaves, "optimizer_offload_fraction");
    const double fraction = given == leaves.end() ? 0.0 : asNumber(given->value).toDouble();
    if (fraction >= 1.0)
        return;
    const bool most = fraction >= 0.5;
    for (ImportedKey &k : out.keys)
        if (k.path == QLatin1String("parallel.offload_optimizer"))
            k.value = most;
    const int line = given == leaves.end() ? offload->line : given->line;
    out.warnings.push_back(
        {file, line,
         given == leaves.end()
             ? QStringLiteral("%1 without optimizer_offload_fraction: Megatron-Core offloads a fraction of 0.0 by "
                              "default, so nothing; read as no offload")
                   .arg(offload->name)
             : QStringLiteral("optimizer_offload_fraction = %1: the plan offloads all of the optimizer state or none; "
                              "read as %2")
                   .arg(fraction)
                   .arg(most ? QStringLiteral("all") : QStringLiteral("none"))});
}

/// A tokenizer's own vocabulary by its name: Megatron-LM's tokenizer types and Hugging Face model names.
/// GPT-2's BPE has 50,257 tokens (its encoder.json), Llama 2's SentencePiece model 32,000; the others are each
/// model's config.json vocab_size: Llama 3 / 3.1 128,256; Mistral 7B v0.1 and Mixtral 8x7B 32,000; Mixtral
/// 8x22B 32,768; StarCoder2 49,152; Mistral NeMo 131,072. 0: not known.
int tokenizerVocabularySize(const QString &name)
{
    static const std::vector<std::pair<QRegularExpression, int>> sizes{
        {QRegularExpression(QStringLiteral("^GPT2BPETokenizer$")), 50257},
        {QRegularExpression(QStringLiteral("^Llama2Tokenizer$|Llama-2|Mistral-7B-v0\\.1|Mixtral-8x7B")), 32000},
        {QRegularExpression(QStringLiteral("Llama-3|Meta-Llama-3")), 128256},
        {QRegularExpression(QStringLiteral("Mixtral-8x22B")), 32768},
        {QRegularExpression(QStringLiteral("starcoder2")), 49152},
        {QRegularExpression(QStringLiteral("Mistral-Nemo")), 131072}};
    for (const auto &[pattern, size] : sizes)
        if (pattern.match(name).hasMatch())
            return size;
    return 0;
}

/// The vocabulary of the tokenizer a file names, when it gives no vocabulary size: the tokenizer's own, which
/// Megatron-LM pads to a multiple of make_vocab_size_divisible_by (128) x the tensor-parallel size
/// (megatron/core/tokenizers/utils/build_tokenizer.py, vocab_size_with_padding; resolved with the layout,
/// io/interop/Import.cpp). Only for a file that gives the model (a tokenizer alone plans nothing).
void addTokenizerVocabulary(const QString &file, const std::vector<Leaf> &leaves, const QString &tokenizer, int line,
                            const QString &source, FileImport &out)
{
    const int size = tokenizerVocabularySize(tokenizer);
    if (size == 0 || findLeafEnding(leaves, "num_layers") == leaves.end() ||
        findLeafEnding(leaves, "vocab_size") != leaves.end() ||
        findLeafEnding(leaves, "padded_vocab_size") != leaves.end())
        return;
    const auto multiple = findLeafEnding(leaves, "make_vocab_size_divisible_by");
    out.keys.push_back({QStringLiteral("derived.tokenizer_vocab"), QJsonValue(double(size)), file, line, source});
    out.keys.push_back({QStringLiteral("derived.vocab_multiple"),
                        multiple != leaves.end() ? asNumber(multiple->value) : QJsonValue(128.0), file,
                        multiple != leaves.end() ? multiple->line : line,
                        QStringLiteral("make_vocab_size_divisible_by")});
}

/// Megatron-LM's tokenizer: --tokenizer-type, or pretrain_gpt.py's default, GPT-2's (its args_defaults,
/// pretrain_gpt.py line 527 at Megatron-LM d98e8a6).
void megatronTokenizer(const QString &file, const std::vector<Leaf> &leaves, const std::vector<shell::Field> &words,
                       FileImport &out)
{
    if (const auto type = findLeaf(leaves, "tokenizer_type"); type != leaves.end()) {
        addTokenizerVocabulary(file, leaves, type->value.toString(), type->line,
                               QStringLiteral("tokenizer_type ") + type->value.toString(), out);
        return;
    }
    const auto gpt = std::find_if(words.begin(), words.end(), [](const shell::Field &f) {
        return f.text.endsWith(QLatin1String("pretrain_gpt.py"));
    });
    if (gpt != words.end())
        addTokenizerVocabulary(file, leaves, QStringLiteral("GPT2BPETokenizer"), std::max(gpt->line, 1),
                               QStringLiteral("pretrain_gpt.py's default tokenizer_type GPT2BPETokenizer"), out);
}

FileImport readMegatron(const QString &file, const QByteArray &bytes)
{
    FileImport out;
    out.format = ImportFormat::Megatron;
    const shell::Script script = shell::read(QString::fromUtf8(bytes));
    if (!script.error.isEmpty()) {
        out.errors.push_back({file, script.errorLine, script.error});
        return out;
    }
    const std::vector<shell::Field> words = megatronArguments(script);
    std::vector<Leaf> leaves;
    const auto isFlag = [](const QString &w) { return w.startsWith(QLatin1String("--")) && w.size() > 2; };
    for (std::size_t i = 0; i < words.size(); ++i) {
        if (!isFlag(words[i].text))
            continue;
        const int line = words[i].line;
        QString name = words[i].text.mid(2), value;
        bool hasValue = false;
        if (const qsizetype eq = name.indexOf('='); eq > 0) {
            value = name.mid(eq + 1), name = name.left(eq), hasValue = true;
        } else if (i + 1 < words.size() && !isFlag(words[i + 1].text) &&
                   !words[i + 1].text.endsWith(QLatin1String(".py"))) {
            value = words[++i].text, hasValue = true;
            // A list-valued argument (--recompute-modules core_attn mla_up_proj moe): every word up to the next flag.
            while (name == QLatin1String("recompute-modules") && i + 1 < words.size() && !isFlag(words[i + 1].text)
                   && !words[i + 1].text.contains(QLatin1Char('=')))
                value += QLatin1Char(' ') + words[++i].text;
        }
        name.replace('-', '_');
        if (value.contains(QLatin1Char('$')) && !megatronRules().count(name))
            out.notPlanned << name; // --data-path $3, --save $1: nothing the plan holds
        else if (value.contains(QLatin1Char('$')))
            out.warnings.push_back({file, line,
                                    QStringLiteral("--%1 %2: a value the script does not set (a variable, a positional "
                                                   "parameter without a default, or a command's output)")
                                        .arg(name, shortText(value))});
        else
            leaves.push_back({name, hasValue ? QJsonValue(value) : QJsonValue(true), line});
    }
    mapLeaves(file, leaves, megatronRules(), [](const QString &n) { return n; }, out);
    megatronOffloadFraction(file, leaves, out);
    addMegatronDefaults(file, leaves, out);
    megatronTokenizer(file, leaves, words, out);
    return out;
}

// --- JSON files: line numbers by the key's first appearance -----------------------------------------------

int lineOfKey(const QByteArray &bytes, const QString &key, qsizetype from = 0)
{
    const qsizetype at = bytes.indexOf(QByteArray("\"") + key.toUtf8() + "\"", from);
    return at < 0 ? 0 : int(bytes.left(at).count('\n')) + 1;
}

void jsonLeaves(const QJsonObject &object, const QString &prefix, const QByteArray &bytes, std::vector<Leaf> &leaves)
{
    for (auto it = object.begin(); it != object.end(); ++it) {
        const QString name = prefix.isEmpty() ? it.key() : prefix + '.' + it.key();
        if (it.value().isObject())
            jsonLeaves(it.value().toObject(), name, bytes, leaves);
        else
            leaves.push_back({name, it.value(), lineOfKey(bytes, it.key())});
    }
}

// --- Hugging Face config.json ----------------------------------------------------------------------------

} // namespace

QByteArray relaxedJson(const QByteArray &json)
{
    // Python's json.dump writes float("inf") and NaN as bare Infinity / NaN (Nemotron-H's time_step_limit):
    // outside strings they become null, which no plan key takes.
    QByteArray out;
    out.reserve(json.size());
    bool inString = false;
    for (qsizetype i = 0; i < json.size(); ++i) {
        const char c = json.at(i);
        if (inString) {
            out += c;
            if (c == '\\' && i + 1 < json.size())
                out += json.at(++i);
            else if (c == '"')
                inString = false;
            continue;
        }
        inString = c == '"';
        qsizetype matched = 0;
        for (const char *word : {"-Infinity", "Infinity", "NaN"})
            if (matched == 0 && json.mid(i, qsizetype(std::strlen(word))) == word)
                matched = qsizetype(std::strlen(word));
        if (matched > 0) {
            out += "null";
            i += matched - 1;
        } else {
            out += c;
        }
    }
    return out;
}

namespace {

const std::map<QString, Rule> &huggingFaceRules()
{
    static const std::map<QString, Rule> rules{
        {"hidden_size", {"model.hidden", asInteger}},
        {"n_embd", {"model.hidden", asInteger}},
        {"num_hidden_layers", {"model.layers", asInteger}},
        {"n_layer", {"model.layers", asInteger}},
        {"num_attention_heads", {"model.heads", asInteger}},
        {"n_head", {"model.heads", asInteger}},
        {"num_key_value_heads", {"model.kv_heads", asInteger}},
        {"head_dim", {"model.head_dim", asInteger}},
        {"intermediate_size", {"model.ffn_hidden", asInteger}},
        {"n_inner", {"model.ffn_hidden", asInteger}},
        {"vocab_size", {"model.vocab", asInteger}},
        {"tie_word_embeddings", {"model.tied_embeddings", asBool}},
        {"hidden_act",
         {"model.mlp", oneOf({{"silu", "swiglu"},
                              {"swish", "swiglu"},
                              {"gelu", "gelu"},
                              {"gelu_new", "gelu"},
                              {"gelu_pytorch_tanh", "swiglu"},
                              {"relu2", "relu2"}})}},
        {"hidden_activation", {"model.mlp", oneOf({{"gelu_pytorch_tanh", "swiglu"}, {"silu", "swiglu"}})}},
        {"activation_function", {"model.mlp", oneOf({{"gelu_new", "gelu"}, {"gelu", "gelu"}})}},
        {"rms_norm_eps", {"model.norm", [](const QJsonValue &) { return QJsonValue(QStringLiteral("rmsnorm")); }}},
        {"layer_norm_eps", {"model.norm", [](const QJsonValue &) { return QJsonValue(QStringLiteral("layernorm")); }}},
        {"layer_norm_epsilon",
         {"model.norm", [](const QJsonValue &) { return QJsonValue(QStringLiteral("layernorm")); }}},
        {"rope_theta",
         {"model.position_embedding", [](const QJsonValue &) { return QJsonValue(QStringLiteral("rotary")); }}},
        {"n_positions",
         {"model.position_embedding", [](const QJsonValue &) { return QJsonValue(QStringLiteral("learned")); }}},
        {"attention_bias", {"model.linear_bias", asBool}},
        {"mlp_bias", {"model.linear_bias", asBool}},
        {"num_local_experts", {"model.experts", asInteger}},
        {"num_experts", {"model.experts", asInteger}},
        {"n_routed_experts", {"model.experts", asInteger}},
        {"num_experts_per_tok", {"model.experts_per_token", asInteger}},
        {"experts_per_token", {"model.experts_per_token", asInteger}},
        {"moe_intermediate_size", {"model.expert_ffn_hidden", asInteger}},
        {"n_shared_experts", {"model.shared_experts", asInteger}},
        {"first_k_dense_replace", {"model.dense_layers", asInteger}},
        {"moe_layer_freq", {"model.moe_layer_interval", asInteger}},
        {"decoder_sparse_step", {"model.moe_layer_interval", asInteger}},
        {"num_nextn_predict_layers", {"model.mtp_layers", asInteger}},
        {"n_group", {"model.router_groups", asInteger}},
        {"topk_group", {"model.router_group_topk", asInteger}},
        {"q_lora_rank", {"model.q_lora_rank", asInteger}},
        {"kv_lora_rank", {"model.kv_lora_rank", asInteger}},
        {"qk_nope_head_dim", {"model.qk_nope_head_dim", asInteger}},
        {"qk_rope_head_dim", {"model.qk_rope_head_dim", asInteger}},
        {"v_head_dim", {"model.v_head_dim", asInteger}},
    };
    return rules;
}

/// Keys of a config.json read and deliberately not planned (tokens, initialisation, inference settings).
bool ignoredHuggingFace(const QString &name)
{
    static const QRegularExpression ignored(QStringLiteral(
        "^(architectures|model_type|torch_dtype|dtype|transformers_version|bos_token_id|eos_token_id|pad_token_id|"
        "initializer_range|use_cache|rope_scaling.*|rope_parameters.*|max_position_embeddings|sliding_window|use_"
        "sliding_window|"
        "max_window_layers|pretraining_tp|_name_or_path|auto_map.*|quantization_config.*|layer_types|router_aux_loss_"
        "coef|"
        "output_router_logits|norm_topk_prob|scoring_func|topk_method|routed_scaling_factor|ep_size|"
        "aux_loss_alpha|seq_aux|query_pre_attn_scalar|final_logit_softcapping|attn_logit_softcapping|cache_"
        "implementation|"
        "partial_rotary_factor|embd_pdrop|resid_pdrop|attn_pdrop|summary_.*|task_specific_params.*|n_ctx|scale_attn_"
        "weights|"
        "original_max_position_embeddings|bias|swiglu_limit|initial_context_length|router_jitter_noise|qkv_bias|"
        "mlp_only_layers|rope_type|tie_encoder_decoder|is_encoder_decoder)$"));
    return ignored.match(name).hasMatch();
}

/// The model's own keys: a multimodal config (Llama 4, Gemma 3) nests the language model in text_config;
/// the top level's architectures and names stay.
QJsonObject languageModelConfig(const QJsonObject &top)
{
    if (top.contains(QLatin1String("num_hidden_layers")) || !top.value(QLatin1String("text_config")).isObject())
        return top;
    QJsonObject text = top.value(QLatin1String("text_config")).toObject();
    for (const char *key : {"architectures", "_name_or_path", "tie_word_embeddings"})
        if (top.contains(QLatin1String(key)) && !text.contains(QLatin1String(key)))
            text.insert(QLatin1String(key), top.value(QLatin1String(key)));
    return text;
}

/// A JSON key written twice in one object: the file means one of the values, and QJsonDocument would keep
/// whichever came last. True (with the error) when there is one.
bool refuseDuplicateKey(const QString &file, const QByteArray &bytes, FileImport &out)
{
    const std::optional<QString> twice = findDuplicateKey(bytes);
    if (twice)
        out.errors.push_back(
            {file, lineOfKey(bytes, twice->section('.', -1)),
             QStringLiteral("%1: written twice; the file means one of the values: remove the other").arg(*twice)});
    return twice.has_value();
}

/// What a config.json cannot say to this reader: a key written twice (the file means one of them), layers of
/// different shapes (block_configs: Llama-3.3-Nemotron-Super's per-layer attention and MLP widths).
bool refuseHuggingFace(const QString &file, const QByteArray &bytes, const QJsonObject &root, FileImport &out)
{
    if (refuseDuplicateKey(file, bytes, out))
        return true;
    if (root.value(QLatin1String("block_configs")).isArray()) {
        out.errors.push_back(
            {file, lineOfKey(bytes, QStringLiteral("block_configs")),
             QStringLiteral("block_configs: layers of different shapes (each its own attention and MLP width) are not "
                            "planned; a plan has one layer shape")});
        return true;
    }
    return false;
}

/// Sliding-window attention: sliding_window unless use_sliding_window is false (Qwen2/3 carry a window they
/// do not use); layer_types (GPT-OSS, Gemma 3) gives which layers attend to the whole prefix, read as every
/// n-th when they repeat with a period of n.
void huggingFaceWindows(const QString &file, const QByteArray &bytes, const QJsonObject &root, FileImport &out)
{
    const QJsonValue window = root.value(QStringLiteral("sliding_window"));
    if (window.isDouble() && window.toDouble() > 0 && root.value(QStringLiteral("use_sliding_window")).toBool(true)) {
        out.keys.push_back({QStringLiteral("model.sliding_window"), QJsonValue(qint64(window.toDouble())), file,
                            lineOfKey(bytes, QStringLiteral("sliding_window")), QStringLiteral("sliding_window")});
        const QJsonArray types = root.value(QStringLiteral("layer_types")).toArray();
        std::vector<int> full;
        for (qsizetype i = 0; i < types.size(); ++i)
            if (types[i].toString() == QLatin1String("full_attention"))
                full.push_back(int(i));
        // The period: the distance between full-attention layers, or a list of one period ending with one.
        const int period = full.size() >= 2 ? full[1] - full[0] : full.size() == 1 ? full[0] + 1 : 0;
        bool periodic = period > 0 && full.front() == period - 1 && types.size() % period == 0;
        for (std::size_t k = 1; k < full.size(); ++k)
            periodic = periodic && full[k] - full[k - 1] == period;
        if (periodic && qsizetype(full.size()) == types.size() / period)
            out.keys.push_back({QStringLiteral("model.full_attention_interval"), QJsonValue(period), file,
                                lineOfKey(bytes, QStringLiteral("layer_types")), QStringLiteral("layer_types")});
        else if (!full.empty())
            out.warnings.push_back(
                {file, lineOfKey(bytes, QStringLiteral("layer_types")),
                 QStringLiteral(
                     "layer_types: full-attention layers without a period are planned as every layer windowed")});
    }
}

/// Attention sinks, the model's name, and what the model type tells about how far the config is read.
void huggingFaceModelType(const QString &file, const QByteArray &bytes, const QJsonObject &root, FileImport &out)
{
    if (root.contains(QStringLiteral("sinks")) ||
        root.value(QStringLiteral("model_type")).toString() == QLatin1String("gpt_oss"))
        out.keys.push_back({QStringLiteral("model.attention_sinks"), true, file,
                            lineOfKey(bytes, QStringLiteral("model_type")), QStringLiteral("model_type")});
    const QString arch = root.value(QStringLiteral("architectures")).toArray().first().toString();
    const QString name = root.value(QStringLiteral("_name_or_path")).toString();
    out.keys.push_back(
        {QStringLiteral("model.name"),
         name.isEmpty() ? (arch.isEmpty() ? root.value(QStringLiteral("model_type")).toString() : arch) : name, file,
         lineOfKey(bytes, name.isEmpty() ? QStringLiteral("architectures") : QStringLiteral("_name_or_path")),
         name.isEmpty() ? QStringLiteral("architectures") : QStringLiteral("_name_or_path")});
    if (out.keys.back().value.toString().isEmpty())
        out.keys.pop_back();
    static const QStringList known{"llama",     "mistral",     "mixtral",     "qwen2",   "qwen3",
                                   "qwen3_moe", "qwen2_moe",   "deepseek_v3", "gpt_oss", "gemma2",
                                   "gemma3",    "gemma3_text", "phi3",        "gpt2"};
    const QString type = root.value(QStringLiteral("model_type")).toString();
    if (!known.contains(type))
        out.warnings.push_back({file, lineOfKey(bytes, QStringLiteral("model_type")),
                                QStringLiteral("model_type \"%1\" is read by the common keys only").arg(type)});
    if (type.startsWith(QLatin1String("gemma")))
        out.warnings.push_back(
            {file, lineOfKey(bytes, QStringLiteral("hidden_activation")),
             QStringLiteral("Gemma's GeGLU MLP is planned as a gated MLP (swiglu): the same shapes and FLOPs")});
}

FileImport readHuggingFace(const QString &file, const QByteArray &written)
{
    FileImport out;
    out.format = ImportFormat::HuggingFace;
    const QByteArray bytes = relaxedJson(written);
    const QJsonObject top = QJsonDocument::fromJson(bytes).object();
    if (refuseHuggingFace(file, bytes, top, out))
        return out;
    const QJsonObject root = languageModelConfig(top);
    // transformers writes a config's keys that differ from PretrainedConfig's defaults or the model class's
    // (configuration_utils.py, PretrainedConfig.to_diff_dict): an omitted tie_word_embeddings is both
    // defaults' True (Gemma 2 ties without saying so).
    if (!root.contains(QLatin1String("tie_word_embeddings")))
        out.keys.push_back({QStringLiteral("model.tied_embeddings"), true, file, 0,
                            QStringLiteral("tie_word_embeddings omitted: transformers' default"), true});
    std::vector<Leaf> leaves;
    jsonLeaves(root, QString(), bytes, leaves);
    std::vector<Leaf> planned;
    for (const Leaf &leaf : leaves) {
        if (leaf.name == QLatin1String("attention_dropout") || leaf.name == QLatin1String("hidden_dropout")) {
            out.keys.push_back({QString::fromLatin1(kDropout), asNumber(leaf.value), file, leaf.line, leaf.name});
        } else if (leaf.name == QLatin1String("q_lora_rank") || leaf.name == QLatin1String("kv_lora_rank")) {
            if (!leaf.value.isNull()) {
                planned.push_back(leaf);
                out.keys.push_back(
                    {QStringLiteral("model.attention"), QStringLiteral("mla"), file, leaf.line, leaf.name});
            } else {
                planned.push_back({leaf.name, 0, leaf.line});
            }
        } else if (huggingFaceRules().count(leaf.name) || !ignoredHuggingFace(leaf.name)) {
            planned.push_back(leaf);
        }
    }
    mapLeaves(
        file, planned, huggingFaceRules(), [](const QString &n) { return n; }, out);
    huggingFaceWindows(file, bytes, root, out);
    huggingFaceModelType(file, bytes, root, out);
    return out;
}

// --- DeepSpeed config ------------------------------------------------------------------------------------

/// "auto" in a DeepSpeed config: the Hugging Face Trainer's integration fills it from its own arguments
/// (transformers integrations/deepspeed.py, HfTrainerDeepSpeedConfig.trainer_config_process): the batch from
/// per_device_train_batch_size, gradient_accumulation_steps and the world size, the precision from --bf16/--fp16,
/// which this file does not hold (a warning; the plan then needs them given); reduce_bucket_size from the
/// model, hidden_size x hidden_size (trainer_config_finalize), resolved with the model's width.
bool deepSpeedAuto(const QString &file, const Leaf &leaf, FileImport &out)
{
    if (leaf.value.toString() != QLatin1String("auto"))
        return false;
    if (leaf.name == QLatin1String("zero_optimization.reduce_bucket_size")) {
        out.keys.push_back({QStringLiteral("derived.bucket_hidden_squared"), 2.0, file, leaf.line,
                            leaf.name + QStringLiteral(" \"auto\"")});
        return true;
    }
    static const QStringList fromTrainer{"train_batch_size", "train_micro_batch_size_per_gpu",
                                         "gradient_accumulation_steps", "bf16.enabled", "fp16.enabled"};
    if (fromTrainer.contains(leaf.name))
        out.warnings.push_back(
            {file, leaf.line,
             QStringLiteral("%1 \"auto\": the Hugging Face Trainer fills it from its own arguments "
                            "(per_device_train_batch_size, gradient_accumulation_steps, --bf16/--fp16), "
                            "which this file does not hold")
                 .arg(leaf.name)});
    else
        out.notPlanned << leaf.name;
    return true;
}

FileImport readDeepSpeed(const QString &file, const QByteArray &bytes)
{
    FileImport out;
    out.format = ImportFormat::DeepSpeed;
    if (refuseDuplicateKey(file, relaxedJson(bytes), out))
        return out;
    std::vector<Leaf> leaves;
    jsonLeaves(QJsonDocument::fromJson(relaxedJson(bytes)).object(), QString(), bytes, leaves);
    static const std::map<QString, Rule> rules = [] {
        std::map<QString, Rule> r; // io/interop/DeepSpeedNames' table, then the keys that translate
        addTableRules(r, deepspeed::names());
        r.insert({
            {"zero_optimization.reduce_bucket_size",
             {"parallel.bucket_bytes",
              [](const QJsonValue &v) {
                  const QJsonValue n = asNumber(v);
                  return n.isUndefined() ? n : QJsonValue(2.0 * n.toDouble()); // elements of 16-bit gradients
              }}},
            {"bf16.enabled", {"training.precision", whenTrue(QStringLiteral("bf16"))}},
            {"fp16.enabled", {"training.precision", whenTrue(QStringLiteral("fp16"))}},
            {"optimizer.type",
             {"training.optimizer",
              oneOf({{"adam", "adam"}, {"adamw", "adam"}, {"fusedadam", "adam"}, {"sgd", "sgd"}})}},
        });
        return r;
    }();
    static const QRegularExpression ignored(QStringLiteral(
        "^(gradient_clipping|steps_per_print|wall_clock_breakdown|optimizer\\.params\\..*|scheduler\\..*|"
        "zero_optimization\\.(contiguous_gradients|allgather_partitions|allgather_bucket_size|reduce_scatter|round_"
        "robin_gradients|"
        "stage3_.*|sub_group_size|offload_optimizer\\.pin_memory|offload_param\\..*)|fp16\\.(loss_scale.*|initial_"
        "scale_power|"
        "hysteresis|min_loss_scale|auto_cast)|bf16\\..*|zero_allow_untested_optimizer|prescale_gradients|"
        "communication_data_type|comms_logger\\..*|flops_profiler\\..*|tensorboard\\..*|wandb\\..*|csv_monitor\\..*)"
        "$"));
    std::vector<Leaf> planned;
    for (const Leaf &leaf : leaves) {
        if (deepSpeedAuto(file, leaf, out))
            continue;
        if (leaf.name == QLatin1String("gradient_accumulation_steps"))
            out.keys.push_back({QString::fromLatin1(kAccumulation), asInteger(leaf.value), file, leaf.line, leaf.name});
        else if (rules.count(leaf.name) || !ignored.match(leaf.name).hasMatch())
            planned.push_back(leaf);
    }
    mapLeaves(file, planned, rules, [](const QString &n) { return n; }, out);
    if (const auto param = findLeaf(leaves, "zero_optimization.offload_param.device");
        param != leaves.end() && param->value.toString() != QLatin1String("none"))
        out.warnings.push_back(
            {file, param->line,
             QStringLiteral("zero_optimization.offload_param.device %1: parameters in host memory (ZeRO-Infinity) "
                            "are not planned; the plan keeps them on the GPUs (more memory, no host "
                            "transfers)")
                 .arg(param->value.toString())});
    out.keys.push_back({QStringLiteral("training.framework"), QStringLiteral("deepspeed"), file, 0,
                        QStringLiteral("(a DeepSpeed config)")});
    return out;
}

// --- NeMo / Megatron-Bridge recipe (YAML) ----------------------------------------------------------------

/// A map key as text: a scalar's own text; a list or map used as a key ("? [a, b]") is named as such, which
/// no rule matches, so it is reported as not understood (never emitted: an alias may make it a cycle).
QString yamlKey(const YAML::Node &key)
{
    return key.IsScalar() ? QString::fromStdString(key.Scalar()) : QStringLiteral("(a list or map as a key)");
}

/// The limits of a recipe's YAML walk: a recipe has hundreds of leaves a few levels deep, and an alias
/// repeats what it names, so nine aliases of nine are a billion leaves (a "billion laughs") and an alias
/// inside what it names is a cycle. Past a limit the walk stops with the line where it did.
struct YamlWalk
{
    static constexpr int kMaxDepth = 64;
    static constexpr int kMaxNodes = 200000;
    int nodes = 0;
    QString error;
    int errorLine = 0;

    bool over(const YAML::Node &node, int depth)
    {
        if (!error.isEmpty())
            return true;
        if (++nodes <= kMaxNodes && depth <= kMaxDepth)
            return false;
        error =
            depth > kMaxDepth
                ? QStringLiteral("nested more than %1 levels deep (an alias inside what it names repeats it forever)")
                      .arg(kMaxDepth)
                : QStringLiteral("more than %1 values (aliases that repeat aliases): not a recipe").arg(kMaxNodes);
        errorLine = node.Mark().line + 1;
        return true;
    }
};

QJsonValue yamlScalar(const QString &text)
{
    if (text == QLatin1String("true") || text == QLatin1String("True"))
        return true;
    if (text == QLatin1String("false") || text == QLatin1String("False"))
        return false;
    bool number = false;
    const double v = text.toDouble(&number);
    return number ? QJsonValue(v) : QJsonValue(text);
}

void yamlLeaves(const YAML::Node &node, const QString &prefix, std::vector<Leaf> &leaves, YamlWalk &walk, int depth = 0)
{
    if (walk.over(node, depth))
        return;
    if (node.IsMap()) {
        QSet<QString> keys;
        for (const auto &entry : node) {
            const QString key = yamlKey(entry.first);
            if (keys.contains(key) && entry.first.IsScalar()) { // the file means one of them
                walk.error =
                    QStringLiteral("%1: written twice in one map; the file means one of the values: remove the other")
                        .arg(prefix.isEmpty() ? key : prefix + '.' + key);
                walk.errorLine = entry.first.Mark().line + 1;
                return;
            }
            keys.insert(key);
            yamlLeaves(entry.second, prefix.isEmpty() ? key : prefix + '.' + key, leaves, walk, depth + 1);
        }
    } else if (node.IsNull()) {
        leaves.push_back({prefix, QStringLiteral("null"), node.Mark().line + 1});
    } else if (node.IsScalar()) {
        leaves.push_back({prefix, yamlScalar(QString::fromStdString(node.Scalar())), node.Mark().line + 1});
    } else if (node.IsSequence()) {
        // A list of scalars is one value (moe_layer_freq: [0, 0, 1, ...]); a list of maps (callbacks, ...)
        // is read element by element.
        QJsonArray items;
        bool scalars = true;
        for (const auto &item : node) {
            if (!item.IsScalar() || walk.over(item, depth + 1)) {
                scalars = false;
                break;
            }
            const QString text = QString::fromStdString(item.Scalar());
            bool number = false;
            const double v = text.toDouble(&number);
            items.append(number ? QJsonValue(v) : QJsonValue(text));
        }
        if (scalars) {
            leaves.push_back({prefix, items, node.Mark().line + 1});
            return;
        }
        int index = 0;
        for (const auto &item : node)
            if (walk.error.isEmpty())
                yamlLeaves(item, QStringLiteral("%1[%2]").arg(prefix).arg(index++), leaves, walk, depth + 1);
    }
}

/// NeMo 1's optimizer by name (model.optim.name: mcore_distributed_optim is Megatron-Core's distributed
/// optimizer, ZeRO-1; fused_adam is not sharded) and its tokenizer by name (model.tokenizer.type).
/// distributed_fused_adam is Apex's DistributedFusedAdam, whose optim.dtype is the format of all its state:
/// the moments and the parameter shard it keeps (store_params; apex/contrib/optimizers/distributed_fused_adam.py,
/// StateBucket: params_shard, exp_avg_shard and exp_avg_sq_shard allocated in dtype), and whose
/// optim.grad_sync_dtype is its gradient buffers' (default: dtype).
void nemoOptimizerAndTokenizer(const QString &file, const std::vector<Leaf> &leaves, FileImport &out)
{
    if (const auto optim = findLeafEnding(leaves, "optim.name"); optim != leaves.end()) {
        const QString name = optim->value.toString();
        if (name == QLatin1String("mcore_distributed_optim") || name == QLatin1String("fused_adam"))
            out.keys.push_back({QStringLiteral("parallel.zero_stage"), name == QLatin1String("fused_adam") ? 0 : 1,
                                file, optim->line, optim->name});
        const auto dtype = findLeafEnding(leaves, "optim.dtype");
        if (name == QLatin1String("distributed_fused_adam") && dtype != leaves.end()) {
            const QJsonValue format = stateFormat()(dtype->value);
            if (format.isString() && format.toString() != QLatin1String("fp8"))
                out.keys.push_back(
                    {QStringLiteral("training.master_weights"), format.toString(), file, dtype->line, dtype->name});
        }
    }
    if (const auto type = findLeafEnding(leaves, "tokenizer.type"); type != leaves.end())
        addTokenizerVocabulary(file, leaves, type->value.toString(), type->line,
                               QStringLiteral("tokenizer.type ") + type->value.toString(), out);
}

/// The recipe's leaves; false (with the error in `out`) when it is not YAML this reader can walk.
bool nemoLeaves(const QString &file, const QByteArray &bytes, std::vector<Leaf> &leaves, FileImport &out)
{
    YAML::Node root;
    try {
        root = YAML::Load(bytes.toStdString());
    } catch (const YAML::Exception &e) {
        out.errors.push_back(
            {file, e.mark.line + 1, QStringLiteral("not a YAML document: %1").arg(QString::fromStdString(e.msg))});
        return false;
    }
    YamlWalk walk;
    try {
        yamlLeaves(root, QString(), leaves, walk);
    } catch (const YAML::Exception &e) { // a node yaml-cpp cannot read back (bad input never ends the import)
        out.errors.push_back(
            {file, e.mark.line + 1,
             QStringLiteral("not a recipe this reader understands: %1").arg(QString::fromStdString(e.msg))});
        return false;
    }
    if (!walk.error.isEmpty()) {
        out.errors.push_back({file, walk.errorLine, walk.error});
        return false;
    }
    return true;
}

/// The launcher's run, logging and configuration-system sections hold nothing a plan holds.
void dropNemoBookkeeping(std::vector<Leaf> &leaves, FileImport &out)
{
    static const QRegularExpression bookkeeping(
        QStringLiteral("^(run|exp_manager|hydra|defaults(\\[\\d+\\])?)\\.|^defaults\\[|"
                       "^trainer\\.(max_time|max_epochs|gradient_clip_val|benchmark)$"));
    leaves.erase(std::remove_if(leaves.begin(), leaves.end(),
                                [&](const Leaf &l) {
                                    const bool skip = bookkeeping.match(l.name).hasMatch();
                                    if (skip)
                                        out.notPlanned << l.name;
                                    return skip;
                                }),
                 leaves.end());
}

/// Megatron-Core's names, and NeMo's own: the trainer's devices, Apex's DistributedFusedAdam (NeMo 1's
/// distributed_fused_adam: the state's and the gradient buffers' formats) and the precision plugin.
const std::map<QString, Rule> &nemoRules()
{
    static const std::map<QString, Rule> nemo = [] {
        std::map<QString, Rule> rules = megatronRules();
        rules.emplace("devices", Rule{"cluster.gpus_per_node", asInteger});
        rules.emplace("dtype", Rule{"training.optimizer_moments", stateFormat()});
        rules.emplace("grad_sync_dtype", Rule{"training.fp32_gradients", oneOf({{"fp32", "true"},
                                                                                {"float32", "true"},
                                                                                {"bf16", "false"},
                                                                                {"bfloat16", "false"},
                                                                                {"fp16", "false"},
                                                                                {"float16", "false"}})});
        rules.emplace("precision",
                      Rule{"training.precision",
                           oneOf({{"bf16-mixed", "bf16"}, {"bf16", "bf16"}, {"16-mixed", "fp16"}, {"32", "fp32"}})});
        return rules;
    }();
    return nemo;
}

/// A recipe dump's bookkeeping fields, read and not planned, as Megatron's hyperparameters are.
bool nemoIgnored(const QString &key)
{
    static const QRegularExpression ignored(
        QStringLiteral("^(_target_|_partial_|name|max_steps|val_check_interval|limit_.*|log_.*|"
                       "accumulate_grad_batches|num_sanity_val_steps|enable_.*|callbacks.*|"
                       "use_distributed_sampler|accelerator|strategy|plugins|ckpt.*|lr|min_lr|"
                       "warmup_steps|constant_steps|weight_decay|betas|eps|optimizer|.*dir|"
                       "seed|num_workers|pin_memory|tokenizer.*|path.*|paths|mcore_gpt|use_scaled_init_method|"
                       "rampup_batch_size|ub_tp_comm_overlap_cfg|transformer_block_type|"
                       "attention_type|persist_layer_norm|library|type|use_fast|model|"
                       "native_amp_.*|hysteresis|onnx_safe|apex_transformer_log_level|"
                       "use_cpu_initialization|deterministic_mode|sync_batch_comm|pre_process|"
                       "post_process|layernorm_epsilon|do_layer_norm_weight_decay)$"));
    return ignoredName(key) || ignored.match(key).hasMatch();
}

/// NeMo's defaults for what a recipe leaves out, and its weak names.
void nemoDefaults(const QString &file, const std::vector<Leaf> &leaves, FileImport &out)
{
    // NeMo 1's encoder_seq_length is the model's longest sequence; model.data.seq_length, where given, is what
    // it trains on (its GPT dataset's length).
    for (ImportedKey &k : out.keys)
        k.weak = k.weak || k.source.endsWith(QLatin1String("encoder_seq_length"));
    // A recipe that gives the model's shape and not whether the output layer shares the embedding: NeMo's
    // default, shared (MegatronGPTModel builds the model with cfg.get('share_embeddings_and_output_weights',
    // True), nemo/collections/nlp/models/language_modeling/megatron_gpt_model.py).
    const auto said = [&](const char *name) {
        return std::any_of(leaves.begin(), leaves.end(),
                           [name](const Leaf &l) { return l.name.section('.', -1) == QLatin1String(name); });
    };
    if (said("num_layers") && !said("share_embeddings_and_output_weights"))
        out.keys.push_back(
            {QStringLiteral("model.tied_embeddings"), true, file, 0, QStringLiteral("(NeMo's default)"), true});
}

FileImport readNemo(const QString &file, const QByteArray &bytes)
{
    FileImport out;
    out.format = ImportFormat::NeMo;
    std::vector<Leaf> leaves;
    if (!nemoLeaves(file, bytes, leaves, out))
        return out;
    dropNemoBookkeeping(leaves, out);
    mapLeaves(
        file, leaves, nemoRules(), [](const QString &n) { return n.section('.', -1); }, out, nemoIgnored);
    megatronOffloadFraction(file, leaves, out);
    nemoOptimizerAndTokenizer(file, leaves, out);
    nemoDefaults(file, leaves, out);
    return out;
}

// --- torchtitan job file (TOML) --------------------------------------------------------------------------

void tomlLeaves(const toml::table &table, const QString &prefix, std::vector<Leaf> &leaves)
{
    for (const auto &[key, node] : table) {
        const QString name = prefix.isEmpty() ? QString::fromStdString(std::string(key.str()))
                                              : prefix + '.' + QString::fromStdString(std::string(key.str()));
        const int line = int(node.source().begin.line);
        if (const toml::table *t = node.as_table())
            tomlLeaves(*t, name, leaves);
        else if (node.is_boolean())
            leaves.push_back({name, node.value_exact<bool>().value_or(false), line});
        else if (node.is_integer())
            leaves.push_back({name, double(node.value_exact<std::int64_t>().value_or(0)), line});
        else if (node.is_floating_point())
            leaves.push_back({name, node.value_exact<double>().value_or(0.0), line});
        else if (node.is_string())
            leaves.push_back(
                {name, QString::fromStdString(node.value_exact<std::string>().value_or(std::string())), line});
        else if (const toml::array *a = node.as_array()) {
            QStringList items;
            for (const auto &item : *a)
                if (const auto s = item.value<std::string>())
                    items << QString::fromStdString(*s);
            leaves.push_back({name, items.join(','), line});
        }
    }
}

const std::map<QString, Rule> &torchtitanRules()
{
    static const std::map<QString, Rule> rules = [] {
        std::map<QString, Rule> r; // io/interop/TorchtitanNames' table, then the names that translate
        addTableRules(r, torchtitan::names());
        r.insert({
        {"model.norm_type", {"training.fused_norm", oneOf({{"fused_rmsnorm", "true"}, {"rmsnorm", "false"}})}},
        {"model.converters", {"training.precision", oneOf({{"float8", "fp8"}, {"mx", "mxfp8"}})}},
        {"float8.recipe_name", {"training.precision", oneOf({{"tensorwise", "fp8"}, {"rowwise", "fp8-blockwise"}})}},
        });
        return r;
    }();
    return rules;
}

/// torchtitan's activation checkpointing: mode "full" or "none", or "selective" with selective_ac_option
/// "op" (op-level: recompute "ops") or a number k (every k-th layer: recompute "full", recompute_interval
/// k); torchtitan's default option was "2" (config_manager.py at 9dec370: "2 = checkpoint every other layer").
void torchtitanCheckpointing(const QString &file, const std::vector<Leaf> &leaves, FileImport &out)
{
    const auto find = [&leaves](const char *name) { return findLeaf(leaves, name); };
    const auto mode = find("activation_checkpoint.mode");
    if (mode == leaves.end())
        return;
    const QString m = mode->value.toString().toLower();
    if (m == QLatin1String("full") || m == QLatin1String("none")) {
        out.keys.push_back({QStringLiteral("training.recompute"), m, file, mode->line, mode->name});
        return;
    }
    if (m != QLatin1String("selective")) {
        out.warnings.push_back({file, mode->line,
                                QStringLiteral("activation_checkpoint.mode \"%1\": not one of full, selective, none; "
                                               "recomputation left at its default")
                                    .arg(mode->value.toString())});
        return;
    }
    const auto option = find("activation_checkpoint.selective_ac_option");
    const QString o = option != leaves.end() ? option->value.toString().trimmed() : QStringLiteral("2");
    const int line = option != leaves.end() ? option->line : mode->line;
    bool number = false;
    const int every = o.toInt(&number);
    if (o == QLatin1String("op")) {
        out.keys.push_back({QStringLiteral("training.recompute"), QStringLiteral("ops"), file, line,
                            QStringLiteral("activation_checkpoint")});
    } else if (number && every >= 1) {
        out.keys.push_back({QStringLiteral("training.recompute"), QStringLiteral("full"), file, line,
                            QStringLiteral("activation_checkpoint")});
        out.keys.push_back({QStringLiteral("training.recompute_interval"), every, file, line,
                            QStringLiteral("activation_checkpoint")});
    } else {
        out.warnings.push_back({file, line,
                                QStringLiteral("activation_checkpoint.selective_ac_option \"%1\": neither \"op\" nor a "
                                               "layer interval; recomputation left at its default")
                                    .arg(o)});
    }
}

/// torchtitan's 2-D data-parallel mesh: a replicate degree above 1 with an explicit shard degree is hybrid
/// sharding (HSDP) over shard-degree x context ranks (the context ranks join FSDP's shard dimension).
void torchtitanHybridSharding(const QString &file, const std::vector<Leaf> &leaves, FileImport &out)
{
    const auto find = [&leaves](const char *name) { return findLeaf(leaves, name); };
    const auto replicate = find("parallelism.data_parallel_replicate_degree"),
               shard = find("parallelism.data_parallel_shard_degree");
    if (replicate == leaves.end() || replicate->value.toDouble() <= 1)
        return;
    if (shard != leaves.end() && shard->value.toDouble() == 1)
        return; // replicated only (DDP): no sharding
    if (shard == leaves.end() || shard->value.toDouble() < 1) {
        out.warnings.push_back({file, replicate->line,
                                QStringLiteral("data_parallel_replicate_degree %1 with an automatic shard degree: "
                                               "set parallel.shard_group to the shard degree x context")
                                    .arg(replicate->value.toDouble())});
        return;
    }
    const auto context = find("parallelism.context_parallel_degree");
    const double c = context != leaves.end() && context->value.toDouble() >= 1 ? context->value.toDouble() : 1.0;
    const int group = int(shard->value.toDouble() * c);
    if (group > 1)
        out.keys.push_back({QStringLiteral("parallel.shard_group"), group, file, shard->line, shard->name});
}

/// The loss kernel: [compile] components without "loss" leave the loss eager while the model compiles
/// (torchtitan components/loss.py compiles it only when "loss" is listed); the older training.compile
/// compiled the loss too from 2025 but not at the end of 2024 (train.py at 9dec370), which the file cannot
/// tell: a warning says so.
void torchtitanLossKernel(const QString &file, const std::vector<Leaf> &leaves, FileImport &out)
{
    const auto enable = findLeaf(leaves, "compile.enable"), components = findLeaf(leaves, "compile.components");
    const auto legacy = findLeaf(leaves, "training.compile");
    if (enable != leaves.end() && enable->value.toBool() && components != leaves.end()
        && !components->value.toString().split(',').contains(QStringLiteral("loss")))
        out.keys.push_back({QStringLiteral("training.loss_kernel"), QStringLiteral("eager"), file, components->line,
                            components->name});
    else if (legacy != leaves.end() && legacy->value.toBool())
        out.warnings.push_back(
            {file, legacy->line,
             QStringLiteral("training.compile: torchtitan of 2025 on compiles the loss with the model "
                            "(planned so); before, its loss ran eagerly: set "
                            "training.loss_kernel to \"eager\" for such a run")});
}

/// torchtitan's flavors of the models the catalog has ("llama3" "8B" -> llama3-8b).
QString torchtitanPreset(const QString &name, const QString &flavor)
{
    const QString f = flavor.toLower();
    if (name == QLatin1String("llama3") || name == QLatin1String("llama3_1"))
        return f == QLatin1String("405b") ? QStringLiteral("llama3.1-405b") : QStringLiteral("llama3-") + f;
    if (name == QLatin1String("llama2"))
        return QStringLiteral("llama2-") + f;
    if (name == QLatin1String("deepseek_v3") && f == QLatin1String("671b"))
        return QStringLiteral("deepseek-v3");
    return {};
}

/// torchtitan's batch: training.local_batch_size per data-parallel rank (default 8), and global_batch_size -1
/// (its default) meaning local_batch_size x the data-parallel degree, no accumulation (torchtitan
/// torchtitan/config/job_config.py, Training.global_batch_size). Set, it is the global batch.
void torchtitanBatch(const QString &file, const std::vector<Leaf> &leaves, FileImport &out)
{
    const auto global = findLeaf(leaves, "training.global_batch_size");
    if (global != leaves.end() && global->value.toDouble() > 0)
        return;
    out.keys.erase(
        std::remove_if(out.keys.begin(), out.keys.end(),
                       [](const ImportedKey &k) { return k.path == QLatin1String("training.global_batch"); }),
        out.keys.end());
    const auto local = std::find_if(leaves.begin(), leaves.end(), [](const Leaf &l) {
        return l.name == QLatin1String("training.local_batch_size") || l.name == QLatin1String("training.batch_size");
    });
    if (local == leaves.end())
        out.keys.push_back({QStringLiteral("training.micro_batch"), 8, file, 0,
                            QStringLiteral("training.local_batch_size (torchtitan's default)"), true});
    const int line = global != leaves.end() ? global->line : local != leaves.end() ? local->line : 0;
    out.keys.push_back({QStringLiteral("derived.gradient_accumulation"), 1, file, line,
                        QStringLiteral("training.global_batch_size -1")});
}

/// The line of the first dotted key (a = 1 as a.b.c = 1, or a table header [a.b.c]) with more than
/// kMaxTomlKeyDepth parts, or 0: toml++ nests a table per part by recursion, and thirty thousand parts exhaust
/// its stack. A job file's keys have two or three.
constexpr int kMaxTomlKeyDepth = 64;

int tooDeepTomlKey(const QByteArray &bytes)
{
    int line = 1, dots = 0;
    bool header = false, lineStart = true;
    for (qsizetype i = 0; i < bytes.size(); ++i) {
        const char c = bytes[i];
        if ((c == '"' || c == '\'') && bytes.mid(i, 3) == QByteArray(3, c)) { // a multi-line string: a value
            const qsizetype close = bytes.indexOf(QByteArray(3, c), i + 3);
            const qsizetype last = close < 0 ? bytes.size() : close + 2;
            line += int(bytes.mid(i, last - i).count('\n'));
            i = last;
        } else if (c == '"' || c == '\'') { // a one-line string: a quoted key part or a value
            for (++i; i < bytes.size() && bytes[i] != c && bytes[i] != '\n'; ++i)
                i += c == '"' && bytes[i] == '\\';
            if (i < bytes.size() && bytes[i] == '\n')
                --i;
        } else if (c == '#') {
            while (i + 1 < bytes.size() && bytes[i + 1] != '\n')
                ++i;
        } else if (c == '\n') {
            ++line, dots = 0, header = false, lineStart = true;
            continue;
        } else if (c == '.' && ++dots >= kMaxTomlKeyDepth && header) {
            return line;
        } else if (c == '[' && lineStart) {
            header = true;
        } else if (c == '=' && dots >= kMaxTomlKeyDepth) {
            return line;
        } else if (c == '=' || c == ',' || c == '{' || c == '[') {
            dots = 0;
        }
        lineStart = lineStart && (c == ' ' || c == '\t');
    }
    return 0;
}

FileImport readTorchtitan(const QString &file, const QByteArray &bytes)
{
    FileImport out;
    out.format = ImportFormat::Torchtitan;
    if (const int line = tooDeepTomlKey(bytes)) {
        out.errors.push_back(
            {file, line,
             QStringLiteral("a key of more than %1 dotted parts: not a job file (a job file's keys have two or three)")
                 .arg(kMaxTomlKeyDepth)});
        return out;
    }
    toml::table parsed;
    try {
        parsed = toml::parse(std::string_view(bytes.constData(), std::size_t(bytes.size())));
    } catch (const toml::parse_error &e) {
        out.errors.push_back(
            {file, int(e.source().begin.line),
             QStringLiteral("not a TOML document: %1").arg(QString::fromStdString(std::string(e.description())))});
        return out;
    }
    std::vector<Leaf> leaves;
    tomlLeaves(parsed, QString(), leaves);
    QString name, flavor;
    int modelLine = 0;
    std::vector<Leaf> planned;
    static const QRegularExpression ignored(
        QStringLiteral("^(job|metrics|checkpoint|optimizer|lr_scheduler|comm|profiling|validation|"
                       "memory_estimation|experimental|fault_tolerance)\\..*|"
                       "^training\\.(steps|max_norm|warmup_steps|dataset.*|seed|deterministic|"
                       "mixed_precision_reduce|gc_freq)$|^model\\.(tokenizer_path|hf_assets_path)$|"
                       "^parallelism\\.(data_parallel_replicate_degree|data_parallel_shard_degree|"
                       "disable_loss_parallel|pipeline_parallel_microbatch_size|pipeline_parallel_split_points)$|"
                       "^activation_checkpoint\\.(mode|selective_ac_option)$|^compile\\..*|^float8\\..*$"));
    for (const Leaf &leaf : leaves) {
        if (leaf.name == QLatin1String("model.name"))
            name = leaf.value.toString(), modelLine = leaf.line;
        else if (leaf.name == QLatin1String("model.flavor"))
            flavor = leaf.value.toString();
        else if (leaf.name == QLatin1String("parallelism.data_parallel_shard_degree") && leaf.value.toDouble() != 1) {
            out.keys.push_back(
                {QStringLiteral("training.framework"), QStringLiteral("fsdp"), file, leaf.line, leaf.name});
            out.keys.push_back({QStringLiteral("parallel.zero_stage"), 3, file, leaf.line, leaf.name});
        }
        if (torchtitanRules().count(leaf.name) || !ignored.match(leaf.name).hasMatch())
            if (leaf.name != QLatin1String("model.name") && leaf.name != QLatin1String("model.flavor"))
                planned.push_back(leaf);
    }
    mapLeaves(file, planned, torchtitanRules(), [](const QString &n) { return n; }, out);
    torchtitanCheckpointing(file, leaves, out);
    torchtitanBatch(file, leaves, out);
    torchtitanHybridSharding(file, leaves, out);
    torchtitanLossKernel(file, leaves, out);
    if (const QString preset = torchtitanPreset(name, flavor); !preset.isEmpty())
        out.keys.push_back(
            {QStringLiteral("model.preset"), preset, file, modelLine, QStringLiteral("model.name + model.flavor")});
    else if (!name.isEmpty())
        out.warnings.push_back(
            {file, modelLine,
             QStringLiteral("model %1 %2: not a preset; give the model with its config.json").arg(name, flavor)});
    return out;
}

} // namespace

FileImport importFile(const QString &name, const QByteArray &bytes, ImportFormat format)
{
    switch (format) {
    case ImportFormat::HuggingFace: return readHuggingFace(name, bytes);
    case ImportFormat::Megatron: return readMegatron(name, bytes);
    case ImportFormat::NeMo: return readNemo(name, bytes);
    case ImportFormat::Torchtitan: return readTorchtitan(name, bytes);
    case ImportFormat::DeepSpeed: return readDeepSpeed(name, bytes);
    case ImportFormat::Unknown: break;
    }
    FileImport out;
    out.errors.push_back(
        {name, 0,
         QStringLiteral("not a format Trainplan imports (a Hugging Face config.json, a Megatron-LM script or "
                        "argument file, a NeMo recipe .yaml, a torchtitan .toml or a DeepSpeed .json)")});
    return out;
}

} // namespace trainplan::io
