#include "io/MeasurementsCsv.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

namespace trainplan::io {

MeasuredRuns readMeasuredRuns(const QString &path)
{
    MeasuredRuns out;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        out.errors << QStringLiteral("%1: cannot be read: %2").arg(path, file.errorString());
        return out;
    }
    const QStringList lines = QString::fromUtf8(file.readAll()).split('\n');
    const QStringList header = lines.value(0).trimmed().split(',');
    const qsizetype planColumn = header.indexOf(QStringLiteral("plan"));
    if (planColumn < 0) {
        out.errors << QStringLiteral("%1:1: the header needs a column \"plan\" (and any of step_seconds, tokens_per_second, peak_bytes)").arg(path);
        return out;
    }
    for (qsizetype n = 1; n < lines.size(); ++n) {
        if (lines[n].trimmed().isEmpty())
            continue;
        const QStringList cells = lines[n].trimmed().split(',');
        MeasuredRun run;
        run.planName = cells.value(planColumn).trimmed();
        run.planPath = QFileInfo(path).dir().filePath(run.planName);
        run.line = int(n + 1);
        for (const auto &[column, target] : {std::pair{"step_seconds", &run.stepSeconds}, std::pair{"tokens_per_second", &run.tokensPerSecond},
                                             std::pair{"peak_bytes", &run.peakBytes}}) {
            const QString cell = cells.value(header.indexOf(QLatin1String(column))).trimmed();
            bool number = false;
            const double value = cell.toDouble(&number);
            if (!cell.isEmpty() && (!number || !(value > 0)))
                out.errors << QStringLiteral("%1:%2: %3 must be a positive number (got \"%4\")").arg(path).arg(run.line).arg(QLatin1String(column), cell);
            else if (number)
                *target = value;
        }
        out.runs.push_back(std::move(run));
    }
    return out;
}

} // namespace trainplan::io
