#pragma once
// Plan = model + training + parallel + cluster: everything a user chooses. A value type; the io layer
// reads and writes it, the estimators are pure functions of (Plan, Catalog).

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/hardware/DeviceSpec.h"
#include "core/model/ModelSpec.h"
#include "core/common/Precision.h"
#include "core/common/Problem.h"
#include "core/plan/PlanEnums.h"

namespace trainplan {

/// Sizes (layers, batches, parallel degrees, nodes) are whole numbers up to 2^40.
inline constexpr std::int64_t kMaxPlanSize = std::int64_t(1) << 40;
/// The simulator's and the memory model's bound on pipeline stages.
inline constexpr std::int64_t kMaxPipelineStages = 4096;
/// GPUs one node may have: the largest scale-up domains today join 72 GPUs (GB200 NVL72); 576 leaves room
/// for NVL576-class systems and bounds the placement model's per-node loops.
inline constexpr std::int64_t kMaxGpusPerNode = 576;
/// Longest strings a plan may hold, in characters: names and labels, ids, free text (a device's source).
inline constexpr std::size_t kMaxNameLength = 200;
inline constexpr std::size_t kMaxIdLength = 64;
inline constexpr std::size_t kMaxTextLength = 2000;
/// Custom devices one plan may carry.
inline constexpr std::size_t kMaxCustomDevices = 64;
/// Kinds of node in one cluster (not nodes: a group has any node count).
inline constexpr std::size_t kMaxNodeGroups = 256;

struct TrainingConfig
{
    std::int64_t globalBatch = 0; ///< sequences per optimizer step, all replicas and accumulation steps
    std::int64_t microBatch = 1;  ///< sequences per GPU per micro-batch
    Precision precision = Precision::BF16;
    Optimizer optimizer = Optimizer::Adam;
    Recompute recompute = Recompute::None;
    /// Selective recomputation of more than the attention core (Megatron-Core --recompute-modules):
    /// MLA's up projections (mla_up_proj: Q, K and V rebuilt from the latents in backward) and the experts'
    /// activation function (moe_act), or the whole mixture-of-experts layer (moe: router, dispatch, experts
    /// and combine replayed from the layer's input). All need recompute "selective".
    bool recomputeMlaUpProjection = false;
    bool recomputeExpertActivation = false;
    bool recomputeMoe = false;
    /// The dense MLP of every layer without experts (mlp: Megatron-Core checkpoints the MLP, keeps its input and
    /// replays its forward in backward; MoE layers are left alone, transformer_layer.py "if not self.is_moe_layer").
    bool recomputeDenseMlp = false;
    /// Op-level checkpointing (recompute "ops") whose policy leaves the attention kernel out of its save list:
    /// the kernel's output is not kept and the kernel runs again in backward. torchtitan's policy saved the
    /// flash and memory-efficient SDPA kernels but not cuDNN's, which it chose first on compute capability 10
    /// (B200, GB200) from 3b85aa31f (2025-05-14, models/attention.py) until b39377f9f (2025-12-01, "add all
    /// SDPA backends to op_sac_save_list"). Needs recompute "ops".
    bool recomputeAttention = false;
    bool sequenceParallel = false;
    bool flashAttention = false;
    /// Keep gradients in FP32 even when parameters are 16-bit (Megatron-LM's main_grad buffers).
    /// Off by default: the reference text's 16-bytes-per-parameter accounting keeps 16-bit gradients.
    bool fp32Gradients = false;
    /// Caching-allocator overhead as a fraction of the phase's dynamic (non-persistent) memory, replacing
    /// the allocator model (block rounding, fragmentation) when set; absent: the model.
    std::optional<double> allocatorReserveFraction;
    /// Whose buffers surround the tensors (contiguous gradient buffers, ZeRO buckets, FSDP all-gathers).
    Framework framework = Framework::Megatron;
    /// PyTorch's PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True: segments grow by mapping pages, so freed
    /// blocks of one segment are reusable by any later request and fragmentation is left to page rounding.
    bool expandableSegments = false;
    /// A plan whose device-used peak comes within this fraction of capacity is "tight".
    double memoryMargin = 0.05;
    /// Mixture of experts: tokens an expert takes at most, as a multiple of the balanced share (absent:
    /// dropless, every routed token is computed).
    std::optional<double> capacityFactor;
    /// Tokens of the busiest expert over the mean (>= 1): it sets the pace of the grouped GEMMs and of the
    /// all-to-all (1: perfectly balanced routing).
    double expertImbalance = 1.0;
    /// Which experts a token's routed copies reach (PlanEnums.h, ExpertRouting).
    ExpertRouting expertRouting = ExpertRouting::Uniform;
    /// Tokens of the busiest expert over the mean as computed: the imbalance, capped by the capacity factor
    /// when tokens beyond it are dropped.
    double busiestExpertLoad() const
    {
        return capacityFactor ? std::min(expertImbalance, *capacityFactor) : expertImbalance;
    }
    /// The "moe" recompute module in force: selective recomputation rebuilding whole MoE layers (their
    /// dispatch and combine included) from each layer's input.
    bool recomputesMoeLayers() const { return recompute == Recompute::Selective && recomputeMoe; }
    /// Another recomputation, without the settings that name parts of the one it leaves: selective
    /// recomputation's modules and what op-level checkpointing leaves out of its save list.
    void switchRecompute(Recompute to)
    {
        recompute = to;
        if (to != Recompute::Selective)
            recomputeMlaUpProjection = recomputeExpertActivation = recomputeMoe = recomputeDenseMlp = false;
        if (to != Recompute::Ops)
            recomputeAttention = false;
    }
    /// The "mlp" recompute module in force: the dense MLPs keep only their input.
    bool recomputesDenseMlp() const { return recompute == Recompute::Selective && recomputeDenseMlp; }
    /// Whether selective recomputation replays anything: the attention core's score ops (flash attention
    /// stores no scores and recomputes them in its own backward, so there is nothing to replay) or a module
    /// (validation allows each only on its kind of model). Otherwise "selective" is the same plan as "none",
    /// in memory and in time (core/compute/LayerOps, core/memory/ActivationMemory).
    bool selectiveRecomputationReplays() const
    {
        return !flashAttention || recomputeMlaUpProjection || recomputeExpertActivation || recomputeMoe ||
               recomputeDenseMlp;
    }
    /// Full recomputation of only this many layers of each model chunk (Megatron-Core --recompute-method
    /// block --recompute-num-layers): those layers keep only their input, the others all of their
    /// activations and replay nothing. 0: every layer (with recompute "full").
    std::int64_t recomputeLayers = 0;
    /// Full recomputation of every k-th layer only (torchtitan's selective_ac_option = k, "checkpoint every
    /// k-th layer"; Megatron-Core has no such method): the others keep all their activations. 0 or 1: every
    /// layer (with recompute "full").
    std::int64_t recomputeInterval = 0;
    /// Full recomputation in chunks of this many layers (Megatron-Core --recompute-method uniform
    /// --recompute-num-layers): each chunk of a model chunk's layers keeps only its input, and its backward
    /// replays the whole chunk, holding every layer's activations of it at once. 0 or 1: every layer.
    std::int64_t recomputeChunk = 0;
    /// Activations of this many layers of each stage copied to host memory after their forward and back
    /// before their backward (Megatron-Core --cpu-offloading-num-layers), over the host link beside the
    /// compute. 0: none.
    std::int64_t activationOffloadLayers = 0;
    /// CUDA graphs: what of the step the host launches as captured graphs instead of kernel by kernel.
    CudaGraphs cudaGraphs = CudaGraphs::None;
    /// Which flash-attention kernel runs (with flash_attention): the platform's fastest fused one, or
    /// FlashAttention-2 as PyTorch's SDPA and flash-attn 2 run it.
    AttentionKernel attentionKernel = AttentionKernel::Fused;
    /// Mixture of experts: the routed experts' MLP as one fused grouped kernel per projection (Transformer
    /// Engine's op fuser with CuTe DSL grouped GEMMs, Megatron-Bridge cutedsl_fused_grouped_mlp): one launch
    /// for all local experts, the activation function and its quantization in the first GEMM's epilogue.
    bool fusedExpertMlp = false;
    /// Mixture of experts under Megatron-Core: paged stashing (--moe-paged-stash). After each MoE layer's
    /// forward the tensors the fused grouped MLP keeps for its backward are copied into a paged buffer, and
    /// back before its backward, so that they hold the tokens routed rather than the rank's capacity.
    bool moePagedStash = false;
    /// Mixture of experts under Megatron-Core: the router's score function, top-k and auxiliary-loss scores
    /// as Transformer Engine's fused kernels (--moe-router-fusion) instead of a dozen PyTorch ops each.
    bool moeRouterFusion = false;
    /// Mixture of experts under Megatron-Core: the token permutation and unpermutation around the expert
    /// all-to-all as Transformer Engine's fused kernels (--moe-permute-fusion) instead of an argsort,
    /// gathers and scatters.
    bool moePermuteFusion = false;
    /// Fused element-wise chains (bias + activation; bias + dropout + residual; scale + mask + softmax)
    /// read their input and write their output once; unfused, every op in a chain does.
    bool fusedKernels = true;
    /// torch.compile (TorchInductor): each element-wise chain (RMSNorm, rotary embedding, activation,
    /// residual) becomes one generated kernel (Ansel et al. 2024, "PyTorch 2", Sec. 4.3); eager PyTorch runs
    /// each op of a chain as its own kernel, RMSNorm and the rotary embedding in FP32.
    bool compile = false;
    /// The element-wise chains run fused: torch.compile's under FSDP (PyTorch's own modules have no fused
    /// layer kernels), Megatron-Core's fused kernels, DeepSpeed's either.
    bool fusesElementwise() const
    {
        return framework == Framework::Fsdp       ? compile
               : framework == Framework::Megatron ? fusedKernels
                                                  : fusedKernels || compile;
    }
    /// How the optimizer's update runs (PlanEnums.h, OptimizerKernel): its temporaries at the step.
    OptimizerKernel optimizerKernel = OptimizerKernel::Auto;
    OptimizerKernel optimizerKernelInEffect() const
    {
        if (optimizerKernel != OptimizerKernel::Auto)
            return optimizerKernel;
        return framework == Framework::Fsdp ? OptimizerKernel::Foreach : OptimizerKernel::Fused;
    }
    /// The formats the optimizer keeps its state in (PlanEnums.h, MomentFormat and MasterFormat): the moments,
    /// and the master copy of 16-bit parameters.
    MomentFormat optimizerMoments = MomentFormat::Fp32;
    MasterFormat masterWeights = MasterFormat::Fp32;
    /// Muon's Newton-Schulz iterations per step (Megatron-LM --muon-num-ns-steps, 5) and how it treats
    /// tensor-parallel weights (--muon-tp-mode, duplicated); read only when optimizer is muon.
    std::int64_t muonSteps = 5;
    MuonTpMode muonTpMode = MuonTpMode::Duplicated;
    /// What steps the parameters Muon leaves out (--muon-scalar-optimizer): Adam, or Lion.
    MuonScalarOptimizer muonScalarOptimizer = MuonScalarOptimizer::Adam;
    /// Muon or Adaptive Muon: Newton-Schulz iterations on the weight matrices, Adam or Lion for the rest.
    bool usesMuon() const { return optimizer == Optimizer::Muon || optimizer == Optimizer::AdaptiveMuon; }
    bool keepsTwoMoments() const { return trainplan::keepsTwoMoments(optimizer); }
    /// How the cross-entropy runs (PlanEnums.h, LossKernel): the memory the logits need at the loss.
    LossKernel lossKernel = LossKernel::Auto;
    /// The loss kernel in effect: auto resolved by the framework (fused by torch.compile under FSDP, eager
    /// without; Megatron's in-place cross-entropy otherwise).
    LossKernel lossKernelInEffect() const
    {
        if (lossKernel != LossKernel::Auto)
            return lossKernel;
        if (framework == Framework::Fsdp)
            return compile ? LossKernel::Fused : LossKernel::Eager;
        return LossKernel::InPlace;
    }
    /// PyTorch's pipelining (framework fsdp) keeps every micro-batch's last-stage output, the logits, until the
    /// step ends, for the output step() returns: torch before pytorch/pytorch#165822, and torchtitan until it
    /// passed return_outputs=False (e5ef99aa, October 2025: "Update PP to release memory earlier").
    bool keepPipelineOutputs = false;
    /// Megatron-Core's --defer-embedding-wgrad-compute: on the last pipeline stage the output layer's weight
    /// gradient GEMM of the first `wgradDeferralLimit` micro-batches (0: of every one) is not run in their
    /// backward but after the stage's last backward, while the stages before it drain, its input and output
    /// gradient kept until then (megatron/core/tensor_parallel/layers.py, schedules.py
    /// finish_embedding_wgrad_compute). Megatron-Core only, with pipeline stages.
    bool deferEmbeddingWgrad = false;
    std::int64_t wgradDeferralLimit = 0;
    /// Micro-batches per run of the pipeline schedule (0: all of the step's in one run, as Megatron-Core and
    /// DeepSpeed schedule them). PyTorch's pipelining as torchtitan and NeMo Automodel drive it runs the
    /// schedule once per local batch and accumulates gradients over the runs, each with its own fill, drain
    /// and FSDP2 gradient reduction (framework fsdp with pipeline stages).
    std::int64_t scheduleMicrobatches = 0;
    /// PyTorch frameworks without torch.compile: the RMSNorm runs as one fused kernel (torchtitan's
    /// norm_type "fused_rmsnorm", a Triton kernel) while the other element-wise chains stay eager.
    bool fusedNorm = false;
    /// Q, K and V as three GEMMs over the same input (torchtitan's wq, wk and wv; Hugging Face's q_proj, k_proj
    /// and v_proj) instead of one fused projection (Megatron-Core's linear_qkv, MPT's Wqkv): under tensor
    /// parallelism the key and value GEMMs are narrow, and each reads the whole input. Not under Megatron-Core,
    /// which always fuses them.
    bool separateQkv = false;
    /// Megatron-Core: the rotary embedding in Transformer Engine's fused kernel (the default; --no-rope-fusion
    /// turns it off). Unfused, megatron/core/models/common/embeddings/rope_utils.py `_apply_rotary_pos_emb_bshd`
    /// runs Q and K each through a dozen PyTorch kernels. Megatron-Bridge turns the fusion off for every model
    /// whose positions are not plain RoPE (utils/fusions.py `validate_rope_fusion_compatibility`, called by
    /// GPTModelProvider.provide from v0.2.0), GPT-OSS's YaRN among them. Under FSDP torch.compile decides.
    bool fusedRope = true;
    /// Megatron-Core's first_last_layers_bf16 (--first-last-layers-bf16 with --num-layers-at-start-in-bf16 and
    /// --num-layers-at-end-in-bf16; megatron/core/fp8_utils.py and fp4_utils.py `get_fp8_context`/`get_fp4_context`
    /// at d98e8a64d): the first and the last this many layers of the model (a hybrid model's layers are its blocks)
    /// run their linear layers in BF16, outside the FP8 or FP4 recipe. 0: none.
    std::int64_t bf16LayersAtStart = 0;
    std::int64_t bf16LayersAtEnd = 0;
    /// Modules kept in BF16 in every layer under a FP8 or FP4 format, as a per-module quantization recipe names
    /// them (Megatron-Core's quant_recipe; Megatron-Bridge's Nemotron 3 Super NVFP4 te_quant.cfg: "*.linear_qkv",
    /// "*.linear_proj", "*mlp.fc[12]_latent_proj", "mtp.*"): the attention block's QKV and output projections, a
    /// latent MoE's two latent projections, the multi-token-prediction modules.
    bool bf16AttentionProjections = false;
    bool bf16LatentProjections = false;
    bool bf16MtpModules = false;
    /// The attention repeats each key and value head for the query heads that share it before the attention
    /// kernel (`repeat_kv` ahead of F.scaled_dot_product_attention: torchtitan's Llama until ff0829c10, "GQA
    /// without kv repeats", January 2026; Hugging Face's eager and SDPA attention), so the kernel, the
    /// activations it saves and PyTorch's context parallelism, which wraps that kernel, see K and V as wide as
    /// Q. Not under Megatron-Core, whose attention takes the grouped heads as they are.
    bool repeatKvHeads = false;
    /// Q, K and V run as three GEMMs: separate_qkv where the framework honours it (Megatron-Core always fuses).
    bool runsSeparateQkv() const { return separateQkv && framework != Framework::Megatron; }
    /// Whether per-layer CUDA graphs hold a mixture of experts' routed part: only with a fixed capacity, which
    /// gives it static shapes (Megatron-Core graphs the MoE module only with drop-padding, transformer_config.py).
    bool layerGraphsHoldExperts() const { return cudaGraphs == CudaGraphs::Layers && capacityFactor.has_value(); }
    /// The norm is one kernel: with every element-wise chain fused, or on its own (fused_norm).
    bool fusesNorm() const { return fusesElementwise() || fusedNorm; }
    /// torchao's float8 tensor parallelism (PyTorch frameworks with an FP8-family format: torchtitan's
    /// Float8ColwiseParallel, PrepareFloat8ModuleInput): the sequence-parallel inputs are cast to float8
    /// before they are all-gathered.
    bool gathersActivationsInFloat8() const { return framework == Framework::Fsdp && isLowPrecisionMatmul(precision); }
    /// FP8/FP4 family: parameters kept and all-gathered in the low format, no BF16 working copy
    /// (Megatron-Core --fp8-param-gather).
    bool fp8ParamGather = false;
    /// Per-tensor FP8's scaling (PlanEnums.h, Fp8Recipe): delayed or current (tensorwise).
    Fp8Recipe fp8Recipe = Fp8Recipe::Delayed;
    /// FP8/FP4 family: attention's QK^T and PV in FP8 too (Transformer Engine's FP8 dot-product attention);
    /// off, attention runs in BF16, as Megatron-Core and NeMo recipes run by default.
    bool fp8Attention = false;
    /// Fraction of tokens that are padding: valid tokens/s = tokens/s x (1 - padding_fraction).
    double paddingFraction = 0.0;
    /// Packed sequences: the mean length of the documents packed into each sequence, attention kept
    /// within a document (flash attention's variable-length masks, as NeMo's packed fine-tuning and
    /// Llama 3's document masks); 0: one document per sequence.
    std::int64_t documentLength = 0;

