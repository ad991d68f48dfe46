// Parameter counts: presets against their published sizes, and the GPT counting rule against
// Narayanan et al. 2021 Eq. 2 and the sizes of their Table 1.

#include <QTest>

#include <cmath>

#include "TestMain.h"
#include "TestSupport.h"
#include "core/model/ModelSpec.h"

using namespace trainplan;

class TestModelParameters : public QObject
{
    Q_OBJECT

private slots:
    void presets_data();
    void presets();
    void qwen3NonEmbedding_data();
    void qwen3NonEmbedding();
    void hybridMambaModels();
    void narayananTable1_data();
    void narayananTable1();
    void tensorParallelSplit();
    void headSizeNotHiddenOverHeads();
};

// model.head_dim: Qwen3-32B has hidden 5120 and 64 query heads of 128 (8 key/value heads), so Q and the
// attention output are 8,192 wide, not 5,120 (Qwen3 config.json: hidden_size 5120, num_attention_heads 64,
// num_key_value_heads 8, head_dim 128, intermediate_size 25600, 64 layers, vocab 151936, untied). Qwen3
// Technical Report (2025), Table 1: 32.8 B parameters.
void TestModelParameters::headSizeNotHiddenOverHeads()
{
    ModelSpec m;
    m.layers = 64;
    m.hidden = 5120;
    m.heads = 64;
    m.kvHeads = 8;
    m.ffnHidden = 25600;
    m.vocab = 151936;
    m.seqLen = 4096;
    m.mlp = MlpKind::SwiGlu;
    applyArchitectureDefaults(m);
    m.headDimension = 128;
    QCOMPARE(m.qDim(), 8192);
    QCOMPARE(m.kvDim(), 1024);
    QVERIFY2(std::abs(totalParameters(m) / 32.8e9 - 1.0) < 0.005, qPrintable(QString::number(totalParameters(m))));
    // Per layer: Q 5120 x 8192, K and V 5120 x 1024 each, output 8192 x 5120, MLP 3 x 5120 x 25600, two norms.
    QCOMPARE(layerParameters(m).total(), 5120.0 * 8192 * 2 + 2 * 5120.0 * 1024 + 3 * 5120.0 * 25600 + 2 * 5120.0);
    // Without it the head would be 5120 / 64 = 80: Q and output 2 x 5120 x (8192 - 5120) and K, V
    // 2 x 5120 x (1024 - 640) fewer per layer, 2,264,924,160 over 64 layers.
    const double with = totalParameters(m);
    m.headDimension = 0;
    QCOMPARE(with - totalParameters(m), 64.0 * (2 * 5120.0 * (8192 - 5120) + 2 * 5120.0 * (1024 - 640)));
}

void TestModelParameters::presets_data()
{
    QTest::addColumn<QString>("preset");
    QTest::addColumn<double>("published");
    QTest::addColumn<double>("tolerance");
    // Exact counts of the released checkpoints (Hugging Face model cards: gpt2 124,439,808;
    // Llama-2-7b 6,738,415,616; Meta-Llama-3-8B 8,030,261,248; Meta-Llama-3-70B 70,553,706,496;
    // Llama-3.1-405B 405,853,388,800).
    QTest::newRow("gpt2-small") << "gpt2-small" << 124439808.0 << 0.0;
    QTest::newRow("llama2-7b") << "llama2-7b" << 6738415616.0 << 0.0;
    QTest::newRow("llama3-8b") << "llama3-8b" << 8030261248.0 << 0.0;
    QTest::newRow("llama3-70b") << "llama3-70b" << 70553706496.0 << 0.0;
    QTest::newRow("llama3.1-405b") << "llama3.1-405b" << 405853388800.0 << 0.0;
    // Llama-2-13b-hf 13,015,864,320 and Llama-2-70b-hf 68,976,648,192; Llama-3.1-8B and -70B share Llama 3's
    // shapes (Hugging Face model cards).
    QTest::newRow("llama2-13b") << "llama2-13b" << 13015864320.0 << 0.0;
    QTest::newRow("llama2-70b") << "llama2-70b" << 68976648192.0 << 0.0;
    QTest::newRow("llama3.1-8b") << "llama3.1-8b" << 8030261248.0 << 0.0;
    QTest::newRow("llama3.1-70b") << "llama3.1-70b" << 70553706496.0 << 0.0;
    // Nemotron-4: the reports' embedding + non-embedding splits, 3.2 + 12.5 B (15B, Parmar et al. 2024) and
    // 9.4 + 331.6 B (340B, NVIDIA 2024), to the one decimal they give.
    QTest::newRow("nemotron4-15b") << "nemotron4-15b" << 15.7e9 << 0.005;
    QTest::newRow("nemotron4-340b") << "nemotron4-340b" << 341.0e9 << 0.001;
    // Stated sizes: GPT-3 "175B" (Brown et al. 2020; 51,200-token padded vocabulary); Megatron 1T
    // "1,008B" (Narayanan et al. 2021 Table 1).
    QTest::newRow("gpt3-175b") << "gpt3-175b" << 175e9 << 0.005;
    QTest::newRow("megatron-1t") << "megatron-1t" << 1008e9 << 0.001;
}

