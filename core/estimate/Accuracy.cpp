#include "core/estimate/Accuracy.h"

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <set>
#include <utility>

#include "core/estimate/Estimate.h"

namespace trainplan {

extern const char *const kHeldOutRunsCsv; // generated from resources/accuracy/heldout_runs.csv (core/CMakeLists.txt)

namespace {

constexpr double kCoverage = 0.8;
/// A continuous coordinate more than this factor beyond the comparable runs' range is outside it.
constexpr double kRangeFactor = 2.0;
/// Each dimension the plan lies outside widens the band by this factor: the runs it is compared with then
/// differ from it in something that moves the error. It is the smallest factor, in hundredths, at which a
/// held-out run played outside each categorical dimension is inside its band at least 80% of the time
/// (docs/CALIBRATION.md, "Error bands"; tst_accuracy outsideBandsCover).
constexpr double kOutsideWidening = 1.22;
/// The band of the nearest runs leans towards the band of all runs as a source more would (a prior worth
/// this many sources): runs of one or two sources say little about a third.
constexpr double kPriorSources = 0.3;
/// The nearest runs: log10 distances in GPUs, work per GPU and parameters, and this much for another device
/// of the same generation (a GB200 plan is nearer GB200 runs than B200 ones).
constexpr double kOtherDevice = 0.3;
/// A hybrid Mamba model and a transformer are of other kinds: as far apart as a factor of ten in a coordinate, so
/// that a hybrid plan's nearest runs are hybrid runs wherever the table holds enough of them (57, on four parts), and
/// a transformer's are transformers.
constexpr double kOtherKind = 1.0;

constexpr std::array kCategorical{AccuracyDimension::Precision, AccuracyDimension::Experts,
                                  AccuracyDimension::Framework, AccuracyDimension::Device};

bool sameIn(AccuracyDimension d, const AccuracyCoordinates &a, const AccuracyCoordinates &b)
{
    switch (d) {
    case AccuracyDimension::Device: return !a.generation.empty() && a.generation == b.generation;
    case AccuracyDimension::Framework: return a.framework == b.framework;
    case AccuracyDimension::Experts: return a.moe == b.moe;
    case AccuracyDimension::Precision: return a.precision == b.precision;
    case AccuracyDimension::Gpus:
    case AccuracyDimension::WorkPerGpu:
    case AccuracyDimension::ModelSize:
    case AccuracyDimension::Optimizer:
    case AccuracyDimension::Sharding:
    case AccuracyDimension::Hybrid: break;
    }
    return true;
}

/// Sets of categorical dimensions to let go (bit i: kCategorical[i]), fewest first; of as many, the less
/// telling ones first (the bit order of kCategorical: precision, then dense-or-experts, framework, device).
const std::array<unsigned, 16> &relaxOrder()
{
    static const std::array<unsigned, 16> masks = [] {
        std::array<unsigned, 16> m{};
        for (unsigned i = 0; i < m.size(); ++i)
            m[i] = i;
        std::stable_sort(m.begin(), m.end(), [](unsigned a, unsigned b) {
            return std::popcount(a) != std::popcount(b) ? std::popcount(a) < std::popcount(b) : a < b;
        });
        return m;
    }();
    return masks;
}

/// The categorical dimensions in which a run differs from the plan (bit i: kCategorical[i]).
unsigned differences(const AccuracyCoordinates &a, const AccuracyCoordinates &b)
{
    unsigned bits = 0;
    for (std::size_t i = 0; i < kCategorical.size(); ++i)
        if (!sameIn(kCategorical[i], a, b))
            bits |= 1u << i;
    return bits;
}

double logOf(double v) { return std::log10(std::max(v, 1e-30)); }

/// A run of one quantity's pool with its log10 coordinates, computed once per pool (the distances compare them).
struct PoolRun
{
    const HeldOutRun *run = nullptr;
    double logGpus = 0, logWork = 0, logParameters = 0;
};

PoolRun poolRun(const HeldOutRun &r)
{
    return {&r, logOf(r.at.gpus), logOf(r.at.workPerGpu), logOf(r.at.parameters)};
}

double distance(const AccuracyCoordinates &a, const PoolRun &b)
{
    return std::abs(logOf(a.gpus) - b.logGpus) + std::abs(logOf(a.workPerGpu) - b.logWork)
           + std::abs(logOf(a.parameters) - b.logParameters) + (a.device == b.run->at.device ? 0.0 : kOtherDevice)
           + (a.hybrid == b.run->at.hybrid ? 0.0 : kOtherKind); // a hybrid model's runs are its own neighbours
}

/// The ceil(q (n + 1))-th smallest of n values (split conformal prediction), the largest when that is past n.
double conformalQuantile(std::vector<double> values, double q)
{
    const std::size_t k = std::min(std::size_t(std::ceil(q * double(values.size() + 1))), values.size()) - 1;
    std::nth_element(values.begin(), values.begin() + std::ptrdiff_t(k), values.end());
    return values[k];
}

double median(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

std::vector<double> absoluteErrors(const std::vector<const HeldOutRun *> &runs)
{
    std::vector<double> e;
    e.reserve(runs.size());
    for (const HeldOutRun *r : runs)
        e.push_back(std::abs(r->error));
    return e;
}

struct Selection
{
    std::vector<const HeldOutRun *> nearest;
    double poolBand = 0; ///< the conformal band of every run of the quantity
    std::vector<AccuracyDimension> outside;
};

/// The runs of one quantity a plan can be compared with (those of every source but the one held out), with
/// their coordinates' logarithms, the conformal band of them all, and their categorical coordinates: the
/// distinct combinations (`kinds`, one run standing for each) and each run's.
struct Pool
{
    std::vector<PoolRun> runs;
    std::vector<std::size_t> kindOf;
    std::vector<const AccuracyCoordinates *> kinds;
    std::vector<int> kindRuns;
    double band = 0;
};

Pool makePool(const std::vector<HeldOutRun> &runs, AccuracyQuantity quantity, std::string_view excludeSource)
{
    Pool pool;
    std::vector<double> errors;
    for (const HeldOutRun &r : runs) {
        if (r.quantity != quantity || (!excludeSource.empty() && r.source == excludeSource))
            continue;
        pool.runs.push_back(poolRun(r));
        errors.push_back(std::abs(r.error));
        std::size_t k = 0;
        while (k < pool.kinds.size() && differences(r.at, *pool.kinds[k]) != 0)
            ++k;
        if (k == pool.kinds.size()) {
            pool.kinds.push_back(&r.at);
            pool.kindRuns.push_back(0);
        }
        ++pool.kindRuns[k];
        pool.kindOf.push_back(k);
    }
    if (!errors.empty())
        pool.band = conformalQuantile(std::move(errors), kCoverage);
    return pool;
}

/// The runs that match the plan in every categorical dimension but the fewest let go, and those let go (a
/// bit mask over kCategorical). Of as many dimensions, the set that keeps the most runs is let go: a
/// 16-bit FSDP plan on Hopper with few such runs is compared with 16-bit FSDP runs on other GPUs rather than
/// with FP8 ones on Hopper when the former are more (ties: the earlier in kCategorical's bit order).
std::pair<unsigned, std::vector<const PoolRun *>> comparable(const AccuracyCoordinates &at, const Pool &pool)
{
    std::vector<unsigned> differ(pool.kinds.size());
    std::array<int, 16> kept{}; // runs kept when the mask's dimensions are let go
    for (std::size_t k = 0; k < pool.kinds.size(); ++k) {
        differ[k] = differences(at, *pool.kinds[k]);
        for (unsigned mask = 0; mask < kept.size(); ++mask)
            kept[mask] += (differ[k] & ~mask) == 0 ? pool.kindRuns[k] : 0;
    }
    unsigned chosen = relaxOrder().back(); // fewer than kMinComparable runs in all: every dimension let go
    for (unsigned mask : relaxOrder()) {
        if (kept[mask] >= kMinComparable &&
            (kept[chosen] < kMinComparable || std::popcount(mask) < std::popcount(chosen) ||
             (std::popcount(mask) == std::popcount(chosen) && kept[mask] > kept[chosen])))
            chosen = mask;
    }
    std::vector<const PoolRun *> matched;
    matched.reserve(std::size_t(kept[chosen]));
    for (std::size_t r = 0; r < pool.runs.size(); ++r)
        if ((differ[pool.kindOf[r]] & ~chosen) == 0)
            matched.push_back(&pool.runs[r]);
    return {chosen, std::move(matched)};
}

/// The built-in table's pools, made once: every estimate with view details compares itself with them.
const Pool &builtinPool(AccuracyQuantity quantity)
{
    static const std::array<Pool, 2> pools{makePool(builtinHeldOutRuns(), AccuracyQuantity::StepTime, {}),
                                           makePool(builtinHeldOutRuns(), AccuracyQuantity::Memory, {})};
    return pools[quantity == AccuracyQuantity::Memory ? 1 : 0];
}

/// The runs of a pool the plan is compared with, and the dimensions it lies outside them in.
Selection select(const AccuracyCoordinates &at, const Pool &pool)
{
    Selection s;
    if (pool.runs.empty())
        return s;
    s.poolBand = pool.band;
    auto comparableRuns = comparable(at, pool);
    const unsigned relaxed = comparableRuns.first;
    std::vector<const PoolRun *> &matched = comparableRuns.second;
    for (std::size_t i = 0; i < kCategorical.size(); ++i)
        if (relaxed & (1u << i))
            s.outside.push_back(kCategorical[i]);
    const auto beyond = [&](double AccuracyCoordinates::*field) {
        const auto [lo, hi] =
            std::minmax_element(matched.begin(), matched.end(), [field](const PoolRun *a, const PoolRun *b) {
                return a->run->at.*field < b->run->at.*field;
            });
        return at.*field * kRangeFactor < (*lo)->run->at.*field || at.*field > kRangeFactor * (*hi)->run->at.*field;
    };
    if (beyond(&AccuracyCoordinates::gpus))
        s.outside.push_back(AccuracyDimension::Gpus);
    if (beyond(&AccuracyCoordinates::workPerGpu))
        s.outside.push_back(AccuracyDimension::WorkPerGpu);
    if (beyond(&AccuracyCoordinates::parameters))
        s.outside.push_back(AccuracyDimension::ModelSize);
    if (std::none_of(matched.begin(), matched.end(),
                     [&at](const PoolRun *r) { return r->run->at.optimizer == at.optimizer; }))
        s.outside.push_back(AccuracyDimension::Optimizer);
    if (at.sharded &&
        std::none_of(matched.begin(), matched.end(), [](const PoolRun *r) { return r->run->at.sharded; }))
        s.outside.push_back(AccuracyDimension::Sharding);
    if (at.hybrid && std::none_of(matched.begin(), matched.end(), [](const PoolRun *r) { return r->run->at.hybrid; }))
        s.outside.push_back(AccuracyDimension::Hybrid);
    std::sort(s.outside.begin(), s.outside.end());
    std::vector<std::pair<double, const HeldOutRun *>> byDistance;
    byDistance.reserve(matched.size());
    for (const PoolRun *r : matched)
        byDistance.emplace_back(distance(at, *r), r->run);
    const std::size_t k = std::min<std::size_t>(byDistance.size(), kNearestComparable);
    std::partial_sort(byDistance.begin(), byDistance.begin() + std::ptrdiff_t(k), byDistance.end(),
                      [](const auto &a, const auto &b) { return a.first < b.first; });
    s.nearest.reserve(k);
    for (std::size_t i = 0; i < k; ++i)
        s.nearest.push_back(byDistance[i].second);
    return s;
}

Selection select(const AccuracyCoordinates &at, const std::vector<HeldOutRun> &runs, AccuracyQuantity quantity,
                 std::string_view excludeSource)
{
    if (&runs == &builtinHeldOutRuns() && excludeSource.empty())
        return select(at, builtinPool(quantity));
    return select(at, makePool(runs, quantity, excludeSource));
}

/// The nearest runs' conformal band, leaned towards the pool's by how few sources they come from, and widened
/// for each dimension the plan lies outside.
double band(const Selection &s)
{
    std::set<std::string_view> sources;
    for (const HeldOutRun *r : s.nearest)
        sources.insert(r->source);
    const double n = double(sources.size());
    const double local = conformalQuantile(absoluteErrors(s.nearest), kCoverage);
    return (n * local + kPriorSources * s.poolBand) / (n + kPriorSources) *
           std::pow(kOutsideWidening, double(s.outside.size()));
}

// --- the CSV table ---

std::vector<std::string_view> splitFields(std::string_view line)
{
    std::vector<std::string_view> fields;
    for (std::size_t start = 0;;) {
        const std::size_t comma = line.find(',', start);
        fields.push_back(line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
        if (comma == std::string_view::npos)
            return fields;
        start = comma + 1;
    }
}

bool parseNumber(std::string_view text, double &value)
{
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    return ec == std::errc() && end == text.data() + text.size() && std::isfinite(value);
}

bool parseRun(std::string_view line, HeldOutRun &run)
{
    const std::vector<std::string_view> f = splitFields(line);
    if (f.size() < 13 || f.size() > 16)
        return false;
    // The optimizer and zero3 columns came after the first tables were written: absent, the run trained with
    // Adam and did not shard its parameters.
    const auto optimizer = f.size() >= 14 ? fromString<Optimizer>(f[13]) : std::optional<Optimizer>(Optimizer::Adam);
    // The hybrid column came after those: absent, a transformer.
    if (!optimizer || (f.size() >= 15 && f[14] != "zero3" && f[14] != "-") ||
        (f.size() == 16 && f[15] != "hybrid" && f[15] != "-"))
        return false;
    run.at.optimizer = *optimizer;
    run.at.sharded = f.size() >= 15 && f[14] == "zero3";
    run.at.hybrid = f.size() == 16 && f[15] == "hybrid";
    const auto quantity = fromString<AccuracyQuantity>(f[3]);
    const auto framework = fromString<Framework>(f[6]);
    const auto precision = fromString<PrecisionFamily>(f[8]);
    if (!quantity || !framework || !precision || (f[7] != "dense" && f[7] != "moe"))
        return false;
    run.source = f[0];
    run.family = f[1];
    run.id = f[2];
    run.quantity = *quantity;
    run.at.device = f[4];
    run.at.generation = f[5];
    run.at.framework = *framework;
    run.at.moe = f[7] == "moe";
    run.at.precision = *precision;
    return parseNumber(f[9], run.at.gpus) && parseNumber(f[10], run.at.workPerGpu) &&
           parseNumber(f[11], run.at.parameters) && parseNumber(f[12], run.error) && run.at.gpus > 0 &&
           run.at.workPerGpu > 0 && run.at.parameters > 0;
}

} // namespace

PrecisionFamily precisionFamily(Precision p)
{
    if (p == Precision::NVFP4)
        return PrecisionFamily::Fp4;
    return isLowPrecisionMatmul(p) ? PrecisionFamily::Fp8 : PrecisionFamily::Bits16;
}

AccuracyCoordinates accuracyCoordinates(const Plan &plan, const Estimate &estimate)
{
    AccuracyCoordinates at;
    if (estimate.device) {
        at.device = estimate.device->id;
        at.generation = estimate.device->generation;
    }
    at.framework = plan.training.framework;
    at.moe = plan.model.isMoe();
    at.precision = precisionFamily(plan.training.precision);
    at.gpus = double(estimate.model.gpus);
    at.workPerGpu = estimate.model.gpus > 0 ? estimate.step.modelFlopsPerStep / double(estimate.model.gpus) : 0;
    at.parameters = estimate.model.parameters;
    at.optimizer = plan.training.optimizer;
    at.sharded = plan.parallel.zeroStage >= 3;
    at.hybrid = plan.model.isHybrid();
    return at;
}

std::vector<HeldOutRun> parseHeldOutRuns(std::string_view csv)
{
    std::vector<HeldOutRun> runs;
    bool header = true;
    for (std::size_t start = 0; start < csv.size();) {
        const std::size_t end = std::min(csv.find('\n', start), csv.size());
        std::string_view line = csv.substr(start, end - start);
        start = end + 1;
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        if (std::exchange(header, false) || line.empty() || line.front() == '#')
            continue;
        HeldOutRun run;
        if (parseRun(line, run))
            runs.push_back(std::move(run));
    }
    return runs;
}

std::string heldOutRunsToCsv(const std::vector<HeldOutRun> &runs)
{
    std::string out =
        "source,family,id,quantity,device,generation,framework,moe,precision,gpus,work_per_gpu,parameters,error,"
        "optimizer,zero3,hybrid\n";
    const auto clean = [](std::string s) {
        std::replace(s.begin(), s.end(), ',', ';');
        return s;
    };
    char numbers[160];
    for (const HeldOutRun &r : runs) {
        std::snprintf(numbers, sizeof numbers, "%.6g,%.6g,%.6g,%.5f", r.at.gpus, r.at.workPerGpu, r.at.parameters,
                      r.error);
        out += clean(r.source) + ',' + clean(r.family) + ',' + clean(r.id) + ',' + toString(r.quantity) + ',' +
               clean(r.at.device) + ',' + clean(r.at.generation) + ',' + toString(r.at.framework) + ',' +
               (r.at.moe ? "moe" : "dense") + ',' + toString(r.at.precision) + ',' + numbers + ',' +
               toString(r.at.optimizer) + ',' + (r.at.sharded ? "zero3" : "-") + ',' + (r.at.hybrid ? "hybrid" : "-") +
               '\n';
    }
    return out;
}

const std::vector<HeldOutRun> &builtinHeldOutRuns()
{
    static const std::vector<HeldOutRun> runs = parseHeldOutRuns(kHeldOutRunsCsv);
    return runs;
}

Accuracy assessAccuracy(const AccuracyCoordinates &at, const std::vector<HeldOutRun> &runs,
                        std::string_view excludeSource)
{
    Accuracy a;
    const Selection time = select(at, runs, AccuracyQuantity::StepTime, excludeSource);
    if (time.nearest.empty())
        return a;
    a.assessed = true;
    const std::vector<double> errors = absoluteErrors(time.nearest);
    a.outside = time.outside;
    a.expectedError = median(errors);
    a.band80 = band(time);
    a.comparableRuns = int(time.nearest.size());
    a.validated = a.outside.empty() && a.comparableRuns >= kMinComparable;
    std::set<std::string> sources;
    for (const HeldOutRun *r : time.nearest)
        sources.insert(r->source);
    a.sources.assign(sources.begin(), sources.end());
    const Selection memory = select(at, runs, AccuracyQuantity::Memory, excludeSource);
    if (!memory.nearest.empty()) {
        a.memoryBand80 = band(memory);
        a.memoryComparableRuns = int(memory.nearest.size());
        a.memoryValidated = memory.outside.empty() && a.memoryComparableRuns >= kMinComparable;
    }
    return a;
}

} // namespace trainplan
