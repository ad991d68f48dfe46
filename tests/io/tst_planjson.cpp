// Plan files: every documented key, defaults, unknown keys, every invalid-plan rule, malformed input,
// and the save -> load -> save invariant.

#include <QElapsedTimer>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include "io/plan/PlanJson.h"
#include "TestMain.h"
#include "TestSupport.h"

using namespace trainplan;

namespace {

QJsonObject basePlan()
{
    return QJsonDocument::fromJson(R"({
        "format": "trainplan-plan", "version": 1, "name": "base",
        "model": {"name": "tiny", "layers": 8, "hidden": 1024, "heads": 16, "vocab": 32000, "seq_len": 2048},
        "training": {"global_batch": 64, "micro_batch": 2},
        "parallel": {"data": 2, "tensor": 2, "pipeline": 2},
        "cluster": {"device": "a100-sxm4-80gb", "gpus_per_node": 8, "nodes": 1}
    })").object();
}

/// Sets a dotted key ("training.micro_batch") in a copy of `root`; a JSON `undefined` removes it.
QJsonObject withValue(QJsonObject root, const QString &dottedKey, const QJsonValue &value)
{
    const QStringList parts = dottedKey.split('.');
    if (parts.size() == 1) {
        if (value.isUndefined())
            root.remove(parts[0]);
        else
            root[parts[0]] = value;
        return root;
    }
    root[parts[0]] = withValue(root[parts[0]].toObject(), parts.mid(1).join('.'), value);
    return root;
}

io::PlanReadResult read(const QJsonObject &o)
{
    return io::readPlan(QJsonDocument(o).toJson(), io::builtinCatalog());
}

QString problemsText(const Problems &problems)
{
    QStringList lines;
    for (const Problem &p : problems)
        lines << io::problemLine(p);
    return lines.join(" | ");
}

} // namespace

class TestPlanJson : public QObject
{
    Q_OBJECT

private slots:
    void readsEveryKey();
    void defaults();
    void presetWithOverrides();
    void unknownKeysAreWarnings();
    void invalid_data();
    void invalid();
    void malformedInput_data();
    void malformedInput();
    void hostileInput_data();
    void hostileInput();
    void hugeFileIsRefusedUnread();
    void saveLoadSaveIsStable_data();
    void saveLoadSaveIsStable();
    void builtinExampleIsValid();
};

