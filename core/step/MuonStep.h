#pragma once
// Muon's optimizer step beyond its element-wise update: the Newton-Schulz iterations on every weight matrix
// this rank owns, and, in its duplicated tensor mode, the all-gather of each tensor-parallel matrix's momentum.

#include <cstdint>
#include <vector>

#include "core/compute/Op.h"

namespace trainplan {

struct Plan;
struct ClusterLinks;

struct MuonTime
{
    double iterateSeconds = 0; ///< the Newton-Schulz iterations
    /// Over the tensor (expert tensor) ranks: the momentum's all-gathers (duplicated), the Gram matrices'
    /// all-reduces, one per iteration (distributed).
    double commSeconds = 0;
    double flops = 0;          ///< of the iterations
    double seconds() const { return iterateSeconds + commSeconds; }
};

/// What stage `stage`'s ranks spend on Muon's orthogonalisation per step; appends its op to `ops`. Zero unless
/// the plan's optimizer is muon.
///  - Which matrices: core/model/WeightMatrices.h. Each rank iterates on the ones it owns: under the
///    distributed optimizer Megatron-Core's layer-wise distributed optimizer gives each data-parallel rank whole
///    matrices, about 1/d of them (megatron/core/optimizer/layer_wise_optimizer.py at d98e8a6); without it
///    every rank iterates on all of them.
///  - Duplicated mode (the default) gathers a tensor-parallel matrix's FP32 momentum and iterates on the whole
///    matrix on every tensor rank; blockwise iterates on the rank's block; distributed on the rank's block with
///    the Gram matrix X X^T all-reduced each iteration (WeightMatrices.h, iteratedShape).
///  - The iterations' matmuls run in FP32 at matmul precision "medium", on the BF16 tensor cores
///    (--muon-fp32-matmul-prec medium; torch.set_float32_matmul_precision), each timed at its own size.
MuonTime muonTime(const Plan &plan, const DeviceSpec &device, const ClusterLinks &links, std::int64_t stage,
                  std::vector<Op> &ops);

} // namespace trainplan
