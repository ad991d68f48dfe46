#include "SummaryStrip.h"

#include <QHBoxLayout>
#include <QLabel>

#include "charts/ChartStyle.h"
#include "common/Units.h"
#include "document/PlanDocument.h"

namespace trainplan {

namespace {

QLabel *tile(QHBoxLayout *layout, int stretch = 0)
{
    auto *label = new QLabel;
    label->setTextFormat(Qt::RichText);
    label->setFrameShape(QFrame::StyledPanel);
    label->setMargin(6);
    label->setWordWrap(stretch > 0);
    layout->addWidget(label, stretch);
    return label;
}

QString number(double value, int decimals)
{
    return QString::fromStdString(units::formatNumber(value, decimals));
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
        for (const Problem &p : e.problems)
            if (p.isError())
                problems << QString::fromStdString(toString(p)).toHtmlEscaped();
        m_fit->setText(tr("<b style='color:%1'>Invalid plan</b>").arg(chartstyle::warning(palette()).name()));
        m_fit->setToolTip(problems.join("<br>"));
        for (QLabel *l : {m_step, m_tokens, m_mfu})
            l->setText(QStringLiteral("&ndash;"));
        m_bottleneck->setText(tr("%n problem(s) to fix in the plan editor: %1", nullptr, int(problems.size())).arg(problems.value(0)));
        return;
    }
    const MemoryEstimate &m = e.memory;
    const StepEstimate &s = e.step;
    const QString gib = QStringLiteral("%1 GiB");
    if (m.fits)
        m_fit->setText(tr("<b>Fits</b>: peak %1 of %2 (%3 free)")
                           .arg(gib.arg(number(m.peakBytes / units::GiB, 1)), gib.arg(number(m.capacityBytes / units::GiB, 0)),
                                gib.arg(number(m.headroomBytes() / units::GiB, 1))));
    else
        m_fit->setText(tr("<b style='color:%1'>Does not fit</b>: stage %2 needs %3 of %4")
                           .arg(chartstyle::warning(palette()).name())
                           .arg(m.peakStage)
                           .arg(gib.arg(number(m.peakBytes / units::GiB, 1)), gib.arg(number(m.capacityBytes / units::GiB, 0))));
    m_fit->setToolTip(tr("Peak over the step of the most loaded stage: parameters + gradients + optimizer + stored "
                         "activations + transient buffers, per GPU"));
    m_step->setText(tr("Step <b>%1 s</b>").arg(number(s.stepSeconds, s.stepSeconds < 10 ? 3 : 1)));
    m_step->setToolTip(tr("Compute + recompute + exposed tensor, pipeline and data communication + pipeline bubble + optimizer"));
    m_tokens->setText(tr("<b>%1</b> tokens/s").arg(QString::fromStdString(units::formatCount(s.tokensPerSecond, 1))));
    m_tokens->setToolTip(tr("global batch x sequence length / step time"));
    m_mfu->setText(tr("MFU <b>%1%</b>").arg(number(100 * s.mfu, 1)));
    m_mfu->setToolTip(tr("Model FLOPs (3 x forward, no recompute) per GPU per second / dense peak: %1 of %2 TFLOP/s; HFU %3%")
                          .arg(number(s.modelFlopsPerGpu / 1e12, 1))
                          .arg(number(e.device->peakFlops(m_document->plan().training.precision) / 1e12, 0))
                          .arg(number(100 * s.hfu, 1)));
    m_bottleneck->setText(tr("Limited by <b>%1</b>: %2").arg(bottleneckWords(s.bottleneck), QString::fromStdString(s.bottleneckEvidence)));
    m_bottleneck->setToolTip(tr("The largest share of the step among arithmetic (compute-bound kernels), memory movement "
                                "(bandwidth-bound kernels and the optimizer), exposed communication and pipeline idle time; "
                                "capacity when the plan does not fit"));
}

} // namespace trainplan
