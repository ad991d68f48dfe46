// Exports (issue 20): for every built-in example and 50 random plans, each target's file imported back
// gives every key the target expresses (the rest supplied with --set, as a user supplies the hardware);
// what a target cannot express is listed; the CLI's output and exit codes.

#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QTest>

#include <map>

#include "TestMain.h"
#include "TestSupport.h"
#include "app/ExportCommand.h"
#include "core/estimate/Estimate.h"
#include "core/plan/PlanKeys.h"
#include "io/plan/Examples.h"
#include "io/interop/Export.h"
#include "io/interop/Import.h"
#include "io/interop/DeepSpeedNames.h"
#include "io/interop/LlmFoundryNames.h"
#include "io/interop/MegatronArguments.h"
#include "io/interop/TorchtitanNames.h"

using namespace trainplan;

namespace {

constexpr io::ExportTarget kTargets[] = {io::ExportTarget::Megatron, io::ExportTarget::NeMo, io::ExportTarget::Torchtitan,
                                         io::ExportTarget::DeepSpeed, io::ExportTarget::LlmFoundry};

QString text(const KeyValue &v)
{
    if (const auto *i = std::get_if<std::int64_t>(&v))
        return QString::number(*i);
    if (const auto *d = std::get_if<double>(&v))
        return QString::number(*d, 'g', 17);
    if (const auto *b = std::get_if<bool>(&v))
        return *b ? QStringLiteral("true") : QStringLiteral("false");
    if (const auto *s = std::get_if<std::string>(&v))
        return QString::fromStdString(*s);
    return {};
}

/// What the target does not write, given as --set (the hardware, the rest it has no setting for, and the
/// values the export listed as not expressed).
QStringList setsFor(const Plan &plan, io::ExportTarget target, const QStringList &notExpressed)
{
    QStringList sets;
    for (const PlanKey &key : planKeys()) {
        const QString path = QLatin1String(key.path);
        const bool listed = std::any_of(notExpressed.begin(), notExpressed.end(), [&](const QString &n) { return n.startsWith(path + ' '); });
        if (!key.access.get || !path.contains('.') || (io::expressedKeys(target).contains(path) && !listed) || path == QLatin1String("model.preset"))
            continue;
        const KeyValue v = key.get(plan);
        if (!std::holds_alternative<std::monostate>(v) && !(key.zeroMeansUnset && text(v) == QLatin1String("0")))
            sets << path + '=' + text(v);
    }
    return sets;
}

/// Exports, imports back and compares every expressed key; "" when the round trip holds.
QString roundTrip(const Plan &plan, io::ExportTarget target)
{
    const io::ExportResult exported = io::exportPlan(plan, target, io::builtinCatalog());
    const QString name = QStringLiteral("launch.") + QLatin1String(io::fileSuffixOf(target));
    const io::ImportResult back = io::importContents({{name, exported.text}}, setsFor(plan, target, exported.notExpressed), io::builtinCatalog());
    if (!back.ok())
        return QStringLiteral("%1: does not import back: %2\n%3").arg(QLatin1String(io::spellingOf(target)), io::importReport(back),
                                                                     QString::fromUtf8(exported.text));
    for (const QString &path : io::expressedKeys(target)) {
        if (std::any_of(exported.notExpressed.begin(), exported.notExpressed.end(), [&](const QString &n) { return n.startsWith(path); }))
            continue;
        const PlanKey *key = findPlanKey(path.toStdString());
        if (!(key->get(plan) == key->get(*back.plan)))
            return QStringLiteral("%1: %2 was %3, came back %4").arg(QLatin1String(io::spellingOf(target)), path, text(key->get(plan)),
                                                                      text(key->get(*back.plan)));
    }
    return {};
}

/// A variation of an example: the keys every target has a word for, picked at random.
Plan vary(Plan plan, QRandomGenerator &rng)
{
    plan.training.microBatch = std::int64_t(1) << rng.bounded(3);
    plan.training.globalBatch = plan.training.microBatch * plan.parallel.data * (std::int64_t(1) << rng.bounded(2, 6)) * plan.parallel.pipeline;
    constexpr Recompute kEveryTarget[] = {Recompute::None, Recompute::Selective, Recompute::Full};
    plan.training.recompute = kEveryTarget[rng.bounded(3)];
    plan.training.flashAttention = rng.bounded(2) == 1;
    plan.training.sequenceParallel = plan.parallel.tensor > 1 && rng.bounded(2) == 1;
    plan.parallel.overlapGradReduce = rng.bounded(2) == 1;
    if (plan.parallel.pipeline == 1)
        plan.parallel.zeroStage = rng.bounded(3);
    plan.training.optimizerMoments = MomentFormat(rng.bounded(4));
    plan.training.masterWeights = MasterFormat(rng.bounded(3));
    return plan;
}

} // namespace

class TestExport : public QObject
{
    Q_OBJECT

private slots:
    /// llm-foundry's YAML carries an MPT-expressible model whole: the gallery's MPT-7B comes back from the file
    /// alone (with its cluster) with llm-foundry's own parameter count, and Llama 3 70B (grouped-query, gated SiLU
    /// MLP, RoPE, RMSNorm, untied, no biases) as mpt_causal_lm with its 70.6 B.
    void llmFoundryCarriesTheModel()
    {
        for (const char *id : {"mpt-7b-llmfoundry-64-h100", "llama3-70b-fsdp-256-h200"}) {
            const Plan plan = test::examplePlan(id);
            const io::ExportResult e = io::exportPlan(plan, io::ExportTarget::LlmFoundry, io::builtinCatalog());
            QVERIFY2(!e.text.contains("the model (model.*)"), id);
            const io::ImportResult back = io::importContents(
                {{QStringLiteral("train.yaml"), e.text}},
                {QStringLiteral("cluster.device=") + QString::fromStdString(plan.cluster.device),
                 QStringLiteral("cluster.nodes=%1").arg(plan.cluster.nodes)},
                io::builtinCatalog());
            QVERIFY2(back.ok(), qPrintable(io::importReport(back) + QString::fromUtf8(e.text)));
            QCOMPARE(totalParameters(back.plan->model), totalParameters(plan.model));
            for (const char *path : {"model.layers", "model.hidden", "model.heads", "model.kv_heads", "model.ffn_hidden",
                                     "model.vocab", "model.mlp", "model.norm", "model.position_embedding",
                                     "model.linear_bias", "model.tied_embeddings", "training.global_batch",
                                     "training.micro_batch", "training.recompute", "training.fp32_gradients",
                                     "parallel.zero_stage"}) {
                const PlanKey *key = findPlanKey(path);
                QVERIFY2(key->get(*back.plan) == key->get(plan), path);
            }
        }
        QCOMPARE(totalParameters(test::examplePlan("mpt-7b-llmfoundry-64-h100").model), 6658859008.0);
    }

    void everyExampleRoundTrips()
    {
        int checked = 0;
        for (const io::ExamplePlan &example : io::builtinExamples()) {
            const Plan plan = test::examplePlan(example.id.toLatin1().constData());
            if (!plan.cluster.nodeGroups.empty())
                continue; // a mixed cluster: no launch file holds two kinds of node
            for (io::ExportTarget target : kTargets) {
                const QString problem = roundTrip(plan, target);
                QVERIFY2(problem.isEmpty(), qPrintable(example.id + ": " + problem));
                ++checked;
            }
        }
        QVERIFY(checked >= 5 * 18);
    }

