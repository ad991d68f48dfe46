// How long one estimate takes: it runs on every keystroke in the window and millions of times in the
// search. Rows: the Megatron 1T plan on 3072 A100s (Narayanan et al. 2021 Table 1) and GPT-3 175B on
// 512 GPUs, with and without the scaling curves (which re-run the step model ~26 times).

#include <QTest>

#include "core/calibrate/DeviceFit.h"
#include "core/common/Allocator.h"
#include "TestSupport.h"
#include "core/estimate/Accuracy.h"
#include "core/estimate/Estimate.h"
#include "core/pipeline/PipelineSimulator.h"
#include "core/profile/TraceProfile.h"


// As the application does (app/main.cpp): freed memory is kept for the next estimate.
static const bool kAllocatorTuned = (trainplan::keepFreedMemoryForReuse(), true);
using namespace trainplan;

class BenchEstimate : public QObject
{
    Q_OBJECT

private slots:
    void estimatePlan_data();
    void estimatePlan();
    void simulate_data();
    void simulate();
    void searchCost_data();
    void searchCost();
    void profileMillionKernels();
    void accuracyBand();
    void calibrateRows_data();
    void calibrateRows();
};

void BenchEstimate::estimatePlan_data()
{
    QTest::addColumn<QString>("preset");
    QTest::addColumn<qint64>("tensor");
    QTest::addColumn<qint64>("pipeline");
    QTest::addColumn<qint64>("data");
    QTest::addColumn<qint64>("globalBatch");
    QTest::addColumn<bool>("scaling");
    QTest::addColumn<bool>("simulate");
    QTest::addColumn<bool>("details"); ///< the views' extras: precision policy, roofs, the Gantt chart's timeline
    QTest::newRow("megatron-1t 3072 GPUs, analytic bubble (search)") << "megatron-1t" << qint64(8) << qint64(64) << qint64(6)
                                                                    << qint64(3072) << false << false << true;
    QTest::newRow("megatron-1t 3072 GPUs, simulated pipeline") << "megatron-1t" << qint64(8) << qint64(64) << qint64(6)
                                                              << qint64(3072) << false << true << true;
    QTest::newRow("megatron-1t 3072 GPUs, simulated + scaling (window)") << "megatron-1t" << qint64(8) << qint64(64) << qint64(6)
                                                                        << qint64(3072) << true << true << true;
    QTest::newRow("gpt3-175b 512 GPUs, analytic bubble") << "gpt3-175b" << qint64(8) << qint64(8) << qint64(8) << qint64(1536)
                                                         << false << false << true;
    // Issue 18's goal: one analytic estimate of DeepSeek-V3 on 1,024 H100s under 50 us.
    QTest::newRow("deepseek-v3 1024 H100s, analytic bubble (issue 18)") << "deepseek-v3" << qint64(0) << qint64(0) << qint64(0)
                                                                       << qint64(0) << false << false << true;
    // The same estimate as the search makes it by the thousand (EstimateOptions::analytic()): no view details,
    // so no timeline for the Gantt chart.
    QTest::newRow("deepseek-v3 1024 H100s, as the search estimates") << "deepseek-v3" << qint64(0) << qint64(0) << qint64(0)
                                                                     << qint64(0) << false << false << false;
}

void BenchEstimate::estimatePlan()
{
    QFETCH(QString, preset);
    QFETCH(qint64, tensor);
    QFETCH(qint64, pipeline);
    QFETCH(qint64, data);
    QFETCH(qint64, globalBatch);
    QFETCH(bool, scaling);
    QFETCH(bool, simulate);
    QFETCH(bool, details);
    Plan plan = preset == QLatin1String("deepseek-v3") ? test::deepseekV3On1024H100()
                                                       : test::presetPlan(preset.toLatin1().constData(), tensor, pipeline, data, 1, globalBatch);
    if (preset != QLatin1String("deepseek-v3"))
        plan.training.recompute = Recompute::Full;
    const Catalog &catalog = io::builtinCatalog();
    QVERIFY(estimate(plan, catalog).valid);
    double sink = 0;
    QBENCHMARK {
        sink += estimate(plan, catalog, {scaling, simulate, details}).step.stepSeconds;
    }
    QVERIFY(sink > 0);
}

void BenchEstimate::simulate_data()
{
    QTest::addColumn<int>("schedule");
    QTest::addColumn<int>("stages");
    QTest::addColumn<int>("microbatches");
    QTest::addColumn<int>("chunks");
    // The reference size: p = 64, m = 512, v = 4 (262,144 ops).
    QTest::newRow("interleaved p64 m512 v4") << int(Schedule::Interleaved) << 64 << 512 << 4;
    QTest::newRow("1f1b p64 m512") << int(Schedule::OneFOneB) << 64 << 512 << 1;
    QTest::newRow("zb-h1 p64 m512") << int(Schedule::ZeroBubbleH1) << 64 << 512 << 1;
    QTest::newRow("1f1b p8 m192") << int(Schedule::OneFOneB) << 8 << 192 << 1;
}

