// The per-stage memory model through the public entry point estimate(Plan, Catalog): a breakdown checked
// by hand, invariants on seeded random plans, and the effect of each option.

#include <QRandomGenerator>
#include <QTest>

#include <algorithm>

#include "TestMain.h"
#include "TestSupport.h"
#include "core/estimate/Estimate.h"
#include "core/memory/ActivationMemory.h"
#include "core/memory/CachingAllocator.h"

using namespace trainplan;

namespace {
constexpr double GiB = 1024.0 * 1024.0 * 1024.0;

Estimate run(const Plan &plan)
{
    return estimate(plan, io::builtinCatalog());
}
} // namespace

class TestMemoryModel : public QObject
{
    Q_OBJECT

private slots:
    void gpt3TensorEightPipelineEightByHand();
    void componentsSumToPeak();
    void zeroStagesShardState();
    void offloadMovesOptimizerToHost();
    void recomputeOrdersActivations();
    void optimizerStepCanBeThePeak();
    void tiedEmbeddingsCopiedToLastStage();
    void fitsAgainstCapacity();
    void invalidPlanIsReportedNotEstimated();
    void allocatorBlocksFollowPyTorch();
    void threePeaksAreOrderedAndItemised();
    void fragmentationFollowsTheSchedule();
    void reserveFractionOverridesTheModel();
    void frameworksLayOutTheirBuffers();
    void tightWithinTheMargin();
    void cachingAllocatorSimulation();
    void deepSpeedMasterWeightFormats();
};

void TestMemoryModel::cachingAllocatorSimulation()
{
    constexpr double MiB = 1024.0 * 1024.0;
    CachingAllocatorSim a;
    // Two 7 MiB tensors share a 20 MiB segment; the 6 MiB left cannot take a third.
    const int x = a.allocate(7 * MiB, 0);
    a.allocate(7 * MiB, 0);
    QCOMPARE(a.reservedBytes(), 20 * MiB);
    a.allocate(7 * MiB, 0);
    QCOMPARE(a.reservedBytes(), 40 * MiB);
    QCOMPARE(a.allocatedBytes(), 21 * MiB);
    // A freed block is reused best-fit; segments are never returned.
    a.free(x);
    QCOMPARE(a.allocatedBytes(), 14 * MiB);
    a.allocate(5 * MiB, 1);
    QCOMPARE(a.reservedBytes(), 40 * MiB);
    // Small tensors come from 2 MiB segments.
    a.allocate(100, 2);
    QCOMPARE(a.reservedBytes(), 42 * MiB);
    // 11 MiB fits the 13 MiB left in the second segment; 12 MiB more gets a segment of its own.
    a.allocate(11 * MiB, 2);
    QCOMPARE(a.reservedBytes(), 42 * MiB);
    a.allocate(12 * MiB + 1, 2);
    QCOMPARE(a.reservedBytes(), 56 * MiB);
    QCOMPARE(a.segments().size(), std::size_t(4)); // two of 20 MiB, one of 2 MiB, one of 14 MiB

    // One layer of GPT-3 175B at t = 8 with sequence parallelism: 6 MiB tensors, three to a 20 MiB
    // segment. The simulation's segments hold what the closed form's blocks say, within the last
    // segment's unfilled tail.
    Plan plan = test::presetPlan("gpt3-175b", 8, 8, 8, 1, 1536);
    plan.training.recompute = Recompute::Selective;
    plan.training.sequenceParallel = true;
    const LayerSegments one = simulateLayerSegments(plan, 4);
    QCOMPARE(one.tensorsPerMicrobatch, 17);
    const double stored = 4 * 17 * 6 * MiB;
    QCOMPARE(one.modelBlockBytes, 4 * 17 * 20.0 / 3.0 * MiB);
    QVERIFY(one.allocator.allocatedBytes() >= stored);
    const double storedSegments = one.allocator.reservedBytes() - 2 * 2 * 2048.0 * 4 * 12288 / 8; // minus the two workspace blocks
    QVERIFY2(std::abs(storedSegments - one.modelBlockBytes) <= 20 * MiB, qPrintable(QString::number(storedSegments / MiB)));
}

