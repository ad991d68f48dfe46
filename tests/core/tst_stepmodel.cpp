// The step-time model: the reference text's roofline and scaling exercises, the collective cost model,
// and invariants of the step decomposition.

#include <QDir>
#include <QRandomGenerator>
#include <QTest>

#include <cmath>

#include "io/output/Evidence.h"
#include "TestMain.h"
#include "TestSupport.h"
#include "core/comm/Collectives.h"
#include "core/compute/LayerOps.h"
#include "core/compute/Roofline.h"
#include "core/estimate/Estimate.h"
#include "core/step/StepModel.h"
#include "core/memory/ModelState.h"
#include "core/step/StepTimeline.h"
#include "io/plan/CatalogJson.h"
#include "io/plan/PlanJson.h"

using namespace trainplan;

namespace {
Estimate runStepModel(const Plan &plan, bool scaling = false)
{
    return estimate(plan, io::builtinCatalog(), {scaling});
}
} // namespace

class TestStepModel : public QObject
{
    Q_OBJECT

private slots:
    void denseMlpRecomputeReplaysTheMlp();
    void mtpModuleIsALayerAndALossMore();
    void rooflineRidgePoint();
    void exercise11SpeedupAndEfficiency();
    void exercise12NoOverlapExposesCommunication();
    void elementwiseBandwidthBoundGemmComputeBound_data();
    void elementwiseBandwidthBoundGemmComputeBound();
    void ringAllReduceAlphaBeta();
    void collectivesPickTheLinkTheGroupSpans();
    void breakdownSumsToStep();
    void bubbleFractionMatchesAnalytic_data();
    void bubbleFractionMatchesAnalytic();
    void hardwareFlopsCountRecompute();
    void tensorGroupAcrossNodesCostsMore();
    void scalingCurves();
    void zeroBubbleFasterThanOneFOneBAtEqualMemory_data();
    void zeroBubbleFasterThanOneFOneBAtEqualMemory();
    void flopCounterMatchesNvidiaReference();
    void packedDocumentsCountTheirAttention();
    void wholeStepTimelineAndParts();
    void oneStageTimeline();
    void expertAllToAllHasItsOwnSegments();
    void scheduleStepsCostEachChunkPass();
    void tensorCommTermByHand();
    void pipelineIdleTermByHand();
    void dataCommTermByHand();
    void optimizerTermByHand();
    void computeTermsByHand();
    void contextCommTermByHand();
    void expertCommTermByHand();
    void activationOffloadTermByHand();
    void hostLaunchTermByHand();
    void otherTermHoldsNothing();
    void pipelineTransfersOverlapOnlyWhereTheScheduleDoes();
};

void TestStepModel::rooflineRidgePoint()
{
    // Figure 16.4: 300 TFLOP/s and 1.5 TB/s meet at 200 FLOP/byte. Exercise 6: 200 TFLOP/s, 2 TB/s -> 100.
    QCOMPARE(ridgePoint(300e12, 1.5e12), 200.0);
    QCOMPARE(ridgePoint(200e12, 2e12), 100.0);
    // Below the ridge the bandwidth slope binds, above it the compute ceiling.
    QCOMPARE(attainableFlops(1.0, 300e12, 1.5e12), 1.5e12);
    QCOMPARE(attainableFlops(420.0, 300e12, 1.5e12), 300e12);
}

void TestStepModel::exercise11SpeedupAndEfficiency()
{
    // Step times of 8 s on one worker and 1.25 s on eight: S = 6.4, E = 0.8.
    QCOMPARE(speedup(8.0, 1.25), 6.4);
    QCOMPARE(parallelEfficiency(6.4, 8.0), 0.8);
}

void TestStepModel::exercise12NoOverlapExposesCommunication()
{
    // GPT-2 small data-parallel over 8 nodes: with overlap the bucketed all-reduce hides behind the last
    // backward; without it every bucket is exposed, and the step grows by exactly the hidden part.
    Plan plan = test::presetPlan("gpt2-small", 1, 1, 64, 8, 512);
    plan.parallel.overlapGradReduce = true;
    const Estimate overlapped = runStepModel(plan);
    plan.parallel.overlapGradReduce = false;
    const Estimate exposed = runStepModel(plan);
    const double gradientBytes = exposed.memory.stages.front().parameterCount * 2.0;
    const ClusterLinks links = clusterLinks(plan, *exposed.device);
    const double bucket = 25e6;
    const double total = std::ceil(gradientBytes / bucket) * bestCollective(Collective::AllReduce, bucket, links.dataGroup).seconds;
    QCOMPARE(exposed.step.category(TimeCategory::DataComm), total);
    QVERIFY(overlapped.step.category(TimeCategory::DataComm) < total);
    QCOMPARE(exposed.step.stepSeconds - overlapped.step.stepSeconds,
             total - overlapped.step.category(TimeCategory::DataComm));
}

void TestStepModel::elementwiseBandwidthBoundGemmComputeBound_data()
{
    QTest::addColumn<QString>("device");
    for (const DeviceSpec &d : io::builtinCatalog().devices())
        QTest::newRow(d.id.c_str()) << QString::fromStdString(d.id);
}

void TestStepModel::elementwiseBandwidthBoundGemmComputeBound()
{
    QFETCH(QString, device);
    const DeviceSpec &d = *io::builtinCatalog().device(device.toStdString());
    const Precision precision = d.supports(Precision::BF16) ? Precision::BF16 : Precision::FP16;
    // GELU over 64 M 16-bit elements: ~8 FLOPs per element, 4 bytes moved per element.
    Op elementwise;
    elementwise.kind = OpKind::Elementwise;
    elementwise.flops = 8.0 * 64e6;
    elementwise.bytes = 4.0 * 64e6;
    timeOp(elementwise, d, precision);
    QVERIFY(elementwise.memoryBound);
    // An 8192^3 matmul: intensity ~2700 FLOP/byte, far right of every ridge point.
    Op gemm;
    gemm.kind = OpKind::Matmul;
    gemm.flops = 2.0 * 8192.0 * 8192.0 * 8192.0;
    gemm.bytes = 2.0 * 3.0 * 8192.0 * 8192.0;
    timeOp(gemm, d, precision);
    QVERIFY(!gemm.memoryBound);
    QVERIFY(gemm.intensity() > ridgePoint(d.peakFlops(precision), d.memoryBandwidthBytesPerSecond));
}

