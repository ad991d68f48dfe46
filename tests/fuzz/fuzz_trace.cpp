// libFuzzer target: profiler traces (io::parseKinetoTrace, plain or gzipped), measured per class and set
// beside the example plan's estimate; every number of the comparison must be finite.
#include "FuzzSupport.h"

#include <QJsonDocument>

#include "io/measure/KinetoTrace.h"
#include "io/measure/ProfileReport.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    using namespace trainplan;
    if (size > 256 * 1024)
        return 0;
    const QByteArray bytes = fuzz::bytes(data, size);
    const io::TraceReadResult read = io::parseKinetoTrace(bytes, QStringLiteral("trace.json"));
    // The streaming reader accepts what Qt's JSON parser accepts as a trace (differential check).
    if (!read.trace && !bytes.startsWith("\x1f\x8b")) {
        const QJsonDocument doc = QJsonDocument::fromJson(bytes);
        if (doc.isArray() || (doc.isObject() && doc.object().value(QLatin1String("traceEvents")).isArray()))
            __builtin_trap();
    }
    if (!read.trace)
        return 0;
    static const std::optional<Plan> plan = io::readPlan(io::builtinExamplePlan(), io::builtinCatalog()).plan;
    static const Estimate estimate = trainplan::estimate(*plan, io::builtinCatalog(), EstimateOptions::analytic());
    const MeasuredProfile measured = measureProfile(*read.trace);
    const ProfileComparison comparison = compareProfile(measured, *plan, estimate, 0);
    if (!fuzz::allFinite(io::profileToJson(measured, comparison)))
        __builtin_trap();
    (void)io::profileTable(measured, comparison, QStringLiteral("trace.json"), QStringLiteral("plan.json"), plan->parallel.pipeline);
    return 0;
}
