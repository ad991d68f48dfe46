// Numeric guards: properties over thousands of seeded random valid plans (finite, non-negative,
// monotone where physics says so) and the extremes of every size.

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QTest>

#include <cmath>

#include "io/output/EstimateJson.h"
#include "TestMain.h"
#include "TestSupport.h"
#include "core/estimate/Estimate.h"
#include "core/plan/PlanKeys.h"

using namespace trainplan;

namespace {

Estimate runProperties(const Plan &plan, bool scaling = false)
{
    return estimate(plan, io::builtinCatalog(), {scaling, true});
}

/// A random valid plan: preset or custom shape, layout dividing everything, random options.
Plan randomPlan(QRandomGenerator &rng)
{
    static const char *presets[] = {"gpt2-small", "gpt3-175b", "llama2-7b", "llama3-8b", "llama3-70b", "megatron-1t"};
    const std::int64_t t = std::int64_t(1) << rng.bounded(4);
    const std::int64_t p = std::int64_t(1) << rng.bounded(4);
    const std::int64_t d = std::int64_t(1) << rng.bounded(7);
    const std::int64_t b = std::int64_t(1) << rng.bounded(4);
    Plan plan = test::presetPlan(presets[rng.bounded(6)], t, p, d, b, b * d * p * (1 + rng.bounded(4)));
    if (rng.bounded(4) == 0) // a custom GPT shape
        plan.model = test::gptModel(8 * (1 + rng.bounded(8)), 256 * (1 + rng.bounded(32)), 16, 1000 + rng.bounded(100000),
                                    128 << rng.bounded(6));
    plan.training.precision = Precision(rng.bounded(5));
    plan.training.optimizer = rng.bounded(2) ? Optimizer::Adam : Optimizer::Sgd;
    plan.training.recompute = Recompute(rng.bounded(3));
    plan.training.sequenceParallel = rng.bounded(2);
    plan.training.flashAttention = rng.bounded(2);
    plan.training.fusedKernels = rng.bounded(2);
    plan.training.fp32Gradients = rng.bounded(2);
    plan.parallel.zeroStage = rng.bounded(4);
    plan.parallel.offloadOptimizer = rng.bounded(5) == 0;
    plan.parallel.overlapGradReduce = rng.bounded(2);
    plan.parallel.schedule = Schedule(rng.bounded(4));
    if (plan.parallel.schedule == Schedule::Interleaved && rng.bounded(2))
        plan.parallel.virtualStages = 2;
    const char *devices[] = {"a100-sxm4-80gb", "h100-sxm5-80gb", "v100-sxm2-32gb", "mi300x", "b200"};
    plan.cluster.device = devices[rng.bounded(5)];
    return plan;
}

bool finiteNonNegative(double x)
{
    return std::isfinite(x) && x >= 0;
}

QString checkFinite(const Estimate &e)
{
    for (const StageMemory &s : e.memory.stages) {
        for (double v : {s.parametersBytes, s.gradientsBytes, s.optimizerBytes, s.activationsBytes, s.otherBytes, s.peakBytes,
                         s.hostOptimizerBytes, s.forwardBackwardBytes, s.optimizerStepBytes})
            if (!finiteNonNegative(v))
                return QStringLiteral("memory of stage %1").arg(s.stage);
        for (double v : s.other)
            if (!finiteNonNegative(v))
                return QStringLiteral("other memory of stage %1").arg(s.stage);
        // Each kind of peak includes the one before: allocated <= reserved <= device = peak.
        if (!(s.allocatedBytes > 0 && s.allocatedBytes <= s.reservedBytes && s.reservedBytes <= s.deviceBytes && s.deviceBytes == s.peakBytes))
            return QStringLiteral("the three peaks of stage %1 are out of order").arg(s.stage);
    }
    const StepEstimate &st = e.step;
    for (double v : st.breakdown)
        if (!finiteNonNegative(v))
            return QStringLiteral("step breakdown");
    for (double v : {st.stepSeconds, st.tokensPerSecond, st.validTokensPerSecond, st.modelFlopsPerGpu, st.hardwareFlopsPerGpu, st.mfu,
                     st.hfu, st.bubbleFraction, st.modelFlopsPerStep, st.hardwareFlopsPerStep})
        if (!finiteNonNegative(v))
            return QStringLiteral("step summary");
    if (!(st.stepSeconds > 0))
        return QStringLiteral("zero step time");
    for (const Op &op : st.ops)
        if (!finiteNonNegative(op.flops) || !finiteNonNegative(op.bytes) || !finiteNonNegative(op.seconds))
            return QStringLiteral("op %1").arg(QLatin1String(op.name));
    for (const auto *curve : {&scalingOf(e).strong, &scalingOf(e).weak})
        for (const ScalingPoint &p : *curve)
            if (!finiteNonNegative(p.stepSeconds) || !finiteNonNegative(p.speedup) || !finiteNonNegative(p.efficiency))
                return QStringLiteral("scaling point %1").arg(p.workers);
    return {};
}

/// Every number in a JSON tree is finite (QJsonDocument writes NaN and inf as null or as nothing valid).
bool jsonFinite(const QJsonValue &v)
{
    if (v.isDouble())
        return std::isfinite(v.toDouble());
    if (v.isNull())
        return false;
    if (v.isArray()) {
        for (const QJsonValue x : v.toArray())
            if (!jsonFinite(x))
                return false;
    }
    if (v.isObject()) {
        const QJsonObject o = v.toObject();
        for (auto it = o.begin(); it != o.end(); ++it)
            if (!jsonFinite(it.value()))
                return false;
    }
    return true;
}

} // namespace

