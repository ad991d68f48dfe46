#include "ui/learn/LearnPages.h"

#include "io/Evidence.h"

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMouseEvent>
#include <QPainter>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>

#include <qcustomplot.h>

#include "io/ChartCsv.h"
#include "core/advice/Interventions.h"
#include "ui/charts/ChartStyle.h"
#include "core/common/Units.h"
#include "core/compute/Roofline.h"
#include "ui/document/PlanDocument.h"
#include "ui/learn/Figures.h"
#include "core/learn/NumberFormat.h"
#include "core/learn/Teaching.h"
#include "core/memory/MemoryTerms.h"
#include "core/precision/PrecisionPolicy.h"
#include "core/search/Search.h"

namespace trainplan {

namespace {

QString num(double v, int decimals) { return QString::fromStdString(units::formatNumber(v, decimals)); }
QString qs(const std::string &s) { return QString::fromStdString(s); }

QDoubleSpinBox *spin(double min, double max, double value, int decimals, const QString &suffix = {})
{
    auto *s = new QDoubleSpinBox;
    s->setRange(min, max);
    s->setDecimals(decimals);
    s->setValue(value);
    s->setSuffix(suffix);
    s->setAccelerated(true);
    return s;
}

QTableWidget *makeTable(const QStringList &header)
{
    auto *t = new QTableWidget(0, int(header.size()));
    t->setHorizontalHeaderLabels(header);
    t->verticalHeader()->hide();
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setSelectionMode(QAbstractItemView::NoSelection);
    t->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    t->horizontalHeader()->setStretchLastSection(true);
    t->setAlternatingRowColors(true);
    t->setWordWrap(true);
    return t;
}

/// Black or white, whichever reads better on `background` (relative luminance, WCAG 2.x).
QColor textOn(const QColor &background)
{
    const auto channel = [](double c) { return c <= 0.03928 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4); };
    const double l = 0.2126 * channel(background.redF()) + 0.7152 * channel(background.greenF()) + 0.0722 * channel(background.blueF());
    return l > 0.4 ? QColor(Qt::black) : QColor(Qt::white);
}

/// `colour` at `alpha` over `base`, as an opaque colour.
QColor over(QColor colour, double alpha, const QColor &base)
{
    return QColor::fromRgbF(colour.redF() * alpha + base.redF() * (1 - alpha), colour.greenF() * alpha + base.greenF() * (1 - alpha),
                            colour.blueF() * alpha + base.blueF() * (1 - alpha));
}

void setRow(QTableWidget *t, int row, const QStringList &cells)
{
    if (t->rowCount() <= row)
        t->setRowCount(row + 1);
    for (int c = 0; c < cells.size(); ++c)
        t->setItem(row, c, new QTableWidgetItem(cells[c]));
}

// --- Figure 16.1: the diagnostic map ---------------------------------------------------------------

class DiagnosticMapFigure : public PaintedFigure
{
public:
    explicit DiagnosticMapFigure(PlanDocument *document) : PaintedFigure(QStringLiteral("figure-16-1-diagnostic-map")), m_document(document)
    {
        setMinimumHeight(420);
    }
    void update(std::vector<Intervention> interventions) { m_interventions = std::move(interventions); QWidget::update(); }
    QString exportCsv() const override
    {
        QString csv = QStringLiteral("resource,intervention,change,valid,fits,speedup,memory_change\n");
        for (const Intervention &in : m_interventions)
            csv += QStringLiteral("%1,\"%2\",\"%3\",%4,%5,%6,%7\n").arg(QLatin1String(toString(in.resource)), qs(in.label), qs(in.change))
                       .arg(in.valid ? 1 : 0).arg(in.fits ? 1 : 0).arg(in.speedup, 0, 'g', 17).arg(in.memoryChange, 0, 'g', 17);
        return csv;
    }

protected:
    void paintFigure(QPainter &p, const QSizeF &size) override
    {
        static const char *symptoms[] = {"model or batch does not fit", "compute units wait for tensors", "operations dominate step time",
                                         "workers wait for collectives"};
        static const char *responses[] = {"shard, recompute, offload", "fuse, reuse, increase intensity",
                                          "lower precision, better kernels", "overlap, reduce, place topology-aware"};
        const Estimate &e = m_document->estimate();
        const int limiting = e.valid ? int(diagnosticColumn(e.step.bottleneck)) : -1;
        const double gap = 10, colW = (size.width() - 5 * gap) / 4;
        QFont base = font();
        for (int j = 0; j < 4; ++j) {
            const double x = gap + j * (colW + gap);
            const QColor colour = chartstyle::series(j, palette());
            const bool hot = j == limiting;
            const auto box = [&](double y, double h, const QString &text, double alpha, bool bold) {
                const QColor c = over(colour, alpha, palette().color(QPalette::Base));
                p.setPen(hot ? QPen(chartstyle::warning(palette()), 3) : Qt::NoPen);
                p.setBrush(c);
                p.drawRoundedRect(QRectF(x, y, colW, h), 6, 6);
                QFont f = base;
                f.setBold(bold);
                p.setFont(f);
                p.setPen(textOn(c));
                p.drawText(QRectF(x + 6, y, colW - 12, h), Qt::AlignCenter | Qt::TextWordWrap, text);
            };
            box(gap, 44, QString::fromLatin1(labelOf(Bottleneck(j))) + (hot ? tr("  ◀ limits this plan") : QString()), 1.0, true);
            box(gap + 58, 44, tr(symptoms[j]), 0.8, false);
            box(gap + 116, 44, tr(responses[j]), 0.6, false);
            // The plan's interventions for this resource, with predicted effects.
            p.setFont(base);
            p.setPen(palette().color(QPalette::Text));
            double y = gap + 176;
            for (const Intervention &in : m_interventions) {
                if (int(in.resource) != j)
                    continue;
                QString effect;
                if (!in.valid)
                    effect = tr("not valid here");
                else if (!in.fits)
                    effect = tr("does not fit (%1 GiB)").arg(num(in.peakBytes / units::GiB, 1));
                else
                    effect = tr("%1× tokens/s, memory %2%3%").arg(num(in.speedup, 2), in.memoryChange >= 0 ? QStringLiteral("+") : QString(),
                                                               num(100 * in.memoryChange, 0));
                const QRectF r(x, y, colW, 36);
                QFont b = base;
                b.setBold(true);
                b.setPointSizeF(base.pointSizeF() * 0.92);
                p.setFont(b);
                p.drawText(r, Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, qs(in.label));
                QFont s = base;
                s.setPointSizeF(base.pointSizeF() * 0.88);
                p.setFont(s);
                p.setPen(in.valid && in.fits && in.speedup > 1.005 ? chartstyle::series(2, palette()) : palette().color(QPalette::PlaceholderText));
                p.drawText(r.translated(0, 17), Qt::AlignLeft | Qt::AlignTop, effect);
                p.setPen(palette().color(QPalette::Text));
                y += 40;
                if (y > size.height() - 40)
                    break;
            }
        }
        if (e.valid) {
            p.setFont(base);
            p.setPen(palette().color(QPalette::Text));
            p.drawText(QRectF(gap, size.height() - 30, size.width() - 2 * gap, 26), Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap,
                       tr("Evidence: %1").arg(io::bottleneckEvidence(e.step.bottleneck, e.step.evidence)));
        }
    }

private:
    PlanDocument *m_document;
    std::vector<Intervention> m_interventions;
};

class DiagnosticMapPage : public LearnPage
{
public:
    explicit DiagnosticMapPage(PlanDocument *d) : LearnPage(d, tr("16.1 The diagnostic map"))
    {
        auto *column = new QVBoxLayout(this);
        addHeading(column, tr("Four resources, their symptoms and interventions. The column that limits the current plan is outlined; "
                              "under each column every intervention is applied to the plan alone and estimated by the core."));
        m_figure = new DiagnosticMapFigure(d);
        column->addWidget(m_figure, 1);
    }
    ExportableChart *figure() override { return m_figure; }
    void refresh() override { m_figure->update(evaluateInterventions(m_document->plan(), m_document->catalog())); }

private:
    DiagnosticMapFigure *m_figure;
};

// --- Figure 16.2: persistent state ------------------------------------------------------------------

class PersistentStatePage : public LearnPage
{
public:
    explicit PersistentStatePage(PlanDocument *d) : LearnPage(d, tr("16.2 Persistent state per worker"))
    {
        auto *column = new QVBoxLayout(this);
        addHeading(column, tr("Replicated mixed-precision Adam state against ZeRO stages 1-3, for any parameter count, worker count "
                              "and byte layout. Activations are a separate term."));
        auto *controls = new QHBoxLayout;
        m_params = spin(0.001, 100000, 1, 3, tr(" B params"));
        m_workers = spin(1, 1e6, 8, 0, tr(" workers"));
        m_qp = spin(0, 16, 2, 1, tr(" B param"));
        m_qg = spin(0, 16, 2, 1, tr(" B grad"));
        m_qm = spin(0, 16, 4, 1, tr(" B master"));
        m_qo = spin(0, 32, 8, 1, tr(" B moments"));
        for (QWidget *w : {static_cast<QWidget *>(m_params), static_cast<QWidget *>(m_workers), static_cast<QWidget *>(m_qp),
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
                m_params->setValue(e.model.parameters / 1e9);
            m_workers->setValue(double(m_document->plan().parallel.data));
        });
        draw();
    }
    ExportableChart *figure() override { return m_figure; }
    void refresh() override {}
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
        static const char *names[] = {"parameters", "gradients", "master weights", "optimizer moments"};
        QCPBars *below = nullptr;
        for (int k = 0; k < 4; ++k) {
            auto *bars = new QCPBars(plot->xAxis, plot->yAxis);
            bars->setName(tr(names[k]));
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
        plot->yAxis->setLabel(tr("Persistent state per worker (GB)"));
        plot->yAxis->setRange(0, perWorker(0).total() / units::GB * 1.15);
        plot->legend->setVisible(true);
        QString totals;
        for (int s = 0; s < 4; ++s)
            totals += (s ? QStringLiteral(", ") : QString()) + tr("stage %1: %2 GB").arg(s).arg(num(perWorker(s).total() / units::GB, 2));
        m_formula->setText(tr("M = P (q_p/w_p + q_g/w_g + (q_master + q_moments)/w_o), w = W for the sharded terms: %1 per worker.").arg(totals));
        plot->replot();
    }

