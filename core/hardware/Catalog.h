#pragma once
// The device and model-preset catalog. core only holds and queries it; io/ fills it from
// resources/devices.json and resources/models.json.

#include <string_view>
#include <vector>

#include "hardware/DeviceSpec.h"
#include "model/ModelSpec.h"

namespace trainplan {

class Catalog
{
public:
    void addDevice(DeviceSpec device);
    void addModel(ModelSpec model);

    /// nullptr when the id is unknown.
    const DeviceSpec *device(std::string_view id) const;
    const ModelSpec *model(std::string_view presetId) const;

    const std::vector<DeviceSpec> &devices() const { return m_devices; }
    const std::vector<ModelSpec> &models() const { return m_models; }

private:
    std::vector<DeviceSpec> m_devices;
    std::vector<ModelSpec> m_models;
};

} // namespace trainplan
