#include "ui/SummaryStrip.h"

#include "ui/commands/ReplacePlan.h"

#include <QEvent>
#include <QPushButton>
#include <QUndoStack>

#include "io/output/Evidence.h"
#include "core/advice/Interventions.h"
#include "io/output/Format.h"

#include <QApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

#include <cmath>

#include "charts/ChartStyle.h"
#include "ui/document/PlanDocument.h"
#include "core/common/Units.h"
#include "io/plan/ProblemWords.h"

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

/// "-12.3% vs baseline" of a relative change, and its shorter forms; none when either side is not a finite
/// positive number.
QStringList relative(double now, double before)
{
    if (!(before > 0) || !std::isfinite(now) || !std::isfinite(before))
        return {};
    const double change = now / before - 1.0;
    if (std::fabs(change) < 0.0005)
        return {QObject::tr("same as baseline"), QObject::tr("same")};
    const QString number = (change > 0 ? QStringLiteral("+") : QString()) + fmt::percent(change, 1);
    return {QObject::tr("%1 vs baseline").arg(number), number};
}

/// `text` word-wrapped into lines of at most `width` pixels.
QStringList wrapped(const QString &text, const QFontMetrics &metrics, int width)
{
    // Each word measured once and the lines summed from them (a line measured whole at every word made the
    // summary's refits a tenth of a cluster edit); a pixel per word of slack covers kerning across spaces.
    QStringList lines;
    QString line;
    int lineWidth = 0;
    const int space = metrics.horizontalAdvance(QLatin1Char(' '));
    for (const QString &word : text.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        const int w = metrics.horizontalAdvance(word) + 1;
        if (!line.isEmpty() && lineWidth + space + w > width) {
            lines << line;
            line = word;
            lineWidth = w;
        } else {
            lineWidth += (line.isEmpty() ? 0 : space) + w;
            line = line.isEmpty() ? word : line + QLatin1Char(' ') + word;
        }
    }
    if (!line.isEmpty())
        lines << line;
    return lines;
}

/// "peak 70.9 GiB of 80 GiB" and its shorter forms.
QStringList peakForms(const QString &word, double peak, double capacity)
{
    return {QObject::tr("%1 %2 of %3").arg(word, fmt::gib(peak, 1), fmt::gib(capacity, 0)),
            QObject::tr("%1 %2 of %3 GiB")
                .arg(word, fmt::number(peak / units::GiB, 1), fmt::number(capacity / units::GiB, 0)),
            QObject::tr("%1 of %2 GiB").arg(fmt::number(peak / units::GiB, 1), fmt::number(capacity / units::GiB, 0))};
}

/// What limits the step: the whole evidence, then its headline, then two words.
QStringList bottleneckForms(const StepEstimate &s)
{
    const QString resource = bottleneckWords(s.bottleneck);
    if (s.bottleneck == Bottleneck::Capacity)
        return {QObject::tr("Limited by %1: %2").arg(resource, io::bottleneckEvidence(s.bottleneck, s.evidence)),
                QObject::tr("Limited by %1").arg(resource.toLower()), resource};
    const QString share = fmt::percent(s.evidence.share, 0);
    return {QObject::tr("Limited by %1: %2").arg(resource, io::bottleneckEvidence(s.bottleneck, s.evidence)),
            QObject::tr("Limited by %1: %2 of the step").arg(resource.toLower(), share),
            QObject::tr("%1 %2").arg(resource, share)};
}

int widest(const QStringList &texts, const QFontMetrics &metrics)
{
    int w = 0;
    for (const QString &t : texts)
        w = std::max(w, metrics.horizontalAdvance(t));
    return w;
}

} // namespace

QString firstThatFits(const QStringList &forms, const QFontMetrics &metrics, int width)
{
    for (const QString &form : forms)
        if (metrics.horizontalAdvance(form) <= width)
            return form;
    return forms.isEmpty() ? QString() : forms.back();
}

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

void SummaryTile::set(const QString &value, const QStringList &captions, const QString &tooltip)
{
    m_value->setText(value);
    m_captions = captions;
    setToolTip(tooltip);
    fit();
}

void SummaryTile::setDelta(const QStringList &forms, std::optional<bool> better)
{
    m_deltas = forms;
    m_delta->setVisible(!forms.isEmpty());
    m_better = better;
    fit();
    applyColours();
}