class TestProperties : public QObject
{
    Q_OBJECT

private slots:
    void randomPlansAreFiniteAndNonNegative();
    void memoryGrowsWithMicroBatchAndSequence();
    void everyNumberKeyAtItsBoundsGivesFiniteResults();
    void slowerLinksNeverSpeedUpTheStep();
    void higherZeroStageNeverNeedsMoreState();
    void extremes_data();
    void extremes();
};

void TestProperties::randomPlansAreFiniteAndNonNegative()
{
    QRandomGenerator rng(1234567);
    int valid = 0, invalid = 0;
    for (int i = 0; i < 3000; ++i) {
        const Plan plan = randomPlan(rng);
        const Estimate e = runProperties(plan, i % 10 == 0);
        if (!e.valid) {
            ++invalid;
            QVERIFY(hasErrors(e.problems));
            continue;
        }
        ++valid;
        const QString problem = checkFinite(e);
        QVERIFY2(problem.isEmpty(), qPrintable(problem + " in plan " + QString::number(i)));
        if (i % 50 == 0)
            QVERIFY(jsonFinite(io::estimateToJson(plan, e, true)));
    }
    qInfo("%d valid and %d invalid random plans checked", valid, invalid);
    QVERIFY(valid > 1500);
}

void TestProperties::memoryGrowsWithMicroBatchAndSequence()
{
    QRandomGenerator rng(99);
    int checked = 0;
    for (int i = 0; i < 1500; ++i) {
        Plan plan = randomPlan(rng);
        plan.training.globalBatch *= 64; // room for larger micro-batches
        const Estimate base = runProperties(plan);
        if (!base.valid)
            continue;
        // The tensors grow; the reserved and device peaks need not: half as many micro-batches in flight
        // of twice the size can round to the caching allocator's blocks with less waste (a 7 MiB tensor
        // takes 10 MiB of a 20 MiB segment, a 14 MiB one 14 MiB), as PyTorch's allocator does.
        Plan larger = plan;
        larger.training.microBatch *= 2;
        const Estimate e1 = runProperties(larger);
        if (e1.valid) {
            QVERIFY2(e1.memory.allocatedBytes >= base.memory.allocatedBytes * (1 - 1e-12), qPrintable(QString::number(i)));
            ++checked;
        }
        Plan longer = plan;
        longer.model.seqLen *= 2;
        const Estimate e2 = runProperties(longer);
        if (e2.valid) {
            QVERIFY2(e2.memory.allocatedBytes >= base.memory.allocatedBytes * (1 - 1e-12), qPrintable(QString::number(i)));
            ++checked;
        }
    }
    qInfo("%d monotonicity pairs", checked);
    QVERIFY(checked > 1000);
}

void TestProperties::slowerLinksNeverSpeedUpTheStep()
{
    QRandomGenerator rng(7777);
    int checked = 0;
    for (int i = 0; i < 1500; ++i) {
        const Plan plan = randomPlan(rng);
        const Estimate base = runProperties(plan);
        if (!base.valid)
            continue;
        const DeviceSpec &d = *base.device;
        Plan slower = plan;
        slower.cluster.overrides.networkBandwidthBytesPerSecond = d.networkBandwidthBytesPerSecond / (1.5 + rng.bounded(4));
        slower.cluster.overrides.intraNodeBandwidthBytesPerSecond = d.intraNodeBandwidthBytesPerSecond / (1.5 + rng.bounded(4));
        slower.cluster.overrides.networkLatencySeconds = d.networkLatencySeconds * 3;
        slower.cluster.overrides.intraNodeLatencySeconds = d.intraNodeLatencySeconds * 3;
        const Estimate e = runProperties(slower);
        QVERIFY(e.valid);
        QVERIFY2(e.step.stepSeconds >= base.step.stepSeconds * (1 - 1e-12),
                 qPrintable(QStringLiteral("plan %1: %2 s with slower links, %3 s before").arg(i).arg(e.step.stepSeconds).arg(base.step.stepSeconds)));
        ++checked;
    }
    qInfo("%d plans re-estimated with slower links", checked);
    QVERIFY(checked > 700);
}

