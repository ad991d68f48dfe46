#include "core/memory/ModelState.h"

namespace trainplan {

StateBytesPerParameter stateBytesPerParameter(Precision precision, Optimizer optimizer, bool fp32Gradients)
{
    StateBytesPerParameter b;
    if (isSixteenBitStorage(precision)) {
        b.parameters = 2;
        b.gradients = fp32Gradients ? 4 : 2;
        const double master = 4;
        b.optimizer = master + (optimizer == Optimizer::Adam ? 8 : 4);
    } else {
        b.parameters = 4;
        b.gradients = 4;
        b.optimizer = optimizer == Optimizer::Adam ? 8 : 4;
    }
    return b;
}

ModelStateBytes shardedModelState(double parameterCount, const StateBytesPerParameter &bytes, std::int64_t workers,
                                  int zeroStage)
{
    const double w = workers > 0 ? double(workers) : 1.0;
    ModelStateBytes s;
    s.parameters = parameterCount * bytes.parameters / (zeroStage >= 3 ? w : 1.0);
    s.gradients = parameterCount * bytes.gradients / (zeroStage >= 2 ? w : 1.0);
    s.optimizer = parameterCount * bytes.optimizer / (zeroStage >= 1 ? w : 1.0);
    return s;
}

} // namespace trainplan