void TestModelParameters::qwen3NonEmbedding_data()
{
    QTest::addColumn<QString>("preset");
    QTest::addColumn<double>("nonEmbedding");
    QTest::addColumn<double>("halfUnit");
    QTest::addColumn<double>("total");
    // Qwen3 model cards (Hugging Face Qwen/Qwen3-*): "Number of Parameters" and its "Non-Embedding" part, to
    // their digits (the totals to one decimal).
    QTest::newRow("qwen3-0.6b") << "qwen3-0.6b" << 0.44e9 << 0.005e9 << 0.6e9;
    QTest::newRow("qwen3-1.7b") << "qwen3-1.7b" << 1.4e9 << 0.05e9 << 1.7e9;
    QTest::newRow("qwen3-4b") << "qwen3-4b" << 3.6e9 << 0.05e9 << 4.0e9;
    QTest::newRow("qwen3-8b") << "qwen3-8b" << 6.95e9 << 0.005e9 << 8.2e9;
    QTest::newRow("qwen3-14b") << "qwen3-14b" << 13.2e9 << 0.05e9 << 14.8e9;
    QTest::newRow("qwen3-32b") << "qwen3-32b" << 31.2e9 << 0.05e9 << 32.8e9;
}

void TestModelParameters::qwen3NonEmbedding()
{
    QFETCH(QString, preset);
    QFETCH(double, nonEmbedding);
    QFETCH(double, halfUnit);
    QFETCH(double, total);
    const ModelSpec *model = io::builtinCatalog().model(preset.toStdString());
    QVERIFY2(model, qPrintable(preset));
    const double embedding = double(model->vocab) * double(model->hidden) * (model->tiedEmbeddings ? 1.0 : 2.0);
    const double count = totalParameters(*model) - embedding;
    QVERIFY2(std::abs(count - nonEmbedding) <= halfUnit,
             qPrintable(QStringLiteral("%1 B vs published %2 B").arg(count / 1e9, 0, 'f', 3).arg(nonEmbedding / 1e9)));
    // And the total to the card's one decimal.
    QVERIFY2(std::abs(totalParameters(*model) - total) <= 0.05e9,
             qPrintable(QStringLiteral("total %1 B vs published %2 B").arg(totalParameters(*model) / 1e9, 0, 'f', 3).arg(total / 1e9)));
}

void TestModelParameters::presets()
{
    QFETCH(QString, preset);
    QFETCH(double, published);
    QFETCH(double, tolerance);
    const ModelSpec *model = io::builtinCatalog().model(preset.toStdString());
    QVERIFY2(model, qPrintable(preset));
    QVERIFY(!model->source.empty());
    if (tolerance == 0.0)
        QCOMPARE(totalParameters(*model), published);
    else
        TP_COMPARE_REL(totalParameters(*model), published, tolerance);
}

void TestModelParameters::narayananTable1_data()
{
    QTest::addColumn<qint64>("layers");
    QTest::addColumn<qint64>("hidden");
    QTest::addColumn<qint64>("heads");
    QTest::addColumn<qint64>("vocab");
    QTest::addColumn<qint64>("seq");
    QTest::addColumn<QString>("published");
    const auto rows = test::readCsv(test::dataPath("validation/narayanan2021_megatron_weak_scaling_A100.csv"));
    QVERIFY(rows.size() > 10);
    const QStringList header = rows.front();
    const auto col = [&](const char *name) { return header.indexOf(QLatin1String(name)); };
    int added = 0;
    for (std::size_t r = 1; r < rows.size(); ++r) {
        const QStringList &row = rows[r];
        if (row.size() < header.size() || row[col("num_layers")].isEmpty())
            continue;
        QTest::newRow(qPrintable(row[col("row_id")] + ' ' + row[col("model_size_label")]))
            << row[col("num_layers")].toLongLong() << row[col("hidden_size")].toLongLong()
            << row[col("attention_heads")].toLongLong() << row[col("vocab_size")].toLongLong()
            << row[col("seq_len")].toLongLong() << row[col("params_billion")];
        ++added;
    }
    QVERIFY(added >= 20);
}

