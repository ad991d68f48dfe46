#pragma once
// Megatron-LM's arguments (megatron/training/arguments.py) that carry one plan key each, in one two-way table:
// the Megatron and NeMo importers read them (as the argument's destination, '-' as '_', and as Megatron-Core's
// configuration field where that is named otherwise) and the Megatron and NeMo exporters write them. A key's
// first row is the spelling export writes (the flag for a launch script, the field for a NeMo / Megatron-Bridge
// recipe); a later row of the same key is another spelling import also reads. Arguments that need more than one
// key or a translation (precision, recomputation, the MoE layer pattern, the dispatcher) stay code in the reader
// (ReadMegatron.cpp, ReadNemo.cpp) and the writer (Export.cpp).

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
    /// Megatron-Core's configuration field (TransformerConfig, ModelParallelConfig) where it is not the
    /// argument's destination: "num_moe_experts" for --num-experts. Always the positive sense: an Off
    /// argument's field is true when the flag is absent.
    const char *field = nullptr;
};

std::span<const Argument> arguments();

/// The argument's destination, as argparse stores it and a saved arguments file names it: "num_layers".
QString configName(const Argument &argument);

/// The key's name in a Megatron-Core configuration (a NeMo or Megatron-Bridge recipe) as export writes it:
/// its first row's field, or that row's destination; empty when no row carries the key.
QString fieldOf(std::string_view path);

/// The key's argument as export writes it, "--num-layers"; empty when no row carries the key.
QString flagOf(std::string_view path);
/// "--num-layers 32".
QString flag(std::string_view path, std::int64_t value);

} // namespace trainplan::io::megatron
