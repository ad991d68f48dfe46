#include "learn/NumberFormat.h"

#include <cfenv>
#include <cmath>
#include <limits>

namespace trainplan {

const std::vector<NumberFormat> &numberFormats()
{
    static const std::vector<NumberFormat> formats{
        {"FP32", 8, 23, true, "IEEE 754-2019 binary32", true, 0, ""},
        {"TF32", 8, 10, true, "NVIDIA TensorFloat-32: FP32's exponent, FP16's significand (tensor-core input format)",
         true, 0, ""},
        {"FP16", 5, 10, true, "IEEE 754-2019 binary16", true, 0, ""},
        {"BF16", 8, 7, true, "bfloat16: FP32's exponent, 7 significand bits", true, 0, ""},
        {"FP8 E4M3", 4, 3, false, "OCP 8-bit Floating Point Specification (OFP8) 2023, E4M3", true, 0, ""},
        {"FP8 E5M2", 5, 2, true, "OCP 8-bit Floating Point Specification (OFP8) 2023, E5M2", true, 0, ""},
        {"MXFP8 (E4M3)", 4, 3, false, "OCP Microscaling Formats (MX) Specification v1.0, 2023: E4M3 elements", true, 32,
         "E8M0"},
        {"NVFP4 (E2M1)", 2, 1, false,
         "OCP MX v1.0 E2M1 elements; NVIDIA Blackwell NVFP4 scaling (E4M3 per 16, FP32 per tensor)", false, 16,
         "E4M3 + FP32"},
    };
    return formats;
}

const NumberFormat *numberFormat(const std::string &name)
{
    for (const NumberFormat &f : numberFormats())
        if (f.name == name)
            return &f;
    return nullptr;
}

FormatProperties properties(const NumberFormat &f)
{
    FormatProperties p;
    p.bias = (1 << (f.exponentBits - 1)) - 1;
    const int allOnes = (1 << f.exponentBits) - 1;
    // With infinities the all-ones exponent is reserved; E4M3 keeps it for normals except its top code (NaN);
    // E2M1 has neither, so its top code is finite.
    p.maxExponent = (f.hasInfinity ? allOnes - 1 : allOnes) - p.bias;
    const double ulpAtOne = std::ldexp(1.0, -f.mantissaBits);
    const double maxSignificand =
        f.hasInfinity || !f.hasNaN ? 2.0 - ulpAtOne : 2.0 - 2.0 * ulpAtOne; // E4M3: mantissa 111 is NaN
    p.maxFinite = std::ldexp(maxSignificand, p.maxExponent);
    p.minNormal = std::ldexp(1.0, 1 - p.bias);
    p.minSubnormal = std::ldexp(1.0, 1 - p.bias - f.mantissaBits);
    p.epsilon = ulpAtOne;
    p.decimalDigits = double(f.mantissaBits + 1) * std::log10(2.0);
    p.dynamicRangeDecades = std::log10(p.maxFinite / p.minSubnormal);
    return p;
}

Rounded roundTo(const NumberFormat &f, double x)
{
    Rounded r;
    if (std::isnan(x)) {
        r.value = std::numeric_limits<double>::quiet_NaN();
        r.outcome = RoundingOutcome::NotANumber;
        return r;
    }
    const FormatProperties p = properties(f);
    const double magnitude = std::fabs(x);
    const double sign = std::signbit(x) ? -1.0 : 1.0;
    if (magnitude == 0.0) {
        r.value = x;
        r.spacing = p.minSubnormal;
        return r;
    }
    const auto overflow = [&] {
        // IEEE formats overflow to infinity, E4M3 to NaN; E2M1 has neither and saturates at its largest value.
        r.value = f.hasInfinity ? sign * std::numeric_limits<double>::infinity()
                  : f.hasNaN    ? std::numeric_limits<double>::quiet_NaN()
                                : sign * p.maxFinite;
        r.outcome = RoundingOutcome::Overflow;
        r.relativeError = f.hasInfinity || f.hasNaN || std::isinf(magnitude) ? std::numeric_limits<double>::infinity()
                                                                               : (magnitude - p.maxFinite) / magnitude;
        return r;
    };
    if (std::isinf(magnitude))
        return overflow();
    // The spacing of representable values in x's binade (or the subnormal spacing below the normals).
    const int exponent = std::ilogb(magnitude);
    const double quantum = exponent < 1 - p.bias ? p.minSubnormal : std::ldexp(1.0, exponent - f.mantissaBits);
    const int saved = std::fegetround();
    std::fesetround(FE_TONEAREST);
    const double units = std::nearbyint(magnitude / quantum); // ties to even
    std::fesetround(saved);
    const double rounded = units * quantum;
    // Overflow when the value rounds beyond the largest finite one (IEEE: at max + half a spacing).
    const double topSpacing = std::ldexp(1.0, p.maxExponent - f.mantissaBits);
    if (rounded > p.maxFinite || magnitude >= p.maxFinite + 0.5 * topSpacing)
        return overflow();
    r.value = sign * rounded;
    r.spacing = quantum;
    r.relativeError = std::fabs(rounded - magnitude) / magnitude;
    if (rounded == 0.0) {
        r.outcome = RoundingOutcome::Underflow;
        r.relativeError = 1.0;
    } else if (rounded < p.minNormal) {
        r.outcome = RoundingOutcome::Subnormal;
    } else {
        r.outcome = rounded == magnitude ? RoundingOutcome::Exact : RoundingOutcome::Rounded;
    }
    return r;
}

LossScalingDemo lossScaling(const NumberFormat &format, double gradient, double scale)
{
    LossScalingDemo d;
    d.unscaled = roundTo(format, gradient);
    d.scaled = roundTo(format, gradient * scale);
    d.recovered = scale != 0 ? d.scaled.value / scale : 0.0;
    d.recoveredRelativeError = gradient != 0 ? std::fabs(d.recovered - gradient) / std::fabs(gradient) : 0.0;
    return d;
}

double accumulate(const NumberFormat &format, double start, double increment, int count)
{
    double sum = roundTo(format, start).value;
    const double step = roundTo(format, increment).value;
    for (int i = 0; i < count; ++i)
        sum = roundTo(format, sum + step).value;
    return sum;
}

} // namespace trainplan