    friend bool operator==(const TrainingConfig &, const TrainingConfig &) = default;
};

struct ParallelConfig
{
    std::int64_t data = 1;
    std::int64_t tensor = 1;
    std::int64_t pipeline = 1;
    /// Context-parallel size: each rank holds seq_len / context tokens of every sequence (Megatron-Core's
    /// context parallelism; causal load balancing gives each rank two of 2 x context chunks).
    std::int64_t context = 1;
    ContextComm contextComm = ContextComm::Ring;
    RankOrder rankOrder = RankOrder::DataInside; ///< innermost first: where stages and data replicas sit
    std::int64_t virtualStages = 1; ///< model chunks per pipeline rank (interleaved schedule)
    Schedule schedule = Schedule::OneFOneB;
    std::int64_t zeroStage = 0; ///< 0: replicated; 1: optimizer sharded; 2: + gradients; 3: + parameters
    bool offloadOptimizer = false;
    /// With offload_optimizer under Megatron-Core: the share of each rank's optimizer shard that its CPU optimizer
    /// steps on the host (HybridDeviceOptimizer's offload_fraction, --optimizer-offload-fraction, parameters in
    /// order until the share is reached); the rest steps on the GPU. DeepSpeed and FSDP2 offload all of it.
    double optimizerOffloadFraction = 1.0;
    /// With offload_optimizer under Megatron-Core: one CPU optimizer per parameter, each parameter's gradient copied
    /// out and its update copied back on their own streams while the host steps the others
    /// (--overlap-cpu-optimizer-d2h-h2d; HybridDeviceOptimizer.build_cpu_optimizer_list). DeepSpeed and FSDP2 stream
    /// their copies either way.
    bool overlapOffloadCopies = false;
    /// ZeRO-3's parameter shards in host memory, uploaded for each gather (DeepSpeed's offload_param, ZeRO-Infinity,
    /// Rajbhandari et al. 2021; FSDP2's CPUOffloadPolicy, torchtitan training.enable_cpu_offload).
    bool offloadParameters = false;
    double bucketBytes = 25e6; ///< data-parallel gradient bucket (PyTorch DDP default 25 MB, Li et al. 2020)
    /// Start each bucket's all-reduce as soon as its gradients are ready, during the last backward
    /// (PyTorch DDP, FSDP, Megatron-LM --overlap-grad-reduce). Off: all of it runs after the backward.
    bool overlapGradReduce = true;
    /// Distributed optimizer / ZeRO 1-2: all-gather the updated parameters bucket by bucket during the next
    /// forward pass instead of after the optimizer step (Megatron-Core --overlap-param-gather).
    bool overlapParamGather = false;
    /// Tensor-parallel all-gathers and reduce-scatters split into chunks and overlapped with the GEMMs they
    /// feed (Transformer Engine userbuffers, NeMo tp_comm_overlap); needs sequence parallelism.
    bool tensorCommOverlap = false;
    /// Pipeline sends and receives of one chunk overlapped with the next chunk's compute (Megatron-LM's
    /// default under interleaving; --no-overlap-p2p-communication); off, the blocking transfer occupies the stage.
    bool overlapP2pComm = false;
    /// An uneven pipeline split, as Megatron-Core's --decoder-first/last-pipeline-num-layers: layers on
    /// the first and the last stage (0: an even share); the other stages share the rest evenly. Llama 3
    /// 405B: 126 layers on 16 stages as 7 + 14 x 8 + 7 (Llama Team 2024, Section 3.3.2).
    std::int64_t firstStageLayers = 0;
    std::int64_t lastStageLayers = 0;
    /// Every stage's decoder layers, first to last (empty: the even split, or first/last_stage_layers): what
    /// Megatron-Core's --pipeline-model-parallel-layout places on each rank, summed over its model chunks.
    std::vector<std::int64_t> stageLayers;
    /// Expert parallelism: routed experts split over `expert` ranks, each expert's MLP over `expertTensor`
    /// (0: the tensor size, Megatron-Core's default). expert x expertTensor divides data x context x
    /// tensor; the ranks left over reduce the experts' gradients (the expert-data-parallel group).
    std::int64_t expert = 1;
    std::int64_t expertTensor = 0;
    ExpertDispatcher expertDispatcher = ExpertDispatcher::AllToAll;
    /// The expert all-to-all of one micro-batch overlapped with another micro-batch's compute
    /// (Megatron-Core --overlap-moe-expert-parallel-comm --delay-wgrad-compute).
    bool expertCommOverlap = false;
    /// FSDP2 (training.framework "fsdp"): free each block's gathered parameters after its forward and
    /// gather them again for backward (true, torchtitan's default), or keep them until backward.
    bool reshardAfterForward = true;
    /// Hybrid sharding (HSDP; FSDP2's 2-D mesh, torchtitan data_parallel_shard_degree with
    /// data_parallel_replicate_degree): parameters, gradients and optimizer state sharded over this many of
    /// the data x context ranks, replicated across the rest; each unit gathered and reduce-scattered inside
    /// its shard group, the gradient shards then all-reduced across the replicas. 0: one shard group of
    /// all of them (FSDP).
    std::int64_t shardGroup = 0;
    /// ZeRO++ (Wang et al. 2023, "ZeRO++: Extremely Efficient Collective Communication for Giant Model
    /// Training"; DeepSpeed's zero_optimization keys, ZeRO-3 only). qwZ: the parameters all-gathered as INT8
    /// blocks and dequantized on arrival (zero_quantized_weights). hpZ: a secondary copy of the 16-bit
    /// parameters sharded over this many consecutive data ranks, from which the backward gathers inside that
    /// group (zero_hpz_partition_size; 1: off). qgZ: the gradients reduce-scattered as INT4 through
    /// all-to-alls (zero_quantized_gradients).
    bool zeroQuantizedWeights = false;
    std::int64_t zeroHpzPartition = 1;
    bool zeroQuantizedGradients = false;

