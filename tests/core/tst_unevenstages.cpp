// Uneven pipeline stages (parallel.first_stage_layers / last_stage_layers, Megatron-Core's
// --decoder-first/last-pipeline-num-layers): Llama 3.1 405B's published 126 layers on 16 stages as
// 7 + 14 x 8 + 7 (Llama Team 2024, Section 3.3.2) is valid and each stage's memory and time follow its own
// layers; splits that do not share evenly are refused with valid values; the plan file round-trips; the
// search finds the uneven split when the layers do not divide by the stages.

#include <QTest>

#include "core/estimate/Estimate.h"
#include "core/plan/PlanKeys.h"
#include "core/search/Search.h"
#include "io/output/Evidence.h"
#include "io/plan/CatalogJson.h"
#include "io/plan/PlanJson.h"
#include "TestMain.h"
#include "TestSupport.h"

using namespace trainplan;

namespace {

/// Llama 3.1 405B on 16,384 H100s as Meta ran it (Llama Team 2024, Table 4): tensor 8, pipeline 16,
/// data 128, 2,048 sequences of 8,192 tokens.
Plan llama405(std::int64_t first, std::int64_t last)
{
    Plan plan = test::presetPlan("llama3.1-405b", 8, 16, 128, 1, 2048, "h100-sxm5-80gb");
    plan.training.recompute = Recompute::Selective;
    plan.training.sequenceParallel = true;
    plan.training.flashAttention = true;
    plan.parallel.zeroStage = 1;
    plan.parallel.firstStageLayers = first;
    plan.parallel.lastStageLayers = last;
    return plan;
}

bool hasError(const Estimate &e, const std::string &key, const std::string &words)
{
    for (const Problem &p : e.problems)
        if (p.isError() && p.key == key && io::problemMessage(p).find(words) != std::string::npos)
            return true;
    return false;
}

} // namespace

class TestUnevenStages : public QObject
{
    Q_OBJECT

private slots:
    void llama405PublishedSplit();
    void stagesFollowTheirOwnLayers();
    void refusedSplitsNameValidValues();
    void planFileRoundTrip();
    void searchFindsTheUnevenSplit();
    void listedStagesBalanceTheOutputLayer();
    void listedStagesRefuseWhatDoesNotAddUp();
};

void TestUnevenStages::llama405PublishedSplit()
{
    const Plan plan = llama405(7, 7);
    QCOMPARE(plan.model.layers, 126);
    QVERIFY(plan.unevenStages());
    std::int64_t total = 0;
    for (std::int64_t s = 0; s < 16; ++s) {
        total += plan.layersOnStage(s);
        QCOMPARE(plan.layersOnStage(s), s == 0 || s == 15 ? 7 : 8);
    }
    QCOMPARE(total, 126);
    QCOMPARE(plan.layersPerStage(), 8);
    // 126 does not divide by 16: without the split the plan is refused, with it valid.
    QVERIFY(!estimate(llama405(0, 0), io::builtinCatalog()).valid);
    const Estimate e = estimate(plan, io::builtinCatalog());
    QVERIFY2(e.valid, e.problems.empty() ? "" : io::problemMessage(e.problems.front()).c_str());
}

void TestUnevenStages::stagesFollowTheirOwnLayers()
{
    const Estimate e = estimate(llama405(7, 7), io::builtinCatalog());
    QVERIFY(e.valid);
    // Stage 1 holds 8 layers, stage 2 too: equal parameters. Stage 0 holds 7 layers and the embedding:
    // the difference to stage 1 is one layer minus the embedding (per tensor rank).
    const auto &st = e.memory.stages;
    QCOMPARE(st[1].parameterCount, st[2].parameterCount);
    const double layer = st[2].parameterCount / 8.0;
    const double embedding = 128256.0 * 16384.0 / 8.0; // vocab x hidden / tensor (Llama 3.1 405B)
    QVERIFY(qAbs(st[0].parameterCount - (7 * layer + embedding)) < 1e-6 * st[0].parameterCount);
    // Stored activations: stage 0 holds 7 layers' worth per micro-batch in flight, stage 1 eight.
    QCOMPARE(e.memory.stages[0].activations.layers, 7);
    QCOMPARE(e.memory.stages[1].activations.layers, 8);
    // Time: a middle stage's forward is 8/7 of the layers part of the first stage's (which adds the
    // embedding), and the last stage's layers part is 7 layers.
    const StageTime &s1 = e.step.stages[1], &s2 = e.step.stages[2];
    QCOMPARE(s1.forwardSeconds, s2.forwardSeconds);
    QVERIFY(e.step.stages[0].forwardSeconds < s1.forwardSeconds); // 7 layers + embedding lookup < 8 layers
}

