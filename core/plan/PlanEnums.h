#pragma once
// The plan's own choices that are not shapes or sizes, each with its names (core/common/EnumNames.h).

#include <array>

#include "core/common/EnumNames.h"

namespace trainplan {

/// Muon (Jordan et al. 2024, kellerjordan.github.io/posts/muon): momentum orthogonalised by Newton-Schulz
/// iterations for the layers' weight matrices, Adam for embeddings, the output layer and 1-D parameters
/// (Megatron-Core's emerging_optimizers.py, _is_muon_excluded). Adaptive Muon (Megatron-LM --optimizer
/// adaptive_muon, Emerging-Optimizers' AdaptiveMuon): Muon with an elementwise second moment kept like Adam's
/// after the orthogonalisation (moment2_method "adamuon", Megatron-Core's default, optimizer_config.py
/// adaptive_muon_moment2_method; Si et al. 2025, arXiv 2507.11005).
enum class Optimizer { Adam, Sgd, Muon, AdaptiveMuon };
constexpr auto enumNames(Optimizer)
{
    using N = EnumName<Optimizer>;
    return std::array{N{Optimizer::Adam, "adam", "Adam"}, N{Optimizer::Sgd, "sgd", "SGD (momentum)"},
                      N{Optimizer::Muon, "muon", "Muon (Adam for embeddings)"},
                      N{Optimizer::AdaptiveMuon, "adaptive_muon", "Adaptive Muon (Muon + Adam's second moment)"}};
}
inline const char *toString(Optimizer v) { return spellingOf(v); }
/// Optimizers that keep two moments per parameter: Adam, and Adaptive Muon (for its matrices too).
constexpr bool keepsTwoMoments(Optimizer v) { return v == Optimizer::Adam || v == Optimizer::AdaptiveMuon; }

/// How Muon orthogonalises a tensor-parallel weight (Megatron-LM --muon-tp-mode): duplicated gathers the
/// whole matrix on every tensor rank and iterates on it there; blockwise iterates on each rank's shard alone;
/// distributed iterates on the whole matrix with each rank's shard, all-reducing the Gram matrix each iteration.
enum class MuonTpMode { Duplicated, Blockwise, Distributed };
constexpr auto enumNames(MuonTpMode)
{
    using N = EnumName<MuonTpMode>;
    return std::array{N{MuonTpMode::Duplicated, "duplicated", "Duplicated (whole)"},
                      N{MuonTpMode::Blockwise, "blockwise", "Blockwise (own block)"},
                      N{MuonTpMode::Distributed, "distributed", "Distributed (sharded)"}};
}
inline const char *toString(MuonTpMode v) { return spellingOf(v); }

/// The optimizer Muon and Adaptive Muon leave the embeddings, the output layer and 1-D parameters to (Megatron-LM
/// --muon-scalar-optimizer, optimizer_config.py muon_scalar_optimizer): Adam's two moments, or Lion's one momentum
/// (Emerging-Optimizers scalar_optimizers Lion, a SingleMomentumOptimizer).
enum class MuonScalarOptimizer { Adam, Lion };
constexpr auto enumNames(MuonScalarOptimizer)
{
    using N = EnumName<MuonScalarOptimizer>;
    return std::array{N{MuonScalarOptimizer::Adam, "adam", "Adam (two moments)"},
                      N{MuonScalarOptimizer::Lion, "lion", "Lion (one momentum)"}};
}
inline const char *toString(MuonScalarOptimizer v) { return spellingOf(v); }

/// Recomputation: none; selective (Megatron-Core's: the attention core and the named modules); ops
/// (torchtitan's op-level selective checkpointing: each layer keeps the attention's output and every other
/// matmul's, and replays the rest in backward); full (each layer keeps its input only).
enum class Recompute { None, Selective, Ops, Full };
constexpr auto enumNames(Recompute)
{
    using N = EnumName<Recompute>;
    return std::array{N{Recompute::None, "none", "None"}, N{Recompute::Selective, "selective", "Selective (attention)"},
                      N{Recompute::Ops, "ops", "Op-level (every other matmul)"},
                      N{Recompute::Full, "full", "Full"}};
}
inline const char *toString(Recompute v) { return spellingOf(v); }

/// Pipeline schedules: GPipe (Huang et al. 2019), 1F1B (Narayanan et al. 2019), interleaved 1F1B
/// (Narayanan et al. 2021), and Qi et al.'s handcrafted zero-bubble schedules (ICLR 2024, Sec. 3, Figure 3,
/// Table 1), which split the backward into the input gradient B and the weight gradient W: ZB-H1 at 1F1B's
/// memory, ZB-H2 holding up to 2p - 1 micro-batches on the first stage to take the rest of the bubble.
enum class Schedule { GPipe, OneFOneB, Interleaved, ZeroBubbleH1, ZeroBubbleH2 };
constexpr auto enumNames(Schedule)
{
    using N = EnumName<Schedule>;
    return std::array{N{Schedule::GPipe, "gpipe", "GPipe"}, N{Schedule::OneFOneB, "1f1b", "1F1B"},
                      N{Schedule::Interleaved, "interleaved", "Interleaved 1F1B"},
                      N{Schedule::ZeroBubbleH1, "zb-h1", "Zero bubble (ZB-H1)"},
                      N{Schedule::ZeroBubbleH2, "zb-h2", "Zero bubble, 2p in flight (ZB-H2)"}};
}
inline const char *toString(Schedule v) { return spellingOf(v); }
/// The zero-bubble schedules, which run the weight gradients W apart from the input gradients B.
constexpr bool splitsBackward(Schedule s) { return s == Schedule::ZeroBubbleH1 || s == Schedule::ZeroBubbleH2; }

/// How context-parallel ranks share keys and values (parallel.context_comm): ring attention passes KV
/// blocks around the group, overlapped with the attention blocks (Liu et al. 2023; Megatron-Core's
/// default "p2p"); all-gather collects the whole KV before attention (Llama Team 2024, Sec. 3.3.2);
/// all-to-all exchanges sequence shards for head shards (DeepSpeed-Ulysses, Jacobs et al. 2023).
enum class ContextComm { Ring, AllGather, AllToAll };
constexpr auto enumNames(ContextComm)
{
    using N = EnumName<ContextComm>;
    return std::array{N{ContextComm::Ring, "ring", "Ring (KV blocks passed, overlapped)"},
                      N{ContextComm::AllGather, "all-gather", "All-gather KV"},
                      N{ContextComm::AllToAll, "all-to-all", "All-to-all (heads exchanged)"}};
}
inline const char *toString(ContextComm v) { return spellingOf(v); }

/// Where the ranks of each parallel dimension sit in the global rank order, innermost first
/// (parallel.rank_order): Megatron-Core's default "tp-cp-ep-dp-pp" keeps a pipeline stage's data replicas
/// adjacent and the stages outermost; Megatron-LM's --use-tp-pp-dp-mapping (NeMo's and Megatron-Bridge's
/// use_tp_pp_dp_mapping) puts the stages inside the data replicas, "tp-cp-ep-pp-dp"
/// (megatron/training/initialize.py line 395 at d98e8a6).
enum class RankOrder { DataInside, StagesInside };
constexpr auto enumNames(RankOrder)
{
    using N = EnumName<RankOrder>;
    return std::array{N{RankOrder::DataInside, "tp-cp-ep-dp-pp", "Stages outermost (tp-cp-ep-dp-pp)"},
                      N{RankOrder::StagesInside, "tp-cp-ep-pp-dp", "Data outermost (tp-cp-ep-pp-dp)"}};
}
inline const char *toString(RankOrder v) { return spellingOf(v); }

/// How routed tokens reach their experts' ranks (parallel.expert_dispatcher). "alltoall": Megatron-Core's
/// all-to-all token dispatcher sends each of a token's k copies to its expert's rank through NCCL's
/// all-to-all. "deepep": the flex dispatcher with DeepEP's kernels (DeepSeek-AI, github.com/deepseek-ai/DeepEP,
/// docs/legacy.md) sends a token across the network once per destination node and fans it out over the
/// scale-up link there, at the NIC's rate (43-58 GB/s measured per 400 Gb/s port at EP 16-64) and the
/// NVLink's (153-158 GB/s of 160 intranode). "hybridep": the flex dispatcher with HybridEP, NVIDIA's
/// NVLink-domain-aware kernels (Megatron-Core --moe-flex-dispatcher-backend hybridep): the same one copy per
/// destination scale-up domain across the network, and inside an NVL72 rack the whole exchange over NVLink.
enum class ExpertDispatcher { AllToAll, DeepEp, HybridEp };
constexpr auto enumNames(ExpertDispatcher)
{
    using N = EnumName<ExpertDispatcher>;
    return std::array{N{ExpertDispatcher::AllToAll, "alltoall", "All-to-all (NCCL)"},
                      N{ExpertDispatcher::DeepEp, "deepep", "DeepEP"},
                      N{ExpertDispatcher::HybridEp, "hybridep", "HybridEP"}};
}
inline const char *toString(ExpertDispatcher v) { return spellingOf(v); }
/// Whether the dispatcher is the flex dispatcher's (DeepEP or HybridEP): one copy per destination domain at the
/// links' own rates.
constexpr bool isFlexDispatcher(ExpertDispatcher d)
{
    return d == ExpertDispatcher::DeepEp || d == ExpertDispatcher::HybridEp;
}

/// What CUDA graphs capture (training.cuda_graphs). Without them the host launches every kernel of the
/// step from Python, and a GPU faster than its host waits for it. "router": a mixture of experts' router and
/// the permutation's preprocessing replayed as graphs (Transformer Engine's moe_router and moe_preprocess
/// scopes). "layers": each transformer layer's attention, norms, dense MLP and router (Megatron-Core's
/// --cuda-graph-impl local, or transformer_engine with the attn / mlp / moe_router scopes); the routed experts'
/// dispatch, permutation and grouped GEMMs stay eager, their sizes known only at run time. "step": the whole
/// iteration captured (--cuda-graph-scope full_iteration; a mixture of experts pads its expert inputs to a
/// fixed capacity for it).
enum class CudaGraphs { None, Router, Layers, Step };
constexpr auto enumNames(CudaGraphs)
{
    using N = EnumName<CudaGraphs>;
    return std::array{N{CudaGraphs::None, "none", "None (eager)"}, N{CudaGraphs::Router, "router", "MoE router"},
                      N{CudaGraphs::Layers, "layers", "Transformer layers"}, N{CudaGraphs::Step, "step", "Whole step"}};
}
inline const char *toString(CudaGraphs v) { return spellingOf(v); }

/// The attention kernel: the platform's fastest fused one (cuDNN's fused attention or FlashAttention-3 on
/// Hopper and Blackwell, FlashAttention-2 on Ampere), as Megatron-Core and NeMo run it through Transformer
/// Engine; or FlashAttention-2 (the flash-attn 2 package, PyTorch SDPA's flash backend), which on Hopper
/// uses neither the asynchronous tensor cores (wgmma) nor TMA (Shah et al. 2024, FlashAttention-3); or the
/// FlashAttention written in Triton before FlashAttention-2 (flash-attn's flash_attn_triton.py, which
/// llm-foundry copies as its attn_impl "triton", the one FlashAttention of 2023 with ALiBi's bias).
enum class AttentionKernel { Fused, Flash2, Triton };
constexpr auto enumNames(AttentionKernel)
{
    using N = EnumName<AttentionKernel>;
    return std::array{N{AttentionKernel::Fused, "fused", "Fastest fused (cuDNN, FA3)"},
                      N{AttentionKernel::Flash2, "flash2", "FlashAttention-2"},
                      N{AttentionKernel::Triton, "triton", "FlashAttention (Triton)"}};
}
inline const char *toString(AttentionKernel v) { return spellingOf(v); }

/// How per-tensor FP8 (training.precision fp8) sets its scales (training.fp8_recipe; Megatron-Core's
/// --fp8-recipe names):
///   delayed:    from an amax history, reduced over the data-parallel and tensor ranks at the end of each FP8
///               region (Transformer Engine's DelayedScaling; Micikevicius et al. 2022);
///   tensorwise: from the tensor's own amax as it is quantized ("current scaling", Transformer Engine's
///               Float8CurrentScaling; torchao's tensorwise float8): no amax history and no reduction across
///               data-parallel ranks (Transformer Engine d0067d0, quantization.py
///               add_fp8_tensors_to_global_buffer: "Delayed scaling only"). Megatron-Bridge's FP8-CS.
///   rowwise:    torchao's rowwise recipe (torchtitan's float8 default since 2026): a scale per row of each
///               operand, rounded to a power of two, and the CUTLASS rowwise-scaled GEMM in place of cuBLAS's
///               tensorwise one (torchao/float8/config.py, Float8LinearRecipeName, at 36027d82d).
enum class Fp8Recipe { Delayed, Tensorwise, Rowwise };
constexpr auto enumNames(Fp8Recipe)
{
    using N = EnumName<Fp8Recipe>;
    return std::array{N{Fp8Recipe::Delayed, "delayed", "Delayed (amax history)"},
                      N{Fp8Recipe::Tensorwise, "tensorwise", "Current (tensorwise)"},
                      N{Fp8Recipe::Rowwise, "rowwise", "Rowwise (torchao)"}};
}
inline const char *toString(Fp8Recipe v) { return spellingOf(v); }

/// Which experts a token's k routed copies reach (training.expert_routing), which sets how many ranks and
/// nodes DeepEP's and HybridEP's deduplicated dispatch sends it to:
///   uniform:    each copy to an expert drawn uniformly from those its router may reach, as a balanced learned
///               router does and as Megatron-Core's --moe-router-force-load-balancing draws them (random
///               logits, megatron/core/transformer/moe/router.py);
///   contiguous: token t to the k consecutive experts t k, ..., t k + k - 1 (mod E), balanced over the experts
///               but each token on as few ranks as hold k consecutive experts: NeMo Automodel's benchmark gate
///               (FakeBalancedGate, nemo_automodel/components/moe/layers.py, `indices = arange(tokens * k)
///               .view(-1, k) % n_exp`, lines 544-545 at 89e3a9fdd; fake_balanced_gate in its benchmark configs).
enum class ExpertRouting { Uniform, Contiguous };
constexpr auto enumNames(ExpertRouting)
{
    using N = EnumName<ExpertRouting>;
    return std::array{N{ExpertRouting::Uniform, "uniform", "Uniform (learned router)"},
                      N{ExpertRouting::Contiguous, "contiguous", "Contiguous (benchmark gate)"}};
}
inline const char *toString(ExpertRouting v) { return spellingOf(v); }

/// How the cross-entropy over the vocabulary runs, which sets the memory its logits need at the loss's peak
/// (training.loss_kernel), per element of the last stage's logits (s/c x b tokens x V / t):
///   inplace:  Megatron-Core's vocab-parallel cross-entropy works in place on the FP32 copy of the logits
///             (megatron/core/tensor_parallel/cross_entropy.py: the max subtracted, exp and the division in
///             place, the softmax saved and turned into the gradient in place); the 16-bit logits the
///             output layer produced stay alive beside it: 6 bytes;
///   eager:    PyTorch's F.cross_entropy on pred.float() (torchtitan's loss_fn before it was compiled):
///             log_softmax's FP32 output is saved, and its backward holds that output, the gradient from
///             nll_loss and the input's gradient at once: 12 bytes (16 under DTensor's loss parallel);
///   fused:    one kernel each way on the 16-bit logits, the FP32 values never stored: torch.compile of the
///             loss (torchtitan's build_cross_entropy_loss), flash-attn's cross-entropy (llm-foundry's
///             fused_crossentropy): the 4 bytes the logits already count.
///   te:       Transformer Engine's parallel cross-entropy (Megatron-Core's --cross-entropy-loss-fusion with
///             --cross-entropy-fusion-impl te, Megatron-Bridge's recipes): two passes over the 16-bit logits,
///             the gradient written over them, one pass to scale it in backward; its memory as fused.
///   auto:     inplace under Megatron-Core and DeepSpeed (Megatron's cross-entropy); under FSDP fused with
///             training.compile, eager without.
enum class LossKernel { Auto, InPlace, Eager, Fused, TransformerEngine };
constexpr auto enumNames(LossKernel)
{
    using N = EnumName<LossKernel>;
    return std::array{
        N{LossKernel::Auto, "auto", "Framework default"}, N{LossKernel::InPlace, "inplace", "In place (Megatron)"},
        N{LossKernel::Eager, "eager", "Eager PyTorch"}, N{LossKernel::Fused, "fused", "Fused (compiled, flash-attn)"},
        N{LossKernel::TransformerEngine, "te", "Transformer Engine (Megatron-Core fused)"}};
}
inline const char *toString(LossKernel v) { return spellingOf(v); }

/// How the optimizer's update runs, which sets its temporaries at the step and, for Adam, the bytes the update
/// streams (optimizerOp in core/compute/LayerOps.cpp: one pass for fused, one per element-wise op otherwise)
/// (training.optimizer_kernel):
///   fused:   one multi-tensor kernel updates every parameter in place (Megatron-Core's and DeepSpeed's fused
///            Adam): no temporaries;
///   foreach: torch.optim.AdamW's foreach path, PyTorch's default on CUDA and torchtitan's (foreach = not
///            fused): the square roots of every second moment at once (_multi_tensor_adamw:
///            torch._foreach_sqrt(exp_avg_sqs)), an FP32 copy of the optimizer shard;
///   loop:    a Python loop over the parameters (Composer's DecoupledAdamW, llm-foundry's optimizer): one
///            parameter's temporaries at a time, negligible;
///   auto:    foreach under FSDP, fused otherwise.
enum class OptimizerKernel { Auto, Fused, Foreach, Loop };
constexpr auto enumNames(OptimizerKernel)
{
    using N = EnumName<OptimizerKernel>;
    return std::array{N{OptimizerKernel::Auto, "auto", "Framework default"},
                      N{OptimizerKernel::Fused, "fused", "Fused multi-tensor"},
                      N{OptimizerKernel::Foreach, "foreach", "torch foreach"},
                      N{OptimizerKernel::Loop, "loop", "Per-parameter loop"}};
}
inline const char *toString(OptimizerKernel v) { return spellingOf(v); }

/// The number format the optimizer keeps its moments in (training.optimizer_moments). FP32 is PyTorch's and
/// Megatron-Core's default; lower formats store the state only, the update computes in FP32:
///   bf16, fp16: Apex's DistributedFusedAdam with dtype bf16 (NeMo 1's distributed_fused_adam with
///               optim.dtype; apex/contrib/optimizers/distributed_fused_adam.py, exp_avg_shard and
///               exp_avg_sq_shard allocated in the optimizer dtype), Megatron-Core's precision-aware optimizer
///               (--use-precision-aware-optimizer --exp-avg-dtype/--exp-avg-sq-dtype), DeepSeek-V3's BF16
///               moments (DeepSeek-AI 2024, Sec. 3.3.3);
///   fp8:        Megatron-Core's precision-aware optimizer with fp8 moments (Transformer Engine FusedAdam).
enum class MomentFormat { Fp32, Bf16, Fp16, Fp8 };
constexpr auto enumNames(MomentFormat)
{
    using N = EnumName<MomentFormat>;
    return std::array{N{MomentFormat::Fp32, "fp32", "FP32"}, N{MomentFormat::Bf16, "bf16", "BF16"},
                      N{MomentFormat::Fp16, "fp16", "FP16"}, N{MomentFormat::Fp8, "fp8", "FP8"}};
}
inline const char *toString(MomentFormat v) { return spellingOf(v); }

/// The number format of the optimizer's master copy of 16-bit parameters (training.master_weights): FP32 by
/// default; bf16 as Apex's DistributedFusedAdam keeps its parameter shard in its dtype (store_params, NeMo 1's
/// optim.dtype: bf16), fp16 as Megatron-Core's --main-params-dtype fp16.
enum class MasterFormat { Fp32, Bf16, Fp16 };
constexpr auto enumNames(MasterFormat)
{
    using N = EnumName<MasterFormat>;
    return std::array{N{MasterFormat::Fp32, "fp32", "FP32"}, N{MasterFormat::Bf16, "bf16", "BF16"},
                      N{MasterFormat::Fp16, "fp16", "FP16"}};
}
inline const char *toString(MasterFormat v) { return spellingOf(v); }

/// The training framework whose buffers the memory model lays out (training.framework). It changes the
/// buffers around the tensors, never the activations' formulas: Megatron-Core's contiguous gradient and
/// parameter buffers with views as buckets; DeepSpeed ZeRO's reduce and all-gather buckets; PyTorch
/// FSDP2's per-block all-gathers (as torchtitan uses it).
enum class Framework { Megatron, DeepSpeed, Fsdp };
constexpr auto enumNames(Framework)
{
    using N = EnumName<Framework>;
    return std::array{N{Framework::Megatron, "megatron", "Megatron-Core"},
                      N{Framework::DeepSpeed, "deepspeed", "DeepSpeed"}, N{Framework::Fsdp, "fsdp", "PyTorch FSDP2"}};
}
inline const char *toString(Framework v) { return spellingOf(v); }

} // namespace trainplan
