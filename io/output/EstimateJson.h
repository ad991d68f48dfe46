#pragma once
// The CLI's JSON for an estimate. Keys named in issues (model.parameters, memory.peak_bytes,
// memory.capacity_bytes, memory.fits, memory.stages[].{parameters_bytes, gradients_bytes,
// optimizer_bytes, activations_bytes, other_bytes, peak_bytes}) are a public contract.

#include <QJsonArray>
#include <QJsonObject>

#include "core/common/Problem.h"
#include "core/estimate/Estimate.h"

namespace trainplan::io {

inline constexpr const char *kEstimateFormat = "trainplan-estimate";

/// `timeline` adds pipeline.timeline: per stage, every op with kind (F, B, W), micro-batch, chunk, start, end.
QJsonObject estimateToJson(const Plan &plan, const Estimate &estimate, bool timeline = false);

/// The dimensions an estimate lies outside the published runs in, by their JSON names (accuracy.outside).
QJsonArray outsideToJson(const Accuracy &accuracy);

/// One "key: message" string per problem.
QJsonArray problemsToJson(const Problems &problems, Severity severity);

} // namespace trainplan::io
