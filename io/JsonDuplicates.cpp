#include "io/JsonDuplicates.h"

#include <QSet>

#include <vector>

namespace trainplan::io {

std::optional<QString> findDuplicateKey(const QByteArray &json)
{
    struct Level
    {
        bool object;
        QSet<QByteArray> keys;
        QByteArray key; ///< the key whose value this level is (for the path)
    };
    std::vector<Level> stack;
    bool expectKey = false; // inside an object, before a key
    QByteArray lastKey;
    const qsizetype n = json.size();
    const auto path = [&](const QByteArray &key) {
        QStringList parts;
        for (std::size_t i = 1; i < stack.size(); ++i)
            if (!stack[i].key.isEmpty())
                parts << QString::fromUtf8(stack[i].key);
        parts << QString::fromUtf8(key);
        return parts.join('.');
    };
    for (qsizetype i = 0; i < n; ++i) {
        const char c = json[i];
        if (c == '"') {
            QByteArray text;
            for (++i; i < n && json[i] != '"'; ++i) {
                if (json[i] == '\\' && i + 1 < n)
                    text += json[i++];
                text += json[i];
            }
            if (expectKey && !stack.empty() && stack.back().object) {
                if (stack.back().keys.contains(text))
                    return path(text);
                stack.back().keys.insert(text);
                lastKey = text;
                expectKey = false;
            }
        } else if (c == '{' || c == '[') {
            const bool inObject = !stack.empty() && stack.back().object;
            stack.push_back({c == '{', {}, inObject ? lastKey : QByteArray()});
            expectKey = c == '{';
        } else if (c == '}' || c == ']') {
            if (!stack.empty())
                stack.pop_back();
            expectKey = false;
        } else if (c == ',') {
            expectKey = !stack.empty() && stack.back().object;
        }
    }
    return std::nullopt;
}

} // namespace trainplan::io
