#pragma once
// Shape of a decoder-only transformer and its parameter counts, split the way tensor parallelism
// (Shoeybi et al. 2019) splits them: column- and row-parallel weights are divided by the tensor size,
// norms and row-parallel biases are replicated, the word embedding is vocabulary-parallel.

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/common/EnumNames.h"

namespace trainplan {

/// The MLP: GELU (GPT), SwiGLU (gated, Llama; Shazeer 2020) or squared ReLU (Nemotron-4; So et al. 2021,
/// "Primer"): GELU and squared ReLU have one up-projection, SwiGLU two.
enum class MlpKind { Gelu, SwiGlu, SquaredRelu };
constexpr auto enumNames(MlpKind)
{
    return std::array{EnumName<MlpKind>{MlpKind::Gelu, "gelu", "GELU"},
                      EnumName<MlpKind>{MlpKind::SwiGlu, "swiglu", "SwiGLU"},
                      EnumName<MlpKind>{MlpKind::SquaredRelu, "relu2", "Squared ReLU"}};
}
inline const char *toString(MlpKind v) { return spellingOf(v); }
enum class NormKind { LayerNorm, RmsNorm };
constexpr auto enumNames(NormKind)
{
    return std::array{EnumName<NormKind>{NormKind::LayerNorm, "layernorm", "LayerNorm"},
                      EnumName<NormKind>{NormKind::RmsNorm, "rmsnorm", "RMSNorm"}};
}
inline const char *toString(NormKind v) { return spellingOf(v); }
/// Positions: a learned table (GPT), rotary embeddings applied to queries and keys (Su et al. 2021),
/// ALiBi's linear bias on the attention scores inside the attention kernel (Press et al. 2022; MPT), or none
/// (Nemotron-H's attention layers: Megatron-Core position_embedding_type "none"; its Mamba layers carry order).
enum class PositionEmbedding { Learned, Rotary, Alibi, None };
constexpr auto enumNames(PositionEmbedding)
{
    return std::array{EnumName<PositionEmbedding>{PositionEmbedding::Learned, "learned", "Learned"},
                      EnumName<PositionEmbedding>{PositionEmbedding::Rotary, "rotary", "Rotary"},
                      EnumName<PositionEmbedding>{PositionEmbedding::Alibi, "alibi", "ALiBi"},
                      EnumName<PositionEmbedding>{PositionEmbedding::None, "none", "None"}};
}
inline const char *toString(PositionEmbedding v) { return spellingOf(v); }
/// Attention: multi-head (grouped-query through kv_heads) or DeepSeek's multi-head latent attention
/// (DeepSeek-AI 2024, "DeepSeek-V2", section 2.1): queries and keys/values projected down to low-rank
/// latents and up again per head, with a shared rotary key part.
enum class AttentionKind { Mha, Mla };
constexpr auto enumNames(AttentionKind)
{
    return std::array{EnumName<AttentionKind>{AttentionKind::Mha, "mha", "Multi-head (GQA)"},
                      EnumName<AttentionKind>{AttentionKind::Mla, "mla", "Multi-head latent (MLA)"}};
}
inline const char *toString(AttentionKind v) { return spellingOf(v); }

struct ModelSpec
{
    std::string name;
    std::string presetId; ///< catalog id this shape came from; empty for a custom shape
    std::string source;   ///< citation for a preset's shape
    /// A preset's checkpoints on the Hugging Face Hub whose config.json has this shape ("meta-llama/Llama-3.1-8B"):
    /// an import that names one (llm-foundry's pretrained_model_name_or_path) plans this preset.
    std::vector<std::string> huggingFaceIds;

    std::int64_t layers = 0;
    std::int64_t hidden = 0;
    std::int64_t heads = 0;
    std::int64_t kvHeads = 0;   ///< key/value heads (grouped-query attention); == heads for MHA
    std::int64_t ffnHidden = 0; ///< MLP inner width
    std::int64_t vocab = 0;
    std::int64_t seqLen = 0;
    MlpKind mlp = MlpKind::Gelu;
    bool tiedEmbeddings = false;

