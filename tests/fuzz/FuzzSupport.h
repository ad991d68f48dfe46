#pragma once
// Shared by the libFuzzer targets: Qt needs no application object for JSON and resources, but the
// built-in catalog is loaded once per process.

#include <QByteArray>
#include <QJsonArray>
#include <QJsonObject>

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "io/plan/CatalogJson.h"
#include "io/output/EstimateJson.h"
#include "io/plan/PlanJson.h"
#include "core/estimate/Estimate.h"

namespace trainplan::fuzz {

inline bool allFinite(const QJsonValue &v)
{
    if (v.isDouble())
        return std::isfinite(v.toDouble());
    if (v.isNull())
        return false;
    if (v.isArray()) {
        for (const QJsonValue x : v.toArray())
            if (!allFinite(x))
                return false;
    }
    if (v.isObject()) {
        const QJsonObject o = v.toObject();
        for (auto it = o.begin(); it != o.end(); ++it)
            if (!allFinite(it.value()))
                return false;
    }
    return true;
}

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
    // Every number of an accepted plan's estimate is finite: QJsonValue writes NaN and infinity as null.
    if (e.valid && !allFinite(io::estimateToJson(plan, e, options.simulatePipeline)))
        __builtin_trap();
}

} // namespace trainplan::fuzz
