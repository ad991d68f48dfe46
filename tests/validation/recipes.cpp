// trainplan_recipes: for every NVIDIA recipe configuration in the validation set (dgxc, Megatron-Bridge),
// the search's best predicted throughput over the prediction for the recipe's own layout, on the recipe's
// GPUs, batch and software settings. A layout the search rates far above a tuned recipe is a hole in the
// model, not a discovery (issue 33). Not a test: tst_recipes holds the summary to its bound.
//
// Beside each ratio it prints what NVIDIA measured for the same problem (model, system, GPUs, global batch,
// sequence and precision) in any release and layout: the fastest measured throughput, and, where a release
// ran the search's own winning layout, that run's measurement against the search's prediction. A winner that
// NVIDIA itself ran at the predicted speed is a layout the recipe of another release missed, not a hole in
// the model; a winner above every measurement of its problem is where to look for one.
//   RECIPES_ONLY=text     only the configurations whose id contains text
//   RECIPES_DUMP=1        writes /tmp/recipe-ID.json and /tmp/best-ID.json
//   RECIPES_MEMORY=1      prints each recipe's and its winner's device peak over capacity (a line "MEM")
//   RECIPES_ALLOW_TIGHT=1, RECIPES_NO_OFFLOAD=1, RECIPES_REJECT_UNCERTAIN=1, RECIPES_FIX=key=value,...
//                        search constraints
#include <QCoreApplication>
#include <QTextStream>

#include <algorithm>
#include <map>

#include "ValidationRows.h"
#include "core/search/Search.h"
#include "io/plan/CatalogJson.h"
#include "io/output/Evidence.h"
#include "io/plan/ProblemWords.h"
#include "io/plan/PlanJson.h"

#include <QFile>

using namespace trainplan;

