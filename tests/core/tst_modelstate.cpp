// Persistent model state and ZeRO sharding against the reference text (Level 3 example, Figure 16.2,
// exercises 1 and 2) and ZeRO Table 1 (Rajbhandari et al. 2020).

#include <QTest>

#include <cmath>

#include "TestMain.h"
#include "TestSupport.h"
#include "core/memory/ModelState.h"

using namespace trainplan;

class TestModelState : public QObject
{
    Q_OBJECT

private slots:
    void bytesPerParameter_data();
    void bytesPerParameter();
    void referencePersistentState_data();
    void referencePersistentState();
    void zeroPaperTable1_data();
    void zeroPaperTable1();
    void optimizerStateFormats_data();
    void optimizerStateFormats();
    void fsdpKeepsOneShardedCopy();
    void onlyMegatronCachesFloat8Weights();
};

void TestModelState::bytesPerParameter_data()
{
    QTest::addColumn<int>("precision");
    QTest::addColumn<int>("optimizer");
    QTest::addColumn<bool>("fp32Gradients");
    QTest::addColumn<double>("expectedTotal");
    // Reference text: FP16 parameters and gradients (2 + 2) + FP32 master (4) + two FP32 moments (8) = 16.
    QTest::newRow("bf16 adam") << int(Precision::BF16) << int(Optimizer::Adam) << false << 16.0;
    QTest::newRow("fp16 adam") << int(Precision::FP16) << int(Optimizer::Adam) << false << 16.0;
    // Megatron-LM keeps FP32 main gradients: 2 + 4 + 12 = 18 (Korthikanti et al. 2022 Fig. 1 accounting).
    QTest::newRow("bf16 adam fp32 grads") << int(Precision::BF16) << int(Optimizer::Adam) << true << 18.0;
    // FP32 training has no separate master copy: 4 + 4 + 8.
    QTest::newRow("fp32 adam") << int(Precision::FP32) << int(Optimizer::Adam) << false << 16.0;
    // SGD with momentum: 2 + 2 + master 4 + momentum 4; in FP32: 4 + 4 + 4.
    QTest::newRow("bf16 sgd") << int(Precision::BF16) << int(Optimizer::Sgd) << false << 12.0;
    QTest::newRow("fp32 sgd") << int(Precision::FP32) << int(Optimizer::Sgd) << false << 12.0;
}

void TestModelState::bytesPerParameter()
{
    QFETCH(int, precision);
    QFETCH(int, optimizer);
    QFETCH(bool, fp32Gradients);
    QFETCH(double, expectedTotal);
    const StateBytesPerParameter b = stateBytesPerParameter(Precision(precision), Optimizer(optimizer), fp32Gradients);
    QCOMPARE(b.total(), expectedTotal);
}

void TestModelState::referencePersistentState_data()
{
    QTest::addColumn<double>("parameters");
    QTest::addColumn<int>("workers");
    QTest::addColumn<int>("stage");
    QTest::addColumn<double>("expectedGB");
    // persistent_state_gb(1e9, 8, stage): "16.00 / 5.50 / 3.75 / 2.00 GB per worker".
    QTest::newRow("1B x8 stage 0") << 1e9 << 8 << 0 << 16.00;
    QTest::newRow("1B x8 stage 1") << 1e9 << 8 << 1 << 5.50;
    QTest::newRow("1B x8 stage 2") << 1e9 << 8 << 2 << 3.75;
    QTest::newRow("1B x8 stage 3") << 1e9 << 8 << 3 << 2.00;
    // Exercise 1: 500 M parameters at 16 bytes each = 8 GB.
    QTest::newRow("exercise 1") << 5e8 << 1 << 0 << 8.0;
    // Exercise 2: four workers. Stage 1: 0.5e9 (2 + 2 + 12/4) = 3.5 GB; stage 2: 0.5e9 (2 + 2/4 + 12/4)
    // = 2.75 GB; stage 3: 0.5e9 x 16 / 4 = 2.0 GB.
    QTest::newRow("exercise 2 stage 1") << 5e8 << 4 << 1 << 3.5;
    QTest::newRow("exercise 2 stage 2") << 5e8 << 4 << 2 << 2.75;
    QTest::newRow("exercise 2 stage 3") << 5e8 << 4 << 3 << 2.0;
}