    QDoubleSpinBox *m_params, *m_workers, *m_qp, *m_qg, *m_qm, *m_qo;
    PlotFigure *m_figure;
    QLabel *m_formula;
};

// --- Figure 16.3: number formats --------------------------------------------------------------------

class NumberFormatsPage : public LearnPage
{
public:
    explicit NumberFormatsPage(PlanDocument *d) : LearnPage(d, tr("16.3 Number formats"))
    {
        auto *column = new QVBoxLayout(this);
        addHeading(column, tr("Range and resolution follow from the bit layout (sign, exponent, significand): computed here, not typed "
                              "in. Probe a value to see how it rounds, overflows or underflows in each format, and what loss scaling "
                              "does to a small gradient."));
        m_table = makeTable({tr("Format"), tr("Bits (S/E/M)"), tr("Largest finite"), tr("Smallest normal"), tr("Smallest subnormal"),
                             tr("Spacing at 1"), tr("Decimal digits"), tr("Range (decades)")});
        m_table->setObjectName(QStringLiteral("formats"));
        int row = 0;
        for (const NumberFormat &f : numberFormats()) {
            const FormatProperties p = properties(f);
            setRow(m_table, row++, {qs(f.name), QStringLiteral("1/%1/%2").arg(f.exponentBits).arg(f.mantissaBits),
                                    QString::number(p.maxFinite, 'g', 5), QString::number(p.minNormal, 'g', 5),
                                    QString::number(p.minSubnormal, 'g', 5), QString::number(p.epsilon, 'g', 5), num(p.decimalDigits, 2),
                                    num(p.dynamicRangeDecades, 1)});
        }
        m_table->setMaximumHeight(m_table->verticalHeader()->length() + m_table->horizontalHeader()->height() + 4);
        column->addWidget(m_table);
        m_figure = new PlotFigure(QStringLiteral("figure-16-3-number-formats"), [] {
            QString csv = QStringLiteral("format,exponent_bits,mantissa_bits,max_finite,min_normal,min_subnormal,decimal_digits\n");
            for (const NumberFormat &f : numberFormats()) {
                const FormatProperties p = properties(f);
                csv += QStringLiteral("%1,%2,%3,%4,%5,%6,%7\n").arg(qs(f.name)).arg(f.exponentBits).arg(f.mantissaBits)
                           .arg(p.maxFinite, 0, 'g', 17).arg(p.minNormal, 0, 'g', 17).arg(p.minSubnormal, 0, 'g', 17).arg(p.decimalDigits, 0, 'g', 17);
            }
            return csv;
        });
        m_figure->setMinimumHeight(200);
        drawFigure();
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
        m_probe = makeTable({tr("Format"), tr("Stored value"), tr("Outcome"), tr("Relative error"), tr("Gradient"), tr("Gradient × scale → FP32")});
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
        chartstyle::apply(plot, palette());
        auto *range = new QCPBars(plot->xAxis, plot->yAxis);
        range->setName(tr("log10(largest finite value) (left axis)"));
        range->setBrush(chartstyle::series(0, palette()));
        range->setPen(Qt::NoPen);
        range->setWidth(0.38);
        auto *digits = new QCPBars(plot->xAxis, plot->yAxis2);
        digits->setName(tr("decimal digits (right axis)"));
        digits->setBrush(chartstyle::series(1, palette()));
        digits->setPen(Qt::NoPen);
        digits->setWidth(0.38);
        QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
        int i = 0;
        for (const NumberFormat &f : numberFormats()) {
            const FormatProperties p = properties(f);
            range->addData(i - 0.2, std::log10(p.maxFinite));
            digits->addData(i + 0.2, p.decimalDigits);
            ticker->addTick(i, qs(f.name));
            ++i;
        }
        plot->xAxis->setTicker(ticker);
        plot->xAxis->setRange(-0.6, i - 0.4);
        plot->yAxis->setRange(0, 42);
        plot->yAxis->setLabel(tr("log10(max finite)"));
        plot->yAxis2->setVisible(true);
        plot->yAxis2->setRange(0, 8.4);
        plot->yAxis2->setLabel(tr("decimal digits"));
        plot->legend->setVisible(true);
        plot->replot();
    }

