// The pipeline schedules and event simulator: the reference text's utilisation table and exercises 14
// and 15, Narayanan's bubble formulas, ZB-H1 against 1F1B, in-flight micro-batches, and dependency
// validity of every timeline on seeded random shapes and stage times.

#include <QRandomGenerator>
#include <QTest>

#include "TestMain.h"

#include <cmath>
#include <map>
#include <tuple>

#include "core/memory/ActivationMemory.h"
#include "core/pipeline/PipelineSimulator.h"

using namespace trainplan;

namespace {

PipelineInput equalStages(Schedule schedule, int p, int m, int v = 1, double f = 1.0, double b = 2.0)
{
    PipelineInput in;
    in.schedule = schedule;
    in.stages = p;
    in.microbatches = m;
    in.chunks = v;
    in.forwardSeconds.assign(std::size_t(p), f);
    in.backwardSeconds.assign(std::size_t(p), b);
    return in;
}

/// Checks every rule a timeline must satisfy; returns an empty string or what is wrong.
QString validate(const PipelineInput &in, const PipelineTimeline &tl)
{
    const int p = in.stages, q = in.stages * in.chunks;
    const bool split = splitsBackward(in.schedule);
    std::map<std::tuple<int, int, int>, const PipelineOp *> byKey; // (kind, micro-batch, model chunk)
    for (const PipelineOp &op : tl.ops) {
        const auto k = std::make_tuple(int(op.kind), op.microbatch, op.chunk * p + op.stage);
        if (byKey.count(k))
            return QStringLiteral("op ran twice");
        byKey[k] = &op;
        if (op.end < op.start)
            return QStringLiteral("negative duration");
    }
    const std::size_t expected = std::size_t(in.microbatches) * std::size_t(q) * (in.forwardOnly ? 1 : split ? 3 : 2);
    if (tl.ops.size() != expected)
        return QStringLiteral("%1 ops, expected %2").arg(tl.ops.size()).arg(expected);
    const double eps = 1e-9;
    for (const PipelineOp &op : tl.ops) {
        const int c = op.chunk * p + op.stage;
        const auto at = [&](PipelineOpKind kind, int chunk) { return byKey.at(std::make_tuple(int(kind), op.microbatch, chunk)); };
        const double t = p > 1 ? in.transferSeconds : 0.0;
        if (op.kind == PipelineOpKind::Forward && c > 0 && op.start + eps < at(PipelineOpKind::Forward, c - 1)->end + t)
            return QStringLiteral("forward before its input");
        if (op.kind == PipelineOpKind::Backward || op.kind == PipelineOpKind::BackwardInput) {
            if (c == q - 1 && op.start + eps < at(PipelineOpKind::Forward, c)->end)
                return QStringLiteral("backward before its forward");
            if (c < q - 1 && op.start + eps < at(op.kind, c + 1)->end + t)
                return QStringLiteral("backward before the next stage's backward");
        }
        if (op.kind == PipelineOpKind::BackwardWeight && op.start + eps < at(PipelineOpKind::BackwardInput, c)->end)
            return QStringLiteral("weight gradient before its input gradient");
    }
    for (int s = 0; s < p; ++s)
        for (std::size_t i = tl.stageBegin[std::size_t(s)] + 1; i < tl.stageBegin[std::size_t(s) + 1]; ++i)
            if (tl.ops[i].start + eps < tl.ops[i - 1].end || tl.ops[i].stage != s)
                return QStringLiteral("stage %1 runs two ops at once").arg(s);
    return {};
}

} // namespace

class TestPipeline : public QObject
{
    Q_OBJECT

private slots:
    void forwardUtilisationTable_data();
    void forwardUtilisationTable();
    void oneFOneBBubble_data();
    void oneFOneBBubble();
    void interleavedBubble_data();
    void interleavedBubble();
    void zeroBubbleBeatsOneFOneBAtEqualMemory_data();
    void zeroBubbleBeatsOneFOneBAtEqualMemory();
    void slowestStageSetsThroughput();
    void zeroBubbleH2FillsTheBubbleWithTwiceTheMemory();
    void peakInFlight();
    void closedFormsMatchSchedules();
    void randomTimelinesAreValid();
    void rejectsBadInput();
};

