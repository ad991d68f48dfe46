#include "app/CalibrateCommand.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include "app/CommandLine.h"
#include "core/calibrate/DeviceFit.h"
#include "io/CalibrationReport.h"
#include "io/CatalogJson.h"
#include "io/MeasurementsCsv.h"
#include "io/PlanJson.h"
#include "io/SafeWrite.h"

namespace trainplan::cli {

namespace {

/// The measured rows of the CSV with their plans read; problems go to `err` with the line.
std::optional<std::vector<Measurement>> readMeasurements(const QString &path, QTextStream &err)
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
    CommandLine line(QStringLiteral("calibrate"),
                     QStringLiteral("Fit a device to your measured runs: bounded Levenberg-Marquardt on log errors. The CSV has a header "
                                    "row with a column plan (plan files, relative to the CSV) and any of step_seconds, "
                                    "tokens_per_second, peak_bytes.\n")
                         + exitCodesHelp(false),
                     QStringLiteral("usage: trainplan calibrate MEASURED.csv --base DEVICE [--id NAME] [-o DEVICE.json]\n"));
    const QCommandLineOption base(QStringLiteral("base"), QStringLiteral("The catalog device the runs used."), QStringLiteral("DEVICE"));
    const QCommandLineOption id(QStringLiteral("id"), QStringLiteral("The calibrated device's id (default: DEVICE-calibrated)."), QStringLiteral("NAME"));
    const QCommandLineOption output(QStringList{QStringLiteral("o"), QStringLiteral("output")},
                                    QStringLiteral("Write the device (devices.json schema) here."), QStringLiteral("DEVICE.json"));
    for (const QCommandLineOption *o : {&base, &id, &output})
        line.addOption(*o);
    if (const std::optional<int> done = line.parse(arguments, out, err))
        return *done;
    if (!line.isSet(base) || !io::builtinCatalog().device(line.value(base).toStdString()))
        return line.usageError(err, QStringLiteral("--base must name a catalog device (got \"%1\")").arg(line.value(base)));
    const std::optional<std::vector<Measurement>> rows = readMeasurements(line.planPath(), err);
    if (!rows)
        return InvalidInput;
    if (rows->empty()) {
        err << QStringLiteral("%1: no measured rows\n").arg(line.planPath());
        return InvalidInput;
    }
    const std::string newId = line.isSet(id) ? line.value(id).toStdString() : line.value(base).toStdString() + "-calibrated";
    const DeviceFit fit = calibrateDevice(*rows, io::builtinCatalog(), line.value(base).toStdString(), newId);
    out << io::calibrationReport(fit);
    if (line.isSet(output)) {
        const QJsonObject doc{{"format", "trainplan-devices"}, {"devices", QJsonArray{io::deviceToJson(fit.device)}}};
        QString error;
        if (!io::writeAtomically(line.value(output), QJsonDocument(doc).toJson(QJsonDocument::Indented), &error)) {
            err << QStringLiteral("trainplan calibrate: %1: %2\n").arg(line.value(output), error);
            return InvalidInput;
        }
        err << QStringLiteral("wrote %1\n").arg(line.value(output));
    }
    return Ok;
}

} // namespace trainplan::cli
