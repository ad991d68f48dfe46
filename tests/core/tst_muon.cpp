// Muon (Jordan et al. 2024; Megatron-LM --optimizer muon): its optimizer state and its Newton-Schulz step,
// checked against the iteration's FLOP count worked by hand and the blog's overhead bound, and the rules
// Megatron-LM's arguments.py states.

#include <QTest>

#include <algorithm>
#include <cmath>
#include <string_view>

#include "TestMain.h"
#include "TestSupport.h"
#include "core/estimate/Accuracy.h"
#include "core/estimate/Estimate.h"
#include "core/model/WeightMatrices.h"
#include "core/plan/PlanValidation.h"
#include "core/search/Search.h"
#include "io/output/Evidence.h"
#include "io/output/PrecisionPolicy.h"
#include "io/plan/CatalogJson.h"
#include "io/plan/ProblemWords.h"

using namespace trainplan;

namespace {

/// GPT-2 small on `gpus` A100s as the NanoGPT speedrun Jordan et al. time Muon on: 512 sequences of 1,024
/// tokens (B = 524,288 tokens a step).
Plan gpt2(std::int64_t data, std::int64_t tensor = 1, Optimizer optimizer = Optimizer::Muon)
{
    Plan plan = test::presetPlan("gpt2-small", tensor, 1, data, 512 / data, 512);
    plan.training.optimizer = optimizer;
    plan.parallel.zeroStage = data > 1 ? 1 : 0;
    return plan;
}

Estimate run(const Plan &plan) { return estimate(plan, io::builtinCatalog(), EstimateOptions::analytic()); }

/// The Newton-Schulz op's FLOPs and seconds in an estimate.
const Op *newtonSchulz(const Estimate &e)
{
    for (const Op &op : e.step.ops)
        if (std::string_view(op.name) == "Muon Newton-Schulz")
            return &op;
    return nullptr;
}

} // namespace

class TestMuon : public QObject
{
    Q_OBJECT

private slots:
    // One iteration of the quintic form on an m x n matrix (m <= n): X X^T, A A, B X = 4 m^2 n + 2 m^3, the same
    // for the matrix and its transpose.
    void iterationFlops()
    {
        const double m = 768;
        const auto flops = [](double rows, double cols, std::int64_t steps) {
            return newtonSchulzFlops(iteratedShape(WeightMatrix{rows, cols}, MuonTpMode::Duplicated, 1), steps);
        };
        QCOMPARE(flops(m, m, 1), 6.0 * m * m * m);
        QCOMPARE(flops(4 * m, m, 5), 5.0 * (4.0 * m * m * 4 * m + 2.0 * m * m * m));
        QCOMPARE(flops(m, 4 * m, 5), flops(4 * m, m, 5));
    }

    // GPT-2 small's matrices per layer: Q, K, V and the output projection (768 x 768, 6 m^3 an iteration each)
    // and the MLP's two 3,072 x 768 (4 m^2 4m + 2 m^3 = 18 m^3 each): 60 m^3; five iterations on 12 layers. Against the 6 x 12 m^2
    // FLOPs a token those matrices cost, the overhead is 60/72 T m / B: under Jordan et al.'s bound T m / B, which
    // for the speedrun (m 768, B 524,288) they give as 0.7%.
    void gpt2OverheadWithinJordansBound()
    {
        const Estimate e = run(gpt2(1));
        QVERIFY(e.valid);
        const Op *ns = newtonSchulz(e);
        QVERIFY(ns);
        const double m = 768, tokens = 512.0 * 1024.0;
        QCOMPARE(ns->flops, 5.0 * 12.0 * 60.0 * m * m * m);
        const double overhead = ns->flops / (6.0 * 12.0 * 12.0 * m * m * tokens);
        QVERIFY(std::abs(overhead - 60.0 / 72.0 * 5.0 * m / tokens) < 1e-12);
        QVERIFY(overhead < 5.0 * m / tokens);
        QVERIFY(5.0 * m / tokens > 0.0070 && 5.0 * m / tokens < 0.0075);
        QVERIFY(ns->seconds > 0 && e.step.category(TimeCategory::Optimizer) >= ns->seconds);
    }

    // Muon keeps one moment for the layers' matrices and Adam's two for the rest (emerging_optimizers.py:
    // embeddings, the output layer and 1-D parameters): 4 bytes less per matrix parameter. GPT-2 small's per layer:
    // 12 x 768^2 weights and the column-parallel QKV and fc1 biases (3 x 768 + 3,072), counted with their matrices.
    void stateKeepsOneMomentForMatrices()
    {
        const Estimate adam = run(gpt2(1, 1, Optimizer::Adam));
        const Estimate muon = run(gpt2(1));
        const double perLayer = 12.0 * 768 * 768 + 3.0 * 768 + 3072;
        QCOMPARE(adam.memory.stages[0].optimizerBytes - muon.memory.stages[0].optimizerBytes, 4.0 * 12 * perLayer);
    }

