#include "io/output/MemoryTermSources.h"

#include <array>

namespace trainplan::io {

namespace {

// In OtherTerm's order.
constexpr std::array<MemoryTermSource, kOtherTermCount> kOtherSources{{
    {"device runtime_context_bytes (the CUDA/HIP context and its loaded kernel modules), or the plan's cluster "
     "override; outside the caching allocator",
     "assumption per device in resources/devices.json"},
    {"deepspeed: 2 x reduce bucket (5e8 elements x q_g, capped by the gradients) when data x context > 1 and "
     "zero_stage < 3, one being reduced and one filled (overlap_comm); megatron: 0, its buckets are views of the "
     "contiguous gradient buffer; fsdp: in the gathered term",
     "DeepSpeed ZeRO reduce_bucket_size default; Megatron-Core DistributedDataParallel param_and_grad_buffer"},
    {"2 x q s b h (/ t with sequence parallelism) when pipeline > 1: one activation received, one sent; fsdp "
     "(PyTorch's pipelining): a receive buffer per micro-batch and chunk for the activations and for their "
     "gradients, and each in-flight micro-batch's output until its backward",
     "point-to-point boundary tensors (Narayanan et al. 2021); torch/distributed/pipelining/stage.py "
     "(_prepare_forward_infra, _create_grad_recv_info, fwd_cache)"},
    {"(2 q_p + q_g) x largest unit's parameters per tensor rank when zero_stage = 3 and data > 1: the unit in use, "
     "the prefetched unit, and its full gradient before reduce-scatter (fsdp: + q_p, the gradient in the "
     "parameters' dtype beside its reduce-dtype copy; without resharding every block of the stage stays gathered, "
     "and inside pipeline stages the unsharded gradients accumulate in FP32)",
     "ZeRO-3 parameter gathering (Rajbhandari et al. 2020); FSDP per-block units"},
    {"full: one layer's un-recomputed activations for one micro-batch; selective: that layer's attention scores",
     "activation recomputation (Chen et al. 2016; Korthikanti et al. 2022)"},
    {"context > 1: ring 4 x q (s/c) b 2 kv / t (a K, V block and its gradients in hand and one in flight); "
     "all-gather 2 x q s b 2 kv / t (the gathered K, V and their gradients); all-to-all 2 x q (s/c) b (2h + 2kv) / "
     "t",
     "context parallelism (Liu et al. 2023; Llama Team 2024 Sec. 3.3.2; Jacobs et al. 2023)"},
    {"4 bytes x local optimizer-shard parameters during the step, when 16-bit gradients are upcast for the FP32 "
     "master update (0 with fp32 gradients or offload); optimizer_kernel foreach with Adam: + 4 bytes x those "
     "parameters, the square roots of the second moments torch.optim.AdamW's foreach path makes at once; Muon: + "
     "4 bytes x (2mn + 2m^2) for the largest m x n matrix the rank iterates on (X and B X, X X^T and its square), "
     "+ 4mn for its momentum gathered over tensor ranks in duplicated mode",
     "mixed-precision master-weight update (Micikevicius et al. 2018); PyTorch torch/optim/adamw.py "
     "(_multi_tensor_adamw); Jordan et al. 2024 (Muon's Newton-Schulz iteration)"},
    {"reserved - allocated: block rounding of every live activation tensor (512 B; 1-10 MiB requests share 20 MiB "
     "segments; larger ones round to 2 MiB) + fragmentation: each micro-batch held while later ones allocate and "
     "free pins a share of its blocks (share x stored activations of one micro-batch x (in flight - 1); none under "
     "GPipe, whose frees follow every allocation; page rounding only with expandable_segments) + at the optimizer "
     "step the freed activation segments kept when its requests do not fit them; or allocator_reserve_fraction x "
     "dynamic memory",
     "PyTorch CUDACachingAllocator (kMinBlockSize, kSmallBuffer, kLargeBuffer, kRoundLarge); pinned share fitted on "
     "the zero-bubble pipeline runs (Qi et al. 2024, docs/CALIBRATION.md)"},
    {"the gradients one layer's backward holds at once: 2 q b (s/c) (a s / t when the scores are stored + ffn / t)",
     "autograd's transient activation gradients (the softmax and MLP-intermediate gradients dominate)"},
    {"deepspeed: the ZeRO-1/2 all-gather bucket of updated parameters (5e8 elements x q_p, capped) at the optimizer "
     "step; megatron and fsdp: 0 (gathers land in their parameter buffers)",
     "DeepSpeed ZeRO allgather_bucket_size default"},
    {"per communicator this rank uses (tensor, context, data x context, expert, expert-data): channels x (4 MiB "
     "Simple + 4.7 MiB LL128 + 0.5 MiB LL), 16 channels inside the scale-up domain, 8 across it; pipeline: 2 "
     "channels x 4 MiB per neighbour stage; with the DeepEP dispatcher its NVLink and RDMA buffers (10 channels x "
     "peers x chunked receive tokens x (hidden + top-k metadata))",
     "NCCL defaults (NCCL_BUFFSIZE, LL128 and LL buffer sizes; typical channel counts); DeepEP csrc/config.hpp "
     "buffer size hints; outside the caching allocator"},
    {"cuBLAS/cuBLASLt and Transformer Engine workspaces: 3 x 32 MiB on FP8-capable GPUs (Hopper, Blackwell), 3 x 4 "
     "MiB before",
     "PyTorch's default CUBLAS_WORKSPACE_CONFIG per compute capability"},
    {"last stage, at the loss: what the cross-entropy holds beyond the FP32 logits the activations count, per logit "
     "((s/c) b V / t of them): inplace 2 bytes (the 16-bit logits beside Megatron's in-place FP32 copy), eager 8 "
     "(log-softmax's saved output, its gradient and the input's gradient live at once in its backward; 12 under "
     "DTensor's loss parallel), fused 0",
     "Megatron-Core tensor_parallel/cross_entropy.py (in-place softmax); PyTorch log_softmax backward "
     "(_log_softmax_backward_data); torchtitan train.py at 9dec370 (eager loss_fn on pred.float())"},
    {"last stage, with defer_embedding_wgrad: for each deferred micro-batch (wgrad_deferral_limit, or all of a "
     "run's) q ((s/c) b V / t + (s/c) b h (/ t with sequence parallelism)): the logit gradients and the output "
     "layer's input kept until its weight-gradient GEMMs run in the drain",
     "Megatron-Core tensor_parallel/layers.py (grad_output_buffer), models/gpt/gpt_model.py "
     "(embedding_activation_buffer), pipeline_parallel/schedules.py (finish_embedding_wgrad_compute) at d98e8a6"},
}};

// In StateTerm's order.
constexpr std::array<MemoryTermSource, kStateTermCount> kStateSources{{
    {"stage parameters per tensor rank x q_p, / (data x context) when zero_stage = 3; 0 on the GPU with "
     "offload_parameters",
     "reference text Level 3; Rajbhandari et al. 2020; Rajbhandari et al. 2021 (ZeRO-Infinity)"},
    {"stage parameters per tensor rank x q_g, / (data x context) when zero_stage >= 2",
     "reference text Level 3; Rajbhandari et al. 2020"},
    {"stage parameters per tensor rank x q_o (Adam: 12 with 16-bit parameters, 8 in fp32; the moments at 2 bytes "
     "each in bf16 or fp16 and 1 in fp8, the master copy at 2 in bf16 or fp16: optimizer_moments, master_weights), "
     "/ (data x context) when zero_stage >= 1; 0 on the GPU when offloaded",
     "reference text Level 3; Rajbhandari et al. 2020; Apex DistributedFusedAdam (dtype); Megatron-Core "
     "precision-aware optimizer"},
    {"layers per stage x per-layer activations x micro-batches in flight, + embedding (first stage) + logits and "
     "output inputs (last stage); zero-bubble schedules: + the micro-batches waiting for their weight gradient "
     "where the stage's order holds the most, each every linear's input and output gradient (16 h s b elements "
     "per GPT layer); / context (each rank holds s / c tokens); a hybrid pattern counts per block (attention, "
     "Mamba-2, MLP) instead of per layer",
     "Korthikanti et al. 2022, Table 2, Eq. 5 and Sec. 4.3; Qi et al. 2024 (the fork's WeightGradStore); "
     "Megatron-Core mamba_mixer.py and Dao & Gu 2024 (the Mamba-2 block's saved tensors)"},
}};

} // namespace

const MemoryTermSource &memoryTermSource(OtherTerm term)
{
    return kOtherSources[std::size_t(term)];
}

const MemoryTermSource &memoryTermSource(StateTerm term)
{
    return kStateSources[std::size_t(term)];
}

} // namespace trainplan::io