void SummaryTile::reserveWidth(const QStringList &values, const QStringList &shortest)
{
    const QMargins m = layout()->contentsMargins();
    setMinimumWidth(std::max(widest(values, m_value->fontMetrics()), widest(shortest, m_caption->fontMetrics())) +
                    m.left() + m.right() + 2 * frameWidth() + 2);
}

void SummaryTile::fit()
{
    const int room = contentsRect().width() - layout()->contentsMargins().left() - layout()->contentsMargins().right();
    m_caption->setText(firstThatFits(m_captions, m_caption->fontMetrics(), room));
    m_delta->setText(firstThatFits(m_deltas, m_delta->fontMetrics(), room));
}

void SummaryTile::resizeEvent(QResizeEvent *event)
{
    QFrame::resizeEvent(event);
    fit();
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
QString SummaryTile::caption() const { return m_captions.value(0); }
QString SummaryTile::shownCaption() const { return m_caption->text(); }
QString SummaryTile::delta() const { return m_delta->isVisibleTo(this) ? m_deltas.value(0) : QString(); }

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
    // Minimum widths that do not follow the text, so an edit never changes the window's minimum size: the
    // widest value each tile shows and the shortest forms of its widest captions and deltas.
    const int digit = fontMetrics().horizontalAdvance(QLatin1Char('0'));
    m_fit->reserveWidth({tr("Does not fit"), tr("Invalid plan")},
                        {tr("999.9 of 999 GiB"), tr("99 problem(s) to fix"), tr("+999.9 GiB")});
    m_step->reserveWidth({tr("9999.9 s")}, {tr("per step ±99% \u26a0"), tr("+999.9%")});
    m_tokens->reserveWidth({tr("999.9 M")}, {tr("tokens/s ±99% \u26a0"), tr("+999.9%")});
    m_mfu->reserveWidth({tr("99.9%")}, {tr("MFU"), tr("+99.9 pt")});
    m_run->reserveWidth({tr("Does not fit"), tr("9999 days")}, {tr("$99,999,999"), tr("no cost"), tr("no fit")});
    for (SummaryTile *tile : {m_fit, m_step, m_tokens, m_mfu, m_run}) {
        tile->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Expanding);
        layout->addWidget(tile);
    }
    m_bottleneck = plainLabel(this);
    m_bottleneck->setFrameShape(QFrame::StyledPanel);
    m_bottleneck->setMargin(6);
    m_bottleneck->setWordWrap(true);
    m_bottleneck->setAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    m_bottleneck->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Expanding);
    // Wraps; its shortest form ("Communication 63%") fits, and with the plan dock the window fits 1280 pixels.
    m_bottleneck->setMinimumWidth(
        std::max(12 * digit, fontMetrics().horizontalAdvance(tr("Communication")) + 2 * m_bottleneck->margin() + 4));
    layout->addWidget(m_bottleneck, 1);
    m_bottleneck->installEventFilter(this);
    m_next = new QPushButton(this);
    m_next->setObjectName(QStringLiteral("nextStep"));
    // A fixed width in which every suggestion wraps into three lines ("Try: ...", its effect) and never
    // widens the window.
    m_next->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Expanding);
    int room = 14 * digit;
    const QFontMetrics buttonMetrics(m_next->font());
    for (const std::string &id : interventionIds())
        while (wrapped(tr("Try: %1").arg(io::interventionLabel(id)), buttonMetrics, room).size() > 2)
            room += digit;
    // The effect's widest form: a speed-up that may not fit (its warning mark).
    m_next->setFixedWidth(std::max(room, buttonMetrics.horizontalAdvance(tr("(99.99x tokens/s \u26a0)"))) + 18);
    connect(m_next, &QPushButton::clicked, this, &SummaryStrip::takeNextStep);
    m_next->installEventFilter(this);
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

QString SummaryStrip::fitToolTip() const
{
    return m_fit->toolTip();
}

void SummaryStrip::setBottleneck(const QStringList &forms, const QString &tip)
{
    m_bottleneckForms = forms;
    m_bottleneck->setToolTip(forms.value(0) + QStringLiteral("\n\n") + tip);
    fitBottleneck();
}