void TestPipeline::forwardUtilisationTable_data()
{
    QTest::addColumn<int>("stages");
    QTest::addColumn<int>("microbatches");
    QTest::addColumn<double>("utilisationPercent");
    // The reference text's printed table (p = 4) and exercise 14 (p = 8, m = 32: 32/39 = 82.1%).
    QTest::newRow("p4 m1") << 4 << 1 << 25.0;
    QTest::newRow("p4 m2") << 4 << 2 << 40.0;
    QTest::newRow("p4 m4") << 4 << 4 << 57.1;
    QTest::newRow("p4 m8") << 4 << 8 << 72.7;
    QTest::newRow("p4 m16") << 4 << 16 << 84.2;
    QTest::newRow("p4 m32") << 4 << 32 << 91.4;
    QTest::newRow("exercise 14") << 8 << 32 << 82.1;
}

void TestPipeline::forwardUtilisationTable()
{
    QFETCH(int, stages);
    QFETCH(int, microbatches);
    QFETCH(double, utilisationPercent);
    PipelineInput in = equalStages(Schedule::GPipe, stages, microbatches);
    in.forwardOnly = true;
    const PipelineTimeline tl = simulatePipeline(in);
    QVERIFY2(tl.valid, tl.error.c_str());
    QVERIFY(validate(in, tl).isEmpty());
    QCOMPARE(std::round(1000.0 * (1.0 - tl.bubbleFraction)) / 10.0, utilisationPercent);
}

void TestPipeline::oneFOneBBubble_data()
{
    QTest::addColumn<int>("stages");
    QTest::addColumn<int>("microbatches");
    for (int p : {2, 4, 8})
        for (int m : {p, 2 * p, 8 * p})
            QTest::newRow(qPrintable(QStringLiteral("p%1 m%2").arg(p).arg(m))) << p << m;
}

void TestPipeline::oneFOneBBubble()
{
    // Equal stages: idle time per stage = (p - 1)/m of the ideal compute m (F + B) (Narayanan et al.
    // 2021 Sec. 2.2), for 1F1B and GPipe alike.
    QFETCH(int, stages);
    QFETCH(int, microbatches);
    for (Schedule schedule : {Schedule::OneFOneB, Schedule::GPipe}) {
        const PipelineInput in = equalStages(schedule, stages, microbatches);
        const PipelineTimeline tl = simulatePipeline(in);
        QVERIFY(tl.valid);
        QVERIFY(validate(in, tl).isEmpty());
        const double ideal = microbatches * 3.0;
        for (double idle : tl.stageIdleSeconds)
            QCOMPARE(idle / ideal, double(stages - 1) / microbatches);
    }
}

void TestPipeline::interleavedBubble_data()
{
    QTest::addColumn<int>("stages");
    QTest::addColumn<int>("microbatches");
    QTest::addColumn<int>("chunks");
    QTest::newRow("p4 m8 v2") << 4 << 8 << 2;
    QTest::newRow("p4 m16 v4") << 4 << 16 << 4;
    QTest::newRow("p8 m32 v2") << 8 << 32 << 2;
    QTest::newRow("p8 m64 v3") << 8 << 64 << 3;
}

void TestPipeline::interleavedBubble()
{
    // Interleaved 1F1B with v chunks: bubble (p - 1)/(v m) of the ideal compute.
    QFETCH(int, stages);
    QFETCH(int, microbatches);
    QFETCH(int, chunks);
    const PipelineInput in = equalStages(Schedule::Interleaved, stages, microbatches, chunks);
    const PipelineTimeline tl = simulatePipeline(in);
    QVERIFY2(tl.valid, tl.error.c_str());
    QCOMPARE(validate(in, tl), QString());
    const double ideal = microbatches * 3.0;
    QCOMPARE(tl.makespan, ideal * (1.0 + double(stages - 1) / (double(chunks) * microbatches)));
}

void TestPipeline::zeroBubbleBeatsOneFOneBAtEqualMemory_data()
{
    QTest::addColumn<int>("stages");
    QTest::addColumn<int>("microbatches");
    QTest::addColumn<double>("weightShare");
    // Qi et al. 2024 evaluate p = 8..32 with 24..128 micro-batches; W is about half of backward
    // (the weight-gradient matmuls).
    QTest::newRow("p8 m24") << 8 << 24 << 0.5;
    QTest::newRow("p8 m32") << 8 << 32 << 0.5;
    QTest::newRow("p16 m48") << 16 << 48 << 0.5;
    QTest::newRow("p32 m128") << 32 << 128 << 0.45;
}

