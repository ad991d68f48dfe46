// DeepSpeed configs (io/interop/ImportReaders.h).

#include "io/interop/DeepSpeedNames.h"
#include "io/interop/ImportReaders.h"

#include <QJsonDocument>

namespace trainplan::io::reading {

namespace {

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
    // The micro-batch and the precision have no default worth planning on: asked for (neededKeys). The global
    // batch is asked for anyway; the accumulation steps follow from it and the micro-batch.
    if (leaf.name == QLatin1String("train_micro_batch_size_per_gpu"))
        out.keys.push_back({QString::fromLatin1(kTrainerMicroBatch), true, file, leaf.line, leaf.name});
    else if (leaf.name.endsWith(QLatin1String(".enabled")))
        out.keys.push_back({QString::fromLatin1(kTrainerPrecision), true, file, leaf.line, leaf.name});
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

/// A config that gives train_batch_size or train_micro_batch_size_per_gpu and not gradient_accumulation_steps:
/// DeepSpeed takes one step (deepspeed/runtime/config.py, _set_batch_related_parameters: the train batch alone
/// sets micro = train_batch / world, the micro-batch alone train_batch = micro x world). Without either, the
/// runner (the Hugging Face Trainer) gives them, and nothing is derived.
void deepSpeedAccumulationDefault(const QString &file, const std::vector<Leaf> &leaves, FileImport &out)
{
    if (findLeaf(leaves, "gradient_accumulation_steps") != leaves.end())
        return;
    for (const char *name : {"train_batch_size", "train_micro_batch_size_per_gpu"})
        if (const auto given = findLeaf(leaves, name); given != leaves.end() && given->value.isDouble()) {
            out.keys.push_back({QString::fromLatin1(kAccumulation), 1, file, given->line,
                                QStringLiteral("(DeepSpeed's one accumulation step beside %1)").arg(given->name)});
            return;
        }
}

/// Without an fp16, bf16 or amp section enabled DeepSpeed trains in FP32 (each section's "enabled" defaults to
/// false: DeepSpeed's config documentation, deepspeed/runtime/config.py; BingBertGlue's glue_bert_base.json says
/// "fp16": {"enabled": false}). Weak: a launch script's --bf16 wins; "auto" leaves it to the Hugging Face
/// Trainer (said where it is read), so nothing is assumed.
void addDeepSpeedPrecisionDefault(const QString &file, const std::vector<Leaf> &leaves, FileImport &out)
{
    const bool saysPrecision = std::any_of(leaves.begin(), leaves.end(), [](const Leaf &l) {
        return (l.name == QLatin1String("bf16.enabled") || l.name == QLatin1String("fp16.enabled") ||
                l.name == QLatin1String("amp.enabled")) &&
               (truthy(l.value) || l.value.toString().compare(QLatin1String("auto"), Qt::CaseInsensitive) == 0);
    });
    if (!saysPrecision)
        out.keys.push_back({QStringLiteral("training.precision"), QStringLiteral("fp32"), file, 0,
                            QStringLiteral("(DeepSpeed's default: no fp16, bf16 or amp section enabled)"), true});
}

/// The config's names: io/interop/DeepSpeedNames' table, then the keys that translate.
const std::map<QString, Rule> &deepSpeedRules()
{
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
            // DeepSpeed's low-precision optimizer options (DeepSpeed PR 7700; DeepSpeedExamples
            // training/bf16_master_weight/README.md): the master copy and the Adam moments in BF16.
            {"bf16.bf16_master_weights_and_grads", {"training.master_weights", whenTrue(QStringLiteral("bf16"))}},
            {"bf16.bf16_optimizer_states", {"training.optimizer_moments", whenTrue(QStringLiteral("bf16"))}},
            // DeepSpeed's optimizers (deepspeed/runtime/config.py, DEEPSPEED_OPTIMIZERS at edaa72212) by their
            // state: two moments (Adam's, LAMB's, the 1-bit and 0/1 variants', MuP's Adam) or one (SGD's
            // momentum, Lion's, Adagrad's sum of squares). deepSpeedOptimizerNotes says what is approximated.
            {"optimizer.type",
             {"training.optimizer", oneOf({{"adam", "adam"},
                                           {"adamw", "adam"},
                                           {"fusedadam", "adam"},
                                           {"lamb", "adam"},
                                           {"onebitadam", "adam"},
                                           {"zerooneadam", "adam"},
                                           {"onebitlamb", "adam"},
                                           {"muadam", "adam"},
                                           {"muadamw", "adam"},
                                           {"muon", "adam"},
                                           {"sgd", "sgd"},
                                           {"musgd", "sgd"},
                                           {"lion", "sgd"},
                                           {"adagrad", "sgd"}})}},
        });
        return r;
    }();
    return rules;
}

