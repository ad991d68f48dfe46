#pragma once
// The editable fields of a plan: undo-command ids (so edits of one field merge) and their labels.

#include <QCoreApplication>
#include <QString>

namespace trainplan {

enum class PlanField {
    Layers = 1, Hidden, Heads, KvHeads, FfnHidden, Vocab, SeqLen, Mlp,
    GlobalBatch, MicroBatch, Precision, Optimizer, Recompute, SequenceParallel, FlashAttention, FusedKernels,
    Tensor, Pipeline, VirtualStages, Schedule, ZeroStage, OffloadOptimizer,
    Device, GpusPerNode, Nodes,
};

/// "sequence length", for "Change sequence length" in the Undo menu.
QString labelOf(PlanField field);

} // namespace trainplan
