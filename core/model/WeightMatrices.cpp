#include "core/model/WeightMatrices.h"

#include <algorithm>

#include "core/common/Precision.h"

namespace trainplan {

namespace {

using Split = WeightMatrix::Split;

void attentionMatrices(const ModelSpec &m, std::vector<WeightMatrix> &out)
{
    const double h = double(m.hidden), heads = double(m.heads);
    if (m.isMla()) {
        // DeepSeek-V2 section 2.1, as attentionParameters counts them (core/model/ModelSpec.cpp).
        const double qk = double(m.qkNopeHeadDim + m.qkRopeHeadDim);
        if (m.qLoraRank > 0) {
            out.push_back({double(m.qLoraRank), h, 1, Split::None});
            out.push_back({heads * qk, double(m.qLoraRank), 1, Split::Rows});
        } else {
            out.push_back({heads * qk, h, 1, Split::Rows});
        }
        out.push_back({double(m.kvLoraRank + m.qkRopeHeadDim), h, 1, Split::None});
        out.push_back({heads * double(m.qkNopeHeadDim + m.vHeadDim), double(m.kvLoraRank), 1, Split::Rows});
        out.push_back({h, heads * double(m.vHeadDim), 1, Split::Cols});
        return;
    }
    out.push_back({double(m.qDim()), h, 1, Split::Rows});
    out.push_back({double(m.kvDim()), h, 2, Split::Rows});
    out.push_back({h, double(m.qDim()), 1, Split::Cols});
}

/// One MLP of inner width f, `count` of them: linear_fc1 (the gate and up projections fused when gated) and fc2.
void mlpMatrices(const ModelSpec &m, double f, double count, bool expert, std::vector<WeightMatrix> &out)
{
    if (count <= 0)
        return;
    const double h = double(m.hidden);
    const double up = m.mlp == MlpKind::SwiGlu ? 2.0 * f : f;
    out.push_back({up, h, count, Split::Rows, expert});
    out.push_back({h, f, count, Split::Cols, expert});
}

} // namespace

std::array<LayerKind, 2> layerKinds(const ModelSpec &m, std::int64_t first, std::int64_t count)
{
    std::int64_t dense = 0;
    while (dense + 1 < m.layers && m.isMoeLayer(dense))
        ++dense;
    const std::int64_t moe = m.moeLayersIn(first, count);
    return {LayerKind{dense, double(count - moe)}, LayerKind{m.denseLayers + m.moeLayerInterval - 1, double(moe)}};
}

std::vector<WeightMatrix> layerMatrices(const ModelSpec &m, std::int64_t layer)
{
    std::vector<WeightMatrix> out;
    attentionMatrices(m, out);
    if (!m.isMoeLayer(layer)) {
        mlpMatrices(m, double(m.ffnHidden), 1, false, out);
        return out;
    }
    out.push_back({double(m.experts), double(m.hidden), 1, Split::None}); // the router
    mlpMatrices(m, double(m.expertWidth()), double(m.sharedExperts), false, out);
    mlpMatrices(m, double(m.expertWidth()), double(m.experts), true, out);
    return out;
}

double replicatedMatrixParameters(const ModelSpec &m, std::int64_t layer)
{
    double total = 0;
    for (const WeightMatrix &w : layerMatrices(m, layer))
        if (w.split == Split::None && !w.expert)
            total += w.rows * w.cols * w.count;
    return total;
}

IteratedShape iteratedShape(const WeightMatrix &w, MuonTpMode mode, std::int64_t tensorRanks)
{
    const double ranks = w.split == Split::None ? 1.0 : double(std::max<std::int64_t>(1, tensorRanks));
    const auto whole = [](double rows, double cols, bool gathered) {
        return IteratedShape{std::min(rows, cols), std::max(rows, cols), gathered, false};
    };
    if (ranks <= 1)
        return whole(w.rows, w.cols, false);
    const double splitSide = w.split == Split::Rows ? w.rows : w.cols;
    const double keptSide = w.split == Split::Rows ? w.cols : w.rows;
    switch (mode) {
    case MuonTpMode::Duplicated: return whole(w.rows, w.cols, true);
    case MuonTpMode::Blockwise: return whole(splitSide / ranks, keptSide, false);
    case MuonTpMode::Distributed: return {keptSide, splitSide / ranks, false, true};
    }
    return whole(w.rows, w.cols, true);
}

double newtonSchulzWorkspaceBytes(const IteratedShape &shape)
{
    const double x = shape.gram * shape.other;
    return kFp32Bytes * ((shape.gathered ? 3.0 : 2.0) * x + 2.0 * shape.gram * shape.gram);
}

double newtonSchulzFlops(const IteratedShape &shape, std::int64_t steps)
{
    return double(steps) * (4.0 * shape.gram * shape.gram * shape.other + 2.0 * shape.gram * shape.gram * shape.gram);
}

} // namespace trainplan