    /// hpZ's secondary group: zero_hpz_partition_size ranks when it divides the shard ranks, else 1 (off).
    std::int64_t hpzRanks() const
    {
        const std::int64_t n = shardRanks();
        return zeroHpzPartition > 1 && zeroHpzPartition < n && n % zeroHpzPartition == 0 ? zeroHpzPartition : 1;
    }

    std::int64_t expertTensorSize() const { return expertTensor > 0 ? expertTensor : tensor; }
    /// Ranks the sharded state is split over: the shard group, or all data x context ranks.
    std::int64_t shardRanks() const
    {
        const std::int64_t dc = std::max<std::int64_t>(1, data * context);
        return shardGroup > 0 && shardGroup < dc && dc % shardGroup == 0 ? shardGroup : dc;
    }
    /// Replicas of each shard (HSDP's replicate degree; 1 without hybrid sharding).
    std::int64_t shardReplicas() const { return std::max<std::int64_t>(1, data * context) / shardRanks(); }
    std::int64_t expertShards() const { return expert * expertTensorSize(); }
    /// Ranks holding the same expert shard: data x context x tensor / (expert x expert_tensor).
    std::int64_t expertDataSize() const
    {
        return std::max<std::int64_t>(1, data * context * tensor / std::max<std::int64_t>(1, expertShards()));
    }
    /// One rank's shard of `dense` parameters (over the shard ranks) and `experts` (over their expert-data group).
    double shardedParameters(double dense, double experts) const
    {
        return dense / double(shardRanks()) + experts / double(expertDataSize());
    }
    /// The parameters this rank's optimizer steps: its shard under ZeRO >= 1 (the distributed optimizer shards
    /// the dense parameters over the data x context ranks and each expert's over its expert-data group, as the
    /// memory model holds them), all of them without ZeRO.
    double optimizerParameters(double dense, double experts) const
    {
        return zeroStage >= 1 ? shardedParameters(dense, experts) : dense + experts;
    }

