#pragma once
// `trainplan estimate PLAN.json [--format json|table]`: headless, needs no display.

#include <QStringList>
#include <QTextStream>

namespace trainplan::cli {

/// Exit codes shared by every subcommand.
enum ExitCode { Ok = 0, InvalidInput = 1, UsageError = 2 };

/// `arguments` are those after the subcommand name. Output goes to `out`, problems to `err`.
int runEstimate(const QStringList &arguments, QTextStream &out, QTextStream &err);

} // namespace trainplan::cli