    // The gallery's current Megatron-Bridge recipe (DeepSeek-V3 on 256 GB300: graphs, HybridEP with the all-to-all
    // overlap and its delayed weight gradients, the fused grouped MLP, router and permutation) comes back from
    // its Megatron-LM flags and its NeMo config with every word understood.
    void currentRecipeReadsBackWhole()
    {
        const Plan plan = test::examplePlan("deepseek-v3-256-gb300-nvl72");
        for (io::ExportTarget target : {io::ExportTarget::Megatron, io::ExportTarget::NeMo}) {
            QVERIFY2(roundTrip(plan, target).isEmpty(), qPrintable(roundTrip(plan, target)));
            const io::ExportResult exported = io::exportPlan(plan, target, io::builtinCatalog());
            const QString name = QStringLiteral("launch.") + QLatin1String(io::fileSuffixOf(target));
            const io::ImportResult back = io::importContents({{name, exported.text}},
                                                             setsFor(plan, target, exported.notExpressed),
                                                             io::builtinCatalog());
            for (const io::ImportMessage &w : back.warnings)
                QVERIFY2(!w.text.contains(QLatin1String("not understood")), qPrintable(w.text));
            QVERIFY(back.plan->training.moeRouterFusion && back.plan->training.moePermuteFusion);
            QVERIFY(back.plan->parallel.expertCommOverlap);
            QVERIFY(back.plan->training.moePagedStash);
        }
    }

    // A MoE launch file runs the experts as the plan times them and as a whole-step graph can capture them:
    // grouped GEMMs (--moe-grouped-gemm; Megatron-Core's default is SequentialMLP), with a capacity factor the
    // padding to it (--moe-pad-expert-input-to-capacity, moe/README.md "CUDA Graph"), behind HybridEP the rank's
    // capacity (Megatron-Bridge's full-iteration recipes' 1.5, set_full_iter_cg_configs), which the paged stash
    // also needs (transformer_config.py: "moe_paged_stash requires moe_expert_rank_capacity_factor").
    void moeLaunchFilesCaptureTheirExperts()
    {
        const Plan stash = test::examplePlan("qwen3-30b-a3b-8-gb300-paged-stash");
        const io::ExportResult sh = io::exportPlan(stash, io::ExportTarget::Megatron, io::builtinCatalog());
        for (const char *flag : {"--moe-grouped-gemm", "--cuda-graph-impl full_iteration",
                                 "--moe-flex-dispatcher-backend hybridep", "--moe-expert-rank-capacity-factor 1.5",
                                 "--moe-paged-stash", "--use-transformer-engine-op-fuser"})
            QVERIFY2(sh.text.contains(QLatin1String(flag)), flag);
        const io::ExportResult yaml = io::exportPlan(stash, io::ExportTarget::NeMo, io::builtinCatalog());
        for (const char *field : {"moe_grouped_gemm: true", "moe_expert_rank_capacity_factor: 1.5", "moe_paged_stash: true"})
            QVERIFY2(yaml.text.contains(QLatin1String(field)), field);
        for (io::ExportTarget target : {io::ExportTarget::Megatron, io::ExportTarget::NeMo})
            QVERIFY2(roundTrip(stash, target).isEmpty(), qPrintable(roundTrip(stash, target)));
        Plan padded = test::examplePlan("mixtral-8x7b-64-h100");
        padded.training.capacityFactor = 1.0;
        padded.training.cudaGraphs = CudaGraphs::Step;
        const QString text = io::exportPlan(padded, io::ExportTarget::Megatron, io::builtinCatalog()).text;
        QVERIFY(text.contains(QLatin1String("--moe-pad-expert-input-to-capacity")));
        QVERIFY(!text.contains(QLatin1String("--moe-expert-rank-capacity-factor")));
        Plan eager = padded;
        eager.training.cudaGraphs = CudaGraphs::None;
        QVERIFY(!io::exportPlan(eager, io::ExportTarget::Megatron, io::builtinCatalog())
                     .text.contains(QLatin1String("--moe-pad-expert-input-to-capacity")));
    }

    // Megatron-Core's uniform recomputation in chunks (training.recompute_chunk) is written as its method and
    // layer count, and reads back; torchtitan, which checkpoints each layer, lists it as not expressed.
    // A hybrid Mamba-Transformer plan launches Megatron-LM's hybrid entry point (pretrain_mamba.py, core_v0.16.0 on)
    // with its layer pattern quoted (a '*' unquoted is a shell glob) and the Mamba-2 mixer's sizes, and reads back
    // whole; its MoE layers are the pattern's E (no --moe-layer-freq). NeMo's recipe has no hybrid fields here: it
    // says so.
    void hybridLaunchRunsTheMambaModel()
    {
        const Plan nano = test::examplePlan("nemotron-3-nano-8-gb300");
        const io::ExportResult sh = io::exportPlan(nano, io::ExportTarget::Megatron, io::builtinCatalog());
        for (const char *flag : {"pretrain_mamba.py", "--hybrid-override-pattern \"MEMEM*EMEMEM*", "--mamba-state-dim 128",
                                 "--mamba-head-dim 64", "--mamba-num-groups 8", "--mamba-num-heads 64",
                                 "--position-embedding-type none", "--squared-relu"})
            QVERIFY2(sh.text.contains(QLatin1String(flag)), flag);
        QVERIFY(!sh.text.contains(QLatin1String("--moe-layer-freq")));
        QVERIFY(!sh.text.contains(QLatin1String("pretrain_gpt.py")));
        QVERIFY2(roundTrip(nano, io::ExportTarget::Megatron).isEmpty(), qPrintable(roundTrip(nano, io::ExportTarget::Megatron)));
        const io::ExportResult yaml = io::exportPlan(nano, io::ExportTarget::NeMo, io::builtinCatalog());
        QVERIFY(std::any_of(yaml.notExpressed.begin(), yaml.notExpressed.end(),
                            [](const QString &line) { return line.startsWith(QLatin1String("model.hybrid_pattern")); }));
    }

    // A latent MoE with repeated MTP depths (Nemotron 3 Super) launches with Megatron-Core's --moe-latent-size and
    // --mtp-use-repeated-layer (TransformerConfig fields the arguments' factory exposes) and reads back whole; NeMo's
    // recipe export says it does not write them.
    void latentMoeLaunchRoundTrips()
    {
        const Plan super = test::examplePlan("nemotron-3-super-64-gb300");
        const io::ExportResult sh = io::exportPlan(super, io::ExportTarget::Megatron, io::builtinCatalog());
        for (const char *flag : {"--moe-latent-size 1024", "--mtp-num-layers 2", "--mtp-use-repeated-layer",
                                 "--num-experts 512", "--moe-router-topk 22"})
            QVERIFY2(sh.text.contains(QLatin1String(flag)), flag);
        QVERIFY2(roundTrip(super, io::ExportTarget::Megatron).isEmpty(), qPrintable(roundTrip(super, io::ExportTarget::Megatron)));
        const io::ExportResult yaml = io::exportPlan(super, io::ExportTarget::NeMo, io::builtinCatalog());
        QVERIFY(std::any_of(yaml.notExpressed.begin(), yaml.notExpressed.end(),
                            [](const QString &line) { return line.startsWith(QLatin1String("model.moe_latent_size")); }));
    }