void TestUnevenStages::refusedSplitsNameValidValues()
{
    // 126 - 6 - 7 = 113 does not split over 14 stages; 7 (or 21, 35) would.
    Estimate e = estimate(llama405(6, 7), io::builtinCatalog());
    QVERIFY(!e.valid);
    QVERIFY(hasError(e, "parallel.first_stage_layers", "must leave the 126 layers' rest to the other 14 stages"));
    QVERIFY(hasError(e, "parallel.first_stage_layers", "valid values nearby: 7"));
    // Interleaved: the middle stages' 8 layers split into 2 chunks of 4, and the first and last stages fill
    // every chunk but the one the embedding or the loss takes; 16 chunks of half a layer do not exist.
    Plan interleaved = llama405(7, 7);
    interleaved.parallel.schedule = Schedule::Interleaved;
    interleaved.parallel.virtualStages = 2;
    QVERIFY(estimate(interleaved, io::builtinCatalog()).valid);
    interleaved.parallel.virtualStages = 16;
    e = estimate(interleaved, io::builtinCatalog());
    QVERIFY(hasError(e, "parallel.first_stage_layers", "middle stages' layers (8) divisible by 16"));
    // NeMo's Llama 3.1 405B on 8 stages x 8 chunks counts the embedding and the loss as a layer each:
    // 126 + 2 = 128 = 8 x 8 x 2, so the first and last stages hold 15 layers and the others 16.
    Plan nemo = test::presetPlan("llama3.1-405b", 8, 8, 256, 1, 2048, "h100-sxm5-80gb");
    nemo.parallel.schedule = Schedule::Interleaved;
    nemo.parallel.virtualStages = 8;
    nemo.parallel.firstStageLayers = nemo.parallel.lastStageLayers = 15;
    QVERIFY(estimate(nemo, io::builtinCatalog()).valid);
    QCOMPARE(nemo.layersOnStage(0), 15);
    QCOMPARE(nemo.layersOnStage(3), 16);
    // Without pipeline stages there is nothing to split.
    Plan one = test::presetPlan("llama2-7b", 8, 1, 1, 1, 8, "h100-sxm5-80gb");
    one.parallel.firstStageLayers = 4;
    e = estimate(one, io::builtinCatalog());
    QVERIFY(hasError(e, "parallel.first_stage_layers", "pipeline stages of 2 or more"));
    // Only the last stage set: the other 15 share 126 - 6 = 120 evenly (8 each).
    const Plan lastOnly = llama405(0, 6);
    QVERIFY(estimate(lastOnly, io::builtinCatalog()).valid);
    QCOMPARE(lastOnly.layersOnStage(0), 8);
    QCOMPARE(lastOnly.layersOnStage(15), 6);
}

void TestUnevenStages::planFileRoundTrip()
{
    const Plan plan = llama405(7, 7);
    const QByteArray bytes = io::writePlan(plan, io::builtinCatalog());
    QVERIFY(bytes.contains("\"first_stage_layers\": 7"));
    QVERIFY(bytes.contains("\"last_stage_layers\": 7"));
    const io::PlanReadResult read = io::readPlan(bytes, io::builtinCatalog());
    QVERIFY(read.plan);
    QCOMPARE(read.plan->parallel.firstStageLayers, 7);
    QCOMPARE(read.plan->parallel.lastStageLayers, 7);
    // An even plan writes neither key (their default, 0).
    QVERIFY(!io::writePlan(test::presetPlan("gpt3-175b", 8, 8, 8, 1, 1536), io::builtinCatalog()).contains("stage_layers"));
}

void TestUnevenStages::searchFindsTheUnevenSplit()
{
    // Llama 3.1 405B on 2,048 nodes with tensor 8 and pipeline 16 fixed: 126 layers do not divide by 16, so
    // the search's only layouts are the uneven split 7 + 14 x 8 + 7, with 1, 2, 4 or 8 chunks per stage.
    Plan base = llama405(0, 0);
    SearchConstraints c;
    c.fix("parallel.tensor", std::int64_t(8));
    c.fix("parallel.pipeline", std::int64_t(16));
    c.fix("training.micro_batch", std::int64_t(1));
    c.top = 5;
    const SearchOutcome o = searchPlans(base, io::builtinCatalog(), c);
    QVERIFY(o.feasible > 0);
    for (const RankedPlan &r : o.top) {
        QCOMPARE(r.score.config.pipeline, 16);
        QCOMPARE(r.score.config.firstStageLayers, 7);
        QCOMPARE(r.score.config.lastStageLayers, 7);
        QVERIFY(8 % r.score.config.virtualStages == 0); // interleaving splits the middle stages' 8 layers
    }
    // The interleaved uneven layouts are searched: one of them beats every 1F1B layout of the split.
    QVERIFY(o.top.front().score.config.virtualStages > 1);
}

