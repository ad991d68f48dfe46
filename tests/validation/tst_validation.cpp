// Validation on published runs: predicted vs measured step time for every usable row of the Narayanan
// 2021 table, the Megatron-LM 2020 README, DLPerf and llm-foundry (A100/V100), NVIDIA's DGX Cloud
// recipes (dense and mixture-of-experts NeMo / Megatron-Core rows on H100 and GB200) and NeMo's long-context
// table (H100, B200).
// Each group is held to its bound (docs/CALIBRATION.md). Rows of other execution engines (DLPerf's
// OneFlow, the recipes' JAX rows) are printed and summarised but held to no bound: Trainplan models
// Megatron-style execution.

#include <QFile>
#include <QTest>

#include <algorithm>
#include <cmath>

#include "io/plan/CatalogJson.h"
#include "io/plan/PlanJson.h"
#include "TestMain.h"
#include "TestSupport.h"
#include "ValidationRows.h"
#include "core/common/Units.h"
#include "core/estimate/Estimate.h"
#include "core/pipeline/PipelineSimulator.h"
#include "core/step/StepModel.h"

#include <map>
#include <optional>

using namespace trainplan;
using namespace trainplan::validation;

namespace {
// Bounds per group (docs/CALIBRATION.md). The A100/V100 rows are held where the Levenberg-Marquardt refit
// put them (median 3.5%, worst 22.8%; 3.6% with the schedule-step overhead fitted on the modern rows), with
// rounding room only. The dgxc dense rows meet issue 17's targets: median 5%, worst 15%. The worst rows are
// on both sides of one release-to-release gap: Llama 3.1 70B FP8 in v25.04 (+12% to +15%, the release ran it
// faster than its neighbours) and GPT-3 175B FP8 in v24.11.1 (-14%; one layout at constant work per GPU
// published as 5.92, 5.96, 6.44, 6.72, 6.24 s from 128 to 2,048 GPUs, a 13.5% spread inside one release).
// The Llama 3 8B fine-tuning rows run on packed SQuAD examples (ValidationRows.cpp says how their length is
// read). The long-context table meets its 10% median. Issue 33 (the physical floors) holds the recipes'
// own predictions no worse than dgxc dense median 3% and mixtures of experts 7.5%; its per-unit ZeRO-3
// overlap and the slowdown hidden collectives cost the compute beside them (unfitted: NCCL's SMs and the HBM
// its bytes cross) take llm-foundry's single-node FSDP rows, already predicted slow, 0.4-1.4 points further
// (A100/V100 pooled 3.6% -> 3.8%; a refit moves no parameter it identifies: docs/CALIBRATION.md).
// Issue 34 refitted the Hopper and Blackwell parameters on the dgxc and Megatron-Bridge rows together (the
// staged fit of docs/CALIBRATION.md): the dgxc dense median stays under 3% (2.9%), its worst row (Llama 3.1
// 405B FP8 on 96 H100, v25.02, +15.8%) passes issue 17's 15% by 0.8 points, the price of the newer releases'
// faster H100 FP8 rows in the same fit. Megatron-Core's deferred output-layer weight gradients, read from the
// recipes that turn them on (December 2026), take the rows the model already rated fastest further (Nemotron-4
// 340B FP8 on 256 GB200, v25.05: -15.5% -> -16.9%, the worst) while the slow ones come in (Llama 3.1 70B FP8,
// v25.04: +13.5% -> +12.1%); the staged refit moves no parameter (docs/CALIBRATION.md). Transformer Engine's
// quantized sequence-parallel all-gathers and the backward's asynchronous tensor-parallel collectives
// (December 2026) with the staged refit take the dgxc dense median to 2.8% and that same row to -19.7%.
// The unfused AdamW's traffic (Composer's DecoupledAdamW and torch's foreach path move 88 and 80 bytes a parameter
// where a fused kernel moves 28; December 2026) takes llm-foundry's A100 rows, already slow, further (A100/V100
// pooled 3.90% -> 3.92%) and its H100 rows closer (5.6% -> 5.0%).
constexpr double kClassicMedian = 0.040, kClassicWorst = 0.230;
constexpr double kDgxcMedian = 0.03, kDgxcWorst = 0.20;
constexpr double kLongContextMedian = 0.10, kLongContextWorst = 0.10;
// The dgxc mixture-of-experts rows (DeepSeek-V3, Grok-1, Llama 4 Maverick on H100 and GB200) meet issue 18's
// median target (10%). Its worst target (25%) holds for 56 of the 59 rows (the worst of them 22%); the
// three DeepSeek-V3 GB200 rows of v25.05 run 1.85x slower than the model says (10% MFU) even with their
// attention read as unfused (ValidationRows.cpp says why), which took them from 2.7x; the same release's
// H100 run of the same recipe is predicted within 7-12% and GB200 runs of Grok-1 and Llama 4 within 12%.
// Nothing else in the published configuration (TP 2, PP 4, EP 32-64, no offload) explains it, so the bound
// on the worst row is what is achieved; the 90th percentile is held to what the other rows reach.
// Issue 34's refit moves the Grok-1 H100 FP8 rows of v24.11.1-v25.02 to -8% to -25% (the Bridge releases'
// H100 and GB200 rows want the faster GEMMs): the median 7.3%, the 90th percentile 18.6%.
constexpr double kMoeMedian = 0.075, kMoeWorst = 0.48, kMoePercentile90 = 0.19;
constexpr double kHeldOutWorst = 0.10;
// Megatron-Bridge 25.09-26.08, each row read with its release's recipe settings: as achieved (issue 34's
// targets, dense median 5% and worst 15%, mixtures of experts 10% and 25%, are not all met: dense 4.3% and 23.9%,
// MoE 5.6% and 49.9%; docs/CALIBRATION.md names the rows and what each is missing).
constexpr double kBridgeDenseMedian = 0.045, kBridgeDenseWorst = 0.25, kBridgeMoeMedian = 0.065, kBridgeMoeWorst = 0.52;
constexpr double kBridgeSftMedian = 0.08, kBridgeSftWorst = 0.11;
constexpr double kDgxcHybridMedian = 0.26, kDgxcHybridWorst = 0.27;
constexpr double kBridgeHybridMedian = 0.22, kBridgeHybridWorst = 0.26, kBridgeLatentMedian = 0.36,
                 kBridgeLatentWorst = 0.71;
// The zero-bubble pipeline runs' reserved peaks: issue 19's median target (5%); the worst row (ZB-2p, 6.9%) within 8%.
constexpr double kZeroBubbleWorst = 0.08;

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}
/// A group's absolute errors held to a median and a worst bound (the failure names the group and the value).
void checkGroup(const std::map<QString, std::vector<double>> &groups, const char *name, double medianBound, double worstBound)
{
    const auto it = groups.find(QLatin1String(name));
    QVERIFY2(it != groups.end() && !it->second.empty(), name);
    const std::vector<double> &e = it->second;
    QVERIFY2(median(e) <= medianBound, qPrintable(QStringLiteral("%1: median %2%").arg(QLatin1String(name)).arg(100 * median(e))));
    const double worst = *std::max_element(e.begin(), e.end());
    QVERIFY2(worst <= worstBound, qPrintable(QStringLiteral("%1: worst %2%").arg(QLatin1String(name)).arg(100 * worst)));
}

/// An invalid estimate's problems, one after the other.
QString problemsOf(const Estimate &e)
{
    QStringList problems;
    for (const Problem &p : e.problems)
        problems << io::problemLine(p);
    return problems.join(QStringLiteral("; "));
}

/// Each group's row count, median and worst absolute error, then the skipped rows.
QString summaryOf(const std::map<QString, std::vector<double>> &groups, const QStringList &skipped)
{
    QString out;
    for (const auto &[name, e] : groups)
        out += QStringLiteral("%1: %2 rows, median |error| %3%, worst %4%\n")
                   .arg(name)
                   .arg(e.size())
                   .arg(100 * median(e), 0, 'f', 1)
                   .arg(100 * *std::max_element(e.begin(), e.end()), 0, 'f', 1);
    for (const QString &s : skipped)
        out += "skipped " + s + '\n';
    return out;
}

} // namespace

class TestValidation : public QObject
{
    Q_OBJECT

private slots:
    void stepTimes();
    void bridgeStepTimes();
    void bridgeRowsRunTheirRecipesOverlap();
    void allToAllAcrossNodesFitsMeasuredSteps();
    void bridgeFullIterationRowsStashTheirExperts();
    void dgxcGradientsReducedAsTheirRecipes();
    void dgxcAttentionAsLaunched();
    void pytorchStepTimes();
    void asyncTensorParallelSpeedups();
    void kernelFusionAblation_data();
    void kernelFusionAblation();
    void gpipeThroughputAcrossPartitions_data();
    void gpipeThroughputAcrossPartitions();
    void memoryPeaks();
    void zeroBubbleStepTimes();
    void publishedOutOfMemoryIsCalled();
    void bridgeRecomputeStudyIsCalled();
    void bridgeExpertOverlapStudy();
    void bridgeOptimizerOffloadStudy();
    void bridgeVerificationCards();
    void bridgeWeakScalingCard();
    void everyPublishedRunFits();
};

/// VALIDATION_DUMP=DIR writes each row's plan to DIR/SOURCE-ROWID.json, to look at one with trainplan estimate.
template<typename RowType>
static void dumpPlan(const RowType &row)
{
    const QString dir = qEnvironmentVariable("VALIDATION_DUMP");
    if (dir.isEmpty())
        return;
    QFile f(QStringLiteral("%1/%2-%3.json").arg(dir, row.source, row.id.section(' ', 0, 0)));
    if (f.open(QIODevice::WriteOnly))
        f.write(io::writePlan(row.plan, io::builtinCatalog()));
}