    // NVFP4 with the last layers in BF16 (Nemotron 3 Super's NVFP4 recipe) launches with Megatron-Core's
    // --fp4-format e2m1 and --first-last-layers-bf16 with both counts (a count left out would be TransformerConfig's
    // default, 1), and reads back whole from the launch script and from the NeMo recipe.
    void bf16LayersRoundTrip()
    {
        const Plan super = test::examplePlan("nemotron-3-super-nvfp4-64-gb300");
        QCOMPARE(super.training.bf16LayersAtEnd, 14);
        const io::ExportResult sh = io::exportPlan(super, io::ExportTarget::Megatron, io::builtinCatalog());
        for (const char *flag : {"--fp4-format e2m1", "--first-last-layers-bf16", "--num-layers-at-start-in-bf16 0",
                                 "--num-layers-at-end-in-bf16 14"})
            QVERIFY2(sh.text.contains(QLatin1String(flag)), flag);
        const io::ExportResult yaml = io::exportPlan(super, io::ExportTarget::NeMo, io::builtinCatalog());
        QVERIFY2(yaml.text.contains("fp4: e2m1") && yaml.text.contains("num_layers_at_end_in_bf16: 14"),
                 yaml.text.constData());
        for (io::ExportTarget target : {io::ExportTarget::Megatron, io::ExportTarget::NeMo}) {
            const QString problem = roundTrip(super, target);
            QVERIFY2(problem.isEmpty(), qPrintable(problem));
        }
        // The switch alone keeps TransformerConfig's default of one layer at each end; the counts alone keep none.
        const QStringList sets = setsFor(super, io::ExportTarget::Megatron, sh.notExpressed);
        QString text = QString::fromUtf8(sh.text);
        text.replace(QLatin1String("--num-layers-at-start-in-bf16 0"), QString())
            .replace(QLatin1String("--num-layers-at-end-in-bf16 14"), QString());
        io::ImportResult back = io::importContents({{QStringLiteral("launch.sh"), text.toUtf8()}}, sets,
                                                   io::builtinCatalog());
        QVERIFY2(back.ok(), qPrintable(io::importReport(back)));
        QCOMPARE(back.plan->training.bf16LayersAtStart, 1);
        QCOMPARE(back.plan->training.bf16LayersAtEnd, 1);
        text = QString::fromUtf8(sh.text).replace(QLatin1String("--first-last-layers-bf16"), QString());
        back = io::importContents({{QStringLiteral("launch.sh"), text.toUtf8()}}, sets, io::builtinCatalog());
        QVERIFY2(back.ok(), qPrintable(io::importReport(back)));
        QCOMPARE(back.plan->training.bf16LayersAtEnd, 0);
    }

    void recomputeChunkRoundTrips()
    {
        Plan plan = test::examplePlan("gpt3-175b-tp8-pp8");
        plan.training.recompute = Recompute::Full;
        plan.training.recomputeChunk = 4;
        const io::ExportResult megatron = io::exportPlan(plan, io::ExportTarget::Megatron, io::builtinCatalog());
        QVERIFY2(megatron.text.contains("--recompute-method uniform --recompute-num-layers 4"), megatron.text.constData());
        for (io::ExportTarget target : {io::ExportTarget::Megatron, io::ExportTarget::NeMo}) {
            const QString problem = roundTrip(plan, target);
            QVERIFY2(problem.isEmpty(), qPrintable(problem));
        }
        const io::ExportResult titan = io::exportPlan(plan, io::ExportTarget::Torchtitan, io::builtinCatalog());
        QVERIFY(std::any_of(titan.notExpressed.begin(), titan.notExpressed.end(),
                            [](const QString &n) { return n.startsWith(QLatin1String("training.recompute_chunk = 4")); }));
    }

    // Transformer Engine's cross-entropy as Megatron-LM spells it (--cross-entropy-loss-fusion
    // --cross-entropy-fusion-impl te) and as a Megatron-Core config names it, read back from each.
    void transformerEngineLossRoundTrips()
    {
        Plan plan = test::examplePlan("gpt3-175b-tp8-pp8");
        plan.training.lossKernel = LossKernel::TransformerEngine;
        const io::ExportResult megatron = io::exportPlan(plan, io::ExportTarget::Megatron, io::builtinCatalog());
        QVERIFY2(megatron.text.contains("--cross-entropy-loss-fusion \\\n    --cross-entropy-fusion-impl te"),
                 megatron.text.constData());
        for (io::ExportTarget target : {io::ExportTarget::Megatron, io::ExportTarget::NeMo}) {
            const QString problem = roundTrip(plan, target);
            QVERIFY2(problem.isEmpty(), qPrintable(problem));
        }
        // Megatron's own kernel, said in a NeMo config as the fusion turned off; a kernel Megatron-Core does not
        // run is listed as not expressed.
        plan.training.lossKernel = LossKernel::InPlace;
        const QString problem = roundTrip(plan, io::ExportTarget::NeMo);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        plan.training.lossKernel = LossKernel::Fused;
        const io::ExportResult fused = io::exportPlan(plan, io::ExportTarget::Megatron, io::builtinCatalog());
        QVERIFY(!fused.text.contains("cross-entropy"));
        QVERIFY(std::any_of(fused.notExpressed.begin(), fused.notExpressed.end(),
                            [](const QString &n) { return n.startsWith(QLatin1String("training.loss_kernel = fused")); }));
    }

    /// The stages inside the data replicas (parallel.rank_order "tp-cp-ep-pp-dp") as Megatron-LM writes it
    /// (--use-tp-pp-dp-mapping) and NeMo's MegatronStrategy (use_tp_pp_dp_mapping), read back from each; the
    /// default order writes neither. NeMo 1's model.use_tp_pp_dp_mapping and Megatron-Bridge's
    /// dist.use_tp_pp_dp_mapping read likewise.
    void rankOrderRoundTrips()
    {
        Plan plan = test::examplePlan("gpt3-175b-tp8-pp8");
        QVERIFY(!io::exportPlan(plan, io::ExportTarget::Megatron, io::builtinCatalog()).text.contains("tp-pp-dp"));
        plan.parallel.rankOrder = RankOrder::StagesInside;
        const io::ExportResult megatron = io::exportPlan(plan, io::ExportTarget::Megatron, io::builtinCatalog());
        QVERIFY2(megatron.text.contains("--use-tp-pp-dp-mapping"), megatron.text.constData());
        const io::ExportResult nemo = io::exportPlan(plan, io::ExportTarget::NeMo, io::builtinCatalog());
        QVERIFY2(nemo.text.contains("    use_tp_pp_dp_mapping: true\n"), nemo.text.constData());
        for (io::ExportTarget target : {io::ExportTarget::Megatron, io::ExportTarget::NeMo}) {
            const QString problem = roundTrip(plan, target);
            QVERIFY2(problem.isEmpty(), qPrintable(problem));
        }
        for (const char *yaml : {"model:\n  use_tp_pp_dp_mapping: true\n", "dist:\n  use_tp_pp_dp_mapping: true\n"}) {
            const io::FileImport f = io::importFile(QStringLiteral("recipe.yaml"), yaml, io::ImportFormat::NeMo);
            QVERIFY2(std::any_of(f.keys.begin(), f.keys.end(),
                                 [](const io::ImportedKey &k) {
                                     return k.path == QLatin1String("parallel.rank_order") &&
                                            k.value == QJsonValue(QStringLiteral("tp-cp-ep-pp-dp"));
                                 }),
                     yaml);
        }
    }

