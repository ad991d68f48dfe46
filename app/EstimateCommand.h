#pragma once
// `trainplan estimate PLAN.json [--format json|table]`: headless, needs no display.

#include <QStringList>
#include <QTextStream>

#include <optional>

#include "core/plan/Plan.h"

namespace trainplan::cli {

/// Exit codes shared by every subcommand.
enum ExitCode { Ok = 0, InvalidInput = 1, UsageError = 2 };

/// Reads a plan file for a subcommand: every problem goes to `err` as "path: key: rule"; empty when the
/// plan has errors (exit with InvalidInput).
std::optional<Plan> readPlanForCommand(const QString &path, QTextStream &err);

/// `arguments` are those after the subcommand name. Output goes to `out`, problems to `err`.
int runEstimate(const QStringList &arguments, QTextStream &out, QTextStream &err);

} // namespace trainplan::cli
