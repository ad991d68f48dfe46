#include "io/plan/KeyWords.h"

#include <QCoreApplication>

#include <algorithm>
#include <array>

namespace trainplan::io {

namespace {

// Every key of core/plan/PlanKeys' table, in its order (tst_plandoc checks that each key has its words and
// every row a key). The words go through QCoreApplication::translate("PlanKey", ...).
const std::array kWords{
    KeyWords{.path = "format",
             .tooltip = QT_TRANSLATE_NOOP("PlanKey", "\"trainplan-plan\""),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "required")},
    KeyWords{.path = "version",
             .tooltip = QT_TRANSLATE_NOOP("PlanKey", "1"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "required")},
    KeyWords{.path = "name",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Name"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "plan name"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey",
                 "shown in titles and reports; empty: an automatic name (model, GPUs, layout) that follows the plan"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "automatic")},
    KeyWords{.path = "description",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Description"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "description"),
             .tooltip =
                 QT_TRANSLATE_NOOP("PlanKey", "one line on what the plan is for (the examples gallery shows it)"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "none")},
    KeyWords{.path = "model.preset",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Preset"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "model"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey", "a published model shape (resources/models.json); any key below overrides it"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "none (custom shape)")},
    KeyWords{.path = "model.name",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Model name"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "model name"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "preset name or \"custom\"")},
    KeyWords{.path = "model.layers",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Layers"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "layers"),
             .tooltip = QT_TRANSLATE_NOOP("PlanKey", "transformer layers"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "required (custom)"),
             .rule = QT_TRANSLATE_NOOP(
                 "PlanKey", "divisible by pipeline x virtual_stages, unless first/last_stage_layers or stage_layers "
                            "split it")},
    KeyWords{.path = "model.hidden",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Hidden size"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "hidden size"),
             .tooltip = QT_TRANSLATE_NOOP("PlanKey", "model width h"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "required (custom)"),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "divisible by heads")},
    KeyWords{.path = "model.heads",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Attention heads"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "attention heads"),
             .tooltip = QT_TRANSLATE_NOOP("PlanKey", "query heads a; must divide h and be divisible by t"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "required (custom)"),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "divisible by tensor")},
    KeyWords{.path = "model.kv_heads",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Key/value heads"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "key/value heads"),
             .tooltip = QT_TRANSLATE_NOOP("PlanKey", "grouped-query attention: key/value heads"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "heads"),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "divides heads; divisible by tensor")},
    KeyWords{.path = "model.head_dim",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Head size"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "head size"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey", "size of one attention head when it is not hidden / heads (Gemma, Qwen3, GPT-OSS set "
                            "head_dim); Q and the attention output are heads x head size wide; 0: hidden / heads"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "0 (hidden / heads)")},
    KeyWords{.path = "model.ffn_hidden",
             .label = QT_TRANSLATE_NOOP("PlanKey", "MLP width"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "MLP width"),
             .tooltip = QT_TRANSLATE_NOOP("PlanKey", "inner width of the MLP"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "4 x hidden"),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "divisible by tensor")},
    KeyWords{.path = "model.vocab",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Vocabulary"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "vocabulary"),
             .tooltip = QT_TRANSLATE_NOOP("PlanKey", "vocabulary size V"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "required (custom)")},
    KeyWords{.path = "model.seq_len",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Sequence length"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "sequence length"),
             .tooltip = QT_TRANSLATE_NOOP("PlanKey", "tokens per sequence s"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "required (custom)")},
    KeyWords{.path = "model.mlp",
             .label = QT_TRANSLATE_NOOP("PlanKey", "MLP kind"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "MLP kind"),
             .tooltip =
                 QT_TRANSLATE_NOOP("PlanKey", "sets the defaults of norm, linear_bias, position_embedding and dropout"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "\"gelu\"")},
    KeyWords{.path = "model.tied_embeddings",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Tied embeddings"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "tied embeddings"),
             .tooltip = QT_TRANSLATE_NOOP("PlanKey", "output projection shares the word embedding"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "false")},
    KeyWords{.path = "model.norm",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Norm"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "norm"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "gelu: layernorm; swiglu: rmsnorm")},
    KeyWords{.path = "model.linear_bias",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Linear biases"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "linear biases"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "gelu: true; swiglu: false")},
    KeyWords{.path = "model.position_embedding",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Positions"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "position embedding"),
             .tooltip = QT_TRANSLATE_NOOP("PlanKey", "learned adds seq_len x hidden parameters"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "gelu: learned; swiglu: rotary")},
    KeyWords{.path = "model.dropout",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Dropout"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "dropout"),
             .tooltip = QT_TRANSLATE_NOOP("PlanKey", "dropout masks are stored activations"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "gelu: true; swiglu: false")},
    KeyWords{.path = "model.experts",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Experts"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "experts"),
             .tooltip = QT_TRANSLATE_NOOP("PlanKey", "routed experts per mixture-of-experts layer; 0: a dense model"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "0 (dense)"),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "divisible by parallel.expert")},
    KeyWords{.path = "model.experts_per_token",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Experts per token"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "experts per token"),
             .tooltip = QT_TRANSLATE_NOOP("PlanKey", "top-k: routed experts each token goes to"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "0"),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "1..experts when experts > 0")},
    KeyWords{.path = "model.shared_experts",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Shared experts"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "shared experts"),
             .tooltip = QT_TRANSLATE_NOOP("PlanKey", "experts every token passes through (DeepSeek, Llama 4), "
                                                     "expert_ffn_hidden wide each, split like a dense MLP"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "0")},
    KeyWords{.path = "model.expert_ffn_hidden",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Expert MLP width"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "expert MLP width"),
             .tooltip = QT_TRANSLATE_NOOP("PlanKey", "inner width of one expert's MLP"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "ffn_hidden"),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "divisible by parallel.expert_tensor")},
    KeyWords{.path = "model.dense_layers",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Dense first layers"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "dense first layers"),
             .tooltip =
                 QT_TRANSLATE_NOOP("PlanKey", "the first k layers keep a dense MLP of ffn_hidden (DeepSeek-V3: 3)"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "0"),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "below layers")},
    KeyWords{.path = "model.moe_layer_interval",
             .label = QT_TRANSLATE_NOOP("PlanKey", "MoE layer interval"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "MoE layer interval"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey", "every n-th layer after the dense ones is a mixture of experts (Llama 4 Maverick: 2)"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "1")},
    KeyWords{.path = "model.mtp_layers",
             .label = QT_TRANSLATE_NOOP("PlanKey", "MTP layers"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "multi-token-prediction layers"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey", "multi-token-prediction modules after the last layer (DeepSeek-V3: 1), on the last stage"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "0")},
    KeyWords{.path = "model.mtp_repeated",
             .label = QT_TRANSLATE_NOOP("PlanKey", "MTP repeats one module"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "repeated MTP module"),
             .tooltip = QT_TRANSLATE_NOOP("PlanKey",
                                          "the multi-token-prediction depths run one module's weights again "
                                          "(Megatron-Core --mtp-use-repeated-layer; Nemotron 3 Super: 2 depths, one "
                                          "module): the compute of mtp_layers modules, the parameters of one"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "false"),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "needs mtp_layers")},
    KeyWords{.path = "model.moe_latent_size",
             .label = QT_TRANSLATE_NOOP("PlanKey", "MoE latent width"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "MoE latent width"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey",
                 "latent MoE (Nemotron 3 Super: 1,024; Megatron-Core --moe-latent-size): each MoE layer projects "
                 "its tokens from hidden to this width before the dispatcher and back after the combine, so the "
                 "routed experts and the all-to-all work on latent-wide rows; the router and the shared experts "
                 "keep the hidden width"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "0 (none)"),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "needs experts; Megatron-Core only")},
    KeyWords{.path = "model.router_groups",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Router groups"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "router groups"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey",
                 "group-limited routing: the experts form this many contiguous groups (DeepSeek-V3: 8, one per node at "
                 "expert 64 on 8-GPU nodes; HF n_group, Megatron-Core --moe-router-num-groups); 0: ungrouped"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "0 (ungrouped)"),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "divides experts; set with router_group_topk")},
    KeyWords{.path = "model.router_group_topk",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Groups per token"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "router groups per token"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey",
                 "group-limited routing: a token's experts come from at most this many groups (DeepSeek-V3: 4; HF "
                 "topk_group, Megatron-Core --moe-router-group-topk), so its copies reach at most that many nodes"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "0 (ungrouped)"),
             .rule = QT_TRANSLATE_NOOP(
                 "PlanKey", "1..router_groups, with at least experts_per_token experts in that many groups")},
    KeyWords{.path = "model.attention",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Attention"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "attention kind"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey", "mha: multi-head, grouped-query through kv_heads; mla: multi-head latent attention "
                            "(DeepSeek-V2/V3) with the q_lora_rank, kv_lora_rank and head-size keys"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "\"mha\""),
             .rule = QT_TRANSLATE_NOOP("PlanKey",
                                       "mla needs kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim and v_head_dim")},
    KeyWords{.path = "model.q_lora_rank",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Query latent rank"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "query latent rank"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey", "MLA: queries projected down to this rank and up again; 0: projected directly"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "0")},
    KeyWords{.path = "model.kv_lora_rank",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Key/value latent rank"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "key/value latent rank"),
             .tooltip = QT_TRANSLATE_NOOP("PlanKey", "MLA: keys and values compressed to this latent"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "0")},
    KeyWords{.path = "model.qk_nope_head_dim",
             .label = QT_TRANSLATE_NOOP("PlanKey", "QK head size (no RoPE)"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "QK head size"),
             .tooltip = QT_TRANSLATE_NOOP("PlanKey", "MLA: per-head query/key part without rotary embedding"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "0")},
    KeyWords{.path = "model.qk_rope_head_dim",
             .label = QT_TRANSLATE_NOOP("PlanKey", "QK rotary size"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "QK rotary size"),
             .tooltip = QT_TRANSLATE_NOOP("PlanKey", "MLA: per-head rotary part (one key part shared by all heads)"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "0")},
    KeyWords{.path = "model.v_head_dim",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Value head size"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "value head size"),
             .tooltip = QT_TRANSLATE_NOOP("PlanKey", "MLA: per-head value size"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "0")},
    KeyWords{.path = "model.sliding_window",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Sliding window"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "sliding window"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey",
                 "sliding-window attention: a query attends to at most this many preceding tokens (GPT-OSS: 128; "
                 "HF sliding_window, Megatron-Core window_size), so a windowed layer's attention work per "
                 "sequence is about seq_len x window instead of seq_len^2 / 2; 0: the whole causal prefix"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "0 (none)")},
    KeyWords{.path = "model.full_attention_interval",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Full-attention interval"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "full-attention interval"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey", "with a sliding window, every n-th layer attends to the whole prefix (GPT-OSS alternates: "
                            "2; Megatron-Core window_attn_skip_freq); 0: every layer is windowed"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "0 (every layer windowed)"),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "applies with sliding_window")},
    KeyWords{.path = "model.attention_sinks",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Attention sinks"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "attention sinks"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey",
                 "a learned logit per head in every softmax's denominator (GPT-OSS; Megatron-Core softmax_type "
                 "\"learnable\"): one parameter per head and layer; fused attention kernels support it since "
                 "Transformer Engine 2.8 (older software runs attention unfused: flash_attention false)"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "false")},
    KeyWords{.path = "model.activation_clamp",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Activation clamp"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "activation clamp"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey",
                 "a gated MLP whose activation inputs are clamped at this limit, the gate from above and the linear "
                 "half both ways (GPT-OSS: 7, HF swiglu_limit; Megatron-Core activation_func_clamp_value). "
                 "Megatron-Core and eager PyTorch clamp with separate kernels ahead of the activation and keep a "
                 "second copy of its input; torch.compile fuses the clamp; 0: none"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "0 (none)"),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "applies with mlp \"swiglu\"")},
    KeyWords{.path = "model.hybrid_pattern",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Hybrid pattern"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "hybrid layer pattern"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey",
                 "a hybrid Mamba-Transformer model, one symbol per layer as Megatron-Core's --hybrid-override-pattern "
                 "writes it: M a Mamba-2 mixer, * self-attention, - a dense MLP, E a MoE MLP (Nemotron-H, Nemotron 3); "
                 "each layer is one block with its own norm; empty: every layer is attention + MLP"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "empty (transformer)"),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "one of M * - E per layer; as long as layers; E needs experts")},
    KeyWords{.path = "model.mamba_state_dim",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Mamba state size"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "Mamba state size"),
             .tooltip = QT_TRANSLATE_NOOP("PlanKey", "Mamba-2's state size N per head (--mamba-state-dim)"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "128")},
    KeyWords{.path = "model.mamba_head_dim",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Mamba head size"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "Mamba head size"),
             .tooltip = QT_TRANSLATE_NOOP("PlanKey", "Mamba-2's head size P (--mamba-head-dim)"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "64")},
    KeyWords{.path = "model.mamba_heads",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Mamba heads"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "Mamba heads"),
             .tooltip =
                 QT_TRANSLATE_NOOP("PlanKey", "Mamba-2 heads (--mamba-num-heads); the mixer is heads x head size wide"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "0 (2 x hidden / head size)"),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "divisible by tensor and by the groups")},
    KeyWords{.path = "model.mamba_groups",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Mamba groups"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "Mamba groups"),
             .tooltip = QT_TRANSLATE_NOOP("PlanKey",
                                          "Mamba-2 groups sharing the input-dependent B and C (--mamba-num-groups)"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "8"),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "divides the Mamba heads; divisible by tensor")},
    KeyWords{.path = "training.global_batch",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Global batch"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "global batch"),
             .tooltip = QT_TRANSLATE_NOOP("PlanKey", "sequences per optimizer step"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "required"),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "multiple of micro_batch x data")},
    KeyWords{.path = "training.micro_batch",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Micro-batch"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "micro-batch"),
             .tooltip = QT_TRANSLATE_NOOP("PlanKey", "sequences per GPU per micro-batch"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "1")},
    KeyWords{.path = "training.precision",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Precision"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "precision"),
             .tooltip = QT_TRANSLATE_NOOP("PlanKey", "storage and arithmetic format"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "\"bf16\""),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "must be supported by the device")},
    KeyWords{.path = "training.fp8_recipe",
             .label = QT_TRANSLATE_NOOP("PlanKey", "FP8 scaling"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "FP8 scaling recipe"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey",
                 "how per-tensor FP8 sets its scales: delayed (an amax history, all-reduced over the data-parallel and "
                 "tensor ranks at the end of each FP8 region; Transformer Engine's DelayedScaling, NeMo 2's default) "
                 "or tensorwise (each tensor's own amax as it is quantized, no history to reduce: Transformer "
                 "Engine's Float8CurrentScaling, Megatron-Bridge's FP8-CS, torchao's tensorwise) or rowwise (torchao's "
                 "rowwise recipe, torchtitan's float8 default: a scale per row, a slower CUTLASS GEMM, 16-bit "
                 "parameter gathers). Megatron-LM offloads the optimizer with FP8 parameter gathers only under "
                 "delayed"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "\"delayed\""),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "training.precision fp8; rowwise: framework fsdp (torchao), "
                                                  "without training.fp8_param_gather")},
    KeyWords{.path = "training.fp8_param_gather",
             .label = QT_TRANSLATE_NOOP("PlanKey", "FP8 parameter gather"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "FP8 parameter gather"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey", "keep parameters in the low format only and all-gather them in it (Megatron-Core "
                            "--fp8-param-gather): no BF16 working copy, half the gather volume"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "false"),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "needs precision fp8, fp8-blockwise, mxfp8 or nvfp4")},
    KeyWords{.path = "training.fp8_attention",
             .label = QT_TRANSLATE_NOOP("PlanKey", "FP8 attention"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "FP8 attention"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey", "attention's QK^T and PV in the low format too (Transformer Engine FP8 dot-product "
                            "attention); off, attention runs in BF16 while the linear layers use the low format"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "false"),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "needs precision fp8, fp8-blockwise, mxfp8 or nvfp4")},
    KeyWords{.path = "training.optimizer",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Optimizer"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "optimizer"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey", "Adam keeps two moments; SGD one; Muon one for the layers' weight matrices, which it "
                            "orthogonalises with Newton-Schulz iterations at the step, and Adam's two for "
                            "embeddings, the output layer and norms (Megatron-LM --optimizer muon); Adaptive Muon "
                            "adds an elementwise second moment to Muon's momentum, two moments as Adam keeps "
                            "(--optimizer adaptive_muon)"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "\"adam\""),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "muon and adaptive_muon need framework megatron and "
                                                  "parallel.zero_stage 0 or 1")},
    KeyWords{
        .path = "training.recompute",
        .label =
            QT_TRANSLATE_NOOP("PlanKey", "Recomputation"),
        .noun = QT_TRANSLATE_NOOP("PlanKey", "recomputation"),
        .tooltip = QT_TRANSLATE_NOOP(
            "PlanKey",
            "activation recomputation (Korthikanti et al. 2022): none; selective (Megatron-Core's: the attention core "
            "and the named modules); ops (torchtitan's op-level selective checkpointing: each layer keeps the "
            "attention output, every other matmul's and the expert dispatch and combine outputs, and replays the "
            "rest, the routed experts' grouped GEMMs among them); full (each layer keeps its input)"),
        .defaultText = QT_TRANSLATE_NOOP("PlanKey", "\"none\"")},
    KeyWords{.path = "training.recompute_mla_up_proj",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Recompute MLA up-proj."),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "MLA up-projection recomputation"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey", "multi-head latent attention: keep only the latents and rebuild Q, K and V by their up "
                            "projections in backward (Megatron-Core --recompute-modules mla_up_proj)"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "false"),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "needs recompute \"selective\" and model.attention \"mla\"")},
    KeyWords{.path = "training.recompute_moe_act",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Recompute expert act."),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "expert activation recomputation"),
             .tooltip = QT_TRANSLATE_NOOP("PlanKey",
                                          "mixture of experts: do not keep the experts' activation-function output; "
                                          "recompute it in backward (Megatron-Core --recompute-modules moe_act)"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "false"),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "needs recompute \"selective\" and model.experts > 0")},
    KeyWords{.path = "training.recompute_moe",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Recompute MoE layers"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "MoE layer recomputation"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey",
                 "mixture of experts: keep only each MoE layer's input and replay the whole layer in backward: router, "
                 "dispatch all-to-all, experts and combine (Megatron-Core --recompute-modules moe)"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "false"),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "needs recompute \"selective\" and model.experts > 0")},
    KeyWords{.path = "training.recompute_mlp",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Recompute dense MLP"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "dense MLP recomputation"),
             .tooltip = QT_TRANSLATE_NOOP("PlanKey",
                                          "keep only the input of each dense MLP and replay its forward in backward; "
                                          "a mixture of experts' MoE layers are left alone (Megatron-Core "
                                          "--recompute-modules mlp)"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "false"),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "needs recompute \"selective\"")},
    KeyWords{.path = "training.recompute_attention",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Recompute attention kernel"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "attention kernel recomputation"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey",
                 "op-level checkpointing whose save list leaves the attention kernel out: its output is not kept "
                 "and the kernel runs again in backward (torchtitan with cuDNN's attention on B200 and GB200, "
                 "May to December 2025)"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "false"),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "needs recompute \"ops\"")},
    KeyWords{.path = "training.recompute_layers",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Recomputed layers"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "recomputed layers"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey", "with recompute \"full\": only this many layers of each model chunk keep just their input "
                            "and are replayed in backward; the others keep all their activations (Megatron-Core "
                            "--recompute-method block --recompute-num-layers); 0: every layer"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "0 (every layer)"),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "applies with recompute \"full\"")},
    KeyWords{.path = "training.recompute_interval",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Recompute every"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "recompute interval"),
             .tooltip = QT_TRANSLATE_NOOP("PlanKey",
                                          "with recompute \"full\": only every k-th layer keeps just its input and is "
                                          "replayed in backward; the others keep all their activations (torchtitan "
                                          "activation_checkpoint.selective_ac_option = k); 0 or 1: every layer"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "0 (every layer)"),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "applies with recompute \"full\"")},
    KeyWords{.path = "training.recompute_chunk",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Recompute chunk"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "recompute chunk"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey", "with recompute \"full\": each chunk of this many layers keeps only its input, and its "
                            "backward replays the whole chunk, holding all of its layers' activations at once "
                            "(Megatron-Core --recompute-method uniform --recompute-num-layers); 0 or 1: every layer"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "0 (every layer)"),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "applies with recompute \"full\"")},
    KeyWords{.path = "training.activation_offload_layers",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Offloaded layers"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "activation offload"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey", "the stored activations of this many layers of each stage go to host memory after their "
                            "forward and come back before their backward, over the host link beside the compute "
                            "(Megatron-Core --cpu-offloading-num-layers): device memory for host-link traffic"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "0 (none)"),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "at most the layers of a stage")},
    KeyWords{.path = "training.sequence_parallel",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Sequence parallel"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "sequence parallelism"),
             .tooltip = QT_TRANSLATE_NOOP("PlanKey", "shard norms and dropout over the tensor group"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "false")},
    KeyWords{.path = "training.flash_attention",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Flash attention"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "flash attention"),
             .tooltip = QT_TRANSLATE_NOOP("PlanKey", "fused attention: no s x s score tensor is stored"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "false")},
    KeyWords{.path = "training.fp32_gradients",
             .label = QT_TRANSLATE_NOOP("PlanKey", "FP32 gradients"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "FP32 gradients"),
             .tooltip = QT_TRANSLATE_NOOP("PlanKey", "4-byte gradients with 16-bit parameters (Megatron-LM main_grad); "
                                                     "under fsdp the reduce-scatter's dtype (FSDP's reduce_dtype "
                                                     "float32), the gradient shard being in the parameters' FP32"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "false")},
    KeyWords{.path = "training.framework",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Framework"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "training framework"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey", "whose buffers surround the tensors: Megatron-Core's contiguous gradient buffers, "
                            "DeepSpeed's ZeRO buckets or FSDP2's per-block all-gathers (memory only)"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "\"megatron\""),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "\"fsdp\" needs parallel.zero_stage 3")},
    KeyWords{.path = "training.expandable_segments",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Expandable segments"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "expandable segments"),
             .tooltip = QT_TRANSLATE_NOOP("PlanKey", "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True: segments grow "
                                                     "by pages, so fragmentation is left to page rounding"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "false")},
    KeyWords{.path = "training.allocator_reserve_fraction",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Allocator reserve"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "allocator reserve"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey", "override: the caching allocator's overhead as a fraction of the phase's dynamic memory, "
                            "instead of the allocator model (block rounding and fragmentation)"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "absent (the allocator model)")},
    KeyWords{.path = "training.memory_margin",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Memory margin"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "memory margin"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey", "a plan whose device-used peak comes within this fraction of capacity is reported tight"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "0.05")},
    KeyWords{.path = "training.capacity_factor",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Capacity factor"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "capacity factor"),
             .tooltip =
                 QT_TRANSLATE_NOOP("PlanKey", "mixture of experts: tokens an expert takes at most, as a multiple of "
                                              "its balanced share; tokens beyond it are dropped; absent: dropless"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "absent (dropless)")},
    KeyWords{.path = "training.expert_imbalance",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Expert imbalance"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "expert imbalance"),
             .tooltip =
                 QT_TRANSLATE_NOOP("PlanKey", "mixture of experts: tokens of the busiest expert over the mean; it sets "
                                              "the pace of the expert GEMMs and the all-to-all (1: balanced routing; "
                                              "Megatron-Bridge's runs with free routing, 100 steps from a random "
                                              "start, imply about 1.45 for Qwen3-30B-A3B with its auxiliary loss over "
                                              "16 expert ranks, and for GPT-OSS without one 1.9 over 4 and 3.6 over "
                                              "16)"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "1")},
    KeyWords{.path = "training.expert_routing",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Expert routing"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "expert routing"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey",
                 "mixture of experts: which experts a token's copies reach, which sets the ranks and nodes DeepEP's "
                 "and HybridEP's dispatch sends it to; uniform: each copy to an expert drawn uniformly from those "
                 "its router may reach (a balanced learned router; Megatron-Core's forced load balancing); "
                 "contiguous: token t to experts t k to t k + k - 1, balanced but each token on the fewest ranks "
                 "(NeMo Automodel's fake balanced gate)"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "\"uniform\"")},
    KeyWords{.path = "training.fused_kernels",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Fused kernels"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "kernel fusion"),
             .tooltip = QT_TRANSLATE_NOOP("PlanKey", "fused element-wise chains read and write once"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "true")},
    KeyWords{
        .path = "training.attention_kernel",
        .label =
            QT_TRANSLATE_NOOP("PlanKey", "Attention kernel"),
        .noun = QT_TRANSLATE_NOOP("PlanKey", "attention kernel"),
        .tooltip = QT_TRANSLATE_NOOP(
            "PlanKey",
            "with flash attention: fused is the platform's fastest fused kernel (cuDNN or FlashAttention-3 on Hopper "
            "and Blackwell, FlashAttention-2 on Ampere), as Megatron-Core runs it; flash2 is FlashAttention-2 "
            "(flash-attn 2, PyTorch SDPA's flash backend), at 0.62 of cuDNN's kernel on Hopper (Shah et al. 2024), "
            "and it computes a head on its kernel's head size (32 to 256 in steps of 32: a head of 112 takes the "
            "time of 128); triton is the FlashAttention written in Triton before FlashAttention-2 (flash-attn's "
            "flash_attn_triton.py, llm-foundry's attn_impl triton, the kernel with ALiBi's bias in 2023), 1.3x "
            "slower than FlashAttention-2 (Dao 2023: 1.3-2.5x)"),
        .defaultText = QT_TRANSLATE_NOOP("PlanKey", "\"fused\""),
        .rule = QT_TRANSLATE_NOOP("PlanKey", "applies with flash attention")},
    KeyWords{.path = "training.compile",
             .label = QT_TRANSLATE_NOOP("PlanKey", "torch.compile"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "torch.compile"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey", "PyTorch frameworks: torch.compile turns each element-wise chain (RMSNorm, rotary "
                            "embedding, activation, residual) into one generated kernel (Ansel et al. 2024, PyTorch "
                            "2); eager, each op is its own kernel and RMSNorm and the rotary embedding run in FP32"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "false"),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "PyTorch frameworks (\"fsdp\", \"deepspeed\")")},
    KeyWords{.path = "training.fused_norm",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Fused norm"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "fused norm"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey", "PyTorch frameworks without torch.compile: the RMSNorm is one fused kernel (torchtitan's "
                            "norm_type \"fused_rmsnorm\") while the other element-wise chains stay eager; off, an "
                            "eager RMSNorm runs six FP32 kernels and saves its FP32 upcast for backward"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "false"),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "PyTorch frameworks (\"fsdp\", \"deepspeed\")")},
    KeyWords{.path = "training.separate_qkv",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Separate Q, K, V GEMMs"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "separate Q, K and V projections"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey", "Q, K and V as three GEMMs over the same input (torchtitan's wq, wk, wv; Hugging Face's "
                            "q_proj, k_proj, v_proj) instead of one fused projection (Megatron-Core's linear_qkv, "
                            "MPT's Wqkv): with tensor parallelism the key and value GEMMs are narrow and memory-bound, "
                            "each reading the whole input"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "false"),
             .rule = QT_TRANSLATE_NOOP("PlanKey",
                                       "PyTorch frameworks (\"fsdp\", \"deepspeed\"); Megatron-Core fuses them")},
    KeyWords{.path = "training.repeat_kv_heads",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Repeat K, V heads"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "repeated key and value heads"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey", "each key and value head is repeated for the query heads that share it before the "
                            "attention kernel (repeat_kv ahead of PyTorch's SDPA: torchtitan's Llama until "
                            "ff0829c10, January 2026; Hugging Face's eager and SDPA attention): a copy kernel per "
                            "pass, K and V as wide as Q in the kernel, in what it saves and in what context "
                            "parallelism exchanges (n_heads / n_kv_heads times the grouped heads' bytes)"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "false"),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "PyTorch frameworks (\"fsdp\", \"deepspeed\") and fewer key "
                                                  "heads than query heads; Megatron-Core never repeats them")},
    KeyWords{.path = "training.fused_rope",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Fused rotary embedding"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "rotary embedding fusion"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey",
                 "the rotary embedding in Transformer Engine's fused kernel; off, Megatron-Core runs it on Q and K as "
                 "about a dozen PyTorch kernels each (--no-rope-fusion; Megatron-Bridge turns the fusion off for "
                 "positions other than plain RoPE, GPT-OSS's YaRN among them)"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "true"),
             .rule = QT_TRANSLATE_NOOP("PlanKey",
                                       "Megatron-Core and DeepSpeed with fused kernels and rotary positions; under "
                                       "\"fsdp\" torch.compile decides")},
    KeyWords{.path = "training.bf16_layers_at_start",
             .label = QT_TRANSLATE_NOOP("PlanKey", "BF16 layers at start"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "layers kept in BF16 at the start"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey",
                 "the model's first layers (a hybrid model's first blocks) run their linear layers in BF16, outside "
                 "the FP8 or FP4 recipe, for numerical safety (Megatron-Core --first-last-layers-bf16 "
                 "--num-layers-at-start-in-bf16)"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "0 (none)"),
             .rule =
                 QT_TRANSLATE_NOOP("PlanKey", "framework \"megatron\" with a FP8 or FP4 precision; not with delayed "
                                              "FP8 scaling; at most the layers of a pipeline stage")},
    KeyWords{.path = "training.bf16_layers_at_end",
             .label = QT_TRANSLATE_NOOP("PlanKey", "BF16 layers at end"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "layers kept in BF16 at the end"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey",
                 "the model's last layers (a hybrid model's last blocks) run their linear layers in BF16, outside "
                 "the FP8 or FP4 recipe (Megatron-Core --num-layers-at-end-in-bf16; Megatron-Bridge's Nemotron 3 "
                 "Super NVFP4 recipe keeps the last 14 of its 88)"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "0 (none)"),
             .rule =
                 QT_TRANSLATE_NOOP("PlanKey", "framework \"megatron\" with a FP8 or FP4 precision; not with delayed "
                                              "FP8 scaling; at most the layers of a pipeline stage")},
    KeyWords{.path = "training.bf16_attention_projections",
             .label = QT_TRANSLATE_NOOP("PlanKey", "BF16 attention projections"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "attention projections kept in BF16"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey",
                 "every layer's QKV and output projections run in BF16, outside the FP8 or FP4 recipe, as a per-module "
                 "quantization recipe keeps them (Megatron-Bridge's Nemotron 3 Super NVFP4 te_quant.cfg: linear_qkv, "
                 "linear_proj)"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "false"),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "a FP8 or FP4 precision")},
    KeyWords{.path = "training.bf16_latent_projections",
             .label = QT_TRANSLATE_NOOP("PlanKey", "BF16 latent projections"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "latent projections kept in BF16"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey",
                 "a latent MoE's projections into and out of the latent width run in BF16 (te_quant.cfg: "
                 "fc1_latent_proj, fc2_latent_proj)"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "false"),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "a FP8 or FP4 precision and model.moe_latent_size")},
    KeyWords{.path = "training.bf16_mtp_modules",
             .label = QT_TRANSLATE_NOOP("PlanKey", "BF16 MTP modules"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "multi-token-prediction modules kept in BF16"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey",
                 "the multi-token-prediction modules run every linear layer in BF16 (te_quant.cfg: mtp.*)"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "false"),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "a FP8 or FP4 precision and model.mtp_layers")},
    KeyWords{.path = "training.optimizer_kernel",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Optimizer kernel"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "optimizer kernel"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey",
                 "how the optimizer's update runs, which sets its memory traffic and its temporaries at the step: "
                 "fused (Megatron-Core's and DeepSpeed's multi-tensor Adam: each state read and written once, no "
                 "temporaries), foreach (torch.optim.AdamW's default on CUDA: eight element-wise passes, 80 bytes a "
                 "parameter at FP32 against a fused kernel's 28, and the square roots of every second moment at once, "
                 "4 bytes per optimizer-shard parameter), loop (a per-parameter loop such as Composer's "
                 "DecoupledAdamW: nine passes, 88 bytes, one parameter's temporaries at a time); auto: foreach under "
                 "fsdp, fused otherwise"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "\"auto\"")},
    KeyWords{.path = "training.optimizer_moments",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Optimizer moments"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "optimizer moments"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey",
                 "the format the optimizer stores its moments in (the update computes in FP32): fp32 by default; bf16 "
                 "or fp16 as Apex's DistributedFusedAdam with dtype bf16 (NeMo's optim.dtype) or Megatron-Core's "
                 "precision-aware optimizer (--exp-avg-dtype); fp8 with Transformer Engine's FusedAdam"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "\"fp32\"")},
    KeyWords{.path = "training.muon_steps",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Muon iterations"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "Newton-Schulz iterations"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey", "Newton-Schulz iterations Muon runs on each weight matrix per step (Megatron-LM "
                            "--muon-num-ns-steps); each costs 4 m^2 n + 2 m^3 FLOPs on an m x n matrix, m <= n"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "5")},
    KeyWords{.path = "training.muon_tp_mode",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Muon tensor mode"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "Muon tensor-parallel mode"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey", "duplicated: each tensor rank all-gathers a sharded matrix's momentum and iterates on "
                            "the whole matrix; blockwise: each rank iterates on its own block; distributed: each rank "
                            "iterates on its block of the whole matrix, all-reducing X X^T every iteration "
                            "(Megatron-LM --muon-tp-mode)"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "\"duplicated\"")},
    KeyWords{.path = "training.muon_scalar_optimizer",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Muon's other optimizer"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "optimizer of the parameters Muon leaves out"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey", "what steps the embeddings, the output layer and the norms under Muon and Adaptive Muon: "
                            "adam keeps two moments for them, lion one momentum (Megatron-LM "
                            "--muon-scalar-optimizer)"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "\"adam\"")},
    KeyWords{.path = "training.master_weights",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Master weights"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "master weights"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey", "the format of the optimizer's master copy of 16-bit parameters: fp32 by default; bf16 as "
                            "Apex's DistributedFusedAdam keeps its parameter shard in its dtype (NeMo's optim.dtype: "
                            "bf16), fp16 as Megatron-Core's --main-params-dtype fp16"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "\"fp32\""),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "16-bit parameters (precision other than fp32 and tf32)")},
    KeyWords{.path = "training.loss_kernel",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Loss kernel"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "loss kernel"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey",
                 "how the cross-entropy over the vocabulary runs, which sets what the logits hold at the loss: inplace "
                 "(Megatron-Core's vocab-parallel cross-entropy, 6 bytes per logit), eager (PyTorch's F.cross_entropy "
                 "on FP32 logits: its backward holds the log-softmax, its gradient and the input's gradient, 12 bytes, "
                 "16 split over tensor ranks), fused (torch.compile of the loss, flash-attn's cross-entropy: 4 bytes), "
                 "te (Transformer Engine's parallel cross-entropy, Megatron-Core's --cross-entropy-fusion-impl te: "
                 "two passes over the 16-bit logits and the gradient written over them, memory as fused); auto: "
                 "inplace under megatron and deepspeed, under fsdp fused with torch.compile and eager without"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "\"auto\"")},
    KeyWords{.path = "training.schedule_microbatches",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Schedule micro-batches"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "micro-batches per schedule run"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey",
                 "PyTorch's pipelining (framework fsdp with pipeline stages): micro-batches per run of the schedule; "
                 "torchtitan and NeMo Automodel run it once per local batch (local batch / micro-batch) and "
                 "accumulate gradients over global / (local x data) runs, each with its own fill, drain and "
                 "gradient reduce-scatter; 0: every micro-batch of the step in one run"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "0 (one run per step)"),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "a divisor of the step's micro-batches")},
    KeyWords{.path = "training.keep_pipeline_outputs",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Keep pipeline outputs"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "kept pipeline outputs"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey",
                 "PyTorch's pipelining keeps every micro-batch's last-stage output (the 16-bit logits) until the step "
                 "ends, for the merged output step() returns (torch/distributed/pipelining stage.py, output_chunks); "
                 "torchtitan before e5ef99aa (October 2025) did, today it passes return_outputs=False"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "false"),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "PyTorch's pipelining (\"fsdp\" with pipeline stages)")},
    KeyWords{.path = "training.defer_embedding_wgrad",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Defer output wgrad"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "deferred output-layer weight gradients"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey",
                 "Megatron-Core's --defer-embedding-wgrad-compute: the last pipeline stage runs the output layer's "
                 "weight-gradient GEMMs after its last backward, while the stages before it drain, instead of in each "
                 "micro-batch's backward; it keeps each deferred micro-batch's logit gradients and layer input until "
                 "then (NeMo's performance recipes of Llama 3 70B, Llama 3.1 405B, GPT-3 175B and Nemotron-4 340B "
                 "turn it on, as do Megatron-Bridge's GPT-3 175B recipe and its Llama 3 recipes of 25.09)"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "false"),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "Megatron-Core with pipeline stages, not with ZeRO stage 3")},
    KeyWords{.path = "training.wgrad_deferral_limit",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Deferral limit"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "weight-gradient deferral limit"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey",
                 "how many micro-batches' output-layer weight gradients the last stage defers (Megatron-Core's "
                 "--wgrad-deferral-limit; the recipes use 22 or 50); the later ones run in their own backward. "
                 "0: every micro-batch's"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "0 (every micro-batch)"),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "with deferred output weight gradients")},
    KeyWords{
        .path = "training.cuda_graphs",
        .label =
            QT_TRANSLATE_NOOP("PlanKey", "CUDA graphs"),
        .noun = QT_TRANSLATE_NOOP("PlanKey", "CUDA graphs"),
        .tooltip = QT_TRANSLATE_NOOP(
            "PlanKey",
            "none: the host launches every kernel (a GPU faster than its host waits); router: a mixture of experts' "
            "router and permutation preprocessing replayed as graphs; layers: each transformer layer's attention, "
            "norms, dense MLP and router replayed as one graph, the routed experts too when a capacity factor pads "
            "them to fixed shapes, else eager: Megatron-Core graphs the MoE module only with drop-padding "
            "(--cuda-graph-impl local or transformer_engine); step: the whole iteration captured "
            "(--cuda-graph-scope full_iteration); under framework fsdp only step, torchtitan's graph of the forward "
            "and backward (since f84224af0), without pipeline stages and with experts only behind HybridEP at a "
            "fixed capacity; none under deepspeed"),
        .defaultText = QT_TRANSLATE_NOOP("PlanKey", "\"none\"")},
    KeyWords{.path = "training.fused_expert_mlp",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Fused expert MLP"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "fused expert MLP"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey",
                 "mixture of experts: each of the routed experts' projections is one grouped kernel for all local "
                 "experts, the activation function and its quantization fused into the first one's epilogue "
                 "(Transformer Engine's op fuser with CuTe DSL grouped GEMMs; Megatron-Bridge "
                 "cutedsl_fused_grouped_mlp); off, one GEMM launch per local expert and a separate activation"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "false")},
    KeyWords{.path = "training.moe_paged_stash",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Paged expert stash"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "paged expert stash"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey",
                 "mixture of experts under Megatron-Core (--moe-paged-stash, with HybridEP and the fused expert MLP): "
                 "after each MoE layer's forward the tensors its fused grouped MLP keeps for backward (the two "
                 "projections' inputs, the activation's input, the routing weights) are copied into a paged buffer "
                 "that holds the tokens routed rather than the rank's capacity, and copied back before its backward; "
                 "each copy reads and writes them once in HBM. Megatron-Bridge turns it on with its full-iteration "
                 "CUDA graph recipes"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "false")},
    KeyWords{.path = "training.moe_router_fusion",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Fused router"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "fused router"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey",
                 "mixture of experts under Megatron-Core: the router's score function and top-k, and the "
                 "auxiliary loss's scores and loss, as Transformer Engine's fused kernels (--moe-router-fusion); "
                 "off, each a chain of PyTorch ops the host launches one by one (about 22 per layer, 29 with "
                 "group-limited routing, against 7)"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "false")},
    KeyWords{.path = "training.moe_permute_fusion",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Fused permutation"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "fused token permutation"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey",
                 "mixture of experts under Megatron-Core: the tokens' permutation into expert order and back, "
                 "around the all-to-all, as Transformer Engine's fused kernels (--moe-permute-fusion); off, an "
                 "argsort, gathers and scatters (about 26 launches per layer against 14); HybridEP permutes "
                 "inside its dispatch either way"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "false")},
    KeyWords{.path = "training.padding_fraction",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Padding"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "padding fraction"),
             .tooltip = QT_TRANSLATE_NOOP("PlanKey", "share of padding tokens; valid tokens/s = tokens/s x (1 - it)"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "0")},
    KeyWords{.path = "training.document_length",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Packed documents"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "document length"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey",
                 "packed sequences: mean tokens per document; attention stays within a document, so with flash "
                 "attention its work per sequence is seq_len x document_length / 2 instead of seq_len^2 / 2"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "0 (whole sequence)"),
             .rule =
                 QT_TRANSLATE_NOOP("PlanKey", "at most model.seq_len; shortens attention only with flash_attention")},
    KeyWords{.path = "parallel.data",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Data parallel"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "data parallelism"),
             .tooltip = QT_TRANSLATE_NOOP("PlanKey", "data-parallel replicas"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "GPUs / (tensor x pipeline x context)"),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "data x tensor x pipeline x context = gpus_per_node x nodes")},
    KeyWords{.path = "parallel.tensor",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Tensor parallel"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "tensor parallelism"),
             .tooltip = QT_TRANSLATE_NOOP("PlanKey", "tensor-parallel group size t"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "1"),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "divides model.heads, model.kv_heads and model.ffn_hidden")},
    KeyWords{.path = "parallel.pipeline",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Pipeline stages"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "pipeline stages"),
             .tooltip = QT_TRANSLATE_NOOP("PlanKey", "pipeline-parallel stages p"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "1")},
    KeyWords{.path = "parallel.context",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Context parallel"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "context parallelism"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey", "context-parallel size: each rank holds seq_len / context tokens of every sequence; groups "
                            "sit between tensor and data in the rank order (Megatron-Core)"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "1"),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "model.seq_len divisible by 2 x context (causal load balancing)")},
    KeyWords{.path = "parallel.context_comm",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Context exchange"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "context exchange"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey",
                 "ring: KV blocks passed around the group, overlapped with attention; all-gather: the whole KV "
                 "gathered first (Llama 3); all-to-all: sequence shards exchanged for head shards (Ulysses)"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "\"ring\""),
             .rule = QT_TRANSLATE_NOOP("PlanKey",
                                       "all-to-all: model.heads and model.kv_heads divisible by tensor x context")},
    KeyWords{.path = "parallel.rank_order",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Rank order"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "rank order"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey",
                 "which ranks are neighbours, innermost first: tp-cp-ep-dp-pp (Megatron-Core's default) puts a "
                 "stage's data replicas side by side and the pipeline stages farthest apart; tp-cp-ep-pp-dp "
                 "(Megatron-LM --use-tp-pp-dp-mapping) puts the stages side by side and the data replicas apart. "
                 "It decides which groups share a node's scale-up links"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "\"tp-cp-ep-dp-pp\""),
             .rule = QT_TRANSLATE_NOOP("PlanKey",
                                       "tp-cp-ep-pp-dp: framework megatron, not with ZeRO-3 (Megatron-FSDP); with "
                                       "experts and pipeline stages, expert x expert_tensor = tensor x context")},
    KeyWords{.path = "parallel.virtual_stages",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Virtual stages"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "virtual stages"),
             .tooltip = QT_TRANSLATE_NOOP("PlanKey", "model chunks per stage (interleaved schedule)"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "1"),
             .rule = QT_TRANSLATE_NOOP(
                 "PlanKey", "> 1 needs \"schedule\": \"interleaved\" and micro-batches divisible by pipeline")},
    KeyWords{.path = "parallel.first_stage_layers",
             .label = QT_TRANSLATE_NOOP("PlanKey", "First stage layers"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "layers on the first stage"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey", "layers on the first pipeline stage, which also holds the embedding (Megatron-Core "
                            "--decoder-first-pipeline-num-layers); 0 gives it an even share"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "0 (an even share)"),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "the other stages share the remaining layers evenly; with "
                                                  "virtual_stages v, the middle stages' share divides by v")},
    KeyWords{.path = "parallel.last_stage_layers",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Last stage layers"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "layers on the last stage"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey", "layers on the last pipeline stage, which also holds the output layer and the loss "
                            "(Megatron-Core --decoder-last-pipeline-num-layers); 0 gives it an even share"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "0 (an even share)"),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "the other stages share the remaining layers evenly; with "
                                                  "virtual_stages v, the middle stages' share divides by v")},
    KeyWords{.path = "parallel.stage_layers",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Layers per stage"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "layers per stage"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey",
                 "every pipeline stage's decoder layers, first to last, e.g. 10, 10, 10, 11, 10, 10, 10, 9: the stages "
                 "Megatron-Core's --pipeline-model-parallel-layout gives each rank (summed over its model chunks), "
                 "to balance the embedding, the output layer and the loss; empty: an even split or the first and "
                 "last stage layers"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "empty (an even split)"),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "one entry per pipeline stage, adding up to model.layers; with "
                                                  "virtual_stages v, at least v on each stage")},
    KeyWords{.path = "parallel.expert",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Expert parallel"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "expert parallelism"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey",
                 "routed experts split over this many ranks; tokens reach them by all-to-all (dispatch and combine)"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "1"),
             .rule = QT_TRANSLATE_NOOP(
                 "PlanKey",
                 "model.experts divisible by expert; expert x expert_tensor divides data x context x tensor")},
    KeyWords{.path = "parallel.expert_tensor",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Expert tensor parallel"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "expert tensor parallelism"),
             .tooltip = QT_TRANSLATE_NOOP("PlanKey", "each expert's MLP split over this many ranks (Megatron-Core "
                                                     "--expert-tensor-parallel-size); 0: the tensor size"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "tensor"),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "divides model.expert_ffn_hidden")},
    KeyWords{.path = "parallel.expert_dispatcher",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Expert dispatcher"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "expert dispatcher"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey",
                 "alltoall: Megatron-Core's all-to-all token dispatcher, one copy per routed expert through NCCL; "
                 "deepep: the flex dispatcher with DeepEP, one copy per destination node across the network (fanned "
                 "out over NVLink there) at the links' own rates (Megatron-Core --moe-token-dispatcher-type flex "
                 "--moe-enable-deepep); hybridep: the flex dispatcher with HybridEP, the same per scale-up domain (an "
                 "NVL72 rack's whole exchange over NVLink; --moe-flex-dispatcher-backend hybridep)"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "\"alltoall\"")},
    KeyWords{.path = "parallel.expert_comm_overlap",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Overlap expert all-to-all"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "expert all-to-all overlap"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey",
                 "run one micro-batch's expert dispatch and combine beside another micro-batch's compute, layer by "
                 "layer (Megatron-Core --overlap-moe-expert-parallel-comm with --delay-wgrad-compute); needs two "
                 "micro-batches; the dispatcher's SMs slow the compute it hides behind"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "false")},
    KeyWords{.path = "parallel.reshard_after_forward",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Reshard after forward"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "resharding after forward"),
             .tooltip =
                 QT_TRANSLATE_NOOP("PlanKey", "FSDP2: free each block's gathered parameters after its forward and "
                                              "gather them again for backward; off: keep them until backward"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "true"),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "used with training.framework \"fsdp\"")},
    KeyWords{.path = "parallel.shard_group",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Shard group"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "hybrid sharding"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey",
                 "Hybrid sharding: shard the ZeRO-sharded state over this many data ranks and replicate across "
                 "the rest; gathers and reduce-scatters stay inside the shard group, the gradient shards are "
                 "all-reduced across replicas. FSDP2's HSDP (torchtitan data_parallel_shard_degree with "
                 "data_parallel_replicate_degree), Megatron-Core's partial distributed optimizer "
                 "(--num-distributed-optimizer-instances: data x context / shard group) and DeepSpeed's MiCS "
                 "(mics_shard_size); 0: shard over all of them"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "0 (every data rank)"),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "with training.framework \"fsdp\", \"megatron\" at ZeRO 1 or "
                                                  "\"deepspeed\" at ZeRO 3: at least 2, dividing data x context")},
    KeyWords{.path = "parallel.zero_quantized_weights",
             .label = QT_TRANSLATE_NOOP("PlanKey", "INT8 gathers (qwZ)"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "ZeRO++ quantized weights"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey",
                 "ZeRO++ qwZ: ZeRO-3's parameter all-gathers move INT8 blocks, dequantized to 16 bits on arrival: "
                 "half the bytes of a 16-bit gather (Wang et al. 2023, Sec. 3.1; DeepSpeed "
                 "zero_quantized_weights)"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "false"),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "with training.framework \"deepspeed\" at ZeRO 3")},
    KeyWords{.path = "parallel.zero_hpz_partition",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Secondary group (hpZ)"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "ZeRO++ secondary partition"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey",
                 "ZeRO++ hpZ: a second copy of the 16-bit parameters sharded over this many consecutive data "
                 "ranks (one node's GPUs), gathered from it for backward, so the backward gathers stay inside "
                 "the group; it costs each GPU the stage's parameters x 2 bytes / this size (Wang et al. 2023, "
                 "Sec. 3.2; DeepSpeed zero_hpz_partition_size); 1: off"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "1 (off)"),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "with training.framework \"deepspeed\" at ZeRO 3: 1, or a "
                                                  "divisor of the shard ranks below them")},
    KeyWords{.path = "parallel.zero_quantized_gradients",
             .label = QT_TRANSLATE_NOOP("PlanKey", "INT4 gradients (qgZ)"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "ZeRO++ quantized gradients"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey",
                 "ZeRO++ qgZ: ZeRO-3's gradient reduce-scatter runs as INT4 all-to-alls, reduced in full "
                 "precision between them: a quarter of the bytes of a 16-bit reduce-scatter (Wang et al. 2023, "
                 "Sec. 3.3; DeepSpeed zero_quantized_gradients)"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "false"),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "with training.framework \"deepspeed\" at ZeRO 3")},
    KeyWords{.path = "parallel.schedule",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Schedule"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "pipeline schedule"),
             .tooltip = QT_TRANSLATE_NOOP("PlanKey", "pipeline schedule; zb-h1: zero-bubble with 1F1B's memory, zb-h2: "
                                                     "zero-bubble with up to 2p - 1 micro-batches in flight (Qi et al. "
                                                     "2024)"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "\"1f1b\"")},
    KeyWords{.path = "parallel.zero_stage",
             .label = QT_TRANSLATE_NOOP("PlanKey", "ZeRO stage"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "ZeRO stage"),
             .tooltip =
                 QT_TRANSLATE_NOOP("PlanKey", "shard optimizer (1), + gradients, reduce-scattered after every "
                                              "micro-batch (2), + parameters, gathered per layer for each pass (3)"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "0"),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "2 and 3 only with parallel.pipeline 1")},
    KeyWords{.path = "parallel.offload_optimizer",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Offload optimizer"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "optimizer offload"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey", "optimizer state in host memory and its update on the host (ZeRO-Offload): gradients over "
                            "the host link (behind the backward under DeepSpeed and FSDP2, after it under "
                            "Megatron-Core), the update through the host's memory, parameters back"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "false"),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "not with training.optimizer muon or adaptive_muon")},
    KeyWords{.path = "parallel.optimizer_offload_fraction",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Offloaded share"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "optimizer offload fraction"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey", "Megatron-Core's CPU optimizer (--optimizer-offload-fraction): the share of each rank's "
                            "optimizer shard stepped on the host; its moments leave the GPU, the FP32 master copy "
                            "stays; the rest steps on the GPU"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "1"),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "below 1 only under training.framework \"megatron\"")},
    KeyWords{.path = "parallel.overlap_offload_copies",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Overlap offload copies"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "offload copy overlap"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey", "Megatron-Core's CPU optimizer (--overlap-cpu-optimizer-d2h-h2d): each parameter's "
                            "gradient goes to the host and its update comes back on their own streams while the host "
                            "steps the others, so the copies hide behind the host's update; off, they come before and "
                            "after it"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "false")},
    KeyWords{.path = "parallel.offload_parameters",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Offload parameters"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "parameter offload"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey", "ZeRO-3's parameter shards in host memory (DeepSpeed's offload_param, ZeRO-Infinity; "
                            "FSDP2's CPU offload, torchtitan enable_cpu_offload): each rank uploads its shard of a "
                            "unit over the host link before every gather of it"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "false"),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "ZeRO stage 3 under training.framework \"deepspeed\" or \"fsdp\"")},
    KeyWords{.path = "parallel.bucket_bytes",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Gradient bucket"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "gradient bucket"),
             .tooltip = QT_TRANSLATE_NOOP("PlanKey", "data-parallel gradient bucket"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "25e6")},
    KeyWords{.path = "parallel.overlap_grad_reduce",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Overlap gradient reduction"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "gradient-reduction overlap"),
             .tooltip = QT_TRANSLATE_NOOP("PlanKey", "bucketed gradient reduction overlaps the last backward"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "true")},
    KeyWords{.path = "parallel.overlap_param_gather",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Overlap parameter gather"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "parameter-gather overlap"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey",
                 "ZeRO 1-2 / distributed optimizer: gather the updated parameters during the next forward "
                 "(Megatron-Core --overlap-param-gather) instead of after the optimizer step; ZeRO-3 under "
                 "Megatron-FSDP: prefetch each layer's gather behind the layer before (FSDP2 and DeepSpeed always do)"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "false")},
    KeyWords{.path = "parallel.tensor_comm_overlap",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Overlap tensor-parallel comm."),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "tensor-parallel overlap"),
             .tooltip =
                 QT_TRANSLATE_NOOP("PlanKey", "tensor-parallel all-gathers and reduce-scatters overlapped with the "
                                              "GEMMs they feed (Transformer Engine userbuffers, NeMo tp_comm_overlap; "
                                              "under FSDP2 torchtitan's async TP, which hides about half as much)"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "false"),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "needs training.sequence_parallel")},
    KeyWords{.path = "parallel.overlap_p2p_comm",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Overlap pipeline transfers"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "pipeline-transfer overlap"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey", "pipeline sends and receives run beside the next chunk's compute (Megatron-LM does it by "
                            "default under the interleaved schedule; --no-overlap-p2p-communication turns it off); "
                            "off, each blocking transfer occupies the stage"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "false")},
    KeyWords{.path = "cluster.device",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Device"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "device"),
             .tooltip = QT_TRANSLATE_NOOP("PlanKey", "a device id from resources/devices.json or custom_devices"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "required (unless node_groups)")},
    KeyWords{.path = "cluster.gpus_per_node",
             .label = QT_TRANSLATE_NOOP("PlanKey", "GPUs per node"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "GPUs per node"),
             .tooltip = QT_TRANSLATE_NOOP("PlanKey", "accelerators sharing the scale-up link"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "8")},
    KeyWords{.path = "cluster.nodes",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Nodes"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "nodes"),
             .tooltip = QT_TRANSLATE_NOOP("PlanKey", "all nodes of the cluster"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "1")},
    KeyWords{.path = "cluster.scale_up_domain",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Scale-up domain"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "scale-up domain"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey",
                 "GPUs joined by the scale-up fabric (NVLink): tensor and data groups inside one domain use its "
                 "bandwidth even across nodes; 72 for a GB200/GB300 NVL72 rack of 4-GPU trays; 0: one node"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "0 (gpus_per_node)"),
             .rule = QT_TRANSLATE_NOOP("PlanKey", "0 or a multiple of gpus_per_node")},
    KeyWords{.path = "cluster.intra_node_link",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Intra-node link"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "intra-node link"),
             .tooltip = QT_TRANSLATE_NOOP("PlanKey",
                                          "a link id from resources/cluster.json (nvlink3-nvswitch, pcie4-x16, ...)"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "device's own")},
    KeyWords{.path = "cluster.network",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Network"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "network"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey", "a network tier id from resources/cluster.json (ib-ndr, ib-hdr, roce-400, ...)"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "device's own")},
    KeyWords{.path = "cluster.node_groups",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Node groups"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "node groups"),
             .tooltip = QT_TRANSLATE_NOOP("PlanKey",
                                          "node groups in rank order: {\"template\", \"device\", \"gpus_per_node\", "
                                          "\"nodes\", \"intra_node_link\"}, at most 256; see below"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "one group")},
    KeyWords{
        .path = "cluster.custom_devices",
        .label =
            QT_TRANSLATE_NOOP("PlanKey", "Custom devices"),
        .noun = QT_TRANSLATE_NOOP("PlanKey", "custom devices"),
        .tooltip = QT_TRANSLATE_NOOP(
            "PlanKey",
            "user-defined devices this plan uses, each in the devices.json schema; ids may not shadow a built-in one"),
        .defaultText = QT_TRANSLATE_NOOP("PlanKey", "none")},
    KeyWords{.path = "cluster.intra_node_bandwidth",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Intra-node bandwidth"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "intra-node bandwidth"),
             .tooltip = QT_TRANSLATE_NOOP("PlanKey", "per GPU, one direction"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "device")},
    KeyWords{.path = "cluster.intra_node_latency",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Intra-node latency"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "intra-node latency"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "device")},
    KeyWords{.path = "cluster.network_bandwidth",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Network bandwidth"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "network bandwidth"),
             .tooltip = QT_TRANSLATE_NOOP("PlanKey", "per GPU, one direction"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "device")},
    KeyWords{.path = "cluster.network_latency",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Network latency"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "network latency"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "device")},
    KeyWords{.path = "cluster.runtime_context_bytes",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Runtime context"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "runtime context"),
             .tooltip =
                 QT_TRANSLATE_NOOP("PlanKey", "CUDA/HIP context and its loaded kernel modules (device-used peak)"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "device")},
    KeyWords{.path = "cluster.host_link_bandwidth",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Host link bandwidth"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "host link bandwidth"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey", "each GPU's link to host memory (PCIe, NVLink-C2C), one direction: an offloaded "
                            "optimizer's gradients go to the host and its parameters come back over it"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "device")},
    KeyWords{.path = "cluster.host_launch_overhead",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Host launch per kernel"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "host launch overhead"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey", "the host CPU's time to launch one kernel from the framework (PyTorch's dispatch, the "
                            "libraries' Python, the CUDA launch): a GPU whose kernels are shorter waits for its host "
                            "unless CUDA graphs replay them (training.cuda_graphs)"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "device")},
    KeyWords{.path = "cluster.host_enqueue_overhead",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Host enqueue per kernel"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "host enqueue overhead"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey", "the host CPU's time per kernel a library's native code enqueues inside one launch "
                            "(Transformer Engine's grouped expert GEMM: a quantize, an allocation and a cuBLAS GEMM "
                            "per local expert), beside the host launch per kernel"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "device")},
    KeyWords{.path = "cluster.flex_dispatch_efficiency",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Flex dispatch efficiency"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "flex dispatch efficiency"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey", "the share of the scale-up link's nominal rate DeepEP's and HybridEP's dispatch and "
                            "combine reach inside the NVLink domain (parallel.expert_dispatcher deepep or hybridep), "
                            "as their authors measure it: about all of it on Hopper, about half of NVLink 5 on "
                            "Blackwell"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "device")},
    KeyWords{.path = "cluster.network_alltoall_efficiency",
             .label = QT_TRANSLATE_NOOP("PlanKey", "All-to-all network efficiency"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "all-to-all network efficiency"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey", "the share of each GPU's network share NCCL's all-to-all reaches across nodes (the expert "
                            "dispatch and combine of parallel.expert_dispatcher alltoall): each copy for another node "
                            "leaves through the sender's own NIC, point to point, not through the rings the other "
                            "collectives' network efficiency describes"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "device")},
    KeyWords{.path = "cluster.intra_node_alltoall_efficiency",
             .label = QT_TRANSLATE_NOOP("PlanKey", "All-to-all scale-up efficiency"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "all-to-all scale-up efficiency"),
             .tooltip = QT_TRANSLATE_NOOP(
                 "PlanKey", "the share of the scale-up link NCCL's all-to-all reaches among many ranks of one NVLink "
                            "domain (parallel.expert_dispatcher alltoall); fewer ranks reach more of it, two about "
                            "1.8 times as much, as NCCL's measured bus bandwidth on 8-GPU nodes falls with the peers"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "device")},
    KeyWords{.path = "cluster.host_memory_bandwidth",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Host memory bandwidth"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "host memory bandwidth"),
             .tooltip = QT_TRANSLATE_NOOP("PlanKey", "one node's host DRAM bandwidth (all sockets, peak): an offloaded "
                                                     "optimizer step streams every GPU's shard of the node through it"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "device")},
    KeyWords{.path = "run.token_budget",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Token budget"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "token budget"),
             .tooltip = QT_TRANSLATE_NOOP("PlanKey", "tokens to train on"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "300e9")},
    KeyWords{.path = "run.price_per_gpu_hour",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Price per GPU-hour"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "price per GPU-hour"),
             .tooltip = QT_TRANSLATE_NOOP("PlanKey", "in run.currency per GPU-hour"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "2.0")},
    KeyWords{.path = "run.currency",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Currency"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "currency"),
             .tooltip = QT_TRANSLATE_NOOP("PlanKey", "of the price and the cost: an ISO 4217 code (USD, EUR, GBP, JPY, "
                                                     "CNY print with their sign) or any short word"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "\"USD\"")},
    KeyWords{.path = "run.checkpoint_bandwidth",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Checkpoint bandwidth"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "checkpoint bandwidth"),
             .tooltip = QT_TRANSLATE_NOOP("PlanKey", "what the storage system writes, all writers together"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "20e9")},
    KeyWords{.path = "run.sharded_checkpoint",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Sharded checkpoint"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "sharded checkpoint"),
             .tooltip = QT_TRANSLATE_NOOP("PlanKey", "every rank writes its shard; false: gathered to one writer"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "true")},
    KeyWords{.path = "run.gpu_mtbf_hours",
             .label = QT_TRANSLATE_NOOP("PlanKey", "GPU MTBF"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "GPU MTBF"),
             .tooltip =
                 QT_TRANSLATE_NOOP("PlanKey", "mean time between failures of one GPU (Llama 3: ~50,700 GPU-hours)"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "50000")},
    KeyWords{.path = "run.restart_seconds",
             .label = QT_TRANSLATE_NOOP("PlanKey", "Restart time"),
             .noun = QT_TRANSLATE_NOOP("PlanKey", "restart time"),
             .tooltip = QT_TRANSLATE_NOOP("PlanKey", "to detect a failure, restart and reload"),
             .defaultText = QT_TRANSLATE_NOOP("PlanKey", "600")},
};

QString translated(const char *text)
{
    return *text ? QCoreApplication::translate("PlanKey", text) : QString();
}

} // namespace

std::span<const KeyWords> allKeyWords()
{
    return kWords;
}

const KeyWords &keyWords(std::string_view path)
{
    static const KeyWords none{};
    const auto it = std::find_if(kWords.begin(), kWords.end(), [&](const KeyWords &w) { return path == w.path; });
    return it == kWords.end() ? none : *it;
}

QString keyLabel(const PlanKey &key)
{
    return translated(keyWords(key.path).label);
}

QString keyNoun(const PlanKey &key)
{
    return translated(keyWords(key.path).noun);
}

QString keyTooltip(const PlanKey &key)
{
    return translated(keyWords(key.path).tooltip);
}

QString keyDefaultText(const PlanKey &key)
{
    return translated(keyWords(key.path).defaultText);
}

QString keyRule(const PlanKey &key)
{
    return translated(keyWords(key.path).rule);
}

} // namespace trainplan::io
