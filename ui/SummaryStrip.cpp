#include "ui/SummaryStrip.h"

#include "io/Evidence.h"
#include "ui/Format.h"

#include <QApplication>
#include <QHBoxLayout>
#include <QLabel>

#include "ui/charts/ChartStyle.h"
#include "ui/document/PlanDocument.h"

namespace trainplan {

namespace {

QLabel *tile(QHBoxLayout *layout, int stretch = 0)
{
    // Plain text: rich-text labels re-lay out a QTextDocument on every edit, the largest cost of a
    // redraw on big plans.
    auto *label = new QLabel;
    label->setTextFormat(Qt::PlainText);
    label->setFrameShape(QFrame::StyledPanel);
    label->setMargin(6);
    label->setWordWrap(stretch > 0);
    layout->addWidget(label, stretch);
    return label;
}

/// Bold text, in the warning colour when `on`.
void setWarning(QLabel *label, bool on)
{
    QPalette p = label->palette();
    p.setColor(QPalette::WindowText, on ? trainplan::chartstyle::warning(p) : QApplication::palette().color(QPalette::WindowText));
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

} // namespace

SummaryStrip::SummaryStrip(PlanDocument *document, QWidget *parent)
    : QWidget(parent), m_document(document)
{
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_fit = tile(layout);
    m_step = tile(layout);
    m_tokens = tile(layout);
    m_mfu = tile(layout);
    m_bottleneck = tile(layout, 1);
    QFont bold = font();
    bold.setBold(true);
    for (QLabel *label : {m_fit, m_step, m_tokens, m_mfu})
        label->setFont(bold);
    // A fixed height (three lines of the bold font): new numbers must not re-lay out the window.
    QFont boldFont = font();
    boldFont.setBold(true);
    setFixedHeight(3 * QFontMetrics(boldFont).lineSpacing() + 2 * 6 + 6);
    // Minimum widths that do not follow the text, so an edit never changes the window's minimum size.
    const int digit = fontMetrics().horizontalAdvance(QLatin1Char('0'));
    const int widths[] = {40, 13, 18, 12, 30};
    QLabel *labels[] = {m_fit, m_step, m_tokens, m_mfu, m_bottleneck};
    for (int i = 0; i < 5; ++i) {
        labels[i]->setSizePolicy(i == 4 ? QSizePolicy::Ignored : QSizePolicy::Preferred, QSizePolicy::Expanding);
        labels[i]->setMinimumWidth(widths[i] * digit);
        labels[i]->setAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    }
    connect(m_document, &PlanDocument::planChanged, this, &SummaryStrip::refresh);
    refresh();
}

QString SummaryStrip::fitText() const
{
    return m_fit->text();
}

QString SummaryStrip::bottleneckText() const
{
    return m_bottleneck->text();
}

void SummaryStrip::refresh()
{
    const Estimate &e = m_document->estimate();
    if (!e.valid) {
        QStringList problems;
        for (const Problem &p : m_document->problems())
            if (p.isError())
                problems << QString::fromStdString(toString(p));
        m_fit->setText(tr("Invalid plan"));
        setWarning(m_fit, true);
        m_fit->setToolTip(problems.join(QLatin1Char('\n')));
        for (QLabel *l : {m_step, m_tokens, m_mfu})
            l->setText(QStringLiteral("\u2013"));
        m_bottleneck->setText(tr("%n problem(s) to fix in the plan editor: %1", nullptr, int(problems.size())).arg(problems.value(0)));
        return;
    }
    const MemoryEstimate &m = e.memory;
    const StepEstimate &s = e.step;
    setWarning(m_fit, !m.fits);
    if (m.fits)
        m_fit->setText(tr("Fits: peak %1 of %2 (%3 free)")
                           .arg(fmt::gib(m.peakBytes, 1), fmt::gib(m.capacityBytes, 0), fmt::gib(m.headroomBytes(), 1)));
    else
        m_fit->setText(tr("Does not fit: stage %1 needs %2 of %3")
                           .arg(m.peakStage)
                           .arg(fmt::gib(m.peakBytes, 1), fmt::gib(m.capacityBytes, 0)));
    m_fit->setToolTip(tr("Peak over the step of the most loaded stage: parameters + gradients + optimizer + stored "
                         "activations + transient buffers, per GPU"));
    m_step->setText(tr("Step %1 s").arg(fmt::number(s.stepSeconds, s.stepSeconds < 10 ? 3 : 1)));
    m_step->setToolTip(tr("Compute + recompute + exposed tensor, pipeline and data communication + pipeline bubble + optimizer"));
    m_tokens->setText(tr("%1 tokens/s").arg(fmt::count(s.tokensPerSecond, 1)));
    m_tokens->setToolTip(tr("global batch x sequence length / step time"));
    m_mfu->setText(tr("MFU %1").arg(fmt::percent(s.mfu, 1)));
    m_mfu->setToolTip(tr("Model FLOPs (3 x forward, no recompute) per GPU per second / dense peak: %1 of %2; HFU %3")
                          .arg(fmt::teraflops(s.modelFlopsPerGpu, 1), fmt::flops(e.roofline.plan.peakFlops, 0), fmt::percent(s.hfu, 1)));
    m_bottleneck->setText(tr("Limited by %1: %2").arg(bottleneckWords(s.bottleneck), io::bottleneckEvidence(s.bottleneck, s.evidence)));
    m_bottleneck->setToolTip(tr("The largest share of the step among arithmetic (compute-bound kernels), memory movement "
                                "(bandwidth-bound kernels and the optimizer), exposed communication and pipeline idle time; "
                                "capacity when the plan does not fit"));
}

} // namespace trainplan