void TestMemoryModel::allocatorBlocksFollowPyTorch()
{
    // c10/cuda/CUDACachingAllocator.cpp: 512-byte blocks; up to 1 MiB from the small pool; 1-10 MiB carved
    // from 20 MiB segments (the tail shared); from 10 MiB rounded up to 2 MiB.
    constexpr double MiB = 1024.0 * 1024.0;
    QCOMPARE(allocatorBlockBytes(0), 0.0);
    QCOMPARE(allocatorBlockBytes(100), 512.0);
    QCOMPARE(allocatorBlockBytes(513), 1024.0);
    QCOMPARE(allocatorBlockBytes(MiB), MiB);
    QCOMPARE(allocatorBlockBytes(3 * MiB), 20.0 / 6.0 * MiB);  // six to a segment
    QCOMPARE(allocatorBlockBytes(7 * MiB), 10 * MiB);          // two to a segment, 6 MiB left over
    QCOMPARE(allocatorBlockBytes(10 * MiB), 10 * MiB);
    QCOMPARE(allocatorBlockBytes(11 * MiB), 12 * MiB);
    QCOMPARE(allocatorBlockBytes(64 * MiB + 1), 66 * MiB);
}

void TestMemoryModel::threePeaksAreOrderedAndItemised()
{
    for (const char *example : {"gpt3-175b-tp8-pp8", "deepseek-v3-1024-h100", "llama3-70b-fsdp-256-h200", "llama2-7b-deepspeed-zero2-8-a100"}) {
        const Estimate e = run(test::examplePlan(example));
        QVERIFY2(e.valid, example);
        for (const StageMemory &s : e.memory.stages) {
            const double persistent = s.parametersBytes + s.gradientsBytes + s.optimizerBytes;
            QCOMPARE(s.allocatedBytes >= persistent + s.activationsBytes + s.otherOfKind(MemoryKind::Allocated) - 1.0, true);
            QVERIFY(s.allocatedBytes <= s.reservedBytes && s.reservedBytes < s.deviceBytes);
            QCOMPARE(s.deviceBytes, s.peakBytes);
            QCOMPARE(s.deviceBytes - s.reservedBytes, s.otherOfKind(MemoryKind::Device));
            // The peak phase's components sum to the device peak.
            QCOMPARE(persistent + s.activationsBytes + s.otherBytes, s.deviceBytes);
        }
        QCOMPARE(e.memory.deviceBytes, e.memory.peakBytes);
        QVERIFY(e.memory.allocatedBytes <= e.memory.reservedBytes && e.memory.reservedBytes < e.memory.deviceBytes);
    }
}

void TestMemoryModel::fragmentationFollowsTheSchedule()
{
    // GPT-3 175B, p = 8: under 1F1B stage 0 holds 8 micro-batches while later ones allocate and free, and
    // 7 of them pin 10% of their blocks; GPipe's backward frees after every allocation, so nothing is
    // pinned; expandable segments remap freed pages.
    Plan plan = test::presetPlan("gpt3-175b", 8, 8, 8, 1, 1536);
    plan.training.recompute = Recompute::Selective;
    const StageMemory oneF = run(plan).memory.stages[0];
    QCOMPARE(oneF.allocator.fragmentationBytes, kAllocatorPinnedShare * oneF.activationsBytes / 8 * 7);
    plan.parallel.schedule = Schedule::GPipe;
    const StageMemory gpipe = run(plan).memory.stages[0];
    QVERIFY(gpipe.activationsBytes > oneF.activationsBytes); // all 192 micro-batches in flight
    QCOMPARE(gpipe.allocator.fragmentationBytes, 0.0);
    plan.parallel.schedule = Schedule::OneFOneB;
    plan.training.expandableSegments = true;
    const StageMemory expandable = run(plan).memory.stages[0];
    QCOMPARE(expandable.allocator.fragmentationBytes, 0.0);
    QCOMPARE(expandable.allocator.roundingBytes, oneF.allocator.roundingBytes);
    QCOMPARE(expandable.allocatedBytes, oneF.allocatedBytes); // the tensors do not change
    QVERIFY(expandable.reservedBytes < oneF.reservedBytes);
}

