#include "core/plan/PlanKeys.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>

#include "core/common/Units.h"
#include "core/plan/Plan.h"

namespace trainplan {

namespace {

// Values <-> fields.
KeyValue toValue(std::int64_t v) { return v; }
KeyValue toValue(double v) { return v; }
KeyValue toValue(bool v) { return v; }
KeyValue toValue(const std::string &v) { return v; }
KeyValue toValue(const std::optional<double> &v) { return v ? KeyValue(*v) : KeyValue(); }
template<NamedEnum E>
KeyValue toValue(E v)
{
    return std::string(toString(v));
}

void fromValue(const KeyValue &v, std::int64_t &out)
{
    if (const auto *i = std::get_if<std::int64_t>(&v))
        out = *i;
}
void fromValue(const KeyValue &v, double &out)
{
    if (const auto *d = std::get_if<double>(&v))
        out = *d;
    else if (const auto *i = std::get_if<std::int64_t>(&v))
        out = double(*i);
}
void fromValue(const KeyValue &v, bool &out)
{
    if (const auto *b = std::get_if<bool>(&v))
        out = *b;
}
void fromValue(const KeyValue &v, std::string &out)
{
    if (const auto *s = std::get_if<std::string>(&v))
        out = *s;
}
void fromValue(const KeyValue &v, std::optional<double> &out)
{
    if (std::holds_alternative<std::monostate>(v)) {
        out.reset();
        return;
    }
    double d = 0;
    fromValue(v, d);
    out = d;
}
template<NamedEnum E>
void fromValue(const KeyValue &v, E &out)
{
    if (const auto *s = std::get_if<std::string>(&v))
        if (const auto e = fromString<E>(*s))
            out = *e;
}

/// A field two levels down: plan.*Section.*Member.
template<auto Section, auto Member>
constexpr KeyAccess field()
{
    return {[](const Plan &p) { return toValue((p.*Section).*Member); },
            [](Plan &p, const KeyValue &v) { fromValue(v, (p.*Section).*Member); }};
}

/// A cluster override: plan.cluster.overrides.*Member.
template<auto Member>
constexpr KeyAccess overrideField()
{
    return {[](const Plan &p) { return toValue(p.cluster.overrides.*Member); },
            [](Plan &p, const KeyValue &v) { fromValue(v, p.cluster.overrides.*Member); }};
}

const std::vector<KeyChoice> &zeroStages()
{
    static const std::vector<KeyChoice> choices{
        {"0", "0: replicated"}, {"1", "1: optimizer"}, {"2", "2: + gradients"}, {"3", "3: + parameters"}};
    return choices;
}

// Physical ranges: wide enough for any machine that exists or is announced, narrow enough that no product
// of them overflows and every estimate stays finite.
constexpr double kTwoTo(int k) { return double(std::int64_t(1) << k); }
constexpr KeyRange kFraction{0, 1, false, true};
constexpr KeyRange kBandwidth{1e6, 1e14};      ///< 1 MB/s to 100 TB/s
constexpr KeyRange kLatency{0, 1, false, true}; ///< under a second per message step

using M = ModelSpec;
using T = TrainingConfig;
using P = ParallelConfig;
using C = ClusterConfig;
using R = RunConfig;

// clang-format off
const std::array kKeys{
    // Root.
    PlanKey{.path = "format", .type = KeyType::String, .tooltip = "\"trainplan-plan\"", .defaultText = "required"},
    PlanKey{.path = "version", .type = KeyType::Integer, .tooltip = "1", .defaultText = "required"},
    PlanKey{.path = "name", .type = KeyType::String, .label = "Name", .noun = "plan name",
            .tooltip = "shown in titles and reports; empty: an automatic name (model, GPUs, layout) that follows the "
                       "plan",
            .defaultText = "automatic", .maxLength = kMaxNameLength, .editor = KeyEditor::Text,
            .access = {[](const Plan &p) { return KeyValue(p.name); },
                       [](Plan &p, const KeyValue &v) { fromValue(v, p.name); }}},

    PlanKey{.path = "description", .type = KeyType::String, .label = "Description", .noun = "description",
            .tooltip = "one line on what the plan is for (the examples gallery shows it)", .defaultText = "none",
            .maxLength = kMaxTextLength, .editor = KeyEditor::Text,
            .access = {[](const Plan &p) { return KeyValue(p.description); },
                       [](Plan &p, const KeyValue &v) { fromValue(v, p.description); }}},

    // Model.
    PlanKey{.path = "model.preset", .type = KeyType::String, .label = "Preset", .noun = "model",
            .tooltip = "a published model shape (resources/models.json); any key below overrides it",
            .defaultText = "none (custom shape)", .editor = KeyEditor::Preset},
    PlanKey{.path = "model.name", .type = KeyType::String, .label = "Model name", .noun = "model name",
            .defaultText = "preset name or \"custom\"", .maxLength = kMaxNameLength,
            .access = field<&Plan::model, &M::name>()},
    PlanKey{.path = "model.layers", .type = KeyType::Integer, .label = "Layers", .noun = "layers",
            .tooltip = "transformer layers", .defaultText = "required (custom)",
            .rule = "divisible by pipeline x virtual_stages, unless first/last_stage_layers split it",
            .range = {1, 100000}, .editor = KeyEditor::Spin,
            .access = field<&Plan::model, &M::layers>()},
    PlanKey{.path = "model.hidden", .type = KeyType::Integer, .label = "Hidden size", .noun = "hidden size",
            .tooltip = "model width h", .defaultText = "required (custom)", .rule = "divisible by heads",
            .range = {1, kTwoTo(20)}, .editor = KeyEditor::Spin, .access = field<&Plan::model, &M::hidden>()},
    PlanKey{.path = "model.heads", .type = KeyType::Integer, .label = "Attention heads", .noun = "attention heads",
            .tooltip = "query heads a; must divide h and be divisible by t", .defaultText = "required (custom)",
            .rule = "divisible by tensor", .range = {1, 65536}, .editor = KeyEditor::Spin,
            .access = field<&Plan::model, &M::heads>()},
    PlanKey{.path = "model.kv_heads", .type = KeyType::Integer, .label = "Key/value heads", .noun = "key/value heads",
            .tooltip = "grouped-query attention: key/value heads", .defaultText = "heads",
            .rule = "divides heads; divisible by tensor", .range = {1, 65536}, .editor = KeyEditor::Spin,
            .access = field<&Plan::model, &M::kvHeads>()},
    PlanKey{.path = "model.head_dim", .type = KeyType::Integer, .label = "Head size", .noun = "head size",
            .tooltip = "size of one attention head when it is not hidden / heads (Gemma, Qwen3, GPT-OSS set head_dim); "
                       "Q and the attention output are heads x head size wide; 0: hidden / heads",
            .defaultText = "0 (hidden / heads)", .range = {0, 65536}, .zeroMeansUnset = true, .editor = KeyEditor::Spin,
            .access = field<&Plan::model, &M::headDimension>()},
    PlanKey{.path = "model.ffn_hidden", .type = KeyType::Integer, .label = "MLP width", .noun = "MLP width",
            .tooltip = "inner width of the MLP", .defaultText = "4 x hidden", .rule = "divisible by tensor",
            .range = {1, kTwoTo(22)}, .editor = KeyEditor::Spin, .access = field<&Plan::model, &M::ffnHidden>()},
    PlanKey{.path = "model.vocab", .type = KeyType::Integer, .label = "Vocabulary", .noun = "vocabulary",
            .tooltip = "vocabulary size V", .defaultText = "required (custom)", .range = {1, kTwoTo(24)},
            .editor = KeyEditor::Spin, .access = field<&Plan::model, &M::vocab>()},
    PlanKey{.path = "model.seq_len", .type = KeyType::Integer, .label = "Sequence length", .noun = "sequence length",
            .tooltip = "tokens per sequence s", .defaultText = "required (custom)", .range = {1, kTwoTo(24)},
            .editor = KeyEditor::Spin, .access = field<&Plan::model, &M::seqLen>()},
    PlanKey{.path = "model.mlp", .type = KeyType::Enum, .label = "MLP kind", .noun = "MLP kind",
            .tooltip = "sets the defaults of norm, linear_bias, position_embedding and dropout",
            .defaultText = "\"gelu\"",
            .choices = choicesOf<MlpKind>, .access = field<&Plan::model, &M::mlp>()},
    PlanKey{.path = "model.tied_embeddings", .type = KeyType::Bool, .label = "Tied embeddings",
            .noun = "tied embeddings",
            .tooltip = "output projection shares the word embedding", .defaultText = "false",
            .access = field<&Plan::model, &M::tiedEmbeddings>()},
    PlanKey{.path = "model.norm", .type = KeyType::Enum, .label = "Norm", .noun = "norm",
            .defaultText = "gelu: layernorm; swiglu: rmsnorm", .choices = choicesOf<NormKind>,
            .access = field<&Plan::model, &M::norm>()},
    PlanKey{.path = "model.linear_bias", .type = KeyType::Bool, .label = "Linear biases", .noun = "linear biases",
            .defaultText = "gelu: true; swiglu: false", .access = field<&Plan::model, &M::linearBias>()},
    PlanKey{.path = "model.position_embedding", .type = KeyType::Enum, .label = "Positions",
            .noun = "position embedding",
            .tooltip = "learned adds seq_len x hidden parameters", .defaultText = "gelu: learned; swiglu: rotary",
            .choices = choicesOf<PositionEmbedding>, .access = field<&Plan::model, &M::position>()},
    PlanKey{.path = "model.dropout", .type = KeyType::Bool, .label = "Dropout", .noun = "dropout",
            .tooltip = "dropout masks are stored activations", .defaultText = "gelu: true; swiglu: false",
            .access = field<&Plan::model, &M::dropout>()},

    PlanKey{.path = "model.experts", .type = KeyType::Integer, .label = "Experts", .noun = "experts",
            .tooltip = "routed experts per mixture-of-experts layer; 0: a dense model", .defaultText = "0 (dense)",
            .rule = "divisible by parallel.expert", .range = {0, 65536}, .editor = KeyEditor::Spin,
            .access = field<&Plan::model, &M::experts>()},
    PlanKey{.path = "model.experts_per_token", .type = KeyType::Integer, .label = "Experts per token",
            .noun = "experts per token",
            .tooltip = "top-k: routed experts each token goes to", .defaultText = "0",
            .rule = "1..experts when experts > 0",
            .range = {0, 65536}, .editor = KeyEditor::Spin, .access = field<&Plan::model, &M::expertsPerToken>()},
    PlanKey{.path = "model.shared_experts", .type = KeyType::Integer, .label = "Shared experts",
            .noun = "shared experts",
            .tooltip = "experts every token passes through (DeepSeek, Llama 4), expert_ffn_hidden wide each, split "
                       "like a dense MLP",
            .defaultText = "0", .range = {0, 1024}, .editor = KeyEditor::Spin,
            .access = field<&Plan::model, &M::sharedExperts>()},
    PlanKey{.path = "model.expert_ffn_hidden", .type = KeyType::Integer, .label = "Expert MLP width",
            .noun = "expert MLP width",
            .tooltip = "inner width of one expert's MLP", .defaultText = "ffn_hidden",
            .rule = "divisible by parallel.expert_tensor",
            .range = {0, kTwoTo(22)}, .zeroMeansUnset = true, .editor = KeyEditor::Spin,
            .access = field<&Plan::model, &M::expertFfnHidden>()},
    PlanKey{.path = "model.dense_layers", .type = KeyType::Integer, .label = "Dense first layers",
            .noun = "dense first layers",
            .tooltip = "the first k layers keep a dense MLP of ffn_hidden (DeepSeek-V3: 3)", .defaultText = "0",
            .rule = "below layers", .range = {0, 100000}, .editor = KeyEditor::Spin,
            .access = field<&Plan::model, &M::denseLayers>()},
    PlanKey{.path = "model.moe_layer_interval", .type = KeyType::Integer, .label = "MoE layer interval",
            .noun = "MoE layer interval",
            .tooltip = "every n-th layer after the dense ones is a mixture of experts (Llama 4 Maverick: 2)",
            .defaultText = "1",
            .range = {1, 1024}, .editor = KeyEditor::Spin, .access = field<&Plan::model, &M::moeLayerInterval>()},
    PlanKey{.path = "model.mtp_layers", .type = KeyType::Integer, .label = "MTP layers",
            .noun = "multi-token-prediction layers",
            .tooltip = "multi-token-prediction modules after the last layer (DeepSeek-V3: 1), on the last stage",
            .defaultText = "0", .range = {0, 64}, .editor = KeyEditor::Spin,
            .access = field<&Plan::model, &M::mtpLayers>()},
    PlanKey{.path = "model.router_groups", .type = KeyType::Integer, .label = "Router groups", .noun = "router groups",
            .tooltip = "group-limited routing: the experts form this many contiguous groups (DeepSeek-V3: 8, one per "
                       "node at expert 64 on 8-GPU nodes; HF n_group, Megatron-Core --moe-router-num-groups); 0: "
                       "ungrouped",
            .defaultText = "0 (ungrouped)", .rule = "divides experts; set with router_group_topk", .range = {0, 65536},
            .zeroMeansUnset = true, .editor = KeyEditor::Spin, .access = field<&Plan::model, &M::routerGroups>()},
    PlanKey{.path = "model.router_group_topk", .type = KeyType::Integer, .label = "Groups per token",
            .noun = "router groups per token",
            .tooltip = "group-limited routing: a token's experts come from at most this many groups (DeepSeek-V3: 4; "
                       "HF topk_group, Megatron-Core --moe-router-group-topk), so its copies reach at most that many "
                       "nodes",
            .defaultText = "0 (ungrouped)",
            .rule = "1..router_groups, with at least experts_per_token experts in that many groups",
            .range = {0, 65536}, .zeroMeansUnset = true, .editor = KeyEditor::Spin,
            .access = field<&Plan::model, &M::routerGroupTopk>()},
    PlanKey{.path = "model.attention", .type = KeyType::Enum, .label = "Attention", .noun = "attention kind",
            .tooltip = "mha: multi-head, grouped-query through kv_heads; mla: multi-head latent attention "
                       "(DeepSeek-V2/V3) with the q_lora_rank, kv_lora_rank and head-size keys",
            .defaultText = "\"mha\"",
            .rule = "mla needs kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim and v_head_dim",
            .editor = KeyEditor::Choice, .choices = choicesOf<AttentionKind>,
            .access = field<&Plan::model, &M::attention>()},
    PlanKey{.path = "model.q_lora_rank", .type = KeyType::Integer, .label = "Query latent rank",
            .noun = "query latent rank",
            .tooltip = "MLA: queries projected down to this rank and up again; 0: projected directly",
            .defaultText = "0",
            .range = {0, 65536}, .editor = KeyEditor::Spin, .access = field<&Plan::model, &M::qLoraRank>()},
    PlanKey{.path = "model.kv_lora_rank", .type = KeyType::Integer, .label = "Key/value latent rank",
            .noun = "key/value latent rank",
            .tooltip = "MLA: keys and values compressed to this latent", .defaultText = "0", .range = {0, 65536},
            .editor = KeyEditor::Spin, .access = field<&Plan::model, &M::kvLoraRank>()},
    PlanKey{.path = "model.qk_nope_head_dim", .type = KeyType::Integer, .label = "QK head size (no RoPE)",
            .noun = "QK head size",
            .tooltip = "MLA: per-head query/key part without rotary embedding", .defaultText = "0", .range = {0, 65536},
            .editor = KeyEditor::Spin, .access = field<&Plan::model, &M::qkNopeHeadDim>()},
    PlanKey{.path = "model.qk_rope_head_dim", .type = KeyType::Integer, .label = "QK rotary size",
            .noun = "QK rotary size",
            .tooltip = "MLA: per-head rotary part (one key part shared by all heads)", .defaultText = "0",
            .range = {0, 65536},
            .editor = KeyEditor::Spin, .access = field<&Plan::model, &M::qkRopeHeadDim>()},
    PlanKey{.path = "model.v_head_dim", .type = KeyType::Integer, .label = "Value head size", .noun = "value head size",
            .tooltip = "MLA: per-head value size", .defaultText = "0", .range = {0, 65536}, .editor = KeyEditor::Spin,
            .access = field<&Plan::model, &M::vHeadDim>()},
    PlanKey{.path = "model.sliding_window", .type = KeyType::Integer, .label = "Sliding window",
            .noun = "sliding window",
            .tooltip = "sliding-window attention: a query attends to at most this many preceding tokens (GPT-OSS: 128; "
                       "HF sliding_window, Megatron-Core window_size), so a windowed layer's attention work per "
                       "sequence is about seq_len x window instead of seq_len^2 / 2; 0: the whole causal prefix",
            .unit = "tokens", .defaultText = "0 (none)", .range = {0, kTwoTo(30)}, .zeroMeansUnset = true,
            .editor = KeyEditor::Spin, .access = field<&Plan::model, &M::slidingWindow>()},
    PlanKey{.path = "model.full_attention_interval", .type = KeyType::Integer, .label = "Full-attention interval",
            .noun = "full-attention interval",
            .tooltip = "with a sliding window, every n-th layer attends to the whole prefix (GPT-OSS alternates: 2; "
                       "Megatron-Core window_attn_skip_freq); 0: every layer is windowed",
            .defaultText = "0 (every layer windowed)", .rule = "applies with sliding_window", .range = {0, 1024},
            .zeroMeansUnset = true,
            .editor = KeyEditor::Spin, .access = field<&Plan::model, &M::fullAttentionInterval>()},
    PlanKey{.path = "model.attention_sinks", .type = KeyType::Bool, .label = "Attention sinks",
            .noun = "attention sinks",
            .tooltip = "a learned logit per head in every softmax's denominator (GPT-OSS; Megatron-Core softmax_type "
                       "\"learnable\"): one parameter per head and layer; fused attention kernels support it since "
                       "Transformer Engine 2.8 (older software runs attention unfused: flash_attention false)",
            .defaultText = "false", .editor = KeyEditor::Check, .access = field<&Plan::model, &M::attentionSinks>()},

    // Training.
    PlanKey{.path = "training.global_batch", .type = KeyType::Integer, .label = "Global batch", .noun = "global batch",
            .tooltip = "sequences per optimizer step", .defaultText = "required",
            .rule = "multiple of micro_batch x data", .range = {1, kTwoTo(30)}, .editor = KeyEditor::Spin,
            .access = field<&Plan::training, &T::globalBatch>()},
    PlanKey{.path = "training.micro_batch", .type = KeyType::Integer, .label = "Micro-batch", .noun = "micro-batch",
            .tooltip = "sequences per GPU per micro-batch", .defaultText = "1", .range = {1, kTwoTo(20)},
            .searchDimension = true,
            .editor = KeyEditor::PowerOfTwoSlider, .access = field<&Plan::training, &T::microBatch>()},
    PlanKey{.path = "training.precision", .type = KeyType::Enum, .label = "Precision", .noun = "precision",
            .tooltip = "storage and arithmetic format", .defaultText = "\"bf16\"",
            .rule = "must be supported by the device",
            .editor = KeyEditor::Choice, .choices = choicesOf<Precision>,
            .access = field<&Plan::training, &T::precision>()},
    PlanKey{.path = "training.fp8_param_gather", .type = KeyType::Bool, .label = "FP8 parameter gather",
            .noun = "FP8 parameter gather",
            .tooltip = "keep parameters in the low format only and all-gather them in it (Megatron-Core "
                       "--fp8-param-gather): no BF16 working copy, half the gather volume",
            .defaultText = "false", .rule = "needs precision fp8, fp8-blockwise, mxfp8 or nvfp4",
            .editor = KeyEditor::Check,
            .access = field<&Plan::training, &T::fp8ParamGather>()},
    PlanKey{.path = "training.fp8_attention", .type = KeyType::Bool, .label = "FP8 attention", .noun = "FP8 attention",
            .tooltip = "attention's QK^T and PV in the low format too (Transformer Engine FP8 dot-product attention); "
                       "off, attention runs in BF16 while the linear layers use the low format",
            .defaultText = "false", .rule = "needs precision fp8, fp8-blockwise, mxfp8 or nvfp4",
            .editor = KeyEditor::Check,
            .access = field<&Plan::training, &T::fp8Attention>()},
    PlanKey{.path = "training.optimizer", .type = KeyType::Enum, .label = "Optimizer", .noun = "optimizer",
            .tooltip = "Adam keeps two moments; SGD one", .defaultText = "\"adam\"", .editor = KeyEditor::Choice,
            .choices = choicesOf<Optimizer>, .access = field<&Plan::training, &T::optimizer>()},
    PlanKey{.path = "training.recompute", .type = KeyType::Enum, .label = "Recomputation", .noun = "recomputation",
            .tooltip = "activation recomputation (Korthikanti et al. 2022): none; selective (Megatron-Core's: the "
                       "attention core and the named modules); ops (torchtitan's op-level selective checkpointing: "
                       "each layer keeps the attention output and every other matmul's, and replays the rest); full "
                       "(each layer keeps its input)",
            .defaultText = "\"none\"",
            .searchDimension = true, .editor = KeyEditor::Choice, .choices = choicesOf<Recompute>,
            .access = field<&Plan::training, &T::recompute>()},
    PlanKey{.path = "training.recompute_mla_up_proj", .type = KeyType::Bool, .label = "Recompute MLA up-proj.",
            .noun = "MLA up-projection recomputation",
            .tooltip = "multi-head latent attention: keep only the latents and rebuild Q, K and V by their up "
                       "projections in backward (Megatron-Core --recompute-modules mla_up_proj)",
            .defaultText = "false", .rule = "needs recompute \"selective\" and model.attention \"mla\"",
            .editor = KeyEditor::Check,
            .access = field<&Plan::training, &T::recomputeMlaUpProjection>()},
    PlanKey{.path = "training.recompute_moe_act", .type = KeyType::Bool, .label = "Recompute expert act.",
            .noun = "expert activation recomputation",
            .tooltip = "mixture of experts: do not keep the experts' activation-function output; recompute it in "
                       "backward (Megatron-Core --recompute-modules moe_act)",
            .defaultText = "false", .rule = "needs recompute \"selective\" and model.experts > 0",
            .editor = KeyEditor::Check,
            .access = field<&Plan::training, &T::recomputeExpertActivation>()},
    PlanKey{.path = "training.recompute_moe", .type = KeyType::Bool, .label = "Recompute MoE layers",
            .noun = "MoE layer recomputation",
            .tooltip = "mixture of experts: keep only each MoE layer's input and replay the whole layer in backward: "
                       "router, dispatch all-to-all, experts and combine (Megatron-Core --recompute-modules moe)",
            .defaultText = "false", .rule = "needs recompute \"selective\" and model.experts > 0",
            .editor = KeyEditor::Check,
            .access = field<&Plan::training, &T::recomputeMoe>()},
    PlanKey{.path = "training.recompute_layers", .type = KeyType::Integer, .label = "Recomputed layers",
            .noun = "recomputed layers",
            .tooltip = "with recompute \"full\": only this many layers of each model chunk keep just their input and "
                       "are replayed in backward; the others keep all their activations (Megatron-Core "
                       "--recompute-method block --recompute-num-layers); 0: every layer",
            .defaultText = "0 (every layer)", .rule = "applies with recompute \"full\"", .range = {0, 100000},
            .zeroMeansUnset = true,
            .editor = KeyEditor::Spin, .access = field<&Plan::training, &T::recomputeLayers>()},
    PlanKey{.path = "training.recompute_interval", .type = KeyType::Integer, .label = "Recompute every",
            .noun = "recompute interval",
            .tooltip = "with recompute \"full\": only every k-th layer keeps just its input and is replayed in "
                       "backward; the others keep all their activations (torchtitan "
                       "activation_checkpoint.selective_ac_option = k); 0 or 1: every layer",
            .defaultText = "0 (every layer)", .rule = "applies with recompute \"full\"", .range = {0, 100000},
            .zeroMeansUnset = true,
            .editor = KeyEditor::Spin, .access = field<&Plan::training, &T::recomputeInterval>()},
    PlanKey{.path = "training.activation_offload_layers", .type = KeyType::Integer, .label = "Offloaded layers",
            .noun = "activation offload",
            .tooltip = "the stored activations of this many layers of each stage go to host memory after their forward "
                       "and come back before their backward, over the host link beside the compute (Megatron-Core "
                       "--cpu-offloading-num-layers): device memory for host-link traffic",
            .defaultText = "0 (none)", .rule = "at most the layers of a stage", .range = {0, 100000},
            .zeroMeansUnset = true,
            .editor = KeyEditor::Spin, .access = field<&Plan::training, &T::activationOffloadLayers>()},
    PlanKey{.path = "training.sequence_parallel", .type = KeyType::Bool, .label = "Sequence parallel",
            .noun = "sequence parallelism", .tooltip = "shard norms and dropout over the tensor group",
            .defaultText = "false", .searchDimension = true, .editor = KeyEditor::Check,
            .access = field<&Plan::training, &T::sequenceParallel>()},
    PlanKey{.path = "training.flash_attention", .type = KeyType::Bool, .label = "Flash attention",
            .noun = "flash attention",
            .tooltip = "fused attention: no s x s score tensor is stored", .defaultText = "false",
            .editor = KeyEditor::Check, .access = field<&Plan::training, &T::flashAttention>()},
    PlanKey{.path = "training.fp32_gradients", .type = KeyType::Bool, .label = "FP32 gradients",
            .noun = "FP32 gradients",
            .tooltip = "4-byte gradients with 16-bit parameters (Megatron-LM main_grad)", .defaultText = "false",
            .access = field<&Plan::training, &T::fp32Gradients>()},
    PlanKey{.path = "training.framework", .type = KeyType::Enum, .label = "Framework", .noun = "training framework",
            .tooltip = "whose buffers surround the tensors: Megatron-Core's contiguous gradient buffers, DeepSpeed's "
                       "ZeRO buckets or FSDP2's per-block all-gathers (memory only)",
            .defaultText = "\"megatron\"",
            .rule = "\"fsdp\" needs parallel.zero_stage 3", .editor = KeyEditor::Choice,
            .choices = choicesOf<Framework>,
            .access = field<&Plan::training, &T::framework>()},
    PlanKey{.path = "training.expandable_segments", .type = KeyType::Bool, .label = "Expandable segments",
            .noun = "expandable segments",
            .tooltip = "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True: segments grow by pages, so fragmentation is "
                       "left to page rounding",
            .defaultText = "false", .editor = KeyEditor::Check,
            .access = field<&Plan::training, &T::expandableSegments>()},
    PlanKey{.path = "training.allocator_reserve_fraction", .type = KeyType::Number, .label = "Allocator reserve",
            .noun = "allocator reserve",
            .tooltip = "override: the caching allocator's overhead as a fraction of the phase's dynamic memory, "
                       "instead of the allocator model (block rounding and fragmentation)",
            .defaultText = "absent (the allocator model)", .range = kFraction, .optional = true,
            .editor = KeyEditor::Number,
            .displayDecimals = 3, .access = field<&Plan::training, &T::allocatorReserveFraction>()},
    PlanKey{.path = "training.memory_margin", .type = KeyType::Number, .label = "Memory margin",
            .noun = "memory margin",
            .tooltip = "a plan whose device-used peak comes within this fraction of capacity is reported tight",
            .defaultText = "0.05", .range = {0, 0.5}, .editor = KeyEditor::Number, .displayDecimals = 3,
            .access = field<&Plan::training, &T::memoryMargin>()},
    PlanKey{.path = "training.capacity_factor", .type = KeyType::Number, .label = "Capacity factor",
            .noun = "capacity factor",
            .tooltip = "mixture of experts: tokens an expert takes at most, as a multiple of its balanced share; "
                       "tokens beyond it are dropped; absent: dropless",
            .defaultText = "absent (dropless)",
            .range = {0.01, 1000}, .optional = true, .editor = KeyEditor::Number, .displayDecimals = 2,
            .access = field<&Plan::training, &T::capacityFactor>()},
    PlanKey{.path = "training.expert_imbalance", .type = KeyType::Number, .label = "Expert imbalance",
            .noun = "expert imbalance",
            .tooltip = "mixture of experts: tokens of the busiest expert over the mean; it sets the pace of the expert "
                       "GEMMs and the all-to-all (1: balanced routing)",
            .defaultText = "1",
            .range = {1, 1000}, .editor = KeyEditor::Number, .displayDecimals = 2,
            .access = field<&Plan::training, &T::expertImbalance>()},
    PlanKey{.path = "training.fused_kernels", .type = KeyType::Bool, .label = "Fused kernels", .noun = "kernel fusion",
            .tooltip = "fused element-wise chains read and write once", .defaultText = "true",
            .editor = KeyEditor::Check, .access = field<&Plan::training, &T::fusedKernels>()},
    PlanKey{.path = "training.attention_kernel", .type = KeyType::Enum, .label = "Attention kernel",
            .noun = "attention kernel",
            .tooltip = "with flash attention: fused is the platform's fastest fused kernel (cuDNN or FlashAttention-3 "
                       "on Hopper and Blackwell, FlashAttention-2 on Ampere), as Megatron-Core runs it; flash2 is "
                       "FlashAttention-2 (flash-attn 2, PyTorch SDPA's flash backend), 1.5-2x slower on Hopper (Shah "
                       "et al. 2024)",
            .defaultText = "\"fused\"", .rule = "applies with flash attention",
            .editor = KeyEditor::Choice, .choices = choicesOf<AttentionKernel>,
            .access = field<&Plan::training, &T::attentionKernel>()},
    PlanKey{.path = "training.compile", .type = KeyType::Bool, .label = "torch.compile", .noun = "torch.compile",
            .tooltip = "PyTorch frameworks: torch.compile turns each element-wise chain (RMSNorm, rotary embedding, "
                       "activation, residual) into one generated kernel (Ansel et al. 2024, PyTorch 2); eager, each op "
                       "is its own kernel and RMSNorm and the rotary embedding run in FP32",
            .defaultText = "false",
            .rule = "PyTorch frameworks (\"fsdp\", \"deepspeed\")", .editor = KeyEditor::Check,
            .access = field<&Plan::training, &T::compile>()},
    PlanKey{.path = "training.fused_norm", .type = KeyType::Bool, .label = "Fused norm", .noun = "fused norm",
            .tooltip = "PyTorch frameworks without torch.compile: the RMSNorm is one fused kernel (torchtitan's "
                       "norm_type \"fused_rmsnorm\") while the other element-wise chains stay eager; off, an eager "
                       "RMSNorm runs six FP32 kernels and saves its FP32 upcast for backward",
            .defaultText = "false",
            .rule = "PyTorch frameworks (\"fsdp\", \"deepspeed\")", .editor = KeyEditor::Check,
            .access = field<&Plan::training, &T::fusedNorm>()},
    PlanKey{.path = "training.optimizer_kernel", .type = KeyType::Enum, .label = "Optimizer kernel",
            .noun = "optimizer kernel",
            .tooltip = "how the optimizer's update runs, which sets its temporaries at the step: fused "
                       "(Megatron-Core's and DeepSpeed's multi-tensor Adam, none), foreach (torch.optim.AdamW's "
                       "default on CUDA: the square roots of every second moment at once, 4 bytes per optimizer-shard "
                       "parameter), loop (a per-parameter loop such as Composer's DecoupledAdamW, negligible); auto: "
                       "foreach under fsdp, fused otherwise",
            .defaultText = "\"auto\"", .editor = KeyEditor::Choice, .choices = choicesOf<OptimizerKernel>,
            .access = field<&Plan::training, &T::optimizerKernel>()},
    PlanKey{.path = "training.optimizer_moments", .type = KeyType::Enum, .label = "Optimizer moments",
            .noun = "optimizer moments",
            .tooltip = "the format the optimizer stores its moments in (the update computes in FP32): fp32 by default; "
                       "bf16 or fp16 as Apex's DistributedFusedAdam with dtype bf16 (NeMo's optim.dtype) or "
                       "Megatron-Core's precision-aware optimizer (--exp-avg-dtype); fp8 with Transformer Engine's "
                       "FusedAdam",
            .defaultText = "\"fp32\"", .editor = KeyEditor::Choice, .choices = choicesOf<MomentFormat>,
            .access = field<&Plan::training, &T::optimizerMoments>()},
    PlanKey{.path = "training.master_weights", .type = KeyType::Enum, .label = "Master weights",
            .noun = "master weights",
            .tooltip = "the format of the optimizer's master copy of 16-bit parameters: fp32 by default; bf16 as "
                       "Apex's DistributedFusedAdam keeps its parameter shard in its dtype (NeMo's optim.dtype: bf16), "
                       "fp16 as Megatron-Core's --main-params-dtype fp16",
            .defaultText = "\"fp32\"",
            .rule = "16-bit parameters (precision other than fp32 and tf32)", .editor = KeyEditor::Choice,
            .choices = choicesOf<MasterFormat>, .access = field<&Plan::training, &T::masterWeights>()},
    PlanKey{.path = "training.loss_kernel", .type = KeyType::Enum, .label = "Loss kernel", .noun = "loss kernel",
            .tooltip = "how the cross-entropy over the vocabulary runs, which sets what the logits hold at the loss: "
                       "inplace (Megatron-Core's vocab-parallel cross-entropy, 6 bytes per logit), eager (PyTorch's "
                       "F.cross_entropy on FP32 logits: its backward holds the log-softmax, its gradient and the "
                       "input's gradient, 12 bytes, 16 split over tensor ranks), fused (torch.compile of the loss, "
                       "flash-attn's cross-entropy: 4 bytes); auto: inplace under megatron and deepspeed, under fsdp "
                       "fused with torch.compile and eager without",
            .defaultText = "\"auto\"", .editor = KeyEditor::Choice, .choices = choicesOf<LossKernel>,
            .access = field<&Plan::training, &T::lossKernel>()},
    PlanKey{.path = "training.cuda_graphs", .type = KeyType::Enum, .label = "CUDA graphs", .noun = "CUDA graphs",
            .tooltip = "none: the host launches every kernel (a GPU faster than its host waits); router: a mixture of "
                       "experts' router and permutation preprocessing replayed as graphs; layers: each transformer "
                       "layer's attention, norms, dense MLP and router replayed as one graph, routed experts eager "
                       "(Megatron-Core --cuda-graph-impl local or transformer_engine); step: the whole iteration "
                       "captured (--cuda-graph-scope full_iteration)",
            .defaultText = "\"none\"", .searchDimension = true, .editor = KeyEditor::Choice,
            .choices = choicesOf<CudaGraphs>,
            .access = field<&Plan::training, &T::cudaGraphs>()},
    PlanKey{.path = "training.fused_expert_mlp", .type = KeyType::Bool, .label = "Fused expert MLP",
            .noun = "fused expert MLP",
            .tooltip = "mixture of experts: each of the routed experts' projections is one grouped kernel for all "
                       "local experts, the activation function and its quantization fused into the first one's "
                       "epilogue (Transformer Engine's op fuser with CuTe DSL grouped GEMMs; Megatron-Bridge "
                       "cutedsl_fused_grouped_mlp); off, one GEMM launch per local expert and a separate activation",
            .defaultText = "false", .editor = KeyEditor::Check, .access = field<&Plan::training, &T::fusedExpertMlp>()},
    PlanKey{.path = "training.padding_fraction", .type = KeyType::Number, .label = "Padding",
            .noun = "padding fraction",
            .tooltip = "share of padding tokens; valid tokens/s = tokens/s x (1 - it)", .defaultText = "0",
            .range = kFraction, .access = field<&Plan::training, &T::paddingFraction>()},
    PlanKey{.path = "training.document_length", .type = KeyType::Integer, .label = "Packed documents",
            .noun = "document length",
            .tooltip = "packed sequences: mean tokens per document; attention stays within a document, so with flash "
                       "attention its work per sequence is seq_len x document_length / 2 instead of seq_len^2 / 2",
            .unit = "tokens", .defaultText = "0 (whole sequence)",
            .rule = "at most model.seq_len; shortens attention only with flash_attention",
            .range = {0, kTwoTo(30)}, .zeroMeansUnset = true, .editor = KeyEditor::Spin,
            .access = field<&Plan::training, &T::documentLength>()},

    // Parallel layout.
    PlanKey{.path = "parallel.data", .type = KeyType::Integer, .label = "Data parallel", .noun = "data parallelism",
            .tooltip = "data-parallel replicas", .defaultText = "GPUs / (tensor x pipeline x context)",
            .rule = "data x tensor x pipeline x context = gpus_per_node x nodes", .range = {1, kTwoTo(24)},
            .searchDimension = true,
            .access = field<&Plan::parallel, &P::data>()},
    PlanKey{.path = "parallel.tensor", .type = KeyType::Integer, .label = "Tensor parallel",
            .noun = "tensor parallelism",
            .tooltip = "tensor-parallel group size t", .defaultText = "1",
            .rule = "divides model.heads, model.kv_heads and model.ffn_hidden", .range = {1, 65536},
            .searchDimension = true,
            .editor = KeyEditor::Spin, .rebalancesData = true, .access = field<&Plan::parallel, &P::tensor>()},
    PlanKey{.path = "parallel.pipeline", .type = KeyType::Integer, .label = "Pipeline stages",
            .noun = "pipeline stages",
            .tooltip = "pipeline-parallel stages p", .defaultText = "1", .range = {1, double(kMaxPipelineStages)},
            .searchDimension = true, .editor = KeyEditor::Spin, .rebalancesData = true,
            .access = field<&Plan::parallel, &P::pipeline>()},
    PlanKey{.path = "parallel.context", .type = KeyType::Integer, .label = "Context parallel",
            .noun = "context parallelism",
            .tooltip = "context-parallel size: each rank holds seq_len / context tokens of every sequence; groups sit "
                       "between tensor and data in the rank order (Megatron-Core)",
            .defaultText = "1", .rule = "model.seq_len divisible by 2 x context (causal load balancing)",
            .range = {1, 65536}, .searchDimension = true, .editor = KeyEditor::Spin, .rebalancesData = true,
            .access = field<&Plan::parallel, &P::context>()},
    PlanKey{.path = "parallel.context_comm", .type = KeyType::Enum, .label = "Context exchange",
            .noun = "context exchange",
            .tooltip = "ring: KV blocks passed around the group, overlapped with attention; all-gather: the whole KV "
                       "gathered first (Llama 3); all-to-all: sequence shards exchanged for head shards (Ulysses)",
            .defaultText = "\"ring\"",
            .rule = "all-to-all: model.heads and model.kv_heads divisible by tensor x context",
            .editor = KeyEditor::Choice, .choices = choicesOf<ContextComm>,
            .access = field<&Plan::parallel, &P::contextComm>()},
    PlanKey{.path = "parallel.virtual_stages", .type = KeyType::Integer, .label = "Virtual stages",
            .noun = "virtual stages",
            .tooltip = "model chunks per stage (interleaved schedule)", .defaultText = "1",
            .rule = "> 1 needs \"schedule\": \"interleaved\" and micro-batches divisible by pipeline",
            .range = {1, 1024},
            .searchDimension = true, .editor = KeyEditor::Spin, .access = field<&Plan::parallel, &P::virtualStages>()},
    PlanKey{.path = "parallel.first_stage_layers", .type = KeyType::Integer, .label = "First stage layers",
            .noun = "layers on the first stage",
            .tooltip = "layers on the first pipeline stage, which also holds the embedding (Megatron-Core "
                       "--decoder-first-pipeline-num-layers); 0 gives it an even share",
            .defaultText = "0 (an even share)",
            .rule = "the other stages share the remaining layers evenly; with virtual_stages v, the middle stages' "
                    "share divides by v",
            .range = {0, 100000},
            .zeroMeansUnset = true, .editor = KeyEditor::Spin,
            .access = field<&Plan::parallel, &P::firstStageLayers>()},
    PlanKey{.path = "parallel.last_stage_layers", .type = KeyType::Integer, .label = "Last stage layers",
            .noun = "layers on the last stage",
            .tooltip = "layers on the last pipeline stage, which also holds the output layer and the loss "
                       "(Megatron-Core --decoder-last-pipeline-num-layers); 0 gives it an even share",
            .defaultText = "0 (an even share)",
            .rule = "the other stages share the remaining layers evenly; with virtual_stages v, the middle stages' "
                    "share divides by v",
            .range = {0, 100000},
            .zeroMeansUnset = true, .editor = KeyEditor::Spin, .access = field<&Plan::parallel, &P::lastStageLayers>()},
    PlanKey{.path = "parallel.expert", .type = KeyType::Integer, .label = "Expert parallel",
            .noun = "expert parallelism",
            .tooltip = "routed experts split over this many ranks; tokens reach them by all-to-all (dispatch and "
                       "combine)",
            .defaultText = "1",
            .rule = "model.experts divisible by expert; expert x expert_tensor divides data x context x tensor",
            .range = {1, 65536}, .searchDimension = true, .editor = KeyEditor::Spin,
            .access = field<&Plan::parallel, &P::expert>()},
    PlanKey{.path = "parallel.expert_tensor", .type = KeyType::Integer, .label = "Expert tensor parallel",
            .noun = "expert tensor parallelism",
            .tooltip = "each expert's MLP split over this many ranks (Megatron-Core --expert-tensor-parallel-size); 0: "
                       "the tensor size",
            .defaultText = "tensor",
            .rule = "divides model.expert_ffn_hidden", .range = {0, 65536}, .zeroMeansUnset = true,
            .searchDimension = true,
            .editor = KeyEditor::Spin,
            .access = field<&Plan::parallel, &P::expertTensor>()},
    PlanKey{.path = "parallel.expert_dispatcher", .type = KeyType::Enum, .label = "Expert dispatcher",
            .noun = "expert dispatcher",
            .tooltip = "alltoall: Megatron-Core's all-to-all token dispatcher, one copy per routed expert through "
                       "NCCL; deepep: the flex dispatcher with DeepEP, one copy per destination node across the "
                       "network (fanned out over NVLink there) at the links' own rates (Megatron-Core "
                       "--moe-token-dispatcher-type flex --moe-enable-deepep); hybridep: the flex dispatcher with "
                       "HybridEP, the same per scale-up domain (an NVL72 rack's whole exchange over NVLink; "
                       "--moe-flex-dispatcher-backend hybridep)",
            .defaultText = "\"alltoall\"", .searchDimension = true, .editor = KeyEditor::Choice,
            .choices = choicesOf<ExpertDispatcher>,
            .access = field<&Plan::parallel, &P::expertDispatcher>()},
    PlanKey{.path = "parallel.expert_comm_overlap", .type = KeyType::Bool, .label = "Overlap expert all-to-all",
            .noun = "expert all-to-all overlap",
            .tooltip = "run one micro-batch's expert dispatch and combine beside another micro-batch's compute, layer "
                       "by layer (Megatron-Core --overlap-moe-expert-parallel-comm with --delay-wgrad-compute); needs "
                       "two micro-batches; the dispatcher's SMs slow the compute it hides behind",
            .defaultText = "false", .searchDimension = true, .editor = KeyEditor::Check,
            .access = field<&Plan::parallel, &P::expertCommOverlap>()},
    PlanKey{.path = "parallel.reshard_after_forward", .type = KeyType::Bool, .label = "Reshard after forward",
            .noun = "resharding after forward",
            .tooltip = "FSDP2: free each block's gathered parameters after its forward and gather them again for "
                       "backward; off: keep them until backward",
            .defaultText = "true",
            .rule = "used with training.framework \"fsdp\"", .editor = KeyEditor::Check,
            .access = field<&Plan::parallel, &P::reshardAfterForward>()},
    PlanKey{.path = "parallel.shard_group", .type = KeyType::Integer, .label = "Shard group", .noun = "hybrid sharding",
            .tooltip = "FSDP2 hybrid sharding (HSDP): shard parameters, gradients and optimizer state over this many "
                       "data ranks and replicate across the rest; gathers and reduce-scatters stay inside the shard "
                       "group, the gradient shards are all-reduced across replicas (torchtitan "
                       "data_parallel_shard_degree with data_parallel_replicate_degree); 0: shard over all of them",
            .defaultText = "0 (every data rank)",
            .rule = "with training.framework \"fsdp\": at least 2, dividing data x context",
            .range = {0, 1 << 20}, .zeroMeansUnset = true, .editor = KeyEditor::Spin,
            .access = field<&Plan::parallel, &P::shardGroup>()},
    PlanKey{.path = "parallel.schedule", .type = KeyType::Enum, .label = "Schedule", .noun = "pipeline schedule",
            .tooltip = "pipeline schedule; zb-h1: zero-bubble (Qi et al. 2024)", .defaultText = "\"1f1b\"",
            .searchDimension = true, .editor = KeyEditor::Choice, .choices = choicesOf<Schedule>,
            .access = field<&Plan::parallel, &P::schedule>()},
    PlanKey{.path = "parallel.zero_stage", .type = KeyType::Integer, .label = "ZeRO stage", .noun = "ZeRO stage",
            .tooltip = "shard optimizer (1), + gradients, reduce-scattered after every micro-batch (2), + parameters, "
                       "gathered per layer for each pass (3)",
            .defaultText = "0", .rule = "2 and 3 only with parallel.pipeline 1", .range = {0, 3},
            .searchDimension = true, .editor = KeyEditor::Choice, .choices = zeroStages,
            .access = field<&Plan::parallel, &P::zeroStage>()},
    PlanKey{.path = "parallel.offload_optimizer", .type = KeyType::Bool, .label = "Offload optimizer",
            .noun = "optimizer offload",
            .tooltip = "optimizer state in host memory and its update on the host (ZeRO-Offload): gradients over the "
                       "host link (behind the backward under DeepSpeed and FSDP2, after it under Megatron-Core), the "
                       "update through the host's memory, parameters back",
            .defaultText = "false",
            .editor = KeyEditor::Check, .access = field<&Plan::parallel, &P::offloadOptimizer>()},
    PlanKey{.path = "parallel.bucket_bytes", .type = KeyType::Number, .label = "Gradient bucket",
            .noun = "gradient bucket",
            .tooltip = "data-parallel gradient bucket", .unit = "bytes", .defaultText = "25e6", .range = {1e3, 1e11},
            .access = field<&Plan::parallel, &P::bucketBytes>()},
    PlanKey{.path = "parallel.overlap_grad_reduce", .type = KeyType::Bool, .label = "Overlap gradient reduction",
            .noun = "gradient-reduction overlap", .tooltip = "bucketed gradient reduction overlaps the last backward",
            .defaultText = "true", .access = field<&Plan::parallel, &P::overlapGradReduce>()},

    PlanKey{.path = "parallel.overlap_param_gather", .type = KeyType::Bool, .label = "Overlap parameter gather",
            .noun = "parameter-gather overlap",
            .tooltip = "ZeRO 1-2 / distributed optimizer: gather the updated parameters during the next forward "
                       "(Megatron-Core --overlap-param-gather) instead of after the optimizer step; ZeRO-3 under "
                       "Megatron-FSDP: prefetch each layer's gather behind the layer before (FSDP2 and DeepSpeed "
                       "always do)",
            .defaultText = "false", .editor = KeyEditor::Check,
            .access = field<&Plan::parallel, &P::overlapParamGather>()},
    PlanKey{.path = "parallel.tensor_comm_overlap", .type = KeyType::Bool, .label = "Overlap tensor-parallel comm.",
            .noun = "tensor-parallel overlap",
            .tooltip = "tensor-parallel all-gathers and reduce-scatters overlapped with the GEMMs they feed "
                       "(Transformer Engine userbuffers, NeMo tp_comm_overlap)",
            .defaultText = "false", .rule = "needs training.sequence_parallel", .editor = KeyEditor::Check,
            .access = field<&Plan::parallel, &P::tensorCommOverlap>()},

    PlanKey{.path = "parallel.overlap_p2p_comm", .type = KeyType::Bool, .label = "Overlap pipeline transfers",
            .noun = "pipeline-transfer overlap",
            .tooltip = "pipeline sends and receives run beside the next chunk's compute (Megatron-LM does it by "
                       "default under the interleaved schedule; --no-overlap-p2p-communication turns it off); "
                       "off, each blocking transfer occupies the stage",
            .defaultText = "false", .editor = KeyEditor::Check, .access = field<&Plan::parallel, &P::overlapP2pComm>()},

    // Cluster.
    PlanKey{.path = "cluster.device", .type = KeyType::String, .label = "Device", .noun = "device",
            .tooltip = "a device id from resources/devices.json or custom_devices",
            .defaultText = "required (unless node_groups)",
            .editor = KeyEditor::Device,
            .access = {[](const Plan &p) { return KeyValue(p.cluster.device); },
                       [](Plan &p, const KeyValue &v) { std::string id; fromValue(v, id); p.cluster.setDevice(id); }}},
    PlanKey{.path = "cluster.gpus_per_node", .type = KeyType::Integer, .label = "GPUs per node",
            .noun = "GPUs per node",
            .tooltip = "accelerators sharing the scale-up link", .defaultText = "8",
            .range = {1, double(kMaxGpusPerNode)},
            .editor = KeyEditor::Spin, .rebalancesData = true,
            .access = {[](const Plan &p) { return KeyValue(p.cluster.gpusPerNode); },
                       [](Plan &p, const KeyValue &v) {
                           std::int64_t n = 1;
                           fromValue(v, n);
                           p.cluster.setGpusPerNode(n);
                       }}},
    PlanKey{.path = "cluster.nodes", .type = KeyType::Integer, .label = "Nodes", .noun = "nodes",
            .tooltip = "all nodes of the cluster", .defaultText = "1", .range = {1, kTwoTo(20)},
            .editor = KeyEditor::Spin,
            .rebalancesData = true,
            .access = {[](const Plan &p) { return KeyValue(p.cluster.nodes); },
                       [](Plan &p, const KeyValue &v) { std::int64_t n = 1; fromValue(v, n); p.cluster.setNodes(n); }}},
    PlanKey{.path = "cluster.scale_up_domain", .type = KeyType::Integer, .label = "Scale-up domain",
            .noun = "scale-up domain",
            .tooltip = "GPUs joined by the scale-up fabric (NVLink): tensor and data groups inside one domain use its "
                       "bandwidth even across nodes; 72 for a GB200/GB300 NVL72 rack of 4-GPU trays; 0: one node",
            .defaultText = "0 (gpus_per_node)", .rule = "0 or a multiple of gpus_per_node", .range = {0, 576},
            .zeroMeansUnset = true, .editor = KeyEditor::Spin, .access = field<&Plan::cluster, &C::scaleUpDomain>()},
    PlanKey{.path = "cluster.intra_node_link", .type = KeyType::String, .label = "Intra-node link",
            .noun = "intra-node link",
            .tooltip = "a link id from resources/cluster.json (nvlink3-nvswitch, pcie4-x16, ...)",
            .defaultText = "device's own",
            .access = field<&Plan::cluster, &C::intraNodeLink>()},
    PlanKey{.path = "cluster.network", .type = KeyType::String, .label = "Network", .noun = "network",
            .tooltip = "a network tier id from resources/cluster.json (ib-ndr, ib-hdr, roce-400, ...)",
            .defaultText = "device's own", .access = field<&Plan::cluster, &C::network>()},
    PlanKey{.path = "cluster.node_groups", .type = KeyType::Array, .label = "Node groups", .noun = "node groups",
            .tooltip = "node groups in rank order: {\"template\", \"device\", \"gpus_per_node\", \"nodes\", "
                       "\"intra_node_link\"}, at most 256; see below",
            .defaultText = "one group"},
    PlanKey{.path = "cluster.custom_devices", .type = KeyType::Array, .label = "Custom devices",
            .noun = "custom devices",
            .tooltip = "user-defined devices this plan uses, each in the devices.json schema; ids may not shadow a "
                       "built-in one",
            .defaultText = "none"},
    PlanKey{.path = "cluster.intra_node_bandwidth", .type = KeyType::Number, .label = "Intra-node bandwidth",
            .noun = "intra-node bandwidth", .tooltip = "per GPU, one direction", .unit = "bytes/s",
            .defaultText = "device",
            .range = kBandwidth, .optional = true,
            .access = overrideField<&ClusterOverrides::intraNodeBandwidthBytesPerSecond>()},
    PlanKey{.path = "cluster.intra_node_latency", .type = KeyType::Number, .label = "Intra-node latency",
            .noun = "intra-node latency", .unit = "s", .defaultText = "device", .range = kLatency, .optional = true,
            .access = overrideField<&ClusterOverrides::intraNodeLatencySeconds>()},
    PlanKey{.path = "cluster.network_bandwidth", .type = KeyType::Number, .label = "Network bandwidth",
            .noun = "network bandwidth", .tooltip = "per GPU, one direction", .unit = "bytes/s",
            .defaultText = "device",
            .range = kBandwidth, .optional = true,
            .access = overrideField<&ClusterOverrides::networkBandwidthBytesPerSecond>()},
    PlanKey{.path = "cluster.network_latency", .type = KeyType::Number, .label = "Network latency",
            .noun = "network latency", .unit = "s", .defaultText = "device", .range = kLatency, .optional = true,
            .access = overrideField<&ClusterOverrides::networkLatencySeconds>()},
    PlanKey{.path = "cluster.runtime_context_bytes", .type = KeyType::Number, .label = "Runtime context",
            .noun = "runtime context", .tooltip = "CUDA/HIP context and its loaded kernel modules (device-used peak)",
            .unit = "bytes",
            .defaultText = "device", .range = {0, 1e12}, .optional = true,
            .access = overrideField<&ClusterOverrides::runtimeContextBytes>()},
    PlanKey{.path = "cluster.host_link_bandwidth", .type = KeyType::Number, .label = "Host link bandwidth",
            .noun = "host link bandwidth",
            .tooltip = "each GPU's link to host memory (PCIe, NVLink-C2C), one direction: an offloaded optimizer's "
                       "gradients go to the host and its parameters come back over it",
            .unit = "bytes/s", .defaultText = "device", .range = kBandwidth, .optional = true,
            .access = overrideField<&ClusterOverrides::hostLinkBandwidthBytesPerSecond>()},
    PlanKey{.path = "cluster.host_launch_overhead", .type = KeyType::Number, .label = "Host launch per kernel",
            .noun = "host launch overhead",
            .tooltip = "the host CPU's time to launch one kernel from the framework (PyTorch's dispatch, the "
                       "libraries' Python, the CUDA launch): a GPU whose kernels are shorter waits for its host unless "
                       "CUDA graphs replay them (training.cuda_graphs)",
            .unit = "s", .defaultText = "device", .range = {0, 0.01}, .optional = true,
            .access = overrideField<&ClusterOverrides::hostLaunchSeconds>()},
    PlanKey{.path = "cluster.host_memory_bandwidth", .type = KeyType::Number, .label = "Host memory bandwidth",
            .noun = "host memory bandwidth",
            .tooltip = "one node's host DRAM bandwidth (all sockets, peak): an offloaded optimizer step streams every "
                       "GPU's shard of the node through it",
            .unit = "bytes/s", .defaultText = "device", .range = kBandwidth, .optional = true,
            .access = overrideField<&ClusterOverrides::hostMemoryBandwidthBytesPerSecond>()},

    // Run.
    PlanKey{.path = "run.token_budget", .type = KeyType::Number, .label = "Token budget", .noun = "token budget",
            .tooltip = "tokens to train on", .unit = "tokens", .defaultText = "300e9", .range = {1, 1e18, false, true},
            .editor = KeyEditor::Number, .displayScale = 1e9, .displayUnit = "B tokens", .displayDecimals = 1,
            .access = field<&Plan::run, &R::tokenBudget>()},
    PlanKey{.path = "run.price_per_gpu_hour", .type = KeyType::Number, .label = "Price per GPU-hour",
            .noun = "price per GPU-hour", .tooltip = "in run.currency per GPU-hour", .defaultText = "2.0",
            .range = {0, 1e6, false, true}, .editor = KeyEditor::Number, .displayDecimals = 2,
            .access = field<&Plan::run, &R::pricePerGpuHour>()},
    PlanKey{.path = "run.currency", .type = KeyType::String, .label = "Currency", .noun = "currency",
            .tooltip = "of the price and the cost: an ISO 4217 code (USD, EUR, GBP, JPY, CNY print with their sign) or "
                       "any short word",
            .defaultText = "\"USD\"", .maxLength = 12, .editor = KeyEditor::Text,
            .access = field<&Plan::run, &R::currency>()},
    PlanKey{.path = "run.checkpoint_bandwidth", .type = KeyType::Number, .label = "Checkpoint bandwidth",
            .noun = "checkpoint bandwidth", .tooltip = "what the storage system writes, all writers together",
            .unit = "bytes/s", .defaultText = "20e9", .range = kBandwidth, .editor = KeyEditor::Number,
            .displayScale = 1e9, .displayUnit = "GB/s", .displayDecimals = 1,
            .access = field<&Plan::run, &R::checkpointBandwidthBytesPerSecond>()},
    PlanKey{.path = "run.sharded_checkpoint", .type = KeyType::Bool, .label = "Sharded checkpoint",
            .noun = "sharded checkpoint", .tooltip = "every rank writes its shard; false: gathered to one writer",
            .defaultText = "true", .editor = KeyEditor::Check, .access = field<&Plan::run, &R::shardedCheckpoint>()},
    PlanKey{.path = "run.gpu_mtbf_hours", .type = KeyType::Number, .label = "GPU MTBF", .noun = "GPU MTBF",
            .tooltip = "mean time between failures of one GPU (Llama 3: ~50,700 GPU-hours)", .unit = "hours",
            .defaultText = "50000", .range = {1, 1e7}, .editor = KeyEditor::Number, .displayUnit = "h",
            .displayDecimals = 0, .access = field<&Plan::run, &R::gpuMtbfHours>()},
    PlanKey{.path = "run.restart_seconds", .type = KeyType::Number, .label = "Restart time", .noun = "restart time",
            .tooltip = "to detect a failure, restart and reload", .unit = "s", .defaultText = "600", .range = {0, 1e6},
            .editor = KeyEditor::Number, .displayUnit = "s", .displayDecimals = 0,
            .access = field<&Plan::run, &R::restartSeconds>()},
};
// clang-format on

/// "2^40" for large powers of two, otherwise the number as the plan file writes it.
std::string boundText(double v)
{
    if (v >= 1048576.0 && std::floor(std::log2(v)) == std::log2(v))
        return "2^" + std::to_string(int(std::log2(v)));
    if (std::floor(v) == v && std::fabs(v) < 1e6)
        return std::to_string(std::int64_t(v));
    char buffer[64];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, v, std::chars_format::scientific);
    std::string text(buffer, result.ptr);
    // "1e12", not "1e+12"; "1e6", not "1e+06".
    const auto e = text.find('e');
    std::size_t digits = e + 1;
    while (digits < text.size() && (text[digits] == '+' || (text[digits] == '0' && digits + 1 < text.size())))
        ++digits;
    return text.substr(0, e + 1) + text.substr(digits);
}

} // namespace

