// `trainplan estimate` in-process: the JSON contract, the table, exit codes and one line per problem.

#include <cmath>

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include "app/CommandLine.h"
#include "app/EstimateCommand.h"
#include "TestMain.h"
#include "TestSupport.h"

using namespace trainplan;

namespace {

struct EstimateRun
{
    int exitCode = 0;
    QString out;
    QString err;
};

EstimateRun estimate(const QStringList &arguments)
{
    EstimateRun run;
    QTextStream out(&run.out);
    QTextStream err(&run.err);
    run.exitCode = cli::runEstimate(arguments, out, err);
    out.flush();
    err.flush();
    return run;
}

const QString kExample = QStringLiteral(TRAINPLAN_SOURCE_DIR "/resources/examples/gpt3-175b-tp8-pp8.json");

} // namespace

class TestEstimateCommand : public QObject
{
    Q_OBJECT

private slots:
    void jsonContract();
    void timelineOption();
    void tableFormat();
    void invalidPlanExitsNonZeroWithOneLinePerProblem();
    void usageErrors();
    void timeTermsOfEveryExample();
};

void TestEstimateCommand::jsonContract()
{
    const EstimateRun run = estimate({kExample});
    QCOMPARE(run.exitCode, 0);
    QVERIFY2(run.err.isEmpty(), qPrintable(run.err));
    const QJsonObject root = QJsonDocument::fromJson(run.out.toUtf8()).object();
    // GPT-3 175B with the padded 51,200 vocabulary: 174.6 B parameters (Narayanan Eq. 2 + final norm).
    const double h = 12288, l = 96, V = 51200, seq = 2048;
    QCOMPARE(root["model"]["parameters"].toDouble(), 12 * l * h * h + 13 * l * h + (V + seq) * h + 2 * h);
    const QJsonObject memory = root["memory"].toObject();
    QCOMPARE(memory["capacity_bytes"].toDouble(), 80.0 * 1024 * 1024 * 1024);
    QVERIFY(memory["fits"].toBool());
    const QJsonArray stages = memory["stages"].toArray();
    QCOMPARE(stages.size(), 8);
    double largest = 0;
    for (const QJsonValue &v : stages) {
        const QJsonObject s = v.toObject();
        for (const char *key : {"parameters_bytes", "gradients_bytes", "optimizer_bytes", "activations_bytes", "other_bytes", "peak_bytes"})
            QVERIFY2(s[key].isDouble() && s[key].toDouble() >= 0, key);
        double other = 0;
        for (const QJsonValue term : s["other"].toObject())
            other += term.toDouble();
        QCOMPARE(s["other_bytes"].toDouble(), other);
        const double sum = s["parameters_bytes"].toDouble() + s["gradients_bytes"].toDouble() + s["optimizer_bytes"].toDouble()
                           + s["activations_bytes"].toDouble() + s["other_bytes"].toDouble();
        QCOMPARE(s["peak_bytes"].toDouble(), sum);
        largest = std::max(largest, sum);
    }
    QCOMPARE(memory["peak_bytes"].toDouble(), largest);
    // Issue 19: the three peaks (worst stage, and per stage); peak_bytes is the device-used one.
    QCOMPARE(memory["device_bytes"].toDouble(), largest);
    QVERIFY(memory["allocated_bytes"].toDouble() > 0);
    QVERIFY(memory["allocated_bytes"].toDouble() <= memory["reserved_bytes"].toDouble());
    QVERIFY(memory["reserved_bytes"].toDouble() < memory["device_bytes"].toDouble());
    QCOMPARE(memory["margin_bytes"].toDouble(), 0.05 * 80.0 * 1024 * 1024 * 1024);
    QVERIFY(memory["tight"].isBool() && !memory["tight"].toBool());
    QVERIFY(memory["peak_kinds"]["reserved"]["published_as"].toString().contains("max_memory_reserved"));
    for (const QJsonValue &v : stages) {
        const QJsonObject s = v.toObject();
        QCOMPARE(s["device_bytes"].toDouble(), s["peak_bytes"].toDouble());
        QCOMPARE(s["reserved_bytes"].toDouble() - s["allocated_bytes"].toDouble(),
                 s["allocator"]["rounding_bytes"].toDouble() + s["allocator"]["fragmentation_bytes"].toDouble());
        QCOMPARE(s["device_bytes"].toDouble() - s["reserved_bytes"].toDouble(),
                 s["other"]["runtime_context_bytes"].toDouble() + s["other"]["nccl_buffers_bytes"].toDouble()
                     + s["other"]["library_workspaces_bytes"].toDouble());
    }
    // Stage 0 holds 8 micro-batches under 1F1B, the last stage one.
    QCOMPARE(stages.first()["activations"]["microbatches_in_flight"].toDouble(), 8.0);
    QCOMPARE(stages.last()["activations"]["microbatches_in_flight"].toDouble(), 1.0);
    QVERIFY(memory["terms"]["activations_bytes"]["source"].toString().contains("Korthikanti"));

    // Step-time contract (issue 3): time, breakdown, throughput, bubble, bottleneck.
    const double step = root["time"]["step_seconds"].toDouble();
    QVERIFY(step > 0);
    double sum = 0;
    const QJsonObject breakdown = root["time"]["breakdown"].toObject();
    for (const char *key : {"compute", "recompute", "tensor_comm", "pipeline_comm", "pipeline_bubble", "data_comm", "optimizer", "other"}) {
        QVERIFY2(breakdown[key].isDouble(), key);
        sum += breakdown[key].toDouble();
    }
    QCOMPARE(sum, step);
    // Issue 41: each part of the step with its formula and source.
    QVERIFY(root["time"]["terms"]["tensor_comm"]["source"].toString().contains(QStringLiteral("Korthikanti")));
    QCOMPARE(root["time"]["terms"]["pipeline_idle"]["seconds"].toDouble(), root["time"]["parts"]["pipeline_idle"].toDouble());
    const QJsonObject throughput = root["throughput"].toObject();
    QCOMPARE(throughput["tokens_per_second"].toDouble(), 1536.0 * 2048.0 / step);
    QCOMPARE(throughput["mfu"].toDouble(), throughput["model_tflops_per_gpu"].toDouble() * 1e12 / 312e12);
    QCOMPARE(throughput["hfu"].toDouble(), throughput["hardware_tflops_per_gpu"].toDouble() * 1e12 / 312e12);
    QVERIFY(throughput["hfu"].toDouble() > throughput["mfu"].toDouble()); // selective recompute replays attention
    // 1F1B, p = 8, m = 192 micro-batches: at least the equal-stage bubble 7 / (192 + 7); the simulated
    // schedule adds the idle of the lighter middle stages (the last carries the logits).
    const QJsonObject pipeline = root["pipeline"].toObject();
    QCOMPARE(pipeline["schedule"].toString(), QStringLiteral("1f1b"));
    QVERIFY(pipeline["simulated"].toBool());
    QVERIFY(pipeline["bubble_fraction"].toDouble() >= 7.0 / 199.0);
    double stageBubbles = 0;
    for (const QJsonValue v : pipeline["stage_bubble_fraction"].toArray())
        stageBubbles += v.toDouble() / 8.0;
    QCOMPARE(pipeline["bubble_fraction"].toDouble(), stageBubbles);
    QCOMPARE(pipeline["peak_in_flight"].toArray().first().toDouble(), 8.0);
    QVERIFY(!pipeline.contains("timeline"));
    QVERIFY(QStringList({"capacity", "memory_movement", "arithmetic", "communication", "pipeline_idle"})
                .contains(root["bottleneck"].toString()));
    QVERIFY(!root["bottleneck_evidence"].toString().isEmpty());
    QCOMPARE(root["roofline"]["ridge_point"].toDouble(), 312e12 / 2.039e12);
    QVERIFY(root["roofline"]["ops"].toArray().size() > 20);
    QVERIFY(root["scaling"]["strong"].toArray().size() >= 8);
    QCOMPARE(root["scaling"]["weak"].toArray().first()["efficiency"].toDouble(), 1.0);
}

