#pragma once
// The cluster builder's palette: node templates, accelerators, intra-node links and network tiers from
// the catalog and the user's custom entries. Drag an entry onto the canvas, or click it and then click
// the canvas (the placement tool). "New accelerator..." and "New node template..." add custom entries.

#include <QWidget>

#include <optional>

#include "ui/cluster/ClusterEdits.h"

class QTreeWidget;
class QTreeWidgetItem;

namespace trainplan {

class CustomCatalog;

class ClusterPalette : public QWidget
{
    Q_OBJECT

public:
    ClusterPalette(const Catalog &catalog, CustomCatalog *custom, QWidget *parent = nullptr);

    QTreeWidget *tree() const { return m_tree; }
    /// Selects the entry (for keyboard users and tests); false if it is not in the palette.
    bool selectEntry(const PaletteEntry &entry);
    void clearSelection();

signals:
    /// The user picked an entry to place with the next click on the canvas (nullopt: none).
    void entryChosen(const std::optional<PaletteEntry> &entry);

private:
    void rebuild();
    void newDevice();
    void newTemplate();

    const Catalog &m_catalog;
    CustomCatalog *m_custom;
    QTreeWidget *m_tree;
};

} // namespace trainplan