    // Adaptive Muon (--optimizer adaptive_muon) keeps an elementwise second moment beside Muon's momentum for the
    // matrices ("adamuon": `torch.zeros_like(p.data)`, Emerging-Optimizers adaptive_muon.py at fd77292) and Adam's
    // two for the rest: Adam's state, byte for byte, and Muon's Newton-Schulz iterations at the step; its update
    // reads and writes the second moment too, as Adam's does.
    void adaptiveMuonKeepsAdamsStateAndMuonsIterations()
    {
        const Estimate adam = run(gpt2(8, 1, Optimizer::Adam));
        const Estimate muon = run(gpt2(8));
        const Estimate adaptive = run(gpt2(8, 1, Optimizer::AdaptiveMuon));
        QVERIFY(adam.valid && muon.valid && adaptive.valid);
        QCOMPARE(adaptive.memory.stages[0].optimizerBytes, adam.memory.stages[0].optimizerBytes);
        QVERIFY(adaptive.memory.stages[0].optimizerBytes > muon.memory.stages[0].optimizerBytes);
        QVERIFY(newtonSchulz(adaptive) && !newtonSchulz(adam));
        QCOMPARE(newtonSchulz(adaptive)->flops, newtonSchulz(muon)->flops);
        QVERIFY(adaptive.step.category(TimeCategory::Optimizer) > muon.step.category(TimeCategory::Optimizer));
        QVERIFY(adaptive.step.category(TimeCategory::Optimizer) > adam.step.category(TimeCategory::Optimizer));
        // Megatron-LM's rules for Muon hold for it: no FSDP, ZeRO 0 or 1.
        Plan fsdp = gpt2(8, 1, Optimizer::AdaptiveMuon);
        fsdp.parallel.zeroStage = 3;
        const auto rules = validatePlan(fsdp, io::builtinCatalog());
        QVERIFY(std::any_of(rules.begin(), rules.end(), [](const Problem &p) {
            return p.rule == "optimizer.muon_zero" && io::problemMessage(p).find("adaptive_muon") != std::string::npos;
        }));
    }

    // --muon-scalar-optimizer lion: Lion's one momentum for what Muon leaves out (Emerging-Optimizers' Lion is a
    // SingleMomentumOptimizer) in place of Adam's two. For Muon and Adaptive Muon alike the state shrinks by one
    // FP32 moment per non-matrix parameter; the matrices keep theirs. GPT-2 small's non-matrix parameters on one
    // rank: the tied 50,257 x 768 embedding, the 1,024 x 768 positions, and per layer the row-parallel biases and
    // the norms' weights and biases (768 x 6), and the final norm (2 x 768).
    void scalarOptimizerLionKeepsOneMoment()
    {
        const double notMatrices = (50257.0 + 1024.0) * 768 + 12.0 * 6 * 768 + 2.0 * 768;
        for (Optimizer optimizer : {Optimizer::Muon, Optimizer::AdaptiveMuon}) {
            Plan plan = gpt2(1, 1, optimizer);
            const double adam = run(plan).memory.stages[0].optimizerBytes;
            plan.training.muonScalarOptimizer = MuonScalarOptimizer::Lion;
            const Estimate lion = run(plan);
            QVERIFY(lion.valid);
            QCOMPARE(adam - lion.memory.stages[0].optimizerBytes, 4.0 * notMatrices);
            // The report and the precision table say which optimizer keeps those parameters' state.
            QVERIFY(io::muonStateWords(plan.training).find("Lion's momentum") != std::string::npos);
        }
    }

    // The layer-wise distributed optimizer gives each data rank about 1/d of the matrices to iterate on; without it
    // every rank iterates on all of them. Duplicated mode iterates on whole matrices whatever the tensor split,
    // after all-gathering them; blockwise on each rank's block, with no gather.
    void whoIterates()
    {
        const double one = newtonSchulz(run(gpt2(1)))->flops;
        QCOMPARE(newtonSchulz(run(gpt2(8)))->flops, one / 8.0);
        Plan replicated = gpt2(8);
        replicated.parallel.zeroStage = 0;
        QCOMPARE(newtonSchulz(run(replicated))->flops, one);
        Plan duplicated = gpt2(4, 2);
        const Estimate d = run(duplicated);
        QCOMPARE(newtonSchulz(d)->flops, one / 4.0);
        duplicated.training.muonTpMode = MuonTpMode::Blockwise;
        const Estimate b = run(duplicated);
        QVERIFY(newtonSchulz(b)->flops < newtonSchulz(d)->flops);
        QVERIFY(b.step.category(TimeCategory::Optimizer) < d.step.category(TimeCategory::Optimizer));
    }

