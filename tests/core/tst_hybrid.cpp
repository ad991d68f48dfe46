// Hybrid Mamba-Transformer models (model.hybrid_pattern): Megatron-Core's MambaModel, one block per layer. A pattern
// of attention and MLP blocks in pairs is a transformer written block by block, so every figure of the estimate must
// come out as the transformer's; the Mamba-2 block's work is checked against Megatron-Core's mixer and Dao & Gu's
// chunked SSD algorithm; validation names each rule the planner cannot model yet.

#include <QTest>

#include <algorithm>
#include <cmath>
#include <string>

#include "TestMain.h"
#include "TestSupport.h"
#include "core/compute/LayerOps.h"
#include "core/estimate/Estimate.h"
#include "core/memory/ActivationMemory.h"
#include "core/memory/MemoryModel.h"
#include "core/plan/PlanValidation.h"

using namespace trainplan;

namespace {

Estimate run(const Plan &plan)
{
    return estimate(plan, io::builtinCatalog(), EstimateOptions::analytic());
}

/// `plan`'s model written as a hybrid pattern: each transformer layer an attention block ('*') followed by its MLP
/// block ('E' where the layer routes to experts, '-' otherwise).
Plan asPattern(Plan plan)
{
    std::string pattern;
    for (std::int64_t l = 0; l < plan.model.layers; ++l)
        pattern += plan.model.isMoeLayer(l) ? "*E" : "*-";
    plan.model.layers *= 2;
    plan.model.hybridPattern = pattern;
    plan.model.denseLayers = 0;
    plan.model.moeLayerInterval = 1;
    return plan;
}

bool close(double a, double b, double relative = 1e-9)
{
    return std::abs(a - b) <= relative * std::max(std::abs(a), std::abs(b));
}

/// A Megatron-Bridge recipe on GB300 (NVL72, 4 GPUs a tray): MXFP8, flash attention, expert = data ranks behind
/// HybridEP, the distributed optimizer, one NVLink domain over all the GPUs.
Plan gb300Recipe(const char *preset, std::int64_t gpus, std::int64_t microBatch)
{
    Plan plan = test::presetPlan(preset, 1, 1, gpus, microBatch, 512, "gb300");
    plan.training.precision = Precision::MXFP8;
    plan.training.flashAttention = true;
    plan.parallel.expert = gpus;
    plan.parallel.expertDispatcher = ExpertDispatcher::HybridEp;
    plan.parallel.zeroStage = 1;
    plan.cluster.gpusPerNode = 4;
    plan.cluster.nodes = gpus / 4;
    plan.cluster.scaleUpDomain = gpus;
    return plan;
}

/// Nemotron 3 Nano on 8 GB300 as Megatron-Bridge's recipe runs it (26.06: micro-batch 4, expert 8,
/// scripts/performance/configs/nemotronh/nemotron_3_workload_base_configs.py at v0.5.0).
Plan nanoOnGb300() { return gb300Recipe("nemotron-3-nano-30b-a3b", 8, 4); }

/// Nemotron 3 Super on 64 GB300 as Megatron-Bridge 26.08's MXFP8 recipe runs it (src/megatron/bridge/perf_recipes/
/// nemotronh/gb300/nemotronh.py at v0.6.0: tensor 1, expert 64, micro-batch 1, 512 sequences).
Plan superOnGb300() { return gb300Recipe("nemotron-3-super-120b-a12b", 64, 1); }

} // namespace

class TestHybrid : public QObject
{
    Q_OBJECT
private slots:
    void transformerIsItsPattern_data();
    void transformerIsItsPattern();
    void stagesSplitThePattern();
    void mambaBlockDoesItsKernelsWork();
    void fullRecomputationKeepsEachBlockInput();
    void patternRules();
    void nanoRecipeFits();
    void latentMoeRoutesLatentRows();
    void latentAndRepeatedMtpRules();
    void bf16LayersRunOutsideTheLowPrecisionRecipe();
    void bf16ModulesRunOutsideTheLowPrecisionRecipe();
};

