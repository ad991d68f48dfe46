#include "io/output/ComparisonJson.h"

#include "io/output/EstimateTable.h"

#include <QJsonArray>
#include <QStringList>

#include <cmath>

#include "core/common/Units.h"

namespace trainplan::io {

namespace {

QJsonValue optionalNumber(const std::optional<double> &v)
{
    return v ? QJsonValue(*v) : QJsonValue(QJsonValue::Null);
}

QJsonObject planSummary(const ComparedPlan &p, const PlanComparison &c, bool baseline)
{
    QJsonObject o{{"name", p.name},
                  {"valid", baseline ? c.beforeValid : c.afterValid},
                  {"fits", baseline ? c.beforeFits : c.afterFits},
                  {"may_not_fit", baseline ? c.beforeMayNotFit : c.afterMayNotFit},
                  {"currency", QString::fromStdString(p.plan.run.currency)}};
    for (const MetricComparison &m : c.metrics)
        o[QLatin1String(toString(m.metric))] = optionalNumber(baseline ? m.before : m.after);
    return o;
}

QString fixed(const QString &text, int width)
{
    return text.leftJustified(width, QLatin1Char(' '), false);
}

} // namespace

QString metricText(ComparedMetric metric, const std::optional<double> &value, const std::string &currency)
{
    if (!value)
        return QStringLiteral("n/a");
    const double v = *value;
    switch (metric) {
    case ComparedMetric::StepSeconds:
        return QString::fromStdString(units::formatNumber(v, v < 10 ? 3 : 2)) + QStringLiteral(" s");
    case ComparedMetric::TokensPerSecond: return QString::fromStdString(units::formatGrouped(v, 0));
    case ComparedMetric::Mfu: return QString::fromStdString(units::formatPercent(v, 1));
    case ComparedMetric::PeakMemoryBytes: return QString::fromStdString(units::formatBytes(v, units::ByteUnit::GiB, 2));
    case ComparedMetric::TrainingDays: return QString::fromStdString(units::formatNumber(v, 1));
    case ComparedMetric::Cost: return QString::fromStdString(units::formatCurrency(v, currency));
    }
    return {};
}

QString changeText(const MetricComparison &m)
{
    if (!m.change)
        return {};
    const double c = *m.change;
    if (m.metric == ComparedMetric::Mfu)
        return (c >= 0 ? QStringLiteral("+") : QString()) + QString::fromStdString(units::formatNumber(100.0 * c, 1)) +
               QStringLiteral(" points");
    return (c >= 0 ? QStringLiteral("+") : QString()) + QString::fromStdString(units::formatPercent(c, 1));
}

QString fitText(bool fits, bool mayNotFit)
{
    return fits ? (mayNotFit ? QStringLiteral("yes, uncertain") : QStringLiteral("yes")) : QStringLiteral("no");
}

QJsonObject comparisonToJson(const ComparedPlan &baseline, const ComparedPlan &plan, const PlanComparison &comparison)
{
    QJsonArray metrics;
    for (const MetricComparison &m : comparison.metrics)
        metrics.append(QJsonObject{{"metric", QLatin1String(toString(m.metric))},
                                   {"baseline", optionalNumber(m.before)},
                                   {"plan", optionalNumber(m.after)},
                                   {"change", optionalNumber(m.change)},
                                   {"better", m.better ? QJsonValue(*m.better) : QJsonValue(QJsonValue::Null)}});
    QJsonArray differences;
    for (const KeyDifference &d : comparison.differences)
        differences.append(QJsonObject{{"key", QString::fromStdString(d.path)},
                                       {"baseline", QString::fromStdString(d.before)},
                                       {"plan", QString::fromStdString(d.after)}});
    return QJsonObject{
        {"format", "trainplan-comparison"},
        {"version", 1},
        {"plans", QJsonArray{planSummary(baseline, comparison, true), planSummary(plan, comparison, false)}},
        {"metrics", metrics},
        {"differences", differences}};
}

QString comparisonToTable(const ComparedPlan &baseline, const ComparedPlan &plan, const PlanComparison &comparison)
{
    QStringList lines;
    lines << QStringLiteral("Baseline: %1%2")
                 .arg(baseline.name, comparison.beforeValid ? QString() : QStringLiteral(" (invalid)"));
    lines << QStringLiteral("Plan:     %1%2")
                 .arg(plan.name, comparison.afterValid ? QString() : QStringLiteral(" (invalid)"));
    lines << QString();
    lines << fixed(QStringLiteral("Metric"), 22) + fixed(QStringLiteral("Baseline"), 18) +
                 fixed(QStringLiteral("Plan"), 18) + QStringLiteral("Change");
    for (const MetricComparison &m : comparison.metrics) {
        QString change = changeText(m);
        if (m.better)
            change += *m.better ? QStringLiteral(" (better)") : QStringLiteral(" (worse)");
        lines << fixed(QLatin1String(labelOf(m.metric)), 22) +
                     fixed(metricText(m.metric, m.before, baseline.plan.run.currency), 18) +
                     fixed(metricText(m.metric, m.after, plan.plan.run.currency), 18) + change;
    }
    lines << fixed(QStringLiteral("Fits"), 22) + fixed(fitText(comparison.beforeFits, comparison.beforeMayNotFit), 18) +
                 fitText(comparison.afterFits, comparison.afterMayNotFit);
    lines << QString();
    if (comparison.differences.empty()) {
        lines << QStringLiteral("The plans have the same keys.");
    } else {
        lines << QStringLiteral("%1 key(s) differ:").arg(comparison.differences.size());
        for (const KeyDifference &d : comparison.differences)
            lines << QStringLiteral("  %1: %2 -> %3")
                         .arg(QString::fromStdString(d.path), QString::fromStdString(d.before),
                              QString::fromStdString(d.after));
    }
    return terminalLines(lines);
}

} // namespace trainplan::io