    void probe()
    {
        bool ok1 = false, ok2 = false, ok3 = false;
        const double x = m_value->text().toDouble(&ok1), g = m_gradient->text().toDouble(&ok2), s = m_scale->text().toDouble(&ok3);
        if (!ok1 || !ok2 || !ok3 || !std::isfinite(x) || !std::isfinite(g) || !(s > 0) || !std::isfinite(s)) {
            m_problem->setText(tr("Value, gradient: finite numbers (e.g. 1e8, 1e-8); loss scale: a positive number."));
            return;
        }
        m_problem->clear();
        int row = 0;
        for (const NumberFormat &f : numberFormats()) {
            const Rounded r = roundTo(f, x);
            const LossScalingDemo l = lossScaling(f, g, s);
            const auto show = [](const Rounded &v) { return std::isnan(v.value) ? QStringLiteral("NaN") : QString::number(v.value, 'g', 9); };
            setRow(m_probe, row++, {qs(f.name), show(r), QString::fromLatin1(toString(r.outcome)),
                                    std::isfinite(r.relativeError) ? num(100 * r.relativeError, 4) + QStringLiteral("%") : QStringLiteral("∞"),
                                    show(l.unscaled) + QStringLiteral(" (") + QString::fromLatin1(toString(l.unscaled.outcome)) + QLatin1Char(')'),
                                    l.scaled.outcome == RoundingOutcome::Overflow || l.scaled.outcome == RoundingOutcome::NotANumber
                                        ? tr("overflow: the scale is too large")
                                        : QString::number(l.recovered, 'g', 6) + QStringLiteral(" (") + num(100 * l.recoveredRelativeError, 3)
                                              + QStringLiteral("% off)")});
        }
    }

