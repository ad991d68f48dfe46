#include "core/hardware/Catalog.h"

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
    auto it = std::find_if(m_models.begin(), m_models.end(),
                           [&](const ModelSpec &m) { return m.presetId == model.presetId; });
    if (it != m_models.end())
        *it = std::move(model);
    else
        m_models.push_back(std::move(model));
}

namespace {

/// Adds `entry`, replacing an earlier one with the same id (a user catalog over the built-in one).
template<typename T, typename Key>
void addOrReplace(std::vector<T> &entries, T entry, Key key)
{
    auto it = std::find_if(entries.begin(), entries.end(), [&](const T &e) { return key(e) == key(entry); });
    if (it != entries.end())
        *it = std::move(entry);
    else
        entries.push_back(std::move(entry));
}

template<typename T, typename Key>
const T *findById(const std::vector<T> &entries, std::string_view id, Key key)
{
    auto it = std::find_if(entries.begin(), entries.end(), [&](const T &e) { return key(e) == id; });
    return it == entries.end() ? nullptr : &*it;
}

const std::string &idOf(const LinkSpec &l) { return l.id; }
const std::string &idOfTemplate(const NodeTemplate &n) { return n.id; }

} // namespace

void Catalog::addIntraNodeLink(LinkSpec link) { addOrReplace(m_intraNodeLinks, std::move(link), idOf); }
void Catalog::addNetwork(LinkSpec network) { addOrReplace(m_networks, std::move(network), idOf); }
void Catalog::addNodeTemplate(NodeTemplate node) { addOrReplace(m_nodeTemplates, std::move(node), idOfTemplate); }

const LinkSpec *Catalog::intraNodeLink(std::string_view id) const { return findById(m_intraNodeLinks, id, idOf); }
const LinkSpec *Catalog::network(std::string_view id) const { return findById(m_networks, id, idOf); }
const NodeTemplate *Catalog::nodeTemplate(std::string_view id) const
{
    return findById(m_nodeTemplates, id, idOfTemplate);
}

const DeviceSpec *Catalog::device(std::string_view id, const std::vector<DeviceSpec> &custom) const
{
    for (const DeviceSpec &d : custom)
        if (d.id == id)
            return &d;
    return device(id);
}

const DeviceSpec *Catalog::device(std::string_view id) const
{
    auto it = std::find_if(m_devices.begin(), m_devices.end(), [&](const DeviceSpec &d) { return d.id == id; });
    return it == m_devices.end() ? nullptr : &*it;
}

const ModelSpec *Catalog::model(std::string_view presetId) const
{
    auto it =
        std::find_if(m_models.begin(), m_models.end(), [&](const ModelSpec &m) { return m.presetId == presetId; });
    return it == m_models.end() ? nullptr : &*it;
}

} // namespace trainplan
