#include "io/output/ChartCsv.h"

#include <QStringList>

namespace trainplan::io {

namespace {

QString n(double v) { return QString::number(v, 'g', 17); }

QString field(const QString &text)
{
    if (!text.contains(QLatin1Char(',')) && !text.contains(QLatin1Char('"')) && !text.contains(QLatin1Char('\n')))
        return text;
    QString quoted = text;
    quoted.replace(QLatin1String("\""), QLatin1String("\"\""));
    return QLatin1Char('"') + quoted + QLatin1Char('"');
}

QString join(const QStringList &rows) { return rows.join(QLatin1Char('\n')) + QLatin1Char('\n'); }

} // namespace

QString memoryCsv(const Estimate &e)
{
    QStringList rows{
        QStringLiteral("stage,parameters_bytes,gradients_bytes,optimizer_bytes,activations_bytes,other_bytes,"
                       "peak_bytes,capacity_bytes,fits")};
    for (const StageMemory &s : e.memory.stages)
        rows << QStringList{QString::number(s.stage), n(s.parametersBytes), n(s.gradientsBytes), n(s.optimizerBytes),
                            n(s.activationsBytes), n(s.otherBytes), n(s.peakBytes), n(s.capacityBytes),
                            s.peakBytes <= s.capacityBytes ? QStringLiteral("true") : QStringLiteral("false")}
                    .join(QLatin1Char(','));
    return join(rows);
}

QString stepPartsCsv(const Estimate &e, const Estimate *baseline)
{
    QStringList rows{QStringLiteral("part,seconds,share,baseline_seconds")};
    for (std::size_t k = 0; k < kStepPartCount; ++k) {
        const double seconds = e.parts[k];
        rows << QStringList{QLatin1String(toString(StepPart(k))), n(seconds),
                            n(e.step.stepSeconds > 0 ? seconds / e.step.stepSeconds : 0.0),
                            baseline && baseline->valid ? n(baseline->parts[k]) : QString()}
                    .join(QLatin1Char(','));
    }
    return join(rows);
}

QString rooflineCsv(const Estimate &e)
{
    QStringList rows{
        QStringLiteral("op,pass,kind,flops,bytes,intensity_flop_per_byte,seconds,achieved_flops_per_second,bound")};
    for (const Op &op : e.step.ops)
        rows << QStringList{field(QString::fromLatin1(op.name)),
                            QLatin1String(toString(op.pass)),
                            QLatin1String(toString(op.kind)),
                            n(op.flops),
                            n(op.bytes),
                            n(op.intensity()),
                            n(op.seconds),
                            n(op.seconds > 0 ? op.flops / op.seconds : 0.0),
                            op.memoryBound ? QStringLiteral("memory") : QStringLiteral("compute")}
                    .join(QLatin1Char(','));
    return join(rows);
}

QString scalingCsv(const Estimate &e)
{
    QStringList rows{QStringLiteral("curve,replicas,step_seconds,speedup,efficiency")};
    const auto add = [&](const char *curve, const std::vector<ScalingPoint> &points) {
        for (const ScalingPoint &p : points)
            rows << QStringList{QLatin1String(curve), QString::number(p.workers), n(p.stepSeconds), n(p.speedup),
                                n(p.efficiency)}
                        .join(QLatin1Char(','));
    };
    add("strong", scalingOf(e).strong);
    add("weak", scalingOf(e).weak);
    return join(rows);
}

QString pipelineCsv(const Estimate &e)
{
    // The whole step's timeline; schedule ops keep the schedule's letters (F, B, W), the end of the step is
    // data_comm and optimizer; `microbatches` > 1 where a long one-stage run groups micro-batches.
    const auto kind = [](SegmentKind k) -> QLatin1String {
        switch (k) {
        case SegmentKind::Forward: return QLatin1String("F");
        case SegmentKind::Backward:
        case SegmentKind::InputGradient: return QLatin1String("B");
        case SegmentKind::WeightGradient: return QLatin1String("W");
        default: return QLatin1String(toString(k));
        }
    };
    QStringList rows{QStringLiteral("stage,kind,microbatch,chunk,start_seconds,end_seconds,microbatches")};
    for (const StepSegment &s : detailsOf(e).timeline.segments)
        rows << QStringList{QString::number(s.row),         kind(s.kind), QString::number(s.microbatch),
                            QString::number(s.chunk),       n(s.start),   n(s.end),
                            QString::number(s.microbatches)}
                    .join(QLatin1Char(','));
    return join(rows);
}

} // namespace trainplan::io
