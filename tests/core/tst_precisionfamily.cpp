// The FP8/FP4 family of training.precision: fp8 (per-tensor scales), fp8-blockwise (1x128 / 128x128 block
// scales on FP8 tensor cores), mxfp8 and nvfp4 (Blackwell block-scaled formats). Each runs at the device's
// peak for its format (shared/validation/gpu_specs.csv: B200 dense BF16 2,250, FP8 4,500, FP4 9,000
// TFLOP/s; H100 FP8 1,979), keeps BF16 storage, lists its scales in the precision audit, and is refused on a
// device without it, naming the formats the device runs.

#include <QTest>

#include "core/estimate/Estimate.h"
#include "io/output/PrecisionPolicy.h"
#include "io/plan/CatalogJson.h"
#include "TestMain.h"
#include "TestSupport.h"

using namespace trainplan;

namespace {

Plan llama8b(Precision precision, const char *device)
{
    Plan plan = test::presetPlan("llama3-8b", 1, 1, 32, 1, 256, device);
    plan.training.precision = precision;
    plan.training.recompute = Recompute::Selective;
    plan.training.flashAttention = true;
    plan.parallel.zeroStage = 1;
    return plan;
}

std::string firstError(const Estimate &e, const std::string &key)
{
    for (const Problem &p : e.problems)
        if (p.isError() && p.key == key)
            return io::problemMessage(p);
    return {};
}

} // namespace

class TestPrecisionFamily : public QObject
{
    Q_OBJECT

private slots:
    void peaksPerFormat_data();
    void peaksPerFormat();
    void lowerFormatsAreFasterOnBlackwell();
    void refusedWhereTheDeviceHasNoCores();
    void auditListsTheScales();
    void perTensorScalesSynchroniseTheirAmax();
};

void TestPrecisionFamily::peaksPerFormat_data()
{
    QTest::addColumn<QString>("device");
    QTest::addColumn<int>("precision");
    QTest::addColumn<double>("teraflops");
    QTest::newRow("B200 BF16") << "b200" << int(Precision::BF16) << 2250.0;
    QTest::newRow("B200 FP8") << "b200" << int(Precision::FP8) << 4500.0;
    QTest::newRow("B200 FP8 blockwise") << "b200" << int(Precision::FP8Blockwise) << 4500.0;
    QTest::newRow("B200 MXFP8") << "b200" << int(Precision::MXFP8) << 4500.0;
    QTest::newRow("B200 NVFP4") << "b200" << int(Precision::NVFP4) << 9000.0;
    QTest::newRow("GB200 NVFP4") << "gb200" << int(Precision::NVFP4) << 10000.0;
    QTest::newRow("H100 FP8 blockwise") << "h100-sxm5-80gb" << int(Precision::FP8Blockwise) << 1979.0;
}

void TestPrecisionFamily::peaksPerFormat()
{
    QFETCH(QString, device);
    QFETCH(int, precision);
    QFETCH(double, teraflops);
    const Estimate e = estimate(llama8b(Precision(precision), device.toLatin1().constData()), io::builtinCatalog());
    QVERIFY2(e.valid, firstError(e, "training.precision").c_str());
    QVERIFY(qAbs(detailsOf(e).roofline.plan.peakFlops / 1e12 - teraflops) < 0.5);
}

