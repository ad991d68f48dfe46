#pragma once
// A measured trace beside the estimate of the same plan, per step on one pipeline stage's rank (a trace is
// one rank's; Megatron-LM profiles rank 0, the first stage, by default): kernel time per class, the
// communication left exposed, the idle time and the step, the largest disagreement first.
//
// The estimate's side: every op of one micro-batch (core/compute/LayerOps) counted as often as the stage
// runs it (its layers, the embedding on the first stage, the output layer and loss on the last, once per
// micro-batch; the optimizer once per step), classed as a profiler would see its kernel; the exposed
// communication is the stage's tensor, context, expert and pipeline exchanges and the step's exposed
// data-parallel synchronisation; idle is what remains of the step.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/estimate/Estimate.h"
#include "core/profile/TraceProfile.h"

namespace trainplan {

/// The estimate's kernel time per class for one step on `stage`'s rank, and what the profile compares.
struct EstimatedProfile
{
    std::array<double, kKernelClassCount> busySeconds{}; ///< only the compute classes (collectives: exposed below)
    double exposedCommunicationSeconds = 0;
    double idleSeconds = 0;
    double stepSeconds = 0;
    double busy(KernelClass c) const { return busySeconds[std::size_t(c)]; }
};

/// The estimate per class (the estimate must be valid; `stage` is clamped to the pipeline).
EstimatedProfile estimatedProfile(const Plan &plan, const Estimate &estimate, std::int64_t stage);

struct ProfileRow
{
    std::string key;   ///< "gemm", "communication_exposed", "step", ... (the JSON's and the CSV's names)
    std::string label; ///< for people
    double measuredSeconds = 0;
    std::optional<double> estimatedSeconds; ///< none where the estimate has no counterpart (busy time per collective)

    /// estimated / measured - 1 (none without an estimate or a measurement).
    std::optional<double> error() const;
};

struct ProfileComparison
{
    std::int64_t stage = 0;
    EstimatedProfile estimated; ///< the estimate's side on that stage, whole (the window stacks it)
    std::vector<ProfileRow> rows; ///< rows with both sides first, the largest |estimated - measured| first
};

ProfileComparison compareProfile(const MeasuredProfile &measured, const Plan &plan, const Estimate &estimate,
                                 std::int64_t stage);

/// The classes a measurement can calibrate (CSV columns `<key>_seconds`): GEMM, attention, element-wise.
inline constexpr std::array kCalibratedKernelClasses{KernelClass::Gemm, KernelClass::Attention,
                                                     KernelClass::Elementwise};

} // namespace trainplan