void TestValidation::stepTimes()
{
    QStringList skipped;
    const std::vector<validation::Row> rows = validation::loadRows(&skipped);
    QVERIFY(rows.size() > 100);
    std::vector<double> errors;
    std::map<QString, std::vector<double>> bySource;
    QString worstId;
    double worst = 0;
    QString report = QStringLiteral("\n%1 %2 %3 %4\n").arg("row", -60).arg("measured s", 11).arg("predicted s", 11).arg("error", 8);
    for (const validation::Row &row : rows) {
        dumpPlan(row);
        const Estimate e = estimate(row.plan, io::builtinCatalog(), {false});
        if (!e.valid)
            QFAIL(qPrintable(row.source + ' ' + row.id + ": plan invalid: " + problemsOf(e)));
        const double error = (e.step.stepSeconds - row.measuredSeconds) / row.measuredSeconds;
        const QString source = row.modelled ? row.source : row.source + " (not modelled: another framework)";
        bySource[source].push_back(std::abs(error));
        report += QStringLiteral("%1 %2 %3 %4%  %5\n")
                      .arg((row.source + ' ' + row.id).left(60), -60)
                      .arg(row.measuredSeconds, 11, 'f', 3)
                      .arg(e.step.stepSeconds, 11, 'f', 3)
                      .arg(100 * error, 7, 'f', 1)
                      .arg(QLatin1String(toString(e.step.bottleneck)));
        if (!row.modelled)
            continue;
        errors.push_back(std::abs(error));
        if (std::abs(error) > worst) {
            worst = std::abs(error);
            worstId = row.source + ' ' + row.id;
        }
    }
    for (const auto &[source, e] : bySource)
        report += QStringLiteral("%1: %2 rows, median |error| %3%, max %4%\n")
                      .arg(source)
                      .arg(e.size())
                      .arg(100 * median(e), 0, 'f', 1)
                      .arg(100 * *std::max_element(e.begin(), e.end()), 0, 'f', 1);
    const double med = median(errors);
    report += QStringLiteral("ALL modelled: %1 rows, median |error| %2%, worst %3% (%4)\n")
                  .arg(errors.size())
                  .arg(100 * med, 0, 'f', 1)
                  .arg(100 * worst, 0, 'f', 1)
                  .arg(worstId);
    for (const QString &s : skipped)
        report += "skipped " + s + '\n';
    qInfo().noquote() << report;
    // Per group: the A100/V100 sources the model was first calibrated on, the dgxc dense rows and the
    // long-context table.
    std::vector<double> classic;
    for (const char *source : {"narayanan2021", "megatron_readme_2020", "dlperf", "llmfoundry"})
        classic.insert(classic.end(), bySource[QLatin1String(source)].begin(), bySource[QLatin1String(source)].end());
    report = QStringLiteral("A100/V100 sources: %1 rows, median |error| %2%, max %3%\n")
                 .arg(classic.size())
                 .arg(100 * median(classic), 0, 'f', 1)
                 .arg(100 * *std::max_element(classic.begin(), classic.end()), 0, 'f', 1);
    qInfo().noquote() << report;
    const auto check = [&](const QString &name, const std::vector<double> &e, double medianBound, double worstBound) {
        QVERIFY2(!e.empty(), qPrintable(name));
        const double m = median(e), w = *std::max_element(e.begin(), e.end());
        QVERIFY2(m <= medianBound, qPrintable(QStringLiteral("%1: median error %2% > %3%").arg(name).arg(100 * m).arg(100 * medianBound)));
        QVERIFY2(w <= worstBound, qPrintable(QStringLiteral("%1: worst error %2% > %3%").arg(name).arg(100 * w).arg(100 * worstBound)));
    };
    check(QStringLiteral("A100/V100 sources"), classic, kClassicMedian, kClassicWorst);
    check(QStringLiteral("dgxc dense"), bySource[QStringLiteral("dgxc")], kDgxcMedian, kDgxcWorst);
    check(QStringLiteral("NeMo long context"), bySource[QStringLiteral("nemo-long-context")], kLongContextMedian, kLongContextWorst);
    std::vector<double> moe = bySource[QStringLiteral("dgxc-moe")];
    QVERIFY2(moe.size() >= 59, "the dgxc mixture-of-experts rows are loaded");
    check(QStringLiteral("dgxc mixture of experts"), moe, kMoeMedian, kMoeWorst);
    std::sort(moe.begin(), moe.end());
    const double p90 = moe[std::size_t(0.9 * double(moe.size() - 1))];
    // Runs of later releases, never calibrated on (DeepSeek-V3 with DeepEP and whole-layer recomputation on
    // H100, with interleaving on GB200).
    check(QStringLiteral("dgxc held out"), bySource[QStringLiteral("dgxc-heldout")], kHeldOutWorst, kHeldOutWorst);
    // Nemotron-H 56B (Mamba-2, attention and dense MLP blocks, no experts), never fitted: 23-26% faster than
    // measured at every size, where the Llama rows of the same table are within 3%: the hybrid models' gap is not
    // in their experts alone (docs/CALIBRATION.md, "Nemotron-H 56B"); nor in the Mamba-2 block as such, which the
    // BF16 Nemotron 3 Nano 4B card at tensor 1 puts within 2% (bridgeVerificationCards). Held where it stands.
    QCOMPARE(bySource[QStringLiteral("dgxc-hybrid")].size(), std::size_t(7));
    check(QStringLiteral("dgxc hybrid"), bySource[QStringLiteral("dgxc-hybrid")], kDgxcHybridMedian, kDgxcHybridWorst);
    QVERIFY2(p90 <= kMoePercentile90, qPrintable(QStringLiteral("dgxc mixture of experts: 90th percentile %1%").arg(100 * p90)));
    QVERIFY2(med <= 0.10, qPrintable(QStringLiteral("median error %1% > 10%").arg(100 * med)));
}

/// NVIDIA's Megatron-Bridge performance summary (releases 25.09-26.08), each row with its release's recipe
/// settings (ValidationRows.cpp): per-row errors, by system and model, and the groups' bounds (issue 34).
void TestValidation::bridgeStepTimes()
{
    QStringList skipped;
    const std::vector<validation::Row> rows = validation::loadBridgeRows(&skipped);
    QVERIFY(rows.size() > 200);
    std::map<QString, std::vector<double>> byGroup, byKind, byHybrid;
    QString report = QStringLiteral("\n%1 %2 %3 %4\n").arg("row", -60).arg("measured s", 11).arg("predicted s", 11).arg("error", 8);
    for (const validation::Row &row : rows) {
        dumpPlan(row);
        const Estimate e = estimate(row.plan, io::builtinCatalog(), {false});
        QVERIFY2(e.valid, qPrintable(row.id));
        const double error = (e.step.stepSeconds - row.measuredSeconds) / row.measuredSeconds;
        report += QStringLiteral("%1 %2 %3 %4%%5\n").arg(row.id.left(60), -60).arg(row.measuredSeconds, 11, 'f', 3).arg(e.step.stepSeconds, 11, 'f', 3)
                      .arg(100 * error, 7, 'f', 1).arg(row.modelled ? QString() : QStringLiteral("  (a regression the summary footnotes: not modelled)"));
        if (!row.modelled)
            continue;
        const QString system = row.id.section(QLatin1Char(' '), -3, -3);
        byGroup[row.source + ' ' + system + ' ' + QString::fromStdString(row.plan.model.name)].push_back(error);
        byKind[row.source].push_back(std::abs(error));
        if (row.source == QLatin1String("bridge-hybrid"))
            byHybrid[QString::fromStdString(row.plan.model.presetId)].push_back(std::abs(error));
    }
    for (const auto &[group, errors] : byGroup) {
        std::vector<double> a;
        for (double e : errors)
            a.push_back(std::abs(e));
        report += QStringLiteral("%1: %2 rows, median error %3%, median |error| %4%, max |error| %5%\n")
                      .arg(group, -48).arg(errors.size()).arg(100 * median(errors), 0, 'f', 1).arg(100 * median(a), 0, 'f', 1)
                      .arg(100 * *std::max_element(a.begin(), a.end()), 0, 'f', 1);
    }
    for (const auto &[kind, errors] : byKind)
        report += QStringLiteral("%1: %2 rows, median |error| %3%, worst %4%\n").arg(kind).arg(errors.size()).arg(100 * median(errors), 0, 'f', 1)
                      .arg(100 * *std::max_element(errors.begin(), errors.end()), 0, 'f', 1);
    for (const QString &s : skipped)
        report += "skipped " + s + '\n';
    qInfo().noquote() << report;
    checkGroup(byKind, "bridge", kBridgeDenseMedian, kBridgeDenseWorst);
    checkGroup(byKind, "bridge-moe", kBridgeMoeMedian, kBridgeMoeWorst);
    // Llama 3 70B supervised fine-tuning (26.06 SFT table), read from its SFT recipes and never fitted: within 10%
    // on every system (GB300 MXFP8 -9.9%, GB200 FP8 +9.7%; docs/CALIBRATION.md, "The SFT rows").
    QCOMPARE(byKind["bridge-sft"].size(), std::size_t(5));
    checkGroup(byKind, "bridge-sft", kBridgeSftMedian, kBridgeSftWorst);
    // Nemotron 3 Nano (hybrid Mamba-2, attention and MoE blocks), every release's row read and never fitted: the
    // model is faster than NVIDIA measured on every one (10-25%; docs/CALIBRATION.md), a bias these bounds hold.
    QCOMPARE(byHybrid["nemotron-3-nano-30b-a3b"].size(), std::size_t(20));
    checkGroup(byHybrid, "nemotron-3-nano-30b-a3b", kBridgeHybridMedian, kBridgeHybridWorst);
    // Nemotron 3 Super (latent MoE, two repeated MTP depths), 26.04-26.08, never fitted and held where it stands:
    // 17-39% faster than measured on the GB200 and GB300 racks and B200, 47-70% slower on B300, whose recipe keeps
    // 64 experts per rank behind per-expert GEMM enqueues the model costs at its fitted 67 us (docs/CALIBRATION.md,
    // "Latent MoE: Nemotron 3 Super").
    QCOMPARE(byHybrid["nemotron-3-super-120b-a12b"].size(), std::size_t(30));
    checkGroup(byHybrid, "nemotron-3-super-120b-a12b", kBridgeLatentMedian, kBridgeLatentWorst);
}