void TestStepModel::ringAllReduceAlphaBeta()
{
    // Ring all-reduce: 2(n-1) steps of alpha and 2(n-1)/n of the buffer over the link.
    GroupPlacement g{8, 8, {100e9, 5e-6}, {25e9, 10e-6}};
    const double bytes = 1e9;
    QCOMPARE(collectiveSeconds(Collective::AllReduce, CollectiveAlgorithm::Ring, bytes, g), 14 * 5e-6 + 2.0 * 7.0 / 8.0 * bytes / 100e9);
    QCOMPARE(collectiveSeconds(Collective::AllGather, CollectiveAlgorithm::Ring, bytes, g), 7 * 5e-6 + 7.0 / 8.0 * bytes / 100e9);
    QCOMPARE(collectiveSeconds(Collective::PointToPoint, CollectiveAlgorithm::Ring, bytes, g), 5e-6 + bytes / 100e9);
    // Latency-bound (small messages, many ranks): the tree's log2(n) steps win; bandwidth-bound inside a
    // node: the ring's 2(n-1)/n of the buffer beats the tree's 2.
    GroupPlacement wide{512, 8, {100e9, 5e-6}, {25e9, 10e-6}};
    QCOMPARE(bestCollective(Collective::AllReduce, 1e3, wide).algorithm, CollectiveAlgorithm::Tree);
    QCOMPARE(bestCollective(Collective::AllReduce, 1e9, g).algorithm, CollectiveAlgorithm::Ring);
    // A group spanning nodes is limited by the network hops: perNode ranks share their NICs.
    QCOMPARE(collectiveSeconds(Collective::AllReduce, CollectiveAlgorithm::Ring, bytes, wide),
             2 * 511 * 10e-6 + 2.0 * 511.0 / 512.0 * bytes / std::min(100e9, 8 * 25e9));
    QCOMPARE(collectiveSeconds(Collective::AllReduce, CollectiveAlgorithm::Ring, bytes, {1, 1, {}, {}}), 0.0);
}

void TestStepModel::collectivesPickTheLinkTheGroupSpans()
{
    // Tensor 8 on 8-GPU nodes stays on NVLink; tensor 16 crosses the network; data-parallel ranks sit
    // t apart (Megatron order), so with t = 8 each node holds one rank of each data group.
    Plan plan = test::presetPlan("gpt3-175b", 8, 8, 8, 1, 512);
    const DeviceSpec &a100 = *io::builtinCatalog().device("a100-sxm4-80gb");
    ClusterLinks links = clusterLinks(plan, a100);
    QVERIFY(!links.tensorGroup.spansNodes());
    QCOMPARE(links.dataGroup.perNode, 1);
    QCOMPARE(links.pipelineLink.bandwidthBytesPerSecond, links.network.bandwidthBytesPerSecond);
    QCOMPARE(links.intraNode.bandwidthBytesPerSecond, a100.intraNodeBandwidthBytesPerSecond * a100.intraNodeEfficiency);
    // t = 2, d = 2, p = 2 on one 8-GPU node: both data ranks in the node, the next stage 4 ranks away.
    plan = test::presetPlan("gpt3-175b", 2, 2, 2, 1, 512);
    links = clusterLinks(plan, a100);
    QCOMPARE(links.dataGroup.perNode, 2);
    QVERIFY(!links.dataGroup.spansNodes());
    QCOMPARE(links.pipelineLink.bandwidthBytesPerSecond, links.intraNode.bandwidthBytesPerSecond);
}

void TestStepModel::breakdownSumsToStep()
{
    QRandomGenerator rng(7);
    const char *presets[] = {"gpt2-small", "gpt3-175b", "llama3-8b", "llama3-70b"};
    int checked = 0;
    for (int i = 0; i < 200; ++i) {
        const std::int64_t t = std::int64_t(1) << rng.bounded(4), p = std::int64_t(1) << rng.bounded(4),
                           d = std::int64_t(1) << rng.bounded(6), b = std::int64_t(1) << rng.bounded(3);
        Plan plan = test::presetPlan(presets[rng.bounded(4)], t, p, d, b, b * d * p * (1 + rng.bounded(4)));
        plan.training.recompute = Recompute(rng.bounded(3));
        plan.training.sequenceParallel = rng.bounded(2);
        plan.training.flashAttention = rng.bounded(2);
        plan.training.fusedKernels = rng.bounded(2);
        plan.parallel.zeroStage = rng.bounded(4);
        plan.parallel.overlapGradReduce = rng.bounded(2);
        const Estimate e = runStepModel(plan);
        if (!e.valid)
            continue;
        ++checked;
        double sum = 0;
        for (double s : e.step.breakdown) {
            QVERIFY(s >= 0 && std::isfinite(s));
            sum += s;
        }
        QVERIFY(std::abs(sum - e.step.stepSeconds) <= 1e-12 * e.step.stepSeconds);
        QVERIFY(e.step.mfu > 0 && e.step.mfu <= e.step.hfu && e.step.hfu < 1.0);
        QCOMPARE(e.step.tokensPerSecond, double(plan.training.globalBatch * plan.model.seqLen) / e.step.stepSeconds);
        QVERIFY(e.step.bubbleFraction >= 0 && e.step.bubbleFraction < 1);
        QVERIFY(!io::bottleneckEvidence(e.step.bottleneck, e.step.evidence).isEmpty());
        QVERIFY(e.step.bottleneck == Bottleneck::Capacity ? e.step.evidence.peakBytes > e.step.evidence.capacityBytes
                                                          : e.step.evidence.share > 0 && e.step.evidence.share <= 1);
    }
    QVERIFY(checked > 100);
}

void TestStepModel::bubbleFractionMatchesAnalytic_data()
{
    QTest::addColumn<qint64>("pipeline");
    QTest::addColumn<qint64>("microbatches");
    QTest::addColumn<qint64>("virtualStages");
    QTest::newRow("p4 m16") << qint64(4) << qint64(16) << qint64(1);
    QTest::newRow("p8 m32 (exercise 14)") << qint64(8) << qint64(32) << qint64(1);
    QTest::newRow("p8 m32 v2") << qint64(8) << qint64(32) << qint64(2);
}

void TestStepModel::bubbleFractionMatchesAnalytic()
{
    // Idle over total stage time: (p-1)/v over m + (p-1)/v (Narayanan et al. 2021: bubble (p-1)/(v m)
    // of the ideal time); for v = 1 this is (p-1)/(m+p-1), the reference text's 1 - m/(m+p-1).
    QFETCH(qint64, pipeline);
    QFETCH(qint64, microbatches);
    QFETCH(qint64, virtualStages);
    Plan plan = test::presetPlan("gpt3-175b", 8, pipeline, 1, 1, microbatches);
    plan.parallel.virtualStages = virtualStages;
    plan.parallel.schedule = virtualStages > 1 ? Schedule::Interleaved : Schedule::OneFOneB;
    EstimateOptions analytic;
    analytic.simulatePipeline = false;
    const Estimate e = estimate(plan, io::builtinCatalog(), analytic);
    QVERIFY(e.valid);
    QVERIFY(e.step.pipeline.ops.empty());
    const double idle = double(pipeline - 1) / double(virtualStages);
    QCOMPARE(e.step.bubbleFraction, idle / (double(microbatches) + idle));
    if (virtualStages == 1 && pipeline == 8)
        QCOMPARE(1.0 - e.step.bubbleFraction, 32.0 / 39.0); // exercise 14: 82.1% utilisation bound
    // The simulated schedule adds the idle that unequal stages cause (embedding on the first, logits and
    // loss on the last): a larger idle share than equal stages, a pipeline never shorter than the
    // slowest stage's m micro-batches; its fill and drain run at the faster stages' pace.
    const Estimate simulated = runStepModel(plan);
    QVERIFY(simulated.step.pipeline.valid);
    QVERIFY(simulated.step.bubbleFraction >= e.step.bubbleFraction - 1e-12);
    QVERIFY(simulated.step.category(TimeCategory::PipelineBubble) > 0);
    QVERIFY(simulated.step.stepSeconds >= e.step.stepSeconds - e.step.category(TimeCategory::PipelineBubble));
    QCOMPARE(simulated.step.pipeline.peakInFlight.front(),
             simulated.memory.stages.front().activations.microbatchesInFlight);
}