    friend bool operator==(const ParallelConfig &, const ParallelConfig &) = default;
};

/// Optional per-plan overrides of the device catalog's link and runtime figures.
struct ClusterOverrides
{
    std::optional<double> intraNodeBandwidthBytesPerSecond;
    std::optional<double> intraNodeLatencySeconds;
    std::optional<double> networkBandwidthBytesPerSecond;
    std::optional<double> networkLatencySeconds;
    std::optional<double> runtimeContextBytes;
    /// The host side of an offloaded optimizer: the GPU's link to host memory (PCIe, NVLink-C2C) and the
    /// node's host memory bandwidth.
    std::optional<double> hostLinkBandwidthBytesPerSecond;
    std::optional<double> hostMemoryBandwidthBytesPerSecond;
    /// The host's time to launch one kernel from the framework (Python dispatch, the library's setup, the
    /// CUDA launch).
    std::optional<double> hostLaunchSeconds;
    /// The host's time per kernel a library's native code enqueues inside one launch (a grouped GEMM's
    /// per-expert GEMMs).
    std::optional<double> hostEnqueueSeconds;
    /// The share of the scale-up link DeepEP's and HybridEP's dispatch and combine attain inside the NVLink
    /// domain.
    std::optional<double> flexDispatchEfficiency;
    /// The share of the network share NCCL's all-to-all (the expert dispatch and combine across scale-up domains)
    /// attains.
    std::optional<double> networkAllToAllEfficiency;
    /// The share of the scale-up link NCCL's all-to-all attains among many ranks of one NVLink domain.
    std::optional<double> intraNodeAllToAllEfficiency;