/// Each Megatron-Bridge row runs the software its release's recipe sets (tools/bridge_recipe_settings.py reads
/// them). The same Qwen3-30B-A3B layout on 8 GB300 in three releases: 26.04.01's workload base config
/// (scripts/performance/configs/qwen/qwen3_workload_base_configs.py at v0.4.1) graphs the router alone, with
/// HybridEP and no all-to-all overlap; 26.06's (v0.5.0) graphs the whole step and overlaps; 26.08's recipe
/// (src/megatron/bridge/perf_recipes/qwen/gb300/qwen3_moe.py at 51885cf) does the same through
/// `_enable_hybridep_full_iteration_mxfp8`, which ends with `cfg.comm_overlap =
/// CommOverlapConfig(..., overlap_moe_expert_parallel_comm=True, delay_wgrad_compute=True)`
/// (perf_recipes/qwen/common.py lines 36-60): a whole-object assignment the extractor once missed.
/// Megatron-Bridge's full-iteration MoE recipes (26.06 to 26.08: DeepSeek-V3, Qwen3 and GPT-OSS on GB300, GB200 and
/// B300) stash their experts' saved tensors in pages, and the copies take HBM time the step pays: read with the stash
/// the 24 modelled rows' median |error| is at most 6%; read without it the model is faster than every Qwen3-30B-A3B
/// row on a GB300 or GB200 rack by more than 12%. (The median without it was above 8% until DeepSeek-V3's
/// multi-token-prediction module took its time and its pipeline layout was read from its recipe; its full-iteration
/// rows then sit as close without the stash as with it, 4.6% and 4.8%, and the Qwen3-30B-A3B rows carry the case.)
void TestValidation::bridgeFullIterationRowsStashTheirExperts()
{
    const std::vector<validation::Row> rows = validation::loadBridgeRows(nullptr);
    std::vector<double> with, without;
    double qwenRack = 0.0; // the least optimistic Qwen3-30B-A3B rack row without the stash
    int qwenRackRows = 0;
    for (const validation::Row &row : rows) {
        if (!row.modelled || !row.plan.model.isMoe() || row.plan.training.cudaGraphs != CudaGraphs::Step)
            continue;
        QVERIFY2(row.plan.training.moePagedStash, qPrintable(row.id));
        Plan off = row.plan;
        off.training.moePagedStash = false;
        const Estimate e = estimate(row.plan, io::builtinCatalog(), {false});
        const Estimate o = estimate(off, io::builtinCatalog(), {false});
        QVERIFY2(e.valid && o.valid, qPrintable(row.id));
        with.push_back(std::abs(e.step.stepSeconds - row.measuredSeconds) / row.measuredSeconds);
        without.push_back(std::abs(o.step.stepSeconds - row.measuredSeconds) / row.measuredSeconds);
        if (row.plan.model.name.find("Qwen3-30B") != std::string::npos && row.plan.cluster.device.rfind("gb", 0) == 0) {
            const double error = (o.step.stepSeconds - row.measuredSeconds) / row.measuredSeconds;
            qwenRack = qwenRackRows++ == 0 ? error : std::max(qwenRack, error);
        }
    }
    QCOMPARE(with.size(), std::size_t(24));
    QVERIFY(qwenRackRows >= 6);
    QVERIFY2(qwenRack < -0.12, qPrintable(QString::number(qwenRack)));
    QVERIFY2(median(with) <= 0.06, qPrintable(QString::number(median(with))));
    qInfo("median |error| with the stash %.4f, without %.4f", median(with), median(without));
}

/// NCCL's all-to-all across nodes: every copy for another node leaves through its sender's own NIC, so a step
/// cannot be shorter than its expert traffic's network bytes over that NIC at the rate the model gives them
/// (the traffic floor's bytes of the pace stage, the busiest expert's load). Every measured run with the
/// NCCL dispatcher across nodes fits at the device's all-to-all efficiency; at the rings' network efficiency
/// (0.49), which the model used for the all-to-all until December 2026, Qwen3-235B-A22B's H100 runs did not:
/// their measured steps are shorter than the traffic alone (docs/CALIBRATION.md, "NCCL's all-to-all across
/// nodes"). The bound the runs set stays below NCCL's maintainers' single-NIC figure, 48-49 of 50 GB/s
/// (NVIDIA/nccl-tests#267).
void TestValidation::allToAllAcrossNodesFitsMeasuredSteps()
{
    std::vector<validation::Row> rows = validation::loadRows();
    for (validation::Row &r : validation::loadBridgeRows(nullptr))
        rows.push_back(std::move(r));
    double bound = 0, ringEfficiency = 1; // the least all-to-all efficiency the runs allow; the rings' figure
    QString boundRow;
    int checked = 0;
    for (const validation::Row &row : rows) {
        if (!row.modelled || !row.plan.model.isMoe() || row.plan.parallel.expertDispatcher != ExpertDispatcher::AllToAll)
            continue;
        const Estimate e = estimate(row.plan, io::builtinCatalog(), {false});
        QVERIFY2(e.valid, qPrintable(row.id));
        const double bytes = e.step.floor.bytes[std::size_t(FloorKind::Expert)].network;
        if (!(bytes > 0))
            continue;
        const DeviceSpec *device = io::builtinCatalog().device(row.plan.cluster.device);
        QVERIFY2(device, qPrintable(row.id));
        const double nominal = e.step.floor.networkBytesPerSecond;
        const double efficiency = networkAllToAllEfficiency(row.plan, *device);
        QVERIFY2(bytes / (nominal * efficiency) <= row.measuredSeconds,
                 qPrintable(QStringLiteral("%1 %2: %3 s of all-to-all over the network at %4 of its rate, measured step %5 s")
                                .arg(row.source, row.id)
                                .arg(bytes / (nominal * efficiency))
                                .arg(efficiency)
                                .arg(row.measuredSeconds)));
        ringEfficiency = std::min(ringEfficiency, device->networkEfficiency);
        if (bytes / (nominal * row.measuredSeconds) > bound) {
            bound = bytes / (nominal * row.measuredSeconds);
            boundRow = row.source + ' ' + row.id;
        }
        ++checked;
    }
    qInfo().noquote() << checked << "runs; the least all-to-all efficiency they allow:" << bound << "(" << boundRow << ")";
    QVERIFY(checked >= 20);
    QVERIFY2(bound > ringEfficiency, "the runs no longer contradict the rings' efficiency for the all-to-all");
    QVERIFY(bound < 0.98);
}

void TestValidation::bridgeRowsRunTheirRecipesOverlap()
{
    const std::vector<validation::Row> rows = validation::loadBridgeRows(nullptr);
    const auto plan = [&](const char *id) -> const Plan * {
        for (const validation::Row &r : rows)
            if (r.id.section(QLatin1Char(' '), 0, 0) == QLatin1String(id))
                return &r.plan;
        return nullptr;
    };
    // The full-iteration recipes stash their experts' saved tensors in pages (moe_paged_stash); 26.04.01's
    // router-graph recipe does not.
    struct Expected { const char *id; bool overlap; CudaGraphs graphs; bool stash; };
    for (const Expected &e : {Expected{"97", false, CudaGraphs::Router, false}, Expected{"47", true, CudaGraphs::Step, true},
                              Expected{"7", true, CudaGraphs::Step, true}}) {
        const Plan *p = plan(e.id);
        QVERIFY2(p, e.id);
        QVERIFY2(p->model.name.find("Qwen3-30B") != std::string::npos, e.id);
        QCOMPARE(p->parallel.expertDispatcher, ExpertDispatcher::HybridEp);
        QCOMPARE(p->parallel.expertCommOverlap, e.overlap);
        QCOMPARE(p->training.cudaGraphs, e.graphs);
        QCOMPARE(p->training.moePagedStash, e.stash);
    }
    // A printed layout no recipe at the release's tag has is read from the newest recipe of the release's line
    // that has it (tools/bridge_recipe_settings.py line_recipes). 25.11's H100 Llama 3 8B line prints
    // Megatron-FSDP: LLAMA3_8B_H100_FP8_CS_BASE_CONFIG sets use_megatron_fsdp=True and no recomputation at
    // 34641780a (2025-11-20), where the tag's (8aed9a229 on) has recompute_num_layers=5 without it; read as the
    // tag's, the row ran a configuration no commit ever had. 25.11's H100 Qwen3-30B line (PP 2, VP 24, MBS 2)
    // is the qwen3_30b_a3b_llm_pretrain.yaml recipe of f5a691dd1 (2025-10-08), without the all-to-all overlap
    // the tag's layout (VP 12, MBS 1) has. Unless the line's cells were carried over from the previous release
    // and its throughput measured anew (carried_over): 26.02.01's H100 Qwen3-30B line prints 26.02's PP 2, VP 12,
    // EP 8 (QWEN3_30B_A3B_PRETRAIN_CONFIG_H100_FP8_CS_V1 at 5ec81cb75, 2026-02-20: DeepEP with the overlap) at
    // 1.77x 26.02's throughput, where the 30 lines both releases print alike and match exactly move 0.98-1.08x;
    // it is read as v0.3.1's recipe, EP 16 over HybridEP without the overlap (4a6450755, 2026-02-23).
    const Plan *llama = plan("260");
    QVERIFY(llama);
    QCOMPARE(llama->parallel.zeroStage, 3);
    QCOMPARE(llama->training.recompute, Recompute::None);
    const Plan *qwen = plan("264");
    QVERIFY(qwen);
    QCOMPARE(qwen->parallel.virtualStages, std::int64_t(24));
    QCOMPARE(qwen->parallel.expertCommOverlap, false);
    const Plan *qwenShipped = plan("191");
    QVERIFY(qwenShipped);
    QCOMPARE(qwenShipped->parallel.pipeline, std::int64_t(1));
    QCOMPARE(qwenShipped->parallel.expert, std::int64_t(16));
    QCOMPARE(qwenShipped->parallel.expertDispatcher, ExpertDispatcher::HybridEp);
    QCOMPARE(qwenShipped->parallel.expertCommOverlap, false);
    // Its throughput as 26.02 printed the same cells is not read as the same layout's: 26.02's own line is
    // (DeepEP with the overlap at 5113 tokens/s per GPU, 26.02.01's 9058).
    const Plan *qwenDeepEp = plan("228");
    QVERIFY(qwenDeepEp);
    QCOMPARE(qwenDeepEp->parallel.expertDispatcher, ExpertDispatcher::DeepEp);
    QCOMPARE(qwenDeepEp->parallel.expertCommOverlap, true);
}

