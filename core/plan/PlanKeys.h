#pragma once
// The plan's keys, described once. Each row names a key of the plan file ("parallel.tensor"), its type,
// range, enum spellings, unit, whether the search may vary it and how the window edits it, and how to read
// and write it in a Plan; its words (label, Undo noun, tooltip, default and cross-key rules as the docs say
// them) are io/plan/KeyWords', outside core. The JSON reader and writer (io/plan/PlanJson), validation
// (core/plan/PlanValidation), the editor (ui/editors), the search's --fix option and the key tables of
// docs/PLAN_FORMAT.md all work from this table, so a new key is one row here, its words in KeyWords.cpp
// and its field in Plan.h.

#include <cstdint>
#include <optional>

#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/common/EnumNames.h"
#include "core/common/Problem.h"

namespace trainplan {

struct Plan;

/// IntegerList: a JSON array of whole numbers in the file, "10, 11, 11, 8" in the window and on the command line
/// (its KeyValue is that text).
enum class KeyType { Integer, Number, Bool, Enum, String, Array, IntegerList };

/// One key's value as the plan file holds it: enums by their spelling; monostate for an absent optional key.
using KeyValue = std::variant<std::monostate, std::int64_t, double, bool, std::string>;

/// How the planner window edits a key.
enum class KeyEditor {
    None,   ///< file only (for now)
    Spin,   ///< a whole number
    Check,  ///< a flag
    Choice, ///< one of the key's choices
    PowerOfTwoSlider,
    Preset, ///< model.preset: the catalog's presets
    Device, ///< cluster.device: the catalog's and the plan's devices
    Text,   ///< a line of text, committed when editing finishes
    Number, ///< a real number shown in displayUnit (value / displayScale)
};

/// The valid range of a number key. Integers are whole numbers in [minimum, maximum].
struct KeyRange
{
    double minimum = 0;
    double maximum = 0;
    bool minimumExclusive = false;
    bool maximumExclusive = false;
    bool bounded() const { return minimum < maximum; }
};

/// One allowed value of a choice key: its spelling in files and its words in the window.
struct KeyChoice
{
    std::string spelling;
    std::string label;
};

/// How a key is read from and written to a Plan.
struct KeyAccess
{
    KeyValue (*get)(const Plan &) = nullptr; ///< nullptr for keys the io layer reads itself (arrays, preset)
    void (*set)(Plan &, const KeyValue &) = nullptr;
};

struct PlanKey
{
    const char *path = "";    ///< "parallel.tensor"
    KeyType type = KeyType::Integer;
    const char *unit = "";    ///< "bytes", "bytes/s", "s", "hours", ... ("" for counts and choices)
    KeyRange range{};         ///< Integer and Number keys
    std::size_t maxLength = 0; ///< String keys: most characters (0: an id, kMaxIdLength)
    bool optional = false;    ///< may be absent (an override): get() gives monostate then
    bool zeroMeansUnset = false; ///< an Integer key whose 0 means "not set": written plans leave it out then
    bool searchDimension = false; ///< `trainplan search --fix` and the search panel may fix it
    KeyEditor editor = KeyEditor::None;
    bool rebalancesData = false;  ///< an edit keeps parallel.data = GPUs / (tensor x pipeline)
    double displayScale = 1;      ///< Number editor: shows value / displayScale ...
    const char *displayUnit = ""; ///< ... with this suffix ("B tokens", "GB/s"); "" for the unit itself
    int displayDecimals = 2;      ///< Number editor: decimals shown
    const std::vector<KeyChoice> &(*choices)() = nullptr; ///< Enum keys (and integer keys edited as a choice)
    KeyAccess access{};

    bool accessible() const { return access.get && access.set; }
    KeyValue get(const Plan &plan) const { return access.get(plan); }
    void set(Plan &plan, const KeyValue &value) const { access.set(plan, value); }
    std::string_view section() const; ///< "parallel" ("" for a root key)
    std::string_view name() const;    ///< "tensor"
};

/// Whether a key means something for this plan: the mixture-of-experts keys only when model.experts > 0,
/// the latent-attention sizes only with model.attention "mla" (the editor shows the others only then).
bool keyApplies(const PlanKey &key, const Plan &plan);

/// An integer list as the window and --set spell it ("10, 11, 11, 8"; commas, spaces optional); nullopt for
/// anything else. Empty text is the empty list.
std::optional<std::vector<std::int64_t>> parseIntegerList(std::string_view text);
/// The list as parseIntegerList reads it: "10, 11, 11, 8".
std::string integerListText(const std::vector<std::int64_t> &values);

/// Every key, in the order the docs and the editor list them (root keys, model, training, parallel,
/// cluster, run).
std::span<const PlanKey> planKeys();
/// nullptr when no key has this path.
const PlanKey *findPlanKey(std::string_view path);
/// The key's position in planKeys() (stable within a build: undo commands merge by it).
int indexOf(const PlanKey &key);

/// The choices of an enum, in its table's order.
template<NamedEnum E>
const std::vector<KeyChoice> &choicesOf()
{
    static const std::vector<KeyChoice> choices = [] {
        std::vector<KeyChoice> out;
        for (const EnumName<E> &n : enumNames(E{}))
            out.push_back({n.spelling, n.label});
        return out;
    }();
    return choices;
}

/// The rule a value breaks (rule "range" or "choice.unknown", on key.path; io/plan/ProblemWords words
/// it: "must be a whole number from 1 to 4096 (got 5000)"); nullopt when it keeps the key's range and
/// choices. Cross-key rules are validatePlan()'s.
std::optional<Problem> checkValue(const PlanKey &key, const KeyValue &value);

/// Rule "text.too_long" (values: the maximum, the length; no key) when `text` (UTF-8) has more than
/// `maximum` characters.
std::optional<Problem> checkLength(std::string_view text, std::size_t maximum);

/// The key's range as rule values: its kind ("at_least", "greater_than", "whole_number", or the
/// interval's brackets "[)", "[]", "(]", "()") and bounds in boundText's form; empty when unbounded.
std::vector<std::string> rangeValues(const PlanKey &key);

/// A range bound as the docs write it: "2^40" for large powers of two, whole numbers plainly, else "1e12".
std::string boundText(double v);

/// Parses `text` as a value of the key (a number, true/false, or one of the choices); nullopt with the
/// rule it breaks (on key.path) when it is not one.
std::optional<KeyValue> parseValue(const PlanKey &key, std::string_view text, Problem *problem);

/// A value in the plan file's spelling: "8", "0.05", "true", "1f1b".
std::string formatValue(const KeyValue &value);

} // namespace trainplan
