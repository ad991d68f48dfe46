#pragma once
// An accelerator as the estimators see it. Values come from resources/devices.json, each with its source.

#include <array>
#include <string>

#include "plan/Precision.h"

namespace trainplan {

struct DeviceSpec
{
    std::string id;   ///< catalog id, e.g. "a100-sxm4-80gb"
    std::string name; ///< display name
    std::string source;

    /// Dense peak arithmetic throughput per precision in FLOP/s; 0 means the device has no such path.
    std::array<double, kPrecisionCount> peakFlopsPerSecond{};
    double memoryBytes = 0;                         ///< HBM capacity
    double memoryBandwidthBytesPerSecond = 0;       ///< HBM bandwidth
    double intraNodeBandwidthBytesPerSecond = 0;    ///< scale-up link (NVLink/XGMI), one direction, per GPU
    double networkBandwidthBytesPerSecond = 0;      ///< scale-out network share per GPU, one direction
    /// Memory the runtime takes before the model allocates anything: CUDA/HIP context, library
    /// workspaces (cuBLAS, NCCL). An explicit, per-device assumption, itemised in every estimate.
    double runtimeContextBytes = 0;
    double boardPowerWatts = 0;

    double peakFlops(Precision p) const { return peakFlopsPerSecond[std::size_t(p)]; }
    bool supports(Precision p) const { return peakFlops(p) > 0; }
};

} // namespace trainplan