void SummaryStrip::fitBottleneck()
{
    // The longest form that word-wraps into the tile's height; the shortest one always does.
    const QFontMetrics metrics(m_bottleneck->font());
    const QRect inner = m_bottleneck->contentsRect().adjusted(m_bottleneck->margin(), m_bottleneck->margin(),
                                                              -m_bottleneck->margin(), -m_bottleneck->margin());
    const int lines = std::max(1, inner.height() / std::max(1, metrics.lineSpacing()));
    // The same forms in the same room fit the same way: nothing to measure (a resize and a refresh both ask).
    const QString key = m_bottleneckForms.join(QChar(0x1f)) + QChar(0x1f) + QString::number(inner.width()) +
                        QLatin1Char('x') + QString::number(lines) + m_bottleneck->font().toString();
    if (key == m_bottleneckFitKey)
        return;
    m_bottleneckFitKey = key;
    QString shown = m_bottleneckForms.isEmpty() ? QString() : m_bottleneckForms.back();
    for (const QString &form : m_bottleneckForms) {
        const QStringList wrappedLines = wrapped(form, metrics, std::max(1, inner.width()));
        if (wrappedLines.size() <= lines && widest(wrappedLines, metrics) <= inner.width()) {
            shown = form;
            break;
        }
    }
    m_bottleneck->setText(shown);
}

bool SummaryStrip::eventFilter(QObject *watched, QEvent *event)
{
    // The tile narrows when the others grow (a delta line appears), not only when the strip resizes.
    if (watched == m_bottleneck && event->type() == QEvent::Resize)
        fitBottleneck();
    if (watched == m_next && (event->type() == QEvent::Resize || event->type() == QEvent::FontChange))
        fitNextStep();
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
            problems << io::problemText(p);
    m_fit->set(tr("Invalid plan"), {tr("%n problem(s) to fix", nullptr, int(problems.size()))},
               problems.join(QLatin1Char('\n')));
    m_fit->setWarning(true);
    for (SummaryTile *t : {m_step, m_tokens, m_mfu, m_run}) {
        t->set(QStringLiteral("\u2013"), {}, QString());
        t->setWarning(false);
    }
    setBottleneck({tr("Fix the plan in the editor: %1").arg(problems.value(0)),
                   tr("Fix the plan in the editor (its fields say how)"), tr("Fix the plan in the editor")},
                  problems.join(QLatin1Char('\n')));
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
    refreshMemory(e);
    refreshSpeed(e);
    refreshRun(e);
    setBottleneck(bottleneckForms(e.step),
                  tr("The largest share of the step among arithmetic (compute-bound kernels), memory movement "
                     "(bandwidth-bound kernels and the optimizer), exposed communication and pipeline idle time; "
                     "capacity when the plan does not fit"));
    refreshDeltas();
}

void SummaryStrip::refreshMemory(const Estimate &e)
{
    const MemoryEstimate &m = e.memory;
    const Accuracy &accuracy = detailsOf(e).accuracy;
    // The memory band (issues 36 and 37): its upper edge on the peak, and whether the device still holds it.
    const QString band = io::memoryBandSummary(m, accuracy);
    const QString memoryTip =
        tr("Device-used peak over the step of the most loaded stage, as nvidia-smi shows it: the tensors "
           "(allocated %1), the caching allocator's overhead (reserved %2), then CUDA context, NCCL "
           "buffers and library workspaces")
            .arg(fmt::gib(m.allocatedBytes, 1), fmt::gib(m.reservedBytes, 1)) +
        (band.isEmpty() ? QString() : tr(".\nAccuracy: %1").arg(band));
    const bool uncertain = mayNotFit(m, accuracy);
    m_fit->setWarning(!m.fits || m.tight || uncertain);
    if (m.fits && m.tight) {
        const MemoryPressure pressure = memoryPressure(m);
        QStringList largest;
        for (const auto &[label, bytes] : largestComponents(m.stages[std::size_t(m.peakStage)], 3))
            largest << tr("%1 %2").arg(QLatin1String(label), fmt::gib(bytes, 1));
        m_fit->set(tr("Fits, tight"), peakForms(tr("peak"), m.peakBytes, m.capacityBytes),
                   memoryTip + tr("\nOnly %1 free, inside the %2 margin (Training > Memory margin). Largest terms: "
                                  "%3. %4 %5% larger would not fit")
                                   .arg(fmt::gib(m.headroomBytes(), 1), fmt::gib(m.marginBytes, 1),
                                        largest.join(QStringLiteral(", ")), QLatin1String(pressure.label),
                                        fmt::number(100 * pressure.growthToOverflow, 0)));
    } else if (m.fits && uncertain)
        m_fit->set(tr("Fits, uncertain"), peakForms(tr("peak"), m.peakBytes, m.capacityBytes),
                   memoryTip + tr("\n%1 free: less than the memory estimate's error may take")
                                   .arg(fmt::gib(m.headroomBytes(), 1)));
    else if (m.fits)
        m_fit->set(tr("Fits"), peakForms(tr("peak"), m.peakBytes, m.capacityBytes),
                   memoryTip + tr("\n%1 free").arg(fmt::gib(m.headroomBytes(), 1)));
    else
        m_fit->set(
            tr("Does not fit"), peakForms(tr("needs"), m.peakBytes, m.capacityBytes),
            tr("Stage %1 needs %2 of %3 (%4 over). ")
                    .arg(m.peakStage)
                    .arg(fmt::gib(m.peakBytes, 1), fmt::gib(m.capacityBytes, 0), fmt::gib(-m.headroomBytes(), 1)) +
                memoryTip);
}

