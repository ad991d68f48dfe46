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

TraceReadResult readKinetoTrace(const QString &path);
/// The same from bytes already read (gzip recognised by its magic number); `name` names it in messages.
TraceReadResult parseKinetoTrace(const QByteArray &bytes, const QString &name);

} // namespace trainplan::io