void TestMemoryModel::reserveFractionOverridesTheModel()
{
    Plan plan = test::presetPlan("gpt3-175b", 8, 8, 8, 1, 1536);
    plan.training.allocatorReserveFraction = 0.05;
    const StageMemory s = run(plan).memory.stages[0];
    QVERIFY(s.allocator.fractionOverride);
    const double persistent = s.parametersBytes + s.gradientsBytes + s.optimizerBytes;
    QCOMPARE(s.otherTerm(OtherTerm::AllocatorReserve), 0.05 * (s.allocatedBytes - persistent));
    QCOMPARE(s.reservedBytes, s.allocatedBytes * 1.0 + 0.05 * (s.allocatedBytes - persistent));
}

void TestMemoryModel::frameworksLayOutTheirBuffers()
{
    // Llama 2 7B, data 8, ZeRO-2: Megatron-Core's buckets are views of its gradient buffer; DeepSpeed holds
    // two reduce buckets of 5e8 elements (capped by the gradient shard) and, at the optimizer step, an
    // all-gather bucket of 5e8 parameters.
    Plan plan = test::examplePlan("llama2-7b-deepspeed-zero2-8-a100");
    const StageMemory ds = run(plan).memory.stages[0];
    QCOMPARE(ds.otherTerm(OtherTerm::DataParallelBuckets), std::min(2 * 5e8 * 2, ds.gradientsBytes));
    plan.training.framework = Framework::Megatron;
    const StageMemory mg = run(plan).memory.stages[0];
    QCOMPARE(mg.otherTerm(OtherTerm::DataParallelBuckets), 0.0);
    QCOMPARE(ds.allocatedBytes - mg.allocatedBytes, ds.otherTerm(OtherTerm::DataParallelBuckets));
    plan.training.framework = Framework::DeepSpeed;
    plan.training.microBatch = 1;
    plan.training.globalBatch = 8;
    plan.training.optimizer = Optimizer::Sgd;
    plan.model.seqLen = 128; // activations small: the optimizer step is the peak
    const StageMemory step = run(plan).memory.stages[0];
    QCOMPARE(step.peakPhase, MemoryPhase::OptimizerStep);
    QCOMPARE(step.otherTerm(OtherTerm::FrameworkBuffers), 5e8 * 2);

    // FSDP2 (ZeRO-3): resharding after forward gathers one block and prefetches the next; keeping the
    // gathered blocks until backward holds all 80 of Llama 3 70B's (in place of the unit in use and the
    // prefetched one: here the 128,256 x 8,192 output projection with the final norm, the largest unit).
    Plan fsdp = test::examplePlan("llama3-70b-fsdp-256-h200");
    const StageMemory reshard = run(fsdp).memory.stages[0];
    fsdp.parallel.reshardAfterForward = false;
    const StageMemory keep = run(fsdp).memory.stages[0];
    const double block = layerParameters(fsdp.model).perTensorRank(1);
    const double unit = std::max(block, 128256.0 * 8192.0 + 8192.0); // the output matrix and the final norm
    QCOMPARE(keep.otherTerm(OtherTerm::ZeroGatheredParameters) - reshard.otherTerm(OtherTerm::ZeroGatheredParameters), 2 * (80 * block - unit));
    fsdp.parallel.zeroStage = 1;
    const Estimate refused = run(fsdp);
    QVERIFY(!refused.valid);
    QVERIFY(test::hasProblem(refused.problems, "training.framework", "ZeRO stage 3"));
}

