#include "io/plan/JsonReader.h"

#include <QJsonArray>
#include <QJsonValue>

#include <cmath>

namespace trainplan::io {

namespace {
// Integers travel as JSON doubles: beyond 2^53 they are no longer exact.
constexpr double kMaxExactInteger = 9007199254740992.0;

/// Whether a JSON number is a whole number a double still holds exactly.
bool wholeNumber(double d)
{
    return std::isfinite(d) && std::floor(d) == d && std::fabs(d) <= kMaxExactInteger;
}
} // namespace

JsonReader::JsonReader(QJsonObject object, QString path, Problems &problems)
    : m_object(std::move(object)), m_path(std::move(path)), m_problems(&problems)
{
}

bool JsonReader::has(const char *key) const
{
    return m_object.contains(QLatin1String(key));
}

QString JsonReader::keyPath(const char *key) const
{
    return m_path.isEmpty() ? QString::fromLatin1(key) : m_path + QLatin1Char('.') + QLatin1String(key);
}

void JsonReader::error(const char *key, const std::string &message)
{
    m_problems->push_back(wordedProblem(Severity::Error, keyPath(key).toStdString(), message));
}

void JsonReader::requireKey(const char *key)
{
    m_seen.insert(QLatin1String(key));
    if (!has(key))
        error(key, "is required");
}

QJsonValue JsonReader::take(const char *key)
{
    m_seen.insert(QLatin1String(key));
    return m_object.value(QLatin1String(key));
}

const char *JsonReader::typeName(const QJsonValue &value) const
{
    switch (value.type()) {
    case QJsonValue::Null: return "null";
    case QJsonValue::Bool: return "a boolean";
    case QJsonValue::Double: return "a number";
    case QJsonValue::String: return "a string";
    case QJsonValue::Array: return "an array";
    case QJsonValue::Object: return "an object";
    case QJsonValue::Undefined: return "nothing";
    }
    return "?";
}

bool JsonReader::readNumber(const char *key, double &out)
{
    const QJsonValue v = take(key);
    if (v.isUndefined())
        return false;
    if (!v.isDouble()) {
        error(key, std::string("must be a number (got ") + typeName(v) + ")");
        return false;
    }
    const double d = v.toDouble();
    if (!std::isfinite(d)) {
        error(key, "must be a finite number");
        return false;
    }
    out = d;
    return true;
}

bool JsonReader::readNumber(const char *key, std::optional<double> &out)
{
    double d = 0;
    if (!readNumber(key, d))
        return false;
    out = d;
    return true;
}

bool JsonReader::readInteger(const char *key, std::int64_t &out)
{
    const QJsonValue v = take(key);
    if (v.isUndefined())
        return false;
    if (!v.isDouble()) {
        error(key, std::string("must be an integer (got ") + typeName(v) + ")");
        return false;
    }
    const double d = v.toDouble();
    if (!wholeNumber(d)) {
        error(key, "must be an integer (got " + QString::number(d, 'g', 17).toStdString() + ")");
        return false;
    }
    out = std::int64_t(d);
    return true;
}

bool JsonReader::readArray(const char *key, const char *what, const std::function<bool(const QJsonValue &)> &read)
{
    const QJsonValue v = take(key);
    if (v.isUndefined())
        return false;
    if (!v.isArray()) {
        error(key, std::string("must be an array of ") + what + " (got " + typeName(v) + ")");
        return false;
    }
    for (const QJsonValue &e : v.toArray())
        if (!read(e)) {
            error(key, std::string("must be an array of ") + what + " (an element is " + typeName(e) + ")");
            return false;
        }
    return true;
}

bool JsonReader::readIntegerList(const char *key, std::vector<std::int64_t> &out)
{
    std::vector<std::int64_t> values;
    const bool read = readArray(key, "integers", [&](const QJsonValue &e) {
        const double d = e.toDouble(0.5);
        if (!e.isDouble() || !wholeNumber(d))
            return false;
        values.push_back(std::int64_t(d));
        return true;
    });
    if (read)
        out = std::move(values);
    return read;
}

bool JsonReader::readStringList(const char *key, std::vector<std::string> &out)
{
    std::vector<std::string> values;
    const bool read = readArray(key, "strings", [&](const QJsonValue &e) {
        if (!e.isString())
            return false;
        values.push_back(e.toString().toStdString());
        return true;
    });
    if (read)
        out = std::move(values);
    return read;
}

bool JsonReader::readInteger(const char *key, int &out)
{
    std::int64_t value = 0;
    if (!readInteger(key, value))
        return false;
    if (value < -2147483647 || value > 2147483647) {
        error(key, "is out of range");
        return false;
    }
    out = int(value);
    return true;
}

bool JsonReader::readBool(const char *key, bool &out)
{
    const QJsonValue v = take(key);
    if (v.isUndefined())
        return false;
    if (!v.isBool()) {
        error(key, std::string("must be true or false (got ") + typeName(v) + ")");
        return false;
    }
    out = v.toBool();
    return true;
}

bool JsonReader::readString(const char *key, std::string &out)
{
    const QJsonValue v = take(key);
    if (v.isUndefined())
        return false;
    if (!v.isString()) {
        error(key, std::string("must be a string (got ") + typeName(v) + ")");
        return false;
    }
    out = v.toString().toStdString();
    return true;
}

JsonReader JsonReader::object(const char *key)
{
    const QJsonValue v = take(key);
    if (!v.isUndefined() && !v.isObject())
        error(key, std::string("must be an object (got ") + typeName(v) + ")");
    return JsonReader(v.toObject(), keyPath(key), *m_problems);
}

std::vector<JsonReader> JsonReader::objects(const char *key)
{
    std::vector<JsonReader> readers;
    const QJsonValue v = take(key);
    if (v.isUndefined())
        return readers;
    if (!v.isArray()) {
        error(key, std::string("must be an array of objects (got ") + typeName(v) + ")");
        return readers;
    }
    const QJsonArray array = v.toArray();
    for (qsizetype i = 0; i < array.size(); ++i) {
        const QString path = QStringLiteral("%1[%2]").arg(keyPath(key)).arg(i);
        if (!array.at(i).isObject()) {
            m_problems->push_back(wordedProblem(Severity::Error, path.toStdString(),
                                   std::string("must be an object (got ") + typeName(array.at(i)) + ")"));
            continue;
        }
        readers.emplace_back(array.at(i).toObject(), path, *m_problems);
    }
    return readers;
}

void JsonReader::reportUnknownKeys()
{
    for (auto it = m_object.begin(); it != m_object.end(); ++it)
        if (!m_seen.contains(it.key()))
            m_problems->push_back(wordedProblem(Severity::Warning, keyPath(it.key().toUtf8().constData()).toStdString(),
                                   "unknown key, ignored"));
}

} // namespace trainplan::io
