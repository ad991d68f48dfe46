#include "core/compute/Roofline.h"

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
    return r;
}

} // namespace trainplan
