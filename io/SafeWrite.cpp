#include "io/SafeWrite.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QSaveFile>

namespace trainplan::io {

bool isWritableTarget(const QString &path, QString *error)
{
    const QFileInfo info(path);
    if (!info.exists() || info.isFile())
        return true;
    if (error)
        *error = QCoreApplication::translate("SafeWrite", "%1 exists and is not a regular file (%2); nothing was written")
                     .arg(path, info.isDir() ? QCoreApplication::translate("SafeWrite", "a directory")
                                             : QCoreApplication::translate("SafeWrite", "a device, pipe or socket"));
    return false;
}

bool writeAtomically(const QString &path, const QByteArray &bytes, QString *error)
{
    if (!isWritableTarget(path, error))
        return false;
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit()) {
        if (error)
            *error = QCoreApplication::translate("SafeWrite", "cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

} // namespace trainplan::io