void TestHybrid::transformerIsItsPattern_data()
{
    QTest::addColumn<QString>("preset");
    QTest::addColumn<QString>("recompute");
    QTest::addColumn<int>("tensor");
    QTest::newRow("llama3-8b, no recompute") << "llama3-8b" << "none" << 1;
    QTest::newRow("llama3-8b, tensor 2, selective") << "llama3-8b" << "selective" << 2;
    QTest::newRow("llama3-8b, full") << "llama3-8b" << "full" << 1;
    QTest::newRow("qwen3-30b-a3b, expert 8") << "qwen3-30b-a3b" << "selective" << 1;
    QTest::newRow("mixtral-8x7b, tensor 2, full") << "mixtral-8x7b" << "full" << 2;
}

/// A transformer's layer is an attention block and an MLP block, each with its norm and residual: the pattern
/// "*-*-..." ("*E" for MoE layers) is the same model, and the estimate (parameters, FLOPs, step, memory) the same.
void TestHybrid::transformerIsItsPattern()
{
    QFETCH(QString, preset);
    QFETCH(QString, recompute);
    QFETCH(int, tensor);
    Plan plan = test::presetPlan(preset.toLatin1().constData(), tensor, 1, 8 / tensor, 1, 64, "h100-sxm5-80gb");
    plan.model.seqLen = 2048;
    plan.training.flashAttention = true;
    plan.training.sequenceParallel = tensor > 1;
    plan.training.recompute = *fromString<Recompute>(recompute.toStdString());
    if (plan.model.isMoe()) {
        plan.parallel.expert = 8 / tensor;
        plan.training.precision = Precision::FP8;
    }
    const Plan hybrid = asPattern(plan);
    const Problems problems = validatePlan(hybrid, io::builtinCatalog());
    const Problem *error = firstError(problems);
    QVERIFY2(!error, error ? error->rule.c_str() : "");
    QCOMPARE(totalParameters(hybrid.model), totalParameters(plan.model));
    QCOMPARE(activeParameters(hybrid.model), activeParameters(plan.model));
    const Estimate a = run(plan), b = run(hybrid);
    QVERIFY(a.valid && b.valid);
    // The pattern's "per layer" is the mean over its blocks: half a dense transformer layer, two blocks to a layer.
    QVERIFY(close(b.model.parametersPerLayer * double(hybrid.model.layers),
                  layersParameters(plan.model, 0, plan.model.layers).total()));
    if (!plan.model.isMoe())
        QVERIFY(close(2.0 * b.model.parametersPerLayer, a.model.parametersPerLayer));
    QVERIFY2(close(b.step.modelFlopsPerStep, a.step.modelFlopsPerStep),
             qPrintable(QStringLiteral("%1 vs %2").arg(b.step.modelFlopsPerStep).arg(a.step.modelFlopsPerStep)));
    QVERIFY2(close(b.step.stepSeconds, a.step.stepSeconds),
             qPrintable(QStringLiteral("%1 s vs %2 s").arg(b.step.stepSeconds).arg(a.step.stepSeconds)));
    QVERIFY2(close(b.step.breakdown[std::size_t(TimeCategory::TensorComm)],
                   a.step.breakdown[std::size_t(TimeCategory::TensorComm)]),
             "the tensor-parallel collectives: one pair per block, two per layer");
    // Full recomputation checkpoints every layer's input, and each of Megatron-Core's hybrid layers is one block:
    // the pattern keeps two inputs where the transformer keeps one.
    const double inputs = plan.training.recompute == Recompute::Full ? 2.0 : 1.0;
    const double layerBytes = a.memory.stages[0].activations.layerBytes;
    QVERIFY2(close(b.memory.stages[0].activations.layerBytes, inputs * layerBytes),
             qPrintable(QStringLiteral("%1 vs %2").arg(b.memory.stages[0].activations.layerBytes).arg(layerBytes)));
    // The peak alike but for those inputs (a full replay works on one block at a time where the transformer replays
    // a whole layer: at most that much less).
    const double extra = (inputs - 1.0) * layerBytes,
                 replay = a.memory.stages[0].other[std::size_t(OtherTerm::RecomputeWorkspace)];
    QVERIFY2(b.memory.peakBytes <= a.memory.peakBytes + extra + 1e-9 * a.memory.peakBytes &&
                 b.memory.peakBytes >= a.memory.peakBytes - replay - 1e-9 * a.memory.peakBytes,
             qPrintable(QStringLiteral("%1 vs %2").arg(b.memory.peakBytes).arg(a.memory.peakBytes)));
}