    friend bool operator==(const ClusterOverrides &, const ClusterOverrides &) = default;
};

/// Nodes of one kind in the cluster: `nodes` x (`gpusPerNode` x `device` joined by `intraNodeLink`).
struct NodeGroup
{
    std::string templateName; ///< the node template it came from ("DGX H100"); display only, may be empty
    std::string device;       ///< device id (catalog or the plan's custom devices)
    std::int64_t gpusPerNode = 8;
    std::int64_t nodes = 1;
    std::string intraNodeLink; ///< link id from the cluster catalog; empty: the device's own figures

    friend bool operator==(const NodeGroup &, const NodeGroup &) = default;
};

struct ClusterConfig
{
    std::string device; ///< catalog id (the first node group's device)
    std::int64_t gpusPerNode = 8;
    std::int64_t nodes = 1;   ///< all nodes of the cluster
    std::string intraNodeLink; ///< link id; empty: the device's own figures (the first node group's link)
    std::string network;       ///< network tier id; empty: the device's own figures
    ClusterOverrides overrides;
    /// Node groups in rank order. Empty: one group made of device / gpusPerNode / nodes / intraNodeLink.
    /// When set, setGroups() keeps device, gpusPerNode, nodes and intraNodeLink equal to the summary.
    std::vector<NodeGroup> nodeGroups;
    /// User-defined devices this plan uses, saved with it so the file works on any machine.
    std::vector<DeviceSpec> customDevices;
    /// GPUs joined by the scale-up fabric (NVLink): 0 means one node (gpusPerNode). A GB200 NVL72 rack
    /// joins 18 trays of 4 GPUs into one 72-GPU NVLink domain, so groups inside it use NVLink across trays.
    std::int64_t scaleUpDomain = 0;

