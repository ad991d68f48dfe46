#include "core/learn/Teaching.h"

#include <algorithm>
#include <cmath>

namespace trainplan {

ScalingCurve illustrativeScaling(double logTerm, double linearTerm, bool overlap, int maxWorkers)
{
    ScalingCurve c;
    for (int w = 1; w <= std::max(1, maxWorkers); w *= 2) {
        const double compute = 1.0 / w;
        const double communication = logTerm * std::log2(double(w)) + linearTerm * (w - 1);
        c.workers.push_back(w);
        c.stepTime.push_back(overlap ? std::max(compute, communication) : compute + communication);
    }
    for (std::size_t i = 0; i < c.workers.size(); ++i) {
        c.speedup.push_back(c.stepTime.front() / c.stepTime[i]);
        c.efficiency.push_back(c.speedup.back() / c.workers[i]);
    }
    return c;
}

double pipelineUtilisation(std::int64_t stages, std::int64_t microbatches)
{
    return microbatches > 0 && stages > 0 ? double(microbatches) / double(microbatches + stages - 1) : 0.0;
}

} // namespace trainplan
