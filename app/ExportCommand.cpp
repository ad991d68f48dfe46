#include "app/ExportCommand.h"

#include "app/CommandLine.h"
#include "io/plan/CatalogJson.h"
#include "io/interop/Export.h"

namespace trainplan::cli {

int runExport(const QStringList &arguments, QTextStream &out, QTextStream &err)
{
    CommandLine line(
        QStringLiteral("export"),
        QStringLiteral("A launch configuration for the plan: a Megatron-LM script, a NeMo recipe (YAML), a torchtitan "
                       "job file (TOML), a DeepSpeed config (JSON) or an llm-foundry training YAML. What the target "
                       "cannot express is listed.\n") +
            exitCodesHelp(true),
        QStringLiteral(
            "usage: trainplan export PLAN.json --to megatron|nemo|torchtitan|deepspeed|llmfoundry [-o FILE]\n"));
    const QCommandLineOption to(QStringLiteral("to"),
                                QStringLiteral("megatron, nemo, torchtitan, deepspeed or llmfoundry."),
                                QStringLiteral("target"));
    const QCommandLineOption output(QStringList{QStringLiteral("o"), QStringLiteral("output")},
                                    QStringLiteral("Write here instead of standard output."), QStringLiteral("FILE"));
    line.addOption(to);
    line.addOption(output);
    if (const std::optional<int> done = line.parse(arguments, out, err))
        return *done;
    const std::optional<io::ExportTarget> target = io::exportTargetFrom(line.value(to));
    if (!target)
        return line.usageError(
            err, QStringLiteral("--to must be megatron, nemo, torchtitan, deepspeed or llmfoundry (got \"%1\")")
                     .arg(line.value(to)));
    const std::optional<Plan> plan = readPlanForCommand(line.planPath(), err);
    if (!plan)
        return InvalidInput;
    const io::ExportResult result = io::exportPlan(*plan, *target, io::builtinCatalog());
    for (const QString &warning : result.warnings)
        err << QStringLiteral("warning: %1\n").arg(warning);
    for (const QString &note : result.notExpressed)
        err << QStringLiteral("not expressed: %1\n").arg(note);
    if (line.isSet(output))
        return writeOutputFile(line.value(output), result.text, {line.planPath()}, QStringLiteral("export"), err);
    out << QString::fromUtf8(result.text);
    return Ok;
}

} // namespace trainplan::cli