void TestMemoryModel::deepSpeedMasterWeightFormats()
{
    // DeepSpeedExamples training/bf16_master_weight (README.md at 45b4b71): a 6.86 B GPT (32 layers of 4,096,
    // GELU MLP 4x, GPT-2's 50,257 tokens, untied output, train.py) on 4 H100, ZeRO-3, batch 1 of 512 tokens,
    // activation checkpointing; torch.cuda.memory_allocated and max_memory_allocated in GiB (gather_memory.py
    // divides by 1024^3). FP32 master weights and moments: 25.74 allocated, 31.38 peak; bf16_master_weights_and_
    // grads with bf16_optimizer_states: 16.17 and 18.93.
    Plan plan;
    plan.model = test::gptModel(32, 4096, 32, 50257, 512);
    plan.model.tiedEmbeddings = false;
    plan.cluster = test::presetPlan("llama2-7b", 1, 1, 4, 1, 1, "h100-sxm5-80gb").cluster;
    plan.cluster.gpusPerNode = 4;
    plan.parallel.data = 4;
    plan.parallel.zeroStage = 3;
    plan.training.precision = Precision::BF16;
    plan.training.framework = Framework::DeepSpeed;
    plan.training.recompute = Recompute::Full;
    plan.training.microBatch = 1;
    plan.training.globalBatch = 4;
    constexpr double GiB = 1024.0 * 1024.0 * 1024.0;
    const auto check = [](double predicted, double measured, double tolerance, const char *what) {
        QVERIFY2(std::abs(predicted / measured - 1) <= tolerance,
                 qPrintable(QStringLiteral("%1: %2 GiB predicted, %3 measured").arg(QLatin1String(what)).arg(predicted).arg(measured)));
    };
    const StageMemory fp32 = run(plan).memory.stages[0];
    check((fp32.parametersBytes + fp32.gradientsBytes + fp32.optimizerBytes) / GiB, 25.74, 0.03, "FP32 master, states");
    check(fp32.allocatedBytes / GiB, 31.38, 0.05, "FP32 master, peak");
    plan.training.masterWeights = MasterFormat::Bf16;
    plan.training.optimizerMoments = MomentFormat::Bf16;
    const StageMemory bf16 = run(plan).memory.stages[0];
    check((bf16.parametersBytes + bf16.gradientsBytes + bf16.optimizerBytes) / GiB, 16.17, 0.03, "BF16 master, states");
    // The gradients stay BF16 for the update: no FP32 copy of the gradient shard at the step (before: 22.35 GiB).
    QCOMPARE(bf16.otherTerm(OtherTerm::OptimizerWorkspace), 0.0);
    check(bf16.allocatedBytes / GiB, 18.93, 0.10, "BF16 master, peak");
}

void TestMemoryModel::tightWithinTheMargin()
{
    // Llama 3.1 405B as Meta ran it fits its 80 GiB within 5% of capacity: tight.
    Plan plan = test::examplePlan("llama3.1-405b-16384-h100");
    const MemoryEstimate m = run(plan).memory;
    QVERIFY(m.fits);
    QVERIFY(m.tight);
    QCOMPARE(m.marginBytes, 0.05 * m.capacityBytes);
    QVERIFY(m.headroomBytes() < m.marginBytes);
    const auto largest = largestComponents(m.stages[std::size_t(m.peakStage)], 3);
    QCOMPARE(largest.size(), std::size_t(3));
    QVERIFY(largest[0].second >= largest[1].second && largest[1].second >= largest[2].second);
    // The term that would push it over: the largest estimated one, and the growth that would.
    const MemoryPressure pressure = memoryPressure(m);
    QVERIFY(pressure.label);
    QCOMPARE(pressure.headroomBytes, m.headroomBytes());
    QCOMPARE(pressure.growthToOverflow, pressure.headroomBytes / pressure.bytes);
    const StageMemory &peak = m.stages[std::size_t(m.peakStage)];
    for (double other : peak.other)
        QVERIFY(other <= pressure.bytes);
    QVERIFY(peak.activationsBytes <= pressure.bytes);
    plan.training.memoryMargin = 0.01;
    const MemoryEstimate loose = run(plan).memory;
    QCOMPARE(loose.tight, loose.headroomBytes() < 0.01 * loose.capacityBytes);
}