void TestProperties::higherZeroStageNeverNeedsMoreState()
{
    QRandomGenerator rng(31337);
    int checked = 0;
    for (int i = 0; i < 1000; ++i) {
        Plan plan = randomPlan(rng);
        double previous = -1;
        for (int stage = 0; stage <= 3; ++stage) {
            plan.parallel.zeroStage = stage;
            const Estimate e = runProperties(plan);
            if (!e.valid)
                break;
            double persistent = 0;
            for (const StageMemory &s : e.memory.stages)
                persistent = std::max(persistent, s.parametersBytes + s.gradientsBytes + s.optimizerBytes + s.hostOptimizerBytes);
            if (previous >= 0)
                QVERIFY2(persistent <= previous * (1 + 1e-12), qPrintable(QStringLiteral("plan %1 stage %2").arg(i).arg(stage)));
            previous = persistent;
            ++checked;
        }
    }
    qInfo("%d ZeRO stage comparisons", checked);
    QVERIFY(checked > 1800); // ZeRO stages 2 and 3 need one pipeline stage: pipelined plans compare 0 and 1 only
}

void TestProperties::extremes_data()
{
    QTest::addColumn<QString>("name");
    QTest::newRow("1T on one GPU") << "1t-one-gpu";
    QTest::newRow("a million GPUs") << "million-gpus";
    QTest::newRow("sequence length one million") << "seq-1m";
    QTest::newRow("vocabulary one") << "vocab-1";
    QTest::newRow("one layer") << "one-layer";
    QTest::newRow("huge sizes rejected") << "huge";
}

void TestProperties::extremes()
{
    QFETCH(QString, name);
    Plan plan;
    bool expectValid = true;
    if (name == "1t-one-gpu") {
        plan = test::presetPlan("megatron-1t", 1, 1, 1, 1, 1);
    } else if (name == "million-gpus") {
        plan = test::presetPlan("gpt2-small", 1, 1, 1 << 20, 1, 1 << 20);
    } else if (name == "seq-1m") {
        plan = test::presetPlan("llama3-8b", 8, 1, 1, 1, 8);
        plan.model.seqLen = 1 << 20;
    } else if (name == "vocab-1") {
        plan = test::presetPlan("gpt2-small", 1, 1, 8, 1, 8);
        plan.model.vocab = 1;
    } else if (name == "one-layer") {
        plan = test::presetPlan("gpt2-small", 1, 1, 8, 1, 8);
        plan.model.layers = 1;
    } else {
        plan = test::presetPlan("gpt2-small", 1, 1, 8, 1, 8);
        plan.model.hidden = std::int64_t(1) << 41;
        plan.model.seqLen = std::int64_t(1) << 45;
        expectValid = false;
    }
    const Estimate e = runProperties(plan, true);
    QCOMPARE(e.valid, expectValid);
    if (!expectValid) {
        QVERIFY(hasErrors(e.problems));
        QVERIFY(QString::fromStdString(io::problemMessage(e.problems.front())).contains("must be a whole number from 1 to"));
        return;
    }
    const QString problem = checkFinite(e);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QVERIFY(jsonFinite(io::estimateToJson(plan, e, false)));
    if (name == "1t-one-gpu")
        QVERIFY(!e.memory.fits && e.step.bottleneck == Bottleneck::Capacity);
}

// Every number key of the plan table at the ends of its physical range (one at a time, then the run keys
// together): a plan that validates gives an estimate whose every number is finite (the JSON has no null).
void TestProperties::everyNumberKeyAtItsBoundsGivesFiniteResults()
{
    const Plan base = test::presetPlan("gpt3-175b", 8, 8, 8, 1, 1536);
    int valid = 0, checked = 0;
    const auto check = [&](const Plan &plan, const QString &what) {
        const Estimate e = runProperties(plan, true);
        ++checked;
        if (!e.valid)
            return true;
        ++valid;
        const QJsonObject json = io::estimateToJson(plan, e, true);
        if (!jsonFinite(json) || !checkFinite(e).isEmpty()) {
            qWarning("%s: %s", qPrintable(what), qPrintable(checkFinite(e)));
            return false;
        }
        return true;
    };
    Plan runExtremes = base;
    for (const PlanKey &key : planKeys()) {
        if (!key.accessible() || !key.range.bounded() || (key.type != KeyType::Number && key.type != KeyType::Integer))
            continue;
        for (const bool upper : {false, true}) {
            const double bound = upper ? key.range.maximum : key.range.minimum;
            const bool exclusive = upper ? key.range.maximumExclusive : key.range.minimumExclusive;
            const double value = exclusive ? std::nextafter(bound, upper ? -1e300 : 1e300) : bound;
            Plan plan = base;
            key.set(plan, key.type == KeyType::Integer ? KeyValue(std::int64_t(value)) : KeyValue(value));
            QVERIFY2(!checkValue(key, key.get(plan)), key.path);
            QVERIFY2(check(plan, QStringLiteral("%1 = %2").arg(QLatin1String(key.path)).arg(value, 0, 'g', 17)), key.path);
            if (upper && (key.section() == "run" || key.path == std::string_view("parallel.bucket_bytes")))
                key.set(runExtremes, key.type == KeyType::Integer ? KeyValue(std::int64_t(value)) : KeyValue(value));
        }
    }
    QVERIFY(check(runExtremes, QStringLiteral("run keys at their upper ends")));
    QVERIFY(checked > 40);
    QVERIFY(valid > 20);
}

TRAINPLAN_TEST_APPLESS_MAIN(TestProperties)
#include "tst_properties.moc"
