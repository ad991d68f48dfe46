// Context parallelism (parallel.context, parallel.context_comm; Megatron-Core's context parallelism):
// the GPU rule data x tensor x pipeline x context, sequences split into 2 x context chunks, each rank's
// activations and FLOPs a 1/context share, the ring's KV transfers hidden behind attention blocks until a
// block computes faster than its transfer moves, gradients reduced over data x context, and the rank order
// tensor, context, data, pipeline. Expected values follow from the shapes, not from the program.

#include <QTest>

#include <algorithm>

#include "core/cluster/Topology.h"
#include "core/estimate/Estimate.h"
#include "core/search/Search.h"
#include "io/plan/CatalogJson.h"
#include "io/plan/PlanJson.h"
#include "TestMain.h"
#include "TestSupport.h"

using namespace trainplan;

namespace {

/// Llama 3.1 8B with `seq` tokens per sequence on 16 H100s: tensor 1, pipeline 1, `context` ranks per
/// sequence, the rest data parallel; flash attention and the distributed optimizer (ZeRO-1), as every
/// long-context recipe runs them.
Plan llama8b(std::int64_t seq, std::int64_t context, ContextComm comm = ContextComm::Ring)
{
    Plan plan = test::presetPlan("llama3.1-8b", 1, 1, 16 / context, 1, 16, "h100-sxm5-80gb");
    plan.model.seqLen = seq;
    plan.parallel.context = context;
    plan.parallel.contextComm = comm;
    plan.training.flashAttention = true;
    plan.training.recompute = Recompute::Selective;
    plan.parallel.zeroStage = 1;
    plan.cluster.gpusPerNode = 8;
    plan.cluster.nodes = 2;
    return plan;
}

/// FLOPs of the forward op of that name.
double flopsOf(const Estimate &e, const char *name)
{
    for (const Op &op : e.step.ops)
        if (std::string(op.name) == name && op.pass == OpPass::Forward)
            return op.flops;
    return 0.0;
}

using test::errorOn;

} // namespace

class TestContextParallel : public QObject
{
    Q_OBJECT

private slots:
    void gpuRuleAndSequenceSplit()
    {
        const Catalog &catalog = io::builtinCatalog();
        QVERIFY(estimate(llama8b(65536, 4), catalog).valid);
        // 4 x 4 = 16 GPUs; data 8 would need 32.
        Plan wrong = llama8b(65536, 4);
        wrong.parallel.data = 8;
        const Estimate e = estimate(wrong, catalog);
        QVERIFY(errorOn(e, "parallel.data"));
        QCOMPARE(QString::fromStdString(io::problemMessage(*errorOn(e, "parallel.data"))),
                 QStringLiteral("Data parallel must be GPUs / (tensor x pipeline x context) = 16 / (1 x 1 x 4) = 4 (got 8)"));
        // 2 x 4 = 8 chunks must divide the sequence.
        Plan odd = llama8b(65536 + 4, 4);
        const Estimate oddE = estimate(odd, catalog);
        QVERIFY(errorOn(oddE, "parallel.context"));
        QVERIFY(io::problemMessage(*errorOn(oddE, "parallel.context")).find("divisible by 2 x context = 8") != std::string::npos);
        // All-to-all needs whole heads per rank: Llama 3.1 8B has 8 key/value heads, so context 16 cannot.
        Plan ulysses = llama8b(65536, 16, ContextComm::AllToAll);
        QVERIFY(errorOn(estimate(ulysses, catalog), "parallel.context_comm"));
        QVERIFY(estimate(llama8b(65536, 8, ContextComm::AllToAll), catalog).valid);
    }

    void rankOrderPutsContextBetweenTensorAndData()
    {
        // Megatron-Core's order tp-cp-dp-pp: with tensor 2, context 2, data 2, pipeline 2 on 16 ranks, rank 2
        // is tensor rank 0 of context rank 1; rank 4 starts the next data replica; rank 8 the next stage.
        ParallelConfig par;
        par.tensor = 2;
        par.context = 2;
        par.data = 2;
        par.pipeline = 2;
        const RankCoordinates r2 = coordinatesOf(par, 2), r4 = coordinatesOf(par, 4), r8 = coordinatesOf(par, 8);
        QCOMPARE(r2.tensor, 0);
        QCOMPARE(r2.context, 1);
        QCOMPARE(r2.data, 0);
        QCOMPARE(r4.context, 0);
        QCOMPARE(r4.data, 1);
        QCOMPARE(r8.stage, 1);
        // On nodes of 8: a context group (ranks t apart) stays in a node; the gradient group joins data x
        // context = 4 ranks; on nodes of 2 the context group crosses nodes.
        QCOMPARE(contextGroupSpan(par, 8).size, 2);
        QVERIFY(!contextGroupSpan(par, 8).crossesNodes());
        QCOMPARE(dataGroupSpan(par, 8).size, 4);
        QVERIFY(contextGroupSpan(par, 2).crossesNodes());
    }

