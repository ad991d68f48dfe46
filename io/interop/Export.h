#pragma once
// Launch configurations from a plan: a Megatron-LM launch script, a NeMo / Megatron-Bridge recipe (YAML),
// a torchtitan job file (TOML), a DeepSpeed config (JSON) or an llm-foundry training YAML. Each writes every
// key its target can express, so that importing the file (io/interop/Import.h) gives those keys back, and lists
// the plan's keys it cannot express (the hardware, and what the framework has no setting for).

#include <QByteArray>
#include <QString>
#include <QStringList>

#include <optional>

#include "core/hardware/Catalog.h"
#include "core/plan/Plan.h"

namespace trainplan::io {

enum class ExportTarget { Megatron, NeMo, Torchtitan, DeepSpeed, LlmFoundry };
const char *spellingOf(ExportTarget target); ///< "megatron", "nemo", "torchtitan", "deepspeed", "llmfoundry"
std::optional<ExportTarget> exportTargetFrom(const QString &spelling);
const char *fileSuffixOf(ExportTarget target); ///< "sh", "yaml", "toml", "json", "yaml"

struct ExportResult
{
    QByteArray text;
    QStringList notExpressed; ///< "parallel.zero_stage = 3: Megatron-LM shards ... (keep ... )"
    /// What the launch would run into: a plan that does not fit its GPUs, or that has errors.
    QStringList warnings;
};

ExportResult exportPlan(const Plan &plan, ExportTarget target, const Catalog &catalog);

/// The plan keys a target writes (and its import reads back): what the round trip keeps.
const QStringList &expressedKeys(ExportTarget target);

} // namespace trainplan::io
