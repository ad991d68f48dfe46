#pragma once

#include <array>
#include <cstddef>

#include "core/common/EnumNames.h"

namespace trainplan {

enum class Precision { FP32, TF32, FP16, BF16, FP8 };
constexpr auto enumNames(Precision)
{
    using N = EnumName<Precision>;
    return std::array{N{Precision::FP32, "fp32", "FP32"}, N{Precision::TF32, "tf32", "TF32"}, N{Precision::FP16, "fp16", "FP16"},
                      N{Precision::BF16, "bf16", "BF16"}, N{Precision::FP8, "fp8", "FP8"}};
}
inline const char *toString(Precision v) { return spellingOf(v); }
inline constexpr std::size_t kPrecisionCount = enumCount<Precision>();

/// Bytes of one element in FP32 and in a 16-bit format.
inline constexpr double kFp32Bytes = 4.0;
inline constexpr double kHalfBytes = 2.0;

/// True when parameters and activations are held in a 16-bit format (mixed precision, Micikevicius et
/// al. 2018). FP8 training keeps 16-bit weights and activations and casts to FP8 per matrix multiply
/// (NVIDIA Transformer Engine), so its storage is 16-bit too.
bool isSixteenBitStorage(Precision p);

} // namespace trainplan
