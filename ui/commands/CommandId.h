#pragma once
// The undo commands' ids (QUndoCommand::id): one per kind of edit, fixed across builds, so tests and
// macros can tell the steps of the undo stack apart. Two consecutive commands merge only when their ids
// match and the command agrees (the same key, the same field of the same node group).

namespace trainplan {

enum class CommandId : int {
    SetPlanValue = 1,      ///< ChangePlanValue: one plan key (merges edits of that key)
    ReplacePlan = 2,       ///< a whole new plan: a model, a search result, an import, a suggestion
    SetClusterValue = 3,   ///< one cluster figure the inspector edits (merges edits of that figure)
    SetNodeGroupField = 4, ///< one field of one node group (merges edits of that field of that group)
    AddNodes = 5,          ///< a palette node joins an existing node group
    AddNodeGroup = 6,      ///< a new node group
    RemoveNodeGroup = 7,
    SetNodeGroupPart = 8,  ///< a palette accelerator or intra-node link dropped on a node group
    SetNetwork = 9,        ///< a palette network dropped on the network bar
};

} // namespace trainplan
