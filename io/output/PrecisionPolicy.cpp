#include "io/output/PrecisionPolicy.h"

#include <QCoreApplication>

namespace trainplan::io {

namespace {

/// A text of the table in the user's language (the "Precision" context).
std::string precisionWords(const char *text)
{
    return QCoreApplication::translate("Precision", text).toStdString();
}

/// The scale tensors of the FP8/FP4 family.
void appendScaleRow(Precision p, Fp8Recipe recipe, std::vector<PrecisionRow> &rows)
{
    if (p == Precision::FP8 && recipe == Fp8Recipe::Rowwise)
        rows.push_back(
            {precisionWords(QT_TRANSLATE_NOOP("Precision", "FP8 scaling factors")), "FP32", "FP32",
             precisionWords(QT_TRANSLATE_NOOP("Precision", "no amax history to reduce")),
             precisionWords(QT_TRANSLATE_NOOP(
                 "Precision", "one per row of each operand, rounded to a power of two (torchao's rowwise "
                              "recipe; its own casts for the weight gradient)"))});
    else if (p == Precision::FP8 && recipe == Fp8Recipe::Tensorwise)
        rows.push_back(
            {precisionWords(QT_TRANSLATE_NOOP("Precision", "FP8 scaling factors")), "FP32", "FP32",
             precisionWords(QT_TRANSLATE_NOOP("Precision", "no amax history to reduce")),
             precisionWords(QT_TRANSLATE_NOOP(
                 "Precision", "per tensor, from the tensor's own amax as it is quantized (current scaling)"))});
    else if (p == Precision::FP8)
        rows.push_back(
            {precisionWords(QT_TRANSLATE_NOOP("Precision", "FP8 scaling factors")), "FP32", "FP32",
             precisionWords(QT_TRANSLATE_NOOP("Precision", "amax all-reduced over the stage's data x tensor ranks")),
             precisionWords(QT_TRANSLATE_NOOP(
                 "Precision",
                 "per tensor, from an amax history (delayed scaling); synchronised twice per model chunk and "
                 "micro-batch"))});
    else if (p == Precision::FP8Blockwise)
        rows.push_back(
            {precisionWords(QT_TRANSLATE_NOOP("Precision", "FP8 block scales")), "FP32", "FP32", "",
             precisionWords(QT_TRANSLATE_NOOP("Precision", "one per 1x128 activation tile and 128x128 weight block"))});
    else if (p == Precision::MXFP8)
        rows.push_back({precisionWords(QT_TRANSLATE_NOOP("Precision", "MX block scales")), "E8M0", "", "",
                        precisionWords(QT_TRANSLATE_NOOP(
                            "Precision", "one power of two per 32 elements, computed when quantizing"))});
    else if (p == Precision::NVFP4)
        rows.push_back({precisionWords(QT_TRANSLATE_NOOP("Precision", "NVFP4 block scales")),
                        precisionWords(QT_TRANSLATE_NOOP("Precision", "E4M3 + FP32")), "", "",
                        precisionWords(QT_TRANSLATE_NOOP("Precision", "one per 16 elements and one per tensor"))});
}

std::string lossScaling(Precision p)
{
    switch (p) {
    case Precision::FP16:
        return precisionWords(QT_TRANSLATE_NOOP(
            "Precision", "dynamic loss scaling: FP16 gradients underflow below 6.1e-5 (2^-14); the scale backs off on "
                         "overflow and skipped steps are counted (Micikevicius et al. 2018)"));
    case Precision::BF16:
        return precisionWords(QT_TRANSLATE_NOOP("Precision", "none: BF16 has FP32's exponent range"));
    case Precision::FP8:
    case Precision::FP8Blockwise:
    case Precision::MXFP8:
        return precisionWords(QT_TRANSLATE_NOOP(
            "Precision", "scaling factors for FP8 (Micikevicius et al. 2022; finer blocks for the blockwise and MX "
                         "recipes); BF16 elsewhere needs none"));
    case Precision::NVFP4:
        return precisionWords(QT_TRANSLATE_NOOP(
            "Precision", "two-level block scaling for FP4 (E4M3 per 16 elements, FP32 per tensor); BF16 elsewhere "
                         "needs none"));
    case Precision::FP32:
    case Precision::TF32:
        return precisionWords(QT_TRANSLATE_NOOP("Precision", "none: FP32 storage"));
    }
    return {};
}

/// The formats a plan's tensors take: 16-bit storage (FP8 training keeps BF16 weights and activations, as
/// Transformer Engine does), what the matmuls read, the gradients' format.
struct Formats
{
    bool mixed = false, low = false, sharded = false;
    std::string half, storage, matmulIn, grads, lowName;
};

Formats formatsOf(const Plan &plan)
{
    const TrainingConfig &training = plan.training;
    const Precision p = training.precision;
    Formats f;
    f.mixed = isSixteenBitStorage(p);
    f.low = isLowPrecisionMatmul(p);
    f.sharded = plan.parallel.zeroStage >= 1;
    f.half = p == Precision::FP16 ? "FP16" : "BF16";
    f.storage = f.mixed ? f.half : "FP32";
    f.matmulIn =
        p == Precision::FP8
            ? precisionWords(QT_TRANSLATE_NOOP("Precision", "FP8 (E4M3 forward, E5M2 gradients), per-tensor scales"))
        : p == Precision::FP8Blockwise
            ? precisionWords(
                  QT_TRANSLATE_NOOP("Precision", "FP8 E4M3, scales per 1x128 activation and 128x128 weight block"))
        : p == Precision::MXFP8
            ? precisionWords(QT_TRANSLATE_NOOP("Precision", "MXFP8 (E4M3, one E8M0 scale per 32 elements)"))
        : p == Precision::NVFP4 ? precisionWords(QT_TRANSLATE_NOOP(
                                      "Precision", "NVFP4 (E2M1, one E4M3 scale per 16 elements + FP32 per tensor)"))
        : p == Precision::TF32  ? "TF32"
        : f.mixed               ? f.half
                                : "FP32";
    f.grads = f.mixed ? (training.fp32Gradients ? "FP32" : f.half) : "FP32";
    f.lowName = p == Precision::NVFP4 ? "NVFP4" : p == Precision::MXFP8 ? "MXFP8" : "FP8";
    return f;
}

/// The state the step keeps: parameters and their quantized copies, master weights, gradients, optimizer.
void appendStateRows(const Plan &plan, const Formats &f, std::vector<PrecisionRow> &rows)
{
    const TrainingConfig &training = plan.training;
    // PyTorch's FSDP holds no 16-bit shard: each unit is cast from its FP32 shard as it is gathered.
    const bool fsdp = training.framework == Framework::Fsdp && f.mixed;
    if (!(f.low && training.fp8ParamGather))
        rows.push_back({precisionWords(QT_TRANSLATE_NOOP("Precision", "Parameters (working copy)")),
                        fsdp ? std::string() : f.storage, f.low ? f.half : f.matmulIn,
                        plan.parallel.zeroStage >= 3 ? f.storage : "",
                        fsdp ? precisionWords(QT_TRANSLATE_NOOP(
                                   "Precision", "cast from the FP32 shard and gathered per unit (FSDP)"))
                        : plan.parallel.zeroStage >= 3
                            ? precisionWords(QT_TRANSLATE_NOOP("Precision", "gathered per layer (ZeRO-3)"))
                            : ""});
    if (f.low)
        rows.push_back(
            {precisionWords(QT_TRANSLATE_NOOP("Precision", "Weights, quantized copies")),
             f.lowName + precisionWords(QT_TRANSLATE_NOOP("Precision", " row-wise + column-wise")), f.matmulIn,
             training.fp8ParamGather
                 ? f.lowName + precisionWords(QT_TRANSLATE_NOOP("Precision", " (parameter all-gather)"))
                 : "",
             training.fp8ParamGather
                 ? precisionWords(QT_TRANSLATE_NOOP(
                       "Precision",
                       "the layers' only working copy (fp8_param_gather; the embedding and the output layer are "
                       "kept and gathered in 16 bits); refreshed from the FP32 master each step"))
                 : precisionWords(QT_TRANSLATE_NOOP("Precision", "refreshed from the BF16 weights once per step"))});
    if (f.mixed && fsdp)
        rows.push_back({precisionWords(QT_TRANSLATE_NOOP("Precision", "Master weights")), "FP32", "FP32", "",
                        precisionWords(QT_TRANSLATE_NOOP(
                            "Precision", "the parameter shards themselves, stepped in place by the optimizer"))});
    else if (f.mixed)
        rows.push_back(
            {precisionWords(QT_TRANSLATE_NOOP("Precision", "Master weights")), "FP32", "FP32",
             f.sharded ? precisionWords(QT_TRANSLATE_NOOP("Precision", "FP32 shards (all-gather of ")) + f.half +
                             precisionWords(QT_TRANSLATE_NOOP("Precision", " copies after the step)"))
                       : "",
             precisionWords(QT_TRANSLATE_NOOP("Precision", "updated by the optimizer, copied to the working format"))});
    // Under FSDP the gradient shard is in its parameter's FP32; fp32_gradients is the reduce-scatter's dtype.
    rows.push_back({precisionWords(QT_TRANSLATE_NOOP("Precision", "Gradients")), fsdp ? "FP32" : f.grads,
                    precisionWords(QT_TRANSLATE_NOOP("Precision", "FP32 accumulation in the matmul")),
                    plan.parallel.data * plan.parallel.context > 1 ? f.grads : "",
                    plan.parallel.data * plan.parallel.context > 1
                        ? (f.sharded ? precisionWords(QT_TRANSLATE_NOOP("Precision", "reduce-scattered"))
                                     : precisionWords(QT_TRANSLATE_NOOP("Precision", "all-reduced")))
                        : ""});
    if (training.optimizer == Optimizer::Adam)
        rows.push_back({precisionWords(QT_TRANSLATE_NOOP("Precision", "Adam moments (m, v)")), "FP32", "FP32", "",
                        !plan.parallel.offloadOptimizer ? ""
                        : plan.hostOptimizerShare() < 1.0
                            ? precisionWords(QT_TRANSLATE_NOOP("Precision", "the offloaded share's in host memory"))
                            : precisionWords(QT_TRANSLATE_NOOP("Precision", "in host memory (offload)"))});
    else if (training.usesMuon())
        rows.push_back({precisionWords(training.optimizer == Optimizer::AdaptiveMuon
                                           ? QT_TRANSLATE_NOOP("Precision", "Adaptive Muon's moments")
                                           : QT_TRANSLATE_NOOP("Precision", "Muon's momentum")),
                        "FP32", precisionWords(QT_TRANSLATE_NOOP("Precision", "BF16 (Newton-Schulz)")), "",
                        muonStateWords(training)});
    else
        rows.push_back({precisionWords(QT_TRANSLATE_NOOP("Precision", "SGD momentum")), "FP32", "FP32", "", ""});
}

} // namespace

std::string muonStateWords(const TrainingConfig &training)
{
    if (!training.usesMuon())
        return {};
    const bool lion = training.muonScalarOptimizer == MuonScalarOptimizer::Lion;
    const std::string matrices =
        training.optimizer == Optimizer::AdaptiveMuon
            ? precisionWords(QT_TRANSLATE_NOOP("Precision", "momentum and elementwise second moment for the layers' "
                                                            "weight matrices"))
            : precisionWords(QT_TRANSLATE_NOOP("Precision", "momentum for the layers' weight matrices"));
    const std::string rest =
        lion ? precisionWords(QT_TRANSLATE_NOOP("Precision", "Lion's momentum for embeddings, output and norms"))
             : precisionWords(QT_TRANSLATE_NOOP("Precision", "Adam's two moments for embeddings, output and norms"));
    return matrices + "; " + rest;
}

namespace {

/// What the arithmetic reads and keeps: activations, attention, logits, accumulators, statistics, the loss.
void appendComputeRows(const Plan &plan, const Formats &f, std::vector<PrecisionRow> &rows)
{
    const TrainingConfig &training = plan.training;
    rows.push_back({precisionWords(QT_TRANSLATE_NOOP("Precision", "Activations")), f.storage, f.matmulIn,
                    plan.parallel.tensor > 1 || plan.parallel.pipeline > 1 ? f.storage : "",
                    training.recompute == Recompute::Full
                        ? precisionWords(QT_TRANSLATE_NOOP("Precision", "recomputed in backward"))
                    : training.recompute == Recompute::Selective
                        ? precisionWords(QT_TRANSLATE_NOOP("Precision", "attention core recomputed"))
                        : ""});
    if (f.low)
        rows.push_back({precisionWords(QT_TRANSLATE_NOOP("Precision", "Attention (QK^T, PV)")), f.half,
                        training.fp8Attention ? f.lowName : f.half, "",
                        training.fp8Attention
                            ? precisionWords(QT_TRANSLATE_NOOP("Precision", "FP8 dot-product attention"))
                            : precisionWords(QT_TRANSLATE_NOOP("Precision", "kept in BF16 (fp8_attention off)"))});
    if (f.low)
        rows.push_back({precisionWords(QT_TRANSLATE_NOOP("Precision", "Output projection (logits)")), f.half, f.half,
                        "", precisionWords(QT_TRANSLATE_NOOP("Precision", "outside the low-precision layers"))});
    rows.push_back({precisionWords(QT_TRANSLATE_NOOP("Precision", "Matmul accumulators")), "", "FP32", "",
                    precisionWords(QT_TRANSLATE_NOOP("Precision", "tensor-core accumulate"))});
    rows.push_back({precisionWords(QT_TRANSLATE_NOOP("Precision", "Softmax, layer norm statistics")), "", "FP32", "",
                    training.fusedKernels
                        ? precisionWords(QT_TRANSLATE_NOOP("Precision", "inside fused kernels"))
                        : precisionWords(QT_TRANSLATE_NOOP("Precision", "unfused: upcast to FP32 tensors"))});
    rows.push_back({precisionWords(QT_TRANSLATE_NOOP("Precision", "Loss and logits")), "", "FP32",
                    plan.parallel.tensor > 1
                        ? precisionWords(QT_TRANSLATE_NOOP("Precision", "FP32 (vocab-parallel cross-entropy)"))
                        : "",
                    ""});
}

} // namespace

PrecisionPolicy precisionPolicy(const Plan &plan)
{
    const Formats f = formatsOf(plan);
    PrecisionPolicy policy;
    appendStateRows(plan, f, policy.rows);
    appendComputeRows(plan, f, policy.rows);
    appendScaleRow(plan.training.precision, plan.training.fp8Recipe, policy.rows);
    policy.lossScaling = lossScaling(plan.training.precision);
    return policy;
}

} // namespace trainplan::io
