#include "ui/SummaryStrip.h"

#include "ui/commands/ReplacePlan.h"

#include <QEvent>
#include <QPushButton>
#include <QUndoStack>

#include "io/Evidence.h"
#include "ui/Format.h"

#include <QApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

#include <cmath>

#include "ui/charts/ChartStyle.h"
#include "ui/document/PlanDocument.h"
#include "core/common/Units.h"

namespace trainplan {

namespace {

QLabel *plainLabel(QWidget *parent)
{
    // Plain text: rich-text labels re-lay out a QTextDocument on every edit, the largest cost of a
    // redraw on big plans.
    auto *label = new QLabel(parent);
    label->setTextFormat(Qt::PlainText);
    return label;
}

void setColour(QLabel *label, const QColor &colour)
{
    QPalette p = label->palette();
    p.setColor(QPalette::WindowText, colour);
    label->setPalette(p);
}

QString bottleneckWords(Bottleneck b)
{
    switch (b) {
    case Bottleneck::Capacity: return QObject::tr("Memory capacity");
    case Bottleneck::MemoryMovement: return QObject::tr("Memory movement");
    case Bottleneck::Arithmetic: return QObject::tr("Arithmetic");
    case Bottleneck::Communication: return QObject::tr("Communication");
    case Bottleneck::PipelineIdle: return QObject::tr("Pipeline idle time");
    }
    return {};
}

/// "-12.3%" of a relative change; "" when either side is not a finite positive number.
QString relative(double now, double before)
{
    if (!(before > 0) || !std::isfinite(now) || !std::isfinite(before))
        return {};
    const double change = now / before - 1.0;
    if (std::fabs(change) < 0.0005)
        return QObject::tr("same as baseline");
    return QObject::tr("%1%2 vs baseline").arg(change > 0 ? QStringLiteral("+") : QString(), fmt::percent(change, 1));
}

} // namespace

SummaryTile::SummaryTile(QWidget *parent)
    : QFrame(parent), m_value(plainLabel(this)), m_caption(plainLabel(this)), m_delta(plainLabel(this))
{
    setFrameShape(QFrame::StyledPanel);
    auto *column = new QVBoxLayout(this);
    column->setContentsMargins(8, 4, 8, 4);
    column->setSpacing(0);
    QFont bold = font();
    bold.setBold(true);
    bold.setPointSizeF(bold.pointSizeF() + 1);
    m_value->setFont(bold);
    QFont small = font();
    small.setPointSizeF(std::max(7.0, small.pointSizeF() - 1));
    m_caption->setFont(small);
    m_delta->setFont(small);
    for (QLabel *l : {m_value, m_caption, m_delta})
        column->addWidget(l);
    column->addStretch(1);
    m_delta->setVisible(false);
}

void SummaryTile::set(const QString &value, const QString &caption, const QString &tooltip)
{
    m_value->setText(value);
    m_caption->setText(caption);
    setToolTip(tooltip);
}

void SummaryTile::setDelta(const QString &text, std::optional<bool> better)
{
    m_delta->setText(text);
    m_delta->setVisible(!text.isEmpty());
    m_better = better;
    applyColours();
}

void SummaryTile::setWarning(bool on)
{
    m_warning = on;
    applyColours();
}

void SummaryTile::applyColours()
{
    const QPalette &p = QApplication::palette();
    const QColor text = p.color(QPalette::WindowText);
    const QColor good = chartstyle::isDark(p) ? QColor(120, 200, 140) : QColor(25, 120, 55);
    setColour(m_value, m_warning ? chartstyle::warning(p) : text);
    setColour(m_caption, text);
    setColour(m_delta, !m_better ? text : *m_better ? good : chartstyle::warning(p));
}

void SummaryTile::changeEvent(QEvent *event)
{
    QFrame::changeEvent(event);
    // A palette switched while the window is open (View > Dark Palette): the labels' own colours follow it.
    if (event->type() == QEvent::ApplicationPaletteChange || event->type() == QEvent::PaletteChange)
        applyColours();
}

QString SummaryTile::value() const { return m_value->text(); }
QString SummaryTile::caption() const { return m_caption->text(); }
QString SummaryTile::delta() const { return m_delta->isVisibleTo(this) ? m_delta->text() : QString(); }

SummaryStrip::SummaryStrip(PlanDocument *document, QWidget *parent)
    : QWidget(parent), m_document(document)
{
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(4);
    m_fit = new SummaryTile;
    m_step = new SummaryTile;
    m_tokens = new SummaryTile;
    m_mfu = new SummaryTile;
    m_run = new SummaryTile;
    m_fit->setObjectName(QStringLiteral("summaryFit"));
    m_run->setObjectName(QStringLiteral("summaryRun"));
    // Minimum widths that do not follow the text, so an edit never changes the window's minimum size; the
    // widest numbers the tiles show fit in them.
    const int digit = fontMetrics().horizontalAdvance(QLatin1Char('0'));
    const std::pair<SummaryTile *, int> tiles[] = {{m_fit, 21}, {m_step, 12}, {m_tokens, 12}, {m_mfu, 13}, {m_run, 19}};
    for (const auto &[tile, width] : tiles) {
        tile->setMinimumWidth(width * digit);
        tile->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Expanding);
        layout->addWidget(tile);
    }
    m_bottleneck = plainLabel(this);
    m_bottleneck->setFrameShape(QFrame::StyledPanel);
    m_bottleneck->setMargin(6);
    m_bottleneck->setWordWrap(true);
    m_bottleneck->setAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    m_bottleneck->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Expanding);
    m_bottleneck->setMinimumWidth(12 * digit); // wraps; with the plan dock, the window fits 1280 pixels
    layout->addWidget(m_bottleneck, 1);
    m_bottleneck->installEventFilter(this);
    m_next = new QPushButton(this);
    m_next->setObjectName(QStringLiteral("nextStep"));
    // A fixed width: the suggestion's words elide to it (whole in the tooltip) and never widen the window.
    m_next->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Expanding);
    m_next->setFixedWidth(16 * digit);
    connect(m_next, &QPushButton::clicked, this, &SummaryStrip::takeNextStep);
    layout->addWidget(m_next);
    // A fixed height (value, caption, delta): new numbers must not re-lay out the window.
    QFont bold = font();
    bold.setBold(true);
    bold.setPointSizeF(bold.pointSizeF() + 1);
    setFixedHeight(QFontMetrics(bold).lineSpacing() + 2 * fontMetrics().lineSpacing() + 14);
    connect(m_document, &PlanDocument::planChanged, this, &SummaryStrip::refresh);
    connect(m_document, &PlanDocument::baselineChanged, this, &SummaryStrip::refreshDeltas);
    refresh();
}

