#include "core/memory/ModelState.h"

namespace trainplan {

StateBytesPerParameter stateBytesPerParameter(Precision precision, Optimizer optimizer, bool fp32Gradients)
{
    StateBytesPerParameter b;
    if (isSixteenBitStorage(precision)) {
        b.parameters = kHalfBytes;
        b.gradients = fp32Gradients ? kFp32Bytes : kHalfBytes;
        b.master = kFp32Bytes;
        b.optimizer = b.master + (optimizer == Optimizer::Adam ? 2 : 1) * kFp32Bytes;
    } else {
        b.parameters = kFp32Bytes;
        b.gradients = kFp32Bytes;
        b.optimizer = (optimizer == Optimizer::Adam ? 2 : 1) * kFp32Bytes;
    }
    return b;
}

ModelStateBytes shardedModelState(double parameterCount, const StateBytesPerParameter &bytes, double workers,
                                  std::int64_t zeroStage)
{
    const double w = workers > 1 ? workers : 1.0;
    ModelStateBytes s;
    s.parameters = parameterCount * bytes.parameters / (zeroStage >= 3 ? w : 1.0);
    s.gradients = parameterCount * bytes.gradients / (zeroStage >= 2 ? w : 1.0);
    s.optimizer = parameterCount * bytes.optimizer / (zeroStage >= 1 ? w : 1.0);
    s.master = parameterCount * bytes.master / (zeroStage >= 1 ? w : 1.0);
    return s;
}

std::array<ModelStateBytes, 4> zeroStageComparison(double parameterCount, const StateBytesPerParameter &bytes, double workers)
{
    std::array<ModelStateBytes, 4> out;
    for (std::int64_t stage = 0; stage < 4; ++stage)
        out[std::size_t(stage)] = shardedModelState(parameterCount, bytes, workers, stage);
    return out;
}

} // namespace trainplan
