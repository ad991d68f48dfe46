#pragma once
// Calibrating a device to measured runs (trainplan calibrate, the window's Tools > Calibrate): the
// device's physical parameters fitted by bounded least squares on the log errors of the measured step
// times, throughputs and memory peaks (core/calibrate/LeastSquares), with a prior: each parameter starts at
// the catalog's value with a stated uncertainty and moves only as far as the measurements require (a
// maximum a posteriori fit); the bounds are the device reader's.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/calibrate/LeastSquares.h"
#include "core/hardware/Catalog.h"
#include "core/plan/Plan.h"
#include "core/profile/ProfileComparison.h"

namespace trainplan {

struct Measurement
{
    std::string label; ///< the row as the user named it (its plan file)
    Plan plan;
    std::optional<double> stepSeconds;
    std::optional<double> tokensPerSecond;
    std::optional<double> peakBytes; ///< compared with the device-used peak (nvidia-smi)
    /// Kernel time per step of kCalibratedKernelClasses on `stage`'s rank, from a profiler trace
    /// (trainplan profile --measurements): compared with the estimate's ops of those classes.
    std::array<std::optional<double>, kCalibratedKernelClasses.size()> kernelSeconds{};
    std::int64_t stage = 0;
};

struct DeviceFit
{
    DeviceSpec device;                        ///< the calibrated device, with its new id
    std::vector<BoundedParameter> parameters; ///< the fitted parameters with their start values and bounds
    std::vector<double> priorSigma;           ///< each one's stated uncertainty about the catalog's value, in its units
    /// The measurements shrink its uncertainty below half the prior's; the others stay near the catalog's value.
    std::vector<bool> identified;
    LeastSquaresFit fit;
    std::vector<std::string> residualLabels;  ///< "plan.json step_seconds", "plan.json gemm_seconds"
    std::vector<double> errorsBefore;         ///< predicted / measured - 1, per residual, with the base device
    std::vector<double> errorsAfter;
    /// Per residual: fitted without its row. Leave-one-out for up to kHeldOutFolds rows; beyond, the rows
    /// are dealt into kHeldOutFolds folds (row i into fold i mod kHeldOutFolds) and each fold is fitted
    /// without, so the cost grows with the rows, not with their square.
    std::vector<double> leaveOneOut;
    std::size_t heldOutFolds = 0;             ///< how many fits without a fold ran (the rows, up to kHeldOutFolds)
    bool cancelled = false;                   ///< the progress callback asked to stop; the fit is incomplete
};

/// The held-out check's folds at most (10-fold cross-validation: each row predicted by a fit on 90% of them).
inline constexpr std::size_t kHeldOutFolds = 10;

/// Told the fits done and the fits in all (the full fit, then one per held-out fold) as the calibration
/// runs, and before every evaluation of the rows; returns false to stop the calibration (DeviceFit::cancelled).
/// May run on the calibrating thread: it must not touch a window.
using CalibrateProgress = std::function<bool(int done, int total)>;

/// Fits `baseId`'s parameters to the measurements (each plan runs on that device); the result is named
/// `newId`. Measurements whose plan is invalid are skipped by the caller (it reads them).
DeviceFit calibrateDevice(const std::vector<Measurement> &measurements, const Catalog &catalog,
                          const std::string &baseId, const std::string &newId, bool leaveOneOut = true,
                          const CalibrateProgress &progress = {});

} // namespace trainplan
