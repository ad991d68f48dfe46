#pragma once

#include <array>
#include <cstddef>

#include "core/common/EnumNames.h"

namespace trainplan {

/// The matrix-multiply format of a plan. The FP8 family differs in its scaling: `FP8` per tensor (delayed or
/// current scaling, Transformer Engine), `FP8Blockwise` per 1x128 activation and 128x128 weight block
/// (DeepSeek-AI 2024, on Hopper's FP8 tensor cores), `MXFP8` E4M3 with an E8M0 scale per 32 elements and
/// `NVFP4` E2M1 with an E4M3 scale per 16 elements and a per-tensor FP32 scale (OCP MX spec 2023; NVIDIA
/// Blackwell). A device supports a format when it lists a peak for it.
enum class Precision { FP32, TF32, FP16, BF16, FP8, FP8Blockwise, MXFP8, NVFP4 };
constexpr auto enumNames(Precision)
{
    using N = EnumName<Precision>;
    return std::array{
        N{Precision::FP32, "fp32", "FP32"},    N{Precision::TF32, "tf32", "TF32"},
        N{Precision::FP16, "fp16", "FP16"},    N{Precision::BF16, "bf16", "BF16"},
        N{Precision::FP8, "fp8", "FP8"},       N{Precision::FP8Blockwise, "fp8-blockwise", "FP8 blockwise"},
        N{Precision::MXFP8, "mxfp8", "MXFP8"}, N{Precision::NVFP4, "nvfp4", "NVFP4"}};
}
/// Whether the format is one of the FP8/FP4 family: BF16 storage, low-precision matrix multiplies.
constexpr bool isLowPrecisionMatmul(Precision p)
{
    return p == Precision::FP8 || p == Precision::FP8Blockwise || p == Precision::MXFP8 || p == Precision::NVFP4;
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