void TestMemoryModel::gpt3TensorEightPipelineEightByHand()
{
    // GPT-3 175B, t = 8, p = 8, d = 8, micro-batch 1, global 1536, BF16 Adam, ZeRO 1, sequence parallel,
    // selective recompute, 1F1B: the built-in example. Every term written out from its formula.
    Plan plan = test::presetPlan("gpt3-175b", 8, 8, 8, 1, 1536);
    plan.training.recompute = Recompute::Selective;
    plan.training.sequenceParallel = true;
    plan.parallel.zeroStage = 1;
    const Estimate e = run(plan);
    QVERIFY(e.valid);
    QCOMPARE(e.memory.stages.size(), std::size_t(8));

    const double h = 12288, s = 2048, a = 96, V = 51200, t = 8, d = 8;
    const double layerPerRank = (12 * h * h + 7 * h) / t + 6 * h; // split weights/biases + replicated
    const double stage0Params = 12 * layerPerRank + V * h / t + s * h;
    const StageMemory &s0 = e.memory.stages[0];
    QCOMPARE(s0.parameterCount, stage0Params);
    QCOMPARE(s0.parametersBytes, 2 * stage0Params);
    QCOMPARE(s0.gradientsBytes, 2 * stage0Params);
    QCOMPARE(s0.optimizerBytes, 12 * stage0Params / d);

    // 1F1B: stage 0 holds p = 8 micro-batches of its 12 layers, each 34 sbh / t (Korthikanti Table 2),
    // plus the embedding dropout mask sbh / t per micro-batch.
    const double sbh = s * 1 * h;
    QCOMPARE(s0.activations.microbatchesInFlight, 8.0);
    QCOMPARE(s0.activationsBytes, 8 * (12 * 34 * sbh / t + sbh / t));

    const double context = 0.75 * GiB;
    // Megatron-Core's gradient buckets are views of its contiguous gradient buffer: nothing extra.
    const double buckets = 0;
    const double pipelineBuffers = 2 * 2 * sbh / t;
    const double scoresWorkspace = 5 * a * s * s / t;
    // Selective recompute stores no scores: one layer's backward holds the MLP-intermediate gradients,
    // 2 q b s ffn / t.
    const double backwardWorkspace = 2 * 2 * s * 4 * h / t;
    QCOMPARE(s0.otherTerm(OtherTerm::RuntimeContext), context);
    QCOMPARE(s0.otherTerm(OtherTerm::DataParallelBuckets), buckets);
    QCOMPARE(s0.otherTerm(OtherTerm::PipelineBuffers), pipelineBuffers);
    QCOMPARE(s0.otherTerm(OtherTerm::RecomputeWorkspace), scoresWorkspace);
    QCOMPARE(s0.otherTerm(OtherTerm::ZeroGatheredParameters), 0.0);
    QCOMPARE(s0.otherTerm(OtherTerm::BackwardWorkspace), backwardWorkspace);
    // The allocator: each stored tensor is 2 sbh / t = 6 MiB (sequence parallel), carved three to a
    // 20 MiB segment (6.67 MiB each): 17 of them per layer (34 sbh / t), 12 layers, 8 micro-batches; and
    // 7 of the 8 micro-batches held while later ones allocate and free pin 10% of their blocks.
    const double tensor = 2 * sbh / t;
    QCOMPARE(tensor, 6.0 * 1024 * 1024);
    const double rounding = 17 * 12 * 8 * (20.0 / 3.0 * 1024 * 1024 - tensor);
    QCOMPARE(s0.allocator.roundingBytes, rounding);
    const double fragmentation = 0.10 * s0.activationsBytes / 8 * 7;
    QCOMPARE(s0.allocator.fragmentationBytes, fragmentation);
    QCOMPARE(s0.otherTerm(OtherTerm::AllocatorReserve), rounding + fragmentation);
    // NCCL: the tensor group inside the node (16 channels), the data group across nodes (8), one pipeline
    // neighbour (2 channels x 4 MiB); each channel one receive connection of 4 MiB + 4.69 MiB + 0.5 MiB.
    const double connection = 4 * 1024 * 1024 + 120 * 640 * 8 * 8 + 8 * 512 * 8 * 16;
    QCOMPARE(s0.otherTerm(OtherTerm::NcclBuffers), 16 * connection + 8 * connection + 8.0 * 1024 * 1024);
    QCOMPARE(s0.otherTerm(OtherTerm::LibraryWorkspaces), 12.0 * 1024 * 1024); // A100: 3 x 4 MiB
    const double allocated = 2 * stage0Params + 2 * stage0Params + 12 * stage0Params / d + s0.activationsBytes + buckets
                             + pipelineBuffers + scoresWorkspace + backwardWorkspace;
    QCOMPARE(s0.allocatedBytes, allocated);
    QCOMPARE(s0.reservedBytes, allocated + rounding + fragmentation);
    QCOMPARE(s0.peakBytes, s0.reservedBytes + context + s0.otherTerm(OtherTerm::NcclBuffers) + 12.0 * 1024 * 1024);
    QCOMPARE(s0.deviceBytes, s0.peakBytes);

    // The last stage holds one micro-batch, plus the output side: 4sbh/t + 4sbV/t, and (tied embeddings)
    // its own copy of the word embedding.
    const StageMemory &s7 = e.memory.stages[7];
    QCOMPARE(s7.activations.microbatchesInFlight, 1.0);
    QCOMPARE(s7.activationsBytes, 12 * 34 * sbh / t + 4 * sbh / t + 4 * s * V / t);
    QCOMPARE(s7.parameterCount, 12 * layerPerRank + 2 * h + V * h / t);
    QCOMPARE(e.memory.peakStage, std::int64_t(0));
    QVERIFY(e.memory.fits);
}

