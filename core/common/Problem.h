#pragma once
// A problem found in a plan: which key, what rule it breaks. Readers and validators return every
// problem they find instead of stopping at the first, so a user can fix a file in one pass.

#include <string>
#include <vector>

namespace trainplan {

enum class Severity { Error, Warning };

struct Problem
{
    Severity severity = Severity::Error;
    std::string key;     ///< dotted plan key, e.g. "parallel.tensor"; empty for the whole document
    std::string message; ///< the rule, in words, with the offending values

    bool isError() const { return severity == Severity::Error; }
};

using Problems = std::vector<Problem>;

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

/// "key: message" (or just the message when the key is empty).
inline std::string toString(const Problem &p)
{
    std::string out = p.severity == Severity::Warning ? "warning: " : "";
    if (!p.key.empty())
        out += p.key + ": ";
    return out + p.message;
}

} // namespace trainplan
