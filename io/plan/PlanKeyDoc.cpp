#include "io/plan/PlanKeyDoc.h"
#include "io/plan/CatalogJson.h"
#include "io/plan/KeyWords.h"

#include <QRegularExpression>
#include <QStringList>

#include "core/plan/Plan.h"
#include "core/plan/PlanKeys.h"
#include "io/plan/ProblemWords.h"

namespace trainplan::io {

namespace {

QString typeText(const PlanKey &key)
{
    switch (key.type) {
    case KeyType::Integer: return QStringLiteral("integer");
    case KeyType::Number: return QStringLiteral("number");
    case KeyType::Bool: return QStringLiteral("bool");
    case KeyType::String: return QStringLiteral("string");
    case KeyType::Array: return QStringLiteral("array");
    case KeyType::IntegerList: return QStringLiteral("array of integers");
    case KeyType::Enum: {
        QStringList spellings;
        for (const KeyChoice &c : key.choices())
            spellings << QStringLiteral("`\"%1\"`").arg(QString::fromStdString(c.spelling));
        return spellings.join(QStringLiteral(" \\| "));
    }
    }
    return {};
}

QString ruleText(const PlanKey &key)
{
    QStringList parts;
    if (*key.unit)
        parts << QString::fromLatin1(key.unit);
    if (const QString range = rangeWords(key); !range.isEmpty())
        parts << range;
    if (key.type == KeyType::String)
        parts << QStringLiteral("at most %1 characters").arg(key.maxLength > 0 ? key.maxLength : kMaxIdLength);
    const KeyWords &words = keyWords(key.path);
    if (*words.rule)
        parts << QString::fromLatin1(words.rule);
    if (*words.tooltip)
        parts << QString::fromLatin1(words.tooltip);
    if (key.searchDimension)
        parts << QStringLiteral("a search dimension (`--fix %1=...`)")
                     .arg(QLatin1String(key.name().data(), qsizetype(key.name().size())));
    return parts.join(QStringLiteral("; ")).replace(QLatin1Char('|'), QStringLiteral("\\|"));
}

/// A literal default (a number, true/false, a quoted spelling) in code type; words as they are.
QString defaultText(const PlanKey &key)
{
    static const QRegularExpression literal(QStringLiteral("^(\"[^\"]*\"|-?[0-9.]+(e[0-9]+)?|true|false)$"));
    const QString text = QString::fromLatin1(keyWords(key.path).defaultText);
    return literal.match(text).hasMatch() ? QStringLiteral("`%1`").arg(text) : text;
}

} // namespace

QString planKeyTable(std::string_view section)
{
    QString table = QStringLiteral("| key | type | default | rule / meaning |\n|---|---|---|---|\n");
    for (const PlanKey &key : planKeys()) {
        if (key.section() != section)
            continue;
        table += QStringLiteral("| `%1` | %2 | %3 | %4 |\n")
                     .arg(QLatin1String(key.name().data(), qsizetype(key.name().size())), typeText(key),
                          defaultText(key), ruleText(key));
    }
    return table;
}

QString presetList()
{
    QStringList items;
    for (const ModelSpec &m : builtinCatalog().models())
        items << QStringLiteral("`%1` (%2)").arg(QString::fromStdString(m.presetId), QString::fromStdString(m.name));
    return items.join(QStringLiteral(", "));
}

QString withGeneratedKeyTables(const QString &markdown)
{
    static const QRegularExpression marked(QStringLiteral("(<!-- plan-keys: ?(\\w*) -->\\n)(.*?)(<!-- /plan-keys -->)"),
                                           QRegularExpression::DotMatchesEverythingOption);
    QString out;
    qsizetype last = 0;
    for (QRegularExpressionMatchIterator it = marked.globalMatch(markdown); it.hasNext();) {
        const QRegularExpressionMatch m = it.next();
        out += markdown.mid(last, m.capturedStart(3) - last);
        out += planKeyTable(m.captured(2).toStdString());
        last = m.capturedStart(4);
    }
    out += markdown.mid(last);
    static const QRegularExpression presets(QStringLiteral("(<!-- presets -->)(.*?)(<!-- /presets -->)"),
                                            QRegularExpression::DotMatchesEverythingOption);
    return out.replace(presets, QStringLiteral("\\1") + presetList() + QStringLiteral("\\3"));
}

} // namespace trainplan::io