/// Each dgxc row's gradient reduction as its NeMo release's script leaves it. NeMo 2.3's performance scripts
/// (7a8f1cc7, which every v25.05 release's DeepSeek-V3 setup.sh checks out) turn grad_reduce_in_fp32 off only for
/// FP8 (scripts/performance/utils.py lines 426-437) or in a recipe's performance mode; DeepSeek-V3's recipe has
/// none there, so its BF16 runs keep bf16_mixed()'s FP32 reduction (recipes/deepseek.py line 95,
/// recipes/precision/mixed_precision.py line 35). Llama 3.1's v25.04 script builds its recipe in performance mode,
/// which turns it off (recipes/llama31_405b.py line 253 at d2b21556), as NeMo 1's hydra configs did
/// (grad_sync_dtype: bf16), except Nemotron-4 15B's of v25.02-v25.03, whose mcore_distributed_optim states none:
/// NeMo 1's MegatronGPTModel then reduces in FP32 (megatron_gpt_model.py line 588 at v2.1.0).
void TestValidation::dgxcGradientsReducedAsTheirRecipes()
{
    const std::vector<validation::Row> rows = validation::loadRows(nullptr);
    int deepseek = 0, llama = 0, nemotron = 0, nemotronApex = 0;
    for (const validation::Row &r : rows) {
        if (r.source != QLatin1String("dgxc") && r.source != QLatin1String("dgxc-moe"))
            continue;
        if (r.id.contains(QLatin1String("DeepSeek-V3")) && r.id.contains(QLatin1String(" v25.05"))) {
            QVERIFY2(r.plan.training.fp32Gradients, qPrintable(r.id));
            ++deepseek;
        }
        if (r.id.contains(QLatin1String("Nemotron-4 15B")) && r.id.endsWith(QLatin1String("v25.02"))) {
            QVERIFY2(r.plan.training.fp32Gradients, qPrintable(r.id));
            ++nemotron;
        }
        if (r.id.contains(QLatin1String("Nemotron-4 15B")) && r.id.endsWith(QLatin1String("v24.11.1"))) {
            QVERIFY2(!r.plan.training.fp32Gradients, qPrintable(r.id));
            ++nemotronApex;
        }
        if (r.id.contains(QLatin1String("Llama 3.1")) && r.id.contains(QLatin1String("BF16")) && r.id.endsWith(QLatin1String("v25.04"))) {
            QVERIFY2(!r.plan.training.fp32Gradients, qPrintable(r.id));
            ++llama;
        }
    }
    QCOMPARE(deepseek, 5); // three GB200 rows of v25.05, 1,024 H100 of v25.05, 512 H100 of v25.05.04
    QVERIFY(llama > 0);
    QCOMPARE(nemotron, 15); // 8 BF16 and 7 FP8 rows, 16-2,048 GPUs
    QVERIFY(nemotronApex > 0);
}

/// Each NeMo 1 launch's attention backend: Transformer Engine runs cuDNN's fused attention unless the launch
/// exports NVTE_FUSED_ATTN=0, and then FlashAttention-2. Grok-1's configure.sh does for every run of v24.11.1 to
/// v25.04 (line 29 at v24.11.1), GPT-3 175B's launch.sh in v24.11.1 (line 55; v25.02's configure.sh sets 1),
/// Nemotron-4 340B's configure.sh for 340B (line 65 at v24.11.1; 15B sets 1), whose yaml also recomputes the
/// attention core (activations_checkpoint_granularity: selective, line 138). NeMo 2's scripts set 1.
void TestValidation::dgxcAttentionAsLaunched()
{
    const std::vector<validation::Row> rows = validation::loadRows(nullptr);
    struct Expected { const char *model, *tag; AttentionKernel kernel; Recompute recompute; int rows = 0; };
    Expected expected[] = {{"Grok-1", " v24.11.1", AttentionKernel::Flash2, Recompute::None},
                           {"Grok-1", " v25.05", AttentionKernel::Fused, Recompute::None},
                           {"GPT-3 175B", " v24.11.1", AttentionKernel::Flash2, Recompute::None},
                           {"GPT-3 175B", " v25.02", AttentionKernel::Fused, Recompute::None},
                           {"Nemotron-4 340B", " v24.11.1", AttentionKernel::Flash2, Recompute::Selective},
                           {"Nemotron-4 15B", " v24.11.1", AttentionKernel::Fused, Recompute::None},
                           {"Llama 3.1 405B", " v24.11.1", AttentionKernel::Fused, Recompute::None}};
    for (const validation::Row &r : rows) {
        if (!r.source.startsWith(QLatin1String("dgxc")))
            continue;
        for (Expected &e : expected)
            if (r.id.contains(QLatin1String(e.model)) && r.id.endsWith(QLatin1String(e.tag))) {
                QVERIFY2(r.plan.training.attentionKernel == e.kernel, qPrintable(r.id));
                QVERIFY2(r.plan.training.recompute == e.recompute, qPrintable(r.id));
                ++e.rows;
            }
    }
    for (const Expected &e : expected)
        QVERIFY2(e.rows > 0, e.model);
}

/// PyTorch-native runs (issue 35): every torchtitan and llm-foundry benchmark row estimated (none refused),
/// printed one by one with the per-source summary; held to what the model reaches (docs/CALIBRATION.md,
/// "PyTorch-native training": issue 35's targets are 6% median and 15% worst).
void TestValidation::pytorchStepTimes()
{
    QStringList skipped;
    const std::vector<validation::Row> rows = validation::loadPytorchRows(&skipped);
    QVERIFY(rows.size() > 100);
    std::map<QString, std::vector<double>> bySource;
    QString report = QStringLiteral("\n");
    for (const validation::Row &row : rows) {
        dumpPlan(row);
        const Estimate e = estimate(row.plan, io::builtinCatalog(), {false});
        if (!e.valid)
            QFAIL(qPrintable(row.source + ' ' + row.id + ": plan invalid: " + problemsOf(e)));
        const double error = (e.step.stepSeconds - row.measuredSeconds) / row.measuredSeconds;
        bySource[row.source].push_back(std::abs(error));
        report += QStringLiteral("%1 %2 %3 %4%  %5%6\n")
                      .arg((row.source + ' ' + row.id).left(72), -72)
                      .arg(row.measuredSeconds, 9, 'f', 3)
                      .arg(e.step.stepSeconds, 9, 'f', 3)
                      .arg(100 * error, 7, 'f', 1)
                      .arg(QLatin1String(toString(e.step.bottleneck)))
                      .arg(e.memory.fits ? QString() : QStringLiteral(" (does not fit)"));
    }
    report += summaryOf(bySource, skipped);
    qInfo().noquote() << report;
    // Issue 35's targets are 6% median and 15% worst; the medians meet them (torchtitan 4.5%), the worst rows
    // do not (docs/CALIBRATION.md lists them), so those are held where they stand.
    checkGroup(bySource, "torchtitan", 0.07, 0.37);
    // torchtitan's async-TP page (June 2025): the 70B rows +3..+10% slow, the 8B ones (TP 8 on a 4,096-wide
    // model) 8-9% fast, with or without async TP (docs/CALIBRATION.md)
    // (with torch's foreach AdamW's traffic the 70B row at TP 8 is +11.0%, with repeat_kv's copies of K and V for
    // the 8 query heads of each key head +11.6%)
    checkGroup(bySource, "torchtitan-asynctp", 0.09, 0.12);
    // NeMo Automodel's FSDP2 (+ expert parallelism through DeepEP) on DGX-H100, never fitted: DeepSeek-V3 on
    // 256 GPUs -10%, on 1,024 -19% and Kimi K2 -17% (too fast), Qwen3-30B-A3B +19% (too slow), Llama 3.1 70B
    // +4% (docs/CALIBRATION.md, "NeMo Automodel"). Held where they stand; without the benchmark gate's
    // contiguous routing DeepSeek-V3 on 256 GPUs is +15% and Qwen3-30B-A3B +30%.
    checkGroup(bySource, "automodel", 0.18, 0.20);
    checkGroup(bySource, "llmfoundry-h100", 0.06, 0.25);
    checkGroup(bySource, "llmfoundry-a100-40", 0.05, 0.25);
}

