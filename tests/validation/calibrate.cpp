// trainplan_calibrate: fits the few physical device parameters of the step model (sustained matmul
// efficiency, per-kernel overhead, memory efficiency, fused-attention efficiency, link efficiency and
// latency) to the published runs in tests/data/validation, by coordinate descent on the mean absolute
// log error plus half the worst. Prints the fit, and leave-one-source-out errors as a check that the
// parameters generalise. Not a test: run it by hand when the model changes, then copy the parameters
// into resources/devices.json (docs/CALIBRATION.md).

#include <QCoreApplication>
#include <QTextStream>

#include <algorithm>
#include <cmath>
#include <map>

#include "io/CatalogJson.h"
#include "ValidationRows.h"
#include "core/estimate/Estimate.h"

using namespace trainplan;

namespace {

struct Params
{
    std::map<std::string, double> values{
        {"a100_matmul_max", 0.869}, {"v100_matmul_max", 0.80}, {"kernel_overhead_s", 7e-6},
        {"memory_max", 0.85},       {"memory_overhead_s", 5e-6}, {"attention_eff", 1.0},
        {"intra_eff", 0.8}, {"network_eff", 0.8},          {"network_latency_s", 10e-6}, {"intra_latency_s", 5e-6}};
};

Catalog apply(const Params &p)
{
    Catalog c = io::builtinCatalog();
    for (DeviceSpec d : c.devices()) {
        const bool v100 = d.id.rfind("v100", 0) == 0;
        const bool a100 = d.id.rfind("a100", 0) == 0;
        if (v100)
            d.matmulEfficiency.max = p.values.at("v100_matmul_max");
        if (a100)
            d.matmulEfficiency.max = p.values.at("a100_matmul_max");
        const double peak = d.peakFlops(v100 ? Precision::FP16 : Precision::BF16);
        d.matmulEfficiency.halfSize = p.values.at("kernel_overhead_s") * peak * d.matmulEfficiency.max;
        d.memoryEfficiency.max = p.values.at("memory_max");
        d.memoryEfficiency.halfSize = p.values.at("memory_overhead_s") * d.memoryBandwidthBytesPerSecond * d.memoryEfficiency.max;
        d.attentionEfficiency = p.values.at("attention_eff");
        d.intraNodeEfficiency = p.values.at("intra_eff");
        d.networkEfficiency = p.values.at("network_eff");
        d.networkLatencySeconds = p.values.at("network_latency_s");
        d.intraNodeLatencySeconds = p.values.at("intra_latency_s");
        c.addDevice(d);
    }
    return c;
}

struct Score
{
    double objective = 0, median = 0, worst = 0;
};

Score score(const std::vector<validation::Row> &rows, const Catalog &catalog)
{
    std::vector<double> logs, abs;
    for (const auto &row : rows) {
        const Estimate e = estimate(row.plan, catalog, {false});
        const double predicted = e.valid ? e.step.stepSeconds : 1e9;
        logs.push_back(std::abs(std::log(predicted / row.measuredSeconds)));
        abs.push_back(std::abs(predicted - row.measuredSeconds) / row.measuredSeconds);
    }
    Score s;
    double mean = 0;
    for (double l : logs)
        mean += l / double(logs.size());
    std::sort(abs.begin(), abs.end());
    s.median = abs[abs.size() / 2];
    s.worst = abs.back();
    s.objective = mean + 0.5 * *std::max_element(logs.begin(), logs.end());
    return s;
}

/// Plausible physical range of each parameter; the search stays inside it.
const std::map<std::string, std::pair<double, double>> kRanges{
    {"a100_matmul_max", {0.55, 0.869}}, {"v100_matmul_max", {0.45, 0.9}}, {"kernel_overhead_s", {1e-6, 5e-5}},
    {"memory_max", {0.5, 0.95}},        {"memory_overhead_s", {1e-6, 5e-5}}, {"attention_eff", {0.3, 1.0}},
    {"intra_eff", {0.6, 0.9}}, {"network_eff", {0.5, 0.95}},           {"network_latency_s", {3e-6, 3e-5}}, {"intra_latency_s", {1e-6, 8e-6}}};

Params descend(const std::vector<validation::Row> &rows, Params p, double &best)
{
    best = score(rows, apply(p)).objective;
    for (double step : {0.3, 0.1, 0.03, 0.01}) {
        for (int sweep = 0; sweep < 8; ++sweep) {
            bool improved = false;
            for (auto &[name, value] : p.values) {
                const auto [low, high] = kRanges.at(name);
                for (double factor : {1.0 + step, 1.0 / (1.0 + step)}) {
                    const double old = value;
                    value = std::clamp(old * factor, low, high);
                    const double s = score(rows, apply(p)).objective;
                    if (s < best - 1e-9) {
                        best = s;
                        improved = true;
                    } else {
                        value = old;
                    }
                }
            }
            if (!improved)
                break;
        }
    }
    return p;
}

/// Coordinate descent from the default and from seeded log-uniform random starts inside the ranges.
Params fit(const std::vector<validation::Row> &rows, const Params &start)
{
    double best = 0;
    Params result = descend(rows, start, best);
    std::uint64_t state = 20261129;
    const auto uniform = [&state] {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        return double(state >> 11) / double(1ULL << 53);
    };
    for (int trial = 0; trial < 24; ++trial) {
        Params p = start;
        for (auto &[name, value] : p.values) {
            const auto [low, high] = kRanges.at(name);
            value = low * std::pow(high / low, uniform());
        }
        double s = 0;
        p = descend(rows, p, s);
        if (s < best) {
            best = s;
            result = p;
        }
    }
    return result;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QTextStream out(stdout);
    std::vector<validation::Row> rows = validation::loadRows();
    rows.erase(std::remove_if(rows.begin(), rows.end(), [](const auto &r) { return !r.modelled; }), rows.end());
    if (qEnvironmentVariableIsSet("CALIBRATE_EXCLUDE")) {
        const QString pattern = qEnvironmentVariable("CALIBRATE_EXCLUDE");
        rows.erase(std::remove_if(rows.begin(), rows.end(), [&](const auto &r) { return r.id.contains(pattern); }), rows.end());
    }
    Params start;
    const Score before = score(rows, apply(start));
    out << "start: median " << 100 * before.median << "%, worst " << 100 * before.worst << "%\n";
    const Params fitted = fit(rows, start);
    const Score after = score(rows, apply(fitted));
    out << "fitted on all " << rows.size() << " rows: median " << 100 * after.median << "%, worst " << 100 * after.worst << "%\n";
    for (const auto &[name, value] : fitted.values)
        out << "  " << QString::fromStdString(name) << " = " << value << "\n";

    for (const auto &row : rows) {
        const Estimate e = estimate(row.plan, apply(fitted), {false});
        const double error = (e.step.stepSeconds - row.measuredSeconds) / row.measuredSeconds;
        if (std::abs(error) > 0.15) {
            out << "  large: " << row.source << ' ' << row.id << ' ' << 100 * error << "%  [";
            for (std::size_t i = 0; i < kTimeCategoryCount; ++i)
                if (e.step.breakdown[i] > 0)
                    out << toString(TimeCategory(i)) << ' ' << e.step.breakdown[i] << ' ';
            out << "] measured " << row.measuredSeconds << "\n";
        }
    }
    // Leave one source out: fit on the others, score the held-out source.
    std::map<QString, std::vector<validation::Row>> bySource;
    for (const auto &row : rows)
        bySource[row.source].push_back(row);
    for (const auto &[source, held] : bySource) {
        std::vector<validation::Row> train;
        for (const auto &row : rows)
            if (row.source != source)
                train.push_back(row);
        const Params p = fit(train, start);
        const Score s = score(held, apply(p));
        out << "held out " << source << " (" << held.size() << " rows): median " << 100 * s.median << "%, worst "
            << 100 * s.worst << "%\n";
    }
    return 0;
}
