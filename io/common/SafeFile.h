#pragma once
// Every file Trainplan reads from a user's path or writes goes through here.
// Reading: only regular files, at most a stated size (a FIFO or /dev/zero would wait or read forever).
// Writing: atomically (QSaveFile: a failure, a full disk or a kill leaves the old file, never half a new one,
// and the error said is the system's), never over something that is not a regular file (QSaveFile would
// replace a device or a named pipe by a regular file), and never over one of the command's own inputs.

#include <QByteArray>
#include <QString>
#include <QStringList>

#include <optional>
#include <utility>
#include <vector>

namespace trainplan::io {

/// The bytes of the regular file `path`, at most `maxBytes`; empty with `error` set (the rule, without the path) when
/// it is not a regular file (a directory, a named pipe, a device), cannot be read or is larger. `what` names the kind
/// of file in the message ("a configuration file", "a trace").
std::optional<QByteArray> readRegularFile(const QString &path, qint64 maxBytes, const QString &what, QString *error);

/// True unless `path` exists and is not a regular file (a device, a pipe, a directory); `error` says which.
bool isWritableTarget(const QString &path, QString *error);

/// What a write does with a target that is a symbolic link: write the file it points to (saving a plan the
/// user opened through a link), or replace the link itself by the new file (generated outputs in a folder:
/// a link planted there never redirects the write to another file).
enum class Links { Follow, Replace };

/// Writes `bytes` to `path` atomically, refusing a target that is not a regular file.
bool writeAtomically(const QString &path, const QByteArray &bytes, QString *error, Links links = Links::Follow);

/// Writes every (path, bytes) or none: all are written and flushed to disk before the first replaces its
/// target, so a full disk leaves every target as it was.
bool writeAllAtomically(const std::vector<std::pair<QString, QByteArray>> &files, QString *error,
                        Links links = Links::Follow);

/// True when `a` and `b` are one existing file (the same path, a link to it or a hard link).
bool isSameFile(const QString &a, const QString &b);

/// False, with `error` naming it ("OUTPUT is the input INPUT; write elsewhere"), when `output` is one of
/// `inputs`: a command never replaces what it reads.
bool isNotAnInput(const QString &output, const QStringList &inputs, QString *error);

} // namespace trainplan::io
