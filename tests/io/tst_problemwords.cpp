// Core's rules in words (io/plan/ProblemWords): core reports a rule id and its values, io writes the
// sentence. The sentences are checked whole for the rules the message corpus of the restructuring did not
// reach (the others were compared byte for byte with the sentences core used to write); every rule core
// reports has a sentence and every sentence a rule; and the words go through the "Problem" translation
// context.

#include <QFile>
#include <QRegularExpression>
#include <QTest>
#include <QTranslator>

#include <set>

#include "TestMain.h"
#include "TestSupport.h"
#include "core/advice/Interventions.h"
#include "core/estimate/Estimate.h"
#include "core/plan/PlanKeys.h"
#include "core/plan/PlanValidation.h"
#include "core/search/Search.h"
#include "io/output/Evidence.h"
#include "io/plan/ProblemWords.h"

using namespace trainplan;

namespace {

/// The words of the first problem on `key` (an error or a warning); empty when there is none.
QString wordsOn(const Plan &plan, const char *key)
{
    for (const Problem &p : validatePlan(plan, io::builtinCatalog()))
        if (p.key == key)
            return io::problemText(p);
    return {};
}

/// Llama 3.1 8B on two DGX H100 (16 GPUs), data parallel, valid as it is.
Plan llama8bOn16()
{
    Plan plan = test::presetPlan("llama3.1-8b", 1, 1, 16, 1, 64, "h100-sxm5-80gb");
    plan.training.flashAttention = true;
    return plan;
}

/// Every string literal of a core source file.
std::vector<std::string> literalsOf(const char *path)
{
    QFile file(QStringLiteral(TRAINPLAN_SOURCE_DIR "/") + QLatin1String(path));
    if (!file.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", path);
    const QString source = QString::fromUtf8(file.readAll());
    std::vector<std::string> out;
    static const QRegularExpression literal(QStringLiteral("\"((?:[^\"\\\\\\n]|\\\\.)*)\""));
    for (auto it = literal.globalMatch(source); it.hasNext();)
        out.push_back(it.next().captured(1).toStdString());
    return out;
}

/// German for one sentence, to see that the words are looked up in the "Problem" context.
class ProblemTranslator : public QTranslator
{
public:
    QString translate(const char *context, const char *sourceText, const char *, int) const override
    {
        if (QLatin1String(context) == QLatin1String("Problem") &&
            QLatin1String(sourceText) ==
                QLatin1String("Expert parallel (%1) must divide model.experts (%2): each rank holds whole experts"))
            return QStringLiteral("Expertenparallelität (%1) muss model.experts (%2) teilen");
        if (QLatin1String(context) == QLatin1String("Problem") &&
            QLatin1String(sourceText) == QLatin1String("; valid %1 nearby: %2"))
            return QStringLiteral("; gültige %1 in der Nähe: %2");
        return {};
    }
    bool isEmpty() const override { return false; }
};

} // namespace

class TestProblemWords : public QObject
{
    Q_OBJECT

private slots:
    void valuesThatDoNotParse()
    {
        Problem why;
        QVERIFY(!parseValue(*findPlanKey("training.memory_margin"), "nan", &why));
        QCOMPARE(io::problemText(why), QStringLiteral("must be a finite number"));
        QCOMPARE(why.key, std::string("training.memory_margin"));
        QVERIFY(!parseValue(*findPlanKey("cluster.node_groups"), "[]", &why));
        QCOMPARE(io::problemText(why), QStringLiteral("is an array"));
        QVERIFY(!parseValue(*findPlanKey("parallel.tensor"), "0", &why));
        QCOMPARE(io::problemText(why), QStringLiteral("must be a whole number from 1 to 65536 (got 0)"));
        QVERIFY(!parseValue(*findPlanKey("parallel.bucket_bytes"), "10", &why)); // the unit after the range
        QCOMPARE(io::problemText(why), QStringLiteral("must be in [1000, 1e11] bytes (got 10)"));
    }

    void rangesInWords()
    {
        QCOMPARE(io::rangeWords(*findPlanKey("parallel.tensor")), QStringLiteral("a whole number from 1 to 65536"));
        QCOMPARE(io::rangeWords(*findPlanKey("parallel.shard_group")), QStringLiteral("a whole number from 0 to 2^20"));
        QCOMPARE(io::rangeWords(*findPlanKey("run.token_budget")), QStringLiteral("in [1, 1e18)"));
        // Fractions as the plan file writes them ("5e-01" before), large bounds in powers of ten.
        QCOMPARE(io::rangeWords(*findPlanKey("training.memory_margin")), QStringLiteral("in [0, 0.5]"));
        QCOMPARE(QString::fromStdString(boundText(1e-6)), QStringLiteral("1e-6"));
        QCOMPARE(QString::fromStdString(boundText(2.5e11)), QStringLiteral("2.5e11"));
        QVERIFY(io::rangeWords(*findPlanKey("training.precision")).isEmpty());
    }

