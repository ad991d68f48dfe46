#include "app/SearchCommand.h"

#include <QJsonDocument>
#include <QRegularExpression>

#include <map>
#include <variant>

#include "app/CommandLine.h"
#include "core/common/Units.h"
#include "io/plan/CatalogJson.h"
#include "io/output/SearchJson.h"
#include "io/plan/ProblemWords.h"

namespace trainplan::cli {

namespace {

const char *kUsage =
    "usage: trainplan search PLAN.json [--top N] [--nodes MIN-MAX] [--min-headroom GIB] [--allow-tight]\n"
    "                        [--reject-uncertain] [--fix KEY=VALUE,...] [--allow-tensor-across-nodes] [--no-offload]\n"
    "                        [--threads N]\n";

bool positiveInt(const QString &text, std::int64_t &out, std::int64_t maximum)
{
    bool ok = false;
    out = text.toLongLong(&ok);
    return ok && out > 0 && out <= maximum;
}

/// The search dimensions, for the help and for a key nobody fixes.
QString dimensionList()
{
    QStringList names;
    for (const PlanKey &key : planKeys())
        if (key.searchDimension)
            names << QString::fromLatin1(key.name().data(), qsizetype(key.name().size()));
    return names.join(QStringLiteral(", "));
}

const PlanKey *searchKey(const QString &name)
{
    for (const PlanKey &key : planKeys())
        if (key.searchDimension &&
            (name == QLatin1String(key.path) || name == QLatin1String(key.name().data(), qsizetype(key.name().size()))))
            return &key;
    return nullptr;
}

/// --nodes N or MIN-MAX.
bool parseNodes(const QString &text, SearchConstraints &c)
{
    const QRegularExpressionMatch m = QRegularExpression(QStringLiteral("^(\\d+)(?:-(\\d+))?$")).match(text);
    std::int64_t lo = 0, hi = 0;
    if (!m.hasMatch() || !positiveInt(m.captured(1), lo, 1 << 20))
        return false;
    if (m.captured(2).isEmpty())
        hi = lo;
    else if (!positiveInt(m.captured(2), hi, 1 << 20))
        return false;
    if (hi < lo)
        return false;
    c.minNodes = lo;
    c.maxNodes = hi;
    return true;
}

} // namespace

bool applyFixes(const QStringList &items, SearchConstraints &constraints, QString *error)
{
    std::map<std::string, QString> fixed; // a dimension given twice is a mistake, never "the last wins"
    for (const QString &item : items) {
        const QString name = item.section(QLatin1Char('='), 0, 0).trimmed();
        const QString text = item.section(QLatin1Char('='), 1).trimmed();
        const PlanKey *key = searchKey(name);
        if (!key || !item.contains(QLatin1Char('='))) {
            *error = QStringLiteral("--fix: '%1' is not KEY=VALUE with a search dimension as the key (%2)")
                         .arg(item, dimensionList());
            return false;
        }
        Problem why;
        const std::optional<KeyValue> value = parseValue(*key, text.toStdString(), &why);
        if (!value) {
            *error = QStringLiteral("--fix: '%1': %2 %3").arg(item, QLatin1String(key->path), io::problemText(why));
            return false;
        }
        if (const auto [it, first] = fixed.emplace(key->path, item); !first) {
            *error = QStringLiteral("--fix: %1 is fixed twice ('%2' and '%3'): fix each dimension once")
                         .arg(QLatin1String(key->path), it->second, item);
            return false;
        }
        constraints.fix(key->path, *value);
    }
    return true;
}

namespace {

/// The search command's options, each added to its command line.
struct SearchOptions
{
    QCommandLineOption top{QStringLiteral("top"), QStringLiteral("Plans to list (1-100000, default 10)."),
                           QStringLiteral("N")};
    QCommandLineOption nodes{QStringLiteral("nodes"), QStringLiteral("Node counts to try: N or MIN-MAX."),
                             QStringLiteral("range")};
    QCommandLineOption headroom{QStringLiteral("min-headroom"),
                                QStringLiteral("Free memory every stage must keep, GiB."), QStringLiteral("GiB")};
    QCommandLineOption fix{
        QStringLiteral("fix"),
        QStringLiteral("Hold dimensions at a value, KEY=VALUE[,...]; keys: %1.").arg(dimensionList()),
        QStringLiteral("KEY=VALUE")};
    QCommandLineOption margin{QStringLiteral("keep-margin"),
                              QStringLiteral("Reject tight plans: each must keep the plan's training.memory_margin of "
                                             "capacity free (the default).")};
    QCommandLineOption noMargin{
        QStringLiteral("allow-tight"),
        QStringLiteral("List tight plans too: those that fit only within the plan's memory margin.")};
    QCommandLineOption uncertain{
        QStringLiteral("reject-uncertain"),
        QStringLiteral("Reject plans that fit as estimated but not at their memory band's upper edge.")};
    QCommandLineOption across{QStringLiteral("allow-tensor-across-nodes"),
                              QStringLiteral("Allow tensor groups larger than a node.")};
    QCommandLineOption noOffload{QStringLiteral("no-offload"), QStringLiteral("Never offload the optimizer state.")};
    QCommandLineOption threads{QStringLiteral("threads"), QStringLiteral("Worker threads (1-256; default: all)."),
                               QStringLiteral("N")};