/// What async TP buys under FSDP2: torchtitan's A/B runs on Grand Teton H100, the same layout with and without
/// it (benchmarks/asyncTP_llama3_h100_2025-06_torchtitan.md: Llama 3 70B on 256 GPUs 1.09x in BF16 and 1.16x in
/// float8 tensorwise, Llama 3 8B on 64 GPUs 1.10x and 1.10x; llama3_h100_202412_torchtitan.md Table 4: 1.057x).
/// A full overlap behind the linear GEMMs (Megatron-Core's userbuffers, as modelled before) gives 1.26-1.30x.
void TestValidation::asyncTensorParallelSpeedups()
{
    QStringList skipped;
    const std::vector<validation::Row> rows = validation::loadPytorchRows(&skipped);
    int pairs = 0;
    for (std::size_t i = 0; i + 1 < rows.size(); ++i) {
        const validation::Row &sync = rows[i], &async = rows[i + 1];
        if (sync.plan.parallel.tensorCommOverlap || !async.plan.parallel.tensorCommOverlap || sync.source != async.source
            || sync.plan.model.layers != async.plan.model.layers || sync.plan.training.precision != async.plan.training.precision
            || sync.plan.cluster.gpus() != async.plan.cluster.gpus())
            continue;
        const double measured = sync.measuredSeconds / async.measuredSeconds;
        const double modelled = estimate(sync.plan, io::builtinCatalog(), {false}).step.stepSeconds
                                / estimate(async.plan, io::builtinCatalog(), {false}).step.stepSeconds;
        qInfo().noquote() << QStringLiteral("%1 %2 / %3: measured %4x, modelled %5x")
                                 .arg(sync.source, sync.id, async.id.section(' ', 0, 0))
                                 .arg(measured, 0, 'f', 3)
                                 .arg(modelled, 0, 'f', 3);
        QVERIFY2(std::abs(modelled - measured) <= 0.07, // the five pairs' own spread (0.23-0.61 hidden)
                 qPrintable(QStringLiteral("%1: async TP modelled %2x, measured %3x").arg(sync.id).arg(modelled).arg(measured)));
        ++pairs;
    }
    QCOMPARE(pairs, 5); // Table 4's pair and the async-TP page's four (BF16 and float8 tensorwise, 70B and 8B)
}

void TestValidation::kernelFusionAblation_data()
{
    // Narayanan et al. 2021 Sec. 5.8: fusing bias+GeLU, bias+dropout+add and scale+mask+softmax raised
    // GPT-3 175B from 113 to 135 TFLOP/s and 530B from 133 to 148 TFLOP/s per GPU.
    QTest::addColumn<QString>("model");
    QTest::newRow("GPT-3 175B") << "GPT-3 175B";
    QTest::newRow("530B") << "530B";
}

void TestValidation::kernelFusionAblation()
{
    QFETCH(QString, model);
    const std::vector<validation::Row> rows = validation::loadRows();
    const validation::Row *with = nullptr, *without = nullptr;
    for (const validation::Row &row : rows) {
        if (!row.id.contains(QLatin1String("fusion ablation")) || !row.id.contains(model))
            continue;
        (row.plan.training.fusedKernels ? with : without) = &row;
    }
    QVERIFY(with && without);
    const double measuredGain = without->measuredSeconds / with->measuredSeconds - 1.0;
    const double predictedGain = estimate(without->plan, io::builtinCatalog(), {false}).step.stepSeconds
                                     / estimate(with->plan, io::builtinCatalog(), {false}).step.stepSeconds
                                 - 1.0;
    qInfo("%s: fusion speeds the step up by %.1f%% (measured %.1f%%)", qPrintable(model), 100 * predictedGain, 100 * measuredGain);
    QVERIFY(predictedGain > 0);
    QVERIFY2(std::abs(predictedGain - measuredGain) <= 0.05,
             qPrintable(QStringLiteral("predicted %1%, measured %2%").arg(100 * predictedGain).arg(100 * measuredGain)));
}

void TestValidation::gpipeThroughputAcrossPartitions_data()
{
    // GPipe Tables 2 and 3 (Huang et al. 2019): throughput of the Transformer models (identical layers,
    // so equal stages) with K partitions and M = 32 micro-batches, relative to K = 2 of the same table.
    // The AmoebaNet rows are left out: their stage balance is not published.
    QTest::addColumn<int>("partitions");
    QTest::addColumn<double>("measuredRelative");
    const auto rows = test::readCsv(test::dataPath("validation/gpipe_pipeline_throughput.csv"));
    std::map<QString, double> base;
    for (const QStringList &row : rows)
        if (row.size() > 7 && row[3].startsWith(QLatin1String("Transformer")) && row[6] == QLatin1String("32")
            && row[5] == QLatin1String("2"))
            base[row[1]] = row[7].toDouble();
    int added = 0;
    for (const QStringList &row : rows) {
        if (row.size() <= 7 || !row[3].startsWith(QLatin1String("Transformer")) || row[6] != QLatin1String("32")
            || row[5] == QLatin1String("2"))
            continue;
        QTest::newRow(qPrintable(row[1] + ' ' + row[3] + " K=" + row[5])) << row[5].toInt() << row[7].toDouble() / base.at(row[1]);
        ++added;
    }
    QCOMPARE(added, 4);
}

void TestValidation::gpipeThroughputAcrossPartitions()
{
    QFETCH(int, partitions);
    QFETCH(double, measuredRelative);
    // A fixed mini-batch of 32 micro-batches on K accelerators: the work per step is fixed, each stage
    // does 1/K of it, and the simulated GPipe schedule sets the step time.
    const auto throughput = [](int k) {
        PipelineInput in;
        in.schedule = Schedule::GPipe;
        in.stages = k;
        in.microbatches = 32;
        in.forwardSeconds.assign(std::size_t(k), 1.0 / k);
        in.backwardSeconds.assign(std::size_t(k), 3.0 / k); // backward with GPipe's re-materialisation
        return 1.0 / simulatePipeline(in).makespan;
    };
    const double predicted = throughput(partitions) / throughput(2);
    qInfo("K=%d: predicted %.2fx of K=2, measured %.2fx", partitions, predicted, measuredRelative);
    QVERIFY2(std::abs(predicted - measuredRelative) / measuredRelative <= 0.10,
             qPrintable(QStringLiteral("predicted %1, measured %2").arg(predicted).arg(measuredRelative)));
}

TRAINPLAN_TEST_APPLESS_MAIN(TestValidation)
/// The published per-GPU memory peaks, each against the kind of peak its source prints (reserved for the
/// zero-bubble runs, device-used for DLPerf's nvidia-smi): the per-source table goes to the log.
void TestValidation::memoryPeaks()
{
    QStringList skipped;
    const std::vector<MemoryRow> rows = loadMemoryRows(&skipped);
    std::map<QString, std::vector<double>> bySource;
    QString report = QStringLiteral("memory rows: source, id, kind, measured GiB, allocated / reserved / device GiB, error of the matching kind\n");
    for (const MemoryRow &row : rows) {
        dumpPlan(row);
        const Estimate e = estimate(row.plan, io::builtinCatalog(), {false});
        QVERIFY2(e.valid, qPrintable(row.id + ": " + QString::fromStdString(e.problems.empty() ? std::string() : io::problemMessage(e.problems.front()))));
        const MemoryEstimate &m = e.memory;
        const double predicted = row.kind == MemoryKind::Allocated ? m.allocatedBytes
                                 : row.kind == MemoryKind::Reserved ? m.reservedBytes
                                                                    : m.deviceBytes;
        const double error = predicted / row.measuredBytes - 1.0;
        const StageMemory &peak = m.stages[std::size_t(m.peakStage)];
        report += QStringLiteral("%1 %2 [%3] %4 | %5 / %6 / %7 | %8%%9 | fragmentation %10\n")
                      .arg(row.source, row.id, QLatin1String(labelOf(row.kind)))
                      .arg(row.measuredBytes / units::GiB, 0, 'f', 1)
                      .arg(m.allocatedBytes / units::GiB, 0, 'f', 1)
                      .arg(m.reservedBytes / units::GiB, 0, 'f', 1)
                      .arg(m.deviceBytes / units::GiB, 0, 'f', 1)
                      .arg(100 * error, 0, 'f', 1)
                      .arg(row.modelled ? QString() : QStringLiteral(" (not modelled: reported)"))
                      .arg(peak.allocator.fragmentationBytes / units::GiB, 0, 'f', 3);
        if (qEnvironmentVariableIsSet("TRAINPLAN_MEMORY_DETAIL")) {
            for (const auto &[label, bytes] : largestComponents(peak, 8))
                report += QStringLiteral("    %1 %2 GiB\n").arg(QLatin1String(label), -28).arg(bytes / units::GiB, 0, 'f', 2);
            report += QStringLiteral("    phase %1, stage %2\n").arg(QLatin1String(toString(peak.peakPhase))).arg(peak.stage);
            for (const StageMemory &st : m.stages)
                report += QStringLiteral("    stage %1: reserved %2 GiB, activations %3, in flight %4, gathered %5\n")
                              .arg(st.stage)
                              .arg(st.reservedBytes / units::GiB, 0, 'f', 1)
                              .arg(st.activations.storedBytes() / units::GiB, 0, 'f', 1)
                              .arg(st.activations.microbatchesInFlight)
                              .arg(st.otherTerm(OtherTerm::ZeroGatheredParameters) / units::GiB, 0, 'f', 1);
        }
        bySource[row.source + (row.modelled ? QString() : QStringLiteral(" (reported)"))].push_back(std::abs(error));
    }
    report += summaryOf(bySource, skipped);
    qInfo().noquote() << report;
    const std::vector<double> &zb = bySource[QStringLiteral("zero_bubble")];
    QVERIFY2(zb.size() == 48, "the zero-bubble rows of 1F1B, 1F1B-I, ZB-1p and ZB-2p are loaded");
    QVERIFY2(median(zb) <= 0.05, qPrintable(QStringLiteral("zero-bubble reserved peaks: median error %1% > 5%").arg(100 * median(zb))));
    QVERIFY2(*std::max_element(zb.begin(), zb.end()) <= kZeroBubbleWorst,
             qPrintable(QStringLiteral("zero-bubble reserved peaks: worst error %1%").arg(100 * *std::max_element(zb.begin(), zb.end()))));
    // torchtitan's reserved peaks, every row read from its commit (issue 36's target: median 6%, worst 15%;
    // the 405B pipeline rows, 7-25% under, are the open gap, docs/CALIBRATION.md).
    const std::vector<double> &titan = bySource[QStringLiteral("torchtitan")];
    QVERIFY2(titan.size() == 20, "every torchtitan row with a memory figure is estimated, none refused");
    QVERIFY2(median(titan) <= 0.06, qPrintable(QStringLiteral("torchtitan reserved peaks: median error %1% > 6%").arg(100 * median(titan))));
    QVERIFY2(*std::max_element(titan.begin(), titan.end()) <= 0.26,
             qPrintable(QStringLiteral("torchtitan reserved peaks: worst error %1%").arg(100 * *std::max_element(titan.begin(), titan.end()))));
    // torchao's torchtitan runs of Llama 3 8B (H100 early 2025, MI300X and B200 August 2025), never fitted: the
    // H100 and MI300X peaks within 4%, the B200 ones 13-16% over with cuDNN's attention left out of the save list
    // (17-21% with it kept; docs/CALIBRATION.md, "torchao's runs"). Float8 all-gathers move no peak: the gradients
    // stay 16-bit and the embedding and output layer, the largest units, are gathered in 16 bits.
    const std::vector<double> &torchao = bySource[QStringLiteral("torchao")];
    QVERIFY2(torchao.size() == 10, "every torchao row is estimated");
    QVERIFY2(median(torchao) <= 0.05, qPrintable(QStringLiteral("torchao reserved peaks: median error %1% > 5%").arg(100 * median(torchao))));
    QVERIFY2(*std::max_element(torchao.begin(), torchao.end()) <= 0.16,
             qPrintable(QStringLiteral("torchao reserved peaks: worst error %1%").arg(100 * *std::max_element(torchao.begin(), torchao.end()))));
}

