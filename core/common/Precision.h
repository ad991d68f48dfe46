#pragma once

#include <cstddef>

namespace trainplan {

enum class Precision { FP32, TF32, FP16, BF16, FP8 };
inline constexpr std::size_t kPrecisionCount = 5;

/// Plan-file spelling: "fp32", "tf32", "fp16", "bf16", "fp8".
const char *toString(Precision p);

/// True when parameters and activations are held in a 16-bit format (mixed precision, Micikevicius et
/// al. 2018). FP8 training keeps 16-bit weights and activations and casts to FP8 per matrix multiply
/// (NVIDIA Transformer Engine), so its storage is 16-bit too.
bool isSixteenBitStorage(Precision p);

} // namespace trainplan
