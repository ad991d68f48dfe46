#pragma once
// Small widget factories the window's forms share.

#include <QString>

class QDoubleSpinBox;

namespace trainplan {

/// A spin box for a number with a range, a number of decimals and a unit suffix; held-down arrows accelerate.
QDoubleSpinBox *numberSpinBox(double min, double max, double value, int decimals, const QString &suffix = {});

} // namespace trainplan