void TestStepModel::hardwareFlopsCountRecompute()
{
    Plan plan = test::presetPlan("llama2-7b", 1, 1, 8, 2, 64);
    const Estimate none = runStepModel(plan);
    QCOMPARE(none.step.hfu, none.step.mfu);
    plan.training.recompute = Recompute::Full;
    const Estimate full = runStepModel(plan);
    // Full recompute replays every layer's forward (not the logits): HFU/MFU just under 4/3.
    const double ratio = full.step.hfu / full.step.mfu;
    QVERIFY2(ratio > 1.28 && ratio < 4.0 / 3.0, qPrintable(QString::number(ratio)));
    QVERIFY(full.step.stepSeconds > none.step.stepSeconds);
    plan.training.recompute = Recompute::Selective;
    const Estimate selective = runStepModel(plan);
    QVERIFY(selective.step.category(TimeCategory::Recompute) < full.step.category(TimeCategory::Recompute));
}

void TestStepModel::tensorGroupAcrossNodesCostsMore()
{
    const Estimate inside = runStepModel(test::presetPlan("gpt3-175b", 8, 8, 2, 1, 64));
    const Estimate across = runStepModel(test::presetPlan("gpt3-175b", 16, 4, 2, 1, 64));
    QVERIFY(across.step.category(TimeCategory::TensorComm) > 3.0 * inside.step.category(TimeCategory::TensorComm));
}

void TestStepModel::scalingCurves()
{
    Plan plan = test::presetPlan("llama3-8b", 2, 1, 4, 1, 1024);
    const Estimate e = runStepModel(plan, true);
    QVERIFY(scalingOf(e).strong.size() >= 10);
    QVERIFY(scalingOf(e).weak.size() >= 10);
    QCOMPARE(scalingOf(e).strong.front().workers, 1);
    QCOMPARE(scalingOf(e).strong.front().speedup, 1.0);
    QCOMPARE(scalingOf(e).weak.front().efficiency, 1.0);
    for (std::size_t i = 1; i < scalingOf(e).strong.size(); ++i) {
        const ScalingPoint &p = scalingOf(e).strong[i];
        QCOMPARE(p.speedup, scalingOf(e).strong.front().stepSeconds / p.stepSeconds);
        QCOMPARE(p.efficiency, p.speedup / double(p.workers));
        QVERIFY(p.efficiency <= 1.0 + 1e-12);
        QVERIFY(p.efficiency <= scalingOf(e).strong[i - 1].efficiency + 1e-12); // communication only grows
    }
    // Strong scaling stops where 1024 sequences no longer split over the replicas.
    QCOMPARE(scalingOf(e).strong.back().workers, 1024);
    for (const ScalingPoint &p : scalingOf(e).weak)
        QVERIFY(p.efficiency <= 1.0 + 1e-12 && p.efficiency > 0.5);
}

void TestStepModel::zeroBubbleFasterThanOneFOneBAtEqualMemory_data()
{
    // Qi et al. 2024 (zero-bubble pipeline parallelism) measured ZB-H1 above 1F1B at equal memory on
    // A100 clusters with 8, 16 and 32 pipeline stages and 24-128 micro-batches; GPT shapes of that size.
    QTest::addColumn<qint64>("layers");
    QTest::addColumn<qint64>("hidden");
    QTest::addColumn<qint64>("pipeline");
    QTest::addColumn<qint64>("microbatches");
    QTest::newRow("~1.5B p8 m24") << qint64(24) << qint64(2304) << qint64(8) << qint64(24);
    QTest::newRow("~6.2B p8 m32") << qint64(32) << qint64(4096) << qint64(8) << qint64(32);
    QTest::newRow("~14.6B p16 m48") << qint64(48) << qint64(5120) << qint64(16) << qint64(48);
    QTest::newRow("~28.3B p32 m64") << qint64(64) << qint64(6144) << qint64(32) << qint64(64);
}

void TestStepModel::zeroBubbleFasterThanOneFOneBAtEqualMemory()
{
    QFETCH(qint64, layers);
    QFETCH(qint64, hidden);
    QFETCH(qint64, pipeline);
    QFETCH(qint64, microbatches);
    Plan plan = test::presetPlan("gpt3-175b", 1, pipeline, 1, 1, microbatches);
    plan.model = test::gptModel(layers, hidden, hidden / 128, 51200, 1024);
    const Estimate oneFOneB = runStepModel(plan);
    plan.parallel.schedule = Schedule::ZeroBubbleH1;
    const Estimate zeroBubble = runStepModel(plan);
    QVERIFY(oneFOneB.valid && zeroBubble.valid);
    QVERIFY(zeroBubble.step.pipeline.valid);
    QVERIFY2(zeroBubble.step.tokensPerSecond > oneFOneB.step.tokensPerSecond,
             qPrintable(QStringLiteral("ZB-H1 %1 tokens/s, 1F1B %2").arg(zeroBubble.step.tokensPerSecond).arg(oneFOneB.step.tokensPerSecond)));
    // 1F1B's memory (Qi et al. 2024, Table 1): the first stage holds p micro-batches and no deferred W; a later
    // stage s holds p - s and s micro-batches waiting for their W, each keeping its linears' inputs and output
    // gradients.
    QCOMPARE(zeroBubble.step.pipeline.peakInFlight, oneFOneB.step.pipeline.peakInFlight);
    QCOMPARE(zeroBubble.memory.peakBytes, oneFOneB.memory.peakBytes);
    const StageActivations &first = zeroBubble.memory.stages.front().activations;
    const StageActivations &second = zeroBubble.memory.stages[1].activations;
    QCOMPARE(first.weightGradientsPending, 0.0);
    QCOMPARE(second.weightGradientsPending, 1.0);
    QCOMPARE(second.microbatchesInFlight, double(pipeline - 1));
    QCOMPARE(second.storedBytes() - oneFOneB.memory.stages[1].activations.storedBytes(), second.pendingWeightGradientBytes);
}

void TestStepModel::flopCounterMatchesNvidiaReference()
{
    // NVIDIA's stated model FLOPs per GPT-3 175B sample (seq 2048): 3 x forward = 2.20e15, with the
    // attention score term not halved (validation/nvidia_dgxc_model_flops_reference.csv).
    const ModelSpec *gpt3 = io::builtinCatalog().model("gpt3-175b");
    ModelSpec m = *gpt3;
    const auto rows = test::readCsv(test::dataPath("validation/nvidia_dgxc_model_flops_reference.csv"));
    double stated = 0;
    for (const QStringList &row : rows)
        if (!row.isEmpty() && row[0] == QLatin1String("GPT-3 175B"))
            stated = row[14].toDouble();
    QVERIFY(stated > 1e15);
    TP_COMPARE_REL(3.0 * modelForwardFlopsPerSequence(m), stated, 0.005);
}

