#include "io/measure/KinetoTrace.h"

#include "io/common/SafeFile.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <map>
#include <string>

#include <zlib.h>

namespace trainplan::io {

namespace {

constexpr double kMicro = 1e-6;

void appendUtf8(std::string &out, unsigned code)
{
    if (code < 0x80) {
        out.push_back(char(code));
    } else if (code < 0x800) {
        out.push_back(char(0xC0 | (code >> 6)));
        out.push_back(char(0x80 | (code & 0x3F)));
    } else if (code < 0x10000) {
        out.push_back(char(0xE0 | (code >> 12)));
        out.push_back(char(0x80 | ((code >> 6) & 0x3F)));
        out.push_back(char(0x80 | (code & 0x3F)));
    } else {
        out.push_back(char(0xF0 | (code >> 18)));
        out.push_back(char(0x80 | ((code >> 12) & 0x3F)));
        out.push_back(char(0x80 | ((code >> 6) & 0x3F)));
        out.push_back(char(0x80 | (code & 0x3F)));
    }
}

/// One trace event's fields that matter; the rest of the object is skipped.
struct RawEvent
{
    std::string ph, cat, name;
    std::optional<double> ts, dur;
    std::optional<double> pid, device; ///< numbers, or numeric strings
};

/// Counts of the events skipped, for one warning each.
struct Skipped
{
    int noTime = 0;    ///< a kernel or copy without a finite ts and a non-negative dur
    int noName = 0;    ///< a kernel without a name
    int notObject = 0; ///< an element of traceEvents that is not an object
};

/// What the events say, gathered while they stream by: kernels, and the step spans by name (CPU-side and
/// GPU-side apart).
struct Collector
{
    TraceInput trace;
    std::map<std::string, std::pair<double, double>> steps, gpuSteps;
    Skipped skipped;

    void add(RawEvent &e)
    {
        if (e.ph != "X")
            return;
        std::transform(e.cat.begin(), e.cat.end(), e.cat.begin(),
                       [](unsigned char c) { return char(std::tolower(c)); });
        const bool kernel = e.cat == "kernel", copy = e.cat == "gpu_memcpy" || e.cat == "gpu_memset";
        const bool timed = e.ts && e.dur && std::isfinite(*e.ts) && *e.dur >= 0 && std::isfinite(*e.dur);
        if (e.name.rfind("ProfilerStep#", 0) == 0 && timed) {
            (e.cat.rfind("gpu", 0) == 0 ? gpuSteps : steps)[e.name] = {*e.ts * kMicro, *e.dur * kMicro};
            return;
        }
        if (!kernel && !copy)
            return;
        if (!timed) {
            ++skipped.noTime;
            return;
        }
        if (e.name.empty() && kernel) {
            ++skipped.noName;
            return;
        }
        const double d = e.device.value_or(e.pid.value_or(0.0));
        trace.kernels.push_back({std::move(e.name), *e.ts * kMicro, *e.dur * kMicro,
                                 std::isfinite(d) && std::abs(d) < 1e6 ? int(d) : 0, copy});
    }
};

/// A streaming reader of the Chrome trace JSON: each event's fields are read as it passes and nothing
/// else is kept (a QJsonDocument of a 190 MB trace takes 6 s and gigabytes; this takes a fraction).
/// Strict JSON; on a syntax error `error` holds what and where.
class TraceScanner
{
public:
    TraceScanner(const char *begin, const char *end) : m_begin(begin), m_at(begin), m_end(end) {}

