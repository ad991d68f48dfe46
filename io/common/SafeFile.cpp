#include "io/common/SafeFile.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <system_error>

#include <unistd.h>

namespace trainplan::io {

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("SafeFile", text);
}

QString kindOf(const QFileInfo &info)
{
    return info.isDir() ? tr("a directory") : tr("a named pipe, socket or device");
}

/// The system's reason for the last failure: the device's error string unless it is Qt's empty "Unknown
/// error" (a failed flush inside close), else errno's.
QString reason(const QFileDevice &file, int savedErrno)
{
    const QString said = file.errorString();
    if (!said.isEmpty() && said != QLatin1String("Unknown error"))
        return said;
    return QString::fromLocal8Bit(std::strerror(savedErrno != 0 ? savedErrno : EIO));
}

std::filesystem::path fsPath(const QString &path)
{
    return std::filesystem::path(QFile::encodeName(path).toStdString());
}

/// One file being written: the QSaveFile's own target, and the link it then replaces (Links::Replace).
struct Pending
{
    QString path;       ///< as the user gave it
    QString replacing;  ///< non-empty: the symbolic link the written file is renamed over
    std::unique_ptr<QSaveFile> file;
};

/// A name beside `link` no file has, for the file that replaces it.
QString siblingOf(const QString &link)
{
    for (int n = 0;; ++n) {
        const QString candidate =
            QStringLiteral("%1.trainplan-new%2").arg(link).arg(n == 0 ? QString() : QString::number(n));
        if (!QFileInfo(candidate).exists() && !QFileInfo(candidate).isSymLink())
            return candidate;
    }
}

/// Opens, writes and flushes one file to disk (not yet in place).
std::optional<Pending> stage(const QString &path, const QByteArray &bytes, Links links, QString *error)
{
    Pending p{path, {}, nullptr};
    const bool link = links == Links::Replace && QFileInfo(path).isSymLink();
    if (!link && !isWritableTarget(path, error))
        return std::nullopt;
    if (link)
        p.replacing = path;
    p.file = std::make_unique<QSaveFile>(link ? siblingOf(path) : path);
    errno = 0;
    bool ok = p.file->open(QIODevice::WriteOnly);
    ok = ok && p.file->write(bytes) == bytes.size() && p.file->flush();
    // A full disk may only show when the data reach it (delayed allocation): sync before it replaces anything.
    ok = ok && ::fsync(p.file->handle()) == 0;
    if (!ok) {
        if (error)
            *error = tr("cannot write %1: %2; nothing was written").arg(path, reason(*p.file, errno));
        p.file->cancelWriting();
        return std::nullopt;
    }
    return p;
}

bool commit(Pending &p, QString *error)
{
    errno = 0;
    if (!p.file->commit()) {
        if (error)
            *error = tr("cannot write %1: %2").arg(p.path, reason(*p.file, errno));
        return false;
    }
    if (p.replacing.isEmpty())
        return true;
    std::error_code code;
    std::filesystem::rename(fsPath(p.file->fileName()), fsPath(p.replacing), code);
    if (code) {
        QFile::remove(p.file->fileName());
        if (error)
            *error = tr("cannot replace the link %1: %2").arg(p.replacing, QString::fromStdString(code.message()));
        return false;
    }
    return true;
}

} // namespace

std::optional<QByteArray> readRegularFile(const QString &path, qint64 maxBytes, const QString &what, QString *error)
{
    const QFileInfo info(path);
    if (info.exists() && !info.isFile()) {
        *error = tr("not a regular file (%1): %2 is read from a file").arg(kindOf(info), what);
        return std::nullopt;
    }
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = tr("cannot be read: %1").arg(file.errorString());
        return std::nullopt;
    }
    QByteArray bytes = file.read(maxBytes + 1);
    if (bytes.size() > maxBytes) {
        *error = tr("larger than %1 MiB: not %2").arg(double(maxBytes) / (1 << 20), 0, 'g', 4).arg(what);
        return std::nullopt;
    }
    if (file.error() != QFileDevice::NoError) {
        *error = tr("cannot be read: %1").arg(file.errorString());
        return std::nullopt;
    }
    return bytes;
}

bool isWritableTarget(const QString &path, QString *error)
{
    const QFileInfo info(path);
    if (!info.exists() || info.isFile())
        return true;
    if (error)
        *error = tr("%1 exists and is not a regular file (%2); nothing was written").arg(path, kindOf(info));
    return false;
}

bool writeAtomically(const QString &path, const QByteArray &bytes, QString *error, Links links)
{
    return writeAllAtomically({{path, bytes}}, error, links);
}

bool writeAllAtomically(const std::vector<std::pair<QString, QByteArray>> &files, QString *error, Links links)
{
    std::vector<Pending> pending;
    for (const auto &[path, bytes] : files) {
        std::optional<Pending> p = stage(path, bytes, links, error);
        if (!p)
            return false; // the ones staged are discarded: every target as it was
        pending.push_back(std::move(*p));
    }
    for (Pending &p : pending)
        if (!commit(p, error))
            return false;
    return true;
}

bool isSameFile(const QString &a, const QString &b)
{
    std::error_code code;
    return std::filesystem::equivalent(fsPath(a), fsPath(b), code) && !code;
}

bool isNotAnInput(const QString &output, const QStringList &inputs, QString *error)
{
    for (const QString &input : inputs) {
        if (!input.isEmpty() && input != QLatin1String("-") && isSameFile(output, input)) {
            if (error)
                *error = input == output ? tr("%1 is also an input of this command; write elsewhere").arg(output)
                                         : tr("%1 is the input %2; write elsewhere").arg(output, input);
            return false;
        }
    }
    return true;
}

} // namespace trainplan::io
