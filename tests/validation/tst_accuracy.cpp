// The error bands (issue 37): over the held-out table (resources/accuracy/heldout_runs.csv, each published
// run predicted with its own source held out of the calibration), the stated 80% band of each run, built
// from the other sources' runs, covers between 75% and 90% of the runs, overall and per source family; the
// table is the one the current model and validation rows give; plans on devices with no published run say
// so.

#include <QTest>

#include <cmath>
#include <map>

#include "TestMain.h"
#include "TestSupport.h"
#include "ValidationRows.h"
#include "core/estimate/Accuracy.h"
#include "core/common/Units.h"
#include "core/estimate/Estimate.h"
#include "core/search/Search.h"
#include "io/plan/Examples.h"
#include "io/output/EstimateJson.h"
#include "io/output/SearchJson.h"
#include "io/plan/CatalogJson.h"

using namespace trainplan;

namespace {

struct Coverage
{
    int covered = 0, runs = 0;
    double share() const { return runs ? double(covered) / runs : 0; }
};

/// Per family (and "all"), how many of `quantity`'s runs lie within the band assessed without their source.
std::map<std::string, Coverage> coverage(AccuracyQuantity quantity)
{
    const std::vector<HeldOutRun> &runs = builtinHeldOutRuns();
    std::map<std::string, Coverage> out;
    for (const HeldOutRun &r : runs) {
        if (r.quantity != quantity)
            continue;
        const Accuracy a = assessAccuracy(r.at, runs, r.source);
        const double band = quantity == AccuracyQuantity::Memory ? a.memoryBand80 : a.band80;
        const bool covered = std::abs(r.error) <= band;
        for (const std::string &key : {r.family, std::string("all")}) {
            out[key].covered += covered;
            ++out[key].runs;
        }
    }
    return out;
}

Plan examplePlan(const QString &id)
{
    for (const io::ExamplePlan &e : io::builtinExamples())
        if (e.id == id)
            return *io::readPlan(e.bytes, io::builtinCatalog()).plan;
    qFatal("no example %s", qPrintable(id));
}

Estimate detailed(const Plan &plan)
{
    EstimateOptions o = EstimateOptions::analytic();
    o.details = true;
    return estimate(plan, io::builtinCatalog(), o);
}

const HeldOutRun *findRun(const std::string &family, const QString &id, AccuracyQuantity quantity)
{
    for (const HeldOutRun &r : builtinHeldOutRuns())
        if (r.family == family && r.quantity == quantity && r.id == id.toStdString())
            return &r;
    return nullptr;
}

bool near(double a, double b) { return std::abs(a - b) <= 1e-5 * std::max(std::abs(a), std::abs(b)); }

} // namespace

class TestAccuracy : public QObject
{
    Q_OBJECT
private slots:
    void tableHasEveryFamily();
    void stepTimeBandsCover();
    void memoryBandsCover();
    void outsideBandsCover_data();
    void outsideBandsCover();
    void tableMatchesTheModel();
    void csvRoundTrips();
    void deviceWithoutRunsIsNotValidated();
    void megatronOnHopperIsValidated();
    void shardedExpertsAreNotValidated();
    void estimateJsonCarriesTheBand();
    void memoryBandEdgeIsPricedOnThePeak();
    void publishedRunsRarelyFallOutsideTheMemoryBand();
    void searchMarksPlansThatMayNotFit();
    void searchMarksTies();
};

void TestAccuracy::tableHasEveryFamily()
{
    std::map<std::string, int> families;
    for (const HeldOutRun &r : builtinHeldOutRuns())
        ++families[r.family];
    // classic (A100/V100 papers and READMEs), dgxc (NVIDIA's recipes 24.11-25.05), bridge (Megatron-Bridge
    // 25.09-26.08), pytorch (torchtitan, llm-foundry), zero-bubble (memory peaks).
    for (const char *f : {"classic", "dgxc", "bridge", "pytorch", "zero-bubble"})
        QVERIFY2(families[f] >= 30, f);
    QVERIFY(builtinHeldOutRuns().size() >= 850);
}

void TestAccuracy::stepTimeBandsCover()
{
    const auto c = coverage(AccuracyQuantity::StepTime);
    for (const auto &[family, cov] : c) {
        qInfo("%s: %d of %d held-out step times inside their 80%% band (%.1f%%)", family.c_str(), cov.covered, cov.runs, 100 * cov.share());
        QVERIFY2(cov.share() >= 0.75, family.c_str()); // too narrow: the band promises more than it keeps
        QVERIFY2(cov.share() <= 0.90, family.c_str()); // too wide: as wrong, and it hides real differences
    }
    QCOMPARE(c.size(), std::size_t(5)); // all, bridge, classic, dgxc, pytorch
}

