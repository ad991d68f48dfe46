#include "io/interop/KeyNames.h"

namespace trainplan::io {

const KeyName *firstRow(std::span<const KeyName> table, std::string_view path)
{
    for (const KeyName &row : table)
        if (path == row.path)
            return &row;
    return nullptr;
}

QString choiceSpelling(const KeyName &row, std::string_view planValue)
{
    for (const auto &[file, plan] : row.choices)
        if (planValue == plan)
            return QLatin1String(file);
    return {};
}

} // namespace trainplan::io
