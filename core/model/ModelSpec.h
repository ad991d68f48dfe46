#pragma once
// Shape of a decoder-only transformer and its parameter counts, split the way tensor parallelism
// (Shoeybi et al. 2019) splits them: column- and row-parallel weights are divided by the tensor size,
// norms and row-parallel biases are replicated, the word embedding is vocabulary-parallel.

#include <array>
#include <cstdint>
#include <string>

#include "core/common/EnumNames.h"

namespace trainplan {

/// The MLP: GELU (GPT), SwiGLU (gated, Llama; Shazeer 2020) or squared ReLU (Nemotron-4; So et al. 2021,
/// "Primer"): GELU and squared ReLU have one up-projection, SwiGLU two.
enum class MlpKind { Gelu, SwiGlu, SquaredRelu };
constexpr auto enumNames(MlpKind)
{
    return std::array{EnumName<MlpKind>{MlpKind::Gelu, "gelu", "GELU"}, EnumName<MlpKind>{MlpKind::SwiGlu, "swiglu", "SwiGLU"},
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
enum class PositionEmbedding { Learned, Rotary };
constexpr auto enumNames(PositionEmbedding)
{
    return std::array{EnumName<PositionEmbedding>{PositionEmbedding::Learned, "learned", "Learned"},
                      EnumName<PositionEmbedding>{PositionEmbedding::Rotary, "rotary", "Rotary"}};
}
inline const char *toString(PositionEmbedding v) { return spellingOf(v); }

struct ModelSpec
{
    std::string name;
    std::string presetId; ///< catalog id this shape came from; empty for a custom shape
    std::string source;   ///< citation for a preset's shape

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

    std::int64_t headDim() const { return headDimension > 0 ? headDimension : heads > 0 ? hidden / heads : 0; }
    /// Width of Q and of the attention output: heads x head size (hidden unless head_dim says otherwise).
    std::int64_t qDim() const { return heads * headDim(); }
    std::int64_t kvDim() const { return kvHeads * headDim(); }

    friend bool operator==(const ModelSpec &, const ModelSpec &) = default;
};

/// Architecture details implied by the MLP kind (see ModelSpec).
void applyArchitectureDefaults(ModelSpec &model);

/// Parameters of one transformer layer split by how tensor parallelism treats them.
struct LayerParameters
{
    double sharded = 0;    ///< column/row-parallel weights and column-parallel biases: divided by tensor size
    double replicated = 0; ///< norms and row-parallel biases: full copy on every tensor rank

    double total() const { return sharded + replicated; }
    double perTensorRank(std::int64_t tensor) const { return sharded / double(tensor) + replicated; }
};

LayerParameters layerParameters(const ModelSpec &model);

/// Input side: word embedding (vocabulary-parallel) and learned positions (replicated).
LayerParameters embeddingParameters(const ModelSpec &model);

/// Output side: final norm (replicated) and, when untied, the output projection (vocabulary-parallel).
LayerParameters outputParameters(const ModelSpec &model);

/// Total trainable parameters of the model, counted once.
double totalParameters(const ModelSpec &model);

} // namespace trainplan
