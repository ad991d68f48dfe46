#pragma once
// `trainplan search PLAN.json [--top N] [--nodes MIN-MAX] [--min-headroom GIB] [--fix KEY=VALUE,...]
//  [--allow-tensor-across-nodes] [--no-offload] [--threads N]`: every plan, fastest first, as JSON.

#include <QStringList>
#include <QTextStream>

#include "core/search/Search.h"

namespace trainplan::cli {

/// Parses the search options into `constraints`; false with a message naming the option and the rule.
bool parseSearchOptions(const QStringList &arguments, QString *planPath, SearchConstraints &constraints, QString *error);

/// Exit codes: 0 (even when no plan is feasible: the JSON says why), 1 invalid plan, 2 usage.
int runSearch(const QStringList &arguments, QTextStream &out, QTextStream &err);

} // namespace trainplan::cli
