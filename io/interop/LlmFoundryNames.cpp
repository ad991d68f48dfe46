#include "io/interop/LlmFoundryNames.h"

namespace trainplan::io::llmfoundry {

namespace {

// Composer's FSDP keys, read under parallelism_config.fsdp (Composer 0.2x and later) and fsdp_config (the yamls'
// spelling, which train.py still takes): each row twice, fsdp_config first, the name export writes.
// sharding_strategy is composer/distributed/mosaic_parallelism.py's SHARDING_MAP (upper-cased there): every
// strategy but NO_SHARD shards the state (ZeRO-3 under framework "fsdp"); SHARD_GRAD_OP and _HYBRID_SHARD_ZERO2
// keep a unit's parameters from its forward to its backward. mixed_precision (get_mixed_precision there):
// DEFAULT and FULL reduce the gradients in FP32, PURE in the 16-bit format.
std::vector<Name> fsdpRows()
{
    const auto fsdp = [](const char *fsdpConfig, const char *parallelism, const char *path, Form form,
                         std::vector<std::pair<const char *, const char *>> choices) {
        return std::vector<Name>{{fsdpConfig, path, form, choices}, {parallelism, path, form, choices}};
    };
    std::vector<Name> r;
    for (auto rows : {fsdp("fsdp_config.sharding_strategy", "parallelism_config.fsdp.sharding_strategy",
                               "parallel.zero_stage", Form::Choice,
                               {{"FULL_SHARD", "3"},
                                {"NO_SHARD", "0"},
                                {"SHARD_GRAD_OP", "3"},
                                {"HYBRID_SHARD", "3"},
                                {"_HYBRID_SHARD_ZERO2", "3"}}),
                          fsdp("fsdp_config.sharding_strategy", "parallelism_config.fsdp.sharding_strategy",
                               "parallel.reshard_after_forward", Form::Choice,
                               {{"FULL_SHARD", "true"},
                                {"SHARD_GRAD_OP", "false"},
                                {"HYBRID_SHARD", "true"},
                                {"_HYBRID_SHARD_ZERO2", "false"}}),
                          fsdp("fsdp_config.mixed_precision", "parallelism_config.fsdp.mixed_precision",
                               "training.fp32_gradients", Form::Choice,
                               {{"DEFAULT", "true"}, {"PURE", "false"}, {"FULL", "true"}}),
                          fsdp("fsdp_config.activation_checkpointing",
                               "parallelism_config.fsdp.activation_checkpointing", "training.recompute",
                               Form::Choice, {{"true", "full"}, {"false", "none"}})})
        r.insert(r.end(), rows.begin(), rows.end());
    return r;
}

/// MPTConfig's keys (llmfoundry/models/mpt/configuration_mpt.py at 8c8dd48f7) and train.py's run keys.
std::vector<Name> modelAndRunRows()
{
    return {
            {"model.n_layers", "model.layers", Form::Integer},
            {"model.d_model", "model.hidden", Form::Integer},
            {"model.n_heads", "model.heads", Form::Integer},
            {"model.head_dim", "model.head_dim", Form::Integer},
            {"model.attn_config.kv_n_heads", "model.kv_heads", Form::Integer},
            {"model.ffn_config.ffn_hidden_size", "model.ffn_hidden", Form::Integer},
            {"model.vocab_size", "model.vocab", Form::Integer},
            {"max_seq_len", "model.seq_len", Form::Integer},
            {"model.max_seq_len", "model.seq_len", Form::Integer},
            {"variables.max_seq_len", "model.seq_len", Form::Integer},
            {"global_train_batch_size", "training.global_batch", Form::Integer},
            {"device_train_microbatch_size", "training.micro_batch", Form::Integer},
            {"model.tie_word_embeddings", "model.tied_embeddings", Form::Bool},
            {"model.no_bias", "model.linear_bias", Form::Choice, {{"true", "false"}, {"false", "true"}}},
            // The norms registry (llmfoundry/models/layers/norm.py): torch's two and llm-foundry's own.
            {"model.norm_type",
             "model.norm",
             Form::Choice,
             {{"low_precision_layernorm", "layernorm"},
              {"rmsnorm", "rmsnorm"},
              {"layernorm", "layernorm"},
              {"low_precision_rmsnorm", "rmsnorm"},
              {"triton_rmsnorm", "rmsnorm"}}},
            // The dense FFNs (llmfoundry/models/layers/ffn.py's ffns and ffns_with_norm registries): MPT's MLP,
            // its gated one (three matrices, SwiGLU's shape) and Transformer Engine's LayerNormMLP.
            {"model.ffn_config.ffn_type",
             "model.mlp",
             Form::Choice,
             {{"mptmlp", "gelu"}, {"mptglu", "swiglu"}, {"te_ln_mlp", "gelu"}}},
            // attn_impl: "flash" is flash-attn 2, "triton" the Triton FlashAttention of releases before 2024,
            // "torch" the unfused attention.
            {"model.attn_config.attn_impl",
             "training.attention_kernel",
             Form::Choice,
             {{"flash", "flash2"}, {"triton", "triton"}}},
            {"model.attn_config.attn_impl",
             "training.flash_attention",
             Form::Choice,
             {{"flash", "true"}, {"triton", "true"}, {"torch", "false"}}},
            // ComposerMPTCausalLM's loss_fn: flash-attn's fused cross-entropy, or torch's.
            {"model.loss_fn",
             "training.loss_kernel",
             Form::Choice,
             {{"fused_crossentropy", "fused"}, {"torch_crossentropy", "eager"}}},
            // Composer's precision (composer/core/precision.py): amp_fp8 is Transformer Engine's fp8_autocast.
            {"precision",
             "training.precision",
             Form::Choice,
             {{"amp_bf16", "bf16"}, {"amp_fp16", "fp16"}, {"amp_fp8", "fp8"}, {"fp32", "fp32"}}},
            {"optimizer.name", "training.optimizer", Form::Choice, {{"decoupled_adamw", "adam"}, {"adamw", "adam"}}},
    };
}

const std::vector<Name> &table()
{
    static const std::vector<Name> rows = [] {
        std::vector<Name> r = modelAndRunRows();
        const std::vector<Name> fsdp = fsdpRows();
        r.insert(r.end(), fsdp.begin(), fsdp.end());
        return r;
    }();
    return rows;
}

} // namespace

std::span<const Name> names() { return table(); }

const Name *nameOf(std::string_view path) { return firstRow(table(), path); }

QString spelling(std::string_view path, std::string_view planValue)
{
    const Name *n = nameOf(path);
    return n ? choiceSpelling(*n, planValue) : QString();
}

QString entry(std::string_view path, const QString &value)
{
    const Name *n = nameOf(path);
    if (!n)
        return {};
    const QString name = QLatin1String(n->name);
    return QString(2 * name.count(QLatin1Char('.')), QLatin1Char(' ')) + name.section(QLatin1Char('.'), -1) +
           QStringLiteral(": ") + value + QLatin1Char('\n');
}

} // namespace trainplan::io::llmfoundry
