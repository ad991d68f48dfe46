// libFuzzer target: model presets (io::readModels), then the example layout on every preset read.
#include "FuzzSupport.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    using namespace trainplan;
    Catalog catalog = io::builtinCatalog();
    const Problems problems = io::readModels(fuzz::bytes(data, size), catalog);
    if (hasErrors(problems))
        return 0;
    io::PlanReadResult example = io::readPlan(io::builtinExamplePlan(), catalog);
    if (!example.plan)
        return 0;
    for (const ModelSpec &m : catalog.models()) {
        example.plan->model = m;
        fuzz::exercise(*example.plan, catalog);
    }
    return 0;
}
