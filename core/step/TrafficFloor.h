#pragma once
// The least time a step's communication can take on the links as built: the bytes every rank must move
// through its own links, at their nominal figures (the catalogue's or the plan's, before the calibrated
// efficiency), with no latency and no overhead. No estimate may be below it: the step's overlapped and
// exposed collectives all run inside the step, and those sharing a link share its bandwidth.
//
// An all-gather or reduce-scatter of a buffer S over n ranks, L of them in each of N scale-up domains:
// every domain must bring in the (N - 1)/N of S held elsewhere through its L network shares (NCCL's rings
// enter each domain once per channel and spread inside it over the scale-up link), and every rank must
// receive (n - 1)/n of S through its scale-up link and network share together. An all-reduce moves twice
// that, of which in-network reduction (SHARP, NVLink SHARP) saves at most half. An all-to-all's copies for
// other domains leave through the rank's own network share (each goes to one rank), the others over the
// scale-up link. A point-to-point transfer crosses one link.

#include <array>
#include <cstdint>

#include "core/comm/Collectives.h"
#include "core/common/EnumNames.h"
#include "core/plan/Plan.h"

namespace trainplan {

struct StepEstimate;
struct MemoryEstimate;
struct DeviceSpec;
struct ClusterLinks;

/// A collective's floor bytes per rank: the least that must cross its network share, and all it must
/// receive (through the network share and the scale-up link together).
struct FloorBytes
{
    double network = 0;
    double received = 0;
    FloorBytes &operator+=(const FloorBytes &o)
    {
        network += o.network;
        received += o.received;
        return *this;
    }
    FloorBytes operator*(double k) const { return {network * k, received * k}; }
    FloorBytes operator+(const FloorBytes &o) const { return {network + o.network, received + o.received}; }
};

/// The floor bytes of one collective of `bytes` (the full buffer, as collectiveSeconds() takes it).
FloorBytes collectiveFloorBytes(Collective collective, double bytes, const GroupPlacement &group);

/// The kinds of communication a step's floor is made of.
enum class FloorKind {
    ParameterGather, ///< ZeRO-3's gathers (forward and backward) and the distributed optimizer's
    GradientReduce,  ///< gradient all-reduce or reduce-scatter (buckets, ZeRO-3's per unit)
    Tensor,          ///< tensor-parallel collectives
    Context,         ///< context-parallel KV exchange
    Expert,          ///< expert dispatch and combine
    Pipeline,        ///< stage-to-stage transfers
    Offload,         ///< optimizer offload: gradients to the host and parameters back
};
constexpr auto enumNames(FloorKind)
{
    using N = EnumName<FloorKind>;
    return std::array{N{FloorKind::ParameterGather, "parameter_gather", "Parameter gathers"},
                      N{FloorKind::GradientReduce, "gradient_reduce", "Gradient reduction"},
                      N{FloorKind::Tensor, "tensor", "Tensor-parallel collectives"},
                      N{FloorKind::Context, "context", "Context-parallel exchange"},
                      N{FloorKind::Expert, "expert", "Expert all-to-all"},
                      N{FloorKind::Pipeline, "pipeline", "Pipeline transfers"},
                      N{FloorKind::Offload, "offload", "Host transfers (offload)"}};
}
inline const char *toString(FloorKind v) { return spellingOf(v); }
inline constexpr std::size_t kFloorKindCount = enumCount<FloorKind>();

/// One step's traffic floor on the pace stage's ranks.
struct TrafficFloor
{
    std::array<FloorBytes, kFloorKindCount> bytes{}; ///< per rank and step, by kind
    double networkBytesPerSecond = 0;  ///< the nominal per-GPU network share
    double scaleUpBytesPerSecond = 0;  ///< the nominal scale-up link per GPU
    double hostLinkBytesPerSecond = 0; ///< the nominal host link per GPU (offload: its bytes are `received`)
    /// ZeRO-3: the forward and backward passes each take at least their own gathers' (and reduce-scatters')
    /// floor or their compute, whichever is longer; the step at least their sum.
    double shardedPhasesSeconds = 0;
    double linksSeconds = 0; ///< the collectives' floor alone: the network's bytes, all received bytes, the host link's
    double seconds = 0; ///< the floor: the network's bytes over its rate, all received bytes over both links, the host
                        ///< link's, or the phases' sum
    FloorKind dominant = FloorKind::GradientReduce; ///< the kind with the most floor time
    /// One kind's floor on its own: its network bytes over the network share, or all it receives over both links.
    double secondsOf(FloorKind k) const;
};

/// The floor of a plan's step (validated plan, its device and links, memory and step estimates).
TrafficFloor trafficFloor(const Plan &plan, const DeviceSpec &device, const ClusterLinks &links,
                          const MemoryEstimate &memory, const StepEstimate &step);

} // namespace trainplan
