#include "core/model/ModelSpec.h"

namespace trainplan {

void applyArchitectureDefaults(ModelSpec &model)
{
    const bool gpt = model.mlp == MlpKind::Gelu;
    model.norm = gpt ? NormKind::LayerNorm : NormKind::RmsNorm;
    model.linearBias = gpt;
    model.position = gpt ? PositionEmbedding::Learned : PositionEmbedding::Rotary;
    model.dropout = gpt;
}

namespace {

double normWidth(const ModelSpec &m, double width) { return m.norm == NormKind::LayerNorm ? 2.0 * width : width; }

/// Attention of one layer. MHA/GQA: Q (h x heads hd), K and V (h x kv each), output projection
/// (heads hd x h). MLA (DeepSeek-V2 section 2.1; Megatron-Core's multi_latent_attention): the down
/// projections to the query latent and to the key/value latent plus the shared rotary key, and their
/// norms, are replicated on every tensor rank; the up projections and the output projection split.
LayerParameters attentionParameters(const ModelSpec &m)
{
    const double h = double(m.hidden), heads = double(m.heads);
    const double bias = m.linearBias ? 1.0 : 0.0;
    LayerParameters p;
    if (m.isMla()) {
        const double qk = double(m.qkNopeHeadDim + m.qkRopeHeadDim), qLora = double(m.qLoraRank),
                     kvLora = double(m.kvLoraRank);
        if (m.qLoraRank > 0) {
            p.replicated += h * qLora + normWidth(m, qLora);
            p.sharded += qLora * heads * qk;
        } else {
            p.sharded += h * heads * qk;
        }
        p.replicated += h * (kvLora + double(m.qkRopeHeadDim)) + normWidth(m, kvLora);
        p.sharded += kvLora * heads * double(m.qkNopeHeadDim + m.vHeadDim);
        p.sharded += heads * double(m.vHeadDim) * h;
        p.replicated += bias * h;
        return p;
    }
    const double kv = double(m.kvDim()), qd = double(m.qDim());
    p.sharded += h * qd + 2.0 * h * kv + qd * h;
    p.sharded += bias * (qd + 2.0 * kv); // QKV bias, column-parallel
    p.replicated += bias * h;           // output-projection bias, row-parallel
    if (m.attentionSinks)
        p.sharded += heads; // one learned sink logit per head, split with the heads
    return p;
}

/// One MLP of inner width f on rows `width` wide (hidden, or a latent MoE's latent for its routed experts): gelu and
/// relu2 have up (h x f) and down (f x h); swiglu has gate and up.
LayerParameters mlpParameters(const ModelSpec &m, double f, double width = 0.0)
{
    const double h = width > 0 ? width : double(m.hidden);
    const double bias = m.linearBias ? 1.0 : 0.0;
    const double upWidth = m.mlp == MlpKind::SwiGlu ? 2.0 * f : f;
    LayerParameters p;
    p.sharded = h * upWidth + f * h + bias * upWidth;
    p.replicated = bias * h;
    return p;
}

/// Megatron-Core's Mamba-2 mixer (megatron/core/ssm/mamba_mixer.py, MambaMixer.__init__ at core_v0.16.0): the
/// input projection to z, x, B, C and dt (column-parallel, no bias), the depthwise causal convolution over x, B
/// and C (kernel kMambaConvKernel, with a bias), dt_bias, A_log and D per head, the gated RMSNorm's weight over
/// d_inner, and the output projection (row-parallel, no bias). All of it splits over the tensor ranks by heads
/// and groups ("tensor_model_parallel" on every parameter).
LayerParameters mambaParameters(const ModelSpec &m)
{
    const double h = double(m.hidden), inner = double(m.mambaInner()), heads = double(m.mambaHeadCount());
    const double convChannels = inner + 2.0 * double(m.mambaGroups) * double(m.mambaStateDim);
    LayerParameters p;
    p.sharded = h * double(m.mambaInProjection()) + convChannels * (double(kMambaConvKernel) + 1.0) + 3.0 * heads +
                inner + inner * h;
    return p;
}

/// A MoE MLP: the router (h x experts) replicated on every rank (Megatron-Core's TopKRouter); shared experts
/// split like a dense MLP; routed experts over expert x expert_tensor. A latent MoE's two projections (hidden to
/// latent and back, bias as the linears have it) are "duplicated" TELinear layers: whole on every tensor rank.
LayerParameters moeMlpParameters(const ModelSpec &m)
{
    LayerParameters p;
    p.replicated += double(m.hidden) * double(m.experts);
    const LayerParameters shared = mlpParameters(m, double(m.expertWidth()));
    p.sharded += double(m.sharedExperts) * shared.sharded;
    p.replicated += double(m.sharedExperts) * shared.replicated;
    p.expert += double(m.experts) * mlpParameters(m, double(m.expertWidth()), double(m.routedWidth())).total();
    if (m.moeLatentSize > 0) {
        const double latent = double(m.moeLatentSize), bias = m.linearBias ? 1.0 : 0.0;
        p.replicated += 2.0 * double(m.hidden) * latent + bias * (latent + double(m.hidden));
    }
    return p;
}

} // namespace

/// One block of a hybrid model: its mixer or MLP and its pre-norm (fused into the first linear's
/// LayerNormLinear in Megatron-Core's hybrid specs, its weight all the same).
LayerParameters blockParameters(const ModelSpec &m, char symbol)
{
    LayerParameters p;
    switch (symbol) {
    case 'M': p = mambaParameters(m); break;
    case '*': p = attentionParameters(m); break;
    case '-': p = mlpParameters(m, double(m.ffnHidden)); break;
    case 'E': p = moeMlpParameters(m); break;
    default: return {};
    }
    p.replicated += normWidth(m, double(m.hidden));
    return p;
}

ModelSpec::BlockCounts ModelSpec::mtpBlocks() const
{
    const std::int64_t n = std::max<std::int64_t>(0, mtpLayers);
    if (n == 0)
        return {};
    if (isHybrid())
        return {.attention = n, .mamba = 0, .denseMlp = isMoe() ? 0 : n, .moeMlp = isMoe() ? n : 0};
    const BlockCounts last = blocksIn(layers - 1, 1);
    return {last.attention * n, last.mamba * n, last.denseMlp * n, last.moeMlp * n};
}

ModelSpec::BlockCounts ModelSpec::blocksIn(std::int64_t first, std::int64_t count) const
{
    BlockCounts b;
    if (isHybrid()) {
        for (std::int64_t i = first; i < first + count; ++i) {
            switch (hybridSymbol(i)) {
            case 'M': ++b.mamba; break;
            case '*': ++b.attention; break;
            case '-': ++b.denseMlp; break;
            case 'E': ++b.moeMlp; break;
            default: break;
            }
        }
        return b;
    }
    b.attention = count;
    b.moeMlp = moeLayersIn(first, count);
    b.denseMlp = isMoe() ? count - b.moeMlp : 0;
    return b;
}

std::int64_t ModelSpec::firstMoeLayer() const
{
    if (isHybrid()) {
        const std::size_t at = hybridPattern.find('E');
        return at == std::string::npos ? 0 : std::int64_t(at);
    }
    return denseLayers + moeLayerInterval - 1;
}

std::int64_t ModelSpec::moeLayersIn(std::int64_t first, std::int64_t count) const
{
    if (!isMoe())
        return 0;
    if (isHybrid())
        return blocksIn(first, count).moeMlp;
    // MoE layers among the first n: layer i routes when j = i - dense + 1 (1..n - dense) is a multiple of
    // the interval, floor((n - dense) / interval) of them.
    const std::int64_t interval = std::max<std::int64_t>(1, moeLayerInterval);
    const auto below = [&](std::int64_t n) { return n <= denseLayers ? 0 : (n - denseLayers) / interval; };
    return below(first + count) - below(first);
}

LayerParameters layerParameters(const ModelSpec &m)
{
    LayerParameters p = attentionParameters(m);
    p += mlpParameters(m, double(m.ffnHidden));
    p.replicated += 2.0 * normWidth(m, double(m.hidden)); // pre-attention and pre-MLP norms
    return p;
}

LayerParameters layerParameters(const ModelSpec &m, std::int64_t layer)
{
    if (m.isHybrid())
        return blockParameters(m, m.hybridSymbol(layer));
    if (!m.isMoeLayer(layer))
        return layerParameters(m);
    LayerParameters p = attentionParameters(m);
    p.replicated += 2.0 * normWidth(m, double(m.hidden));
    p += moeMlpParameters(m);
    return p;
}

LayerParameters layersParameters(const ModelSpec &m, std::int64_t first, std::int64_t count)
{
    if (m.isHybrid()) {
        const ModelSpec::BlockCounts b = m.blocksIn(first, count);
        LayerParameters p;
        for (const auto &[symbol, n] : {std::pair{'*', b.attention}, std::pair{'M', b.mamba},
                                        std::pair{'-', b.denseMlp}, std::pair{'E', b.moeMlp}}) {
            const LayerParameters one = blockParameters(m, symbol);
            p.sharded += double(n) * one.sharded;
            p.replicated += double(n) * one.replicated;
            p.expert += double(n) * one.expert;
        }
        return p;
    }
    if (!m.isMoe()) {
        LayerParameters one = layerParameters(m);
        return {one.sharded * double(count), one.replicated * double(count), 0.0};
    }
    const std::int64_t moe = m.moeLayersIn(first, count);
    const LayerParameters dense = layerParameters(m), sparse = layerParameters(m, m.firstMoeLayer());
    const double d = double(count - moe), e = double(moe);
    return {d * dense.sharded + e * sparse.sharded, d * dense.replicated + e * sparse.replicated, e * sparse.expert};
}

LayerParameters mtpParameters(const ModelSpec &m)
{
    if (m.mtpLayers <= 0)
        return {};
    // A hybrid model's module is an attention block and an MLP block of its last layer's MLP kind (Megatron-Core's
    // mtp_hybrid_override_pattern, "*E" in Nemotron 3's recipes).
    LayerParameters p = m.isHybrid() ? blockParameters(m, '*') : layerParameters(m, m.layers - 1);
    if (m.isHybrid()) // with its MLP block; a transformer layer has it
        p += blockParameters(m, m.isMoe() ? 'E' : '-');
    const double h = double(m.hidden);
    p.sharded += 2.0 * h * h;              // projection of [embedding; hidden state] back to h
    p.replicated += 2.0 * normWidth(m, h); // the two input norms
    const double modules = m.mtpRepeated ? 1.0 : double(m.mtpLayers); // repeated depths share one module
    return {p.sharded * modules, p.replicated * modules, p.expert * modules};
}

double activeParameters(const ModelSpec &m)
{
    const LayerParameters all = layersParameters(m, 0, m.layers);
    // Each MoE layer: top-k of its experts, each expert's share of the layer's routed weights.
    const double routedPerExpert =
        m.isMoe() ? layerParameters(m, m.firstMoeLayer()).expert / double(m.experts) : 0.0;
    const double active =
        all.sharded + all.replicated + double(m.moeLayers()) * double(m.expertsPerToken) * routedPerExpert;
    // The input embedding is a row lookup, not a matmul: not counted (as DeepSeek, Moonshot and OpenAI
    // count active parameters); a tied matrix still computes the logits.
    return active + outputParameters(m).total() + (m.tiedEmbeddings ? double(m.vocab) * double(m.hidden) : 0.0);
}

LayerParameters embeddingParameters(const ModelSpec &m)
{
    LayerParameters p;
    p.sharded = double(m.vocab) * double(m.hidden);
    if (m.position == PositionEmbedding::Learned)
        p.replicated = double(m.seqLen) * double(m.hidden);
    return p;
}

LayerParameters outputParameters(const ModelSpec &m)
{
    LayerParameters p;
    p.replicated = m.norm == NormKind::LayerNorm ? 2.0 * double(m.hidden) : double(m.hidden);
    if (!m.tiedEmbeddings)
        p.sharded = double(m.vocab) * double(m.hidden);
    return p;
}

double totalParameters(const ModelSpec &m)
{
    return layersParameters(m, 0, m.layers).total() + embeddingParameters(m).total() + outputParameters(m).total();
}

} // namespace trainplan