// NVIDIA's stated model FLOPs for its packed fine-tuning recipes (SQuAD examples packed into 4,096-token
// sequences): Llama 3 8B 1.84e14 and Llama 3 70B 1.70e15 per sequence. Counting attention within
// documents of ~180 tokens (ValidationRows.cpp) agrees within 1%; counting it over the whole 4,096 tokens
// overstates the work by 4-15%, and the estimate's MFU follows the plan's document length.
void TestStepModel::packedDocumentsCountTheirAttention()
{
    const auto rows = test::readCsv(test::dataPath("validation/nvidia_dgxc_model_flops_reference.csv"));
    const std::pair<const char *, const char *> models[] = {{"Llama 3 8B finetuning", "llama3-8b"}, {"Llama 3 70B finetuning", "llama3-70b"}};
    for (const auto &[label, preset] : models) {
        double stated = 0;
        for (const QStringList &row : rows)
            if (!row.isEmpty() && row[0].startsWith(QLatin1String(label)))
                stated = row[14].toDouble();
        QVERIFY2(stated > 1e14, label);
        ModelSpec m = *io::builtinCatalog().model(preset);
        m.seqLen = 4096;
        TP_COMPARE_REL(3.0 * modelForwardFlopsPerSequence(m, false, 180), stated, 0.01);
        QVERIFY(3.0 * modelForwardFlopsPerSequence(m) > 1.04 * stated);
    }
    Plan plan = test::presetPlan("llama3-8b", 1, 1, 8, 1, 32, "h100-sxm5-80gb");
    plan.model.seqLen = 4096;
    plan.training.flashAttention = true;
    const Estimate whole = runStepModel(plan);
    plan.training.documentLength = 180;
    const Estimate packed = runStepModel(plan);
    QVERIFY(whole.valid && packed.valid);
    TP_COMPARE_REL(packed.step.modelFlopsPerStep, 32 * 3.0 * modelForwardFlopsPerSequence(plan.model, false, 180), 1e-12);
    QVERIFY(packed.step.stepSeconds < whole.step.stepSeconds);
    // Without flash attention the scores are computed over the whole sequence, packed or not.
    plan.training.flashAttention = false;
    QCOMPARE(runStepModel(plan).step.modelFlopsPerStep, whole.step.modelFlopsPerStep);
}

// The tensor-parallel term of time.terms (io/output/StepTerms) by hand: Llama 2 7B at tensor 2 inside one DGX A100,
// one stage, no sequence parallelism, overlap or recomputation. Each layer's pass all-reduces the s b h BF16
// activation twice (Shoeybi et al. 2019), forward and backward, and the embedding's forward and the output
// layer's backward add one pass each: 4 (L + 1) all-reduces per micro-batch. An all-reduce of B bytes over 2
// ranks: ring 2 (n - 1) latency + 2 (n - 1)/n B / bandwidth, NCCL's tree 2 log2(n) latency + 2 B / bandwidth,
// whichever is faster, on the group's link at its achieved figures.
void TestStepModel::tensorCommTermByHand()
{
    Plan plan = test::presetPlan("llama2-7b", 2, 1, 4, 1, 64);
    plan.training.recompute = Recompute::None;
    plan.training.sequenceParallel = false;
    plan.parallel.tensorCommOverlap = false;
    const Estimate e = estimate(plan, io::builtinCatalog(), EstimateOptions::analytic());
    QVERIFY(e.valid);
    const LinkTier link = clusterLinks(plan, *e.device).tensorGroup.intraNode;
    const double bytes = 2.0 * double(plan.model.seqLen) * 1.0 * double(plan.model.hidden);
    const double ring = 2.0 * link.latencySeconds + bytes / link.bandwidthBytesPerSecond;
    const double tree = 2.0 * link.latencySeconds + 2.0 * bytes / link.bandwidthBytesPerSecond;
    const double m = 64.0 / 4.0;
    const double expected = m * 4.0 * double(plan.model.layers + 1) * std::min(ring, tree);
    QCOMPARE(stepParts(plan, e.step)[std::size_t(StepPart::TensorComm)], expected); // what time.terms writes
    // 32 layers, 4096 x 4096 x 2 bytes = 32 MiB per all-reduce: tens of milliseconds per micro-batch on NVLink 3.
    QVERIFY(expected > 0.1 && expected < 10);
}

// The pipeline term by hand (analytic schedule): 1F1B over 4 stages of a DGX A100 node at tensor 2. The
// bubble is (p - 1) x the slowest stage's micro-batch (Narayanan et al. 2021), and every micro-batch sends an
// activation forward and a gradient back, each s b h q / t bytes point to point at the pipeline link's
// latency and bandwidth, plus the device's schedule step per chunk pass.
void TestStepModel::pipelineIdleTermByHand()
{
    Plan plan = test::presetPlan("llama2-7b", 2, 4, 1, 1, 32);
    plan.parallel.overlapP2pComm = false;
    const Estimate e = estimate(plan, io::builtinCatalog(), EstimateOptions::analytic());
    QVERIFY(e.valid);
    const LinkTier link = clusterLinks(plan, *e.device).pipelineLink;
    const double bytes = 2.0 * double(plan.model.seqLen) * double(plan.model.hidden) / 2.0;
    const double oneWay = link.latencySeconds + bytes / link.bandwidthBytesPerSecond + e.device->scheduleStepSeconds;
    const double m = 32.0;
    const StageTime &pace = e.step.stages[std::size_t(e.step.slowestStage)];
    const double expected = 3.0 * pace.microbatchSeconds() + m * 2.0 * oneWay;
    QCOMPARE(stepParts(plan, e.step)[std::size_t(StepPart::PipelineIdle)], expected);
    QCOMPARE(pace.pipelineCommSeconds, 2.0 * oneWay);
}

// The data-parallel term by hand: Llama 2 7B on one DGX H100, data 8, ZeRO 0 without overlap: the gradients
// (q_g bytes per parameter) all-reduced over the eight GPUs in 25 MB buckets (PyTorch DDP's default, Li et al.
// 2020), each bucket its own all-reduce (ring 2 (n - 1) latency + 2 (n - 1)/n B / bandwidth, or NCCL's tree
// 2 log2(n) latency + 2 B / bandwidth), all exposed after the last backward; nothing hidden, so no slowdown.
void TestStepModel::dataCommTermByHand()
{
    Plan plan = test::presetPlan("llama2-7b", 1, 1, 8, 1, 64, "h100-sxm5-80gb");
    plan.parallel.zeroStage = 0;
    plan.parallel.overlapGradReduce = false;
    const Estimate e = estimate(plan, io::builtinCatalog(), EstimateOptions::analytic());
    QVERIFY(e.valid);
    const LinkTier link = clusterLinks(plan, *e.device).dataGroup.intraNode;
    const double gradients = double(e.memory.stages[0].parameterCount) * stateBytesPerParameter(plan.training).gradients;
    const double bucket = plan.parallel.bucketBytes, n = 8;
    const double ring = 2 * (n - 1) * link.latencySeconds + 2 * (n - 1) / n * bucket / link.bandwidthBytesPerSecond;
    const double tree = 2 * 3 * link.latencySeconds + 2 * bucket / link.bandwidthBytesPerSecond;
    const double expected = std::ceil(gradients / bucket) * std::min(ring, tree);
    QCOMPARE(stepParts(plan, e.step)[std::size_t(StepPart::DataComm)], expected);
    QCOMPARE(e.step.dataParallelSlowdownSeconds, 0.0);
}

