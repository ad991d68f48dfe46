#pragma once
// The roofline model (Williams et al. 2009): P <= min(P_peak, B_memory x I), with I = FLOPs / bytes.

#include <vector>

#include "core/hardware/DeviceSpec.h"

namespace trainplan {

/// Arithmetic intensity (FLOP/byte) where the bandwidth slope meets the compute ceiling.
inline double ridgePoint(double peakFlopsPerSecond, double bandwidthBytesPerSecond)
{
    return bandwidthBytesPerSecond > 0 ? peakFlopsPerSecond / bandwidthBytesPerSecond : 0.0;
}

/// Attainable FLOP/s at arithmetic intensity `intensity`.
inline double attainableFlops(double intensity, double peakFlopsPerSecond, double bandwidthBytesPerSecond)
{
    const double bandwidthBound = bandwidthBytesPerSecond * intensity;
    return bandwidthBound < peakFlopsPerSecond ? bandwidthBound : peakFlopsPerSecond;
}

/// One roof of a device: a number format's peak and where the bandwidth slope meets it.
struct Roof
{
    Precision precision = Precision::BF16;
    double peakFlops = 0;
    double ridgePoint = 0; ///< FLOP/byte
};

/// The roofline the plan's kernels run under: the plan's format, and every format the device has.
struct RooflineSummary
{
    double bandwidthBytesPerSecond = 0;
    Roof plan;              ///< the plan's precision
    std::vector<Roof> roofs; ///< every format with a peak, the plan's included, in the Precision enum's order
};
RooflineSummary rooflineOf(const DeviceSpec &device, Precision precision);

} // namespace trainplan
