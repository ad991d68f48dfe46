#pragma once
// Every file Trainplan writes goes through here: atomically (QSaveFile: a failure or a kill leaves the old
// file, never half a new one), and never over something that is not a regular file (QSaveFile would
// replace a device or a named pipe by a regular file).

#include <QByteArray>
#include <QString>

namespace trainplan::io {

/// True unless `path` exists and is not a regular file (a device, a pipe, a directory); `error` says which.
bool isWritableTarget(const QString &path, QString *error);
/// Writes `bytes` to `path` atomically, refusing a target that is not a regular file.
bool writeAtomically(const QString &path, const QByteArray &bytes, QString *error);

} // namespace trainplan::io
