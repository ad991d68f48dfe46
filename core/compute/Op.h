#pragma once
// One kernel of a training step with its real shape after the tensor/sequence split: FLOPs and bytes
// moved to and from HBM, and its time on a device.

#include <cstdint>

#include "core/hardware/DeviceSpec.h"
#include "core/common/Precision.h"

namespace trainplan {

enum class OpKind { Matmul, Attention, Elementwise, Norm, Embedding, Loss, Optimizer };
enum class OpPass { Forward, Backward, Recompute };
/// Which part of the model an op belongs to; multiplies it by the layers of a stage or places it on
/// the first/last stage.
enum class OpScope { Layer, Embedding, Output, Step };

struct Op
{
    const char *name = "";
    OpKind kind = OpKind::Elementwise;
    OpPass pass = OpPass::Forward;
    OpScope scope = OpScope::Layer;
    double flops = 0;
    double bytes = 0;
    double seconds = 0; ///< filled by timeOp()
    bool memoryBound = false;

    double intensity() const { return bytes > 0 ? flops / bytes : 0.0; }
};

/// Time of one op: the larger of FLOPs / (peak x matmul efficiency) and bytes / (HBM bandwidth x memory
/// efficiency), each efficiency depending on the op's size (DeviceSpec::EfficiencyCurve).
void timeOp(Op &op, const DeviceSpec &device, Precision precision);

const char *toString(OpKind kind);
const char *toString(OpPass pass);

} // namespace trainplan