void TestModelParameters::narayananTable1()
{
    QFETCH(qint64, layers);
    QFETCH(qint64, hidden);
    QFETCH(qint64, heads);
    QFETCH(qint64, vocab);
    QFETCH(qint64, seq);
    QFETCH(QString, published);
    const ModelSpec m = test::gptModel(layers, hidden, heads, vocab, seq);

    // Eq. 2: P = 12 l h^2 (1 + 13/(12h) + (V + s)/(12 l h)); our count adds only the final LayerNorm (2h).
    const double l = double(layers), h = double(hidden);
    const double eq2 = 12 * l * h * h * (1 + 13 / (12 * h) + double(vocab + seq) / (12 * l * h));
    QCOMPARE(totalParameters(m), eq2 + 2 * h);

    // The table prints billions to one decimal (or none): agree to half a unit of the last printed digit.
    const int decimals = published.contains('.') ? int(published.size() - published.indexOf('.') - 1) : 0;
    const double halfUnit = 0.5 * std::pow(10.0, -decimals) * 1e9;
    const double count = totalParameters(m);
    QVERIFY2(std::abs(count - published.toDouble() * 1e9) <= halfUnit * 1.001,
             qPrintable(QStringLiteral("%1 B vs published %2 B").arg(count / 1e9, 0, 'f', 3).arg(published)));
}

void TestModelParameters::tensorParallelSplit()
{
    // GPT layer: 12h^2 weights and 9h of column-parallel biases are split, the output-projection and
    // second-MLP biases (2h) and two LayerNorms (4h) are replicated: 12h^2 + 13h in all.
    ModelSpec m;
    m.hidden = 1024;
    m.heads = m.kvHeads = 16;
    m.ffnHidden = 4096;
    m.mlp = MlpKind::Gelu;
    applyArchitectureDefaults(m);
    const LayerParameters p = layerParameters(m);
    const double h = 1024;
    QCOMPARE(p.total(), 12 * h * h + 13 * h);
    QCOMPARE(p.replicated, 6 * h);
    QCOMPARE(p.perTensorRank(4), (12 * h * h + 7 * h) / 4 + 6 * h);
}

