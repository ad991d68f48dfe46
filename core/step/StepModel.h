#pragma once
// Step time of a plan: per-micro-batch stage times from the op list and the collectives, the pipeline
// schedule (analytic bubble (p - 1)/(v m) until the pipeline simulator lands), data-parallel gradient
// synchronisation with bucketed overlap, the optimizer; throughput, MFU/HFU and the limiting resource.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/comm/Collectives.h"
#include "core/compute/Op.h"
#include "core/hardware/DeviceSpec.h"
#include "core/memory/MemoryModel.h"
#include "core/pipeline/PipelineSimulator.h"
#include "core/plan/Plan.h"
#include "core/common/EnumNames.h"
#include "core/step/TrafficFloor.h"

namespace trainplan {

/// Categories of the step-time decomposition (reference text Level 3: compute, memory stalls,
/// exposed communication, other). They add up to the step time.
enum class TimeCategory {
    Compute,          ///< forward and backward kernels (arithmetic and memory movement)
    Recompute,        ///< forward kernels replayed by activation recomputation
    TensorComm,       ///< tensor-parallel collectives (not overlapped)
    ContextComm,      ///< context-parallel KV exchange not hidden behind attention
    ExpertComm,       ///< expert-parallel all-to-all (token dispatch and combine)
    PipelineComm,     ///< activations and gradients between stages
    PipelineBubble,   ///< fill and drain of the pipeline
    DataComm,         ///< exposed data-parallel / ZeRO communication
    Optimizer,        ///< optimizer update (and host transfers with offload)
    HostLaunch,       ///< the GPU waiting for its host to launch kernels (no or partial CUDA graphs)
    ActivationOffload, ///< activation copies to and from host memory beyond the compute they hide behind
    Other,
};
constexpr auto enumNames(TimeCategory)
{
    using N = EnumName<TimeCategory>;
    return std::array{N{TimeCategory::Compute, "compute", "Compute"},
                      N{TimeCategory::Recompute, "recompute", "Recompute"},
                      N{TimeCategory::TensorComm, "tensor_comm", "Tensor-parallel communication"},
                      N{TimeCategory::ContextComm, "context_comm", "Context-parallel communication (exposed)"},
                      N{TimeCategory::ExpertComm, "expert_comm", "Expert all-to-all (exposed)"},
                      N{TimeCategory::PipelineComm, "pipeline_comm", "Pipeline communication"},
                      N{TimeCategory::PipelineBubble, "pipeline_bubble", "Pipeline bubble"},
                      N{TimeCategory::DataComm, "data_comm", "Data-parallel communication (exposed)"},
                      N{TimeCategory::Optimizer, "optimizer", "Optimizer"},
                      N{TimeCategory::HostLaunch, "host_launch", "Host launch (exposed)"},
                      N{TimeCategory::ActivationOffload, "activation_offload", "Activation offload (exposed)"},
                      N{TimeCategory::Other, "other", "Other"}};
}
inline const char *toString(TimeCategory v) { return spellingOf(v); }
inline constexpr std::size_t kTimeCategoryCount = enumCount<TimeCategory>();

/// The limiting resource. The first four are the columns of the reference text's diagnostic map
/// (Figure 16.1); pipeline idle is a coordination symptom that the map files under communication.
enum class Bottleneck { Capacity, MemoryMovement, Arithmetic, Communication, PipelineIdle };
constexpr auto enumNames(Bottleneck)
{
    using N = EnumName<Bottleneck>;
    return std::array{N{Bottleneck::Capacity, "capacity", "Memory capacity"},
                      N{Bottleneck::MemoryMovement, "memory_movement", "Memory movement"},
                      N{Bottleneck::Arithmetic, "arithmetic", "Arithmetic"},
                      N{Bottleneck::Communication, "communication", "Communication"},
                      N{Bottleneck::PipelineIdle, "pipeline_idle", "Pipeline idle"}};
}
inline const char *toString(Bottleneck v) { return spellingOf(v); }
/// The diagnostic map's columns: every resource but pipeline idle.
inline constexpr std::size_t kDiagnosticColumnCount = 4;
/// The column a bottleneck belongs to (pipeline idle: communication).
constexpr Bottleneck diagnosticColumn(Bottleneck b)
{
    return b == Bottleneck::PipelineIdle ? Bottleneck::Communication : b;
}

/// The numbers behind the limiting resource (io/output/Evidence words them).
struct BottleneckEvidence
{
    double share = 0; ///< of the step: what the limiting resource takes (compute-bound kernels, bandwidth-bound
                      ///< kernels and the optimizer, exposed communication, or the bubble)
    double mfu = 0;
    double tensorShare = 0, pipelineShare = 0, dataShare = 0; ///< exposed communication by kind, of the step
    double contextShare = 0;
    double expertShare = 0;
    std::int64_t stage = 0;   ///< capacity: the stage with the least headroom
    double peakBytes = 0;     ///< capacity: its peak
    double capacityBytes = 0; ///< capacity: its device's memory
};

struct StageTime
{
    double forwardSeconds = 0;   ///< one micro-batch, kernels only
    double backwardSeconds = 0;
    double recomputeSeconds = 0;
    double tensorCommSeconds = 0;
    double tensorCommForwardSeconds = 0; ///< the forward part of tensorCommSeconds
    double pipelineCommSeconds = 0;
    double contextCommSeconds = 0;        ///< context-parallel KV exchange left exposed, forward and backward
    double contextCommForwardSeconds = 0; ///< the forward part of contextCommSeconds
    double expertCommSeconds = 0;         ///< expert-parallel dispatch and combine, forward and backward
    double expertCommForwardSeconds = 0;  ///< the forward part of expertCommSeconds
    double weightGradientSeconds = 0; ///< the weight-gradient matmuls inside backwardSeconds (ZB-H1's W)
    double hostSeconds = 0;        ///< the GPU waiting for its host's kernel launches, forward and backward
    double hostForwardSeconds = 0; ///< the forward part of hostSeconds
    double offloadSeconds = 0;        ///< activation offload copies beyond the layers' compute, forward and backward
    double offloadForwardSeconds = 0; ///< the forward part of offloadSeconds
    /// Work the stage runs once per run of the schedule after its last backward: the last stage's deferred
    /// output-layer weight gradients (training.defer_embedding_wgrad), taken out of backwardSeconds, which
    /// then holds the per-micro-batch average of what remains.
    double drainSeconds = 0;
    double microbatchSeconds() const
    {
        return forwardSeconds + backwardSeconds + recomputeSeconds + tensorCommSeconds + contextCommSeconds +
               expertCommSeconds + pipelineCommSeconds + hostSeconds + offloadSeconds;
    }
};

struct StepEstimate
{
    double stepSeconds = 0;
    std::array<double, kTimeCategoryCount> breakdown{}; ///< seconds per category, summing to stepSeconds
    std::vector<StageTime> stages;
    std::int64_t slowestStage = 0;

