#include "core/memory/MemoryTerms.h"

namespace trainplan {

namespace {

constexpr std::array<TermInfo, kOtherTermCount> kOther{{
    {"runtime_context_bytes", "CUDA context"},
    {"data_parallel_buckets_bytes", "Gradient buckets"},
    {"pipeline_buffers_bytes", "Pipeline buffers"},
    {"zero3_gathered_parameters_bytes", "ZeRO-3 gathered"},
    {"recompute_workspace_bytes", "Recompute workspace"},
    {"context_kv_buffers_bytes", "Context KV buffers"},
    {"optimizer_workspace_bytes", "Optimizer workspace"},
    {"allocator_reserve_bytes", "Allocator overhead"},
    {"backward_workspace_bytes", "Backward workspace"},
    {"framework_buffers_bytes", "Framework buffers"},
    {"nccl_buffers_bytes", "NCCL buffers"},
    {"library_workspaces_bytes", "Library workspaces"},
    {"loss_workspace_bytes", "Loss workspace"},
    {"deferred_weight_gradients_bytes", "Deferred wgrad buffers"},
}};

constexpr std::array<TermInfo, kStateTermCount> kState{{
    {"parameters_bytes", "Parameters"},
    {"gradients_bytes", "Gradients"},
    {"optimizer_bytes", "Optimizer state"},
    {"activations_bytes", "Activations"},
}};

} // namespace

const TermInfo &termInfo(OtherTerm term)
{
    return kOther[std::size_t(term)];
}

const TermInfo &termInfo(StateTerm term)
{
    return kState[std::size_t(term)];
}


const char *publishedAs(MemoryKind kind)
{
    switch (kind) {
    case MemoryKind::Allocated:
        return "torch.cuda.max_memory_allocated (the tensors)";
    case MemoryKind::Reserved:
        return "torch.cuda.max_memory_reserved (the caching allocator's segments)";
    case MemoryKind::Device:
        return "nvidia-smi / DCGM (everything on the device)";
    }
    return "";
}

const char *labelOf(MemoryKind kind)
{
    switch (kind) {
    case MemoryKind::Allocated:
        return "Allocated";
    case MemoryKind::Reserved:
        return "Reserved";
    case MemoryKind::Device:
        return "Device used";
    }
    return "";
}

} // namespace trainplan
