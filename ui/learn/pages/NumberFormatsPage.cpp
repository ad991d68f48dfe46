#include "ui/learn/pages/Pages.h"
#include "io/output/Format.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>

#include <qcustomplot.h>

#include "learn/NumberFormat.h"
#include "charts/ChartStyle.h"
#include "ui/document/PlanDocument.h"
#include "ui/learn/Figures.h"
#include "ui/learn/pages/PageWidgets.h"

namespace trainplan {

namespace {

using namespace learn;

// --- Figure 16.3: number formats --------------------------------------------------------------------

class NumberFormatsPage : public LearnPage
{
public:
    explicit NumberFormatsPage(PlanDocument *d) : LearnPage(d, tr("16.3 Number formats"))
    {
        auto *column = new QVBoxLayout(this);
        addHeading(
            column,
            tr("Range and resolution follow from the bit layout (sign, exponent, significand): computed here, not "
               "typed "
               "in. Probe a value to see how it rounds, overflows or underflows in each format, and what loss scaling "
               "does to a small gradient. MXFP8 and NVFP4 store narrow elements with a shared scale per block: the "
               "scale moves each block's range, so the element's own range only has to cover one block."));
        m_table = makeTable({tr("Format"), tr("Bits (S/E/M)"), tr("Largest finite"), tr("Smallest normal"),
                             tr("Smallest subnormal"), tr("Spacing at 1"), tr("Decimal digits"), tr("Range (decades)"),
                             tr("Block scale")});
        m_table->setObjectName(QStringLiteral("formats"));
        int row = 0;
        for (const NumberFormat &f : numberFormats()) {
            const FormatProperties p = properties(f);
            setRow(
                m_table, row++,
                {qs(f.name), QStringLiteral("1/%1/%2").arg(f.exponentBits).arg(f.mantissaBits),
                 QString::number(p.maxFinite, 'g', 5), QString::number(p.minNormal, 'g', 5),
                 QString::number(p.minSubnormal, 'g', 5), QString::number(p.epsilon, 'g', 5),
                 fmt::number(p.decimalDigits, 2), fmt::number(p.dynamicRangeDecades, 1),
                 f.blockSize > 0 ? tr("one %1 per %2 elements").arg(qs(f.scaleFormat)).arg(f.blockSize) : tr("none")});
        }
        m_table->setMaximumHeight(m_table->verticalHeader()->length() + m_table->horizontalHeader()->height() + 4);
        column->addWidget(m_table);
        m_figure = new PlotFigure(QStringLiteral("figure-16-3-number-formats"), [] {
            QString csv = QStringLiteral(
                "format,exponent_bits,mantissa_bits,max_finite,min_normal,min_subnormal,decimal_digits\n");
            for (const NumberFormat &f : numberFormats()) {
                const FormatProperties p = properties(f);
                csv += QStringLiteral("%1,%2,%3,%4,%5,%6,%7\n")
                           .arg(qs(f.name))
                           .arg(f.exponentBits)
                           .arg(f.mantissaBits)
                           .arg(p.maxFinite, 0, 'g', 17)
                           .arg(p.minNormal, 0, 'g', 17)
                           .arg(p.minSubnormal, 0, 'g', 17)
                           .arg(p.decimalDigits, 0, 'g', 17);
            }
            return csv;
        });
        m_figure->setMinimumHeight(200);
        m_panels = new QCheckBox(tr("Two panels, as the text"));
        m_panels->setObjectName(QStringLiteral("twoPanels"));
        m_panels->setToolTip(
            tr("Range and resolution side by side on their own axes (the text's Figure 16.3) instead of one "
               "plot with two y-axes"));
        connect(m_panels, &QCheckBox::toggled, this, [this] { drawFigure(); });
        drawFigure();
        column->addWidget(m_panels);
        column->addWidget(m_figure, 1);
        auto *probeRow = new QHBoxLayout;
        m_value = new QLineEdit(QStringLiteral("1e8"));
        m_value->setObjectName(QStringLiteral("probeValue"));
        m_gradient = new QLineEdit(QStringLiteral("1e-8"));
        m_scale = new QLineEdit(QStringLiteral("65536"));
        probeRow->addWidget(new QLabel(tr("Value")));
        probeRow->addWidget(m_value);
        probeRow->addWidget(new QLabel(tr("Gradient")));
        probeRow->addWidget(m_gradient);
        probeRow->addWidget(new QLabel(tr("Loss scale")));
        probeRow->addWidget(m_scale);
        column->addLayout(probeRow);
        m_probe = makeTable({tr("Format"), tr("Stored value"), tr("Outcome"), tr("Relative error"), tr("Gradient"),
                             tr("Gradient × scale → FP32")});
        m_probe->setObjectName(QStringLiteral("probe"));
        m_probe->setMinimumHeight(150);
        column->addWidget(m_probe, 1);
        m_problem = new QLabel;
        column->addWidget(m_problem);
        for (QLineEdit *e : {m_value, m_gradient, m_scale})
            connect(e, &QLineEdit::textChanged, this, [this] { probe(); });
        probe();
    }
    void refresh() override { drawFigure(); }
    ExportableChart *figure() override { return m_figure; }
    QTableWidget *probeTable() const { return m_probe; }

private:
    /// The text's two panels in one: log10 of the largest finite value and the decimal digits, per format.
    void drawFigure()
    {
        QCustomPlot *plot = m_figure->plot();
        plot->clearPlottables();
        // One plot with digits on a right axis, or the text's two panels (Figure 16.3).
        QCPAxisRect *right = m_figure->setSecondPanel(m_panels->isChecked());
        chartstyle::apply(plot, palette());
        QCPAxis *digitsX = right ? right->axis(QCPAxis::atBottom) : plot->xAxis;
        QCPAxis *digitsY = right ? right->axis(QCPAxis::atLeft) : plot->yAxis2;
        auto *range = new QCPBars(plot->xAxis, plot->yAxis);
        range->setName(right ? tr("log10(largest finite value)") : tr("log10(largest finite value) (left axis)"));
        range->setBrush(chartstyle::series(0, palette()));
        range->setPen(Qt::NoPen);
        range->setWidth(right ? 0.6 : 0.38);
        auto *digits = new QCPBars(digitsX, digitsY);
        digits->setName(right ? tr("decimal digits") : tr("decimal digits (right axis)"));
        digits->setBrush(chartstyle::series(1, palette()));
        digits->setPen(Qt::NoPen);
        digits->setWidth(right ? 0.6 : 0.38);
        QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
        int i = 0;
        const double offset = right ? 0 : 0.2;
        for (const NumberFormat &f : numberFormats()) {
            const FormatProperties p = properties(f);
            range->addData(i - offset, std::log10(p.maxFinite));
            digits->addData(i + offset, p.decimalDigits);
            // Half the width each in two panels: the names break at their space ("FP8" over "E4M3").
            ticker->addTick(i, right ? qs(f.name).replace(QLatin1Char(' '), QLatin1Char('\n')) : qs(f.name));
            ++i;
        }
        for (QCPAxis *x : {plot->xAxis, digitsX}) {
            x->setTicker(ticker);
            x->setRange(-0.6, i - 0.4);
        }
        plot->yAxis->setRange(0, 42);
        plot->yAxis->setLabel(tr("log10(max finite)"));
        plot->yAxis2->setVisible(!right);
        digitsY->setRange(0, 8.4);
        digitsY->setLabel(tr("decimal digits"));
        plot->legend->setVisible(!right); // two panels: each axis says what it shows, as the text's
        plot->replot();
    }