    /// The document: an object with "traceEvents", or a bare array of events.
    bool scan(Collector &out)
    {
        ws();
        if (peek() == '[') {
            if (!events(out))
                return false;
        } else if (peek() == '{') {
            ++m_at;
            bool found = false;
            if (!members([&](const std::string &key) {
                    if (key != "traceEvents")
                        return skip();
                    found = true;
                    return events(out);
                }))
                return false;
            if (!found)
                return fail("no \"traceEvents\" array");
        } else {
            return fail("expected an object or an array");
        }
        ws();
        return m_at == m_end || fail("content after the document");
    }
    QString error() const { return m_error; }

private:
    char peek() const { return m_at < m_end ? *m_at : '\0'; }
    void ws()
    {
        while (m_at < m_end && (*m_at == ' ' || *m_at == '\n' || *m_at == '\r' || *m_at == '\t'))
            ++m_at;
    }
    bool fail(const char *what)
    {
        if (m_error.isEmpty())
            m_error = QStringLiteral("%1 at byte %2").arg(QLatin1String(what)).arg(qint64(m_at - m_begin));
        return false;
    }
    bool expect(char c)
    {
        ws();
        if (peek() != c)
            return fail(c == ':' ? "expected ':'" : c == ']' ? "expected ']'" : "expected a character");
        ++m_at;
        return true;
    }

    /// An object's members after its '{': `member(key)` reads each value.
    template<typename F>
    bool members(F &&member)
    {
        ws();
        if (peek() == '}') {
            ++m_at;
            return true;
        }
        for (;;) {
            ws();
            std::string key;
            if (!string(&key) || !expect(':'))
                return false;
            ws();
            if (!member(key))
                return false;
            ws();
            if (peek() == ',') {
                ++m_at;
                continue;
            }
            if (peek() == '}') {
                ++m_at;
                return true;
            }
            return fail("expected ',' or '}' in an object");
        }
    }

    bool events(Collector &out)
    {
        ws();
        if (peek() != '[')
            return fail("\"traceEvents\" is not an array");
        ++m_at;
        return elements([&] {
            if (peek() != '{') {
                ++out.skipped.notObject;
                return skip();
            }
            ++m_at;
            RawEvent e;
            if (!members([&](const std::string &key) { return field(key, e); }))
                return false;
            out.add(e);
            return true;
        });
    }

    bool field(const std::string &key, RawEvent &e)
    {
        if (key == "ph" || key == "cat" || key == "name") {
            if (peek() != '"') {
                (key == "name" ? e.name : key == "cat" ? e.cat : e.ph).clear();
                return skip();
            }
            return string(key == "name" ? &e.name : key == "cat" ? &e.cat : &e.ph);
        }
        if (key == "ts" || key == "dur" || key == "pid")
            return numberOrSkip(key == "ts" ? e.ts : key == "dur" ? e.dur : e.pid, key == "pid");
        if (key == "args" && peek() == '{') {
            ++m_at;
            return members(
                [&](const std::string &arg) { return arg == "device" ? numberOrSkip(e.device, true) : skip(); });
        }
        return skip();
    }

    /// A number (or, with `strings`, a numeric string) into `out`; anything else is skipped and leaves it empty.
    bool numberOrSkip(std::optional<double> &out, bool strings)
    {
        out.reset();
        if (peek() == '-' || (peek() >= '0' && peek() <= '9')) {
            double v = 0;
            if (!number(&v))
                return false;
            out = v;
            return true;
        }
        if (strings && peek() == '"') {
            std::string text;
            if (!string(&text))
                return false;
            double v = 0;
            const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
            if (ec == std::errc() && end == text.data() + text.size())
                out = v;
            return true;
        }
        return skip();
    }

    /// A number. Leniently, as Qt's parser: "100." and ".5" are read too.
    bool number(double *out)
    {
        const char *start = m_at;
        if (peek() == '-')
            ++m_at;
        const auto digits = [this] {
            const char *from = m_at;
            while (m_at < m_end && *m_at >= '0' && *m_at <= '9')
                ++m_at;
            return m_at > from;
        };
        bool any = digits();
        if (peek() == '.') {
            ++m_at;
            any = digits() || any;
        }
        if (!any)
            return fail("expected a number");
        if (peek() == 'e' || peek() == 'E') {
            ++m_at;
            if (peek() == '+' || peek() == '-')
                ++m_at;
            if (!digits())
                return fail("expected an exponent");
        }
        if (!out)
            return true;
        double v = 0;
        auto [end, ec] = std::from_chars(start, m_at, v);
        if (end != m_at && ec != std::errc::result_out_of_range) { // "100." or ".5": spelt out in full
            std::string token(start, m_at);
            if (const std::size_t dot = token.find('.'); dot != std::string::npos) {
                if (dot + 1 == token.size() || !std::isdigit(static_cast<unsigned char>(token[dot + 1])))
                    token.insert(dot + 1, "0");
                if (dot == 0 || !std::isdigit(static_cast<unsigned char>(token[dot - 1])))
                    token.insert(dot, "0");
            }
            ec = std::from_chars(token.data(), token.data() + token.size(), v).ec;
        }
        *out = ec == std::errc::result_out_of_range ? HUGE_VAL : v;
        return true;
    }