void TestPlanJson::readsEveryKey()
{
    const QByteArray json = R"({
        "format": "trainplan-plan", "version": 1, "name": "all keys",
        "model": {"name": "m", "layers": 24, "hidden": 2048, "heads": 16, "kv_heads": 4, "ffn_hidden": 5632,
                  "vocab": 50000, "seq_len": 4096, "mlp": "swiglu", "tied_embeddings": true, "norm": "layernorm",
                  "linear_bias": true, "position_embedding": "learned", "dropout": true},
        "training": {"global_batch": 512, "micro_batch": 4, "precision": "fp16", "optimizer": "sgd",
                     "recompute": "full", "sequence_parallel": true, "flash_attention": true, "fp32_gradients": true,
                     "allocator_reserve_fraction": 0.1, "framework": "deepspeed", "expandable_segments": true,
                     "memory_margin": 0.1},
        "parallel": {"data": 4, "tensor": 4, "pipeline": 2, "virtual_stages": 3, "schedule": "interleaved",
                     "zero_stage": 1, "offload_optimizer": true, "bucket_bytes": 5e7, "reshard_after_forward": false},
        "cluster": {"device": "h100-sxm5-80gb", "gpus_per_node": 8, "nodes": 4, "intra_node_bandwidth": 4e11,
                    "intra_node_latency": 2e-6, "network_bandwidth": 4e10, "network_latency": 5e-6,
                    "runtime_context_bytes": 1e9, "host_link_bandwidth": 6.4e10, "host_memory_bandwidth": 3e11}
    })";
    const io::PlanReadResult r = io::readPlan(json, io::builtinCatalog());
    QVERIFY2(r.plan, qPrintable(problemsText(r.problems)));
    QVERIFY(r.problems.empty());
    const Plan &p = *r.plan;
    QCOMPARE(p.name, std::string("all keys"));
    QCOMPARE(p.model.kvHeads, 4);
    QCOMPARE(p.model.ffnHidden, 5632);
    QCOMPARE(p.model.mlp, MlpKind::SwiGlu);
    QCOMPARE(p.model.norm, NormKind::LayerNorm); // explicit keys win over the swiglu defaults
    QVERIFY(p.model.linearBias && p.model.dropout && p.model.tiedEmbeddings);
    QCOMPARE(p.model.position, PositionEmbedding::Learned);
    QCOMPARE(p.training.precision, Precision::FP16);
    QCOMPARE(p.training.optimizer, Optimizer::Sgd);
    QCOMPARE(p.training.recompute, Recompute::Full);
    QVERIFY(p.training.sequenceParallel && p.training.flashAttention && p.training.fp32Gradients);
    QCOMPARE(p.training.allocatorReserveFraction, std::optional<double>(0.1));
    QCOMPARE(p.training.framework, Framework::DeepSpeed);
    QVERIFY(p.training.expandableSegments && !p.parallel.reshardAfterForward);
    QCOMPARE(p.training.memoryMargin, 0.1);
    QCOMPARE(p.parallel.virtualStages, 3);
    QCOMPARE(p.parallel.schedule, Schedule::Interleaved);
    QCOMPARE(p.parallel.zeroStage, 1);
    QVERIFY(p.parallel.offloadOptimizer);
    QCOMPARE(p.parallel.bucketBytes, 5e7);
    QCOMPARE(p.cluster.device, std::string("h100-sxm5-80gb"));
    QCOMPARE(*p.cluster.overrides.intraNodeBandwidthBytesPerSecond, 4e11);
    QCOMPARE(*p.cluster.overrides.networkLatencySeconds, 5e-6);
    QCOMPARE(*p.cluster.overrides.runtimeContextBytes, 1e9);
    QCOMPARE(*p.cluster.overrides.hostLinkBandwidthBytesPerSecond, 6.4e10);
    QCOMPARE(*p.cluster.overrides.hostMemoryBandwidthBytesPerSecond, 3e11);
}

void TestPlanJson::defaults()
{
    QJsonObject o = basePlan();
    o = withValue(o, "parallel.data", QJsonValue::Undefined);
    o = withValue(o, "training.micro_batch", QJsonValue::Undefined);
    const io::PlanReadResult r = read(o);
    QVERIFY2(r.plan, qPrintable(problemsText(r.problems)));
    const Plan &p = *r.plan;
    QCOMPARE(p.model.kvHeads, p.model.heads);       // kv_heads defaults to heads
    QCOMPARE(p.model.ffnHidden, 4 * p.model.hidden); // ffn_hidden defaults to 4 hidden
    QCOMPARE(p.model.mlp, MlpKind::Gelu);
    QCOMPARE(p.model.norm, NormKind::LayerNorm);
    QVERIFY(!p.model.tiedEmbeddings);
    QCOMPARE(p.training.microBatch, 1);
    QCOMPARE(p.training.precision, Precision::BF16);
    QCOMPARE(p.training.optimizer, Optimizer::Adam);
    QCOMPARE(p.training.recompute, Recompute::None);
    QVERIFY(!p.training.allocatorReserveFraction); // absent: the allocator model
    QCOMPARE(p.training.framework, Framework::Megatron);
    QCOMPARE(p.training.memoryMargin, 0.05);
    QVERIFY(!p.training.expandableSegments);
    QVERIFY(p.parallel.reshardAfterForward);
    QCOMPARE(p.parallel.data, 2); // 8 GPUs / (tensor 2 x pipeline 2)
    QCOMPARE(p.parallel.virtualStages, 1);
    QCOMPARE(p.parallel.schedule, Schedule::OneFOneB);
    QCOMPARE(p.parallel.zeroStage, 0);
    QCOMPARE(p.parallel.bucketBytes, 25e6);
    QVERIFY(!p.cluster.overrides.networkBandwidthBytesPerSecond);
}