/// What planning a DeepSpeed optimizer as Adam's or SGD's state leaves out, at its line: 1-bit Adam, 0/1 Adam
/// and 1-bit LAMB compress the gradient exchange to one bit after a full-precision warm-up (freeze_step) and
/// keep error-feedback buffers (deepspeed/runtime/fp16/onebit/adam.py: worker_error of the padded parameters,
/// server_error of this rank's chunk); LAMB scales each layer's update by a trust ratio; Lion and Adagrad keep
/// one state tensor, as SGD's momentum.
void deepSpeedOptimizerNotes(const QString &file, const std::vector<Leaf> &leaves, FileImport &out)
{
    const auto type = findLeaf(leaves, "optimizer.type");
    if (type == leaves.end())
        return;
    const QString name = type->value.toString().toLower();
    QString note;
    if (name == QLatin1String("onebitadam") || name == QLatin1String("zerooneadam") ||
        name == QLatin1String("onebitlamb"))
        note = QStringLiteral("planned as Adam's state with 16-bit gradient reduction: its one-bit compressed "
                              "exchange after the warm-up, and its error-feedback buffers (4 bytes per parameter "
                              "and per shard), are not modelled");
    else if (name == QLatin1String("lamb"))
        note = QStringLiteral("planned as Adam's state and step (LAMB's per-layer trust ratio adds two norms)");
    else if (name == QLatin1String("muon"))
        // DeepSpeed's MuonWithAuxAdam (deepspeed/runtime/zero/muon/muon_optimizer.py at edaa72212): Muon for the
        // parameters marked use_muon, Adam for the rest, inside ZeRO's partitions.
        note = QStringLiteral("planned as Adam: training.optimizer muon models Megatron-Core's Muon, not DeepSpeed's "
                              "MuonWithAuxAdam; the plan counts a second moment Muon's matrices do not keep "
                              "(4 bytes per parameter and shard) and leaves out the Newton-Schulz iterations");
    else if (name == QLatin1String("lion") || name == QLatin1String("adagrad"))
        note = QStringLiteral("one state tensor per parameter, planned as SGD with momentum");
    if (!note.isEmpty())
        out.warnings.push_back(
            {file, type->line, QStringLiteral("optimizer.type %1: %2").arg(type->value.toString(), note)});
}

} // namespace

FileImport readDeepSpeed(const QString &file, const QByteArray &bytes)
{
    FileImport out;
    out.format = ImportFormat::DeepSpeed;
    if (refuseDuplicateKey(file, relaxedJson(bytes), out))
        return out;
    std::vector<Leaf> leaves;
    jsonLeaves(QJsonDocument::fromJson(relaxedJson(bytes)).object(), QString(), bytes, leaves);
    const std::map<QString, Rule> &rules = deepSpeedRules();
    static const QRegularExpression ignored(QStringLiteral(
        "^(gradient_clipping|steps_per_print|wall_clock_breakdown|optimizer\\.params\\..*|scheduler\\..*|"
        "zero_optimization\\.(contiguous_gradients|allgather_partitions|allgather_bucket_size|reduce_scatter|round_"
        "robin_gradients|"
        "stage3_.*|mics_.*|sub_group_size|"
        "offload_optimizer\\.(pin_memory|buffer_count|pipeline_read|pipeline_write|fast_init)|"
        "offload_param\\.(pin_memory|nvme_path|buffer_.*|max_in_cpu))|fp16\\.(loss_scale.*|initial_"
        "scale_power|"
        "hysteresis|min_loss_scale|auto_cast)|bf16\\..*|zero_allow_untested_optimizer|prescale_gradients|"
        "communication_data_type|comms_logger\\..*|aio\\..*|"
        "flops_profiler\\..*|tensorboard\\..*|wandb\\..*|csv_monitor\\..*|autotuning\\..*)"
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
    mapLeaves(
        file, planned, rules, [](const QString &n) { return n; }, out);
    deepSpeedAccumulationDefault(file, leaves, out);
    // MiCS (deepspeed/runtime/zero/config.py: mics_shard_size, -1 unless set): ZeRO-3 inside groups of that many
    // ranks, replicated across them, the plan's shard group.
    if (const auto mics = findLeaf(leaves, "zero_optimization.mics_shard_size");
        mics != leaves.end() && mics->value.toDouble() > 0)
        out.keys.push_back(
            {QStringLiteral("parallel.shard_group"), mics->value.toDouble(), file, mics->line, mics->name});
    // NVMe offload (ZeRO-Infinity) is planned as host memory: its drive behind the host link is not modelled.
    for (const char *name : {"zero_optimization.offload_param.device", "zero_optimization.offload_optimizer.device"})
        if (const auto nvme = findLeaf(leaves, name);
            nvme != leaves.end() && nvme->value.toString().compare(QLatin1String("nvme"), Qt::CaseInsensitive) == 0)
            out.warnings.push_back({file, nvme->line,
                                    QStringLiteral("%1 nvme: planned as host memory; the drive's own bandwidth "
                                                   "behind the host link is not modelled")
                                        .arg(QLatin1String(name))});
    deepSpeedOptimizerNotes(file, leaves, out);
    // DeepSpeed's autotuner (deepspeed/autotuning, "autotuning": {"enabled": true}) runs experiments over ZeRO stages
    // and micro-batch sizes and launches the fastest: what the file states is only its starting point.
    if (const auto tuning = findLeaf(leaves, "autotuning.enabled"); tuning != leaves.end() && tuning->value.toBool())
        out.warnings.push_back({file, tuning->line,
                                QStringLiteral("autotuning.enabled: DeepSpeed's autotuner picks the ZeRO stage and "
                                               "micro-batch it runs with; the plan takes the file's, which it may "
                                               "not keep (search the plan for the layouts the autotuner tries)")});
    addDeepSpeedPrecisionDefault(file, leaves, out);
    out.keys.push_back({QStringLiteral("training.framework"), QStringLiteral("deepspeed"), file, 0,
                        QStringLiteral("(a DeepSpeed config)")});
    return out;
}

} // namespace trainplan::io::reading
