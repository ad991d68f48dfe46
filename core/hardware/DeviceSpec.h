#pragma once
// An accelerator as the estimators see it. Values come from resources/devices.json, each with its source.

#include <array>
#include <cstdint>
#include <string>

#include "core/common/Precision.h"

namespace trainplan {

/// Achieved fraction of a peak as a function of the work in one kernel:
///   efficiency(size) = max x size / (size + halfSize),
/// so a kernel of `size` takes (size + halfSize) / (peak x max): a fixed per-kernel cost (launch, tail,
/// wave quantisation) on top of the work at the best sustained rate. `max` comes from measured maximum
/// achievable matmul throughput where published; `halfSize` is calibrated on tests/data/validation.
struct EfficiencyCurve
{
    double max = 1.0;
    double halfSize = 0.0;

    double at(double size) const { return size > 0 ? max * size / (size + halfSize) : 0.0; }
    /// Seconds for `size` units of work at `peakRate` units per second.
    double seconds(double size, double peakRate) const { return size > 0 ? (size + halfSize) / (peakRate * max) : 0.0; }

    friend bool operator==(const EfficiencyCurve &, const EfficiencyCurve &) = default;
};

struct DeviceSpec
{
    std::string id;   ///< catalog id, e.g. "a100-sxm4-80gb"
    std::string name; ///< display name
    std::string source;
    /// The chip generation ("ampere", "hopper", "blackwell"): the error bands compare a plan with the published
    /// runs of its generation (core/estimate/Accuracy.h). Empty for a device no run was validated on.
    std::string generation;
    /// Whether a collective overlapped with the GEMM launched after it runs beside it only when the GPU keeps the
    /// host's launch order (one hardware queue, CUDA_DEVICE_MAX_CONNECTIONS=1): Hopper and earlier; Blackwell
    /// schedules them side by side with any number of queues. Megatron-Bridge's PerfEnvPlugin sets one queue on
    /// Hopper with tensor or context ranks "to schedule a communication kernel before the overlapping persistent
    /// GEMM kernel. Otherwise, communication kernel will be pushed to the end of the GEMM kernel, failing to
    /// overlap" and 32 on SM100 and newer (scripts/performance/perf_plugins.py
    /// `_set_num_cuda_device_max_connections` at 9c9dd84, v0.3.1).
    bool overlapNeedsOneQueue() const { return generation == "hopper" || generation == "ampere"; }

    /// Dense peak arithmetic throughput per precision in FLOP/s; 0 means the device has no such path.
    std::array<double, kPrecisionCount> peakFlopsPerSecond{};
    double memoryBytes = 0;                         ///< HBM capacity
    double memoryBandwidthBytesPerSecond = 0;       ///< HBM bandwidth
    double intraNodeBandwidthBytesPerSecond = 0;    ///< scale-up link (NVLink/XGMI), one direction, per GPU
    double networkBandwidthBytesPerSecond = 0;      ///< scale-out network share per GPU, one direction
    /// Memory the runtime takes before the model allocates anything: CUDA/HIP context, library
    /// workspaces (cuBLAS, NCCL). An explicit, per-device assumption, itemised in every estimate.
    double runtimeContextBytes = 0;
    double boardPowerWatts = 0;

