#include "ui/cluster/ClusterPalette.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QMimeData>
#include <QPushButton>
#include <QStyledItemDelegate>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "ui/cluster/CustomCatalog.h"
#include "ui/cluster/CustomEntryDialogs.h"
#include "core/common/Units.h"

namespace trainplan {

namespace {

constexpr int kEntryRole = Qt::UserRole + 1;

/// Row heights for wrapped entries measured at the width the entry is drawn in: the column less the
/// indentation of its depth (a tree view measures with the whole column, so a name that wraps in the
/// narrower drawn space kept one line's height and lost its end).
class WrappedEntryDelegate : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override
    {
        const auto *view = qobject_cast<const QTreeView *>(option.widget);
        if (!view)
            return QStyledItemDelegate::sizeHint(option, index);
        int depth = view->rootIsDecorated() ? 1 : 0;
        for (QModelIndex p = index.parent(); p.isValid(); p = p.parent())
            ++depth;
        QStyleOptionViewItem measured(option);
        measured.rect = QRect(0, 0, std::max(40, view->columnWidth(index.column()) - depth * view->indentation()), 1);
        return QStyledItemDelegate::sizeHint(measured, index);
    }
};

/// A tree that drags its entries with the palette mime type.
class PaletteTree : public QTreeWidget
{
public:
    using QTreeWidget::QTreeWidget;

protected:
    // Wrapped entries need their row heights again at a new width (the view keeps them from the first layout).
    void resizeEvent(QResizeEvent *event) override
    {
        QTreeWidget::resizeEvent(event);
        scheduleDelayedItemsLayout();
    }
    QStringList mimeTypes() const override { return {QLatin1String(kPaletteMimeType)}; }
    QMimeData *mimeData(const QList<QTreeWidgetItem *> &items) const override
    {
        if (items.isEmpty() || items.front()->data(0, kEntryRole).toString().isEmpty())
            return nullptr;
        auto *mime = new QMimeData;
        mime->setData(QLatin1String(kPaletteMimeType), items.front()->data(0, kEntryRole).toString().toUtf8());
        mime->setText(items.front()->text(0));
        return mime;
    }
};

QString gb(double bytesPerSecond)
{
    return QString::fromStdString(units::formatNumber(bytesPerSecond / units::Giga, 1)) + QStringLiteral(" GB/s");
}

} // namespace

ClusterPalette::ClusterPalette(const Catalog &catalog, CustomCatalog *custom, QWidget *parent)
    : QWidget(parent), m_catalog(catalog), m_custom(custom), m_tree(new PaletteTree)
{
    m_tree->setObjectName(QStringLiteral("clusterPalette"));
    m_tree->setHeaderHidden(true);
    m_tree->setDragEnabled(true);
    m_tree->setDragDropMode(QAbstractItemView::DragOnly);
    m_tree->setSelectionMode(QAbstractItemView::SingleSelection);
    m_tree->setRootIsDecorated(true);
    // Entry names wrap onto a second line rather than losing their end to an ellipsis.
    m_tree->setUniformRowHeights(false);
    m_tree->setWordWrap(true);
    m_tree->setItemDelegate(new WrappedEntryDelegate(m_tree));
    m_tree->setToolTip(tr("Drag onto the cluster, or click an entry and then click the cluster"));
    m_tree->setTextElideMode(Qt::ElideNone);
    m_tree->setMinimumWidth(160);

    auto *newDeviceButton = new QPushButton(tr("New Accelerator…"));
    newDeviceButton->setObjectName(QStringLiteral("newAccelerator"));
    auto *newTemplateButton = new QPushButton(tr("New Node…"));
    connect(newDeviceButton, &QPushButton::clicked, this, &ClusterPalette::newDevice);
    connect(newTemplateButton, &QPushButton::clicked, this, &ClusterPalette::newTemplate);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(newDeviceButton);
    buttons->addWidget(newTemplateButton);
    auto *column = new QVBoxLayout(this);
    column->setContentsMargins(0, 0, 0, 0);
    column->addWidget(m_tree);
    column->addLayout(buttons);

    connect(m_tree, &QTreeWidget::itemClicked, this, [this](QTreeWidgetItem *item) {
        emit entryChosen(PaletteEntry::fromString(item->data(0, kEntryRole).toString()));
    });
    connect(m_custom, &CustomCatalog::changed, this, &ClusterPalette::rebuild);
    rebuild();
}

