#pragma once
// Megatron-LM's arguments (megatron/training/arguments.py) that carry one plan key each, in one two-way
// table: the Megatron and NeMo importers read them (as Megatron-Core's and NeMo's configuration names, the
// argument with '-' as '_') and the Megatron exporter writes them. A key's first row is the spelling export
// writes; a later row of the same key is another spelling import also reads. Arguments that need more than
// one key or a translation (precision, recomputation, the MoE layer pattern, the dispatcher) stay code in
// the reader (ImportFormats.cpp) and the writer (Export.cpp).

#include <QString>

#include <cstdint>
#include <span>
#include <string_view>

namespace trainplan::io::megatron {

/// How an argument carries its key.
enum class Form {
    Integer, ///< "--num-layers 32"
    Switch,  ///< "--sequence-parallel" sets the flag true
    Off,     ///< "--no-overlap-p2p-communication" sets the flag false (Megatron-LM's default is on)
};

struct Argument
{
    const char *flag; ///< without the dashes: "num-layers"
    const char *path; ///< the plan key: "model.layers"
    Form form;
};

std::span<const Argument> arguments();

/// The configuration name of an argument: "num_layers".
QString configName(const Argument &argument);

/// The key's argument as export writes it, "--num-layers"; empty when no row carries the key.
QString flagOf(std::string_view path);
/// "--num-layers 32".
QString flag(std::string_view path, std::int64_t value);

} // namespace trainplan::io::megatron