    void layoutRules()
    {
        Plan heads = llama8bOn16();
        heads.parallel.tensor = 2; // the 8 key/value heads do not split over tensor x context = 16
        heads.parallel.context = 8;
        heads.parallel.data = 1;
        heads.parallel.contextComm = ContextComm::AllToAll;
        QCOMPARE(wordsOn(heads, "parallel.context_comm"),
                 QStringLiteral("The all-to-all exchange needs model.heads (32) and model.kv_heads (8) divisible by "
                                "tensor x context = 16: each rank computes whole heads over the full sequence; use "
                                "\"ring\" or \"all-gather\""));

        Plan split = llama8bOn16();
        split.model.seqLen = 6144; // 2 x 3 chunks divide it: only the GPU split is broken
        split.parallel.tensor = 2;
        split.parallel.context = 3;
        split.parallel.data = 2;
        QCOMPARE(
            wordsOn(split, "parallel.context"),
            QStringLiteral("Tensor parallel x pipeline stages x context parallel (2 x 1 x 3) must divide the 16 "
                           "GPUs (2 nodes x 8) into whole data-parallel replicas; valid values nearby: 1, 2 or 4"));

        Plan fsdp = llama8bOn16();
        fsdp.training.framework = Framework::Fsdp;
        fsdp.parallel.zeroStage = 3;
        fsdp.parallel.shardGroup = 16;
        QCOMPARE(wordsOn(fsdp, "parallel.shard_group"),
                 QStringLiteral("a shard group of all 16 data x context ranks shards over every one of them: nothing "
                                "is replicated"));

        Plan moe = test::qwen3On8B200();
        moe.training.globalBatch = 8; // one micro-batch of 1 per replica
        moe.parallel.expertCommOverlap = true;
        QCOMPARE(wordsOn(moe, "parallel.expert_comm_overlap"),
                 QStringLiteral("the all-to-all overlap runs one micro-batch's forward beside another's backward: with "
                                "one micro-batch per step it hides nothing"));
    }

    void trainingRules()
    {
        Plan plan = llama8bOn16();
        plan.training.documentLength = 10000;
        QCOMPARE(wordsOn(plan, "training.document_length"),
                 QStringLiteral("training.document_length (10000) must be at most model.seq_len (8192)"));

        Plan layers = llama8bOn16();
        layers.training.recompute = Recompute::Full;
        layers.training.recomputeInterval = 2;
        layers.training.recomputeLayers = 4;
        QCOMPARE(wordsOn(layers, "training.recompute_interval"),
                 QStringLiteral("training.recompute_interval and training.recompute_layers both choose the recomputed "
                                "layers: the interval is used"));

        Plan fp32 = llama8bOn16();
        fp32.training.precision = Precision::FP32;
        fp32.training.masterWeights = MasterFormat::Bf16;
        QCOMPARE(wordsOn(fp32, "training.master_weights"),
                 QStringLiteral("with fp32 the parameters are stored in 32 bits and are their own master copy: "
                                "training.master_weights is ignored"));

        Plan offload = test::qwen3On8B200();
        offload.parallel.offloadOptimizer = true;
        offload.training.fp8ParamGather = true;
        QCOMPARE(wordsOn(offload, "parallel.offload_optimizer"),
                 QStringLiteral("Megatron-LM offloads the optimizer with FP8 parameter gathers only under the delayed "
                                "FP8 recipe (arguments.py), not with mxfp8: turn off training.fp8_param_gather or the "
                                "offload"));
    }

    void customDeviceRules()
    {
        Plan plan = llama8bOn16();
        DeviceSpec device = *io::builtinCatalog().device("h100-sxm5-80gb");
        plan.cluster.customDevices = {device};
        QCOMPARE(wordsOn(plan, "cluster.custom_devices[0].id"),
                 QStringLiteral("\"h100-sxm5-80gb\" is a built-in device id; give the custom device its own id"));
        device.id = "my-h100";
        plan.cluster.customDevices = {device, device};
        QCOMPARE(wordsOn(plan, "cluster.custom_devices[1].id"),
                 QStringLiteral("\"my-h100\" is also the id of cluster.custom_devices[0]; each custom device needs its "
                                "own id"));
        plan.cluster.customDevices.assign(kMaxCustomDevices + 1, device);
        QCOMPARE(wordsOn(plan, "cluster.custom_devices"), QStringLiteral("at most 64 custom devices (got 65)"));
    }

