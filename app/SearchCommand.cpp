#include "app/SearchCommand.h"

#include <QJsonDocument>
#include <QRegularExpression>

#include "io/CatalogJson.h"
#include "app/EstimateCommand.h"
#include "io/PlanJson.h"
#include "io/SearchJson.h"
#include "core/common/Units.h"

namespace trainplan::cli {

namespace {

const char *kUsage = "usage: trainplan search PLAN.json [--top N] [--nodes MIN-MAX] [--min-headroom GIB]\n"
                     "                        [--fix tensor=8,pipeline=4,data=..,micro_batch=..,virtual_stages=..,zero_stage=..,\n"
                     "                               recompute=none|selective|full,schedule=..,sequence_parallel=true|false]\n"
                     "                        [--allow-tensor-across-nodes] [--no-offload] [--threads N]\n";

bool positiveInt(const QString &text, std::int64_t &out)
{
    bool ok = false;
    out = text.toLongLong(&ok);
    return ok && out > 0 && out <= (std::int64_t(1) << 30);
}

} // namespace

bool parseSearchOptions(const QStringList &arguments, QString *planPath, SearchConstraints &c, QString *error)
{
    const auto fail = [error](const QString &message) {
        *error = message;
        return false;
    };
    for (qsizetype i = 0; i < arguments.size(); ++i) {
        const QString &a = arguments[i];
        const bool hasValue = i + 1 < arguments.size();
        std::int64_t n = 0;
        if (a == QLatin1String("--top") && hasValue) {
            if (!positiveInt(arguments[++i], n) || n > 100000)
                return fail(QStringLiteral("--top: must be a whole number from 1 to 100000"));
            c.top = std::size_t(n);
        } else if (a == QLatin1String("--threads") && hasValue) {
            if (!positiveInt(arguments[++i], n) || n > 256)
                return fail(QStringLiteral("--threads: must be a whole number from 1 to 256"));
            c.threads = int(n);
        } else if (a == QLatin1String("--nodes") && hasValue) {
            const QRegularExpressionMatch m = QRegularExpression(QStringLiteral("^(\\d+)(?:-(\\d+))?$")).match(arguments[++i]);
            std::int64_t lo = 0, hi = 0;
            if (!m.hasMatch() || !positiveInt(m.captured(1), lo) || (m.captured(2).isEmpty() ? (hi = lo, false) : !positiveInt(m.captured(2), hi))
                || hi < lo || hi > 1 << 20)
                return fail(QStringLiteral("--nodes: must be N or MIN-MAX with 1 <= MIN <= MAX <= 1048576"));
            c.minNodes = lo;
            c.maxNodes = hi;
        } else if (a == QLatin1String("--min-headroom") && hasValue) {
            bool ok = false;
            const double gib = arguments[++i].toDouble(&ok);
            if (!ok || !(gib >= 0) || gib > 1e6)
                return fail(QStringLiteral("--min-headroom: must be a number of GiB >= 0"));
            c.minHeadroomBytes = gib * units::GiB;
        } else if (a == QLatin1String("--allow-tensor-across-nodes")) {
            c.allowTensorAcrossNodes = true;
        } else if (a == QLatin1String("--no-offload")) {
            c.allowOffload = false;
        } else if (a == QLatin1String("--fix") && hasValue) {
            for (const QString &item : arguments[++i].split(QLatin1Char(','), Qt::SkipEmptyParts)) {
                const QString key = item.section(QLatin1Char('='), 0, 0).trimmed();
                const QString value = item.section(QLatin1Char('='), 1).trimmed();
                const std::string v = value.toStdString();
                std::int64_t k = 0;
                if (key == QLatin1String("tensor") && positiveInt(value, k)) c.tensor = k;
                else if (key == QLatin1String("pipeline") && positiveInt(value, k)) c.pipeline = k;
                else if (key == QLatin1String("data") && positiveInt(value, k)) c.data = k;
                else if (key == QLatin1String("micro_batch") && positiveInt(value, k)) c.microBatch = k, c.microBatches = {k};
                else if (key == QLatin1String("virtual_stages") && positiveInt(value, k)) c.virtualStages = k;
                else if (key == QLatin1String("zero_stage") && (value == "0" || value == "1" || value == "2" || value == "3")) c.zeroStage = value.toInt();
                else if (key == QLatin1String("recompute") && recomputeFromString(v)) c.recompute = *recomputeFromString(v);
                else if (key == QLatin1String("schedule") && scheduleFromString(v)) c.schedule = *scheduleFromString(v);
                else if (key == QLatin1String("sequence_parallel") && (value == "true" || value == "false")) c.sequenceParallel = value == "true";
                else
                    return fail(QStringLiteral("--fix: '%1' is not KEY=VALUE with a known key and a valid value "
                                               "(tensor, pipeline, data, micro_batch, virtual_stages: positive integers; zero_stage 0-3; "
                                               "recompute none|selective|full; schedule gpipe|1f1b|interleaved|zb-h1; "
                                               "sequence_parallel true|false)").arg(item));
            }
        } else if (!a.startsWith(QLatin1Char('-')) && planPath->isEmpty()) {
            *planPath = a;
        } else {
            return fail(QStringLiteral("unknown or incomplete argument '%1'").arg(a));
        }
    }
    if (planPath->isEmpty())
        return fail(QStringLiteral("a plan file is required"));
    return true;
}

int runSearch(const QStringList &arguments, QTextStream &out, QTextStream &err)
{
    QString planPath, error;
    SearchConstraints constraints;
    if (!parseSearchOptions(arguments, &planPath, constraints, &error)) {
        err << "trainplan search: " << error << '\n' << kUsage;
        return UsageError;
    }
    const Catalog &catalog = io::builtinCatalog();
    const std::optional<Plan> plan = readPlanForCommand(planPath, err);
    if (!plan)
        return InvalidInput;
    const SearchOutcome outcome = searchPlans(*plan, catalog, constraints);
    if (!outcome.valid) {
        err << planPath << ": " << QString::fromStdString(outcome.error) << '\n';
        return InvalidInput;
    }
    out << QJsonDocument(io::searchToJson(outcome, constraints, catalog)).toJson(QJsonDocument::Indented);
    return Ok;
}

} // namespace trainplan::cli
