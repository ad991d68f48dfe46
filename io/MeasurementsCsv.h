#pragma once
// The measured runs a device is calibrated to (trainplan calibrate, Tools > Calibrate): a CSV with a
// header row, a column `plan` (a plan file, relative to the CSV) and any of step_seconds,
// tokens_per_second, peak_bytes (empty cells allowed).

#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

namespace trainplan::io {

struct MeasuredRun
{
    QString planPath; ///< resolved against the CSV's folder
    QString planName; ///< as the CSV writes it
    int line = 0;
    std::optional<double> stepSeconds;
    std::optional<double> tokensPerSecond;
    std::optional<double> peakBytes;
};

struct MeasuredRuns
{
    std::vector<MeasuredRun> runs;
    QStringList errors; ///< "FILE:LINE: rule"; the file is unusable when there are any
};

MeasuredRuns readMeasuredRuns(const QString &csvPath);

} // namespace trainplan::io
