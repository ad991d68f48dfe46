#pragma once
// The weight matrices of a layer as Megatron-Core stores them, for what works per matrix rather than per
// parameter: Muon's Newton-Schulz iterations (Jordan et al. 2024) orthogonalise each one whole.

#include <array>
#include <cstdint>
#include <vector>

#include "core/model/ModelSpec.h"
#include "core/plan/PlanEnums.h"

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

/// What one rank iterates on for `w` (emerging_optimizers muon_utils.py newton_schulz_tp at fd77292): the Gram
/// matrix's side (`gram`, X X^T is gram x gram) and X's other side on this rank.
///  - duplicated: the whole matrix, gathered over `tensorRanks` (the tensor or, for a routed expert, the expert
///    tensor ranks); gram = its smaller side;
///  - blockwise: the rank's block alone; gram = the block's smaller side;
///  - distributed: the rank's block, with X X^T all-reduced over the ranks each iteration: gram = the side tensor
///    parallelism does not split, whole, the other side the rank's part (when that split side is the smaller
///    one, "distributed mode will run Newton-Schulz along the long dimension which wastes compute").
/// A matrix tensor parallelism does not split is iterated on whole, alone, in every mode.
struct IteratedShape
{
    double gram = 0, other = 0;
    bool gathered = false; ///< the whole matrix gathered from tensor-parallel shards (duplicated)
    bool reduced = false;  ///< X X^T all-reduced over the tensor ranks each iteration (distributed)
};
IteratedShape iteratedShape(const WeightMatrix &w, MuonTpMode mode, std::int64_t tensorRanks);

/// Bytes one Newton-Schulz iteration holds at once, in FP32 (newton_schulz takes FP32 only; the matmuls run at
/// --muon-fp32-matmul-prec): X and the product B X (gram x other each), A = X X^T and A A (gram x gram each),
/// and the whole momentum when it was gathered.
double newtonSchulzWorkspaceBytes(const IteratedShape &shape);

/// FLOPs of `steps` Newton-Schulz iterations on one rank. Each iteration of the quintic form on X (gram x other)
/// computes A = X X^T (2 gram^2 other), B = b A + c A^2 (2 gram^3) and X = a X + B X (2 gram^2 other):
/// 4 gram^2 other + 2 gram^3 (Jordan et al. 2024, kellerjordan.github.io/posts/muon, "Runtime analysis": an
/// overhead of at most T m / B of the step's FLOPs for model width m and B tokens a step).
double newtonSchulzFlops(const IteratedShape &shape, std::int64_t steps);

/// The replicated matrices' parameters of layer `layer` (MLA's down projections, the router): the part of
/// LayerParameters::replicated that is 2-D.
double replicatedMatrixParameters(const ModelSpec &model, std::int64_t layer);


} // namespace trainplan