    QTableWidget *m_table;
    PlotFigure *m_figure;
    QLineEdit *m_value, *m_gradient, *m_scale;
    QTableWidget *m_probe;
    QLabel *m_problem;
};

// --- Figure 16.4: roofline with draggable ceilings --------------------------------------------------

class RooflinePage : public LearnPage
{
public:
    explicit RooflinePage(PlanDocument *d) : LearnPage(d, tr("16.4 The roofline"))
    {
        auto *column = new QVBoxLayout(this);
        addHeading(column, tr("P ≤ min(P_peak, B × I). Drag the flat roof up or down to change the peak, the slope left or right to "
                              "change the bandwidth; the points are the current plan's kernels and the text's three examples."));
        auto *controls = new QHBoxLayout;
        m_peak = spin(1, 100000, 300, 0, tr(" TFLOP/s"));
        m_peak->setObjectName(QStringLiteral("peak"));
        m_bandwidth = spin(0.01, 1000, 1.5, 2, tr(" TB/s"));
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
        m_figure = new PlotFigure(QStringLiteral("figure-16-4-roofline"), [this] { return io::rooflineCsv(m_document->estimate()); });
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
            m_peak->setValue(e.device->peakFlops(m_document->plan().training.precision) / 1e12);
            m_bandwidth->setValue(e.device->memoryBandwidthBytesPerSecond / 1e12);
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
        m_ridge->setText(tr("ridge point %1 FLOP/byte").arg(num(peak / bw, 0)));
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
        examples->setData({1, 5, 420}, {0.9, 5.2, 220});
        const Estimate &e = m_document->estimate();
        if (e.valid) {
            QCPGraph *ops = plot->addGraph();
            ops->setName(tr("this plan's kernels (at the set ceilings)"));
            ops->setLineStyle(QCPGraph::lsNone);
            ops->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, chartstyle::series(0, palette()), 6));
            // Each kernel at the fraction of its own device's roof it reaches, under the ceilings set here.
            const double devicePeak = e.device->peakFlops(m_document->plan().training.precision);
            const double deviceBandwidth = e.device->memoryBandwidthBytesPerSecond;
            for (const Op &op : e.step.ops) {
                if (op.flops <= 0 || op.bytes <= 0 || op.seconds <= 0)
                    continue;
                const double fraction = std::min(1.0, op.flops / op.seconds / attainableFlops(op.intensity(), devicePeak, deviceBandwidth));
                ops->addData(op.intensity(), fraction * std::min(peak, bw * op.intensity()));
            }
        }
        plot->xAxis->setRange(0.01, 1e5);
        plot->yAxis->setRange(0.1, peak * 3);
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

// --- Figure 16.5: scaling ---------------------------------------------------------------------------

class ScalingPage : public LearnPage
{
public:
    explicit ScalingPage(PlanDocument *d) : LearnPage(d, tr("16.5 Scaling"))
    {
        auto *column = new QVBoxLayout(this);
        addHeading(column, tr("Strong scaling of the text's illustrative model: compute 1/W plus communication a log₂W + b(W − 1). "
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
        m_summary = new QLabel;
        controls->addWidget(m_summary, 1);
        column->addLayout(controls);
        m_figure = new PlotFigure(QStringLiteral("figure-16-5-scaling"), [this] { return csv(); });
        column->addWidget(m_figure, 1);
        QCustomPlot *plot = m_figure->plot();
        plot->xAxis->setScaleType(QCPAxis::stLogarithmic);
        plot->yAxis->setScaleType(QCPAxis::stLogarithmic);
        QSharedPointer<QCPAxisTickerLog> log2(new QCPAxisTickerLog);
        log2->setLogBase(2);
        plot->xAxis->setTicker(log2);
        plot->yAxis->setTicker(log2);
        plot->yAxis2->setVisible(true);
        plot->yAxis2->setRange(0, 1.05);
        for (QDoubleSpinBox *s : {m_a, m_b})
            connect(s, &QDoubleSpinBox::valueChanged, this, [this] { draw(); });
        connect(m_overlap, &QCheckBox::toggled, this, [this] { draw(); });
        draw();
    }
    ExportableChart *figure() override { return m_figure; }
    void refresh() override {}
    QCheckBox *overlapBox() const { return m_overlap; }
    ScalingCurve curve() const { return illustrativeScaling(m_a->value(), m_b->value(), m_overlap->isChecked()); }

private:
    QString csv() const
    {
        const ScalingCurve c = curve();
        QString out = QStringLiteral("workers,step_time,speedup,efficiency\n");
        for (std::size_t i = 0; i < c.workers.size(); ++i)
            out += QStringLiteral("%1,%2,%3,%4\n").arg(c.workers[i]).arg(c.stepTime[i], 0, 'g', 17).arg(c.speedup[i], 0, 'g', 17).arg(c.efficiency[i], 0, 'g', 17);
        return out;
    }
    void draw()
    {
        QCustomPlot *plot = m_figure->plot();
        plot->clearGraphs();
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
        QCPGraph *eff = plot->addGraph(plot->xAxis, plot->yAxis2);
        eff->setName(tr("efficiency E(W) (right axis)"));
        eff->setData(w, QVector<double>(c.efficiency.begin(), c.efficiency.end()));
        eff->setPen(QPen(chartstyle::series(1, palette()), 2.5));
        eff->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 6));
        plot->xAxis->setRange(0.8, 160);
        plot->yAxis->setRange(0.8, 160);
        plot->xAxis->setLabel(tr("Workers W"));
        plot->yAxis->setLabel(tr("Speedup"));
        plot->yAxis2->setLabel(tr("Parallel efficiency"));
        plot->legend->setVisible(true);
        plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
        m_summary->setText(tr("W = 128: S = %1, E = %2").arg(num(c.speedup.back(), 2), num(c.efficiency.back(), 3)));
        plot->replot();
    }

