#pragma once
// `trainplan estimate --format table`: the same numbers as the JSON, for people.

#include <QString>
#include <QStringList>

#include "core/estimate/Estimate.h"

namespace trainplan::io {

QString estimateToTable(const Plan &plan, const Estimate &estimate);

/// The lines joined for a terminal, each ending in a newline: control and format characters that a name in
/// a plan or trace may carry (escape sequences, carriage returns, bidirectional overrides) are shown as
/// \u{XXXX} instead of reaching the terminal raw. Every `--format table` writer ends with it.
QString terminalLines(const QStringList &lines);

} // namespace trainplan::io