/// Hybrid Mamba-Transformer presets against their reports. Nemotron 3 Nano 30B-A3B (NVIDIA 2025, the Nemotron 3
/// Nano report and model card): 52 layers, 23 Mamba-2, 23 MoE and 6 grouped-query attention; 31.6 B parameters,
/// 3.2 B active per token, 3.6 B with the embeddings. Nemotron-H 8B (arXiv 2504.03624, Table 1): 24 Mamba-2, 4
/// self-attention and 24 FFN layers. One Mamba-2 mixer of Nemotron-H 8B counted by hand from Megatron-Core's
/// MambaMixer: in_proj 4096 x (2 x 8192 + 2 x 8 x 128 + 128), the convolution over 8192 + 2 x 8 x 128 channels
/// (kernel 4 and a bias), dt_bias, A_log and D per head, the 8192-wide gated norm, out_proj 8192 x 4096.
void TestModelParameters::hybridMambaModels()
{
    const ModelSpec *nano = io::builtinCatalog().model("nemotron-3-nano-30b-a3b");
    QVERIFY(nano && nano->isHybrid() && nano->isMoe());
    const ModelSpec::BlockCounts n = nano->blocksIn(0, nano->layers);
    QCOMPARE(n.mamba, 23);
    QCOMPARE(n.moeMlp, 23);
    QCOMPARE(n.attention, 6);
    QCOMPARE(n.denseMlp, 0);
    QCOMPARE(nano->moeLayers(), 23);
    const double embedding = double(nano->vocab) * double(nano->hidden);
    QVERIFY2(std::abs(totalParameters(*nano) - 31.6e9) <= 0.05e9, qPrintable(QString::number(totalParameters(*nano))));
    QVERIFY2(std::abs(activeParameters(*nano) - 3.2e9) <= 0.05e9, qPrintable(QString::number(activeParameters(*nano))));
    QVERIFY2(std::abs(activeParameters(*nano) + embedding - 3.6e9) <= 0.05e9,
             qPrintable(QString::number(activeParameters(*nano) + embedding)));

    const ModelSpec *h8 = io::builtinCatalog().model("nemotron-h-8b");
    QVERIFY(h8 && h8->isHybrid() && !h8->isMoe());
    const ModelSpec::BlockCounts b = h8->blocksIn(0, h8->layers);
    QCOMPARE(b.mamba, 24);
    QCOMPARE(b.attention, 4);
    QCOMPARE(b.denseMlp, 24);
    QCOMPARE(b.moeMlp, 0);
    QCOMPARE(h8->mambaHeadCount(), 128);
    QCOMPARE(h8->mambaInner(), 8192);
    const double h = 4096, inner = 8192, channels = inner + 2 * 8 * 128;
    const double mixer = h * (2 * inner + 2 * 8 * 128 + 128) + channels * 5 + 3 * 128 + inner + inner * h;
    QCOMPARE(blockParameters(*h8, 'M').total(), mixer + h); // with the block's RMSNorm
    QCOMPARE(layerParameters(*h8, 0).total(), mixer + h);   // layer 0 is an M
    QCOMPARE(layerParameters(*h8, 1).total(), 2 * h * 21504 + h); // a squared-ReLU MLP block
    // "8B": 8.1 B with the untied 131,072-token embedding and output matrices.
    QVERIFY2(std::abs(totalParameters(*h8) - 8.1e9) <= 0.05e9, qPrintable(QString::number(totalParameters(*h8))));

    // Nemotron 3 Super, a latent MoE: 512 experts of 2,688 on 1,024-wide latent rows, the two projections (4,096 to
    // 1,024 and back) whole on every tensor rank, the router and shared expert on the hidden width. Megatron-Bridge's
    // conversion check counts 123,611,033,088 elements with its one (repeated) multi-token-prediction module
    // (examples/model_verification_cards/nemotron-3-super-120b-a12b/card.yaml); the planner's total leaves the module
    // out as DeepSeek-V3's 671 B does; its name says 120B-A12B.
    const ModelSpec *super = io::builtinCatalog().model("nemotron-3-super-120b-a12b");
    QVERIFY(super && super->isHybrid() && super->moeLatentSize == 1024 && super->mtpRepeated);
    const ModelSpec::BlockCounts sb = super->blocksIn(0, super->layers);
    QCOMPARE(sb.mamba, 40);
    QCOMPARE(sb.moeMlp, 40);
    QCOMPARE(sb.attention, 8);
    const double latent = 1024, expert = 2 * latent * 2688, shared = 2 * 2 * h * 2688;
    const LayerParameters moe = blockParameters(*super, 'E');
    QCOMPARE(moe.expert, 512 * expert);
    QCOMPARE(moe.replicated, h * 512 + 2 * h * latent + h); // router, latent projections, the block's norm
    QCOMPARE(moe.sharded, shared);
    const double withModule = totalParameters(*super) + mtpParameters(*super).total();
    // 25,088 short: the 41 routers' FP32 expert-bias vectors (41 x 512, "the 41 FP32 router correction-bias
    // tensors") and the module's final norm (MultiTokenPredictionLayer.final_layernorm, 4,096), which the planner
    // does not count.
    QCOMPARE(123611033088.0 - withModule, 41.0 * 512 + 4096);
    QVERIFY2(std::abs(totalParameters(*super) / 120e9 - 1.0) < 0.01, qPrintable(QString::number(totalParameters(*super))));
    QVERIFY2(std::abs(activeParameters(*super) / 12e9 - 1.0) < 0.03, qPrintable(QString::number(activeParameters(*super))));
    // Two depths run the one module: its parameters once, its blocks twice.
    ModelSpec twoModules = *super;
    twoModules.mtpRepeated = false;
    QCOMPARE(mtpParameters(twoModules).total(), 2 * mtpParameters(*super).total());
    QCOMPARE(super->mtpBlocks().moeMlp, 2);
    QCOMPARE(super->mtpBlocks().attention, 2);
}

TRAINPLAN_TEST_APPLESS_MAIN(TestModelParameters)
#include "tst_modelparameters.moc"
