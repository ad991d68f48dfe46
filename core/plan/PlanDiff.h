#pragma once
// What an edit changed: the plan keys whose values differ and how the node-group list moved. The planner's
// document turns it into precise signals (keyChanged, nodeGroupsRemoved/Inserted, nodeGroupChanged), so a
// view redraws only what an edit touched.

#include <string>
#include <vector>

namespace trainplan {

struct Plan;
struct NodeGroup;

/// A contiguous run of node-group indices, [first, last]; empty when last < first.
struct GroupRange
{
    int first = 0;
    int last = -1;
    bool empty() const { return last < first; }
    int count() const { return empty() ? 0 : last - first + 1; }
    friend bool operator==(const GroupRange &, const GroupRange &) = default;
};

/// How one node-group list became another: the groups before and after that are equal stay; between them,
/// the first min(removed, inserted) positions changed in place, the rest were removed (numbered as before)
/// or inserted (numbered as after). Changed indices are below both ranges, so they mean the same group
/// before and after.
struct NodeGroupDiff
{
    std::vector<int> changed;
    GroupRange removed;
    GroupRange inserted;
    bool empty() const { return changed.empty() && removed.empty() && inserted.empty(); }
};

NodeGroupDiff diffNodeGroups(const std::vector<NodeGroup> &before, const std::vector<NodeGroup> &after);

struct PlanDiff
{
    /// Paths of the plan-table keys whose values differ, in the table's order ("cluster.node_groups" when
    /// any group differs, "model.preset" when the preset does).
    std::vector<std::string> keys;
    NodeGroupDiff groups;
    bool empty() const { return keys.empty() && groups.empty(); }
    bool changed(const char *path) const;
};

PlanDiff diffPlans(const Plan &before, const Plan &after);

} // namespace trainplan