void TestPlanJson::presetWithOverrides()
{
    QJsonObject o = basePlan();
    o["model"] = QJsonObject{{"preset", "llama3-8b"}, {"seq_len", 4096}};
    o = withValue(o, "parallel.tensor", 4);
    o = withValue(o, "parallel.pipeline", 2);
    o = withValue(o, "parallel.data", 1);
    const io::PlanReadResult r = read(o);
    QVERIFY2(r.plan, qPrintable(problemsText(r.problems)));
    QCOMPARE(r.plan->model.presetId, std::string("llama3-8b"));
    QCOMPARE(r.plan->model.seqLen, 4096);
    QCOMPARE(r.plan->model.kvHeads, 8);
    QCOMPARE(r.plan->model.norm, NormKind::RmsNorm);
    QCOMPARE(r.plan->name, std::string("base"));
    // Written back as the preset plus only what differs from it.
    const QJsonObject written = QJsonDocument::fromJson(io::writePlan(*r.plan, io::builtinCatalog())).object();
    QCOMPARE(written["model"].toObject(), (QJsonObject{{"preset", "llama3-8b"}, {"seq_len", 4096}}));
}

void TestPlanJson::unknownKeysAreWarnings()
{
    QJsonObject o = withValue(basePlan(), "training.learning_rate", 3e-4);
    o = withValue(o, "colour", "blue");
    const io::PlanReadResult r = read(o);
    QVERIFY(r.plan);
    QCOMPARE(r.problems.size(), std::size_t(2));
    QStringList keys;
    for (const Problem &p : r.problems) {
        QCOMPARE(p.severity, Severity::Warning);
        keys << QString::fromStdString(p.key);
    }
    keys.sort();
    QCOMPARE(keys, (QStringList{"colour", "training.learning_rate"}));
}

