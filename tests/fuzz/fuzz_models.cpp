// libFuzzer target: model presets (io::readModels), then the example layout on every preset read.
#include "FuzzSupport.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    using namespace trainplan;
    // Only the presets the input defines are estimated, on the analytic path (the plan target covers
    // the simulator).
    Catalog read;
    const Problems problems = io::readModels(fuzz::bytes(data, size), read);
    if (hasErrors(problems))
        return 0;
    const Catalog &catalog = io::builtinCatalog();
    io::PlanReadResult example = io::readPlan(io::builtinExamplePlan(), catalog);
    if (!example.plan)
        return 0;
    // At most a few presets per input: a long list adds parsing work, not new estimator paths.
    std::size_t estimated = 0;
    for (const ModelSpec &m : read.models()) {
        if (++estimated > 3)
            break;
        example.plan->model = m;
        fuzz::exercise(*example.plan, catalog, true);
    }
    return 0;
}
