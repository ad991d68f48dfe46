#include "hardware/Catalog.h"

#include <algorithm>

namespace trainplan {

void Catalog::addDevice(DeviceSpec device)
{
    auto it = std::find_if(m_devices.begin(), m_devices.end(), [&](const DeviceSpec &d) { return d.id == device.id; });
    if (it != m_devices.end())
        *it = std::move(device); // a later definition (user catalog) replaces a built-in one
    else
        m_devices.push_back(std::move(device));
}

void Catalog::addModel(ModelSpec model)
{
    auto it = std::find_if(m_models.begin(), m_models.end(), [&](const ModelSpec &m) { return m.presetId == model.presetId; });
    if (it != m_models.end())
        *it = std::move(model);
    else
        m_models.push_back(std::move(model));
}

const DeviceSpec *Catalog::device(std::string_view id) const
{
    auto it = std::find_if(m_devices.begin(), m_devices.end(), [&](const DeviceSpec &d) { return d.id == id; });
    return it == m_devices.end() ? nullptr : &*it;
}

const ModelSpec *Catalog::model(std::string_view presetId) const
{
    auto it = std::find_if(m_models.begin(), m_models.end(), [&](const ModelSpec &m) { return m.presetId == presetId; });
    return it == m_models.end() ? nullptr : &*it;
}

} // namespace trainplan
