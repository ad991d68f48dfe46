#include "ui/document/Autosave.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>
#include <QUuid>

#include <algorithm>

#include "io/plan/PlanJson.h"
#include "io/common/SafeFile.h"
#include "ui/document/PlanDocument.h"

namespace trainplan {

namespace {
constexpr int kDefaultIntervalMs = 15000;
constexpr auto kRecoveryFormat = "trainplan-recovery";

QString lockPathOf(const QString &recoveryPath) { return recoveryPath + QStringLiteral(".lock"); }

std::unique_ptr<QLockFile> lockFor(const QString &recoveryPath)
{
    auto lock = std::make_unique<QLockFile>(lockPathOf(recoveryPath));
    lock->setStaleLockTime(0); // only a dead owner makes a lock stale, never its age
    if (!lock->tryLock(0))
        return nullptr;
    return lock;
}

std::optional<Autosave::Recovery> readRecovery(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly) || file.size() > io::kMaxPlanBytes)
        return std::nullopt;
    const QJsonObject o = QJsonDocument::fromJson(file.readAll()).object();
    if (o.value("format").toString() != QLatin1String(kRecoveryFormat) || !o.value("plan").isObject())
        return std::nullopt;
    const QJsonObject plan = o.value("plan").toObject();
    return Autosave::Recovery{path, o.value("file").toString(), plan.value("name").toString(),
                              QJsonDocument(plan).toJson(),
                              QDateTime::fromString(o.value("written").toString(), Qt::ISODate)};
}

} // namespace

Autosave::Autosave(PlanDocument *document, const QString &directory, QObject *parent)
    : QObject(parent), m_document(document)
{
    const QString dir = directory.isEmpty() ? defaultDirectory() : directory;
    QDir().mkpath(dir);
    m_path =
        QDir(dir).filePath(QStringLiteral("recovery-%1.json").arg(QUuid::createUuid().toString(QUuid::WithoutBraces)));
    m_lock = lockFor(m_path);
    m_timer.setSingleShot(true);
    m_timer.setInterval(kDefaultIntervalMs);
    connect(&m_timer, &QTimer::timeout, this, &Autosave::writeNow);
    // An edit (re)arms the timer; the document turning clean (saved, undone to the saved state, or
    // replaced after the user chose to discard) removes the recovery file.
    connect(m_document, &PlanDocument::planChanged, this, [this] {
        if (m_document->isModified() && !m_timer.isActive())
            m_timer.start();
    });
    connect(m_document, &PlanDocument::modifiedChanged, this, [this](bool modified) {
        if (modified) {
            if (!m_timer.isActive())
                m_timer.start();
        } else {
            m_timer.stop();
            discard();
        }
    });
}

Autosave::~Autosave() = default; // the lock goes: after a crash nothing releases it, and it turns stale

QString Autosave::defaultDirectory()
{
    return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
}

std::vector<Autosave::Recovery> Autosave::orphans(const QString &directory)
{
    const QDir dir(directory.isEmpty() ? defaultDirectory() : directory);
    std::vector<Recovery> out;
    const QStringList names =
        dir.entryList({QStringLiteral("recovery-*.json"), QStringLiteral("recovery.json")}, QDir::Files);
    for (const QString &name : names) {
        const QString path = dir.filePath(name);
        std::unique_ptr<QLockFile> lock = lockFor(path); // held by a running window: not an orphan
        if (!lock)
            continue;
        if (std::optional<Recovery> r = readRecovery(path))
            out.push_back(std::move(*r));
    }
    std::sort(out.begin(), out.end(), [](const Recovery &a, const Recovery &b) { return a.written < b.written; });
    return out;
}

bool Autosave::writeNow()
{
    if (!m_document->isModified())
        return false;
    QDir().mkpath(QFileInfo(m_path).absolutePath());
    const QJsonObject plan = QJsonDocument::fromJson(io::writePlan(m_document->plan(), m_document->catalog())).object();
    const QJsonObject recovery{{"format", QLatin1String(kRecoveryFormat)},
                               {"version", 1},
                               {"file", m_document->filePath()},
                               {"written", QDateTime::currentDateTimeUtc().toString(Qt::ISODate)},
                               {"plan", plan}};
    return io::writeAtomically(m_path, QJsonDocument(recovery).toJson(), nullptr);
}

void Autosave::discard()
{
    QFile::remove(m_path);
}

bool Autosave::adopt(const QString &recoveryPath)
{
    std::unique_ptr<QLockFile> lock = lockFor(recoveryPath);
    if (!lock)
        return false;
    discard();
    m_lock = std::move(lock);
    m_path = recoveryPath;
    return true;
}

} // namespace trainplan