    QDoubleSpinBox *m_a, *m_b;
    QCheckBox *m_overlap;
    QLabel *m_summary;
    PlotFigure *m_figure;
};

// --- Figure 16.6: the four parallelisms from the plan -----------------------------------------------

class ParallelismFigure : public PaintedFigure
{
public:
    explicit ParallelismFigure(PlanDocument *d) : PaintedFigure(QStringLiteral("figure-16-6-parallelism")), m_document(d)
    {
        setMinimumHeight(380);
    }
    QString exportCsv() const override
    {
        const ParallelConfig &p = m_document->plan().parallel;
        return QStringLiteral("dimension,size\ndata,%1\ntensor,%2\npipeline,%3\nzero_stage,%4\n").arg(p.data).arg(p.tensor).arg(p.pipeline).arg(p.zeroStage);
    }

protected:
    void paintFigure(QPainter &p, const QSizeF &size) override
    {
        const Plan &plan = m_document->plan();
        const ParallelConfig &par = plan.parallel;
        const double rowH = size.height() / 4;
        const auto row = [&](int r, const QString &title, const QString &caption, std::int64_t count, const std::function<QString(std::int64_t)> &label,
                             int colour) {
            const double y = r * rowH;
            QFont bold = font();
            bold.setBold(true);
            p.setFont(bold);
            p.setPen(palette().color(QPalette::Text));
            p.drawText(QRectF(8, y + 2, size.width() - 16, 18), Qt::AlignLeft | Qt::AlignVCenter, title);
            p.setFont(font());
            p.setPen(palette().color(QPalette::PlaceholderText));
            p.drawText(QRectF(8, y + rowH - 22, size.width() - 16, 18), Qt::AlignLeft | Qt::AlignVCenter, caption);
            const int shown = int(std::min<std::int64_t>(count, 8));
            const bool more = count > 8;
            const double slotCount = shown + (more ? 1 : 0);
            const double w = (size.width() - 16 - (slotCount - 1) * 6) / slotCount;
            for (int i = 0; i < shown; ++i) {
                const std::int64_t index = more && i == shown - 1 ? count - 1 : i;
                const double x = 8 + (i + (more && i == shown - 1 ? 1 : 0)) * (w + 6);
                QColor c = chartstyle::series((colour + int(index)) % 8, palette());
                p.setPen(Qt::NoPen);
                p.setBrush(c);
                const QRectF box(x, y + 22, w, rowH - 50);
                p.drawRoundedRect(box, 4, 4);
                p.setPen(textOn(c));
                p.drawText(box.adjusted(3, 0, -3, 0), Qt::AlignCenter | Qt::TextWordWrap, label(index));
            }
            if (more) {
                p.setPen(palette().color(QPalette::Text));
                p.drawText(QRectF(8 + (shown - 1) * (w + 6), y + 22, w, rowH - 50), Qt::AlignCenter, QStringLiteral("… %1 …").arg(count - shown));
            }
        };
        const std::int64_t perReplica = plan.training.globalBatch / std::max<std::int64_t>(1, par.data);
        row(0, tr("Data parallel: %1 replicas").arg(par.data),
            tr("each replica holds the whole (tensor x pipeline) model and %1 of the %2 sequences; gradients are all-reduced")
                .arg(perReplica).arg(plan.training.globalBatch),
            par.data, [&](std::int64_t i) { return tr("replica %1\n%2 seq.").arg(i).arg(perReplica); }, 0);
        row(1, tr("Tensor parallel: %1 shards of every layer").arg(par.tensor),
            tr("column-parallel then row-parallel matrices: one all-reduce%1 per block, inside a node")
                .arg(plan.training.sequenceParallel ? tr(" (reduce-scatter + all-gather with SP)") : QString()),
            par.tensor, [&](std::int64_t i) { return tr("columns %1/%2").arg(i + 1).arg(par.tensor); }, 2);
        const std::int64_t perStage = plan.model.layers / std::max<std::int64_t>(1, par.pipeline);
        row(2, tr("Pipeline parallel: %1 stages (%2 micro-batches, %3)").arg(par.pipeline).arg(plan.microbatches()).arg(QString::fromLatin1(toString(par.schedule))),
            tr("activations go forward and gradients back between neighbouring stages; fill and drain leave bubbles"),
            par.pipeline, [&](std::int64_t i) { return tr("layers %1-%2").arg(i * perStage + 1).arg((i + 1) * perStage); }, 4);
        const bool sharded = par.zeroStage > 0 && par.data > 1;
        row(3, sharded ? tr("State sharding: ZeRO-%1 over %2 replicas").arg(par.zeroStage).arg(par.data) : tr("State sharding: off (replicated state)"),
            sharded ? tr("computation replicated, %1 partitioned; reduce-scatter and all-gather replace the all-reduce")
                          .arg(par.zeroStage == 1 ? tr("optimizer state") : par.zeroStage == 2 ? tr("optimizer state and gradients") : tr("all model state"))
                    : tr("every replica keeps the full optimizer state"),
            sharded ? par.data : 1, [&](std::int64_t i) { return sharded ? tr("state shard %1").arg(i) : tr("full state"); }, 6);
    }

private:
    PlanDocument *m_document;
};

class ParallelismPage : public LearnPage
{
public:
    explicit ParallelismPage(PlanDocument *d) : LearnPage(d, tr("16.6 Four ways to divide the work"))
    {
        auto *column = new QVBoxLayout(this);
        addHeading(column, tr("Data, tensor, pipeline and state-sharded parallelism divide different objects, drawn with the current "
                              "plan's group sizes."));
        m_figure = new ParallelismFigure(d);
        column->addWidget(m_figure, 1);
    }
    ExportableChart *figure() override { return m_figure; }
    void refresh() override { m_figure->update(); }

private:
    ParallelismFigure *m_figure;
};

// --- Precision audit --------------------------------------------------------------------------------

class PrecisionAuditPage : public LearnPage
{
public:
    explicit PrecisionAuditPage(PlanDocument *d) : LearnPage(d, tr("Precision audit of the plan"))
    {
        auto *column = new QVBoxLayout(this);
        addHeading(column, tr("Which tensors the current plan holds, computes and communicates in which format (reference text: "
                              "precision is an end-to-end contract)."));
        m_table = makeTable({tr("Tensor"), tr("Held"), tr("Computed"), tr("Communicated"), tr("Note")});
        m_table->setObjectName(QStringLiteral("precisionAudit"));
        column->addWidget(m_table, 1);
        m_scaling = new QLabel;
        m_scaling->setWordWrap(true);
        column->addWidget(m_scaling);
    }
    void refresh() override
    {
        const PrecisionPolicy policy = precisionPolicy(m_document->plan());
        m_table->setRowCount(0);
        int row = 0;
        for (const PrecisionRow &r : policy.rows)
            setRow(m_table, row++, {qs(r.tensor), qs(r.held), qs(r.computed), qs(r.communicated), qs(r.note)});
        m_scaling->setText(tr("Loss scaling: %1.").arg(qs(policy.lossScaling)));
    }

private:
    QTableWidget *m_table;
    QLabel *m_scaling;
};

// --- Exercises --------------------------------------------------------------------------------------

class ExercisePage : public LearnPage
{
public:
    ExercisePage(PlanDocument *d, const Exercise &ex) : LearnPage(d, tr("Exercise %1").arg(ex.number)), m_exercise(ex)
    {
        auto *column = new QVBoxLayout(this);
        addHeading(column, qs(ex.prompt));
        auto *form = new QFormLayout;
        for (const ExerciseInput &input : ex.inputs) {
            const double magnitude = std::abs(input.value);
            const int decimals = input.value == std::floor(input.value) ? 0 : magnitude < 0.01 ? 6 : 4;
            auto *s = spin(input.min < 1e-6 ? 0.0 : input.min, input.max, input.value, decimals,
                           input.unit.empty() ? QString() : QLatin1Char(' ') + qs(input.unit));
            m_inputs.push_back(s);
            form->addRow(qs(input.label), s);
            connect(s, &QDoubleSpinBox::valueChanged, this, [this] { solve(); });
        }
        column->addLayout(form);
        m_answer = new QLabel;
        m_answer->setObjectName(QStringLiteral("answer"));
        m_answer->setWordWrap(true);
        m_answer->setTextInteractionFlags(Qt::TextSelectableByMouse);
        m_answer->setTextFormat(Qt::RichText);
        column->addWidget(m_answer);
        m_demo = new QLabel;
        m_demo->setObjectName(QStringLiteral("demo"));
        m_demo->setWordWrap(true);
        m_demo->setTextFormat(Qt::RichText);
        column->addWidget(m_demo);
        if (pageIndexOf(ex.demo) >= 0) {
            auto *open = new QPushButton(tr("Show the Demonstration"));
            connect(open, &QPushButton::clicked, this, [this] { emit openDemo(m_exercise.demo); });
            column->addWidget(open, 0, Qt::AlignLeft);
        } else if (ex.demo == Demo::Search) {
            auto *run = new QPushButton(tr("Run the Search"));
            run->setObjectName(QStringLiteral("runDemo"));
            connect(run, &QPushButton::clicked, this, [this] { runSearchDemo(); });
            column->addWidget(run, 0, Qt::AlignLeft);
        }
        column->addStretch(1);
        solve();
    }
    void refresh() override { showInlineDemo(); }
    QString listLabel() const override
    {
        QString prompt = qs(m_exercise.prompt);
        if (prompt.size() > 38)
            prompt = prompt.left(36) + QStringLiteral("…");
        return QStringLiteral("%1. %2").arg(m_exercise.number).arg(prompt);
    }
    QString answerText() const { return m_answer->text(); }
    QString demoText() const { return m_demo->text(); }
    void setInput(int i, double v) { m_inputs[std::size_t(i)]->setValue(v); }

