#pragma once
// The cluster builder: palette | canvas | inspector. Owns the user's custom catalog (settings) and the
// palette catalog the canvas resolves entries with.

#include <QWidget>

#include <memory>

#include "ui/cluster/ClusterEdits.h"

namespace trainplan {

class ClusterCanvas;
class ClusterInspector;
class ClusterPalette;
class CustomCatalog;
class PlanDocument;

class ClusterView : public QWidget
{
    Q_OBJECT

public:
    explicit ClusterView(PlanDocument *document, QWidget *parent = nullptr);
    ~ClusterView() override;

    ClusterCanvas *canvas() const { return m_canvas; }
    ClusterPalette *palette() const { return m_palette; }
    ClusterInspector *inspector() const { return m_inspector; }
    CustomCatalog *customCatalog() const { return m_custom; }

signals:
    void statusMessage(const QString &message);

private:
    void syncCustom();

    PlanDocument *m_document;
    CustomCatalog *m_custom;
    std::unique_ptr<PaletteCatalog> m_paletteCatalog;
    ClusterPalette *m_palette;
    ClusterCanvas *m_canvas;
    ClusterInspector *m_inspector;
};

} // namespace trainplan
