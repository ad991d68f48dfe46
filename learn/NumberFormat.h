#pragma once
// Floating-point formats from their bit layouts (reference text Figure 16.3): range, smallest normal and
// subnormal, resolution and decimal digits computed from sign/exponent/significand widths, never typed
// in; and a probe that rounds a value to a format (round to nearest, ties to even) and says whether it was
// exact, rounded, subnormal, flushed to zero or overflowed. IEEE 754-2019 for FP32/FP16 (BF16 and TF32
// follow the same rules with other widths); the OCP 8-bit floating point specification (2023) for E4M3
// (no infinities; only S.1111.111 is NaN, so the largest exponent holds normal numbers) and E5M2 (IEEE-like);
// the OCP Microscaling specification (2023) for MXFP8 (E4M3 elements, one E8M0 power-of-two scale per 32)
// and E2M1 (FP4: no infinity or NaN, largest value 6.0), which NVIDIA's NVFP4 scales per 16 elements with
// an E4M3 factor and per tensor with an FP32 one.

#include <array>
#include <string>
#include <vector>
#include "core/common/EnumNames.h"

namespace trainplan {

struct NumberFormat
{
    std::string name;       ///< "FP32", "FP8 E4M3"
    int exponentBits = 8;
    int mantissaBits = 23;  ///< stored significand bits (the leading 1 is implicit)
    bool hasInfinity = true; ///< false for E4M3: the all-ones exponent holds normal numbers
    std::string source;
    /// false for E2M1 (FP4): no code is NaN or infinite, so the top code is the largest finite value.
    bool hasNaN = true;
    /// Block-scaled formats (OCP MX 2023; NVIDIA NVFP4): elements of this layout share one scale per
    /// `blockSize` elements, stored in `scaleFormat`; 0 for plain formats.
    int blockSize = 0;
    std::string scaleFormat;
};

struct FormatProperties
{
    int bias = 0;
    int maxExponent = 0;       ///< unbiased exponent of the largest finite value
    double maxFinite = 0;
    double minNormal = 0;
    double minSubnormal = 0;
    double epsilon = 0;        ///< spacing of values just above 1: 2^-mantissaBits
    double decimalDigits = 0;  ///< (mantissaBits + 1) log10 2
    double dynamicRangeDecades = 0; ///< log10(maxFinite / minSubnormal)
};

/// FP32, TF32, FP16, BF16, FP8 E4M3, FP8 E5M2, and the block-scaled MXFP8 (E4M3 elements) and NVFP4
/// (E2M1 elements).
const std::vector<NumberFormat> &numberFormats();
const NumberFormat *numberFormat(const std::string &name);
FormatProperties properties(const NumberFormat &format);

enum class RoundingOutcome { Exact, Rounded, Subnormal, Underflow, Overflow, NotANumber };
constexpr auto enumNames(RoundingOutcome)
{
    using N = EnumName<RoundingOutcome>;
    return std::array{N{RoundingOutcome::Exact, "exact", "Exact"},
                      N{RoundingOutcome::Rounded, "rounded", "Rounded"},
                      N{RoundingOutcome::Subnormal, "subnormal", "Subnormal"},
                      N{RoundingOutcome::Underflow, "underflow", "Underflow"},
                      N{RoundingOutcome::Overflow, "overflow", "Overflow"},
                      N{RoundingOutcome::NotANumber, "nan", "Not a number"}};
}
inline const char *toString(RoundingOutcome v) { return spellingOf(v); }

struct Rounded
{
    double value = 0;          ///< the representable result (inf or NaN on overflow)
    RoundingOutcome outcome = RoundingOutcome::Exact;
    double relativeError = 0;  ///< |value - x| / |x| (1 on underflow to zero; inf on overflow)
    double spacing = 0;        ///< distance to the next representable magnitude at this value
};

/// Round to nearest, ties to even. Overflow gives infinity (NaN for E4M3, which has none).
Rounded roundTo(const NumberFormat &format, double x);

/// Loss scaling for one gradient value: stored directly, it may underflow; multiplied by `scale` before
/// the cast and divided after (in FP32), it survives if the scaled value is representable.
struct LossScalingDemo
{
    Rounded unscaled;      ///< g in the format
    Rounded scaled;        ///< g x scale in the format
    double recovered = 0;  ///< scaled.value / scale (the FP32 master gradient)
    double recoveredRelativeError = 0;
};
LossScalingDemo lossScaling(const NumberFormat &format, double gradient, double scale);

/// Adds `increment` to `start` `count` times with every partial sum rounded to `format` (the accumulator
/// format): BF16 accumulation stalls once the increment is below half a spacing (exercise 10).
double accumulate(const NumberFormat &format, double start, double increment, int count);

} // namespace trainplan
