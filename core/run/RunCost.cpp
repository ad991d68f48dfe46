#include "core/run/RunCost.h"

#include <algorithm>
#include <cmath>

#include "core/memory/ModelState.h"
#include "core/model/ModelSpec.h"

namespace trainplan {

double dalyInterval(double delta, double mtbf)
{
    if (!(delta > 0) || !(mtbf > 0))
        return 0.0;
    if (delta >= 2.0 * mtbf)
        return mtbf;
    const double ratio = delta / (2.0 * mtbf);
    return std::sqrt(2.0 * delta * mtbf) * (1.0 + std::sqrt(ratio) / 3.0 + ratio / 9.0) - delta;
}

RunEstimate estimateRun(const Plan &plan, const DeviceSpec &device, const MemoryEstimate &memory,
                        const StepEstimate &step)
{
    RunEstimate r;
    const RunConfig &run = plan.run;
    const double gpus = double(plan.cluster.gpus());
    const double tokensPerStep = double(plan.training.globalBatch) * double(plan.model.seqLen);
    r.steps = tokensPerStep > 0 ? run.tokenBudget / tokensPerStep : 0.0;
    r.trainingSeconds = r.steps * step.stepSeconds;
    r.days = r.trainingSeconds / 86400.0;
    r.gpuHours = gpus * r.trainingSeconds / 3600.0;
    r.cost = r.gpuHours * run.pricePerGpuHour;
    if (step.stepSeconds > 0)
        r.busyFraction = std::clamp((step.category(TimeCategory::Compute) + step.category(TimeCategory::Recompute)
                                     + step.category(TimeCategory::Optimizer))
                                        / step.stepSeconds,
                                    0.0, 1.0);
    r.energyJoules = gpus * device.boardPowerWatts * r.busyFraction * r.trainingSeconds;

    // Checkpoint: the parameters and the optimizer state (FP32 master weights and moments), not the
    // gradients. Every rank of a stage holds 1/(t d) of it with ZeRO >= 1, else data-parallel copies are
    // identical and one replica writes (Megatron-LM's distributed checkpoint: one writer per shard).
    const StateBytesPerParameter perParam =
        stateBytesPerParameter(plan.training);
    const double parameters = totalParameters(plan.model);
    r.checkpointBytes =
        parameters * (perParam.parameters - perParam.lowPrecisionCopies + perParam.optimizer); // no FP8 copies
    double largestStage = 0;
    for (const StageMemory &s : memory.stages)
        largestStage = std::max(largestStage, s.parameterCount);
    const double writersPerStage =
        plan.parallel.zeroStage >= 1 ? double(plan.parallel.data * plan.parallel.context) : 1.0;
    r.checkpointBytesPerGpu =
        largestStage * (perParam.parameters - perParam.lowPrecisionCopies + perParam.optimizer) / writersPerStage;
    if (run.shardedCheckpoint) {
        // All shard writers share the storage system's bandwidth.
        r.checkpointWriteSeconds =
            run.checkpointBandwidthBytesPerSecond > 0 ? r.checkpointBytes / run.checkpointBandwidthBytesPerSecond : 0.0;
    } else {
        // Gathered to one writer (a consolidated file from rank 0): everything passes one rank's network
        // share on its way to storage.
        const double rate = std::min(run.checkpointBandwidthBytesPerSecond, device.networkBandwidthBytesPerSecond);
        r.checkpointWriteSeconds = rate > 0 ? r.checkpointBytes / rate : 0.0;
    }

    // Failures: independent GPUs, so the cluster's MTBF is the GPU's divided by their count.
    r.clusterMtbfSeconds = gpus > 0 ? run.gpuMtbfHours * 3600.0 / gpus : 0.0;
    const double delta = r.checkpointWriteSeconds;
    const double M = r.clusterMtbfSeconds;
    r.youngIntervalSeconds = std::sqrt(2.0 * delta * M);
    r.checkpointIntervalSeconds = dalyInterval(delta, M);
    const double tau = r.checkpointIntervalSeconds;
    if (tau > 0 && M > 0) {
        // Per unit of useful work: writes delta/tau, and per failure (1/M per second of wall time) half an
        // interval of lost work plus the restart (first-order, Young 1974; Daly 2006 Sec. 2).
        r.overheadFraction = delta / tau + (0.5 * (tau + delta) + run.restartSeconds) / M;
    }
    r.daysWithFailures = r.days * (1.0 + r.overheadFraction);
    r.expectedFailures = M > 0 ? r.daysWithFailures * 86400.0 / M : 0.0;
    return r;
}

} // namespace trainplan