    /// Muon as Megatron-LM names it (--optimizer muon, --muon-num-ns-steps, --muon-tp-mode) and Megatron-Core's
    /// OptimizerConfig fields in a Megatron-Bridge configuration, read back from each; the deprecated
    /// --optimizer dist_muon is Muon with the distributed optimizer (arguments.py at d98e8a6).
    void muonRoundTrips()
    {
        Plan plan = test::examplePlan("llama3-70b-512-h100");
        plan.training.optimizer = Optimizer::Muon;
        plan.training.muonSteps = 6;
        plan.training.muonTpMode = MuonTpMode::Blockwise;
        const io::ExportResult megatron = io::exportPlan(plan, io::ExportTarget::Megatron, io::builtinCatalog());
        QVERIFY2(megatron.text.contains("--optimizer muon") && megatron.text.contains("--muon-num-ns-steps 6") &&
                     megatron.text.contains("--muon-tp-mode blockwise"),
                 megatron.text.constData());
        const io::ExportResult nemo = io::exportPlan(plan, io::ExportTarget::NeMo, io::builtinCatalog());
        QVERIFY2(nemo.text.contains("optimizer:\n  optimizer: muon\n  muon_num_ns_steps: 6\n"), nemo.text.constData());
        for (io::ExportTarget target : {io::ExportTarget::Megatron, io::ExportTarget::NeMo}) {
            const QString problem = roundTrip(plan, target);
            QVERIFY2(problem.isEmpty(), qPrintable(problem));
        }
        const io::FileImport dist = io::importFile(QStringLiteral("train.sh"),
                                                   "torchrun pretrain_gpt.py --num-layers 2 --optimizer dist_muon\n",
                                                   io::ImportFormat::Megatron);
        const auto value = [&dist](const char *path) {
            QJsonValue last;
            for (const io::ImportedKey &k : dist.keys)
                if (k.path == QLatin1String(path))
                    last = k.value;
            return last;
        };
        QCOMPARE(value("training.optimizer"), QJsonValue(QStringLiteral("muon")));
        QCOMPARE(value("parallel.zero_stage").toInt(), 1);
        QVERIFY(std::count_if(dist.keys.begin(), dist.keys.end(), [](const io::ImportedKey &k) {
                    return k.path == QLatin1String("parallel.zero_stage");
                }) == 1);
    }

    // Adaptive Muon as Megatron-LM names it (--optimizer adaptive_muon) and Megatron-Bridge's OptimizerConfig
    // (optimizer: adaptive_muon); a second moment per row (normuon) or per matrix (namo) is next to nothing beside
    // the momentum and is read as Muon's one moment, with a warning at the line that says it.
    void adaptiveMuonRoundTrips()
    {
        Plan plan = test::examplePlan("llama3-70b-512-h100");
        plan.training.optimizer = Optimizer::AdaptiveMuon;
        plan.training.muonScalarOptimizer = MuonScalarOptimizer::Lion;
        const io::ExportResult megatron = io::exportPlan(plan, io::ExportTarget::Megatron, io::builtinCatalog());
        QVERIFY2(megatron.text.contains("--optimizer adaptive_muon") && megatron.text.contains("--muon-num-ns-steps 5") &&
                     megatron.text.contains("--muon-scalar-optimizer lion"),
                 megatron.text.constData());
        for (io::ExportTarget target : {io::ExportTarget::Megatron, io::ExportTarget::NeMo}) {
            const QString problem = roundTrip(plan, target);
            QVERIFY2(problem.isEmpty(), qPrintable(problem));
        }
        const io::ExportResult deepspeed = io::exportPlan(plan, io::ExportTarget::DeepSpeed, io::builtinCatalog());
        QVERIFY(deepspeed.notExpressed.join(u'\n').contains(QLatin1String("adaptive_muon")));
        const io::FileImport norMuon = io::importFile(QStringLiteral("bridge.yaml"),
                                                      "optimizer:\n  optimizer: adaptive_muon\n"
                                                      "  adaptive_muon_moment2_method: normuon\n",
                                                      io::ImportFormat::NeMo);
        const auto optimizer = std::find_if(norMuon.keys.begin(), norMuon.keys.end(), [](const io::ImportedKey &k) {
            return k.path == QLatin1String("training.optimizer");
        });
        QVERIFY(optimizer != norMuon.keys.end());
        QCOMPARE(optimizer->value, QJsonValue(QStringLiteral("muon")));
        QVERIFY(std::any_of(norMuon.warnings.begin(), norMuon.warnings.end(), [](const io::ImportMessage &w) {
            return w.line == 3 && w.text.startsWith(QLatin1String("adaptive_muon_moment2_method normuon"));
        }));
    }

    void fiftyRandomPlansRoundTrip()
    {
        QRandomGenerator rng(20);
        const QList<io::ExamplePlan> &examples = io::builtinExamples();
        int valid = 0;
        for (int i = 0; valid < 50 && i < 1000; ++i) {
            const io::ExamplePlan &example = examples[rng.bounded(int(examples.size()))];
            const Plan base = test::examplePlan(example.id.toLatin1().constData());
            if (!base.cluster.nodeGroups.empty())
                continue;
            const Plan plan = vary(base, rng);
            if (!estimate(plan, io::builtinCatalog(), EstimateOptions::analytic()).valid)
                continue;
            ++valid;
            for (io::ExportTarget target : kTargets) {
                const QString problem = roundTrip(plan, target);
                QVERIFY2(problem.isEmpty(), qPrintable(QStringLiteral("random plan %1 from %2: ").arg(i).arg(example.id) + problem));
            }
        }
        QCOMPARE(valid, 50);
    }

    void whatATargetCannotSayIsListed()
    {
        const Plan deepseek = test::examplePlan("deepseek-v3-1024-h100");
        const io::ExportResult ds = io::exportPlan(deepseek, io::ExportTarget::DeepSpeed, io::builtinCatalog());
        QVERIFY(ds.notExpressed.join('\n').contains(QStringLiteral("the model")));
        QVERIFY(ds.notExpressed.join('\n').contains(QStringLiteral("parallel.tensor")));
        const io::ExportResult mg = io::exportPlan(deepseek, io::ExportTarget::Megatron, io::builtinCatalog());
        QVERIFY(mg.notExpressed.join('\n').contains(QStringLiteral("cluster.device")));
        QVERIFY(mg.warnings.isEmpty()); // it fits
        // A plan that does not fit is written all the same, with a warning: its launch would run out of memory.
        const io::ExportResult oom = io::exportPlan(test::examplePlan("gpt3-175b-does-not-fit"), io::ExportTarget::Megatron, io::builtinCatalog());
        QVERIFY(oom.warnings.size() == 1 && oom.warnings.front().contains(QStringLiteral("does not fit")) && !oom.text.isEmpty());
        QVERIFY(mg.text.contains("--multi-latent-attention") && mg.text.contains("--num-experts 256"));
        // DeepSeek-V3's dense first three layers and its shared expert as Megatron-LM's DeepSeek-V3 scripts write
        // them (the per-layer pattern, and the shared experts' total width), and nothing left unsaid about them.
        QVERIFY2(mg.text.contains("--moe-layer-freq \"([0]*3+[1]*58)\"") && mg.text.contains("--moe-shared-expert-intermediate-size 2048"),
                 qPrintable(mg.text));
        QVERIFY(!mg.notExpressed.join('\n').contains(QStringLiteral("model.shared_experts")));
        const io::ImportResult back = io::importContents({{QStringLiteral("pretrain_deepseek.sh"), mg.text}},
                                                         {QStringLiteral("cluster.device=h100-sxm5-80gb")}, io::builtinCatalog());
        QVERIFY(back.plan);
        QCOMPARE(back.plan->model.denseLayers, 3);
        QCOMPARE(back.plan->model.sharedExperts, 1);
        QCOMPARE(back.plan->model.moeLayerInterval, 1);
        // torchtitan captures CUDA graphs only in releases configured in Python (f84224af0, August 2026): a job
        // file cannot say it, and the note names the setting those releases take; without graphs nothing is said.
        Plan titan = test::examplePlan("llama3-8b-torchtitan-rowwise-8-h100");
        titan.training.cudaGraphs = CudaGraphs::Step;
        const QString said = io::exportPlan(titan, io::ExportTarget::Torchtitan, io::builtinCatalog()).notExpressed.join('\n');
        QVERIFY2(said.contains(QLatin1String("training.cuda_graphs = step")) && said.contains(QLatin1String("disable_cuda_graphs")),
                 qPrintable(said));
        titan.training.cudaGraphs = CudaGraphs::None;
        QVERIFY(!io::exportPlan(titan, io::ExportTarget::Torchtitan, io::builtinCatalog()).notExpressed.join('\n').contains(
            QLatin1String("cuda_graphs")));
    }