/// Pipeline stages take consecutive layers; each stage's blocks are the pattern's symbols over its layers.
void TestHybrid::stagesSplitThePattern()
{
    Plan plan = test::presetPlan("nemotron-3-nano-30b-a3b", 1, 4, 2, 1, 64, "h100-sxm5-80gb");
    plan.parallel.expert = 2;
    const std::string &pattern = plan.model.hybridPattern;
    ModelSpec::BlockCounts total;
    for (std::int64_t s = 0; s < 4; ++s) {
        const ModelSpec::BlockCounts b = plan.blocksOnStage(s);
        const std::string part =
            pattern.substr(std::size_t(plan.firstLayerOfStage(s)), std::size_t(plan.layersOnStage(s)));
        QCOMPARE(b.mamba, std::int64_t(std::count(part.begin(), part.end(), 'M')));
        QCOMPARE(b.attention, std::int64_t(std::count(part.begin(), part.end(), '*')));
        QCOMPARE(b.moeMlp, std::int64_t(std::count(part.begin(), part.end(), 'E')));
        QCOMPARE(plan.moeLayersOnStage(s), b.moeMlp);
        total.mamba += b.mamba;
        total.attention += b.attention;
        total.moeMlp += b.moeMlp;
    }
    // "MEMEM*EMEMEM*" is the first stage's 13 layers: 6 Mamba, 5 MoE, 2 attention.
    QCOMPARE(plan.blocksOnStage(0).mamba, std::int64_t(6));
    QCOMPARE(plan.blocksOnStage(0).moeMlp, std::int64_t(5));
    QCOMPARE(total.mamba, std::int64_t(23));
    QCOMPARE(total.attention, std::int64_t(6));
    QCOMPARE(total.moeMlp, std::int64_t(23));
}

