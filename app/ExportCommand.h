#pragma once
// `trainplan export PLAN.json --to megatron|nemo|torchtitan|deepspeed [-o FILE]`: a launch configuration
// for the plan (io/interop/Export.h) on standard output or in FILE; what the target cannot express on standard
// error.

#include <QStringList>
#include <QTextStream>

namespace trainplan::cli {

int runExport(const QStringList &arguments, QTextStream &out, QTextStream &err);

} // namespace trainplan::cli