    /// A string after its opening quote is checked here; `out` (if any) receives it as UTF-8.
    bool string(std::string *out)
    {
        if (peek() != '"')
            return fail("expected a string");
        ++m_at;
        for (;;) {
            const char *run = m_at;
            // Raw control characters are taken as they are, as Qt's parser does (strict JSON refuses them).
            while (m_at < m_end && *m_at != '"' && *m_at != '\\')
                ++m_at;
            if (out)
                out->append(run, std::size_t(m_at - run));
            if (m_at >= m_end)
                return fail("unterminated string");
            if (*m_at == '"') {
                ++m_at;
                return true;
            }
            ++m_at; // the backslash
            if (!escape(out))
                return false;
        }
    }

    bool escape(std::string *out)
    {
        if (m_at >= m_end)
            return fail("unterminated string");
        const char c = *m_at++;
        static const std::pair<char, char> simple[] = {{'"', '"'},  {'\\', '\\'}, {'/', '/'},  {'b', '\b'},
                                                       {'f', '\f'}, {'n', '\n'},  {'r', '\r'}, {'t', '\t'}};
        for (const auto &[from, to] : simple)
            if (c == from) {
                if (out)
                    out->push_back(to);
                return true;
            }
        if (c != 'u') { // an unknown escape stands for its character, as Qt's parser reads it
            if (out)
                out->push_back(c);
            return true;
        }
        unsigned code = 0;
        if (!hex4(code))
            return false;
        if (code >= 0xD800 && code < 0xDC00 && m_end - m_at >= 6 && m_at[0] == '\\' && m_at[1] == 'u') {
            m_at += 2;
            unsigned low = 0;
            if (!hex4(low))
                return false;
            code = (low >= 0xDC00 && low < 0xE000) ? 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00) : 0xFFFD;
        }
        if (out)
            appendUtf8(*out, code >= 0xD800 && code < 0xE000 ? 0xFFFD : code);
        return true;
    }

    bool hex4(unsigned &code)
    {
        if (m_end - m_at < 4)
            return fail("short \\u escape");
        for (int i = 0; i < 4; ++i) {
            const char h = *m_at++;
            const int v = h >= '0' && h <= '9'   ? h - '0'
                          : h >= 'a' && h <= 'f' ? h - 'a' + 10
                          : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                                 : -1;
            if (v < 0)
                return fail("bad \\u escape");
            code = code * 16 + unsigned(v);
        }
        return true;
    }

    /// Any value, checked and dropped.
    bool skip()
    {
        ws();
        if (++m_depth > 2000) // beyond Qt's own limit (1024), so what it reads this reads too
            return fail("nested too deeply");
        bool ok = false;
        switch (peek()) {
        case '"': ok = string(nullptr); break;
        case '{':
            ++m_at;
            ok = members([this](const std::string &) { return skip(); });
            break;
        case '[':
            ++m_at;
            ok = elements([this] { return skip(); });
            break;
        case 't': ok = literal("true"); break;
        case 'f': ok = literal("false"); break;
        case 'n': ok = literal("null"); break;
        default: ok = number(nullptr); break;
        }
        --m_depth;
        return ok;
    }

    /// An array's elements after its '[': `element()` reads each.
    template<typename F>
    bool elements(F &&element)
    {
        ws();
        if (peek() == ']') {
            ++m_at;
            return true;
        }
        for (;;) {
            ws();
            if (!element())
                return false;
            ws();
            if (peek() == ',') {
                ++m_at;
                continue;
            }
            return expect(']');
        }
    }

    bool literal(std::string_view word)
    {
        if (std::size_t(m_end - m_at) < word.size() || std::string_view(m_at, word.size()) != word)
            return fail("unexpected character");
        m_at += word.size();
        return true;
    }