/// Gu 2024, Sec. 6: the in-projection [tokens x h] x [h x (2 d_inner + 2 g N + heads)], the out-projection
/// [tokens x d_inner] x [d_inner x h], and the SSD scan in chunks of Q = 128 as mamba_ssm runs it kernel by kernel
/// (ops/triton/ssd_combined.py, state-spaces/mamba e9594ce): the kernel-4 convolution over x, B and C; each chunk's
/// state ([P x Q] x [Q x N] per head, 2 N P per token and head, written in FP32); the state passing (FP32 states
/// read, 16-bit states written); C B^T per group (2 Q N per token); the chunk scan (the causal product with x, half
/// of 2 Q P, and C times the states, 2 N P). Nemotron-H 8B at tensor 2: h 4096, d_inner 8192, 8 groups of state
/// 128, 128 heads of 64, 4,096 tokens.
void TestHybrid::mambaBlockDoesItsKernelsWork()
{
    Plan plan = test::presetPlan("nemotron-h-8b", 2, 1, 1, 1, 8, "h100-sxm5-80gb");
    plan.model.seqLen = 4096;
    plan.training.flashAttention = true;
    plan.training.sequenceParallel = true;
    const Estimate e = run(plan);
    QVERIFY(e.valid);
    const double tokens = 4096, h = 4096, t = 2, inner = 8192, N = 128, P = 64, Q = 128, groups = 8, heads = 128;
    const Op *in = test::findOp(e, "Mamba in-projection", OpPass::Forward);
    const Op *out = test::findOp(e, "Mamba out-projection", OpPass::Forward);
    const Op *conv = test::findOp(e, "Mamba conv1d", OpPass::Forward);
    const Op *state = test::findOp(e, "SSD chunk state", OpPass::Forward);
    const Op *passing = test::findOp(e, "SSD state passing", OpPass::Forward);
    const Op *cb = test::findOp(e, "SSD C B^T", OpPass::Forward);
    const Op *scan = test::findOp(e, "SSD chunk scan", OpPass::Forward);
    QVERIFY(in && out && conv && state && passing && cb && scan);
    QCOMPARE(in->flops, 2 * tokens * h * (2 * inner + 2 * groups * N + heads) / t);
    QCOMPARE(out->flops, 2 * tokens * inner / t * h);
    QCOMPARE(conv->flops, 2 * 4 * tokens * (inner + 2 * groups * N) / t);
    QCOMPARE(state->flops, 2 * tokens * heads / t * P * N);
    QCOMPARE(cb->flops, 2 * tokens * Q * groups / t * N);
    QCOMPARE(scan->flops, tokens * heads / t * P * Q + 2 * tokens * heads / t * P * N);
    const double states = tokens / Q * heads / t * P * N;
    QCOMPARE(passing->bytes, (4.0 + 2.0) * states);
    QCOMPARE(state->memoryBound, true); // the FP32 states it writes outweigh its FLOPs on an H100
    // Its backward: the input and weight gradients of each projection; the scan's kernels replay the forward's
    // (convolution, states, C B^T) before their own, so its backward moves more than twice the forward's bytes.
    QVERIFY(test::findOp(e, "Mamba in-projection", OpPass::Backward));
    double forwardBytes = 0, backwardBytes = 0;
    for (const char *name : {"Mamba conv1d", "SSD chunk state", "SSD state passing", "SSD C B^T", "SSD chunk scan"}) {
        forwardBytes += test::findOp(e, name, OpPass::Forward)->bytes;
        backwardBytes += test::findOp(e, name, OpPass::Backward)->bytes;
    }
    QVERIFY2(backwardBytes > 2.5 * forwardBytes && backwardBytes < 4.0 * forwardBytes,
             qPrintable(QString::number(backwardBytes / forwardBytes)));
    QCOMPARE(test::findOp(e, "SSD chunk scan", OpPass::Backward)->flops,
             6 * tokens * heads / t * P * N + 2 * tokens * heads / t * P * Q);
    // The layout copies around the scan (rearrange to batch-first and back, .contiguous()) copy nothing for one
    // sequence a micro-batch, whose permuted view is already contiguous; for two they copy the in-projection's
    // output and the scan's output, each read and written.
    QVERIFY(!test::findOp(e, "Mamba layout copies", OpPass::Forward));
    Plan two = plan;
    two.training.microBatch = 2;
    const Estimate e2 = run(two);
    const Op *copies = test::findOp(e2, "Mamba layout copies", OpPass::Forward);
    QVERIFY(copies);
    QCOMPARE(copies->bytes, 2.0 * 2.0 * 2 * tokens * (2 * inner + 2 * groups * N + heads + inner) / t);
    // The model's FLOPs (3x the forward's, 8 sequences) count 24 Mamba blocks, the masked product whole (2 Q P per
    // token and head): written as dense MLP blocks of 21,504 (two matmuls, squared ReLU) instead, the step's model
    // FLOPs drop by the difference of the two blocks' whole work.
    Plan noMamba = plan;
    std::replace(noMamba.model.hybridPattern.begin(), noMamba.model.hybridPattern.end(), 'M', '-');
    const double perToken = 2 * 4 * (inner + 2 * groups * N) + groups * 2 * Q * N + heads * (2 * Q * P + 4 * N * P);
    const double mamba = t * (in->flops + out->flops) + tokens * perToken; // one block, whole model, one sequence
    const double mlp = 2.0 * 2.0 * tokens * h * 21504.0;
    QVERIFY2(
        close(e.step.modelFlopsPerStep - run(noMamba).step.modelFlopsPerStep, 3.0 * 8.0 * 24.0 * (mamba - mlp), 1e-6),
        qPrintable(QStringLiteral("%1 vs %2")
                       .arg(e.step.modelFlopsPerStep - run(noMamba).step.modelFlopsPerStep)
                       .arg(3.0 * 8.0 * 24.0 * (mamba - mlp))));
}