void TestPrecisionFamily::lowerFormatsAreFasterOnBlackwell()
{
    // Llama 3 8B on 32 B200, data parallel: the matrix multiplies dominate, so each halving of the format
    // shortens the step, though by less than 2x (attention, element-wise kernels and the optimizer stay).
    const double bf16 = estimate(llama8b(Precision::BF16, "b200"), io::builtinCatalog()).step.stepSeconds;
    const double fp8 = estimate(llama8b(Precision::FP8, "b200"), io::builtinCatalog()).step.stepSeconds;
    const double fp4 = estimate(llama8b(Precision::NVFP4, "b200"), io::builtinCatalog()).step.stepSeconds;
    QVERIFY(fp8 < bf16 && fp8 > 0.5 * bf16);
    QVERIFY(fp4 < fp8 && fp4 > 0.5 * fp8);
    // Storage stays BF16, and the low formats add their quantized weight copies (a row-wise and a
    // column-wise one): NVFP4 2 x (4 bits + one E4M3 scale byte per 16 weights) = 1.125 bytes per weight,
    // FP8 2 x 1 byte. With fp8_param_gather the two FP8 copies replace the 2-byte BF16 working copy.
    const Estimate bf16e = estimate(llama8b(Precision::BF16, "b200"), io::builtinCatalog());
    const Estimate fp4e = estimate(llama8b(Precision::NVFP4, "b200"), io::builtinCatalog());
    const Estimate fp8e = estimate(llama8b(Precision::FP8, "b200"), io::builtinCatalog());
    const auto state = [](const Estimate &e) {
        const StageMemory &s = e.memory.stages.front();
        return s.parametersBytes + s.gradientsBytes + s.optimizerBytes;
    };
    const double params = bf16e.model.parameters;
    QVERIFY(qAbs(state(fp4e) - state(bf16e) - 1.125 * params) < 1e3);
    QVERIFY(qAbs(state(fp8e) - state(bf16e) - 2.0 * params) < 1e3);
    Plan gather = llama8b(Precision::FP8, "b200");
    gather.training.fp8ParamGather = true;
    QVERIFY(qAbs(state(estimate(gather, io::builtinCatalog())) - state(bf16e)) < 1e3);
    // Transformer Engine keeps each linear's quantized input for backward: the QKV and MLP inputs, the
    // attention context and the second projection's input take 1 byte in FP8 and 0.5625 in NVFP4, not 2.
    const auto stored = [](const Estimate &e) { return e.memory.stages.front().activations.storedBytes(); };
    const Plan plan = llama8b(Precision::BF16, "b200");
    const ModelSpec &m = plan.model;
    const double tokens = double(m.seqLen) * double(plan.training.microBatch) * bf16e.memory.stages.front().activations.microbatchesInFlight;
    const double linearInputs = tokens * double(m.layers) * (2.0 * double(m.hidden) + double(m.qDim()) + double(m.ffnHidden));
    QCOMPARE(stored(bf16e) - stored(fp8e), 1.0 * linearInputs);
    QCOMPARE(stored(bf16e) - stored(fp4e), (2.0 - 0.5625) * linearInputs);
    // Attention stays in BF16 unless the plan asks for FP8 attention, which is then faster.
    Plan attention = llama8b(Precision::FP8, "b200");
    attention.training.fp8Attention = true;
    QVERIFY(estimate(attention, io::builtinCatalog()).step.stepSeconds < fp8);
    // The options need a low-precision format.
    Plan refused = llama8b(Precision::BF16, "b200");
    refused.training.fp8ParamGather = true;
    QVERIFY(firstError(estimate(refused, io::builtinCatalog()), "training.fp8_param_gather").find("needs a low-precision format")
            != std::string::npos);
}

void TestPrecisionFamily::refusedWhereTheDeviceHasNoCores()
{
    Estimate e = estimate(llama8b(Precision::NVFP4, "h100-sxm5-80gb"), io::builtinCatalog());
    QVERIFY(!e.valid);
    QCOMPARE(firstError(e, "training.precision"),
             std::string("nvfp4 is not supported by NVIDIA H100 SXM5 80GB: it has no NVFP4 tensor cores; it runs fp32, tf32, fp16, "
                         "bf16, fp8, fp8-blockwise"));
    e = estimate(llama8b(Precision::MXFP8, "h100-sxm5-80gb"), io::builtinCatalog());
    QVERIFY(!e.valid);
    // No FP8 at all before Hopper.
    e = estimate(llama8b(Precision::FP8Blockwise, "a100-sxm4-80gb"), io::builtinCatalog());
    QVERIFY(!e.valid);
    QVERIFY(firstError(e, "training.precision").find("it runs fp32, tf32, fp16, bf16") != std::string::npos);
}

