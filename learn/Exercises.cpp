#include "learn/Exercises.h"

#include <array>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "core/common/Units.h"
#include "core/compute/LayerOps.h"
#include "learn/NumberFormat.h"
#include "learn/Teaching.h"
#include "core/memory/ModelState.h"

namespace trainplan {

namespace {

std::string n(double v, int decimals)
{
    return units::formatNumber(v, decimals);
}

/// A bound as a reader writes it: 1000000 whole, 1e+15 in powers of ten (not 1000000000000000.000000).
std::string limit(double v)
{
    if (v == std::floor(v) && std::abs(v) < 1e7)
        return units::formatNumber(v, 0);
    std::ostringstream out;
    out << std::setprecision(6) << v;
    return out.str();
}

// Numeric exercises: each computes its answer and the working from the inputs (already in range).
using Solver = void (*)(const std::vector<double> &in, ExerciseAnswer &a);

void solve1(const std::vector<double> &in, ExerciseAnswer &a)
{
    const double bytes = in[0] * in[1];
    a.value = bytes / 1e9;
    a.working = {"M_state = P (q_p + q_g + q_o) = P x 16 bytes (2 FP16 parameters + 2 FP16 gradients + 4 FP32 master + "
                 "8 FP32 moments)",
                 n(in[0], 0) + " x " + n(in[1], 0) + " B = " + n(bytes, 0) + " bytes", "= " + n(a.value, 2) + " GB"};
    a.answer = n(a.value, 2) + " GB of persistent state (activations and workspaces excluded)";
}

void solve2(const std::vector<double> &in, ExerciseAnswer &a)
{
    const double P = in[0], W = in[1];
    const auto perWorker = [&](int stage) {
        return shardedModelState(P, StateBytesPerParameter::mixedPrecisionAdam(), W, stage).total();
    };
    a.working.push_back("Stage 0 (replicated): P x (2 + 2 + 12) = " + n(perWorker(0) / 1e9, 2) + " GB");
    a.working.push_back("Stage 1 shards the 12 optimizer bytes: P x (2 + 2 + 12/" + n(W, 0) +
                        ") = " + n(perWorker(1) / 1e9, 2) + " GB");
    a.working.push_back("Stage 2 also shards gradients: P x (2 + 2/" + n(W, 0) + " + 12/" + n(W, 0) +
                        ") = " + n(perWorker(2) / 1e9, 2) + " GB");
    a.working.push_back("Stage 3 also shards parameters: P x 16/" + n(W, 0) + " = " + n(perWorker(3) / 1e9, 2) + " GB");
    a.value = perWorker(3) / 1e9;
    a.answer = "ZeRO-1 " + n(perWorker(1) / 1e9, 2) + " GB, ZeRO-2 " + n(perWorker(2) / 1e9, 2) + " GB, ZeRO-3 " +
               n(a.value, 2) + " GB per worker";
}

void solve4(const std::vector<double> &in, ExerciseAnswer &a)
{
    const double bytes = in[0] * in[1] * in[2] * in[3];
    a.value = bytes;
    a.working = {"M_activation = B x S x H x q",
                 n(in[0], 0) + " x " + n(in[1], 0) + " x " + n(in[2], 0) + " x " + n(in[3], 0) + " B",
                 "= " + n(bytes, 0) + " bytes = " + n(bytes / 1e6, 1) + " MB = " + n(bytes / 1048576.0, 0) + " MiB"};
    a.answer = n(bytes / 1048576.0, 0) + " MiB (" + n(bytes, 0) + " bytes) for one such tensor";
}

void solve6(const std::vector<double> &in, ExerciseAnswer &a)
{
    a.value = in[0] * 1e12 / (in[1] * 1e12);
    a.working = {"I_ridge = P_peak / B_memory", n(in[0], 0) + " TFLOP/s / " + n(in[1], 1) + " TB/s",
                 "= " + n(a.value, 0) + " FLOP/byte"};
    a.answer = n(a.value, 0) + " FLOP/byte: kernels below it are bandwidth-bound";
}

void solve9(const std::vector<double> &in, ExerciseAnswer &a)
{
    const Rounded fp16 = roundTo(*numberFormat("FP16"), in[0]);
    const Rounded bf16 = roundTo(*numberFormat("BF16"), in[0]);
    a.value = bf16.value;
    a.working = {"FP16 largest finite value: (2 - 2^-10) x 2^15 = " + n(properties(*numberFormat("FP16")).maxFinite, 0),
                 "FP16(" + n(in[0], 0) + "): " + toString(fp16.outcome) +
                     (std::isinf(fp16.value) ? " to infinity" : ""),
                 "BF16 spacing at 2^" + std::to_string(std::ilogb(in[0])) + ": 2^" +
                     std::to_string(std::ilogb(in[0]) - 7) + " = " + n(bf16.spacing, 0),
                 "BF16(" + n(in[0], 0) + ") = " + n(bf16.value, 0) + " (relative error " +
                     n(100 * bf16.relativeError, 3) + "%)"};
    a.answer =
        "FP16 overflows; BF16 keeps it as " + n(bf16.value, 0) + " (" + n(100 * bf16.relativeError, 2) + "% off)";
    a.explanation =
        "FP16's 5 exponent bits end at 65,504; BF16 has FP32's 8 exponent bits and so its range, at 2-3 decimal "
        "digits of resolution.";
}

void solve10(const std::vector<double> &in, ExerciseAnswer &a)
{
    const int count = int(in[2]);
    const double bf16 = accumulate(*numberFormat("BF16"), in[0], in[1], count);
    const double fp32 = accumulate(*numberFormat("FP32"), in[0], in[1], count);
    a.value = bf16;
    const double spacing = roundTo(*numberFormat("BF16"), in[0]).spacing;
    const bool stalls = std::abs(in[1]) < 0.5 * spacing;
    a.working = {"BF16 spacing at " + n(in[0], 4) + ": 2^" + std::to_string(std::ilogb(spacing)) + " = " +
                     n(spacing, 7) + "; half of it, " + n(0.5 * spacing, 7) +
                     (stalls ? ", exceeds" : ", does not exceed") + " the increment " + n(in[1], 6),
                 std::string(stalls ? "so every BF16 partial sum rounds back"
                                    : "so BF16 partial sums grow, rounded at every step") +
                     ": the BF16 accumulator ends at " + n(bf16, 4),
                 "FP32 spacing there: 2^" + std::to_string(std::ilogb(roundTo(*numberFormat("FP32"), in[0]).spacing)) +
                     "; the FP32 accumulator ends at " + n(fp32, 4) + " (exact: " + n(in[0] + in[1] * count, 4) + ")"};
    a.answer = "BF16 accumulation: " + n(bf16, 4) + "; FP32 accumulation: " + n(fp32, 4);
    a.explanation =
        "Products of BF16 inputs are exact in FP32; summing them in FP32 keeps small contributions that a BF16 "
        "accumulator rounds away. Tensor cores therefore accumulate in FP32.";
}

void solve11(const std::vector<double> &in, ExerciseAnswer &a)
{
    const double S = in[0] / in[1];
    a.value = S;
    a.working = {"S(8) = T(1) / T(8) = " + n(in[0], 3) + " / " + n(in[1], 3) + " = " + n(S, 2),
                 "E(8) = S(8) / 8 = " + n(S / 8, 3)};
    a.answer = "speedup " + n(S, 2) + ", efficiency " + n(S / 8, 2);
}

void solve12(const std::vector<double> &in, ExerciseAnswer &a)
{
    const int W = int(in[2]);
    const ScalingCurve off = illustrativeScaling(in[0], in[1], false, W);
    const ScalingCurve on = illustrativeScaling(in[0], in[1], true, W);
    const double compute = 1.0 / W, comm = in[0] * std::log2(double(W)) + in[1] * (W - 1);
    a.value = off.speedup.back();
    a.working = {"compute(W) = 1/W = " + n(compute, 5) + "; communication(W) = a log2 W + b (W - 1) = " + n(comm, 5),
                 "no overlap: T(W) = compute + communication = " + n(compute + comm, 5) +
                     ", S = " + n(off.speedup.back(), 2) + ", E = " + n(off.efficiency.back(), 3),
                 "full overlap: T(W) = max(compute, communication) = " + n(std::max(compute, comm), 5) +
                     ", S = " + n(on.speedup.back(), 2) + ", E = " + n(on.efficiency.back(), 3)};
    a.answer = "at " + std::to_string(W) + " workers: S = " + n(off.speedup.back(), 2) + " without overlap, " +
               n(on.speedup.back(), 2) + " with it";
    a.explanation =
        "Once communication exceeds the shrinking compute time, overlap can only hide the compute part: both "
        "curves flatten, and without overlap every second of communication adds to the step.";
}

void solve14(const std::vector<double> &in, ExerciseAnswer &a)
{
    const double u = pipelineUtilisation(std::int64_t(in[0]), std::int64_t(in[1]));
    a.value = u;
    a.working = {"utilisation <= m / (m + p - 1)",
                 n(in[1], 0) + " / (" + n(in[1], 0) + " + " + n(in[0], 0) + " - 1) = " + n(in[1], 0) + "/" +
                     n(in[1] + in[0] - 1, 0),
                 "= " + n(u, 4) + " = " + n(100 * u, 1) + "%"};
    a.answer = n(100 * u, 1) + "% (bubble " + n(100 * (1 - u), 1) + "%)";
}

void solve19(const std::vector<double> &in, ExerciseAnswer &a)
{
    const double valid = in[0] * (1.0 - in[1]);
    a.value = valid;
    a.working = {
        "useful tokens/s = (tokens processed - padding tokens) / wall time = tokens/s x (1 - padding fraction)",
        n(in[0], 0) + " x (1 - " + n(in[1], 2) + ") = " + n(valid, 0) + " valid tokens/s"};
    a.answer = n(valid, 0) + " valid tokens/s";
    a.explanation =
        "Count only non-padding tokens that contribute to the loss, over wall time including input wait; report "
        "it with the sequence-length distribution and the packing method.";
}

const std::array<Solver, 23> kSolvers{nullptr, solve1,  solve2,  nullptr, solve4,  nullptr, solve6,  nullptr,
                                      nullptr, solve9,  solve10, solve11, solve12, nullptr, solve14, nullptr,
                                      nullptr, nullptr, nullptr, solve19, nullptr, nullptr, nullptr};

/// The answer to a question in words (exercises without a number).
const std::array<const char *, 23> kExplanations{
    nullptr,
    // 1
    nullptr,
    // 2
    nullptr,
    // 3
    "The 16-byte figure counts persistent state only. The peak also holds activations (which grow with "
    "micro-batch, sequence and layers held per stage), temporary workspaces, gathered parameters under ZeRO-3, "
    "communication buffers, the runtime context and allocator fragmentation; and the peak is reached at one "
    "moment of the step, not at its end. The memory chart itemises these for the current plan.",
    // 4
    nullptr,
    // 5
    "Capacity: the job fails with out-of-memory, or only runs with a smaller micro-batch, recomputation or "
    "sharding; memory in use sits at the device limit. Bandwidth: the job fits but kernels run far below peak "
    "FLOP/s with HBM throughput near its maximum (element-wise and normalisation kernels dominate the profile), "
    "and a larger micro-batch does not help.",
    // 6
    nullptr,
    // 7
    "An element-wise activation does a few FLOPs per element but reads and writes every element: about "
    "1 FLOP per 4 bytes in BF16, far left of the ridge point. A large matrix multiply reuses each loaded "
    "element n times: 2n^3 FLOPs over about 3n^2 x 2 bytes, n/3 FLOP/byte (2,731 for n = 8,192), right of the "
    "ridge. The roofline places the current plan's ops accordingly.",
    // 8
    "Unfused, the bias add writes its output, the activation reads it and writes its own, and dropout reads "
    "that and writes the result and its mask: two intermediate tensors are written and read back. Fused, the "
    "kernel reads the input once and writes the output (and the dropout mask) once; the two intermediate "
    "writes and their reads disappear. One may come back: the activation's backward needs its input (the "
    "pre-activation, bias included), so unless the backward recomputes it from the saved input, the fused "
    "kernel still writes that tensor once for the backward pass. Fusion removes the round trips through "
    "memory, not the tensors autograd saves.",
    // 9
    nullptr,
    // 10
    nullptr,
    // 11
    nullptr,
    // 12
    nullptr,
    // 13
    "A row-parallel matrix multiply leaves each rank with a partial sum of the full output; an all-reduce "
    "sums them (with sequence parallelism, a reduce-scatter that leaves each rank its sequence slice). "
    "Megatron-LM pairs it with a preceding column-parallel multiply so one all-reduce per block suffices.",
    // 14
    nullptr,
    // 15
    "Stages with the same number of layers still differ: the first also runs the embedding, the last the "
    "output projection over the vocabulary and the loss, which for large vocabularies costs several layers' "
    "worth; recomputation, uneven communication and memory pressure add more. The slowest stage sets the "
    "pace. The current plan's per-stage times show it.",
    // 16
    "Data parallelism: replicate the model, split the batch, all-reduce gradients (overlapped with the "
    "backward pass). Tensor or pipeline splits only add communication and bubbles when the model fits. The "
    "search on a small model confirms it: its best plans have tensor 1 and pipeline 1.",
    // 17
    "Shard the persistent state rather than the layers: ZeRO-3 / FSDP divides parameters, gradients and "
    "optimizer state by the data-parallel size while each layer is gathered only while it runs; ZeRO-1/2 or "
    "optimizer offload when sharding the optimizer alone suffices. Figure 16.2 shows the per-worker state.",
    // 18
    "Record per rank and step: the time the training loop waits for the next batch (input wait), kernel time "
    "on the compute stream, and collective time not overlapped by kernels (exposed communication), plus "
    "pipeline idle; check that they add up to the step. The step-time decomposition of the current plan is "
    "the model's version of that profile.",
    // 19
    nullptr,
    // 20
    "Run BF16 and an FP32 reference from the same seed and data order; record autocast policy, accumulator "
    "types, master weights and optimizer-state precision, collective precision, loss-scaling behaviour, "
    "non-finite checks and skipped steps; compare loss curves and validation metrics within a tolerance "
    "and include conversion overhead in speed. The precision audit table lists the current plan's formats.",
    // 21
    "Train on W workers, save a distributed (sharded) checkpoint with optimizer state and sampler position, "
    "restart on W' != W workers (and a different tensor/pipeline split), reshard on load, and check that "
    "parameters, optimizer state and the next batches match a run that never stopped, and that the loss "
    "continues within tolerance. Time the save and load: the checkpoint cost sets the interval.",
    // 22
    "Fix the workload and the quality target; for each system measure wall time and device-hours to reach "
    "the target validation quality (not just tokens/s), energy where available, failures and restarts, and "
    "the valid-token throughput; report the baseline, precision and hardware. The run-cost section gives "
    "the current plan's device-hours and energy.",
};

/// The reference text's exercises, its wording; inputs have the defaults the text states.
const std::vector<Exercise> kExercises{
    {1,
     "Estimate persistent mixed-precision Adam state for 500 million parameters under the chapter's 16-byte "
     "assumption.",
     true,
     {{"Parameters", 500e6, ""}, {"Bytes per parameter", 16, "B"}},
     Demo::PersistentState,
     "Mixed-precision Adam state for 500 M parameters"},
    {2,
     "Recalculate the per-worker state for ZeRO stages 1, 2, and 3 across four workers.",
     true,
     {{"Parameters", 500e6, ""}, {"Workers", 4, ""}},
     Demo::PersistentState,
     "ZeRO stages 1, 2 and 3 on four workers"},
    {3,
     "Explain why the estimate does not guarantee that the model will fit.",
     false,
     {},
     Demo::MemoryTerms,
     "Why an estimate does not guarantee a fit"},
    {4,
     "Calculate one activation tensor's memory for batch 8, sequence 2,048, hidden width 4,096, and BF16.",
     true,
     {{"Batch B", 8, ""}, {"Sequence S", 2048, ""}, {"Hidden H", 4096, ""}, {"Bytes per element q", 2, "B"}},
     Demo::None,
     "One activation tensor's memory"},
    {5,
     "Distinguish capacity from bandwidth using two observed training symptoms.",
     false,
     {},
     Demo::DiagnosticMap,
     "Capacity or bandwidth: two symptoms"},
    {6,
     "For peak throughput 200 TFLOP/s and bandwidth 2 TB/s, calculate the roofline ridge point.",
     true,
     {{"Peak", 200, "TFLOP/s"}, {"Bandwidth", 2, "TB/s"}},
     Demo::Roofline,
     "The roofline ridge point"},
    {7,
     "Explain why an element-wise activation is commonly more bandwidth-sensitive than a large matrix "
     "multiplication.",
     false,
     {},
     Demo::Roofline,
     "Why element-wise operations wait for memory"},
    {8,
     "Identify which intermediate writes can be removed by fusing bias, activation, and dropout.",
     false,
     {},
     Demo::Fusion,
     "The writes fusion removes"},
    {9,
     "Compare FP16 and BF16 for an activation whose magnitude can reach 10^8.",
     true,
     {{"Magnitude", 1e8, ""}},
     Demo::NumberFormats,
     "FP16 or BF16 for values up to 10^8"},
    {10,
     "Explain why FP32 accumulation can be useful when inputs use BF16.",
     true,
     {{"Start", 1, ""}, {"Increment", 0.001, ""}, {"Additions", 1000, "", 1, 1e6}},
     Demo::NumberFormats,
     "FP32 accumulation of BF16 inputs"},
    {11,
     "Given step times at one and eight workers, calculate speedup and efficiency.",
     true,
     {{"T(1)", 8, "s"}, {"T(8)", 1.25, "s"}},
     Demo::Scaling,
     "Speedup and efficiency from step times"},
    {12,
     "Modify the scaling simulation so communication cannot overlap and interpret the result.",
     true,
     {{"log2 term a", 0.012, "", 0.0}, {"linear term b", 0.0008, "", 0.0}, {"Workers W", 128, "", 1, 1 << 20}},
     Demo::Scaling,
     "Scaling when communication cannot overlap"},
    {13,
     "Describe the collective needed after a row-parallel matrix multiplication.",
     false,
     {},
     Demo::Parallelism,
     "The collective after a row-parallel multiply"},
    {14,
     "Calculate the forward pipeline utilisation bound for eight stages and 32 micro-batches.",
     true,
     {{"Stages p", 8, "", 1, 1e6}, {"Micro-batches m", 32, "", 1, 1e9}},
     Demo::None,
     "Forward pipeline utilisation, 8 stages"},
    {15,
     "Explain why equal layer counts can produce imbalanced pipeline stages.",
     false,
     {},
     Demo::StageTimes,
     "Equal layers, unequal pipeline stages"},
    {16,
     "Select a parallelism strategy for a model that fits on one device but needs higher data throughput.",
     false,
     {},
     Demo::Search,
     "A strategy for a model that fits one device"},
    {17,
     "Select a strategy for persistent state that exceeds one device while individual layers still fit.",
     false,
     {},
     Demo::PersistentState,
     "A strategy for state larger than one device"},
    {18,
     "Design a profile that separates input wait, computation, and exposed communication.",
     false,
     {},
     Demo::StepBreakdown,
     "A profile of input, computation and communication"},
    {19,
     "Define a useful-token throughput metric for variable-length sequences.",
     true,
     {{"Tokens/s (incl. padding)", 100000, ""}, {"Padding fraction", 0.25, "", 0.0, 0.999999}},
     Demo::None,
     "Useful-token throughput"},
    {20,
     "Design a precision audit comparing BF16 training with an FP32 reference.",
     false,
     {},
     Demo::PrecisionAudit,
     "A precision audit against FP32"},
    {21,
     "Specify a distributed-checkpoint test that changes the worker count on restart.",
     false,
     {},
     Demo::RunCost,
     "A checkpoint test that changes the worker count"},
    {22,
     "Design an end-to-end efficiency comparison that includes validation quality and device-hours.",
     false,
     {},
     Demo::RunCost,
     "An end-to-end efficiency comparison"},
};

} // namespace

const std::vector<Exercise> &exercises()
{
    return kExercises;
}

FusionTraffic fusionTraffic(const Plan &plan)
{
    const auto elementwiseBytes = [&](bool fused) {
        Plan p = plan;
        p.training.fusedKernels = fused;
        std::vector<Op> ops;
        appendMicrobatchOps(p, ops);
        double bytes = 0;
        for (const Op &op : ops)
            if (op.kind == OpKind::Elementwise)
                bytes += op.bytes;
        return bytes;
    };
    return {elementwiseBytes(false), elementwiseBytes(true)};
}

Plan exerciseSixteenPlan(const Catalog &catalog)
{
    Plan plan;
    if (const ModelSpec *model = catalog.model("gpt2-small"))
        plan.model = *model;
    plan.name = "GPT-2 small on 8 A100";
    plan.training.globalBatch = 512;
    plan.training.microBatch = 8;
    plan.cluster.device = "a100-sxm4-80gb";
    plan.cluster.gpusPerNode = 8;
    plan.cluster.nodes = 1;
    deriveDataParallel(plan);
    return plan;
}

ExerciseAnswer solveExercise(int number, std::vector<double> in)
{
    ExerciseAnswer a;
    const std::vector<Exercise> &list = exercises();
    if (number < 1 || number > int(list.size()))
        return a;
    const Exercise &ex = list[std::size_t(number - 1)];
    for (std::size_t i = in.size(); i < ex.inputs.size(); ++i)
        in.push_back(ex.inputs[i].value);
    for (std::size_t i = 0; i < ex.inputs.size(); ++i) {
        const ExerciseInput &input = ex.inputs[i];
        if (!(in[i] >= input.min && in[i] <= input.max)) { // NaN fails too
            a.answer = input.label + ": must be " +
                       (input.min > 0 && input.min < 1e-6 ? std::string("positive") : "at least " + n(input.min, 6)) +
                       " and at most " + limit(input.max);
            return a;
        }
    }
    if (const char *text = kExplanations[std::size_t(number)])
        a.explanation = text;
    if (const Solver solve = kSolvers[std::size_t(number)])
        solve(in, a);
    return a;
}

} // namespace trainplan