void TestModelState::referencePersistentState()
{
    QFETCH(double, parameters);
    QFETCH(int, workers);
    QFETCH(int, stage);
    QFETCH(double, expectedGB);
    const auto bytes = stateBytesPerParameter(Precision::FP16, Optimizer::Adam);
    const ModelStateBytes state = shardedModelState(parameters, bytes, workers, stage);
    QCOMPARE(state.total() / 1e9, expectedGB);
}

void TestModelState::zeroPaperTable1_data()
{
    QTest::addColumn<double>("parameters");
    QTest::addColumn<int>("workers");
    QTest::addColumn<int>("stage");
    QTest::addColumn<double>("expectedGB");
    const auto rows = test::readCsv(test::dataPath("validation/zero_paper_model_state_memory_ANALYTICAL.csv"));
    QVERIFY2(rows.size() > 10, "ZeRO table missing");
    for (std::size_t r = 1; r < rows.size(); ++r) {
        const QStringList &row = rows[r];
        if (row.size() < 5)
            continue;
        QString label = row[0];
        const double scale = label.endsWith('T') ? 1e12 : 1e9;
        label.chop(1);
        const double parameters = label.toDouble() * scale;
        const int workers = row[1].toInt();
        for (int stage = 1; stage <= 3; ++stage)
            QTest::newRow(qPrintable(QStringLiteral("%1 Nd=%2 stage %3").arg(row[0]).arg(workers).arg(stage)))
                << parameters << workers << stage << row[1 + stage].toDouble();
    }
}

void TestModelState::zeroPaperTable1()
{
    QFETCH(double, parameters);
    QFETCH(int, workers);
    QFETCH(int, stage);
    QFETCH(double, expectedGB);
    const auto bytes = stateBytesPerParameter(Precision::FP16, Optimizer::Adam);
    const double gb = shardedModelState(parameters, bytes, workers, stage).total() / 1e9;
    // The table prints three or four significant digits (41.3 for 41.25, 0.47 for 0.469).
    QVERIFY2(std::abs(gb - expectedGB) <= 0.005 * expectedGB + 0.01,
             qPrintable(QStringLiteral("%1 GB, table says %2 GB").arg(gb).arg(expectedGB)));
}

void TestModelState::optimizerStateFormats_data()
{
    QTest::addColumn<int>("precision");
    QTest::addColumn<int>("moments");
    QTest::addColumn<int>("master");
    QTest::addColumn<double>("expectedOptimizer");
    QTest::addColumn<double>("expectedMaster");
    // The reference text's mixed-precision Adam: FP32 master (4) + two FP32 moments (8).
    QTest::newRow("fp32 state") << int(Precision::BF16) << int(MomentFormat::Fp32) << int(MasterFormat::Fp32) << 12.0 << 4.0;
    // Apex's DistributedFusedAdam with dtype bf16 (NeMo 1's optim.dtype, the dgxc Nemotron-4 340B recipe): its
    // parameter shard and both moments in BF16, 2 + 2 + 2.
    QTest::newRow("apex dtype bf16") << int(Precision::BF16) << int(MomentFormat::Bf16) << int(MasterFormat::Bf16) << 6.0 << 2.0;
    // DeepSeek-V3 (Sec. 3.3.3): BF16 moments, FP32 master weights, 4 + 2 + 2.
    QTest::newRow("bf16 moments") << int(Precision::FP8) << int(MomentFormat::Bf16) << int(MasterFormat::Fp32) << 8.0 << 4.0;
    // Megatron-Core's precision-aware optimizer with FP8 moments and FP16 main parameters: 2 + 1 + 1.
    QTest::newRow("fp8 moments fp16 master") << int(Precision::BF16) << int(MomentFormat::Fp8) << int(MasterFormat::Fp16) << 4.0 << 2.0;
    // 32-bit parameters are their own master copy: only the moments change, 2 + 2.
    QTest::newRow("fp32 params bf16 moments") << int(Precision::FP32) << int(MomentFormat::Bf16) << int(MasterFormat::Bf16) << 4.0 << 0.0;
}

