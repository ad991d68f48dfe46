#include "core/precision/PrecisionPolicy.h"

namespace trainplan {

namespace {

/// The scale tensors of the FP8/FP4 family.
void appendScaleRow(Precision p, std::vector<PrecisionRow> &rows)
{
    if (p == Precision::FP8)
        rows.push_back({"FP8 scaling factors", "FP32", "FP32", "amax all-reduced over the stage's data x tensor ranks",
                        "per tensor, from an amax history (delayed scaling); synchronised twice per model chunk and "
                        "micro-batch"});
    else if (p == Precision::FP8Blockwise)
        rows.push_back(
            {"FP8 block scales", "FP32", "FP32", "", "one per 1x128 activation tile and 128x128 weight block"});
    else if (p == Precision::MXFP8)
        rows.push_back(
            {"MX block scales", "E8M0", "", "", "one power of two per 32 elements, computed when quantizing"});
    else if (p == Precision::NVFP4)
        rows.push_back({"NVFP4 block scales", "E4M3 + FP32", "", "", "one per 16 elements and one per tensor"});
}

std::string lossScaling(Precision p)
{
    switch (p) {
    case Precision::FP16:
        return "dynamic loss scaling: FP16 gradients underflow below 6.1e-5 (2^-14); the scale backs off on "
               "overflow and skipped steps are counted (Micikevicius et al. 2018)";
    case Precision::BF16:
        return "none: BF16 has FP32's exponent range";
    case Precision::FP8:
    case Precision::FP8Blockwise:
    case Precision::MXFP8:
        return "scaling factors for FP8 (Micikevicius et al. 2022; finer blocks for the blockwise and MX "
               "recipes); BF16 elsewhere needs none";
    case Precision::NVFP4:
        return "two-level block scaling for FP4 (E4M3 per 16 elements, FP32 per tensor); BF16 elsewhere "
               "needs none";
    case Precision::FP32:
    case Precision::TF32:
        return "none: FP32 storage";
    }
    return {};
}

} // namespace

PrecisionPolicy precisionPolicy(const Plan &plan)
{
    const TrainingConfig &training = plan.training;
    const Precision p = training.precision;
    const bool mixed = isSixteenBitStorage(p);
    // 16-bit storage format: FP8 training keeps BF16 weights and activations (Transformer Engine).
    const std::string half = p == Precision::FP16 ? "FP16" : "BF16";
    const std::string storage = mixed ? half : (p == Precision::TF32 ? "FP32" : "FP32");
    const std::string matmulIn =
        p == Precision::FP8            ? "FP8 (E4M3 forward, E5M2 gradients), per-tensor scales"
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
    const bool low = isLowPrecisionMatmul(p);
    const std::string lowName = p == Precision::NVFP4 ? "NVFP4" : p == Precision::MXFP8 ? "MXFP8" : "FP8";
    if (!(low && training.fp8ParamGather))
        rows.push_back({"Parameters (working copy)", storage, low ? half : matmulIn,
                        plan.parallel.zeroStage >= 3 ? storage : "",
                        plan.parallel.zeroStage >= 3 ? "gathered per layer (ZeRO-3)" : ""});
    if (low)
        rows.push_back({"Weights, quantized copies", lowName + " row-wise + column-wise", matmulIn,
                        training.fp8ParamGather ? lowName + " (parameter all-gather)" : "",
                        training.fp8ParamGather
                            ? "the only working copy (fp8_param_gather); refreshed from the FP32 master each step"
                            : "refreshed from the BF16 weights once per step"});
    if (mixed)
        rows.push_back({"Master weights", "FP32", "FP32",
                        sharded ? "FP32 shards (all-gather of " + half + " copies after the step)" : "",
                        "updated by the optimizer, copied to the working format"});
    rows.push_back(
        {"Gradients", grads, "FP32 accumulation in the matmul",
         plan.parallel.data * plan.parallel.context > 1 ? grads : "",
         plan.parallel.data * plan.parallel.context > 1 ? (sharded ? "reduce-scattered" : "all-reduced") : ""});
    if (training.optimizer == Optimizer::Adam)
        rows.push_back({"Adam moments (m, v)", "FP32", "FP32", "",
                        plan.parallel.offloadOptimizer ? "in host memory (offload)" : ""});
    else
        rows.push_back({"SGD momentum", "FP32", "FP32", "", ""});
    rows.push_back({"Activations", storage, matmulIn,
                    plan.parallel.tensor > 1 || plan.parallel.pipeline > 1 ? storage : "",
                    training.recompute == Recompute::Full        ? "recomputed in backward"
                    : training.recompute == Recompute::Selective ? "attention core recomputed"
                                                                 : ""});
    if (low)
        rows.push_back({"Attention (QK^T, PV)", half, training.fp8Attention ? lowName : half, "",
                        training.fp8Attention ? "FP8 dot-product attention" : "kept in BF16 (fp8_attention off)"});
    if (low)
        rows.push_back({"Output projection (logits)", half, half, "", "outside the low-precision layers"});
    rows.push_back({"Matmul accumulators", "", "FP32", "", "tensor-core accumulate"});
    rows.push_back({"Softmax, layer norm statistics", "", "FP32", "",
                    training.fusedKernels ? "inside fused kernels" : "unfused: upcast to FP32 tensors"});
    rows.push_back(
        {"Loss and logits", "", "FP32", plan.parallel.tensor > 1 ? "FP32 (vocab-parallel cross-entropy)" : "", ""});
    appendScaleRow(p, rows);
    policy.lossScaling = lossScaling(p);
    return policy;
}

} // namespace trainplan
