#pragma once
// llm-foundry's training-YAML names (scripts/train/train.py's configuration: MPTConfig's model keys, Composer's
// run and FSDP keys) that carry one plan key, in one two-way table: ReadLlmFoundry reads them and Export's
// llmFoundryYaml writes them. A key's first row is the name export writes; a later row of the same key is
// another name import also reads (Composer's parallelism_config.fsdp beside the older fsdp_config). A choice
// lists the file's spellings with the plan's, export writing a value's first spelling. A name whose value sets
// two plan keys (attn_impl, sharding_strategy) has a row for each.

#include <QString>

#include "io/interop/KeyNames.h"

#include <span>
#include <string_view>

namespace trainplan::io::llmfoundry {

using Form = NameForm;
using Name = KeyName;

std::span<const Name> names();

/// The key's first row ("model.n_layers" for "model.layers"); nullptr when no row carries it.
const Name *nameOf(std::string_view path);
/// The file's first spelling of a plan choice ("SHARD_GRAD_OP" for reshard_after_forward "false"); empty when
/// none.
QString spelling(std::string_view path, std::string_view planValue);
/// "    kv_n_heads: 8\n": the key's first name as the writer puts it, its last part indented two spaces per
/// section it sits in (the sections' own lines are the writer's).
QString entry(std::string_view path, const QString &value);

} // namespace trainplan::io::llmfoundry
