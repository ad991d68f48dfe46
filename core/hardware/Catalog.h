#pragma once
// The device, model-preset, link and node-template catalog. core only holds and queries it; io/ fills it from
// resources/devices.json and resources/models.json.

#include <string_view>
#include <vector>

#include "core/hardware/DeviceSpec.h"
#include "core/model/ModelSpec.h"

namespace trainplan {

class Catalog
{
public:
    void addDevice(DeviceSpec device);
    void addModel(ModelSpec model);
    void addIntraNodeLink(LinkSpec link);
    void addNetwork(LinkSpec network);
    void addNodeTemplate(NodeTemplate node);

    /// nullptr when the id is unknown.
    const DeviceSpec *device(std::string_view id) const;
    /// The device with this id among `custom` (a plan's own devices) first, then the catalog.
    const DeviceSpec *device(std::string_view id, const std::vector<DeviceSpec> &custom) const;
    const ModelSpec *model(std::string_view presetId) const;
    const LinkSpec *intraNodeLink(std::string_view id) const;
    const LinkSpec *network(std::string_view id) const;
    const NodeTemplate *nodeTemplate(std::string_view id) const;

    const std::vector<DeviceSpec> &devices() const { return m_devices; }
    const std::vector<ModelSpec> &models() const { return m_models; }
    const std::vector<LinkSpec> &intraNodeLinks() const { return m_intraNodeLinks; }
    const std::vector<LinkSpec> &networks() const { return m_networks; }
    const std::vector<NodeTemplate> &nodeTemplates() const { return m_nodeTemplates; }

private:
    std::vector<DeviceSpec> m_devices;
    std::vector<ModelSpec> m_models;
    std::vector<LinkSpec> m_intraNodeLinks;
    std::vector<LinkSpec> m_networks;
    std::vector<NodeTemplate> m_nodeTemplates;
};

} // namespace trainplan
