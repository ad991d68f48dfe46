#pragma once
// The roofline model (Williams et al. 2009): P <= min(P_peak, B_memory x I), with I = FLOPs / bytes.

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

} // namespace trainplan