    void moeLayerPatterns_data()
    {
        QTest::addColumn<QByteArray>("argument");
        QTest::addColumn<int>("dense");    // -1: not expressible, a warning
        QTest::addColumn<int>("interval");
        QTest::newRow("deepseek-v3") << QByteArray("\"([0]*3+[1]*58)\"") << 3 << 1;
        QTest::newRow("every other layer (Llama 4 Maverick)") << QByteArray("\"([0,1]*24)\"") << 0 << 2;
        QTest::newRow("dense, then every other") << QByteArray("'[0]*2+([0]*1+[1])*3'") << 2 << 2;
        QTest::newRow("explicit list") << QByteArray("[0,0,1,1,1,1]") << 2 << 1;
        QTest::newRow("a dense layer in the middle") << QByteArray("[1,0,1,1]") << -1 << 0;
        QTest::newRow("not a pattern") << QByteArray("\"[0]*x\"") << -1 << 0;
    }
    void moeLayerPatterns()
    {
        QFETCH(QByteArray, argument);
        QFETCH(int, dense);
        QFETCH(int, interval);
        const io::FileImport file = io::importFile(QStringLiteral("run.sh"), "torchrun pretrain_gpt.py --num-experts 8 --moe-layer-freq " + argument + "\n",
                                                   io::ImportFormat::Megatron);
        std::map<QString, int> keys;
        for (const io::ImportedKey &k : file.keys)
            keys[k.path] = k.value.toInt();
        if (dense < 0) {
            QVERIFY(!keys.count(QStringLiteral("model.dense_layers")));
            QVERIFY(std::any_of(file.warnings.begin(), file.warnings.end(),
                                [](const io::ImportMessage &w) { return w.text.contains(QStringLiteral("model.dense_layers")) && w.line == 1; }));
            return;
        }
        QCOMPARE(keys[QStringLiteral("model.dense_layers")], dense);
        QCOMPARE(keys[QStringLiteral("model.moe_layer_interval")], interval);
    }

    void commandLine()
    {
        QString out, err;
        QTextStream o(&out), e(&err);
        const QString plan = QStringLiteral(TRAINPLAN_SOURCE_DIR "/resources/examples/llama3-70b-512-h100.json");
        QCOMPARE(cli::runExport({plan, QStringLiteral("--to"), QStringLiteral("megatron")}, o, e), 0);
        o.flush(), e.flush();
        QVERIFY(out.contains(QStringLiteral("--tensor-model-parallel-size 8")) && out.contains(QStringLiteral("--pipeline-model-parallel-size 4")));
        QVERIFY(err.contains(QStringLiteral("not expressed: cluster.device")));
        QString out2, err2;
        QTextStream o2(&out2), e2(&err2);
        QCOMPARE(cli::runExport({plan, QStringLiteral("--to"), QStringLiteral("jax")}, o2, e2), 2);
        QCOMPARE(cli::runExport({QStringLiteral("/nonexistent.json"), QStringLiteral("--to"), QStringLiteral("nemo")}, o2, e2), 1);
    }

    /// The Megatron table both ways (issue 41): every argument of io/interop/MegatronArguments reads into its
    /// key (a number as given, a switch as true, a "--no-" switch as false), and a key's first argument is
    /// the one the exporter writes.
    void megatronArgumentsReadBack()
    {
        for (const io::megatron::Argument &a : io::megatron::arguments()) {
            const bool number = a.form == io::megatron::Form::Integer;
            // The CPU optimizer offloads the fraction it is given (0.0 by default): all of it.
            const QByteArray fraction = a.path == std::string_view("parallel.offload_optimizer")
                                            ? QByteArrayLiteral(" --optimizer-offload-fraction 1.0")
                                            : QByteArray();
            const QByteArray script = QByteArrayLiteral("torchrun pretrain_gpt.py --") + a.flag +
                                      (number ? QByteArrayLiteral(" 7") : QByteArray()) + fraction + '\n';
            const io::FileImport read = io::importFile(QStringLiteral("launch.sh"), script, io::ImportFormat::Megatron);
            const auto key = std::find_if(read.keys.begin(), read.keys.end(), [&](const io::ImportedKey &k) {
                return k.path == QLatin1String(a.path) && !k.weak;
            });
            QVERIFY2(key != read.keys.end(), a.flag);
            const QJsonValue expected =
                number ? QJsonValue(7) : QJsonValue(a.form == io::megatron::Form::Switch);
            QVERIFY2(key->value == expected, a.flag);
        }
        QCOMPARE(io::megatron::flagOf("model.layers"), QStringLiteral("--num-layers"));
        QCOMPARE(io::megatron::flagOf("parallel.overlap_p2p_comm"), QStringLiteral("--no-overlap-p2p-communication"));
        QCOMPARE(io::megatron::flagOf("training.precision"), QString()); // code: --bf16, --fp8-format, ...
    }

    /// The NeMo / Megatron-Bridge recipe names each key as Megatron-Core's configuration does, from the same
    /// table as the launch script's flags: the field where the configuration names it otherwise
    /// (TransformerConfig.num_moe_experts for --num-experts, ModelParallelConfig's
    /// virtual_pipeline_model_parallel_size and overlap_p2p_comm), else the argument's destination. Every
    /// table row's NeMo name reads back to its key, and the recipe export writes those names.
    void megatronFieldsReadBack()
    {
        QCOMPARE(io::megatron::fieldOf("model.experts"), QStringLiteral("num_moe_experts"));
        QCOMPARE(io::megatron::fieldOf("parallel.virtual_stages"), QStringLiteral("virtual_pipeline_model_parallel_size"));
        QCOMPARE(io::megatron::fieldOf("parallel.overlap_p2p_comm"), QStringLiteral("overlap_p2p_comm"));
        QCOMPARE(io::megatron::fieldOf("model.layers"), QStringLiteral("num_layers"));
        QCOMPARE(io::megatron::fieldOf("training.precision"), QString());
        for (const io::megatron::Argument &a : io::megatron::arguments()) {
            const QString name = io::megatron::fieldOf(a.path);
            const bool number = a.form == io::megatron::Form::Integer;
            const QByteArray yaml = "model:\n  config:\n    " + name.toLatin1() + ": " + (number ? "7" : "true") + "\n" +
                                    (a.path == std::string_view("parallel.offload_optimizer")
                                         ? QByteArrayLiteral("    optimizer_offload_fraction: 1.0\n")
                                         : QByteArray());
            const io::FileImport read = io::importFile(QStringLiteral("recipe.yaml"), yaml, io::ImportFormat::NeMo);
            const auto key = std::find_if(read.keys.begin(), read.keys.end(), [&](const io::ImportedKey &k) {
                return k.path == QLatin1String(a.path) && !k.weak;
            });
            QVERIFY2(key != read.keys.end(), qPrintable(name));
            QVERIFY2(key->value == (number ? QJsonValue(7) : QJsonValue(true)), qPrintable(name));
        }
        Plan plan = test::examplePlan("deepseek-v3-1024-h100");
        plan.parallel.schedule = Schedule::Interleaved;
        plan.parallel.virtualStages = 2;
        const QString recipe = QString::fromUtf8(io::exportPlan(plan, io::ExportTarget::NeMo, io::builtinCatalog()).text);
        for (const char *field : {"num_moe_experts: 256", "virtual_pipeline_model_parallel_size: 2", "overlap_p2p_comm: ",
                                  "kv_lora_rank: 512", "expert_model_parallel_size: "})
            QVERIFY2(recipe.contains(QLatin1String(field)), field);
    }

