#include "ui/learn/pages/Pages.h"
#include "io/output/Format.h"

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include "learn/Teaching.h"
#include "charts/ChartStyle.h"
#include "ui/document/PlanDocument.h"
#include "ui/learn/Figures.h"
#include "ui/learn/pages/PageWidgets.h"

namespace trainplan {

namespace {

using namespace learn;

// --- Figure 16.5: scaling ---------------------------------------------------------------------------

class ScalingPage : public LearnPage
{
public:
    explicit ScalingPage(PlanDocument *d) : LearnPage(d, tr("16.5 Scaling"))
    {
        auto *column = new QVBoxLayout(this);
        addHeading(
            column,
            tr("Strong scaling of the text's illustrative model: compute 1/W plus communication a log₂W + b(W − 1). "
               "Edit the communication terms; with overlap, communication hides behind compute where it can."));
        auto *controls = new QHBoxLayout;
        m_a = spin(0, 1, 0.012, 4);
        m_b = spin(0, 0.1, 0.0008, 5);
        m_overlap = new QCheckBox(tr("Overlap communication with compute"));
        m_overlap->setObjectName(QStringLiteral("overlap"));
        controls->addWidget(new QLabel(tr("a")));
        controls->addWidget(m_a);
        controls->addWidget(new QLabel(tr("b")));
        controls->addWidget(m_b);
        controls->addWidget(m_overlap);
        m_panels = new QCheckBox(tr("Two panels, as the text"));
        m_panels->setObjectName(QStringLiteral("twoPanels"));
        m_panels->setToolTip(
            tr("Speedup and efficiency side by side on their own axes (the text's Figure 16.5) instead of one "
               "plot with two y-axes"));
        controls->addWidget(m_panels);
        m_summary = new QLabel;
        controls->addWidget(m_summary, 1);
        column->addLayout(controls);
        m_figure = new PlotFigure(QStringLiteral("figure-16-5-scaling"), [this] { return csv(); });
        column->addWidget(m_figure, 1);
        QCustomPlot *plot = m_figure->plot();
        plot->yAxis->setScaleType(QCPAxis::stLogarithmic);
        QSharedPointer<QCPAxisTickerLog> log2(new QCPAxisTickerLog);
        log2->setLogBase(2);
        plot->yAxis->setTicker(log2);
        for (QDoubleSpinBox *s : {m_a, m_b})
            connect(s, &QDoubleSpinBox::valueChanged, this, [this] { draw(); });
        connect(m_overlap, &QCheckBox::toggled, this, [this] { draw(); });
        connect(m_panels, &QCheckBox::toggled, this, [this] { draw(); });
        draw();
    }
    ExportableChart *figure() override { return m_figure; }
    void refresh() override { draw(); } // also after the palette changes (presentation mode)
    QCheckBox *overlapBox() const { return m_overlap; }
    QCheckBox *panelsBox() const { return m_panels; }
    ScalingCurve curve() const { return illustrativeScaling(m_a->value(), m_b->value(), m_overlap->isChecked()); }

private:
    QString csv() const
    {
        const ScalingCurve c = curve();
        QString out = QStringLiteral("workers,step_time,speedup,efficiency\n");
        for (std::size_t i = 0; i < c.workers.size(); ++i)
            out += QStringLiteral("%1,%2,%3,%4\n")
                       .arg(c.workers[i])
                       .arg(c.stepTime[i], 0, 'g', 17)
                       .arg(c.speedup[i], 0, 'g', 17)
                       .arg(c.efficiency[i], 0, 'g', 17);
        return out;
    }
    void draw()
    {
        QCustomPlot *plot = m_figure->plot();
        plot->clearGraphs();
        // One plot with efficiency on a right axis, or the text's two panels (Figure 16.5).
        QCPAxisRect *right = m_figure->setSecondPanel(m_panels->isChecked());
        chartstyle::apply(plot, palette());
        const ScalingCurve c = curve();
        const QVector<double> w(c.workers.begin(), c.workers.end());
        QCPGraph *ideal = plot->addGraph();
        ideal->setName(tr("ideal"));
        ideal->setData(w, w);
        ideal->setPen(QPen(palette().color(QPalette::Mid), 1.5, Qt::DashLine));
        QCPGraph *speedup = plot->addGraph();
        speedup->setName(tr("speedup S(W)"));
        speedup->setData(w, QVector<double>(c.speedup.begin(), c.speedup.end()));
        speedup->setPen(QPen(chartstyle::series(0, palette()), 2.5));
        speedup->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 6));
        QCPAxis *effX = right ? right->axis(QCPAxis::atBottom) : plot->xAxis;
        QCPAxis *effY = right ? right->axis(QCPAxis::atLeft) : plot->yAxis2;
        QCPGraph *eff = plot->addGraph(effX, effY);
        eff->setName(right ? tr("efficiency E(W)") : tr("efficiency E(W) (right axis)"));
        eff->setData(w, QVector<double>(c.efficiency.begin(), c.efficiency.end()));
        eff->setPen(QPen(chartstyle::series(1, palette()), 2.5));
        eff->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 6));
        QSharedPointer<QCPAxisTickerLog> log2(new QCPAxisTickerLog);
        log2->setLogBase(2);
        for (QCPAxis *x : {plot->xAxis, effX}) {
            x->setScaleType(QCPAxis::stLogarithmic);
            x->setTicker(log2);
            x->setRange(0.8, 160);
            x->setLabel(tr("Workers W"));
        }
        plot->yAxis->setRange(0.8, 160);
        plot->yAxis->setLabel(tr("Speedup"));
        plot->yAxis2->setVisible(!right);
        effY->setScaleType(QCPAxis::stLinear);
        effY->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
        effY->setRange(0, 1.05);
        effY->setLabel(tr("Parallel efficiency"));
        plot->legend->setVisible(true);
        plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
        m_summary->setText(
            tr("W = 128: S = %1, E = %2").arg(fmt::number(c.speedup.back(), 2), fmt::number(c.efficiency.back(), 3)));
        plot->replot();
    }

    QDoubleSpinBox *m_a, *m_b;
    QCheckBox *m_overlap, *m_panels;
    QLabel *m_summary;
    PlotFigure *m_figure;
};

} // namespace

LearnPage *makeScalingPage(PlanDocument *document)
{
    return new ScalingPage(document);
}

} // namespace trainplan
