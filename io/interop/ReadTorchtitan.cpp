// torchtitan job files, TOML (io/interop/ImportReaders.h).

#include "io/interop/ImportReaders.h"
#include "io/interop/TorchtitanNames.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>

#include <toml++/toml.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace trainplan::io::reading {

namespace {

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
        // torchao's float8 recipes (Float8LinearRecipeName, torchao/float8/config.py at 36027d82d): the recipe
        // alone, the float8 linears themselves being the converters' (a saved configuration names the default
        // recipe whether they are on or not); rowwise_with_gw_hp is rowwise with its weight gradient in BF16.
        {"float8.recipe_name",
         {"training.fp8_recipe",
          oneOf({{"tensorwise", "tensorwise"}, {"rowwise", "rowwise"}, {"rowwise_with_gw_hp", "rowwise"}})}},
        // float8 all-gather of FSDP's parameters: [float8] until 2025, then [quantize.linear.float8]
        // (job_config.py at 238fa9953, Float8Linear.enable_fsdp_float8_all_gather).
        {"float8.enable_fsdp_float8_all_gather", {"training.fp8_param_gather", asBool}},
        // 2024's switch for torchao's float8 linears (config_manager.py at 9dec370; model.converters since).
        {"float8.enable_float8_linear", {"training.precision", whenTrue(QStringLiteral("fp8"))}},
        {"quantize.linear.float8.enable_fsdp_float8_all_gather", {"training.fp8_param_gather", asBool}},
        {"quantize.linear.float8.recipe_name",
         {"training.fp8_recipe",
          oneOf({{"tensorwise", "tensorwise"}, {"rowwise", "rowwise"}, {"rowwise_with_gw_hp", "rowwise"}})}},
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

/// torchtitan's flavors of the models the catalog has ("llama3" "8B" -> llama3-8b), from each model's
/// __init__.py at 238fa99: a flavor ending _flex, _varlen or _irope is the same shapes with another attention.
/// deepseek_v3 "16B" is DeepSeek-V2-Lite's shape; llama4 17bx16e is Scout, 17bx128e Maverick.
QString torchtitanPreset(const QString &name, QString flavor)
{
    static const QRegularExpression variant(QStringLiteral("_(flex|varlen|irope)$"));
    flavor = flavor.toLower().remove(variant);
    static const std::map<std::pair<QString, QString>, QString> presets{
        {{"llama2", "7b"}, "llama2-7b"},           {{"llama2", "13b"}, "llama2-13b"},
        {{"llama2", "70b"}, "llama2-70b"},         {{"llama3", "8b"}, "llama3-8b"},
        {{"llama3", "70b"}, "llama3-70b"},         {{"llama3", "405b"}, "llama3.1-405b"},
        {{"deepseek_v3", "16b"}, "deepseek-v2-lite"}, {{"deepseek_v3", "671b"}, "deepseek-v3"},
        {{"llama4", "17bx16e"}, "llama4-scout"},    {{"llama4", "17bx128e"}, "llama4-maverick"},
        {{"qwen3", "0.6b"}, "qwen3-0.6b"},         {{"qwen3", "1.7b"}, "qwen3-1.7b"},
        {{"qwen3", "4b"}, "qwen3-4b"},             {{"qwen3", "8b"}, "qwen3-8b"},
        {{"qwen3", "14b"}, "qwen3-14b"},           {{"qwen3", "32b"}, "qwen3-32b"},
        {{"qwen3", "30b-a3b"}, "qwen3-30b-a3b"},   {{"qwen3", "235b-a22b"}, "qwen3-235b-a22b"}};
    const QString model = name == QLatin1String("llama3_1") ? QStringLiteral("llama3") : name;
    const auto it = presets.find({model, flavor});
    return it != presets.end() ? it->second : QString();
}

/// Under pipeline parallelism torchtitan splits each rank's local batch into micro-batches: of
/// pipeline_parallel_microbatch_size sequences (default 1) since 5e2033c (April 2025, "[PP] Add microbatch_size
/// and remove num_microbatches config"), before that into pipeline_parallel_microbatches of them, by default
/// as many as pipeline stages (pipelining_utils.py at 9dec370). Sets the plan's micro-batch; returns the
/// micro-batches per step (1 without a pipeline), 0 after an error.
double torchtitanPipelineMicrobatches(const QString &file, const std::vector<Leaf> &leaves, bool legacyNames,
                                      FileImport &out)
{
    const auto degree = findLeaf(leaves, "parallelism.pipeline_parallel_degree");
    if (degree == leaves.end() || degree->value.toDouble() <= 1 ||
        findLeaf(leaves, "parallelism.num_pp_microbatches") != leaves.end())
        return 1;
    const auto local = std::find_if(out.keys.begin(), out.keys.end(), [](const ImportedKey &k) {
        return k.path == QLatin1String("training.micro_batch");
    });
    if (local == out.keys.end())
        return 1;
    const double batch = local->value.toDouble();
    const auto size = findLeaf(leaves, "parallelism.pipeline_parallel_microbatch_size");
    const auto count = findLeaf(leaves, "parallelism.pipeline_parallel_microbatches");
    double micro = 1;
    QString source = QStringLiteral("parallelism.pipeline_parallel_microbatch_size (torchtitan's default)");
    int line = degree->line;
    if (size != leaves.end()) {
        micro = size->value.toDouble(), source = size->name, line = size->line;
    } else if (count != leaves.end() && count->value.toDouble() >= 1) {
        micro = batch / count->value.toDouble(), source = local->source + QStringLiteral(" / ") + count->name;
        line = count->line;
    } else if (legacyNames) {
        micro = batch / degree->value.toDouble();
        source = local->source + QStringLiteral(" / pipeline_parallel_degree (one micro-batch per stage, the default "
                                                "of its release)");
    } else {
        out.warnings.push_back({file, degree->line,
                                QStringLiteral("pipeline_parallel_degree %1: micro-batches of 1 sequence, torchtitan's "
                                               "pipeline_parallel_microbatch_size default since April 2025 (5e2033c); "
                                               "its earlier releases split the local batch into one micro-batch per "
                                               "stage: set training.micro_batch for such a file")
                                    .arg(degree->value.toDouble())});
    }
    if (!(micro >= 1) || std::fmod(batch, micro) != 0 || micro != std::floor(micro)) {
        out.errors.push_back({file, line,
                              QStringLiteral("%1: the local batch of %2 does not split into pipeline micro-batches of "
                                             "%3 sequences (training.micro_batch)")
                                  .arg(source)
                                  .arg(batch)
                                  .arg(micro)});
        return 0;
    }
    *local = {local->path, micro, file, line, source, local->weak};
    return batch / micro;
}

/// torchtitan's batch: training.local_batch_size per data-parallel rank (default 8), and global_batch_size -1
/// (its default) meaning local_batch_size x the data-parallel degree, no accumulation (torchtitan
/// torchtitan/config/job_config.py, Training.global_batch_size). Set, it is the global batch. A saved
/// configuration's -1 runs num_pp_microbatches micro-batches a step on each data-parallel rank instead
/// (configs.py, TrainingConfig.num_tokens_per_train_step).
void torchtitanBatch(const QString &file, const std::vector<Leaf> &leaves, bool legacyNames, FileImport &out)
{
    const auto local = std::find_if(leaves.begin(), leaves.end(), [](const Leaf &l) {
        return l.name == QLatin1String("training.local_batch_size") || l.name == QLatin1String("training.batch_size");
    });
    if (local == leaves.end())
        out.keys.push_back({QStringLiteral("training.micro_batch"), 8, file, 0,
                            QStringLiteral("training.local_batch_size (torchtitan's default)"), true});
    const double microbatches = torchtitanPipelineMicrobatches(file, leaves, legacyNames, out);
    const auto global = findLeaf(leaves, "training.global_batch_size");
    if (microbatches > 1 && global != leaves.end() && global->value.toDouble() > 0) {
        // A set global batch accumulates over local batches, each its own run of the pipeline schedule.
        const auto local = findLeaf(leaves, "training.local_batch_size");
        out.keys.push_back({QStringLiteral("training.schedule_microbatches"), microbatches, file,
                            local != leaves.end() ? local->line : global->line,
                            QStringLiteral("training.local_batch_size / pipeline micro-batch size")});
    }
    if (microbatches == 0 || (global != leaves.end() && global->value.toDouble() > 0))
        return;
    out.keys.erase(
        std::remove_if(out.keys.begin(), out.keys.end(),
                       [](const ImportedKey &k) { return k.path == QLatin1String("training.global_batch"); }),
        out.keys.end());
    const auto pipelined = findLeaf(leaves, "parallelism.num_pp_microbatches");
    if (pipelined != leaves.end() && pipelined->value.toDouble() > 1) {
        out.keys.push_back({QString::fromLatin1(kAccumulation), pipelined->value.toDouble(), file,
                            pipelined->line, pipelined->name});
        return;
    }
    const int line = global != leaves.end() ? global->line : local != leaves.end() ? local->line : 0;
    out.keys.push_back({QString::fromLatin1(kAccumulation), microbatches, file, line,
                        microbatches > 1 ? QStringLiteral("training.global_batch_size -1 (pipeline micro-batches)")
                                         : QStringLiteral("training.global_batch_size -1"),
                        global == leaves.end()}); // the default, when the file does not say -1
}

/// torchtitan's trainer captures each step's forward and backward as one CUDA graph unless
/// training.disable_cuda_graphs (torchtitan/trainer.py wrap_with_cuda_graph, since f84224af0 of August 2026):
/// read where the file says; where it does not, its release decides, which the file does not give.
void torchtitanCudaGraphs(const QString &file, const std::vector<Leaf> &leaves, FileImport &out)
{
    const auto disable = findLeaf(leaves, "training.disable_cuda_graphs");
    if (disable == leaves.end())
        return;
    const bool graphs = !disable->value.toBool();
    out.keys.push_back({QStringLiteral("training.cuda_graphs"),
                        graphs ? QStringLiteral("step") : QStringLiteral("none"), file, disable->line, disable->name});
}

/// Two of torch.distributed.pipelining's schedules have no plan schedule of their own and are read as their
/// nearest (TorchtitanNames): said in a warning with what differs, never planned silently as another.
void torchtitanApproximateSchedule(const QString &file, const std::vector<Leaf> &leaves, FileImport &out)
{
    const auto schedule = findLeaf(leaves, "parallelism.pipeline_parallel_schedule");
    if (schedule == leaves.end())
        return;
    const QString name = schedule->value.toString();
    // torch/distributed/pipelining/schedules.py: ScheduleLoopedBFS runs every micro-batch's forward of one
    // local stage before the next stage's (so all of them are in flight at once, as in GPipe); ScheduleZBVZeroBubble
    // places two stages per rank in a V and splits each backward into input and weight gradients.
    if (name.compare(QLatin1String("LoopedBFS"), Qt::CaseInsensitive) == 0)
        out.warnings.push_back({file, schedule->line,
                                QStringLiteral("pipeline_parallel_schedule LoopedBFS: planned as the interleaved "
                                               "1F1B schedule; LoopedBFS keeps every micro-batch's activations in "
                                               "flight, so its memory peak is higher than planned")});
    else if (name.compare(QLatin1String("ZBVZeroBubble"), Qt::CaseInsensitive) == 0)
        out.warnings.push_back({file, schedule->line,
                                QStringLiteral("pipeline_parallel_schedule ZBVZeroBubble: planned as ZB-H1 with one "
                                               "stage per rank; ZBV's V of two stages per rank leaves a smaller "
                                               "bubble than planned")});
}

/// The stages per rank of a multi-stage schedule: torchtitan builds two per rank unless
/// pipeline_parallel_layers_per_stage says otherwise (torchtitan/distributed/pipeline_parallel.py at b5bcd76c6:
/// "For multi-stage schedules, default is 2 virtual stages per rank"; pipelining_utils.py at 9dec370 the same).
/// With layers per stage the count depends on the model's layers and the first and last stages' weights, which
/// the plan has no key for: a warning says to set it.
void torchtitanStagesPerRank(const QString &file, const std::vector<Leaf> &leaves, FileImport &out)
{
    const auto schedule = std::find_if(out.keys.begin(), out.keys.end(), [](const ImportedKey &k) {
        return k.path == QLatin1String("parallel.schedule") && k.value.toString() == QLatin1String("interleaved");
    });
    const auto pipeline = findLeaf(leaves, "parallelism.pipeline_parallel_degree");
    if (schedule == out.keys.end() || pipeline == leaves.end() || pipeline->value.toDouble() <= 1)
        return;
    const auto perStage = findLeaf(leaves, "parallelism.pipeline_parallel_layers_per_stage");
    if (perStage != leaves.end() && perStage->value.toDouble() >= 1) {
        out.warnings.push_back({file, perStage->line,
                                QStringLiteral("parallelism.pipeline_parallel_layers_per_stage %1: torchtitan makes "
                                               "ceil((layers + 2) / %1) stages over the pipeline ranks; set "
                                               "parallel.virtual_stages to that count / pipeline")
                                    .arg(perStage->value.toDouble())});
        return;
    }
    out.keys.push_back({QStringLiteral("parallel.virtual_stages"), 2, file, schedule->line,
                        schedule->source + QStringLiteral(" (two stages per rank)")});
}

/// Sequence parallelism: torchtitan's tensor-parallel plan shards the norms' sequence (SequenceParallel on
/// attention_norm, ffn_norm and norm; parallelize.py apply_tp at 238fa9953) whenever the tensor degree is above
/// one; a saved configuration can turn it off (enable_sequence_parallel, configs.py ParallelismConfig).
void torchtitanSequenceParallel(const QString &file, const std::vector<Leaf> &leaves, FileImport &out)
{
    const auto tp = findLeaf(leaves, "parallelism.tensor_parallel_degree");
    const auto sp = findLeaf(leaves, "parallelism.enable_sequence_parallel");
    const bool tensor = tp != leaves.end() && tp->value.toDouble() > 1;
    if (sp != leaves.end())
        out.keys.push_back({QStringLiteral("training.sequence_parallel"), tensor && truthy(sp->value), file, sp->line,
                            sp->name});
    else if (tensor)
        out.keys.push_back({QStringLiteral("training.sequence_parallel"), true, file, tp->line,
                            tp->name + QStringLiteral(" (torchtitan's tensor-parallel plan)")});
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

/// A torchtitan job file (TOML, torchtitan until 9810191b, February 2026) as leaves; false (with the error)
/// when it is not one.
bool jobFileLeaves(const QString &file, const QByteArray &bytes, std::vector<Leaf> &leaves, FileImport &out)
{
    if (const int line = tooDeepTomlKey(bytes)) {
        out.errors.push_back(
            {file, line,
             QStringLiteral("a key of more than %1 dotted parts: not a job file (a job file's keys have two or three)")
                 .arg(kMaxTomlKeyDepth)});
        return false;
    }
    toml::table parsed;
    try {
        parsed = toml::parse(std::string_view(bytes.constData(), std::size_t(bytes.size())));
    } catch (const toml::parse_error &e) {
        out.errors.push_back(
            {file, int(e.source().begin.line),
             QStringLiteral("not a TOML document: %1").arg(QString::fromStdString(std::string(e.description())))});
        return false;
    }
    tomlLeaves(parsed, QString(), leaves);
    return true;
}

/// The sections of a saved configuration that plan nothing: logging, data, checkpoints, the optimizer's
/// hyperparameters, the model's own tree (its name and flavor give the preset).
bool savedConfigIgnored(const QString &name)
{
    static const QRegularExpression ignored(
        QStringLiteral("^(model_spec\\.model|profiler|metrics|tokenizer|dataloader|optimizer|lr_scheduler|checkpoint|"
                       "comm|validator|debug|override|loss)(\\..*)?$|^(hf_assets_path|dump_folder)$|"
                       "^training\\.(dtype|disable_cuda_graphs|gc_debug)$|"
                       "^parallelism\\.(spmd_backend|enable_fsdp_symm_mem|"
                       "module_fqns_per_model_part|pipeline_parallel_first_stage_less_layers|"
                       "pipeline_parallel_last_stage_less_layers|"
                       "pipeline_parallel_schedule_csv|context_parallel_load_balancer|context_parallel_ptrr_mask_key)$|"
                       "^compile\\.backend$"));
    return ignored.match(name).hasMatch();
}

/// The activation checkpointing a saved configuration names by its config class's fields (to_dict writes the
/// fields, not the class; torchtitan/distributed/activation_checkpoint.py): null none, SelectiveAC's
/// force_recompute_mm_shapes_by_fqns op-level selective, MemoryBudgetAC's memory_budget none the plan has,
/// the base fields alone FullAC. As the job file's activation_checkpoint.mode and selective_ac_option.
void savedCheckpointing(const QString &file, const QJsonValue &ac, int line, std::vector<Leaf> &leaves,
                        FileImport &out)
{
    const QString mode = QStringLiteral("activation_checkpoint.mode");
    if (ac.isNull()) {
        leaves.push_back({mode, QStringLiteral("none"), line});
        return;
    }
    const QJsonObject o = ac.toObject();
    if (o.contains(QLatin1String("memory_budget"))) {
        out.warnings.push_back({file, line,
                                QStringLiteral("activation_checkpoint: memory-budget checkpointing (MemoryBudgetAC) "
                                               "has no plan key; recomputation left at its default")});
        return;
    }
    if (o.contains(QLatin1String("force_recompute_mm_shapes_by_fqns"))) {
        leaves.push_back({mode, QStringLiteral("selective"), line});
        leaves.push_back({QStringLiteral("activation_checkpoint.selective_ac_option"), QStringLiteral("op"), line});
    } else {
        leaves.push_back({mode, QStringLiteral("full"), line});
    }
}

/// A whole number of sequences in a token count; 0 (with an error naming the key) when it is not one.
int sequencesIn(const QString &file, const Leaf &tokens, double sequenceLength, FileImport &out)
{
    const double n = tokens.value.toDouble() / sequenceLength;
    if (n >= 1 && n == std::floor(n) && n <= 1e9)
        return int(n);
    out.errors.push_back({file, tokens.line,
                          QStringLiteral("%1 (%2) must be a whole number of training.max_context_length (%3) sequences")
                              .arg(tokens.name, leafText(tokens.value))
                              .arg(sequenceLength)});
    return 0;
}

/// The batch of a saved configuration: num_tokens_per_microbatch_per_dp_rank tokens per data-parallel rank and
/// forward (a micro-batch of that many sequences of max_context_length), num_tokens_per_train_step the global
/// batch's tokens, -1 meaning a micro-batch per pipeline micro-batch (num_pp_microbatches) on each rank
/// (torchtitan/config/configs.py, TrainingConfig). Added to `leaves` as the job file's local batch, global batch
/// and sequence length; false when a count is not whole sequences.
bool savedBatch(const QString &file, const std::vector<Leaf> &all, std::vector<Leaf> &leaves, FileImport &out)
{
    const auto length = findLeaf(all, "training.max_context_length");
    const double s = length != all.end() && length->value.toDouble() >= 1 ? length->value.toDouble() : 2048.0;
    const auto perRank = findLeaf(all, "training.num_tokens_per_microbatch_per_dp_rank");
    const auto perStep = findLeaf(all, "training.num_tokens_per_train_step");
    if (perRank != all.end()) {
        const int micro = sequencesIn(file, *perRank, s, out);
        if (micro == 0)
            return false;
        leaves.push_back({QStringLiteral("training.local_batch_size"), micro, perRank->line});
    }
    if (perStep != all.end() && perStep->value.toDouble() > 0) {
        const int global = sequencesIn(file, *perStep, s, out);
        if (global == 0)
            return false;
        leaves.push_back({QStringLiteral("training.global_batch_size"), global, perStep->line});
    }
    if (length != all.end())
        leaves.push_back({QStringLiteral("training.seq_len"), length->value, length->line});
    return true;
}

/// A saved configuration's leaf under the job file's name (model_spec's name and flavor as model.*, the async TP
/// switch under parallelism) and compile.components' list as the job file's comma-separated text.
void asJobFileLeaf(Leaf &leaf)
{
    if (leaf.name == QLatin1String("model_spec.name") || leaf.name == QLatin1String("model_spec.flavor")) {
        leaf.name.replace(QLatin1String("model_spec."), QLatin1String("model."));
    } else if (leaf.name == QLatin1String("compile.enable_async_tensor_parallel")) {
        leaf.name = QStringLiteral("parallelism.enable_async_tensor_parallel");
    } else if (leaf.name == QLatin1String("compile.components") && leaf.value.isArray()) {
        QStringList parts;
        for (const QJsonValue &v : leaf.value.toArray())
            parts << v.toString();
        leaf.value = parts.join(QLatin1Char(','));
    }
}

/// The leaves of a saved configuration read by their own rules (savedCheckpointing, savedBatch), not by the
/// job file's names.
bool readSeparately(const QString &name)
{
    return name.startsWith(QLatin1String("activation_checkpoint")) ||
           name.startsWith(QLatin1String("training.num_tokens")) ||
           name == QLatin1String("training.max_context_length");
}

/// torchtitan's saved job configuration: since its configuration became Python (9810191b, February 2026) a run
/// writes it out as JSON, Trainer.Config.to_dict(), with --debug.save_config_file (and logs the same with
/// --debug.print_config; torchtitan/trainer.py, maybe_log). Its leaves in the job file's names: model_spec's
/// name and flavor as model.*, the batch from its token counts, the checkpointing from its config class,
/// compile.enable_async_tensor_parallel as the older parallelism key, compile.components as one list; false
/// (with the error) when it is not such a file.
bool savedConfigLeaves(const QString &file, const QByteArray &bytes, std::vector<Leaf> &leaves, FileImport &out)
{
    if (refuseDuplicateKey(file, bytes, out))
        return false;
    QJsonParseError error{};
    const QJsonDocument doc = QJsonDocument::fromJson(relaxedJson(bytes), &error);
    if (!doc.isObject()) {
        out.errors.push_back({file, 0, QStringLiteral("not a JSON object: %1").arg(error.errorString())});
        return false;
    }
    const QJsonObject root = doc.object();
    std::vector<Leaf> all;
    jsonLeaves(root, QString(), bytes, all);
    for (Leaf &leaf : all) {
        asJobFileLeaf(leaf);
        if (readSeparately(leaf.name))
            continue;
        if (savedConfigIgnored(leaf.name))
            out.notPlanned << leaf.name;
        else
            leaves.push_back(leaf);
    }
    if (root.contains(QLatin1String("activation_checkpoint")))
        savedCheckpointing(file, root.value(QLatin1String("activation_checkpoint")),
                           lineOfKey(bytes, QStringLiteral("activation_checkpoint")), leaves, out);
    if (!savedBatch(file, all, leaves, out))
        return false;
    // Since ad7a86533 (April 2026) a model's attention may project Q, K and V with one fused wqkv, as its saved
    // layers say (attention.fuse_qkv, models/common/attention.py FusedQKVLinear); before, three nn.Linear.
    const QJsonValue fuse = root.value(QLatin1String("model_spec"))
                                .toObject()
                                .value(QLatin1String("model"))
                                .toObject()
                                .value(QLatin1String("layers"))
                                .toArray()
                                .at(0)
                                .toObject()
                                .value(QLatin1String("attention"))
                                .toObject()
                                .value(QLatin1String("fuse_qkv"));
    if (fuse.isBool())
        out.keys.push_back({QStringLiteral("training.separate_qkv"), !fuse.toBool(), file,
                            lineOfKey(bytes, QStringLiteral("fuse_qkv")), QStringLiteral("fuse_qkv")});
    if (root.contains(QLatin1String("model_spec")))
        out.warnings.push_back(
            {file, lineOfKey(bytes, QStringLiteral("model_spec")),
             QStringLiteral("model_spec: its converters (float8, MXFP8, NVFP4 linears) are not read from a saved "
                            "configuration; set training.precision if the run used one")});
    return true;
}

/// [compile] enable with components that leave out "model" (["loss"]) compiles the loss alone: the model runs
/// eagerly (torchtitan's Compile.components, default ["model", "loss"]); with that section the older
/// training.compile is no longer torchtitan's (deepseek_v3_671b.toml of September 2025 keeps both). The names
/// read here, which the table must not read again.
QStringList torchtitanCompile(const QString &file, const std::vector<Leaf> &leaves, FileImport &out)
{
    const auto enable = findLeaf(leaves, "compile.enable"), components = findLeaf(leaves, "compile.components");
    if (enable == leaves.end())
        return {};
    QStringList read{QStringLiteral("training.compile")};
    if (components != leaves.end() &&
        !components->value.toString().split(QLatin1Char(',')).contains(QStringLiteral("model"))) {
        out.keys.push_back({QStringLiteral("training.compile"), false, file, components->line,
                            QStringLiteral("compile.components without \"model\"")});
        read << QStringLiteral("compile.enable");
    }
    return read;
}

/// [model] as the job file names it.
struct TorchtitanModelName
{
    QString name, flavor;
    int line = 0;
};

/// The model: a preset from name and flavor; torchtitan's models that are not decoder-only language models
/// (torchtitan/models/flux, experiments/vlm) refused naming model.name; the transformers backend
/// (experiments/transformers_modeling_backend at 238fa99: model.name transformers_modeling_backend, the Hugging
/// Face model in [hf_transformers] model) is that checkpoint's shape.
void torchtitanModel(const QString &file, const TorchtitanModelName &named, const std::vector<Leaf> &leaves,
                     FileImport &out)
{
    const QString &name = named.name, &flavor = named.flavor;
    const int line = named.line;
    if (const auto checkpoint = findLeaf(leaves, "hf_transformers.model");
        name == QLatin1String("transformers_modeling_backend") && checkpoint != leaves.end()) {
        out.keys.push_back({QString::fromLatin1(kCheckpoint), checkpoint->value.toString(), file, checkpoint->line,
                            checkpoint->name});
        return;
    }
    if (name == QLatin1String("flux") || name == QLatin1String("vlm")) {
        refuseLayers(file, line,
                     QStringLiteral("model.name \"%1\": %2")
                         .arg(name, name == QLatin1String("flux")
                                        ? QStringLiteral("FLUX's diffusion transformer blocks")
                                        : QStringLiteral("a vision-language model's vision encoder and projector")),
                     out);
        return;
    }
    if (const QString preset = torchtitanPreset(name, flavor); !preset.isEmpty())
        out.keys.push_back(
            {QStringLiteral("model.preset"), preset, file, line, QStringLiteral("model.name + model.flavor")});
    else if (!name.isEmpty())
        out.warnings.push_back(
            {file, line,
             QStringLiteral("model %1 %2: not a preset; give the model with its config.json").arg(name, flavor)});
}

/// Attention as torchtitan runs it: F.scaled_dot_product_attention, whose flash backend is FlashAttention-2
/// (models/attention.py), and the context ranks' exchange where the file has context ranks but no rotate method.
void torchtitanAttention(const QString &file, const std::vector<Leaf> &leaves, FileImport &out)
{
    const QString sdpa = QStringLiteral("(torchtitan: scaled_dot_product_attention)");
    out.keys.push_back({QStringLiteral("training.flash_attention"), true, file, 0, sdpa, true});
    out.keys.push_back({QStringLiteral("training.attention_kernel"), QStringLiteral("flash2"), file, 0, sdpa, true});
    // Its attention modules project Q, K and V with three nn.Linear (wq, wk, wv: models/llama/model.py at 9dec370,
    // models/llama3/model.py at 820504e) unless a saved configuration says fuse_qkv (read above).
    const bool layersSaved = std::any_of(out.keys.begin(), out.keys.end(), [](const ImportedKey &k) {
        return k.path == QLatin1String("training.separate_qkv");
    });
    if (!layersSaved)
        out.keys.push_back({QStringLiteral("training.separate_qkv"), true, file, 0,
                            QStringLiteral("(torchtitan before ad7a86533: wq, wk, wv)"), true});
    // Until ff0829c10 ("GQA without kv repeats", January 2026) Attention.forward repeats K and V to the query heads
    // before scaled_dot_product_attention (repeat_kv, models/llama/model.py at 9dec370); a saved configuration
    // with its layers (model_spec, from 9810191bb, February 2026) is after it.
    out.keys.push_back({QStringLiteral("training.repeat_kv_heads"), !layersSaved, file, 0,
                        layersSaved ? QStringLiteral("(torchtitan after ff0829c10: GQA without kv repeats)")
                                    : QStringLiteral("(torchtitan before ff0829c10: repeat_kv)"),
                        true});
    // Context ranks exchange K and V as torchtitan's default rotate method does unless the file names one:
    // "allgather" (config_manager.py at 9dec370, job_config.py until 9810191bb).
    if (const auto cp = findLeaf(leaves, "parallelism.context_parallel_degree");
        cp != leaves.end() && cp->value.toDouble() > 1 &&
        findLeaf(leaves, "parallelism.context_parallel_rotate_method") == leaves.end())
        out.keys.push_back({QStringLiteral("parallel.context_comm"), QStringLiteral("all-gather"), file, cp->line,
                            QStringLiteral("parallelism.context_parallel_rotate_method (torchtitan's default "
                                           "\"allgather\")"),
                            true});
}

/// A job file's or saved configuration's leaves to plan keys (the job file's names).
/// torchao's float8 linears scale each tensor from its own amax unless the file names another recipe (tensorwise,
/// torchao's default before torchtitan made rowwise its own): per-tensor FP8 in torchtitan is current scaling
/// (training.fp8_recipe tensorwise).
void torchtitanFp8Scaling(const QString &file, const std::vector<Leaf> &leaves, FileImport &out)
{
    for (const char *name : {"float8.recipe_name", "quantize.linear.float8.recipe_name"})
        if (const auto gwHp = findLeaf(leaves, name);
            gwHp != leaves.end() && gwHp->value.toString() == QLatin1String("rowwise_with_gw_hp"))
            out.warnings.push_back({file, gwHp->line,
                                    QStringLiteral("%1 rowwise_with_gw_hp: planned as rowwise; its weight-gradient "
                                                   "GEMMs, a third of the linears' FLOPs, run in BF16")
                                        .arg(QLatin1String(name))});
    const auto fp8 = std::find_if(out.keys.begin(), out.keys.end(), [](const ImportedKey &k) {
        return k.path == QLatin1String("training.precision") && k.value == QJsonValue(QStringLiteral("fp8"));
    });
    const bool named = std::any_of(out.keys.begin(), out.keys.end(),
                                   [](const ImportedKey &k) { return k.path == QLatin1String("training.fp8_recipe"); });
    if (fp8 == out.keys.end() || named)
        return;
    const ImportedKey recipe{QStringLiteral("training.fp8_recipe"), QStringLiteral("tensorwise"), file, fp8->line,
                             fp8->source};
    out.keys.push_back(recipe);
}

/// How the file's kernels run: the loss, float8's scaling and the step's CUDA graph.
void torchtitanKernels(const QString &file, const std::vector<Leaf> &leaves, FileImport &out)
{
    torchtitanLossKernel(file, leaves, out);
    torchtitanFp8Scaling(file, leaves, out);
    torchtitanCudaGraphs(file, leaves, out);
}

void mapTorchtitanLeaves(const QString &file, const std::vector<Leaf> &leaves, bool legacyNames, FileImport &out)
{
    QString name, flavor;
    int modelLine = 0;
    std::vector<Leaf> planned;
    static const QRegularExpression ignored(
        QStringLiteral("^(job|metrics|checkpoint|optimizer|lr_scheduler|comm|profiling|validation|"
                       "memory_estimation|experimental|fault_tolerance)\\..*|"
                       "^training\\.(steps|max_norm|warmup_steps|dataset.*|seed|deterministic|"
                       "gc_freq|enable_cpu_offload|disable_cuda_graphs)$|^model\\.(tokenizer_path|hf_assets_path)$|"
                       "^parallelism\\.(data_parallel_replicate_degree|data_parallel_shard_degree|"
                       "disable_loss_parallel|pipeline_parallel_microbatch_size|pipeline_parallel_split_points|"
                       "num_pp_microbatches|pipeline_parallel_microbatches|pipeline_parallel_layers_per_stage|"
                       "enable_sequence_parallel)$|"
                       "^activation_checkpoint\\.(mode|selective_ac_option)$|^compile\\..*|^float8\\..*$|"
                       "^quantize\\..*$"));
    const QStringList compileRead = torchtitanCompile(file, leaves, out);
    for (const Leaf &leaf : leaves) {
        if (compileRead.contains(leaf.name)) {
            out.notPlanned << leaf.name;
            continue;
        }
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
            if (leaf.name != QLatin1String("model.name") && leaf.name != QLatin1String("model.flavor") &&
                leaf.name != QLatin1String("hf_transformers.model"))
                planned.push_back(leaf);
    }
    // FSDP2's CPUOffloadPolicy: "Whether to apply CPU offloading of parameters, gradients, and optimizer states
    // in FSDP" (job_config.py at 238fa9953, Training.enable_cpu_offload): the shards and their update on the host.
    if (const auto offload = findLeaf(leaves, "training.enable_cpu_offload");
        offload != leaves.end() && truthy(offload->value))
        for (const char *path : {"parallel.offload_parameters", "parallel.offload_optimizer"})
            out.keys.push_back({QLatin1String(path), true, file, offload->line, offload->name});
    torchtitanAttention(file, leaves, out);
    // Before e5ef99aa (October 2025) torchtitan's pipeline step kept every micro-batch's output; a file with
    // the names of before March 2025 is of such a release.
    if (const auto pp = findLeaf(leaves, "parallelism.pipeline_parallel_degree");
        legacyNames && pp != leaves.end() && pp->value.toDouble() > 1)
        out.keys.push_back({QStringLiteral("training.keep_pipeline_outputs"), true, file, pp->line,
                            QStringLiteral("(torchtitan before e5ef99aa)"), true});
    // Without data_parallel_shard_degree, its default -1 shards over the ranks left (job_config.py at 238fa9953,
    // Parallelism.data_parallel_shard_degree): FSDP, ZeRO-3. Degree 1 is replicated data parallelism, which the
    // plan's framework "fsdp" (always sharded) does not hold: said.
    const auto shard = findLeaf(leaves, "parallelism.data_parallel_shard_degree");
    if (shard == leaves.end()) {
        const QString source = QStringLiteral("parallelism.data_parallel_shard_degree (torchtitan's default -1)");
        out.keys.push_back({QStringLiteral("training.framework"), QStringLiteral("fsdp"), file, 0, source, true});
        out.keys.push_back({QStringLiteral("parallel.zero_stage"), 3, file, 0, source, true});
    } else if (shard->value.toDouble() == 1) {
        out.warnings.push_back({file, shard->line,
                                QStringLiteral("data_parallel_shard_degree 1: replicated data parallelism (DDP); "
                                               "planned with ZeRO 0 under training.framework \"megatron\", whose "
                                               "kernels and buffers are Megatron-Core's, not PyTorch's")});
    }
    // FSDP reduce-scatters in training.mixed_precision_reduce, "float32" unless the file says otherwise.
    if (findLeaf(leaves, "training.mixed_precision_reduce") == leaves.end())
        out.keys.push_back({QStringLiteral("training.fp32_gradients"), true, file, 0,
                            QStringLiteral("training.mixed_precision_reduce (torchtitan's default \"float32\")"),
                            true});
    mapLeaves(
        file, planned, torchtitanRules(), [](const QString &n) { return n; }, out);
    torchtitanCheckpointing(file, leaves, out);
    torchtitanBatch(file, leaves, legacyNames, out);
    torchtitanStagesPerRank(file, leaves, out);
    torchtitanApproximateSchedule(file, leaves, out);
    torchtitanSequenceParallel(file, leaves, out);
    torchtitanHybridSharding(file, leaves, out);
    torchtitanModel(file, {name, flavor, modelLine}, leaves, out);
    torchtitanKernels(file, leaves, out);
}

} // namespace

/// torchtitan's job files before its [parallelism] section (785c34c, March 2025; config_manager.py at 9dec370,
/// December 2024, the commit of its H100 benchmarks): the layout under [training] and [experimental], float8
/// linears as a switch.
/// Read as today's names, so a 2024 file's pipeline, context and tensor degrees are never dropped; true when
/// the file used them (its pipeline micro-batches then follow that release's default).
bool renameLegacyNames(std::vector<Leaf> &leaves)
{
    bool renamedAny = false;
    static const std::map<QString, QString> renamed{
        {"training.tensor_parallel_degree", "parallelism.tensor_parallel_degree"},
        {"training.data_parallel_shard_degree", "parallelism.data_parallel_shard_degree"},
        {"training.data_parallel_replicate_degree", "parallelism.data_parallel_replicate_degree"},
        {"experimental.enable_async_tensor_parallel", "parallelism.enable_async_tensor_parallel"},
        {"experimental.pipeline_parallel_degree", "parallelism.pipeline_parallel_degree"},
        {"experimental.pipeline_parallel_schedule", "parallelism.pipeline_parallel_schedule"},
        {"experimental.pipeline_parallel_microbatches", "parallelism.pipeline_parallel_microbatches"},
        {"experimental.pipeline_parallel_split_points", "parallelism.pipeline_parallel_split_points"},
        {"experimental.context_parallel_degree", "parallelism.context_parallel_degree"},
        {"experimental.context_parallel_rotate_method", "parallelism.context_parallel_rotate_method"},
    };
    for (Leaf &leaf : leaves)
        if (const auto it = renamed.find(leaf.name); it != renamed.end())
            leaf.name = it->second, renamedAny = true;
    return renamedAny;
}

FileImport readTorchtitan(const QString &file, const QByteArray &bytes)
{
    FileImport out;
    out.format = ImportFormat::Torchtitan;
    std::vector<Leaf> leaves;
    if (bytes.trimmed().startsWith('{')) {
        if (!savedConfigLeaves(file, bytes, leaves, out))
            return out;
    } else if (!jobFileLeaves(file, bytes, leaves, out)) {
        return out;
    }
    const bool legacyNames = renameLegacyNames(leaves);
    mapTorchtitanLeaves(file, leaves, legacyNames, out);
    return out;
}

} // namespace trainplan::io::reading