    /// Megatron-LM overlaps the interleaved schedule's transfers by default and has only the flag that turns
    /// it off (arguments.py since 4eeff55, October 2023); the export wrote --overlap-p2p-communication, which
    /// today's Megatron-LM refuses. Off is written and read back; on is Megatron's default, read back from a
    /// script that says nothing; without interleaving Megatron turns it off, so the export lists it.
    void pipelineTransferOverlapAsMegatronSpellsIt()
    {
        Plan plan = test::presetPlan("llama2-7b", 2, 4, 1, 1, 32, "h100-sxm5-80gb");
        plan.parallel.schedule = Schedule::Interleaved;
        plan.parallel.virtualStages = 2;
        for (const bool overlap : {false, true}) {
            plan.parallel.overlapP2pComm = overlap;
            const io::ExportResult e = io::exportPlan(plan, io::ExportTarget::Megatron, io::builtinCatalog());
            QCOMPARE(e.text.contains("--no-overlap-p2p-communication"), !overlap);
            QVERIFY(!e.text.contains(" --overlap-p2p-communication"));
            QVERIFY2(roundTrip(plan, io::ExportTarget::Megatron).isEmpty(),
                     qPrintable(roundTrip(plan, io::ExportTarget::Megatron)));
        }
        plan.parallel.schedule = Schedule::OneFOneB;
        plan.parallel.virtualStages = 1;
        const io::ExportResult e = io::exportPlan(plan, io::ExportTarget::Megatron, io::builtinCatalog());
        QVERIFY(!e.text.contains("overlap-p2p"));
        QVERIFY2(e.notExpressed.join('\n').contains(QStringLiteral("parallel.overlap_p2p_comm = true")),
                 qPrintable(e.notExpressed.join('\n')));
    }

    /// Megatron-Core's CPU optimizer offloads optimizer_offload_fraction of the state, 0.0 unless given
    /// (optimizer_config.py), and Megatron-LM's script needs the precision-aware optimizer with it (arguments.py):
    /// the export writes the plan's fraction; the import reads --optimizer-cpu-offload alone as no offload, with
    /// a warning, and a fraction as parallel.optimizer_offload_fraction.
    void moeCapacityFactorRoundTrips()
    {
        // Token dropping (training.capacity_factor) as Megatron-Core takes it, --moe-expert-capacity-factor (its
        // NeMo / Megatron-Bridge field moe_expert_capacity_factor), read back by both importers.
        Plan plan = test::examplePlan("mixtral-8x7b-64-h100");
        plan.training.capacityFactor = 1.25;
        const io::ExportResult sh = io::exportPlan(plan, io::ExportTarget::Megatron, io::builtinCatalog());
        QVERIFY(sh.text.contains("--moe-expert-capacity-factor 1.25"));
        const io::ExportResult yaml = io::exportPlan(plan, io::ExportTarget::NeMo, io::builtinCatalog());
        QVERIFY(yaml.text.contains("moe_expert_capacity_factor: 1.25"));
        for (io::ExportTarget target : {io::ExportTarget::Megatron, io::ExportTarget::NeMo})
            QVERIFY2(roundTrip(plan, target).isEmpty(), qPrintable(roundTrip(plan, target)));
    }

    void optimizerOffloadAsMegatronCoreTakesIt()
    {
        Plan plan = test::presetPlan("llama3-8b", 1, 1, 8, 1, 64, "h100-sxm5-80gb");
        plan.parallel.zeroStage = 1;
        plan.parallel.offloadOptimizer = true;
        const QByteArray script = io::exportPlan(plan, io::ExportTarget::Megatron, io::builtinCatalog()).text;
        QVERIFY(script.contains("--use-precision-aware-optimizer --optimizer-cpu-offload --optimizer-offload-fraction 1.0"));
        QVERIFY(io::exportPlan(plan, io::ExportTarget::NeMo, io::builtinCatalog()).text.contains("optimizer_offload_fraction: 1.0"));
        plan.parallel.optimizerOffloadFraction = 0.25;
        QVERIFY(io::exportPlan(plan, io::ExportTarget::Megatron, io::builtinCatalog())
                    .text.contains("--optimizer-cpu-offload --optimizer-offload-fraction 0.25"));
        const QByteArray yaml = io::exportPlan(plan, io::ExportTarget::NeMo, io::builtinCatalog()).text;
        QVERIFY2(yaml.contains("optimizer_offload_fraction: 0.25"), yaml.constData());
        // Megatron-Core's OptimizerConfig does not ask for the precision-aware optimizer, which would move the FP32
        // master copy to the host too; the estimate keeps it on the GPU.
        QVERIFY(!yaml.contains("use_precision_aware_optimizer"));
        plan.parallel.overlapOffloadCopies = true;
        QVERIFY(io::exportPlan(plan, io::ExportTarget::Megatron, io::builtinCatalog())
                    .text.contains("--optimizer-offload-fraction 0.25 --overlap-cpu-optimizer-d2h-h2d"));
        QVERIFY(io::exportPlan(plan, io::ExportTarget::NeMo, io::builtinCatalog())
                    .text.contains("overlap_cpu_optimizer_d2h_h2d: true"));
        for (io::ExportTarget target : {io::ExportTarget::Megatron, io::ExportTarget::NeMo})
            QVERIFY2(roundTrip(plan, target).isEmpty(), qPrintable(roundTrip(plan, target)));
        const auto read = [](const QByteArray &arguments) {
            const io::FileImport f = io::importFile(QStringLiteral("launch.sh"),
                                                    "torchrun pretrain_gpt.py " + arguments + '\n', io::ImportFormat::Megatron);
            const auto value = [&](const char *path) {
                const auto k = std::find_if(f.keys.begin(), f.keys.end(),
                                            [&](const io::ImportedKey &k) { return k.path == QLatin1String(path); });
                return k == f.keys.end() ? QJsonValue() : k->value;
            };
            return std::tuple{value("parallel.offload_optimizer"), value("parallel.optimizer_offload_fraction"),
                              int(f.warnings.size())};
        };
        QCOMPARE(read("--optimizer-cpu-offload --optimizer-offload-fraction 1.0"),
                 (std::tuple{QJsonValue(true), QJsonValue(1.0), 0}));
        QCOMPARE(read("--optimizer-cpu-offload"), (std::tuple{QJsonValue(false), QJsonValue(), 1}));
        QCOMPARE(read("--optimizer-cpu-offload --optimizer-offload-fraction 0.75"),
                 (std::tuple{QJsonValue(true), QJsonValue(0.75), 0}));
        QCOMPARE(read("--optimizer-cpu-offload --optimizer-offload-fraction 0"),
                 (std::tuple{QJsonValue(false), QJsonValue(), 1}));
    }