    // Kimi K2's technical report (arXiv 2507.20534, section 2.4.2): with BF16 parameters, an FP32 gradient buffer,
    // pipeline 16 x expert 16 and the optimizer's state spread by ZeRO-1, "each GPU hold[s] approximately 30 GB of
    // GPU memory for all states". The gallery's plan, read as "about": within 15%, on its fullest stage; and Muon
    // holds a third less optimizer state there than Adam would (one moment of two beside the master copy).
    void kimiK2StatesAsItsReportStates()
    {
        const Plan plan = test::examplePlan("kimi-k2-muon-2048-h800");
        const Estimate e = run(plan);
        QVERIFY(e.valid && e.memory.fits);
        double fullest = 0;
        for (const StageMemory &s : e.memory.stages)
            fullest = std::max(fullest, s.parametersBytes + s.gradientsBytes + s.optimizerBytes);
        QVERIFY2(fullest > 0.85 * 30e9 && fullest < 1.15 * 30e9, qPrintable(QString::number(fullest / 1e9)));
        Plan adam = plan;
        adam.training.optimizer = Optimizer::Adam;
        const Estimate a = run(adam);
        const double muonState = e.memory.stages[1].optimizerBytes, adamState = a.memory.stages[1].optimizerBytes;
        QVERIFY2(std::abs(muonState / adamState - 2.0 / 3.0) < 0.01, qPrintable(QString::number(muonState / adamState)));
        // No published run trained with Muon: the band says the plan lies outside them in its optimizer.
        const Accuracy band = assessAccuracy(accuracyCoordinates(plan, e), builtinHeldOutRuns());
        QVERIFY(!band.validated);
        QVERIFY(std::find(band.outside.begin(), band.outside.end(), AccuracyDimension::Optimizer) != band.outside.end());
        // Megatron-Bridge's Kimi K2 rows on 256 GB300 did train with Muon (its performance scripts' default,
        // --optimizer_type muon): a Muon plan like them is inside their territory in its optimizer.
        Plan gb300 = test::presetPlan("kimi-k2", 1, 4, 64, 2, 4096, "gb300");
        gb300.cluster.gpusPerNode = 4;
        gb300.cluster.nodes = 64;
        gb300.parallel.schedule = Schedule::Interleaved;
        gb300.parallel.virtualStages = 4;
        gb300.parallel.firstStageLayers = 15; // the rows' layout: 15 + 16 + 16 + 14
        gb300.parallel.lastStageLayers = 14;
        gb300.parallel.expert = 64;
        gb300.parallel.expertTensor = 1;
        gb300.parallel.zeroStage = 1;
        gb300.model.seqLen = 4096;
        gb300.training.precision = Precision::MXFP8;
        gb300.training.recompute = Recompute::Selective;
        gb300.training.optimizer = Optimizer::Muon;
        const Estimate k = run(gb300);
        QVERIFY2(k.valid, qPrintable(QString::fromStdString(firstError(k.problems) ? io::problemMessage(*firstError(k.problems)) : "")));
        const Accuracy own = assessAccuracy(accuracyCoordinates(gb300, k), builtinHeldOutRuns());
        QVERIFY(std::find(own.outside.begin(), own.outside.end(), AccuracyDimension::Optimizer) == own.outside.end());
    }

    // What an iteration holds in FP32 (X and B X, X X^T and its square; + the gathered momentum): GPT-2 small's
    // largest matrix, 3,072 x 768, is 4 (2 x 768 x 3,072 + 2 x 768^2) = 23,592,960 bytes whole; at tensor 2
    // duplicated mode gathers it (+ 4 x 768 x 3,072), blockwise iterates on 1,536 x 768 blocks (14,155,776 bytes).
    // The optimizer step's peak differs between the modes by exactly that.
    void iterationWorkingSet()
    {
        const WeightMatrix fc1{3072, 768, 1, WeightMatrix::Split::Rows};
        QCOMPARE(newtonSchulzWorkspaceBytes(iteratedShape(fc1, MuonTpMode::Duplicated, 1)), 23592960.0);
        QCOMPARE(newtonSchulzWorkspaceBytes(iteratedShape(fc1, MuonTpMode::Duplicated, 2)), 33030144.0);
        QCOMPARE(newtonSchulzWorkspaceBytes(iteratedShape(fc1, MuonTpMode::Blockwise, 2)), 14155776.0);
        Plan plan = gpt2(4, 2);
        const double duplicated = run(plan).memory.stages[0].optimizerStepBytes;
        plan.training.muonTpMode = MuonTpMode::Blockwise;
        QCOMPARE(duplicated - run(plan).memory.stages[0].optimizerStepBytes, 33030144.0 - 14155776.0);
    }

