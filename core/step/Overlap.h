#pragma once
// Communication that runs beside compute, as it really runs: per unit and per phase, never per step.
//
// ZeRO-3 / FSDP gathers each unit's parameters (a layer, the embedding, the output layer) just before the
// unit computes, prefetching the next unit's gather behind this unit's compute, and reduce-scatters each
// unit's gradients as soon as its backward is done. A gather longer than its neighbour's compute exposes
// the difference; the first gather of each pass and the last reduce-scatter are never hidden
// (Rajbhandari et al. 2020, ZeRO Sec. 7.2: "prefetch one layer ahead"; Zhao et al. 2023, PyTorch FSDP
// Sec. 3.3: backward prefetch of the next all-gather before the current reduce-scatter, one stream for
// both). The simulation below orders every gather and reduce-scatter on one communication stream and
// every unit on one compute stream, with the dependencies above.
//
// Overlapped collectives are not free: NCCL's kernels occupy streaming multiprocessors and move their
// bytes through HBM while the GEMMs beside them run. Megatron-Core lists the SMs its collectives take
// with NCCL user buffers (megatron_fsdp DistributedDataParallelConfig.nccl_ub: all-gather / reduce-scatter
// 4 / 5 SMs inside an NVLink domain, 16 / 16 across NVLink and InfiniBand, 1 / 4 over InfiniBand alone);
// the compute beside a collective loses that share of the SMs, and its memory-bound kernels the HBM
// bandwidth the collective's received and forwarded bytes take.

#include <vector>

#include "core/comm/Collectives.h"

namespace trainplan {

/// One unit ZeRO-3 gathers: its compute on this rank for one micro-batch (backward with any recompute)
/// and its collectives at the rates the collective model gives.
struct ShardedUnit
{
    double forwardSeconds = 0;
    double backwardSeconds = 0;
    double gatherSeconds = 0; ///< the unit's parameter all-gather
    double reduceSeconds = 0; ///< its gradients' reduce-scatter
    /// The backward's gather when it differs from the forward's (ZeRO++ hpZ gathers from a secondary group);
    /// negative: the same as gatherSeconds.
    double backwardGatherSeconds = -1;

    double backwardGather() const { return backwardGatherSeconds >= 0 ? backwardGatherSeconds : gatherSeconds; }
};

/// Exposed communication of one micro-batch's forward and backward passes, and what ran hidden.
struct ShardedExposure
{
    double forward = 0;  ///< the forward pass's end minus its compute
    double backward = 0; ///< the backward pass's end (last reduce-scatter included) minus its compute
    double commSeconds = 0;   ///< every gather and reduce-scatter of the micro-batch
    double hiddenSeconds = 0; ///< the part of them that ran beside compute
};

/// The two streams of one micro-batch. `gatherForBackward`: the parameters were freed after the forward
/// (reshard_after_forward, ZeRO-3's default) and are gathered again in backward; `prefetch`: the next
/// unit's gather starts when this unit starts computing (otherwise only when it is done, so nothing of
/// the gathers is hidden). Units in forward order.
ShardedExposure shardedExposure(const std::vector<ShardedUnit> &units, bool gatherForBackward, bool prefetch);

/// Streaming multiprocessors an NCCL all-gather or reduce-scatter over this group occupies while it runs
/// (Megatron-Core's table above; the larger of the two collectives).
double collectiveMultiprocessors(const GroupPlacement &group);

/// What overlapped collectives cost the compute beside them: `hiddenSeconds` of collectives over `group`
/// take collectiveMultiprocessors(group) of `multiprocessors` SMs, and `hbmSeconds` (their bytes through
/// HBM at its sustained rate) from the `memoryBoundShare` of the compute that is memory-bound.
double overlapSlowdown(double hiddenSeconds, const GroupPlacement &group, double multiprocessors, double hbmSeconds,
                       double memoryBoundShare);

} // namespace trainplan
