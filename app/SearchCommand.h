#pragma once
// `trainplan search PLAN.json [--top N] [--nodes MIN-MAX] [--min-headroom GIB] [--allow-tight] [--reject-uncertain]
//  [--fix KEY=VALUE,...] [--allow-tensor-across-nodes] [--no-offload] [--threads N]`: every plan, fastest first, as
//  JSON.

#include <QStringList>
#include <QTextStream>

#include "core/search/Search.h"

namespace trainplan::cli {

/// Applies `--fix` items ("tensor=8", "parallel.schedule=1f1b") to the constraints: each key must be a
/// search dimension of the plan table and its value valid for it; false with the reason otherwise.
bool applyFixes(const QStringList &items, SearchConstraints &constraints, QString *error);

/// Exit codes: 0 (even when no plan is feasible: the JSON says why), 1 invalid plan, 2 usage.
int runSearch(const QStringList &arguments, QTextStream &out, QTextStream &err);

} // namespace trainplan::cli