void ClusterPalette::rebuild()
{
    m_tree->clear();
    const auto section = [this](const QString &title) {
        auto *item = new QTreeWidgetItem(m_tree, {title});
        item->setFlags(Qt::ItemIsEnabled);
        QFont font = item->font(0);
        font.setBold(true);
        item->setFont(0, font);
        item->setExpanded(true);
        return item;
    };
    const auto entry = [](QTreeWidgetItem *parent, const QString &text, const PaletteEntry &e, const QString &tip) {
        auto *item = new QTreeWidgetItem(parent, {text});
        item->setData(0, kEntryRole, e.toString());
        item->setToolTip(0, tip);
        item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsDragEnabled);
        return item;
    };
    using Kind = PaletteEntry::Kind;
    QTreeWidgetItem *nodes = section(tr("Nodes"));
    const auto addTemplate = [&](const NodeTemplate &t, bool custom) {
        const DeviceSpec *d = m_catalog.device(t.device);
        QString tip = QString::fromStdString(t.name);
        if (d)
            tip += tr("\n%1 x %2, %3 HBM each")
                       .arg(t.gpusPerNode)
                       .arg(QString::fromStdString(d->name))
                       .arg(QString::fromStdString(units::formatNumber(d->memoryBytes / units::GiB, 0)) +
                            QStringLiteral(" GiB"));
        if (const LinkSpec *l = m_catalog.intraNodeLink(t.intraNodeLink))
            tip += tr("\n%1, %2 per GPU").arg(QString::fromStdString(l->name), gb(l->bandwidthBytesPerSecond));
        entry(nodes, QString::fromStdString(t.name) + (custom ? tr(" (custom)") : QString()),
              {Kind::NodeTemplate, QString::fromStdString(t.id)}, tip);
    };
    for (const NodeTemplate &t : m_catalog.nodeTemplates())
        addTemplate(t, false);
    for (const NodeTemplate &t : m_custom->templates())
        addTemplate(t, true);

    QTreeWidgetItem *devices = section(tr("Accelerators"));
    const auto addDevice = [&](const DeviceSpec &d, bool custom) {
        entry(devices, QString::fromStdString(d.name) + (custom ? tr(" (custom)") : QString()),
              {Kind::Device, QString::fromStdString(d.id)},
              tr("%1\n%2 GiB HBM, %3 TB/s\nDrop on a node group to change its accelerator, or on empty space for a new "
                 "node")
                  .arg(QString::fromStdString(d.name))
                  .arg(QString::fromStdString(units::formatNumber(d.memoryBytes / units::GiB, 0)))
                  .arg(QString::fromStdString(units::formatNumber(d.memoryBandwidthBytesPerSecond / units::Tera, 2))));
    };
    for (const DeviceSpec &d : m_catalog.devices())
        addDevice(d, false);
    for (const DeviceSpec &d : m_custom->devices())
        addDevice(d, true);

    QTreeWidgetItem *links = section(tr("Intra-node links"));
    for (const LinkSpec &l : m_catalog.intraNodeLinks())
        entry(links, QString::fromStdString(l.name), {Kind::IntraNodeLink, QString::fromStdString(l.id)},
              tr("%1 per GPU and direction, %2 µs\nDrop on a node group").arg(gb(l.bandwidthBytesPerSecond))
                  .arg(QString::fromStdString(units::formatNumber(l.latencySeconds / units::Micro, 1))));
    QTreeWidgetItem *networks = section(tr("Networks"));
    for (const LinkSpec &l : m_catalog.networks())
        entry(networks, QString::fromStdString(l.name), {Kind::Network, QString::fromStdString(l.id)},
              tr("%1 per GPU and direction, %2 µs\nDrop anywhere on the cluster").arg(gb(l.bandwidthBytesPerSecond))
                  .arg(QString::fromStdString(units::formatNumber(l.latencySeconds / units::Micro, 1))));
}

bool ClusterPalette::selectEntry(const PaletteEntry &entry)
{
    const QString key = entry.toString();
    for (QTreeWidgetItemIterator it(m_tree); *it; ++it) {
        if ((*it)->data(0, kEntryRole).toString() == key) {
            m_tree->setCurrentItem(*it);
            emit entryChosen(entry);
            return true;
        }
    }
    return false;
}

void ClusterPalette::clearSelection()
{
    m_tree->clearSelection();
    m_tree->setCurrentItem(nullptr);
}

void ClusterPalette::newDevice()
{
    CustomDeviceDialog dialog(m_catalog, this);
    if (dialog.exec() == QDialog::Accepted)
        m_custom->addDevice(dialog.device());
}

void ClusterPalette::newTemplate()
{
    NodeTemplateDialog dialog(m_catalog, m_custom->devices(), this);
    if (dialog.exec() == QDialog::Accepted)
        m_custom->addTemplate(dialog.nodeTemplate());
}

} // namespace trainplan