    explicit SearchOptions(CommandLine &line)
    {
        for (const QCommandLineOption *o :
             {&top, &nodes, &headroom, &margin, &noMargin, &uncertain, &fix, &across, &noOffload, &threads})
            line.addOption(*o);
    }
};

/// The constraints the options set, or the usage error's exit code (its message written) for a malformed one.
std::variant<SearchConstraints, int> constraintsFrom(const CommandLine &line, const SearchOptions &o, QTextStream &err)
{
    SearchConstraints constraints;
    std::int64_t n = 0;
    if (line.isSet(o.top)) {
        if (!positiveInt(line.value(o.top), n, 100000))
            return line.usageError(err, QStringLiteral("--top: must be a whole number from 1 to 100000"));
        constraints.top = std::size_t(n);
    }
    if (line.isSet(o.threads)) {
        if (!positiveInt(line.value(o.threads), n, 256))
            return line.usageError(err, QStringLiteral("--threads: must be a whole number from 1 to 256"));
        constraints.threads = int(n);
    }
    if (line.isSet(o.nodes) && !parseNodes(line.value(o.nodes), constraints))
        return line.usageError(err, QStringLiteral("--nodes: must be N or MIN-MAX with 1 <= MIN <= MAX <= 1048576"));
    if (line.isSet(o.headroom)) {
        bool ok = false;
        const double gib = line.value(o.headroom).toDouble(&ok);
        if (!ok || !(gib >= 0) || gib > 1e6)
            return line.usageError(err, QStringLiteral("--min-headroom: must be a number of GiB >= 0"));
        constraints.minHeadroomBytes = gib * units::GiB;
    }
    if (line.isSet(o.margin) && line.isSet(o.noMargin))
        return line.usageError(err, QStringLiteral("--keep-margin and --allow-tight contradict each other"));
    constraints.keepMemoryMargin = !line.isSet(o.noMargin);
    constraints.rejectUncertainMemory = line.isSet(o.uncertain);
    constraints.allowTensorAcrossNodes = line.isSet(o.across);
    constraints.allowOffload = !line.isSet(o.noOffload);
    QString error;
    QStringList items;
    for (const QString &value : line.values(o.fix))
        items << value.split(QLatin1Char(','), Qt::SkipEmptyParts);
    if (!applyFixes(items, constraints, &error))
        return line.usageError(err, error);
    return constraints;
}

} // namespace

int runSearch(const QStringList &arguments, QTextStream &out, QTextStream &err)
{
    CommandLine line(
        QStringLiteral("search"),
        QStringLiteral("Every plan for the model, batch and cluster, fastest first, as JSON: top plans, the "
                       "Pareto front and the rejected plans by cause.\n") +
            exitCodesHelp(false) + QStringLiteral(" A search with no feasible plan exits 0 and says why."),
        QString::fromLatin1(kUsage));
    const SearchOptions options(line);
    if (const std::optional<int> done = line.parse(arguments, out, err))
        return *done;
    const std::variant<SearchConstraints, int> constraints = constraintsFrom(line, options, err);
    if (const int *exit = std::get_if<int>(&constraints))
        return *exit;

    const std::optional<Plan> plan = readPlanForCommand(line.planPath(), err);
    if (!plan)
        return InvalidInput;
    const Catalog &catalog = io::builtinCatalog();
    const SearchConstraints &c = std::get<SearchConstraints>(constraints);
    const SearchOutcome outcome = searchPlans(*plan, catalog, c);
    if (!outcome.valid) {
        err << line.planPath() << ": " << io::problemLine(outcome.problem) << '\n';
        return InvalidInput;
    }
    out << QJsonDocument(io::searchToJson(outcome, c, catalog)).toJson(QJsonDocument::Indented);
    return Ok;
}

} // namespace trainplan::cli
