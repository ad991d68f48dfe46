// libFuzzer target: device catalogs (io::readDevices), then the example plan on every device read.
#include "FuzzSupport.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    using namespace trainplan;
    // Only the devices the input defines are estimated (the built-in ones are tested elsewhere), on the
    // analytic path: the plan target covers the simulator.
    Catalog read;
    const Problems problems = io::readDevices(fuzz::bytes(data, size), read);
    if (hasErrors(problems))
        return 0;
    Catalog catalog = io::builtinCatalog();
    for (const DeviceSpec &d : read.devices())
        catalog.addDevice(d);
    io::PlanReadResult example = io::readPlan(io::builtinExamplePlan(), catalog);
    if (!example.plan)
        return 0;
    // At most a few devices per input: a long catalog adds parsing work, not new estimator paths.
    std::size_t estimated = 0;
    for (const DeviceSpec &d : read.devices()) {
        if (++estimated > 3)
            break;
        example.plan->cluster.device = d.id;
        fuzz::exercise(*example.plan, catalog, true);
    }
    return 0;
}
