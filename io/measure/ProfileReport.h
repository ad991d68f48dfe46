#pragma once
// A profiler trace beside the estimate (trainplan profile, Tools > Compare with a Profiler Trace): the
// comparison as text and as JSON, and the measured classes as one row of a calibration CSV
// (io/measure/MeasurementsCsv), so that `trainplan calibrate` fits the device to them.

#include <QJsonObject>
#include <QString>

#include "core/profile/ProfileComparison.h"

namespace trainplan::io {

/// A time per step for the table and the window: "0.512 ms", "812.3 ms", "41.42 s".
QString stepTimeText(double seconds);
/// A row's estimated / measured - 1 as a signed percentage ("+12.3%"), "-" without one.
QString profileErrorText(const std::optional<double> &error);

QString profileTable(const MeasuredProfile &measured, const ProfileComparison &comparison, const QString &traceName,
                     const QString &planName, std::int64_t stages);

/// {"device", "steps", "stage", "rows": [{"key", "label", "measured_seconds", "estimated_seconds"?, "error"?}],
///  "unknown_kernels": [{"name", "seconds"}], "warnings": [...]}
QJsonObject profileToJson(const MeasuredProfile &measured, const ProfileComparison &comparison);

/// Appends the measured step and calibrated classes to `csvPath` as a row for `planPath` (written relative
/// to the CSV's folder), creating the file with its header; false with `error` when it cannot, or when the
/// existing header differs.
bool appendMeasurementRow(const QString &csvPath, const QString &planPath, const MeasuredProfile &measured,
                          std::int64_t stage, QString *error);

} // namespace trainplan::io
