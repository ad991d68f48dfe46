#include "core/compute/Roofline.h"

#include <algorithm>

namespace trainplan {

RooflineSummary rooflineOf(const DeviceSpec &device, Precision precision)
{
    RooflineSummary r;
    r.bandwidthBytesPerSecond = device.memoryBandwidthBytesPerSecond;
    const auto roof = [&](Precision p) {
        return Roof{p, device.peakFlops(p), ridgePoint(device.peakFlops(p), device.memoryBandwidthBytesPerSecond)};
    };
    r.plan = roof(precision);
    for (const EnumName<Precision> &n : enumNames(Precision{}))
        if (device.supports(n.value))
            r.roofs.push_back(roof(n.value));
    std::stable_sort(r.roofs.begin(), r.roofs.end(), [](const Roof &a, const Roof &b) { return a.peakFlops > b.peakFlops; });
    return r;
}

} // namespace trainplan
