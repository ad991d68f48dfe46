#pragma once
// The weight matrices of a layer as Megatron-Core stores them, for what works per matrix rather than per
// parameter: Muon's Newton-Schulz iterations (Jordan et al. 2024) orthogonalise each one whole.

#include <array>
#include <cstdint>
#include <vector>

#include "core/model/ModelSpec.h"

namespace trainplan {

/// One kind of weight matrix: `count` of them, rows x cols ([out, in], as torch.nn.Linear keeps it).
struct WeightMatrix
{
    double rows = 0, cols = 0, count = 1;
    /// How tensor parallelism splits it: column-parallel layers split the output rows, row-parallel ones the
    /// input columns; neither for the replicated ones (MLA's down projections, the router).
    enum class Split { None, Rows, Cols } split = Split::None;
    bool expert = false; ///< a routed expert's: split over expert x expert_tensor ranks instead
};

/// The two kinds of layer in [first, first + count): a dense one and a MoE one, each as one of its layers (from 0)
/// and how many of them the range holds (a dense model's second kind holds none).
struct LayerKind
{
    std::int64_t layer = 0;
    double count = 0;
};
std::array<LayerKind, 2> layerKinds(const ModelSpec &model, std::int64_t first, std::int64_t count);

/// The matrices of layer `layer` (from 0). Q, K and V are separate matrices, as Megatron-LM's Muon splits the
/// fused QKV weight by default (--muon-no-split-qkv turns it off); a gated MLP's gate and up projections are
/// one fused matrix (linear_fc1), as Megatron-Core stores them; every routed expert's two matrices.
std::vector<WeightMatrix> layerMatrices(const ModelSpec &model, std::int64_t layer);

/// The rows x cols one rank iterates on for `w`: the whole matrix in Muon's duplicated tensor mode (gathered over
/// `tensorRanks`, the tensor or, for a routed expert, the expert tensor ranks), its block in blockwise mode.
struct IteratedShape
{
    double rows = 0, cols = 0;
    bool gathered = false; ///< the whole matrix gathered from tensor-parallel shards
};
IteratedShape iteratedShape(const WeightMatrix &w, bool wholeMatrix, std::int64_t tensorRanks);

/// Bytes one Newton-Schulz iteration holds at once on an r x c matrix, in FP32 (--muon-fp32-matmul-prec keeps FP32
/// tensors): X and the product B X (m x n each), A = X X^T and A A (m x m each), and the gathered momentum when
/// the matrix was gathered.
double newtonSchulzWorkspaceBytes(const IteratedShape &shape);

/// The replicated matrices' parameters of layer `layer` (MLA's down projections, the router): the part of
/// LayerParameters::replicated that is 2-D.
double replicatedMatrixParameters(const ModelSpec &model, std::int64_t layer);

/// FLOPs of `steps` Newton-Schulz iterations on a rows x cols matrix. Each iteration of the quintic form on
/// X (m x n, m = min(rows, cols) <= n, transposed if need be) computes A = X X^T (2 m^2 n), B = b A + c A^2
/// (2 m^3) and X = a X + B X (2 m^2 n): 4 m^2 n + 2 m^3 (Jordan et al. 2024, kellerjordan.github.io/posts/muon,
/// "Runtime analysis": an overhead of at most T m / B of the step's FLOPs for model width m and B tokens a step).
double newtonSchulzFlops(double rows, double cols, std::int64_t steps);

} // namespace trainplan
