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
        out.errors << QStringLiteral("%1:1: the header needs a column \"plan\" (and any of step_seconds, tokens_per_second, peak_bytes, gemm_seconds, attention_seconds, elementwise_seconds)").arg(path);
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
        std::vector<std::pair<QString, std::optional<double> *>> columns{{QStringLiteral("step_seconds"), &run.stepSeconds},
                                                                          {QStringLiteral("tokens_per_second"), &run.tokensPerSecond},
                                                                          {QStringLiteral("peak_bytes"), &run.peakBytes}};
        for (std::size_t k = 0; k < kCalibratedKernelClasses.size(); ++k)
            columns.emplace_back(QStringLiteral("%1_seconds").arg(QLatin1String(spellingOf(kCalibratedKernelClasses[k]))), &run.kernelSeconds[k]);
        const QString stage = cells.value(header.indexOf(QStringLiteral("stage"))).trimmed();
        bool stageNumber = false;
        run.stage = stage.toLongLong(&stageNumber);
        if (!stage.isEmpty() && (!stageNumber || run.stage < 0))
            out.errors << QStringLiteral("%1:%2: stage must be a pipeline stage number, 0 or more (got \"%3\")").arg(path).arg(run.line).arg(stage);
        for (const auto &[column, target] : columns) {
            const QString cell = cells.value(header.indexOf(column)).trimmed();
            bool number = false;
            const double value = cell.toDouble(&number);
            if (!cell.isEmpty() && (!number || !(value > 0)))
                out.errors << QStringLiteral("%1:%2: %3 must be a positive number (got \"%4\")").arg(path).arg(run.line).arg(column, cell);
            else if (number)
                *target = value;
        }
        out.runs.push_back(std::move(run));
    }
    return out;
}

} // namespace trainplan::io
