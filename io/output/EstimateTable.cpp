#include "io/output/EstimateTable.h"
#include "io/output/Format.h"

#include "io/output/Evidence.h"

#include <QStringList>

#include "core/common/Units.h"
#include "core/memory/MemoryTerms.h"
#include "io/plan/ProblemWords.h"

namespace trainplan::io {

namespace {

/// GiB as a bare number with two decimals, for the table's columns.
QString gibNumber(double bytes)
{
    return QString::fromStdString(units::formatNumber(bytes / units::GiB, 2));
}

QString pad(const QString &text, int width)
{
    return text.rightJustified(width);
}


void memoryLines(QStringList &out, const MemoryEstimate &memory)
{
    out << QStringLiteral(
        "Memory per GPU (GiB): allocated (tensors) <= reserved (+ allocator) <= device (+ context, NCCL, libraries)");
    out << QStringLiteral("stage  layers  in-flight     params      grads  optimizer activations      other  allocated "
                          "  reserved     device  phase");
    for (const StageMemory &s : memory.stages)
        out << QStringLiteral("%1  %2  %3 %4 %5 %6 %7 %8 %9 %10 %11  %12")
                   .arg(pad(QString::number(s.stage), 5), pad(QString::number(s.activations.layers), 6),
                        pad(QString::number(s.activations.microbatchesInFlight, 'f', 2), 9),
                        pad(gibNumber(s.parametersBytes), 10), pad(gibNumber(s.gradientsBytes), 10),
                        pad(gibNumber(s.optimizerBytes), 10), pad(gibNumber(s.activationsBytes), 11),
                        pad(gibNumber(s.otherBytes), 10), pad(gibNumber(s.allocatedBytes), 10))
                   .arg(pad(gibNumber(s.reservedBytes), 10), pad(gibNumber(s.deviceBytes), 10),
                        QLatin1String(toString(s.peakPhase)));
    const StageMemory &peak = memory.stages[std::size_t(memory.peakStage)];
    out << QString();
    out << QStringLiteral("Other terms of stage %1 (GiB):").arg(peak.stage);
    for (const MemoryKind kind : {MemoryKind::Allocated, MemoryKind::Reserved, MemoryKind::Device})
        for (std::size_t i = 0; i < kOtherTermCount; ++i)
            if (kindOf(OtherTerm(i)) == kind)
                out << QStringLiteral("  %1 %2  %3")
                           .arg(QString::fromLatin1(termInfo(OtherTerm(i)).label).leftJustified(22),
                                pad(gibNumber(peak.other[i]), 8), QString::fromLatin1(labelOf(kind)).toLower());
    out << QString();
    out << QStringLiteral("Peaks: allocated %1, reserved %2, device %3 GiB (stage maxima)")
               .arg(gibNumber(memory.allocatedBytes), gibNumber(memory.reservedBytes), gibNumber(memory.deviceBytes));
    out << QStringLiteral("Peak %1 GiB on stage %2 of %3 GiB capacity: %4 (headroom %5 GiB)")
               .arg(gibNumber(memory.peakBytes))
               .arg(memory.peakStage)
               .arg(gibNumber(memory.capacityBytes))
               .arg(memory.fits ? (memory.tight ? QStringLiteral("fits, TIGHT (within the %1 GiB margin)")
                                                      .arg(gibNumber(memory.marginBytes))
                                                : QStringLiteral("fits"))
                                : QStringLiteral("DOES NOT FIT"))
               .arg(gibNumber(memory.headroomBytes()));
    if (memory.tight) {
        QStringList parts;
        for (const auto &[label, bytes] : largestComponents(peak, 3))
            parts << QStringLiteral("%1 %2").arg(QLatin1String(label), gibNumber(bytes));
        out << QStringLiteral("Largest terms: %1").arg(parts.join(QStringLiteral(", ")));
        const MemoryPressure p = memoryPressure(memory);
        if (p.label)
            out << QStringLiteral("Would not fit if %1 (%2 GiB) were %3% larger: %4 GiB free")
                       .arg(QLatin1String(p.label), gibNumber(p.bytes),
                            QString::number(100 * p.growthToOverflow, 'f', 0), gibNumber(p.headroomBytes));
    }
}

void stepLines(QStringList &out, const StepEstimate &st)
{
    out << QStringLiteral(
               "Step time %1 s: %2 tokens/s, %3 model TFLOP/s per GPU (MFU %4%), %5 hardware TFLOP/s (HFU %6%)")
               .arg(fmt::number(st.stepSeconds, 3), fmt::number(st.tokensPerSecond, 0),
                    fmt::number(st.modelFlopsPerGpu / units::Tera, 1), fmt::number(100 * st.mfu, 1),
                    fmt::number(st.hardwareFlopsPerGpu / units::Tera, 1), fmt::number(100 * st.hfu, 1));
    for (std::size_t i = 0; i < kTimeCategoryCount; ++i)
        out << QStringLiteral("  %1 %2 s  %3%")
                   .arg(QString::fromLatin1(labelOf(TimeCategory(i))).leftJustified(40),
                        pad(fmt::number(st.breakdown[i], 4), 9),
                        pad(fmt::number(st.stepSeconds > 0 ? 100 * st.breakdown[i] / st.stepSeconds : 0, 1), 5));
    out << QStringLiteral("Pipeline idle: %1% of all stage-time (fill, drain and stage imbalance)")
               .arg(fmt::number(100 * st.bubbleFraction, 1));
    out << QStringLiteral("Limited by %1: %2")
               .arg(QLatin1String(toString(st.bottleneck)), bottleneckEvidence(st.bottleneck, st.evidence));
    out << QStringLiteral("Traffic floor: %1").arg(trafficFloorSummary(st));
}

void placementLines(QStringList &out, const Plan &plan, const Estimate &e)
{
    out << (plan.parallel.context > 1
                ? QStringLiteral("Placement (Megatron-Core rank order: tensor, context, data, pipeline)")
                : QStringLiteral("Placement (Megatron rank order: tensor, data, pipeline)"));
    const auto landing = [&](const char *what, const GroupLanding &l) {
        if (l.size > 1)
            out << QStringLiteral("  %1 %2 groups of %3 GPUs, %4, over %5 (%6 of %7 GB/s per GPU achieved)")
                       .arg(QString::fromLatin1(what).leftJustified(11))
                       .arg(l.groups)
                       .arg(l.size)
                       .arg(l.crossesNodes ? QStringLiteral("across %1 nodes").arg(l.nodesSpanned)
                                           : QStringLiteral("inside a node"))
                       .arg(QString::fromStdString(l.link))
                       .arg(fmt::number(l.bandwidthBytesPerSecond / units::Giga, 0),
                            fmt::number(l.nominalBandwidthBytesPerSecond / units::Giga, 0));
    };
    landing("tensor", e.placement.tensor);
    landing("context", e.placement.context);
    landing("expert", e.placement.expert);
    landing("expert data", e.placement.expertData);
    landing(plan.parallel.context > 1 ? "gradient" : "data", e.placement.data);
    const std::int64_t p = plan.parallel.pipeline;
    if (p > 1)
        out << QStringLiteral("  %1 %2 of %3 stage boundaries cross nodes, over %4")
                   .arg(QStringLiteral("pipeline").leftJustified(11))
                   .arg(e.placement.pipelineBoundariesAcrossNodes).arg(p - 1)
                   .arg(QString::fromStdString(e.placement.pipeline.link));
    for (const NodeGroupEstimate &g : e.nodeGroups)
        out << QStringLiteral("  nodes %1-%2: %3, %4: step %5 s%6%7")
                   .arg(g.firstNode)
                   .arg(g.firstNode + g.nodes - 1)
                   .arg(QString::fromStdString(g.deviceName), QString::fromStdString(g.intraNodeLink),
                        fmt::number(g.stepSeconds, 3), g.paces ? QStringLiteral(" (sets the pace)") : QString(),
                        g.fits ? QString() : QStringLiteral(" DOES NOT FIT"));
}

} // namespace

QString terminalLines(const QStringList &lines)
{
    QString text;
    for (const QString &line : lines) {
        for (const QChar c : line) {
            const QChar::Category kind = c.category();
            if (kind == QChar::Other_Control || kind == QChar::Other_Format || kind == QChar::Separator_Line
                || kind == QChar::Separator_Paragraph)
                text += QStringLiteral("\\u{%1}").arg(c.unicode(), 4, 16, QLatin1Char('0'));
            else
                text += c;
        }
        text += QLatin1Char('\n');
    }
    return text;
}

QString estimateToTable(const Plan &plan, const Estimate &e)
{
    QStringList out;
    out << QStringLiteral("Plan:    %1").arg(QString::fromStdString(plan.name));
    if (!e.valid) {
        out << QStringLiteral("Invalid plan:");
        for (const Problem &p : estimateProblems(e))
            out << QStringLiteral("  %1").arg(problemLine(p));
        return terminalLines(out);
    }
    const ParallelConfig &par = plan.parallel;
    QString layers = QStringLiteral("%1 layers").arg(plan.model.layers);
    if (plan.model.isHybrid()) { // a hybrid model's blocks by kind
        const ModelSpec::BlockCounts b = plan.model.blocksIn(0, plan.model.layers);
        QStringList kinds;
        for (const auto &[n, kind] : {std::pair{b.mamba, "Mamba-2"}, std::pair{b.attention, "attention"},
                                      std::pair{b.denseMlp, "MLP"}, std::pair{b.moeMlp, "MoE"}})
            if (n > 0)
                kinds << QStringLiteral("%1 %2").arg(n).arg(QLatin1String(kind));
        layers += QStringLiteral(": ") + kinds.join(QStringLiteral(", ")) + QLatin1Char(';');
    } else {
        layers += QLatin1Char(',');
    }
    out << QStringLiteral("Model:   %1, %2 parameters (%3 hidden %4, %5 heads)")
               .arg(QString::fromStdString(plan.model.name),
                    QString::fromStdString(units::formatCount(e.model.parameters)), layers)
               .arg(plan.model.hidden)
               .arg(plan.model.heads);
    const QString layout =
        par.context > 1
            ? QStringLiteral("data %1 x tensor %2 x pipeline %3 x context %4 (%5)")
                  .arg(par.data)
                  .arg(par.tensor)
                  .arg(par.pipeline)
                  .arg(par.context)
                  .arg(QLatin1String(toString(par.contextComm)))
            : QStringLiteral("data %1 x tensor %2 x pipeline %3").arg(par.data).arg(par.tensor).arg(par.pipeline);
    out << QStringLiteral(
               "Layout:  %1 GPUs of %2 = %3; %4 micro-batches of %5, %6, ZeRO %7, recompute %8, optimizer %9")
               .arg(e.model.gpus)
               .arg(QString::fromStdString(e.device->name), layout)
               .arg(e.model.microbatches)
               .arg(plan.training.microBatch)
               .arg(QLatin1String(toString(par.schedule)))
               .arg(par.zeroStage)
               .arg(QLatin1String(toString(plan.training.recompute)), QLatin1String(toString(plan.training.optimizer)));
    out << QString();
    memoryLines(out, e.memory);
    out << QString();
    stepLines(out, e.step);
    const Accuracy &accuracy = detailsOf(e).accuracy;
    if (accuracy.assessed)
        out << QStringLiteral("Accuracy: step time and tokens/s %1: %2")
                   .arg(accuracyBand(accuracy), accuracySummary(accuracy));
    if (accuracy.memoryComparableRuns > 0)
        out << QStringLiteral("          memory peak \u00b1%1%: %2")
                   .arg(fmt::number(100 * accuracy.memoryBand80, 0), memoryBandSummary(e.memory, accuracy));
    out << QString();
    placementLines(out, plan, e);
    for (const Problem &p : estimateProblems(e))
        out << QStringLiteral("%1").arg(problemLine(p));
    return terminalLines(out);
}

} // namespace trainplan::io
