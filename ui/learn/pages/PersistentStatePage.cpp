#include "ui/learn/pages/Pages.h"
#include "io/output/Format.h"

#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include "core/common/Units.h"
#include "charts/ChartStyle.h"
#include "ui/document/PlanDocument.h"
#include "ui/learn/Figures.h"
#include "ui/learn/pages/PageWidgets.h"

namespace trainplan {

namespace {

using namespace learn;

// --- Figure 16.2: persistent state ------------------------------------------------------------------

class PersistentStatePage : public LearnPage
{
public:
    explicit PersistentStatePage(PlanDocument *d) : LearnPage(d, tr("16.2 Persistent state per worker"))
    {
        auto *column = new QVBoxLayout(this);
        addHeading(
            column,
            tr("Replicated mixed-precision Adam state against ZeRO stages 1-3, for any parameter count, worker count "
               "and byte layout. Activations are a separate term."));
        auto *controls = new QHBoxLayout;
        m_params = spin(0.001, 100000, 1, 3, tr(" B params"));
        m_workers = spin(1, 1e6, 8, 0, tr(" workers"));
        m_qp = spin(0, 16, 2, 1, tr(" B param"));
        m_qg = spin(0, 16, 2, 1, tr(" B grad"));
        m_qm = spin(0, 16, 4, 1, tr(" B master"));
        m_qo = spin(0, 32, 8, 1, tr(" B moments"));
        for (QWidget *w :
             {static_cast<QWidget *>(m_params), static_cast<QWidget *>(m_workers), static_cast<QWidget *>(m_qp),
              static_cast<QWidget *>(m_qg), static_cast<QWidget *>(m_qm), static_cast<QWidget *>(m_qo)})
            controls->addWidget(w);
        auto *fromPlan = new QPushButton(tr("From the Plan"));
        controls->addWidget(fromPlan);
        controls->addStretch(1);
        column->addLayout(controls);
        m_figure = new PlotFigure(QStringLiteral("figure-16-2-persistent-state"), [this] { return csv(); });
        column->addWidget(m_figure, 1);
        m_formula = new QLabel;
        m_formula->setWordWrap(true);
        column->addWidget(m_formula);
        for (QDoubleSpinBox *s : {m_params, m_workers, m_qp, m_qg, m_qm, m_qo})
            connect(s, &QDoubleSpinBox::valueChanged, this, [this] { draw(); });
        connect(fromPlan, &QPushButton::clicked, this, [this] {
            const Estimate &e = m_document->estimate();
            if (e.valid)
                m_params->setValue(e.model.parameters / units::Giga);
            m_workers->setValue(double(m_document->plan().parallel.data));
        });
        draw();
    }
    ExportableChart *figure() override { return m_figure; }
    void refresh() override { draw(); } // also after the palette changes (presentation mode)
    ModelStateBytes perWorker(int stage) const
    {
        const StateBytesPerParameter bytes{m_qp->value(), m_qg->value(), m_qm->value() + m_qo->value(), m_qm->value()};
        return shardedModelState(m_params->value() * units::Giga, bytes, m_workers->value(), stage);
    }

private:
    QString csv() const
    {
        QString out = QStringLiteral("case,bytes_per_worker\n");
        for (int s = 0; s < 4; ++s)
            out += QStringLiteral("zero_stage_%1,%2\n").arg(s).arg(perWorker(s).total(), 0, 'g', 17);
        return out;
    }
    void draw()
    {
        QCustomPlot *plot = m_figure->plot();
        plot->clearPlottables();
        chartstyle::apply(plot, palette());
        const std::array<ModelStateBytes, 4> stages{perWorker(0), perWorker(1), perWorker(2), perWorker(3)};
        const auto part = [&](int k, int stage) {
            const ModelStateBytes &s = stages[std::size_t(stage)];
            return k == 0 ? s.parameters : k == 1 ? s.gradients : k == 2 ? s.master : s.moments();
        };
        // The text's legend: the format of each term from its bytes per parameter (2 B: FP16, 4 B: FP32; Adam
        // keeps two moments, so 8 B are two FP32 moments).
        const auto format = [](double bytes) {
            return bytes == 1   ? QStringLiteral("FP8 ")
                   : bytes == 2 ? QStringLiteral("FP16 ")
                   : bytes == 4 ? QStringLiteral("FP32 ")
                   : bytes == 0 ? tr("no ")
                                : tr("%1-byte ").arg(fmt::number(bytes, 1));
        };
        const QStringList names{format(m_qp->value()) + tr("parameters"), format(m_qg->value()) + tr("gradients"),
                                format(m_qm->value()) + tr("master weights"),
                                format(m_qo->value() / 2) + tr("Adam moments")};
        QCPBars *below = nullptr;
        for (int k = 0; k < 4; ++k) {
            auto *bars = new QCPBars(plot->xAxis, plot->yAxis);
            bars->setName(names[k]);
            bars->setBrush(chartstyle::series(k, palette()));
            bars->setPen(Qt::NoPen);
            bars->setWidth(0.6);
            for (int c = 0; c < 4; ++c)
                bars->addData(c, part(k, c) / units::GB);
            if (below)
                bars->moveAbove(below);
            below = bars;
        }
        QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
        ticker->addTick(0, tr("replicated"));
        ticker->addTick(1, tr("ZeRO-1: shard optimizer"));
        ticker->addTick(2, tr("ZeRO-2: + gradients"));
        ticker->addTick(3, tr("ZeRO-3: + parameters"));
        plot->xAxis->setTicker(ticker);
        plot->xAxis->setRange(-0.6, 3.6);
        plot->yAxis->setLabel(tr("Persistent state per worker (GB = 10⁹ bytes, as the text)"));
        plot->yAxis->setRange(0, perWorker(0).total() / units::GB * 1.15);
        plot->legend->setVisible(true);
        // Each bar's total above it, as the text's figure prints them.
        plot->clearItems();
        for (int c = 0; c < 4; ++c) {
            auto *total = new QCPItemText(plot);
            total->position->setCoords(c, perWorker(c).total() / units::GB);
            total->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
            total->setPadding(QMargins(0, 0, 0, 4));
            total->setText(tr("%1 GB").arg(fmt::number(perWorker(c).total() / units::GB, 1)));
            total->setColor(palette().color(QPalette::Text));
            total->setFont(font());
        }
        QString totals;
        for (int s = 0; s < 4; ++s)
            totals += (s ? QStringLiteral(", ") : QString()) +
                      tr("stage %1: %2 GB").arg(s).arg(fmt::number(perWorker(s).total() / units::GB, 2));
        m_formula->setText(
            tr("M = P (q_p/w_p + q_g/w_g + (q_master + q_moments)/w_o), w = W for the sharded terms: %1 per worker.")
                .arg(totals));
        plot->replot();
    }

    QDoubleSpinBox *m_params, *m_workers, *m_qp, *m_qg, *m_qm, *m_qo;
    PlotFigure *m_figure;
    QLabel *m_formula;
};

} // namespace

LearnPage *makePersistentStatePage(PlanDocument *document)
{
    return new PersistentStatePage(document);
}

} // namespace trainplan