/// Megatron-Core's full recomputation checkpoints every layer's input: one h-wide tensor per block and micro-batch.
void TestHybrid::fullRecomputationKeepsEachBlockInput()
{
    Plan plan = nanoOnGb300();
    plan.training.recompute = Recompute::Full;
    const Estimate e = run(plan);
    QVERIFY(e.valid);
    const double q = 2.0, tokens = 8192.0 * 4.0, h = 2688.0;
    QCOMPARE(e.memory.stages[0].activations.layerBytes, 52.0 * q * tokens * h);
    // Selective keeps more: the Mamba block its projections' inputs and outputs, the MoE block its routed copies.
    plan.training.recompute = Recompute::Selective;
    QVERIFY(run(plan).memory.stages[0].activations.layerBytes > e.memory.stages[0].activations.layerBytes * 4);
}

void TestHybrid::patternRules()
{
    const Plan nano = nanoOnGb300();
    QVERIFY2(!firstError(validatePlan(nano, io::builtinCatalog())), "the recipe's layout is a valid plan");
    Plan p = nano;
    p.model.hybridPattern[3] = 'X';
    QCOMPARE(test::errorRules(p, "model.hybrid_pattern"), std::vector<std::string>{"hybrid_pattern.symbols"});
    QVERIFY(test::hasProblem(validatePlan(p, io::builtinCatalog()), "model.hybrid_pattern", "\"X\" at position 4"));
    p.model.hybridPattern = "ME\xC3\x89" + nano.model.hybridPattern.substr(3); // a typed "É": named whole
    QVERIFY(
        test::hasProblem(validatePlan(p, io::builtinCatalog()), "model.hybrid_pattern", "\"\xC3\x89\" at position 3"));
    p = nano;
    p.model.layers = 48;
    QCOMPARE(test::errorRules(p, "model.hybrid_pattern"), std::vector<std::string>{"hybrid_pattern.length"});
    p = nano;
    p.model.experts = 0;
    p.parallel.expert = 1;
    QCOMPARE(test::errorRules(p, "model.hybrid_pattern"), std::vector<std::string>{"hybrid_pattern.needs_experts"});
    p = nano;
    std::replace(p.model.hybridPattern.begin(), p.model.hybridPattern.end(), 'E', '-');
    QCOMPARE(test::errorRules(p, "model.experts"), std::vector<std::string>{"hybrid_pattern.experts_unplaced"});
    p = nano;
    p.training.framework = Framework::Fsdp;
    QVERIFY(!test::errorRules(p, "training.framework").empty());
    QCOMPARE(test::errorRules(p, "training.framework").front(), "hybrid_pattern.framework");
    p = nano;
    p.parallel.expertCommOverlap = true; // only GPTModel builds the overlapped schedule's plan
    QCOMPARE(test::errorRules(p, "parallel.expert_comm_overlap"),
             std::vector<std::string>{"expert_comm_overlap.hybrid"});
    p = nano;
    p.parallel.zeroStage = 3;
    QCOMPARE(test::errorRules(p, "parallel.zero_stage"), std::vector<std::string>{"hybrid_pattern.zero3"});
    p = nano;
    p.model.mambaGroups = 6; // 64 heads in 6 groups
    QCOMPARE(test::errorRules(p, "model.mamba_groups"), std::vector<std::string>{"mamba_groups.divide_heads"});
    p = nano;
    p.parallel.tensor = 16; // 8 groups cannot split 16 ways
    p.parallel.data = 1;
    p.cluster.nodes = 4;
    QVERIFY(std::find(test::errorRules(p, "parallel.tensor").begin(), test::errorRules(p, "parallel.tensor").end(),
                      "mamba.tensor") != test::errorRules(p, "parallel.tensor").end());
}