// Megatron-Bridge's Llama 3 70B FP8-CS recipe on 64 H100 (perf_recipes/llama/h100/llama3.py at 56ae11dff,
// August 2026): --pipeline-model-parallel-layout "Et*2|(t*2|)*34,t*3|(t*2|)*3,tL" over 8 stages of 5 chunks gives
// stage 3 eleven layers (chunk 35) and the last stage nine (chunk 39 holds one beside the loss). The plan holds
// it as parallel.stage_layers: each stage times its own layers, the last stage's output layer now beside 9 of
// them, and the step is shorter than the even split's, whose last stage paces the pipeline.
void TestUnevenStages::listedStagesBalanceTheOutputLayer()
{
    Plan plan = test::examplePlan("llama3-70b-fp8-current-scaling-64-h100");
    const std::vector<std::int64_t> layout{10, 10, 10, 11, 10, 10, 10, 9};
    QCOMPARE(plan.parallel.stageLayers, layout);
    QVERIFY(plan.listedStages() && plan.unevenStages());
    QCOMPARE(plan.layersOnStage(3), 11);
    QCOMPARE(plan.layersOnStage(7), 9);
    QCOMPARE(plan.firstLayerOfStage(4), 41);
    QCOMPARE(plan.layersPerStage(), 11);
    const Estimate listed = estimate(plan, io::builtinCatalog());
    QVERIFY(listed.valid);
    QCOMPARE(listed.memory.stages[3].activations.layers, 11);
    QCOMPARE(listed.memory.stages[7].activations.layers, 9);
    // Stage 7 (9 layers and the output) runs a micro-batch in less than stage 3 (11 layers) does.
    QVERIFY(listed.step.stages[7].microbatchSeconds() < listed.step.stages[3].microbatchSeconds());
    plan.parallel.stageLayers.clear();
    const Estimate even = estimate(plan, io::builtinCatalog());
    QVERIFY(even.valid);
    QVERIFY(listed.step.stepSeconds < even.step.stepSeconds);
    // The plan file holds the list as an array; it reads back.
    plan.parallel.stageLayers = layout;
    const QByteArray bytes = io::writePlan(plan, io::builtinCatalog());
    QVERIFY(bytes.contains("\"stage_layers\": ["));
    const io::PlanReadResult read = io::readPlan(bytes, io::builtinCatalog());
    QVERIFY(read.plan);
    QCOMPARE(read.plan->parallel.stageLayers, layout);
    // The search keeps the list for layouts of 8 stages whose 5 chunks it still fills; others split evenly.
    const Plan kept = applyConfig(plan, configOf(plan));
    QCOMPARE(kept.parallel.stageLayers, layout);
    SearchConfig four = configOf(plan);
    four.pipeline = 4;
    four.data = 4;
    QVERIFY(applyConfig(plan, four).parallel.stageLayers.empty());
    // What the search reports is what it applied: at 8 stages the configurations say the list holds (no
    // first/last split), and their descriptions say so.
    SearchConstraints eight;
    eight.fix("parallel.pipeline", std::int64_t(8));
    eight.top = 50;
    const SearchOutcome o = searchPlans(plan, io::builtinCatalog(), eight);
    QVERIFY(o.feasible > 0);
    bool listedSeen = false;
    for (const RankedPlan &r : o.top) {
        const SearchConfig &c = r.score.config;
        QCOMPARE(c.listedStages, !r.plan.parallel.stageLayers.empty());
        QCOMPARE(c.listedStages, c.virtualStages <= 9); // the last stage's 9 layers fill at most 9 chunks
        QCOMPARE(c.firstStageLayers + c.lastStageLayers, std::int64_t(0));
        QCOMPARE(io::describeConfig(c).contains(QStringLiteral("the plan's layers per stage")), c.listedStages);
        listedSeen = listedSeen || c.listedStages;
    }
    QVERIFY(listedSeen);
}

void TestUnevenStages::listedStagesRefuseWhatDoesNotAddUp()
{
    Plan plan = test::examplePlan("llama3-70b-fp8-current-scaling-64-h100");
    const auto refused = [&](const std::vector<std::int64_t> &list, const char *words) {
        Plan p = plan;
        p.parallel.stageLayers = list;
        return hasError(estimate(p, io::builtinCatalog()), "parallel.stage_layers", words);
    };
    QVERIFY(refused({10, 10, 10, 10, 10, 10, 20}, "lists 7 stages; the pipeline has 8"));
    QVERIFY(refused({10, 10, 10, 10, 10, 10, 10, 11}, "add up to 81; the model has 80 layers"));
    QVERIFY(refused({16, 10, 10, 10, 10, 10, 10, 4}, "at least 5 layers"));
    Plan both = plan;
    both.parallel.firstStageLayers = 9;
    QVERIFY(hasError(estimate(both, io::builtinCatalog()), "parallel.stage_layers", "keep one"));
    // Text as the window and --set give it: commas and spaces; anything else is refused naming the rule.
    const PlanKey *key = findPlanKey("parallel.stage_layers");
    QVERIFY(key);
    QCOMPARE(parseIntegerList("10,10, 10 ,11"), (std::optional<std::vector<std::int64_t>>{{10, 10, 10, 11}}));
    QVERIFY(!parseIntegerList("10;11").has_value());
    QVERIFY(!parseIntegerList("10,,11").has_value());
    QVERIFY(parseIntegerList("")->empty());
    Problem problem;
    QVERIFY(!parseValue(*key, "ten, eleven", &problem).has_value());
    QCOMPARE(problem.rule, std::string("value.integer_list"));
    QVERIFY(!parseValue(*key, "10, 0, 70", &problem).has_value());
    QCOMPARE(problem.rule, std::string("list.range"));
}

TRAINPLAN_TEST_GUILESS_MAIN(TestUnevenStages)
#include "tst_unevenstages.moc"