void TestAccuracy::memoryBandsCover()
{
    // Two families (zero bubble's A100 reserved peaks; torchtitan's and torchao's FSDP2 ones): each held out is
    // judged by the other's residuals. Zero bubble's peaks (errors within 7%) sit inside bands built from the
    // FSDP2 residuals (up to 23%) whatever either model does, so its share says nothing of width and only its
    // lower side is held; the FSDP2 family's bands, built from its other source and zero bubble, are held on both
    // sides. (Averaging the two had made a better FSDP2 memory model fail as "too wide".)
    const auto c = coverage(AccuracyQuantity::Memory);
    for (const auto &[family, cov] : c)
        qInfo("memory %s: %d of %d inside (%.1f%%)", family.c_str(), cov.covered, cov.runs, 100 * cov.share());
    QCOMPARE(c.size(), std::size_t(3)); // all, pytorch, zero-bubble
    QVERIFY(c.at("all").runs >= 50);
    QVERIFY(c.at("zero-bubble").share() >= 0.75);
    const double pytorch = c.at("pytorch").share();
    QVERIFY2(pytorch >= 0.75, "too narrow: the band promises more than it keeps");
    QVERIFY2(pytorch <= 0.90, "too wide: as wrong, and it hides real differences");
}

void TestAccuracy::outsideBandsCover_data()
{
    QTest::addColumn<int>("dimension");
    QTest::newRow("device") << int(AccuracyDimension::Device);
    QTest::newRow("framework") << int(AccuracyDimension::Framework);
    QTest::newRow("moe") << int(AccuracyDimension::Experts);
    QTest::newRow("precision") << int(AccuracyDimension::Precision);
}

void TestAccuracy::outsideBandsCover()
{
    // A plan outside the validated runs in one dimension (an AMD GPU, a framework with no published run), played
    // by each held-out run with every run that shares its generation (framework, ...) removed: the band of the
    // runs that remain, widened for the dimension let go, still covers 75-90% of them.
    QFETCH(int, dimension);
    const auto d = AccuracyDimension(dimension);
    const auto same = [d](const AccuracyCoordinates &a, const AccuracyCoordinates &b) {
        switch (d) {
        case AccuracyDimension::Device: return a.generation == b.generation;
        case AccuracyDimension::Framework: return a.framework == b.framework;
        case AccuracyDimension::Experts: return a.moe == b.moe;
        default: return a.precision == b.precision;
        }
    };
    Coverage c;
    int outside = 0;
    for (const HeldOutRun &r : builtinHeldOutRuns()) {
        if (r.quantity != AccuracyQuantity::StepTime)
            continue;
        std::vector<HeldOutRun> others;
        for (const HeldOutRun &o : builtinHeldOutRuns())
            if (!same(r.at, o.at))
                others.push_back(o);
        const Accuracy a = assessAccuracy(r.at, others, r.source);
        outside += std::find(a.outside.begin(), a.outside.end(), d) != a.outside.end();
        c.covered += std::abs(r.error) <= a.band80;
        ++c.runs;
    }
    qInfo("outside in %s: %d of %d inside (%.1f%%)", toString(d), c.covered, c.runs, 100 * c.share());
    QCOMPARE(outside, c.runs); // each says so
    QVERIFY(c.share() >= 0.75);
    QVERIFY(c.share() <= 0.90);
}

void TestAccuracy::tableMatchesTheModel()
{
    // The runs never fitted (PyTorch-native, the memory peaks) carry today's error: a model change that moves
    // them must regenerate the table (CALIBRATE_RESIDUALS, docs/CALIBRATION.md "Error bands").
    int checked = 0;
    for (const validation::Row &r : validation::loadPytorchRows()) {
        if (!r.modelled)
            continue;
        const HeldOutRun *run = findRun("pytorch", r.id, AccuracyQuantity::StepTime);
        QVERIFY2(run, qPrintable(r.id));
        const Estimate e = estimate(r.plan, io::builtinCatalog(), {false});
        QVERIFY2(std::abs((e.step.stepSeconds / r.measuredSeconds - 1.0) - run->error) < 0.005, qPrintable(r.id));
        const AccuracyCoordinates at = accuracyCoordinates(r.plan, e);
        QVERIFY2(at.device == run->at.device && at.framework == run->at.framework && at.precision == run->at.precision, qPrintable(r.id));
        QVERIFY2(near(at.gpus, run->at.gpus) && near(at.workPerGpu, run->at.workPerGpu) && near(at.parameters, run->at.parameters), qPrintable(r.id));
        ++checked;
    }
    for (const validation::MemoryRow &r : validation::loadMemoryRows()) {
        if (!r.modelled)
            continue;
        const HeldOutRun *run = findRun("zero-bubble", r.id, AccuracyQuantity::Memory);
        run = run ? run : findRun("pytorch", r.id, AccuracyQuantity::Memory);
        QVERIFY2(run, qPrintable(r.id));
        const MemoryEstimate m = estimate(r.plan, io::builtinCatalog(), {false}).memory;
        const double bytes = r.kind == MemoryKind::Allocated ? m.allocatedBytes : r.kind == MemoryKind::Reserved ? m.reservedBytes : m.deviceBytes;
        QVERIFY2(std::abs((bytes / r.measuredBytes - 1.0) - run->error) < 0.005, qPrintable(r.id));
        ++checked;
    }
    QVERIFY(checked >= 150);
}