/// The recipe's layout runs on 8 GB300 (NVIDIA measured it, Megatron-Bridge 26.06): it fits, and the step has every
/// kind of block's time.
void TestHybrid::nanoRecipeFits()
{
    const Estimate e = run(nanoOnGb300());
    QVERIFY(e.valid);
    QVERIFY2(e.memory.fits, qPrintable(QString::number(e.memory.peakBytes / units::GiB)));
    QVERIFY(test::findOp(e, "SSD chunk scan", OpPass::Forward));
    QVERIFY(test::findOp(e, "expert up (grouped)", OpPass::Forward));
    QVERIFY(test::findOp(e, "flash attention", OpPass::Forward));
}

/// A latent MoE (Megatron-Core moe_layer.py: fc1_latent_proj before the dispatcher, fc2_latent_proj after the
/// combine) moves and computes latent-wide rows: the dispatch's bytes and the routed experts' GEMMs scale with the
/// latent width, the router and the shared experts do not, and the two projections are GEMMs of their own.
void TestHybrid::latentMoeRoutesLatentRows()
{
    const Plan latent = superOnGb300();
    Plan wide = latent;
    wide.model.moeLatentSize = 0; // the same experts on the hidden width
    const Estimate a = run(latent), b = run(wide);
    QVERIFY(a.valid && b.valid);
    const auto expert = std::size_t(FloorKind::Expert);
    QVERIFY(close(a.step.floor.bytes[expert].received, b.step.floor.bytes[expert].received * 1024.0 / 4096.0));
    const Op *up = test::findOp(a, "expert up (grouped)", OpPass::Forward);
    const Op *upWide = test::findOp(b, "expert up (grouped)", OpPass::Forward);
    QVERIFY(up && upWide);
    QVERIFY(close(up->flops, upWide->flops / 4.0));
    const Op *router = test::findOp(a, "router", OpPass::Forward),
             *routerWide = test::findOp(b, "router", OpPass::Forward);
    const Op *shared = test::findOp(a, "shared expert up", OpPass::Forward);
    const Op *sharedWide = test::findOp(b, "shared expert up", OpPass::Forward);
    QVERIFY(router && routerWide && shared && sharedWide);
    QCOMPARE(router->flops, routerWide->flops);
    QCOMPARE(shared->flops, sharedWide->flops);
    // Each projection: 8,192 tokens x 4,096 x 1,024, twice the FLOPs of the multiply-adds.
    const Op *down = test::findOp(a, "latent down projection", OpPass::Forward);
    const Op *back = test::findOp(a, "latent up projection", OpPass::Forward);
    QVERIFY(down && back && !test::findOp(b, "latent down projection", OpPass::Forward));
    QCOMPARE(down->flops, 2.0 * 8192 * 4096 * 1024);
    QCOMPARE(back->flops, down->flops);
    // Model FLOPs as Megatron-Bridge counts a latent MoE layer (training/utils/flop_utils.py, moe_latent_size: the
    // routed experts on the latent width, 4 b s h latent for the two projections): per token and MoE layer,
    // forward, 2 h E (router) + 2 x 2 x 2 h 2688 (shared) + 22 x 2 x 2 latent 2688 + 4 h latent.
    const double h = 4096, l = 1024, perToken = 2 * h * 512 + 8 * h * 2688 + 22 * 4 * l * 2688 + 4 * h * l;
    const double moeFlops = modelForwardFlopsPerSequence(latent.model) - modelForwardFlopsPerSequence(wide.model);
    const double wideMoe = 2 * h * 512 + 8 * h * 2688 + 22 * 4 * h * 2688;
    QVERIFY(close(moeFlops, (40.0 + 2.0) * 8192 * (perToken - wideMoe))); // 40 MoE layers and 2 MTP depths
    QVERIFY2(a.memory.fits, qPrintable(QString::number(a.memory.peakBytes / units::GiB)));
    QVERIFY(a.step.stepSeconds < b.step.stepSeconds);
}

