#include "learn/Teaching.h"

#include <algorithm>
#include <cmath>

namespace trainplan {

ScalingCurve illustrativeScaling(double logTerm, double linearTerm, bool overlap, int maxWorkers)
{
    ScalingCurve c;
    const auto add = [&](double w) {
        const double compute = 1.0 / w;
        const double communication = logTerm * std::log2(w) + linearTerm * (w - 1);
        c.workers.push_back(w);
        c.stepTime.push_back(overlap ? std::max(compute, communication) : compute + communication);
    };
    // Powers of two for the curve, and the asked-for W itself as its last point when it is not one.
    const int last = std::max(1, maxWorkers);
    for (int w = 1; w <= last; w *= 2) {
        add(w);
        if (w > last / 2)
            break;
    }
    if (c.workers.back() != double(last))
        add(last);
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
