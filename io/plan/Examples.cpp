#include "io/plan/Examples.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include "core/plan/PlanName.h"
#include "io/plan/CatalogJson.h"
#include "io/plan/PlanJson.h"

namespace trainplan::io {

namespace {
constexpr auto kDefaultExample = "gpt3-175b-tp8-pp8";
}

const QList<ExamplePlan> &builtinExamples()
{
    static const QList<ExamplePlan> examples = [] {
        QList<ExamplePlan> out;
        const QDir dir(QStringLiteral(":/trainplan/examples"));
        for (const QFileInfo &info : dir.entryInfoList({QStringLiteral("*.json")}, QDir::Files, QDir::Name)) {
            QFile file(info.filePath());
            if (!file.open(QIODevice::ReadOnly))
                continue;
            ExamplePlan e{info.completeBaseName(), {}, {}, file.readAll()};
            const PlanReadResult read = readPlan(e.bytes, builtinCatalog());
            if (!read.plan) {
                qWarning("built-in example %s is not a valid plan", qPrintable(e.id));
                continue;
            }
            e.name = QString::fromStdString(planDisplayName(*read.plan, builtinCatalog()));
            e.description = QString::fromStdString(read.plan->description);
            if (e.id == QLatin1String(kDefaultExample))
                out.prepend(e);
            else
                out.append(e);
        }
        return out;
    }();
    return examples;
}

} // namespace trainplan::io