    void activationsAndWorkSplitByContext()
    {
        const Catalog &catalog = io::builtinCatalog();
        const Estimate one = estimate(llama8b(32768, 1), catalog);
        const Estimate four = estimate(llama8b(32768, 4), catalog);
        QVERIFY(one.valid && four.valid);
        // Each rank holds 1/4 of every sequence: the layers' stored activations are a quarter.
        QCOMPARE(four.memory.stages[0].activations.layerBytes, one.memory.stages[0].activations.layerBytes / 4.0);
        // The model's FLOPs per step do not depend on the layout.
        QCOMPARE(four.step.modelFlopsPerStep, one.step.modelFlopsPerStep);
        // The ring's KV buffers: 4 x 2 bytes x 8192 tokens x 1 x 2 x 1024 (8 KV heads x 128) = 256 MiB.
        QCOMPARE(four.memory.stages[0].other[std::size_t(OtherTerm::ContextKvBuffers)], 4.0 * 2.0 * 8192.0 * 2.0 * 1024.0);
        QCOMPARE(one.memory.stages[0].other[std::size_t(OtherTerm::ContextKvBuffers)], 0.0);
        // The QKV projection on one rank multiplies s/c tokens: a quarter of the FLOPs.
        QCOMPARE(flopsOf(four, "QKV projection"), flopsOf(one, "QKV projection") / 4.0);
        QCOMPARE(flopsOf(four, "flash attention"), flopsOf(one, "flash attention") / 4.0);
    }

    void ringHidesTransfersBehindAttentionUntilBlocksGetSmall()
    {
        const Catalog &catalog = io::builtinCatalog();
        // 128K tokens on NVLink: an attention block of 32K queries x 32K keys takes far longer than moving
        // 32K tokens' K and V (2 x 2 bytes x 32768 x 1024 = 128 MiB at hundreds of GB/s): nothing exposed.
        const Estimate hidden = estimate(llama8b(131072, 4), catalog);
        QVERIFY(hidden.valid);
        QCOMPARE(hidden.step.category(TimeCategory::ContextComm), 0.0);
        // The same ring over a 1 GB/s link: each 128 MiB transfer outlasts its block, and the rest shows.
        Plan slow = llama8b(131072, 4);
        slow.cluster.overrides.intraNodeBandwidthBytesPerSecond = 1e9;
        const Estimate exposed = estimate(slow, catalog);
        QVERIFY(exposed.step.category(TimeCategory::ContextComm) > 0.0);
        // All-gather is never overlapped: its time is always exposed.
        const Estimate gathered = estimate(llama8b(131072, 4, ContextComm::AllGather), catalog);
        QVERIFY(gathered.step.category(TimeCategory::ContextComm) > 0.0);
        // The breakdown still adds up to the step.
        double sum = 0;
        for (double s : exposed.step.breakdown)
            sum += s;
        QVERIFY(qAbs(sum - exposed.step.stepSeconds) < 1e-9 * exposed.step.stepSeconds);
    }

    void contextBeatsDataParallelOnLongSequences()
    {
        // 128K tokens do not fit one H100 with data parallelism alone, even with full recomputation: the
        // layer inputs alone are 32 x 2 x 131072 x 4096 x 2 bytes = 69 GB beside 38 GB of model state;
        // context 8 keeps 16K tokens per rank and fits.
        const Catalog &catalog = io::builtinCatalog();
        Plan one = llama8b(131072, 1), eight = llama8b(131072, 8);
        one.training.recompute = eight.training.recompute = Recompute::Full;
        QVERIFY(!estimate(one, catalog).memory.fits);
        QVERIFY(estimate(eight, catalog).memory.fits);
    }

    void planFileRoundTrips()
    {
        const Catalog &catalog = io::builtinCatalog();
        Plan plan = llama8b(65536, 4, ContextComm::AllGather);
        const QByteArray json = io::writePlan(plan, catalog);
        QVERIFY(json.contains("\"context\": 4"));
        QVERIFY(json.contains("\"context_comm\": \"all-gather\""));
        const io::PlanReadResult back = io::readPlan(json, catalog);
        QVERIFY(back.plan.has_value());
        QCOMPARE(back.plan->parallel.context, 4);
        QVERIFY(back.plan->parallel.contextComm == ContextComm::AllGather);
        QCOMPARE(io::writePlan(*back.plan, catalog), json);
        // An unknown exchange is refused with the choices.
        QByteArray bad = json;
        bad.replace("\"all-gather\"", "\"ring-attention\"");
        const io::PlanReadResult refused = io::readPlan(bad, catalog);
        QVERIFY(!refused.plan.has_value());
    }

