#include "ui/document/Autosave.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
#include <QStandardPaths>

#include "io/PlanJson.h"
#include "ui/document/PlanDocument.h"

namespace trainplan {

namespace {
constexpr int kDefaultIntervalMs = 15000;
constexpr auto kRecoveryFormat = "trainplan-recovery";
} // namespace

Autosave::Autosave(PlanDocument *document, const QString &directory, QObject *parent)
    : QObject(parent), m_document(document)
{
    const QString dir = directory.isEmpty() ? QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) : directory;
    m_path = QDir(dir).filePath(QStringLiteral("recovery.json"));
    m_timer.setSingleShot(true);
    m_timer.setInterval(kDefaultIntervalMs);
    connect(&m_timer, &QTimer::timeout, this, &Autosave::writeNow);
    // An edit (re)arms the timer; the document turning clean (saved, undone to the saved state, or
    // replaced after the user chose to discard) removes the recovery file. A plan loaded into an
    // already clean document changes nothing: a recovery file from a crash survives until offered.
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
    QSaveFile file(m_path);
    if (!file.open(QIODevice::WriteOnly))
        return false;
    file.write(QJsonDocument(recovery).toJson());
    return file.commit();
}

void Autosave::discard()
{
    QFile::remove(m_path);
}

std::optional<Autosave::Recovery> Autosave::pendingRecovery() const
{
    QFile file(m_path);
    if (!file.open(QIODevice::ReadOnly) || file.size() > io::kMaxPlanBytes)
        return std::nullopt;
    const QJsonObject o = QJsonDocument::fromJson(file.readAll()).object();
    if (o.value("format").toString() != QLatin1String(kRecoveryFormat) || !o.value("plan").isObject())
        return std::nullopt;
    return Recovery{o.value("file").toString(), QJsonDocument(o.value("plan").toObject()).toJson(),
                    QDateTime::fromString(o.value("written").toString(), Qt::ISODate)};
}

} // namespace trainplan