void TestPlanJson::invalid_data()
{
    QTest::addColumn<QString>("key");
    QTest::addColumn<QJsonValue>("value");
    QTest::addColumn<QString>("expectedKey");
    QTest::addColumn<QString>("expectedMessage");

    // Non-positive and non-integer sizes.
    QTest::newRow("layers 0") << "model.layers" << QJsonValue(0) << "model.layers" << "must be a whole number from 1 to";
    QTest::newRow("hidden negative") << "model.hidden" << QJsonValue(-1024) << "model.hidden" << "must be a whole number from 1 to";
    QTest::newRow("heads 0") << "model.heads" << QJsonValue(0) << "model.heads" << "must be a whole number from 1 to";
    QTest::newRow("vocab 0") << "model.vocab" << QJsonValue(0) << "model.vocab" << "must be a whole number from 1 to";
    QTest::newRow("seq_len negative") << "model.seq_len" << QJsonValue(-1) << "model.seq_len" << "must be a whole number from 1 to";
    QTest::newRow("micro_batch 0") << "training.micro_batch" << QJsonValue(0) << "training.micro_batch" << "must be a whole number from 1 to";
    QTest::newRow("global_batch 0") << "training.global_batch" << QJsonValue(0) << "training.global_batch" << "must be a whole number from 1 to";
    QTest::newRow("data 0") << "parallel.data" << QJsonValue(0) << "parallel.data" << "must be a whole number from 1 to";
    QTest::newRow("nodes 0") << "cluster.nodes" << QJsonValue(0) << "cluster.nodes" << "must be a whole number from 1 to";
    QTest::newRow("layers fractional") << "model.layers" << QJsonValue(7.5) << "model.layers" << "must be an integer";
    QTest::newRow("layers as string") << "model.layers" << QJsonValue("8") << "model.layers" << "must be an integer (got a string)";
    QTest::newRow("layers huge") << "model.layers" << QJsonValue(1e300) << "model.layers" << "must be an integer";
    QTest::newRow("layers beyond the range") << "model.layers" << QJsonValue(2e12) << "model.layers" << "from 1 to 100000 (got 2000000000000)";
    // Divisibility rules.
    QTest::newRow("tensor does not divide heads") << "parallel.tensor" << QJsonValue(3) << "parallel.tensor"
                                                  << "Tensor parallel (3) must divide the 16 attention heads";
    QTest::newRow("heads do not divide hidden") << "model.heads" << QJsonValue(24) << "model.heads"
                                                << "Attention heads (24) must divide the hidden size (1024)";
    QTest::newRow("kv_heads do not divide heads") << "model.kv_heads" << QJsonValue(5) << "model.kv_heads" << "Key/value heads (5) must divide the attention heads (16)";
    QTest::newRow("gpu count") << "parallel.data" << QJsonValue(4) << "parallel.data" << "Data parallel must be GPUs / (tensor x pipeline) = 8 / (2 x 2) = 2 (got 4)";
    QTest::newRow("global batch") << "training.global_batch" << QJsonValue(66) << "training.global_batch"
                                  << "must be a multiple of micro-batch x data-parallel replicas = 2 x 2 = 4; valid global batches nearby: 64 or 68";
    QTest::newRow("zero 3 with pipeline") << "parallel.zero_stage" << QJsonValue(3) << "parallel.zero_stage"
                                          << "ZeRO stage 3 cannot be combined with pipeline stages (2)";
    QTest::newRow("zero 2 with pipeline") << "parallel.zero_stage" << QJsonValue(2) << "parallel.zero_stage"
                                          << "ZeRO stage 2 cannot be combined with pipeline stages (2): each stage would reduce-scatter its gradients";
    QTest::newRow("layers across stages") << "model.layers" << QJsonValue(9) << "parallel.pipeline" << "Pipeline stages (2) must divide the 9 layers evenly; valid stage counts nearby: 1";
    QTest::newRow("virtual stages without interleaving") << "parallel.virtual_stages" << QJsonValue(2)
                                                         << "parallel.virtual_stages" << "interleaved";
    // Catalog look-ups and enumerations.
    QTest::newRow("unknown device") << "cluster.device" << QJsonValue("tpu-v9") << "cluster.device" << "unknown device \"tpu-v9\"";
    QTest::newRow("unknown precision") << "training.precision" << QJsonValue("fp12") << "training.precision"
                                       << "unknown value \"fp12\"";
    QTest::newRow("unknown schedule") << "parallel.schedule" << QJsonValue("zigzag") << "parallel.schedule" << "expected one of";
    QTest::newRow("zero stage 4") << "parallel.zero_stage" << QJsonValue(4) << "parallel.zero_stage" << "a whole number from 0 to 3 (got 4)";
    QTest::newRow("bf16 on V100") << "cluster.device" << QJsonValue("v100-sxm2-32gb") << "training.precision"
                                  << "bf16 is not supported by NVIDIA V100";
    QTest::newRow("negative bandwidth") << "cluster.network_bandwidth" << QJsonValue(-1) << "cluster.network_bandwidth"
                                        << "must be in [1e6, 1e14] bytes/s (got -1)";
    QTest::newRow("reserve fraction") << "training.allocator_reserve_fraction" << QJsonValue(1.5)
                                      << "training.allocator_reserve_fraction" << "[0, 1)";
    QTest::newRow("bool as number") << "training.sequence_parallel" << QJsonValue(1) << "training.sequence_parallel"
                                    << "must be true or false";
    QTest::newRow("training not an object") << "training" << QJsonValue(3) << "training" << "must be an object";
    QTest::newRow("missing global batch") << "training.global_batch" << QJsonValue(QJsonValue::Undefined)
                                          << "training.global_batch" << "is required";
    QTest::newRow("missing device") << "cluster.device" << QJsonValue(QJsonValue::Undefined) << "cluster.device" << "is required";
    QTest::newRow("custom model without hidden") << "model.hidden" << QJsonValue(QJsonValue::Undefined) << "model.hidden"
                                                 << "is required";
    QTest::newRow("unknown preset") << "model.preset" << QJsonValue("gpt5") << "model.preset" << "unknown preset \"gpt5\"";
    QTest::newRow("wrong format") << "format" << QJsonValue("trainplan-report") << "format" << "must be \"trainplan-plan\"";
    QTest::newRow("newer version") << "version" << QJsonValue(2) << "version" << "newer Trainplan";
}

