#pragma once
// The cluster builder's typed undo commands: each names what it edits (a node group's field, a new group,
// a figure of the cluster) and has its own CommandId. They replace the whole plan (a node count re-derives
// parallel.data), so undo gives back exactly the plan before.

#include "ui/cluster/ClusterEdits.h"
#include "ui/commands/ReplacePlan.h"

namespace trainplan {

/// A node group's fields as the inspector edits them.
enum class NodeGroupField : int { Device, GpusPerNode, Nodes, IntraNodeLink };

/// The field's key inside cluster.node_groups (PLAN_FORMAT.md).
constexpr const char *pathOf(NodeGroupField field)
{
    switch (field) {
    case NodeGroupField::Device: return "cluster.node_groups.device";
    case NodeGroupField::GpusPerNode: return "cluster.node_groups.gpus_per_node";
    case NodeGroupField::Nodes: return "cluster.node_groups.nodes";
    case NodeGroupField::IntraNodeLink: return "cluster.node_groups.intra_node_link";
    }
    return "";
}

/// One field of one node group; edits of the same field of the same group merge (a held spin box).
class SetNodeGroupField : public ReplacePlan
{
public:
    SetNodeGroupField(PlanDocument *document, int index, NodeGroupField field, Plan after, const QString &text)
        : ReplacePlan(document, std::move(after), text, EditedValue{pathOf(field), index},
                      CommandId::SetNodeGroupField)
        , m_index(index)
        , m_field(field)
    {
    }
    int index() const { return m_index; }
    NodeGroupField field() const { return m_field; }

private:
    int m_index;
    NodeGroupField m_field;
};

/// One figure of the cluster the inspector edits ("cluster.network_bandwidth", a host figure); edits of
/// the same figure merge.
class SetClusterValue : public ReplacePlan
{
public:
    SetClusterValue(PlanDocument *document, std::string path, Plan after, const QString &text)
        : ReplacePlan(document, std::move(after), text, EditedValue{std::move(path)}, CommandId::SetClusterValue)
    {
    }
};

/// A palette edit of the canvas (ClusterEdits): nodes joining a group, a new group, a group removed, an
/// accelerator or a link on a group, a network; never merged (each drop is a step).
class ApplyClusterEdit : public ReplacePlan
{
public:
    ApplyClusterEdit(PlanDocument *document, const ClusterEdit &edit)
        : ReplacePlan(document, edit.plan, edit.text, std::nullopt, commandOf(edit.kind))
        , m_group(edit.group)
    {
    }
    /// The node group the edit added, removed or changed (-1 for the network).
    int group() const { return m_group; }

    static CommandId commandOf(ClusterEdit::Kind kind)
    {
        switch (kind) {
        case ClusterEdit::Kind::AddNodes: return CommandId::AddNodes;
        case ClusterEdit::Kind::AddNodeGroup: return CommandId::AddNodeGroup;
        case ClusterEdit::Kind::RemoveNodeGroup: return CommandId::RemoveNodeGroup;
        case ClusterEdit::Kind::SetNodeGroupPart: return CommandId::SetNodeGroupPart;
        case ClusterEdit::Kind::SetNetwork: return CommandId::SetNetwork;
        }
        return CommandId::ReplacePlan;
    }

private:
    int m_group;
};

} // namespace trainplan