void TestMemoryModel::componentsSumToPeak()
{
    // Seeded random plans: components add up to the peak, the peak is the larger phase, the estimate's
    // peak is the largest stage, nothing is negative or non-finite.
    QRandomGenerator rng(20261129);
    const char *presets[] = {"gpt2-small", "gpt3-175b", "llama2-7b", "llama3-8b", "llama3-70b", "megatron-1t"};
    int checked = 0;
    for (int i = 0; i < 400; ++i) {
        const char *preset = presets[rng.bounded(int(std::size(presets)))];
        const std::int64_t t = std::int64_t(1) << rng.bounded(4);
        const std::int64_t p = std::int64_t(1) << rng.bounded(4);
        const std::int64_t d = std::int64_t(1) << rng.bounded(5);
        const std::int64_t b = std::int64_t(1) << rng.bounded(3);
        Plan plan = test::presetPlan(preset, t, p, d, b, b * d * p * (1 + rng.bounded(8)));
        plan.training.recompute = Recompute(rng.bounded(3));
        plan.training.sequenceParallel = rng.bounded(2);
        plan.training.flashAttention = rng.bounded(2);
        plan.training.precision = rng.bounded(2) ? Precision::BF16 : Precision::FP32;
        plan.parallel.zeroStage = rng.bounded(4);
        plan.parallel.offloadOptimizer = rng.bounded(4) == 0;
        plan.parallel.schedule = rng.bounded(2) ? Schedule::OneFOneB : Schedule::GPipe;
        const Estimate e = run(plan);
        if (!e.valid)
            continue; // e.g. tensor does not divide the heads of gpt2-small's 12 heads
        ++checked;
        double largest = 0;
        for (const StageMemory &s : e.memory.stages) {
            const double sum = s.parametersBytes + s.gradientsBytes + s.optimizerBytes + s.activationsBytes + s.otherBytes;
            QVERIFY(std::isfinite(sum));
            QVERIFY(std::abs(sum - s.peakBytes) <= 1e-9 * s.peakBytes);
            QCOMPARE(s.peakBytes, std::max(s.forwardBackwardBytes, s.optimizerStepBytes));
            for (double term : s.other)
                QVERIFY(term >= 0);
            QVERIFY(s.activations.storedBytes() > 0);
            largest = std::max(largest, s.peakBytes);
        }
        QCOMPARE(e.memory.peakBytes, largest);
        QCOMPARE(e.memory.fits, largest <= e.memory.capacityBytes);
    }
    QVERIFY2(checked > 200, qPrintable(QString::number(checked)));
}

