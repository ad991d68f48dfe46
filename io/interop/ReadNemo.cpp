// NeMo 1 and NeMo 2 / Megatron-Bridge recipes, YAML (io/interop/ImportReaders.h).

#include <optional>

#include "io/interop/ImportReaders.h"

#include <QRegularExpression>
#include <QSet>

#include <yaml-cpp/yaml.h>

namespace trainplan::io::reading {

namespace {

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
    if (node.IsMap() && node["_target_"] && (node["_name_"] || (node["_call_"] && node.size() == 2))) {
        // Megatron-Bridge's saved run configuration (run_config.yaml, written with Megatron-LM's safe YAML
        // representers, megatron/training/config/yaml_utils.py): an enum as {_target_, _call_, _args_, _name_},
        // a torch dtype as {_target_: "torch.bfloat16", _call_: false}. One value each: the enum's name, the
        // dtype's.
        const YAML::Node value = node["_name_"] ? node["_name_"] : node["_target_"];
        if (value.IsScalar())
            leaves.push_back({prefix, yamlScalar(QString::fromStdString(value.Scalar())), node.Mark().line + 1});
    } else if (node.IsMap()) {
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
    // The tokenizer by its type (a Hugging Face name, a Megatron type) or, without one, by its SentencePiece
    // model file (model.tokenizer.model).
    for (const char *field : {"tokenizer.type", "tokenizer.model"}) {
        const auto name = findLeafEnding(leaves, field);
        if (name == leaves.end() || !name->value.isString() || name->value.toString() == QLatin1String("null"))
            continue;
        addTokenizerVocabulary(file, leaves, name->value.toString(), name->line,
                               QLatin1String(field) + QLatin1Char(' ') + name->value.toString(), out);
        return;
    }
}

/// The recipe's leaves; false (with the error in `out`) when it is not a tree this reader can walk.
bool nemoLeaves(const QString &file, const YAML::Node &root, std::vector<Leaf> &leaves, FileImport &out)
{
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
    // Evaluation data sections (NeMo 1's model.data.validation_ds and test_ds) carry their own global and
    // micro-batch sizes: the training step's are train_ds's or the model's.
    static const QRegularExpression bookkeeping(
        QStringLiteral("^(run|exp_manager|hydra|defaults(\\[\\d+\\])?)\\.|^defaults\\[|"
                       "^trainer\\.(max_time|max_epochs|gradient_clip_val|benchmark)$|"
                       "(^|\\.)(validation_ds|test_ds)\\."));
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
/// Megatron-Bridge's mixed-precision recipe names: bf16_mixed, fp16_mixed, {bf16,fp16}_with_{fp8_delayed_scaling,
/// fp8_current_scaling, mxfp8, fp8_subchannel_scaling, nvfp4}_mixed (and model-specific ones ending the same),
/// hyphens or underscores.
Convert bridgePrecision()
{
    return [](const QJsonValue &v) -> QJsonValue {
        const QString name = v.toString().toLower().replace(QLatin1Char('-'), QLatin1Char('_'));
        if (!name.endsWith(QLatin1String("_mixed")))
            return QJsonValue(QJsonValue::Undefined);
        if (name.contains(QLatin1String("nvfp4")))
            return QStringLiteral("nvfp4");
        if (name.contains(QLatin1String("mxfp8")))
            return QStringLiteral("mxfp8");
        if (name.contains(QLatin1String("fp8_subchannel")))
            return QStringLiteral("fp8-blockwise");
        if (name.contains(QLatin1String("fp8_delayed")) || name.contains(QLatin1String("fp8_current")))
            return QStringLiteral("fp8");
        if (name == QLatin1String("bf16_mixed"))
            return QStringLiteral("bf16");
        if (name == QLatin1String("fp16_mixed"))
            return QStringLiteral("fp16");
        return QJsonValue(QJsonValue::Undefined);
    };
}

const std::map<QString, Rule> &nemoRules()
{
    static const std::map<QString, Rule> nemo = [] {
        std::map<QString, Rule> rules = megatronRules();
        rules.emplace("devices", Rule{"cluster.gpus_per_node", asInteger});
        // The model's vocabulary as built, not padded further (MegatronGPTModel: vocab_size=
        // cfg.get('override_vocab_size', padded_vocab_size), megatron_gpt_model.py).
        rules.emplace("override_vocab_size", Rule{"model.vocab", asInteger});
        rules.emplace("dtype", Rule{"training.optimizer_moments", stateFormat()});
        rules.emplace("grad_sync_dtype", Rule{"training.fp32_gradients", oneOf({{"fp32", "true"},
                                                                                {"float32", "true"},
                                                                                {"bf16", "false"},
                                                                                {"bfloat16", "false"},
                                                                                {"fp16", "false"},
                                                                                {"float16", "false"}})});
        // Megatron-Bridge's mixed-precision recipes by name (ConfigContainer.mixed_precision as a string;
        // src/megatron/bridge/training/mixed_precision.py registers each with '_' and '-').
        rules.emplace("mixed_precision", Rule{"training.precision", bridgePrecision()});
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
                       "post_process|layernorm_epsilon|do_layer_norm_weight_decay|"
                       // Megatron-Bridge's run_config.yaml: the dtypes the precision recipe set, the run's bookkeeping
                       "params_dtype|pipeline_dtype|autocast_dtype|train_iters|"
                       "env_vars.*)$"));
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

/// Megatron-LM's functional-test configurations (tests/functional_tests/test_cases/*/model_config.yaml at
/// d98e8a6): MODEL_ARGS maps each command-line flag ("--num-layers") to its value, true for a switch given,
/// false for one left out. Written back as the launch script they stand for, each flag on its YAML line, so
/// the Megatron reader reads them with their lines. Empty when the file is not one.
QByteArray megatronModelArgsScript(const YAML::Node &root)
{
    try {
        const YAML::Node args = root.IsMap() ? root["MODEL_ARGS"] : YAML::Node();
        if (!args || !args.IsMap() || args.size() == 0)
            return {};
        QStringList lines{QStringLiteral("ARGS=(")};
        for (const auto &entry : args) {
            if (!entry.first.IsScalar() || !entry.second.IsScalar())
                continue;
            const QString flag = QString::fromStdString(entry.first.Scalar());
            if (!flag.startsWith(QLatin1String("--")))
                return {}; // NeMo 2's MODEL_ARGS (trainer.devices: 8) are recipe keys, not flags
            const QString value = QString::fromStdString(entry.second.Scalar());
            if (value == QLatin1String("false") || value == QLatin1String("False"))
                continue;
            QString line = flag;
            if (value != QLatin1String("true") && value != QLatin1String("True"))
                line += QStringLiteral(" '") + QString(value).replace(QLatin1Char('\''), QLatin1String("'\\''")) + '\'';
            const int at = entry.first.Mark().line; // 0-based: the line after lines[at - 1]
            while (lines.size() < at)
                lines << QString();
            lines << line;
        }
        lines << QStringLiteral(")") << QStringLiteral("python pretrain_gpt.py \"${ARGS[@]}\"");
        return lines.join(QLatin1Char('\n')).toUtf8();
    } catch (const YAML::Exception &) {
        return {};
    }
}

/// OmegaConf's interpolations in a recipe's values (NeMo-Framework-Launcher: "${multiply:4, ${.hidden_size}}",
/// "${.encoder_seq_length}", "${training.model.encoder_seq_length}"): a reference to another value of the file
/// (relative to the key's own section with a leading '.', else absolute, the launcher's "training." package
/// prefix dropped) and the launcher's multiply resolver, evaluated; what names no value of the file (a data
/// directory, the run's name) stays as written.
QString resolveInterpolation(const QString &text, const QString &section, const std::map<QString, QString> &values,
                             int depth = 0)
{
    static const QRegularExpression whole(QStringLiteral("^\\$\\{(.*)\\}$"));
    const QRegularExpressionMatch m = whole.match(text.trimmed());
    if (!m.hasMatch() || depth > 8)
        return text;
    const QString inner = m.captured(1).trimmed();
    if (inner.startsWith(QLatin1String("multiply:"))) {
        // The arguments, split at the top-level comma (each may be an interpolation itself).
        QStringList args;
        int level = 0;
        QString current;
        for (const QChar c : inner.mid(9)) {
            level += c == QLatin1Char('{') ? 1 : c == QLatin1Char('}') ? -1 : 0;
            if (c == QLatin1Char(',') && level == 0)
                args << current, current.clear();
            else
                current += c;
        }
        args << current;
        double product = 1;
        for (const QString &a : args) {
            bool ok = false;
            product *= resolveInterpolation(a.trimmed(), section, values, depth + 1).toDouble(&ok);
            if (!ok)
                return text;
        }
        return QString::number(product, 'g', 15);
    }
    QString name = inner.startsWith(QLatin1Char('.')) ? section + inner : inner;
    auto it = values.find(name);
    if (it == values.end() && name.startsWith(QLatin1String("training.")))
        it = values.find(name.mid(9));
    return it == values.end() ? text : resolveInterpolation(it->second, section, values, depth + 1);
}

void resolveInterpolations(std::vector<Leaf> &leaves)
{
    std::map<QString, QString> values;
    for (const Leaf &l : leaves)
        if (l.value.isString() || l.value.isDouble())
            values[l.name] = l.value.isString() ? l.value.toString() : QString::number(l.value.toDouble(), 'g', 15);
    for (Leaf &l : leaves) {
        if (!l.value.isString() || !l.value.toString().contains(QLatin1String("${")))
            continue;
        const QString section = l.name.contains(QLatin1Char('.')) ? l.name.section('.', 0, -2) : QString();
        const QString resolved = resolveInterpolation(l.value.toString(), section, values);
        if (resolved == l.value.toString())
            continue;
        bool number = false;
        const double v = resolved.toDouble(&number);
        l.value = number ? QJsonValue(v) : QJsonValue(resolved);
    }
}

/// NeMo 1's PyTorch FSDP (fsdp: true; NeMo-Framework-Launcher's recipes: "Method to shard model states.
/// Available options are 'full', 'hybrid', and 'grad'"): 'full' is FULL_SHARD, 'grad' SHARD_GRAD_OP (the
/// parameters kept gathered from forward to backward), 'hybrid' HYBRID_SHARD, which shards inside a node and
/// replicates across them: said, as the plan's shard group is not read from the recipe.
void nemoTorchFsdp(const QString &file, const std::vector<Leaf> &leaves, FileImport &out)
{
    const auto fsdp = findLeafEnding(leaves, "fsdp");
    const auto strategy = findLeafEnding(leaves, "fsdp_sharding_strategy");
    if (fsdp == leaves.end() || !truthy(fsdp->value) || strategy == leaves.end())
        return;
    const QString how = strategy->value.toString().toLower();
    if (how == QLatin1String("grad"))
        out.keys.push_back(
            {QStringLiteral("parallel.reshard_after_forward"), false, file, strategy->line, strategy->name});
    else if (how == QLatin1String("hybrid"))
        out.warnings.push_back(
            {file, strategy->line,
             QStringLiteral("%1 hybrid: FSDP shards inside each node and replicates across nodes; set "
                            "parallel.shard_group to the data ranks of a node")
                 .arg(strategy->name)});
}

} // namespace

/// Megatron-Bridge's agent-readable cards at 067f987df: a model's verification card
/// (examples/model_verification_cards/*/card.yaml: verification_index and items, each a conversion, inference or
/// training check with its own command and settings) and a skill's card (skills/*/card.yaml: title,
/// validation_status and the configurations it measured). Each records many runs, not one run's configuration:
/// read by leaf name, one item's context_parallel_size would become the plan's. True when refused.
static bool refuseBridgeCards(const QString &file, const YAML::Node &root, FileImport &out)
{
    if (!root.IsMap()) // a scalar or a list: no such keys (and yaml-cpp throws on a scalar's operator[])
        return false;
    const YAML::Node index = root["verification_index"], status = root["validation_status"];
    const bool model = index && root["items"];
    if (!model && !(status && root["title"]))
        return false;
    out.errors.push_back(
        {file, (model ? index : status).Mark().line + 1,
         QStringLiteral("%1: a Megatron-Bridge %2 card records many runs (checks and measured configurations), each "
                        "with its own settings, not one run's configuration; import the recipe's override file or "
                        "the run's saved run_config.yaml")
             .arg(model ? QStringLiteral("verification_index") : QStringLiteral("validation_status"),
                  model ? QStringLiteral("model verification") : QStringLiteral("skill"))});
    return true;
}

/// NeMo 1's configs of runs that load a trained model (a top-level gpt_model_file: megatron_gpt_export.yaml,
/// megatron_gpt_inference_batch_mcore.yaml at 8cfedd72) or generate from one. True when refused.
static bool refuseNemoTrainedModelRuns(const QString &file, const YAML::Node &root, const std::vector<Leaf> &leaves,
                                       FileImport &out)
{
    if (!root.IsMap()) // a scalar or a list: no such keys (and yaml-cpp throws on a scalar's operator[])
        return false;
    if (const YAML::Node model = root["gpt_model_file"]; model && root["trainer"]) {
        out.errors.push_back({file, model.Mark().line + 1,
                              QStringLiteral("gpt_model_file: the configuration of a run that loads a trained model "
                                             "(generation, export or evaluation); Trainplan plans a training run "
                                             "(import the configuration that trains it)")});
        return true;
    }
    // NeMo 1's generation configs (examples/nlp/language_modeling/conf/megatron_*_inference.yaml, *_generate_config,
    // megatron_gpt_ptq.yaml at 8cfedd72: an inference section of sampling settings and no optimizer): they run a
    // trained model. A fine-tuning config has the same inference section for its evaluation, beside its optim.
    const bool optimizer = std::any_of(leaves.begin(), leaves.end(), [](const Leaf &l) {
        return l.name.startsWith(QLatin1String("model.optim.")) || l.name.startsWith(QLatin1String("optim."));
    });
    if (const YAML::Node inference = root["inference"]; inference && inference.IsMap() && !optimizer) {
        out.errors.push_back({file, inference.Mark().line + 1,
                              QStringLiteral("inference: a generation configuration (sampling settings, no "
                                             "optimizer) runs a trained model; Trainplan plans a training run "
                                             "(import the configuration that trains it)")});
        return true;
    }
    return false;
}

/// OmegaConf's "???" (a value the command line must give) is not a value: the leaf is dropped, and said.
static void dropMandatoryPlaceholders(const QString &file, std::vector<Leaf> &leaves, FileImport &out)
{
    const auto mandatory = std::remove_if(leaves.begin(), leaves.end(), [&](const Leaf &l) {
        if (leafText(l.value) != QLatin1String("???"))
            return false;
        out.warnings.push_back({file, l.line,
                                QStringLiteral("%1 = ???: OmegaConf's mandatory value, which the command line gives; "
                                               "not read")
                                    .arg(l.name)});
        return true;
    });
    leaves.erase(mandatory, leaves.end());
}

/// NeRF (NeMo-Framework-Launcher conf/training/nerf: a Hydra defaults entry nerf/model, modules whose _target_
/// is in nemo.collections.multimodal.modules.nerf): small MLPs over a hash-grid encoding, no transformer.
/// Read before the bookkeeping (the defaults list) is dropped. True when refused.
static bool refuseNemoNerf(const QString &file, const std::vector<Leaf> &leaves, FileImport &out)
{
    const auto nerf = std::find_if(leaves.begin(), leaves.end(), [](const Leaf &l) {
        return l.name.contains(QLatin1String("nerf/")) ||
               (l.name.endsWith(QLatin1String("_target_")) && l.value.toString().contains(QLatin1String(".nerf.")));
    });
    if (nerf == leaves.end())
        return false;
    refuseLayers(file, nerf->line, QStringLiteral("%1 = %2: a NeRF's networks").arg(nerf->name, leafText(nerf->value)),
                 out);
    return true;
}

/// What a recipe trains that a plan does not: parameter-efficient tuning, a recurrent model named by its
/// experiment, a vision-language provider. True when refused.
static bool refuseNemoOtherRuns(const QString &file, const std::vector<Leaf> &leaves, FileImport &out)
{
    // Parameter-efficient tuning (NeMo 1's model.peft.peft_scheme adapter, lora, ia3, ptuning; Megatron-Bridge's
    // peft._target_, megatron.bridge.peft.lora.LoRA, or any field of its peft section: the tutorials'
    // 03_finetune_with_yaml.py at 067f987df runs --peft lora unless told "none" and its YAML's peft.dim and
    // peft.alpha set that LoRA's rank and scale): adapters train beside a frozen model, and a plan trains every
    // parameter (their gradients and optimizer state), so it would overstate memory and time.
    if (const auto peft = std::find_if(leaves.begin(), leaves.end(),
                                       [](const Leaf &l) {
                                           const QString v = leafText(l.value).toLower();
                                           const bool given = !v.isEmpty() && v != QLatin1String("null");
                                           return (l.name == QLatin1String("model.peft.peft_scheme") && given &&
                                                   v != QLatin1String("none")) ||
                                                  (l.name.startsWith(QLatin1String("peft.")) && given);
                                       });
        peft != leaves.end()) {
        refuseAdapters(file, *peft, out);
        return true;
    }
    // A NeMo 1 recurrent model named by its experiment (megatron_griffin_config.yaml: RecurrentGemma's RG-LRU
    // blocks between local-attention ones, its shape otherwise a GPT's); encoder-decoder and RETRO runs whose
    // config says so only in its name (megatron_t5_config_finetune_eval.yaml: megatron_t5_finetune_eval,
    // megatron_retro_finetune_config.yaml: fine_tune_retro, at 8cfedd72).
    if (const auto named = findLeaf(leaves, "name"); named != leaves.end()) {
        const QString name = named->value.toString(), lower = name.toLower();
        static const QRegularExpression encoderDecoder(QStringLiteral("(^|_)(t5|mt5|bart|ul2|t0)(_|$)"));
        QString what;
        if (name.contains(QLatin1String("griffin")))
            what = QStringLiteral("Griffin's recurrent (RG-LRU) blocks");
        else if (encoderDecoder.match(lower).hasMatch())
            what = QStringLiteral("an encoder-decoder model's (T5, BART, UL2) layers");
        else if (lower.contains(QLatin1String("retro")))
            what = QStringLiteral("RETRO's retrieval layers");
        else if (lower.contains(QLatin1String("mamba"))) // megatron_mamba_finetuning_config.yaml
            what = QStringLiteral("Mamba layers");
        if (!what.isEmpty()) {
            refuseLayers(file, named->line, QStringLiteral("name %1: %2").arg(name, what), out);
            return true;
        }
    }
    // Megatron-Bridge's vision-language providers (Qwen2.5-VL, Qwen3-VL, Nemotron Nano V2 VL: their override files
    // set model.freeze_vision_model, freeze_vision_projection, use_hf_vision_model): the language model is one
    // part of what trains.
    // "vision" as a word of the key's last part: hf_revision (a checkpoint's revision) is no vision key.
    static const QRegularExpression visionWord(QStringLiteral("(^|_)vision(_|$)"));
    if (const auto vl = std::find_if(leaves.begin(), leaves.end(),
                                     [](const Leaf &l) {
                                         return l.name.startsWith(QLatin1String("model.")) &&
                                                visionWord.match(l.name.section(QLatin1Char('.'), -1)).hasMatch();
                                     });
        vl != leaves.end()) {
        refuseLayers(file, vl->line,
                     QStringLiteral("%1: a vision-language model's vision encoder and projector").arg(vl->name), out);
        return true;
    }
    return false;
}

/// NeMo 1's recipes for models that are not a decoder-only transformer (NeMo-Framework-Launcher
/// conf/training: t5, mt5, bert, retro, vit, clip, neva, video_neva) are refused naming the key that says so,
/// never planned as a GPT of their language part. True when refused.
bool refuseNemoNonDecoder(const QString &file, const std::vector<Leaf> &leaves, FileImport &out)
{
    struct Marker
    {
        const char *part; ///< a name component ("encoder" matches model.encoder.num_layers)
        const char *what;
    };
    static const Marker markers[] = {
        {"encoder", "model.encoder and model.decoder: encoder-decoder models (T5, mT5)"},
        // NeMo 1's own T5, BART and UL2 configs name their encoder and decoder only in the Hydra defaults
        // (.@model.encoder: megatron_model_base_config); the rank where the decoder's stages start is theirs alone.
        {"pipeline_model_parallel_split_rank",
         "model.pipeline_model_parallel_split_rank: encoder-decoder models (T5, BART, UL2: the rank where the "
         "decoder's stages start)"},
        {"retro", "model.retro: RETRO's retrieval encoder and chunked cross-attention layers"},
        {"mm_cfg", "model.mm_cfg: a vision-language model's vision encoder and projector (NeVA)"},
        {"vision", "model.vision and model.text: CLIP's image and text encoders"},
        {"bert_binary_head", "model.bert_binary_head: BERT's bidirectional encoder layers"},
        {"patch_dim", "model.patch_dim: a vision transformer's layers"},
        // Text-to-image diffusion (conf/training stable_diffusion, sdxl, controlnet, dreambooth, instruct_pix2pix:
        // model.unet_config with its first_stage_config autoencoder; imagen: model.unet).
        {"unet_config", "model.unet_config: a diffusion model's UNet and autoencoder (Stable Diffusion, SDXL)"},
        {"unet", "model.unet: Imagen's diffusion UNets"},
        // NeMo 1's state-space and long-convolution models (examples/nlp/language_modeling/conf at NeMo 8cfedd72:
        // megatron_mamba_config.yaml, whose null hybrid_override_pattern is all Mamba; megatron_gpt_config_hyena).
        {"mamba_ssm_ngroups", "model.mamba_ssm_ngroups: Mamba layers"},
        {"hyena", "model.hyena: Hyena operators in place of attention"}};
    // Megatron-Bridge's knowledge distillation (models/distillation_provider.py at 067f987df: model.teacher, the
    // teacher's provider, and model.kd_config): the teacher's forward runs beside the student's.
    // NeMo 1's (examples/nlp/language_modeling/conf/megatron_llama_distill.yaml at 8cfedd72):
    // model.kd_teacher_restore_from_path.
    for (const char *part : {"teacher", "kd_config", "kd_teacher_restore_from_path"})
        if (const auto hit = std::find_if(leaves.begin(), leaves.end(),
                                          [&](const Leaf &l) {
                                              const QString key = QStringLiteral("model.") + QLatin1String(part);
                                              return l.name.startsWith(key + '.') || l.name == key;
                                          });
            hit != leaves.end()) {
            out.errors.push_back(
                {file, hit->line,
                 QStringLiteral("model.%1: knowledge distillation runs a teacher model's forward beside "
                                "the student's, which one plan (one model) does not hold")
                     .arg(QLatin1String(part))});
            return true;
        }
    for (const Marker &m : markers) {
        const QString part = QString::fromLatin1(m.part);
        const auto hit = std::find_if(leaves.begin(), leaves.end(),
                                      [&](const Leaf &l) { return l.name.split(QLatin1Char('.')).contains(part); });
        if (hit != leaves.end()) {
            refuseLayers(file, hit->line, QString::fromLatin1(m.what), out);
            return true;
        }
    }
    return refuseNemoOtherRuns(file, leaves, out);
}

/// The document, or nothing (with the error in `out`) when it is not YAML.
static std::optional<YAML::Node> loadYaml(const QString &file, const QByteArray &bytes, FileImport &out)
{
    try {
        return YAML::Load(bytes.toStdString());
    } catch (const YAML::Exception &e) {
        out.errors.push_back(
            {file, e.mark.line + 1, QStringLiteral("not a YAML document: %1").arg(QString::fromStdString(e.msg))});
        return std::nullopt;
    }
}

bool yamlLeavesOf(const QString &file, const QByteArray &bytes, std::vector<Leaf> &leaves, FileImport &out)
{
    const std::optional<YAML::Node> root = loadYaml(file, bytes, out);
    if (!root || !nemoLeaves(file, *root, leaves, out))
        return false;
    resolveInterpolations(leaves);
    return true;
}

QByteArray bridgeLogConfiguration(const QByteArray &bytes)
{
    // Megatron-Bridge's training log (src/megatron/bridge/training/setup.py, maybe_log_and_save_config, on rank 0,
    // until 7cf685164 of February 2026): print("------- Task Configuration -------"), cfg.print_yaml() (the
    // run_config.yaml a checkpoint keeps, yaml.safe_dump), print("----------------------------------").
    static const QByteArray begin = kBridgeLogConfigurationLine, end = "----------------------------------";
    QList<QByteArray> lines = bytes.split('\n');
    enum { Before, Inside, After } state = Before;
    for (QByteArray &line : lines) { // everything outside the block blanked, so the YAML's lines are the log's
        const QByteArray trimmed = line.trimmed();
        if (state == Inside && trimmed != end)
            continue;
        state = state == Before && trimmed == begin ? Inside : state == Inside ? After : state;
        line.clear();
    }
    if (state == Before)
        return {};
    return lines.join('\n');
}

FileImport readNemo(const QString &file, const QByteArray &written)
{
    FileImport out;
    out.format = ImportFormat::NeMo;
    const QByteArray logged = bridgeLogConfiguration(written);
    const QByteArray &bytes = logged.isEmpty() ? written : logged;
    const std::optional<YAML::Node> loaded = loadYaml(file, bytes, out);
    if (!loaded)
        return out;
    const YAML::Node &root = *loaded;
    if (const QByteArray script = megatronModelArgsScript(root); !script.isEmpty()) {
        // A functional test's MODE (tests/functional_tests at d98e8a6: "MODE: inference" beside MODEL_ARGS that
        // generate tokens from a checkpoint): a plan is a training step.
        if (const YAML::Node mode = root["MODE"]; mode && mode.IsScalar() && mode.Scalar() == "inference") {
            out.errors.push_back({file, mode.Mark().line + 1,
                                  QStringLiteral("MODE inference: a Megatron-LM inference test (its MODEL_ARGS "
                                                 "generate tokens from a checkpoint); Trainplan plans training "
                                                 "steps, so it is not planned")});
            return out;
        }
        return readMegatron(file, script);
    }
    if (refuseBridgeCards(file, root, out))
        return out;
    std::vector<Leaf> leaves;
    if (!nemoLeaves(file, root, leaves, out))
        return out;
    if (refuseNemoTrainedModelRuns(file, root, leaves, out))
        return out;
    dropMandatoryPlaceholders(file, leaves, out);
    if (refuseNemoNerf(file, leaves, out))
        return out;
    dropNemoBookkeeping(leaves, out);
    resolveInterpolations(leaves);
    if (refuseNemoNonDecoder(file, leaves, out))
        return out;
    mapLeaves(
        file, leaves, nemoRules(), [](const QString &n) { return n.section('.', -1); }, out, nemoIgnored);
    megatronOffloadFraction(file, leaves, out);
    megatronRecomputeMethod(file, leaves, out);
    megatronLossKernel(file, leaves, out);
    megatronMoeKernels(file, leaves, false, out);
    adaptiveMuonMoment(file, leaves, out);
    nemoTorchFsdp(file, leaves, out);
    nemoOptimizerAndTokenizer(file, leaves, out);
    nemoDefaults(file, leaves, out);
    return out;
}

} // namespace trainplan::io::reading
