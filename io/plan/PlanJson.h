#pragma once
// Plan files: {"format": "trainplan-plan", "version": 1, "name", "model", "training", "parallel",
// "cluster"}. Keys and defaults are documented in docs/PLAN_FORMAT.md; they are a public contract:
// extend them, never rename or drop them.

#include <QByteArray>
#include <QString>

#include <optional>

#include "core/common/Problem.h"
#include "core/hardware/Catalog.h"
#include "core/plan/Plan.h"

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

/// Plans larger than this are refused unread: no plan is near it, and a 100 MB file must not be parsed.
inline constexpr qint64 kMaxPlanBytes = 16 * 1024 * 1024;

/// The bytes of a plan file (or standard input for "-"), at most kMaxPlanBytes; problems say why not.
std::optional<QByteArray> readPlanBytes(const QString &path, Problems &problems);

/// Reads a file (or standard input for "-").
PlanReadResult readPlanFile(const QString &path, const Catalog &catalog);

class JsonReader;
/// Reads the model keys of the plan table (the shape and architecture keys of "model", without "preset")
/// into `model`; a model that came from a preset keeps what the reader does not override. Plan files and
/// the preset catalog (resources/models.json) share it.
void readModelKeys(JsonReader &reader, ModelSpec &model);

/// Serialises a plan. A model taken from a preset is written as {"preset": id} plus the keys that differ
/// from the preset, so save -> load -> save gives the same bytes.
QByteArray writePlan(const Plan &plan, const Catalog &catalog);

} // namespace trainplan::io