    double tokensPerSecond = 0;
    double validTokensPerSecond = 0;
    double modelFlopsPerStep = 0;    ///< 3 x forward, no recompute, whole job
    double hardwareFlopsPerStep = 0; ///< recompute counted
    double modelFlopsPerGpu = 0;     ///< per second
    double hardwareFlopsPerGpu = 0;
    double mfu = 0;
    double hfu = 0;
    double bubbleFraction = 0;       ///< idle stage-time / total stage-time over the pipeline part of the step
    /// The simulated schedule (empty when the pipeline was not simulated: one stage, or the analytic
    /// bubble was asked for).
    PipelineTimeline pipeline;

    Bottleneck bottleneck = Bottleneck::Arithmetic;
    BottleneckEvidence evidence;

    /// The ops of one micro-batch on the slowest stage's rank (layer ops once), timed: the roofline view.
    std::vector<Op> ops;

    /// The least time the step's communication can take on the links' nominal figures (stepSeconds is
    /// never below floor.seconds), and what the data-parallel part of it costs as modelled.
    TrafficFloor floor;
    double dataParallelHiddenSeconds = 0;   ///< data-parallel collectives that ran beside compute
    double dataParallelSlowdownSeconds = 0; ///< what they cost that compute (in the data_comm category)
    double hostUpdateSeconds = 0;           ///< offload: the host's optimizer update (in the optimizer category)

