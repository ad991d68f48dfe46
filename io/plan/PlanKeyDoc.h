#pragma once
// The key tables of docs/PLAN_FORMAT.md, made from the plan's key table (core/plan/PlanKeys). The doc
// marks each generated table with <!-- plan-keys: SECTION --> ... <!-- /plan-keys -->, and the list of model
// presets (resources/models.json) with <!-- presets --> ... <!-- /presets -->; a test fails when the doc and
// the tables disagree, and `trainplan_plandoc docs/PLAN_FORMAT.md` (built with the tests) rewrites them.

#include <QString>

#include <string_view>

namespace trainplan::io {

/// The Markdown table of one section's keys ("" for the root keys).
QString planKeyTable(std::string_view section);

/// The built-in catalog's model presets as a Markdown list: "`id` (name)", comma-separated.
QString presetList();

/// `markdown` with every marked table (and the preset list) replaced by the generated one.
QString withGeneratedKeyTables(const QString &markdown);

} // namespace trainplan::io
