#include "ui/learn/pages/Pages.h"
#include "io/output/Format.h"

#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMouseEvent>
#include <QPushButton>
#include <QVBoxLayout>

#include <cmath>

#include <qcustomplot.h>

#include "core/common/Units.h"
#include "core/compute/Roofline.h"
#include "io/output/ChartCsv.h"
#include "io/output/Evidence.h"
#include "charts/ChartStyle.h"
#include "ui/document/PlanDocument.h"
#include "ui/learn/Figures.h"
#include "ui/learn/pages/PageWidgets.h"

namespace trainplan {

namespace {

using namespace learn;

// --- Figure 16.4: roofline with draggable ceilings --------------------------------------------------

constexpr double kTextPeak = 300, kTextBandwidth = 1.5; ///< the ceilings of the text's Figure 16.4

class RooflinePage : public LearnPage
{
public:
    explicit RooflinePage(PlanDocument *d) : LearnPage(d, tr("16.4 The roofline"))
    {
        auto *column = new QVBoxLayout(this);
        addHeading(
            column,
            tr("P ≤ min(P_peak, B × I). Drag the flat roof up or down to change the peak, the slope left or right to "
               "change the bandwidth; the points are the current plan's kernels and the text's three examples."));
        auto *controls = new QHBoxLayout;
        m_peak = spin(1, 100000, kTextPeak, 0, tr(" TFLOP/s"));
        m_peak->setObjectName(QStringLiteral("peak"));
        m_bandwidth = spin(0.01, 1000, kTextBandwidth, 2, tr(" TB/s"));
        m_bandwidth->setObjectName(QStringLiteral("bandwidth"));
        auto *fromDevice = new QPushButton(tr("From the Plan's Device"));
        controls->addWidget(new QLabel(tr("Peak")));
        controls->addWidget(m_peak);
        controls->addWidget(new QLabel(tr("Bandwidth")));
        controls->addWidget(m_bandwidth);
        controls->addWidget(fromDevice);
        m_ridge = new QLabel;
        controls->addWidget(m_ridge, 1);
        column->addLayout(controls);
        m_figure = new PlotFigure(QStringLiteral("figure-16-4-roofline"),
                                  [this] { return io::rooflineCsv(m_document->estimate()); });
        column->addWidget(m_figure, 1);
        QCustomPlot *plot = m_figure->plot();
        plot->xAxis->setScaleType(QCPAxis::stLogarithmic);
        plot->yAxis->setScaleType(QCPAxis::stLogarithmic);
        plot->xAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
        plot->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
        plot->installEventFilter(this);
        connect(m_peak, &QDoubleSpinBox::valueChanged, this, [this] { draw(); });
        connect(m_bandwidth, &QDoubleSpinBox::valueChanged, this, [this] { draw(); });
        connect(fromDevice, &QPushButton::clicked, this, [this] {
            const Estimate &e = m_document->estimate();
            if (!e.valid)
                return;
            m_peak->setValue(detailsOf(e).roofline.plan.peakFlops / units::Tera);
            m_bandwidth->setValue(detailsOf(e).roofline.bandwidthBytesPerSecond / units::Tera);
        });
        draw();
    }
    ExportableChart *figure() override { return m_figure; }
    void refresh() override { draw(); }
    QDoubleSpinBox *peakSpin() const { return m_peak; }
    QDoubleSpinBox *bandwidthSpin() const { return m_bandwidth; }
    QCustomPlot *plot() const { return m_figure->plot(); }

protected:
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        QCustomPlot *plot = m_figure->plot();
        if (watched != plot)
            return false;
        if (event->type() == QEvent::MouseButtonPress) {
            const auto *me = static_cast<QMouseEvent *>(event);
            const double x = plot->xAxis->pixelToCoord(me->position().x());
            m_drag = x >= ridge() ? Drag::Peak : Drag::Bandwidth; // right of the ridge: the flat roof
            return true;
        }
        if (event->type() == QEvent::MouseMove && m_drag != Drag::None) {
            const auto *me = static_cast<QMouseEvent *>(event);
            const double x = plot->xAxis->pixelToCoord(me->position().x());
            const double y = plot->yAxis->pixelToCoord(me->position().y());
            if (m_drag == Drag::Peak && y > 0)
                m_peak->setValue(y);
            else if (m_drag == Drag::Bandwidth && x > 0 && y > 0)
                m_bandwidth->setValue(y / x); // the slope through the pointer: B = P / I
            return true;
        }
        if (event->type() == QEvent::MouseButtonRelease) {
            m_drag = Drag::None;
            return true;
        }
        return false;
    }

private:
    enum class Drag { None, Peak, Bandwidth };
    double ridge() const { return m_peak->value() / m_bandwidth->value(); }

