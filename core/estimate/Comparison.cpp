#include "core/estimate/Comparison.h"

#include <cmath>

#include "core/plan/PlanKeys.h"

namespace trainplan {

namespace {

std::string spelled(const KeyValue &value)
{
    return std::holds_alternative<std::monostate>(value) ? std::string("(none)") : formatValue(value);
}

std::string groupsText(const ClusterConfig &cluster)
{
    std::string out;
    for (const NodeGroup &g : cluster.groups())
        out += (out.empty() ? "" : " + ") + std::to_string(g.nodes) + " x " + std::to_string(g.gpusPerNode) + " " +
               g.device + (g.intraNodeLink.empty() ? "" : " (" + g.intraNodeLink + ")");
    return out;
}

std::string devicesText(const ClusterConfig &cluster)
{
    std::string out;
    for (const DeviceSpec &d : cluster.customDevices)
        out += (out.empty() ? "" : ", ") + d.id;
    return out.empty() ? std::string("(none)") : out;
}

std::optional<double> metricOf(ComparedMetric m, const Estimate &e)
{
    if (!e.valid)
        return std::nullopt;
    switch (m) {
    case ComparedMetric::StepSeconds: return e.step.stepSeconds;
    case ComparedMetric::TokensPerSecond: return e.step.tokensPerSecond;
    case ComparedMetric::Mfu: return e.step.mfu;
    case ComparedMetric::PeakMemoryBytes: return e.memory.peakBytes;
    case ComparedMetric::TrainingDays: return e.memory.fits ? std::optional<double>(e.run.days) : std::nullopt;
    case ComparedMetric::Cost: return e.memory.fits ? std::optional<double>(e.run.cost) : std::nullopt;
    }
    return std::nullopt;
}

} // namespace

std::vector<KeyDifference> planDifferences(const Plan &before, const Plan &after)
{
    std::vector<KeyDifference> out;
    for (const PlanKey &key : planKeys()) {
        if (key.accessible()) {
            const KeyValue a = key.get(before), b = key.get(after);
            if (a != b)
                out.push_back({key.path, spelled(a), spelled(b)});
        } else if (std::string_view(key.path) == "cluster.node_groups"
                   && (!before.cluster.nodeGroups.empty() || !after.cluster.nodeGroups.empty())
                   && before.cluster.groups() != after.cluster.groups()) {
            // A single-group cluster differs in its summary keys already; groups are listed for mixed ones.
            out.push_back({key.path, groupsText(before.cluster), groupsText(after.cluster)});
        } else if (std::string_view(key.path) == "cluster.custom_devices" &&
                   before.cluster.customDevices != after.cluster.customDevices) {
            out.push_back({key.path, devicesText(before.cluster), devicesText(after.cluster)});
        }
    }
    return out;
}

PlanComparison comparePlans(const Plan &before, const Estimate &beforeEstimate, const Plan &after,
                            const Estimate &afterEstimate)
{
    PlanComparison c;
    c.beforeValid = beforeEstimate.valid;
    c.afterValid = afterEstimate.valid;
    c.beforeFits = beforeEstimate.valid && beforeEstimate.memory.fits;
    c.afterFits = afterEstimate.valid && afterEstimate.memory.fits;
    c.beforeMayNotFit = beforeEstimate.valid && mayNotFit(beforeEstimate.memory, detailsOf(beforeEstimate).accuracy);
    c.afterMayNotFit = afterEstimate.valid && mayNotFit(afterEstimate.memory, detailsOf(afterEstimate).accuracy);
    for (std::size_t i = 0; i < kComparedMetricCount; ++i) {
        MetricComparison &m = c.metrics[i];
        m.metric = ComparedMetric(i);
        m.lowerIsBetter = m.metric != ComparedMetric::TokensPerSecond && m.metric != ComparedMetric::Mfu;
        m.before = metricOf(m.metric, beforeEstimate);
        m.after = metricOf(m.metric, afterEstimate);
        if (!m.before || !m.after)
            continue;
        if (m.metric == ComparedMetric::Mfu)
            m.change = *m.after - *m.before;
        else if (*m.before > 0)
            m.change = *m.after / *m.before - 1.0;
        if (m.change && std::fabs(*m.change) >= 0.0005)
            m.better = (*m.change < 0) == m.lowerIsBetter;
    }
    c.differences = planDifferences(before, after);
    return c;
}

} // namespace trainplan