void TestModelState::optimizerStateFormats()
{
    QFETCH(int, precision);
    QFETCH(int, moments);
    QFETCH(int, master);
    QFETCH(double, expectedOptimizer);
    QFETCH(double, expectedMaster);
    TrainingConfig t;
    t.precision = Precision(precision);
    t.optimizerMoments = MomentFormat(moments);
    t.masterWeights = MasterFormat(master);
    const StateBytesPerParameter b = stateBytesPerParameter(t);
    QCOMPARE(b.optimizer, expectedOptimizer);
    QCOMPARE(b.master, expectedMaster);
}

// PyTorch's FSDP shards the parameter in its own dtype and steps it in place ("FSDP ... keeps the
// high-precision sharded parameters in memory anyway ... The optimizer step uses the sharded parameter in the
// original dtype", MixedPrecisionPolicy in torch/distributed/fsdp/_fully_shard/_fsdp_api.py): with BF16 compute
// and Adam a rank holds 4 (FP32 shard) + 4 (its FP32 gradient) + 8 (moments) = 16 bytes per parameter, and
// MixedPrecisionPolicy's reduce_dtype sets only what the reduce-scatter moves: 4 bytes in FP32 (torchtitan's
// mixed_precision_reduce), 2 in BF16. Megatron-Core keeps its BF16 weights beside the FP32 master: 18 with FP32
// main gradients, which it also reduces in FP32.
void TestModelState::fsdpKeepsOneShardedCopy()
{
    TrainingConfig t;
    t.precision = Precision::BF16;
    t.framework = Framework::Fsdp;
    for (const bool fp32Reduce : {true, false}) {
        t.fp32Gradients = fp32Reduce;
        const StateBytesPerParameter b = stateBytesPerParameter(t);
        QCOMPARE(b.parameters, 0.0);
        QCOMPARE(b.gradients, 4.0);
        QCOMPARE(b.total(), 16.0);
        QCOMPARE(b.reduced, fp32Reduce ? 4.0 : 2.0);
        QCOMPARE(b.gathered, 2.0); // gathered in the 16-bit compute dtype
    }
    t.framework = Framework::Megatron;
    t.fp32Gradients = true;
    const StateBytesPerParameter m = stateBytesPerParameter(t);
    QCOMPARE(m.total(), 18.0);
    QCOMPARE(m.reduced, 4.0);
    QCOMPARE(m.parameters, 2.0);
}

// FP8 weights kept between uses: Transformer Engine caches a row-wise and a column-wise copy of each weight
// (1 byte each) when the caller passes is_first_microbatch, which Megatron-Core does; with fp8_param_gather those
// copies are the parameters (Megatron-Core --fp8-param-gather). torchao's Float8Linear casts the weight in each
// forward, and FSDP2's float8 all-gather casts the sharded FP32 parameter as the all-gather's input
// (torchao/float8/fsdp_utils.py, WeightWithDynamicFloat8CastTensor.fsdp_pre_all_gather): nothing stays but the
// 16 bytes of the BF16 case, and the gathered unit is 1 byte per weight.
void TestModelState::onlyMegatronCachesFloat8Weights()
{
    TrainingConfig t;
    t.precision = Precision::FP8;
    t.fp32Gradients = true;
    for (const bool gather : {false, true}) {
        t.fp8ParamGather = gather;
        t.framework = Framework::Fsdp;
        const StateBytesPerParameter f = stateBytesPerParameter(t);
        QCOMPARE(f.lowPrecisionCopies, 0.0);
        QCOMPARE(f.parameters, 0.0);
        QCOMPARE(f.total(), 16.0);
        QCOMPARE(f.gathered, gather ? 1.0 : 2.0);
        t.framework = Framework::Megatron;
        const StateBytesPerParameter m = stateBytesPerParameter(t);
        QCOMPARE(m.lowPrecisionCopies, 2.0);
        QCOMPARE(m.parameters, gather ? 2.0 : 4.0); // the two FP8 copies, beside the BF16 weight without gather
        QCOMPARE(m.total(), gather ? 18.0 : 20.0);
    }
    QCOMPARE(quantizedWeightBytes(Precision::MXFP8), 2.0 * (1.0 + 1.0 / 32.0));
    QCOMPARE(quantizedWeightBytes(Precision::BF16), 0.0);
}

TRAINPLAN_TEST_APPLESS_MAIN(TestModelState)
#include "tst_modelstate.moc"