    double category(TimeCategory c) const { return breakdown[std::size_t(c)]; }
};

/// The evidence when capacity limits a plan: the stage's peak against its device's memory.
BottleneckEvidence capacityEvidence(const StageMemory &stage);

/// Link tiers the plan's groups use (device figures, plan overrides, link efficiency applied).
struct ClusterLinks
{
    LinkTier intraNode;
    LinkTier network;
    /// The links' own per-GPU figures (the plan's overrides, else the device's) before the calibrated
    /// efficiency: what the cluster fields show, and DeepEP's rate.
    double intraNodeNominalBytesPerSecond = 0;
    double networkNominalBytesPerSecond = 0;
    double nominalBytesPerSecond(bool crossesNodes) const
    {
        return crossesNodes ? networkNominalBytesPerSecond : intraNodeNominalBytesPerSecond;
    }
    GroupPlacement tensorGroup;
    GroupPlacement dataGroup;    ///< gradient reduction: data x context ranks
    GroupPlacement shardGroup;   ///< ZeRO-3's gathers and reduce-scatters: the data group, or HSDP's shard group
    GroupPlacement replicaGroup; ///< HSDP: the gradient shards' all-reduce across replicas (size 1 without it)
    GroupPlacement hpzGroup;     ///< ZeRO++ hpZ: the backward gathers' secondary group (size 1 without it)
    GroupPlacement contextGroup; ///< KV exchange of context parallelism
    GroupPlacement expertGroup;  ///< token all-to-all of expert parallelism (DeepEP: the network at its nominal rate)
    GroupPlacement expertTensorGroup; ///< the routed tokens' all-gather and reduce-scatter over expert tensor ranks
    GroupPlacement expertDataGroup; ///< the routed experts' gradient reduction and ZeRO sharding
    GroupPlacement stageGroup;   ///< all tensor x context x data ranks of a stage (FP8 amax reduction)
    LinkTier pipelineLink;
};
ClusterLinks clusterLinks(const Plan &plan, const DeviceSpec &device);

/// What PyTorch's async tensor parallelism (torch.compile's micro-pipeline TP pass, symmetric-memory
/// fused all-gather + matmul and matmul + reduce-scatter; torchtitan's `enable_async_tensor_parallel`) hides
/// of what an overlap of the whole exchange behind the linear GEMMs would. Not every exchange is fused: the pass
/// fuses a reduce-scatter only when a single matmul produces its input (torch/_inductor/fx_passes/
/// micro_pipeline_tp.py, fuse_matmul_reduce_scatter), and torchtitan's separate wq/wk/wv and w1/w3 projections
/// make the backward's input gradients sums of matmuls. The share is read from torchtitan's own A/B runs on
/// Grand Teton H100 (the same layout with and without async TP; hidden seconds measured over the overlap's ideal
/// hidden seconds on this model): benchmarks/asyncTP_llama3_h100_2025-06_torchtitan.md, Llama 3 70B on 256
/// GPUs (FSDP 32, TP 8, full AC) 0.41 in BF16 and 0.61 in float8 tensorwise, Llama 3 8B on 64 GPUs (FSDP 8,
/// TP 8, op-level AC) 0.44 and 0.45; llama3_h100_202412_torchtitan.md Table 4 (70B, float8, December 2024)
/// 0.23. The median of the five; their spread is the figure's uncertainty (docs/CALIBRATION.md).
inline constexpr double kTorchAsyncTpHiddenShare = 0.44;

/// Blocks whose tensor-parallel all-gather and reduce-scatter a MoE layer runs: its attention, and the shared
/// experts' MLP when it has them (a dense layer runs two; Megatron-Core's MoE layer routes the sequence-parallel
/// tokens where they are, so its routed MLP runs none).
inline double moeLayerTensorBlocks(const ModelSpec &model)
{
    return model.sharedExperts > 0 ? 2.0 : 1.0;
}

/// The routed token copies one rank gathers from its expert-tensor ranks per MoE layer and pass (bytes of the
/// gathered buffer): Megatron-Core's all-to-all dispatcher all-gathers the tokens that reached a rank over the
/// expert tensor group before the experts' GEMMs and reduce-scatters their outputs before the combine
/// (token_dispatcher.py, MoEAlltoAllTokenDispatcher: gather_from_sequence_parallel_region over tp_group in
/// dispatch_postprocess, reduce_scatter_to_sequence_parallel_region in combine_preprocess). 0 without expert
/// tensor parallelism or with the flex dispatchers, which fold the tensor ranks into their own dispatch.
double expertTensorGatherBytes(const Plan &plan);

/// What a pass's sequence-parallel all-gathers move of `activationBytes` (the activation format). With
/// torchao's float8 tensor parallelism (torchtitan's float8 linears under FSDP2: Float8ColwiseParallel and
/// PrepareFloat8ModuleInput, parallelize_llama.py apply_tp) the forward pass's sequence-parallel inputs are cast
/// to float8 before they are all-gathered, one byte per element, and the backward pass's gathers stay in the
/// activations' format. Transformer Engine (Megatron-Core) gathers in
/// the recipe's format in both passes: a column-parallel linear all-gathers its quantized input forward and
/// again for the weight gradient backward, and a row-parallel one its quantized output gradient
/// (transformer_engine/pytorch/module/linear.py at d0067d0: gather_along_first_dim with the input and
/// grad-output quantizers; distributed.py _all_gather_fp8, _all_gather_mxfp8, _all_gather_nvfp4, the last
/// since the NVFP4 recipe, TE 2.8). The reduce-scatters move the activations' format.
double gatherBytes(const Plan &plan, double activationBytes, bool forward);

/// One rank's routed tokens of one micro-batch as the dispatcher moves them, one copy each: the rank's share of the
/// sequence (over context and tensor ranks) x the routed width (a latent MoE's latent) x the busiest expert's load.
double routedTokenBytes(const Plan &plan);

/// The host figures the plan runs with: its override (cluster.host_launch_overhead,
/// cluster.host_enqueue_overhead, cluster.host_link_bandwidth), else the device's.
double hostLaunchSeconds(const Plan &plan, const DeviceSpec &device);
double hostEnqueueSeconds(const Plan &plan, const DeviceSpec &device);
double hostLinkBytesPerSecond(const Plan &plan, const DeviceSpec &device);
/// The share of the scale-up link DeepEP's and HybridEP's kernels attain inside the NVLink domain: the plan's
/// cluster.flex_dispatch_efficiency, else the device's.
double flexDispatchEfficiency(const Plan &plan, const DeviceSpec &device);
/// The share of the network share NCCL's all-to-all attains across nodes: the plan's
/// cluster.network_alltoall_efficiency, else the device's network_alltoall_efficiency, else (0 there) its
/// network_efficiency.
double networkAllToAllEfficiency(const Plan &plan, const DeviceSpec &device);
/// The share of the scale-up link NCCL's all-to-all reaches among `ranks` ranks of one NVLink domain: the plan's
/// cluster.intra_node_alltoall_efficiency, else the device's intra_node_alltoall_efficiency (its many-rank limit),
/// scaled up for few ranks (ncclAllToAllScaleUpShare) and held at its 8-rank share beyond the 8 ranks measured;
/// with neither, the rings' intra_node_efficiency.
double intraNodeAllToAllShare(const Plan &plan, const DeviceSpec &device, double ranks);
/// The figure cluster.intra_node_alltoall_efficiency sets and the Cluster dock shows: the plan's, else the device's
/// many-rank limit, else (no figure: no peer-count law) the rings' intra_node_efficiency.
double intraNodeAllToAllEfficiency(const Plan &plan, const DeviceSpec &device);
/// NCCL's all-to-all share of the scale-up link among `ranks` ranks, from its many-rank limit: limit x (1 + 0.836 /
/// (ranks - 1)), at most 1. The shape is NCCL's measured bus bandwidth on 8-GPU B200 nodes, 1 GiB per GPU (629, 446
/// and 383 GB/s of 900 at 2, 4 and 8 ranks, rapidsai/rapidsmpf#590): limit 0.38, within 2% at each point.
double ncclAllToAllScaleUpShare(double limit, double ranks);
/// The GPUs the expert dispatcher reaches over the scale-up link, the unit its expert group's nodes are counted
/// in: the node or NVLink domain, at most DeepEP's 8 NVLink peers (an NVL72 rack is 9 DeepEP "nodes").
std::int64_t expertDispatchDomain(const Plan &plan);

/// Expected number of distinct scale-up domains (nodes) a token's k routed copies reach when its experts
/// sit on the `nodes` domains of the expert group: uniform over the nodes its router may reach. Group-limited
/// routing (DeepSeek-V3 Sec. 2.1.2) confines a token to routerGroupTopk of the routerGroups contiguous
/// expert groups, and so to that many groups' nodes. Contiguous routing (ExpertRouting) sends token t to the
/// k consecutive experts from t k: the mean, over the starts the gate cycles through, of the domains (each
/// holding E / nodes consecutive experts) such a block spans.
double distinctDestinationNodes(const ModelSpec &model, double nodes, ExpertRouting routing);

/// The copies of one token that DeepEP's and HybridEP's dispatch (and combine) send out of its own unit, the
/// expert group's `units` nodes over the network or its `units` ranks over the scale-up link: one per distinct
/// destination unit other than its own (distinctDestinationNodes x (units - 1) / units), not one per routed
/// expert (DeepEP's layout marks each token once per rank, is_token_in_rank, and the intranode kernel sends it
/// once to each marked rank: deepseek-ai/DeepEP deep_ep/buffer.py line 304 and csrc/kernels/intranode.cu line
/// 291 at e02e4d2; HybridEP sizes a rank's receive buffer for every token once,
/// docs/Hybrid-EP_Implementation.md line 277 on its hybrid-ep branch).
double remoteDestinations(const ModelSpec &model, double units, ExpertRouting routing);

/// Pure function of a validated plan, its device and its memory estimate. With `simulatePipeline` the
/// pipeline part of the step is the makespan of the simulated schedule (core/pipeline); without it, the
/// analytic bubble (p - 1)/v of the slowest stage's micro-batch time (ZB-H1: without its W part).
/// `tensorWithinNode` is a what-if for the placement report: every tensor group on the scale-up link.
StepEstimate estimateStep(const Plan &plan, const DeviceSpec &device, const MemoryEstimate &memory,
                          bool simulatePipeline = true, bool tensorWithinNode = false);

} // namespace trainplan