// The optimizer term by hand: Llama 2 7B on one DGX H100, data 8 with ZeRO-1, BF16 with Adam. Each rank updates
// its eighth of the parameters; per parameter the update reads the gradient (q_g), reads and writes the FP32
// master and both moments (2 q_o = 24 bytes) and writes the BF16 working copy (q_p): a streaming kernel at
// HBM bandwidth with the device's memory efficiency at that size, (bytes + half) / (bandwidth x max).
void TestStepModel::optimizerTermByHand()
{
    Plan plan = test::presetPlan("llama2-7b", 1, 1, 8, 1, 64, "h100-sxm5-80gb");
    plan.parallel.zeroStage = 1;
    plan.parallel.offloadOptimizer = false;
    const Estimate e = estimate(plan, io::builtinCatalog(), EstimateOptions::analytic());
    QVERIFY(e.valid);
    const StateBytesPerParameter q = stateBytesPerParameter(plan.training);
    QCOMPARE(q.optimizer, 12.0); // FP32 master (4) + two FP32 moments (8): the reference text's 16 bytes with q_p, q_g
    const double shard = double(e.memory.stages[0].parameterCount) / 8.0;
    const double bytes = shard * (q.gradients + 2.0 * q.optimizer + q.parameters);
    const DeviceSpec &d = *e.device;
    const double expected = (bytes + d.memoryEfficiency.halfSize) / (d.memoryBandwidthBytesPerSecond * d.memoryEfficiency.max);
    QCOMPARE(stepParts(plan, e.step)[std::size_t(StepPart::Optimizer)], expected);
    // About 24 GB of traffic per rank at 3.35 TB/s: under 20 ms.
    QVERIFY(expected > 0.003 && expected < 0.02);
}

namespace {
/// A device with no per-kernel cost (matmul and memory efficiency 1, no half size), so a compute-bound
/// kernel takes its FLOPs over the peak exactly; memory at the largest bandwidth a device may declare.
Plan idealDevicePlan(double peak)
{
    Plan plan = test::presetPlan("gpt2-small", 1, 1, 1, 1, 1);
    DeviceSpec d = io::customDeviceTemplate();
    d.id = "ideal";
    d.name = "Ideal accelerator";
    d.memoryBytes = 80e9;
    d.peakFlopsPerSecond[std::size_t(Precision::BF16)] = peak;
    d.memoryBandwidthBytesPerSecond = 1e14;
    d.matmulEfficiency = {1.0, 0.0};
    d.memoryEfficiency = {1.0, 0.0};
    d.attentionEfficiency = 1.0;
    d.hostLaunchSeconds = 0;
    d.scheduleStepSeconds = 0;
    plan.cluster.customDevices = {d};
    plan.cluster.setGroups({{"", "ideal", 1, 1, ""}});
    plan.training.precision = Precision::BF16;
    plan.training.flashAttention = true;
    plan.training.recompute = Recompute::None;
    return plan;
}
} // namespace

// Forward, backward and recompute by hand, from the FLOPs of the reference's transformer (Narayanan et al.
// 2021): a GPT layer's forward is 24 s h^2 (QKV 6, output 2, MLP 16) plus the attention's 4 s^2 h, which
// causal flash attention halves (Dao 2023: the blocks above the diagonal are skipped); the output layer adds
// 2 s h V. The backward computes two matmuls per forward one (input and weight gradients), and flash
// attention's backward five per two forward (2.5x: it recomputes the scores). Full recomputation replays the
// layers' forward. GPT-2 small, one sequence on an ideal device: the elementwise kernels do not depend on the
// peak, so the FLOPs each term holds are (T(p1) - T(p2)) / (1/p1 - 1/p2).
void TestStepModel::computeTermsByHand()
{
    const double p1 = 100e12, p2 = 400e12;
    const auto flopsOf = [&](StepPart part, Recompute recompute) {
        Plan a = idealDevicePlan(p1), b = idealDevicePlan(p2);
        a.training.recompute = b.training.recompute = recompute;
        const Estimate ea = estimate(a, io::builtinCatalog(), EstimateOptions::analytic());
        const Estimate eb = estimate(b, io::builtinCatalog(), EstimateOptions::analytic());
        if (!ea.valid || !eb.valid)
            qFatal("invalid: %s", ea.problems.empty() ? "?" : qPrintable(io::problemLine(ea.problems.front())));
        return (stepParts(a, ea.step)[std::size_t(part)] - stepParts(b, eb.step)[std::size_t(part)]) / (1 / p1 - 1 / p2);
    };
    const double s = 1024, h = 768, V = 50257, L = 12;
    const double layerGemms = 24 * s * h * h, attention = 4 * s * s * h / 2, logits = 2 * s * h * V;
    const double forward = L * (layerGemms + attention) + logits; // 272.3 GFLOP
    TP_COMPARE_REL(flopsOf(StepPart::Forward, Recompute::None), forward, 1e-9);
    TP_COMPARE_REL(flopsOf(StepPart::Backward, Recompute::None), 2 * (L * layerGemms + logits) + 2.5 * L * attention,
                   1e-9);
    TP_COMPARE_REL(flopsOf(StepPart::Recompute, Recompute::Full), L * (layerGemms + attention), 1e-9);
    QCOMPARE(flopsOf(StepPart::Recompute, Recompute::None), 0.0);
    // What is left at one peak is the memory-bound kernels (norms, GELU, residuals, the embedding, the loss)
    // at 100 TB/s: a little, never negative.
    const Plan plan = idealDevicePlan(p1);
    const double t = stepParts(plan, estimate(plan, io::builtinCatalog(), EstimateOptions::analytic()).step)
                         [std::size_t(StepPart::Forward)];
    QVERIFY2(t >= forward / p1 && t < 1.01 * forward / p1, qPrintable(QString::number(t)));
}

// The context-parallel term by hand for the all-to-all exchange (DeepSpeed-Ulysses, Jacobs et al. 2023): Llama
// 2 7B with its sequence over 2 GPUs of a DGX H100. Each layer's forward exchanges the local tokens' Q, K and
// V heads (s/c x (h + 2 kv) BF16 values) and then the attention's output (s/c x h), the backward the same
// again; nothing overlaps them. An all-to-all of B bytes inside a node: (n - 1) latency + (n - 1)/n B over
// the link's achieved bandwidth.
void TestStepModel::contextCommTermByHand()
{
    Plan plan = test::presetPlan("llama2-7b", 1, 1, 8, 1, 64, "h100-sxm5-80gb"); // one node of 8
    plan.parallel.data = 4;
    plan.parallel.context = 2;
    plan.parallel.contextComm = ContextComm::AllToAll;
    plan.training.flashAttention = true;
    plan.training.recompute = Recompute::None;
    const Estimate e = estimate(plan, io::builtinCatalog(), EstimateOptions::analytic());
    QVERIFY2(e.valid, e.problems.empty() ? "" : qPrintable(io::problemLine(e.problems.front())));
    const LinkTier link = clusterLinks(plan, *e.device).contextGroup.intraNode;
    const double tokens = 4096.0 / 2, h = 4096, kv = 4096; // MHA: 32 key/value heads of 128
    const auto a2a = [&](double bytes) { return link.latencySeconds + 0.5 * bytes / link.bandwidthBytesPerSecond; };
    const double perPass = a2a(2.0 * tokens * (h + 2 * kv)) + a2a(2.0 * tokens * h);
    const double m = 64.0 / 4.0;
    TP_COMPARE_REL(stepParts(plan, e.step)[std::size_t(StepPart::ContextComm)], m * 32.0 * 2.0 * perPass, 1e-12);
}

