#pragma once
// trainplan profile TRACE.json PLAN.json: a PyTorch profiler trace's kernel time per class and step beside
// the plan's estimate, the largest disagreement first; --measurements appends the measured classes to a
// calibration CSV for trainplan calibrate.

#include <QStringList>
#include <QTextStream>

namespace trainplan::cli {

int runProfile(const QStringList &arguments, QTextStream &out, QTextStream &err);

} // namespace trainplan::cli
