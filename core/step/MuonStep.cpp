#include "core/step/MuonStep.h"

#include <algorithm>

#include "core/comm/Collectives.h"
#include "core/common/Precision.h"
#include "core/model/WeightMatrices.h"
#include "core/plan/Plan.h"
#include "core/step/StepModel.h"

namespace trainplan {

namespace {

/// One Newton-Schulz iteration's three matmuls on an m x n matrix (m <= n), each timed at its size: X X^T,
/// A A and B X, reading and writing FP32.
double iterationSeconds(double m, double n, const DeviceSpec &device)
{
    const auto gemm = [&](double rows, double inner, double cols) {
        Op op;
        op.name = "Newton-Schulz matmul";
        op.kind = OpKind::Matmul;
        op.scope = OpScope::Step;
        op.flops = 2.0 * rows * inner * cols;
        op.bytes = kFp32Bytes * (rows * inner + inner * cols + rows * cols);
        op.batch = 1;
        op.rows = rows;
        op.inner = inner;
        op.cols = cols;
        timeOp(op, device, Precision::BF16);
        return op.seconds;
    };
    return gemm(m, n, m) + gemm(m, m, m) + gemm(m, m, n);
}

} // namespace

MuonTime muonTime(const Plan &plan, const DeviceSpec &device, const ClusterLinks &links, std::int64_t stage,
                  std::vector<Op> &ops)
{
    MuonTime t;
    if (plan.training.optimizer != Optimizer::Muon)
        return t;
    const ModelSpec &m = plan.model;
    const ParallelConfig &par = plan.parallel;
    const bool whole = plan.training.muonTpMode == MuonTpMode::Duplicated;
    const std::array<LayerKind, 2> kinds =
        layerKinds(m, plan.firstLayerOfStage(stage), plan.layersOnStage(stage));
    const double denseShare = par.optimizerParameters(1.0, 0.0), expertShare = par.optimizerParameters(0.0, 1.0);
    double bytes = 0;
    for (const LayerKind &kind : kinds) {
        if (kind.count <= 0)
            continue;
        for (const WeightMatrix &w : layerMatrices(m, kind.layer)) {
            const double local = w.expert ? w.count / double(std::max<std::int64_t>(1, par.expert)) : w.count;
            const double owned = kind.count * local * (w.expert ? expertShare : denseShare);
            const IteratedShape x = iteratedShape(w, whole, w.expert ? par.expertTensorSize() : par.tensor);
            t.iterateSeconds += owned * double(plan.training.muonSteps) *
                                iterationSeconds(std::min(x.rows, x.cols), std::max(x.rows, x.cols), device);
            t.flops += owned * newtonSchulzFlops(x.rows, x.cols, plan.training.muonSteps);
            bytes += owned * kFp32Bytes * x.rows * x.cols;
            if (x.gathered) {
                const GroupPlacement &group = w.expert ? links.expertTensorGroup : links.tensorGroup;
                t.gatherSeconds +=
                    owned * bestCollective(Collective::AllGather, kFp32Bytes * w.rows * w.cols, group).seconds;
            }
        }
    }
    Op op;
    op.name = "Muon Newton-Schulz";
    op.kind = OpKind::Matmul;
    op.scope = OpScope::Step;
    op.flops = t.flops;
    op.bytes = 3.0 * bytes;
    op.seconds = t.iterateSeconds;
    ops.push_back(op);
    return t;
}

} // namespace trainplan
