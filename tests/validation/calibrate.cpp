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
#include <functional>
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

using Values = std::map<std::string, double>;
using Ranges = std::map<std::string, std::pair<double, double>>;

/// Coordinate descent in multiplicative steps, each value kept inside its range; returns the objective
/// reached and leaves the values there.
double coordinateDescent(Values &values, const Ranges &ranges, std::initializer_list<double> steps,
                         const std::function<double(const Values &)> &objective)
{
    double best = objective(values);
    for (double step : steps) {
        for (int sweep = 0; sweep < 8; ++sweep) {
            bool improved = false;
            for (auto &[name, value] : values) {
                const auto [low, high] = ranges.at(name);
                for (double factor : {1.0 + step, 1.0 / (1.0 + step)}) {
                    const double old = value;
                    value = std::clamp(old * factor, low, high);
                    const double s = objective(values);
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
    return best;
}

Params descend(const std::vector<validation::Row> &rows, Params p, double &best)
{
    best = coordinateDescent(p.values, kRanges, {0.3, 0.1, 0.03, 0.01}, [&](const Values &v) {
        return score(rows, apply(Params{v})).objective;
    });
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

// Hopper and Blackwell (CALIBRATE_MODERN=1): the A100/V100 parameters stay as resources/devices.json has
// them (their rows cannot move); the H100's own efficiencies are fitted on the dgxc and NeMo rows, and
// the Blackwell matmul and attention efficiencies on the GB200/B200 rows; Blackwell's memory and link
// efficiencies are the H100's (a prediction: too few rows to fit them).
const std::map<std::string, std::pair<double, double>> kModernRanges{
    {"h100_matmul_max", {0.55, 0.87}},  {"h100_attention_eff", {0.3, 1.0}}, {"h100_memory_max", {0.5, 0.95}},
    {"h100_intra_eff", {0.6, 0.95}},    {"h100_network_eff", {0.5, 0.95}},  {"b200_matmul_max", {0.5, 0.87}},
    {"b200_attention_eff", {0.3, 1.0}}, {"gb200_matmul_max", {0.4, 0.87}},  {"gb200_attention_eff", {0.2, 1.0}},
    {"h100_low_precision_eff", {0.6, 1.0}}, {"blackwell_low_precision_eff", {0.6, 1.0}}};

bool hopper(const std::string &id) { return id.rfind("h100", 0) == 0 || id.rfind("h200", 0) == 0; }
bool blackwell(const std::string &id) { return id == "b200" || id == "gb200" || id == "b300" || id == "gb300"; }
/// B200 / B300 (DGX, air-cooled) take the B200 fit, GB200 / GB300 (NVL72, liquid-cooled) the GB200 one.
std::string family(const std::string &id) { return hopper(id) ? "h100" : id.rfind("gb", 0) == 0 ? "gb200" : "b200"; }

Catalog applyModern(const std::map<std::string, double> &p)
{
    Catalog c = io::builtinCatalog();
    for (DeviceSpec d : c.devices()) {
        if (!hopper(d.id) && !blackwell(d.id))
            continue;
        const double overheadSeconds = d.matmulEfficiency.halfSize / (d.peakFlops(Precision::BF16) * d.matmulEfficiency.max);
        d.matmulEfficiency.max = p.at(family(d.id) + "_matmul_max");
        d.matmulEfficiency.halfSize = overheadSeconds * d.peakFlops(Precision::BF16) * d.matmulEfficiency.max;
        d.attentionEfficiency = p.at(family(d.id) + "_attention_eff");
        // One FP8/FP4 share for the Blackwell chips: the B200 rows are all FP8 (the long-context table), so
        // its own share and its matmul maximum could not be told apart.
        d.lowPrecisionEfficiency = p.at(hopper(d.id) ? "h100_low_precision_eff" : "blackwell_low_precision_eff");
        const double memoryOverhead = d.memoryEfficiency.halfSize / (d.memoryBandwidthBytesPerSecond * d.memoryEfficiency.max);
        d.memoryEfficiency.max = p.at("h100_memory_max");
        d.memoryEfficiency.halfSize = memoryOverhead * d.memoryBandwidthBytesPerSecond * d.memoryEfficiency.max;
        d.intraNodeEfficiency = p.at("h100_intra_eff");
        d.networkEfficiency = p.at("h100_network_eff");
        c.addDevice(d);
    }
    return c;
}

/// Mean absolute log error plus half the 90th percentile: a few rows the model cannot express (a 1M-token
/// table row, a source's odd layout) must not steer the device parameters of all the others.
double robustObjective(const std::vector<validation::Row> &rows, const Catalog &catalog)
{
    std::vector<double> logs;
    double mean = 0;
    for (const auto &row : rows) {
        const Estimate e = estimate(row.plan, catalog, {false});
        logs.push_back(std::abs(std::log((e.valid ? e.step.stepSeconds : 1e9) / row.measuredSeconds)));
        mean += logs.back() / double(rows.size());
    }
    std::sort(logs.begin(), logs.end());
    return mean + 0.5 * logs[std::size_t(0.9 * double(logs.size() - 1))];
}

std::map<std::string, double> descendModern(const std::vector<validation::Row> &rows, std::map<std::string, double> p, double &best)
{
    best = coordinateDescent(p, kModernRanges, {0.2, 0.06, 0.02, 0.007},
                             [&](const Values &v) { return robustObjective(rows, applyModern(v)); });
    return p;
}

std::map<std::string, double> modernStart()
{
    const Catalog &c = io::builtinCatalog();
    const DeviceSpec &h = *c.device("h100-sxm5-80gb", {});
    const DeviceSpec &b = *c.device("b200", {});
    const DeviceSpec &g = *c.device("gb200", {});
    return {{"h100_matmul_max", h.matmulEfficiency.max}, {"h100_attention_eff", h.attentionEfficiency},
            {"h100_memory_max", h.memoryEfficiency.max}, {"h100_intra_eff", h.intraNodeEfficiency},
            {"h100_network_eff", h.networkEfficiency},   {"b200_matmul_max", b.matmulEfficiency.max},
            {"b200_attention_eff", b.attentionEfficiency}, {"gb200_matmul_max", g.matmulEfficiency.max},
            {"gb200_attention_eff", g.attentionEfficiency}, {"h100_low_precision_eff", h.lowPrecisionEfficiency},
            {"blackwell_low_precision_eff", g.lowPrecisionEfficiency}};
}

int calibrateModern(std::vector<validation::Row> rows, QTextStream &out)
{
    rows.erase(std::remove_if(rows.begin(), rows.end(), [](const auto &r) {
                   return r.source != QLatin1String("dgxc") && r.source != QLatin1String("dgxc-moe")
                          && r.source != QLatin1String("nemo-long-context");
               }), rows.end());
    double best = 0;
    const auto start = modernStart();
    out << "start on " << rows.size() << " rows: median " << 100 * score(rows, applyModern(start)).median << "%\n";
    const auto fitted = descendModern(rows, start, best);
    const Score after = score(rows, applyModern(fitted));
    out << "fitted: median " << 100 * after.median << "%, worst " << 100 * after.worst << "%\n";
    for (const auto &[name, value] : fitted)
        out << "  " << QString::fromStdString(name) << " = " << value << "\n";
    for (const auto &row : rows) {
        const Estimate e = estimate(row.plan, applyModern(fitted), {false});
        const double error = (e.step.stepSeconds - row.measuredSeconds) / row.measuredSeconds;
        if (std::abs(error) > 0.10) {
            out << "  large: " << row.id << ' ' << 100 * error << "%  [";
            for (std::size_t i = 0; i < kTimeCategoryCount; ++i)
                if (e.step.breakdown[i] > 0)
                    out << toString(TimeCategory(i)) << ' ' << e.step.breakdown[i] << ' ';
            out << "] measured " << row.measuredSeconds << "\n";
        }
    }
    // Leave one source out: the model families of the dgxc rows and the long-context table.
    const auto family = [](const validation::Row &r) {
        return r.source == QLatin1String("nemo-long-context") ? QStringLiteral("nemo-long-context") : r.id.section(' ', 1, 3);
    };
    std::map<QString, std::vector<validation::Row>> groups;
    for (const auto &row : rows)
        groups[family(row)].push_back(row);
    std::vector<double> pooled; // every row's error when its own family was held out
    for (const auto &[name, held] : groups) {
        std::vector<validation::Row> train;
        for (const auto &row : rows)
            if (family(row) != name)
                train.push_back(row);
        double s = 0;
        const auto p = descendModern(train, fitted, s);
        const Catalog heldCatalog = applyModern(p);
        const Score heldScore = score(held, heldCatalog);
        for (const auto &row : held) {
            const Estimate e = estimate(row.plan, heldCatalog, {false});
            pooled.push_back(std::abs(e.step.stepSeconds - row.measuredSeconds) / row.measuredSeconds);
        }
        out << "held out " << name << " (" << held.size() << " rows): median " << 100 * heldScore.median << "%, worst "
            << 100 * heldScore.worst << "%\n";
        out.flush();
    }
    std::sort(pooled.begin(), pooled.end());
    out << "leave-one-family-out, all " << pooled.size() << " rows: median " << 100 * pooled[pooled.size() / 2] << "%, worst "
        << 100 * pooled.back() << "%\n";
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QTextStream out(stdout);
    std::vector<validation::Row> rows = validation::loadRows();
    rows.erase(std::remove_if(rows.begin(), rows.end(), [](const auto &r) { return !r.modelled; }), rows.end());
    if (qEnvironmentVariableIsSet("CALIBRATE_MODERN"))
        return calibrateModern(rows, out);
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