QString SummaryStrip::fitText() const
{
    return m_fit->value() + QStringLiteral(": ") + m_fit->caption();
}

QString SummaryStrip::bottleneckText() const
{
    return m_bottleneckText;
}

void SummaryStrip::setBottleneck(const QString &text, const QString &tip)
{
    m_bottleneckText = text;
    m_bottleneck->setToolTip(text + QStringLiteral("\n\n") + tip);
    fitBottleneck();
}

void SummaryStrip::fitBottleneck()
{
    // The longest prefix (ending in "…") that word-wraps into the tile's height.
    const QFontMetrics metrics(m_bottleneck->font());
    const QRect inner = m_bottleneck->contentsRect().adjusted(m_bottleneck->margin(), m_bottleneck->margin(), -m_bottleneck->margin(),
                                                              -m_bottleneck->margin());
    const auto fits = [&](const QString &text) {
        return metrics.boundingRect(QRect(0, 0, std::max(1, inner.width()), 100000), Qt::TextWordWrap, text).height() <= inner.height();
    };
    QString shown = m_bottleneckText;
    if (!fits(shown)) {
        qsizetype low = 0, high = m_bottleneckText.size();
        while (low < high) { // the largest length whose prefix fits
            const qsizetype mid = (low + high + 1) / 2;
            if (fits(m_bottleneckText.left(mid) + QStringLiteral("…")))
                low = mid;
            else
                high = mid - 1;
        }
        shown = m_bottleneckText.left(low).trimmed() + QStringLiteral("…");
    }
    m_bottleneck->setText(shown);
}

bool SummaryStrip::eventFilter(QObject *watched, QEvent *event)
{
    // The tile narrows when the others grow (a delta line appears), not only when the strip resizes.
    if (watched == m_bottleneck && event->type() == QEvent::Resize)
        fitBottleneck();
    return QWidget::eventFilter(watched, event);
}

QString SummaryStrip::runText() const
{
    return m_run->value() + QStringLiteral(", ") + m_run->caption();
}

QStringList SummaryStrip::deltas() const
{
    return {m_fit->delta(), m_step->delta(), m_tokens->delta(), m_mfu->delta(), m_run->delta()};
}

void SummaryStrip::showInvalid()
{
    QStringList problems;
    for (const Problem &p : m_document->problems())
        if (p.isError())
            problems << QString::fromStdString(p.message);
    m_fit->set(tr("Invalid plan"), tr("%n problem(s) to fix", nullptr, int(problems.size())), problems.join(QLatin1Char('\n')));
    m_fit->setWarning(true);
    for (SummaryTile *t : {m_step, m_tokens, m_mfu, m_run}) {
        t->set(QStringLiteral("\u2013"), QString(), QString());
        t->setWarning(false);
    }
    setBottleneck(tr("Fix the plan in the editor: %1").arg(problems.value(0)), problems.join(QLatin1Char('\n')));
}

