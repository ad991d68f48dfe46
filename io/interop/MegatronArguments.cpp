#include "io/interop/MegatronArguments.h"

#include <array>

namespace trainplan::io::megatron {

namespace {

constexpr Form I = Form::Integer, S = Form::Switch;

// megatron/training/arguments.py (Megatron-LM d98e8a6); the export's order is its own (Export.cpp).
constexpr std::array kArguments{
    // The model's shape.
    Argument{"num-layers", "model.layers", I},
    Argument{"hidden-size", "model.hidden", I},
    Argument{"ffn-hidden-size", "model.ffn_hidden", I},
    Argument{"num-attention-heads", "model.heads", I},
    Argument{"num-query-groups", "model.kv_heads", I},
    Argument{"kv-channels", "model.head_dim", I},
    Argument{"seq-length", "model.seq_len", I},
    Argument{"vocab-size", "model.vocab", I},
    Argument{"padded-vocab-size", "model.vocab", I}, // Megatron-Core's config after padding
    Argument{"num-experts", "model.experts", I, "num_moe_experts"},
    Argument{"moe-router-topk", "model.experts_per_token", I},
    Argument{"moe-ffn-hidden-size", "model.expert_ffn_hidden", I},
    Argument{"moe-router-num-groups", "model.router_groups", I},
    Argument{"moe-router-group-topk", "model.router_group_topk", I},
    Argument{"mtp-num-layers", "model.mtp_layers", I},
    // TransformerConfig fields the ArgumentGroupFactory turns into arguments (arguments.py line 2373).
    Argument{"mtp-use-repeated-layer", "model.mtp_repeated", S},
    Argument{"moe-latent-size", "model.moe_latent_size", I},
    Argument{"q-lora-rank", "model.q_lora_rank", I},
    Argument{"kv-lora-rank", "model.kv_lora_rank", I},
    Argument{"qk-head-dim", "model.qk_nope_head_dim", I},
    Argument{"qk-pos-emb-head-dim", "model.qk_rope_head_dim", I},
    Argument{"v-head-dim", "model.v_head_dim", I},
    Argument{"window-attn-skip-freq", "model.full_attention_interval", I},
    Argument{"mamba-state-dim", "model.mamba_state_dim", I},
    Argument{"mamba-head-dim", "model.mamba_head_dim", I},
    Argument{"mamba-num-heads", "model.mamba_heads", I},
    Argument{"mamba-num-groups", "model.mamba_groups", I},
    // Training.
    Argument{"micro-batch-size", "training.micro_batch", I},
    Argument{"global-batch-size", "training.global_batch", I},
    Argument{"cpu-offloading-num-layers", "training.activation_offload_layers", I},
    Argument{"fp8-param-gather", "training.fp8_param_gather", S},
    Argument{"fp8-dot-product-attention", "training.fp8_attention", S},
    Argument{"sequence-parallel", "training.sequence_parallel", S},
    Argument{"use-flash-attn", "training.flash_attention", S},
    Argument{"use-transformer-engine-op-fuser", "training.fused_expert_mlp", S},
    Argument{"moe-paged-stash", "training.moe_paged_stash", S},
    Argument{"moe-router-fusion", "training.moe_router_fusion", S},
    Argument{"moe-permute-fusion", "training.moe_permute_fusion", S},
    Argument{"defer-embedding-wgrad-compute", "training.defer_embedding_wgrad", S},
    Argument{"wgrad-deferral-limit", "training.wgrad_deferral_limit", I},
    Argument{"muon-num-ns-steps", "training.muon_steps", I},
    // Parallelism.
    Argument{"tensor-model-parallel-size", "parallel.tensor", I},
    Argument{"pipeline-model-parallel-size", "parallel.pipeline", I},
    Argument{"context-parallel-size", "parallel.context", I},
    Argument{"expert-model-parallel-size", "parallel.expert", I},
    Argument{"expert-tensor-parallel-size", "parallel.expert_tensor", I},
    Argument{"num-virtual-stages-per-pipeline-rank", "parallel.virtual_stages", I,
             "virtual_pipeline_model_parallel_size"},
    Argument{"decoder-first-pipeline-num-layers", "parallel.first_stage_layers", I},
    Argument{"decoder-last-pipeline-num-layers", "parallel.last_stage_layers", I},
    Argument{"optimizer-cpu-offload", "parallel.offload_optimizer", S},
    Argument{"overlap-cpu-optimizer-d2h-h2d", "parallel.overlap_offload_copies", S},
    Argument{"overlap-moe-expert-parallel-comm", "parallel.expert_comm_overlap", S},
    Argument{"overlap-grad-reduce", "parallel.overlap_grad_reduce", S},
    Argument{"overlap-param-gather", "parallel.overlap_param_gather", S},
    Argument{"tp-comm-overlap", "parallel.tensor_comm_overlap", S},
    // On by default under the interleaved schedule since Megatron-LM 4eeff55 ("Make overlap_p2p_comm the
    // default", October 2023): arguments.py has only --no-overlap-p2p-communication (dest overlap_p2p_comm),
    // and turns the overlap off without interleaving. --overlap-p2p-communication is the flag before that.
    Argument{"no-overlap-p2p-communication", "parallel.overlap_p2p_comm", Form::Off, "overlap_p2p_comm"},
    Argument{"overlap-p2p-communication", "parallel.overlap_p2p_comm", S},
    // Rotary embedding fusion is on by default: arguments.py has only --no-rope-fusion (dest apply_rope_fusion).
    Argument{"no-rope-fusion", "training.fused_rope", Form::Off, "apply_rope_fusion"},
};

} // namespace

std::span<const Argument> arguments() { return kArguments; }

QString configName(const Argument &argument)
{
    return QString::fromLatin1(argument.flag).replace(QLatin1Char('-'), QLatin1Char('_'));
}

QString fieldOf(std::string_view path)
{
    for (const Argument &a : kArguments)
        if (path == a.path)
            return a.field ? QString::fromLatin1(a.field) : configName(a);
    return {};
}

QString flagOf(std::string_view path)
{
    for (const Argument &a : kArguments)
        if (path == a.path)
            return QStringLiteral("--") + QLatin1String(a.flag);
    return {};
}

QString flag(std::string_view path, std::int64_t value)
{
    return flagOf(path) + QLatin1Char(' ') + QString::number(value);
}

} // namespace trainplan::io::megatron
