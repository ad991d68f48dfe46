#include "core/profile/ProfileComparison.h"

#include "core/compute/LayerOps.h"

#include <algorithm>
#include <cmath>

namespace trainplan {

namespace {

/// The class a profiler files an op's kernel under.
KernelClass kernelClassOf(const Op &op)
{
    if (op.attentionCore || op.kind == OpKind::Attention)
        return KernelClass::Attention;
    switch (op.kind) {
    case OpKind::Matmul: return KernelClass::Gemm;
    case OpKind::Optimizer: return KernelClass::Optimizer;
    default: return KernelClass::Elementwise;
    }
}

/// How often `stage`'s rank runs an op of one micro-batch in a step (step-scope ops: once).
double timesPerStep(const Plan &plan, const Op &op, std::int64_t stage)
{
    const double microbatches = double(plan.microbatches());
    const std::int64_t last = plan.parallel.pipeline - 1;
    switch (op.scope) {
    case OpScope::Embedding: return stage == 0 ? microbatches : 0.0;
    case OpScope::Output: return stage == last ? microbatches : 0.0;
    case OpScope::Step: return 1.0;
    case OpScope::Layer: break;
    }
    return microbatches * blocksOfPart(plan.blocksOnStage(stage), op.part);
}

} // namespace

EstimatedProfile estimatedProfile(const Plan &plan, const Estimate &estimate, std::int64_t stage)
{
    EstimatedProfile out;
    const StepEstimate &step = estimate.step;
    if (!estimate.valid || step.stages.empty())
        return out;
    stage = std::clamp<std::int64_t>(stage, 0, std::int64_t(step.stages.size()) - 1);
    for (const Op &op : step.ops)
        out.busySeconds[std::size_t(kernelClassOf(op))] += op.seconds * timesPerStep(plan, op, stage);
    const StageTime &st = step.stages[std::size_t(stage)];
    out.exposedCommunicationSeconds = double(plan.microbatches()) * (st.tensorCommSeconds + st.contextCommSeconds +
                                                                     st.expertCommSeconds + st.pipelineCommSeconds) +
                                      step.category(TimeCategory::DataComm);
    out.stepSeconds = step.stepSeconds;
    double busy = out.exposedCommunicationSeconds;
    for (double s : out.busySeconds)
        busy += s;
    out.idleSeconds = std::max(0.0, out.stepSeconds - busy);
    return out;
}

std::optional<double> ProfileRow::error() const
{
    if (!estimatedSeconds || !(measuredSeconds > 0))
        return std::nullopt;
    return *estimatedSeconds / measuredSeconds - 1.0;
}

ProfileComparison compareProfile(const MeasuredProfile &measured, const Plan &plan, const Estimate &estimate,
                                 std::int64_t stage)
{
    ProfileComparison out;
    out.stage = std::clamp<std::int64_t>(stage, 0, std::max<std::int64_t>(0, plan.parallel.pipeline - 1));
    out.estimated = estimatedProfile(plan, estimate, out.stage);
    const EstimatedProfile &e = out.estimated;
    std::vector<ProfileRow> both{{"step", "Step", measured.stepSeconds, e.stepSeconds},
                                 {"communication_exposed", "Communication (exposed)",
                                  measured.exposedCommunicationSeconds, e.exposedCommunicationSeconds},
                                 {"idle", "Idle (bubble, waits)", measured.idleSeconds, e.idleSeconds}};
    for (KernelClass c : {KernelClass::Gemm, KernelClass::Attention, KernelClass::Elementwise, KernelClass::Optimizer})
        both.push_back({spellingOf(c), labelOf(c), measured.busy(c), e.busy(c)});
    std::stable_sort(both.begin(), both.end(), [](const ProfileRow &a, const ProfileRow &b) {
        return std::abs(*a.estimatedSeconds - a.measuredSeconds) > std::abs(*b.estimatedSeconds - b.measuredSeconds);
    });
    std::vector<ProfileRow> measuredOnly;
    for (std::size_t i = 0; i < kKernelClassCount; ++i) {
        const auto c = KernelClass(i);
        if ((isCollective(c) || c == KernelClass::Memcpy || c == KernelClass::Unknown) && measured.busySeconds[i] > 0)
            measuredOnly.push_back({spellingOf(c),
                                    std::string(labelOf(c)) + (isCollective(c) ? " (busy, overlapped or not)" : ""),
                                    measured.busySeconds[i], std::nullopt});
    }
    std::stable_sort(measuredOnly.begin(), measuredOnly.end(),
                     [](const ProfileRow &a, const ProfileRow &b) { return a.measuredSeconds > b.measuredSeconds; });
    out.rows = std::move(both);
    out.rows.insert(out.rows.end(), measuredOnly.begin(), measuredOnly.end());
    return out;
}

} // namespace trainplan
