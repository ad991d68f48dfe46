#include "app/CalibrateCommand.h"

#include <unistd.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include "app/CommandLine.h"
#include "core/calibrate/DeviceFit.h"
#include "io/measure/CalibrationReport.h"
#include "io/plan/CatalogJson.h"
#include "io/measure/MeasurementsCsv.h"
#include "io/plan/PlanJson.h"
#include "io/common/SafeFile.h"

namespace trainplan::cli {

namespace {

/// The measured rows of the CSV with their plans read; problems go to `err` with the line.
std::optional<std::vector<Measurement>> readMeasurements(const QString &path, QTextStream &err, QStringList &planPaths)
{
    const io::MeasuredRuns csv = io::readMeasuredRuns(path);
    bool ok = csv.errors.isEmpty();
    for (const QString &e : csv.errors)
        err << e << '\n';
    std::vector<Measurement> rows;
    for (const io::MeasuredRun &run : csv.runs) {
        const io::PlanReadResult read = io::readPlanFile(run.planPath, io::builtinCatalog());
        if (!read.plan) {
            err << QStringLiteral("%1:%2: %3 is not a valid plan\n").arg(path).arg(run.line).arg(run.planPath);
            ok = false;
            continue;
        }
        if (const std::optional<QString> problem = io::checkStage(run.stage, read.plan->parallel.pipeline)) {
            err << QStringLiteral("%1:%2: %3\n").arg(path).arg(run.line).arg(*problem);
            ok = false;
            continue;
        }
        planPaths << run.planPath;
        Measurement m{run.planName.toStdString(), *read.plan, run.stepSeconds, run.tokensPerSecond, run.peakBytes};
        m.kernelSeconds = run.kernelSeconds;
        m.stage = run.stage;
        rows.push_back(std::move(m));
    }
    if (!ok)
        return std::nullopt;
    return rows;
}

} // namespace

int runCalibrate(const QStringList &arguments, QTextStream &out, QTextStream &err)
{
    CommandLine line(
        QStringLiteral("calibrate"),
        QStringLiteral(
            "Fit a device to your measured runs: bounded Levenberg-Marquardt on log errors. The CSV has a header "
            "row with a column plan (plan files, relative to the CSV) and any of step_seconds, "
            "tokens_per_second, peak_bytes.\n") +
            exitCodesHelp(true),
        QStringLiteral("usage: trainplan calibrate MEASURED.csv --base DEVICE [--id NAME] [-o DEVICE.json]\n"),
        {{QStringLiteral("MEASURED.csv"),
          QStringLiteral("The measured runs (CSV): a header row, then one run per row.")}});
    const QCommandLineOption base(QStringLiteral("base"), QStringLiteral("The catalog device the runs used."),
                                  QStringLiteral("DEVICE"));
    const QCommandLineOption id(QStringLiteral("id"),
                                QStringLiteral("The calibrated device's id (default: DEVICE-calibrated)."),
                                QStringLiteral("NAME"));
    const QCommandLineOption output(QStringList{QStringLiteral("o"), QStringLiteral("output")},
                                    QStringLiteral("Write the device (devices.json schema) here."),
                                    QStringLiteral("DEVICE.json"));
    for (const QCommandLineOption *o : {&base, &id, &output})
        line.addOption(*o);
    if (const std::optional<int> done = line.parse(arguments, out, err))
        return *done;
    if (!line.isSet(base) || !io::builtinCatalog().device(line.value(base).toStdString()))
        return line.usageError(err,
                               QStringLiteral("--base must name a catalog device (got \"%1\")").arg(line.value(base)));
    const QString newId = line.isSet(id) ? line.value(id) : line.value(base) + QStringLiteral("-calibrated");
    if (const std::optional<QString> problem = io::checkNewDeviceId(newId, io::builtinCatalog()))
        return line.usageError(err, QStringLiteral("--id ") + *problem);
    QStringList inputs{line.planPath()}; // the CSV and the plans it names: never the output
    const std::optional<std::vector<Measurement>> rows = readMeasurements(line.planPath(), err, inputs);
    if (!rows)
        return InvalidInput;
    if (rows->empty()) {
        err << QStringLiteral("%1: no measured rows\n").arg(line.planPath());
        return InvalidInput;
    }
    QString error; // before the fit: an output that is an input or not a file is refused at once
    if (line.isSet(output) &&
        (!io::isNotAnInput(line.value(output), inputs, &error) || !io::isWritableTarget(line.value(output), &error))) {
        err << QStringLiteral("trainplan calibrate: %1\n").arg(error);
        return OutputError;
    }
    int shown = -1; // on a terminal, each fit as it completes: a thousand rows take minutes
    const bool terminal = isatty(STDERR_FILENO) != 0;
    const DeviceFit fit =
        calibrateDevice(*rows, io::builtinCatalog(), line.value(base).toStdString(), newId.toStdString(), true,
                        [&](int done, int total) {
                            if (terminal && done != shown) {
                                shown = done;
                                err << QStringLiteral("\rcalibrate: %1 of %2 fits done").arg(done).arg(total)
                                    << (done == total ? "\n" : "");
                                err.flush();
                            }
                            return true;
                        });
    out << io::calibrationReport(fit);
    if (!line.isSet(output))
        return Ok;
    const QJsonObject doc{{"format", "trainplan-devices"}, {"devices", QJsonArray{io::deviceToJson(fit.device)}}};
    return writeOutputFile(line.value(output), QJsonDocument(doc).toJson(QJsonDocument::Indented), inputs,
                           QStringLiteral("calibrate"), err);
}

} // namespace trainplan::cli
