#include "estimate/Estimate.h"

#include "plan/PlanValidation.h"

namespace trainplan {

Estimate estimate(const Plan &plan, const Catalog &catalog, const EstimateOptions &options)
{
    Estimate e;
    e.problems = validatePlan(plan, catalog);
    if (hasErrors(e.problems))
        return e;
    e.device = catalog.device(plan.cluster.device);
    e.valid = true;
    e.model.parameters = totalParameters(plan.model);
    e.model.parametersPerLayer = layerParameters(plan.model).total();
    e.model.microbatches = plan.microbatches();
    e.model.gpus = plan.cluster.gpus();
    e.memory = estimateMemory(plan, *e.device);
    e.step = estimateStep(plan, *e.device, e.memory, options.simulatePipeline);
    if (options.scaling)
        e.scaling = scalingCurves(plan, *e.device);
    return e;
}

} // namespace trainplan