    // Distributed mode (emerging_optimizers newton_schulz_tp at fd77292): the rank iterates on its block, the Gram
    // matrix taken over the side tensor parallelism does not split. GPT-2 small's fc1 (3,072 x 768, its 3,072
    // output rows split over 2 ranks): X X^T is 768 x 768 against 1,536 columns, 4 x 768^2 x 1,536 + 2 x 768^3
    // FLOPs an iteration, about half of duplicated's 4 x 768^2 x 3,072 + 2 x 768^3; K (768 x 768, its rows split)
    // keeps the unsplit 768 as its Gram side too. Each iteration all-reduces that 768 x 768 FP32 Gram matrix.
    void distributedMode()
    {
        const WeightMatrix fc1{3072, 768, 1, WeightMatrix::Split::Rows};
        const IteratedShape d = iteratedShape(fc1, MuonTpMode::Distributed, 2);
        QCOMPARE(d.gram, 768.0);
        QCOMPARE(d.other, 1536.0);
        QVERIFY(d.reduced && !d.gathered);
        const double m = 768;
        QCOMPARE(newtonSchulzFlops(d, 1), 4 * m * m * 1536 + 2 * m * m * m);
        QCOMPARE(newtonSchulzFlops(iteratedShape(fc1, MuonTpMode::Duplicated, 2), 1), 4 * m * m * 3072 + 2 * m * m * m);
        const WeightMatrix fc2{768, 3072, 1, WeightMatrix::Split::Cols};
        QCOMPARE(iteratedShape(fc2, MuonTpMode::Distributed, 2).gram, 768.0);
        Plan plan = gpt2(4, 2);
        plan.training.muonTpMode = MuonTpMode::Distributed;
        const Estimate distributed = run(plan);
        plan.training.muonTpMode = MuonTpMode::Duplicated;
        const Estimate duplicated = run(plan);
        QVERIFY(newtonSchulz(distributed)->flops < newtonSchulz(duplicated)->flops);
        QVERIFY(distributed.memory.stages[0].optimizerStepBytes < duplicated.memory.stages[0].optimizerStepBytes);
    }

    // The search keeps Muon's rules, and says them where a whole ZeRO stage is ruled out by one.
    void searchSaysWhyAStageIsOut()
    {
        Plan plan = gpt2(8);
        plan.training.globalBatch = 64;
        const SearchOutcome o = searchPlans(plan, io::builtinCatalog(), SearchConstraints{});
        QVERIFY(o.valid && !o.top.empty());
        for (const RankedPlan &r : o.top)
            QVERIFY(r.plan.parallel.zeroStage <= 1 && !r.plan.parallel.offloadOptimizer);
        const auto three = std::find_if(o.zeroStages.begin(), o.zeroStages.end(),
                                        [](const ZeroStageResult &z) { return z.zeroStage == 3; });
        QVERIFY(three != o.zeroStages.end() && three->feasible == 0);
        QCOMPARE(three->commonProblem.rule, std::string("optimizer.muon_zero"));
        QVERIFY(io::zeroStageMessage(*three, o).contains(QLatin1String("Megatron-LM's Muon supports neither")));
    }

    // Megatron-LM's emerging optimizer check (arguments.py at d98e8a6): no Megatron-FSDP, no Torch-FSDP2; other
    // frameworks' Muon is not modelled.
    void rulesNameTheKey()
    {
        Plan plan = gpt2(8);
        QVERIFY(!firstError(validatePlan(plan, io::builtinCatalog())));
        plan.parallel.zeroStage = 3;
        const Problems zero3 = validatePlan(plan, io::builtinCatalog());
        QVERIFY(firstError(zero3) && firstError(zero3)->key == "training.optimizer");
        QVERIFY(io::problemMessage(*firstError(zero3)).find("Megatron-FSDP") != std::string::npos);
        plan.parallel.zeroStage = 1;
        plan.parallel.offloadOptimizer = true; // Megatron-Core's CPU optimizer is CPUAdam or CPUSGD
        const Problems offload = validatePlan(plan, io::builtinCatalog());
        QVERIFY(firstError(offload) && firstError(offload)->key == "parallel.offload_optimizer");
        plan.parallel.offloadOptimizer = false;
        plan.training.framework = Framework::Fsdp;
        const Problems fsdp = validatePlan(plan, io::builtinCatalog());
        QVERIFY(std::any_of(fsdp.begin(), fsdp.end(), [](const Problem &p) {
            return p.key == "training.optimizer" && p.rule == "optimizer.muon_framework";
        }));
    }
};

TRAINPLAN_TEST_GUILESS_MAIN(TestMuon)
#include "tst_muon.moc"