std::string_view PlanKey::section() const
{
    const std::string_view p(path);
    const auto dot = p.find('.');
    return dot == std::string_view::npos ? std::string_view() : p.substr(0, dot);
}

std::string_view PlanKey::name() const
{
    const std::string_view p(path);
    const auto dot = p.find('.');
    return dot == std::string_view::npos ? p : p.substr(dot + 1);
}

std::span<const PlanKey> planKeys()
{
    return kKeys;
}

const PlanKey *findPlanKey(std::string_view path)
{
    for (const PlanKey &k : kKeys)
        if (path == k.path)
            return &k;
    return nullptr;
}

int indexOf(const PlanKey &key)
{
    return int(&key - kKeys.data());
}

std::string formatValue(const KeyValue &value)
{
    if (const auto *i = std::get_if<std::int64_t>(&value))
        return std::to_string(*i);
    if (const auto *b = std::get_if<bool>(&value))
        return *b ? "true" : "false";
    if (const auto *s = std::get_if<std::string>(&value))
        return *s;
    if (const auto *d = std::get_if<double>(&value)) {
        if (!std::isfinite(*d))
            return "n/a";
        char buffer[64];
        const auto result = std::to_chars(buffer, buffer + sizeof buffer, *d); // shortest round-trip form
        return std::string(buffer, result.ptr);
    }
    return "";
}