    /// Exercise 16: GPT-2 small (fits on one A100) on eight A100s: the search's best plan.
    void runSearchDemo()
    {
        const Catalog &catalog = m_document->catalog();
        const Plan plan = exerciseSixteenPlan(catalog);
        SearchConstraints c;
        c.top = 3;
        const SearchOutcome o = searchPlans(plan, catalog, c);
        QString html = tr("<b>Search:</b> GPT-2 small (124 M parameters, fits on one A100) on 8 A100s, global batch 512: %1 plans, %2 feasible. ")
                           .arg(o.evaluated).arg(o.feasible);
        for (const RankedPlan &r : o.top)
            html += tr("<br>#%1: data %2 × tensor %3 × pipeline %4, micro-batch %5: %6 tokens/s")
                        .arg(r.rank).arg(r.score.config.data).arg(r.score.config.tensor).arg(r.score.config.pipeline)
                        .arg(r.score.config.microBatch).arg(num(r.score.tokensPerSecond, 0));
        m_demo->setText(html);
        m_searchDemo = o;
    }
    const SearchOutcome &searchDemo() const { return m_searchDemo; }

private:
    void solve()
    {
        std::vector<double> values;
        for (QDoubleSpinBox *s : m_inputs)
            values.push_back(s->value());
        const ExerciseAnswer a = solveExercise(m_exercise.number, values);
        QString html;
        if (!a.answer.empty())
            html += tr("<p><b>Answer:</b> %1</p>").arg(qs(a.answer).toHtmlEscaped());
        if (!a.working.empty()) {
            html += QStringLiteral("<ol>");
            for (const std::string &step : a.working)
                html += QStringLiteral("<li>%1</li>").arg(qs(step).toHtmlEscaped());
            html += QStringLiteral("</ol>");
        }
        if (!a.explanation.empty())
            html += QStringLiteral("<p>%1</p>").arg(qs(a.explanation).toHtmlEscaped());
        m_answer->setText(html);
        showInlineDemo();
    }