    /// torchtitan's table both ways (issue 41): every name of io/interop/TorchtitanNames reads into its key in a
    /// job file (a number, a flag, each spelling of a choice, without case as torch's get_schedule_class
    /// matches schedules), and the export writes a choice's first spelling.
    void torchtitanNamesReadBack()
    {
        const auto read = [](const QString &name, const QString &value, const char *path) {
            const QString toml = QStringLiteral("[%1]\n%2 = %3\n")
                                     .arg(name.section(QLatin1Char('.'), 0, 0), name.section(QLatin1Char('.'), 1), value);
            const io::FileImport f =
                io::importFile(QStringLiteral("job.toml"), toml.toUtf8(), io::ImportFormat::Torchtitan);
            const auto k = std::find_if(f.keys.begin(), f.keys.end(),
                                        [&](const io::ImportedKey &k) { return k.path == QLatin1String(path); });
            return k == f.keys.end() ? QJsonValue() : k->value;
        };
        for (const io::torchtitan::Name &n : io::torchtitan::names()) {
            const QString name = QLatin1String(n.name);
            switch (n.form) {
            case io::torchtitan::Form::Integer: QCOMPARE(read(name, QStringLiteral("7"), n.path), QJsonValue(7)); break;
            case io::torchtitan::Form::Bool: QCOMPARE(read(name, QStringLiteral("true"), n.path), QJsonValue(true)); break;
            case io::torchtitan::Form::Choice:
                for (const auto &[file, plan] : n.choices) {
                    const QJsonValue expected = QLatin1String(plan) == QLatin1String("true")    ? QJsonValue(true)
                                                : QLatin1String(plan) == QLatin1String("false") ? QJsonValue(false)
                                                                                                : QJsonValue(QLatin1String(plan));
                    QCOMPARE(read(name, '"' + QString::fromLatin1(file).toLower() + '"', n.path), expected);
                }
                break;
            }
        }
        QCOMPARE(io::torchtitan::spelling("parallel.schedule", "interleaved"), QStringLiteral("Interleaved1F1B"));
        QCOMPARE(io::torchtitan::choiceLine("parallel.schedule", "zb-h1"),
                 QStringLiteral("pipeline_parallel_schedule = \"InterleavedZeroBubble\"\n"));
        QCOMPARE(io::torchtitan::line("parallel.tensor", 8), QStringLiteral("tensor_parallel_degree = 8\n"));

        // The context ranks' exchange: a ring is torchtitan's "alltoall" rotation; Ulysses' head all-to-all has no
        // torchtitan setting and is listed.
        Plan plan = test::examplePlan("llama3.1-405b-torchtitan-4d-512-h100");
        plan.parallel.context = 2;
        plan.parallel.data /= 2;
        plan.parallel.contextComm = ContextComm::Ring;
        io::ExportResult out = io::exportPlan(plan, io::ExportTarget::Torchtitan, io::builtinCatalog());
        QVERIFY2(out.text.contains("context_parallel_rotate_method = \"alltoall\""), out.text.constData());
        plan.parallel.contextComm = ContextComm::AllToAll;
        out = io::exportPlan(plan, io::ExportTarget::Torchtitan, io::builtinCatalog());
        QVERIFY(!out.text.contains("context_parallel_rotate_method"));
        QVERIFY(std::any_of(out.notExpressed.begin(), out.notExpressed.end(),
                            [](const QString &n) { return n.startsWith(QLatin1String("parallel.context_comm = all-to-all")); }));
        // FSDP's reduce dtype: torchtitan's one choice, float32, is written; BF16 reduction is listed as not
        // expressed.
        plan.training.fp32Gradients = true;
        out = io::exportPlan(plan, io::ExportTarget::Torchtitan, io::builtinCatalog());
        QVERIFY2(out.text.contains("mixed_precision_reduce = \"float32\""), out.text.constData());
        plan.training.fp32Gradients = false;
        out = io::exportPlan(plan, io::ExportTarget::Torchtitan, io::builtinCatalog());
        QVERIFY(!out.text.contains("mixed_precision_reduce"));
        QVERIFY(std::any_of(out.notExpressed.begin(), out.notExpressed.end(),
                            [](const QString &n) { return n.startsWith(QLatin1String("training.fp32_gradients = false")); }));
    }

    /// DeepSpeed's table both ways: every key of io/interop/DeepSpeedNames, written into a config by the
    /// exporter's setter (nested objects made as needed), reads back into its plan key, each choice spelling.
    // ZeRO++'s three options on a DeepSpeed ZeRO-3 plan are written to zero_optimization and read back;
    // a plan without them writes none of them.
    void zeroPlusPlusRoundTrips()
    {
        Plan plan = test::examplePlan("llama2-7b-deepspeed-zero2-8-a100");
        plan.parallel.zeroStage = 3;
        const QByteArray without = io::exportPlan(plan, io::ExportTarget::DeepSpeed, io::builtinCatalog()).text;
        QVERIFY(!without.contains("zero_quantized") && !without.contains("zero_hpz"));
        plan.parallel.zeroQuantizedWeights = true;
        plan.parallel.zeroHpzPartition = 4;
        plan.parallel.zeroQuantizedGradients = true;
        const QJsonObject zero = QJsonDocument::fromJson(io::exportPlan(plan, io::ExportTarget::DeepSpeed,
                                                                        io::builtinCatalog()).text)
                                     .object()
                                     .value("zero_optimization")
                                     .toObject();
        QCOMPARE(zero.value("zero_quantized_weights"), QJsonValue(true));
        QCOMPARE(zero.value("zero_hpz_partition_size"), QJsonValue(4));
        QCOMPARE(zero.value("zero_quantized_gradients"), QJsonValue(true));
        QVERIFY2(roundTrip(plan, io::ExportTarget::DeepSpeed).isEmpty(),
                 qPrintable(roundTrip(plan, io::ExportTarget::DeepSpeed)));
    }

    // FP8's scaling: Megatron-LM's --fp8-recipe tensorwise (delayed, its default, is left unsaid) and NeMo's
    // fp8_recipe, each read back; torchtitan's float8 is tensorwise, so a delayed plan says what it cannot write.
    void fp8ScalingRoundTrips()
    {
        Plan plan = test::examplePlan("llama3-70b-fp8-current-scaling-64-h100");
        QCOMPARE(plan.training.fp8Recipe, Fp8Recipe::Tensorwise);
        const QByteArray megatron = io::exportPlan(plan, io::ExportTarget::Megatron, io::builtinCatalog()).text;
        QVERIFY(megatron.contains("--fp8-format hybrid") && megatron.contains("--fp8-recipe tensorwise"));
        for (const io::ExportTarget target : {io::ExportTarget::Megatron, io::ExportTarget::NeMo})
            QVERIFY2(roundTrip(plan, target).isEmpty(), qPrintable(roundTrip(plan, target)));
        plan.training.fp8Recipe = Fp8Recipe::Delayed;
        QVERIFY(!io::exportPlan(plan, io::ExportTarget::Megatron, io::builtinCatalog()).text.contains("--fp8-recipe"));
        for (const io::ExportTarget target : {io::ExportTarget::Megatron, io::ExportTarget::NeMo})
            QVERIFY2(roundTrip(plan, target).isEmpty(), qPrintable(roundTrip(plan, target)));
        plan.parallel.pipeline = 1;
        plan.parallel.virtualStages = 1;
        plan.parallel.schedule = Schedule::OneFOneB;
        plan.parallel.tensor = 8;
        plan.parallel.data = 8;
        plan.parallel.zeroStage = 3;
        plan.training.framework = Framework::Fsdp;
        const io::ExportResult titan = io::exportPlan(plan, io::ExportTarget::Torchtitan, io::builtinCatalog());
        QVERIFY2(titan.notExpressed.join('\n').contains(QLatin1String("training.fp8_recipe = delayed")),
                 qPrintable(titan.notExpressed.join('\n')));
    }