// The expert term by hand (Megatron-Core's all-to-all dispatcher, Fedus et al. 2022): Mixtral 8x7B with its 8
// experts over the 8 GPUs of a DGX H100, tokens dropped at capacity 1 so the busiest expert holds its even
// share. Each MoE layer's pass dispatches every token's k = 2 copies (s x h BF16 values each) and combines
// them back: two all-to-alls of 2 s h k bytes, forward and backward, none overlapped.
void TestStepModel::expertCommTermByHand()
{
    Plan plan = test::presetPlan("mixtral-8x7b", 1, 1, 8, 1, 64, "h100-sxm5-80gb");
    plan.parallel.expert = 8;
    plan.parallel.expertDispatcher = ExpertDispatcher::AllToAll;
    plan.parallel.expertCommOverlap = false;
    plan.training.capacityFactor = 1.0;
    plan.training.flashAttention = true;
    plan.training.recompute = Recompute::None;
    const Estimate e = estimate(plan, io::builtinCatalog(), EstimateOptions::analytic());
    QVERIFY2(e.valid, e.problems.empty() ? "" : qPrintable(io::problemLine(e.problems.front())));
    QCOMPARE(plan.training.busiestExpertLoad(), 1.0);
    const LinkTier link = clusterLinks(plan, *e.device).expertGroup.intraNode;
    const double bytes = 2.0 * 4096 * 4096 * 2; // s h BF16 values, k = 2 copies
    const double a2a = 7 * link.latencySeconds + 7.0 / 8.0 * bytes / link.bandwidthBytesPerSecond;
    const double perLayer = 2.0 /* forward, backward */ * 2.0 /* dispatch, combine */ * a2a;
    const double m = 64.0 / 8.0;
    TP_COMPARE_REL(stepParts(plan, e.step)[std::size_t(StepPart::ExpertComm)], m * 32.0 * perLayer, 1e-12);
}

// The activation-offload term by hand (Megatron-Core's cpu_offloading): each offloaded layer's stored
// tensors go to the host behind the next layer's forward and come back behind the backward; what a copy
// takes beyond the layer it hides behind is exposed. GPT-2 small on the ideal device with flash attention
// stores 34 s h bytes per layer (Korthikanti et al. 2022, Eq. 1 without the s^2 terms flash attention never
// stores; its FP32 log-sum-exp per head and token, 4 a s bytes, 0.2% here, is not counted). Over a host link
// slow enough that
// every copy outlasts its layer, two link speeds B1 and B2 differ by layers x 2 copies x bytes x (1/B1 - 1/B2).
void TestStepModel::activationOffloadTermByHand()
{
    const auto offload = [](double link) {
        Plan plan = idealDevicePlan(100e12);
        plan.training.activationOffloadLayers = 6;
        plan.cluster.overrides.hostLinkBandwidthBytesPerSecond = link;
        const Estimate e = estimate(plan, io::builtinCatalog(), EstimateOptions::analytic());
        if (!e.valid)
            qFatal("invalid: %s", e.problems.empty() ? "?" : qPrintable(io::problemLine(e.problems.front())));
        return std::pair{stepParts(plan, e.step)[std::size_t(StepPart::ActivationOffload)],
                         e.memory.stages[0].activations.perLayerBytes};
    };
    const double s = 1024, h = 768, a = 12;
    const auto [slow, perLayer] = offload(1e9);
    const auto [fast, unused] = offload(2e9);
    TP_COMPARE_REL(perLayer, 34 * s * h, 1e-12);
    QVERIFY(4 * a * s < 0.002 * perLayer);
    TP_COMPARE_REL(slow - fast, 6 * 2 * perLayer * (1 / 1e9 - 1 / 2e9), 1e-9);
    // At 1 GB/s a 26.8 MB copy takes 27 ms, a layer's forward on the ideal device 0.16 ms: nearly all exposed.
    QVERIFY(slow > 0.95 * 6 * 2 * perLayer / 1e9 && slow < 6 * 2 * perLayer / 1e9);
}

// The host-launch term by hand. Megatron-Core launches its step from Python, kernel by kernel; over a pass the
// GPU waits for the host by what the launches take beyond the kernels. GPT-2 small on the ideal device with
// Megatron's fused kernels and flash attention launches, per layer, forward: input norm, QKV, flash attention,
// output projection, bias-dropout-residual, post-attention norm, MLP up, bias-GELU, MLP down,
// bias-dropout-residual (10); backward: the same ops with two kernels per matmul (input and weight gradient,
// 4 x 2) and one per other op (6): 14. The embedding adds its lookup each way; the output its final norm,
// logits projection (two kernels backward) and cross-entropy: 3 forward, 4 backward. One micro-batch:
// 12 x 10 + 1 + 3 = 124 forward and 12 x 14 + 1 + 4 = 173 backward launches. At 1 ms a launch the host
// outruns nothing: the exposed time is 297 ms less the kernels' own forward and backward. Per-layer CUDA
// graphs replace each layer's launches by one replay per pass (12 + 4 forward, 12 + 5 backward); a
// whole-step graph leaves nothing; a 1 us launch hides behind the kernels.
void TestStepModel::hostLaunchTermByHand()
{
    const auto parts = [](double launch, CudaGraphs graphs) {
        Plan plan = idealDevicePlan(100e12);
        plan.training.fusedKernels = true;
        plan.training.cudaGraphs = graphs;
        plan.cluster.overrides.hostLaunchSeconds = launch;
        const Estimate e = estimate(plan, io::builtinCatalog(), EstimateOptions::analytic());
        if (!e.valid)
            qFatal("invalid: %s", e.problems.empty() ? "?" : qPrintable(io::problemLine(e.problems.front())));
        return stepParts(plan, e.step);
    };
    const auto host = std::size_t(StepPart::HostLaunch), fwd = std::size_t(StepPart::Forward),
               bwd = std::size_t(StepPart::Backward);
    const auto eager = parts(1e-3, CudaGraphs::None);
    const double kernels = eager[fwd] + eager[bwd];
    QVERIFY(kernels > 0.005 && kernels < 0.02); // about 8 ms of kernels against 297 ms of launches
    TP_COMPARE_REL(eager[host], (124 + 173) * 1e-3 - kernels, 1e-9);
    TP_COMPARE_REL(parts(2e-3, CudaGraphs::None)[host] - eager[host], (124 + 173) * 1e-3, 1e-9);
    TP_COMPARE_REL(parts(1e-3, CudaGraphs::Layers)[host], (16 + 17) * 1e-3 - kernels, 1e-9);
    QCOMPARE(parts(1e-3, CudaGraphs::Step)[host], 0.0);
    QCOMPARE(parts(1e-6, CudaGraphs::None)[host], 0.0);
}

