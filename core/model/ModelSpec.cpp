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

LayerParameters layerParameters(const ModelSpec &m)
{
    const double h = double(m.hidden);
    const double f = double(m.ffnHidden);
    const double kv = double(m.kvDim());
    const double qd = double(m.qDim());
    const double bias = m.linearBias ? 1.0 : 0.0;
    const double normWidth = m.norm == NormKind::LayerNorm ? 2.0 * h : h; // weight (+ bias)

    LayerParameters p;
    // Attention: Q (h x heads hd), K and V (h x kv each), output projection (heads hd x h); heads hd = h
    // unless head_dim says otherwise.
    p.sharded += h * qd + 2.0 * h * kv + qd * h;
    p.sharded += bias * (qd + 2.0 * kv); // QKV bias, column-parallel
    p.replicated += bias * h;           // output-projection bias, row-parallel
    // MLP: gelu has up (h x f) and down (f x h); swiglu has gate and up (2 x h x f) and down.
    const double upWidth = m.mlp == MlpKind::SwiGlu ? 2.0 * f : f;
    p.sharded += h * upWidth + f * h;
    p.sharded += bias * upWidth;
    p.replicated += bias * h;
    // Two norms per layer (pre-attention, pre-MLP).
    p.replicated += 2.0 * normWidth;
    return p;
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
    return double(m.layers) * layerParameters(m).total() + embeddingParameters(m).total()
           + outputParameters(m).total();
}

} // namespace trainplan