/// The latent width and the repeated MTP module are Megatron-Core's and need what they act on.
void TestHybrid::latentAndRepeatedMtpRules()
{
    const auto has = [](const std::vector<std::string> &rules, const char *rule) {
        return std::find(rules.begin(), rules.end(), rule) != rules.end();
    };
    Plan p = superOnGb300();
    QVERIFY(test::errorRules(p, "model.moe_latent_size").empty());
    p.model.moeLatentSize = p.model.hidden; // allowed, and said: nothing is narrower
    const Problems wide = validatePlan(p, io::builtinCatalog());
    QVERIFY(std::any_of(wide.begin(), wide.end(), [](const Problem &w) {
        return !w.isError() && w.key == "model.moe_latent_size" && w.rule == "moe_latent_size.not_narrower";
    }));
    QVERIFY(test::errorRules(p, "model.moe_latent_size").empty());
    p.model.moeLatentSize = 1024;
    p.training.framework = Framework::Fsdp;
    QVERIFY(has(test::errorRules(p, "model.moe_latent_size"), "moe_latent_size.framework"));
    Plan dense = test::presetPlan("nemotron-h-8b", 1, 1, 8, 1, 64, "h100-sxm5-80gb");
    dense.model.moeLatentSize = 1024;
    QVERIFY(has(test::errorRules(dense, "model.moe_latent_size"), "moe_latent_size.needs_experts"));
    dense.model.moeLatentSize = 0;
    dense.model.mtpRepeated = true;
    QVERIFY(has(test::errorRules(dense, "model.mtp_repeated"), "mtp_repeated.needs_mtp"));
}