void TestEstimateCommand::timelineOption()
{
    const EstimateRun run = estimate({kExample, "--timeline"});
    QCOMPARE(run.exitCode, 0);
    const QJsonObject root = QJsonDocument::fromJson(run.out.toUtf8()).object();
    const QJsonArray stages = root["pipeline"]["timeline"].toArray();
    QCOMPARE(stages.size(), 8);
    // Every stage runs 192 forwards and 192 backwards; the last op of the step ends at the makespan.
    double lastEnd = 0;
    for (const QJsonValue stage : stages) {
        const QJsonArray ops = stage["ops"].toArray();
        QCOMPARE(ops.size(), 2 * 192);
        lastEnd = std::max(lastEnd, ops.last()["end"].toDouble());
    }
    QCOMPARE(lastEnd, root["pipeline"]["makespan_seconds"].toDouble());
    QCOMPARE(stages.first()["ops"].toArray().first()["kind"].toString(), QStringLiteral("F"));
}

void TestEstimateCommand::tableFormat()
{
    const EstimateRun run = estimate({kExample, "--format", "table"});
    QCOMPARE(run.exitCode, 0);
    QVERIFY(run.out.contains("Memory per GPU (GiB)"));
    QVERIFY(run.out.contains("174.62 B parameters"));
    QVERIFY(run.out.contains("fits"));
    QCOMPARE(run.out.count(QRegularExpression("^\\s+\\d+\\s+12\\s", QRegularExpression::MultilineOption)), 8);
}

