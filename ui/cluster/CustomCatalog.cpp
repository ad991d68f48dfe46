#include "ui/cluster/CustomCatalog.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSettings>

#include "io/plan/CatalogJson.h"
#include "io/plan/JsonReader.h"

namespace trainplan {

namespace {
const char *kDevicesKey = "cluster/customDevices";
const char *kTemplatesKey = "cluster/customNodeTemplates";
} // namespace

CustomCatalog::CustomCatalog(QObject *parent) : QObject(parent)
{
    load();
}

void CustomCatalog::load()
{
    QSettings settings;
    // Entries that no longer read cleanly (a hand-edited settings file) are skipped, not fatal.
    const QJsonArray devices = QJsonDocument::fromJson(settings.value(kDevicesKey).toByteArray()).array();
    for (const QJsonValue &v : devices) {
        Problems problems;
        io::JsonReader r(v.toObject(), QStringLiteral("device"), problems);
        DeviceSpec d;
        io::readDevice(r, d);
        if (!hasErrors(problems) && !d.id.empty())
            m_devices.push_back(std::move(d));
    }
    const QJsonArray templates = QJsonDocument::fromJson(settings.value(kTemplatesKey).toByteArray()).array();
    for (const QJsonValue &v : templates) {
        const QJsonObject o = v.toObject();
        NodeTemplate t;
        t.id = o.value("id").toString().toStdString();
        t.name = o.value("name").toString().toStdString();
        t.device = o.value("device").toString().toStdString();
        t.gpusPerNode = o.value("gpus_per_node").toInteger(8);
        t.intraNodeLink = o.value("intra_node_link").toString().toStdString();
        t.source = "user-defined";
        if (!t.id.empty() && !t.device.empty() && t.gpusPerNode >= 1 && t.gpusPerNode <= 1024)
            m_templates.push_back(std::move(t));
    }
}

void CustomCatalog::save() const
{
    QJsonArray devices;
    for (const DeviceSpec &d : m_devices)
        devices.append(io::deviceToJson(d));
    QJsonArray templates;
    for (const NodeTemplate &t : m_templates)
        templates.append(QJsonObject{{"id", QString::fromStdString(t.id)},
                                     {"name", QString::fromStdString(t.name)},
                                     {"device", QString::fromStdString(t.device)},
                                     {"gpus_per_node", double(t.gpusPerNode)},
                                     {"intra_node_link", QString::fromStdString(t.intraNodeLink)}});
    QSettings settings;
    settings.setValue(kDevicesKey, QJsonDocument(devices).toJson(QJsonDocument::Compact));
    settings.setValue(kTemplatesKey, QJsonDocument(templates).toJson(QJsonDocument::Compact));
}

void CustomCatalog::addDevice(const DeviceSpec &device)
{
    std::erase_if(m_devices, [&](const DeviceSpec &d) { return d.id == device.id; });
    m_devices.push_back(device);
    save();
    emit changed();
}

void CustomCatalog::addTemplate(const NodeTemplate &node)
{
    std::erase_if(m_templates, [&](const NodeTemplate &t) { return t.id == node.id; });
    m_templates.push_back(node);
    save();
    emit changed();
}

} // namespace trainplan
