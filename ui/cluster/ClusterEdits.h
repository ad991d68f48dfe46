#pragma once
// What the cluster builder's palette entries do to a plan. Pure functions of (plan, entry, target), so
// the canvas's drop, its placement tool and the tests share one behaviour.

#include <QString>

#include <optional>

#include "core/hardware/Catalog.h"
#include "core/plan/Plan.h"

namespace trainplan {

/// A palette entry: a node template, an accelerator, an intra-node link or a network tier.
struct PaletteEntry
{
    enum class Kind { NodeTemplate, Device, IntraNodeLink, Network };
    Kind kind = Kind::NodeTemplate;
    QString id;

    /// "template:dgx-h100", "device:b200", "link:pcie4-x16", "network:ib-ndr" (the drag's mime payload).
    QString toString() const;
    static std::optional<PaletteEntry> fromString(const QString &text);
};

inline constexpr const char *kPaletteMimeType = "application/x-trainplan-palette-entry";

/// Everything a palette entry can refer to: the catalog plus the user's custom devices and templates.
struct PaletteCatalog
{
    const Catalog *catalog = nullptr;
    std::vector<DeviceSpec> customDevices;     ///< from settings
    std::vector<NodeTemplate> customTemplates; ///< from settings

    const DeviceSpec *device(const std::string &id, const Plan &plan) const;
    const NodeTemplate *nodeTemplate(const std::string &id) const;
};

struct ClusterEdit
{
    /// What the edit does, for its undo command's id (ui/commands/ClusterCommands).
    enum class Kind { AddNodes, AddNodeGroup, RemoveNodeGroup, SetNodeGroupPart, SetNetwork };
    Plan plan;     ///< the plan after the edit
    QString text;  ///< the undo text ("Add DGX H100 node")
    Kind kind = Kind::AddNodes;
    int group = -1; ///< the node group added, removed or changed (numbered as after; as before for a removal)
};

/// The edit of dropping `entry` on node group `target` (-1: on empty canvas). Empty when it changes
/// nothing or cannot apply (`why` says which). Data parallelism is re-derived for the new GPU count.
std::optional<ClusterEdit> applyPaletteEntry(const Plan &plan, const PaletteEntry &entry, int target,
                                             const PaletteCatalog &catalog, QString *why = nullptr);

/// Removes node group `index`; refuses the last one.
std::optional<ClusterEdit> removeNodeGroup(const Plan &plan, int index, QString *why = nullptr);

/// Sets one node group's node count / device / link / GPUs per node (the inspector's fields); a custom
/// device the group now uses is carried into the plan.
Plan withGroup(const Plan &plan, int index, const NodeGroup &group, const PaletteCatalog &catalog);

} // namespace trainplan
