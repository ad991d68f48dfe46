#pragma once
// Core's rules in words. Core reports a broken rule as an id with the values it names
// (core/common/Problem.h); this table holds each rule's sentence, translatable in the context
// "Problem" (QCoreApplication::translate), so the window can show it in the user's language and the CLI
// prints the English source. Readers above core write their own words and pass through unchanged.

#include <QString>

#include <string>
#include <string_view>
#include <vector>

#include "core/common/Problem.h"
#include "core/plan/PlanKeys.h"

namespace trainplan::io {

/// The problem in words: its reader's words, or its rule's sentence with its values and the nearby valid
/// values ("Tensor parallel (7) must divide ...; valid values nearby: 2, 4 or 8").
QString problemText(const Problem &problem);
/// problemText() in UTF-8, for the readers and tests that hold std::string.
std::string problemMessage(const Problem &problem);
/// "key: words", with "warning: " in front of a warning (the CLI's and the report's one line per problem).
QString problemLine(const Problem &problem);

/// The key's range in words ("a whole number from 1 to 2^40", "at least 0", "in [0, 1)"); empty when
/// the key has none (core/plan/PlanKeys rangeValues).
QString rangeWords(const PlanKey &key);

/// Every rule id this table words, for the test that each rule core reports has its sentence.
std::vector<std::string_view> wordedRules();

} // namespace trainplan::io
