#pragma once
// The cluster builder's inspector: the network tier, the selected node group's accelerator, GPUs per
// node, node count and intra-node link, the colour overlay, and the placement report (which link each
// kind of group uses; flags with their cost in step time). Widgets push undo commands; they refresh
// from the document under a guard.

#include <QWidget>

class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QGroupBox;
class QLabel;
class QPushButton;
class QSpinBox;

namespace trainplan {

class ClusterCanvas;
class PlanDocument;
enum class NodeGroupField : int;
struct PaletteCatalog;

class ClusterInspector : public QWidget
{
    Q_OBJECT

public:
    ClusterInspector(PlanDocument *document, ClusterCanvas *canvas, const PaletteCatalog *palette,
                     QWidget *parent = nullptr);

    QLabel *placementLabel() const { return m_placement; }
    QSpinBox *nodesSpin() const { return m_nodes; }
    QComboBox *overlayCombo() const { return m_overlay; }
    QLabel *overlayLegendLabel() const { return m_legend; }
    QDoubleSpinBox *networkBandwidthSpin() const { return m_networkBandwidth; }

private:
    void refresh();
    QString placementHtml() const;
    void refreshOverlayChoices();
    void refreshLegend();
    QGroupBox *createClusterBox();
    void addDeviceFigureFields(QFormLayout *clusterForm);
    void addDispatchFigureFields(QFormLayout *clusterForm);
    QGroupBox *createGroupBox();
    QGroupBox *createPlacementBox();
    void connectNetworkEdits();
    void connectFigureEdits();
    void editGroup(NodeGroupField field);

    PlanDocument *m_document;
    ClusterCanvas *m_canvas;
    const PaletteCatalog *m_palette;
    QComboBox *m_network;
    QDoubleSpinBox *m_networkBandwidth;
    QDoubleSpinBox *m_networkLatency;
    QDoubleSpinBox *m_hostLink;
    QDoubleSpinBox *m_hostMemory;
    QDoubleSpinBox *m_hostLaunch;
    QDoubleSpinBox *m_hostEnqueue;
    QDoubleSpinBox *m_flexDispatch;
    QDoubleSpinBox *m_networkAllToAll;
    QDoubleSpinBox *m_intraNodeAllToAll;
    QDoubleSpinBox *m_intraBandwidth;
    QDoubleSpinBox *m_intraLatency;
    QDoubleSpinBox *m_runtimeContext;
    QComboBox *m_overlay;
    QLabel *m_legend;
    QLabel *m_groupTitle;
    QComboBox *m_device;
    QSpinBox *m_gpus;
    QSpinBox *m_nodes;
    QComboBox *m_link;
    QPushButton *m_remove;
    QLabel *m_placement;
    bool m_updating = false;
};

} // namespace trainplan
