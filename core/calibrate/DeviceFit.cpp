#include "core/calibrate/DeviceFit.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>

#include "core/estimate/Estimate.h"

namespace trainplan {

namespace {

constexpr double kMicro = 1e-6, kGiB = 1024.0 * 1024.0 * 1024.0;

/// The run-to-run spread of a measured step time, throughput or peak: the data residuals' scale against the
/// priors (repeated runs of one job agree to about 1%).
constexpr double kMeasurementSigma = 0.01;

/// Each parameter's stated uncertainty about the catalog's value, relative (docs/CALIBRATION.md, "Your own
/// cluster"): the sustained shares are known to about 10-15% (MAMF over peak differs by that between
/// boards and software), a cluster's link efficiencies to 30% (its own network and NCCL settings), overheads
/// and latencies to a factor of ~1.6, the runtime context to 30%. Order as deviceParameters().
constexpr std::array kPriorSigma{0.10, 0.5, 0.10, 0.15, 0.10, 0.3, 0.5, 0.3, 0.5, 0.3, 0.5, 0.3, 0.3};

/// The parameters and their physical ranges, starting from the base device; the ranges are the device
/// reader's (io/plan/CatalogJson.cpp), so a fitted device is always one the reader accepts.
std::vector<BoundedParameter> deviceParameters(const DeviceSpec &d)
{
    const double peak = d.peakFlops(Precision::BF16) > 0 ? d.peakFlops(Precision::BF16) : d.peakFlops(Precision::FP16);
    const double overhead = d.matmulEfficiency.halfSize / (peak * d.matmulEfficiency.max);
    const auto inside = [](double v, double lo, double hi) {
        return std::clamp(v, lo + 1e-3 * (hi - lo), hi - 1e-3 * (hi - lo));
    };
    std::vector<BoundedParameter> parameters{
        {"matmul_max", inside(d.matmulEfficiency.max, 0.2, 1.0), 0.2, 1.0},
        {"matmul_overhead_us", inside(overhead / kMicro, 0.3, 30), 0.3, 30},
        {"memory_max", inside(d.memoryEfficiency.max, 0.2, 1.0), 0.2, 1.0},
        {"attention_efficiency", inside(d.attentionEfficiency, 0.2, 1.0), 0.2, 1.0},
        {"low_precision_efficiency", inside(d.lowPrecisionEfficiency, 0.3, 1.0), 0.3, 1.0},
        {"intra_node_efficiency", inside(d.intraNodeEfficiency, 0.1, 1.0), 0.1, 1.0},
        {"intra_node_latency_us", inside(d.intraNodeLatencySeconds / kMicro, 0.2, 50), 0.2, 50},
        {"network_efficiency", inside(d.networkEfficiency, 0.05, 1.0), 0.05, 1.0},
        {"network_latency_us", inside(d.networkLatencySeconds / kMicro, 0.5, 100), 0.5, 100},
        {"runtime_context_gib", inside(d.runtimeContextBytes / kGiB, 0.1, 4.0), 0.1, 4.0},
        {"schedule_step_us", inside(d.scheduleStepSeconds / kMicro, 0.0, 2000), 0.0, 2000},
        // NCCL's all-to-all across nodes: from the device's own share, else the rings' it falls back to.
        {"network_alltoall_efficiency",
         inside(d.networkAllToAllEfficiency > 0 ? d.networkAllToAllEfficiency : d.networkEfficiency, 0.05, 1.0), 0.05,
         1.0}};
    // Its share of the scale-up link among many ranks of one domain, where the device has the figure (without
    // it the rings' share stands, and a fitted value would bring in the peer-count law the device does not have).
    if (d.intraNodeAllToAllEfficiency > 0)
        parameters.push_back(
            {"intra_node_alltoall_efficiency", inside(d.intraNodeAllToAllEfficiency, 0.05, 1.0), 0.05, 1.0});
    return parameters;
}

/// Parameter j's prior standard deviation in its own units (relative to the catalog's value; of the range's
/// top for a value of 0).
double priorScale(const BoundedParameter &p, std::size_t j)
{
    return kPriorSigma[j] * (p.value > 0 ? p.value : p.upper);
}

DeviceSpec applyParameters(DeviceSpec d, const std::vector<double> &v)
{
    const double peak = d.peakFlops(Precision::BF16) > 0 ? d.peakFlops(Precision::BF16) : d.peakFlops(Precision::FP16);
    const double memoryOverhead =
        d.memoryEfficiency.halfSize / (d.memoryBandwidthBytesPerSecond * d.memoryEfficiency.max);
    d.matmulEfficiency.max = v[0];
    d.matmulEfficiency.halfSize = v[1] * kMicro * peak * v[0];
    d.memoryEfficiency.max = v[2];
    d.memoryEfficiency.halfSize = memoryOverhead * d.memoryBandwidthBytesPerSecond * v[2];
    d.attentionEfficiency = v[3];
    d.lowPrecisionEfficiency = v[4];
    d.intraNodeEfficiency = v[5];
    d.intraNodeLatencySeconds = v[6] * kMicro;
    d.networkEfficiency = v[7];
    d.networkLatencySeconds = v[8] * kMicro;
    d.runtimeContextBytes = v[9] * kGiB;
    d.scheduleStepSeconds = v[10] * kMicro;
    d.networkAllToAllEfficiency = v[11];
    if (v.size() > 12)
        d.intraNodeAllToAllEfficiency = v[12];
    return d;
}

/// log(predicted / measured) for every measured quantity of the included rows.
Eigen::VectorXd logErrors(const std::vector<Measurement> &rows, const std::vector<bool> &include, const Catalog &base,
                          const DeviceSpec &device)
{
    Catalog catalog = base;
    catalog.addDevice(device);
    std::vector<double> out;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        if (!include[i])
            continue;
        const Measurement &m = rows[i];
        const Estimate e = estimate(m.plan, catalog, EstimateOptions::analytic());
        const auto add = [&](const std::optional<double> &measured, double predicted) {
            if (measured)
                out.push_back(e.valid && predicted > 0 ? std::log(predicted / *measured) : 5.0);
        };
        add(m.stepSeconds, e.step.stepSeconds);
        add(m.tokensPerSecond, e.step.tokensPerSecond);
        add(m.peakBytes, e.memory.peakBytes);
        if (std::none_of(m.kernelSeconds.begin(), m.kernelSeconds.end(), [](const auto &k) { return k.has_value(); }))
            continue;
        const EstimatedProfile profile = estimatedProfile(m.plan, e, m.stage);
        for (std::size_t k = 0; k < kCalibratedKernelClasses.size(); ++k)
            add(m.kernelSeconds[k], profile.busy(kCalibratedKernelClasses[k]));
    }
    return Eigen::Map<Eigen::VectorXd>(out.data(), Eigen::Index(out.size()));
}

/// The prior's residuals: each parameter's distance from the catalog's value in its stated uncertainty.
Eigen::VectorXd priorResiduals(const std::vector<BoundedParameter> &start, const std::vector<double> &v)
{
    Eigen::VectorXd out(Eigen::Index(start.size()));
    for (std::size_t j = 0; j < start.size(); ++j)
        out[Eigen::Index(j)] = (v[j] - start[j].value) / priorScale(start[j], j);
    return out;
}

/// Which parameters the measurements identify: those whose uncertainty they shrink below half the prior's
/// (the posterior variance, in prior units, (J^T J + I)^-1 with J the scaled data residuals' Jacobian).
std::vector<bool> identifiedParameters(const std::vector<BoundedParameter> &start, const std::vector<double> &at,
                                       const std::function<Eigen::VectorXd(const std::vector<double> &)> &data)
{
    const Eigen::VectorXd r0 = data(at);
    const Eigen::Index n = Eigen::Index(start.size());
    Eigen::MatrixXd j(r0.size(), n);
    for (Eigen::Index k = 0; k < n; ++k) {
        std::vector<double> v = at;
        const double step = 1e-3 * priorScale(start[std::size_t(k)], std::size_t(k));
        v[std::size_t(k)] += (v[std::size_t(k)] + step <= start[std::size_t(k)].upper ? step : -step);
        j.col(k) = (data(v) - r0) /
                   ((v[std::size_t(k)] - at[std::size_t(k)]) / priorScale(start[std::size_t(k)], std::size_t(k)));
    }
    const Eigen::MatrixXd posterior = (j.transpose() * j + Eigen::MatrixXd::Identity(n, n)).inverse();
    std::vector<bool> out(start.size());
    for (Eigen::Index k = 0; k < n; ++k)
        out[std::size_t(k)] = posterior(k, k) < 0.25; // the standard deviation halved
    return out;
}

/// Thrown from the residuals when the progress callback asks to stop: it leaves the least-squares loop at once.
struct Cancelled
{
};

/// The fits' progress: `done` of `total` fits, told before every evaluation of the rows.
struct Work
{
    const CalibrateProgress &progress;
    int done = 0, total = 1;
    void check() const
    {
        if (progress && !progress(done, total))
            throw Cancelled{};
    }
};

/// The residual labels in logErrors' order: "plan.json step_seconds", "plan.json gemm_seconds".
std::vector<std::string> residualLabels(const std::vector<Measurement> &rows)
{
    std::vector<std::string> out;
    for (const Measurement &m : rows) {
        for (const auto &[has, what] : {std::pair{m.stepSeconds.has_value(), "step_seconds"},
                                        std::pair{m.tokensPerSecond.has_value(), "tokens_per_second"},
                                        std::pair{m.peakBytes.has_value(), "peak_bytes"}})
            if (has)
                out.push_back(m.label + " " + what);
        for (std::size_t k = 0; k < kCalibratedKernelClasses.size(); ++k)
            if (m.kernelSeconds[k])
                out.push_back(m.label + " " + spellingOf(kCalibratedKernelClasses[k]) + "_seconds");
    }
    return out;
}

using RowResiduals = std::function<Residuals(const std::vector<bool> &include)>;

/// Each row's errors when fitted without its fold (row i in fold i mod folds), in row order, starting from
/// the full fit's values; one fit per fold, so the cost is folds x the full fit's, linear in the rows.
std::vector<double>
heldOutErrors(const std::vector<Measurement> &rows, std::size_t folds, const std::vector<BoundedParameter> &start,
              const RowResiduals &residuals,
              const std::function<Eigen::VectorXd(const std::vector<bool> &, const std::vector<double> &)> &errors,
              Work &work)
{
    std::vector<std::vector<double>> perRow(rows.size());
    for (std::size_t f = 0; f < folds; ++f) {
        std::vector<bool> train(rows.size(), true);
        for (std::size_t i = f; i < rows.size(); i += folds)
            train[i] = false;
        const LeastSquaresFit held = fitLeastSquares(start, residuals(train), 20);
        for (std::size_t i = f; i < rows.size(); i += folds) {
            std::vector<bool> only(rows.size(), false);
            only[i] = true;
            const Eigen::VectorXd r = errors(only, held.values);
            for (Eigen::Index k = 0; k < r.size(); ++k)
                perRow[i].push_back(std::expm1(r[k]));
        }
        ++work.done;
    }
    std::vector<double> out;
    for (const std::vector<double> &r : perRow)
        out.insert(out.end(), r.begin(), r.end());
    return out;
}

} // namespace