// "Other" holds no second: every part of the step has a term of its own, so the terms sum to the step with
// Other at zero, for every plan of the gallery (a term added to the step without a part would land there).
void TestStepModel::otherTermHoldsNothing()
{
    const QDir dir(QStringLiteral(TRAINPLAN_SOURCE_DIR "/resources/examples"));
    int checked = 0;
    for (const QString &name : dir.entryList({QStringLiteral("*.json")})) {
        const io::PlanReadResult read = io::readPlanFile(dir.filePath(name), io::builtinCatalog());
        QVERIFY2(read.plan.has_value(), qPrintable(name));
        const Plan &plan = *read.plan;
        const Estimate e = estimate(plan, io::builtinCatalog(), EstimateOptions::analytic());
        if (!e.valid)
            continue;
        const auto p = stepParts(plan, e.step);
        QVERIFY2(p[std::size_t(StepPart::Other)] == 0.0, qPrintable(name));
        double sum = 0;
        for (double seconds : p)
            sum += seconds;
        TP_COMPARE_REL(sum, e.step.stepSeconds, 1e-12);
        ++checked;
    }
    QVERIFY(checked >= 10);
}

// Megatron-Core overlaps pipeline transfers only in its interleaved schedule (schedules.py reads
// overlap_p2p_comm in forward_backward_pipelining_with_interleaving alone; Megatron-LM's arguments.py turns
// it off without interleaving): under 1F1B the key changes nothing, interleaved it hides the transfers
// (pipelineIdleTermByHand's 4 stages of Llama 2 7B).
void TestStepModel::pipelineTransfersOverlapOnlyWhereTheScheduleDoes()
{
    const auto idle = [](Plan plan, bool overlap) {
        plan.parallel.overlapP2pComm = overlap;
        const Estimate e = estimate(plan, io::builtinCatalog(), EstimateOptions::analytic());
        if (!e.valid)
            qFatal("invalid plan");
        return stepParts(plan, e.step)[std::size_t(StepPart::PipelineIdle)];
    };
    Plan plan = test::presetPlan("llama2-7b", 2, 4, 1, 1, 32);
    QCOMPARE(idle(plan, true), idle(plan, false));
    plan.parallel.schedule = Schedule::Interleaved;
    plan.parallel.virtualStages = 2;
    QVERIFY(idle(plan, true) < idle(plan, false));
}

// A multi-token-prediction module runs on the last stage as one more layer of the last kind with its own logits
// and loss (Megatron-Core's MultiTokenPredictionBlock; its 2h -> h projection left out): Llama 3 8B with one module
// steps its micro-batch as a 33-layer Llama 3 8B plus one more output layer, forward and backward.
void TestStepModel::mtpModuleIsALayerAndALossMore()
{
    Plan plain = test::presetPlan("llama3-8b", 1, 1, 8, 1, 64, "h100-sxm5-80gb");
    plain.training.flashAttention = true;
    Plan mtp = plain;
    mtp.model.mtpLayers = 1;
    Plan deeper = plain;
    deeper.model.layers += 1;
    const Estimate a = runStepModel(mtp), b = runStepModel(deeper);
    QVERIFY(a.valid && b.valid);
    double outputForward = 0, outputBackward = 0;
    for (const Op &op : a.step.ops)
        if (op.scope == OpScope::Output)
            (op.pass == OpPass::Forward ? outputForward : outputBackward) += op.seconds;
    QVERIFY(outputForward > 0 && outputBackward > 0);
    const StageTime &withModule = a.step.stages.front(), &withLayer = b.step.stages.front();
    QVERIFY(std::abs(withModule.forwardSeconds - withLayer.forwardSeconds - outputForward) < 1e-12);
    QVERIFY(std::abs(withModule.backwardSeconds - withLayer.backwardSeconds - outputBackward) < 1e-12);
    // Repeated depths share the weights, not the time.
    mtp.model.mtpLayers = 2;
    Plan repeated = mtp;
    repeated.model.mtpRepeated = true;
    QCOMPARE(runStepModel(repeated).step.stages.front().forwardSeconds,
             runStepModel(mtp).step.stages.front().forwardSeconds);
}

// The "mlp" recompute module (training.recompute_mlp) replays each dense MLP's up projection, activation and down
// projection before its backward: Llama 3 8B's recompute time is the forward time of those three ops per layer and
// micro-batch, and its peak falls by their stored outputs.
void TestStepModel::denseMlpRecomputeReplaysTheMlp()
{
    Plan plan = test::presetPlan("llama3-8b", 1, 1, 8, 1, 64, "h100-sxm5-80gb");
    plan.training.flashAttention = true;
    plan.training.recompute = Recompute::Selective;
    const Estimate kept = runStepModel(plan);
    plan.training.recomputeDenseMlp = true;
    const Estimate replayed = runStepModel(plan);
    QVERIFY(kept.valid && replayed.valid);
    QCOMPARE(kept.step.category(TimeCategory::Recompute), 0.0);
    double mlpForward = 0;
    for (const char *name : {"MLP up", "SwiGLU", "MLP down"}) {
        const Op *op = test::findOp(replayed, name, OpPass::Forward);
        QVERIFY(op);
        mlpForward += op->seconds;
    }
    const double expected = mlpForward * double(plan.model.layers) * double(plan.microbatches());
    QVERIFY2(std::abs(replayed.step.category(TimeCategory::Recompute) / expected - 1.0) < 1e-9,
             qPrintable(QString::number(replayed.step.category(TimeCategory::Recompute))));
    QVERIFY(replayed.memory.peakBytes < kept.memory.peakBytes);
}

TRAINPLAN_TEST_APPLESS_MAIN(TestStepModel)
#include "tst_stepmodel.moc"

// The step-time chart's parts add up to the step; the timeline draws the whole step on every stage: the
// simulated 1F1B schedule, then the exposed data-parallel communication and the optimizer.
void TestStepModel::wholeStepTimelineAndParts()
{
    Plan plan = test::presetPlan("gpt3-175b", 8, 8, 8, 1, 1536); // the built-in example: 192 micro-batches
    const Estimate e = runStepModel(plan);
    QVERIFY(e.valid);
    double sum = 0;
    for (double seconds : e.parts)
        sum += seconds;
    QCOMPARE(sum, e.step.stepSeconds);
    const StageTime &pace = e.step.stages[std::size_t(e.step.slowestStage)];
    QCOMPARE(e.parts[std::size_t(StepPart::Forward)], 192.0 * pace.forwardSeconds);
    QCOMPARE(e.parts[std::size_t(StepPart::Backward)], 192.0 * pace.backwardSeconds);
    const StepTimeline &t = detailsOf(e).timeline;
    QVERIFY(t.valid && t.simulated);
    QCOMPARE(t.rows, 8);
    QCOMPARE(t.stepSeconds, e.step.stepSeconds);
    QCOMPARE(t.scheduleSeconds, e.step.pipeline.makespan);
    QVERIFY(t.present[std::size_t(SegmentKind::Forward)] && t.present[std::size_t(SegmentKind::Backward)]);
    QVERIFY(!t.present[std::size_t(SegmentKind::WeightGradient)]); // 1F1B has no separate W
    for (std::int32_t row = 0; row < t.rows; ++row) {
        // 192 forwards, 192 backwards, then the data-parallel sync and the optimizer update.
        QCOMPARE(t.rowBegin[std::size_t(row) + 1] - t.rowBegin[std::size_t(row)], std::size_t(2 * 192 + 2));
        const StepSegment &optimizer = t.segments[t.rowBegin[std::size_t(row) + 1] - 1];
        const StepSegment &data = t.segments[t.rowBegin[std::size_t(row) + 1] - 2];
        QCOMPARE(optimizer.kind, SegmentKind::Optimizer);
        QCOMPARE(data.kind, SegmentKind::DataComm);
        QCOMPARE(optimizer.end, e.step.stepSeconds);
        QCOMPARE(data.end - data.start, e.step.category(TimeCategory::DataComm));
    }
}

