#pragma once
// `trainplan compare`: two plans side by side as JSON or a table. Keys (a public contract): plans[2]
// {name, valid, fits, may_not_fit, step_seconds, tokens_per_second, mfu, peak_memory_bytes, training_days, cost,
// currency}, metrics[] {metric, baseline, plan, change, better}, differences[] {key, baseline, plan}.

#include <QJsonObject>
#include <QString>

#include "core/estimate/Comparison.h"
#include "core/hardware/Catalog.h"

namespace trainplan::io {

struct ComparedPlan
{
    const Plan &plan;
    const Estimate &estimate;
    QString name;
};

QJsonObject comparisonToJson(const ComparedPlan &baseline, const ComparedPlan &plan, const PlanComparison &comparison);
/// The same as a fixed-width table, with the changes in words ("12.3% faster").
QString comparisonToTable(const ComparedPlan &baseline, const ComparedPlan &plan, const PlanComparison &comparison);
/// One metric's value in words ("41.42 s", "75.9 K", "51.2%", "25.58 GiB", "34.2", "$1,061,321"; "n/a").
QString metricText(ComparedMetric metric, const std::optional<double> &value, const std::string &currency);
/// A change in words: "-12.3%", "+3.1 points" (MFU); "" without one.
QString changeText(const MetricComparison &m);
/// Whether a plan fits in words: "yes", "yes, uncertain" (not at the memory band's upper edge) or "no".
QString fitText(bool fits, bool mayNotFit);

} // namespace trainplan::io
