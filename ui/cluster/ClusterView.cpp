#include "ui/cluster/ClusterView.h"

#include <QHBoxLayout>
#include <QSplitter>

#include "ui/cluster/ClusterCanvas.h"
#include "ui/cluster/ClusterInspector.h"
#include "ui/cluster/ClusterPalette.h"
#include "ui/cluster/CustomCatalog.h"
#include "ui/document/PlanDocument.h"

namespace trainplan {

ClusterView::ClusterView(PlanDocument *document, QWidget *parent)
    : QWidget(parent), m_document(document), m_custom(new CustomCatalog(this)),
      m_paletteCatalog(std::make_unique<PaletteCatalog>())
{
    m_paletteCatalog->catalog = &document->catalog();
    syncCustom();
    m_palette = new ClusterPalette(document->catalog(), m_custom);
    m_canvas = new ClusterCanvas(document, m_paletteCatalog.get());
    m_inspector = new ClusterInspector(document, m_canvas, m_paletteCatalog.get());

    auto *splitter = new QSplitter(Qt::Horizontal);
    splitter->addWidget(m_palette);
    splitter->addWidget(m_canvas);
    splitter->addWidget(m_inspector);
    splitter->setStretchFactor(0, 0);
    splitter->setStretchFactor(1, 1);
    splitter->setStretchFactor(2, 0);
    splitter->setSizes({220, 640, 300});
    splitter->setChildrenCollapsible(false);
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(splitter);

    connect(m_custom, &CustomCatalog::changed, this, &ClusterView::syncCustom);
    connect(m_palette, &ClusterPalette::entryChosen, m_canvas, &ClusterCanvas::setPlacementEntry);
    connect(m_canvas, &ClusterCanvas::placementFinished, m_palette, &ClusterPalette::clearSelection);
    connect(m_canvas, &ClusterCanvas::statusMessage, this, &ClusterView::statusMessage);
}

ClusterView::~ClusterView() = default;

void ClusterView::syncCustom()
{
    m_paletteCatalog->customDevices = m_custom->devices();
    m_paletteCatalog->customTemplates = m_custom->templates();
}

} // namespace trainplan