void SummaryStrip::refreshSpeed(const Estimate &e)
{
    const StepEstimate &s = e.step;
    // The error band (issue 37) on the captions, a warning mark outside the validated runs (the tooltip says
    // which dimensions): the tiles are narrow.
    const EstimateDetails &details = detailsOf(e);
    const QString band =
        io::accuracyBand(details.accuracy) +
        (details.accuracy.assessed && !details.accuracy.validated ? QStringLiteral(" \u26a0") : QString());
    const QString accuracy = tr("\n\nAccuracy: %1").arg(io::accuracySummary(details.accuracy));
    m_step->set(tr("%1 s").arg(fmt::number(s.stepSeconds, s.stepSeconds < 10 ? 3 : 1)), {tr("per step %1").arg(band)},
                tr("Compute + recompute + exposed tensor, pipeline and data communication + pipeline bubble + "
                   "optimizer.\nTraffic "
                   "floor: %1")
                        .arg(io::trafficFloorSummary(s)) +
                    accuracy);
    m_tokens->set(fmt::count(s.tokensPerSecond, 1), {tr("tokens/s %1").arg(band)},
                  tr("global batch x sequence length / step time") + accuracy);
    QString mfuTip =
        tr("Model FLOPs (3 x forward, no recompute) per GPU per second / dense peak: %1 TFLOP/s of %2; HFU %3")
            .arg(fmt::teraflops(s.modelFlopsPerGpu, 1), fmt::flops(details.roofline.plan.peakFlops, 0),
                 fmt::percent(s.hfu, 1));
    QStringList mfuCaption{tr("MFU")};
    if (!e.nodeGroups.empty()) {
        mfuCaption = QStringList{tr("MFU; %1 idle").arg(fmt::percent(e.idleShare, 0)), tr("MFU")};
        mfuTip +=
            tr("\nMixed cluster: the peak of every GPU counts; the faster node groups wait for the slowest for %1 "
               "of all GPU-time")
                .arg(fmt::percent(e.idleShare, 1));
    }
    m_mfu->set(fmt::percent(s.mfu, 1), mfuCaption, mfuTip);
}

void SummaryStrip::refreshRun(const Estimate &e)
{
    const MemoryEstimate &m = e.memory;
    const StepEstimate &s = e.step;
    const RunEstimate &run = e.run;
    const RunConfig &rc = m_document->plan().run;
    m_run->setWarning(!m.fits);
    if (!m.fits)
        m_run->set(tr("Does not fit"), {tr("no time or cost to train"), tr("no cost")},
                   tr("A plan that does not fit the GPUs' memory cannot run"));
    else
        m_run->set(
            tr("%1 days").arg(fmt::number(run.days, run.days < 10 ? 1 : 0)),
            {tr("%1 for %2 tokens").arg(fmt::currency(run.cost, rc.currency), fmt::count(rc.tokenBudget, 0)),
             fmt::currency(run.cost, rc.currency)},
            tr("Token budget %1 / (global batch x sequence length) = %2 steps x %3 s = %4 days without failures (%5 "
               "with checkpoints, failures and restarts); cost = %6 GPU-hours x %7 per GPU-hour")
                .arg(fmt::count(rc.tokenBudget, 1), fmt::grouped(run.steps), fmt::number(s.stepSeconds, 3),
                     fmt::number(run.days, 1), fmt::number(run.daysWithFailures, 1), fmt::grouped(run.gpuHours),
                     fmt::currency(rc.pricePerGpuHour, rc.currency)));
}

