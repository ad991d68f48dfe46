#include "app/ImportCommand.h"

#include <QJsonDocument>
#include <QProcess>

#include "app/CommandLine.h"
#include "io/plan/CatalogJson.h"
#include "io/interop/Import.h"
#include "io/plan/PlanJson.h"

namespace trainplan::cli {

int runImport(const QStringList &arguments, QTextStream &out, QTextStream &err)
{
    CommandLine line(
        QStringLiteral("import"),
        QStringLiteral(
            "A plan from the files you have: a Hugging Face config.json (the model), a Megatron-LM "
            "script or argument file, a NeMo recipe (.yaml), an llm-foundry training YAML, a torchtitan job file "
            "(.toml) or saved configuration (.json), a DeepSpeed config (.json). What the plan needs and no file "
            "gives (device, nodes, global batch, model, sequence length) is an error naming each key: give it with "
            "--set, or take the built-in example's "
            "with --assume-example (then listed as assumptions). The rest takes the plan format's defaults.\n") +
            exitCodesHelp(true),
        QStringLiteral("usage: trainplan import FILE... [--set KEY=VALUE,...] [--script-args ARGS] [--assume-example] "
                       "[-o PLAN.json]\n"),
        0);
    const QCommandLineOption set(QStringLiteral("set"), QStringLiteral("Plan keys to set last, KEY=VALUE[,...]."),
                                 QStringLiteral("KEY=VALUE"));
    const QCommandLineOption output(QStringList{QStringLiteral("o"), QStringLiteral("output")},
                                    QStringLiteral("Write the plan here instead of standard output."),
                                    QStringLiteral("PLAN.json"));
    const QCommandLineOption assume(
        QStringLiteral("assume-example"),
        QStringLiteral("Take what no file gives from the built-in example plan (GPT-3 175B on 512 A100) "
                       "instead of failing; each value is listed."));
    const QCommandLineOption scriptArgs(
        QStringLiteral("script-args"),
        QStringLiteral("The arguments a launch script is run with ($1, $2, ... and $@), as one string split as a "
                       "shell splits it: trainplan import run_mcore_llama3_1.sh --script-args \"dsw 8B 1 8 ...\"."),
        QStringLiteral("ARGS"));
    line.addOption(set);
    line.addOption(scriptArgs);
    line.addOption(assume);
    line.addOption(output);
    if (const std::optional<int> done = line.parse(arguments, out, err))
        return *done;
    // KEY=VALUE pairs split at commas; a piece without '=' continues the value before it (a list key:
    // parallel.stage_layers=10,11,11,8).
    QStringList sets;
    for (const QString &value : line.values(set))
        for (const QString &piece : value.split(',', Qt::SkipEmptyParts)) {
            if (!piece.contains('=') && !sets.isEmpty())
                sets.back() += QLatin1Char(',') + piece;
            else
                sets << piece;
        }
    io::ImportOptions options;
    options.assumeExample = line.isSet(assume);
    options.scriptArguments = QProcess::splitCommand(line.value(scriptArgs));
    const io::ImportResult result = io::importFiles(line.planPaths(), sets, io::builtinCatalog(), options);
    err << io::importReport(result);
    if (!result.ok()) {
        err << QStringLiteral("trainplan import: no plan written (%1 error(s))\n").arg(result.errors.size());
        return InvalidInput;
    }
    const QByteArray plan = io::writePlan(*result.plan, io::builtinCatalog());
    if (line.isSet(output))
        return writeOutputFile(line.value(output), plan, line.planPaths(), QStringLiteral("import"), err);
    out << QString::fromUtf8(plan);
    return Ok;
}

} // namespace trainplan::cli