void TestPlanJson::invalid()
{
    QFETCH(QString, key);
    QFETCH(QJsonValue, value);
    QFETCH(QString, expectedKey);
    QFETCH(QString, expectedMessage);
    const io::PlanReadResult r = read(withValue(basePlan(), key, value));
    QVERIFY2(!r.plan, "an invalid plan was accepted");
    bool found = false;
    for (const Problem &p : r.problems)
        found |= p.isError() && QString::fromStdString(p.key) == expectedKey
                 && QString::fromStdString(io::problemMessage(p)).contains(expectedMessage);
    QVERIFY2(found, qPrintable(QStringLiteral("no error for %1 containing '%2'; got: %3")
                                   .arg(expectedKey, expectedMessage, problemsText(r.problems))));
}

void TestPlanJson::malformedInput_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("expectedMessage");
    QTest::newRow("empty") << QByteArray() << "malformed JSON";
    QTest::newRow("truncated") << QByteArray(R"({"format": "trainplan-plan", "version": 1, "model": {)") << "malformed JSON";
    QTest::newRow("trailing comma") << QByteArray(R"({"format": "trainplan-plan",})") << "malformed JSON";
    QTest::newRow("array") << QByteArray("[1, 2, 3]") << "must be a JSON object";
    QTest::newRow("binary") << QByteArray("\x00\xff\xfe garbage", 12) << "malformed JSON";
    QTest::newRow("deep nesting") << QByteArray(100000, '[') << "malformed JSON";
}

void TestPlanJson::malformedInput()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, expectedMessage);
    const io::PlanReadResult r = io::readPlan(bytes, io::builtinCatalog());
    QVERIFY(!r.plan);
    QVERIFY(!r.problems.empty());
    QVERIFY2(QString::fromStdString(io::problemMessage(r.problems.front())).contains(expectedMessage),
             io::problemMessage(r.problems.front()).c_str());
}

void TestPlanJson::hostileInput_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("expectedKey");
    QTest::addColumn<QString>("expectedMessage");
    const QByteArray base = QJsonDocument(basePlan()).toJson(QJsonDocument::Compact);
    QTest::newRow("1e400") << QByteArray(base).replace("\"layers\":8", "\"layers\":1e400") << "model.layers" << "malformed JSON";
    QTest::newRow("-0 layers") << QByteArray(base).replace("\"layers\":8", "\"layers\":-0") << "model.layers" << "must be a whole number from 1 to";
    QTest::newRow("1e-400") << QByteArray(base).replace("\"micro_batch\":2", "\"micro_batch\":2,\"allocator_reserve_fraction\":1e-400")
                            << "training.allocator_reserve_fraction" << "malformed JSON";
    QTest::newRow("-0.0 fraction is zero") << QByteArray(base).replace("\"micro_batch\":2", "\"micro_batch\":2,\"allocator_reserve_fraction\":-0.0")
                                           << "training.allocator_reserve_fraction" << "";
    QTest::newRow("duplicate key") << QByteArray(base).replace("\"micro_batch\":2", "\"micro_batch\":2,\"micro_batch\":4")
                                   << "training.micro_batch" << "appears twice";
    QTest::newRow("duplicate top-level key") << QByteArray(base).replace("\"version\":1", "\"version\":1,\"version\":1") << "version"
                                             << "appears twice";
    QTest::newRow("non-UTF-8 in a string") << QByteArray(base).replace("\"tiny\"", "\"t\xff\xfey\"") << "model.name" << "malformed JSON";
    QTest::newRow("nesting 100000") << QByteArray(100000, '{') << "" << "malformed JSON";
}