    // Architecture details whose defaults follow from `mlp`: GPT-style (gelu) models use LayerNorm,
    // linear biases, learned positions and dropout; Llama-style (swiglu) use RMSNorm, no biases,
    // rotary positions and no dropout. See defaultsFor().
    NormKind norm = NormKind::LayerNorm;
    bool linearBias = true;
    PositionEmbedding position = PositionEmbedding::Learned;
    bool dropout = true;

    /// Size of one attention head when it is not hidden / heads (Gemma, Qwen3, DeepSeek-V3, GPT-OSS set
    /// head_dim in their configs); 0: hidden / heads.
    std::int64_t headDimension = 0;
    /// Sliding-window attention: a query attends to at most this many preceding tokens (GPT-OSS: 128, HF
    /// sliding_window; Megatron-Core window_size); 0: the whole causal prefix. With fullAttentionInterval k,
    /// every k-th layer attends to the whole prefix (GPT-OSS alternates: 2; Megatron-Core
    /// window_attn_skip_freq); 0: every layer is windowed.
    std::int64_t slidingWindow = 0;
    std::int64_t fullAttentionInterval = 0;
    /// Attention sinks: a learned logit per head added to every softmax's denominator (GPT-OSS; Megatron-Core
    /// softmax_type "learnable"). One parameter per head and layer; fused kernels support them since
    /// Transformer Engine 2.8, before which Megatron-Core falls back to its unfused attention.
    bool attentionSinks = false;
    /// A gated MLP whose activation inputs are clamped: the gate half from above and the linear half both ways at
    /// this limit (GPT-OSS: 7.0, HF config.json swiglu_limit; Megatron-Core activation_func_clamp_value); 0: none.
    double activationClamp = 0;

    // Mixture of experts (0 experts: dense). Layer i (from 0) is a MoE layer when i >= denseLayers and
    // (i - denseLayers + 1) is a multiple of moeLayerInterval (interval 2: every second layer, as Llama 4's
    // interleave_moe_layer_step); the others have a dense MLP of ffnHidden.
    std::int64_t experts = 0;
    std::int64_t expertsPerToken = 0;  ///< top-k routed experts per token
    std::int64_t sharedExperts = 0;    ///< always-active experts of expertFfnHidden each
    std::int64_t expertFfnHidden = 0;  ///< width of one expert's MLP; 0: ffnHidden
    std::int64_t denseLayers = 0;      ///< the first layers keep a dense MLP
    std::int64_t moeLayerInterval = 1;
    std::int64_t mtpLayers = 0;        ///< multi-token-prediction modules (DeepSeek-V3), on the last stage
    /// The multi-token-prediction depths share one module's weights (Megatron-Core --mtp-use-repeated-layer, as
    /// Nemotron 3 Super's recipes run its two depths): mtpLayers passes, one module's parameters.
    bool mtpRepeated = false;
    /// Latent MoE (Megatron-Core moe_latent_size; NVIDIA's Nemotron 3 Super and Ultra): each MoE layer projects the
    /// routed tokens from hidden to this width before the dispatcher (fc1_latent_proj) and back after the combine
    /// (fc2_latent_proj); the routed experts take and return latent-wide rows and the all-to-all moves them. The
    /// router and the shared experts keep the hidden width (megatron/core/transformer/moe/moe_layer.py). 0: none.
    std::int64_t moeLatentSize = 0;
    /// Group-limited routing (DeepSeek-V3's node-limited routing, Sec. 2.1.2 of its report; HF n_group and
    /// topk_group, Megatron-Core --moe-router-num-groups / --moe-router-group-topk): the experts form
    /// routerGroups contiguous groups and a token picks its experts from routerGroupTopk of them. 0: ungrouped.
    std::int64_t routerGroups = 0;
    std::int64_t routerGroupTopk = 0;

    // Hybrid Mamba-Transformer models (Megatron-Core's MambaModel: hybrid_layer_pattern, the
    // --hybrid-override-pattern of pretrain_mamba.py): one symbol per layer, each layer one block with its own
    // pre-norm and residual: 'M' a Mamba-2 mixer, '*' self-attention, '-' a dense MLP of ffnHidden, 'E' a MoE
    // MLP (megatron/core/ssm/mamba_hybrid_layer_allocation.py, Symbols). Empty: every layer is attention + MLP.
    std::string hybridPattern;
    /// Mamba-2 (Dao & Gu 2024, "Transformers are SSMs", Sec. 7; Megatron-Core MambaMixer): the state size N of
    /// each head, the head size P, the heads (0: expand 2, 2 hidden / P) and the groups sharing the input-dependent
    /// B and C (TransformerConfig's defaults: mamba_state_dim 128, mamba_head_dim 64, mamba_num_groups 8).
    std::int64_t mambaStateDim = 128;
    std::int64_t mambaHeadDim = 64;
    std::int64_t mambaHeads = 0;
    std::int64_t mambaGroups = 8;