void TestPipeline::zeroBubbleBeatsOneFOneBAtEqualMemory()
{
    QFETCH(int, stages);
    QFETCH(int, microbatches);
    QFETCH(double, weightShare);
    const PipelineInput base = equalStages(Schedule::OneFOneB, stages, microbatches, 1, 1.0, 2.0);
    PipelineInput zb = base;
    zb.schedule = Schedule::ZeroBubbleH1;
    zb.weightGradientSeconds.assign(std::size_t(stages), 2.0 * weightShare);
    zb.transferSeconds = 0.0;
    const PipelineTimeline a = simulatePipeline(base), z = simulatePipeline(zb);
    QVERIFY(a.valid && z.valid);
    QCOMPARE(validate(zb, z), QString());
    QVERIFY2(z.makespan < a.makespan, qPrintable(QStringLiteral("ZB-H1 %1 vs 1F1B %2").arg(z.makespan).arg(a.makespan)));
    QVERIFY(z.bubbleFraction < a.bubbleFraction);
    QCOMPARE(z.peakInFlight, a.peakInFlight); // same activations held: the memory of 1F1B
}

/// Qi et al. 2024, Table 1 (with Figure 3's F = B = W): 1F1B leaves (p - 1)(F + B + W) idle on each stage,
/// ZB-H1 (p - 1)(F + B - W), ZB-H2 (p - 1)(F + B - 2W) = 0, holding up to 2p - 1 micro-batches where 1F1B holds p.
void TestPipeline::zeroBubbleH2FillsTheBubbleWithTwiceTheMemory()
{
    const int p = 4, m = 8;
    PipelineInput in = equalStages(Schedule::ZeroBubbleH2, p, m, 1, 1.0, 2.0);
    in.weightGradientSeconds.assign(std::size_t(p), 1.0); // B = W = F, the figure's
    const PipelineTimeline h2 = simulatePipeline(in);
    QVERIFY2(h2.valid, h2.error.c_str());
    QCOMPARE(validate(in, h2), QString());
    in.schedule = Schedule::ZeroBubbleH1;
    const PipelineTimeline h1 = simulatePipeline(in);
    in.schedule = Schedule::OneFOneB;
    const PipelineTimeline ofob = simulatePipeline(in);
    QVERIFY(h1.valid && ofob.valid);
    // Each stage's work is 3 m units; the makespan adds the bubble of Table 1.
    QCOMPARE(ofob.makespan, 3.0 * m + (p - 1) * (1.0 + 1.0 + 1.0));
    QCOMPARE(h1.makespan, 3.0 * m + (p - 1) * (1.0 + 1.0 - 1.0));
    // Within one step ZB-H2 keeps the forward ramp: the last stage starts after p - 1 forwards (Table 1's zero
    // is the steady state, where post-validation lets the next iteration's forwards fill it). With a transfer
    // between stages, ZB-H1 waits for it at every input gradient; ZB-H2's deeper warm-up hides it.
    QCOMPARE(h2.makespan, 3.0 * m + (p - 1) * 1.0);
    in.transferSeconds = 0.25;
    const PipelineTimeline h1Sent = simulatePipeline(in);
    in.schedule = Schedule::ZeroBubbleH2;
    const PipelineTimeline h2Sent = simulatePipeline(in);
    QVERIFY(h1Sent.valid && h2Sent.valid);
    QCOMPARE(validate(in, h2Sent), QString());
    QVERIFY2(h2Sent.makespan < h1Sent.makespan,
             qPrintable(QStringLiteral("ZB-H2 %1, ZB-H1 %2").arg(h2Sent.makespan).arg(h1Sent.makespan)));
    const auto peaks = scheduledPeakInFlight(Schedule::ZeroBubbleH2, p, m, 1);
    for (int s = 0; s < p; ++s)
        QCOMPARE(peaks[std::size_t(s)], microbatchesInFlight(Schedule::ZeroBubbleH2, p, 1, m, s));
    QCOMPARE(peaks[0], double(2 * p - 1)); // Figure 3: the first stage runs F1 to F7 before B1
    QCOMPARE(peaks[std::size_t(p - 1)], 1.0);
}

void TestPipeline::slowestStageSetsThroughput()
{
    // Exercise 15: one stage twice as slow; as m grows the time per micro-batch tends to that stage's
    // F + B, never below it, whatever m is.
    for (int m : {8, 64, 512}) {
        PipelineInput in = equalStages(Schedule::OneFOneB, 4, m);
        in.forwardSeconds[2] = 2.0;
        in.backwardSeconds[2] = 4.0;
        const PipelineTimeline tl = simulatePipeline(in);
        QVERIFY(tl.valid);
        QCOMPARE(validate(in, tl), QString());
        const double perMicrobatch = tl.makespan / m;
        QVERIFY(perMicrobatch >= 6.0);
        QVERIFY(perMicrobatch <= 6.0 + 3.0 * 6.0 / m); // fill and drain amortised over m
        QCOMPARE(tl.stageBubbleFraction[2] < tl.stageBubbleFraction[0], true);
    }
}

