#pragma once
// The row type of the two-way name tables of other frameworks' files (TorchtitanNames, DeepSpeedNames): a name
// in the file that carries one plan key, how its value reads, and for a choice the file's spellings beside the
// plan's. The reader builds its rules from a table; the writer takes a key's first row.

#include <QString>

#include <span>
#include <string_view>
#include <utility>
#include <vector>

namespace trainplan::io {

enum class NameForm { Integer, Bool, Choice };

struct KeyName
{
    const char *name; ///< the file's (dotted) name: "parallelism.tensor_parallel_degree"
    const char *path; ///< the plan key: "parallel.tensor"
    NameForm form;
    /// Choice: the file's spellings and the plan's ({"Interleaved1F1B", "interleaved"}), read without case.
    std::vector<std::pair<const char *, const char *>> choices = {};
};

/// The key's first row in `table`, the name a writer uses; nullptr when no row carries the key.
const KeyName *firstRow(std::span<const KeyName> table, std::string_view path);
/// The row's first spelling of a plan choice ("Interleaved1F1B" for "interleaved"); empty when none.
QString choiceSpelling(const KeyName &row, std::string_view planValue);

} // namespace trainplan::io