    AttentionKind attention = AttentionKind::Mha;
    std::int64_t qLoraRank = 0;      ///< MLA query latent (0: queries projected directly)
    std::int64_t kvLoraRank = 0;     ///< MLA key/value latent
    std::int64_t qkNopeHeadDim = 0;  ///< MLA per-head query/key part without rotary embedding
    std::int64_t qkRopeHeadDim = 0;  ///< MLA rotary part (the key's is shared by all heads)
    std::int64_t vHeadDim = 0;       ///< MLA value head size

    bool isMoe() const { return experts > 0; }
    bool isHybrid() const { return !hybridPattern.empty(); }
    /// The pattern symbol of layer `layer` (from 0) of a hybrid model; 0 for a transformer or past the pattern.
    char hybridSymbol(std::int64_t layer) const
    {
        return layer >= 0 && std::size_t(layer) < hybridPattern.size() ? hybridPattern[std::size_t(layer)] : '\0';
    }
    /// Mamba-2 heads (mamba_num_heads, else d_inner / head size with d_inner = 2 hidden) and the mixer's inner width.
    std::int64_t mambaHeadCount() const
    {
        return mambaHeads > 0 ? mambaHeads : mambaHeadDim > 0 ? 2 * hidden / mambaHeadDim : 0;
    }
    std::int64_t mambaInner() const { return mambaHeadCount() * mambaHeadDim; }
    /// Width of the Mamba-2 input projection's output: z and x (d_inner each), B and C (groups x state each), and
    /// one dt per head (MambaMixer.in_proj).
    std::int64_t mambaInProjection() const
    {
        return 2 * mambaInner() + 2 * mambaGroups * mambaStateDim + mambaHeadCount();
    }
    /// Share of the layers that attend to their whole causal prefix (1 without a sliding window).
    double fullAttentionShare() const
    {
        if (slidingWindow <= 0 || slidingWindow >= seqLen)
            return 1.0;
        return fullAttentionInterval > 0 ? 1.0 / double(fullAttentionInterval) : 0.0;
    }
    bool isMla() const { return attention == AttentionKind::Mla; }
    bool isMoeLayer(std::int64_t layer) const
    {
        if (isHybrid())
            return isMoe() && hybridSymbol(layer) == 'E';
        return isMoe() && layer >= denseLayers &&
               (layer - denseLayers + 1) % std::max<std::int64_t>(1, moeLayerInterval) == 0;
    }
    /// MoE layers among layers [first, first + count).
    std::int64_t moeLayersIn(std::int64_t first, std::int64_t count) const;
    /// The blocks of layers [first, first + count) by kind. A transformer layer is an attention block and an MLP:
    /// attention = count, and dense MLPs (a mixture of experts' dense layers) and MoE MLPs as the layers have them;
    /// a dense transformer's MLP counts with its attention (denseMlp 0), as its ops do. A hybrid layer is one block.
    struct BlockCounts
    {
        std::int64_t attention = 0, mamba = 0, denseMlp = 0, moeMlp = 0;
    };
    BlockCounts blocksIn(std::int64_t first, std::int64_t count) const;
    /// The blocks the multi-token-prediction modules run (mtpLayers of them, repeated or not): each an attention
    /// block and an MLP block of the last layer's kind (a hybrid's MoE or dense MLP), as mtpParameters counts them.
    BlockCounts mtpBlocks() const;
    /// The first MoE layer (a hybrid model's first 'E'): the layer whose shape every MoE layer shares.
    std::int64_t firstMoeLayer() const;
    std::int64_t moeLayers() const { return moeLayersIn(0, layers); }
    std::int64_t expertWidth() const { return expertFfnHidden > 0 ? expertFfnHidden : ffnHidden; }
    /// Width of a routed token: what the dispatcher moves and the routed experts take and return (the latent
    /// width of a latent MoE, else hidden).
    std::int64_t routedWidth() const { return moeLatentSize > 0 ? moeLatentSize : hidden; }

