#pragma once
// Scaling curves of a plan over data-parallel worker counts (reference text, Level 2):
//   S(W) = T(1) / T(W),  E(W) = S(W) / W
// strong scaling holds the global batch fixed; weak scaling holds the per-replica batch fixed, so its
// speedup is the throughput ratio W T(1) / T(W). T(1) is one replica of the plan's tensor x pipeline
// group: a well-utilised baseline, not a degraded single GPU. A mixture of experts starts at the fewest
// replicas that hold its expert groups, B (ScalingCurves::baseWorkers): S(W) = B T(B) / T(W).

#include <cstdint>
#include <vector>

#include "core/hardware/DeviceSpec.h"
#include "core/plan/Plan.h"

namespace trainplan {

/// S(W) = T(1) / T(W).
inline double speedup(double baselineSeconds, double seconds)
{
    return seconds > 0 ? baselineSeconds / seconds : 0.0;
}

/// E(W) = S(W) / W.
inline double parallelEfficiency(double speedupValue, double workers)
{
    return workers > 0 ? speedupValue / workers : 0.0;
}

struct ScalingPoint
{
    std::int64_t workers = 0; ///< data-parallel replicas
    double stepSeconds = 0;
    double speedup = 0;
    double efficiency = 0;
};

struct ScalingCurves
{
    std::vector<ScalingPoint> strong; ///< stops where the global batch no longer splits over the replicas
    std::vector<ScalingPoint> weak;
    std::int64_t planWorkers = 0;     ///< the plan's own replicas: a point of both curves where they reach it

    /// The point of `curve` at `workers` replicas, or nullptr.
    static const ScalingPoint *at(const std::vector<ScalingPoint> &curve, std::int64_t workers);
    const ScalingPoint *planStrong() const { return at(strong, planWorkers); }
    const ScalingPoint *planWeak() const { return at(weak, planWorkers); }
    /// The replicas the curves start at, their baseline: 1, or (a mixture of experts) the fewest that hold
    /// the plan's expert groups; speedups count as linear up to it.
    std::int64_t baseWorkers() const { return strong.empty() ? 1 : strong.front().workers; }
};

/// Powers of two from 1 to `maxWorkers` replicas, and the plan's own replica count.
ScalingCurves scalingCurves(const Plan &plan, const DeviceSpec &device, std::int64_t maxWorkers = 4096);

} // namespace trainplan
