// The search against NVIDIA's tuned recipes (issue 33): for every recipe configuration of the dgxc and
// Megatron-Bridge tables (model, system, GPUs, batch, precision and layout, however many releases ran it),
// the search's best predicted throughput on the recipe's GPUs over the prediction for the recipe's own
// layout. A layout the search rates far above a tuned recipe is a hole in the model more often than a
// discovery. Prints the table (trainplan_recipes prints it with the best layouts) and holds the dense
// recipes to issue 33's bound; the mixtures of experts to what the model reaches today (docs/CALIBRATION.md,
// "The search against the recipes", lists the rest with the reason).

#include <QTest>

#include "TestMain.h"

#include <algorithm>

#include "ValidationRows.h"
#include "core/search/Search.h"
#include "io/plan/CatalogJson.h"
#include "io/output/Evidence.h"

using namespace trainplan;

namespace {

constexpr double kWithin = 1.15;
/// Share of the configurations whose best is within kWithin of the recipe. Issue 33 asks 95% of the dense
/// ones; the schedule-step overhead fitted on the current-software rows (issue 34, 674 us per chunk pass,
/// which the GPT-3 175B rows at 12 chunks need: they read 8-17% fast without it) makes fewer chunks look
/// better than NVIDIA's 12, and 16 of 169 dense configurations reach 1.15-1.43x (docs/CALIBRATION.md, "The
/// search against the recipes"). Transformer Engine's FP8 recipes keep their linears' inputs in FP8 (issue 36):
/// FP8 layouts at micro-batch 2-4 now fit, and GPT-3 175B FP8 on H100 reaches 1.16-1.17x with them (148 of
/// 169 dense, 211 of 289 in all; 154 and 221 before). Per-layer CUDA graphs hold drop-padded experts (the
/// token-drop runs of release 25.09): Qwen3-30B-A3B's layouts without expert parallelism on 8 GB200 then run
/// host-free and reach 1.20x over a recipe the model already predicts 20-23% fast (rows 274-275; 211 of 291,
/// 213 before). Per-tensor FP8 knows its recipe (training.fp8_recipe): Megatron-Bridge's FP8 is current scaling,
/// under which Megatron-LM refuses the optimizer's offload with FP8 gathers, so the offload winners of its H100
/// Qwen3 rows are gone, and with them its winners that paired the all-to-all overlap with full recomputation,
/// which Megatron-Core refuses (152 of 172 dense, 216 of 292 in all). December 2026, with the Megatron-Bridge
/// recipes read per release (issue 34) and the five Nemotron 3 Nano configurations (all within): 189 of 198
/// dense (95.5%: issue 33's share, held here) and 259 of 315 in all (82%: held at what the model reaches, so that
/// no further one slips; the misses and their reasons are trainplan_recipes' last line). With Nemotron 3 Super's
/// eight latent-MoE configurations (3 within: its B300 recipes keep 64 experts per rank behind per-expert GEMM
/// enqueues the model costs at its fitted 67 us, and the search halves them; its GB200 winners at tensor 1 fill
/// 94% of the memory its recipe at tensor 2 keeps at 56%) and the MTP modules' time: 264 of 323 (81.7%).
/// Megatron-FSDP refusing per-layer CUDA graphs (PlanValidation.cpp checkLayerGraphs) takes the ZeRO-3 graph
/// winners of Qwen3-30B-A3B on 8 Blackwell GPUs and of Nemotron-4 340B on GB200 away: 191 of 198 dense, 270 of
/// 326 in all (82.8%).
constexpr double kDenseShare = 0.95, kAllShare = 0.82;

} // namespace

class TestRecipes : public QObject
{
    Q_OBJECT

private slots:
    void searchDoesNotBeatTheTunedRecipes()
    {
        const Catalog &catalog = io::builtinCatalog();
        const std::vector<validation::RecipeConfig> configs = validation::recipeConfigs();
        QVERIFY(configs.size() > 200);
        int dense = 0, denseWithin = 0, all = 0, allWithin = 0;
        QString report = QStringLiteral("\n");
        for (const validation::RecipeConfig &c : configs) {
            const Estimate recipe = estimate(c.plan, catalog, EstimateOptions::analytic());
            QVERIFY2(recipe.valid, qPrintable(c.id));
            // The recipe's software held and its release's limits kept (ValidationRows.h, recipeSoftware): the
            // layouts are compared, as issue 33 defines the bound.
            const SearchOutcome o = searchPlans(c.plan, catalog, validation::recipeSearchConstraints(c));
            QVERIFY2(o.valid, qPrintable(c.id + ": " + io::problemLine(o.problem)));
            const validation::RecipeSoftware software = validation::recipeSoftware(c);
            const auto runnable = std::find_if(o.top.begin(), o.top.end(), [&](const RankedPlan &r) {
                return validation::softwareRuns(software, r.score.config);
            });
            QVERIFY2(runnable != o.top.end(), qPrintable(c.id + ": no feasible plan"));
            const SearchScore &best = runnable->score;
            // The best plan never steps below its own traffic floor.
            QVERIFY2(best.stepSeconds >= best.floorSeconds, qPrintable(c.id));
            const double ratio = best.tokensPerSecond / recipe.step.tokensPerSecond;
            const bool within = ratio <= kWithin;
            ++all;
            allWithin += within ? 1 : 0;
            if (!c.plan.model.isMoe()) {
                ++dense;
                denseWithin += within ? 1 : 0;
            }
            report += QStringLiteral("%1 %2 recipe %3 s (measured %4 s)  best %5 s  %6x  %7%8\n")
                          .arg(within ? QStringLiteral("  ") : QStringLiteral("!!"))
                          .arg(c.id.left(58), -58)
                          .arg(recipe.step.stepSeconds, 0, 'f', 3)
                          .arg(c.measuredSeconds, 0, 'f', 3)
                          .arg(best.stepSeconds, 0, 'f', 3)
                          .arg(ratio, 0, 'f', 2)
                          .arg(io::describeConfigBriefly(best.config))
                          .arg(within || c.untunedReason.isEmpty() ? QString() : QStringLiteral("  [not tuned: ") + c.untunedReason + u']');
        }
        report += QStringLiteral("within %1x: dense %2 of %3, all %4 of %5\n").arg(kWithin).arg(denseWithin).arg(dense).arg(allWithin).arg(all);
        qInfo().noquote() << report;
        QVERIFY2(denseWithin >= kDenseShare * dense, qPrintable(QStringLiteral("dense: %1 of %2").arg(denseWithin).arg(dense)));
        QVERIFY2(allWithin >= kAllShare * all, qPrintable(QStringLiteral("all: %1 of %2").arg(allWithin).arg(all)));
    }
};

TRAINPLAN_TEST_GUILESS_MAIN(TestRecipes)
#include "tst_recipes.moc"
