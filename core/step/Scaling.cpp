#include "core/step/Scaling.h"

#include <algorithm>

#include "core/memory/MemoryModel.h"
#include "core/step/StepModel.h"

namespace trainplan {

namespace {

/// The plan with `workers` data-parallel replicas and `globalBatch`, on as many nodes as it needs;
/// false when the batch does not split into whole micro-batches, or (a mixture of experts) the plan's
/// expert groups do not fit in the data x context x tensor ranks there are: the curves keep the expert
/// layout, since a smaller one changes the expert GEMMs' shapes and the all-to-all, not only the width.
bool replicate(const Plan &plan, std::int64_t workers, std::int64_t globalBatch, Plan &out)
{
    out = plan;
    out.parallel.data = workers;
    out.training.globalBatch = globalBatch;
    if (plan.model.isMoe() &&
        (workers * plan.parallel.context * plan.parallel.tensor) % plan.parallel.expertShards() != 0)
        return false;
    const std::int64_t perStep = plan.training.microBatch * workers;
    if (globalBatch < perStep || globalBatch % perStep != 0)
        return false;
    if (plan.parallel.virtualStages > 1 && out.microbatches() % plan.parallel.pipeline != 0)
        return false;
    const std::int64_t gpus = workers * plan.parallel.tensor * plan.parallel.pipeline * plan.parallel.context;
    const std::int64_t perNode = plan.cluster.gpusPerNode;
    if (gpus <= perNode) {
        out.cluster.gpusPerNode = gpus;
        out.cluster.nodes = 1;
    } else {
        if (gpus % perNode != 0)
            return false;
        out.cluster.nodes = gpus / perNode;
    }
    return true;
}

double stepSeconds(const Plan &plan, const DeviceSpec &device)
{
    // The scaling points use the analytic bubble: a curve of 26 full simulations would cost more than
    // the estimate it belongs to, and data-parallel width does not change the schedule's shape.
    return estimateStep(plan, device, estimateMemory(plan, device), false).stepSeconds;
}

} // namespace

const ScalingPoint *ScalingCurves::at(const std::vector<ScalingPoint> &curve, std::int64_t workers)
{
    for (const ScalingPoint &p : curve)
        if (p.workers == workers)
            return &p;
    return nullptr;
}

ScalingCurves scalingCurves(const Plan &plan, const DeviceSpec &device, std::int64_t maxWorkers)
{
    ScalingCurves curves;
    curves.planWorkers = plan.parallel.data;
    const std::int64_t perReplicaBatch = plan.training.globalBatch / plan.parallel.data;
    // Powers of two, and the plan's own replica count (144 for a 405B plan, say) so its point is on both.
    std::vector<std::int64_t> sizes;
    for (std::int64_t w = 1; w <= maxWorkers; w *= 2)
        sizes.push_back(w);
    if (plan.parallel.data <= maxWorkers && std::find(sizes.begin(), sizes.end(), plan.parallel.data) == sizes.end())
        sizes.insert(std::upper_bound(sizes.begin(), sizes.end(), plan.parallel.data), plan.parallel.data);
    // The first size the plan can run at is the base (1 replica, or the fewest that hold a mixture of
    // experts' expert groups): speedups are relative to it, taken as linear up to it.
    double strongBase = 0, weakBase = 0;
    std::int64_t strongBaseWorkers = 0;
    for (const std::int64_t w : sizes) {
        Plan scaled;
        if (replicate(plan, w, plan.training.globalBatch, scaled)) {
            const double t = stepSeconds(scaled, device);
            if (strongBase <= 0 && t > 0) {
                strongBase = t;
                strongBaseWorkers = w;
            }
            if (strongBase > 0) {
                const double s = double(strongBaseWorkers) * speedup(strongBase, t);
                curves.strong.push_back({w, t, s, parallelEfficiency(s, double(w))});
            }
        }
        if (replicate(plan, w, perReplicaBatch * w, scaled)) {
            const double t = stepSeconds(scaled, device);
            if (weakBase <= 0 && t > 0)
                weakBase = t;
            if (weakBase > 0) {
                // Weak scaling does W times the work: the speedup is the throughput ratio (W x t_base / t,
                // the base's replicas counted as linear).
                const double s = double(w) * speedup(weakBase, t);
                curves.weak.push_back({w, t, s, parallelEfficiency(s, double(w))});
            }
        }
    }
    return curves;
}

} // namespace trainplan