    void searchRules()
    {
        QCOMPARE(io::problemText(ruleProblem(Severity::Error, {}, "search.too_many_plans_moe", {"2000000"})),
                 QStringLiteral("the search space has more than 2000000 plans; narrow the node range or fix tensor, "
                                "pipeline, micro-batch or expert"));
        QCOMPARE(io::problemText(ruleProblem(Severity::Error, {}, "search.too_slow", {"90000", "12", "8"})),
                 QStringLiteral("the search space of 90000 plans would take about 12 s on one core (at most 8 s); "
                                "narrow the node range or fix tensor, pipeline or micro-batch"));
        QCOMPARE(io::problemLine(ruleProblem(Severity::Warning, "parallel.schedule", "schedule.interleaved_one_stage")),
                 QStringLiteral("warning: parallel.schedule: the interleaved schedule with a single pipeline stage "
                                "behaves like no pipeline"));
    }

    /// Both ways: every rule id core's sources give has a sentence here, and every sentence here has a rule
    /// in core (a rule id is a literal with a dot that is not a plan key, or one of the composed rules).
    void everyRuleHasItsSentence()
    {
        const std::vector<std::string_view> worded = io::wordedRules();
        const std::set<std::string, std::less<>> known(worded.begin(), worded.end());
        std::set<std::string, std::less<>> given;
        static const QRegularExpression ruleShape(QStringLiteral("^[a-z][a-z0-9_]*\\.[a-z0-9_]+$"));
        for (const char *path : {"core/plan/PlanValidation.cpp", "core/plan/PlanKeys.cpp", "core/search/Search.cpp",
                                 "core/profile/TraceProfile.cpp", "core/plan/Plan.cpp"})
            for (const std::string &literal : literalsOf(path))
                if (QString::fromStdString(literal).contains(ruleShape) && !findPlanKey(literal))
                    given.insert(literal);
        given.insert("range"); // checkValue's, worded from its values
        for (const std::string &rule : given)
            QVERIFY2(known.count(rule), rule.c_str());
        for (const std::string_view rule : worded)
            QVERIFY2(given.count(rule), std::string(rule).c_str());
        QVERIFY(given.size() >= 70);
    }

    /// A plan whose model breaks a rule cannot be searched: the refusal names the key, as a problem line.
    void searchRefusalNamesTheKey()
    {
        Plan plan = llama8bOn16();
        plan.model.kvHeads = 3;
        const SearchOutcome o = searchPlans(plan, io::builtinCatalog(), SearchConstraints{});
        QVERIFY(!o.valid);
        QCOMPARE(io::problemLine(o.problem),
                 QStringLiteral("model.kv_heads: Key/value heads (3) must divide the attention heads (32) so query heads "
                                "group evenly; valid key/value heads nearby: 1, 2 or 4"));
    }

    /// What an edit of the experts brings along, said in the status bar.
    void editNotes()
    {
        Plan plan = llama8bOn16();
        plan.model.experts = 8;
        std::optional<Problem> note = completeEdit(plan, "model.experts");
        QVERIFY(note);
        QCOMPARE(plan.model.expertsPerToken, std::int64_t(2));
        QCOMPARE(io::problemText(*note), QStringLiteral("experts per token set to 2 (top-2 routing, as Mixtral routes): "
                                                        "a mixture of experts needs each token routed to at least one"));
        plan.model.experts = 0;
        note = completeEdit(plan, "model.experts");
        QVERIFY(note);
        QCOMPARE(plan.model.expertsPerToken, std::int64_t(0));
        QCOMPARE(io::problemText(*note), QStringLiteral("experts per token set to 0: a dense model routes no tokens"));
        QVERIFY(!completeEdit(plan, "model.layers"));
    }

    /// The diagnostic map's interventions: core gives ids, io/output/Evidence their labels.
    void everyInterventionHasItsLabel()
    {
        const std::vector<std::string> ids = interventionIds();
        QCOMPARE(ids.size(), std::size_t(28));
        for (const std::string &id : ids)
            QVERIFY2(io::interventionLabel(id) != QString::fromStdString(id), id.c_str());
        QCOMPARE(io::interventionLabel("interleave_the_pipeline_v2"), QStringLiteral("Interleave the pipeline (v = 2)"));
    }

    void wordsAreTranslatable()
    {
        Plan plan = test::qwen3On8B200();
        plan.parallel.expert = 3;
        plan.parallel.data = 8;
        QCOMPARE(wordsOn(plan, "parallel.expert"),
                 QStringLiteral("Expert parallel (3) must divide model.experts (128): each rank holds whole experts; "
                                "valid values nearby: 1, 2 or 4"));
        ProblemTranslator german;
        QVERIFY(QCoreApplication::installTranslator(&german));
        const QString translated = wordsOn(plan, "parallel.expert");
        QCoreApplication::removeTranslator(&german);
        QCOMPARE(translated,
                 QStringLiteral("Expertenparallelität (3) muss model.experts (128) teilen; gültige values in "
                                "der Nähe: 1, 2 or 4"));
    }
};

TRAINPLAN_TEST_GUILESS_MAIN(TestProblemWords)
#include "tst_problemwords.moc"
