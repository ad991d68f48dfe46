#pragma once
// Reads one JSON object field by field, recording every problem with its dotted key instead of stopping
// at the first. Missing optional keys keep the caller's default; keys never read are reported as unknown.

#include <QJsonObject>
#include <QSet>
#include <QString>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/common/Problem.h"

namespace trainplan::io {

class JsonReader
{
public:
    /// `path` is the dotted key of this object ("" for the document root, "model", "devices[2]").
    JsonReader(QJsonObject object, QString path, Problems &problems);

    bool has(const char *key) const;
    QString keyPath(const char *key) const;

    /// Each reader leaves `out` untouched when the key is missing; returns whether a valid value was read.
    bool readInteger(const char *key, std::int64_t &out);
    bool readInteger(const char *key, int &out);
    bool readNumber(const char *key, double &out);
    bool readNumber(const char *key, std::optional<double> &out);
    bool readBool(const char *key, bool &out);
    bool readString(const char *key, std::string &out);
    /// An array of integers ([10, 11, 11, 8]); an error names the key for anything else.
    bool readIntegerList(const char *key, std::vector<std::int64_t> &out);
    /// An array of strings; an error names the key for anything else.
    bool readStringList(const char *key, std::vector<std::string> &out);

    /// A nested object; an empty one (and an error) when the key holds something else.
    JsonReader object(const char *key);
    /// The objects of an array of objects, as readers keyed "key[i]"; an error for a non-array value or a
    /// non-object element (that element is skipped). Empty when the key is missing.
    std::vector<JsonReader> objects(const char *key);

    void error(const char *key, const std::string &message);
    void requireKey(const char *key);
    /// Warns about every key that no read*() call asked for.
    void reportUnknownKeys();

private:
    QJsonValue take(const char *key);
    const char *typeName(const QJsonValue &value) const;
    /// An array whose every element `read` accepts (it stores it, or returns false for one it refuses); an error
    /// names the key and `what` ("integers") otherwise. False when missing or refused.
    bool readArray(const char *key, const char *what, const std::function<bool(const QJsonValue &)> &read);

    QJsonObject m_object;
    QString m_path;
    Problems *m_problems;
    QSet<QString> m_seen;
};

} // namespace trainplan::io
