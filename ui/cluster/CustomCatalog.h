#pragma once
// The user's own devices and node templates, kept in QSettings (as the same JSON a plan file carries),
// so they appear in the palette of every session. A plan that uses a custom device carries a copy.

#include <QObject>

#include <vector>

#include "core/hardware/DeviceSpec.h"

namespace trainplan {

class CustomCatalog : public QObject
{
    Q_OBJECT

public:
    explicit CustomCatalog(QObject *parent = nullptr);

    const std::vector<DeviceSpec> &devices() const { return m_devices; }
    const std::vector<NodeTemplate> &templates() const { return m_templates; }

    /// Adds or replaces (same id) and saves to settings.
    void addDevice(const DeviceSpec &device);
    void addTemplate(const NodeTemplate &node);

signals:
    void changed();

private:
    void load();
    void save() const;

    std::vector<DeviceSpec> m_devices;
    std::vector<NodeTemplate> m_templates;
};

} // namespace trainplan
