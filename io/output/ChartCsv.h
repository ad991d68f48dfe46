#pragma once
// The data behind each chart as CSV (RFC 4180, '.' decimals, full precision), for "Export data" and the
// report: what the chart draws, straight from the Estimate.

#include <QString>

#include "core/estimate/Estimate.h"

namespace trainplan::io {

/// stage, parameters_bytes, gradients_bytes, optimizer_bytes, activations_bytes, other_bytes, peak_bytes,
/// capacity_bytes, fits
QString memoryCsv(const Estimate &e);
/// op, pass, kind, flops, bytes, intensity_flop_per_byte, seconds, achieved_flops_per_second, bound
QString rooflineCsv(const Estimate &e);
/// curve, replicas, step_seconds, speedup, efficiency
QString scalingCsv(const Estimate &e);
/// The whole step's timeline: stage, kind (F, B, W, data_comm, optimizer), microbatch, chunk, start_seconds,
/// end_seconds, microbatches
QString pipelineCsv(const Estimate &e);
/// part, seconds, share, baseline_seconds (empty without a baseline)
QString stepPartsCsv(const Estimate &e, const Estimate *baseline = nullptr);

} // namespace trainplan::io
