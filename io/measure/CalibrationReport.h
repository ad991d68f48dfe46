#pragma once
// The text of a device calibration (trainplan calibrate and the window's Tools > Calibrate): each fitted
// value with its standard error, or why it was held or sits at a bound, and every row's error before,
// after and left out.

#include <QString>

#include "core/calibrate/DeviceFit.h"

namespace trainplan::io {

QString calibrationReport(const DeviceFit &fit);

} // namespace trainplan::io