void TestAccuracy::csvRoundTrips()
{
    const std::vector<HeldOutRun> &runs = builtinHeldOutRuns();
    const std::vector<HeldOutRun> again = parseHeldOutRuns(heldOutRunsToCsv(runs));
    QCOMPARE(again.size(), runs.size());
    QCOMPARE(again.front().source, runs.front().source);
    QVERIFY(near(again.back().at.workPerGpu, runs.back().at.workPerGpu));
    const auto sharded = [](const std::vector<HeldOutRun> &v) {
        return std::count_if(v.begin(), v.end(), [](const HeldOutRun &r) { return r.at.sharded; });
    };
    QVERIFY(sharded(runs) > 100); // llm-foundry's, torchtitan's and Megatron-Bridge's sharded runs
    QCOMPARE(sharded(again), sharded(runs));
    // A line without the zero3 column (the tables before it) reads as not sharded; an unknown value is refused.
    const std::vector<HeldOutRun> old =
        parseHeldOutRuns("header\nx,classic,1,time,h100,hopper,megatron,dense,16-bit,8,1e15,1e9,0.1,adam\n");
    QVERIFY(old.size() == 1 && !old.front().at.sharded);
    QCOMPARE(parseHeldOutRuns("header\nx,classic,1,time,h100,hopper,fsdp,dense,16-bit,8,1e15,1e9,0.1,adam,zero2\n").size(),
             std::size_t(0));
    // A malformed line is skipped, not read as zeros.
    QCOMPARE(parseHeldOutRuns("header\nx,classic,1,time,h100,hopper,megatron,dense,16-bit,8,nan,1e9,0.1\n").size(), std::size_t(0));
    QCOMPARE(parseHeldOutRuns("header\nx,classic,1,time,h100,hopper,megatron,dense,16-bit,8,1e15,1e9,0.1\n").size(), std::size_t(1));
}

void TestAccuracy::deviceWithoutRunsIsNotValidated()
{
    // No published run on an AMD GPU: the MI300X plan is compared with runs of other devices and says so.
    const Plan plan = examplePlan("llama2-7b-16-mi300x");
    const Estimate e = detailed(plan);
    QVERIFY(e.valid);
    QVERIFY(detailsOf(e).accuracy.assessed);
    QVERIFY(!detailsOf(e).accuracy.validated);
    QVERIFY(std::find(detailsOf(e).accuracy.outside.begin(), detailsOf(e).accuracy.outside.end(), AccuracyDimension::Device) != detailsOf(e).accuracy.outside.end());
    QVERIFY(detailsOf(e).accuracy.band80 > detailsOf(e).accuracy.expectedError);
    // Nor on a device the user defines (New Accelerator), though its efficiencies are the A100's.
    QVERIFY(io::customDeviceTemplate().generation.empty());
}

void TestAccuracy::megatronOnHopperIsValidated()
{
    // Llama 3 70B on 512 H100 with Megatron-Core: dgxc's H100 recipes are within a few per cent held out.
    const Estimate e = detailed(examplePlan("llama3-70b-512-h100"));
    QVERIFY(detailsOf(e).accuracy.validated);
    QVERIFY(detailsOf(e).accuracy.outside.empty());
    QCOMPARE(detailsOf(e).accuracy.comparableRuns, kNearestComparable);
    QVERIFY(detailsOf(e).accuracy.band80 > 0.02 && detailsOf(e).accuracy.band80 < 0.15);
    QVERIFY(detailsOf(e).accuracy.expectedError < detailsOf(e).accuracy.band80);
    QVERIFY(detailsOf(e).accuracy.sources.size() >= 2);
}

