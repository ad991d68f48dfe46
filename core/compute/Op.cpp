#include "core/compute/Op.h"

#include <algorithm>
#include <cmath>

namespace trainplan {

double kernelsInSeries(const Op &op)
{
    // Per-expert GEMMs: `batch` kernels per pass (the backward's input and weight gradients calibrated as one).
    const bool perExpert = op.kind == OpKind::Matmul && op.batch > 1.0 && op.concurrentKernels > 0.0;
    return perExpert ? std::max(1.0, op.batch / op.concurrentKernels) : 1.0;
}

void timeOp(Op &op, const DeviceSpec &device, Precision precision, double attentionShare, double matmulShare)
{
    // Element-wise, norm and embedding kernels do their few FLOPs on the vector units at the rate of the
    // storage format; counting their FLOPs against the tensor-core peak would only understate them, and
    // they are bandwidth-bound by orders of magnitude either way.
    const bool tensorCore = op.kind == OpKind::Matmul || op.kind == OpKind::Attention;
    const double peak = device.peakFlops(precision);
    // Per-expert GEMMs pay each kernel's fixed cost (the curves' half sizes) once per kernel in series.
    const double moreKernels = kernelsInSeries(op) - 1.0;
    const EfficiencyCurve &mm = device.matmulEfficiency;
    double compute = tensorCore ? mm.seconds(op.flops, peak) : 0.0;
    if (tensorCore && peak > 0)
        compute += moreKernels * mm.halfSize / (peak * mm.max);
    if (op.kind == OpKind::Attention && device.attentionEfficiency > 0)
        compute /= device.attentionEfficiency * (attentionShare > 0 ? attentionShare : 1.0);
    if (op.kind == OpKind::Matmul && matmulShare > 0)
        compute /= matmulShare;
    if (tensorCore && isLowPrecisionMatmul(precision) && device.lowPrecisionShare(precision) > 0)
        compute /= device.lowPrecisionShare(precision);
    const EfficiencyCurve &hbm = device.memoryEfficiency;
    const double bandwidth = device.memoryBandwidthBytesPerSecond;
    double memory = hbm.seconds(op.bytes, bandwidth);
    if (op.bytes > 0 && bandwidth > 0)
        memory += moreKernels * hbm.halfSize / (bandwidth * hbm.max);
    op.memoryBound = memory > compute;
    op.seconds = op.memoryBound ? memory : compute;
}

double attentionKernelShare(AttentionKernel kernel, const DeviceSpec &device)
{
    switch (kernel) {
    case AttentionKernel::Fused:
        return 1.0;
    case AttentionKernel::Flash2:
        return device.flash2AttentionShare;
    case AttentionKernel::Triton:
        return device.flash2AttentionShare / kFlash2OverTritonSpeed;
    }
    return 1.0;
}

double kernelHeadDim(AttentionKernel kernel, double headDim)
{
    if (!(headDim > 0))
        return headDim;
    if (kernel == AttentionKernel::Flash2)
        return headDim <= 192.0 ? 32.0 * std::ceil(headDim / 32.0) : 256.0 * std::ceil(headDim / 256.0);
    if (kernel == AttentionKernel::Triton)
        return std::max(16.0, std::exp2(std::ceil(std::log2(headDim))));
    return headDim;
}

} // namespace trainplan