    const char *m_begin, *m_at, *m_end;
    int m_depth = 0;
    QString m_error;
};

} // namespace

TraceReadResult parseKinetoTrace(const QByteArray &raw, const QString &name)
{
    TraceReadResult out;
    QByteArray bytes = raw;
    if (raw.startsWith("\x1f\x8b")) {
        QString error;
        std::optional<QByteArray> inflated = inflateGzip(raw, kMaxTraceBytes, &error);
        if (!inflated) {
            out.error = QStringLiteral("%1: %2").arg(name, error);
            return out;
        }
        bytes = std::move(*inflated);
    }
    Collector collected;
    TraceScanner scanner(bytes.constData(), bytes.constData() + bytes.size());
    if (!scanner.scan(collected)) {
        const QString error = scanner.error();
        out.error = error.startsWith(QLatin1String("no \"traceEvents\"")) ||
                            error.startsWith(QLatin1String("\"traceEvents\" is not"))
                        ? QStringLiteral("%1: not a Chrome trace: %2").arg(name, error)
                        : QStringLiteral("%1: not JSON (%2)").arg(name, error);
        return out;
    }
    TraceInput trace = std::move(collected.trace);
    // The CPU-side ProfilerStep spans are the steps as the training loop saw them; the GPU-side copies
    // only when the CPU ones are missing.
    for (const auto &[stepName, span] : collected.steps.empty() ? collected.gpuSteps : collected.steps)
        trace.steps.push_back(span);
    const auto warn = [&](int count, const char *what) {
        if (count > 0)
            trace.warnings.push_back(name.toStdString() + ": " + std::to_string(count) + " " + what + " (skipped)");
    };
    warn(collected.skipped.noTime, "GPU events without a numeric ts and a non-negative dur");
    warn(collected.skipped.noName, "kernels without a name");
    warn(collected.skipped.notObject, "elements of traceEvents that are not objects");
    out.trace = std::move(trace);
    return out;
}

TraceReadResult readKinetoTrace(const QString &path)
{
    QString error;
    const std::optional<QByteArray> bytes = readRegularFile(path, kMaxTraceBytes, QStringLiteral("a trace"), &error);
    if (!bytes)
        return {std::nullopt, QStringLiteral("%1: %2").arg(path, error)};
    return parseKinetoTrace(*bytes, path);
}

std::optional<QByteArray> inflateGzip(const QByteArray &in, qsizetype maxBytes, QString *error)
{
    z_stream z{};
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
        *error = QStringLiteral("cannot start gzip decompression");
        return std::nullopt;
    }
    z.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(in.constData()));
    z.avail_in = uInt(in.size());
    QByteArray out;
    char buffer[1 << 16];
    int status = Z_OK;
    while (status == Z_OK) {
        z.next_out = reinterpret_cast<Bytef *>(buffer);
        z.avail_out = sizeof buffer;
        status = inflate(&z, Z_NO_FLUSH);
        if (status != Z_OK && status != Z_STREAM_END)
            break;
        const qsizetype produced = qsizetype(sizeof buffer - z.avail_out);
        if (out.size() + produced > maxBytes) { // checked before it grows: memory never passes the limit
            status = Z_MEM_ERROR;
            break;
        }
        if (out.size() + produced > out.capacity()) // doubling, but never past the limit
            out.reserve(std::min(maxBytes, std::max<qsizetype>(2 * out.capacity(), 1 << 20)));
        out.append(buffer, produced);
        if (status == Z_OK && z.avail_in == 0 && z.avail_out != 0)
            status = Z_DATA_ERROR; // truncated: no more input, stream not ended
    }
    inflateEnd(&z);
    if (status != Z_STREAM_END) {
        *error = status == Z_MEM_ERROR
                     ? QStringLiteral("it inflates to more than %1 MiB").arg(double(maxBytes) / (1 << 20), 0, 'g', 6)
                     : QStringLiteral("the gzip stream is corrupt or truncated");
        return std::nullopt;
    }
    return out;
}

} // namespace trainplan::io
