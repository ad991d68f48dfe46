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

/// One MLP of inner width f: gelu and relu2 have up (h x f) and down (f x h); swiglu has gate and up.
LayerParameters mlpParameters(const ModelSpec &m, double f)
{
    const double h = double(m.hidden);
    const double bias = m.linearBias ? 1.0 : 0.0;
    const double upWidth = m.mlp == MlpKind::SwiGlu ? 2.0 * f : f;
    LayerParameters p;
    p.sharded = h * upWidth + f * h + bias * upWidth;
    p.replicated = bias * h;
    return p;
}

} // namespace

std::int64_t ModelSpec::moeLayersIn(std::int64_t first, std::int64_t count) const
{
    if (!isMoe())
        return 0;
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
    if (!m.isMoeLayer(layer))
        return layerParameters(m);
    LayerParameters p = attentionParameters(m);
    p.replicated += 2.0 * normWidth(m, double(m.hidden));
    // The router (h x experts) is replicated on every rank (Megatron-Core's TopKRouter); shared experts
    // split like a dense MLP; routed experts over expert x expert_tensor.
    p.replicated += double(m.hidden) * double(m.experts);
    const LayerParameters one = mlpParameters(m, double(m.expertWidth()));
    p.sharded += double(m.sharedExperts) * one.sharded;
    p.replicated += double(m.sharedExperts) * one.replicated;
    p.expert += double(m.experts) * one.total();
    return p;
}

LayerParameters layersParameters(const ModelSpec &m, std::int64_t first, std::int64_t count)
{
    if (!m.isMoe()) {
        LayerParameters one = layerParameters(m);
        return {one.sharded * double(count), one.replicated * double(count), 0.0};
    }
    const std::int64_t moe = m.moeLayersIn(first, count);
    const LayerParameters dense = layerParameters(m),
                          sparse = layerParameters(m, m.denseLayers + m.moeLayerInterval - 1);
    const double d = double(count - moe), e = double(moe);
    return {d * dense.sharded + e * sparse.sharded, d * dense.replicated + e * sparse.replicated, e * sparse.expert};
}

LayerParameters mtpParameters(const ModelSpec &m)
{
    if (m.mtpLayers <= 0)
        return {};
    LayerParameters p = layerParameters(m, m.layers - 1);
    const double h = double(m.hidden);
    p.sharded += 2.0 * h * h;              // projection of [embedding; hidden state] back to h
    p.replicated += 2.0 * normWidth(m, h); // the two input norms
    return {p.sharded * double(m.mtpLayers), p.replicated * double(m.mtpLayers), p.expert * double(m.mtpLayers)};
}

double activeParameters(const ModelSpec &m)
{
    const LayerParameters all = layersParameters(m, 0, m.layers);
    // Each MoE layer: top-k of its experts, each expert's share of the layer's routed weights.
    const double routedPerExpert =
        m.isMoe() ? layerParameters(m, m.denseLayers + m.moeLayerInterval - 1).expert / double(m.experts) : 0.0;
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
