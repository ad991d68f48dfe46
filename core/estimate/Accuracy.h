#pragma once
// How far off an estimate may be (issue 37): an empirical error band from the published runs Trainplan was
// validated on, each predicted with its own source held out of the calibration (the held-out table,
// resources/accuracy/heldout_runs.csv, written by trainplan_calibrate's CALIBRATE_RESIDUALS mode).
//
// A plan's comparable runs share its device generation, framework, dense-or-experts and precision family
// where at least kMinComparable such runs exist; otherwise the fewest of those dimensions are let go, of as
// many the set that keeps the most runs (the plan is then outside the validated territory in them). Of those, the
// nearest in scale (GPUs), work per GPU and model size are taken. The band is a split-conformal quantile of their
// held-out absolute errors (the ceil(0.8 (n + 1))-th smallest of n: at least 80% coverage for a run drawn like them,
// wider for fewer runs), widened once more for each dimension the plan lies outside (docs/CALIBRATION.md, "Error
// bands").

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/EnumNames.h"
#include "core/common/Precision.h"
#include "core/plan/PlanEnums.h"

namespace trainplan {

struct Plan;
struct Estimate;

/// What a held-out error measures: the step time (and throughput, its inverse) or the per-GPU memory peak.
enum class AccuracyQuantity { StepTime, Memory };
constexpr auto enumNames(AccuracyQuantity)
{
    using N = EnumName<AccuracyQuantity>;
    return std::array{N{AccuracyQuantity::StepTime, "time", "Step time"},
                      N{AccuracyQuantity::Memory, "memory", "Memory peak"}};
}
inline const char *toString(AccuracyQuantity v) { return spellingOf(v); }

/// The precision families whose errors differ: 16-bit (and wider) matmuls, the FP8 formats, FP4.
enum class PrecisionFamily { Bits16, Fp8, Fp4 };
constexpr auto enumNames(PrecisionFamily)
{
    using N = EnumName<PrecisionFamily>;
    return std::array{N{PrecisionFamily::Bits16, "16-bit", "16-bit"}, N{PrecisionFamily::Fp8, "fp8", "FP8"},
                      N{PrecisionFamily::Fp4, "fp4", "FP4"}};
}
inline const char *toString(PrecisionFamily v) { return spellingOf(v); }
PrecisionFamily precisionFamily(Precision p);

/// The dimensions in which a plan can lie outside the validated territory (JSON accuracy.outside).
enum class AccuracyDimension
{
    Device,
    Framework,
    Experts,
    Precision,
    Gpus,
    WorkPerGpu,
    ModelSize,
    Optimizer,
    Sharding,
    Hybrid
};
constexpr auto enumNames(AccuracyDimension)
{
    using N = EnumName<AccuracyDimension>;
    return std::array{N{AccuracyDimension::Device, "device", "device"},
                      N{AccuracyDimension::Framework, "framework", "framework"},
                      N{AccuracyDimension::Experts, "moe", "model kind (dense or experts)"},
                      N{AccuracyDimension::Precision, "precision", "precision"},
                      N{AccuracyDimension::Gpus, "gpus", "number of GPUs"},
                      N{AccuracyDimension::WorkPerGpu, "work_per_gpu", "work per GPU"},
                      N{AccuracyDimension::ModelSize, "model_size", "model size"},
                      N{AccuracyDimension::Optimizer, "optimizer", "optimizer"},
                      N{AccuracyDimension::Sharding, "sharding", "sharded parameters (ZeRO-3)"},
                      N{AccuracyDimension::Hybrid, "hybrid", "Mamba-2 blocks (a hybrid model)"}};
}
inline const char *toString(AccuracyDimension v) { return spellingOf(v); }

/// Where a plan (or a published run) sits in the dimensions that move the error.
struct AccuracyCoordinates
{
    std::string device;     ///< catalog id of the pacing device
    std::string generation; ///< its generation (devices.json "generation"); empty: unknown
    Framework framework = Framework::Megatron;
    bool moe = false;
    PrecisionFamily precision = PrecisionFamily::Bits16;
    double gpus = 0;
    double workPerGpu = 0; ///< model FLOP per GPU per step
    double parameters = 0; ///< total parameters
    /// The optimizer (the held-out table's last column; Adam where a line has none): a plan whose optimizer no
    /// comparable run trained with lies outside them in its optimizer step.
    Optimizer optimizer = Optimizer::Adam;
    /// The parameters sharded over the data-parallel ranks (ZeRO-3, FSDP, Megatron-FSDP; the held-out table's
    /// zero3 column, false where a line has none): a sharded plan no comparable run sharded lies outside them
    /// in how its parameters move (every such published run is a dense model).
    bool sharded = false;
    /// A hybrid Mamba-Transformer model (model.hybrid_pattern; the held-out table's hybrid column): its Mamba-2
    /// blocks are modelled from their kernels and never fitted, so its band comes from the hybrid runs (NVIDIA's
    /// Nemotron 3 Nano and Super rows), which a transformer's leaves aside, and a hybrid plan with none among its
    /// comparable runs lies outside them.
    bool hybrid = false;

    friend bool operator==(const AccuracyCoordinates &, const AccuracyCoordinates &) = default;
};

/// A published run with its error when its source was held out of the calibration.
struct HeldOutRun
{
    std::string source; ///< the published source held out as one (a release's README, a paper's table)
    std::string family; ///< the group of sources the coverage is checked on (classic, dgxc, bridge, pytorch, ...)
    std::string id;
    AccuracyQuantity quantity = AccuracyQuantity::StepTime;
    AccuracyCoordinates at;
    double error = 0; ///< (predicted - measured) / measured, its source held out
};

struct Accuracy
{
    bool assessed = false;      ///< false: no held-out runs to compare with (an invalid plan)
    double expectedError = 0;   ///< median |error| of the comparable runs, a fraction
    double band80 = 0;          ///< the relative error 80% of runs like this stay within, a fraction
    int comparableRuns = 0;
    std::vector<std::string> sources; ///< the published sources of the comparable runs
    bool validated = false;     ///< enough comparable runs, and the plan inside their territory
    std::vector<AccuracyDimension> outside;
    double memoryBand80 = 0;    ///< the same for the per-GPU memory peak
    int memoryComparableRuns = 0;
    bool memoryValidated = false;
};

/// Fewer comparable runs than this: the plan is not validated, and a dimension is let go to find them.
inline constexpr int kMinComparable = 8;
/// The nearest comparable runs the band is taken over.
inline constexpr int kNearestComparable = 30;

/// The coordinates of a valid estimate of `plan`.
AccuracyCoordinates accuracyCoordinates(const Plan &plan, const Estimate &estimate);

/// The held-out table: one run per line, "source,family,id,quantity,device,generation,framework,moe,
/// precision,gpus,work_per_gpu,parameters,error,optimizer" after a header line (a line without the optimizer is an
/// Adam run). Lines that do not parse are skipped.
std::vector<HeldOutRun> parseHeldOutRuns(std::string_view csv);
std::string heldOutRunsToCsv(const std::vector<HeldOutRun> &runs);

/// The runs compiled into the program (resources/accuracy/heldout_runs.csv).
const std::vector<HeldOutRun> &builtinHeldOutRuns();

/// The band for a plan at `at`, from `runs` of every source but `excludeSource` (empty: all; the coverage
/// check excludes a run's own source).
Accuracy assessAccuracy(const AccuracyCoordinates &at, const std::vector<HeldOutRun> &runs,
                        std::string_view excludeSource = {});

} // namespace trainplan
