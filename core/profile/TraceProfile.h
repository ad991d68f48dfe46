#pragma once
// What a profiler trace measured (trainplan profile, Tools > Compare with a Profiler Trace): the GPU kernels
// of one device, classified by name (GEMM, attention, element-wise, optimizer, memory copies, NCCL by
// collective), summed per class and per step, with the communication left exposed (collective time when no
// other kernel runs) and the idle time (no kernel at all). io/measure/KinetoTrace reads PyTorch profiler traces
// into a TraceInput; core/profile/ProfileComparison sets the result beside an estimate.

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/common/EnumNames.h"
#include "core/common/Problem.h"

namespace trainplan {

enum class KernelClass {
    Gemm,
    Attention,
    Elementwise, ///< element-wise, norms, reductions, casts, permutes, the loss, fused Triton kernels
    Optimizer,   ///< multi-tensor Adam and its gradient norm
    Memcpy,      ///< copies and memsets
    AllReduce,
    AllGather,
    ReduceScatter,
    SendRecv,    ///< pipeline send/receive (NCCL runs an all-to-all as grouped send/receive too)
    AllToAll,    ///< explicit all-to-all kernels (DeepEP dispatch and combine)
    Broadcast,
    OtherCollective,
    Unknown,     ///< a name no rule knows: counted, and listed in the warnings
};
constexpr auto enumNames(KernelClass)
{
    using N = EnumName<KernelClass>;
    return std::array{N{KernelClass::Gemm, "gemm", "GEMM"},
                      N{KernelClass::Attention, "attention", "Attention"},
                      N{KernelClass::Elementwise, "elementwise", "Element-wise, norms, loss"},
                      N{KernelClass::Optimizer, "optimizer", "Optimizer"},
                      N{KernelClass::Memcpy, "memcpy", "Memory copies"},
                      N{KernelClass::AllReduce, "all_reduce", "NCCL all-reduce"},
                      N{KernelClass::AllGather, "all_gather", "NCCL all-gather"},
                      N{KernelClass::ReduceScatter, "reduce_scatter", "NCCL reduce-scatter"},
                      N{KernelClass::SendRecv, "send_recv", "NCCL send/receive"},
                      N{KernelClass::AllToAll, "all_to_all", "All-to-all (dispatch, combine)"},
                      N{KernelClass::Broadcast, "broadcast", "NCCL broadcast"},
                      N{KernelClass::OtherCollective, "other_collective", "Other collectives"},
                      N{KernelClass::Unknown, "unknown", "Unclassified kernels"}};
}
inline const char *toString(KernelClass v) { return spellingOf(v); }
inline constexpr std::size_t kKernelClassCount = enumCount<KernelClass>();

constexpr bool isCollective(KernelClass c) { return c >= KernelClass::AllReduce && c <= KernelClass::OtherCollective; }

/// The class of a kernel by its name (`copy`: the trace files it as a memory copy or memset).
KernelClass classifyKernel(std::string_view name, bool copy = false);

/// One GPU activity of the trace; times in seconds.
struct TraceKernel
{
    std::string name;
    double start = 0, duration = 0;
    int device = 0;
    bool copy = false;
};

/// What a trace reader found: the kernels, the profiler's step spans and what it could not read.
struct TraceInput
{
    std::vector<TraceKernel> kernels;
    std::vector<std::pair<double, double>> steps; ///< (start, duration) of each ProfilerStep#N, seconds
    std::vector<std::string> warnings;
};

/// Per step, on one device.
struct MeasuredProfile
{
    int device = 0;
    int steps = 1;
    double stepSeconds = 0;
    std::array<double, kKernelClassCount> busySeconds{}; ///< kernel time per class
    double exposedCommunicationSeconds = 0;              ///< collectives while no other kernel runs
    double idleSeconds = 0;                              ///< no kernel at all
    std::size_t kernelCount = 0;
    std::vector<std::pair<std::string, double>> unknownKernels; ///< name, seconds per step; the largest first
    /// The trace reader's warnings (its own words) and this comparison's (rule ids "trace.*", worded by
    /// io/plan/ProblemWords).
    Problems warnings;

    double busy(KernelClass c) const { return busySeconds[std::size_t(c)]; }
};

/// Sums the trace per class and step. `steps`: how many steps it holds (default: its ProfilerStep spans,
/// else one with a warning); `device`: which GPU (default: the first with kernels; others are named in a
/// warning).
MeasuredProfile measureProfile(const TraceInput &trace, std::optional<int> steps = std::nullopt,
                               std::optional<int> device = std::nullopt);

} // namespace trainplan