    std::int64_t gpus() const;
    /// The GPUs one scale-up link joins: scaleUpDomain, or one node's GPUs when it is not set.
    std::int64_t fabricGpus() const { return scaleUpDomain > 0 ? scaleUpDomain : gpusPerNode; }
    /// The node groups in rank order (one group for a homogeneous cluster).
    std::vector<NodeGroup> groups() const;
    /// Replaces the groups and updates the summary keys (device, gpus_per_node, nodes, intra_node_link).
    /// A single group is stored in the summary keys alone unless it names a template.
    void setGroups(std::vector<NodeGroup> groups);
    /// Whether more than one device or intra-node link is in use.
    bool isMixed() const;

    /// Edits through the summary keys (the plan editor), keeping node groups consistent: the device and
    /// the GPUs per node apply to every group; a new node count resizes the last group (at least 1 node).
    void setDevice(const std::string &id);
    void setGpusPerNode(std::int64_t gpus);
    void setNodes(std::int64_t count);

    friend bool operator==(const ClusterConfig &, const ClusterConfig &) = default;
};

/// What a run costs beyond one step: the token budget, the price of a GPU-hour, checkpoint storage and
/// the failure rate (reference text: an audit reports checkpoint cost, failures, energy or device-hours).
struct RunConfig
{
    double tokenBudget = 300e9;        ///< tokens to train on (GPT-3 trained on 300 B tokens, Brown et al. 2020)
    double pricePerGpuHour = 2.0;      ///< currency units per GPU-hour; an assumption the user sets
    double checkpointBandwidthBytesPerSecond = 20e9; ///< what the storage system writes, all writers together
    bool shardedCheckpoint = true;     ///< every rank writes its shard; false: gathered to one writer
    double gpuMtbfHours = 50000;       ///< mean time between failures of one GPU (with its share of the host)
    double restartSeconds = 600;       ///< to detect a failure, restart and reload the last checkpoint
    std::string currency = "USD";      ///< of the price and the cost

    friend bool operator==(const RunConfig &, const RunConfig &) = default;
};

/// Eager PyTorch RMSNorm (six FP32 kernels, its FP32 upcast kept for backward) and rotary embedding (FP32
/// queries and keys): what the step's ops and the stored activations both follow.
inline bool runsEagerRmsNorm(const ModelSpec &m, const TrainingConfig &t)
{
    return !t.fusesNorm() && m.norm == NormKind::RmsNorm;
}
inline bool runsEagerRotary(const ModelSpec &m, const TrainingConfig &t)
{
    return !t.fusesElementwise() && m.position == PositionEmbedding::Rotary && !m.isMla();
}
/// Whether training.fused_rope decides how the rotary embedding runs: Megatron-Core's (or DeepSpeed's) rotary
/// positions with the other element-wise chains fused (under FSDP torch.compile decides; MLA's rotary part is
/// costed with its projections).
inline bool ropeFusionApplies(const ModelSpec &m, const TrainingConfig &t)
{
    return t.framework != Framework::Fsdp && t.fusesElementwise() && m.position == PositionEmbedding::Rotary &&
           !m.isMla();
}
/// Megatron-Core's unfused rotary embedding in 16 bits (training.fused_rope false): no FP32 copy, nothing kept
/// for backward beyond the cosines and sines.
inline bool runsUnfusedRotary(const ModelSpec &m, const TrainingConfig &t)
{
    return !t.fusedRope && ropeFusionApplies(m, t);
}
/// The modules a per-module recipe keeps in BF16 that take effect: the flag set, a FP8 or FP4 format to keep them
/// out of, and the module in the model (training.bf16_latent_projections: a latent MoE; training.bf16_mtp_modules:
/// MTP modules). The attention projections' flag needs only the format (opPrecision reads it per op).
/// The `...Apply` forms are whether the key can take effect at all (the window shows its box where they hold).
inline bool bf16LatentProjectionsApply(const ModelSpec &m, const TrainingConfig &t)
{
    return isLowPrecisionMatmul(t.precision) && m.moeLatentSize > 0;
}
inline bool bf16MtpModulesApply(const ModelSpec &m, const TrainingConfig &t)
{
    return isLowPrecisionMatmul(t.precision) && m.mtpLayers > 0;
}
inline bool keepsBf16LatentProjections(const ModelSpec &m, const TrainingConfig &t)
{
    return t.bf16LatentProjections && bf16LatentProjectionsApply(m, t);
}
inline bool keepsBf16Mtp(const ModelSpec &m, const TrainingConfig &t)
{
    return t.bf16MtpModules && bf16MtpModulesApply(m, t);
}
/// The width of K (and of V) the attention kernel and the context exchange see per token: the grouped heads'
/// (model.kv_heads x head_dim), or the query's when training.repeat_kv_heads repeats them first (GQA and MQA
/// under a PyTorch framework; MLA has as many key heads as query heads).
/// training.repeat_kv_heads can take effect: fewer key heads than query heads, under a PyTorch framework.
inline bool kvRepeatApplies(const ModelSpec &m, const TrainingConfig &t)
{
    return t.framework != Framework::Megatron && !m.isMla() && m.kvDim() < m.qDim();
}
inline bool expandsKvHeads(const ModelSpec &m, const TrainingConfig &t)
{
    return t.repeatKvHeads && kvRepeatApplies(m, t);
}
inline std::int64_t attentionKvDim(const ModelSpec &m, const TrainingConfig &t)
{
    return expandsKvHeads(m, t) ? m.qDim() : m.kvDim();
}
/// A clamped gated activation (model.activation_clamp) whose clamp runs as PyTorch ops ahead of the activation
/// kernel: Megatron-Core's quick-GEGLU (GPT-OSS) chunks the up projection's output, clamps each half and
/// concatenates them before its fused function, and the clamps keep their input for backward beside the fused
/// function's copy (megatron/core/fusions/fused_bias_geglu.py `weighted_bias_quick_geglu_impl`, from 2e29a5e1e,
/// September 2025, to d98e8a64d); eager PyTorch runs it so too; torch.compile fuses it into the activation.
inline bool runsEagerActivationClamp(const ModelSpec &m, const TrainingConfig &t)
{
    return m.activationClamp > 0 && m.mlp == MlpKind::SwiGlu && !(t.framework == Framework::Fsdp && t.compile);
}

struct Plan
{
    std::string name;
    std::string description;
    ModelSpec model;
    TrainingConfig training;
    ParallelConfig parallel;
    ClusterConfig cluster;
    RunConfig run;