void TestPipeline::peakInFlight()
{
    const int p = 4, m = 16;
    const auto gpipe = scheduledPeakInFlight(Schedule::GPipe, p, m, 1);
    const auto ofob = scheduledPeakInFlight(Schedule::OneFOneB, p, m, 1);
    for (int s = 0; s < p; ++s) {
        QCOMPARE(gpipe[std::size_t(s)], double(m));
        QCOMPARE(ofob[std::size_t(s)], double(p - s));
    }
}

void TestPipeline::closedFormsMatchSchedules()
{
    // The memory model's closed forms (Korthikanti Eq. 5 and Megatron-LM's warm-up count) agree with
    // the simulated schedules' order on every shape tried.
    for (int p : {2, 3, 4, 8, 16})
        for (int m : {p, 2 * p, 4 * p, 8 * p})
            for (int v : {1, 2, 3, 4}) {
                const Schedule sim = v > 1 ? Schedule::Interleaved : Schedule::OneFOneB;
                const Schedule plan = v > 1 ? Schedule::Interleaved : Schedule::OneFOneB;
                const auto peaks = scheduledPeakInFlight(sim, p, m, v);
                for (int s = 0; s < p; ++s)
                    QCOMPARE(peaks[std::size_t(s)], microbatchesInFlight(plan, p, v, m, s));
            }
}

void TestPipeline::randomTimelinesAreValid()
{
    QRandomGenerator rng(4242);
    const Schedule schedules[] = {Schedule::GPipe, Schedule::OneFOneB, Schedule::Interleaved,
                                          Schedule::ZeroBubbleH1, Schedule::ZeroBubbleH2};
    for (int trial = 0; trial < 300; ++trial) {
        PipelineInput in;
        in.schedule = schedules[rng.bounded(5)];
        in.stages = 1 + rng.bounded(12);
        in.chunks = in.schedule == Schedule::Interleaved ? 1 + rng.bounded(4) : 1;
        in.microbatches = in.stages * (1 + rng.bounded(6));
        if (in.schedule != Schedule::Interleaved)
            in.microbatches = 1 + rng.bounded(40);
        for (int s = 0; s < in.stages; ++s) {
            in.forwardSeconds.push_back(0.1 + rng.generateDouble());
            in.backwardSeconds.push_back(0.2 + 2 * rng.generateDouble());
            in.weightGradientSeconds.push_back(in.backwardSeconds.back() * rng.generateDouble());
        }
        in.transferSeconds = 0.2 * rng.generateDouble();
        const PipelineTimeline tl = simulatePipeline(in);
        QVERIFY2(tl.valid, tl.error.c_str());
        const QString problem = validate(in, tl);
        QVERIFY2(problem.isEmpty(), qPrintable(QStringLiteral("%1 p=%2 m=%3 v=%4: %5")
                                                   .arg(toString(in.schedule)).arg(in.stages).arg(in.microbatches)
                                                   .arg(in.chunks).arg(problem)));
        double busy = 0;
        for (double b : tl.stageBusySeconds)
            busy += b;
        QVERIFY(std::abs(tl.bubbleFraction - (1.0 - busy / (in.stages * tl.makespan))) < 1e-9);
    }
}

void TestPipeline::rejectsBadInput()
{
    PipelineInput in = equalStages(Schedule::Interleaved, 4, 6, 2); // 6 is not a multiple of 4
    QVERIFY(!simulatePipeline(in).valid);
    in = equalStages(Schedule::OneFOneB, 4, 8);
    in.forwardSeconds.pop_back();
    QVERIFY(!simulatePipeline(in).valid);
    in = equalStages(Schedule::OneFOneB, 4, 8);
    in.backwardSeconds[1] = -1;
    QVERIFY(!simulatePipeline(in).valid);
    in = equalStages(Schedule::OneFOneB, 4096, 1 << 20);
    const PipelineTimeline huge = simulatePipeline(in);
    QVERIFY(!huge.valid);
    QVERIFY(!huge.error.empty());
}

TRAINPLAN_TEST_APPLESS_MAIN(TestPipeline)
#include "tst_pipeline.moc"
