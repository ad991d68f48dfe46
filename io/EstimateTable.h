#pragma once
// `trainplan estimate --format table`: the same numbers as the JSON, for people.

#include <QString>

#include "core/estimate/Estimate.h"

namespace trainplan::io {

QString estimateToTable(const Plan &plan, const Estimate &estimate);

} // namespace trainplan::io