void TestAccuracy::shardedExpertsAreNotValidated()
{
    // Every published run that shards its parameters (llm-foundry's and torchtitan's FSDP, Megatron-Bridge's
    // Megatron-FSDP rows) is a dense model: DeepSeek-V3 with ZeRO-3 on 1,024 H100 (the plan the search once
    // ranked first) lies outside them in how its parameters move, and says so; the same layout with ZeRO-1
    // does not.
    const Plan plan = examplePlan("deepseek-v3-zero3-1024-h100");
    QCOMPARE(plan.parallel.zeroStage, std::int64_t(3));
    const auto outsideSharding = [](const Accuracy &a) {
        return std::find(a.outside.begin(), a.outside.end(), AccuracyDimension::Sharding) != a.outside.end();
    };
    const Estimate e = detailed(plan);
    QVERIFY(e.valid && detailsOf(e).accuracy.assessed);
    QVERIFY(outsideSharding(detailsOf(e).accuracy));
    QVERIFY(!detailsOf(e).accuracy.validated);
    Plan zero1 = plan;
    zero1.parallel.zeroStage = 1;
    QVERIFY(!outsideSharding(assessAccuracy(accuracyCoordinates(zero1, detailed(zero1)), builtinHeldOutRuns())));
    // A dense model under PyTorch's FSDP (the gallery's Llama 3 70B on 256 H200) is compared with torchtitan's
    // and llm-foundry's sharded runs: inside their territory.
    const Plan fsdp = examplePlan("llama3-70b-fsdp-256-h200");
    QCOMPARE(fsdp.parallel.zeroStage, std::int64_t(3));
    QVERIFY(!outsideSharding(detailsOf(detailed(fsdp)).accuracy));
}

void TestAccuracy::estimateJsonCarriesTheBand()
{
    const Plan plan = examplePlan("llama2-7b-16-mi300x");
    const QJsonObject a = io::estimateToJson(plan, detailed(plan), false)["accuracy"].toObject();
    for (const char *key : {"expected_error", "band_80", "comparable_runs", "sources", "validated", "outside", "memory_band_80"})
        QVERIFY2(a.contains(QLatin1String(key)), key);
    QCOMPARE(a["validated"].toBool(), false);
    QVERIFY(a["outside"].toArray().contains(QStringLiteral("device")));
    QVERIFY(a["band_80"].toDouble() > 0 && a["band_80"].toDouble() < 2);
    QCOMPARE(a["comparable_runs"].toInt(), kNearestComparable);
}

// The held-out errors are (predicted - measured) / measured, so a peak within the band b measures at most
// predicted / (1 - b): 80 GiB at ±18% up to 97.6 GiB, past a 96 GiB device; 78 GiB up to 95.1 GiB, inside it.
void TestAccuracy::memoryBandEdgeIsPricedOnThePeak()
{
    Accuracy a;
    a.memoryBand80 = 0.18;
    QCOMPARE(memoryPeakUpperBytes(80 * units::GiB, a), 80 * units::GiB); // no comparable peaks: no band
    a.memoryComparableRuns = 18;
    QVERIFY(near(memoryPeakUpperBytes(80 * units::GiB, a), 80 * units::GiB / 0.82));
    MemoryEstimate m;
    m.fits = true;
    m.capacityBytes = 96 * units::GiB;
    StageMemory stage;
    stage.capacityBytes = m.capacityBytes;
    stage.peakBytes = m.peakBytes = 80 * units::GiB;
    m.stages = {stage, stage};
    QVERIFY(mayNotFit(m, a));
    m.stages[0].peakBytes = m.stages[1].peakBytes = m.peakBytes = 78 * units::GiB;
    QVERIFY(!mayNotFit(m, a));
    m.stages[1].capacityBytes = 80 * units::GiB; // a mixed cluster: the smaller device's stage decides
    QVERIFY(mayNotFit(m, a));
    m.fits = false; // a plan that does not fit as estimated is not "uncertain"
    QVERIFY(!mayNotFit(m, a));
    // The estimate's JSON carries the edge (extending issue 37's keys): Llama 2 7B on 16 MI300X leaves most of
    // its memory free.
    const Plan plan = examplePlan("llama2-7b-16-mi300x");
    const Estimate e = detailed(plan);
    const QJsonObject json = io::estimateToJson(plan, e, false)["accuracy"].toObject();
    const double upper = memoryPeakUpperBytes(e.memory.peakBytes, detailsOf(e).accuracy);
    QVERIFY(near(json["memory_peak_upper_bytes"].toDouble(), upper));
    QVERIFY(json["memory_peak_upper_bytes"].toDouble() > e.memory.peakBytes);
    QCOMPARE(json["may_not_fit"].toBool(), false);
}