    /// Head size for the attention kernel: QK^T and PV each use theirs; under MLA their mean, so that
    /// 2 x heads x headDim() is the per-token width both products touch.
    std::int64_t headDim() const
    {
        if (isMla())
            return (qkNopeHeadDim + qkRopeHeadDim + vHeadDim) / 2;
        return headDimension > 0 ? headDimension : heads > 0 ? hidden / heads : 0;
    }
    /// Width of Q: heads x head size (hidden unless head_dim says otherwise; MLA: heads x (nope + rope)).
    std::int64_t qDim() const { return isMla() ? heads * (qkNopeHeadDim + qkRopeHeadDim) : heads * headDim(); }
    /// Width of the attention output (the output projection's input): heads x value head size.
    std::int64_t attentionOutDim() const { return isMla() ? heads * vHeadDim : qDim(); }
    /// Width of K and of V (MLA: their mean, heads x (nope + rope + v) / 2, after the up-projection).
    std::int64_t kvDim() const { return isMla() ? heads * headDim() : kvHeads * headDim(); }

    friend bool operator==(const ModelSpec &, const ModelSpec &) = default;
};

/// Megatron-Core's Mamba-2 convolution kernel (MambaMixer d_conv, 4; not configurable from its arguments).
inline constexpr std::int64_t kMambaConvKernel = 4;

/// Architecture details implied by the MLP kind (see ModelSpec).
void applyArchitectureDefaults(ModelSpec &model);

/// Parameters of one transformer layer split by how tensor parallelism treats them.
struct LayerParameters
{
    double sharded = 0;    ///< column/row-parallel weights and column-parallel biases: divided by tensor size
    double replicated = 0; ///< norms and row-parallel biases: full copy on every tensor rank
    double expert = 0;     ///< routed experts' weights: divided by expert x expert_tensor

    double total() const { return sharded + replicated + expert; }
    /// Dense (non-expert) parameters on one tensor rank.
    double perTensorRank(std::int64_t tensor) const { return sharded / double(tensor) + replicated; }
    /// Routed-expert parameters on one rank of `expertShards` (expert x expert_tensor).
    double expertPerRank(std::int64_t expertShards) const
    {
        return expert / double(std::max<std::int64_t>(1, expertShards));
    }
    LayerParameters &operator+=(const LayerParameters &o)
    {
        sharded += o.sharded;
        replicated += o.replicated;
        expert += o.expert;
        return *this;
    }
};

/// One dense layer (attention + MLP of ffn_hidden), the same for every layer of a dense model.
LayerParameters layerParameters(const ModelSpec &model);

/// Layer `layer` (from 0): dense, or attention + router + routed and shared experts.
LayerParameters layerParameters(const ModelSpec &model, std::int64_t layer);

/// One block of a hybrid model by its pattern symbol ('M', '*', '-', 'E'), with its pre-norm; zero otherwise.
LayerParameters blockParameters(const ModelSpec &model, char symbol);

/// Layers [first, first + count) together.
LayerParameters layersParameters(const ModelSpec &model, std::int64_t first, std::int64_t count);

/// Multi-token-prediction modules: each a MoE-or-dense layer of the last kind, an h x 2h projection and
/// two norms (DeepSeek-V3 section 2.2; its 14 B beyond the 671 B main model).
LayerParameters mtpParameters(const ModelSpec &model);

/// Parameters one token computes with: every layer's attention and dense MLP, router, top-k routed and
/// shared experts, the output layer; the input embedding is a lookup and is not counted (DeepSeek-V3's
/// "37 B activated"; Mistral, Qwen and Meta add the embedding matrix to theirs).
double activeParameters(const ModelSpec &model);

/// Input side: word embedding (vocabulary-parallel) and learned positions (replicated).
LayerParameters embeddingParameters(const ModelSpec &model);

/// Output side: final norm (replicated) and, when untied, the output projection (vocabulary-parallel).
LayerParameters outputParameters(const ModelSpec &model);

/// Total trainable parameters of the main model, counted once (MTP modules not included, as published
/// totals count them).
double totalParameters(const ModelSpec &model);

} // namespace trainplan