    /// Micro-batches per pipeline per step: global / (micro x data). Meaningful once validated.
    std::int64_t microbatches() const;
    /// Micro-batches per run of the pipeline schedule: training.schedule_microbatches where it splits the
    /// step (framework fsdp with pipeline stages), else all of them.
    std::int64_t microbatchesPerRun() const;
    /// Runs of the pipeline schedule per step: microbatches() / microbatchesPerRun().
    std::int64_t scheduleRuns() const;
    /// Whether the layout allows Megatron-Core's deferred output-layer weight gradients
    /// (training.defer_embedding_wgrad): Megatron-Core with pipeline stages and no Megatron-FSDP.
    bool embeddingWgradDeferralAllowed() const;
    /// Micro-batches whose output-layer weight gradient the last stage defers to its drain (per run of the
    /// schedule): training.defer_embedding_wgrad's limit, or all of them; 0 where it is off or not allowed.
    std::int64_t deferredWgradMicrobatches() const;
    /// Transformer layers held by the most loaded pipeline rank (all its chunks).
    std::int64_t layersPerStage() const;
    /// Transformer layers held by pipeline rank `stage` (all its chunks): an even share, or the uneven
    /// split of parallel.first_stage_layers / last_stage_layers.
    std::int64_t layersOnStage(std::int64_t stage) const;
    /// The first layer of `stage` (stages taken as consecutive layers; interleaved chunks are counted as
    /// if contiguous for the dense/MoE mix, exact when the pattern repeats within a chunk).
    std::int64_t firstLayerOfStage(std::int64_t stage) const;
    /// Mixture-of-experts layers on `stage`.
    std::int64_t moeLayersOnStage(std::int64_t stage) const
    {
        return model.moeLayersIn(firstLayerOfStage(stage), layersOnStage(stage));
    }
    /// The blocks of `stage` by kind (ModelSpec::blocksIn over its layers).
    ModelSpec::BlockCounts blocksOnStage(std::int64_t stage) const
    {
        return model.blocksIn(firstLayerOfStage(stage), layersOnStage(stage));
    }
    /// Whether training.bf16_layers_at_start / _at_end can take layers out of the plan's format (a FP8 or FP4 format
    /// under Megatron-Core), and whether they do (a count above 0 besides).
    bool bf16LayersApply() const;
    bool keepsBf16Layers() const;
    /// The blocks of `stage` that run in BF16 under training.bf16_layers_at_start / _at_end (stages taken as
    /// consecutive layers, as firstLayerOfStage takes them); none unless keepsBf16Layers().
    ModelSpec::BlockCounts bf16BlocksOnStage(std::int64_t stage) const;
    /// Whether parallel.first_stage_layers, last_stage_layers or stage_layers set an uneven split.
    bool unevenStages() const;
    /// Whether parallel.stage_layers lists every stage's layers (one entry per pipeline stage).
    bool listedStages() const;
    /// Whether the framework shards inside a part of the data ranks (parallel.shard_group): FSDP2's HSDP,
    /// Megatron-Core's partial distributed optimizer (ZeRO 1), DeepSpeed's MiCS (ZeRO 3).
    bool shardGroupAllowed() const
    {
        return training.framework == Framework::Fsdp ||
               (training.framework == Framework::Megatron && parallel.zeroStage == 1) ||
               (training.framework == Framework::DeepSpeed && parallel.zeroStage == 3);
    }
    /// Whether ZeRO++'s options apply (parallel.zero_quantized_weights, zero_hpz_partition,
    /// zero_quantized_gradients): DeepSpeed's ZeRO-3.
    bool zeroPlusPlusAllowed() const
    {
        return training.framework == Framework::DeepSpeed && parallel.zeroStage == 3;
    }
    /// The ranks of hpZ's secondary group in effect: parallel.hpzRanks() where ZeRO++ applies, else 1 (off).
    std::int64_t secondaryGroupRanks() const { return zeroPlusPlusAllowed() ? parallel.hpzRanks() : 1; }
    /// The share of each rank's optimizer shard stepped on the host: 0 without optimizer offload; Megatron-Core's
    /// parallel.optimizer_offload_fraction; all of it under DeepSpeed and FSDP2.
    double hostOptimizerShare() const
    {
        if (!parallel.offloadOptimizer)
            return 0.0;
        return training.framework == Framework::Megatron ? parallel.optimizerOffloadFraction : 1.0;
    }
    /// Whether ZeRO-3's parameter shards may live in host memory (parallel.offload_parameters): DeepSpeed's
    /// offload_param ("Valid only with stage 3") and FSDP2's CPU offload; Megatron-Core offloads its optimizer only.
    bool parameterOffloadAllowed() const
    {
        return parallel.zeroStage == 3 && training.framework != Framework::Megatron;
    }
    /// With recompute "full": the layers of `stage` that keep only their input and are replayed in
    /// backward: all of them, training.recompute_layers per model chunk, or every recompute_interval-th; 0 otherwise.
    std::int64_t recomputedLayersOnStage(std::int64_t stage) const;
    /// recomputedLayersOnStage over the stage's layers (0 without full recomputation).
    double recomputedShare(std::int64_t stage) const;
    /// Layers per checkpointed chunk under full recomputation of every layer: training.recompute_chunk when it
    /// is in effect (no recompute_layers or recompute_interval), else 1.
    std::int64_t recomputeChunkInEffect() const;
    /// The inputs `stage` keeps per micro-batch under full recomputation of every layer: one per chunk of each
    /// model chunk's layers (one per layer unless recompute_chunk groups them).
    std::int64_t checkpointedInputsOnStage(std::int64_t stage) const;
    /// The same over all layers of the model.
    double recomputedShare() const;
    /// Layers of `stage` whose activations training.activation_offload_layers sends to host memory.
    std::int64_t offloadedLayersOnStage(std::int64_t stage) const;
    /// Whether Megatron-Core runs this plan with more than one hardware queue per GPU (CUDA_DEVICE_MAX_CONNECTIONS
    /// > 1): the expert all-to-all overlap needs it ("Requirements for EP A2A Overlap: expert_model_parallel_size >
    /// 1, CUDA_DEVICE_MAX_CONNECTIONS > 1", megatron/core/transformer/moe/README.md at d98e8a6), and Megatron-FSDP
    /// asserts it ("FSDP requires CUDA_DEVICE_MAX_CONNECTIONS > 1 or unset.", megatron/training/arguments.py).
    bool runsManyDeviceQueues() const;
    /// Whether the plan asks Megatron-Core for the expert all-to-all overlap (a mixture of experts over expert ranks).
    bool overlapsExpertAllToAll() const { return model.isMoe() && parallel.expertCommOverlap && parallel.expert > 1; }
    /// Whether parallel.tensor_comm_overlap is on but cannot hide anything on `device`: Megatron-Core's
    /// tensor-parallel overlap (Transformer Engine's userbuffers and its own asynchronous collectives) relies on
    /// one hardware queue on Hopper and earlier (DeviceSpec::overlapNeedsOneQueue, megatron/core/tensor_parallel/
    /// layers.py: "Use of this module requires that the environment variable CUDA_DEVICE_MAX_CONNECTIONS=1"),
    /// which runsManyDeviceQueues() rules out. The collectives then run after the GEMMs, exposed.
    bool tensorOverlapLost(const DeviceSpec &device) const;

