#include "ui/document/PlanField.h"

namespace trainplan {

QString labelOf(PlanField field)
{
    switch (field) {
    case PlanField::Layers: return QCoreApplication::translate("PlanField", "layers");
    case PlanField::Hidden: return QCoreApplication::translate("PlanField", "hidden size");
    case PlanField::Heads: return QCoreApplication::translate("PlanField", "attention heads");
    case PlanField::KvHeads: return QCoreApplication::translate("PlanField", "key/value heads");
    case PlanField::FfnHidden: return QCoreApplication::translate("PlanField", "MLP width");
    case PlanField::Vocab: return QCoreApplication::translate("PlanField", "vocabulary");
    case PlanField::SeqLen: return QCoreApplication::translate("PlanField", "sequence length");
    case PlanField::Mlp: return QCoreApplication::translate("PlanField", "MLP kind");
    case PlanField::GlobalBatch: return QCoreApplication::translate("PlanField", "global batch");
    case PlanField::MicroBatch: return QCoreApplication::translate("PlanField", "micro-batch");
    case PlanField::Precision: return QCoreApplication::translate("PlanField", "precision");
    case PlanField::Optimizer: return QCoreApplication::translate("PlanField", "optimizer");
    case PlanField::Recompute: return QCoreApplication::translate("PlanField", "recomputation");
    case PlanField::SequenceParallel: return QCoreApplication::translate("PlanField", "sequence parallelism");
    case PlanField::FlashAttention: return QCoreApplication::translate("PlanField", "flash attention");
    case PlanField::FusedKernels: return QCoreApplication::translate("PlanField", "kernel fusion");
    case PlanField::Tensor: return QCoreApplication::translate("PlanField", "tensor parallelism");
    case PlanField::Pipeline: return QCoreApplication::translate("PlanField", "pipeline stages");
    case PlanField::VirtualStages: return QCoreApplication::translate("PlanField", "virtual stages");
    case PlanField::Schedule: return QCoreApplication::translate("PlanField", "pipeline schedule");
    case PlanField::ZeroStage: return QCoreApplication::translate("PlanField", "ZeRO stage");
    case PlanField::OffloadOptimizer: return QCoreApplication::translate("PlanField", "optimizer offload");
    case PlanField::Device: return QCoreApplication::translate("PlanField", "device");
    case PlanField::GpusPerNode: return QCoreApplication::translate("PlanField", "GPUs per node");
    case PlanField::Nodes: return QCoreApplication::translate("PlanField", "nodes");
    }
    return {};
}

} // namespace trainplan
