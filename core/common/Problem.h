#pragma once
// A problem found in a plan: which key, what rule it breaks. Readers and validators return every
// problem they find instead of stopping at the first, so a user can fix a file in one pass.
//
// Core names the rule and its values, never the sentence: `rule` is a stable id ("tensor.divides_model")
// and `values` the numbers and spellings its words name. io/output/ProblemWords words it (translatable),
// next to the estimate's other evidence. Readers above core (io's JSON and file readers) write their own
// words into `words` and leave the rule empty.

#include <cstdint>
#include <string>
#include <vector>

namespace trainplan {

enum class Severity { Error, Warning };

struct Problem
{
    Severity severity = Severity::Error;
    std::string key;                  ///< dotted plan key, e.g. "parallel.tensor"; empty for the whole document
    std::string words;                ///< a reader's own words (io); empty for core's rules
    std::string rule;                 ///< core's rule id; its sentence is io::problemText's
    std::vector<std::string> values;  ///< the values the rule's words name, in their order
    std::vector<std::int64_t> nearby; ///< valid values near the offending one, for a suggestion (may be empty)

    bool isError() const { return severity == Severity::Error; }
};

using Problems = std::vector<Problem>;

/// A rule of core broken by `key`, with the values its words name.
inline Problem ruleProblem(Severity severity, std::string key, std::string rule, std::vector<std::string> values = {},
                           std::vector<std::int64_t> nearby = {})
{
    return {severity, std::move(key), {}, std::move(rule), std::move(values), std::move(nearby)};
}

/// Words a reader above core wrote itself (io's file and JSON readers), on `key`.
inline Problem wordedProblem(Severity severity, std::string key, std::string words)
{
    return {severity, std::move(key), std::move(words), {}, {}, {}};
}

inline bool hasErrors(const Problems &problems)
{
    for (const Problem &p : problems)
        if (p.isError())
            return true;
    return false;
}

/// The first error, or nullptr.
inline const Problem *firstError(const Problems &problems)
{
    for (const Problem &p : problems)
        if (p.isError())
            return &p;
    return nullptr;
}

} // namespace trainplan