// Every published run of the validation did run, so the memory band's upper edge must rarely put one past its
// device: an edge that flagged most of them would call every plan uncertain, one that never did would say
// nothing. The 80% band, two-sided, puts a run's true peak above the edge for at most a tenth of runs whose
// estimate is right at capacity; most runs sit well below it. Held to 10% "may not fit" and 1% "does not fit"
// over the modelled step-time rows (Megatron-Core, NeMo, Megatron-Bridge, PyTorch-native), each estimated with
// its band as the window does.
void TestAccuracy::publishedRunsRarelyFallOutsideTheMemoryBand()
{
    std::vector<validation::Row> rows = validation::loadRows();
    for (std::vector<validation::Row> more : {validation::loadBridgeRows(), validation::loadPytorchRows()})
        rows.insert(rows.end(), more.begin(), more.end());
    int runs = 0, uncertain = 0, over = 0;
    QStringList flagged;
    for (const validation::Row &r : rows) {
        if (!r.modelled)
            continue;
        const Estimate e = detailed(r.plan);
        if (!e.valid)
            continue;
        ++runs;
        over += e.memory.fits ? 0 : 1;
        if (mayNotFit(e.memory, detailsOf(e).accuracy)) {
            ++uncertain;
            flagged << r.source + u' ' + r.id.section(u' ', 0, 0);
        }
    }
    qInfo("%d runs: %d may not fit (%s), %d do not fit", runs, uncertain, qPrintable(flagged.join(u',')), over);
    QVERIFY(runs > 700);
    QVERIFY2(uncertain <= runs / 10, qPrintable(QString::number(uncertain)));
    QVERIFY2(over <= runs / 100, qPrintable(QString::number(over)));
}

// Each plan a search lists or plots says whether it may not fit as its own estimate would (llm-foundry's MPT-7B on
// 64 H100: its fastest layouts leave less free than their band may take; most layouts leave plenty).
void TestAccuracy::searchMarksPlansThatMayNotFit()
{
    const Plan base = examplePlan("mpt-7b-llmfoundry-64-h100");
    SearchConstraints c;
    c.threads = 2;
    const SearchOutcome out = searchPlans(base, io::builtinCatalog(), c);
    QVERIFY(out.feasiblePoints.size() > 100);
    int marked = 0, checked = 0;
    for (std::size_t i = 0; i < out.feasiblePoints.size(); i += 17) {
        const SearchScore &s = out.feasiblePoints[i];
        const Estimate e = detailed(applyConfig(base, s.config));
        QCOMPARE(s.mayNotFit, mayNotFit(e.memory, detailsOf(e).accuracy));
        marked += s.mayNotFit ? 1 : 0;
        ++checked;
    }
    QVERIFY2(marked > 0 && marked < checked, qPrintable(QStringLiteral("%1 of %2").arg(marked).arg(checked)));
    QCOMPARE(bestMayNotFit(out), out.top.front().score.mayNotFit);
    QVERIFY(out.top.front().score.mayNotFit);
}

void TestAccuracy::searchMarksTies()
{
    Plan base = examplePlan("llama2-7b-one-dgx-h100");
    SearchConstraints c;
    c.top = 10;
    const SearchOutcome out = searchPlans(base, io::builtinCatalog(), c);
    QVERIFY(out.top.size() >= 3);
    QVERIFY(out.bestAccuracy.assessed && out.bestAccuracy.band80 > 0);
    QVERIFY(!out.top.front().tiesBest);
    int ties = 0;
    for (const RankedPlan &r : out.top) {
        const double behind = 1.0 - r.score.tokensPerSecond / out.bestTokensPerSecond;
        if (r.rank > 1)
            QCOMPARE(r.tiesBest, behind <= out.bestAccuracy.band80);
        ties += r.tiesBest;
    }
    QVERIFY(ties >= 1); // eight H100s: several layouts within a few per cent of the best
    // The search's JSON says whether its best may not fit at the memory band's edge (extending issue 37's keys).
    const QJsonObject a = io::searchToJson(out, c, io::builtinCatalog())["accuracy"].toObject();
    QCOMPARE(a["memory_band_80"].toDouble(), out.bestAccuracy.memoryBand80);
    QCOMPARE(a["best_may_not_fit"].toBool(), bestMayNotFit(out));
}

TRAINPLAN_TEST_APPLESS_MAIN(TestAccuracy)
#include "tst_accuracy.moc"