void SummaryStrip::refresh()
{
    refreshNextStep();
    const Estimate &e = m_document->estimate();
    if (!e.valid) {
        showInvalid();
        refreshDeltas();
        return;
    }
    const MemoryEstimate &m = e.memory;
    const StepEstimate &s = e.step;
    const QString memoryTip = tr("Device-used peak over the step of the most loaded stage, as nvidia-smi shows it: the tensors "
                                 "(allocated %1), the caching allocator's overhead (reserved %2), then CUDA context, NCCL "
                                 "buffers and library workspaces")
                                  .arg(fmt::gib(m.allocatedBytes, 1), fmt::gib(m.reservedBytes, 1));
    m_fit->setWarning(!m.fits || m.tight);
    if (m.fits && m.tight) {
        const MemoryPressure pressure = memoryPressure(m);
        QStringList largest;
        for (const auto &[label, bytes] : largestComponents(m.stages[std::size_t(m.peakStage)], 3))
            largest << tr("%1 %2").arg(QLatin1String(label), fmt::gib(bytes, 1));
        m_fit->set(tr("Fits, tight"), tr("peak %1 of %2").arg(fmt::gib(m.peakBytes, 1), fmt::gib(m.capacityBytes, 0)),
                   memoryTip + tr("; only %1 free, inside the %2 margin (Training > Memory margin). Largest terms: %3. "
                                  "%4 %5% larger would not fit")
                                   .arg(fmt::gib(m.headroomBytes(), 1), fmt::gib(m.marginBytes, 1), largest.join(QStringLiteral(", ")),
                                        QLatin1String(pressure.label), fmt::number(100 * pressure.growthToOverflow, 0)));
    } else if (m.fits)
        m_fit->set(tr("Fits"), tr("peak %1 of %2").arg(fmt::gib(m.peakBytes, 1), fmt::gib(m.capacityBytes, 0)),
                   memoryTip + tr("; %1 free").arg(fmt::gib(m.headroomBytes(), 1)));
    else
        m_fit->set(tr("Does not fit"), tr("needs %1 of %2").arg(fmt::gib(m.peakBytes, 1), fmt::gib(m.capacityBytes, 0)),
                   tr("Stage %1 needs %2 of %3 (%4 over). ").arg(m.peakStage).arg(fmt::gib(m.peakBytes, 1), fmt::gib(m.capacityBytes, 0),
                                                               fmt::gib(-m.headroomBytes(), 1)) + memoryTip);
    // The error band (issue 37) on the captions, a warning mark outside the validated runs (the tooltip says
    // which dimensions): the tiles are narrow.
    const QString band = io::accuracyBand(e.accuracy) + (e.accuracy.assessed && !e.accuracy.validated ? QStringLiteral(" \u26a0") : QString());
    const QString accuracy = tr("\n\nAccuracy: %1").arg(io::accuracySummary(e.accuracy));
    m_step->set(tr("%1 s").arg(fmt::number(s.stepSeconds, s.stepSeconds < 10 ? 3 : 1)), tr("per step %1").arg(band),
                tr("Compute + recompute + exposed tensor, pipeline and data communication + pipeline bubble + optimizer.\nTraffic "
                   "floor: %1").arg(io::trafficFloorSummary(s)) + accuracy);
    m_tokens->set(fmt::count(s.tokensPerSecond, 1), tr("tokens/s %1").arg(band), tr("global batch x sequence length / step time") + accuracy);
    QString mfuTip = tr("Model FLOPs (3 x forward, no recompute) per GPU per second / dense peak: %1 TFLOP/s of %2; HFU %3")
                         .arg(fmt::teraflops(s.modelFlopsPerGpu, 1), fmt::flops(e.roofline.plan.peakFlops, 0), fmt::percent(s.hfu, 1));
    QString mfuCaption = tr("MFU");
    if (!e.nodeGroups.empty()) {
        mfuCaption = tr("MFU; %1 idle").arg(fmt::percent(e.idleShare, 0));
        mfuTip += tr("\nMixed cluster: the peak of every GPU counts; the faster node groups wait for the slowest for %1 "
                     "of all GPU-time").arg(fmt::percent(e.idleShare, 1));
    }
    m_mfu->set(fmt::percent(s.mfu, 1), mfuCaption, mfuTip);
    const RunEstimate &run = e.run;
    const RunConfig &rc = m_document->plan().run;
    m_run->setWarning(!m.fits);
    if (!m.fits)
        m_run->set(tr("Does not fit"), tr("no time or cost to train"), tr("A plan that does not fit the GPUs' memory cannot run"));
    else
        m_run->set(tr("%1 days").arg(fmt::number(run.days, run.days < 10 ? 1 : 0)),
                   tr("%1 for %2 tokens").arg(fmt::currency(run.cost, rc.currency), fmt::count(rc.tokenBudget, 0)),
                   tr("Token budget %1 / (global batch x sequence length) = %2 steps x %3 s = %4 days without failures (%5 "
                      "with checkpoints, failures and restarts); cost = %6 GPU-hours x %7 per GPU-hour")
                       .arg(fmt::count(rc.tokenBudget, 1), fmt::grouped(run.steps), fmt::number(s.stepSeconds, 3),
                            fmt::number(run.days, 1), fmt::number(run.daysWithFailures, 1), fmt::grouped(run.gpuHours),
                            fmt::currency(rc.pricePerGpuHour, rc.currency)));
    setBottleneck(tr("Limited by %1: %2").arg(bottleneckWords(s.bottleneck), io::bottleneckEvidence(s.bottleneck, s.evidence)),
                  tr("The largest share of the step among arithmetic (compute-bound kernels), memory movement "
                                "(bandwidth-bound kernels and the optimizer), exposed communication and pipeline idle time; "
                                "capacity when the plan does not fit"));
    refreshDeltas();
}