    EfficiencyCurve matmulEfficiency; ///< size in FLOP per kernel
    EfficiencyCurve memoryEfficiency; ///< size in bytes per kernel
    /// Fused attention kernels (flash attention) reach this fraction of the matmul efficiency: their
    /// softmax and rescaling run on the vector units between the two matmuls.
    double attentionEfficiency = 1.0;
    /// FlashAttention-2's speed over the fused attention kernel attentionEfficiency describes (1 where FA2 is
    /// that kernel, as on Ampere). Hopper: 0.62, FA2's causal forward and backward against cuDNN's fused kernel
    /// in BF16 at head size 128 (Shah et al. 2024, FlashAttention-3, Figure 5: 0.59-0.63 at every length).
    double flash2AttentionShare = 1.0;
    /// FP8/FP4 matmuls reach this fraction of the efficiency BF16 ones do at the same size: the ratio of the
    /// measured maximum achievable FP8 and BF16 throughputs, each over its peak (MAMF, gpu_specs.csv).
    double lowPrecisionEfficiency = 1.0;
    /// NVFP4 matmuls' fraction of the BF16 efficiency at the same size, where it differs from the FP8 one
    /// (the FP4 recipe's 16-element block scales, Hadamard transforms and stochastic rounding around the
    /// GEMMs); 0: lowPrecisionEfficiency. Fitted on the NVFP4 rows (docs/CALIBRATION.md).
    double fp4Efficiency = 0.0;
    /// The efficiency share of a low-precision format: FP4's own where set, else the FP8 family's.
    double lowPrecisionShare(Precision p) const
    {
        return p == Precision::NVFP4 && fp4Efficiency > 0 ? fp4Efficiency : lowPrecisionEfficiency;
    }
    double intraNodeLatencySeconds = 0;  ///< per message step on the scale-up link
    double networkLatencySeconds = 0;    ///< per message step on the scale-out network
    double intraNodeEfficiency = 1.0;    ///< fraction of the scale-up link a collective attains (NCCL bus bandwidth)
    /// Fraction of the scale-up link's nominal rate the flex dispatchers' kernels (DeepEP, HybridEP) attain for a
    /// mixture of experts' dispatch and combine inside the NVLink domain, as their authors measure it through the
    /// PyTorch API: Hopper 0.96 (DeepEP README, normal kernels on H800: 153-158 of about 160 GB/s NVLink);
    /// Blackwell 0.56 (DeepEP hybrid-ep branch, docs/README_Hybrid-EP.md, GB200 NVL72 with 32 SMs at 8-36
    /// ranks: BF16 dispatch 479-546 and combine 448-569 GB/s of 900; B200: HybridEP 531-536, DeepEP at 32 SMs
    /// 524-619; DeepEP's V2 kernels, newer than the releases read here, 643-740 of 900 on SM100, its README). 1:
    /// the nominal rate (no measurement). Their RDMA path across nodes runs at the NIC's nominal.
    double flexDispatchEfficiency = 1.0;
    double networkEfficiency = 1.0;      ///< fraction of the network share a collective attains
    /// Fraction of the network share NCCL's all-to-all (a mixture of experts' dispatch and combine across scale-up
    /// domains) attains. Each of its copies for another domain leaves through the sending rank's own NIC, one
    /// point-to-point transfer per peer, so it cannot spread over the node's NICs as the rings do, nor is it held
    /// to what they reach: NCCL's maintainers put it at a single NIC's rate, 46-49 GB/s of NDR's 50
    /// (NVIDIA/nccl-tests#267). Fitted on the expert-parallel runs across nodes (docs/CALIBRATION.md, "NCCL's
    /// all-to-all across nodes"); 0: as networkEfficiency.
    double networkAllToAllEfficiency = 0;
    /// Share of the scale-up link NCCL's all-to-all reaches among many ranks of one NVLink domain (the limit of
    /// ncclAllToAllScaleUpShare): its point-to-point exchanges fall short of what the rings reach, the more so the
    /// more peers (rapidsai/rapidsmpf#590: NCCL's all-to-all bus bandwidth on 8-GPU B200 nodes, 1 GiB per GPU,
    /// 629, 446 and 383 GB/s of 900 at 2, 4 and 8 ranks). 0: as intraNodeEfficiency.
    double intraNodeAllToAllEfficiency = 0;
    double hostLinkBandwidthBytesPerSecond =
        0; ///< to host memory (PCIe or NVLink-C2C), one direction, per GPU (offload)
    /// The host's memory bandwidth per node (all its CPU sockets' DRAM channels, peak): an offloaded
    /// optimizer step streams every GPU's shard of the node through it. 0: unknown (offload then costs its
    /// transfers only, and says so).
    double hostMemoryBandwidthBytesPerSecond = 0;
    /// Streaming multiprocessors (compute units): the share NCCL's kernels take from overlapped compute.
    double multiprocessors = 0;
    /// The host CPU's time to launch one kernel of an eager training step from the framework (PyTorch's
    /// dispatch, Transformer Engine's and Megatron-Core's Python, the CUDA launch): a GPU whose kernels are
    /// shorter than that waits for its host unless CUDA graphs replay them. A property of the node's CPU
    /// (x86 or Grace), fitted on the runs without CUDA graphs (docs/CALIBRATION.md).
    double hostLaunchSeconds = 0;
    /// The host's time per kernel that a library's native code enqueues inside one such launch: Transformer
    /// Engine's GroupedLinear is one call whose C++ loop quantizes, allocates and runs a cuBLAS GEMM per local
    /// expert (its maintainers: "the CPU overheads of PyTorch ops, such as torch.split(), and torch.empty()
    /// (2x num_gemms calls)", NVIDIA/TransformerEngine#1499). Fitted with hostLaunchSeconds on the MoE runs.
    double hostEnqueueSeconds = 0;
    /// Host time exposed at every model-chunk pass of a pipelined schedule: the stage waits on the chunk's
    /// point-to-point receive, and only then launches its first kernels (framework and launch latency).
    double scheduleStepSeconds = 0;

    double peakFlops(Precision p) const { return peakFlopsPerSecond[std::size_t(p)]; }
    bool supports(Precision p) const { return peakFlops(p) > 0; }

    friend bool operator==(const DeviceSpec &, const DeviceSpec &) = default;
};

/// A link type of the cluster catalog: an intra-node (scale-up) link or a network tier (scale-out).
/// Bandwidth is per GPU and direction; the device's calibrated link efficiency still applies.
struct LinkSpec
{
    std::string id;   ///< e.g. "nvlink4-nvswitch", "ib-ndr"
    std::string name; ///< "NVLink 4 + NVSwitch"
    std::string source;
    double bandwidthBytesPerSecond = 0;
    double latencySeconds = 0;

    friend bool operator==(const LinkSpec &, const LinkSpec &) = default;
};

/// A node as users buy it: a device, how many per node and the link between them (DGX H100, ...).
struct NodeTemplate
{
    std::string id;
    std::string name;
    std::string device;        ///< catalog device id
    std::int64_t gpusPerNode = 8;
    std::string intraNodeLink; ///< LinkSpec id
    /// GPUs one scale-up (NVLink) domain joins across nodes: 72 for an NVL72 rack of 18 four-GPU trays; 0: a
    /// node. A template with a domain is placed a whole domain at a time.
    std::int64_t scaleUpDomain = 0;
    std::string source;

    friend bool operator==(const NodeTemplate &, const NodeTemplate &) = default;
};

} // namespace trainplan
