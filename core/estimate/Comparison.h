#pragma once
// Two plans side by side: the keys that differ and the headline numbers with their changes. The window's
// compare mode, `trainplan compare` and the report's comparison section all read this.

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "core/estimate/Estimate.h"
#include "core/plan/Plan.h"

namespace trainplan {

/// One plan key whose value differs (path "parallel.tensor"; the node groups and custom devices compare as
/// a whole).
struct KeyDifference
{
    std::string path;
    std::string before; ///< in the plan file's spelling ("8", "1f1b"; "(none)" for an absent override)
    std::string after;
};

/// The plan keys whose values differ, in the key table's order.
std::vector<KeyDifference> planDifferences(const Plan &before, const Plan &after);

enum class ComparedMetric { StepSeconds, TokensPerSecond, Mfu, PeakMemoryBytes, TrainingDays, Cost };
constexpr auto enumNames(ComparedMetric)
{
    using N = EnumName<ComparedMetric>;
    return std::array{N{ComparedMetric::StepSeconds, "step_seconds", "Step time"},
                      N{ComparedMetric::TokensPerSecond, "tokens_per_second", "Tokens/s"},
                      N{ComparedMetric::Mfu, "mfu", "MFU"},
                      N{ComparedMetric::PeakMemoryBytes, "peak_memory_bytes", "Peak memory per GPU"},
                      N{ComparedMetric::TrainingDays, "training_days", "Days to train"},
                      N{ComparedMetric::Cost, "cost", "Cost to train"}};
}
inline const char *toString(ComparedMetric v) { return spellingOf(v); }
inline constexpr std::size_t kComparedMetricCount = enumCount<ComparedMetric>();

struct MetricComparison
{
    ComparedMetric metric = ComparedMetric::StepSeconds;
    std::optional<double> before; ///< none when that plan is invalid, or days and cost of a plan that does not fit
    std::optional<double> after;
    bool lowerIsBetter = true;
    /// after / before - 1 (MFU: after - before, in fraction points); none unless both are present.
    std::optional<double> change;
    /// Whether `after` is better; none when equal (within 0.05%) or not comparable.
    std::optional<bool> better;
};

struct PlanComparison
{
    bool beforeValid = false, afterValid = false;
    bool beforeFits = false, afterFits = false;
    /// Fits as estimated but not at the memory band's upper edge (mayNotFit; estimates made with details).
    bool beforeMayNotFit = false, afterMayNotFit = false;
    std::array<MetricComparison, kComparedMetricCount> metrics{};
    std::vector<KeyDifference> differences;
};

PlanComparison comparePlans(const Plan &before, const Estimate &beforeEstimate, const Plan &after,
                            const Estimate &afterEstimate);

} // namespace trainplan