/// The zero-bubble paper's runs timed (Qi et al. 2024, Tables 3-5; never fitted): every schedule within 10% of
/// its measured step, and per model and micro-batch count the schedules in the measured order: ZB-2p (planned
/// as zb-h2, 2p in flight) ahead of ZB-1p (zb-h1, 1F1B's memory), ahead of 1F1B.
void TestValidation::zeroBubbleStepTimes()
{
    const std::vector<Row> rows = loadZeroBubbleRows();
    QCOMPARE(rows.size(), std::size_t(48));
    std::vector<double> errors;
    std::map<QString, std::map<QString, std::pair<double, double>>> byRun; // (model, m) -> schedule -> times
    QString report = QStringLiteral("\nzero-bubble step times: row, measured s, predicted s, error\n");
    for (const Row &row : rows) {
        dumpPlan(row);
        const Estimate e = estimate(row.plan, io::builtinCatalog(), {false});
        QVERIFY2(e.valid, qPrintable(row.id));
        // A zb-h2 plan says that only the fork runs it.
        const bool warned = std::any_of(e.problems.begin(), e.problems.end(), [](const Problem &p) {
            return p.rule == "schedule.zero_bubble_h2_framework" && !p.isError();
        });
        QCOMPARE(warned, row.plan.parallel.schedule == Schedule::ZeroBubbleH2);
        const double error = e.step.stepSeconds / row.measuredSeconds - 1.0;
        errors.push_back(std::abs(error));
        report += QStringLiteral("%1 %2 %3 %4%\n").arg(row.id, -24).arg(row.measuredSeconds, 8, 'f', 3)
                      .arg(e.step.stepSeconds, 8, 'f', 3).arg(100 * error, 6, 'f', 1);
        const QString run = row.id.section(' ', 1, 1) + ' ' + row.id.section(' ', 3, 3);
        byRun[run][row.id.section(' ', 2, 2)] = {row.measuredSeconds, e.step.stepSeconds};
    }
    qInfo().noquote() << report << QStringLiteral("median %1%, worst %2%").arg(100 * median(errors), 0, 'f', 1)
                                       .arg(100 * *std::max_element(errors.begin(), errors.end()), 0, 'f', 1);
    QVERIFY2(median(errors) <= 0.05, "zero-bubble step times: median within 5%");
    QVERIFY2(*std::max_element(errors.begin(), errors.end()) <= 0.10, "zero-bubble step times: every row within 10%");
    QCOMPARE(byRun.size(), std::size_t(12));
    for (const auto &[run, schedules] : byRun) {
        const auto &zb2 = schedules.at(QStringLiteral("ZB-2p")), &zb1 = schedules.at(QStringLiteral("ZB-1p")),
                   &ofob = schedules.at(QStringLiteral("1F1B"));
        QVERIFY2(zb2.first < zb1.first && zb1.first < ofob.first, qPrintable(run + ": the measured order"));
        QVERIFY2(zb2.second < zb1.second && zb1.second < ofob.second, qPrintable(run + ": the predicted order"));
    }
}

/// Published out-of-memory configurations, each beside the run its source made instead: torchtitan's
/// docs/performance.md (041336434916) ran Llama 2 70B on 64 A100 80GB with op-level checkpointing at local batch 1
/// and notes "local batch 2 OOMs with selective AC" (torchtitan_llama_benchmarks.csv, row 27); at 4d88a8a44 it ran
/// Llama 3.1 405B on 128 H100 with FSDP and tensor parallelism because FSDP alone ran out of memory. The runs it
/// published fit; the ones it could not run do not.
void TestValidation::publishedOutOfMemoryIsCalled()
{
    const std::vector<Row> rows = loadPytorchRows(nullptr);
    const auto row = std::find_if(rows.begin(), rows.end(), [](const Row &r) { return r.id.startsWith(QLatin1String("27 Llama 2 70B")); });
    QVERIFY2(row != rows.end(), "torchtitan row 27 (Llama 2 70B, 64 A100, op-level checkpointing) is loaded");
    QCOMPARE(row->plan.training.recompute, Recompute::Ops);
    const Estimate ran = estimate(row->plan, io::builtinCatalog(), {false});
    QVERIFY2(ran.valid && ran.memory.fits, "the published local batch 1 fits");
    Plan doubled = row->plan;
    doubled.training.microBatch *= 2;
    doubled.training.globalBatch *= 2;
    const Estimate oom = estimate(doubled, io::builtinCatalog(), {false});
    QVERIFY(oom.valid);
    QVERIFY2(!oom.memory.fits, qPrintable(QStringLiteral("local batch 2 OOMs with selective AC, predicted %1 GiB of %2")
                                              .arg(oom.memory.peakBytes / units::GiB).arg(oom.memory.capacityBytes / units::GiB)));
    // torchtitan's docs/performance.md at 4d88a8a44 (lines 1-15): Llama 3.1 405B on 128 H100 "(94GB memory)", Meta's
    // Grand Teton part, local batch 2 of torchtitan's 8,192 tokens, full checkpointing: "We do see OOM for 1D
    // parallelism (FSDP2), so we only tested 2D parallelism (FSDP2 + Tensor Parallel)", FSDP 16 x TP 8.
    Plan titan405 = test::presetPlan("llama3.1-405b", 8, 1, 16, 2, 32, "h100-sxm5-96gb-500w");
    titan405.model.seqLen = 8192;
    titan405.training.framework = Framework::Fsdp;
    titan405.training.recompute = Recompute::Full;
    titan405.training.sequenceParallel = true;
    titan405.parallel.zeroStage = 3;
    const Estimate twoD = estimate(titan405, io::builtinCatalog(), {false});
    QVERIFY2(twoD.valid && twoD.memory.fits, "FSDP 16 x TP 8 ran");
    Plan oneD = titan405;
    oneD.parallel.tensor = 1;
    oneD.parallel.data = 128;
    oneD.training.sequenceParallel = false;
    oneD.training.globalBatch = 2 * 128;
    const Estimate fsdpOnly = estimate(oneD, io::builtinCatalog(), {false});
    QVERIFY(fsdpOnly.valid);
    QVERIFY2(!fsdpOnly.memory.fits, qPrintable(QStringLiteral("1D FSDP OOMs, predicted %1 GiB")
                                                   .arg(fsdpOnly.memory.peakBytes / units::GiB)));
}

/// A Megatron-Bridge row's plan (the row whose id starts with `prefix`) trained in BF16, the precision NVIDIA's
/// skill studies below ran in; null when the row is not loaded.
static std::optional<Plan> bridgePlanInBf16(const char *prefix)
{
    const std::vector<Row> rows = loadBridgeRows(nullptr);
    const auto row = std::find_if(rows.begin(), rows.end(),
                                  [prefix](const Row &r) { return r.id.startsWith(QLatin1String(prefix)); });
    if (row == rows.end())
        return std::nullopt;
    Plan plan = row->plan;
    plan.training.precision = Precision::BF16;
    plan.training.fp8ParamGather = false;
    return plan;
}