void TestPlanJson::hostileInput()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, expectedKey);
    QFETCH(QString, expectedMessage);
    QElapsedTimer timer;
    timer.start();
    const io::PlanReadResult r = io::readPlan(bytes, io::builtinCatalog());
    if (expectedMessage.isEmpty()) { // accepted: a value that rounds to a valid one
        QVERIFY2(r.plan, qPrintable(problemsText(r.problems)));
        QCOMPARE(r.plan->training.allocatorReserveFraction, std::optional<double>(0.0));
        return;
    }
    QVERIFY(!r.plan);
    bool found = false;
    for (const Problem &p : r.problems)
        found |= p.isError() && QString::fromStdString(p.key) == expectedKey && QString::fromStdString(io::problemMessage(p)).contains(expectedMessage);
    QVERIFY2(found, qPrintable(problemsText(r.problems)));
    QVERIFY(timer.elapsed() < 5000);
}

void TestPlanJson::hugeFileIsRefusedUnread()
{
    // 100 MB of JSON: refused by size with a named error, without reading it all.
    QTemporaryDir dir;
    const QString path = dir.filePath("huge.json");
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    const QByteArray chunk(1 << 20, ' ');
    file.write("{\"format\": \"trainplan-plan\", \"pad\": \"");
    for (int i = 0; i < 100; ++i)
        file.write(chunk);
    file.write("\"}");
    file.close();
    const io::PlanReadResult r = io::readPlanFile(path, io::builtinCatalog());
    QVERIFY(!r.plan);
    QVERIFY(QString::fromStdString(io::problemMessage(r.problems.front())).contains("larger than 16 MiB"));
}

void TestPlanJson::saveLoadSaveIsStable_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::newRow("custom model") << QJsonDocument(basePlan()).toJson();
    QTest::newRow("built-in example") << io::builtinExamplePlan();
    QJsonObject overrides = withValue(basePlan(), "cluster.network_latency", 5e-6);
    overrides["model"] = QJsonObject{{"preset", "llama3-70b"}, {"layers", 8}, {"mlp", "gelu"}};
    overrides = withValue(overrides, "model.heads", QJsonValue::Undefined);
    QTest::newRow("preset overrides") << QJsonDocument(overrides).toJson();
}

void TestPlanJson::saveLoadSaveIsStable()
{
    QFETCH(QByteArray, json);
    const Catalog &catalog = io::builtinCatalog();
    const io::PlanReadResult first = io::readPlan(json, catalog);
    QVERIFY2(first.plan, qPrintable(problemsText(first.problems)));
    const QByteArray saved = io::writePlan(*first.plan, catalog);
    const io::PlanReadResult second = io::readPlan(saved, catalog);
    QVERIFY2(second.plan, qPrintable(problemsText(second.problems)));
    QVERIFY(second.problems.empty());
    QVERIFY(*second.plan == *first.plan);
    QCOMPARE(io::writePlan(*second.plan, catalog), saved);
}

void TestPlanJson::builtinExampleIsValid()
{
    const io::PlanReadResult r = io::readPlan(io::builtinExamplePlan(), io::builtinCatalog());
    QVERIFY2(r.plan, qPrintable(problemsText(r.problems)));
    QVERIFY(r.problems.empty());
    QCOMPARE(r.plan->model.presetId, std::string("gpt3-175b"));
    QCOMPARE(r.plan->parallel.tensor, 8);
    QCOMPARE(r.plan->parallel.pipeline, 8);
}

TRAINPLAN_TEST_APPLESS_MAIN(TestPlanJson)
#include "tst_planjson.moc"
