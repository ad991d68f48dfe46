#pragma once
// Shared by the libFuzzer targets: Qt needs no application object for JSON and resources, but the
// built-in catalog is loaded once per process.

#include <QByteArray>

#include <cstddef>
#include <cstdint>

#include "io/CatalogJson.h"
#include "io/PlanJson.h"
#include "core/estimate/Estimate.h"

namespace trainplan::fuzz {

inline QByteArray bytes(const std::uint8_t *data, std::size_t size)
{
    return QByteArray(reinterpret_cast<const char *>(data), qsizetype(size));
}

/// Estimates a plan the way the window does, simulating the pipeline only when its op count stays
/// small (a fuzzed plan may ask for 10^7 micro-batches; the analytic path covers those).
inline void exercise(const Plan &plan, const Catalog &catalog, bool analyticOnly = false)
{
    const double ops = double(plan.parallel.pipeline) * double(plan.microbatches()) * double(plan.parallel.virtualStages);
    EstimateOptions options;
    options.scaling = !analyticOnly && ops < 1e4;
    options.simulatePipeline = !analyticOnly && ops < 1e5;
    const Estimate e = estimate(plan, catalog, options);
    if (e.valid && !(e.step.stepSeconds >= 0))
        __builtin_trap(); // a valid plan must give a number, never NaN
}

} // namespace trainplan::fuzz