    /// Demonstrations computed from the current plan, shown on the page.
    void showInlineDemo()
    {
        const Estimate &e = m_document->estimate();
        if (!e.valid || m_exercise.demo == Demo::Search) {
            if (!e.valid && m_exercise.demo != Demo::Search)
                m_demo->setText(tr("<i>The current plan has errors; fix it to see the demonstration.</i>"));
            return;
        }
        QString html;
        switch (m_exercise.demo) {
        case Demo::StageTimes: {
            html = tr("<b>This plan's stages</b> (one micro-batch, forward + backward + communication):");
            for (std::size_t s = 0; s < e.step.stages.size() && s < 16; ++s)
                html += tr("<br>stage %1: %2 ms%3").arg(s).arg(num(e.step.stages[s].microbatchSeconds() * 1e3, 2))
                            .arg(std::int64_t(s) == e.step.slowestStage ? tr(" ◀ slowest") : QString());
            break;
        }
        case Demo::StepBreakdown:
            html = tr("<b>This plan's step</b> (%1 s):").arg(num(e.step.stepSeconds, 3));
            for (std::size_t i = 0; i < kTimeCategoryCount; ++i)
                html += tr("<br>%1: %2 s (%3%)").arg(QString::fromLatin1(labelOf(TimeCategory(i)))).arg(num(e.step.breakdown[i], 3))
                            .arg(num(e.step.stepSeconds > 0 ? 100 * e.step.breakdown[i] / e.step.stepSeconds : 0, 1));
            break;
        case Demo::RunCost:
            html = tr("<b>This plan's run:</b> %1 days, %2 GPU-hours, %3 MWh for %4 tokens; checkpoint %5 GiB written in %6 s, every %7 h; "
                      "%8 failures expected.")
                       .arg(num(e.run.days, 1), num(e.run.gpuHours, 0), num(e.run.energyJoules / 3.6e9, 1),
                            QString::fromStdString(units::formatCount(m_document->plan().run.tokenBudget)),
                            num(e.run.checkpointBytes / units::GiB, 0), num(e.run.checkpointWriteSeconds, 0),
                            num(e.run.checkpointIntervalSeconds / 3600, 1), num(e.run.expectedFailures, 1));
            break;
        case Demo::MemoryTerms: {
            const StageMemory &s = e.memory.stages[std::size_t(e.memory.peakStage)];
            html = tr("<b>This plan's peak stage %1:</b> persistent state %2 GiB, activations %3 GiB, and beyond the 16-byte estimate:")
                       .arg(s.stage).arg(num((s.parametersBytes + s.gradientsBytes + s.optimizerBytes) / units::GiB, 2))
                       .arg(num(s.activationsBytes / units::GiB, 2));
            for (std::size_t i = 0; i < kOtherTermCount; ++i)
                if (s.other[i] > 0)
                    html += tr("<br>%1: %2 GiB").arg(QString::fromLatin1(termInfo(OtherTerm(i)).label)).arg(num(s.other[i] / units::GiB, 2));
            break;
        }
        case Demo::Fusion: {
            const FusionTraffic t = fusionTraffic(m_document->plan());
            const double f = t.fusedBytes, u = t.unfusedBytes;
            html = tr("<b>This plan, one micro-batch on one GPU:</b> element-wise kernels move %1 GB unfused and %2 GB fused (%3% less).")
                       .arg(num(u / 1e9, 2), num(f / 1e9, 2), num(u > 0 ? 100 * (1 - f / u) : 0, 0));
            break;
        }
        default:
            break;
        }
        if (!html.isEmpty())
            m_demo->setText(html);
    }

