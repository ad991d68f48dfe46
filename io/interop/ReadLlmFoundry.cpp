// llm-foundry's training YAML (scripts/train/train.py's configuration, scripts/train/yamls/pretrain/*.yaml): an
// MPT model's shape and Composer's FSDP run. Every default is MPTConfig's (llmfoundry/models/mpt/
// configuration_mpt.py and llmfoundry/models/utils/config_defaults.py at llm-foundry 8c8dd48f7) or Composer's
// (composer/utils/parallelism.py and composer/distributed/mosaic_parallelism.py at v0.32.1, the release that
// llm-foundry pins: setup.py 'mosaicml[...]>=0.32.0,<0.33'), and each one the plan takes is listed as such.
#include <QJsonArray>

#include <cmath>
#include <set>

#include "io/interop/ImportReaders.h"

namespace trainplan::io::reading {

namespace {

/// The leaves one reads, remembering which it used; the rest are reported once at the end.
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
    /// The first of the names present (Composer's parallelism_config.fsdp or the older fsdp_config).
    const Leaf *leafOf(std::initializer_list<const char *> names)
    {
        for (const char *n : names)
            if (const Leaf *l = leaf(n))
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
    /// A key read from `from`, or the default the framework gives when the file is silent (`from` null).
    void key(const char *path, const QJsonValue &value, const Leaf *from, const char *defaultSource)
    {
        out.keys.push_back({QLatin1String(path), value, file, from ? from->line : 0,
                            from ? from->name : QStringLiteral("(%1)").arg(QLatin1String(defaultSource))});
    }
    void warn(const Leaf *at, const QString &text) { out.warnings.push_back({file, at ? at->line : 0, text}); }
};

constexpr const char *kMptDefault = "MPTConfig's default";
constexpr const char *kComposerDefault = "Composer's default";

/// ffn_config.ffn_type: MPTMLP is up, GELU, down; MPTGLU gates it (three matrices, the shape and FLOPs of
/// SwiGLU; its gate is GELU unless ffn_act_fn says otherwise); te_ln_mlp is Transformer Engine's LayerNormMLP
/// (GELU). MegaBlocks' MoE layers (mb_moe, mb_dmoe) are refused.
bool readMlp(FoundryReader &r)
{
    const Leaf *type = r.leaf("model.ffn_config.ffn_type");
    const QString ffn = r.text(type, "mptmlp");
    if (ffn == QLatin1String("mb_moe") || ffn == QLatin1String("mb_dmoe")) {
        refuseLayers(r.file, type->line,
                     QStringLiteral("model.ffn_config.ffn_type %1: MegaBlocks' expert layers").arg(ffn), r.out);
        return false;
    }
    // The gate's activation (ffn_act_fn, GELU by default): SiLU is SwiGLU itself, another the same matrices.
    const Leaf *act = r.leaf("model.ffn_config.ffn_act_fn.name");
    if (ffn == QLatin1String("mptglu") && r.text(act, "gelu") != QLatin1String("silu"))
        r.warn(type, QStringLiteral("model.ffn_config.ffn_type mptglu: a gated MLP, planned as SwiGLU (the same three "
                                    "matrices; its gate's activation is %1)")
                         .arg(r.text(act, "GELU")));
    else if (ffn != QLatin1String("mptmlp") && ffn != QLatin1String("te_ln_mlp"))
        r.warn(type, QStringLiteral("model.ffn_config.ffn_type %1: not understood, planned as MPT's MLP").arg(ffn));
    r.key("model.mlp", ffn == QLatin1String("mptglu") ? QStringLiteral("swiglu") : QStringLiteral("gelu"), type,
          kMptDefault);
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
    if (kind == QLatin1String("multiquery_attention"))
        kvHeads = 1;
    else if (kind == QLatin1String("grouped_query_attention"))
        kvHeads = std::int64_t(r.number(r.leaf("model.attn_config.kv_n_heads"), double(heads)));
    r.key("model.kv_heads", qint64(kvHeads), type, kMptDefault);
    const Leaf *impl = r.leaf("model.attn_config.attn_impl");
    const QString kernel = r.text(impl, "flash");
    r.key("training.flash_attention", kernel != QLatin1String("torch"), impl, kMptDefault);
    if (kernel == QLatin1String("flash") || kernel == QLatin1String("triton"))
        r.key("training.attention_kernel", kernel == QLatin1String("flash") ? QStringLiteral("flash2") : kernel, impl,
              kMptDefault);
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

/// mpt_causal_lm's shape, each size MPTConfig's default where the file is silent.
bool readMpt(FoundryReader &r)
{
    const Leaf *layers = r.leaf("model.n_layers");
    const Leaf *hidden = r.leaf("model.d_model");
    const Leaf *heads = r.leaf("model.n_heads");
    const auto d = std::int64_t(r.number(hidden, 2048));
    const auto h = std::int64_t(r.number(heads, 16));
    r.key("model.layers", qint64(r.number(layers, 24)), layers, kMptDefault);
    r.key("model.hidden", qint64(d), hidden, kMptDefault);
    r.key("model.heads", qint64(h), heads, kMptDefault);
    if (const Leaf *headDim = r.leaf("model.head_dim"); headDim && !headDim->value.isNull())
        r.key("model.head_dim", asInteger(headDim->value), headDim, kMptDefault);
    if (!readMlp(r))
        return false;
    // The MLP's width: ffn_config.ffn_hidden_size, else d_model x expansion_ratio (resolve_ffn_hidden_size).
    const Leaf *width = r.leaf("model.ffn_config.ffn_hidden_size");
    const Leaf *ratio = r.leaf("model.expansion_ratio");
    r.key("model.ffn_hidden", qint64(width ? r.number(width, 0) : std::floor(double(d) * r.number(ratio, 4))),
          width ? width : ratio, kMptDefault);
    const Leaf *vocab = r.leaf("model.vocab_size");
    r.key("model.vocab", qint64(r.number(vocab, 50368)), vocab, kMptDefault);
    readAttention(r, h);
    const Leaf *noBias = r.leaf("model.no_bias");
    r.key("model.linear_bias", !(noBias && noBias->value.toBool()), noBias, kMptDefault);
    const Leaf *norm = r.leaf("model.norm_type");
    r.key("model.norm",
          r.text(norm, "low_precision_layernorm").contains(QLatin1String("rmsnorm")) ? "rmsnorm" : "layernorm", norm,
          kMptDefault);
    const Leaf *tied = r.leaf("model.tie_word_embeddings");
    r.key("model.tied_embeddings", !tied || tied->value.toBool(), tied, kMptDefault);
    double dropout = 0;
    const Leaf *dropped = nullptr;
    for (const char *name : {"model.resid_pdrop", "model.emb_pdrop", "model.attn_config.attn_pdrop"})
        if (const Leaf *l = r.leaf(name); l && r.number(l, 0) > dropout) {
            dropout = r.number(l, 0);
            dropped = l;
        }
    r.key("model.dropout", dropout > 0, dropped, kMptDefault);
    // ComposerMPTCausalLM's loss_fn: flash-attn's fused cross-entropy unless torch_crossentropy.
    const Leaf *loss = r.leaf("model.loss_fn");
    r.key("training.loss_kernel",
          r.text(loss, "fused_crossentropy") == QLatin1String("torch_crossentropy") ? "eager" : "fused", loss,
          kMptDefault);
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
    if (kind == QLatin1String("hf_causal_lm") || kind == QLatin1String("hf_t5")) {
        const Leaf *checkpoint = r.leaf("model.pretrained_model_name_or_path");
        r.warn(name,
               QStringLiteral("model.name %1: the model is the Hugging Face checkpoint %2; import its config.json "
                              "beside this file for its shape")
                   .arg(kind, r.text(checkpoint, "the file names")));
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
    for (const char *name : {"max_seq_len", "model.max_seq_len", "variables.max_seq_len"})
        if (const Leaf *l = r.leaf(name); l && !seq)
            seq = l;
    if (seq)
        r.key("model.seq_len", asInteger(seq->value), seq, "");
    if (const Leaf *batch = r.leaf("global_train_batch_size"))
        r.key("training.global_batch", asInteger(batch->value), batch, "");
    if (const Leaf *micro = r.leaf("device_train_microbatch_size")) {
        if (asInteger(micro->value).isDouble())
            r.key("training.micro_batch", asInteger(micro->value), micro, "");
        else
            r.warn(micro, QStringLiteral("device_train_microbatch_size %1: Composer searches the largest micro-batch "
                                         "that fits at run time; the plan's training.micro_batch stays as given")
                              .arg(leafText(micro->value)));
    }
    const Leaf *precision = r.leaf("precision");
    // Composer's Trainer computes in amp_fp16 on a GPU when no precision is given (trainer.py line 1129).
    const QString p = r.text(precision, "amp_fp16");
    const char *planned = p == QLatin1String("amp_bf16")   ? "bf16"
                          : p == QLatin1String("amp_fp16") ? "fp16"
                          : p == QLatin1String("amp_fp8")  ? "fp8"
                                                           : "fp32";
    if (p != QLatin1String(planned) && QLatin1String(planned) == QLatin1String("fp32") && precision)
        r.warn(precision, QStringLiteral("precision %1: not understood, planned as FP32").arg(p));
    r.key("training.precision", QLatin1String(planned), precision, kComposerDefault);
    if (QLatin1String(planned) == QLatin1String("fp8"))
        r.key("training.fp8_recipe", QStringLiteral("delayed"), precision, kComposerDefault);
    const Leaf *optimizer = r.leaf("optimizer.name");
    const QString opt = r.text(optimizer, "");
    if (opt.contains(QLatin1String("adam"))) {
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
    const Leaf *strategy = r.leafOf({"parallelism_config.fsdp.sharding_strategy", "fsdp_config.sharding_strategy"});
    const QString how = r.text(strategy, "FULL_SHARD");
    if (!configured || how == QLatin1String("NO_SHARD")) {
        // Composer without FSDP (or NO_SHARD) replicates the state and all-reduces the gradients behind the
        // backward, as DDP does: the plan's ZeRO stage 0 (under framework "fsdp" every state is sharded).
        r.key("parallel.zero_stage", 0, strategy, "Composer's DDP without fsdp_config");
        if (!configured)
            return;
    } else {
        r.key("training.framework", QStringLiteral("fsdp"), nullptr, "Composer's FSDP");
        r.key("parallel.zero_stage", 3, strategy, kComposerDefault);
    }
    if (how == QLatin1String("SHARD_GRAD_OP") || how == QLatin1String("_HYBRID_SHARD_ZERO2"))
        r.key("parallel.reshard_after_forward", false, strategy, kComposerDefault);
    if (how.contains(QLatin1String("HYBRID")))
        r.warn(strategy, QStringLiteral("%1: FSDP shards inside each node and replicates across nodes; set "
                                        "parallel.shard_group to the data ranks of a node")
                             .arg(how));
    const Leaf *mixed = r.leafOf({"parallelism_config.fsdp.mixed_precision", "fsdp_config.mixed_precision"});
    const QString mp = r.text(mixed, "DEFAULT").toUpper();
    r.key("training.fp32_gradients", mp != QLatin1String("PURE"), mixed, kComposerDefault);
    if (mp == QLatin1String("FULL"))
        r.warn(mixed, QStringLiteral("mixed_precision FULL: FSDP gathers FP32 parameters and computes in the autocast "
                                     "format; planned with 16-bit gathers"));
    const Leaf *checkpointing =
        r.leafOf({"parallelism_config.fsdp.activation_checkpointing", "fsdp_config.activation_checkpointing"});
    r.key("training.recompute", checkpointing && checkpointing->value.toBool() ? "full" : "none", checkpointing,
          kComposerDefault);
    if (const Leaf *offload =
            r.leafOf({"parallelism_config.fsdp.activation_cpu_offload", "fsdp_config.activation_cpu_offload"});
        offload && offload->value.toBool())
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
