#pragma once
// `trainplan report PLAN.json -o report.pdf [--page a4|letter]` and
// `trainplan report PLAN.json --png DIR [--size WIDTHxHEIGHT] [--dpi N]`: the efficiency audit and the
// chart images, rendered offscreen (needs a QApplication; main() picks the offscreen platform when there
// is no display).

#include <QStringList>
#include <QTextStream>

namespace trainplan::cli {

/// Exit codes: 0 written; 1 the plan is invalid; 2 usage; 3 the output cannot be written.
int runReport(const QStringList &arguments, QTextStream &out, QTextStream &err);

} // namespace trainplan::cli
