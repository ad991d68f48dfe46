#include "app/EstimateCommand.h"

#include <QJsonDocument>

#include "app/CommandLine.h"
#include "core/estimate/Estimate.h"
#include "io/plan/CatalogJson.h"
#include "core/plan/PlanName.h"
#include "io/output/EstimateJson.h"
#include "io/output/EstimateTable.h"

namespace trainplan::cli {

int runEstimate(const QStringList &arguments, QTextStream &out, QTextStream &err)
{
    CommandLine line(QStringLiteral("estimate"),
                     QStringLiteral("Estimate memory, step time and throughput of a plan.\n") + exitCodesHelp(false),
                     QStringLiteral("usage: trainplan estimate PLAN.json [--format json|table] [--timeline]\n"));
    const QCommandLineOption format(QStringList{QStringLiteral("f"), QStringLiteral("format")},
                                    QStringLiteral("Output format: json (default) or table."), QStringLiteral("format"),
                                    QStringLiteral("json"));
    const QCommandLineOption timeline(
        QStringLiteral("timeline"),
        QStringLiteral("Include the simulated pipeline schedule (pipeline.timeline) in the JSON."));
    line.addOption(format);
    line.addOption(timeline);
    if (const std::optional<int> done = line.parse(arguments, out, err))
        return *done;
    const QString formatName = line.value(format);
    if (formatName != QLatin1String("json") && formatName != QLatin1String("table"))
        return line.usageError(err, QStringLiteral("--format must be json or table (got %1)").arg(formatName));

    const std::optional<Plan> plan = readPlanForCommand(line.planPath(), err);
    if (!plan)
        return InvalidInput;
    const Estimate estimate = trainplan::estimate(*plan, io::builtinCatalog());
    if (formatName == QLatin1String("table")) {
        // The table names the plan as the window does (its automatic name when the file gives none); the
        // JSON keeps plan.name as written.
        Plan named = *plan;
        named.name = planDisplayName(*plan, io::builtinCatalog());
        out << io::estimateToTable(named, estimate);
    }
    else
        out << QJsonDocument(io::estimateToJson(*plan, estimate, line.isSet(timeline))).toJson(QJsonDocument::Indented);
    return Ok;
}

} // namespace trainplan::cli
