#pragma once
// `trainplan calibrate MEASURED.csv --base DEVICE [--id NAME] [-o DEVICE.json]`: a device fitted to your
// measured runs (core/calibrate/DeviceFit). The CSV has a header row; column `plan` (a plan file, relative
// to the CSV) and any of `step_seconds`, `tokens_per_second`, `peak_bytes` (empty cells allowed).

#include <QStringList>
#include <QTextStream>

namespace trainplan::cli {

int runCalibrate(const QStringList &arguments, QTextStream &out, QTextStream &err);

} // namespace trainplan::cli