    // Megatron-Core's overlap options: with tensor_comm_overlap the tensor-parallel collectives hide behind
    // the GEMMs they feed, leaving the documented 15% interference when the GEMMs are the longer; it needs
    // sequence parallelism. Without it the forward's all-gathers and reduce-scatters and the backward's
    // output-gradient all-gathers are exposed, and the backward's column-parallel all-gather and
    // reduce-scatter already run beside their GEMMs: with c one collective, a layer's plain 4c + 2c + 0.15 x
    // 4c against 0.15 x 10c overlapped, 0.227; the embedding's and output layer's passes 0.15 (so a little
    // lower). overlap_param_gather moves the parameter all-gather into the next forward.
    void overlapOptionsHideCommunication()
    {
        const Catalog &catalog = io::builtinCatalog();
        Plan plan = test::presetPlan("nemotron4-15b", 4, 1, 16, 4, 256, "h100-sxm5-80gb");
        plan.training.sequenceParallel = true;
        plan.training.flashAttention = true;
        plan.parallel.zeroStage = 1;
        const Estimate plain = estimate(plan, catalog);
        plan.parallel.tensorCommOverlap = true;
        const Estimate overlapped = estimate(plan, catalog);
        QVERIFY(plain.step.category(TimeCategory::TensorComm) > 0);
        const double ratio = overlapped.step.category(TimeCategory::TensorComm) / plain.step.category(TimeCategory::TensorComm);
        QVERIFY2(ratio > 0.21 && ratio < 0.2273, qPrintable(QString::number(ratio)));
        plan.parallel.overlapParamGather = true;
        QVERIFY(estimate(plan, catalog).step.category(TimeCategory::DataComm) < overlapped.step.category(TimeCategory::DataComm));
        plan.training.sequenceParallel = false;
        QVERIFY(errorOn(estimate(plan, catalog), "parallel.tensor_comm_overlap"));
    }

    void searchTriesContextOnLongSequences()
    {
        const Catalog &catalog = io::builtinCatalog();
        SearchConstraints c;
        c.threads = 1;
        const SearchOutcome longSeq = searchPlans(llama8b(131072, 1), catalog, c);
        QVERIFY(longSeq.valid);
        QVERIFY(!longSeq.top.empty());
        QVERIFY(longSeq.top.front().score.config.context > 1); // nothing fits without it
        // Short sequences are not split: 2K tokens try context 1 alone.
        for (const SearchConfig &config : enumerateConfigs(test::presetPlan("gpt3-175b", 8, 8, 8, 1, 1536), c))
            QCOMPARE(config.context, 1);
    }

    void packedDocumentsShortenAttention()
    {
        // Packed sequences of 8,192 tokens holding documents of 512: each query attends within its
        // document, so flash attention does s x L / 2 of the causal work instead of s^2 / 2 (1/16 of it);
        // the projections and MLP are unchanged.
        const Catalog &catalog = io::builtinCatalog();
        const Plan whole = llama8b(8192, 1);
        Plan packed = whole;
        packed.training.documentLength = 512;
        const Estimate a = estimate(whole, catalog), b = estimate(packed, catalog);
        QVERIFY(a.valid && b.valid);
        QCOMPARE(flopsOf(b, "flash attention"), flopsOf(a, "flash attention") / 16.0);
        QCOMPARE(flopsOf(b, "QKV projection"), flopsOf(a, "QKV projection"));
        QVERIFY(b.step.stepSeconds < a.step.stepSeconds);
        // Longer than the sequence: an error naming both; without flash attention: a warning, no change.
        Plan tooLong = whole;
        tooLong.training.documentLength = 8193;
        std::optional<Problem> p = errorOn(estimate(tooLong, catalog), "training.document_length");
        QVERIFY(p);
        QVERIFY2(io::problemMessage(*p).find("at most model.seq_len (8192)") != std::string::npos, io::problemMessage(*p).c_str());
        Plan unfused = packed;
        unfused.training.flashAttention = false;
        Plan unfusedWhole = whole;
        unfusedWhole.training.flashAttention = false;
        const Estimate c = estimate(unfused, catalog);
        QVERIFY(c.valid);
        QCOMPARE(c.step.stepSeconds, estimate(unfusedWhole, catalog).step.stepSeconds);
        QVERIFY(std::any_of(c.problems.begin(), c.problems.end(), [](const Problem &q) { return q.key == "training.document_length"; }));
    }
};

TRAINPLAN_TEST_GUILESS_MAIN(TestContextParallel)
#include "tst_contextparallel.moc"