/// Megatron-Bridge's activation-recompute skill (skills/nemo-mbridge-perf-activation-recompute/SKILL.md at
/// 067f987df, "Matched H100 Evidence: Nemotron 3 Nano"): the native 16-H100 BF16 recipe of Bridge 600d069b
/// (perf_recipes/nemotronh/h100/nemotronh.py, nemotron_3_nano_pretrain_16gpu_h100_bf16_config: EP 8 over HybridEP,
/// forced load balance, TE graphs of attention and Mamba, expandable segments) at global batch 16, one micro-batch
/// of 8,192 tokens per GPU, each run changing only the recomputed modules. Without recomputation and with the
/// experts' activation alone recomputed it ran out of memory; recomputing whole MoE blocks it ran at 657.42 ms a
/// step with a peak of 64.653 GB allocated (Bridge's report_memory divides by 1e9: 60.21 GiB). Never fitted.
void TestValidation::bridgeRecomputeStudyIsCalled()
{
    const std::optional<Plan> nano = bridgePlanInBf16("57 Nemotron_3_Nano");
    QVERIFY2(nano, "Megatron-Bridge row 57 (Nemotron 3 Nano, 16 H100, 26.06) is loaded");
    Plan plan = *nano;
    plan.training.globalBatch = 16;
    plan.training.expandableSegments = true;
    const auto run = [&](bool moe, bool moeAct) {
        Plan p = plan;
        p.training.recompute = moe || moeAct ? Recompute::Selective : Recompute::None;
        p.training.recomputeMoe = moe;
        p.training.recomputeExpertActivation = moeAct;
        return estimate(p, io::builtinCatalog(), {false});
    };
    const Estimate none = run(false, false), act = run(false, true), whole = run(true, false);
    QVERIFY(none.valid && act.valid && whole.valid);
    const auto gib = [](const Estimate &e) { return QString::number(e.memory.peakBytes / units::GiB, 'f', 1); };
    QVERIFY2(!none.memory.fits, qPrintable("no recomputation OOMs: " + gib(none) + " GiB"));
    QVERIFY2(!act.memory.fits, qPrintable("moe_act OOMs: " + gib(act) + " GiB"));
    QVERIFY2(whole.memory.fits, qPrintable("moe fits: " + gib(whole) + " GiB"));
    const double allocated = 64.653e9, seconds = 0.65742;
    const double memoryError = whole.memory.allocatedBytes / allocated - 1.0;
    const double timeError = whole.step.stepSeconds / seconds - 1.0;
    qInfo().noquote() << QStringLiteral("Nemotron 3 Nano, 16 H100 BF16, moe recomputed: allocated %1 GiB against %2 "
                                        "(%3%), step %4 s against %5 (%6%)")
                             .arg(whole.memory.allocatedBytes / units::GiB, 0, 'f', 2)
                             .arg(allocated / units::GiB, 0, 'f', 2).arg(100 * memoryError, 0, 'f', 1)
                             .arg(whole.step.stepSeconds, 0, 'f', 3).arg(seconds).arg(100 * timeError, 0, 'f', 1);
    QVERIFY(std::abs(memoryError) <= 0.10);
    QVERIFY(std::abs(timeError) <= 0.10);
}

/// Megatron-Bridge's MoE communication-overlap skill (skills/nemo-mbridge-perf-moe-comm-overlap/SKILL.md at 067f987df,
/// "HybridEP production-shape validation", 2026-07-25): Qwen3-30B-A3B on 16 H100 in BF16, sequence 4,096, TP 1 PP 1
/// EP 16, micro-batch 1, global batch 1,024, forced-balanced routing, HybridEP, Transformer Engine graphs of
/// moe_router and moe_preprocess; the one change plain expert-parallel overlap (delayed weight gradients off):
/// 24.7138 s a step without it, 20.9920 s with it (the independent validation), rank-0 peak 62.166 GiB allocated.
/// The overlap's gain is the mechanism under test (the absolute steps are 16% above the model's: CALIBRATION).
void TestValidation::bridgeExpertOverlapStudy()
{
    const std::optional<Plan> qwen = bridgePlanInBf16("101 Qwen3_30B_a3B");
    QVERIFY2(qwen, "Megatron-Bridge row 101 (Qwen3-30B-A3B, 16 H100, EP 16, 26.04.01) is loaded");
    Plan plan = *qwen;
    plan.training.cudaGraphs = CudaGraphs::Router;
    plan.parallel.expertDispatcher = ExpertDispatcher::HybridEp;
    plan.parallel.expertCommOverlap = false;
    const Estimate off = estimate(plan, io::builtinCatalog(), {false});
    plan.parallel.expertCommOverlap = true;
    const Estimate on = estimate(plan, io::builtinCatalog(), {false});
    QVERIFY(off.valid && on.valid);
    const double measured = 20.9920 / 24.7138, predicted = on.step.stepSeconds / off.step.stepSeconds;
    qInfo().noquote() << QStringLiteral("Qwen3-30B-A3B, 16 H100 BF16: overlap on/off %1 measured, %2 predicted; "
                                        "steps %3 / %4 s against 20.992 / 24.714; peak %5 GiB allocated against 62.166")
                             .arg(measured, 0, 'f', 3).arg(predicted, 0, 'f', 3).arg(on.step.stepSeconds, 0, 'f', 2)
                             .arg(off.step.stepSeconds, 0, 'f', 2)
                             .arg(on.memory.allocatedBytes / units::GiB, 0, 'f', 2);
    QVERIFY(std::abs(predicted / measured - 1.0) <= 0.03);
    QVERIFY(std::abs(on.memory.allocatedBytes / (62.166 * units::GiB) - 1.0) <= 0.05);
}

/// Megatron-Bridge's CPU-offloading study (skills/nemo-mbridge-perf-cpu-offloading/card.yaml at 067f987df,
/// validated 2026-03-30): Qwen3-30B-A3B pre-training at TP 2, PP 2, EP 4 on two 8-GPU H100 nodes, Megatron-Core's
/// CPU optimizer stepping 25%, 50%, 75% and 100% of each rank's optimizer shard on the host. The recipe is Bridge's
/// qwen3_30b_a3b_pretrain_config of the time (c8eb587c5: sequence 4,096, sequence parallelism, full recomputation,
/// DeepEP, BF16, the precision-aware optimizer off) with _pretrain_common's global batch 32 and micro-batch 2; the
/// card states only the layout. Measured: 0.996 s a step and 47.2 GB allocated (Bridge reports 1e9 bytes) without
/// offload; 1.871 / 2.484 / 3.187 / 4.189 s and 3.8 / 7.6 / 11.6 / 15.3 GB saved with it; 3.877 s at 100% with the
/// copies overlapped. The host's Adam rate
/// (DataParallel.cpp, kTorchCpuAdamStreamShare) was read from the 100% run; the other fractions and every memory
/// figure are checks. The step without offload is not: the card gives no batch (CALIBRATION).
void TestValidation::bridgeOptimizerOffloadStudy()
{
    const std::vector<Row> rows = loadBridgeRows(nullptr);
    const auto row = std::find_if(rows.begin(), rows.end(),
                                  [](const Row &r) { return r.id.startsWith(QLatin1String("101 Qwen3_30B_a3B")); });
    QVERIFY2(row != rows.end(), "Megatron-Bridge row 101 (Qwen3-30B-A3B on 16 H100) is loaded");
    Plan plan = row->plan;
    plan.training.precision = Precision::BF16;
    plan.training.fp8ParamGather = false;
    plan.training.globalBatch = 32;
    plan.training.microBatch = 2;
    plan.training.recompute = Recompute::Full;
    plan.training.sequenceParallel = true;
    plan.training.moeRouterFusion = false;
    plan.training.cudaGraphs = CudaGraphs::None;
    plan.parallel.tensor = 2;
    plan.parallel.pipeline = 2;
    plan.parallel.data = 4;
    plan.parallel.expert = 4;
    plan.parallel.expertTensor = 1;
    plan.parallel.expertDispatcher = ExpertDispatcher::DeepEp;
    plan.parallel.zeroStage = 1;
    const Estimate base = estimate(plan, io::builtinCatalog(), {false});
    QVERIFY(base.valid);
    const double gb = 1e9;
    qInfo().noquote() << QStringLiteral("Qwen3-30B-A3B, TP 2 PP 2 EP 4 on 16 H100: %1 GB allocated against 47.2")
                             .arg(base.memory.allocatedBytes / gb, 0, 'f', 2);
    QVERIFY(std::abs(base.memory.allocatedBytes / (47.2 * gb) - 1.0) <= 0.05);
    struct Measured
    {
        double fraction, seconds, savedGb;
    };
    for (const Measured m : {Measured{0.25, 1.871, 3.8}, Measured{0.5, 2.484, 7.6}, Measured{0.75, 3.187, 11.6},
                             Measured{1.0, 4.189, 15.3}}) {
        Plan offloaded = plan;
        offloaded.parallel.offloadOptimizer = true;
        offloaded.parallel.optimizerOffloadFraction = m.fraction;
        const Estimate e = estimate(offloaded, io::builtinCatalog(), {false});
        QVERIFY(e.valid);
        const double added = e.step.stepSeconds - base.step.stepSeconds, measuredAdded = m.seconds - 0.996;
        const double saved = (base.memory.allocatedBytes - e.memory.allocatedBytes) / gb;
        qInfo().noquote() << QStringLiteral("  offload %1: step +%2 s against +%3, %4 GB saved against %5")
                                 .arg(m.fraction)
                                 .arg(added, 0, 'f', 3)
                                 .arg(measuredAdded, 0, 'f', 3)
                                 .arg(saved, 0, 'f', 2)
                                 .arg(m.savedGb);
        QVERIFY(std::abs(saved / m.savedGb - 1.0) <= 0.05);
        QVERIFY(std::abs(added / measuredAdded - 1.0) <= (m.fraction == 1.0 ? 0.03 : 0.15));
    }
    // The copies overlapped with the host's update (--overlap-cpu-optimizer-d2h-h2d, job 10611046): 3.877 s at 100%.
    Plan overlapped = plan;
    overlapped.parallel.offloadOptimizer = true;
    overlapped.parallel.overlapOffloadCopies = true;
    const double added = estimate(overlapped, io::builtinCatalog(), {false}).step.stepSeconds - base.step.stepSeconds;
    qInfo().noquote() << QStringLiteral("  offload 1 with the copies overlapped: step +%1 s against +2.881")
                             .arg(added, 0, 'f', 3);
    QVERIFY(std::abs(added / (3.877 - 0.996) - 1.0) <= 0.05);
}