    void draw()
    {
        QCustomPlot *plot = m_figure->plot();
        plot->clearGraphs();
        chartstyle::apply(plot, palette());
        const double peak = m_peak->value(), bw = m_bandwidth->value();
        m_ridge->setText(tr("ridge point %1 FLOP/byte").arg(fmt::number(peak / bw, 0)));
        QVector<double> x, y;
        for (double i = -2; i <= 5.0001; i += 0.05) {
            const double intensity = std::pow(10.0, i);
            x << intensity;
            y << std::min(peak, bw * intensity);
        }
        QCPGraph *roof = plot->addGraph();
        roof->setName(tr("ceiling"));
        roof->setData(x, y);
        roof->setPen(QPen(palette().color(QPalette::Text), 2.5));
        QCPGraph *examples = plot->addGraph();
        examples->setName(tr("text's examples (element-wise, normalisation, matmul)"));
        examples->setLineStyle(QCPGraph::lsNone);
        examples->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, chartstyle::series(1, palette()), 8));
        // The text's points (Figure 16.4: element-wise (1, 0.9), normalisation (5, 5.2), matmul (420, 220) under
        // 300 TFLOP/s and 1.5 TB/s) keep the share of their ceiling they reach there, so a dragged roof moves
        // them with it and none ever sits above it.
        for (const auto &[intensity, attained] : {std::pair{1.0, 0.9}, std::pair{5.0, 5.2}, std::pair{420.0, 220.0}}) {
            const double share = attained / std::min(kTextPeak, kTextBandwidth * intensity);
            examples->addData(intensity, share * std::min(peak, bw * intensity));
        }
        // The text's labels beside its three points, and its dashed ridge line (peak / bandwidth).
        plot->clearItems();
        const QStringList exampleNames{tr("element-wise"), tr("normalisation"), tr("matrix multiply")};
        for (int i = 0; i < examples->dataCount(); ++i) {
            auto *label = new QCPItemText(plot);
            label->position->setCoords(examples->dataMainKey(i), examples->dataMainValue(i));
            // Above and right of the point as the text sets them; the matrix multiply's under its point,
            // which sits just below the flat roof.
            const bool underRoof = i == 2;
            label->setPositionAlignment(underRoof ? Qt::AlignHCenter | Qt::AlignTop : Qt::AlignLeft | Qt::AlignBottom);
            label->setPadding(underRoof ? QMargins(0, 7, 0, 0) : QMargins(7, 0, 0, 7));
            label->setText(exampleNames.value(i));
            label->setColor(palette().color(QPalette::Text));
            label->setFont(font());
        }
        QCPGraph *ridgeLine = plot->addGraph();
        ridgeLine->setName(tr("ridge point (%1 FLOP/byte)").arg(fmt::number(peak / bw, 0)));
        ridgeLine->setPen(QPen(palette().color(QPalette::PlaceholderText), 1.5, Qt::DashLine));
        ridgeLine->setData({peak / bw, peak / bw}, {1e-6, 1e9});
        const Estimate &e = m_document->estimate();
        if (e.valid) {
            QCPGraph *ops = plot->addGraph();
            ops->setName(tr("this plan's kernels (at the set ceilings)"));
            ops->setLineStyle(QCPGraph::lsNone);
            ops->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, chartstyle::series(0, palette()), 6));
            // Each kernel at the fraction of its own device's roof it reaches, under the ceilings set here.
            const double devicePeak = detailsOf(e).roofline.plan.peakFlops;
            const double deviceBandwidth = detailsOf(e).roofline.bandwidthBytesPerSecond;
            for (const Op &op : e.step.ops) {
                if (op.flops <= 0 || op.bytes <= 0 || op.seconds <= 0)
                    continue;
                const double fraction =
                    std::min(1.0, op.flops / op.seconds / attainableFlops(op.intensity(), devicePeak, deviceBandwidth));
                ops->addData(op.intensity(), fraction * std::min(peak, bw * op.intensity()));
            }
        }
        plot->xAxis->setRange(0.01, 1e5);
        // Down to the lowest point under a low roof, up past the peak.
        plot->yAxis->setRange(std::min(0.1, 0.3 * std::min(peak, bw)), peak * 3);
        plot->xAxis->setLabel(tr("Arithmetic intensity (FLOP/byte)"));
        plot->yAxis->setLabel(tr("Throughput (TFLOP/s)"));
        plot->legend->setVisible(true);
        plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignBottom | Qt::AlignRight);
        plot->replot();
    }

    QDoubleSpinBox *m_peak, *m_bandwidth;
    QLabel *m_ridge;
    PlotFigure *m_figure;
    Drag m_drag = Drag::None;
};

} // namespace

LearnPage *makeRooflinePage(PlanDocument *document)
{
    return new RooflinePage(document);
}

} // namespace trainplan