std::string rangeText(const PlanKey &key)
{
    const KeyRange &r = key.range;
    if (!r.bounded() || (key.type != KeyType::Integer && key.type != KeyType::Number))
        return {};
    const std::string lo = boundText(r.minimum), hi = boundText(r.maximum);
    if (std::isinf(r.maximum))
        return (r.minimumExclusive ? "greater than " : "at least ") + lo;
    if (key.type == KeyType::Integer)
        return "a whole number from " + lo + " to " + hi;
    return "in " + std::string(r.minimumExclusive ? "(" : "[") + lo + ", " + hi + (r.maximumExclusive ? ")" : "]");
}

std::size_t characters(std::string_view utf8)
{
    std::size_t n = 0;
    for (const char c : utf8)
        n += (static_cast<unsigned char>(c) & 0xC0) != 0x80; // continuation bytes do not start a character
    return n;
}

bool keyApplies(const PlanKey &key, const Plan &plan)
{
    static constexpr std::string_view moeKeys[] = {"model.experts_per_token",      "model.shared_experts",
                                                   "model.expert_ffn_hidden",      "model.dense_layers",
                                                   "model.moe_layer_interval",     "training.capacity_factor",
                                                   "training.expert_imbalance",    "parallel.expert",
                                                   "parallel.expert_tensor",       "training.recompute_moe_act",
                                                   "training.recompute_moe",       "model.router_groups",
                                                   "model.router_group_topk",      "parallel.expert_dispatcher",
                                                   "parallel.expert_comm_overlap", "training.fused_expert_mlp"};
    static constexpr std::string_view mlaKeys[] = {"model.q_lora_rank",      "model.kv_lora_rank",
                                                   "model.qk_nope_head_dim", "model.qk_rope_head_dim",
                                                   "model.v_head_dim",       "training.recompute_mla_up_proj"};
    const std::string_view path = key.path;
    if (std::find(std::begin(moeKeys), std::end(moeKeys), path) != std::end(moeKeys))
        return plan.model.isMoe();
    if (std::find(std::begin(mlaKeys), std::end(mlaKeys), path) != std::end(mlaKeys))
        return plan.model.isMla();
    if (path == "parallel.reshard_after_forward" || path == "parallel.shard_group")
        return plan.training.framework == Framework::Fsdp;
    if (path == "training.recompute_layers" || path == "training.recompute_interval")
        return plan.training.recompute == Recompute::Full;
    if (path == "training.compile")
        return plan.training.framework != Framework::Megatron;
    if (path == "training.fused_norm")
        return plan.training.framework != Framework::Megatron && !plan.training.fusesElementwise();
    if (path == "training.attention_kernel")
        return plan.training.flashAttention;
    if (path == "training.fused_kernels")
        return plan.training.framework != Framework::Fsdp;
    if (path == "model.full_attention_interval")
        return plan.model.slidingWindow > 0;
    return true;
}