DeviceFit calibrateDevice(const std::vector<Measurement> &rows, const Catalog &catalog, const std::string &baseId,
                          const std::string &newId, bool leaveOneOut, const CalibrateProgress &progress)
{
    DeviceFit out;
    const DeviceSpec *base = catalog.device(baseId);
    if (!base)
        return out;
    out.parameters = deviceParameters(*base);
    for (std::size_t j = 0; j < out.parameters.size(); ++j)
        out.priorSigma.push_back(priorScale(out.parameters[j], j));
    const std::vector<bool> all(rows.size(), true);
    const std::size_t folds = leaveOneOut && rows.size() >= 3 ? std::min(rows.size(), kHeldOutFolds) : 0;
    Work work{progress, 0, 1 + int(folds)};
    const auto errors = [&](const std::vector<bool> &include, const std::vector<double> &v) {
        work.check();
        return logErrors(rows, include, catalog, applyParameters(*base, v)); // under the base id the plans name
    };
    // A maximum a posteriori fit: the measurements' log errors in their spread, and each parameter's distance
    // from the catalog in its stated uncertainty; a parameter moves only as far as the data require.
    const auto data = [&](const std::vector<bool> &include) {
        return [&, include](const std::vector<double> &v) -> Eigen::VectorXd {
            return errors(include, v) / kMeasurementSigma;
        };
    };
    const RowResiduals residuals = [&](const std::vector<bool> &include) -> Residuals {
        return [&, include](const std::vector<double> &v) -> Eigen::VectorXd {
            const Eigen::VectorXd d = data(include)(v), prior = priorResiduals(out.parameters, v);
            Eigen::VectorXd r(d.size() + prior.size());
            r << d, prior;
            return r;
        };
    };
    try {
        out.fit = fitLeastSquares(out.parameters, residuals(all));
        out.identified = identifiedParameters(out.parameters, out.fit.values, data(all));
        ++work.done;
        const Eigen::VectorXd before = logErrors(rows, all, catalog, *base), after = errors(all, out.fit.values);
        for (Eigen::Index k = 0; k < before.size(); ++k) {
            out.errorsBefore.push_back(std::expm1(before[k]));
            out.errorsAfter.push_back(std::expm1(after[k]));
        }
        std::vector<BoundedParameter> fitted = out.parameters;
        for (std::size_t p = 0; p < fitted.size(); ++p)
            fitted[p].value = out.fit.values[p];
        out.leaveOneOut = heldOutErrors(rows, folds, fitted, residuals, errors, work);
        out.heldOutFolds = folds;
    } catch (const Cancelled &) {
        out.cancelled = true;
    }
    out.device =
        out.fit.values.empty() ? *base : applyParameters(*base, out.fit.values); // empty when cancelled during the fit
    out.device.id = newId;
    out.device.name = base->name + " (calibrated)";
    out.device.source =
        "calibrated by trainplan calibrate on " + std::to_string(rows.size()) + " measured runs from " + base->id;
    out.residualLabels = residualLabels(rows);
    if (progress && !out.cancelled)
        progress(work.total, work.total);
    return out;
}

} // namespace trainplan