    friend bool operator==(const Plan &, const Plan &) = default;
};

/// Layers each middle stage holds when the first and last of `p` stages hold `first` and `last` (0: an even
/// share, Megatron-Core's --decoder-first/last-pipeline-num-layers); 0 when no stage is in the middle.
std::int64_t middleStageLayers(std::int64_t layers, std::int64_t p, std::int64_t first, std::int64_t last);

/// The uneven split for `layers` that do not divide by `p` stages: the p - 2 middle stages take
/// ceil(layers / p) each and the first and last share the rest (the last the larger half, each at least one
/// layer, none above the middle; the smaller half with `lightLast`, for a last stage that also runs
/// multi-token-prediction modules); {0, 0} when there is none (fewer than 3 stages).
std::pair<std::int64_t, std::int64_t> unevenSplit(std::int64_t layers, std::int64_t p, bool lightLast = false);

/// Whether `v` chunks per stage fit the split: equal chunks of an even split; with an uneven one, the
/// middle stages' share divides by v and the first and last stages fill every chunk but the one the
/// embedding or the loss takes (Megatron-Core's --account-for-embedding/loss-in-pipeline-split).
bool interleavedChunksFit(std::int64_t layers, std::int64_t p, std::int64_t v, std::int64_t first, std::int64_t last);

/// Sets parallel.data to GPUs / (tensor x pipeline x context) when that is a whole number (sizes in range);
/// otherwise leaves it, for validation to explain. Used for a plan file without "data" and by the editor.
void deriveDataParallel(Plan &plan);

/// What an edit of one key brings along so that the plan stays whole, and why, as a note on the key it set
/// (rule "experts.top2_default" or "experts.none_routed", worded by io/plan/ProblemWords; nullopt: nothing):
/// a dense model given experts routes each token to the top two of them (Shazeer et al. 2017's and
/// Mixtral's top-2), since with none it is invalid at once; a model whose experts are removed routes to none.
std::optional<Problem> completeEdit(Plan &plan, std::string_view keyPath);

} // namespace trainplan