std::optional<std::string> checkLength(std::string_view text, std::size_t maximum)
{
    const std::size_t n = characters(text);
    if (n <= maximum)
        return std::nullopt;
    return "must be at most " + std::to_string(maximum) + " characters long (got " + std::to_string(n) + ")";
}

std::optional<std::string> checkValue(const PlanKey &key, const KeyValue &value)
{
    if (std::holds_alternative<std::monostate>(value))
        return std::nullopt;
    if (key.type == KeyType::String)
        if (const auto *s = std::get_if<std::string>(&value))
            return checkLength(*s, key.maxLength > 0 ? key.maxLength : kMaxIdLength);
    if (key.choices && key.type == KeyType::Enum) {
        const std::string *s = std::get_if<std::string>(&value);
        for (const KeyChoice &c : key.choices())
            if (s && *s == c.spelling)
                return std::nullopt;
        std::string list;
        for (const KeyChoice &c : key.choices())
            list += (list.empty() ? "\"" : ", \"") + c.spelling + "\"";
        return "unknown value \"" + (s ? *s : formatValue(value)) + "\" (expected one of " + list + ")";
    }
    if (!key.range.bounded())
        return std::nullopt;
    double v = 0;
    if (const auto *i = std::get_if<std::int64_t>(&value))
        v = double(*i);
    else if (const auto *d = std::get_if<double>(&value))
        v = *d;
    else
        return std::nullopt;
    const KeyRange &r = key.range;
    const bool low = r.minimumExclusive ? !(v > r.minimum) : !(v >= r.minimum);
    const bool high = r.maximumExclusive ? !(v < r.maximum) : !(v <= r.maximum);
    if (!low && !high)
        return std::nullopt;
    const std::string unit = *key.unit ? std::string(" ") + key.unit : "";
    return "must be " + rangeText(key) + unit + " (got " + formatValue(value) + ")";
}

std::optional<KeyValue> parseValue(const PlanKey &key, std::string_view text, std::string *error)
{
    const auto fail = [&](const std::string &why) -> std::optional<KeyValue> {
        if (error)
            *error = why;
        return std::nullopt;
    };
    KeyValue value;
    switch (key.type) {
    case KeyType::Integer: {
        std::int64_t i = 0;
        const auto r = std::from_chars(text.data(), text.data() + text.size(), i);
        if (r.ec != std::errc() || r.ptr != text.data() + text.size())
            return fail("must be a whole number");
        value = i;
        break;
    }
    case KeyType::Number: {
        double d = 0;
        const auto r = std::from_chars(text.data(), text.data() + text.size(), d);
        if (r.ec != std::errc() || r.ptr != text.data() + text.size() || !std::isfinite(d))
            return fail("must be a finite number");
        value = d;
        break;
    }
    case KeyType::Bool:
        if (text != "true" && text != "false")
            return fail("must be true or false");
        value = text == "true";
        break;
    case KeyType::Enum:
    case KeyType::String:
        value = std::string(text);
        break;
    case KeyType::Array:
        return fail("is an array");
    }
    if (auto problem = checkValue(key, value))
        return fail(*problem);
    return value;
}

} // namespace trainplan