void SummaryStrip::refreshNextStep()
{
    const Estimate &e = m_document->estimate();
    const Intervention *s = e.valid ? m_document->advice().suggestion() : nullptr;
    if (s) {
        const QString warning = s->mayNotFit ? QStringLiteral(" \u26a0") : QString(); // the tooltip says why
        m_nextEffect = e.memory.fits ? tr("(%1x tokens/s%2)").arg(fmt::number(s->speedup, 2), warning)
                                     : tr("(fits: %1%2)").arg(fmt::gib(s->peakBytes, 1), warning);
        m_nextLabel = tr("Try: %1").arg(io::interventionLabel(s->id));
        fitNextStep();
        m_next->setToolTip(tr("Apply the suggested change as one undo step: %1 (%2)")
                               .arg(io::interventionLabel(s->id), QString::fromStdString(s->change)) +
                           (s->mayNotFit ? tr(".\nIt fits as estimated but not at its memory band's upper edge: it "
                                              "may not fit")
                                         : QString()));
    } else if (e.valid && !e.memory.fits) {
        m_nextLabel.clear();
        m_next->setText(tr("Search for a Plan\nThat Fits…"));
        m_next->setToolTip(
            tr("No single change of the diagnostic map makes this plan fit; the search tries every layout, "
               "micro-batch, ZeRO stage and recomputation together"));
    }
    m_next->setVisible(s || (e.valid && !e.memory.fits));
}

/// The suggestion wrapped into the button's lines, its effect on the last (the width holds every
/// intervention's name in two lines).
void SummaryStrip::fitNextStep()
{
    if (m_nextLabel.isEmpty())
        return;
    const QFontMetrics metrics(m_next->font());
    QStringList lines = wrapped(m_nextLabel, metrics, m_next->width() - 18);
    lines << m_nextEffect;
    m_next->setText(lines.join(QLatin1Char('\n')));
}

void SummaryStrip::takeNextStep()
{
    const Estimate &e = m_document->estimate();
    if (const Intervention *s = e.valid ? m_document->advice().suggestion() : nullptr)
        m_document->undoStack()->push(
            new ReplacePlan(m_document, s->plan, tr("Apply %1").arg(io::interventionLabel(s->id))));
    else
        emit searchRequested();
}

void SummaryStrip::refreshDeltas()
{
    const Estimate &e = m_document->estimate();
    const bool on = e.valid && m_document->hasBaseline() && m_document->baselineEstimate().valid;
    if (!on) {
        for (SummaryTile *t : {m_fit, m_step, m_tokens, m_mfu, m_run})
            t->setDelta({}, std::nullopt);
        return;
    }
    const Estimate &b = m_document->baselineEstimate();
    const auto signedGib = [](double bytes) {
        return (bytes >= 0 ? QStringLiteral("+") : QString()) + fmt::gib(bytes, 1);
    };
    const double memory = e.memory.peakBytes - b.memory.peakBytes;
    const QStringList same{tr("same as baseline"), tr("same")};
    m_fit->setDelta(std::fabs(memory) < 0.05 * units::GiB
                        ? same
                        : QStringList{tr("%1 vs baseline").arg(signedGib(memory)), signedGib(memory)},
                    std::fabs(memory) < 0.05 * units::GiB ? std::nullopt : std::optional<bool>(memory < 0));
    const auto compare = [](SummaryTile *tile, double now, double before, bool lowerIsBetter) {
        const bool unchanged = !(before > 0) || std::fabs(now / before - 1.0) < 0.0005;
        tile->setDelta(relative(now, before),
                       unchanged ? std::nullopt : std::optional<bool>((now < before) == lowerIsBetter));
    };
    compare(m_step, e.step.stepSeconds, b.step.stepSeconds, true);
    compare(m_tokens, e.step.tokensPerSecond, b.step.tokensPerSecond, false);
    const double points = 100.0 * (e.step.mfu - b.step.mfu);
    const QString pointsText = (points > 0 ? QStringLiteral("+") : QString()) + fmt::number(points, 1);
    m_mfu->setDelta(std::fabs(points) < 0.05
                        ? same
                        : QStringList{tr("%1 points vs baseline").arg(pointsText), tr("%1 pt").arg(pointsText)},
                    std::fabs(points) < 0.05 ? std::nullopt : std::optional<bool>(points > 0));
    if (e.memory.fits && b.memory.fits)
        compare(m_run, e.run.cost, b.run.cost, true);
    else
        m_run->setDelta(b.memory.fits ? QStringList{tr("baseline fits"), tr("base fits")}
                                      : QStringList{tr("baseline does not fit"), tr("no fit")},
                        std::nullopt);
}

} // namespace trainplan
