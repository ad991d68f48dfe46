// trainplan_calibrate: fits the few physical device parameters of the step model (sustained matmul
// efficiency, per-kernel overhead, memory efficiency, fused-attention efficiency, link efficiency and
// latency) to the published runs in tests/data/validation with the fitter users' calibrations use
// (core/calibrate/LeastSquares: bounded Levenberg-Marquardt on the log errors; the modern rows through a
// pseudo-Huber loss so that the few rows the model cannot express do not steer the rest). Starts from
// resources/devices.json, prints the fit with standard errors, the rows still far off, and
// leave-one-source-out errors as a check that the parameters generalise. Not a test: run it by hand when
// the model changes, then copy the parameters into resources/devices.json (docs/CALIBRATION.md).

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QTextStream>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>

#include "io/plan/CatalogJson.h"
#include "ValidationRows.h"
#include "core/calibrate/LeastSquares.h"
#include "core/estimate/Accuracy.h"
#include "core/estimate/Estimate.h"

using namespace trainplan;

namespace {

constexpr double kMicro = 1e-6;

/// One calibration: the parameters with their physical ranges (values: the start, from devices.json), how
/// a parameter vector becomes a catalog, and whether the loss is robust.
/// What the fit minimises, written as a sum of squared residuals for the Levenberg-Marquardt fitter.
enum class Objective {
    Squares,      ///< sum of squared log errors
    PseudoHuber,  ///< 2 d^2 (sqrt(1 + (l/d)^2) - 1) per row: l^2 for small errors, linear beyond d
    MeanAndWorst, ///< mean |l| + half the (soft) largest |l|: the median and the worst row both count
    MeanAndP90,   ///< mean |l| + half the 90th percentile of |l|: a few rows the model cannot express
                  ///< (a 1M-token table row, a source's odd layout) do not steer the rest
};

struct Family
{
    std::vector<BoundedParameter> parameters;
    std::function<Catalog(const std::vector<double> &)> apply;
    Objective objective = Objective::Squares;
    double scale = 0.1; ///< pseudo-Huber: the log error where the loss turns linear
};

struct Score
{
    double median = 0, worst = 0;
};

/// Rows no fit sees: the hybrid Mamba models' (Megatron-Bridge's and dgxc's) and Megatron-Bridge's fine-tuning ones.
bool neverFitted(const validation::Row &row)
{
    return row.source == QLatin1String("bridge-hybrid") || row.source == QLatin1String("bridge-sft")
           || row.source == QLatin1String("dgxc-hybrid");
}

double predicted(const validation::Row &row, const Catalog &catalog)
{
    const Estimate e = estimate(row.plan, catalog, {false});
    return e.valid && e.step.stepSeconds > 0 ? e.step.stepSeconds : 1e9;
}

double relativeError(const validation::Row &row, const Catalog &catalog)
{
    return std::abs(predicted(row, catalog) - row.measuredSeconds) / row.measuredSeconds;
}

/// Median (the upper one of an even count) and worst of some rows' |relative errors|.
Score summarise(std::vector<double> errors)
{
    std::sort(errors.begin(), errors.end());
    return {errors[errors.size() / 2], errors.back()};
}

Score score(const std::vector<validation::Row> &rows, const Catalog &catalog)
{
    std::vector<double> errors;
    for (const auto &row : rows)
        errors.push_back(relativeError(row, catalog));
    return summarise(std::move(errors));
}

/// The residuals whose squares sum to the family's objective.
/// MeanAndWorst: each row's sqrt(a(l) / n) (a(l) = sqrt(l^2 + e^2) - e, a smooth |l|), and one more,
/// sqrt(0.5 t log sum exp(a(l) / t)), a smooth maximum (t = 0.01: within 0.05 of the largest |l|).
Eigen::VectorXd residuals(const std::vector<validation::Row> &rows, const Family &family, const std::vector<double> &values)
{
    const Catalog catalog = family.apply(values);
    const Eigen::Index n = Eigen::Index(rows.size());
    Eigen::VectorXd logs(n);
    for (Eigen::Index i = 0; i < n; ++i)
        logs[i] = std::log(predicted(rows[std::size_t(i)], catalog) / rows[std::size_t(i)].measuredSeconds);
    switch (family.objective) {
    case Objective::Squares: return logs;
    case Objective::PseudoHuber: {
        const double d = family.scale;
        return logs.unaryExpr([d](double l) { return std::copysign(d * std::sqrt(2.0 * (std::sqrt(1.0 + (l / d) * (l / d)) - 1.0)), l); });
    }
    case Objective::MeanAndWorst:
    case Objective::MeanAndP90: break;
    }
    constexpr double e = 0.002, t = 0.01;
    const Eigen::VectorXd a = logs.unaryExpr([e](double l) { return std::sqrt(l * l + e * e) - e; });
    Eigen::VectorXd r(n + 1);
    for (Eigen::Index i = 0; i < n; ++i)
        r[i] = std::copysign(std::sqrt(a[i] / double(n)), logs[i]);
    if (family.objective == Objective::MeanAndP90) {
        std::vector<double> sorted(a.begin(), a.end());
        std::nth_element(sorted.begin(), sorted.begin() + std::ptrdiff_t(0.9 * double(n - 1)), sorted.end());
        r[n] = std::sqrt(0.5 * sorted[std::size_t(0.9 * double(n - 1))]);
        return r;
    }
    const double top = a.maxCoeff();
    r[n] = std::sqrt(0.5 * (top + t * std::log((a.array() - top).unaryExpr([t](double x) { return std::exp(x / t); }).sum())));
    return r;
}

LeastSquaresFit fitRows(const std::vector<validation::Row> &rows, const Family &family, const std::vector<double> &start, int iterations = 60)
{
    std::vector<BoundedParameter> parameters = family.parameters;
    for (std::size_t i = 0; i < parameters.size(); ++i)
        parameters[i].value = std::clamp(start[i], parameters[i].lower + 1e-3 * (parameters[i].upper - parameters[i].lower),
                                         parameters[i].upper - 1e-3 * (parameters[i].upper - parameters[i].lower));
    return fitLeastSquares(parameters, [&](const std::vector<double> &v) { return residuals(rows, family, v); }, iterations);
}

std::vector<double> startValues(const Family &family)
{
    std::vector<double> v;
    for (const BoundedParameter &p : family.parameters)
        v.push_back(p.value);
    return v;
}

/// A100 and V100 (the 2020-2022 sources): their own matmul maxima, every other parameter shared.
Family classicFamily()
{
    const DeviceSpec &a = *io::builtinCatalog().device("a100-sxm4-80gb", {});
    const DeviceSpec &v = *io::builtinCatalog().device("v100-sxm2-32gb", {});
    const double overhead = a.matmulEfficiency.halfSize / (a.peakFlops(Precision::BF16) * a.matmulEfficiency.max);
    const double memoryOverhead = a.memoryEfficiency.halfSize / (a.memoryBandwidthBytesPerSecond * a.memoryEfficiency.max);
    Family f;
    f.objective = Objective::MeanAndWorst; // the published bounds are a median and a worst row
    f.parameters = {{"a100_matmul_max", a.matmulEfficiency.max, 0.55, 0.87},    {"v100_matmul_max", v.matmulEfficiency.max, 0.45, 0.9},
                    {"kernel_overhead_us", overhead / kMicro, 1, 50},          {"memory_max", a.memoryEfficiency.max, 0.5, 0.95},
                    {"memory_overhead_us", memoryOverhead / kMicro, 1, 50},    {"attention_eff", a.attentionEfficiency, 0.3, 1.0},
                    {"intra_eff", a.intraNodeEfficiency, 0.55, 0.9},           {"network_eff", a.networkEfficiency, 0.5, 0.95},
                    {"network_latency_us", a.networkLatencySeconds / kMicro, 2, 30}, {"intra_latency_us", a.intraNodeLatencySeconds / kMicro, 0.5, 8}};
    f.apply = [](const std::vector<double> &p) {
        Catalog c = io::builtinCatalog();
        for (DeviceSpec d : c.devices()) {
            const bool v100 = d.id.rfind("v100", 0) == 0, a100 = d.id.rfind("a100", 0) == 0;
            if (!v100 && !a100)
                continue;
            d.matmulEfficiency.max = v100 ? p[1] : p[0];
            const double peak = d.peakFlops(v100 ? Precision::FP16 : Precision::BF16);
            d.matmulEfficiency.halfSize = p[2] * kMicro * peak * d.matmulEfficiency.max;
            d.memoryEfficiency.max = p[3];
            d.memoryEfficiency.halfSize = p[4] * kMicro * d.memoryBandwidthBytesPerSecond * d.memoryEfficiency.max;
            d.attentionEfficiency = p[5];
            d.intraNodeEfficiency = p[6];
            d.networkEfficiency = p[7];
            d.networkLatencySeconds = p[8] * kMicro;
            d.intraNodeLatencySeconds = p[9] * kMicro;
            c.addDevice(d);
        }
        return c;
    };
    return f;
}

// Hopper and Blackwell (CALIBRATE_MODERN=1): the A100/V100 parameters stay as resources/devices.json has
// them (their rows cannot move); the H100's own efficiencies are fitted on the dgxc and NeMo rows, and
// the Blackwell matmul and attention efficiencies on the GB200/B200 rows; Blackwell's memory and link
// efficiencies are the H100's (a prediction: too few rows to fit them).
bool hopper(const std::string &id) { return id.rfind("h100", 0) == 0 || id.rfind("h200", 0) == 0; }
bool blackwell(const std::string &id) { return id == "b200" || id == "gb200" || id == "b300" || id == "gb300"; }
/// B200 / B300 (DGX, air-cooled) take the B200 fit, GB200 / GB300 (NVL72, liquid-cooled) the GB200 one.
std::size_t familyOffset(const std::string &id) { return hopper(id) ? 0 : id.rfind("gb", 0) == 0 ? 4 : 2; }

Family modernFamily()
{
    const Catalog &c = io::builtinCatalog();
    const DeviceSpec &h = *c.device("h100-sxm5-80gb", {});
    const DeviceSpec &b = *c.device("b200", {});
    const DeviceSpec &g = *c.device("gb200", {});
    Family f;
    f.objective = qEnvironmentVariable("CALIBRATE_OBJECTIVE") == QLatin1String("huber") ? Objective::PseudoHuber : Objective::MeanAndP90;
    // Matmul maximum and attention efficiency per family (H100, B200, GB200), then the shared ones.
    f.parameters = {{"h100_matmul_max", h.matmulEfficiency.max, 0.55, 0.87},  {"h100_attention_eff", h.attentionEfficiency, 0.3, 1.0},
                    {"b200_matmul_max", b.matmulEfficiency.max, 0.5, 0.87},   {"b200_attention_eff", b.attentionEfficiency, 0.3, 1.0},
                    {"gb200_matmul_max", g.matmulEfficiency.max, 0.4, 0.87},  {"gb200_attention_eff", g.attentionEfficiency, 0.2, 1.0},
                    {"h100_memory_max", h.memoryEfficiency.max, 0.5, 0.95},   {"h100_intra_eff", h.intraNodeEfficiency, 0.6, 0.95},
                    {"h100_network_eff", h.networkEfficiency, 0.5, 0.95},     {"h100_low_precision_eff", h.lowPrecisionEfficiency, 0.6, 1.0},
                    {"blackwell_low_precision_eff", g.lowPrecisionEfficiency, 0.6, 1.0},
                    {"schedule_step_us", h.scheduleStepSeconds / kMicro, 0, 1000}};
    f.apply = [](const std::vector<double> &p) {
        Catalog c = io::builtinCatalog();
        for (DeviceSpec d : c.devices()) {
            if (!hopper(d.id) && !blackwell(d.id))
                continue;
            const std::size_t k = familyOffset(d.id);
            const double overheadSeconds = d.matmulEfficiency.halfSize / (d.peakFlops(Precision::BF16) * d.matmulEfficiency.max);
            d.matmulEfficiency.max = p[k];
            d.matmulEfficiency.halfSize = overheadSeconds * d.peakFlops(Precision::BF16) * d.matmulEfficiency.max;
            d.attentionEfficiency = p[k + 1];
            // One FP8/FP4 share for the Blackwell chips: the B200 rows are all FP8 (the long-context
            // table), so its own share and its matmul maximum could not be told apart.
            d.lowPrecisionEfficiency = hopper(d.id) ? p[9] : p[10];
            const double memoryOverhead = d.memoryEfficiency.halfSize / (d.memoryBandwidthBytesPerSecond * d.memoryEfficiency.max);
            d.memoryEfficiency.max = p[6];
            d.memoryEfficiency.halfSize = memoryOverhead * d.memoryBandwidthBytesPerSecond * d.memoryEfficiency.max;
            d.intraNodeEfficiency = p[7];
            d.networkEfficiency = p[8];
            d.scheduleStepSeconds = p[11] * kMicro; // host and framework: one value for every modern device
            c.addDevice(d);
        }
        return c;
    };
    return f;
}

// Current software (CALIBRATE_BRIDGE=fit): the modern rows and the Megatron-Bridge rows of 25.09-26.08
// together. Each device's own matmul maximum (H100, B200, B300, GB200, GB300: each on its own rows), attention
// efficiency per generation (Hopper, Blackwell), NVFP4's share per generation (Blackwell, Blackwell Ultra),
// the network efficiency and the schedule step shared, and the host's launch cost per CPU (x86 hosts of DGX
// H100/B200/B300, Grace of GB200/GB300). The FP8 share of each device is not fitted: devices.json takes it
// from the measured maximum achievable FP8 over BF16 matmul throughput (gpu_specs.csv).
bool grace(const std::string &id) { return id.rfind("gb", 0) == 0; }
bool ultra(const std::string &id) { return id == "b300" || id == "gb300"; }

Family currentFamily()
{
    const Catalog &c = io::builtinCatalog();
    const auto dev = [&](const char *id) { return *c.device(id, {}); };
    const DeviceSpec h = dev("h100-sxm5-80gb"), b = dev("b200"), b3 = dev("b300"), g = dev("gb200"), g3 = dev("gb300");
    Family f;
    f.objective = qEnvironmentVariable("CALIBRATE_OBJECTIVE") == QLatin1String("huber") ? Objective::PseudoHuber : Objective::MeanAndP90;
    // Each matmul maximum at most the device's measured maximum achievable matmul throughput over its peak
    // (MAMF, shared/validation/gpu_specs.csv: H100 794.5 of 989, B200 1,745 of 2,250, GB200 1,822 of 2,500,
    // B300 1,769 of 2,250 BF16 TFLOP/s; GB300, unmeasured, as B300): a training step's GEMMs do not beat the
    // best benchmark shape.
    f.parameters = {{"h100_matmul_max", h.matmulEfficiency.max, 0.5, 0.803},    {"b200_matmul_max", b.matmulEfficiency.max, 0.45, 0.776},
                    {"b300_matmul_max", b3.matmulEfficiency.max, 0.45, 0.786},  {"gb200_matmul_max", g.matmulEfficiency.max, 0.45, 0.729},
                    {"gb300_matmul_max", g3.matmulEfficiency.max, 0.45, 0.786}, {"hopper_attention_eff", h.attentionEfficiency, 0.3, 1.0},
                    {"blackwell_attention_eff", b.attentionEfficiency, 0.3, 1.0},
                    {"blackwell_fp4_share", b.fp4Efficiency > 0 ? b.fp4Efficiency : 0.6, 0.2, 1.0},
                    {"ultra_fp4_share", g3.fp4Efficiency > 0 ? g3.fp4Efficiency : 0.6, 0.2, 1.0},
                    {"network_eff", h.networkEfficiency, 0.4, 0.95},            {"schedule_step_us", h.scheduleStepSeconds / kMicro, 0, 1000},
                    {"x86_launch_us", h.hostLaunchSeconds / kMicro, 2, 80},     {"grace_launch_us", g.hostLaunchSeconds / kMicro, 2, 80},
                    {"enqueue_us", h.hostEnqueueSeconds / kMicro, 0, 200},
                    {"alltoall_network_eff", h.networkAllToAllEfficiency, 0.4, 0.98}};
    f.apply = [](const std::vector<double> &p) {
        Catalog c = io::builtinCatalog();
        for (DeviceSpec d : c.devices()) {
            if (!hopper(d.id) && !blackwell(d.id))
                continue;
            const std::size_t k = hopper(d.id) ? 0 : d.id == "b200" ? 1 : d.id == "b300" ? 2 : d.id == "gb200" ? 3 : 4;
            const double overheadSeconds = d.matmulEfficiency.halfSize / (d.peakFlops(Precision::BF16) * d.matmulEfficiency.max);
            d.matmulEfficiency.max = p[k];
            d.matmulEfficiency.halfSize = overheadSeconds * d.peakFlops(Precision::BF16) * d.matmulEfficiency.max;
            d.attentionEfficiency = hopper(d.id) ? p[5] : p[6];
            d.fp4Efficiency = hopper(d.id) ? 0.0 : ultra(d.id) ? p[8] : p[7];
            d.networkEfficiency = p[9];
            d.scheduleStepSeconds = p[10] * kMicro;
            d.hostLaunchSeconds = (grace(d.id) ? p[12] : p[11]) * kMicro;
            d.hostEnqueueSeconds = p[13] * kMicro;
            d.networkAllToAllEfficiency = p[14];
            c.addDevice(d);
        }
        return c;
    };
    return f;
}

/// A row's release for leaving one out: a Megatron-Bridge row's container release (26.04.01 is 26.04), the
/// others by their source.
QString releaseOf(const validation::Row &r)
{
    if (!r.source.startsWith(QLatin1String("bridge")))
        return r.source;
    const QString v = r.id.section(QLatin1Char(' '), -1).mid(1);
    return QStringLiteral("bridge ") + v.section(QLatin1Char('.'), 0, 1);
}

void printFit(const Family &family, const LeastSquaresFit &fit, QTextStream &out)
{
    for (std::size_t i = 0; i < family.parameters.size(); ++i) {
        out << "  " << QString::fromStdString(family.parameters[i].name) << " = " << fit.values[i];
        if (fit.held[i])
            out << "  (held: the rows do not identify it)";
        else if (fit.standardErrors[i] > 0)
            out << "  +/- " << fit.standardErrors[i];
        out << "  (devices.json " << family.parameters[i].value << ")\n";
    }
}

void printLargeRows(const std::vector<validation::Row> &rows, const Catalog &catalog, double threshold, QTextStream &out)
{
    for (const auto &row : rows) {
        const Estimate e = estimate(row.plan, catalog, {false});
        const double error = (e.step.stepSeconds - row.measuredSeconds) / row.measuredSeconds;
        if (std::abs(error) <= threshold)
            continue;
        out << "  large: " << row.source << ' ' << row.id << ' ' << 100 * error << "%  [";
        for (std::size_t i = 0; i < kTimeCategoryCount; ++i)
            if (e.step.breakdown[i] > 0)
                out << toString(TimeCategory(i)) << ' ' << e.step.breakdown[i] << ' ';
        out << "] measured " << row.measuredSeconds << "\n";
    }
}

/// Fits on all rows from devices.json's values, then holds out each group (fit on the others, starting
/// from the full fit) and scores it.
int calibrate(const std::vector<validation::Row> &rows, const Family &family, const std::function<QString(const validation::Row &)> &group,
              double largeThreshold, QTextStream &out)
{
    const std::vector<double> start = startValues(family);
    const Score before = score(rows, family.apply(start));
    out << "devices.json on " << rows.size() << " rows: median " << 100 * before.median << "%, worst " << 100 * before.worst << "%\n";
    const LeastSquaresFit fit = fitRows(rows, family, start);
    const Score after = score(rows, family.apply(fit.values));
    out << "fitted (Levenberg-Marquardt, " << fit.iterations << " iterations, cost " << fit.startCost << " -> " << fit.cost
        << "): median " << 100 * after.median << "%, worst " << 100 * after.worst << "%\n";
    printFit(family, fit, out);
    std::map<QString, std::vector<validation::Row>> sources;
    for (const auto &row : rows)
        sources[row.source].push_back(row);
    for (const auto &[source, part] : sources) {
        const Score was = score(part, family.apply(start)), now = score(part, family.apply(fit.values));
        out << "  " << source << " (" << part.size() << " rows): median " << 100 * was.median << "% -> " << 100 * now.median << "%, worst "
            << 100 * was.worst << "% -> " << 100 * now.worst << "%\n";
    }
    printLargeRows(rows, family.apply(fit.values), largeThreshold, out);
    if (qEnvironmentVariableIsSet("CALIBRATE_NO_HOLDOUT"))
        return 0;
    std::map<QString, std::vector<validation::Row>> groups;
    for (const auto &row : rows)
        groups[group(row)].push_back(row);
    std::vector<double> pooled; // every row's error when its own group was held out
    std::map<QString, std::vector<double>> pooledBySource; // the same, by the rows' table (dense, MoE, long context)
    for (const auto &[name, held] : groups) {
        std::vector<validation::Row> train;
        for (const auto &row : rows)
            if (group(row) != name)
                train.push_back(row);
        const Catalog heldCatalog = family.apply(fitRows(train, family, fit.values, 30).values);
        std::vector<double> errors;
        for (const auto &row : held) {
            errors.push_back(relativeError(row, heldCatalog));
            pooled.push_back(errors.back());
            pooledBySource[row.source].push_back(errors.back());
        }
        const Score s = summarise(std::move(errors));
        out << "held out " << name << " (" << held.size() << " rows): median " << 100 * s.median << "%, worst " << 100 * s.worst << "%\n";
        out.flush();
    }
    const auto summary = [&out](const QString &what, const std::vector<double> &errors) {
        const Score s = summarise(errors);
        out << "leave-one-group-out, " << what << ' ' << errors.size() << " rows: median " << 100 * s.median << "%, worst " << 100 * s.worst
            << "%\n";
    };
    for (const auto &[source, errors] : pooledBySource)
        summary(source, errors);
    summary(QStringLiteral("all"), pooled);
    return 0;
}

/// A family of some of another's parameters, the rest held at `held`.
Family subFamily(const Family &all, const QStringList &names, const std::vector<double> &held)
{
    Family family = all;
    std::vector<std::size_t> index; // the free parameters' places in the whole vector
    family.parameters.clear();
    for (std::size_t i = 0; i < all.parameters.size(); ++i)
        if (names.contains(QString::fromStdString(all.parameters[i].name))) {
            family.parameters.push_back(all.parameters[i]);
            family.parameters.back().value = held[i];
            index.push_back(i);
        }
    family.apply = [all, index, held](const std::vector<double> &v) {
        std::vector<double> whole = held;
        for (std::size_t k = 0; k < index.size(); ++k)
            whole[index[k]] = v[k];
        return all.apply(whole);
    };
    return family;
}

// The current-software fit in two stages (block coordinate descent, two rounds): the dense rows fit the GEMM,
// attention, FP4, network and schedule-step parameters; the mixture-of-experts rows then fit what only they
// identify, the host's cost per kernel a grouped expert GEMM enqueues and B300's matmul maximum (B300 has no
// dense rows). A joint fit over both kinds lets the MoE rows' larger errors steer the dense parameters. The
// launch costs are bounded at 80 us: with wider bounds the MoE rows also admit ~195/200 us a launch with ~2 us
// an enqueue, of about the same score (docs/CALIBRATION.md, "The staged fit"), which they cannot tell apart.
const QStringList kDenseStage{"h100_matmul_max", "b200_matmul_max", "gb200_matmul_max", "gb300_matmul_max", "hopper_attention_eff",
                              "blackwell_attention_eff", "blackwell_fp4_share", "ultra_fp4_share", "network_eff", "schedule_step_us"};
const QStringList kMoeStage{"x86_launch_us", "grace_launch_us", "enqueue_us", "b300_matmul_max", "alltoall_network_eff"};

std::vector<double> stagedFit(const std::vector<validation::Row> &rows, const Family &all, std::vector<double> values, int rounds)
{
    std::vector<validation::Row> dense, moe;
    for (const validation::Row &r : rows)
        (r.plan.model.isMoe() ? moe : dense).push_back(r);
    for (int round = 0; round < rounds; ++round)
        for (const auto &[part, names] : {std::pair{&dense, &kDenseStage}, std::pair{&moe, &kMoeStage}}) {
            const Family f = subFamily(all, *names, values);
            const LeastSquaresFit fit = fitRows(*part, f, startValues(f), 40);
            for (std::size_t k = 0, i = 0; i < all.parameters.size(); ++i)
                if (names->contains(QString::fromStdString(all.parameters[i].name)))
                    values[i] = fit.values[k++];
        }
    return values;
}

/// CALIBRATE_BRIDGE=fit: the staged fit on every modern row, its parameters (copy them into devices.json),
/// the rows' errors by table, and each release left out: its rows predicted by a staged fit on the others.
int calibrateStaged(const std::vector<validation::Row> &rows, QTextStream &out)
{
    const Family all = currentFamily();
    const std::vector<double> start = startValues(all);
    const Score before = score(rows, all.apply(start));
    out << "devices.json on " << rows.size() << " rows: median " << 100 * before.median << "%, worst " << 100 * before.worst << "%\n";
    const std::vector<double> fitted = stagedFit(rows, all, start, 2);
    for (std::size_t i = 0; i < all.parameters.size(); ++i)
        out << "  " << QString::fromStdString(all.parameters[i].name) << " = " << fitted[i] << "  (devices.json " << start[i] << ")\n";
    const Catalog catalog = all.apply(fitted);
    std::map<QString, std::vector<double>> bySource;
    for (const validation::Row &r : rows)
        bySource[r.source].push_back(relativeError(r, catalog));
    for (const auto &[source, errors] : bySource) {
        const Score s = summarise(errors);
        out << "  " << source << " (" << errors.size() << " rows): median " << 100 * s.median << "%, worst " << 100 * s.worst << "%\n";
    }
    if (qEnvironmentVariableIsSet("CALIBRATE_NO_HOLDOUT"))
        return 0;
    std::map<QString, std::vector<double>> pooled;
    std::set<QString> releases;
    for (const validation::Row &r : rows)
        releases.insert(releaseOf(r));
    for (const QString &held : releases) {
        std::vector<validation::Row> train, test;
        for (const validation::Row &r : rows)
            (releaseOf(r) == held ? test : train).push_back(r);
        const Catalog heldCatalog = all.apply(stagedFit(train, all, fitted, 1));
        std::vector<double> dense, moe;
        for (const validation::Row &r : test) {
            const double e = relativeError(r, heldCatalog);
            (r.plan.model.isMoe() ? moe : dense).push_back(e);
            pooled[r.plan.model.isMoe() ? QStringLiteral("moe") : QStringLiteral("dense")].push_back(e);
            pooled[QStringLiteral("all")].push_back(e);
        }
        std::vector<double> both = dense;
        both.insert(both.end(), moe.begin(), moe.end());
        const Score s = summarise(both);
        out << "held out " << held << " (" << test.size() << " rows): median " << 100 * s.median << "%, worst " << 100 * s.worst << "%";
        if (!dense.empty() && !moe.empty())
            out << "; dense " << 100 * summarise(dense).median << "%, MoE " << 100 * summarise(moe).median << "% median";
        out << "\n";
        out.flush();
    }
    for (const auto &[kind, errors] : pooled) {
        const Score s = summarise(errors);
        out << "leave-one-release-out, " << kind << ' ' << errors.size() << " rows: median " << 100 * s.median << "%, worst " << 100 * s.worst
            << "%\n";
    }
    return 0;
}

// --- CALIBRATE_RESIDUALS=<file>: the held-out table of the error bands (core/estimate/Accuracy.h) ---

/// The group of sources whose coverage is checked together (tst_accuracy stepTimeBandsCover).
std::string familyOf(const QString &source)
{
    if (source.startsWith(QLatin1String("bridge")))
        return "bridge";
    if (source.startsWith(QLatin1String("dgxc")) || source == QLatin1String("nemo-long-context"))
        return "dgxc";
    if (source.startsWith(QLatin1String("torchtitan")) || source.startsWith(QLatin1String("llmfoundry-"))
        || source == QLatin1String("automodel") || source == QLatin1String("torchao"))
        return "pytorch";
    if (source == QLatin1String("zero_bubble"))
        return "zero-bubble";
    return "classic";
}

/// The published source a row comes from: a dgxc row's release README (its id ends in the release), a
/// Megatron-Bridge release, torchtitan for either of its tables, or its table. The fit may hold out more at once
/// (all of dgxc).
QString publishedSource(const QString &held, const QString &table, const QString &id)
{
    if (table == QLatin1String("dgxc") || table == QLatin1String("dgxc-moe"))
        return table + QLatin1Char(' ') + id.section(QLatin1Char(' '), -1);
    // torchtitan's async-TP page is torchtitan's own benchmarks folder: one publisher, held out together
    if (table.startsWith(QLatin1String("torchtitan")))
        return QStringLiteral("torchtitan");
    return held;
}

HeldOutRun heldOutRun(const QString &held, const QString &table, const QString &id, const Plan &plan, AccuracyQuantity quantity, double error)
{
    const Estimate e = estimate(plan, io::builtinCatalog(), {false});
    return {publishedSource(held, table, id).toStdString(), familyOf(table), id.toStdString(), quantity, accuracyCoordinates(plan, e), error};
}

double signedError(const validation::Row &row, const Catalog &catalog)
{
    return predicted(row, catalog) / row.measuredSeconds - 1.0;
}

/// The A100/V100 sources, each predicted by a fit on the others (the classic family, from devices.json).
void classicHeldOut(const std::vector<validation::Row> &rows, std::vector<HeldOutRun> &out, QTextStream &log)
{
    const Family family = classicFamily();
    std::set<QString> sources;
    for (const validation::Row &r : rows)
        sources.insert(r.source);
    for (const QString &held : sources) {
        std::vector<validation::Row> train;
        for (const validation::Row &r : rows)
            if (r.source != held)
                train.push_back(r);
        const Catalog catalog = family.apply(fitRows(train, family, startValues(family), 30).values);
        for (const validation::Row &r : rows)
            if (r.source == held)
                out.push_back(heldOutRun(held, r.source, r.id, r.plan, AccuracyQuantity::StepTime, signedError(r, catalog)));
        log << "  held out " << held << '\n';
        log.flush();
    }
}

/// The Hopper and Blackwell rows (dgxc, NeMo long context, Megatron-Bridge), each release predicted by the
/// staged fit on the others, as calibrateStaged() scores them.
void currentHeldOut(const std::vector<validation::Row> &rows, std::vector<HeldOutRun> &out, QTextStream &log)
{
    const Family all = currentFamily();
    std::set<QString> releases;
    for (const validation::Row &r : rows)
        releases.insert(releaseOf(r));
    for (const QString &held : releases) {
        QElapsedTimer timer;
        timer.start();
        std::vector<validation::Row> train;
        for (const validation::Row &r : rows)
            if (releaseOf(r) != held)
                train.push_back(r);
        const Catalog catalog = all.apply(stagedFit(train, all, startValues(all), 1));
        for (const validation::Row &r : rows)
            if (releaseOf(r) == held)
                out.push_back(heldOutRun(held, r.source, r.id, r.plan, AccuracyQuantity::StepTime, signedError(r, catalog)));
        log << "  held out " << held << " (" << timer.elapsed() / 1000 << " s)\n";
        log.flush();
    }
}

int writeResiduals(const QString &path, QTextStream &log)
{
    std::vector<validation::Row> classic, current, unfitted;
    for (validation::Row &r : validation::loadRows()) {
        if (!r.modelled)
            continue;
        const bool modern = r.source == QLatin1String("dgxc") || r.source == QLatin1String("dgxc-moe")
                            || r.source == QLatin1String("nemo-long-context");
        const bool held = r.source == QLatin1String("dgxc-heldout") || r.source == QLatin1String("dgxc-hybrid");
        (modern ? current : held ? unfitted : classic).push_back(std::move(r));
    }
    for (validation::Row &r : validation::loadBridgeRows())
        if (r.modelled) // the hybrid models' and the SFT rows are never fitted: their errors are held-out errors
            (neverFitted(r) ? unfitted : current).push_back(std::move(r));
    for (validation::Row &r : validation::loadPytorchRows())
        if (r.modelled)
            unfitted.push_back(std::move(r));
    for (validation::Row &r : validation::loadBridgeCardRows()) // Megatron-Bridge's verification runs, never fitted
        if (r.modelled)
            unfitted.push_back(std::move(r));
    std::vector<HeldOutRun> out;
    classicHeldOut(classic, out, log);
    if (!qEnvironmentVariableIsSet("CALIBRATE_SKIP_CURRENT"))
        currentHeldOut(current, out, log);
    // Never fitted: their errors under devices.json are held-out errors.
    for (const validation::Row &r : unfitted)
        out.push_back(heldOutRun(r.source, r.source, r.id, r.plan, AccuracyQuantity::StepTime, signedError(r, io::builtinCatalog())));
    for (const validation::MemoryRow &r : validation::loadMemoryRows()) {
        if (!r.modelled)
            continue;
        const MemoryEstimate m = estimate(r.plan, io::builtinCatalog(), {false}).memory;
        const double bytes = r.kind == MemoryKind::Allocated ? m.allocatedBytes : r.kind == MemoryKind::Reserved ? m.reservedBytes : m.deviceBytes;
        out.push_back(heldOutRun(r.source, r.source, r.id, r.plan, AccuracyQuantity::Memory, bytes / r.measuredBytes - 1.0));
    }
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        log << path << ": " << file.errorString() << '\n';
        return 1;
    }
    file.write(QByteArray::fromStdString(heldOutRunsToCsv(out)));
    log << "wrote " << out.size() << " held-out runs to " << path << '\n';
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QTextStream out(stdout);
    if (qEnvironmentVariableIsSet("CALIBRATE_RESIDUALS"))
        return writeResiduals(qEnvironmentVariable("CALIBRATE_RESIDUALS"), out);
    std::vector<validation::Row> rows = validation::loadRows();
    rows.erase(std::remove_if(rows.begin(), rows.end(), [](const auto &r) { return !r.modelled; }), rows.end());
    const auto modern = [](const validation::Row &r) {
        return r.source == QLatin1String("dgxc") || r.source == QLatin1String("dgxc-moe") || r.source == QLatin1String("nemo-long-context");
    };
    if (qEnvironmentVariable("CALIBRATE_BRIDGE") == QLatin1String("dump")) {
        printLargeRows(validation::loadBridgeRows(), io::builtinCatalog(), 0.0, out);
        return 0;
    }
    if (qEnvironmentVariable("CALIBRATE_BRIDGE") == QLatin1String("ops")) { // one row's ops: CALIBRATE_ROW=<id part>
        const QString pattern = qEnvironmentVariable("CALIBRATE_ROW");
        for (const validation::Row &r : validation::loadBridgeRows()) {
            if (!r.id.contains(pattern))
                continue;
            const Estimate e = estimate(r.plan, io::builtinCatalog(), {false});
            out << r.id << ": measured " << r.measuredSeconds << " s, predicted " << e.step.stepSeconds << " s, " << r.plan.microbatches()
                << " micro-batches\n";
            for (const Op &op : e.step.ops)
                out << "  " << toString(op.pass) << ' ' << int(op.scope) << ' ' << int(op.part) << ' ' << op.name << ": " << op.seconds * 1e6
                    << " us, " << op.launches << " launches\n";
            for (std::size_t i = 0; i < kTimeCategoryCount; ++i)
                out << "  " << toString(TimeCategory(i)) << ' ' << e.step.breakdown[i] << '\n';
            break;
        }
        return 0;
    }
    if (qEnvironmentVariable("CALIBRATE_BRIDGE") == QLatin1String("fit")) {
        const auto modernRow = [](const validation::Row &r) {
            return r.source == QLatin1String("dgxc") || r.source == QLatin1String("dgxc-moe") || r.source == QLatin1String("nemo-long-context");
        };
        rows.erase(std::remove_if(rows.begin(), rows.end(), [&](const auto &r) { return !modernRow(r); }), rows.end());
        for (validation::Row &r : validation::loadBridgeRows())
            if (r.modelled && !neverFitted(r)) // the hybrid models' and the SFT rows are not fitted
                rows.push_back(std::move(r));
        return calibrateStaged(rows, out);
    }
    if (qEnvironmentVariableIsSet("CALIBRATE_MODERN")) {
        rows.erase(std::remove_if(rows.begin(), rows.end(), [&](const auto &r) { return !modern(r); }), rows.end());
        // Leave one model family out (the dgxc rows' model names) and the long-context table; with
        // CALIBRATE_GROUP=source one published source out: a release's README of one model (the csv's source
        // column), the long-context table whole.
        const bool bySource = qEnvironmentVariable("CALIBRATE_GROUP") == QLatin1String("source");
        return calibrate(rows, modernFamily(), [bySource](const validation::Row &r) {
            if (r.source == QLatin1String("nemo-long-context"))
                return QStringLiteral("nemo-long-context");
            return bySource ? r.id.section(' ', 1, 3) + ' ' + r.id.section(' ', -1) : r.id.section(' ', 1, 3);
        }, 0.10, out);
    }
    // Held-out rows (later releases) are never fitted, in either family.
    rows.erase(std::remove_if(rows.begin(), rows.end(), [&](const auto &r) {
                   return modern(r) || r.source == QLatin1String("zero-bubble") || r.source == QLatin1String("dgxc-heldout")
                          || neverFitted(r);
               }),
               rows.end());
    if (qEnvironmentVariableIsSet("CALIBRATE_EXCLUDE")) {
        const QString pattern = qEnvironmentVariable("CALIBRATE_EXCLUDE");
        rows.erase(std::remove_if(rows.begin(), rows.end(), [&](const auto &r) { return r.id.contains(pattern); }), rows.end());
    }
    Family classic = classicFamily();
    if (qEnvironmentVariableIsSet("CALIBRATE_OBJECTIVE"))
        classic.objective = qEnvironmentVariable("CALIBRATE_OBJECTIVE") == QLatin1String("squares") ? Objective::Squares : Objective::PseudoHuber;
    return calibrate(rows, classic, [](const validation::Row &r) { return r.source; }, 0.15, out);
}
