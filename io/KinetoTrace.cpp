#include "io/KinetoTrace.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>
#include <map>

#include <zlib.h>

namespace trainplan::io {

namespace {

constexpr double kMicro = 1e-6;
constexpr qsizetype kMaxTraceBytes = qsizetype(2) << 30; ///< what a gzipped trace may inflate to

/// Inflates a gzip stream; empty with `error` set when it is corrupt or too large.
QByteArray gunzip(const QByteArray &in, QString &error)
{
    z_stream z{};
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
        error = QStringLiteral("cannot start gzip decompression");
        return {};
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
        out.append(buffer, qsizetype(sizeof buffer - z.avail_out));
        if (out.size() > kMaxTraceBytes) {
            status = Z_MEM_ERROR;
            break;
        }
        if (status == Z_OK && z.avail_in == 0 && z.avail_out != 0)
            status = Z_DATA_ERROR; // truncated: no more input, stream not ended
    }
    inflateEnd(&z);
    if (status != Z_STREAM_END) {
        error = status == Z_MEM_ERROR ? QStringLiteral("the gzipped trace inflates to more than 2 GiB")
                                      : QStringLiteral("the gzip stream is corrupt or truncated");
        return {};
    }
    return out;
}

bool isStepName(const QString &name) { return name.startsWith(QLatin1String("ProfilerStep#")); }

/// Counts of the events skipped, for one warning each.
struct Skipped
{
    int noTime = 0;    ///< a kernel or copy without a finite ts and a non-negative dur
    int noName = 0;    ///< a kernel without a name
    int notObject = 0; ///< an element of traceEvents that is not an object
};

void readEvent(const QJsonObject &e, TraceInput &trace, std::map<QString, std::pair<double, double>> &steps,
               std::map<QString, std::pair<double, double>> &gpuSteps, Skipped &skipped)
{
    if (e.value(QLatin1String("ph")).toString() != QLatin1String("X"))
        return;
    const QString cat = e.value(QLatin1String("cat")).toString().toLower();
    const QString name = e.value(QLatin1String("name")).toString();
    const QJsonValue ts = e.value(QLatin1String("ts")), dur = e.value(QLatin1String("dur"));
    const bool kernel = cat == QLatin1String("kernel"), copy = cat == QLatin1String("gpu_memcpy") || cat == QLatin1String("gpu_memset");
    const bool timed = ts.isDouble() && dur.isDouble() && std::isfinite(ts.toDouble()) && dur.toDouble() >= 0;
    if (isStepName(name) && timed) {
        (cat.startsWith(QLatin1String("gpu")) ? gpuSteps : steps)[name] = {ts.toDouble() * kMicro, dur.toDouble() * kMicro};
        return;
    }
    if (!kernel && !copy)
        return;
    if (!timed) {
        ++skipped.noTime;
        return;
    }
    if (name.isEmpty() && kernel) {
        ++skipped.noName;
        return;
    }
    const QJsonObject args = e.value(QLatin1String("args")).toObject();
    const QJsonValue device = args.contains(QLatin1String("device")) ? args.value(QLatin1String("device")) : e.value(QLatin1String("pid"));
    const double d = device.isDouble() ? device.toDouble() : device.toString().toDouble();
    trace.kernels.push_back({name.toStdString(), ts.toDouble() * kMicro, dur.toDouble() * kMicro,
                             std::isfinite(d) && std::abs(d) < 1e6 ? int(d) : 0, copy});
}

} // namespace

TraceReadResult parseKinetoTrace(const QByteArray &raw, const QString &name)
{
    TraceReadResult out;
    QByteArray bytes = raw;
    if (raw.startsWith("\x1f\x8b")) {
        QString error;
        bytes = gunzip(raw, error);
        if (!error.isEmpty()) {
            out.error = QStringLiteral("%1: %2").arg(name, error);
            return out;
        }
    }
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &parseError);
    if (doc.isNull()) {
        out.error = QStringLiteral("%1: not JSON (%2 at byte %3)").arg(name, parseError.errorString()).arg(parseError.offset);
        return out;
    }
    const QJsonValue events = doc.isArray() ? QJsonValue(doc.array()) : doc.object().value(QLatin1String("traceEvents"));
    if (!events.isArray()) {
        out.error = QStringLiteral("%1: not a Chrome trace: no \"traceEvents\" array").arg(name);
        return out;
    }
    TraceInput trace;
    std::map<QString, std::pair<double, double>> steps, gpuSteps;
    Skipped skipped;
    for (const QJsonValue v : events.toArray()) {
        if (!v.isObject()) {
            ++skipped.notObject;
            continue;
        }
        readEvent(v.toObject(), trace, steps, gpuSteps, skipped);
    }
    // The CPU-side ProfilerStep spans are the steps as the training loop saw them; the GPU-side copies
    // only when the CPU ones are missing.
    for (const auto &[stepName, span] : steps.empty() ? gpuSteps : steps)
        trace.steps.push_back(span);
    const auto warn = [&](int count, const char *what) {
        if (count > 0)
            trace.warnings.push_back(name.toStdString() + ": " + std::to_string(count) + " " + what + " (skipped)");
    };
    warn(skipped.noTime, "GPU events without a numeric ts and a non-negative dur");
    warn(skipped.noName, "kernels without a name");
    warn(skipped.notObject, "elements of traceEvents that are not objects");
    out.trace = std::move(trace);
    return out;
}

TraceReadResult readKinetoTrace(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {std::nullopt, QStringLiteral("%1: cannot be read: %2").arg(path, file.errorString())};
    return parseKinetoTrace(file.readAll(), path);
}

} // namespace trainplan::io
