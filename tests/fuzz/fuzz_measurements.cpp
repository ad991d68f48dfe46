// libFuzzer target: the measurements CSV a device is calibrated to (io::parseMeasuredRuns). Whatever the
// bytes, a file with no error gives rows whose every value is one the column's rule accepts (finite, in its
// physical range) and a stage of 0 or more, at most kMaxMeasuredRows of them.
#include "FuzzSupport.h"

#include "io/measure/MeasurementsCsv.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    using namespace trainplan;
    if (size > 256 * 1024)
        return 0;
    const io::MeasuredRuns csv = io::parseMeasuredRuns(fuzz::bytes(data, size), QStringLiteral("/runs/m.csv"));
    if (csv.errors.size() > 51)
        __builtin_trap(); // the errors are capped: enough to fix the file by
    if (!csv.errors.isEmpty())
        return 0;
    if (csv.runs.size() > std::size_t(io::kMaxMeasuredRows))
        __builtin_trap();
    const QStringList columns = io::measuredColumns();
    for (const io::MeasuredRun &run : csv.runs) {
        const std::optional<double> values[] = {run.stepSeconds, run.tokensPerSecond, run.peakBytes,
                                                run.kernelSeconds[0], run.kernelSeconds[1], run.kernelSeconds[2]};
        for (int c = 0; c < 6; ++c) {
            double checked = 0;
            if (values[c] && io::checkMeasuredValue(columns[c], QString::number(*values[c], 'g', 17), &checked))
                __builtin_trap(); // a value the rule refuses was accepted
        }
        if (run.stage < 0 || run.line < 2)
            __builtin_trap();
    }
    return 0;
}