void TestEstimateCommand::invalidPlanExitsNonZeroWithOneLinePerProblem()
{
    QTemporaryDir dir;
    const QString path = dir.filePath("bad.json");
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(R"({"format": "trainplan-plan", "version": 1, "model": {"preset": "gpt3-175b"},
        "training": {"global_batch": 10, "micro_batch": 4},
        "parallel": {"data": 2, "tensor": 5, "pipeline": 1},
        "cluster": {"device": "a100-sxm4-80gb", "gpus_per_node": 8, "nodes": 1}})");
    file.close();
    const EstimateRun run = estimate({path});
    QCOMPARE(run.exitCode, int(cli::InvalidInput));
    QVERIFY(run.out.isEmpty());
    const QStringList lines = run.err.trimmed().split('\n');
    // tensor 5 divides neither heads, kv_heads nor ffn_hidden (one line, with values that also split the 8
    // GPUs); 4 x 2 does not divide 10.
    QCOMPARE(lines.size(), 2);
    for (const QString &line : lines)
        QVERIFY2(line.startsWith(path + ": "), qPrintable(line));
    QVERIFY(run.err.contains("parallel.tensor: Tensor parallel (5) must divide the 96 attention heads, 96 key/value heads and "
                             "the MLP width 49152: each rank holds whole heads and MLP columns; valid values nearby: 2, 4 or 8"));
    QVERIFY(run.err.contains("training.global_batch: Global batch (10) must be a multiple of micro-batch x data-parallel replicas "
                             "= 4 x 2 = 8; valid global batches nearby: 8 or 16"));

    const EstimateRun missing = estimate({dir.filePath("nope.json")});
    QCOMPARE(missing.exitCode, int(cli::InvalidInput));
    QVERIFY(missing.err.contains("cannot read"));
}

void TestEstimateCommand::usageErrors()
{
    QCOMPARE(estimate({}).exitCode, int(cli::UsageError));
    QCOMPARE(estimate({kExample, "--format", "xml"}).exitCode, int(cli::UsageError));
    QCOMPARE(estimate({kExample, "--bogus"}).exitCode, int(cli::UsageError));
    QCOMPARE(estimate({"--help"}).exitCode, 0);
}

// time.terms (issue 41), for every plan of the gallery: one term per part of time.parts with the same seconds,
// a label, a formula and a source each, and together the step time.
void TestEstimateCommand::timeTermsOfEveryExample()
{
    const QStringList examples = QDir(QStringLiteral(TRAINPLAN_SOURCE_DIR "/resources/examples")).entryList({QStringLiteral("*.json")});
    QVERIFY(examples.size() >= 20);
    for (const QString &name : examples) {
        const EstimateRun run = estimate({QStringLiteral(TRAINPLAN_SOURCE_DIR "/resources/examples/") + name});
        QCOMPARE(run.exitCode, 0);
        const QJsonObject time = QJsonDocument::fromJson(run.out.toUtf8()).object()["time"].toObject();
        const QJsonObject parts = time["parts"].toObject(), terms = time["terms"].toObject();
        QCOMPARE(terms.keys(), parts.keys());
        double sum = 0;
        for (const QString &key : terms.keys()) {
            const QJsonObject term = terms[key].toObject();
            QVERIFY2(term["seconds"].toDouble() == parts[key].toDouble(), qPrintable(name + QLatin1Char(' ') + key));
            for (const char *field : {"label", "formula", "source"})
                QVERIFY2(term[QLatin1String(field)].toString().size() > 3, qPrintable(name + QLatin1Char(' ') + key + QLatin1Char(' ') + field));
            sum += term["seconds"].toDouble();
        }
        const double step = time["step_seconds"].toDouble();
        QVERIFY2(step > 0 && std::abs(sum - step) <= 1e-12 * step, qPrintable(name + QStringLiteral(": %1 against %2").arg(sum).arg(step)));
    }
}

TRAINPLAN_TEST_GUILESS_MAIN(TestEstimateCommand)
#include "tst_estimatecommand.moc"
