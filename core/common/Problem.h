#pragma once
// A problem found in a plan: which key, what rule it breaks. Readers and validators return every
// problem they find instead of stopping at the first, so a user can fix a file in one pass.
//
// Core names the rule and its values, never the sentence: `rule` is a stable id ("tensor.divides_model")
// and `values` the numbers and spellings its words name. io/plan/ProblemWords words it (translatable),
// beside the plan keys' words. Readers above core (io's JSON and file readers) write their own
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
inline Problem ruleProblem(Severity severity, const std::string &key, const std::string &rule,
                           const std::vector<std::string> &values = {}, const std::vector<std::int64_t> &nearby = {})
{
    return {severity, key, {}, rule, values, nearby};
}

/// Words a reader above core wrote itself (io's file and JSON readers), on `key`.
inline Problem wordedProblem(Severity severity, const std::string &key, const std::string &words)
{
    return {severity, key, words, {}, {}, {}};
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
