#include "core/memory/MemoryTerms.h"

namespace trainplan {

namespace {

constexpr std::array<TermInfo, kOtherTermCount> kOther{{
    {"runtime_context_bytes", "Runtime context",
     "device runtime_context_bytes (CUDA/HIP context, cuBLAS and NCCL workspaces), or the plan's cluster override",
     "assumption per device in resources/devices.json"},
    {"data_parallel_buckets_bytes", "Gradient buckets",
     "2 x bucket_bytes when data x context > 1 and zero_stage < 3: one bucket being all-reduced, one being filled",
     "PyTorch DDP gradient bucketing (Li et al. 2020)"},
    {"pipeline_buffers_bytes", "Pipeline buffers",
     "2 x q s b h (/ t with sequence parallelism) when pipeline > 1: one activation received, one sent",
     "point-to-point boundary tensors (Narayanan et al. 2021)"},
    {"zero3_gathered_parameters_bytes", "ZeRO-3 gathered",
     "(2 q_p + q_g) x largest unit's parameters per tensor rank when zero_stage = 3 and data > 1: the unit in use, "
     "the prefetched unit, and its full gradient before reduce-scatter",
     "ZeRO-3 parameter gathering (Rajbhandari et al. 2020); FSDP per-block units"},
    {"recompute_workspace_bytes", "Recompute workspace",
     "full: one layer's un-recomputed activations for one micro-batch; selective: that layer's attention scores",
     "activation recomputation (Chen et al. 2016; Korthikanti et al. 2022)"},
    {"context_kv_buffers_bytes", "Context KV buffers",
     "context > 1: ring 4 x q (s/c) b 2 kv / t (a K, V block and its gradients in hand and one in flight); "
     "all-gather 2 x q s b 2 kv / t (the gathered K, V and their gradients); all-to-all 2 x q (s/c) b (2h + 2kv) / t",
     "context parallelism (Liu et al. 2023; Llama Team 2024 Sec. 3.3.2; Jacobs et al. 2023)"},
    {"optimizer_workspace_bytes", "Optimizer workspace",
     "4 bytes x local optimizer-shard parameters during the step, when 16-bit gradients are upcast for the FP32 "
     "master update (0 with fp32 gradients or offload)",
     "mixed-precision master-weight update (Micikevicius et al. 2018)"},
    {"allocator_reserve_bytes", "Allocator reserve",
     "allocator_reserve_fraction x the phase's dynamic memory (activations and transient buffers)",
     "caching-allocator fragmentation; explicit plan assumption, default 5%"},
}};

constexpr std::array<TermInfo, kStateTermCount> kState{{
    {"parameters_bytes", "Parameters",
     "stage parameters per tensor rank x q_p, / (data x context) when zero_stage = 3",
     "reference text Level 3; Rajbhandari et al. 2020"},
    {"gradients_bytes", "Gradients",
     "stage parameters per tensor rank x q_g, / (data x context) when zero_stage >= 2",
     "reference text Level 3; Rajbhandari et al. 2020"},
    {"optimizer_bytes", "Optimizer state",
     "stage parameters per tensor rank x q_o (Adam: 12 with 16-bit parameters, 8 in fp32), / (data x context) when "
     "zero_stage >= 1; 0 on the GPU when offloaded",
     "reference text Level 3; Rajbhandari et al. 2020"},
    {"activations_bytes", "Activations",
     "layers per stage x per-layer activations x micro-batches in flight, + embedding (first stage) "
     "+ logits and output inputs (last stage); / context (each rank holds s / c tokens)",
     "Korthikanti et al. 2022, Table 2, Eq. 5 and Sec. 4.3"},
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

} // namespace trainplan
