#pragma once
// Plan files: {"format": "trainplan-plan", "version": 1, "name", "model", "training", "parallel",
// "cluster"}. Keys and defaults are documented in docs/PLAN_FORMAT.md; they are a public contract:
// extend them, never rename or drop them.

#include <QByteArray>
#include <QString>

#include <optional>

#include "common/Problem.h"
#include "hardware/Catalog.h"
#include "plan/Plan.h"

namespace trainplan::io {

inline constexpr const char *kPlanFormat = "trainplan-plan";
inline constexpr int kPlanVersion = 1;

struct PlanReadResult
{
    std::optional<Plan> plan; ///< set when the file parsed without errors (it may still have warnings)
    Problems problems;        ///< parse errors, unknown-key warnings and validation problems
};

/// Parses and validates. Reading is tolerant (documented defaults for missing optional keys), reports
/// unknown keys as warnings and rejects invalid values with the key's name. Never throws.
PlanReadResult readPlan(const QByteArray &json, const Catalog &catalog);

/// Reads a file (or standard input for "-").
PlanReadResult readPlanFile(const QString &path, const Catalog &catalog);

/// Serialises a plan. A model taken from a preset is written as {"preset": id} plus the keys that differ
/// from the preset, so save -> load -> save gives the same bytes.
QByteArray writePlan(const Plan &plan, const Catalog &catalog);

} // namespace trainplan::io
