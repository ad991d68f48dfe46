#include "io/measure/ProfileReport.h"

#include "io/output/EstimateTable.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QMap>
#include <QStringList>
#include <QTextStream>

#include <cmath>

#include "io/measure/MeasurementsCsv.h"
#include "io/common/SafeFile.h"
#include "io/plan/ProblemWords.h"

namespace trainplan::io {

namespace {

/// The calibration CSV's columns this command writes, in order.
QStringList measurementColumns()
{
    QStringList columns{QStringLiteral("plan"), QStringLiteral("stage"), QStringLiteral("step_seconds")};
    for (KernelClass c : kCalibratedKernelClasses)
        columns << QStringLiteral("%1_seconds").arg(QLatin1String(spellingOf(c)));
    return columns;
}

} // namespace

QString profileErrorText(const std::optional<double> &error)
{
    return error ? QStringLiteral("%1%2%")
                       .arg(*error >= 0 ? QStringLiteral("+") : QString())
                       .arg(100.0 * *error, 0, 'f', 1)
                 : QStringLiteral("-");
}

QString stepTimeText(double seconds)
{
    if (std::abs(seconds) >= 10.0)
        return QStringLiteral("%1 s").arg(seconds, 0, 'f', 2);
    return QStringLiteral("%1 ms").arg(1e3 * seconds, 0, 'f', std::abs(seconds) < 0.1 ? 3 : 1);
}

QString profileTable(const MeasuredProfile &m, const ProfileComparison &c, const QString &traceName,
                     const QString &planName, std::int64_t stages)
{
    QString text;
    QTextStream out(&text);
    out << QStringLiteral("%1 (device %2, %3 step%4, %5 kernels) against %6, pipeline stage %7 of %8; per step\n")
               .arg(traceName).arg(m.device).arg(m.steps).arg(m.steps == 1 ? "" : "s").arg(m.kernelCount)
               .arg(planName).arg(c.stage).arg(stages);
    out << QStringLiteral("  %1 %2 %3 %4\n")
               .arg(QString(), -44)
               .arg(QStringLiteral("measured"), 12)
               .arg(QStringLiteral("estimated"), 12)
               .arg(QStringLiteral("difference"), 11);
    bool measuredOnly = false;
    for (const ProfileRow &row : c.rows) {
        if (!row.estimatedSeconds && !measuredOnly) {
            out << QStringLiteral("Measured only (the estimate folds these into the rows above):\n");
            measuredOnly = true;
        }
        out << QStringLiteral("  %1 %2 %3 %4\n")
                   .arg(QString::fromStdString(row.label), -44)
                   .arg(stepTimeText(row.measuredSeconds), 12)
                   .arg(row.estimatedSeconds ? stepTimeText(*row.estimatedSeconds) : QStringLiteral("-"), 12)
                   .arg(profileErrorText(row.error()), 11);
    }
    for (std::size_t i = 0; i < std::min<std::size_t>(m.unknownKernels.size(), 5); ++i)
        out << QStringLiteral("  unclassified: %1 %2\n").arg(QString::fromStdString(m.unknownKernels[i].first).left(70))
                   .arg(stepTimeText(m.unknownKernels[i].second));
    for (const Problem &w : m.warnings)
        out << QStringLiteral("warning: %1\n").arg(problemText(w));
    out.flush();
    QStringList lines = text.split(QLatin1Char('\n'));
    if (!lines.isEmpty() && lines.last().isEmpty())
        lines.removeLast();
    return terminalLines(lines);
}

QJsonObject profileToJson(const MeasuredProfile &m, const ProfileComparison &c)
{
    QJsonArray rows;
    for (const ProfileRow &row : c.rows) {
        QJsonObject o{{"key", QString::fromStdString(row.key)}, {"label", QString::fromStdString(row.label)},
                      {"measured_seconds", row.measuredSeconds}};
        if (row.estimatedSeconds)
            o.insert(QStringLiteral("estimated_seconds"), *row.estimatedSeconds);
        if (const std::optional<double> e = row.error())
            o.insert(QStringLiteral("error"), *e);
        rows.append(o);
    }
    QJsonArray unknown, warnings;
    for (const auto &[name, seconds] : m.unknownKernels)
        unknown.append(QJsonObject{{"name", QString::fromStdString(name)}, {"seconds", seconds}});
    for (const Problem &w : m.warnings)
        warnings.append(problemText(w));
    return {{"device", m.device}, {"steps", m.steps}, {"stage", qint64(c.stage)}, {"kernels", qint64(m.kernelCount)},
            {"rows", rows}, {"unknown_kernels", unknown}, {"warnings", warnings}};
}

bool appendMeasurementRow(const QString &csvPath, const QString &planPath, const MeasuredProfile &m, std::int64_t stage,
                          QString *error)
{
    QStringList header = measurementColumns();
    QByteArray bytes;
    if (QFileInfo(csvPath).exists()) { // the row follows the file's own column order
        const std::optional<QByteArray> existing =
            readRegularFile(csvPath, kMaxMeasurementsBytes, QStringLiteral("a measurements CSV"), error);
        if (!existing)
            return false;
        bytes = *existing;
        const QStringList columns = QString::fromUtf8(bytes.left(bytes.indexOf('\n'))).trimmed().split(',');
        QStringList missing;
        for (const QString &column : header)
            if (!columns.contains(column))
                missing << column;
        if (!missing.isEmpty()) {
            *error =
                QStringLiteral("its header lacks %1 (write to a new file)").arg(missing.join(QStringLiteral(", ")));
            return false;
        }
        header = columns;
        if (!bytes.isEmpty() && !bytes.endsWith('\n'))
            bytes += '\n'; // a last row without its newline keeps its own line
    } else {
        bytes = header.join(',').toUtf8() + '\n';
    }
    QMap<QString, QString> cells{{QStringLiteral("plan"), QFileInfo(csvPath).absoluteDir().relativeFilePath(
                                                              QFileInfo(planPath).absoluteFilePath())},
                                 {QStringLiteral("stage"), QString::number(stage)},
                                 {QStringLiteral("step_seconds"), QString::number(m.stepSeconds, 'g', 8)}};
    for (KernelClass c : kCalibratedKernelClasses)
        if (m.busy(c) > 0)
            cells.insert(QStringLiteral("%1_seconds").arg(QLatin1String(spellingOf(c))),
                         QString::number(m.busy(c), 'g', 8));
    QStringList row;
    for (const QString &column : header) {
        double value = 0;
        if (column != QLatin1String("plan") && column != QLatin1String("stage") && !cells.value(column).isEmpty())
            if (const std::optional<QString> problem = checkMeasuredValue(column, cells.value(column), &value)) {
                *error = QStringLiteral("the trace's %1; no row written").arg(*problem);
                return false;
            }
        row << cells.value(column);
    }
    // The whole file rewritten atomically: a full disk leaves it as it was, never a half row.
    return writeAtomically(csvPath, bytes + row.join(',').toUtf8() + '\n', error);
}

} // namespace trainplan::io