/// Megatron-Core's first_last_layers_bf16 (get_fp4_context: a layer numbered below num_layers_at_start_in_bf16 or
/// at least num_layers - num_layers_at_end_in_bf16 runs outside the FP4 recipe): Nemotron 3 Nano in NVFP4 on two
/// pipeline stages of 26 blocks each, the last 26 kept in BF16, runs its second stage exactly as a BF16 plan does and
/// its first exactly as the NVFP4 plan does, in time and in stored activations (16-bit linear inputs, not the
/// NVFP4 copies Transformer Engine keeps).
void TestHybrid::bf16LayersRunOutsideTheLowPrecisionRecipe()
{
    Plan fp4 = nanoOnGb300();
    fp4.training.precision = Precision::NVFP4;
    fp4.training.fp8ParamGather = false;
    fp4.parallel.pipeline = 2;
    fp4.parallel.data = 4;
    fp4.parallel.expert = 4;
    Plan kept = fp4, bf16 = fp4;
    kept.training.bf16LayersAtEnd = 26;
    bf16.training.precision = Precision::BF16;
    const Estimate a = run(fp4), b = run(kept), c = run(bf16);
    QVERIFY(a.valid && b.valid && c.valid);
    QVERIFY2(close(b.step.stages[0].forwardSeconds, a.step.stages[0].forwardSeconds, 1e-12),
             qPrintable(
                 QStringLiteral("%1 vs %2").arg(b.step.stages[0].forwardSeconds).arg(a.step.stages[0].forwardSeconds)));
    QVERIFY(close(b.step.stages[1].forwardSeconds, c.step.stages[1].forwardSeconds, 1e-12));
    QVERIFY(close(b.step.stages[1].backwardSeconds, c.step.stages[1].backwardSeconds, 1e-12));
    QVERIFY(b.step.stages[1].forwardSeconds > a.step.stages[1].forwardSeconds); // BF16 GEMMs are slower than FP4's
    QVERIFY(close(b.memory.stages[1].activations.layerBytes, c.memory.stages[1].activations.layerBytes, 1e-12));
    QVERIFY(b.memory.stages[1].activations.layerBytes > a.memory.stages[1].activations.layerBytes);
    QCOMPARE(b.memory.stages[0].activations.layerBytes, a.memory.stages[0].activations.layerBytes);
    // Megatron-Core's rules, each named on its key: at most a stage's share of the layers; none with delayed FP8
    // scaling; nothing to keep out of a 16-bit plan.
    Plan p = kept;
    p.training.bf16LayersAtEnd = 27;
    QCOMPARE(test::errorRules(p, "training.bf16_layers_at_end"), std::vector<std::string>{"bf16_layers.per_stage"});
    QVERIFY(test::hasProblem(validatePlan(p, io::builtinCatalog()), "training.bf16_layers_at_end", "(26)"));
    p = kept;
    p.training.precision = Precision::FP8;
    p.training.fp8Recipe = Fp8Recipe::Delayed;
    QCOMPARE(test::errorRules(p, "training.bf16_layers_at_end"), std::vector<std::string>{"bf16_layers.delayed"});
    p.training.precision = Precision::BF16;
    QVERIFY(test::hasProblem(validatePlan(p, io::builtinCatalog()), "training.bf16_layers_at_end", "no effect"));
    QVERIFY(!firstError(validatePlan(p, io::builtinCatalog())));
}

/// A per-module quantization recipe (Megatron-Bridge's Nemotron 3 Super NVFP4 te_quant.cfg) keeps every layer's
/// attention projections and latent projections and the MTP module in BF16: those GEMMs take exactly the time a BF16
/// plan gives them, every other GEMM keeps the NVFP4 plan's, and the MTP module makes the last stage slower.
void TestHybrid::bf16ModulesRunOutsideTheLowPrecisionRecipe()
{
    Plan fp4 = superOnGb300();
    fp4.training.precision = Precision::NVFP4;
    fp4.training.fp8ParamGather = false;
    Plan kept = fp4, bf16 = fp4;
    kept.training.bf16AttentionProjections = true;
    kept.training.bf16LatentProjections = true;
    bf16.training.precision = Precision::BF16;
    const Estimate a = run(fp4), b = run(kept), c = run(bf16);
    QVERIFY(a.valid && b.valid && c.valid);
    for (const char *name : {"QKV projection", "output projection", "latent down projection", "latent up projection"}) {
        const Op *x = test::findOp(b, name, OpPass::Forward), *y = test::findOp(c, name, OpPass::Forward);
        const Op *z = test::findOp(a, name, OpPass::Forward);
        QVERIFY2(x && y && z, name);
        QCOMPARE(x->seconds, y->seconds);
        QVERIFY2(x->seconds > z->seconds, name);
    }
    QCOMPARE(test::findOp(b, "Mamba in-projection", OpPass::Forward)->seconds,
             test::findOp(a, "Mamba in-projection", OpPass::Forward)->seconds);
    Plan mtp = kept;
    mtp.training.bf16MtpModules = true;
    QVERIFY(run(mtp).step.stages.back().forwardSeconds > b.step.stages.back().forwardSeconds);
    // Nothing to keep out of a 16-bit plan: each key warns that it has no effect.
    mtp.training.precision = Precision::BF16;
    QVERIFY(test::hasProblem(validatePlan(mtp, io::builtinCatalog()), "training.bf16_mtp_modules", "16 bits"));
}

TRAINPLAN_TEST_APPLESS_MAIN(TestHybrid)
#include "tst_hybrid.moc"
