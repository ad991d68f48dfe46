#include "app/CompareCommand.h"

#include <QFileInfo>
#include <QJsonDocument>

#include "app/CommandLine.h"
#include "core/estimate/Comparison.h"
#include "core/plan/PlanName.h"
#include "io/plan/CatalogJson.h"
#include "io/output/ComparisonJson.h"

namespace trainplan::cli {

int runCompare(const QStringList &arguments, QTextStream &out, QTextStream &err)
{
    CommandLine line(
        QStringLiteral("compare"),
        QStringLiteral("Compare a plan with a baseline: step time, tokens/s, MFU, peak memory, days and cost, "
                       "and the keys that differ.\n") +
            exitCodesHelp(false),
        QStringLiteral("usage: trainplan compare BASELINE.json PLAN.json [--format json|table]\n"), 2);
    const QCommandLineOption format(QStringList{QStringLiteral("f"), QStringLiteral("format")},
                                    QStringLiteral("Output format: json (default) or table."), QStringLiteral("format"),
                                    QStringLiteral("json"));
    line.addOption(format);
    if (const std::optional<int> done = line.parse(arguments, out, err))
        return *done;
    const QString formatName = line.value(format);
    if (formatName != QLatin1String("json") && formatName != QLatin1String("table"))
        return line.usageError(err, QStringLiteral("--format must be json or table (got %1)").arg(formatName));
    const QStringList paths = line.planPaths();
    // Both plans are read (every problem of both reported) before giving up.
    const std::optional<Plan> before = readPlanForCommand(paths[0], err);
    const std::optional<Plan> after = readPlanForCommand(paths[1], err);
    if (!before || !after)
        return InvalidInput;
    const Catalog &catalog = io::builtinCatalog();
    const Estimate beforeEstimate = trainplan::estimate(*before, catalog);
    const Estimate afterEstimate = trainplan::estimate(*after, catalog);
    const PlanComparison comparison = comparePlans(*before, beforeEstimate, *after, afterEstimate);
    const auto name = [&](const Plan &plan, const QString &path) {
        const QString own = QString::fromStdString(planDisplayName(plan, catalog));
        return path == QLatin1String("-") ? own
                                          : own + QStringLiteral(" (") + QFileInfo(path).fileName() + QLatin1Char(')');
    };
    const io::ComparedPlan a{*before, beforeEstimate, name(*before, paths[0])};
    const io::ComparedPlan b{*after, afterEstimate, name(*after, paths[1])};
    if (formatName == QLatin1String("table"))
        out << io::comparisonToTable(a, b, comparison);
    else
        out << QJsonDocument(io::comparisonToJson(a, b, comparison)).toJson(QJsonDocument::Indented);
    return Ok;
}

} // namespace trainplan::cli