    // Layers per stage as Megatron-Core's --pipeline-model-parallel-layout (without the virtual-stage flag it
    // replaces), read back as the same list and chunks per stage.
    void stageLayersRoundTrip()
    {
        const Plan plan = test::examplePlan("llama3-70b-fp8-current-scaling-64-h100");
        const QByteArray text = io::exportPlan(plan, io::ExportTarget::Megatron, io::builtinCatalog()).text;
        QVERIFY2(text.contains("--pipeline-model-parallel-layout \"Et*2|t*2|"), text.constData());
        QVERIFY(!text.contains("--num-virtual-stages-per-pipeline-rank"));
        QVERIFY2(roundTrip(plan, io::ExportTarget::Megatron).isEmpty(), qPrintable(roundTrip(plan, io::ExportTarget::Megatron)));
        const io::ExportResult nemo = io::exportPlan(plan, io::ExportTarget::NeMo, io::builtinCatalog());
        QVERIFY(nemo.notExpressed.join('\n').contains(QLatin1String("parallel.stage_layers")));
    }

    /// llm-foundry's table both ways (issue 38): every name of io/interop/LlmFoundryNames reads into its key in a
    /// training YAML (a number, a flag, each spelling of a choice; Composer's fsdp_config and parallelism_config.fsdp
    /// alike), and the export writes a choice's first spelling where the table puts it.
    void llmFoundryNamesReadBack()
    {
        const auto read = [](const QString &name, const QString &value, const char *path) {
            // The dotted name as nested sections, beside the MPT model the reader needs to read model keys.
            QString yaml = QStringLiteral("model:\n  name: mpt_causal_lm\n  attn_config:\n    attn_type: "
                                          "grouped_query_attention\n");
            QStringList parts = name.split(QLatin1Char('.'));
            const QString leaf = parts.takeLast();
            QString indent;
            for (const QString &section : parts) {
                if (section != QLatin1String("model") && section != QLatin1String("attn_config"))
                    yaml += indent + section + QStringLiteral(":\n");
                indent += QStringLiteral("  ");
            }
            yaml += indent + leaf + QStringLiteral(": ") + value + QLatin1Char('\n');
            const io::FileImport f = io::importFile(QStringLiteral("train.yaml"), yaml.toUtf8(), io::ImportFormat::LlmFoundry);
            const auto k = std::find_if(f.keys.begin(), f.keys.end(), [&](const io::ImportedKey &k) {
                return k.path == QLatin1String(path) && k.source == name;
            });
            return k == f.keys.end() ? QJsonValue() : k->value;
        };
        int rows = 0;
        for (const io::llmfoundry::Name &n : io::llmfoundry::names()) {
            const QString name = QLatin1String(n.name);
            ++rows;
            switch (n.form) {
            case io::NameForm::Integer: QCOMPARE(read(name, QStringLiteral("7"), n.path), QJsonValue(7)); break;
            case io::NameForm::Bool: QCOMPARE(read(name, QStringLiteral("false"), n.path), QJsonValue(false)); break;
            case io::NameForm::Choice:
                for (const auto &[file, plan] : n.choices) {
                    const QString p = QLatin1String(plan);
                    bool number = false;
                    const int stage = p.toInt(&number);
                    const QJsonValue expected = number                          ? QJsonValue(stage)
                                                : p == QLatin1String("true")    ? QJsonValue(true)
                                                : p == QLatin1String("false")   ? QJsonValue(false)
                                                                                : QJsonValue(p);
                    QVERIFY2(read(name, QLatin1String(file), n.path) == expected, qPrintable(name + ": " + file));
                }
                break;
            }
        }
        QVERIFY(rows > 20); // the loop read the table
        QCOMPARE(io::llmfoundry::spelling("parallel.reshard_after_forward", "false"), QStringLiteral("SHARD_GRAD_OP"));
        QCOMPARE(io::llmfoundry::entry("model.kv_heads", QStringLiteral("8")), QStringLiteral("    kv_n_heads: 8\n"));
        QCOMPARE(io::llmfoundry::entry("training.global_batch", QStringLiteral("1024")),
                 QStringLiteral("global_train_batch_size: 1024\n"));

        // Each of Composer's sharding strategies a plan can say is written and read back.
        Plan plan = test::examplePlan("mpt-7b-llmfoundry-64-h100");
        for (const auto &[stage, reshard, spelled] : {std::tuple{3, false, "SHARD_GRAD_OP"}, std::tuple{3, true, "FULL_SHARD"},
                                                      std::tuple{0, true, "NO_SHARD"}}) {
            plan.parallel.zeroStage = stage;
            plan.parallel.reshardAfterForward = reshard;
            const io::ExportResult e = io::exportPlan(plan, io::ExportTarget::LlmFoundry, io::builtinCatalog());
            QVERIFY2(e.text.contains(QByteArray("  sharding_strategy: ") + spelled + '\n'), e.text.constData());
            const io::FileImport f = io::importFile(QStringLiteral("train.yaml"), e.text, io::ImportFormat::LlmFoundry);
            const auto value = [&f](const char *path) {
                const auto k = std::find_if(f.keys.begin(), f.keys.end(),
                                            [&](const io::ImportedKey &k) { return k.path == QLatin1String(path); });
                return k == f.keys.end() ? QJsonValue() : k->value;
            };
            QCOMPARE(value("parallel.zero_stage"), QJsonValue(stage));
            QCOMPARE(value("parallel.reshard_after_forward"), stage == 3 ? QJsonValue(reshard) : QJsonValue());
        }
    }

    void deepSpeedNamesReadBack()
    {
        for (const io::deepspeed::Name &n : io::deepspeed::names()) {
            // The plan's value and what the import gives back (a flag or a choice of the offload's device).
            const std::vector<std::pair<QJsonValue, QJsonValue>> cases =
                n.form == io::deepspeed::Form::Integer
                    ? std::vector<std::pair<QJsonValue, QJsonValue>>{{QJsonValue(7), QJsonValue(7)}}
                    : std::vector<std::pair<QJsonValue, QJsonValue>>{{QJsonValue(true), QJsonValue(true)},
                                                                     {QJsonValue(false), QJsonValue(false)}};
            for (const auto &[plan, expected] : cases) {
                QJsonObject config{{"zero_optimization", QJsonObject{{"contiguous_gradients", true}}}};
                io::deepspeed::set(config, n.path, plan);
                QVERIFY(config.value("zero_optimization").toObject().contains("contiguous_gradients")); // kept
                const io::FileImport f = io::importFile(QStringLiteral("ds.json"), QJsonDocument(config).toJson(),
                                                        io::ImportFormat::DeepSpeed);
                const auto k = std::find_if(f.keys.begin(), f.keys.end(),
                                            [&](const io::ImportedKey &k) { return k.path == QLatin1String(n.path); });
                QVERIFY2(k != f.keys.end(), n.name);
                QVERIFY2(k->value == expected, n.name);
            }
        }
        QJsonObject config;
        io::deepspeed::set(config, "parallel.offload_optimizer", true);
        QCOMPARE(config.value("zero_optimization").toObject().value("offload_optimizer").toObject().value("device"),
                 QJsonValue(QStringLiteral("cpu")));
        const io::FileImport nvme = io::importFile(
            QStringLiteral("ds.json"), R"({"zero_optimization": {"offload_optimizer": {"device": "nvme"}}})",
            io::ImportFormat::DeepSpeed);
        QVERIFY(std::any_of(nvme.keys.begin(), nvme.keys.end(), [](const io::ImportedKey &k) {
            return k.path == QLatin1String("parallel.offload_optimizer") && k.value == QJsonValue(true);
        }));
    }
};

TRAINPLAN_TEST_GUILESS_MAIN(TestExport)
#include "tst_export.moc"
