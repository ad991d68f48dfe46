#include "core/compute/Op.h"

#include <cmath>

namespace trainplan {

void timeOp(Op &op, const DeviceSpec &device, Precision precision, double attentionShare)
{
    // Element-wise, norm and embedding kernels do their few FLOPs on the vector units at the rate of the
    // storage format; counting their FLOPs against the tensor-core peak would only understate them, and
    // they are bandwidth-bound by orders of magnitude either way.
    const bool tensorCore = op.kind == OpKind::Matmul || op.kind == OpKind::Attention;
    double compute = tensorCore ? device.matmulEfficiency.seconds(op.flops, device.peakFlops(precision)) : 0.0;
    if (op.kind == OpKind::Attention && device.attentionEfficiency > 0)
        compute /= device.attentionEfficiency * (attentionShare > 0 ? attentionShare : 1.0);
    if (tensorCore && isLowPrecisionMatmul(precision) && device.lowPrecisionShare(precision) > 0)
        compute /= device.lowPrecisionShare(precision);
    const double memory = device.memoryEfficiency.seconds(op.bytes, device.memoryBandwidthBytesPerSecond);
    op.memoryBound = memory > compute;
    op.seconds = op.memoryBound ? memory : compute;
}

double flash2KernelHeadDim(double headDim)
{
    if (!(headDim > 0))
        return headDim;
    const double rounded = 32.0 * std::ceil(headDim / 32.0);
    return rounded <= 192.0 ? rounded : 256.0 * std::ceil(headDim / 256.0);
}

} // namespace trainplan
