#include "core/memory/ModelState.h"

namespace trainplan {

StateBytesPerParameter stateBytesPerParameter(Precision precision, Optimizer optimizer, bool fp32Gradients)
{
    StateBytesPerParameter b;
    const bool twoMoments = keepsTwoMoments(optimizer);
    if (isSixteenBitStorage(precision)) {
        b.parameters = kHalfBytes;
        b.gradients = fp32Gradients ? kFp32Bytes : kHalfBytes;
        b.master = kFp32Bytes;
        b.optimizer = b.master + (twoMoments ? 2 : 1) * kFp32Bytes;
    } else {
        b.parameters = kFp32Bytes;
        b.gradients = kFp32Bytes;
        b.optimizer = (twoMoments ? 2 : 1) * kFp32Bytes;
    }
    b.gathered = b.parameters;
    b.reduced = b.gradients;
    return b;
}

namespace {

double momentBytes(MomentFormat f)
{
    return f == MomentFormat::Fp32 ? kFp32Bytes : f == MomentFormat::Fp8 ? 1.0 : kHalfBytes;
}

} // namespace

double quantizedWeightBytes(Precision precision)
{
    switch (precision) {
    case Precision::FP8:
    case Precision::FP8Blockwise: // 128 x 128 weight blocks: one FP32 scale per 16384 weights, negligible
        return 2.0;
    case Precision::MXFP8:
        return 2.0 * (1.0 + 1.0 / 32.0);
    case Precision::NVFP4:
        return 2.0 * (0.5 + 1.0 / 16.0);
    default:
        return 0.0;
    }
}

StateBytesPerParameter stateBytesPerParameter(const TrainingConfig &training)
{
    StateBytesPerParameter b = stateBytesPerParameter(training.precision, training.optimizer, training.fp32Gradients);
    // The optimizer's state in the formats the plan stores it in (the update itself computes in FP32).
    const double moments = (training.keepsTwoMoments() ? 2.0 : 1.0) * momentBytes(training.optimizerMoments);
    if (b.master > 0 && training.masterWeights != MasterFormat::Fp32)
        b.master = kHalfBytes;
    b.optimizer = b.master + moments;
    if (training.usesMuon()) {
        const double scalarMoments = training.muonScalarOptimizer == MuonScalarOptimizer::Adam ? 2.0 : 1.0;
        const double matrixMoments = training.keepsTwoMoments() ? 2.0 : 1.0;
        b.nonMatrixMomentBytes = (scalarMoments - matrixMoments) * momentBytes(training.optimizerMoments);
    }
    // PyTorch's FSDP keeps one sharded copy of each parameter, in its own dtype, which the optimizer steps:
    // "FSDP ... keeps the high-precision sharded parameters in memory anyway ... The optimizer step uses the
    // sharded parameter in the original dtype" (MixedPrecisionPolicy, torch/distributed/fsdp/_fully_shard/
    // _fsdp_api.py; FSDP1's flat parameter likewise). The 16-bit copy exists only gathered, and the gradient
    // shard is kept in the parameter's dtype whatever dtype the reduce-scatter ran in (reduce_dtype).
    if (training.framework == Framework::Fsdp && b.master > 0) {
        b.parameters = 0.0;
        b.gradients = b.master;
    }
    if (!isLowPrecisionMatmul(training.precision))
        return b;
    // PyTorch-native FSDP keeps no quantized weight between uses: torchao's Float8Linear casts the weight in each
    // forward, and with FSDP2's float8 all-gather the cast of the sharded high-precision parameter is only the
    // all-gather's input (torchao eab345c, torchao/float8/fsdp_utils.py, WeightWithDynamicFloat8CastTensor.
    // fsdp_pre_all_gather); Transformer Engine caches its FP8 weights only when the caller passes
    // is_first_microbatch (transformer_engine/pytorch/module/linear.py, forward's docstring), which Megatron-Core and
    // Megatron-DeepSpeed do and llm-foundry does not. The gathered unit is then the one low-precision copy.
    if (training.framework != Framework::Fsdp)
        b.lowPrecisionCopies = quantizedWeightBytes(training.precision);
    if (training.fp8ParamGather) {
        b.gatheredUnquantized = b.gathered;
        b.parameters = b.lowPrecisionCopies;
        b.gathered = training.precision == Precision::NVFP4 ? 0.5 + 1.0 / 16.0 : 1.0;
    } else {
        b.parameters += b.lowPrecisionCopies;
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

std::array<ModelStateBytes, 4> zeroStageComparison(double parameterCount, const StateBytesPerParameter &bytes,
                                                   double workers)
{
    std::array<ModelStateBytes, 4> out;
    for (std::int64_t stage = 0; stage < 4; ++stage)
        out[std::size_t(stage)] = shardedModelState(parameterCount, bytes, workers, stage);
    return out;
}

} // namespace trainplan
