#include "app/ProfileCommand.h"

#include <QFileInfo>
#include <QJsonDocument>

#include "app/CommandLine.h"
#include "core/estimate/Estimate.h"
#include "io/plan/CatalogJson.h"
#include "io/measure/KinetoTrace.h"
#include "io/measure/ProfileReport.h"

namespace trainplan::cli {

namespace {

/// A non-negative integer option, or an error naming it.
std::optional<int> countOption(const CommandLine &line, const QCommandLineOption &option, int minimum, QString *error)
{
    if (!line.isSet(option))
        return std::nullopt;
    bool ok = false;
    const int value = line.value(option).toInt(&ok);
    if (!ok || value < minimum) {
        *error = QStringLiteral("--%1 must be an integer, %2 or more (got \"%3\")")
                     .arg(option.names().constLast())
                     .arg(minimum)
                     .arg(line.value(option));
        return std::nullopt;
    }
    return value;
}

} // namespace

int runProfile(const QStringList &arguments, QTextStream &out, QTextStream &err)
{
    CommandLine line(
        QStringLiteral("profile"),
        QStringLiteral(
            "Set a PyTorch profiler (Kineto) trace of training steps beside the plan's estimate: kernel time per "
            "class per step (GEMM, attention, element-wise, optimizer, copies, NCCL by collective), the exposed "
            "communication and the idle time, the largest disagreement first.\n") +
            exitCodesHelp(true),
        QStringLiteral("usage: trainplan profile TRACE.json PLAN.json [--stage N] [--steps N] [--device N] "
                       "[--format table|json] [--measurements MEASURED.csv]\n"),
        {{QStringLiteral("TRACE"), QStringLiteral("The trace (torch.profiler's Chrome trace, .json or .json.gz).")},
         {QStringLiteral("PLAN"), QStringLiteral("The plan the traced run used.")}});
    const QCommandLineOption stage(
        QStringLiteral("stage"),
        QStringLiteral("The traced rank's pipeline stage (default 0: Megatron-LM profiles rank 0)."),
        QStringLiteral("N"));
    const QCommandLineOption steps(QStringLiteral("steps"),
                                   QStringLiteral("Steps in the trace (default: its ProfilerStep markers)."),
                                   QStringLiteral("N"));
    const QCommandLineOption device(QStringLiteral("device"),
                                    QStringLiteral("The GPU compared (default: the first in the trace)."),
                                    QStringLiteral("N"));
    const QCommandLineOption format(QStringList{QStringLiteral("f"), QStringLiteral("format")},
                                    QStringLiteral("table (default) or json."), QStringLiteral("format"),
                                    QStringLiteral("table"));
    const QCommandLineOption measurements(
        QStringLiteral("measurements"),
        QStringLiteral("Append the measured step and kernel classes to this calibration CSV."),
        QStringLiteral("MEASURED.csv"));
    for (const QCommandLineOption *o : {&stage, &steps, &device, &format, &measurements})
        line.addOption(*o);
    if (const std::optional<int> done = line.parse(arguments, out, err))
        return *done;
    QString error;
    const std::optional<int> stageValue = countOption(line, stage, 0, &error);
    const std::optional<int> stepsValue = countOption(line, steps, 1, &error);
    const std::optional<int> deviceValue = countOption(line, device, 0, &error);
    if (!error.isEmpty())
        return line.usageError(err, error);
    if (line.value(format) != QLatin1String("table") && line.value(format) != QLatin1String("json"))
        return line.usageError(err, QStringLiteral("--format must be table or json (got %1)").arg(line.value(format)));

    const QString tracePath = line.planPaths().value(0), planPath = line.planPaths().value(1);
    if (line.isSet(measurements) && planPath == QLatin1String("-"))
        return line.usageError(
            err,
            QStringLiteral("--measurements needs the plan as a file, not standard input: the row names its plan file"));
    const io::TraceReadResult trace = io::readKinetoTrace(tracePath);
    if (!trace.trace) {
        err << trace.error << '\n';
        return InvalidInput;
    }
    const std::optional<Plan> plan = readPlanForCommand(planPath, err);
    if (!plan)
        return InvalidInput;
    if (stageValue && *stageValue >= plan->parallel.pipeline)
        return line.usageError(err, QStringLiteral("--stage must be below the plan's %1 pipeline stages (got %2)")
                                        .arg(plan->parallel.pipeline)
                                        .arg(*stageValue));
    const Estimate estimate = trainplan::estimate(*plan, io::builtinCatalog());
    const MeasuredProfile measured = measureProfile(*trace.trace, stepsValue, deviceValue);
    const ProfileComparison comparison = compareProfile(measured, *plan, estimate, stageValue.value_or(0));
    if (line.value(format) == QLatin1String("json"))
        out << QJsonDocument(io::profileToJson(measured, comparison)).toJson(QJsonDocument::Indented);
    else
        out << io::profileTable(measured, comparison, QFileInfo(tracePath).fileName(), QFileInfo(planPath).fileName(),
                                plan->parallel.pipeline);
    if (line.isSet(measurements)) {
        if (!io::appendMeasurementRow(line.value(measurements), planPath, measured, comparison.stage, &error)) {
            err << QStringLiteral("trainplan profile: %1: %2\n").arg(line.value(measurements), error);
            return OutputError;
        }
        err << QStringLiteral("appended a row to %1\n").arg(line.value(measurements));
    }
    return Ok;
}

} // namespace trainplan::cli