/// Megatron-Bridge's model verification cards (ValidationRows.cpp loadBridgeCardRows: each run read from the recipe
/// and commit its card names; never fitted). The cards call their models "not performance-tuned"; the layouts and
/// settings are the recipes', so each step is still a measurement of them. Held: the dense runs (Qwen3-8B; the
/// Nemotron 3 Nano 4B hybrid of Mamba-2, attention and MLP blocks) to 8%, the dense Megatron-Bridge rows' 80th
/// percentile; DeepSeek-V3 on 1,024 H100 to the ±10% its estimate states; Nemotron 3 Super (a latent mixture of
/// experts at a fixed expert capacity) to the hybrid rows' worst.
/// Qwen3-30B-A3B (with its auxiliary loss) and GPT-OSS (with none) route freely, 100 steps from a random start: the
/// model's balanced estimate is a floor, held to be no slower than measured by more than 8%, and the busiest
/// expert's load that would close each gap is printed (the tooltip of training.expert_imbalance quotes it).
void TestValidation::bridgeVerificationCards()
{
    const std::vector<Row> rows = loadBridgeCardRows();
    QCOMPARE(rows.size(), std::size_t(8));
    for (const Row &row : rows) {
        dumpPlan(row);
        const Estimate e = estimate(row.plan, io::builtinCatalog(), {false});
        QVERIFY2(e.valid, qPrintable(row.id + ": " + problemsOf(e)));
        const double error = e.step.stepSeconds / row.measuredSeconds - 1.0;
        QString line = QStringLiteral("%1: %2 s against %3 s measured (%4%)")
                           .arg(row.id)
                           .arg(e.step.stepSeconds, 0, 'f', 3)
                           .arg(row.measuredSeconds, 0, 'f', 3)
                           .arg(100.0 * error, 0, 'f', 1);
        if (row.modelled) {
            qInfo().noquote() << line;
            // A hybrid with experts at the hybrid rows' worst; another mixture of experts at the ±10% its estimate
            // states (Accuracy: 80% of comparable published runs).
            const double bound = row.plan.model.experts == 0 ? 0.08 : row.plan.model.isHybrid() ? kBridgeHybridWorst : 0.10;
            QVERIFY2(std::abs(error) <= bound, qPrintable(line));
            continue;
        }
        // The busiest expert's load at which the estimate meets the measurement (bisection; the step grows with it).
        double lo = 1.0, hi = 16.0;
        for (int i = 0; i < 30; ++i) {
            Plan skewed = row.plan;
            skewed.training.expertImbalance = 0.5 * (lo + hi);
            if (estimate(skewed, io::builtinCatalog(), {false}).step.stepSeconds < row.measuredSeconds)
                lo = skewed.training.expertImbalance;
            else
                hi = skewed.training.expertImbalance;
        }
        qInfo().noquote() << line + QStringLiteral(", balanced; met at an expert imbalance of %1").arg(lo, 0, 'f', 2);
        QVERIFY2(error <= 0.08, qPrintable(line));
    }
    // The Super card also logs PyTorch's peaks (logger.log_device_memory_used: "58.079 GiB allocated and 70.336
    // GiB reserved"; its forced-routing twin 59.000 and 69.344): the allocated peak held to the memory model's 80%
    // band for Megatron-Core (18%); the reserved one is printed, not held (docs/CALIBRATION.md).
    const auto superCard = std::find_if(rows.begin(), rows.end(), [](const Row &r) {
        return r.id == QLatin1String("nemotron-3-super H100 x64");
    });
    QVERIFY(superCard != rows.end());
    const Estimate superEstimate = estimate(superCard->plan, io::builtinCatalog(), {false});
    const double allocated = superEstimate.memory.allocatedBytes / units::GiB, reserved = superEstimate.memory.reservedBytes / units::GiB;
    qInfo().noquote() << QStringLiteral("%1: %2 GiB allocated against 58.079, %3 GiB reserved against 70.336")
                             .arg(superCard->id)
                             .arg(allocated, 0, 'f', 2)
                             .arg(reserved, 0, 'f', 2);
    QVERIFY(std::abs(allocated / 58.079 - 1.0) <= 0.18);
}

/// Megatron-Bridge's Qwen3-30B-A3B card also publishes a weak-scaling sweep of its GB300 MXFP8 performance recipe
/// (examples/model_verification_cards/qwen3-30b-a3b/card.yaml at 067f987df, pretrain_weak_scaling, bridge
/// fbb7570c, 2026-08-15): qwen3_30b_a3b_pretrain_8gpu_gb300_fp8mx_config at TP 1, EP 8, micro-batch 8, sequence
/// 4,096, the global batch 64 sequences a GPU, on 8, 32, 128 and 256 GPUs: 5.889, 5.814, 5.832 and 5.819 s a step.
/// The 8-GPU point is Megatron-Bridge's row 7 (26.08, 5.885 s); the others are the same plan with more data-parallel
/// replicas inside the racks' 64-GPU NVLink domains, which the fit never saw. Held: each point's step over the
/// 8-GPU point's, as the model has it, within 2% of the measured ratio (the data-parallel gradient reduction and
/// parameter gather behind the compute at 256 GPUs); each step within the Bridge MoE rows' worst.
void TestValidation::bridgeWeakScalingCard()
{
    const std::vector<Row> rows = loadBridgeRows(nullptr);
    const auto row = std::find_if(rows.begin(), rows.end(),
                                  [](const Row &r) { return r.id.startsWith(QLatin1String("7 Qwen3_30B_a3B")); });
    QVERIFY2(row != rows.end(), "Megatron-Bridge row 7 (Qwen3-30B-A3B on 8 GB300) is loaded");
    struct Point
    {
        std::int64_t gpus;
        double seconds;
    };
    const Point points[] = {{8, 5.889}, {32, 5.814}, {128, 5.832}, {256, 5.819}};
    double first = 0;
    for (const Point &p : points) {
        Plan plan = row->plan;
        plan.parallel.data = p.gpus;
        plan.training.globalBatch = 64 * p.gpus;
        plan.cluster.nodes = p.gpus / plan.cluster.gpusPerNode;
        plan.cluster.scaleUpDomain = std::min<std::int64_t>(p.gpus, 64);
        const Estimate e = estimate(plan, io::builtinCatalog(), {false});
        QVERIFY2(e.valid, qPrintable(problemsOf(e)));
        if (first == 0)
            first = e.step.stepSeconds;
        const double ratio = e.step.stepSeconds / first, measuredRatio = p.seconds / points[0].seconds;
        qInfo().noquote() << QStringLiteral("%1 GB300: %2 s against %3 s (%4%); against 8 GPUs %5 and %6 measured")
                                 .arg(p.gpus)
                                 .arg(e.step.stepSeconds, 0, 'f', 3)
                                 .arg(p.seconds, 0, 'f', 3)
                                 .arg(100.0 * (e.step.stepSeconds / p.seconds - 1.0), 0, 'f', 1)
                                 .arg(ratio, 0, 'f', 4)
                                 .arg(measuredRatio, 0, 'f', 4);
        QVERIFY(std::abs(ratio / measuredRatio - 1.0) <= 0.02);
        QVERIFY(std::abs(e.step.stepSeconds / p.seconds - 1.0) <= kBridgeMoeWorst);
    }
}

/// Every published run ran, so none may be called out of memory: the other side of calling the published
/// out-of-memory configurations (a model that over-counts memory turns runs into refusals and the search away
/// from the layouts NVIDIA, Meta and MosaicML ran).
void TestValidation::everyPublishedRunFits()
{
    std::vector<Row> rows = loadRows(nullptr);
    for (std::vector<Row> more : {loadPytorchRows(nullptr), loadBridgeRows(nullptr), loadBridgeCardRows()})
        rows.insert(rows.end(), more.begin(), more.end());
    QVERIFY(rows.size() > 500);
    QStringList refused;
    for (const Row &row : rows) {
        if (!row.modelled)
            continue;
        const Estimate e = estimate(row.plan, io::builtinCatalog(), {false});
        if (!e.valid || e.memory.fits)
            continue;
        QStringList terms;
        for (const auto &[label, bytes] : largestComponents(e.memory.stages[std::size_t(e.memory.peakStage)], 6))
            terms << QStringLiteral("%1 %2").arg(QLatin1String(label)).arg(bytes / units::GiB, 0, 'f', 1);
        refused << QStringLiteral("%1 %2: %3 GiB of %4 (stage %5: %6)")
                       .arg(row.source, row.id)
                       .arg(e.memory.peakBytes / units::GiB, 0, 'f', 1)
                       .arg(e.memory.capacityBytes / units::GiB, 0, 'f', 0)
                       .arg(e.memory.peakStage)
                       .arg(terms.join(QStringLiteral(", ")));
    }
    qInfo().noquote() << QStringLiteral("%1 of %2 published runs called out of memory").arg(refused.size()).arg(rows.size())
                      << (refused.isEmpty() ? QString() : QStringLiteral(":\n") + refused.join('\n'));
    // Open (docs/CALIBRATION.md, "Every published run fits"): 2 of 957, both DeepSeek-V3 BF16 on H100: 512 GPUs
    // (dgxc v25.05.04), 83.8 GiB of 80 since its gradients are read as its recipe reduces them, in FP32 (NeMo
    // 7a8f1cc7's bf16_mixed; the model's allocator share is 4.2 GiB of it), and Megatron-Bridge's verification card
    // on 1,024 (81.0 GiB of 80, 64.4 of it activations). Megatron-Core 0.13 stopped keeping the experts' outputs for
    // a weighted combine (the routing probabilities go into the activation, Megatron-LM 2659630721); the model
    // still keeps them, and without them both fit, but the overlap study's measured peak (bridgeExpertOverlapStudy)
    // would fall 10% short: the term is not dropped until what else that run holds is counted (CALIBRATION, "The
    // verification cards"). The five rows listed here before (Qwen3-30B-A3B FP8 on 16 H100, and Megatron-Bridge
    // rows whose printed layout contradicts their recipe) fit now. Held there: no more may join.
    QVERIFY2(refused.size() <= 2, qPrintable(QStringLiteral("published runs called out of memory:\n") + refused.join('\n')));
}

#include "tst_validation.moc"
