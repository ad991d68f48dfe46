// llm-foundry's training YAML (scripts/train/train.py's configuration, scripts/train/yamls/pretrain/*.yaml): an
// MPT model's shape and Composer's FSDP run. Every default is MPTConfig's (llmfoundry/models/mpt/
// configuration_mpt.py and llmfoundry/models/utils/config_defaults.py at llm-foundry 8c8dd48f7) or Composer's
// (composer/utils/parallelism.py and composer/distributed/mosaic_parallelism.py at v0.32.1, the release that
// llm-foundry pins: setup.py 'mosaicml[...]>=0.32.0,<0.33'), and each one the plan takes is listed as such.
#include <QJsonArray>

#include <cmath>
#include <optional>
#include <set>

#include "io/interop/ImportReaders.h"
#include "io/interop/LlmFoundryNames.h"

namespace trainplan::io::reading {

namespace {

/// The leaves one reads, remembering which it used; the rest are reported once at the end. Each plan key is
/// found under its names in io/interop/LlmFoundryNames, the table the exporter writes from.
struct FoundryReader
{
    const QString &file;
    const std::vector<Leaf> &leaves;
    FileImport &out;
    std::set<QString> used;

    const Leaf *leaf(const char *name)
    {
        const auto it = findLeaf(leaves, name);
        if (it == leaves.end())
            return nullptr;
        used.insert(it->name);
        return &*it;
    }
    /// The first of the plan key's names that the file gives (Composer's fsdp_config or parallelism_config.fsdp).
    const Leaf *leafFor(const char *path)
    {
        for (const llmfoundry::Name &n : llmfoundry::names())
            if (std::string_view(n.path) == path)
                if (const Leaf *l = leaf(n.name))
                    return l;
        return nullptr;
    }
    QString text(const Leaf *l, const char *fallback) const
    {
        return l && !l->value.isNull() ? leafText(l->value) : QLatin1String(fallback);
    }
    double number(const Leaf *l, double fallback) const
    {
        const QJsonValue v = l ? asNumber(l->value) : QJsonValue();
        return v.isDouble() ? v.toDouble() : fallback;
    }
    /// The plan's value of the file's spelling of a choice key (the table's choices, read as addTableRules reads
    /// them); nothing when the table does not list it.
    static std::optional<QJsonValue> choice(const char *path, const QString &fileValue)
    {
        const llmfoundry::Name *row = llmfoundry::nameOf(path);
        const QJsonValue plan = row ? oneOf(row->choices)(QJsonValue(fileValue)) : QJsonValue(QJsonValue::Undefined);
        return plan.isUndefined() ? std::nullopt : std::optional<QJsonValue>(plan);
    }
    /// A key read from `from`, or the default the framework gives when the file is silent (`from` null).
    void key(const char *path, const QJsonValue &value, const Leaf *from, const char *defaultSource)
    {
        out.keys.push_back({QLatin1String(path), value, file, from ? from->line : 0,
                            from ? from->name : QStringLiteral("(%1)").arg(QLatin1String(defaultSource))});
    }
    /// An integer key under its table names, MPTConfig's default `fallback` when the file is silent.
    void integer(const char *path, double fallback, const char *defaultSource)
    {
        const Leaf *l = leafFor(path);
        key(path, qint64(number(l, fallback)), l, defaultSource);
    }
    void warn(const Leaf *at, const QString &text) { out.warnings.push_back({file, at ? at->line : 0, text}); }
};

constexpr const char *kMptDefault = "MPTConfig's default";
constexpr const char *kComposerDefault = "Composer's default";

/// ffn_config.ffn_type: MPTMLP is up, GELU, down; MPTGLU gates it (three matrices, the shape and FLOPs of
/// SwiGLU; its gate is GELU unless ffn_act_fn says otherwise); te_ln_mlp is Transformer Engine's LayerNormMLP
/// (GELU). The expert layers (MegaBlocks' mb_moe and mb_dmoe, llm-foundry's torch_dmoe) are refused.
bool readMlp(FoundryReader &r)
{
    const Leaf *type = r.leafFor("model.mlp");
    const QString ffn = r.text(type, "mptmlp");
    for (const char *experts : {"mb_moe", "mb_dmoe", "torch_dmoe"})
        if (ffn == QLatin1String(experts)) {
            refuseLayers(r.file, type->line,
                         QStringLiteral("model.ffn_config.ffn_type %1: %2 expert layers")
                             .arg(ffn, ffn == QLatin1String("torch_dmoe") ? QStringLiteral("llm-foundry's")
                                                                          : QStringLiteral("MegaBlocks'")),
                         r.out);
            return false;
        }
    const std::optional<QJsonValue> mlp = FoundryReader::choice("model.mlp", ffn);
    // The gate's activation (ffn_act_fn, GELU by default): SiLU is SwiGLU itself, another the same matrices.
    const Leaf *act = r.leaf("model.ffn_config.ffn_act_fn.name");
    if (!mlp)
        r.warn(type, QStringLiteral("model.ffn_config.ffn_type %1: not understood, planned as MPT's MLP").arg(ffn));
    else if (ffn == QLatin1String("mptglu") && r.text(act, "gelu") != QLatin1String("silu"))
        r.warn(type, QStringLiteral("model.ffn_config.ffn_type mptglu: a gated MLP, planned as SwiGLU (the same three "
                                    "matrices; its gate's activation is %1)")
                         .arg(r.text(act, "GELU")));
    r.key("model.mlp", mlp.value_or(QStringLiteral("gelu")), type, kMptDefault);
    return true;
}

/// The attention: heads and their key/value groups (attn_type), the kernel (attn_impl: "flash" is flash-attn 2,
/// "triton" llm-foundry's Triton FlashAttention, "torch" the unfused one), the positions (ALiBi, RoPE, or the
/// learned table MPT defaults to).
void readAttention(FoundryReader &r, std::int64_t heads)
{
    const Leaf *type = r.leaf("model.attn_config.attn_type");
    const QString kind = r.text(type, "multihead_attention");
    std::int64_t kvHeads = heads;
    const Leaf *from = type; // the count's own line when grouped-query attention gives it
    if (kind == QLatin1String("multiquery_attention")) {
        kvHeads = 1;
    } else if (kind == QLatin1String("grouped_query_attention")) {
        if (const Leaf *groups = r.leafFor("model.kv_heads"))
            from = groups;
        kvHeads = std::int64_t(r.number(r.leafFor("model.kv_heads"), double(heads)));
    }
    r.key("model.kv_heads", qint64(kvHeads), from, kMptDefault);
    const Leaf *impl = r.leafFor("training.flash_attention");
    const QString kernel = r.text(impl, "flash");
    const std::optional<QJsonValue> flash = FoundryReader::choice("training.flash_attention", kernel);
    if (!flash)
        r.warn(impl, QStringLiteral("model.attn_config.attn_impl %1: not understood (MPTConfig takes flash or torch), "
                                    "planned as flash")
                         .arg(kernel));
    r.key("training.flash_attention", flash.value_or(true), impl, kMptDefault);
    const QString attention = flash ? kernel : QStringLiteral("flash");
    if (const std::optional<QJsonValue> k = FoundryReader::choice("training.attention_kernel", attention))
        r.key("training.attention_kernel", *k, impl, kMptDefault);
    const Leaf *alibi = r.leaf("model.attn_config.alibi");
    const Leaf *rope = r.leaf("model.attn_config.rope");
    const Leaf *learned = r.leaf("model.learned_pos_emb");
    if (alibi && alibi->value.toBool())
        r.key("model.position_embedding", QStringLiteral("alibi"), alibi, kMptDefault);
    else if (rope && rope->value.toBool())
        r.key("model.position_embedding", QStringLiteral("rotary"), rope, kMptDefault);
    else if (!learned || learned->value.toBool())
        r.key("model.position_embedding", QStringLiteral("learned"), learned, kMptDefault);
    else
        r.warn(learned, QStringLiteral("model.learned_pos_emb false without ALiBi or RoPE: no position embedding, "
                                       "planned as rotary (no parameters either)"));
}

/// A choice key of the model: its spelling's plan value, MPTConfig's default `fallback` (a file spelling) when
/// the file is silent; a spelling the table does not list is planned as the default, with a warning.
void modelChoice(FoundryReader &r, const char *path, const char *fallback)
{
    const Leaf *l = r.leafFor(path);
    const QString spelled = r.text(l, fallback);
    std::optional<QJsonValue> v = FoundryReader::choice(path, spelled);
    if (!v) {
        r.warn(l, QStringLiteral("%1 %2: not understood, planned as %3")
                      .arg(QLatin1String(llmfoundry::nameOf(path)->name), spelled, QLatin1String(fallback)));
        v = FoundryReader::choice(path, QLatin1String(fallback));
    }
    r.key(path, *v, l, kMptDefault);
}

/// mpt_causal_lm's shape, each size MPTConfig's default where the file is silent.
bool readMpt(FoundryReader &r)
{
    const Leaf *hidden = r.leafFor("model.hidden");
    const Leaf *heads = r.leafFor("model.heads");
    const auto d = std::int64_t(r.number(hidden, 2048));
    const auto h = std::int64_t(r.number(heads, 16));
    r.integer("model.layers", 24, kMptDefault);
    r.key("model.hidden", qint64(d), hidden, kMptDefault);
    r.key("model.heads", qint64(h), heads, kMptDefault);
    if (const Leaf *headDim = r.leafFor("model.head_dim"); headDim && !headDim->value.isNull())
        r.key("model.head_dim", asInteger(headDim->value), headDim, kMptDefault);
    if (!readMlp(r))
        return false;
    // The MLP's width: ffn_config.ffn_hidden_size, else d_model x expansion_ratio (resolve_ffn_hidden_size).
    const Leaf *width = r.leafFor("model.ffn_hidden");
    const Leaf *ratio = r.leaf("model.expansion_ratio");
    r.key("model.ffn_hidden", qint64(width ? r.number(width, 0) : std::floor(double(d) * r.number(ratio, 4))),
          width ? width : ratio, kMptDefault);
    r.integer("model.vocab", 50368, kMptDefault);
    readAttention(r, h);
    modelChoice(r, "model.linear_bias", "false");
    modelChoice(r, "model.norm", "low_precision_layernorm");
    const Leaf *tied = r.leafFor("model.tied_embeddings");
    r.key("model.tied_embeddings", !tied || tied->value.toBool(), tied, kMptDefault);
    double dropout = 0;
    const Leaf *dropped = nullptr;
    for (const char *name : {"model.resid_pdrop", "model.emb_pdrop", "model.attn_config.attn_pdrop"})
        if (const Leaf *l = r.leaf(name); l && r.number(l, 0) > dropout) {
            dropout = r.number(l, 0);
            dropped = l;
        }
    r.key("model.dropout", dropout > 0, dropped, kMptDefault);
    modelChoice(r, "training.loss_kernel", "fused_crossentropy");
    return true;
}

/// The model: MPT read here; a Hugging Face checkpoint (hf_causal_lm) is its config.json's to give.
bool readModel(FoundryReader &r)
{
    // LoRA and the other PEFT methods (model.peft_config, llm-foundry's hf_causal_lm): adapters train beside a
    // frozen model, and a plan trains every parameter.
    if (const auto peft =
            std::find_if(r.leaves.begin(), r.leaves.end(),
                         [](const Leaf &l) { return l.name.startsWith(QLatin1String("model.peft_config.")); });
        peft != r.leaves.end()) {
        refuseAdapters(r.file, *peft, r.out);
        return false;
    }
    const Leaf *name = r.leaf("model.name");
    const QString kind = r.text(name, "");
    if (kind == QLatin1String("mpt_causal_lm"))
        return readMpt(r);
    // llm-foundry's hf_t5 (an encoder-decoder, llmfoundry/models/hf/hf_t5.py): not a plan's decoder-only layers.
    if (kind == QLatin1String("hf_t5")) {
        r.out.errors.push_back({r.file, name->line,
                                QStringLiteral("model.name hf_t5: encoder-decoder models (T5) are not planned; "
                                               "model.layers counts the layers of a decoder-only transformer")});
        return false;
    }
    if (kind == QLatin1String("hf_causal_lm")) {
        // The checkpoint's shape: the catalog's preset of that checkpoint, else its config.json imported beside
        // this file (Import's resolveCheckpoint says which).
        if (const Leaf *checkpoint = r.leaf("model.pretrained_model_name_or_path"); checkpoint)
            r.key(kCheckpoint, r.text(checkpoint, ""), checkpoint, "");
        // transformers' FlashAttention-2 integration (use_flash_attention_2), else its SDPA.
        if (const Leaf *fa2 = r.leaf("model.use_flash_attention_2"); fa2 && fa2->value.toBool()) {
            r.key("training.flash_attention", true, fa2, "");
            r.key("training.attention_kernel", QStringLiteral("flash2"), fa2, "");
        }
        r.leaf("model.pretrained"); // initialised from the checkpoint or not: the same step
        return true;
    }
    if (name)
        r.out.errors.push_back({r.file, name->line,
                                QStringLiteral("model.name %1: not a model llm-foundry's reader plans (mpt_causal_lm, "
                                               "or hf_causal_lm with the checkpoint's config.json)")
                                    .arg(kind)});
    return name == nullptr;
}

/// Composer's run: the batch, the precision (amp_fp8 is Transformer Engine's fp8_autocast with its default
/// DelayedScaling, composer/core/precision.py), the optimizer (DecoupledAdamW loops over the parameters,
/// composer/optim/decoupled_weight_decay.py) and element-wise ops in eager PyTorch.
void readRun(FoundryReader &r)
{
    const Leaf *seq = nullptr; // the first that says it; the others name the same variable
    for (const llmfoundry::Name &n : llmfoundry::names())
        if (const Leaf *l = std::string_view(n.path) == "model.seq_len" ? r.leaf(n.name) : nullptr; l && !seq)
            seq = l;
    if (seq)
        r.key("model.seq_len", asInteger(seq->value), seq, "");
    if (const Leaf *batch = r.leafFor("training.global_batch"))
        r.key("training.global_batch", asInteger(batch->value), batch, "");
    if (const Leaf *micro = r.leafFor("training.micro_batch")) {
        if (asInteger(micro->value).isDouble())
            r.key("training.micro_batch", asInteger(micro->value), micro, "");
        else
            r.warn(micro, QStringLiteral("device_train_microbatch_size %1: Composer searches the largest micro-batch "
                                         "that fits at run time; the plan's training.micro_batch stays as given")
                              .arg(leafText(micro->value)));
    }
    const Leaf *precision = r.leafFor("training.precision");
    // Composer's Trainer computes in amp_fp16 on a GPU when no precision is given (trainer.py line 1129).
    const QString p = r.text(precision, "amp_fp16");
    const std::optional<QJsonValue> planned = FoundryReader::choice("training.precision", p);
    if (!planned)
        r.warn(precision, QStringLiteral("precision %1: not understood, planned as FP32").arg(p));
    r.key("training.precision", planned.value_or(QStringLiteral("fp32")), precision, kComposerDefault);
    if (planned == QJsonValue(QStringLiteral("fp8")))
        r.key("training.fp8_recipe", QStringLiteral("delayed"), precision, kComposerDefault);
    const Leaf *optimizer = r.leafFor("training.optimizer");
    const QString opt = r.text(optimizer, "");
    if (FoundryReader::choice("training.optimizer", opt) || opt.contains(QLatin1String("adam"))) {
        r.key("training.optimizer", QStringLiteral("adam"), optimizer, "");
        if (opt == QLatin1String("decoupled_adamw"))
            r.key("training.optimizer_kernel", QStringLiteral("loop"), optimizer, "");
    } else if (optimizer) {
        r.warn(optimizer, QStringLiteral("optimizer.name %1: planned as Adam's state (two moments)").arg(opt));
    }
    r.key("training.fused_kernels", false, nullptr, "llm-foundry's eager element-wise ops");
}

/// Composer's FSDP (FSDP1 FullyShardedDataParallel): FULL_SHARD is ZeRO-3, SHARD_GRAD_OP keeps each unit's
/// parameters gathered from its forward to its backward, NO_SHARD (and no FSDP) is DDP; mixed_precision DEFAULT
/// (Composer's default) reduce-scatters in FP32, PURE in the 16-bit format, FULL keeps FP32 parameters.
void readFsdp(FoundryReader &r)
{
    const bool configured = std::any_of(r.leaves.begin(), r.leaves.end(), [](const Leaf &l) {
        return l.name.startsWith(QLatin1String("fsdp_config.")) ||
               l.name.startsWith(QLatin1String("parallelism_config.fsdp."));
    });
    const Leaf *strategy = r.leafFor("parallel.zero_stage");
    const QString how = r.text(strategy, "FULL_SHARD").toUpper();
    const std::optional<QJsonValue> stage = FoundryReader::choice("parallel.zero_stage", how);
    if (!stage)
        r.warn(strategy, QStringLiteral("sharding_strategy %1: not one of Composer's (FULL_SHARD, SHARD_GRAD_OP, "
                                        "HYBRID_SHARD, _HYBRID_SHARD_ZERO2, NO_SHARD), planned as FULL_SHARD")
                             .arg(how));
    if (!configured || stage == QJsonValue(0)) {
        // Composer without FSDP (or NO_SHARD) replicates the state and all-reduces the gradients behind the
        // backward, as DDP does: the plan's ZeRO stage 0 (under framework "fsdp" every state is sharded).
        r.key("parallel.zero_stage", 0, strategy, "Composer's DDP without fsdp_config");
        if (!configured)
            return;
    } else {
        r.key("training.framework", QStringLiteral("fsdp"), nullptr, "Composer's FSDP");
        r.key("parallel.zero_stage", 3, strategy, kComposerDefault);
        if (const auto reshard = FoundryReader::choice("parallel.reshard_after_forward", stage ? how : "FULL_SHARD"))
            r.key("parallel.reshard_after_forward", *reshard, strategy, kComposerDefault);
    }
    if (how.contains(QLatin1String("HYBRID")))
        r.warn(strategy, QStringLiteral("%1: FSDP shards inside each node and replicates across nodes; set "
                                        "parallel.shard_group to the data ranks of a node")
                             .arg(how));
    const Leaf *mixed = r.leafFor("training.fp32_gradients");
    const QString mp = r.text(mixed, "DEFAULT");
    const std::optional<QJsonValue> fp32 = FoundryReader::choice("training.fp32_gradients", mp);
    if (!fp32)
        r.warn(mixed, QStringLiteral("mixed_precision %1: not understood (DEFAULT, PURE or FULL), planned as DEFAULT")
                          .arg(mp));
    r.key("training.fp32_gradients", fp32.value_or(true), mixed, kComposerDefault);
    if (mp.toUpper() == QLatin1String("FULL"))
        r.warn(mixed, QStringLiteral("mixed_precision FULL: FSDP gathers FP32 parameters and computes in the autocast "
                                     "format; planned with 16-bit gathers"));
    const Leaf *checkpointing = r.leafFor("training.recompute");
    r.key("training.recompute",
          FoundryReader::choice("training.recompute", r.text(checkpointing, "false")).value_or(QStringLiteral("none")),
          checkpointing, kComposerDefault);
    const Leaf *offload = r.leaf("fsdp_config.activation_cpu_offload");
    if (const Leaf *newer = r.leaf("parallelism_config.fsdp.activation_cpu_offload"); !offload)
        offload = newer;
    if (offload && offload->value.toBool())
        r.warn(offload, QStringLiteral("activation_cpu_offload: every checkpointed input goes to the host; set "
                                       "training.activation_offload_layers to the model's layers to plan it"));
}

} // namespace

bool isLlmFoundryYaml(const QByteArray &bytes)
{
    return bytes.contains("global_train_batch_size") || bytes.contains("device_train_microbatch_size") ||
           bytes.contains("mpt_causal_lm") || bytes.contains("hf_causal_lm");
}

FileImport readLlmFoundry(const QString &file, const QByteArray &bytes)
{
    FileImport out;
    out.format = ImportFormat::LlmFoundry;
    std::vector<Leaf> leaves;
    if (!yamlLeavesOf(file, bytes, leaves, out))
        return out;
    FoundryReader r{file, leaves, out, {}};
    if (!readModel(r))
        return out;
    readRun(r);
    readFsdp(r);
    // What else the file says: the model's and FSDP's other settings are warnings at their lines (a plan key
    // may be missing for them); data, schedules, logging and evaluation are hyperparameters and I/O.
    for (const Leaf &l : leaves) {
        if (r.used.count(l.name))
            continue;
        if (l.name.startsWith(QLatin1String("model.")) || l.name.startsWith(QLatin1String("fsdp_config.")) ||
            l.name.startsWith(QLatin1String("parallelism_config.")))
            out.warnings.push_back({file, l.line,
                                    QStringLiteral("%1 = %2: not understood, no plan key holds it")
                                        .arg(l.name, shortText(leafText(l.value)))});
        else
            out.notPlanned << l.name;
    }
    return out;
}

} // namespace trainplan::io::reading