void BenchEstimate::simulate()
{
    QFETCH(int, schedule);
    QFETCH(int, stages);
    QFETCH(int, microbatches);
    QFETCH(int, chunks);
    PipelineInput in;
    in.schedule = Schedule(schedule);
    in.stages = stages;
    in.microbatches = microbatches;
    in.chunks = chunks;
    for (int s = 0; s < stages; ++s) {
        in.forwardSeconds.push_back(1.0 + 0.01 * s);
        in.backwardSeconds.push_back(2.0);
        in.weightGradientSeconds.push_back(1.0);
    }
    in.transferSeconds = 0.05;
    double sink = 0;
    QBENCHMARK {
        sink += simulatePipeline(in).makespan;
    }
    QVERIFY(sink > 0);
}

// What one of the search's estimates costs as pipeline stages and GPUs per node grow: the figures behind
// the search's cost bound (core/search, estimatedSearchSeconds).
void BenchEstimate::searchCost_data()
{
    QTest::addColumn<qint64>("pipeline");
    QTest::addColumn<qint64>("gpusPerNode");
    for (const qint64 p : {1, 8, 32, 96})
        for (const qint64 g : {8, 72, 576})
            QTest::newRow(qPrintable(QStringLiteral("p %1, %2 GPUs per node").arg(p).arg(g))) << p << g;
}

void BenchEstimate::searchCost()
{
    QFETCH(qint64, pipeline);
    QFETCH(qint64, gpusPerNode);
    Plan plan = test::presetPlan("gpt3-175b", 8, pipeline, 1, 1, 1536);
    plan.cluster.gpusPerNode = gpusPerNode;
    plan.cluster.nodes = 96 * 8 * 9 / gpusPerNode; // 6912 GPUs: a whole number of nodes for every row
    deriveDataParallel(plan);
    plan.training.globalBatch = plan.parallel.data * 16;
    const Catalog &catalog = io::builtinCatalog();
    QVERIFY(estimate(plan, catalog, EstimateOptions::analytic()).valid);
    double sink = 0;
    QBENCHMARK {
        sink += estimate(plan, catalog, EstimateOptions::analytic()).step.stepSeconds;
    }
    QVERIFY(sink > 0);
}

// trainplan profile on a trace of 5 steps and a million kernels (seven kernel names, NCCL on its own
// stream overlapping the rest): the classification, sums and interval arithmetic, without the JSON.
void BenchEstimate::profileMillionKernels()
{
    const char *names[] = {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_cublas", "flash_fwd_kernel",
                           "void at::native::vectorized_elementwise_kernel<4>", "ncclDevKernel_AllGather_RING_LL",
                           "void multi_tensor_apply_kernel<AdamFunctor<float>>", "triton_poi_fused_add_0",
                           "ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL"};
    TraceInput trace;
    double t = 0;
    for (int k = 0; k < 1000000; ++k) {
        const double duration = 1e-6 * (0.5 + (k % 7) * 0.4);
        trace.kernels.push_back({names[(k * 5) % 7], t, duration, 0, false});
        t += 0.9 * duration;
    }
    for (int s = 0; s < 5; ++s)
        trace.steps.emplace_back(s * t / 5, t / 5);
    double sink = 0;
    QBENCHMARK {
        sink += measureProfile(trace).exposedCommunicationSeconds;
    }
    QVERIFY(sink > 0);
}

QTEST_APPLESS_MAIN(BenchEstimate)
// The error band an estimate with details carries (issue 37): the held-out runs compared with the plan.
void BenchEstimate::accuracyBand()
{
    const Plan plan = test::deepseekV3On1024H100();
    const Estimate e = estimate(plan, io::builtinCatalog());
    const AccuracyCoordinates at = accuracyCoordinates(plan, e);
    double sink = 0;
    QBENCHMARK {
        sink += assessAccuracy(at, builtinHeldOutRuns()).band80;
    }
    QVERIFY(sink > 0);
}

// Calibration's cost against its rows (issue 39): the full fit and ten held-out folds, linear in the rows
// (leave-one-out, which this replaced for more than ten rows, grew with their square: 200 rows took 43 s).
void BenchEstimate::calibrateRows_data()
{
    QTest::addColumn<int>("rows");
    for (int n : {20, 100, 400})
        QTest::addRow("%d rows", n) << n;
}

void BenchEstimate::calibrateRows()
{
    QFETCH(int, rows);
    const Plan base = test::examplePlan("gpt3-175b-tp8-pp8");
    std::vector<Measurement> measured;
    for (int i = 0; i < rows; ++i) {
        Plan p = base; // twenty distinct layouts of the example, each "measured" 10% slower than predicted
        p.training.globalBatch = 512 * (1 + i % 5);
        p.training.microBatch = 1 + (i / 5) % 2;
        p.training.recompute = (i / 10) % 2 ? Recompute::Full : Recompute::Selective;
        const Estimate e = estimate(p, io::builtinCatalog(), EstimateOptions::analytic());
        measured.push_back(Measurement{"row " + std::to_string(i), p, 1.1 * e.step.stepSeconds, std::nullopt, std::nullopt});
    }
    DeviceFit fit;
    QBENCHMARK_ONCE {
        fit = calibrateDevice(measured, io::builtinCatalog(), base.cluster.device, "bench-calibrated");
    }
    QCOMPARE(fit.leaveOneOut.size(), std::size_t(rows));
    QCOMPARE(fit.heldOutFolds, kHeldOutFolds);
}

#include "bench_estimate.moc"
