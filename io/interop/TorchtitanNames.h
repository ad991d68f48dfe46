#pragma once
// torchtitan's job-file names (its JobConfig, torchtitan/config/configs.py) that carry one plan key, in
// one two-way table: the torchtitan importer reads them and the torchtitan exporter writes them. A key's
// first row is the name export writes; a later row of the same key is another name import also reads.
// A choice lists the file's spellings with the plan's, export writing a value's first spelling.

#include <QString>

#include "io/interop/KeyNames.h"

#include <cstdint>
#include <span>
#include <string_view>

namespace trainplan::io::torchtitan {

using Form = NameForm;
using Name = KeyName;

std::span<const Name> names();

/// The key's first row ("parallelism.tensor_parallel_degree"); nullptr when no row carries it.
const Name *nameOf(std::string_view path);
/// "tensor_parallel_degree = 8\n": the key inside its section, as the exporter writes it.
QString line(std::string_view path, std::int64_t value);
/// The file's spelling of a plan choice ("Interleaved1F1B" for "interleaved"); empty when none.
QString spelling(std::string_view path, std::string_view planValue);
/// "pipeline_parallel_schedule = \"Interleaved1F1B\"\n": a choice's line.
QString choiceLine(std::string_view path, std::string_view planValue);
/// "enable_async_tensor_parallel = true\n".
QString boolLine(std::string_view path, bool value);

} // namespace trainplan::io::torchtitan
