#pragma once
// `trainplan estimate PLAN.json [--format json|table] [--timeline]`: headless, needs no display.

#include <QStringList>
#include <QTextStream>

namespace trainplan::cli {

/// `arguments` are those after the subcommand name. Output goes to `out`, problems to `err`.
int runEstimate(const QStringList &arguments, QTextStream &out, QTextStream &err);

} // namespace trainplan::cli
