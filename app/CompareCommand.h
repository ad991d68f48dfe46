#pragma once
// `trainplan compare BASELINE.json PLAN.json [--format json|table]`: the two plans' headline numbers, their
// changes and the keys that differ. Headless, needs no display.

#include <QStringList>
#include <QTextStream>

namespace trainplan::cli {

int runCompare(const QStringList &arguments, QTextStream &out, QTextStream &err);

} // namespace trainplan::cli