void TestPrecisionFamily::auditListsTheScales()
{
    const auto row = [](Precision p, const std::string &tensor) {
        for (const io::PrecisionRow &r : io::precisionPolicy(llama8b(p, "b200")).rows)
            if (r.tensor == tensor)
                return r;
        return io::PrecisionRow{};
    };
    QCOMPARE(row(Precision::NVFP4, "NVFP4 block scales").held, std::string("E4M3 + FP32"));
    QCOMPARE(row(Precision::MXFP8, "MX block scales").held, std::string("E8M0"));
    QCOMPARE(row(Precision::FP8Blockwise, "FP8 block scales").held, std::string("FP32"));
    QVERIFY(row(Precision::NVFP4, "Weights, quantized copies").computed.find("E2M1") != std::string::npos);
    QCOMPARE(row(Precision::NVFP4, "Parameters (working copy)").held, std::string("BF16"));
    QCOMPARE(row(Precision::MXFP8, "Attention (QK^T, PV)").computed, std::string("BF16"));
    // PyTorch's FSDP: no 16-bit shard is held (each unit is cast from its FP32 shard as it is gathered), the
    // gradient shard is FP32, and the reduce-scatter runs in the reduce dtype (fp32_gradients).
    Plan fsdp = llama8b(Precision::BF16, "h100-sxm5-80gb");
    fsdp.training.framework = Framework::Fsdp;
    fsdp.parallel.zeroStage = 3;
    const auto fsdpRow = [&fsdp](const std::string &tensor) {
        for (const io::PrecisionRow &r : io::precisionPolicy(fsdp).rows)
            if (r.tensor == tensor)
                return r;
        return io::PrecisionRow{};
    };
    QCOMPARE(fsdpRow("Parameters (working copy)").held, std::string());
    QCOMPARE(fsdpRow("Parameters (working copy)").communicated, std::string("BF16"));
    QCOMPARE(fsdpRow("Gradients").held, std::string("FP32"));
    QCOMPARE(fsdpRow("Master weights").communicated, std::string()); // the BF16 cast is what is gathered
    QCOMPARE(fsdpRow("Gradients").communicated, std::string("BF16"));
    fsdp.training.fp32Gradients = true;
    QCOMPARE(fsdpRow("Gradients").communicated, std::string("FP32"));
}

// Per-tensor (delayed) scaling all-reduces each FP8 tensor's amax over the stage's data x tensor ranks,
// twice per model chunk and micro-batch (Transformer Engine on Megatron-Core); block scales need no such
// sync. GPT-3 175B in NVIDIA's layout (TP 4, PP 8, VP 12): the difference between the two is that sync
// alone, a few-kilobyte all-reduce that costs its latency (tens of microseconds on H100's network, not
// the milliseconds of a bandwidth-bound one), and it grows as the group spans more nodes.
void TestPrecisionFamily::perTensorScalesSynchroniseTheirAmax()
{
    const auto dataComm = [](Precision precision, std::int64_t data) {
        Plan plan = test::presetPlan("gpt3-175b", 4, 8, data, 1, 2 * 32 * data, "h100-sxm5-80gb");
        plan.training.precision = precision;
        plan.training.flashAttention = true;
        plan.training.sequenceParallel = true;
        plan.parallel.schedule = Schedule::Interleaved;
        plan.parallel.virtualStages = 12;
        plan.parallel.zeroStage = 1;
        plan.parallel.overlapGradReduce = plan.parallel.overlapParamGather = true;
        const Estimate e = estimate(plan, io::builtinCatalog());
        if (!e.valid)
            qFatal("invalid plan");
        return std::pair{e.step.category(TimeCategory::DataComm), double(plan.microbatches() * 2 * 12)};
    };
    const auto [perTensor4, syncs4] = dataComm(Precision::FP8, 4);
    const auto [blockwise4, syncs4b] = dataComm(Precision::FP8Blockwise, 4);
    const auto [perTensor32, syncs32] = dataComm(Precision::FP8, 32);
    const auto [blockwise32, syncs32b] = dataComm(Precision::FP8Blockwise, 32);
    QCOMPARE(syncs4, syncs4b);
    QCOMPARE(syncs32, syncs32b);
    const double each4 = (perTensor4 - blockwise4) / syncs4, each32 = (perTensor32 - blockwise32) / syncs32;
    qInfo("amax all-reduce: %.1f us over 4-way data, %.1f us over 32-way", 1e6 * each4, 1e6 * each32);
    QVERIFY2(each4 > 5e-6 && each4 < 2e-4, qPrintable(QString::number(each4)));
    QVERIFY2(each32 > each4 && each32 < 4e-4, qPrintable(QStringLiteral("%1 vs %2").arg(each32).arg(each4)));
    // BF16 has no scales to agree on.
    QVERIFY(dataComm(Precision::BF16, 32).first < perTensor32);
}

TRAINPLAN_TEST_GUILESS_MAIN(TestPrecisionFamily)
#include "tst_precisionfamily.moc"
