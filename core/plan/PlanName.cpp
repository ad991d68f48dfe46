#include "core/plan/PlanName.h"

#include <algorithm>

namespace trainplan {

namespace {

/// "NVIDIA A100 SXM4 80GB" -> "A100 SXM4 80GB": the vendor is implied by the part.
std::string shortDeviceName(const Plan &plan, const Catalog &catalog, const std::string &id)
{
    const DeviceSpec *device = catalog.device(id, plan.cluster.customDevices);
    std::string name = device ? device->name : id;
    for (const char *vendor : {"NVIDIA ", "AMD Instinct ", "AMD ", "Intel "})
        if (name.rfind(vendor, 0) == 0)
            return name.substr(std::string(vendor).size());
    return name;
}

std::string gpusText(const Plan &plan, const Catalog &catalog)
{
    const ClusterConfig &cluster = plan.cluster;
    if (!cluster.isMixed())
        return std::to_string(cluster.gpus()) + " " + shortDeviceName(plan, catalog, cluster.device);
    // Mixed: GPUs per device, in order of appearance.
    std::vector<std::pair<std::string, std::int64_t>> counts;
    for (const NodeGroup &g : cluster.groups()) {
        const std::string name = shortDeviceName(plan, catalog, g.device);
        auto it = std::find_if(counts.begin(), counts.end(), [&](const auto &c) { return c.first == name; });
        if (it == counts.end())
            counts.push_back({name, g.nodes * g.gpusPerNode});
        else
            it->second += g.nodes * g.gpusPerNode;
    }
    std::string out;
    for (const auto &[name, n] : counts)
        out += (out.empty() ? "" : " + ") + std::to_string(n) + " " + name;
    return out;
}

} // namespace

std::string automaticPlanName(const Plan &plan, const Catalog &catalog)
{
    const ParallelConfig &par = plan.parallel;
    std::string layout = "data " + std::to_string(par.data);
    if (par.tensor > 1)
        layout += " x tensor " + std::to_string(par.tensor);
    if (par.pipeline > 1)
        layout += " x pipeline " + std::to_string(par.pipeline);
    if (par.context > 1)
        layout += " x context " + std::to_string(par.context);
    if (plan.model.isMoe() && par.expert > 1) // experts split over the data x context x tensor ranks
        layout += ", expert " + std::to_string(par.expert);
    const std::string model = plan.model.name.empty() ? std::string("Custom model") : plan.model.name;
    return model + " on " + gpusText(plan, catalog) + ", " + layout;
}

bool hasAutomaticName(const Plan &plan, const Catalog &catalog)
{
    return plan.name.empty() || plan.name == automaticPlanName(plan, catalog);
}

std::string planDisplayName(const Plan &plan, const Catalog &catalog)
{
    return plan.name.empty() ? automaticPlanName(plan, catalog) : plan.name;
}

} // namespace trainplan
