#include "app/EstimateCommand.h"

#include <QCommandLineParser>
#include <QJsonDocument>

#include "io/CatalogJson.h"
#include "io/EstimateJson.h"
#include "io/EstimateTable.h"
#include "io/PlanJson.h"
#include "core/estimate/Estimate.h"

namespace trainplan::cli {

std::optional<Plan> readPlanForCommand(const QString &path, QTextStream &err)
{
    io::PlanReadResult read = io::readPlanFile(path, io::builtinCatalog());
    for (const Problem &p : read.problems)
        err << path << ": " << QString::fromStdString(toString(p)) << "\n";
    return std::move(read.plan);
}

int runEstimate(const QStringList &arguments, QTextStream &out, QTextStream &err)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Estimate memory per GPU and pipeline stage for a plan."));
    parser.addPositionalArgument(QStringLiteral("plan"), QStringLiteral("Plan file (JSON), or - for standard input."));
    const QCommandLineOption format(QStringList{QStringLiteral("f"), QStringLiteral("format")},
                                    QStringLiteral("Output format: json (default) or table."), QStringLiteral("format"),
                                    QStringLiteral("json"));
    const QCommandLineOption help(QStringList{QStringLiteral("h"), QStringLiteral("help")}, QStringLiteral("Show this help."));
    const QCommandLineOption timeline(QStringLiteral("timeline"),
                                      QStringLiteral("Include the simulated pipeline schedule (pipeline.timeline) in the JSON."));
    parser.addOption(format);
    parser.addOption(timeline);
    parser.addOption(help);

    if (!parser.parse(QStringList{QStringLiteral("trainplan estimate")} + arguments)) {
        err << "trainplan estimate: " << parser.errorText() << "\n";
        return UsageError;
    }
    if (parser.isSet(help)) {
        out << parser.helpText();
        return Ok;
    }
    const QString formatName = parser.value(format);
    if (formatName != QLatin1String("json") && formatName != QLatin1String("table")) {
        err << "trainplan estimate: --format must be json or table (got " << formatName << ")\n";
        return UsageError;
    }
    if (parser.positionalArguments().size() != 1) {
        err << "trainplan estimate: expected exactly one plan file\n"
            << "usage: trainplan estimate PLAN.json [--format json|table] [--timeline]\n";
        return UsageError;
    }

    const QString path = parser.positionalArguments().constFirst();
    const Catalog &catalog = io::builtinCatalog();
    const std::optional<Plan> plan = readPlanForCommand(path, err);
    if (!plan)
        return InvalidInput;

    const Estimate estimate = trainplan::estimate(*plan, catalog);
    if (formatName == QLatin1String("table"))
        out << io::estimateToTable(*plan, estimate);
    else
        out << QJsonDocument(io::estimateToJson(*plan, estimate, parser.isSet(timeline))).toJson(QJsonDocument::Indented);
    return Ok;
}

} // namespace trainplan::cli
