#pragma once
// Time, energy and money to train a token budget, and the checkpoint cost: checkpoint size, write time,
// the optimal checkpoint interval (Young 1974; Daly 2006) for the cluster's failure rate, and the
// expected failures over the run.

#include "core/memory/MemoryModel.h"
#include "core/plan/Plan.h"
#include "core/step/StepModel.h"

namespace trainplan {

struct RunEstimate
{
    double steps = 0;               ///< optimizer steps: token budget / (global batch x sequence length)
    double trainingSeconds = 0;     ///< steps x step time, no failures
    double days = 0;
    double gpuHours = 0;            ///< GPUs x training hours
    double cost = 0;                ///< gpuHours x price per GPU-hour
    double busyFraction = 0;        ///< kernels (compute, recompute, optimizer) / step time
    double energyJoules = 0;        ///< GPUs x board power x busy fraction x training time (GPUs only)

    double checkpointBytes = 0;     ///< parameters + optimizer state of the whole model (gradients not saved)
    double checkpointBytesPerGpu = 0; ///< the largest shard one rank writes
    double checkpointWriteSeconds = 0;
    double clusterMtbfSeconds = 0;  ///< GPU MTBF / GPUs: failures are independent
    double youngIntervalSeconds = 0;   ///< sqrt(2 delta M)
    double checkpointIntervalSeconds = 0; ///< Daly's higher-order optimum
    double overheadFraction = 0;    ///< checkpoint writes + lost work + restarts, as a share of useful time
    double expectedFailures = 0;    ///< over the run, including the overhead
    double daysWithFailures = 0;    ///< days x (1 + overhead)
};

/// Pure function of a validated plan, its device (board power, links) and its estimates.
RunEstimate estimateRun(const Plan &plan, const DeviceSpec &device, const MemoryEstimate &memory,
                        const StepEstimate &step);

/// Daly (2006), Eq. 20: tau = sqrt(2 delta M) [1 + (1/3) sqrt(delta / 2M) + (1/9)(delta / 2M)] - delta
/// for delta < 2M, otherwise M. `delta` is the checkpoint write time, `mtbf` the system's MTBF.
double dalyInterval(double delta, double mtbf);

} // namespace trainplan
