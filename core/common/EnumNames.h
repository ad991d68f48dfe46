#pragma once
// Each enum's names live in one table next to its definition:
//
//     enum class Recompute { None, Selective, Full };
//     constexpr auto enumNames(Recompute)
//     {
//         return std::array{EnumName{Recompute::None, "none", "None"}, ...};
//     }
//
// spellingOf() gives the spelling (plan files, JSON, CSV), labelOf() the words for people, fromString<E>()
// reads a spelling back.
// Each enum also declares `inline const char *toString(E v) { return spellingOf(v); }`: a plain function,
// so that it and not a generic template is what QTest (and any other caller) finds for the enum.

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace trainplan {

template<typename E>
struct EnumName
{
    E value;
    const char *spelling; ///< as files and the CLI spell it: "zb-h1"
    const char *label;    ///< for people: "Zero bubble (ZB-H1)"
};

template<typename E>
concept NamedEnum = requires(E e) { enumNames(e); };

template<NamedEnum E>
const char *spellingOf(E value)
{
    for (const EnumName<E> &n : enumNames(E{}))
        if (n.value == value)
            return n.spelling;
    return "?";
}

template<NamedEnum E>
const char *labelOf(E value)
{
    for (const EnumName<E> &n : enumNames(E{}))
        if (n.value == value)
            return n.label;
    return "?";
}

template<NamedEnum E>
std::optional<E> fromString(std::string_view spelling)
{
    for (const EnumName<E> &n : enumNames(E{}))
        if (spelling == n.spelling)
            return n.value;
    return std::nullopt;
}

/// Number of values (the table's length).
template<NamedEnum E>
constexpr std::size_t enumCount()
{
    return enumNames(E{}).size();
}

} // namespace trainplan
