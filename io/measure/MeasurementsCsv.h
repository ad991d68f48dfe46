#pragma once
// The measured runs a device is calibrated to (trainplan calibrate, Tools > Calibrate): a CSV with a
// header row, a column `plan` (a plan file, relative to the CSV) and any of step_seconds,
// tokens_per_second, peak_bytes, and the kernel classes of a profiler trace (gemm_seconds,
// attention_seconds, elementwise_seconds, with the trace's pipeline `stage`); empty cells allowed.

#include <QByteArray>
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

/// The largest measurements CSV read (a calibration has tens to thousands of rows, a few hundred bytes each).
inline constexpr qint64 kMaxMeasurementsBytes = 16 * 1024 * 1024;
/// The most rows a calibration fits.
inline constexpr int kMaxMeasuredRows = 10000;

/// Every column a measurements CSV may have that holds a measured value, in the order it writes them.
QStringList measuredColumns();

/// Why `text` cannot be a value of the measured `column` (nullopt when it can): a finite number in the
/// column's physical range (a step time from a microsecond to 10^6 s, a throughput from 10^-3 to 10^12 tokens/s,
/// a memory peak from 1 MB to 10^15 bytes); `value` receives it.
std::optional<QString> checkMeasuredValue(const QString &column, const QString &text, double *value);

/// Why `stage` cannot be the pipeline stage of a row whose plan has `pipelineStages` (nullopt when it can).
std::optional<QString> checkStage(std::int64_t stage, std::int64_t pipelineStages);

/// Reads the CSV: a regular file of at most kMaxMeasurementsBytes and kMaxMeasuredRows rows, a header with
/// a column plan, at least one measured column and no column twice, and in each row values checkMeasuredValue
/// accepts and a whole-number stage 0 or more.
MeasuredRuns readMeasuredRuns(const QString &csvPath);
/// The same from bytes already read; `csvPath` names the file in messages and resolves the plan paths.
MeasuredRuns parseMeasuredRuns(const QByteArray &bytes, const QString &csvPath);

} // namespace trainplan::io