void SummaryStrip::refreshNextStep()
{
    const Estimate &e = m_document->estimate();
    const Intervention *s = e.valid ? e.advice.suggestion() : nullptr;
    if (s) {
        const QString effect = e.memory.fits ? tr("%1x tokens/s").arg(fmt::number(s->speedup, 2)) : tr("fits: peak %1").arg(fmt::gib(s->peakBytes, 1));
        const QString what = QString::fromStdString(s->label);
        const QFontMetrics metrics(m_next->font());
        m_next->setText(tr("Try: %1\n(%2)").arg(metrics.elidedText(what, Qt::ElideRight, m_next->width() - 16 - metrics.horizontalAdvance(tr("Try: "))), effect));
        m_next->setToolTip(tr("Apply the suggested change as one undo step: %1 (%2)").arg(what, QString::fromStdString(s->change)));
    } else if (e.valid && !e.memory.fits) {
        m_next->setText(tr("Search for a Plan\nThat Fits…"));
        m_next->setToolTip(tr("No single change of the diagnostic map makes this plan fit; the search tries every layout, "
                              "micro-batch, ZeRO stage and recomputation together"));
    }
    m_next->setVisible(s || (e.valid && !e.memory.fits));
}

void SummaryStrip::takeNextStep()
{
    const Estimate &e = m_document->estimate();
    if (const Intervention *s = e.valid ? e.advice.suggestion() : nullptr)
        m_document->undoStack()->push(new ReplacePlan(m_document, s->plan, tr("Apply %1").arg(QString::fromStdString(s->label))));
    else
        emit searchRequested();
}

void SummaryStrip::refreshDeltas()
{
    const Estimate &e = m_document->estimate();
    const bool on = e.valid && m_document->hasBaseline() && m_document->baselineEstimate().valid;
    if (!on) {
        for (SummaryTile *t : {m_fit, m_step, m_tokens, m_mfu, m_run})
            t->setDelta(QString(), std::nullopt);
        return;
    }
    const Estimate &b = m_document->baselineEstimate();
    const auto signedGib = [](double bytes) {
        return (bytes >= 0 ? QStringLiteral("+") : QString()) + fmt::gib(bytes, 1);
    };
    const double memory = e.memory.peakBytes - b.memory.peakBytes;
    m_fit->setDelta(std::fabs(memory) < 0.05 * units::GiB ? tr("same as baseline") : tr("%1 vs baseline").arg(signedGib(memory)),
                    std::fabs(memory) < 0.05 * units::GiB ? std::nullopt : std::optional<bool>(memory < 0));
    const auto compare = [](SummaryTile *tile, double now, double before, bool lowerIsBetter) {
        const QString text = relative(now, before);
        const bool same = !(before > 0) || std::fabs(now / before - 1.0) < 0.0005;
        tile->setDelta(text, same ? std::nullopt : std::optional<bool>((now < before) == lowerIsBetter));
    };
    compare(m_step, e.step.stepSeconds, b.step.stepSeconds, true);
    compare(m_tokens, e.step.tokensPerSecond, b.step.tokensPerSecond, false);
    const double points = 100.0 * (e.step.mfu - b.step.mfu);
    m_mfu->setDelta(std::fabs(points) < 0.05 ? tr("same as baseline")
                                             : tr("%1%2 points vs baseline").arg(points > 0 ? QStringLiteral("+") : QString(), fmt::number(points, 1)),
                    std::fabs(points) < 0.05 ? std::nullopt : std::optional<bool>(points > 0));
    if (e.memory.fits && b.memory.fits)
        compare(m_run, e.run.cost, b.run.cost, true);
    else
        m_run->setDelta(b.memory.fits ? tr("baseline fits") : tr("baseline does not fit"), std::nullopt);
}

} // namespace trainplan
