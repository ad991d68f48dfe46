// libFuzzer target: plan files (io::readPlan), then the estimators on whatever parses.
#include "FuzzSupport.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    using namespace trainplan;
    if (size > io::kMaxPlanBytes)
        return 0;
    const Catalog &catalog = io::builtinCatalog();
    const io::PlanReadResult r = io::readPlan(fuzz::bytes(data, size), catalog);
    if (r.plan) {
        fuzz::exercise(*r.plan, catalog);
        (void)io::writePlan(*r.plan, catalog);
    }
    return 0;
}
