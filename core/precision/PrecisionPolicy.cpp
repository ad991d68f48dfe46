#include "core/precision/PrecisionPolicy.h"

namespace trainplan {

PrecisionPolicy precisionPolicy(const Plan &plan)
{
    const TrainingConfig &training = plan.training;
    const Precision p = training.precision;
    const bool mixed = isSixteenBitStorage(p);
    // 16-bit storage format: FP8 training keeps BF16 weights and activations (Transformer Engine).
    const std::string half = p == Precision::FP16 ? "FP16" : "BF16";
    const std::string storage = mixed ? half : (p == Precision::TF32 ? "FP32" : "FP32");
    const std::string matmulIn = p == Precision::FP8            ? "FP8 (E4M3 forward, E5M2 gradients), per-tensor scales"
                                 : p == Precision::FP8Blockwise ? "FP8 E4M3, scales per 1x128 activation and 128x128 weight block"
                                 : p == Precision::MXFP8        ? "MXFP8 (E4M3, one E8M0 scale per 32 elements)"
                                 : p == Precision::NVFP4        ? "NVFP4 (E2M1, one E4M3 scale per 16 elements + FP32 per tensor)"
                                 : p == Precision::TF32         ? "TF32"
                                 : mixed                        ? half
                                                                : "FP32";
    const std::string grads = mixed ? (training.fp32Gradients ? "FP32" : half) : "FP32";
    const bool sharded = plan.parallel.zeroStage >= 1;

    PrecisionPolicy policy;
    auto &rows = policy.rows;
    rows.push_back({"Parameters (working copy)", storage, matmulIn, plan.parallel.zeroStage >= 3 ? storage : "",
                    plan.parallel.zeroStage >= 3 ? "gathered per layer (ZeRO-3)" : ""});
    if (mixed)
        rows.push_back({"Master weights", "FP32", "FP32", sharded ? "FP32 shards (all-gather of " + half + " copies after the step)" : "",
                        "updated by the optimizer, copied to the working format"});
    rows.push_back({"Gradients", grads, "FP32 accumulation in the matmul", plan.parallel.data > 1 ? grads : "",
                    plan.parallel.data > 1 ? (sharded ? "reduce-scattered" : "all-reduced") : ""});
    if (training.optimizer == Optimizer::Adam)
        rows.push_back({"Adam moments (m, v)", "FP32", "FP32", "", plan.parallel.offloadOptimizer ? "in host memory (offload)" : ""});
    else
        rows.push_back({"SGD momentum", "FP32", "FP32", "", ""});
    rows.push_back({"Activations", storage, matmulIn, plan.parallel.tensor > 1 || plan.parallel.pipeline > 1 ? storage : "",
                    training.recompute == Recompute::Full ? "recomputed in backward" : training.recompute == Recompute::Selective ? "attention core recomputed" : ""});
    rows.push_back({"Matmul accumulators", "", "FP32", "", "tensor-core accumulate"});
    rows.push_back({"Softmax, layer norm statistics", "", "FP32", "",
                    training.fusedKernels ? "inside fused kernels" : "unfused: upcast to FP32 tensors"});
    rows.push_back({"Loss and logits", "", "FP32", plan.parallel.tensor > 1 ? "FP32 (vocab-parallel cross-entropy)" : "", ""});
    if (p == Precision::FP8)
        rows.push_back({"FP8 scaling factors", "FP32", "FP32", "", "per tensor, from an amax history (delayed scaling)"});
    else if (p == Precision::FP8Blockwise)
        rows.push_back({"FP8 block scales", "FP32", "FP32", "", "one per 1x128 activation tile and 128x128 weight block"});
    else if (p == Precision::MXFP8)
        rows.push_back({"MX block scales", "E8M0", "", "", "one power of two per 32 elements, computed when quantizing"});
    else if (p == Precision::NVFP4)
        rows.push_back({"NVFP4 block scales", "E4M3 + FP32", "", "", "one per 16 elements and one per tensor"});

    switch (p) {
    case Precision::FP16:
        policy.lossScaling = "dynamic loss scaling: FP16 gradients underflow below 6.1e-5 (2^-14); the scale backs off on "
                             "overflow and skipped steps are counted (Micikevicius et al. 2018)";
        break;
    case Precision::BF16:
        policy.lossScaling = "none: BF16 has FP32's exponent range";
        break;
    case Precision::FP8:
    case Precision::FP8Blockwise:
    case Precision::MXFP8:
        policy.lossScaling = "scaling factors for FP8 (Micikevicius et al. 2022; finer blocks for the blockwise and MX "
                             "recipes); BF16 elsewhere needs none";
        break;
    case Precision::NVFP4:
        policy.lossScaling = "two-level block scaling for FP4 (E4M3 per 16 elements, FP32 per tensor); BF16 elsewhere "
                             "needs none";
        break;
    case Precision::FP32:
    case Precision::TF32:
        policy.lossScaling = "none: FP32 storage";
        break;
    }
    return policy;
}

} // namespace trainplan
