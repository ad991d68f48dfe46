#include "core/step/MuonStep.h"

#include <algorithm>

#include "core/comm/Collectives.h"
#include "core/common/Precision.h"
#include "core/compute/LayerOps.h"
#include "core/model/WeightMatrices.h"
#include "core/plan/Plan.h"
#include "core/step/StepModel.h"

namespace trainplan {

namespace {

/// One Newton-Schulz iteration's three matmuls on X (gram x other), each timed at its size: X X^T, A A and
/// B X, reading and writing FP32.
double iterationSeconds(double m, double n, const DeviceSpec &device)
{
    const auto gemm = [&](double rows, double inner, double cols) {
        Op op = matmulOp("Newton-Schulz matmul", OpScope::Step, rows, inner, cols, kFp32Bytes);
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
    if (!plan.training.usesMuon())
        return t;
    const ModelSpec &m = plan.model;
    const ParallelConfig &par = plan.parallel;
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
            const GroupPlacement &group = w.expert ? links.expertTensorGroup : links.tensorGroup;
            const IteratedShape x =
                iteratedShape(w, plan.training.muonTpMode, w.expert ? par.expertTensorSize() : par.tensor);
            const double steps = double(plan.training.muonSteps);
            t.iterateSeconds += owned * steps * iterationSeconds(x.gram, x.other, device);
            t.flops += owned * newtonSchulzFlops(x, plan.training.muonSteps);
            bytes += owned * kFp32Bytes * x.gram * x.other;
            if (x.gathered)
                t.commSeconds +=
                    owned * bestCollective(Collective::AllGather, kFp32Bytes * w.rows * w.cols, group).seconds;
            if (x.reduced) // X X^T summed over the tensor ranks, each iteration
                t.commSeconds +=
                    owned * steps * bestCollective(Collective::AllReduce, kFp32Bytes * x.gram * x.gram, group).seconds;
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
