// trainplan_recipes: for every NVIDIA recipe configuration in the validation set (dgxc, Megatron-Bridge),
// the search's best predicted throughput over the prediction for the recipe's own layout, on the recipe's
// GPUs, batch and software settings. A layout the search rates far above a tuned recipe is a hole in the
// model, not a discovery (issue 33). Not a test: tst_search holds the summary to its bound.
#include <QCoreApplication>
#include <QTextStream>

#include <algorithm>
#include <map>

#include "ValidationRows.h"
#include "core/search/Search.h"
#include "io/CatalogJson.h"
#include "io/Evidence.h"
#include "io/PlanJson.h"

#include <QFile>

using namespace trainplan;

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QTextStream out(stdout);
    const Catalog &catalog = io::builtinCatalog();
    const QString only = qEnvironmentVariable("RECIPES_ONLY");
    std::vector<validation::RecipeConfig> configs = validation::recipeConfigs();
    int within = 0, total = 0;
    for (const validation::RecipeConfig &c : configs) {
        if (!only.isEmpty() && !c.id.contains(only))
            continue;
        const Estimate recipe = estimate(c.plan, catalog, EstimateOptions::analytic());
        if (!recipe.valid)
            continue;
        SearchConstraints constraints;
        constraints.threads = 2;
        constraints.top = 3;
        constraints.keepMemoryMargin = !qEnvironmentVariableIsSet("RECIPES_ALLOW_TIGHT");
        const SearchOutcome o = searchPlans(c.plan, catalog, constraints);
        if (!o.valid) {
            out << c.id << ": search invalid: " << QString::fromStdString(o.error) << '\n';
            continue;
        }
        if (qEnvironmentVariableIsSet("RECIPES_DUMP") && !o.top.empty()) {
            for (const auto &[name, plan] : {std::pair{"recipe", c.plan}, std::pair{"best", o.top.front().plan}}) {
                QFile f(QStringLiteral("/tmp/%1-%2.json").arg(QLatin1String(name)).arg(c.id.section(' ', 0, 0)));
                if (f.open(QIODevice::WriteOnly))
                    f.write(io::writePlan(plan, catalog));
            }
        }
        const double base = recipe.step.tokensPerSecond;
        const double best = o.bestTokensPerSecond;
        const double ratio = base > 0 ? best / base : 0.0;
        ++total;
        within += ratio <= 1.15 ? 1 : 0;
        out << QStringLiteral("%1  %2  measured %8 s  recipe %3 s%4  best %5 s  %6x  %7\n")
                   .arg(ratio <= 1.15 ? "  " : "!!")
                   .arg(c.id, -58)
                   .arg(recipe.step.stepSeconds, 0, 'f', 3)
                   .arg(recipe.memory.fits ? "" : " (does not fit)")
                   .arg(o.top.empty() ? 0.0 : o.top.front().score.stepSeconds, 0, 'f', 3)
                   .arg(ratio, 0, 'f', 2)
                   .arg(o.top.empty() ? QString() : io::describeConfigBriefly(o.top.front().score.config))
                   .arg(c.measuredSeconds, 0, 'f', 3);
        out.flush();
    }
    out << QStringLiteral("%1 of %2 configurations within 1.15x\n").arg(within).arg(total);
    return 0;
}