    Exercise m_exercise;
    std::vector<QDoubleSpinBox *> m_inputs;
    QLabel *m_answer;
    QLabel *m_demo;
    SearchOutcome m_searchDemo;
};

} // namespace

LearnPage::LearnPage(PlanDocument *document, QString title, QWidget *parent)
    : QWidget(parent), m_document(document), m_title(std::move(title))
{
}

void LearnPage::addHeading(QVBoxLayout *layout, const QString &caption)
{
    // Rich text sizes relative to the widget font, so the heading grows with presentation mode.
    auto *heading = new QLabel(QStringLiteral("<span style=\"font-size:x-large; font-weight:bold\">%1</span>").arg(m_title.toHtmlEscaped()));
    heading->setObjectName(QStringLiteral("pageTitle"));
    auto *text = new QLabel(caption);
    text->setWordWrap(true);
    layout->addWidget(heading);
    layout->addWidget(text);
}

std::vector<LearnPage *> createLearnPages(PlanDocument *document)
{
    std::vector<LearnPage *> pages{new DiagnosticMapPage(document), new PersistentStatePage(document), new NumberFormatsPage(document),
                                   new RooflinePage(document),      new ScalingPage(document),         new ParallelismPage(document),
                                   new PrecisionAuditPage(document)};
    for (const Exercise &ex : exercises())
        pages.push_back(new ExercisePage(document, ex));
    return pages;
}

int pageIndexOf(Demo demo)
{
    switch (demo) {
    case Demo::DiagnosticMap: return 0;
    case Demo::PersistentState: return 1;
    case Demo::NumberFormats: return 2;
    case Demo::Roofline: return 3;
    case Demo::Scaling: return 4;
    case Demo::Parallelism: return 5;
    case Demo::PrecisionAudit: return 6;
    default: return -1;
    }
}

} // namespace trainplan
