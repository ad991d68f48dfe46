#pragma once
// The precision policy of a plan: which tensors are held, computed and communicated in which format, and
// the loss-scaling rule (reference text, "Precision is an end-to-end contract": matrix inputs,
// accumulators, reductions, normalisation statistics, optimiser state and communication can use
// different representations). Follows Megatron-LM / PyTorch AMP practice (Micikevicius et al. 2018;
// Micikevicius et al. 2022 for FP8 with per-tensor scaling). A table of words computed from the plan alone,
// so it lives with the other words for core's numbers; its texts go through QCoreApplication::translate
// ("Precision").

#include <string>
#include <vector>

#include "core/plan/Plan.h"

namespace trainplan::io {

struct PrecisionRow
{
    std::string tensor;       ///< "Parameters (working copy)"
    std::string held;         ///< storage format, "" when not held
    std::string computed;     ///< format the arithmetic reads / accumulates in
    std::string communicated; ///< format on the wire, "" when not communicated
    std::string note;
};

struct PrecisionPolicy
{
    std::vector<PrecisionRow> rows;
    std::string lossScaling; ///< "dynamic loss scaling (FP16 gradients underflow)", ...
};

PrecisionPolicy precisionPolicy(const Plan &plan);

/// What Muon's or Adaptive Muon's optimizer state holds, in words: the layers' weight matrices' moments and those
/// of the parameters it leaves to Adam or Lion (training.muon_scalar_optimizer). Empty for other optimizers.
std::string muonStateWords(const TrainingConfig &training);

} // namespace trainplan::io