namespace {

/// The problem a recipe solves: everything but the layout and the software.
bool sameProblem(const Plan &a, const Plan &b)
{
    return a.model == b.model && a.cluster.device == b.cluster.device && a.cluster.gpus() == b.cluster.gpus()
           && a.training.globalBatch == b.training.globalBatch && a.training.precision == b.training.precision;
}

/// The layout fields a release's recipe chooses (not the software settings the search holds).
bool sameLayout(const SearchConfig &a, const SearchConfig &b)
{
    return a.data == b.data && a.tensor == b.tensor && a.pipeline == b.pipeline && a.context == b.context
           && a.expert == b.expert && a.microBatch == b.microBatch && a.zeroStage == b.zeroStage && a.offload == b.offload;
}

double tokensPerStep(const Plan &plan)
{
    return double(plan.training.globalBatch) * double(plan.model.seqLen);
}

/// Why a configuration misses the 1.15x bound (issue 33: "list the rest with the reason"), from what its source
/// and its measurements say, first match: the source says the layout was not tuned; the model's memory says
/// the recipe's own layout does not fit (its prediction is not a tuned run's); NVIDIA itself measured the
/// problem more than 1.15x faster in another release or layout, and the winner is within 1.15x of that run (the
/// recipe of this release was not NVIDIA's best; its own measurement says so); the winner leaves less memory
/// free than the recipe does, and the best layout that leaves as much is within 1.15x (the recipe keeps a
/// headroom the model's memory cannot call: its band is ±18% for 80% of published peaks, docs/CALIBRATION.md);
/// the winner runs Megatron-FSDP over experts, which no measured row ran; the winner outruns every measured run
/// of the problem by more than 1.15x (where a hole in the model may be); the model predicts the recipe's own
/// step more than 10% slower than measured (the winner's margin is that error, not a layout NVIDIA missed);
/// anything else.
enum class Miss {
    Untuned,
    RecipeDoesNotFit,
    NvidiaRanItFaster,
    Headroom,
    Unmeasured,
    AboveEveryMeasurement,
    RecipeOverPredicted,
    Other,
    Count
};

const char *missWords(Miss m)
{
    switch (m) {
    case Miss::Untuned: return "not tuned (its source says so)";
    case Miss::RecipeDoesNotFit: return "the recipe's layout does not fit in the model";
    case Miss::Headroom:
        return "the winner spends memory the recipe keeps free: with the recipe's headroom the best is within 1.15x";
    case Miss::Unmeasured: return "the winner runs Megatron-FSDP (ZeRO-3) with experts, which no measured row ran";
    case Miss::AboveEveryMeasurement: return "the winner outruns every measured run of its problem";
    case Miss::NvidiaRanItFaster:
        return "NVIDIA measured the problem >1.15x faster in another run, and the winner is within 1.15x of it";
    case Miss::RecipeOverPredicted: return "the model predicts the recipe >10% slower than measured";
    case Miss::Other: return "other";
    case Miss::Count: break;
    }
    return "";
}

/// ZeRO-3 (Megatron-FSDP) over a mixture of experts: every fsdp row of the Megatron-Bridge table and every
/// ZeRO-3 row of the others is a dense model, so no measurement checks what the model says of it under
/// Megatron-Core. PyTorch's FSDP2 with experts is measured (NeMo Automodel's rows, pytorchStepTimes: the
/// model 10-19% fast on DeepSeek-V3 and Kimi K2, 19% slow on Qwen3-30B-A3B).
bool zero3WithExperts(const Plan &plan, const SearchConfig &c)
{
    return plan.model.isMoe() && c.zeroStage >= 3;
}

Miss classify(const validation::RecipeConfig &c, const Estimate &recipe, double overMeasured, bool unmeasuredWinner,
              bool fasterRunMeasured, bool headroomExplains)
{
    if (!c.untunedReason.isEmpty())
        return Miss::Untuned;
    if (!recipe.memory.fits)
        return Miss::RecipeDoesNotFit;
    if (fasterRunMeasured && overMeasured <= 1.15)
        return Miss::NvidiaRanItFaster;
    if (headroomExplains)
        return Miss::Headroom;
    if (unmeasuredWinner)
        return Miss::Unmeasured;
    if (overMeasured > 1.15)
        return Miss::AboveEveryMeasurement;
    if (recipe.step.stepSeconds > 1.10 * c.measuredSeconds)
        return Miss::RecipeOverPredicted;
    return Miss::Other;
}

/// Whether the miss goes away when the search must leave as much memory free as the recipe's own layout does
/// (a winner that is tighter than the recipe, re-searched with the recipe's headroom as its floor).
bool headroomExplains(const validation::RecipeConfig &c, const Estimate &recipe, const Plan &winner,
                      SearchConstraints constraints, const Catalog &catalog, const validation::RecipeSoftware &software,
                      double recipeTokensPerSecond)
{
    const double keep = recipe.memory.headroomBytes();
    if (estimate(winner, catalog, EstimateOptions::analytic()).memory.headroomBytes() >= keep)
        return false;
    constraints.minHeadroomBytes = std::max(constraints.minHeadroomBytes, keep);
    const SearchOutcome o = searchPlans(c.plan, catalog, constraints);
    const auto runs = std::find_if(o.top.begin(), o.top.end(),
                                   [&](const RankedPlan &r) { return validation::softwareRuns(software, r.score.config); });
    return o.valid && runs != o.top.end() && runs->score.tokensPerSecond <= 1.15 * recipeTokensPerSecond;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QTextStream out(stdout);
    const Catalog &catalog = io::builtinCatalog();
    const QString only = qEnvironmentVariable("RECIPES_ONLY");
    std::vector<validation::RecipeConfig> configs = validation::recipeConfigs();
    int within = 0, total = 0, withinMeasured = 0, ranByNvidia = 0, untunedMisses = 0;
    std::map<Miss, int> misses;
    for (const validation::RecipeConfig &c : configs) {
        if (!only.isEmpty() && !c.id.contains(only))
            continue;
        const Estimate recipe = estimate(c.plan, catalog, EstimateOptions::analytic());
        if (!recipe.valid)
            continue;
        // As tst_recipes: the recipe's software held and its release's limits kept, the layouts compared.
        SearchConstraints constraints = validation::recipeSearchConstraints(c);
        constraints.keepMemoryMargin = !qEnvironmentVariableIsSet("RECIPES_ALLOW_TIGHT");
        constraints.allowOffload = constraints.allowOffload && !qEnvironmentVariableIsSet("RECIPES_NO_OFFLOAD");
        constraints.rejectUncertainMemory = qEnvironmentVariableIsSet("RECIPES_REJECT_UNCERTAIN");
        for (const QString &held : qEnvironmentVariable("RECIPES_FIX").split(u',', Qt::SkipEmptyParts)) {
            const QString key = held.section(u'=', 0, 0), value = held.section(u'=', 1);
            bool isNumber = false;
            const qlonglong n = value.toLongLong(&isNumber);
            if (isNumber)
                constraints.fix(key.toStdString(), std::int64_t(n));
            else
                constraints.fix(key.toStdString(), value.toStdString());
        }
        const SearchOutcome o = searchPlans(c.plan, catalog, constraints);
        if (!o.valid) {
            out << c.id << ": search invalid: " << io::problemLine(o.problem) << '\n';
            continue;
        }
        // The fastest layout the recipe's release could run.
        const validation::RecipeSoftware software = validation::recipeSoftware(c);
        std::vector<RankedPlan> top;
        std::copy_if(o.top.begin(), o.top.end(), std::back_inserter(top),
                     [&](const RankedPlan &r) { return validation::softwareRuns(software, r.score.config); });
        if (qEnvironmentVariableIsSet("RECIPES_DUMP") && !top.empty()) {
            for (const auto &[name, plan] : {std::pair{"recipe", c.plan}, std::pair{"best", top.front().plan}}) {
                QFile f(QStringLiteral("/tmp/%1-%2.json").arg(QLatin1String(name)).arg(c.id.section(' ', 0, 0)));
                if (f.open(QIODevice::WriteOnly))
                    f.write(io::writePlan(plan, catalog));
            }
        }
        if (qEnvironmentVariableIsSet("RECIPES_MEMORY") && !top.empty()) {
            const Estimate b = estimate(top.front().plan, catalog, EstimateOptions::analytic());
            out << QStringLiteral("MEM %1 recipe %2 best %3\n")
                       .arg(c.id.left(40))
                       .arg(recipe.memory.peakBytes / recipe.memory.capacityBytes, 0, 'f', 3)
                       .arg(b.memory.peakBytes / b.memory.capacityBytes, 0, 'f', 3);
        }
        const double base = recipe.step.tokensPerSecond;
        const double best = top.empty() ? 0.0 : top.front().score.tokensPerSecond;
        const double ratio = base > 0 ? best / base : 0.0;
        ++total;
        within += ratio <= 1.15 ? 1 : 0;
        // What NVIDIA measured for this problem, in any release and layout.
        double fastestMeasured = 0;
        QString ranIt, fastestRun;
        for (const validation::RecipeConfig &other : configs) {
            if (!sameProblem(other.plan, c.plan))
                continue;
            const double measured = tokensPerStep(other.plan) / other.measuredSeconds;
            if (measured > fastestMeasured)
                fastestRun = QStringLiteral("%1: %2 s").arg(other.id.section(' ', 0, 0)).arg(other.measuredSeconds, 0, 'f', 3);
            fastestMeasured = std::max(fastestMeasured, measured);
            if (!top.empty() && sameLayout(configOf(other.plan), top.front().score.config))
                ranIt = QStringLiteral("; NVIDIA ran it (%1): measured %2 s, predicted %3 s")
                            .arg(other.id.section(' ', 0, 0))
                            .arg(other.measuredSeconds, 0, 'f', 3)
                            .arg(top.front().score.stepSeconds, 0, 'f', 3);
        }
        const double overMeasured = fastestMeasured > 0 ? best / fastestMeasured : 0.0;
        withinMeasured += overMeasured <= 1.15 ? 1 : 0;
        ranByNvidia += ranIt.isEmpty() ? 0 : 1;
        const bool untunedMiss = ratio > 1.15 && !c.untunedReason.isEmpty();
        untunedMisses += untunedMiss ? 1 : 0;
        const QString untuned = untunedMiss ? QStringLiteral("; not tuned: ") + c.untunedReason : QString();
        const bool unmeasured = !top.empty() && zero3WithExperts(c.plan, top.front().score.config) &&
                                !std::any_of(configs.begin(), configs.end(), [](const validation::RecipeConfig &r) {
                                    return r.plan.model.isMoe() && r.plan.parallel.zeroStage >= 3;
                                });
        const bool fasterRun = fastestMeasured > 1.15 * tokensPerStep(c.plan) / c.measuredSeconds;
        const bool headroom = ratio > 1.15 && recipe.memory.fits &&
                              headroomExplains(c, recipe, top.front().plan, constraints, catalog, software, base);
        const Miss miss = classify(c, recipe, overMeasured, unmeasured, fasterRun, headroom);
        misses[miss] += ratio > 1.15 ? 1 : 0;
        const QString why = ratio > 1.15 && miss != Miss::Untuned
                                ? QStringLiteral("; miss: ") + QLatin1String(missWords(miss)) +
                                      (miss == Miss::NvidiaRanItFaster ? " (" + fastestRun + ")" : QString())
                                : QString();
        out << QStringLiteral("%1  %2  measured %8 s  recipe %3 s%4  best %5 s  %6x  %7  [best / fastest measured %9x%10]\n")
                   .arg(ratio <= 1.15 ? "  " : "!!")
                   .arg(c.id, -58)
                   .arg(recipe.step.stepSeconds, 0, 'f', 3)
                   .arg(recipe.memory.fits ? "" : " (does not fit)")
                   .arg(top.empty() ? 0.0 : top.front().score.stepSeconds, 0, 'f', 3)
                   .arg(ratio, 0, 'f', 2)
                   .arg(top.empty() ? QString() : io::describeConfigBriefly(top.front().score.config))
                   .arg(c.measuredSeconds, 0, 'f', 3)
                   .arg(overMeasured, 0, 'f', 2)
                   .arg(ranIt + untuned + why);
        out.flush();
    }
    out << QStringLiteral("%1 of %2 configurations within 1.15x; of the rest, %3 are layouts their source says were "
                          "not tuned\n")
               .arg(within)
               .arg(total)
               .arg(untunedMisses);
    out << QStringLiteral("%1 of %2 best plans within 1.15x of the fastest measured run of their problem; %3 winners "
                          "NVIDIA ran in some release\n")
               .arg(withinMeasured)
               .arg(total)
               .arg(ranByNvidia);
    out << "misses by reason:";
    for (int m = 0; m < int(Miss::Count); ++m)
        out << QStringLiteral(" %1 %2%3").arg(misses[Miss(m)]).arg(QLatin1String(missWords(Miss(m)))).arg(m + 1 < int(Miss::Count) ? ";" : "\n");
    return 0;
}
