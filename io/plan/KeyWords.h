#pragma once
// The words of each plan key, outside core (core/plan/PlanKeys holds what a key is: its type, range, default
// value, editor and access): the editor's label, the noun of the Undo menu ("Change tensor parallelism"), the
// tooltip, the default and the rules that involve other keys as the docs say them. The window and the docs
// read them translated (QCoreApplication::translate, context "PlanKey"); the CLI and docs/PLAN_FORMAT.md
// print the English source.

#include <QString>

#include <span>
#include <string_view>

#include "core/plan/PlanKeys.h"

namespace trainplan::io {

struct KeyWords
{
    const char *path = "";
    const char *label = "";       ///< the editor's label: "Tensor parallel"
    const char *noun = "";        ///< for "Change tensor parallelism" in the Undo menu
    const char *tooltip = "";     ///< what it means, for tooltips and the docs
    const char *defaultText = ""; ///< the default as the docs say it: "1", "GPUs / (tensor x pipeline)", "required"
    const char *rule = "";        ///< rules that involve other keys ("divides model.heads and model.ffn_hidden")
};

/// Every key's words, in the key table's order.
std::span<const KeyWords> allKeyWords();
/// A key's words in the English source; empty words for a path no key has.
const KeyWords &keyWords(std::string_view path);

/// The key's words, translated; empty when it has none.
QString keyLabel(const PlanKey &key);
QString keyNoun(const PlanKey &key);
QString keyTooltip(const PlanKey &key);
QString keyDefaultText(const PlanKey &key);
QString keyRule(const PlanKey &key);

} // namespace trainplan::io