// DeepSeek-V3 on 1,024 H100: the exposed expert dispatch and combine (most of its step) is drawn in the
// timeline as its own segments, each the all-to-all share of its forward or backward op, adding up per stage to
// the stage's exposed all-to-all; the weight gradients carry none.
void TestStepModel::expertAllToAllHasItsOwnSegments()
{
    const Estimate e = runStepModel(test::examplePlan("deepseek-v3-1024-h100"));
    QVERIFY(e.valid);
    const StepTimeline &t = detailsOf(e).timeline;
    QVERIFY(t.valid && t.simulated);
    QVERIFY(t.present[std::size_t(SegmentKind::ExpertComm)]);
    const double m = double(test::examplePlan("deepseek-v3-1024-h100").microbatches());
    int withExperts = 0;
    for (std::int32_t row = 0; row < t.rows; ++row) {
        double comm = 0;
        for (std::size_t i = t.rowBegin[std::size_t(row)]; i < t.rowBegin[std::size_t(row) + 1]; ++i)
            if (t.segments[i].kind == SegmentKind::ExpertComm)
                comm += t.segments[i].end - t.segments[i].start;
        // The first stage holds only the dense first layers: no all-to-all there.
        const double expected = m * e.step.stages[std::size_t(row)].expertCommSeconds;
        withExperts += expected > 0 ? 1 : 0;
        QVERIFY2(expected > 0 ? std::abs(comm / expected - 1) < 1e-9 : comm == 0,
                 qPrintable(QStringLiteral("row %1: %2 against %3").arg(row).arg(comm).arg(expected)));
    }
    QVERIFY(withExperts >= t.rows - 1);
    // A dense plan draws none.
    QVERIFY(!detailsOf(runStepModel(test::examplePlan("gpt3-175b-tp8-pp8"))).timeline.present[std::size_t(SegmentKind::ExpertComm)]);
}

// One stage: its micro-batches one after the other (forward, then backward with recompute and tensor
// communication), then the data-parallel sync and the optimizer; long runs group micro-batches.
void TestStepModel::oneStageTimeline()
{
    Plan plan = test::presetPlan("llama2-7b", 1, 1, 8, 1, 48); // 6 micro-batches per replica
    const Estimate e = runStepModel(plan);
    QVERIFY(e.valid);
    const StepTimeline &t = detailsOf(e).timeline;
    QVERIFY(t.valid && !t.simulated);
    QCOMPARE(t.rows, 1);
    QCOMPARE(t.segments.size(), std::size_t(2 * 6 + 2));
    QCOMPARE(t.segments[0].kind, SegmentKind::Forward);
    QCOMPARE(t.segments[1].kind, SegmentKind::Backward);
    QCOMPARE(t.segments[11].microbatch, 5);
    QCOMPARE(t.segments[11].end, t.scheduleSeconds);
    QCOMPARE(t.scheduleSeconds, 6.0 * e.step.stages[0].microbatchSeconds());
    QCOMPARE(t.segments.back().end, e.step.stepSeconds);

    plan.training.globalBatch = 8 * 10000; // 10000 micro-batches: grouped into at most 256 segments
    const Estimate many = runStepModel(plan);
    // 2 x 10000 / 256 -> groups of 79 micro-batches (the last of 46): 127 forward and 127 backward segments.
    QCOMPARE(detailsOf(many).timeline.segments.size(), std::size_t(254 + 2));
    QCOMPARE(detailsOf(many).timeline.segments[0].microbatches, 79);
    QCOMPARE(detailsOf(many).timeline.segments[252].microbatches, 10000 - 126 * 79);
    QCOMPARE(detailsOf(many).timeline.segments[detailsOf(many).timeline.segments.size() - 3].end, detailsOf(many).timeline.scheduleSeconds);

    // A mixture of experts draws each pass's exposed all-to-all as a segment of its own: the groups double so
    // that its 16 stages still hold at most 256 segments (DeepSeek-V3 on 1,024 H100s, 256 micro-batches,
    // analytic: 256 / 16 = 16 per stage, 4 per group of micro-batches on a MoE stage, groups of 64; the
    // first stage holds two dense layers, no all-to-all: groups of 32).
    const Estimate moe = estimate(test::deepseekV3On1024H100(), io::builtinCatalog(), {false, false});
    const StepTimeline &m = detailsOf(moe).timeline;
    QVERIFY(m.valid && !m.simulated && m.present[std::size_t(SegmentKind::ExpertComm)]);
    QVERIFY2(m.segments.size() <= std::size_t(kMaxOneStageSegments + 2 * 16), qPrintable(QString::number(m.segments.size())));
    QCOMPARE(m.segments[m.rowBegin[0]].microbatches, 32);
    QCOMPARE(m.segments[m.rowBegin[1]].microbatches, 64);
}

void TestStepModel::scheduleStepsCostEachChunkPass()
{
    // GPT-3 175B as NVIDIA's recipe runs it on 128 H100s: 96 layers on 8 stages x 12 virtual (one layer per
    // chunk), 64 micro-batches of 2,048 tokens per pipeline. Every chunk's forward and backward pays the
    // host's schedule step once: 2 x 12 x 64 = 1,536 steps on a stage, which the analytic pipeline charges
    // to pipeline communication.
    Plan plan = test::presetPlan("gpt3-175b", 4, 8, 4, 1, 256, "h100-sxm5-80gb");
    plan.parallel.virtualStages = 12;
    plan.parallel.schedule = Schedule::Interleaved;
    plan.parallel.overlapP2pComm = true;
    plan.training.flashAttention = true;
    plan.training.sequenceParallel = true;
    const Catalog &catalog = io::builtinCatalog();
    // devices.json's fitted figure (docs/CALIBRATION.md): host time of a chunk pass, well under a millisecond.
    const double stepSeconds = catalog.device("h100-sxm5-80gb")->scheduleStepSeconds;
    QVERIFY(stepSeconds > 50e-6 && stepSeconds < 1e-3);
    DeviceSpec none = *catalog.device("h100-sxm5-80gb");
    none.scheduleStepSeconds = 0;
    Catalog without = catalog;
    without.addDevice(none);
    const Estimate with = estimate(plan, catalog, EstimateOptions::analytic());
    const Estimate bare = estimate(plan, without, EstimateOptions::analytic());
    QVERIFY(with.valid && bare.valid);
    const double extra = with.step.category(TimeCategory::PipelineComm) - bare.step.category(TimeCategory::PipelineComm);
    QVERIFY2(std::abs(extra - 1536 * stepSeconds) < 1e-9, qPrintable(QString::number(extra)));
    // Without a pipeline there is no receive to wait on: nothing is charged.
    Plan flat = test::presetPlan("llama3-8b", 1, 1, 8, 1, 64, "h100-sxm5-80gb");
    flat.training.flashAttention = true;
    QCOMPARE(estimate(flat, catalog).step.stepSeconds, estimate(flat, without).step.stepSeconds);
}
