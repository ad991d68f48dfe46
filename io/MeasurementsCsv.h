#pragma once
// The measured runs a device is calibrated to (trainplan calibrate, Tools > Calibrate): a CSV with a
// header row, a column `plan` (a plan file, relative to the CSV) and any of step_seconds,
// tokens_per_second, peak_bytes, and the kernel classes of a profiler trace (gemm_seconds,
// attention_seconds, elementwise_seconds, with the trace's pipeline `stage`); empty cells allowed.

#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

#include "core/profile/ProfileComparison.h"

namespace trainplan::io {

struct MeasuredRun
{
    QString planPath; ///< resolved against the CSV's folder
    QString planName; ///< as the CSV writes it
    int line = 0;
    std::optional<double> stepSeconds;
    std::optional<double> tokensPerSecond;
    std::optional<double> peakBytes;
    /// gemm_seconds, attention_seconds, elementwise_seconds (trainplan profile --measurements), in the
    /// order of kCalibratedKernelClasses; `stage`: the pipeline stage the trace's rank ran.
    std::array<std::optional<double>, kCalibratedKernelClasses.size()> kernelSeconds{};
    std::int64_t stage = 0;
};

struct MeasuredRuns
{
    std::vector<MeasuredRun> runs;
    QStringList errors; ///< "FILE:LINE: rule"; the file is unusable when there are any
};

MeasuredRuns readMeasuredRuns(const QString &csvPath);

} // namespace trainplan::io
