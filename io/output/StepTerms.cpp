#include "io/output/StepTerms.h"

namespace trainplan::io {

namespace {

// Symbols as in docs/PLAN_FORMAT.md: m micro-batches per replica (global batch / (data x micro_batch)),
// p pipeline stages, v virtual stages, L the pace stage's layers, t tensor, s b h the sequence, micro-batch
// and hidden sizes, q the activations' bytes per element; AR/AG/RS/A2A the collective's time on its group's
// link (ring: (n-1) latency + (n-1)/n x bytes / bandwidth per pass, an all-reduce twice that; NCCL's tree
// where faster; core/comm/Collectives).
constexpr std::array<StepTermInfo, kStepPartCount> kTerms{{
    {"m x the pace stage's forward per micro-batch: L layers (+ the embedding on the first stage, the output layer and "
     "loss on the last), each op max(FLOPs / (peak x matmul efficiency at its size), bytes / (HBM bandwidth x memory "
     "efficiency)), attention at the device's attention efficiency, FP8/FP4 matmuls at their share of the FP8 peak, "
     "per-expert GEMMs one fixed cost per 4 local experts (Transformer Engine's four GEMM streams); with "
     "moe_paged_stash a copy of the experts' saved tensors into pages, 2x their bytes at HBM bandwidth; Mamba-2 "
     "blocks: projections, conv1d, SSD scan kernel by kernel; MTP modules on the last stage",
     "roofline per kernel (Williams et al. 2009); the reference text's FLOP counts (Narayanan et al. 2021, "
     "Sec. 5.1); efficiencies per device fitted on published runs (docs/CALIBRATION.md); Megatron-Core "
     "moe/paged_stash.py, ssm/mamba_mixer.py, mamba_ssm ssd_combined.py; Dao & Gu 2024"},
    {"m x the pace stage's backward per micro-batch: the input and weight gradients of every forward op (about twice "
     "its FLOPs), timed like the forward; with moe_paged_stash the copy of the experts' saved tensors back",
     "backward = 2 x forward matmul FLOPs (Narayanan et al. 2021, Sec. 5.1); docs/CALIBRATION.md"},
    {"m x the forward ops replayed before backward: the whole forward of the recomputed layers (full, "
     "recompute_layers of them), the attention core or the chosen modules of every layer (selective)",
     "activation recomputation (Chen et al. 2016); selective recomputation (Korthikanti et al. 2022)"},
    {"m x (L x (forward + backward + replayed forward) + the embedding's and output layer's) passes, each 2 AR of "
     "s b h q over the tensor group (sequence parallel: 2 x (AG + RS) of the same tensor, Megatron-Core's all-gathers "
     "in the FP8/FP4 recipe's format; its backward adds the row-parallel output gradients' AG and runs the "
     "column-parallel AG + RS beside the GEMMs); with tensor_comm_overlap "
     "a pass costs max(0, comm - its linear GEMMs) + 0.15 x the hidden part (FSDP2's async TP: 0.44 of that saving), "
     "all of it on Hopper beside the expert overlap or Megatron-FSDP (one hardware queue needed, more taken). "
     "A MoE layer: its attention block's "
     "(and shared experts'), + with expert tensor ranks AG + RS of the k routed copies they gather, not overlapped",
     "Shoeybi et al. 2019; Korthikanti et al. 2022; Transformer Engine linear.py (quantized and asynchronous "
     "gathers); the hidden part's slowdown: Wang et al. 2023 (10-20%); "
     "async TP's share: torchtitan benchmarks/asyncTP_llama3_h100_2025-06 and llama3_h100_202412 Table 4; "
     "the queues: megatron/core/tensor_parallel/layers.py, Megatron-Bridge scripts/performance/perf_plugins.py; "
     "Megatron-Core token_dispatcher.py (the expert tensor ranks' gather)"},
    {"m x L x (forward + backward + replayed forward) exchanges of K and V: ring, c - 1 steps each exposed by what its "
     "transfer takes beyond its attention block; all-gather of the whole sequence's K, V (and reduce-scatter of "
     "their gradients); all-to-all of Q, K, V and the context",
     "Liu et al. 2023 (Ring Attention); Llama Team 2024, Sec. 3.3.2; Jacobs et al. 2023 (Ulysses)"},
    {"m x MoE layers x (dispatch + combine) per pass: the busiest rank's k routed copies (DeepEP/HybridEP: one per "
     "destination node, latent-wide in a latent MoE) over the expert group's links, A2A; with expert_comm_overlap "
     "each hides beside another micro-batch's compute and costs that compute the dispatcher's SMs",
     "Lepikhin et al. 2021; Megatron-Core token_dispatcher.py, moe_layer.py and model_chunk_schedule_plan.py; DeepEP"},
    {"bubble + m x 2 x v x (one activation of s b h q / t to the next stage + the schedule step): analytic bubble "
     "(p - 1) / v x the slowest stage's micro-batch (ZB-H1 without its weight gradients, ZB-H2 without three "
     "times them: F + B - 2W), or the simulated "
     "schedule's makespan beyond m micro-batches",
     "Narayanan et al. 2021 (1F1B, interleaving, scatter/gather); Qi et al. 2024 (zero bubble); the schedule "
     "step fitted per device (docs/CALIBRATION.md)"},
    {"the gradient reduction (ZeRO 0-2: buckets as the backward fills them, the last one exposed; ZeRO-3: each "
     "unit's gathers and reduce-scatter beside its compute) beyond the compute it hides behind, + the slowdown the "
     "hidden part's SMs and HBM traffic cause, + FP8 amax all-reduces",
     "Li et al. 2020 (PyTorch DDP buckets); Rajbhandari et al. 2020 (ZeRO); Zhao et al. 2023 (FSDP); NCCL SMs: "
     "Megatron-Core nccl_ub; Transformer Engine fp8.py"},
    {"the optimizer step over this rank's shard of the parameters (/ the shard ranks with ZeRO >= 1): its state "
     "bytes read and written at HBM bandwidth (a fused Adam once each; torch's foreach AdamW 4p + 2g + 14m bytes, a "
     "per-parameter loop 4p + 2g + 16m, for parameter, gradient and moment sizes p, g, m), + the low-precision "
     "weight copies' refresh; offloaded: gradients to "
     "the host (after the backward under Megatron-Core, what outlasts the last backward under DeepSpeed and FSDP2), "
     "the host's update at 0.7 of its DRAM bandwidth shared by the node's GPUs, and the parameters back; Muon: + "
     "steps x (4m^2 n + 2m^3) FLOPs of Newton-Schulz matmuls on every m x n weight matrix the rank owns (whole "
     "matrices, about 1/d of them with the distributed optimizer; m the Gram side of the shape the tensor mode "
     "leaves the rank) and its tensor-parallel exchange: the momentum's all-gather (duplicated), the Gram matrix's "
     "all-reduce each iteration (distributed)",
     "Kingma and Ba 2015 (Adam); torch/optim/adamw.py _multi_tensor_adamw; Composer DecoupledAdamW; Ren et al. "
     "2021 (ZeRO-Offload); Megatron-Core hybrid_optimizer.py; STREAM Triad "
     "(McCalpin); Jordan et al. 2024 (Muon); Megatron-Core layer_wise_optimizer.py, emerging_optimizers.py"},
    {"m x what the host's kernel launches of a pass take beyond the pass's kernels (per launch the host's launch "
     "cost; a dropless MoE layer waits for its token counts: a pass of its own; CUDA graphs replay the launches)",
     "Megatron-Core token_dispatcher.py (the host sync before the all-to-all); launch cost per host fitted "
     "(docs/CALIBRATION.md)"},
    {"m x what each offloaded layer's copy to the host and back over the host link takes beyond the layer's "
     "compute it runs beside",
     "Megatron-Core cpu_offloading (--cpu-offloading-num-layers); the host link per device"},
    {"0: every second of the step is in one of the parts above",
     "core/step/StepModel (the category is kept for plans that add a term without a part of its own)"},
}};

} // namespace

const StepTermInfo &stepTermInfo(StepPart part)
{
    return kTerms[std::size_t(part)];
}

} // namespace trainplan::io