void TestMemoryModel::zeroStagesShardState()
{
    Plan plan = test::presetPlan("llama3-8b", 1, 1, 8, 1, 64);
    double params[4], grads[4], opt[4];
    for (int stage = 0; stage <= 3; ++stage) {
        plan.parallel.zeroStage = stage;
        const StageMemory s = run(plan).memory.stages.front();
        params[stage] = s.parametersBytes;
        grads[stage] = s.gradientsBytes;
        opt[stage] = s.optimizerBytes;
        QCOMPARE(s.otherTerm(OtherTerm::ZeroGatheredParameters) > 0, stage == 3);
    }
    const double n = totalParameters(plan.model);
    QCOMPARE(params[0], 2 * n);
    QCOMPARE(opt[0], 12 * n);
    QCOMPARE(opt[1], 12 * n / 8);
    QCOMPARE(grads[1], 2 * n);
    QCOMPARE(grads[2], 2 * n / 8);
    QCOMPARE(params[2], 2 * n);
    QCOMPARE(params[3], 2 * n / 8);
}

/// DeepSpeed's ZeRO-Offload keeps the FP32 master copy and both moments on the host (12 bytes a parameter of
/// mixed-precision Adam leave the GPU, and the gradients' upcast with them); Megatron-Core's CPU optimizer steps
/// a host copy of the distributed optimizer's FP32 main parameters, which stay on the GPU: the moments of its
/// offloaded share leave (8 bytes a parameter at parallel.optimizer_offload_fraction 1, 2 at 0.25).
void TestMemoryModel::offloadMovesOptimizerToHost()
{
    Plan plan = test::presetPlan("llama2-7b", 1, 1, 1, 1, 8);
    const double n = double(run(plan).memory.stages.front().parameterCount);
    for (const Framework framework : {Framework::DeepSpeed, Framework::Megatron}) {
        plan.training.framework = framework;
        plan.parallel.offloadOptimizer = false;
        const StageMemory onDevice = run(plan).memory.stages.front();
        QCOMPARE(onDevice.optimizerBytes, 12.0 * n);
        plan.parallel.offloadOptimizer = true;
        plan.parallel.optimizerOffloadFraction = 1.0;
        const StageMemory offloaded = run(plan).memory.stages.front();
        const bool megatron = framework == Framework::Megatron;
        QCOMPARE(offloaded.optimizerBytes, megatron ? 4.0 * n : 0.0);
        QCOMPARE(offloaded.hostOptimizerBytes, onDevice.optimizerBytes);
        if (!megatron) // Megatron-Core upcasts its main gradients on the GPU still
            QCOMPARE(offloaded.otherTerm(OtherTerm::OptimizerWorkspace), 0.0);
        QVERIFY(offloaded.peakBytes < onDevice.peakBytes);
        if (megatron) {
            plan.parallel.optimizerOffloadFraction = 0.25;
            const StageMemory quarter = run(plan).memory.stages.front();
            QCOMPARE(quarter.optimizerBytes, 4.0 * n + 0.75 * 8.0 * n);
            QCOMPARE(quarter.hostOptimizerBytes, 0.25 * 12.0 * n);
        }
    }
}

