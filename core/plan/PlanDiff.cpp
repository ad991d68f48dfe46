#include "core/plan/PlanDiff.h"

#include <algorithm>
#include <string_view>

#include "core/plan/Plan.h"
#include "core/plan/PlanKeys.h"

namespace trainplan {

NodeGroupDiff diffNodeGroups(const std::vector<NodeGroup> &before, const std::vector<NodeGroup> &after)
{
    const int nb = int(before.size()), na = int(after.size());
    const int shorter = std::min(nb, na);
    int prefix = 0;
    while (prefix < shorter && before[std::size_t(prefix)] == after[std::size_t(prefix)])
        ++prefix;
    int suffix = 0;
    while (suffix < shorter - prefix &&
           before[std::size_t(nb - 1 - suffix)] == after[std::size_t(na - 1 - suffix)])
        ++suffix;
    const int middleBefore = nb - prefix - suffix, middleAfter = na - prefix - suffix;
    NodeGroupDiff d;
    const int inPlace = std::min(middleBefore, middleAfter);
    for (int i = prefix; i < prefix + inPlace; ++i)
        d.changed.push_back(i);
    if (middleBefore > inPlace)
        d.removed = {prefix + inPlace, prefix + middleBefore - 1};
    if (middleAfter > inPlace)
        d.inserted = {prefix + inPlace, prefix + middleAfter - 1};
    return d;
}

bool PlanDiff::changed(const char *path) const
{
    return std::find(keys.begin(), keys.end(), std::string_view(path)) != keys.end();
}

PlanDiff diffPlans(const Plan &before, const Plan &after)
{
    PlanDiff d;
    d.groups = diffNodeGroups(before.cluster.groups(), after.cluster.groups());
    for (const PlanKey &key : planKeys()) {
        const std::string_view path = key.path;
        bool differs = false;
        if (key.accessible())
            differs = key.get(before) != key.get(after);
        else if (path == "model.preset")
            differs = before.model.presetId != after.model.presetId;
        else if (path == "cluster.node_groups")
            differs = !d.groups.empty();
        else if (path == "cluster.custom_devices")
            differs = before.cluster.customDevices != after.cluster.customDevices;
        if (differs)
            d.keys.emplace_back(path);
    }
    return d;
}

} // namespace trainplan
