#pragma once
// Reading a PyTorch profiler (Kineto) trace: the Chrome trace JSON that torch.profiler's
// export_chrome_trace and tensorboard_trace_handler write (".json", or gzipped ".json.gz"). GPU kernels are
// complete events ("ph": "X") of category "kernel", copies "gpu_memcpy" / "gpu_memset", on the device
// args.device (else the pid); steps are the "ProfilerStep#N" spans. Times are microseconds in the file and
// seconds in the result. Events with missing or malformed fields are skipped and counted in a warning.
// The JSON is read as a stream (no document is built), as leniently as Qt's parser reads it.

#include <QByteArray>
#include <QString>

#include <optional>

#include "core/profile/TraceProfile.h"

namespace trainplan::io {

struct TraceReadResult
{
    std::optional<TraceInput> trace;
    QString error; ///< when the file is unreadable or not a trace: "PATH: what"
};

/// What a gzipped trace may inflate to (a profile of a few steps is tens to hundreds of MB).
inline constexpr qsizetype kMaxTraceBytes = qsizetype(2) << 30;

TraceReadResult readKinetoTrace(const QString &path);
/// A gzip stream inflated; nullopt with `error` set when it is corrupt, truncated or would inflate past
/// `maxBytes`. Memory never passes `maxBytes` (plus one 64 KiB buffer): the size is checked before it grows.
std::optional<QByteArray> inflateGzip(const QByteArray &in, qsizetype maxBytes, QString *error);
/// The same from bytes already read (gzip recognised by its magic number); `name` names it in messages.
TraceReadResult parseKinetoTrace(const QByteArray &bytes, const QString &name);

} // namespace trainplan::io