void TestMemoryModel::recomputeOrdersActivations()
{
    Plan plan = test::presetPlan("gpt3-175b", 8, 8, 1, 1, 64);
    double stored[4];
    for (const Recompute r : {Recompute::None, Recompute::Selective, Recompute::Ops, Recompute::Full}) {
        plan.training.recompute = r;
        stored[int(r)] = run(plan).memory.stages.front().activations.storedBytes();
    }
    QVERIFY(stored[int(Recompute::None)] > stored[int(Recompute::Selective)]);
    QVERIFY(stored[int(Recompute::Selective)] > stored[int(Recompute::Ops)]);
    QVERIFY(stored[int(Recompute::Ops)] > stored[int(Recompute::Full)]);
    // GPT-3: 5as/h = 80, so selective recompute saves 80/(10 + 24/8 + 80/8) ... of the per-layer term
    // (Korthikanti Sec. 5 quotes 70% saved with sequence parallelism).
    plan.training.sequenceParallel = true;
    plan.training.recompute = Recompute::None;
    const double none = run(plan).memory.stages.front().activations.perLayerBytes;
    plan.training.recompute = Recompute::Selective;
    const double selective = run(plan).memory.stages.front().activations.perLayerBytes;
    const double saved = 1 - selective / none;
    QVERIFY2(std::abs(saved - 0.70) < 0.01, qPrintable(QString::number(saved)));
}

void TestMemoryModel::optimizerStepCanBeThePeak()
{
    // Full recompute and no ZeRO: the FP32 gradient copy of the update (4 bytes per local parameter)
    // outweighs the few stored layer inputs, so the optimizer step is the peak.
    Plan plan = test::presetPlan("gpt3-175b", 8, 8, 1, 1, 8);
    plan.training.recompute = Recompute::Full;
    plan.training.sequenceParallel = true;
    const StageMemory s = run(plan).memory.stages.back();
    QCOMPARE(s.peakPhase, MemoryPhase::OptimizerStep);
    QCOMPARE(s.activationsBytes, 0.0);
    QVERIFY(s.activations.storedBytes() > 0);
    QCOMPARE(s.otherTerm(OtherTerm::OptimizerWorkspace), 4 * s.parameterCount);
    // With FP32 gradients the update needs no upcast copy.
    plan.training.fp32Gradients = true;
    QCOMPARE(run(plan).memory.stages.back().otherTerm(OtherTerm::OptimizerWorkspace), 0.0);
}

void TestMemoryModel::tiedEmbeddingsCopiedToLastStage()
{
    Plan plan = test::presetPlan("gpt2-small", 1, 4, 1, 1, 8);
    const Estimate e = run(plan);
    const double vh = 50257.0 * 768;
    QVERIFY(e.memory.stages.back().parameterCount > vh);
    QVERIFY(e.memory.stages[1].parameterCount < vh);
    // Without a pipeline the output projection reuses the one embedding.
    const Estimate single = run(test::presetPlan("gpt2-small", 1, 1, 1, 1, 8));
    QCOMPARE(single.memory.stages.front().parameterCount, totalParameters(plan.model));
}

void TestMemoryModel::fitsAgainstCapacity()
{
    // Llama 3 70B replicated on one 80 GB GPU: 16 bytes x 70.6 B parameters alone is ~1.1 TB.
    const Estimate tooBig = run(test::presetPlan("llama3-70b", 1, 1, 1, 1, 1));
    QVERIFY(tooBig.valid);
    QVERIFY(!tooBig.memory.fits);
    QVERIFY(tooBig.memory.headroomBytes() < 0);
    QCOMPARE(tooBig.memory.capacityBytes, 80 * GiB);
    const Estimate small = run(test::presetPlan("gpt2-small", 1, 1, 1, 8, 8));
    QVERIFY(small.memory.fits);
}

void TestMemoryModel::invalidPlanIsReportedNotEstimated()
{
    Plan plan = test::presetPlan("gpt3-175b", 7, 8, 1, 1, 64); // 7 does not divide 96 heads
    const Estimate e = run(plan);
    QVERIFY(!e.valid);
    QVERIFY(hasErrors(e.problems));
    QVERIFY(e.memory.stages.empty());
}

TRAINPLAN_TEST_APPLESS_MAIN(TestMemoryModel)
#include "tst_memorymodel.moc"
