#pragma once
// `trainplan import FILE... [--set KEY=VALUE,...] [-o PLAN.json]`: a plan from a Hugging Face config.json, a
// Megatron-LM script or argument file, a NeMo recipe, a torchtitan job file or saved configuration and a DeepSpeed
// config (io/interop/Import.h). The plan goes to standard output or -o; what was read, assumed and not understood to
// standard error.

#include <QStringList>
#include <QTextStream>

namespace trainplan::cli {

int runImport(const QStringList &arguments, QTextStream &out, QTextStream &err);

} // namespace trainplan::cli
