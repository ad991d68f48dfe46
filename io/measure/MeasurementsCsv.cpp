#include "io/measure/MeasurementsCsv.h"

#include <QDir>
#include <QFileInfo>

#include <algorithm>
#include <cmath>

#include "io/common/SafeFile.h"

namespace trainplan::io {

namespace {

struct ColumnRange
{
    double minimum, maximum;
    const char *unit;
};

/// The physical range of a measured column: outside it the value is a typo or a unit slip, never a run.
std::optional<ColumnRange> rangeOf(const QString &column)
{
    if (column == QLatin1String("tokens_per_second"))
        return ColumnRange{1e-3, 1e12, "tokens/s"};
    if (column == QLatin1String("peak_bytes"))
        return ColumnRange{1e6, 1e15, "bytes"};
    if (column.endsWith(QLatin1String("_seconds")) && measuredColumns().contains(column))
        return ColumnRange{1e-6, 1e6, "s"};
    return std::nullopt;
}

constexpr qsizetype kShownErrors = 50; ///< enough to fix the file by

/// At most kShownErrors errors, and a line saying there are more.
MeasuredRuns capErrors(MeasuredRuns out, const QString &path)
{
    if (out.errors.size() > kShownErrors) {
        out.errors.resize(kShownErrors);
        out.errors << QStringLiteral("%1: more errors not shown").arg(path);
    }
    return out;
}

/// The header's problems: no plan column, no measured column, a column twice.
QStringList headerProblems(const QString &path, const QStringList &header)
{
    QStringList out;
    for (qsizetype c = 0; c < header.size(); ++c)
        if (header.indexOf(header[c]) < c && header.lastIndexOf(header[c]) == c)
            out << QStringLiteral("%1:1: the column \"%2\" appears more than once; each column once")
                       .arg(path, header[c]);
    if (!header.contains(QStringLiteral("plan")))
        out << QStringLiteral("%1:1: the header needs a column \"plan\" (and any of %2)")
                   .arg(path, measuredColumns().join(QStringLiteral(", ")));
    else if (std::none_of(header.begin(), header.end(), [](const QString &c) { return measuredColumns().contains(c); }))
        out << QStringLiteral("%1:1: the header has no measured column: give any of %2")
                   .arg(path, measuredColumns().join(QStringLiteral(", ")));
    return out;
}

/// One data row; its problems go to `errors` as "FILE:LINE: rule".
MeasuredRun readRow(const QString &path, const QStringList &header, const QString &line, int lineNumber,
                    QStringList &errors)
{
    const QStringList cells = line.trimmed().split(',');
    MeasuredRun run;
    run.planName = cells.value(header.indexOf(QStringLiteral("plan"))).trimmed();
    run.planPath = QFileInfo(path).dir().filePath(run.planName);
    run.line = lineNumber;
    if (run.planName.isEmpty())
        errors << QStringLiteral("%1:%2: plan is empty: each row names its plan file").arg(path).arg(lineNumber);
    std::vector<std::pair<QString, std::optional<double> *>> columns{
        {QStringLiteral("step_seconds"), &run.stepSeconds},
        {QStringLiteral("tokens_per_second"), &run.tokensPerSecond},
        {QStringLiteral("peak_bytes"), &run.peakBytes}};
    for (std::size_t k = 0; k < kCalibratedKernelClasses.size(); ++k)
        columns.emplace_back(QStringLiteral("%1_seconds").arg(QLatin1String(spellingOf(kCalibratedKernelClasses[k]))),
                             &run.kernelSeconds[k]);
    const QString stage = cells.value(header.indexOf(QStringLiteral("stage"))).trimmed();
    bool stageNumber = false;
    run.stage = stage.toLongLong(&stageNumber);
    if (!stage.isEmpty() && (!stageNumber || run.stage < 0))
        errors << QStringLiteral("%1:%2: stage must be a pipeline stage number, 0 or more (got \"%3\")")
                      .arg(path)
                      .arg(lineNumber)
                      .arg(stage.left(40));
    for (const auto &[column, target] : columns) {
        const QString cell = cells.value(header.indexOf(column)).trimmed();
        double value = 0;
        if (cell.isEmpty())
            continue;
        if (const std::optional<QString> problem = checkMeasuredValue(column, cell, &value))
            errors << QStringLiteral("%1:%2: %3").arg(path).arg(lineNumber).arg(*problem);
        else
            *target = value;
    }
    return run;
}

} // namespace

QStringList measuredColumns()
{
    QStringList out{QStringLiteral("step_seconds"), QStringLiteral("tokens_per_second"), QStringLiteral("peak_bytes")};
    for (KernelClass c : kCalibratedKernelClasses)
        out << QStringLiteral("%1_seconds").arg(QLatin1String(spellingOf(c)));
    return out;
}

std::optional<QString> checkMeasuredValue(const QString &column, const QString &text, double *value)
{
    const std::optional<ColumnRange> range = rangeOf(column);
    bool number = false;
    *value = text.toDouble(&number);
    if (!range)
        return QStringLiteral("%1 is not a measured column").arg(column);
    if (number && std::isfinite(*value) && *value >= range->minimum && *value <= range->maximum)
        return std::nullopt;
    return QStringLiteral("%1 must be a number from %2 to %3 %4 (got \"%5\")")
        .arg(column, QString::number(range->minimum, 'g', 3), QString::number(range->maximum, 'g', 3),
             QLatin1String(range->unit), text.left(40));
}

std::optional<QString> checkStage(std::int64_t stage, std::int64_t pipelineStages)
{
    if (stage >= 0 && stage < pipelineStages)
        return std::nullopt;
    return QStringLiteral("stage must be one of the plan's pipeline stages, 0 to %1 (got %2)")
        .arg(pipelineStages - 1)
        .arg(stage);
}

MeasuredRuns readMeasuredRuns(const QString &path)
{
    QString error;
    const std::optional<QByteArray> bytes =
        readRegularFile(path, kMaxMeasurementsBytes, QStringLiteral("a measurements CSV"), &error);
    if (!bytes) {
        MeasuredRuns out;
        out.errors << QStringLiteral("%1: %2").arg(path, error);
        return out;
    }
    return parseMeasuredRuns(*bytes, path);
}

MeasuredRuns parseMeasuredRuns(const QByteArray &bytes, const QString &path)
{
    MeasuredRuns out;
    const QStringList lines = QString::fromUtf8(bytes).split('\n');
    QStringList header = lines.value(0).trimmed().split(',');
    for (QString &column : header)
        column = column.trimmed();
    out.errors = headerProblems(path, header);
    if (!out.errors.isEmpty())
        return capErrors(std::move(out), path);
    for (qsizetype n = 1; n < lines.size(); ++n) {
        if (lines[n].trimmed().isEmpty())
            continue;
        if (out.runs.size() == std::size_t(kMaxMeasuredRows)) {
            out.errors << QStringLiteral("%1:%2: more than %3 measured rows; calibrate on fewer")
                              .arg(path)
                              .arg(n + 1)
                              .arg(kMaxMeasuredRows);
            break;
        }
        out.runs.push_back(readRow(path, header, lines[n], int(n + 1), out.errors));
        if (out.errors.size() > kShownErrors)
            break;
    }
    return capErrors(std::move(out), path);
}

} // namespace trainplan::io
