#include "io/plan/JsonDuplicates.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>
#include <QStringList>

#include <vector>

namespace trainplan::io {

namespace {

/// A JSON string's text as written (escapes kept) from the quote at `i`; `i` ends on the closing quote.
QByteArray rawString(const QByteArray &json, qsizetype &i)
{
    QByteArray text;
    const qsizetype n = json.size();
    for (++i; i < n && json[i] != '"'; ++i) {
        if (json[i] == '\\' && i + 1 < n)
            text += json[i++];
        text += json[i];
    }
    return text;
}

/// The string a raw JSON string means ("a\u0062" -> "ab").
QString unescaped(const QByteArray &raw)
{
    if (!raw.contains('\\'))
        return QString::fromUtf8(raw);
    const QJsonDocument doc = QJsonDocument::fromJson("[\"" + raw + "\"]");
    return doc.isArray() ? doc.array().at(0).toString() : QString::fromUtf8(raw);
}

/// Walks the structure of a JSON text: objects and arrays with the key each value belongs to.
class Scanner
{
public:
    struct Level
    {
        bool object = false;
        QSet<QString> keys;
        QString key; ///< the key whose value this level is (for the path)
    };

    /// Feeds byte `i`; returns the key just read when it is a key, else nothing.
    std::optional<QString> step(const QByteArray &json, qsizetype &i)
    {
        const char c = json[i];
        if (c == '"') {
            const QString text = unescaped(rawString(json, i));
            if (m_expectKey && !m_stack.empty() && m_stack.back().object) {
                m_lastKey = text;
                m_expectKey = false;
                return text;
            }
        } else if (c == '{' || c == '[') {
            const bool inObject = !m_stack.empty() && m_stack.back().object;
            m_stack.push_back({c == '{', {}, inObject ? m_lastKey : QString()});
            m_expectKey = c == '{';
        } else if (c == '}' || c == ']') {
            if (!m_stack.empty())
                m_stack.pop_back();
            m_expectKey = false;
        } else if (c == ',') {
            m_expectKey = !m_stack.empty() && m_stack.back().object;
        }
        return std::nullopt;
    }

    std::vector<Level> &stack() { return m_stack; }
    const QString &lastKey() const { return m_lastKey; }
    bool expectingKey() const { return m_expectKey; }

    QString path(const QString &key) const
    {
        QStringList parts;
        for (std::size_t i = 1; i < m_stack.size(); ++i)
            if (!m_stack[i].key.isEmpty())
                parts << m_stack[i].key;
        parts << key;
        return parts.join('.');
    }

private:
    std::vector<Level> m_stack;
    bool m_expectKey = false;
    QString m_lastKey;
};

} // namespace

std::optional<QString> findDuplicateKey(const QByteArray &json)
{
    Scanner scanner;
    for (qsizetype i = 0; i < json.size(); ++i)
        if (const std::optional<QString> key = scanner.step(json, i)) {
            QSet<QString> &keys = scanner.stack().back().keys;
            if (keys.contains(*key))
                return scanner.path(*key);
            keys.insert(*key);
        }
    return std::nullopt;
}

std::optional<QString> keyPathAt(const QByteArray &json, qsizetype offset)
{
    Scanner scanner;
    bool inValue = false; // after a key's colon, before the next comma or close
    for (qsizetype i = 0; i < json.size() && i < offset; ++i) {
        const char c = json[i];
        if (scanner.step(json, i))
            inValue = false;
        else if (c == ':')
            inValue = true;
        else if (c == ',' || c == '}')
            inValue = false;
    }
    if (!inValue || scanner.lastKey().isEmpty() || scanner.stack().empty() || !scanner.stack().back().object)
        return std::nullopt;
    return scanner.path(scanner.lastKey());
}

} // namespace trainplan::io