    void probe()
    {
        bool ok1 = false, ok2 = false, ok3 = false;
        const double x = m_value->text().toDouble(&ok1), g = m_gradient->text().toDouble(&ok2),
                     s = m_scale->text().toDouble(&ok3);
        if (!ok1 || !ok2 || !ok3 || !std::isfinite(x) || !std::isfinite(g) || !(s > 0) || !std::isfinite(s)) {
            m_problem->setText(tr("Value, gradient: finite numbers (e.g. 1e8, 1e-8); loss scale: a positive number."));
            return;
        }
        m_problem->clear();
        int row = 0;
        for (const NumberFormat &f : numberFormats()) {
            const Rounded r = roundTo(f, x);
            const LossScalingDemo l = lossScaling(f, g, s);
            const auto show = [](const Rounded &v) {
                return std::isnan(v.value) ? QStringLiteral("NaN") : QString::number(v.value, 'g', 9);
            };
            setRow(m_probe, row++,
                   {qs(f.name), show(r), QString::fromLatin1(toString(r.outcome)),
                    std::isfinite(r.relativeError) ? fmt::number(100 * r.relativeError, 4) + QStringLiteral("%")
                                                   : QStringLiteral("∞"),
                    show(l.unscaled) + QStringLiteral(" (") + QString::fromLatin1(toString(l.unscaled.outcome)) +
                        QLatin1Char(')'),
                    l.scaled.outcome == RoundingOutcome::Overflow || l.scaled.outcome == RoundingOutcome::NotANumber
                        ? tr("overflow: the scale is too large")
                        : QString::number(l.recovered, 'g', 6) + QStringLiteral(" (") +
                              fmt::number(100 * l.recoveredRelativeError, 3) + QStringLiteral("% off)")});
        }
    }

    QTableWidget *m_table;
    QCheckBox *m_panels;
    PlotFigure *m_figure;
    QLineEdit *m_value, *m_gradient, *m_scale;
    QTableWidget *m_probe;
    QLabel *m_problem;
};

} // namespace

LearnPage *makeNumberFormatsPage(PlanDocument *document)
{
    return new NumberFormatsPage(document);
}

} // namespace trainplan
