#include "ui/cluster/ClusterEdits.h"

#include <functional>

#include <QCoreApplication>
#include <QStringList>

#include "core/cluster/Topology.h"

namespace trainplan {

namespace {

QString tr(const char *text) { return QCoreApplication::translate("ClusterEdits", text); }

/// Copies a custom device into the plan (once) so the saved file carries it.
void carryCustomDevice(Plan &plan, const PaletteCatalog &catalog, const std::string &id)
{
    if (catalog.catalog && catalog.catalog->device(id))
        return;
    for (const DeviceSpec &d : plan.cluster.customDevices)
        if (d.id == id)
            return;
    for (const DeviceSpec &d : catalog.customDevices)
        if (d.id == id)
            plan.cluster.customDevices.push_back(d);
}

/// Drops custom devices no node group uses any more.
void pruneCustomDevices(Plan &plan)
{
    const std::vector<NodeGroup> groups = plan.cluster.groups();
    std::erase_if(plan.cluster.customDevices, [&](const DeviceSpec &d) {
        for (const NodeGroup &g : groups)
            if (g.device == d.id)
                return false;
        return true;
    });
}

ClusterEdit finish(Plan plan, std::vector<NodeGroup> groups, QString text,
                   ClusterEdit::Kind kind = ClusterEdit::Kind::AddNodes, int group = -1)
{
    plan.cluster.setGroups(std::move(groups));
    pruneCustomDevices(plan);
    deriveDataParallel(plan);
    return {std::move(plan), std::move(text), kind, group};
}

} // namespace

QString PaletteEntry::toString() const
{
    static const char *prefixes[] = {"template", "device", "link", "network"};
    return QLatin1String(prefixes[int(kind)]) + QLatin1Char(':') + id;
}

std::optional<PaletteEntry> PaletteEntry::fromString(const QString &text)
{
    const qsizetype colon = text.indexOf(QLatin1Char(':'));
    if (colon <= 0 || colon + 1 >= text.size())
        return std::nullopt;
    const QString prefix = text.left(colon);
    static const QStringList prefixes{QStringLiteral("template"), QStringLiteral("device"), QStringLiteral("link"),
                                      QStringLiteral("network")};
    const qsizetype kind = prefixes.indexOf(prefix);
    if (kind < 0)
        return std::nullopt;
    return PaletteEntry{Kind(kind), text.mid(colon + 1)};
}

const DeviceSpec *PaletteCatalog::device(const std::string &id, const Plan &plan) const
{
    if (const DeviceSpec *d = catalog->device(id, plan.cluster.customDevices))
        return d;
    for (const DeviceSpec &d : customDevices)
        if (d.id == id)
            return &d;
    return nullptr;
}

const NodeTemplate *PaletteCatalog::nodeTemplate(const std::string &id) const
{
    if (const NodeTemplate *t = catalog->nodeTemplate(id))
        return t;
    for (const NodeTemplate &t : customTemplates)
        if (t.id == id)
            return &t;
    return nullptr;
}

namespace {

using Edit = std::optional<ClusterEdit>;

/// A node template: a node like the target (or, on empty canvas, like any group) joins that group;
/// otherwise a new group of one node after the target.
Edit addTemplateNode(const Plan &plan, std::vector<NodeGroup> groups, const std::string &id, int target, bool onGroup,
                     const PaletteCatalog &catalog, const std::function<Edit(const QString &)> &fail)
{
    const NodeTemplate *t = catalog.nodeTemplate(id);
    if (!t)
        return fail(tr("unknown node template \"%1\"").arg(QString::fromStdString(id)));
    Plan next = plan;
    carryCustomDevice(next, catalog, t->device);
    // A rack-scale template (NVL72) comes a whole scale-up domain at a time and sets the plan's domain.
    const std::int64_t perDrop =
        t->scaleUpDomain > 0 ? std::max<std::int64_t>(1, t->scaleUpDomain / t->gpusPerNode) : 1;
    if (t->scaleUpDomain > 0)
        next.cluster.scaleUpDomain = t->scaleUpDomain;
    const NodeGroup added{t->name, t->device, t->gpusPerNode, perDrop, t->intraNodeLink};
    const auto sameKind = [&](const NodeGroup &g) {
        return g.device == added.device && g.gpusPerNode == added.gpusPerNode && g.intraNodeLink == added.intraNodeLink;
    };
    // A node like the target (or, on empty canvas, like any group) joins that group.
    int join = -1;
    if (onGroup && sameKind(groups[std::size_t(target)]))
        join = target;
    for (int i = 0; join < 0 && !onGroup && i < int(groups.size()); ++i)
        if (sameKind(groups[std::size_t(i)]))
            join = i;
    int group = join;
    if (join >= 0) {
        groups[std::size_t(join)].nodes += perDrop;
        if (groups[std::size_t(join)].templateName.empty())
            groups[std::size_t(join)].templateName = t->name;
    } else {
        group = onGroup ? target + 1 : int(groups.size());
        groups.insert(groups.begin() + group, added);
    }
    return finish(std::move(next), std::move(groups),
                  perDrop > 1 ? tr("Add %1 rack (%2 nodes)").arg(QString::fromStdString(t->name)).arg(perDrop)
                              : tr("Add %1 node").arg(QString::fromStdString(t->name)),
                  join >= 0 ? ClusterEdit::Kind::AddNodes : ClusterEdit::Kind::AddNodeGroup, group);
}

/// A device: on a node group, that group's device; on empty canvas, a node of it with its own links.
Edit useDevice(const Plan &plan, std::vector<NodeGroup> groups, const std::string &id, int target, bool onGroup,
               const PaletteCatalog &catalog, const std::function<Edit(const QString &)> &fail)
{
    const DeviceSpec *d = catalog.device(id, plan);
    if (!d)
        return fail(tr("unknown device \"%1\"").arg(QString::fromStdString(id)));
    Plan next = plan;
    carryCustomDevice(next, catalog, id);
    const QString name = QString::fromStdString(d->name);
    if (onGroup) {
        NodeGroup &g = groups[std::size_t(target)];
        if (g.device == id)
            return fail(tr("this node group already uses %1").arg(name));
        g.device = id;
        g.templateName.clear();
        return finish(std::move(next), std::move(groups), tr("Use %1 in node group %2").arg(name).arg(target + 1),
                      ClusterEdit::Kind::SetNodeGroupPart, target);
    }
    // A device on empty canvas: one node of it, as many per node as the cluster has, its own links.
    groups.push_back({std::string(), id, plan.cluster.gpusPerNode, 1, std::string()});
    const int added = int(groups.size()) - 1;
    return finish(std::move(next), std::move(groups), tr("Add a node of %1").arg(name), ClusterEdit::Kind::AddNodeGroup,
                  added);
}

Edit useIntraNodeLink(const Plan &plan, std::vector<NodeGroup> groups, const std::string &id, int target, bool onGroup,
                      const PaletteCatalog &catalog, const std::function<Edit(const QString &)> &fail)
{
    const LinkSpec *link = catalog.catalog->intraNodeLink(id);
    if (!link)
        return fail(tr("unknown intra-node link \"%1\"").arg(QString::fromStdString(id)));
    if (!onGroup)
        return fail(tr("drop an intra-node link on a node group"));
    NodeGroup &g = groups[std::size_t(target)];
    if (g.intraNodeLink == id)
        return fail(tr("this node group already uses %1").arg(QString::fromStdString(link->name)));
    g.intraNodeLink = id;
    return finish(plan, std::move(groups),
                  tr("Connect node group %1 with %2").arg(target + 1).arg(QString::fromStdString(link->name)),
                  ClusterEdit::Kind::SetNodeGroupPart, target);
}

Edit useNetwork(const Plan &plan, const std::string &id, const PaletteCatalog &catalog,
                const std::function<Edit(const QString &)> &fail)
{
    const LinkSpec *network = catalog.catalog->network(id);
    if (!network)
        return fail(tr("unknown network \"%1\"").arg(QString::fromStdString(id)));
    if (plan.cluster.network == id)
        return fail(tr("the cluster already uses %1").arg(QString::fromStdString(network->name)));
    Plan next = plan;
    next.cluster.network = id;
    return ClusterEdit{std::move(next), tr("Connect nodes with %1").arg(QString::fromStdString(network->name)),
                       ClusterEdit::Kind::SetNetwork, -1};
}

} // namespace

std::optional<ClusterEdit> applyPaletteEntry(const Plan &plan, const PaletteEntry &entry, int target,
                                             const PaletteCatalog &catalog, QString *why)
{
    std::vector<NodeGroup> groups = plan.cluster.groups();
    const bool onGroup = target >= 0 && target < int(groups.size());
    const std::string id = entry.id.toStdString();
    const std::function<Edit(const QString &)> fail = [why](const QString &message) -> Edit {
        if (why)
            *why = message;
        return std::nullopt;
    };
    switch (entry.kind) {
    case PaletteEntry::Kind::NodeTemplate:
        return addTemplateNode(plan, std::move(groups), id, target, onGroup, catalog, fail);
    case PaletteEntry::Kind::Device: return useDevice(plan, std::move(groups), id, target, onGroup, catalog, fail);
    case PaletteEntry::Kind::IntraNodeLink:
        return useIntraNodeLink(plan, std::move(groups), id, target, onGroup, catalog, fail);
    case PaletteEntry::Kind::Network: return useNetwork(plan, id, catalog, fail);
    }
    return std::nullopt;
}

std::optional<ClusterEdit> removeNodeGroup(const Plan &plan, int index, QString *why)
{
    std::vector<NodeGroup> groups = plan.cluster.groups();
    if (index < 0 || index >= int(groups.size()))
        return std::nullopt;
    if (groups.size() == 1) {
        if (why)
            *why = tr("a cluster needs at least one node group");
        return std::nullopt;
    }
    groups.erase(groups.begin() + index);
    return finish(plan, std::move(groups), tr("Remove node group %1").arg(index + 1),
                  ClusterEdit::Kind::RemoveNodeGroup, index);
}

Plan withGroup(const Plan &plan, int index, const NodeGroup &group, const PaletteCatalog &catalog)
{
    std::vector<NodeGroup> groups = plan.cluster.groups();
    if (index < 0 || index >= int(groups.size()))
        return plan;
    groups[std::size_t(index)] = group;
    Plan next = plan;
    carryCustomDevice(next, catalog, group.device);
    return finish(std::move(next), std::move(groups), QString()).plan;
}

} // namespace trainplan
