// libFuzzer target: device catalogs (io::readDevices), then the example plan on every device read.
#include "FuzzSupport.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    using namespace trainplan;
    Catalog catalog = io::builtinCatalog();
    const Problems problems = io::readDevices(fuzz::bytes(data, size), catalog);
    if (hasErrors(problems))
        return 0;
    io::PlanReadResult example = io::readPlan(io::builtinExamplePlan(), catalog);
    if (!example.plan)
        return 0;
    for (const DeviceSpec &d : catalog.devices()) {
        example.plan->cluster.device = d.id;
        fuzz::exercise(*example.plan, catalog);
    }
    return 0;
}
