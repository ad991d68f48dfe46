// Imports (issue 20): published model configs read to the catalog's presets exactly; a Megatron-LM
// launch script and a config.json combined, every key reported with its file and line; keys not
// understood are warnings with their line; two files that disagree are an error naming both; NeMo,
// torchtitan and DeepSpeed files; the CLI's output and exit codes.

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QDir>
#include <QDirIterator>
#include <QRegularExpression>
#include <QTest>

#include "TestMain.h"
#include "TestSupport.h"
#include "app/ImportCommand.h"
#include "core/estimate/Estimate.h"
#include "core/model/ModelSpec.h"
#include "core/plan/PlanKeys.h"
#include "io/interop/Export.h"
#include "io/interop/Import.h"

using namespace trainplan;

namespace {

QString data(const char *name)
{
    return test::dataPath(QStringLiteral("import/%1").arg(QLatin1String(name)));
}

const io::ImportedKey *readKey(const io::ImportResult &r, const char *path, const char *fileEnd = "")
{
    for (const io::ImportedKey &k : r.read)
        if (k.path == QLatin1String(path) && k.file.endsWith(QLatin1String(fileEnd)))
            return &k;
    return nullptr;
}

bool warned(const io::ImportResult &r, const char *text, int line)
{
    for (const io::ImportMessage &m : r.warnings)
        if (m.text.contains(QLatin1String(text)) && m.line == line)
            return true;
    return false;
}

double parameters(const Plan &plan)
{
    return totalParameters(plan.model);
}

/// tests/data/import/real_expected.csv by file: file, given, expect (plan or refuse), parameters, checks, source.
bool readCorpusExpectations(std::map<QString, QStringList> &rows)
{
    QFile table(test::dataPath(QStringLiteral("import/real_expected.csv")));
    if (!table.open(QIODevice::ReadOnly | QIODevice::Text))
        return false;
    for (const QByteArray &raw : table.readAll().split('\n')) {
        const QString line = QString::fromUtf8(raw).trimmed();
        if (line.isEmpty() || line.startsWith(QLatin1String("file,")))
            continue;
        const QStringList cells = line.split(QLatin1Char(','));
        if (cells.size() < 6 || !rows.emplace(cells[0], cells).second) {
            qWarning("real_expected.csv: %s", qPrintable(line));
            return false;
        }
    }
    return !rows.empty();
}

} // namespace

class TestImport : public QObject
{
    Q_OBJECT

private slots:
    void huggingFaceConfigsMatchThePresets_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("preset");
        QTest::newRow("DeepSeek-V3 (MLA, shared experts, dense first layers, MTP)") << data("deepseek-v3-config.json") << "deepseek-v3";
        QTest::newRow("Llama 3 8B (GQA)") << data("llama3-8b-config.json") << "llama3-8b";
        QTest::newRow("Mixtral 8x7B (experts)") << data("mixtral-8x7b-config.json") << "mixtral-8x7b";
        QTest::newRow("Qwen3-30B-A3B (head_dim, 128 experts)") << data("qwen3-30b-a3b-config.json") << "qwen3-30b-a3b";
        QTest::newRow("gpt-oss-120b (biases, experts_per_token)") << data("gpt-oss-120b-config.json") << "gpt-oss-120b";
        // The config.json of nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16 (transformers 4.55.4), as a public JAX port's
        // tests quote it: the hybrid pattern, the Mamba-2 mixer's sizes, a shared expert 3,712 wide.
        QTest::newRow("Nemotron 3 Nano 30B-A3B (hybrid Mamba-2)") << data("nemotron-3-nano-config.json") << "nemotron-3-nano-30b-a3b";
    }
    void huggingFaceConfigsMatchThePresets()
    {
        QFETCH(QString, file);
        QFETCH(QString, preset);
        // A model's config alone says nothing of the cluster, the batch or the training sequence: each is an
        // error naming the key, never the example plan's value unseen (issue 38).
        const io::ImportResult strict = io::importFiles({file}, {}, io::builtinCatalog());
        QVERIFY(!strict.ok());
        QStringList missing;
        for (const io::MissingKey &m : strict.missing)
            missing << m.path;
        QCOMPARE(missing, QStringList({"cluster.device", "cluster.nodes", "model.seq_len", "training.global_batch"}));
        QCOMPARE(strict.errors.size(), std::size_t(4));
        QVERIFY(strict.errors.front().text.contains(QStringLiteral("--assume-example")));
        // Given, the plan takes them and the plan format's defaults for the rest, not the example's (which
        // recomputes selectively with sequence parallelism).
        const io::ImportResult given = io::importFiles({file}, {"cluster.device=h100-sxm5-80gb", "cluster.nodes=4", "model.seq_len=4096", "training.global_batch=256"},
                                                       io::builtinCatalog());
        QVERIFY2(given.ok(), qPrintable(io::importReport(given)));
        QVERIFY(given.assumptions.isEmpty() && given.missing.empty());
        QCOMPARE(given.plan->cluster.nodes * given.plan->cluster.gpusPerNode, 32); // 8 GPUs per node, the format's default
        QCOMPARE(given.plan->training.recompute, Recompute::None);
        QVERIFY(!given.plan->training.sequenceParallel);
        io::ImportOptions assume;
        assume.assumeExample = true;
        const io::ImportResult r = io::importFiles({file}, {}, io::builtinCatalog(), assume);
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        const ModelSpec *catalog = io::builtinCatalog().model(preset.toStdString());
        QVERIFY(catalog);
        Plan reference = *r.plan;
        reference.model = *catalog;
        // The same parameters as the catalog's preset, which cites the same published config.
        QCOMPARE(parameters(*r.plan), parameters(reference));
        QCOMPARE(r.plan->model.experts, catalog->experts);
        QCOMPARE(r.plan->model.kvHeads, catalog->kvHeads);
        QCOMPARE(r.plan->model.attention, catalog->attention);
        QCOMPARE(r.plan->model.routerGroups, catalog->routerGroups); // DeepSeek-V3: n_group 8, topk_group 4
        QCOMPARE(r.plan->model.routerGroupTopk, catalog->routerGroupTopk);
        // gpt-oss: sliding_window 128 on alternating layer_types, attention sinks; Qwen3 carries a null window.
        QCOMPARE(r.plan->model.slidingWindow, catalog->slidingWindow);
        QCOMPARE(r.plan->model.fullAttentionInterval, catalog->fullAttentionInterval);
        QCOMPARE(r.plan->model.attentionSinks, catalog->attentionSinks);
        QCOMPARE(r.plan->model.hybridPattern, catalog->hybridPattern);
        QCOMPARE(r.plan->model.mambaHeadCount(), catalog->mambaHeadCount());
        QCOMPARE(r.plan->model.mambaGroups, catalog->mambaGroups);
        QCOMPARE(r.plan->model.position, catalog->position);
        QCOMPARE(r.plan->model.norm, catalog->norm);
        // Asked for, what no file gives comes from the example plan and is listed.
        QVERIFY(r.assumptions.join('\n').contains(QStringLiteral("cluster.device")));
        QVERIFY(r.assumptions.join('\n').contains(QStringLiteral("model.seq_len")));
    }

    void scriptAndConfigCombine()
    {
        const io::ImportResult r = io::importFiles({data("llama3-8b-config.json"), data("pretrain_llama3_8b.sh")},
                                                   {QStringLiteral("cluster.device=h100-sxm5-80gb")}, io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QVERIFY(r.assumptions.isEmpty()); // nothing from the example plan
        const Plan &p = *r.plan;
        QCOMPARE(p.parallel.tensor, 2);
        QCOMPARE(p.parallel.pipeline, 2);
        QCOMPARE(p.parallel.schedule, Schedule::Interleaved);
        QCOMPARE(p.parallel.virtualStages, 4); // 32 layers / (2 stages x 4 layers per virtual stage)
        QCOMPARE(p.cluster.nodes, 4);          // NNODES=${NNODES:-4}
        QCOMPARE(p.cluster.gpusPerNode, 8);
        QCOMPARE(p.parallel.data, 8);
        QCOMPARE(p.training.globalBatch, 128);
        QCOMPARE(p.training.precision, Precision::BF16);
        QCOMPARE(p.parallel.zeroStage, 1); // --use-distributed-optimizer
        QVERIFY(p.training.sequenceParallel && p.training.flashAttention && !p.model.dropout && !p.model.tiedEmbeddings);
        QCOMPARE(p.model.seqLen, 8192);
        // Every key with its file and line: --tensor-model-parallel-size is on line 20 of the script.
        const io::ImportedKey *tensor = readKey(r, "parallel.tensor", ".sh");
        QVERIFY(tensor);
        QCOMPARE(tensor->line, 20);
        QCOMPARE(readKey(r, "model.hidden", "config.json")->line, 10);
        // Hyperparameters are read silently; a flag with no plan key is a warning on its line.
        QVERIFY(warned(r, "use_fancy_kernels", 42));
        for (const io::ImportMessage &m : r.warnings)
            QVERIFY2(!m.text.contains(QLatin1String("lr")), qPrintable(m.text));
        QVERIFY(r.notPlanned.join(' ').contains(QStringLiteral("min_lr")));
    }

    // Megatron-LM's own examples and Pai-Megatron-Patch's, unchanged (tests/data/import/real/SOURCES.md):
    // each reads as bash runs it, or fails naming what it cannot know.
    void realLaunchScripts()
    {
        const QStringList h100{QStringLiteral("cluster.device=h100-sxm5-80gb")};
        // Llama 3 8B FP8: "--fp8-format hybrid" is one quoted array element, split when the array is expanded.
        io::ImportResult r = io::importFiles({data("real/train_llama3_8b_h100_fp8.sh")}, h100, io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->training.precision, Precision::FP8);
        QVERIFY(r.plan->training.fp8ParamGather);
        QVERIFY(r.plan->parallel.overlapGradReduce && r.plan->parallel.overlapParamGather);
        QCOMPARE(r.plan->parallel.zeroStage, 1);
        QCOMPARE(r.plan->model.vocab, 128256);
        QCOMPARE(r.plan->model.seqLen, 8192);
        QCOMPARE(r.plan->training.globalBatch, 128);
        QCOMPARE(r.plan->cluster.nodes * r.plan->cluster.gpusPerNode, 8);
        QCOMPARE(readKey(r, "training.fp8_param_gather")->line, 111);
        // --bf16 keeps and reduces the gradients in FP32 unless --grad-reduce-in-bf16 says otherwise (Megatron-LM
        // arguments.py: "bfloat16 requires gradient accumulation and all-reduce to be done in fp32"); this script
        // says it (line 96).
        QVERIFY(!r.plan->training.fp32Gradients);
        QCOMPARE(readKey(r, "training.fp32_gradients")->line, 96);
        QVERIFY(std::abs(parameters(*r.plan) / 8.03e9 - 1) < 0.01); // Llama 3 8B's model card: 8.03 B
        // Mixtral 8x7B: the last switch of an array does not swallow the next line; Llama 2's tokenizer gives
        // the vocabulary (32,000, a multiple of 128). Its layout needs 32 GPUs: one node is refused naming the rule.
        r = io::importFiles({data("real/train_mixtral_8x7b_distributed.sh")}, h100, io::builtinCatalog());
        QVERIFY(!r.ok() && r.errors.front().text.contains(QStringLiteral("parallel.expert")));
        r = io::importFiles({data("real/train_mixtral_8x7b_distributed.sh")}, h100 + QStringList{"cluster.nodes=4"}, io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QVERIFY(r.plan->parallel.overlapGradReduce && r.plan->parallel.overlapParamGather);
        QCOMPARE(r.plan->training.precision, Precision::BF16);
        QCOMPARE(r.plan->model.vocab, 32000);
        QCOMPARE(r.plan->model.experts, 8);
        QCOMPARE(r.plan->parallel.expert, 8);
        QVERIFY(r.plan->training.fp32Gradients); // --bf16 alone: FP32 main_grad (Megatron-LM's default, said weak)
        QVERIFY(std::abs(parameters(*r.plan) / 46.7e9 - 1) < 0.01); // Mixtral 8x7B: 46.7 B (Jiang et al. 2024)
        // GPT-3 175B: pretrain_gpt.py's default GPT-2 tokenizer, 50,257 padded to a multiple of 128 x 8 = 51,200.
        r = io::importFiles({data("real/train_gpt3_175b_distributed.sh")}, h100 + QStringList{"cluster.nodes=16"}, io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->model.vocab, 51200);
        QCOMPARE(r.plan->training.precision, Precision::FP16);
        QCOMPARE(r.plan->parallel.tensor * r.plan->parallel.pipeline, 128);
        QVERIFY(std::abs(parameters(*r.plan) / 175e9 - 1) < 0.01);
        // Pai-Megatron-Patch: the shape and the layout are the script's positional arguments, gathered in a
        // string and eval'ed. Without them nothing is guessed: each flag is named and the import fails.
        r = io::importFiles({data("real/run_mcore_llama3_1.sh")}, h100, io::builtinCatalog());
        QVERIFY(!r.ok());
        QVERIFY(warned(r, "--num_layers ${NUM_LAYERS}", 333)); // eval ${run_cmd}, not the echo before it
        QVERIFY(warned(r, "--tensor_model_parallel_size ${10}", 333));
        QVERIFY(!readKey(r, "model.layers") && !readKey(r, "parallel.tensor"));
        QCOMPARE(r.missingArguments, 25);
        QVERIFY(io::importReport(r).contains(QLatin1String("expands $1 ... $25, run without them")));
        // Run with the arguments of the script's README (examples/llama3_1/README.md at a098ca5: "sh
        // run_mcore_llama3_1.sh dsw 8B 1 8 1e-5 1e-6 128 128 bf16 4 2 1 true true true false false false 100000
        // ..."): ENV=dsw (one node), the 8B branch (32 layers, 4,096 wide, 14,336 FFN, 8 groups), micro-batch 1,
        // global batch 8, sequence 128, BF16, TP 4, PP 2, CP 1, sequence parallel, the distributed optimizer, AC
        // "false" (no branch: no recomputation); LLama3Tokenizer's 128,000 + EXTRA_VOCAB_SIZE 256.
        io::ImportOptions options;
        options.scriptArguments = QStringList{"dsw", "8B", "1", "8", "1e-5", "1e-6", "128", "128", "bf16", "4", "2", "1",
                                              "true", "true", "true", "false", "false", "false", "100000", "/mnt/data",
                                              "/mnt/data", "/mnt/ckpt", "10000", "100", "/workspace/out"};
        r = io::importFiles({data("real/run_mcore_llama3_1.sh")}, h100, io::builtinCatalog(), options);
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.missingArguments, 0);
        QCOMPARE(r.plan->model.layers, 32);
        QCOMPARE(r.plan->model.ffnHidden, 14336);
        QCOMPARE(r.plan->model.kvHeads, 8);
        QCOMPARE(r.plan->model.vocab, 128256);
        QCOMPARE(r.plan->model.seqLen, 128);
        QCOMPARE(r.plan->training.globalBatch, 8);
        QCOMPARE(r.plan->training.precision, Precision::BF16);
        QVERIFY(r.plan->training.sequenceParallel);
        QCOMPARE(r.plan->training.recompute, Recompute::None);
        QCOMPARE(r.plan->parallel.tensor, 4);
        QCOMPARE(r.plan->parallel.pipeline, 2);
        QCOMPARE(r.plan->parallel.zeroStage, 1);
        QCOMPARE(r.plan->cluster.nodes, 1);
        QVERIFY(std::abs(parameters(*r.plan) / 8.03e9 - 1) < 0.01);
        // Pai's Qwen2.5 script with its README's pretraining arguments (examples/qwen2_5/README.md at a098ca5:
        // "sh run_mcore_qwen.sh dsw 0.5B 1 8 1e-5 1e-6 128 128 bf16 1 1 1 true true true false false false
        // 100000 ..."): TP 1 with SP true leaves sp_options unset (only TP > 1 or SP false set it), which bash
        // expands to nothing; the distributed optimizer before it (DO true) is ZeRO 1. Qwen2.5-0.5B: 24 layers,
        // 896 wide, 14 heads over 2 groups, 4,864 FFN, tied embeddings (tie_option empty for 0.5B), Qwen2Tokenizer's
        // 151,643 + 293: 151,936; the model card's 0.49 B parameters (QKV biases, 1,152 a layer, not planned).
        io::ImportOptions qwen;
        qwen.scriptArguments = QStringList{"dsw", "0.5B", "1", "8", "1e-5", "1e-6", "128", "128", "bf16", "1", "1",
                                           "1", "true", "true", "true", "false", "false", "false", "100000",
                                           "/mnt/data", "/mnt/data", "/mnt/ckpt", "10000", "100", "/workspace/out"};
        r = io::importFiles({data("real/run_mcore_qwen2_5.sh")}, h100, io::builtinCatalog(), qwen);
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->parallel.zeroStage, 1);
        QCOMPARE(r.plan->parallel.data, 8);
        QCOMPARE(r.plan->model.layers, 24);
        QCOMPARE(r.plan->model.kvHeads, 2);
        QCOMPARE(r.plan->model.vocab, 151936);
        QVERIFY(r.plan->model.tiedEmbeddings);
        QVERIFY2(std::abs(parameters(*r.plan) / 0.494e9 - 1) < 0.01, qPrintable(QString::number(parameters(*r.plan))));
        // Pai's DeepSeek-V3 "lite" script: the arrays joined into cmd="torchrun ..." and eval'ed after "echo $cmd";
        // the eval removes the escapes of --pipeline-model-parallel-layout 'Et\|\(tt\|\)*30L' (the echo
        // prints them: it is not the command), 61 layers on 8 stages (4 + 30 x 2 + 1 layers: the first and last
        // stages hold 4 and 1 in chunks of 2 per rank... the layout's own). MLA's head sizes it leaves out take
        // Megatron-LM's defaults (qk 128, rope 64): DeepSeek-V3's 671 B with its vocabulary given.
        r = io::importFiles({data("real/run_mcore_deepseek_lite.sh")},
                            h100 + QStringList{"cluster.nodes=16", "model.vocab=129280"}, io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(readKey(r, "derived.pipeline_layout")->value.toString(), QStringLiteral("Et|(tt|)*30L"));
        QCOMPARE(r.plan->parallel.pipeline, 8);
        QCOMPARE(r.plan->model.qkNopeHeadDim, 128);
        QCOMPARE(r.plan->model.qkRopeHeadDim, 64);
        QVERIFY(std::abs(parameters(*r.plan) / 671e9 - 1) < 0.01);
        // Pai's Qwen1.5 script run with its README's MoE arguments (examples/qwen1_5/README.md: "dsw ../../ A2.7B 1 8
        // 1e-5 1e-6 2048 2048 293 bf16 2 1 sel true true true true true 500 ..."): Qwen1.5-MoE-A2.7B, 60 experts
        // top 4 of 1,408 and the shared expert of 5,632 (--shared-moe-ffn-hidden-size with --enable-shared-expert),
        // Qwen2Tokenizer's 151,643 + 293 = 151,936: 14.3 B (model card).
        io::ImportOptions moe;
        moe.scriptArguments = QProcess::splitCommand(
            QStringLiteral("dsw ../../ A2.7B 1 8 1e-5 1e-6 2048 2048 293 bf16 2 1 sel true true true true true 500 "
                           "/mnt/qwen-datasets/wudao_qwenbpe_text_document /mnt/qwen-ckpts/Qwen1.5-MoE-A2.7B-to-mcore "
                           "100000000 10000 /mnt/qwen-ckpts/test_cp_upcycled"));
        r = io::importFiles({data("real/run_pretrain_mcore_qwen1_5.sh")}, h100, io::builtinCatalog(), moe);
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->model.vocab, 151936);
        QCOMPARE(r.plan->model.experts, 60);
        QCOMPARE(r.plan->model.expertsPerToken, 4);
        QCOMPARE(r.plan->model.sharedExperts * r.plan->model.expertWidth(), 5632);
        QCOMPARE(r.plan->model.seqLen, 2048);
        QCOMPARE(r.plan->parallel.tensor, 2);
        QVERIFY(std::abs(parameters(*r.plan) / 14.3e9 - 1) < 0.01);
        // AC "sel" takes the selective branch.
        options.scriptArguments[16] = QStringLiteral("sel");
        r = io::importFiles({data("real/run_mcore_llama3_1.sh")}, h100, io::builtinCatalog(), options);
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->training.recompute, Recompute::Selective);
    }

    // Qi et al.'s fork of Megatron-LM (sail-sg/zero-bubble-pipeline-parallelism, its README): --enable-zero-bubble
    // schedules under --zero-bubble-max-pending-backward, "1 x number of pipelines ... ZB1P ... 2x number of
    // pipelines ... ZB2P"; its V schedule and the adaptive "auto" limit are planned as ZB-H1 and said.
    void zeroBubbleForkLimits()
    {
        const QStringList a100{QStringLiteral("cluster.device=a100-sxm4-80gb"), QStringLiteral("cluster.nodes=1")};
        const QByteArray run = "torchrun --nproc_per_node 8 pretrain_gpt.py --num-layers 32 --hidden-size 4096 "
                               "--num-attention-heads 32 --seq-length 1024 --pipeline-model-parallel-size 8 "
                               "--micro-batch-size 3 --global-batch-size 96 --fp16 --enable-zero-bubble "
                               "--enable-optimizer-post-validation";
        const auto import = [&](const QByteArray &flags, const QStringList &sets) {
            return io::importContents({{QStringLiteral("run.sh"), run + flags + "\n"}}, sets, io::builtinCatalog());
        };
        io::ImportResult r = import(" --zero-bubble-max-pending-backward 16", a100);
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->parallel.schedule, Schedule::ZeroBubbleH2);
        QVERIFY(std::none_of(r.warnings.begin(), r.warnings.end(), [](const io::ImportMessage &m) {
            return m.text.contains(QLatin1String("not understood"));
        }));
        r = import(" --zero-bubble-max-pending-backward 8", a100);
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->parallel.schedule, Schedule::ZeroBubbleH1);
        r = import("", a100); // the default limit, "auto"
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->parallel.schedule, Schedule::ZeroBubbleH1);
        QVERIFY(warned(r, "adapts its memory limit", 1));
        r = import(" --zero-bubble-max-pending-backward 16 --zero-bubble-v-schedule", a100);
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->parallel.schedule, Schedule::ZeroBubbleH1);
        QVERIFY(warned(r, "the V schedule", 1));
        // The user's --set wins over the file's flags.
        r = import(" --zero-bubble-max-pending-backward 16", a100 + QStringList{QStringLiteral("parallel.schedule=1f1b")});
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->parallel.schedule, Schedule::OneFOneB);
    }

    // Megatron-DeepSpeed's examples at 4efb479 (tests/data/import/real/megatron-deepspeed), read by hand: the
    // ZeRO stage from --zero-stage under --deepspeed (each was planned at ZeRO 0), --checkpoint-activations as
    // full recomputation, DeepSpeed-Ulysses as an all-to-all context group, ZB-H1, and knowledge distillation
    // refused; the job names' "$(ds_ssh nvidia-smi --query-gpu=name ...)" is not read as flags.
    void megatronDeepSpeedCorpus()
    {
        const QStringList a100{QStringLiteral("cluster.device=a100-sxm4-80gb"), QStringLiteral("cluster.nodes=8")};
        const auto import = [&](const char *file) {
            return io::importFiles({data("real/megatron-deepspeed/") + QLatin1String(file)}, a100, io::builtinCatalog());
        };
        // GPT-3 13B (Brown et al. 2020, Table 2.1: 40 layers of 5,120, 12.85 B): TP 4 x PP 8, ZeRO 1.
        io::ImportResult r = import("rebase__ds_pretrain_gpt_13B.sh");
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->training.framework, Framework::DeepSpeed);
        QCOMPARE(r.plan->parallel.zeroStage, 1);
        QCOMPARE(r.plan->training.recompute, Recompute::Full);
        QCOMPARE(r.plan->parallel.tensor, 4);
        QCOMPARE(r.plan->parallel.pipeline, 8);
        QCOMPARE(r.plan->training.globalBatch, 1024);
        QCOMPARE(r.plan->training.microBatch, 2);
        QVERIFY(std::abs(parameters(*r.plan) / 12.85e9 - 1) < 0.01);
        QVERIFY(std::none_of(r.warnings.begin(), r.warnings.end(),
                             [](const io::ImportMessage &w) { return w.text.contains(QLatin1String("query_gpu")); }));
        // It writes its DeepSpeed config by sed from ds_config_gpt_TEMPLATE.json (lines 289-295): alone, the
        // import names that file; given beside it, the template is read with the script's substitutions (GBSIZE
        // 1024, MBSIZE 2, ZERO_STAGE ${zero_stage} = 1), its keys at the template's lines, and agrees.
        QVERIFY(warned(r, "written by sed from ds_config_gpt_TEMPLATE.json; import ds_config_gpt_TEMPLATE.json", 290));
        {
            QFile script(data("real/megatron-deepspeed/rebase__ds_pretrain_gpt_13B.sh"));
            QFile config(data("real/megatron-deepspeed/rebase__ds_config_gpt_TEMPLATE.json"));
            QVERIFY(script.open(QIODevice::ReadOnly) && config.open(QIODevice::ReadOnly));
            const io::ImportResult both = io::importContents(
                {{QStringLiteral("ds_pretrain_gpt_13B.sh"), script.readAll()},
                 {QStringLiteral("ds_config_gpt_TEMPLATE.json"), config.readAll()}},
                a100, io::builtinCatalog());
            QVERIFY2(both.ok(), qPrintable(io::importReport(both)));
            const io::ImportedKey *stage = readKey(both, "parallel.zero_stage", "TEMPLATE.json");
            QVERIFY(stage && stage->line == 7 && stage->value.toInt() == 1);
            const io::ImportedKey *batch = readKey(both, "training.global_batch", "TEMPLATE.json");
            QVERIFY(batch && batch->line == 2 && batch->value.toInt() == 1024);
            QVERIFY(!warned(both, "written by sed", 290));
            QCOMPARE(both.plan->training.precision, Precision::FP16);
        }
        // FPDT: Ulysses over 4 ranks (sp_size=4), ZeRO 3 (zero_stage=3).
        r = import("sequence_parallel__ds_pretrain_gpt_6.7B_fpdt_32k.sh");
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->parallel.context, 4);
        QCOMPARE(r.plan->parallel.contextComm, ContextComm::AllToAll);
        QCOMPARE(r.plan->parallel.zeroStage, 3);
        // Zero-bubble ZB-H1 on 8 stages.
        r = import("zero_bubble_pp__zbh1_pretrain_gpt_1.3b.sh");
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->parallel.schedule, Schedule::ZeroBubbleH1);
        QCOMPARE(r.plan->parallel.pipeline, 8);
        // DeepSpeed-MoE's 1.3B+MoE-128 (Rajbhandari et al. 2022, 'DeepSpeed-MoE', Table 1: 52 B parameters): top-1
        // gating and experts in every second layer (Megatron-DeepSpeed's defaults, which the script leaves), expert
        // parallelism over its 64 GPUs; it was refused for want of a top-k. Its pyramid (PR-MoE, --num-experts "64
        // ... 128 128") is refused naming the key: it was planned as 64 experts in every MoE layer.
        r = import("MoE__ds_pretrain_gpt_1.3B_MoE128.sh");
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->model.experts, 128);
        QCOMPARE(r.plan->model.expertsPerToken, 1);
        QCOMPARE(r.plan->model.moeLayerInterval, 2);
        QCOMPARE(r.plan->parallel.expert, 64);
        QVERIFY(std::abs(parameters(*r.plan) / 52e9 - 1) < 0.02);
        // DeepSpeed-MoE drops tokens beyond 1.0 x an expert's balanced share unless told otherwise
        // (--moe-train-capacity-factor, default 1.0; megatron/arguments.py lines 910-918): it was planned dropless.
        QCOMPARE(r.plan->training.capacityFactor, std::optional<double>(1.0));
        // The factor given; and no dropping at all with --disable-moe-token-dropping, whatever the factor.
        const QByteArray dsMoe = "deepspeed pretrain_gpt.py --num-layers 2 --hidden-size 64 --num-attention-heads 2 "
                                 "--vocab-size 1024 --seq-length 128 --micro-batch-size 1 --global-batch-size 64 "
                                 "--deepspeed --num-experts 8 --moe-train-capacity-factor 2.0";
        r = io::importContents({{QStringLiteral("run.sh"), dsMoe + "\n"}}, a100, io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->training.capacityFactor, std::optional<double>(2.0));
        r = io::importContents({{QStringLiteral("run.sh"), dsMoe + " --disable-moe-token-dropping\n"}}, a100,
                               io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QVERIFY(!r.plan->training.capacityFactor.has_value());
        // Megatron-Core's --moe-expert-capacity-factor, and --moe-pad-expert-input-to-capacity: every expert then
        // computes its full capacity, as if it were the busiest at the factor.
        const QByteArray padded = "torchrun pretrain_gpt.py --num-layers 2 --hidden-size 64 --num-attention-heads 2 "
                                  "--vocab-size 1024 --seq-length 128 --micro-batch-size 1 --global-batch-size 64 "
                                  "--num-experts 8 --moe-grouped-gemm --moe-token-dispatcher-type alltoall "
                                  "--moe-expert-capacity-factor 1.25 --moe-pad-expert-input-to-capacity\n";
        r = io::importContents({{QStringLiteral("run.sh"), padded}}, a100, io::builtinCatalog());
        QVERIFY2(r.ok() && r.warnings.empty(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->training.capacityFactor, std::optional<double>(1.25));
        QCOMPARE(r.plan->training.expertImbalance, 1.25);
        QVERIFY(!r.plan->training.moeRouterFusion && !r.plan->training.moePermuteFusion);
        // Transformer Engine's fused router and permutation (--moe-router-fusion, --moe-permute-fusion).
        r = io::importContents({{QStringLiteral("run.sh"), padded.trimmed() + " --moe-router-fusion --moe-permute-fusion\n"}},
                               a100, io::builtinCatalog());
        QVERIFY2(r.ok() && r.warnings.empty(), qPrintable(io::importReport(r)));
        QVERIFY(r.plan->training.moeRouterFusion && r.plan->training.moePermuteFusion);
        // Megatron-Core's deferred output-layer weight gradients (--defer-embedding-wgrad-compute,
        // --wgrad-deferral-limit), with pipeline stages.
        r = io::importContents({{QStringLiteral("run.sh"), padded.trimmed() + " --pipeline-model-parallel-size 2 "
                                                                              "--defer-embedding-wgrad-compute "
                                                                              "--wgrad-deferral-limit 22\n"}},
                               a100, io::builtinCatalog());
        QVERIFY2(r.ok() && r.warnings.empty(), qPrintable(io::importReport(r)));
        QVERIFY(r.plan->training.deferEmbeddingWgrad);
        QCOMPARE(r.plan->training.wgradDeferralLimit, 22);
        // Transformer Engine's cross-entropy takes both flags (language_module.py, compute_language_model_loss);
        // the implementation alone, or the fusion with the native one, is Megatron's own kernel.
        r = io::importContents(
            {{QStringLiteral("run.sh"), padded.trimmed() + " --cross-entropy-loss-fusion --cross-entropy-fusion-impl te\n"}},
            a100, io::builtinCatalog());
        QVERIFY2(r.ok() && r.warnings.empty(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->training.lossKernel, LossKernel::TransformerEngine);
        r = io::importContents({{QStringLiteral("run.sh"), padded.trimmed() + " --cross-entropy-fusion-impl te\n"}},
                               a100, io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->training.lossKernel, LossKernel::Auto);
        r = import("MoE__ds_pretrain_gpt_1.3B_PR-MoE64or128.sh");
        QVERIFY2(!r.ok() && r.errors.front().text.startsWith(QLatin1String("num_experts 64 64")) &&
                     r.errors.front().text.contains(QLatin1String("model.experts")),
                 qPrintable(io::importReport(r)));
        // A batch ramp (--rampup-batch-size START INCREMENT SAMPLES) is said; the plan is the final batch.
        const QByteArray ramp = "torchrun pretrain_gpt.py --num-layers 2 --hidden-size 64 --num-attention-heads 2 "
                                "--vocab-size 1024 --seq-length 128 --micro-batch-size 1 --rampup-batch-size 16 16 "
                                "5859375 --global-batch-size 64\n";
        r = io::importContents({{QStringLiteral("run.sh"), ramp}}, a100, io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->training.globalBatch, 64);
        QVERIFY(warned(r, "rampup_batch_size 16 16 5859375: the batch ramps up", 1));
        // The DeepSpeed config a script writes itself (cat <<EOT > $DS_CONFIG ... EOT) is read with its flags. The 1T
        // model of the Megatron table (Narayanan et al. 2021, Table 1: 128 layers of 25,600, 1,008 B parameters)
        // trains in ZeRO-3 with its optimizer on the host (offload_optimizer.device "cpu" in the config,
        // --cpu-optimizer among the flags): both were dropped before, a plan that cannot fit its 8 GPUs.
        r = io::importFiles({data("real/megatron-deepspeed/azure__run-1t.sh")},
                            {QStringLiteral("cluster.device=a100-sxm4-80gb")}, io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->parallel.zeroStage, 3);
        QVERIFY(r.plan->parallel.offloadOptimizer);
        QCOMPARE(r.plan->training.precision, Precision::FP16);
        QCOMPARE(r.plan->training.recompute, Recompute::Full);
        QCOMPARE(r.plan->parallel.bucketBytes, 2 * 90e6); // reduce_bucket_size 90,000,000 16-bit gradients
        QVERIFY(std::abs(parameters(*r.plan) / 1008e9 - 1) < 0.01);
        QVERIFY2(std::none_of(r.warnings.begin(), r.warnings.end(),
                              [](const io::ImportMessage &w) { return w.text.contains(QLatin1String("not understood")); }),
                 qPrintable(io::importReport(r)));
        const auto offload = std::find_if(r.read.begin(), r.read.end(), [](const io::ImportedKey &k) {
            return k.source == QLatin1String("zero_optimization.offload_optimizer.device");
        });
        QVERIFY(offload != r.read.end());
        QCOMPARE(offload->line, 84); // the config's line in the script
        // Grouped-query attention in Megatron-DeepSpeed's spelling (--num-key-value-heads 4 of 16 heads), BF16 and
        // ZeRO 0 from the written config. Its tokenizer is a local file: the vocabulary is asked for (Llama 2's).
        r = io::importFiles({data("real/megatron-deepspeed/pretrain_llama2_distributed.sh")},
                            {QStringLiteral("cluster.device=a100-sxm4-80gb"), QStringLiteral("model.vocab=32000")},
                            io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->model.kvHeads, 4);
        QCOMPARE(r.plan->training.precision, Precision::BF16);
        QCOMPARE(r.plan->parallel.zeroStage, 0);
        QCOMPARE(r.plan->cluster.gpus(), 8);
        // A written config that contradicts the flags is an error naming the key and both places.
        const QByteArray contradicts = "cat <<EOT > ds.json\n{\"train_batch_size\": 64, \"zero_optimization\": {\"stage\": 2}}\n"
                                       "EOT\ntorchrun pretrain_gpt.py --num-layers 2 --hidden-size 64 --num-attention-heads 2 "
                                       "--vocab-size 1024 --seq-length 128 --micro-batch-size 1 --global-batch-size 64 "
                                       "--deepspeed --deepspeed_config ds.json --zero-stage 1\n";
        r = io::importContents({{QStringLiteral("run.sh"), contradicts}}, a100, io::builtinCatalog());
        QVERIFY2(!r.ok() && r.errors.front().text.startsWith(QLatin1String("parallel.zero_stage: 2 here")),
                 qPrintable(io::importReport(r)));
        QCOMPARE(r.errors.front().line, 2);
        // Its data-efficiency analysis (examples_deepspeed/data_efficiency/gpt/ds_analyze_gpt_data_map.sh) runs
        // analyze_data.py with --micro-batch-size 10000 over a 1-layer stand-in: not a training run.
        r = io::importContents({{QStringLiteral("map.sh"), "python ../analyze_data.py --analyzing-task map --micro-batch-size "
                                                           "10000 --global-batch-size 10000 --num-layers 1 --hidden-size 1\n"}},
                               a100, io::builtinCatalog());
        QVERIFY2(!r.ok() && r.errors.front().text.startsWith(QLatin1String("runs analyze_data.py, not training")),
                 qPrintable(io::importReport(r)));
        // A config the script only names is said, not guessed.
        const QByteArray named = "torchrun pretrain_gpt.py --num-layers 2 --hidden-size 64 --num-attention-heads 2 "
                                 "--vocab-size 1024 --seq-length 128 --micro-batch-size 1 --global-batch-size 64 "
                                 "--deepspeed --deepspeed_config ds_config_zero2.json\n";
        r = io::importContents({{QStringLiteral("run.sh"), named}}, a100, io::builtinCatalog());
        QVERIFY(warned(r, "deepspeed_config ds_config_zero2.json: a file this script does not write", 1));
        // Knowledge distillation: a teacher beside the student.
        r = import("compression__ds_pretrain_gpt_125M_dense_kd.sh");
        QVERIFY2(!r.ok() && r.errors.front().text.startsWith(QLatin1String("kd: knowledge distillation")),
                 qPrintable(io::importReport(r)));
    }

    // Megatron-LM's own examples at d98e8a6 (tests/data/import/real/megatron-lm, SOURCES.md), read by hand.
    void megatronExamplesCorpus()
    {
        const QStringList h100{QStringLiteral("cluster.device=h100-sxm5-80gb")};
        // Megatron-FSDP's Llama 3 8B FP8: TRAINING_ARGS=("${TRAINING_ARGS[@]}" --use-megatron-fsdp ...) keeps the
        // batch and --bf16 it held; sharding optim_grads_params is ZeRO-3; "--fp8-format hybrid" and
        // "--vocab-size 128256" are quoted elements of the mock-data array.
        io::ImportResult r = io::importFiles({data("real/megatron-lm/train_llama3_8b_fsdp_h100_fp8.sh")}, h100, io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->training.globalBatch, 128);
        QCOMPARE(r.plan->training.microBatch, 1);
        QCOMPARE(r.plan->training.precision, Precision::FP8);
        QVERIFY(r.plan->training.fp8ParamGather);
        QCOMPARE(r.plan->parallel.zeroStage, 3);
        QCOMPARE(r.plan->model.vocab, 128256);
        QCOMPARE(r.plan->cluster.nodes * r.plan->cluster.gpusPerNode, 8);
        QVERIFY(std::abs(parameters(*r.plan) / 8.03e9 - 1) < 0.01);
        // Megatron-FSDP's DeepSeek-V3: the arguments reach pretrain_gpt.py through TRAINING_CMD, run by
        // srun ... bash -x -c in a heredoc to sbatch; the node count is a placeholder (--nodes=your_own_num_nodes),
        // so the import fails naming cluster.nodes; given it, DeepSeek-V3 with its MTP layer, EP 8, ZeRO-3.
        r = io::importFiles({data("real/megatron-lm/sbatch_mfsdp_deepseek_v3.sh")}, h100, io::builtinCatalog());
        QVERIFY(!r.ok() && io::importReport(r).contains(QLatin1String("cluster.nodes")));
        r = io::importFiles({data("real/megatron-lm/sbatch_mfsdp_deepseek_v3.sh")}, h100 + QStringList{"cluster.nodes=32"}, io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->model.vocab, 129280); // --tokenizer-model deepseek-ai/DeepSeek-V3, padded to 3,232 x 40
        QCOMPARE(r.plan->model.experts, 256);
        QCOMPARE(r.plan->model.mtpLayers, 1);
        QCOMPARE(r.plan->parallel.expert, 8);
        QCOMPARE(r.plan->parallel.zeroStage, 3);
        QCOMPARE(r.plan->training.globalBatch, 2048);
        QVERIFY(std::abs(parameters(*r.plan) / 671e9 - 1) < 0.01); // DeepSeek-V3: 671 B
        // GPT-OSS's example sets 12 layers and as many pipeline stages as GPUs (8): Megatron refuses it, so does
        // the import, naming the key.
        r = io::importFiles({data("real/megatron-lm/02_train.sh")}, h100, io::builtinCatalog());
        QVERIFY(!r.ok() && r.errors.front().text.contains(QLatin1String("parallel.pipeline")));
        // Fragments that gather the flags in a variable for the script that sources them and run nothing
        // (examples/post_training/modelopt/conf, examples/rl/model_configs): MODEL_ARGS read, with a warning
        // that says so, TOKENIZER_MODEL as the --tokenizer-model the sourcing script passes. Qwen3-8B: 36 layers,
        // the Qwen3 tokenizer (151,669) padded to 1,187 x 128 = 151,936 (its config.json's vocab_size), 8.19 B
        // (model card: 8.2 B); its batch and nodes are asked for.
        const QStringList oneNode = h100 + QStringList{"cluster.nodes=1", "training.global_batch=64"};
        r = io::importFiles({data("real/megatron-lm/modelopt_conf__Qwen3-8B.sh")}, h100, io::builtinCatalog());
        QVERIFY(!r.ok() && io::importReport(r).contains(QLatin1String("training.global_batch")));
        r = io::importFiles({data("real/megatron-lm/modelopt_conf__Qwen3-8B.sh")}, oneNode, io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->model.layers, 36);
        QCOMPARE(readKey(r, "model.layers")->line, 21); // each flag of the quoted, continued string keeps its line
        QCOMPARE(r.plan->model.vocab, 151936);
        QVERIFY(!r.plan->model.tiedEmbeddings);
        QVERIFY(std::abs(parameters(*r.plan) / 8.19e9 - 1) < 0.01);
        QVERIFY(std::any_of(r.warnings.begin(), r.warnings.end(), [](const io::ImportMessage &w) {
            return w.text.startsWith(QLatin1String("no command here runs Megatron-LM: the flags gathered in MODEL_ARGS"));
        }));
        // A variable built from others ("$MODEL $TRAIN") is read once, through the composite.
        const QByteArray composite = "MODEL=\"--num-layers 2 --hidden-size 64 --num-attention-heads 2 --vocab-size 1024 "
                                     "--seq-length 128\"\nTRAIN=\"--micro-batch-size 1 --global-batch-size 8\"\n"
                                     "ALL=\"$MODEL $TRAIN\"\n";
        r = io::importContents({{QStringLiteral("fragment.sh"), composite}}, h100 + QStringList{"cluster.nodes=1"},
                               io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->training.globalBatch, 8);
        QVERIFY2(std::any_of(r.warnings.begin(), r.warnings.end(), [](const io::ImportMessage &w) {
                     return w.text.contains(QLatin1String("gathered in ALL (line 3) were read"));
                 }),
                 qPrintable(io::importReport(r)));
        // GPT-OSS 120B: --quick-geglu is a gated MLP (three matrices per expert), --softmax-type learnable the
        // sinks, --window-size 127,0 (127 keys before the query: HF's sliding_window 128, as Megatron-Bridge's
        // gpt_oss_bridge.py converts it) with --window-attn-skip-freq 2 the alternating windowed layers: 116.8 B
        // (OpenAI's model card: 116.83 B); as GELU it was planned at 78.6 B.
        r = io::importFiles({data("real/megatron-lm/modelopt_conf__gpt-oss-120b.sh")}, oneNode, io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->model.mlp, MlpKind::SwiGlu);
        QVERIFY(r.plan->model.attentionSinks);
        QCOMPARE(r.plan->model.slidingWindow, 128);
        QCOMPARE(r.plan->model.fullAttentionInterval, 2);
        QVERIFY(std::abs(parameters(*r.plan) / 116.83e9 - 1) < 0.005);
        // Llama 3.2 1B: the legacy --use-rotary-position-embeddings with --no-position-embedding is RoPE (no
        // learned position table), tied embeddings (Megatron's default, Llama 3.2's): 1.236 B (model card:
        // 1,235,814,400 parameters).
        r = io::importFiles({data("real/megatron-lm/modelopt_conf__Llama-3.2-1B-Instruct.sh")}, oneNode, io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->model.position, PositionEmbedding::Rotary);
        QVERIFY(r.plan->model.tiedEmbeddings);
        QVERIFY(std::abs(parameters(*r.plan) / 1235814400.0 - 1) < 0.001);
        // The RL recipe of Qwen3-30B-A3B: ENV_DEPENDENT's batch (256) and MODEL_OPTIONS' model, TP 4 and EP 2 from
        // ${TP:-4} and ${EP:-2}: 30.5 B (model card).
        r = io::importFiles({data("real/megatron-lm/rl_model_configs__qwen3_30b_a3b_moe.sh")}, h100 + QStringList{"cluster.nodes=1"},
                            io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->training.globalBatch, 256);
        QCOMPARE(r.plan->parallel.tensor, 4);
        QCOMPARE(r.plan->parallel.expert, 2);
        QCOMPARE(r.plan->model.experts, 128);
        QCOMPARE(r.plan->model.expertsPerToken, 8);
        QVERIFY(std::abs(parameters(*r.plan) / 30.5e9 - 1) < 0.01);
        // It sources common.sh at line 10 (source $(dirname $SCRIPT_PATH)/common.sh), not imported: said there.
        const auto sourcesCommon = [](const io::ImportResult &result, int line) {
            return std::any_of(result.warnings.begin(), result.warnings.end(), [&](const io::ImportMessage &m) {
                return m.line == line && m.text.startsWith(QLatin1String("sources $(dirname $SCRIPT_PATH)/common.sh")) &&
                       m.text.contains(QLatin1String("import common.sh beside this script"));
            });
        };
        QVERIFY2(sourcesCommon(r, 10), qPrintable(io::importReport(r)));
        // Qwen3-32B's RL recipe gives no precision: common.sh does (--${PRECISION:-bf16}, line 17). Alone, the
        // script trains Megatron-LM's FP32 default and the import says which file it did not read; beside
        // common.sh, BF16 and nothing to say. 32.8 B parameters (model card).
        const QString qwen32 = data("real/megatron-lm/rl_model_configs/qwen3_32b.sh");
        r = io::importFiles({qwen32}, h100 + QStringList{"cluster.nodes=1"}, io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->training.precision, Precision::FP32);
        QVERIFY2(sourcesCommon(r, 9), qPrintable(io::importReport(r)));
        QVERIFY(std::abs(parameters(*r.plan) / 32.8e9 - 1) < 0.01);
        r = io::importFiles({qwen32, data("real/megatron-lm/rl_model_configs/common.sh")},
                            h100 + QStringList{"cluster.nodes=1"}, io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->training.precision, Precision::BF16);
        QVERIFY(!sourcesCommon(r, 9));
        // DeepSeek-V2-Lite names a tokenizer no source here sizes: the vocabulary is asked for, naming the key;
        // given (its config.json's 102,400), 15.7 B (model card).
        r = io::importFiles({data("real/megatron-lm/modelopt_conf__DeepSeek-V2-Lite.sh")}, oneNode, io::builtinCatalog());
        QVERIFY(!r.ok() && r.errors.front().file == QLatin1String("model.vocab") &&
                r.errors.front().text.contains(QLatin1String("--set model.vocab=VALUE")));
        r = io::importFiles({data("real/megatron-lm/modelopt_conf__DeepSeek-V2-Lite.sh")}, oneNode + QStringList{"model.vocab=102400"},
                            io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->model.attention, AttentionKind::Mla);
        QVERIFY(std::abs(parameters(*r.plan) / 15.7e9 - 1) < 0.01);
        // What is not training a language model is refused naming what it runs: NVLM's supervised fine-tune of
        // Yi-34B with InternViT-6B (the 6 B vision encoder has no plan key; planned as the 34.4 B language model
        // before), a text-generation script and the MSDP prompting task.
        r = io::importFiles({data("real/megatron-lm/nvlm__sft_34b_internvit.sh")}, oneNode, io::builtinCatalog());
        QVERIFY2(!r.ok() && r.errors.front().text.startsWith(QLatin1String(
                                "runs multimodal/train.py: vision-language models (their vision encoder and projector) "
                                "are not planned")),
                 qPrintable(io::importReport(r)));
        QCOMPARE(r.errors.front().line, 148);
        r = io::importFiles({data("real/megatron-lm/nvlm__run_text_generation_qwen25_7b_siglip.sh")}, oneNode, io::builtinCatalog());
        QVERIFY(!r.ok() && r.errors.front().text.startsWith(QLatin1String("runs run_text_generation.py, not training")));
        // Pai-Megatron-Patch's Qwen3-VL debug run: a bare pretrain_qwen.py with --disable-vision-class-token was
        // planned as a 3.1 B language model of 4 layers.
        r = io::importFiles({data("real/debug_mcore_qwen3_vl.sh")}, oneNode, io::builtinCatalog());
        QVERIFY2(!r.ok() && r.errors.front().text.startsWith(QLatin1String("disable_vision_class_token: a vision or "
                                                                           "vision-language model")),
                 qPrintable(io::importReport(r)));
        // BERT (pretrain_bert.py) asked only for its vocabulary before, then planned as a decoder.
        r = io::importFiles({data("real/megatron-lm/train_bert_340m_distributed.sh")}, oneNode + QStringList{"model.vocab=30592"},
                            io::builtinCatalog());
        QVERIFY2(!r.ok() && r.errors.front().text.startsWith(QLatin1String("runs pretrain_bert.py: BERT's bidirectional encoder layers")),
                 qPrintable(io::importReport(r)));
        r = io::importFiles({data("real/megatron-lm/msdp__prompt_knwl_gen.sh")}, oneNode, io::builtinCatalog());
        QVERIFY(!r.ok() && r.errors.front().text.startsWith(QLatin1String("--task MSDP-PROMPT runs the model, not training")));
        // The detoxification fine-tune takes its batch from the fourth argument (bs=$4): asked for, not guessed.
        r = io::importFiles({data("real/megatron-lm/finetune_gpt_distributed-1.3b.sh")}, h100, io::builtinCatalog());
        QVERIFY(!r.ok() && io::importReport(r).contains(QLatin1String("training.global_batch")));

        // Megatron-LM's functional-test configurations (tests/functional_tests/test_cases/*/model_config.yaml):
        // MODEL_ARGS maps each flag to its value, read as the launch line they stand for, on their own lines.
        // The 15B release run is Nemotron-4 15B's shape (squared ReLU, 48 heads in 8 groups, untied, the
        // 256,000-token nemotron_2_256k.model under ${DATA_PATH}); its batch ramps (--step-batch-size-schedule
        // "0:384 200B:768 400B:1152"), so the global batch is asked for. Parameters: 3.2 + 12.5 B (Parmar et al.
        // 2024, Table 1).
        r = io::importFiles({data("real/megatron-lm/gpt3_15b_8t_release.model_config.yaml")}, h100 + QStringList{"cluster.nodes=4"},
                            io::builtinCatalog());
        QVERIFY(!r.ok() && io::importReport(r).contains(QLatin1String("training.global_batch")));
        QCOMPARE(readKey(r, "parallel.tensor")->line, 15);
        r = io::importFiles({data("real/megatron-lm/gpt3_15b_8t_release.model_config.yaml")},
                            h100 + QStringList{"cluster.nodes=4", "training.global_batch=384"}, io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->model.vocab, 256000);
        QCOMPARE(r.plan->model.mlp, MlpKind::SquaredRelu);
        QCOMPARE(r.plan->model.kvHeads, 8);
        QVERIFY(r.plan->training.flashAttention); // Transformer Engine's fused attention, Megatron-Core's default
        QVERIFY(std::abs(parameters(*r.plan) / 15.7e9 - 1) < 0.01);
        // A 7B memory-and-speed test: one layer per virtual stage on 4 pipeline stages (8 chunks per rank).
        r = io::importFiles({data("real/megatron-lm/gpt3_7b_tp1_pp4_memory_speed.model_config.yaml")}, h100 + QStringList{"cluster.nodes=1"},
                            io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->parallel.pipeline, 4);
        QCOMPARE(r.plan->parallel.virtualStages, 8);
        // NullTokenizer's --vocab-size 131,073, padded as Megatron-LM pads it for the embedding
        // (vocab_size_with_padding, build_tokenizer.py line 152 at d98e8a6): 1,025 x 128 = 131,200.
        QCOMPARE(r.plan->model.vocab, 131200);
        QCOMPARE(r.plan->training.precision, Precision::BF16);
        // The "dp_last" test: tensor 2 x pipeline 2 x context 2 with --use-tp-pp-dp-mapping, the stages inside the
        // data replicas; on one node of 8, one replica (its expert tensor 4 applies to no expert).
        r = io::importFiles({data("real/megatron-lm/gpt3_mcore_te_tp2_pp2_cp2_etp4_dp_last.model_config.yaml")},
                            h100 + QStringList{"cluster.nodes=1"}, io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->parallel.rankOrder, RankOrder::StagesInside);
        QCOMPARE(r.plan->parallel.tensor * r.plan->parallel.pipeline * r.plan->parallel.context, 8);
        QCOMPARE(r.plan->parallel.data, 1);
        QCOMPARE(r.plan->model.layers, 12);
        QCOMPARE(r.plan->model.hidden, 512);
        // Megatron-Core's experimental attention variants and an inference test are refused at their lines:
        // Gated DeltaNet layers (Qwen3-Next's), DeepSeek Sparse Attention, and MODE inference.
        for (const auto &[name, line, start] :
             {std::tuple{"gpt3_mcore_te_tp2_pp1_gdn", 22, "experimental_attention_variant gated_delta_net: linear"},
              std::tuple{"gpt3_mcore_te_tp2_pp2_dsa", 17, "experimental_attention_variant dsa: DeepSeek Sparse"},
              std::tuple{"gpt_dynamic_inference_tp1_pp1_583m_async_sched", 7, "MODE inference: "}}) {
            r = io::importFiles({data((std::string("real/megatron-lm/") + name + ".model_config.yaml").c_str())},
                                h100 + QStringList{"cluster.nodes=1"}, io::builtinCatalog());
            QVERIFY2(!r.ok() && r.errors.front().line == line && r.errors.front().text.startsWith(QLatin1String(start)),
                     qPrintable(io::importReport(r)));
        }
        // A DeepSeek-style proxy: MLA, 32 experts top 4 from 2 of 4 groups, the first layer dense, EP 4 with
        // expert tensor 1, one MTP layer.
        r = io::importFiles({data("real/megatron-lm/gpt3_mcore_te_tp2_pp2_ep4_etp1_memory_speed.model_config.yaml")},
                            h100 + QStringList{"cluster.nodes=1"}, io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->model.attention, AttentionKind::Mla);
        QCOMPARE(r.plan->model.experts, 32);
        QCOMPARE(r.plan->model.expertsPerToken, 4);
        QCOMPARE(r.plan->model.denseLayers, 1);
        QCOMPARE(r.plan->model.routerGroups, 4);
        QCOMPARE(r.plan->parallel.expert, 4);
        QCOMPARE(r.plan->parallel.expertTensor, 1);
        QCOMPARE(r.plan->model.mtpLayers, 1);
        // Two functional tests with --pipeline-model-parallel-layout (Megatron-Core's layout of every model
        // chunk; chunk i on rank i mod p). "Et*3|(tt|)*6tmL" on 2 stages is 8 chunks, 4 per rank: rank 0 holds
        // 3 + 2 + 2 + 2 = 9 decoder layers, rank 1 2 + 2 + 2 + 1 = 7 and the MTP layer. The GPT-2 vocabulary
        // file (50,257) padded to a multiple of 3,232 x 2 = 51,712; unfused attention (--attention-backend).
        r = io::importFiles({data("real/megatron-lm/gpt3_mcore_te_tp2_pp2_ep4_etp1_selective_recompute_experimental.model_config.yaml")},
                        h100 + QStringList{"cluster.nodes=1"}, io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->parallel.pipeline, 2);
        QCOMPARE(r.plan->parallel.virtualStages, 4);
        QCOMPARE(r.plan->parallel.schedule, Schedule::Interleaved);
        QCOMPARE(r.plan->parallel.firstStageLayers, 9);
        QCOMPARE(r.plan->parallel.lastStageLayers, 7);
        QCOMPARE(r.plan->layersOnStage(0), 9);
        QCOMPARE(r.plan->layersOnStage(1), 7);
        QCOMPARE(r.plan->model.vocab, 51712);
        QVERIFY(!r.plan->training.flashAttention);
        // DeepSeek-V3's proxy, "Et*2|(tt|)*5t|tmL" on 4 stages: 4, 4, 3, 3 layers, the stages between the first
        // and the last unequal: planned as every stage's layers (parallel.stage_layers); --set gives another split.
        const QString proxy = data("real/megatron-lm/deepseekv3_proxy_flex_tp1pp4emp16etp1cp1_release.model_config.yaml");
        r = io::importFiles({proxy}, h100 + QStringList{"cluster.nodes=8"}, io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->parallel.stageLayers, (std::vector<std::int64_t>{4, 4, 3, 3}));
        QCOMPARE(r.plan->parallel.virtualStages, 2);
        r = io::importFiles({proxy}, h100 + QStringList{"cluster.nodes=8", "parallel.first_stage_layers=4", "parallel.last_stage_layers=2"},
                        io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->parallel.virtualStages, 2);
        QCOMPARE(r.plan->layersOnStage(1), 4);
        QCOMPARE(r.plan->model.experts, 64);
        QCOMPARE(r.plan->model.expertsPerToken, 8);
        QCOMPARE(r.plan->model.mtpLayers, 1);
        // The partial distributed optimizer (--num-distributed-optimizer-instances 2) on one node at TP 2: the
        // state sharded inside 2 instances of the 4 data ranks, a shard group of 2; exported back as the flag.
        r = io::importFiles({data("real/megatron-lm/gpt3_mcore_te_tp2_pp1_multi_dist_optimizer_instances.model_config.yaml")},
                            h100 + QStringList{"cluster.nodes=1"}, io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->parallel.zeroStage, 1);
        QCOMPARE(r.plan->parallel.shardGroup, 2);
        QCOMPARE(r.plan->parallel.shardReplicas(), 2);
        QVERIFY(io::exportPlan(*r.plan, io::ExportTarget::Megatron, io::builtinCatalog())
                    .text.contains("--num-distributed-optimizer-instances 2"));
        // Muon's functional tests: 8 experts top 2 over expert 8 on one node, --optimizer muon with and without
        // the distributed optimizer (the layer-wise one then: ZeRO 1); its hyperparameters (momentum, scale mode,
        // extra scale factor) are read, not planned.
        for (const auto &[name, zero] : {std::pair{"gpt3_moe_mcore_te_ep8_resume_torch_dist_muon", 0},
                                         std::pair{"gpt3_moe_mcore_te_ep8_resume_torch_dist_dist_muon", 1}}) {
            r = io::importFiles({data((std::string("real/megatron-lm/") + name + ".model_config.yaml").c_str())},
                                h100 + QStringList{"cluster.nodes=1"}, io::builtinCatalog());
            QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
            QCOMPARE(r.plan->training.optimizer, Optimizer::Muon);
            QCOMPARE(r.plan->training.muonSteps, 5);
            QCOMPARE(r.plan->parallel.zeroStage, zero);
            QCOMPARE(r.plan->parallel.expert, 8);
            QVERIFY(!io::importReport(r).contains(QLatin1String("muon_momentum = 0.9: not understood")));
        }
        // Instances that do not divide the data ranks are refused naming the key (4 ranks, 3 instances).
        const QByteArray three = "torchrun pretrain_gpt.py --num-layers 2 --hidden-size 64 --num-attention-heads 2 "
                                 "--vocab-size 1024 --seq-length 128 --micro-batch-size 1 --global-batch-size 12 "
                                 "--tensor-model-parallel-size 2 --use-distributed-optimizer "
                                 "--num-distributed-optimizer-instances 3\n";
        r = io::importContents({{QStringLiteral("run.sh"), three}}, h100 + QStringList{"cluster.nodes=1"}, io::builtinCatalog());
        QVERIFY(!r.ok() && r.errors.front().text.contains(QLatin1String("must divide the 4 data x context ranks (parallel.shard_group)")));
        // Nemotron 3.5 Lightning's hybrid stack (--hybrid-layer-pattern MEMEM*E.../*E/*E: Mamba-2, MoE and attention
        // layers, --num-layers 52, two MTP modules after the "/") is planned block by block: the pattern's 52
        // layers, the Mamba-2 mixer's sizes, no position embedding.
        r = io::importFiles({data("real/megatron-lm/nemotron3_5_lightning_nightly.model_config.yaml")}, h100 + QStringList{"cluster.nodes=8"},
                            io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->model.hybridPattern, std::string("MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME"));
        QCOMPARE(r.plan->model.layers, std::int64_t(52));
        QCOMPARE(r.plan->model.mambaHeads, std::int64_t(64));
        QCOMPARE(r.plan->model.mambaHeadDim, std::int64_t(64));
        QCOMPARE(r.plan->model.mambaStateDim, std::int64_t(128));
        QCOMPARE(r.plan->model.mambaGroups, std::int64_t(8));
        QCOMPARE(r.plan->model.position, PositionEmbedding::None);
        QCOMPARE(r.plan->model.mtpLayers, std::int64_t(2));
        QCOMPARE(r.plan->model.blocksIn(0, 52).mamba, std::int64_t(23));
        // Layers Trainplan does not plan are refused naming them, not planned as transformer layers: Gated DeltaNet
        // (G) in Megatron-Core's pattern (core_v0.19.0 arguments.py: "M (mamba), G (gdn), * (attention), D (dsa),
        // - (mlp), E (moe)"); T5's encoder-decoder.
        const QByteArray gdn = "torchrun pretrain_hybrid.py --num-layers 4 --hidden-size 64 --num-attention-heads 2 "
                               "--vocab-size 1024 --seq-length 128 --micro-batch-size 1 --global-batch-size 8 "
                               "--hybrid-layer-pattern 'GG*-'\n";
        r = io::importContents({{QStringLiteral("run.sh"), gdn}}, h100 + QStringList{"cluster.nodes=1"}, io::builtinCatalog());
        QVERIFY2(!r.ok() && r.errors.front().text.contains(QLatin1String("Gated DeltaNet (G)")) &&
                     r.errors.front().text.contains(QLatin1String("model.layers")),
                 qPrintable(io::importReport(r)));
        r = io::importFiles({data("real/megatron-lm/t5_release.model_config.yaml")}, h100, io::builtinCatalog());
        QVERIFY(!r.ok() && r.errors.front().text.startsWith(QLatin1String("encoder_num_layers")));
        // The same in a Hugging Face config (Nemotron-H's hybrid_override_pattern; Qwen3-Next's linear attention).
        const QStringList sets{"cluster.device=h100-sxm5-80gb", "cluster.nodes=1", "model.seq_len=4096", "training.global_batch=64"};
        // Qwen3-Next's released config gives its Gated DeltaNet layers by full_attention_interval and the mixer's own
        // keys, with no layer_types: it was planned as 48 full-attention layers, with warnings.
        for (const char *extra : {R"("hybrid_override_pattern": "M-M-M*-")", R"("layer_types": ["linear_attention", "full_attention"])",
                                  R"("mamba_d_ssm": 1536, "mamba_d_state": 256)", R"("model_type": "mamba2")",
                                  R"("full_attention_interval": 4, "linear_num_value_heads": 32, "linear_num_key_heads": 16)"}) {
            const QByteArray config = QByteArray(R"({"hidden_size": 1024, "num_hidden_layers": 2, "num_attention_heads": 8,
                "vocab_size": 1000, )") + extra + "}";
            r = io::importContents({{QStringLiteral("config.json"), config}}, sets, io::builtinCatalog());
            QVERIFY2(!r.ok() && r.errors.front().text.contains(QLatin1String("model.layers")), extra);
        }
    }

    // DeepSpeedExamples' configs at 45b4b71 (tests/data/import/real/deepspeed, SOURCES.md), read by hand, with
    // the model and the machine a user gives beside them.
    void deepSpeedExamplesCorpus()
    {
        const QStringList sets{QStringLiteral("cluster.device=h100-sxm5-80gb"), QStringLiteral("cluster.nodes=1"),
                               QStringLiteral("model.preset=llama3-8b"), QStringLiteral("model.seq_len=4096")};
        const auto import = [&](const char *file) {
            return io::importFiles({data("real/deepspeed/") + QLatin1String(file)}, sets, io::builtinCatalog());
        };
        // ZenFlow's fine-tune: ZeRO-2 with the optimizer on the host, BF16, 8 sequences a step on 8 GPUs.
        io::ImportResult r = import("DeepSpeed-ZenFlow__finetuning__zf_config.json");
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->parallel.zeroStage, 2);
        QVERIFY(r.plan->parallel.offloadOptimizer);
        QCOMPARE(r.plan->training.precision, Precision::BF16);
        QCOMPARE(r.plan->training.globalBatch, 8);
        QVERIFY(warned(r, "zero_optimization.zenflow.topk_ratio", 11)); // ZenFlow's sparse update: said, not planned
        // BF16 master weights: the baseline keeps FP32 master weights and moments, bf16_full both in BF16.
        r = import("bf16_master_weight__baseline.json");
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->parallel.zeroStage, 3);
        QCOMPARE(r.plan->training.microBatch, 4);
        QCOMPARE(r.plan->training.globalBatch, 32); // 4 per GPU x 1 accumulation x 8 GPUs
        QCOMPARE(r.plan->training.masterWeights, MasterFormat::Fp32);
        r = import("bf16_master_weight__bf16_full.json");
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->training.masterWeights, MasterFormat::Bf16);
        QCOMPARE(r.plan->training.optimizerMoments, MomentFormat::Bf16);
        // 1-bit Adam (BingBertSquad): Adam's two moments, its compressed exchange and error buffers named as left
        // out at the optimizer's line; FP16, 96 sequences of 3 per GPU.
        r = import("BingBertSquad__1-bit_adam__nccl__deepspeed_onebitadam_bsz96_config.json");
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->training.optimizer, Optimizer::Adam);
        QCOMPARE(r.plan->training.precision, Precision::FP16);
        QCOMPARE(r.plan->training.globalBatch, 96);
        QVERIFY(warned(r, "optimizer.type OnebitAdam: planned as Adam's state with 16-bit gradient reduction", 6));
        // No fp16, bf16 or amp section: DeepSpeed trains in FP32, ZeRO stage 0.
        r = import("pipeline_parallelism__ds_config.json");
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->training.precision, Precision::FP32);
        QCOMPARE(r.plan->parallel.zeroStage, 0);
        QCOMPARE(r.plan->training.microBatch, 8);
        QCOMPARE(r.plan->training.globalBatch, 256);
        // A section that is there but off ("fp16": {"enabled": false}) is FP32 too (it was planned in BF16).
        r = import("BingBertGlue__glue_bert_base.json");
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->training.precision, Precision::FP32);
        QCOMPARE(r.plan->training.globalBatch, 32);
        r = import("imagenet__ds_fp16_z1_config.json");
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->training.precision, Precision::FP16);
        QCOMPARE(r.plan->parallel.zeroStage, 1);
        // "auto" batches are the Hugging Face Trainer's to fill: the import asks for the global batch, naming it;
        // AutoTP's autotp_size is the tensor size.
        for (const char *file : {"autotuning__hf__dsconfigs__ds_config_z3.json", "autotuning__hf__dsconfigs__ds_config_fp16_z3.json",
                                 "tensor_parallel__hf_integration__ds_config.json"}) {
            r = import(file);
            QVERIFY2(!r.ok() && io::importReport(r).contains(QLatin1String("training.global_batch")), file);
        }
        QCOMPARE(readKey(r, "parallel.tensor")->value.toInt(), 4);
        // The autotuner's own configuration: the stage and micro-batch it runs are its to pick, said at its line (7,
        // inside "autotuning": the line of a nested key is looked for after its parent's, not at fp16's "enabled");
        // its settings are read, not planned.
        r = import("autotuning__hf__dsconfigs__ds_config_fp16_tune.json");
        QVERIFY(warned(r, "autotuning.enabled: DeepSpeed's autotuner picks the ZeRO stage", 7));
        QVERIFY(!io::importReport(r).contains(QLatin1String("autotuning.fast = true: not understood")));
    }

    // Attention and hidden dropout are one plan switch: either on turns it on, said in a warning (Megatron-LM's
    // multimodal Mistral CLIP example: --attention-dropout 0.0 --hidden-dropout 0.1), never a conflict.
    void dropoutsAreOneSwitch()
    {
        const QByteArray script("torchrun pretrain_gpt.py --num-layers 2 --hidden-size 64 --num-attention-heads 2 "
                                "--vocab-size 1024 --seq-length 128 --micro-batch-size 1 --global-batch-size 8 "
                                "--attention-dropout 0.0 --hidden-dropout 0.1\n");
        const io::ImportResult r = io::importContents({{QStringLiteral("run.sh"), script}},
                                                      {QStringLiteral("cluster.device=h100-sxm5-80gb"), QStringLiteral("cluster.nodes=1")},
                                                      io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QVERIFY(r.plan->model.dropout);
        QVERIFY(warned(r, "one dropout switch", 1));
    }

    // Megatron-Core's TikTokenizer without --vocab-size is 2^17 = 131,072 ids, its special tokens among them
    // (tiktoken_tokenizer.py at d98e8a6, DEFAULT_TIKTOKEN_MAX_VOCAB); with --vocab-size, that, padded. A step batch
    // schedule (--step-batch-size-schedule, in place of --global-batch-size) is named where the batch is asked for.
    void tikTokenizerAndBatchSchedule()
    {
        const QByteArray script("torchrun pretrain_gpt.py --num-layers 2 --hidden-size 64 --num-attention-heads 2 "
                                "--tokenizer-type TikTokenizer --tokenizer-model /data/tok.vocab.json "
                                "--seq-length 128 --micro-batch-size 1 --global-batch-size 8\n");
        const QStringList sets{QStringLiteral("cluster.device=h100-sxm5-80gb"), QStringLiteral("cluster.nodes=1")};
        io::ImportResult r = io::importContents({{QStringLiteral("run.sh"), script}}, sets, io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->model.vocab, 131072);
        // With --vocab-size, that many, padded to a multiple of 128 x tensor as Megatron-LM pads it
        // (build_tokenizer.py lines 96-110 and 152): 100,000 -> 782 x 128 = 100,096.
        r = io::importContents({{QStringLiteral("run.sh"), QByteArray(script).replace("--tokenizer-model",
                                                                                       "--vocab-size 100000 "
                                                                                       "--tokenizer-model")}},
                               sets, io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->model.vocab, 100096);
        r = io::importContents({{QStringLiteral("run.sh"), QByteArray(script).replace("--global-batch-size 8",
                                                                                       "--step-batch-size-schedule "
                                                                                       "'0:384 200B:768'")}},
                               sets, io::builtinCatalog());
        QVERIFY(!r.ok());
        QVERIFY(warned(r, "step_batch_size_schedule 0:384 200B:768: the global batch steps up", 1));
    }

    // Full recomputation's method: "block" recomputes the first recompute_num_layers layers of each stage
    // (training.recompute_layers; transformer_block.py, _checkpointed_forward), read from Megatron-LM's flags
    // and NeMo 1's activations_checkpoint_*; before, both were "read, not planned" and every layer was
    // recomputed. The export writes the flags, so the key now survives export and import.
    void recomputeMethods()
    {
        const QStringList sets{"cluster.device=h100-sxm5-80gb", "cluster.nodes=1"};
        const auto planOf = [&](const QByteArray &flags) {
            const QByteArray script = "torchrun pretrain_gpt.py --num-layers 8 --hidden-size 64 --num-attention-heads 2 "
                                      "--vocab-size 1024 --seq-length 128 --micro-batch-size 1 --global-batch-size 8 "
                                      "--recompute-granularity full " + flags + "\n";
            return io::importContents({{QStringLiteral("run.sh"), script}}, sets, io::builtinCatalog());
        };
        io::ImportResult r = planOf("--bf16 --grad-reduce-in-bf16");
        QVERIFY2(r.ok() && !r.plan->training.fp32Gradients, qPrintable(io::importReport(r)));
        r = planOf("--bf16");
        QVERIFY(r.ok() && r.plan->training.fp32Gradients);
        r = planOf("--recompute-method block --recompute-num-layers 3");
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->training.recompute, Recompute::Full);
        QCOMPARE(r.plan->training.recomputeLayers, 3);
        QCOMPARE(r.plan->recomputedLayersOnStage(0), 3);
        QVERIFY(!io::importReport(r).contains(QLatin1String("recompute_method, recompute_num_layers")));
        r = planOf("--recompute-method uniform --recompute-num-layers 1");
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->recomputedLayersOnStage(0), 8);
        // Megatron-Core's uniform method in chunks of 4 layers: 8 layers keep 2 inputs (training.recompute_chunk).
        r = planOf("--recompute-method uniform --recompute-num-layers 4");
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->training.recomputeChunk, 4);
        QCOMPARE(r.plan->recomputedLayersOnStage(0), 8);
        QCOMPARE(r.plan->checkpointedInputsOnStage(0), 2);
        r = planOf("--recompute-method block --recompute-num-layers 0");
        QVERIFY(!r.ok() && r.errors.front().text.contains(QLatin1String("training.recompute_layers")));
        // NeMo 1's names (NeMo-Framework-Launcher's recipes, model.activations_checkpoint_*).
        const QByteArray recipe = "model:\n  num_layers: 8\n  hidden_size: 64\n  num_attention_heads: 2\n"
                                  "  encoder_seq_length: 128\n  make_vocab_size_divisible_by: 1\n  global_batch_size: 8\n"
                                  "  micro_batch_size: 1\n  tokenizer:\n    library: huggingface\n"
                                  "    type: meta-llama/Meta-Llama-3-8B\n  activations_checkpoint_granularity: full\n"
                                  "  activations_checkpoint_method: block\n  activations_checkpoint_num_layers: 2\n";
        r = io::importContents({{QStringLiteral("r.yaml"), recipe}}, sets, io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->training.recomputeLayers, 2);
        // Export and import back keep it.
        const io::ExportResult script = io::exportPlan(*r.plan, io::ExportTarget::Megatron, io::builtinCatalog());
        const io::ImportResult back = io::importContents({{QStringLiteral("run.sh"), script.text}}, sets, io::builtinCatalog());
        QVERIFY2(back.ok(), qPrintable(io::importReport(back)));
        QCOMPARE(back.plan->training.recomputeLayers, 2);
    }

    // NeMo-Framework-Launcher's recipes write values as OmegaConf interpolations: "${multiply:4, ${.hidden_size}}"
    // (its multiply resolver, a sibling key), "${training.model.encoder_seq_length}" (the launcher's training
    // package). They are evaluated, not "not understood" with the plan's 4h default in their place (a 3x
    // MLP came back 4x before). NeMo 1's torch FSDP (fsdp: true) is ZeRO-3 under framework "fsdp"; its 'grad'
    // strategy keeps the parameters gathered from forward to backward, 'hybrid' is said.
    void nemoInterpolationsAndTorchFsdp()
    {
        QFile f(data("real/nemo-launcher/gpt3__5b.yaml"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        QByteArray recipe = f.readAll();
        QVERIFY(recipe.contains("ffn_hidden_size: ${multiply:4, ${.hidden_size}}"));
        recipe.replace("${multiply:4, ${.hidden_size}}", "${multiply:3, ${.hidden_size}}");
        const QStringList h100{QStringLiteral("cluster.device=h100-sxm5-80gb")};
        io::ImportResult r = io::importContents({{QStringLiteral("gpt3_5b.yaml"), recipe}}, h100, io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->model.ffnHidden, 3 * r.plan->model.hidden);
        QVERIFY(!io::importReport(r).contains(QLatin1String("ffn_hidden_size: value")));
        // gpt3__175b_16k.yaml's data.seq_length is ${training.model.encoder_seq_length}: 16,384, the model's.
        const io::ImportResult longer = io::importFiles({data("real/nemo-launcher/gpt3__175b_16k.yaml")}, h100, io::builtinCatalog());
        QVERIFY2(longer.ok(), qPrintable(io::importReport(longer)));
        QCOMPARE(longer.plan->model.seqLen, 16384);
        QVERIFY(std::any_of(longer.read.begin(), longer.read.end(), [](const io::ImportedKey &k) {
            return k.path == QLatin1String("model.seq_len") && k.source == QLatin1String("model.data.seq_length") && k.value.toInt() == 16384;
        }));
        QCOMPARE(r.plan->training.framework, Framework::Megatron);
        recipe.replace("fsdp: False", "fsdp: True").replace("fsdp_sharding_strategy: 'full'", "fsdp_sharding_strategy: 'grad'");
        r = io::importContents({{QStringLiteral("gpt3_5b.yaml"), recipe}}, h100, io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->training.framework, Framework::Fsdp);
        QCOMPARE(r.plan->parallel.zeroStage, 3);
        QVERIFY(!r.plan->parallel.reshardAfterForward);
        recipe.replace("fsdp_sharding_strategy: 'grad'", "fsdp_sharding_strategy: 'hybrid'");
        r = io::importContents({{QStringLiteral("gpt3_5b.yaml"), recipe}}, h100, io::builtinCatalog());
        QVERIFY(r.ok() && warned(r, "replicates across nodes", 101));
    }

    // Megatron-Core's layout grammar (pipeline_parallel_layer_layout.py, parse_str_to_list): "x*n" and
    // "(...)*n" repeat, commas are cosmetic, chunk i runs on rank i mod p. Each way a layout cannot be a plan
    // is an error naming the key, never a plan of another split.
    void pipelineLayouts()
    {
        const QStringList sets{"cluster.device=h100-sxm5-80gb", "cluster.nodes=1"};
        const auto planOf = [&](const char *layout, const char *layers = "8", const char *pp = "4", const QStringList &more = {}) {
            const QByteArray script = QByteArray("torchrun pretrain_gpt.py --num-layers ") + layers +
                                      " --hidden-size 64 --num-attention-heads 2 --vocab-size 1024 --seq-length 128 "
                                      "--micro-batch-size 1 --global-batch-size 32 --pipeline-model-parallel-size " + pp +
                                      " --pipeline-model-parallel-layout \"" + layout + "\"\n";
            return io::importContents({{QStringLiteral("run.sh"), script}}, sets + more, io::builtinCatalog());
        };
        // Even: nothing uneven to hold.
        io::ImportResult r = planOf("Et*2|t*2|t*2|t*2L");
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->layersOnStage(0), 2);
        QCOMPARE(r.plan->layersOnStage(3), 2);
        QCOMPARE(r.plan->parallel.virtualStages, 1);
        // A short first stage, the rest even; commas and spaces are cosmetic.
        r = planOf("Et, | (ttt|)*2, ttt L", "10");
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->parallel.firstStageLayers, 1);
        QCOMPARE(r.plan->layersOnStage(1), 3);
        QCOMPARE(r.plan->layersOnStage(3), 3);
        // Two chunks per rank: (t|)*7 repeats a chunk; rank 0 holds chunks 0 and 4.
        r = planOf("Et|(t|)*6tL", "8");
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->parallel.virtualStages, 2);
        QCOMPARE(r.plan->parallel.schedule, Schedule::Interleaved);
        const auto refused = [&](const io::ImportResult &x, const char *text, const char *key) {
            return !x.ok() && !x.errors.empty() && x.errors.front().text.contains(QLatin1String(text)) &&
                   x.errors.front().text.contains(QLatin1String(key)) && x.errors.front().line == 1;
        };
        QVERIFY2(refused(planOf("Et*2|t*2|t*2|t*3L"), "places 9 decoder layers, the model has 8", "model.layers"),
                 qPrintable(io::importReport(planOf("Et*2|t*2|t*2|t*3L"))));
        QVERIFY(refused(planOf("Et*2|t*2|t*4L"), "3 chunks do not divide among 4 pipeline stages", "parallel.pipeline"));
        QVERIFY(refused(planOf("Et*2|t*2|t*2|t*2"), "the embedding must come first and the loss last", "parallel.first_stage_layers"));
        QVERIFY(refused(planOf("Et*2|t*2|x|t*2L"), "'x' is no layer", "parallel.first_stage_layers"));
        QVERIFY(refused(planOf("E((t|)*2)*2t*4L"), "does not nest them", "parallel.first_stage_layers"));
        QVERIFY(refused(planOf("E|t*3|t*2|t*3L"), "stage 0 holds no decoder layer", "parallel.stage_layers"));
        // Stages between the first and the last that differ: every stage's layers (parallel.stage_layers).
        r = planOf("Et|t*3|t*2|t*2L");
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->parallel.stageLayers, (std::vector<std::int64_t>{1, 3, 2, 2}));
        QCOMPARE(r.plan->parallel.firstStageLayers, 0);
        // Megatron-Bridge's Llama 3 70B FP8-CS layout on 8 stages of 5 chunks (perf_recipes/llama/h100/llama3.py
        // at 56ae11dff): stage 3 holds chunk 35's three layers, the last stage chunk 39's one beside the loss.
        r = planOf("Et*2|(t*2|)*34,t*3|(t*2|)*3,tL", "80", "8");
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->parallel.stageLayers, (std::vector<std::int64_t>{10, 10, 10, 11, 10, 10, 10, 9}));
        QCOMPARE(r.plan->parallel.virtualStages, 5);
        QVERIFY(refused(planOf("Et*99999999|L", "8", "2"), "repeats t 99999999 times", "parallel.first_stage_layers"));
        // --set wins over the layout.
        r = planOf("Et*1|t*3|t*3|t*1L", "8", "4", {"parallel.first_stage_layers=2", "parallel.last_stage_layers=2"});
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->layersOnStage(0), 2);
    }

    // NeMo-Framework-Launcher's NeMo 1 recipes, unchanged: the fused gated activation, flash attention, no
    // recomputation, Megatron-Core's distributed optimizer with overlapped sync, and the tokenizer's vocabulary.
    void realNemoLauncherRecipes()
    {
        const QStringList h100{QStringLiteral("cluster.device=h100-sxm5-80gb")};
        io::ImportResult r = io::importFiles({data("real/nemo-launcher/llama__llama3_8b.yaml")}, h100, io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->model.mlp, MlpKind::SwiGlu); // activation: fast-swiglu
        QVERIFY(r.plan->training.flashAttention);
        QCOMPARE(r.plan->training.recompute, Recompute::None); // activations_checkpoint_granularity: null
        QCOMPARE(r.plan->parallel.zeroStage, 1);               // optim.name: mcore_distributed_optim
        QVERIFY(r.plan->parallel.overlapGradReduce && r.plan->parallel.overlapParamGather);
        QVERIFY(!r.plan->model.linearBias);
        QCOMPARE(r.plan->model.vocab, 128256); // tokenizer.type meta-llama/Meta-Llama-3-8B
        QCOMPARE(r.plan->parallel.context, 2);
        QCOMPARE(r.plan->cluster.nodes * r.plan->cluster.gpusPerNode, 128);
        QVERIFY(std::abs(parameters(*r.plan) / 8.03e9 - 1) < 0.01);
        r = io::importFiles({data("real/nemo-launcher/mixtral__mixtral_8x7b.yaml")}, h100, io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->model.experts, 8);
        QCOMPARE(r.plan->model.vocab, 32000);
        QVERIFY(std::abs(parameters(*r.plan) / 46.7e9 - 1) < 0.01);
        // Mistral 7B's recipe trains 2,048-token sequences (model.data.seq_length) of a 4,096-token model
        // (encoder_seq_length, the model's longest): the training length wins, with no conflict.
        r = io::importFiles({data("real/nemo-launcher/mistral__mistral_7b.yaml")}, h100, io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->model.seqLen, 2048);
        QVERIFY(std::abs(parameters(*r.plan) / 7.24e9 - 1) < 0.01); // Mistral 7B: 7.24 B (config.json shape)
        // Llama 2 70B names LLaMA's SentencePiece file (${data_dir}/llama/llama_tokenizer.model): its 32,000 tokens,
        // padded as NeMo pads them, to a multiple of make_vocab_size_divisible_by 128 x tensor 4: 63 x 512.
        r = io::importFiles({data("real/nemo-launcher/llama__llama2_70b.yaml")}, h100, io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->model.vocab, 32256);
        // Nemotron-4 15B's recipe names no tokenizer (model: null): the vocabulary is asked for, not guessed.
        r = io::importFiles({data("real/nemo-launcher/nemotron__nemotron_15b.yaml")}, h100, io::builtinCatalog());
        QVERIFY(!r.ok() && r.errors.front().text.contains(QStringLiteral("model.vocab")));
        r = io::importFiles({data("real/nemo-launcher/llama__llama2_70b.yaml")}, h100 + QStringList{"model.vocab=32000"}, io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QVERIFY(r.plan->parallel.tensorCommOverlap); // ub_tp_comm_overlap: true
        // defer_embedding_wgrad_compute: true, wgrad_deferral_limit: 22 (lines 127-128), at pipeline 4.
        QVERIFY(r.plan->training.deferEmbeddingWgrad);
        QCOMPARE(r.plan->training.wgradDeferralLimit, 22);
        QCOMPARE(r.plan->deferredWgradMicrobatches(), std::int64_t(22));
        QVERIFY(std::abs(parameters(*r.plan) / 68.98e9 - 1) < 0.01); // Llama 2 70B: 68.98 B
    }

    // NeMo 1's distributed_fused_adam as the dgxc benchmark's Nemotron-4 340B recipe configures it
    // (dgxc-benchmarking v24.11.1 nemotron/nemotron4-340b-synth.yaml, lines 182-186): Apex's DistributedFusedAdam
    // with dtype bf16 keeps its moments and its parameter shard in BF16, its gradient buffers in grad_sync_dtype.
    void realApexOptimizerState()
    {
        const QByteArray recipe = "trainer:\n  num_nodes: 16\n  devices: 8\n  precision: bf16\n"
                                  "model:\n  micro_batch_size: 1\n  global_batch_size: 32\n  tensor_model_parallel_size: 8\n"
                                  "  pipeline_model_parallel_size: 8\n  virtual_pipeline_model_parallel_size: 12\n"
                                  "  encoder_seq_length: 4096\n  num_layers: 96\n  hidden_size: 18432\n  ffn_hidden_size: 73728\n"
                                  "  num_attention_heads: 96\n  num_query_groups: 8\n  activation: squared-relu\n  bias: false\n"
                                  "  normalization: layernorm1p\n  position_embedding_type: rope\n"
                                  "  share_embeddings_and_output_weights: false\n"
                                  "  optim:\n    name: distributed_fused_adam\n    bucket_cap_mb: 50\n    grad_sync_dtype: bf16\n"
                                  "    dtype: bf16\n    overlap_grad_sync: True\n    overlap_param_sync: true\n";
        QTemporaryDir dir;
        QFile yaml(dir.filePath(QStringLiteral("nemotron4-340b.yaml")));
        QVERIFY(yaml.open(QIODevice::WriteOnly) && yaml.write(recipe) == recipe.size());
        yaml.close();
        const QStringList sets{"cluster.device=h100-sxm5-80gb", "model.vocab=256000"};
        const io::ImportResult r = io::importFiles({yaml.fileName()}, sets, io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->training.optimizerMoments, MomentFormat::Bf16);
        QCOMPARE(r.plan->training.masterWeights, MasterFormat::Bf16);
        QVERIFY(!r.plan->training.fp32Gradients); // optim.grad_sync_dtype: bf16
        QCOMPARE(r.plan->parallel.virtualStages, 12);
        QVERIFY(std::abs(parameters(*r.plan) / 341e9 - 1) < 0.01); // Nemotron-4 340B: 341 B (its report, Table 1)
        // Megatron-Core's precision-aware optimizer flags name the moments and the master copy.
        const QByteArray script = "torchrun pretrain_gpt.py --num-layers 32 --hidden-size 4096 --num-attention-heads 32 "
                                  "--seq-length 4096 --micro-batch-size 1 --global-batch-size 64 --vocab-size 32000 --bf16 "
                                  "--use-distributed-optimizer --use-precision-aware-optimizer --exp-avg-dtype bf16 "
                                  "--exp-avg-sq-dtype bf16 --main-params-dtype fp16\n";
        QFile f(dir.filePath(QStringLiteral("run.sh")));
        QVERIFY(f.open(QIODevice::WriteOnly) && f.write(script) == script.size());
        f.close();
        const io::ImportResult m = io::importFiles({f.fileName()}, {"cluster.device=h100-sxm5-80gb", "cluster.nodes=8"}, io::builtinCatalog());
        QVERIFY2(m.ok(), qPrintable(io::importReport(m)));
        QCOMPARE(m.plan->training.optimizerMoments, MomentFormat::Bf16);
        QCOMPARE(m.plan->training.masterWeights, MasterFormat::Fp16);
    }

    // Fully sharded data parallelism in a Megatron-LM launch: Megatron-FSDP shards what its sharding strategy
    // names (default optim_grads_params, ZeRO-3), even beside --use-distributed-optimizer; --use-torch-fsdp2
    // is PyTorch's FSDP2 (megatron/training/arguments.py). Before, --use-torch-fsdp2 was read and not planned
    // and --use-megatron-fsdp was not understood: both planned ZeRO-1.
    void megatronFsdpFlags()
    {
        const QByteArray base = "torchrun --nproc_per_node 8 pretrain_gpt.py --num-layers 32 --hidden-size 4096 "
                                "--num-attention-heads 32 --seq-length 4096 --micro-batch-size 1 --global-batch-size 256 "
                                "--vocab-size 128256 --bf16 --use-distributed-optimizer ";
        const QStringList sets{"cluster.device=h100-sxm5-80gb", "cluster.nodes=4"};
        const auto planOf = [&](const QByteArray &flags) {
            return io::importContents({{QStringLiteral("run.sh"), base + flags + '\n'}}, sets, io::builtinCatalog());
        };
        io::ImportResult r = planOf("--use-megatron-fsdp");
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->parallel.zeroStage, 3);
        QCOMPARE(r.plan->training.framework, Framework::Megatron);
        r = planOf("--use-megatron-fsdp --data-parallel-sharding-strategy optim_grads");
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->parallel.zeroStage, 2);
        r = planOf("--data-parallel-sharding-strategy optim_grads"); // without Megatron-FSDP it shards nothing more
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->parallel.zeroStage, 1);
        r = planOf("--use-torch-fsdp2");
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->parallel.zeroStage, 3);
        QCOMPARE(r.plan->training.framework, Framework::Fsdp);
        r = io::importContents({{QStringLiteral("run.sh"), base + "--use-torch-fsdp2\n"}}, sets + QStringList{"parallel.zero_stage=2"},
                               io::builtinCatalog());
        QVERIFY2(!r.ok() || r.plan->parallel.zeroStage == 2, qPrintable(io::importReport(r))); // --set wins
    }

    // What transformers writes that a JSON reader does not expect (issue 38).
    void huggingFaceEdgeCases()
    {
        const QStringList sets{"cluster.device=h100-sxm5-80gb", "cluster.nodes=1", "model.seq_len=4096", "training.global_batch=64"};
        const QByteArray llama = R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
            "intermediate_size": 14336, "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8,
            "hidden_act": "silu", "rms_norm_eps": 1e-05, "rope_theta": 500000.0, "vocab_size": 128256, %1})";
        const auto config = [&](const char *extra) { return QString::fromUtf8(llama).arg(QLatin1String(extra)).toUtf8(); };
        // Python's json.dump of float("inf") (Nemotron-H's time_step_limit): read, not "not a format".
        io::ImportResult r = io::importContents({{"config.json", config(R"("time_step_limit": [0.0, Infinity], "tie_word_embeddings": false)")}}, sets,
                                                io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QVERIFY(!r.plan->model.tiedEmbeddings);
        // No tie_word_embeddings: transformers omits it when it is its default, True (Gemma 2's config).
        r = io::importContents({{"config.json", config(R"("attention_bias": false)")}}, sets, io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QVERIFY(r.plan->model.tiedEmbeddings);
        // A key written twice is an error naming it, not whichever came last.
        r = io::importContents({{"config.json", config(R"("num_hidden_layers": 40)")}}, sets, io::builtinCatalog());
        QVERIFY(!r.ok() && r.errors.front().text.contains(QStringLiteral("num_hidden_layers: written twice")));
        // Layers of different shapes (Llama-3.3-Nemotron-Super's block_configs) are refused naming the key.
        r = io::importContents({{"config.json", config(R"("block_configs": [{"ffn": {"ffn_mult": 2.0}}])")}}, sets, io::builtinCatalog());
        QVERIFY(!r.ok() && r.errors.front().text.startsWith(QStringLiteral("block_configs")));
        // Qwen2-MoE's shared expert is one MLP of shared_expert_intermediate_size: Qwen1.5-MoE-A2.7B's config.json
        // (60 experts of 1408, top 4, one shared of 5632) is 14.3 B parameters (Qwen team, "Qwen1.5-MoE: Matching
        // 7B Model Performance with 1/3 Activated Parameters", 2024); without the shared expert it was 13.5 B.
        const QByteArray qwenMoe = R"({"architectures": ["Qwen2MoeForCausalLM"], "model_type": "qwen2_moe", "hidden_size": 2048,
            "intermediate_size": 5632, "num_attention_heads": 16, "num_hidden_layers": 24, "num_key_value_heads": 16,
            "hidden_act": "silu", "vocab_size": 151936, "tie_word_embeddings": false, "decoder_sparse_step": 1,
            "moe_intermediate_size": 1408, "num_experts": 60, "num_experts_per_tok": 4, "shared_expert_intermediate_size": %1})";
        r = io::importContents({{"config.json", QString::fromUtf8(qwenMoe).arg(5632).toUtf8()}}, sets, io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->model.sharedExperts, 4);
        QVERIFY(std::abs(parameters(*r.plan) / 14.3e9 - 1) < 0.005);
        // A width that is not a multiple of the routed one: the nearest count, said.
        r = io::importContents({{"config.json", QString::fromUtf8(qwenMoe).arg(5000).toUtf8()}}, sets, io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->model.sharedExperts, 4);
        QVERIFY(warned(r, "planned as 4 shared experts", 4));
        // Llama 4's text_config (meta-llama/Llama-4-Maverick-17B-128E, -Scout-17B-16E config.json): intermediate_size
        // is each expert's width and the shared expert's, intermediate_size_mlp the dense layers', every
        // interleave_moe_layer_step-th layer MoE. The catalog's presets count the same: 400.7 B and 107.8 B (the
        // language models of "400B" and "109B" with the vision encoder); before, Maverick came out at 778 B.
        const QByteArray llama4 = R"({"architectures": ["Llama4ForConditionalGeneration"], "model_type": "llama4",
            "text_config": {"model_type": "llama4_text", "hidden_size": 5120, "intermediate_size": 8192, "intermediate_size_mlp": 16384,
            "num_attention_heads": 40, "num_key_value_heads": 8, "head_dim": 128, "num_hidden_layers": 48, "num_local_experts": %1,
            "num_experts_per_tok": 1, "interleave_moe_layer_step": %2, "vocab_size": 202048, "hidden_act": "silu",
            "tie_word_embeddings": false}})";
        for (const auto &[experts, step, preset] : {std::tuple{128, 2, "llama4-maverick"}, std::tuple{16, 1, "llama4-scout"}}) {
            r = io::importContents({{"config.json", QString::fromUtf8(llama4).arg(experts).arg(step).toUtf8()}}, sets, io::builtinCatalog());
            QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
            QCOMPARE(parameters(*r.plan), totalParameters(*io::builtinCatalog().model(preset)));
            QCOMPARE(r.plan->model.moeLayerInterval, std::int64_t(step));
            QCOMPARE(r.plan->model.sharedExperts, 1);
        }
        // Falcon 7B's config.json (tiiuae/falcon-7b): multi_query is one key/value head, bias false removes every
        // linear bias, alibi false means rotary positions. By hand: 32 layers of fused QKV 4544 x (4544 + 2 x 64),
        // dense 4544^2, MLP 2 x 4544 x 18176 and two LayerNorms (Falcon's parallel block has one: 290,816 of
        // difference), the tied 65,024 x 4544 embedding and the final LayerNorm: 6,922,011,520 (before: 8.24 B).
        const QByteArray falcon = R"({"alibi": false, "architectures": ["FalconForCausalLM"], "bias": false, "hidden_size": 4544,
            "model_type": "falcon", "multi_query": true, "n_head": 71, "n_layer": 32, "parallel_attn": true, "vocab_size": 65024})";
        r = io::importContents({{"config.json", falcon}}, sets, io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->model.kvHeads, 1);
        QVERIFY(!r.plan->model.linearBias);
        QCOMPARE(r.plan->model.position, PositionEmbedding::Rotary);
        const double layer = 4544.0 * (4544 + 2 * 64) + 4544.0 * 4544 + 2 * 4544.0 * 18176 + 2 * 2 * 4544.0;
        QCOMPARE(parameters(*r.plan), 32 * layer + 65024.0 * 4544 + 2 * 4544.0);
        // StarCoder's config.json (bigcode/starcoder): multi_query for GPTBigCode too; 15.5 B (Li et al. 2023,
        // "StarCoder: may the source be with you!", abstract).
        const QByteArray starcoder = R"({"activation_function": "gelu_pytorch_tanh", "architectures": ["GPTBigCodeForCausalLM"],
            "model_type": "gpt_bigcode", "multi_query": true, "n_embd": 6144, "n_head": 48, "n_inner": 24576, "n_layer": 40,
            "n_positions": 8192, "vocab_size": 49152})";
        r = io::importContents({{"config.json", starcoder}}, sets, io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->model.kvHeads, 1);
        QCOMPARE(r.plan->model.mlp, MlpKind::Gelu);
        QVERIFY(std::abs(parameters(*r.plan) / 15.5e9 - 1) < 0.005);
        // GPT-NeoX-20B's config.json (EleutherAI/gpt-neox-20b): rotary positions named rotary_emb_base. Black et al.
        // 2022 ("GPT-NeoX-20B: An Open-Source Autoregressive Language Model", Sec. 2) give 20,554,567,680
        // parameters; with a learned position table it was 12.6 M more.
        const QByteArray neox = R"({"architectures": ["GPTNeoXForCausalLM"], "hidden_act": "gelu", "hidden_size": 6144,
            "intermediate_size": 24576, "layer_norm_eps": 1e-05, "max_position_embeddings": 2048, "model_type": "gpt_neox",
            "num_attention_heads": 64, "num_hidden_layers": 44, "rotary_emb_base": 10000, "rotary_pct": 0.25,
            "tie_word_embeddings": false, "use_parallel_residual": true, "vocab_size": 50432})";
        r = io::importContents({{"config.json", neox}}, sets, io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->model.position, PositionEmbedding::Rotary);
        QCOMPARE(parameters(*r.plan), 20554567680.0);
        // GPT-J-6B's config.json (EleutherAI/gpt-j-6b): n_inner null is the class default, 4 x n_embd, and
        // n_positions is a length, not a learned table (its positions are rotary, rotary_dim 64): 6.05 B (the model
        // card: 6,053,381,344). Both were errors before.
        const QByteArray gptj = R"({"activation_function": "gelu_new", "architectures": ["GPTJForCausalLM"], "model_type": "gptj",
            "n_embd": 4096, "n_head": 16, "n_inner": null, "n_layer": 28, "n_positions": 2048, "rotary_dim": 64,
            "tie_word_embeddings": false, "vocab_size": 50400})";
        r = io::importContents({{"config.json", gptj}}, sets, io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->model.ffnHidden, 4 * 4096);
        QCOMPARE(r.plan->model.position, PositionEmbedding::Rotary);
        QVERIFY(std::abs(parameters(*r.plan) / 6053381344.0 - 1) < 0.001);
        // Gemma 7B's config.json (google/gemma-7b) says hidden_act "gelu" for its gated MLP (GemmaMLP): 8.54 B
        // (Gemma Team 2024, "Gemma: Open Models Based on Gemini Research and Technology", Table 2: 7,751,248,896
        // non-embedding and 786,432,000 embedding parameters); as a plain GELU MLP it was 6.42 B.
        const QByteArray gemma = R"({"architectures": ["GemmaForCausalLM"], "head_dim": 256, "hidden_act": "gelu", "hidden_size": 3072,
            "intermediate_size": 24576, "model_type": "gemma", "num_attention_heads": 16, "num_hidden_layers": 28,
            "num_key_value_heads": 16, "rms_norm_eps": 1e-06, "rope_theta": 10000.0, "vocab_size": 256000})";
        r = io::importContents({{"config.json", gemma}}, sets, io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->model.mlp, MlpKind::SwiGlu);
        QVERIFY(std::abs(parameters(*r.plan) / (7751248896.0 + 786432000.0) - 1) < 1e-4);
        // BLOOM's config.json (bigscience/bloom) does not say ALiBi; BloomModel builds it. 176,247,271,424
        // parameters (the model card), of which 28,672 are the embedding LayerNorm no plan key holds.
        const QByteArray bloom = R"({"architectures": ["BloomForCausalLM"], "hidden_size": 14336, "layer_norm_epsilon": 1e-05,
            "model_type": "bloom", "n_head": 112, "n_layer": 70, "vocab_size": 250880})";
        r = io::importContents({{"config.json", bloom}}, QStringList{"cluster.device=h100-sxm5-80gb", "cluster.nodes=48", "model.seq_len=2048",
                                                                    "training.global_batch=2304"},
                               io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->model.position, PositionEmbedding::Alibi);
        QCOMPARE(parameters(*r.plan) + 2 * 14336.0, 176247271424.0);
        // A multimodal config (Llama 4, Gemma 3) nests the language model in text_config.
        const QByteArray nested = R"({"architectures": ["Gemma3ForConditionalGeneration"], "model_type": "gemma3",
            "text_config": {"model_type": "gemma3_text", "hidden_size": 2560, "intermediate_size": 10240, "num_attention_heads": 8,
            "num_hidden_layers": 34, "num_key_value_heads": 4, "head_dim": 256, "hidden_activation": "gelu_pytorch_tanh",
            "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, "vocab_size": 262208}, "vision_config": {"hidden_size": 1152,
            "intermediate_size": 4304, "model_type": "siglip_vision_model", "num_attention_heads": 16, "num_hidden_layers": 27}})";
        r = io::importContents({{"config.json", nested}}, sets, io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        // Its vision encoder (Gemma 3 4B's SigLIP, the "So400m" shape: 27 layers of 1,152) is said, not planned.
        QVERIFY2(std::any_of(r.warnings.begin(), r.warnings.end(), [](const io::ImportMessage &w) {
                     return w.text.startsWith(QLatin1String("vision_config: the vision encoder (27 layers of width 1152: "
                                                            "about 0.41 B parameters) is not planned"));
                 }),
                 qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->model.layers, 34);
        QCOMPARE(r.plan->model.vocab, 262208);
        QVERIFY(r.plan->model.tiedEmbeddings);
    }

    // A DeepSpeed config as the Hugging Face Trainer takes it ("auto" everywhere; the shape of DeepSpeed's
    // and transformers' ZeRO-3 offload examples): the batch is asked for, never 0; the bucket is the model's
    // hidden_size^2; parameter offload is said not to be planned.
    void deepSpeedAutoValues()
    {
        const QStringList sets{"cluster.device=h100-sxm5-80gb", "cluster.nodes=1", "model.seq_len=4096"};
        io::ImportResult r = io::importFiles({data("llama3-8b-config.json"), data("ds_zero3_offload_auto.json")}, sets, io::builtinCatalog());
        QVERIFY(!r.ok());
        // The batch, the micro-batch and the precision are the Hugging Face Trainer's arguments: each asked for
        // (the micro-batch had taken the plan format's 1 and the precision FP32, said only in a warning).
        QStringList asked;
        for (const io::ImportMessage &e : r.errors)
            asked << e.file;
        QCOMPARE(asked, (QStringList{"training.global_batch", "training.micro_batch", "training.precision"}));
        QVERIFY(warned(r, "train_batch_size \"auto\"", 6));
        QVERIFY(readKey(r, "parallel.offload_parameters")); // offload_param.device cpu: ZeRO-Infinity's host parameters
        r = io::importFiles({data("llama3-8b-config.json"), data("ds_zero3_offload_auto.json")},
                            sets + QStringList{"training.global_batch=64", "training.micro_batch=8", "training.precision=bf16"},
                            io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->parallel.zeroStage, 3);
        QVERIFY(r.plan->parallel.offloadOptimizer);
        QVERIFY(r.plan->parallel.offloadParameters);
        QCOMPARE(r.plan->parallel.bucketBytes, 2.0 * 4096 * 4096); // reduce_bucket_size "auto": hidden_size^2 elements
        QCOMPARE(r.plan->training.framework, Framework::DeepSpeed);
    }

    // DeepSpeed's MiCS (zero_optimization.mics_shard_size; deepspeed/runtime/zero/config.py, -1 unless set):
    // ZeRO-3 inside groups of that many ranks, the plan's shard group; written back by the export.
    void deepSpeedMics()
    {
        const QStringList sets{"cluster.device=h100-sxm5-80gb", "cluster.nodes=4", "model.preset=llama3-8b", "model.seq_len=4096"};
        const QByteArray config = R"({"train_batch_size": 64, "train_micro_batch_size_per_gpu": 2, "bf16": {"enabled": true},
            "zero_optimization": {"stage": 3, "mics_shard_size": 8, "mics_hierarchical_params_gather": false}})";
        io::ImportResult r = io::importContents({{QStringLiteral("ds.json"), config}}, sets, io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->parallel.shardGroup, 8);
        QCOMPARE(r.plan->parallel.shardReplicas(), 4);
        QVERIFY(io::exportPlan(*r.plan, io::ExportTarget::DeepSpeed, io::builtinCatalog()).text.contains("\"mics_shard_size\": 8"));
        QByteArray off = config;
        off.replace("\"mics_shard_size\": 8", "\"mics_shard_size\": -1");
        r = io::importContents({{QStringLiteral("ds.json"), off}}, sets, io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->parallel.shardGroup, 0);
    }

    // Every language-model recipe of NeMo-Framework-Launcher (56 files, tests/data/import/real/nemo-launcher):
    // each gives a plan or fails naming a plan key; none exits with a plan and an error unsaid. Those with a
    // published size give it. The tokenizer gives the vocabulary: by Hugging Face name, Megatron type or
    // SentencePiece file (LLaMA's llama_tokenizer.model, Nemotron-4's nemotron_2_256k.model), or Qwen's
    // override_vocab_size.
    void nemoLauncherCorpus()
    {
        const QDir dir(data("real/nemo-launcher"));
        const QStringList files = dir.entryList({QStringLiteral("*.yaml")}, QDir::Files, QDir::Name);
        QCOMPARE(files.size(), 66);
        const std::map<QString, double> published{
            // Brown et al. 2020; model cards (Llama 3, Mistral 7B, Mistral NeMo 12B, Mixtral 8x7B).
            {"gpt3__126m.yaml", 125e6}, {"gpt3__175b.yaml", 175e9}, {"llama__llama3_8b.yaml", 8.03e9},
            {"llama__llama3_1_8b.yaml", 8.03e9}, {"llama__llama3_70b.yaml", 70.6e9}, {"llama__llama3_1_70b.yaml", 70.6e9},
            {"mistral__mistral_7b.yaml", 7.24e9}, {"mistral__mistral_nemo_12b.yaml", 12.2e9}, {"mixtral__mixtral_8x7b.yaml", 46.7e9},
            // The recipe's 16 query groups where the model has 8: 405.9 B + 126 x 2 x 16,384 x 1,024.
            {"llama__llama3_1_405b.yaml", 405.9e9 + 126.0 * 2 * 16384 * 1024},
            // Touvron et al. 2023, 'LLaMA', Table 2: 6.7 B, 13.0 B, 32.5 B, 65.2 B.
            {"llama__llama1_7b.yaml", 6.7e9}, {"llama__llama1_13b.yaml", 13.0e9}, {"llama__llama1_30b.yaml", 32.5e9},
            {"llama__llama1_65b.yaml", 65.2e9},
            // Llama 2's released checkpoints (Hugging Face model cards: 6,738,415,616; 13,015,864,320; 68,976,648,192).
            {"llama__llama2_7b.yaml", 6738415616.0}, {"llama__llama2_13b.yaml", 13015864320.0},
            {"llama__llama2_70b.yaml", 68976648192.0},
            // Nemotron-4 340B technical report, Table 1 (9.4 + 331.6 B); Mistral Large 2 (2407): 123 B.
            {"nemotron__nemotron_340b.yaml", 341.0e9}, {"mistral__mistral_nemo_123b.yaml", 123e9}};
        // The files that cannot be planned, read by hand: five name no tokenizer (model: null), two the MLPerf
        // SentencePiece file whose size no source states beside it; Falcon 7B's global_batch_size 32 on 128
        // GPUs and the 8x22B recipe's 1 on 24 data-parallel replicas are not whole micro-batches per replica.
        const std::map<QString, QString> refused{
            {"baichuan2__baichuan2_13b.yaml", "model.vocab"}, {"baichuan2__baichuan2_7b.yaml", "model.vocab"},
            {"nemotron__nemotron_4b.yaml", "model.vocab"},    {"nemotron__nemotron_8b.yaml", "model.vocab"},
            {"nemotron__nemotron_15b.yaml", "model.vocab"},   {"nemotron__nemotron_22b.yaml", "model.vocab"},
            {"gpt3__mlperf.yaml", "model.vocab"},             {"gpt3__mlperf-24n.yaml", "model.vocab"},
            {"falcon__falcon_7b.yaml", "training.global_batch"}, {"mixtral__mixtral_8x22b.yaml", "training.global_batch"},
            // Models that are not a decoder-only transformer, refused naming the key that says so (a BERT or a
            // T5 was asked only for its vocabulary, then planned as a GPT).
            {"t5__220m.yaml", "model.encoder and model.decoder: encoder-decoder models"},
            {"bert__110m.yaml", "model.bert_binary_head: BERT's bidirectional encoder layers"},
            {"neva__llama3_8b_chat.yaml", "model.mm_cfg: a vision-language model's vision encoder"},
            {"vit__B_16.yaml", "model.patch_dim: a vision transformer's layers"},
            {"retro__300m.yaml", "model.retro: RETRO's retrieval encoder"},
            {"clip__vit_B_32.yaml", "model.vision and model.text: CLIP's image and text encoders"},
            // Diffusion and NeRF recipes: refused by what they are, not asked for a model (the NeRF's MLP
            // sigma_net_cfg.num_layers had been read as model.layers).
            {"stable_diffusion__860m_res_256_pretrain.yaml", "model.unet_config: a diffusion model's UNet"},
            {"imagen__2b_res_64.yaml", "model.unet: Imagen's diffusion UNets"},
            {"nerf__dreamfusion.yaml", "defaults[0].nerf/model = dreamfusion: a NeRF's networks"},
            {"nerf__model__nerf__torchngp.yaml", "_target_ = nemo.collections.multimodal.modules.nerf.geometry"}};
        int planned = 0;
        for (const QString &f : files) {
            const io::ImportResult r = io::importFiles({dir.filePath(f)}, {QStringLiteral("cluster.device=h100-sxm5-80gb")}, io::builtinCatalog());
            if (r.ok()) {
                ++planned;
                QVERIFY2(!refused.count(f), qPrintable(f));
                if (const auto it = published.find(f); it != published.end())
                    QVERIFY2(std::abs(parameters(*r.plan) / it->second - 1) < 0.01,
                             qPrintable(QStringLiteral("%1: %2 B").arg(f).arg(parameters(*r.plan) / 1e9)));
                continue;
            }
            QVERIFY2(refused.count(f), qPrintable(f + QStringLiteral(": ") + io::importReport(r).right(300)));
            // A clear error: it names the plan key.
            const QString error = r.errors.front().text;
            QVERIFY2(error.contains(refused.at(f)), qPrintable(f + ": " + error));
        }
        QCOMPARE(planned, int(files.size() - refused.size()));
    }

    // Two vocabularies that differ by source: mistral-community's conversion of Mixtral 8x22B has 32,000 tokens
    // (its config.json), mistralai's 32,768; Llama 3's recipe names its Hugging Face tokenizer.
    void tokenizerVocabularies()
    {
        const auto vocab = [](const char *type) {
            const QByteArray recipe = QByteArray("model:\n  num_layers: 2\n  hidden_size: 64\n  num_attention_heads: 2\n"
                                                 "  tensor_model_parallel_size: 1\n  make_vocab_size_divisible_by: 1\n"
                                                 "  tokenizer:\n    library: huggingface\n    type: ") + type + "\n    model: null\n";
            const io::ImportResult r = io::importContents({{QStringLiteral("r.yaml"), recipe}}, {}, io::builtinCatalog());
            const io::ImportedKey *k = readKey(r, "derived.tokenizer_vocab", ".yaml");
            return k ? k->value.toInt() : 0;
        };
        QCOMPARE(vocab("mistral-community/Mixtral-8x22B-v0.1"), 32000);
        QCOMPARE(vocab("mistralai/Mixtral-8x22B-Instruct-v0.1"), 32768);
        QCOMPARE(vocab("meta-llama/Meta-Llama-3-8B"), 128256);
        QCOMPARE(vocab("THUDM/chatglm3-6b"), 65024);
        QCOMPARE(vocab("some/unknown-model"), 0);
    }

    /// NeMo 1's example configurations (examples/nlp/language_modeling/conf): the GPT one planned (GPT-2
    /// small's shape: 12 layers of 768, 50,257 tokens padded to 50,304), the state-space, long-convolution and
    /// recurrent ones refused naming what they are (each had been planned as a GPT of its size: Mamba as 9.99 B).
    void nemoExamplesCorpus()
    {
        const QStringList device{QStringLiteral("cluster.device=h100-sxm5-80gb")};
        io::ImportResult r = io::importFiles({data("real/nemo/megatron_gpt_config.yaml")}, device, io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->model.layers, 12);
        QCOMPARE(r.plan->model.hidden, 768);
        QCOMPARE(r.plan->model.vocab, 50304);
        const std::tuple<const char *, int, const char *> refused[] = {
            {"real/nemo/megatron_mamba_config.yaml", 62, "model.mamba_ssm_ngroups: Mamba layers"},
            {"real/nemo/megatron_gpt_config_hyena.yaml", 101, "model.hyena: Hyena operators"},
            {"real/nemo/megatron_griffin_config.yaml", 1, "name megatron_griffin: Griffin's recurrent (RG-LRU) blocks"},
            // Parameter-efficient tuning: adapters train beside a frozen model (no plan key holds that).
            {"real/nemo/tuning__megatron_gpt_finetuning_config.yaml", 87, "model.peft.peft_scheme adapter: "
                                                                          "parameter-efficient tuning"}};
        for (const auto &[file, line, what] : refused) {
            r = io::importFiles({data(file)}, device, io::builtinCatalog());
            QVERIFY2(!r.ok() && r.errors.front().line == line && r.errors.front().text.startsWith(QLatin1String(what)),
                     qPrintable(QLatin1String(file) + QLatin1Char(' ') + io::importReport(r).right(400)));
        }
        // The same fine-tuning with peft_scheme none trains every parameter: planned (its model given).
        QFile tuning(data("real/nemo/tuning__megatron_gpt_finetuning_config.yaml"));
        QVERIFY(tuning.open(QIODevice::ReadOnly));
        const QByteArray full = tuning.readAll().replace("peft_scheme: \"adapter\"", "peft_scheme: \"none\"");
        r = io::importContents({{QStringLiteral("sft.yaml"), full}},
                               device + QStringList{QStringLiteral("cluster.nodes=1"), QStringLiteral("model.preset=llama3-8b")},
                               io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
    }

    // The whole corpus at once (issue 38: no silent wrong plan, the rest clear errors naming the key): every real
    // file under tests/data/import/real, imported with only the device given, either gives a plan (what each plan
    // holds is asserted by the cases above) or says what stops it at a line of the file, by a plan key (the keys
    // no file gives among them), or as a whole file that is no format Trainplan imports: never an error a user
    // could not act on. tools/import_corpus_outcomes.py prints the same sorting as a table.
    void corpusRefusalsNameALineOrAKey()
    {
        static const QRegularExpression planKey(
            QStringLiteral("\\b(model|training|parallel|cluster|run)\\.[a-z_0-9]+"));
        const QStringList wholeFile{QStringLiteral("not a format Trainplan imports"),
                                    QStringLiteral("no setting Trainplan plans was read")};
        QDirIterator files(data("real"), QDir::Files, QDirIterator::Subdirectories);
        int planned = 0, asking = 0, refused = 0;
        while (files.hasNext()) {
            const QString path = files.next();
            if (path.endsWith(QLatin1String("/SOURCES.md")))
                continue;
            const io::ImportResult r =
                io::importFiles({path}, {QStringLiteral("cluster.device=h100-sxm5-80gb")}, io::builtinCatalog());
            if (r.ok()) {
                ++planned;
                continue;
            }
            QVERIFY2(!r.errors.empty(), qPrintable(path));
            bool onlyMissing = true;
            for (const io::ImportMessage &e : r.errors) {
                const bool named = e.line > 0 || planKey.match(e.text).hasMatch() ||
                                   std::any_of(wholeFile.begin(), wholeFile.end(),
                                               [&](const QString &v) { return e.text.contains(v); });
                QVERIFY2(named, qPrintable(path + QStringLiteral(": ") + e.text));
                onlyMissing = onlyMissing && e.text.contains(QLatin1String("no file gives"));
            }
            ++(onlyMissing ? asking : refused);
        }
        qInfo("import corpus: %d files, %d plans, %d ask for keys no file gives, %d refused at a line or key",
              planned + asking + refused, planned, asking, refused);
        // The folders' own cases count 66 NeMo-Framework-Launcher recipes alone; the corpus is well past 60.
        QVERIFY(planned + asking + refused >= 150);
        QVERIFY(planned >= 50);
    }

    // Issue 38's figure: every real file of the corpus against what it should give, one row each in
    // tests/data/import/real_expected.csv (what a user adds with --set where the file does not say it; the plan's
    // parameter count from the model card or paper, and its shape, layout and training settings read from the file
    // by hand; or the refusal the file calls for: a model Trainplan does not plan, a batch that cannot run as
    // written). A plan that differs from its row is a silent wrong plan and fails the test; a refusal where a plan
    // is expected is counted, not failed (corpusRefusalsNameALineOrAKey holds that it names a line or a key).
    void corpusPlansAreRight()
    {
        std::map<QString, QStringList> rows;
        QVERIFY(readCorpusExpectations(rows));
        const QString root = data("real") + QLatin1Char('/');
        QDirIterator files(root, QDir::Files, QDirIterator::Subdirectories);
        int plans = 0, plansRight = 0, refusals = 0, refusalsRight = 0, files_ = 0;
        QStringList refusedInstead, wrong, missing;
        while (files.hasNext()) {
            const QString path = files.next();
            const QString file = path.mid(root.size());
            if (file == QLatin1String("SOURCES.md"))
                continue;
            ++files_;
            const auto row = rows.find(file);
            if (row == rows.end()) {
                missing << file;
                continue;
            }
            const QStringList &cells = row->second;
            QStringList sets{QStringLiteral("cluster.device=h100-sxm5-80gb")};
            // script-args=A|B|...: a launch script's positional parameters; with=FILE: a file of the corpus it
            // sources, imported beside it.
            io::ImportOptions options;
            QStringList paths{path};
            for (const QString &given : cells[1].split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
                if (given.startsWith(QLatin1String("script-args=")))
                    options.scriptArguments = given.mid(12).split(QLatin1Char('|'));
                else if (given.startsWith(QLatin1String("with=")))
                    paths << root + given.mid(5);
                else if (given.startsWith(QLatin1String("cluster.device=")))
                    sets.front() = given; // a part the file's precision needs, over the corpus's H100
                else
                    sets << given;
            }
            const io::ImportResult r = io::importFiles(paths, sets, io::builtinCatalog(), options);
            if (cells[2] == QLatin1String("refuse")) {
                ++refusals;
                QVERIFY2(!r.ok(), qPrintable(file + QStringLiteral(": planned where its row expects a refusal")));
                QVERIFY2(std::any_of(r.errors.begin(), r.errors.end(),
                                     [&](const io::ImportMessage &e) { return e.text.contains(cells[4]); }),
                         qPrintable(file + ": " + r.errors.front().text));
                ++refusalsRight;
                continue;
            }
            QCOMPARE(cells[2], QStringLiteral("plan"));
            ++plans;
            if (!r.ok()) {
                refusedInstead << file + QStringLiteral(": ") + r.errors.front().text.left(160);
                continue;
            }
            const qsizetype wrongBefore = wrong.size();
            if (!cells[3].isEmpty()) {
                const double expected = cells[3].toDouble();
                if (std::abs(parameters(*r.plan) / expected - 1) >= 0.01)
                    wrong << QStringLiteral("%1: %2 B parameters, its source %3 B")
                                 .arg(file).arg(parameters(*r.plan) / 1e9).arg(expected / 1e9);
            }
            for (const QString &check : cells[4].split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
                const qsizetype eq = check.indexOf(QLatin1Char('='));
                if (check.left(eq) == QLatin1String("model.preset")) { // read by the io layer: no accessor
                    if (QString::fromStdString(r.plan->model.presetId) != check.mid(eq + 1))
                        wrong << QStringLiteral("%1: %2, the plan has %3")
                                     .arg(file, check, QString::fromStdString(r.plan->model.presetId));
                    continue;
                }
                const PlanKey *key = findPlanKey(check.left(eq).toStdString());
                QVERIFY2(key && key->accessible(), qPrintable(file + ": no key " + check));
                Problem problem;
                const std::optional<KeyValue> want = parseValue(*key, check.mid(eq + 1).toStdString(), &problem);
                QVERIFY2(want, qPrintable(file + ": " + check));
                const KeyValue got = key->get(*r.plan);
                const bool same = std::holds_alternative<double>(got) && std::holds_alternative<double>(*want)
                                      ? std::abs(std::get<double>(got) - std::get<double>(*want)) <=
                                            1e-9 * std::abs(std::get<double>(*want))
                                      : got == *want;
                if (!same)
                    wrong << QStringLiteral("%1: %2, the plan has %3")
                                 .arg(file, check, QString::fromStdString(formatValue(got)));
            }
            plansRight += wrong.size() == wrongBefore ? 1 : 0;
        }
        const int right = plansRight + refusalsRight;
        qInfo("import corpus against its expected outcomes: %d files; %d should plan, %d do (the rest refused naming "
              "a line or key); %d should be refused and are; right %d of %d (%.1f%%)",
              files_, plans, plansRight, refusals, right, files_, 100.0 * right / files_);
        for (const QString &f : refusedInstead)
            qInfo("  refused where a plan is expected: %s", qPrintable(f));
        //         QVERIFY2(missing.isEmpty(), qPrintable(QStringLiteral("no row in real_expected.csv: ") + missing.join(", ")));
        QVERIFY2(wrong.isEmpty(), qPrintable(QStringLiteral("silent wrong plans:\n") + wrong.join(QLatin1Char('\n'))));
        QCOMPARE(int(rows.size()), files_);
        QVERIFY(right >= 0.9 * files_);
    }

    // torchtitan's last TOML job files (238fa99, the parent of 9810191b, which made them Python; SOURCES.md): each
    // plans what it says (the preset by name and flavor, the layout, float8 with its FSDP all-gather, the
    // checkpointing, sequence parallelism with tensor parallelism as torchtitan's TP plan applies it) or, for a
    // model the catalog has no preset of, fails naming model.layers.
    void torchtitanCorpus()
    {
        struct Expected
        {
            const char *file, *preset;
            int tensor, pipeline;
            Precision precision;
            bool gather;
            Recompute recompute;
        };
        const Expected planned[] = {
            {"llama3_8b.toml", "llama3-8b", 1, 1, Precision::BF16, false, Recompute::Ops},
            {"llama3_70b.toml", "llama3-70b", 8, 1, Precision::BF16, false, Recompute::Full},
            {"llama3_405b.toml", "llama3.1-405b", 8, 1, Precision::FP8, true, Recompute::Full},
            {"deepseek_v3_671b.toml", "deepseek-v3", 1, 1, Precision::BF16, false, Recompute::Ops},
            {"llama4_17bx128e.toml", "llama4-maverick", 8, 4, Precision::BF16, false, Recompute::Full},
            // torchtitan's deepseek_v3 "16B" is DeepSeek-V2-Lite's shape; llama4 17bx16e is Scout.
            {"deepseek_v3_16b.toml", "deepseek-v2-lite", 1, 1, Precision::BF16, false, Recompute::Ops},
            {"llama4_17bx16e.toml", "llama4-scout", 8, 1, Precision::BF16, false, Recompute::Full},
            {"qwen3_0.6b.toml", "qwen3-0.6b", 1, 1, Precision::BF16, false, Recompute::Ops},
            {"qwen3_1.7b.toml", "qwen3-1.7b", 1, 1, Precision::BF16, false, Recompute::Ops},
            {"qwen3_32b.toml", "qwen3-32b", 1, 1, Precision::BF16, false, Recompute::Full},
            // The files of 9dec370 (December 2024, the H100 benchmarks' commit): tensor_parallel_degree under
            // [training], the pipeline and async TP under [experimental], float8 as enable_float8_linear. Before,
            // each planned TP 1 in BF16 (the degree "not understood", float8 dropped).
            {"2024-12__llama3_8b.toml", "llama3-8b", 1, 1, Precision::BF16, false, Recompute::Ops},
            {"2024-12__llama3_70b.toml", "llama3-70b", 8, 1, Precision::BF16, false, Recompute::Full},
            {"2024-12__llama3_405b.toml", "llama3.1-405b", 8, 1, Precision::FP8, true, Recompute::Full}};
        const QStringList sets{QStringLiteral("cluster.device=h100-sxm5-80gb"), QStringLiteral("cluster.nodes=64")};
        for (const Expected &e : planned) {
            const io::ImportResult r = io::importFiles({data("real/torchtitan/") + e.file}, sets, io::builtinCatalog());
            QVERIFY2(r.ok(), qPrintable(QLatin1String(e.file) + ": " + io::importReport(r)));
            QCOMPARE(r.plan->model.presetId, std::string(e.preset));
            QCOMPARE(r.plan->parallel.tensor, std::int64_t(e.tensor));
            QCOMPARE(r.plan->parallel.pipeline, std::int64_t(e.pipeline));
            QCOMPARE(r.plan->training.precision, e.precision);
            QCOMPARE(r.plan->training.fp8ParamGather, e.gather);
            QCOMPARE(r.plan->training.recompute, e.recompute);
            QCOMPARE(r.plan->training.sequenceParallel, e.tensor > 1);
            QCOMPARE(r.plan->training.framework, Framework::Fsdp);
            // F.scaled_dot_product_attention's flash backend (FlashAttention-2); it came back unfused before.
            QVERIFY(r.plan->training.flashAttention);
            QCOMPARE(r.plan->training.attentionKernel, AttentionKernel::Flash2);
        }
        QVERIFY(io::importFiles({data("real/torchtitan/2024-12__llama3_405b.toml")}, sets, io::builtinCatalog())
                    .plan->parallel.tensorCommOverlap); // [experimental] enable_async_tensor_parallel
        // September 2025's DeepSeek-V3 file keeps [training] compile = false beside [compile] enable = true with
        // components = ["loss"]: the section is torchtitan's, and it compiles the loss alone, so the model is
        // eager (it was refused as a conflict of the two).
        io::ImportResult t = io::importFiles({data("real/torchtitan/2025-09__deepseek_v3_671b.toml")}, sets, io::builtinCatalog());
        QVERIFY2(t.ok(), qPrintable(io::importReport(t)));
        QVERIFY(!t.plan->training.compile);
        QCOMPARE(t.plan->model.presetId, std::string("deepseek-v3"));
        // FLUX's job file is refused naming model.name; torchtitan's pyproject.toml read as a job file gives
        // nothing but the format's defaults: "no setting ... read", not a plan of defaults asking for a model.
        t = io::importFiles({data("real/torchtitan/2025-12__flux_dev_model.toml")}, sets, io::builtinCatalog());
        QVERIFY2(!t.ok() && t.errors.front().text.startsWith(QLatin1String("model.name \"flux\": FLUX's diffusion")),
                 qPrintable(io::importReport(t)));
        t = io::importFiles({data("real/torchtitan/2025-12__pyproject.toml")}, sets, io::builtinCatalog());
        QVERIFY2(!t.ok() && t.errors.front().text.startsWith(QLatin1String("no setting Trainplan plans was read")),
                 qPrintable(io::importReport(t)));
        // Pipeline micro-batches: a 2024 file splits its batch into one micro-batch per stage (pipelining_utils.py
        // at 9dec370); since 5e2033c (April 2025) micro-batches hold pipeline_parallel_microbatch_size sequences,
        // 1 unless set (said, as a file cannot tell which release it was written for). Without
        // data_parallel_shard_degree torchtitan shards over the ranks left (its default -1): FSDP, ZeRO-3; degree
        // 1 (DDP) has no PyTorch-native plan framework (fsdp always shards), which a warning says.
        const auto job = [&](const QByteArray &body) {
            return io::importContents({{QStringLiteral("job.toml"),
                                        QByteArray("[model]\nname = \"llama3\"\nflavor = \"8B\"\n") + body}},
                                      sets, io::builtinCatalog());
        };
        io::ImportResult p = job("[training]\nbatch_size = 8\nseq_len = 8192\ntensor_parallel_degree = 2\n"
                                 "[experimental]\npipeline_parallel_degree = 4\ncontext_parallel_degree = 2\n");
        QVERIFY2(p.ok(), qPrintable(io::importReport(p)));
        QCOMPARE(p.plan->parallel.pipeline, 4);
        QCOMPARE(p.plan->parallel.context, 2);
        QCOMPARE(p.plan->parallel.tensor, 2);
        QCOMPARE(p.plan->training.microBatch, 2);
        QCOMPARE(p.plan->microbatches(), 4);
        QCOMPARE(p.plan->training.framework, Framework::Fsdp);
        QCOMPARE(p.plan->parallel.zeroStage, 3);
        const QByteArray pipelined("[training]\nlocal_batch_size = 8\nseq_len = 8192\n[parallelism]\npipeline_parallel_degree = 4\n");
        p = job(pipelined);
        QVERIFY2(p.ok(), qPrintable(io::importReport(p)));
        QCOMPARE(p.plan->training.microBatch, 1);
        QCOMPARE(p.plan->microbatches(), 8);
        QCOMPARE(p.plan->training.globalBatch, 8 * p.plan->parallel.data);
        QVERIFY(warned(p, "default since April 2025", 8));
        p = job(pipelined + "pipeline_parallel_microbatch_size = 2\n");
        QVERIFY2(p.ok(), qPrintable(io::importReport(p)));
        QCOMPARE(p.plan->training.microBatch, 2);
        QCOMPARE(p.plan->microbatches(), 4);
        QVERIFY(!warned(p, "default since April 2025", 8));
        p = job(pipelined + "pipeline_parallel_microbatch_size = 3\n");
        QVERIFY(!p.ok() && p.errors.front().text.contains(QLatin1String("training.micro_batch")) && p.errors.front().line == 9);
        p = job("[training]\nlocal_batch_size = 8\nseq_len = 8192\n[parallelism]\ndata_parallel_shard_degree = 1\n");
        QVERIFY2(p.ok(), qPrintable(io::importReport(p)));
        QCOMPARE(p.plan->parallel.zeroStage, 0);
        QVERIFY(warned(p, "replicated data parallelism", 8));
        // FSDP2's CPU offload (training.enable_cpu_offload): parameters and optimizer on the host, both ways.
        p = job("[training]\nlocal_batch_size = 8\nseq_len = 8192\nenable_cpu_offload = true\n");
        QVERIFY2(p.ok(), qPrintable(io::importReport(p)));
        QVERIFY(p.plan->parallel.offloadParameters && p.plan->parallel.offloadOptimizer);
        QVERIFY(io::exportPlan(*p.plan, io::ExportTarget::Torchtitan, io::builtinCatalog()).text.contains("enable_cpu_offload = true"));
        // The 16B's expert_parallel_degree 8; Scout's expert_tensor_parallel_degree 8 with experts unsplit.
        const io::ImportResult lite = io::importFiles({data("real/torchtitan/deepseek_v3_16b.toml")}, sets, io::builtinCatalog());
        QVERIFY(lite.ok());
        QCOMPARE(lite.plan->parallel.expert, std::int64_t(8));
        const io::ImportResult scout = io::importFiles({data("real/torchtitan/llama4_17bx16e.toml")}, sets, io::builtinCatalog());
        QVERIFY(scout.ok());
        QCOMPARE(scout.plan->parallel.expert, std::int64_t(1));
        QCOMPARE(scout.plan->parallel.expertTensor, std::int64_t(8));
        // A flavor the catalog has no preset of fails naming model.preset and says why.
        const QByteArray debug("[model]\nname = \"llama3\"\nflavor = \"debugmodel\"\n[parallelism]\ntensor_parallel_degree = 1\n");
        const io::ImportResult r = io::importContents({{QStringLiteral("job.toml"), debug}}, sets, io::builtinCatalog());
        QVERIFY(!r.ok() && io::importReport(r).contains(QLatin1String("model.preset")));
        QVERIFY(std::any_of(r.warnings.begin(), r.warnings.end(),
                            [](const io::ImportMessage &m) { return m.text.contains(QLatin1String("not a preset")); }));
        // PyTorch's LoopedBFS and ZBVZeroBubble have no plan schedule of their own: read as the nearest, and
        // said (they were planned silently as interleaved 1F1B and ZB-H1).
        for (const auto &[schedule, planned, said] :
             {std::tuple{"LoopedBFS", Schedule::Interleaved, "memory peak is higher"},
              std::tuple{"ZBVZeroBubble", Schedule::ZeroBubbleH1, "smaller bubble"},
              std::tuple{"Interleaved1F1B", Schedule::Interleaved, ""}}) {
            const QByteArray job = QByteArray("[model]\nname = \"llama3\"\nflavor = \"8B\"\n[parallelism]\n"
                                              "pipeline_parallel_degree = 4\npipeline_parallel_schedule = \"") +
                                   schedule + "\"\n[training]\nlocal_batch_size = 8\nseq_len = 8192\n";
            const io::ImportResult x = io::importContents({{QStringLiteral("job.toml"), job}}, sets, io::builtinCatalog());
            QVERIFY2(x.ok(), qPrintable(io::importReport(x)));
            QCOMPARE(x.plan->parallel.schedule, planned);
            const bool warnedIt = std::any_of(x.warnings.begin(), x.warnings.end(), [&](const io::ImportMessage &m) {
                return m.text.contains(QLatin1String("pipeline_parallel_schedule")) && m.line == 6;
            });
            QCOMPARE(warnedIt, *said != 0);
            if (*said)
                QVERIFY(io::importReport(x).contains(QLatin1String(said)));
        }
    }

    // Megatron-LM's --fp8-recipe picks the FP8 format and, for per-tensor FP8, its scaling; it means nothing
    // without --fp8-format (arguments.py: fp8_recipe defaults to "delayed" while fp8 stays None), so a BF16 line
    // that names a recipe stays BF16 (Megatron-Bridge's saved configurations write fp8_recipe "tensorwise" with
    // fp8 null).
    void megatronFp8Recipe()
    {
        const auto planOf = [](const QByteArray &flags, const char *device = "h100-sxm5-80gb") {
            const QByteArray script = "torchrun pretrain_gpt.py --num-layers 2 --hidden-size 64 --num-attention-heads 2 "
                                      "--vocab-size 1024 --seq-length 128 --micro-batch-size 1 --global-batch-size 8 " +
                                      flags + '\n';
            return io::importContents({{QStringLiteral("run.sh"), script}},
                                      {QStringLiteral("cluster.device=") + QLatin1String(device),
                                       QStringLiteral("cluster.nodes=1")},
                                      io::builtinCatalog());
        };
        io::ImportResult r = planOf("--bf16 --fp8-format hybrid --fp8-recipe tensorwise");
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->training.precision, Precision::FP8);
        QCOMPARE(r.plan->training.fp8Recipe, Fp8Recipe::Tensorwise);
        r = planOf("--bf16 --fp8-format hybrid");
        QCOMPARE(r.plan->training.fp8Recipe, Fp8Recipe::Delayed); // Megatron-LM's default recipe
        r = planOf("--bf16 --fp8-format e4m3 --fp8-recipe mxfp8", "b200");
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->training.precision, Precision::MXFP8);
        r = planOf("--bf16 --fp8-recipe mxfp8", "b200");
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->training.precision, Precision::BF16);
        r = planOf("--bf16 --fp8-format hybrid --fp8-recipe sometimes");
        QVERIFY(warned(r, "sometimes", 1));
        // A Bridge run configuration of a BF16 run: mixed_precision.fp8_recipe tensorwise, fp8 null.
        const io::FileImport bf16 = io::importFile(
            QStringLiteral("run_config.yaml"),
            QByteArray("mixed_precision:\n  bf16: true\n  fp8: null\n  fp8_recipe: tensorwise\n"), io::ImportFormat::NeMo);
        QVERIFY(std::none_of(bf16.keys.begin(), bf16.keys.end(), [](const io::ImportedKey &k) {
            return k.path == QLatin1String("training.precision") && k.value.toString() != QLatin1String("bf16");
        }));
    }

    void megatronMoeFlags()
    {
        // A DeepSeek-V3 launch line as Megatron-LM takes it: the recompute modules are a list, DeepEP a flag.
        const QByteArray script("torchrun pretrain_gpt.py --num-layers 61 --hidden-size 7168 --num-attention-heads 128 \\\n"
                                "  --num-experts 256 --moe-router-topk 8 --moe-router-num-groups 8 --moe-router-group-topk 4 \\\n"
                                "  --moe-token-dispatcher-type flex --moe-enable-deepep \\\n"
                                "  --recompute-granularity selective --recompute-modules core_attn mla_up_proj moe layernorm \\\n"
                                "  --micro-batch-size 1 --global-batch-size 8192\n");
        const io::ImportResult r = io::importContents({{QStringLiteral("run.sh"), script}}, {}, io::builtinCatalog());
        const auto value = [&](const char *key) {
            const io::ImportedKey *k = readKey(r, key, ".sh");
            return k ? k->value : QJsonValue();
        };
        QCOMPARE(value("model.router_groups").toInt(), 8);
        QCOMPARE(value("model.router_group_topk").toInt(), 4);
        QCOMPARE(value("parallel.expert_dispatcher").toString(), QStringLiteral("deepep"));
        QCOMPARE(value("training.recompute_mla_up_proj").toBool(), true);
        QCOMPARE(value("training.recompute_moe").toBool(), true);
        QVERIFY(readKey(r, "training.recompute_moe_act", ".sh") == nullptr);
        // layernorm has no plan key: said on the line, not dropped silently.
        QVERIFY(warned(r, "layernorm", 4));
        // The flags after the list are still read.
        QCOMPARE(value("training.micro_batch").toInt(), 1);
        // Without --moe-grouped-gemm this line runs Megatron-Core's SequentialMLP (moe_grouped_gemm defaults to
        // False, transformer_config.py): said, as the plan's expert GEMMs are grouped; the flex dispatcher is read.
        QVERIFY(warned(r, "SequentialMLP", 2));
        QVERIFY(!std::any_of(r.warnings.begin(), r.warnings.end(),
                             [](const io::ImportMessage &m) { return m.text.contains(QLatin1String("allgather")); }));
        // Neither flag: the allgather dispatcher is Megatron-Core's default too.
        const io::ImportResult bare = io::importContents(
            {{QStringLiteral("run.sh"), QByteArray("torchrun pretrain_gpt.py --num-layers 2 --num-experts 8 --moe-grouped-gemm\n")}}, {},
            io::builtinCatalog());
        QVERIFY(warned(bare, "allgather (Megatron-Core's default)", 1) && !warned(bare, "SequentialMLP", 1));
    }

    void conflictsNameBothFiles()
    {
        const QByteArray script = "--hidden-size 5120 --num-layers 32\n";
        QFile config(data("llama3-8b-config.json"));
        QVERIFY(config.open(QIODevice::ReadOnly));
        const io::ImportResult r = io::importContents({{QStringLiteral("config.json"), config.readAll()}, {QStringLiteral("run.sh"), script}}, {},
                                                      io::builtinCatalog());
        QVERIFY(!r.ok());
        QCOMPARE(r.errors.size(), std::size_t(1));
        const QString text = r.errors.front().where() + ' ' + r.errors.front().text;
        QVERIFY2(text.contains(QStringLiteral("model.hidden")) && text.contains(QStringLiteral("run.sh:1")) && text.contains(QStringLiteral("5120"))
                     && text.contains(QStringLiteral("config.json:10")) && text.contains(QStringLiteral("4096")),
                 qPrintable(text));
    }

    // ZeRO++'s keys (DeepSpeedZeroConfig: zero_quantized_weights, zero_hpz_partition_size,
    // zero_quantized_gradients) reach the plan; before, they were "not understood" and the plan ran plain ZeRO-3.
    void deepSpeedZeroPlusPlus()
    {
        QFile model(data("llama3-8b-config.json"));
        QVERIFY(model.open(QIODevice::ReadOnly));
        const QByteArray ds = R"({"train_batch_size": 512, "train_micro_batch_size_per_gpu": 2, "bf16": {"enabled": true},
            "zero_optimization": {"stage": 3, "zero_quantized_weights": true, "zero_hpz_partition_size": 8,
                                  "zero_quantized_gradients": true}})";
        const io::ImportResult r = io::importContents({{QStringLiteral("config.json"), model.readAll()}, {QStringLiteral("ds.json"), ds}},
                                                      {QStringLiteral("cluster.device=h100-sxm5-80gb"), QStringLiteral("cluster.nodes=4"),
                                                       QStringLiteral("model.seq_len=8192")},
                                                      io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r).right(600)));
        QCOMPARE(r.plan->parallel.zeroStage, 3);
        QVERIFY(r.plan->parallel.zeroQuantizedWeights);
        QCOMPARE(r.plan->parallel.zeroHpzPartition, 8);
        QVERIFY(r.plan->parallel.zeroQuantizedGradients);
        QVERIFY2(!io::importReport(r).contains(QStringLiteral("not understood")), qPrintable(io::importReport(r)));
    }

    void deepSpeedConfig()
    {
        const io::ImportResult r = io::importFiles({data("mixtral-8x7b-config.json"), data("ds_zero2.json")},
                                                   {QStringLiteral("cluster.device=a100-sxm4-80gb"), QStringLiteral("cluster.nodes=2"),
                                                    QStringLiteral("model.seq_len=4096")},
                                                   io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->training.framework, Framework::DeepSpeed);
        QCOMPARE(r.plan->parallel.zeroStage, 2);
        QCOMPARE(r.plan->training.microBatch, 2);
        // No train_batch_size: micro-batch 2 x 4 accumulation steps x 16 data-parallel ranks.
        QCOMPARE(r.plan->training.globalBatch, 2 * 4 * 16);
        QCOMPARE(r.plan->parallel.bucketBytes, 2 * 5e8);
        QVERIFY(!r.plan->parallel.offloadOptimizer);
        QCOMPARE(r.plan->model.seqLen, 4096); // --set wins and is not listed as assumed
        QVERIFY(!r.assumptions.join('\n').contains(QStringLiteral("model.seq_len")));
        // train_batch_size and gradient_accumulation_steps without the micro-batch: DeepSpeed sets it to
        // train_batch / world / grad_acc (deepspeed/runtime/config.py, _set_batch_related_parameters): 256 / 8 / 2.
        // The plan had kept micro-batch 1 (32 accumulation steps where the file says 2).
        const QByteArray ds = R"({"train_batch_size": 256, "gradient_accumulation_steps": 2, "fp16": {"enabled": true}})";
        const io::ImportResult b = io::importContents(
            {{QStringLiteral("ds.json"), ds}},
            {QStringLiteral("cluster.device=a100-sxm4-80gb"), QStringLiteral("cluster.nodes=1"), QStringLiteral("model.preset=gpt2-small")},
            io::builtinCatalog());
        QVERIFY2(b.ok(), qPrintable(io::importReport(b)));
        QCOMPARE(b.plan->training.microBatch, 16);
        QCOMPARE(b.plan->training.globalBatch, 256);
        // train_batch_size alone: one accumulation step, micro = train_batch / world (it had stayed at 1).
        const io::ImportResult c = io::importContents(
            {{QStringLiteral("ds.json"), R"({"train_batch_size": 64})"}},
            {QStringLiteral("cluster.device=a100-sxm4-80gb"), QStringLiteral("cluster.nodes=1"), QStringLiteral("model.preset=gpt2-small")},
            io::builtinCatalog());
        QVERIFY2(c.ok(), qPrintable(io::importReport(c)));
        QCOMPARE(c.plan->training.microBatch, 8);
    }

    void nemoRecipe()
    {
        const io::ImportResult r = io::importFiles({data("nemo_llama3_8b.yaml")}, {QStringLiteral("cluster.device=h100-sxm5-80gb")}, io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->parallel.context, 2);
        QCOMPARE(r.plan->cluster.nodes * r.plan->cluster.gpusPerNode, 64);
        QCOMPARE(r.plan->training.precision, Precision::FP8); // fp8: hybrid beside bf16-mixed
        QCOMPARE(r.plan->model.mlp, MlpKind::SwiGlu);
        QCOMPARE(readKey(r, "parallel.context")->line, 11);
        QCOMPARE(readKey(r, "parallel.context_comm")->line, 35); // cp_comm_type: p2p is the ring
        QCOMPARE(r.plan->parallel.contextComm, ContextComm::Ring);
        // Without a device it is refused naming the key; on an A100 the FP8 recipe is refused, naming the rule.
        const io::ImportResult none = io::importFiles({data("nemo_llama3_8b.yaml")}, {}, io::builtinCatalog());
        QCOMPARE(none.errors.size(), std::size_t(1));
        QCOMPARE(none.errors.front().file, QStringLiteral("cluster.device"));
        const io::ImportResult a100 = io::importFiles({data("nemo_llama3_8b.yaml")}, {QStringLiteral("cluster.device=a100-sxm4-80gb")}, io::builtinCatalog());
        QVERIFY(!a100.ok());
        QVERIFY(a100.errors.front().text.contains(QStringLiteral("training.precision")));
    }

    void torchtitanJob()
    {
        const io::ImportResult r = io::importFiles({data("torchtitan_llama3_8b.toml")},
                                                   {QStringLiteral("cluster.device=h100-sxm5-80gb"), QStringLiteral("cluster.nodes=8")}, io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        // No global_batch_size: torchtitan's -1, local_batch_size 1 x 64 data-parallel ranks (job_config.py).
        QCOMPARE(r.plan->training.globalBatch, 64);
        QCOMPARE(r.plan->model.name, std::string("Llama 3 8B"));
        QCOMPARE(r.plan->training.framework, Framework::Fsdp); // data_parallel_shard_degree = -1
        QCOMPARE(r.plan->parallel.zeroStage, 3);
        // mode "selective" with selective_ac_option "op": torchtitan's op-level checkpointing.
        QCOMPARE(r.plan->training.recompute, Recompute::Ops);
        QCOMPARE(r.plan->model.seqLen, 8192);
        QCOMPARE(readKey(r, "training.micro_batch")->line, 21);
        // A job file's release projects Q, K and V with three nn.Linear (fused QKV came in April 2026).
        QVERIFY(r.plan->training.separateQkv);
        // ... and repeats K and V to the query heads before the attention (GQA without repeats: January 2026).
        QVERIFY(r.plan->training.repeatKvHeads);
        // No mixed_precision_reduce: torchtitan's default, "float32", the reduce-scatter's dtype.
        QVERIFY(r.plan->training.fp32Gradients);
        QVERIFY(readKey(r, "training.fp32_gradients")->source.contains(QStringLiteral("mixed_precision_reduce")));
        // torchtitan's transformers backend (experiments/transformers_modeling_backend/configs/full.toml at
        // 238fa99, with a checkpoint the catalog lists): [hf_transformers] model names the model.
        QFile full(data("real/torchtitan/llama3_8b.toml"));
        QVERIFY(full.open(QIODevice::ReadOnly));
        QByteArray job = full.readAll();
        job.replace("name = \"llama3\"", "name = \"transformers_modeling_backend\"");
        job.replace("flavor = \"8B\"", "flavor = \"full\"\n\n[hf_transformers]\nmodel = \"Qwen/Qwen3-8B\"");
        const io::ImportResult hf = io::importContents(
            {{QStringLiteral("job.toml"), job}},
            {QStringLiteral("cluster.device=h100-sxm5-80gb"), QStringLiteral("cluster.nodes=1")}, io::builtinCatalog());
        QVERIFY2(hf.ok(), qPrintable(io::importReport(hf)));
        QCOMPARE(hf.plan->model.presetId, std::string("qwen3-8b"));
    }

    // Context ranks exchange K and V as the file says (context_parallel_rotate_method: "allgather" all-gathers the
    // shards, "alltoall" passes them step by step, a ring), else as torchtitan's default "allgather" does
    // (config_manager.py at 9dec370; job_config.py until 9810191bb), a default another file overrides; 2024's
    // [experimental] name too.
    void torchtitanContextRotateMethod()
    {
        const auto contextComm = [](const char *toml) {
            const io::FileImport f = io::importFile(QStringLiteral("job.toml"), QByteArray(toml), io::ImportFormat::Torchtitan);
            const auto k = std::find_if(f.keys.begin(), f.keys.end(),
                                        [](const io::ImportedKey &k) { return k.path == QLatin1String("parallel.context_comm"); });
            return k == f.keys.end() ? QString() : k->value.toString() + (k->weak ? QStringLiteral(" (default)") : QString());
        };
        QCOMPARE(contextComm("[parallelism]\ncontext_parallel_degree = 4\n"), QStringLiteral("all-gather (default)"));
        QCOMPARE(contextComm("[experimental]\ncontext_parallel_degree = 2\n"), QStringLiteral("all-gather (default)"));
        QCOMPARE(contextComm("[parallelism]\ncontext_parallel_degree = 2\ncontext_parallel_rotate_method = \"alltoall\"\n"),
                 QStringLiteral("ring"));
        QCOMPARE(contextComm("[experimental]\ncontext_parallel_degree = 2\ncontext_parallel_rotate_method = \"allgather\"\n"),
                 QStringLiteral("all-gather"));
        QCOMPARE(contextComm("[parallelism]\ncontext_parallel_degree = 1\n"), QString()); // no context ranks
    }

    // torchtitan's saved job configuration (since 9810191b, February 2026, its configuration is Python; a run
    // writes Trainer.Config.to_dict() as JSON with --debug.save_config_file, torchtitan/trainer.py maybe_log).
    // The test file follows torchtitan b5bcd76c6's dataclasses (configs.py, trainer.py, activation_checkpoint.py)
    // for llama3_8b with tensor 2, pipeline 2 (Interleaved1F1B, 4 micro-batches) and FSDP 16.
    void torchtitanSavedConfiguration()
    {
        const QStringList sets{QStringLiteral("cluster.device=h100-sxm5-80gb"), QStringLiteral("cluster.nodes=8")};
        const io::ImportResult r = io::importFiles({data("torchtitan_saved_config_llama3_8b.json")}, sets, io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->model.presetId, std::string("llama3-8b"));  // model_spec name "llama3", flavor "8B"
        // Its layers' attention says fuse_qkv true (torchtitan ad7a86533's FusedQKVLinear): one GEMM.
        QVERIFY(!r.plan->training.separateQkv);
        QCOMPARE(readKey(r, "training.separate_qkv")->source, QStringLiteral("fuse_qkv"));
        QVERIFY(!r.plan->training.repeatKvHeads); // a saved model_spec is after ff0829c10: no repeat_kv
        QCOMPARE(r.plan->model.seqLen, 8192);                        // training.max_context_length
        QCOMPARE(r.plan->training.microBatch, 2);                    // 16,384 tokens per micro-batch and rank
        QCOMPARE(r.plan->training.globalBatch, 2 * 16 * 4);          // -1: micro-batch x FSDP 16 x 4 PP micro-batches
        QCOMPARE(r.plan->parallel.tensor, 2);
        QCOMPARE(r.plan->parallel.pipeline, 2);
        QCOMPARE(r.plan->parallel.schedule, Schedule::Interleaved);
        QCOMPARE(r.plan->parallel.virtualStages, 2);                 // a multi-stage schedule's default per rank
        QCOMPARE(r.plan->parallel.data, 16);
        QCOMPARE(r.plan->training.framework, Framework::Fsdp);
        QCOMPARE(r.plan->parallel.zeroStage, 3);
        QVERIFY(r.plan->training.sequenceParallel);                  // enable_sequence_parallel with 2 tensor ranks
        QVERIFY(r.plan->parallel.tensorCommOverlap);                 // compile.enable_async_tensor_parallel
        QVERIFY(r.plan->training.compile);
        QCOMPARE(r.plan->training.lossKernelInEffect(), LossKernel::Fused); // "loss" in compile.components
        QCOMPARE(r.plan->training.recompute, Recompute::Ops);       // SelectiveAC's fields
        QVERIFY(std::any_of(r.warnings.begin(), r.warnings.end(),
                            [](const io::ImportMessage &m) { return m.text.contains(QLatin1String("converters")); }));

        // The checkpointing class by its fields: null none, the base fields FullAC; a token count that is not whole
        // sequences is an error naming the key.
        QFile file(data("torchtitan_saved_config_llama3_8b.json"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        QJsonObject root = QJsonDocument::fromJson(file.readAll()).object();
        const auto importWith = [&](const QJsonObject &o) {
            return io::importContents({{QStringLiteral("job_config.json"), QJsonDocument(o).toJson()}}, sets,
                                      io::builtinCatalog());
        };
        QJsonObject parallelism = root[QStringLiteral("parallelism")].toObject();
        parallelism[QStringLiteral("pipeline_parallel_layers_per_stage")] = 4;
        root[QStringLiteral("parallelism")] = parallelism;
        const io::ImportResult perStage = importWith(root); // ceil((32 + 2) / 4) = 9 stages: not whole per rank
        QCOMPARE(perStage.plan->parallel.virtualStages, 1);
        QVERIFY(std::any_of(perStage.warnings.begin(), perStage.warnings.end(), [](const io::ImportMessage &m) {
            return m.text.contains(QLatin1String("pipeline_parallel_layers_per_stage 4"));
        }));
        parallelism.remove(QStringLiteral("pipeline_parallel_layers_per_stage"));
        root[QStringLiteral("parallelism")] = parallelism;
        root[QStringLiteral("activation_checkpoint")] = QJsonValue::Null;
        QCOMPARE(importWith(root).plan->training.recompute, Recompute::None);
        root[QStringLiteral("activation_checkpoint")] =
            QJsonObject{{"preserve_rng_state", true}, {"determinism_check", "default"}, {"debug", false}};
        QCOMPARE(importWith(root).plan->training.recompute, Recompute::Full);
        QJsonObject training = root[QStringLiteral("training")].toObject();
        training[QStringLiteral("num_tokens_per_microbatch_per_dp_rank")] = 12000;
        root[QStringLiteral("training")] = training;
        const io::ImportResult bad = importWith(root);
        QVERIFY(!bad.ok());
        QVERIFY2(io::importReport(bad).contains(QLatin1String("training.num_tokens_per_microbatch_per_dp_rank (12000) must be a "
                                                              "whole number of training.max_context_length (8192) sequences")),
                 qPrintable(io::importReport(bad)));
    }

    // Megatron-Bridge's saved run configuration (run_config.yaml in each checkpoint): ConfigContainer's sections
    // read by their Megatron-Core names, the attention backend as the enum Megatron-LM's YAML representer writes
    // ({_target_, _call_, _args_: [5], _name_: auto}), the dtypes as _target_ maps (read, not planned) and the
    // mixed-precision recipe by name (bf16_with_fp8_current_scaling_mixed: FP8).
    /// llm-foundry's training YAMLs (ReadLlmFoundry.cpp): MPT's shape with MPTConfig's defaults where the file
    /// is silent (learned positions, biases: llm-foundry's own count for this shape, 6,658,859,008, is the
    /// n_params of its H100 benchmark table's 7b rows), Composer's FSDP (FULL_SHARD, PURE: BF16 reduction,
    /// activation checkpointing), the batch and the attention kernel.
    void llmFoundryYamls()
    {
        const QStringList nodes{QStringLiteral("cluster.device=h100-sxm5-80gb"), QStringLiteral("cluster.nodes=8")};
        io::ImportResult r = io::importFiles({data("real/llm-foundry/pretrain__mpt-7b.yaml")}, nodes, io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(parameters(*r.plan), 6658859008.0);
        QCOMPARE(r.plan->model.position, PositionEmbedding::Learned);
        QVERIFY(r.plan->model.linearBias && r.plan->model.tiedEmbeddings);
        QCOMPARE(r.plan->model.seqLen, 2048);
        QCOMPARE(r.plan->training.globalBatch, 1024);
        QCOMPARE(r.plan->training.microBatch, 8);
        QCOMPARE(r.plan->training.precision, Precision::BF16);
        QCOMPARE(r.plan->training.framework, Framework::Fsdp);
        QCOMPARE(r.plan->parallel.zeroStage, 3);
        QVERIFY(r.plan->parallel.reshardAfterForward);
        QVERIFY(!r.plan->training.fp32Gradients); // mixed_precision: PURE
        QCOMPARE(r.plan->training.recompute, Recompute::Full);
        QCOMPARE(r.plan->training.attentionKernel, AttentionKernel::Flash2);
        QCOMPARE(r.plan->training.optimizerKernel, OptimizerKernel::Loop);
        QCOMPARE(readKey(r, "model.position_embedding")->source, QStringLiteral("(MPTConfig's default)"));
        // Every MPT size's pretraining YAML: llm-foundry's own parameter count (the n_params column of its
        // benchmark tables at 2,048 tokens, shared/validation/llmfoundry_mpt_fsdp_benchmarks.csv), to the parameter.
        const std::pair<const char *, double> sizes[] = {
            {"125m", 125311488.0},   {"350m", 355985408.0},     {"760m", 760470528.0},
            {"1b", 1315950592.0},    {"3b", 2651837440.0},      {"13b", 12853954560.0},
            {"30b", 29975214080.0},  {"70b", 64862437376.0}};
        for (const auto &[size, published] : sizes) {
            const io::ImportResult mpt = io::importFiles(
                {data(QStringLiteral("real/llm-foundry/pretrain__mpt-%1.yaml").arg(QLatin1String(size)).toLatin1().constData())},
                {QStringLiteral("cluster.device=h100-sxm5-80gb"), QStringLiteral("cluster.nodes=16"),
                 QStringLiteral("training.global_batch=1024"), QStringLiteral("training.micro_batch=1")},
                io::builtinCatalog());
            QVERIFY2(mpt.ok(), qPrintable(QLatin1String(size) + io::importReport(mpt)));
            QCOMPARE(parameters(*mpt.plan), published);
        }
        // NO_SHARD replicates the state (DDP): ZeRO 0, not framework "fsdp", whose every state is sharded.
        QFile yaml(data("real/llm-foundry/pretrain__mpt-7b.yaml"));
        QVERIFY(yaml.open(QIODevice::ReadOnly));
        const QByteArray ddp = yaml.readAll().replace("sharding_strategy: FULL_SHARD", "sharding_strategy: NO_SHARD");
        r = io::importContents({{QStringLiteral("mpt-7b-ddp.yaml"), ddp}}, nodes, io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->parallel.zeroStage, 0);
        QVERIFY(r.plan->training.framework != Framework::Fsdp);
        // MegaBlocks' dropless MoE (ffn_type mb_dmoe) is refused at its line, not planned as a dense MPT.
        r = io::importFiles({data("real/llm-foundry/pretrain__testing-moe.yaml")}, nodes, io::builtinCatalog());
        QVERIFY2(!r.ok() && r.errors.front().line == 19 &&
                     r.errors.front().text.startsWith(QLatin1String("model.ffn_config.ffn_type mb_dmoe")),
                 qPrintable(io::importReport(r)));
        // llm-foundry's own dropless MoE in PyTorch (ffn_type torch_dmoe, llmfoundry/models/layers/ffn.py's ffns
        // registry) likewise, not planned as MPT's MLP with a warning.
        QFile moe(data("real/llm-foundry/pretrain__testing-moe.yaml"));
        QVERIFY(moe.open(QIODevice::ReadOnly));
        r = io::importContents({{QStringLiteral("torch-dmoe.yaml"), moe.readAll().replace("mb_dmoe", "torch_dmoe")}},
                               nodes, io::builtinCatalog());
        QVERIFY2(!r.ok() && r.errors.front().line == 19 &&
                     r.errors.front().text.startsWith(QLatin1String("model.ffn_config.ffn_type torch_dmoe")),
                 qPrintable(io::importReport(r)));
        // DBRX's LoRA fine-tuning (model.peft_config): adapters beside a frozen model, refused at the first key.
        r = io::importFiles({data("real/llm-foundry/finetune__dbrx-lora-ft.yaml")}, nodes, io::builtinCatalog());
        QVERIFY2(!r.ok() && r.errors.front().line == 20 &&
                     r.errors.front().text.contains(QLatin1String("parameter-efficient tuning")),
                 qPrintable(io::importReport(r)));
        // A Hugging Face checkpoint's run (hf_causal_lm): the model is that checkpoint's, the catalog preset that
        // lists it (meta-llama/Meta-Llama-3.1-8B: llama3.1-8b); a checkpoint no preset lists is named and the
        // model asked for; beside its config.json, the shape from there and the run from the YAML (sequence
        // 2,048, batch 8 of 1, FA2).
        const QString hf = data("real/llm-foundry/pretrain__hf-llama-3.1-8B.yaml");
        const QStringList node{QStringLiteral("cluster.device=h100-sxm5-80gb"), QStringLiteral("cluster.nodes=1")};
        r = io::importFiles({hf}, node, io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->model.presetId, std::string("llama3.1-8b"));
        QFile hfYaml(hf);
        QVERIFY(hfYaml.open(QIODevice::ReadOnly));
        const QByteArray other = hfYaml.readAll().replace("meta-llama/Meta-Llama-3.1-8B", "example-org/unlisted-8B");
        r = io::importContents({{QStringLiteral("hf.yaml"), other}}, node, io::builtinCatalog());
        QVERIFY2(!r.ok() && r.errors.front().file == QLatin1String("model.preset"), qPrintable(io::importReport(r)));
        QVERIFY(std::any_of(r.warnings.begin(), r.warnings.end(), [](const io::ImportMessage &m) {
            return m.text.contains(QLatin1String("example-org/unlisted-8B: the model is this Hugging Face checkpoint"));
        }));
        r = io::importFiles({hf, data("llama3-8b-config.json")},
                            {QStringLiteral("cluster.device=h100-sxm5-80gb"), QStringLiteral("cluster.nodes=1")},
                            io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QCOMPARE(r.plan->model.layers, 32);
        QCOMPARE(r.plan->model.seqLen, 2048);
        QCOMPARE(r.plan->training.globalBatch, 8);
        QCOMPARE(r.plan->training.microBatch, 1);
        QCOMPARE(r.plan->training.attentionKernel, AttentionKernel::Flash2);
    }

    void bridgeRunConfiguration()
    {
        const io::ImportResult r = io::importFiles({data("bridge_run_config_llama3_8b_fp8.yaml")},
                                                   {QStringLiteral("cluster.device=h100-sxm5-80gb"), QStringLiteral("cluster.nodes=4")},
                                                   io::builtinCatalog());
        QVERIFY2(r.ok(), qPrintable(io::importReport(r)));
        QVERIFY(r.warnings.empty());
        QCOMPARE(r.plan->model.layers, 32);
        QCOMPARE(r.plan->model.kvHeads, 8);
        QCOMPARE(r.plan->parallel.tensor, 2);
        QCOMPARE(r.plan->parallel.context, 2);
        QCOMPARE(r.plan->parallel.data, 8);
        QCOMPARE(r.plan->training.globalBatch, 128);
        QVERIFY(r.plan->training.flashAttention);                    // AttnBackend.auto
        QCOMPARE(r.plan->training.precision, Precision::FP8);        // the recipe and model.fp8
        QCOMPARE(r.plan->training.fp8Recipe, Fp8Recipe::Tensorwise); // model.fp8_recipe, current scaling
        QVERIFY(r.plan->training.fp8ParamGather);
        QCOMPARE(readKey(r, "training.flash_attention")->source, QStringLiteral("model.attention_backend"));
        // The same configuration as Megatron-Bridge's training log printed it (setup.py, maybe_log_and_save_config,
        // until 7cf685164): between "------- Task Configuration -------" and a line of dashes, among log lines;
        // read from the log with the log's line numbers, the same plan.
        {
            QFile yaml(data("bridge_run_config_llama3_8b_fp8.yaml"));
            QVERIFY(yaml.open(QIODevice::ReadOnly));
            const QByteArray log = "setting number of microbatches to constant 16\n"
                                   "> building train, validation, and test datasets for GPT ...\n"
                                   "    train/valid/test-data-iterators-setup ..........: (67.42, 80.35)\n"
                                   "------- Task Configuration -------\n" +
                                   yaml.readAll() +
                                   "\n----------------------------------\n"
                                   "training ...\n"
                                   " [2026-01-05 10:00:00] iteration 10/100 | consumed samples: 1280 | elapsed time "
                                   "per iteration (ms): 4180.2 | learning rate: 3.0E-04 |\n";
            const io::ImportResult fromLog = io::importContents(
                {{QStringLiteral("slurm-1234.out"), log}},
                {QStringLiteral("cluster.device=h100-sxm5-80gb"), QStringLiteral("cluster.nodes=4")}, io::builtinCatalog());
            QVERIFY2(fromLog.ok(), qPrintable(io::importReport(fromLog)));
            QVERIFY(*fromLog.plan == *r.plan);
            QCOMPARE(readKey(fromLog, "parallel.tensor")->line, readKey(r, "parallel.tensor")->line + 4);
        }
        // (recipe name, precision, FP8 scaling: the recipe's fp8_recipe, mixed_precision.py)
        const std::tuple<const char *, const char *, const char *> recipes[] = {
            {"bf16_mixed", "bf16", nullptr},
            {"fp16-mixed", "fp16", nullptr},
            {"bf16-with-mxfp8-mixed", "mxfp8", nullptr},
            {"bf16_with_nvfp4_mixed", "nvfp4", nullptr},
            {"bf16_with_fp8_delayed_scaling_mixed", "fp8", "delayed"},
            {"bf16_with_fp8_current_scaling_mixed", "fp8", "tensorwise"},
            {"fp16_with_fp8_subchannel_scaling_mixed", "fp8-blockwise", nullptr}};
        // Megatron-Bridge's distillation example (a 3B teacher beside a 1B student: model.teacher, model.kd_config)
        // is refused naming the key; its student alone was a plan once given the rest.
        const io::ImportResult kd = io::importFiles(
            {data("real/megatron-bridge/distillation__llama32_3b-1b_distill_override_example.yaml")},
            {QStringLiteral("cluster.device=h100-sxm5-80gb"), QStringLiteral("cluster.nodes=1"),
             QStringLiteral("model.preset=llama3.2-1b")},
            io::builtinCatalog());
        QVERIFY2(!kd.ok() && kd.errors.front().text.startsWith(QLatin1String("model.teacher: knowledge distillation")) &&
                     kd.errors.front().line == 28,
                 qPrintable(io::importReport(kd)));
        // An override file of a Python recipe (Megatron-Bridge's tutorial: model.seq_length and the parallel sizes
        // under model, the model itself in the recipe) gives no model: it is asked for, not a vocabulary; given,
        // the file's run settings stay (sequence 4,096, global batch 8).
        const QString tutorial = data("real/megatron-bridge/tutorials__llama32_1b_pretrain.yaml");
        const QStringList oneNode{QStringLiteral("cluster.device=h100-sxm5-80gb"), QStringLiteral("cluster.nodes=1")};
        io::ImportResult o = io::importFiles({tutorial}, oneNode, io::builtinCatalog());
        QVERIFY2(!o.ok() && o.errors.size() == 1 && o.errors.front().file == QLatin1String("model.preset"),
                 qPrintable(io::importReport(o)));
        o = io::importFiles({tutorial}, oneNode + QStringList{QStringLiteral("model.preset=qwen3-0.6b")},
                            io::builtinCatalog());
        QVERIFY2(o.ok(), qPrintable(io::importReport(o)));
        QCOMPARE(o.plan->model.seqLen, 4096);
        QCOMPARE(o.plan->training.globalBatch, 8);
        // Qwen3-VL's override file (model.use_hf_vision_model, freeze_vision_model): a vision-language model,
        // refused at its first vision key even with a language model given.
        o = io::importFiles({data("real/megatron-bridge/qwen_vl__qwen3_vl_pretrain_override_example.yaml")},
                            oneNode + QStringList{QStringLiteral("model.preset=qwen3-8b")}, io::builtinCatalog());
        QVERIFY2(!o.ok() && o.errors.front().line == 19 &&
                     o.errors.front().text.startsWith(QLatin1String("model.use_hf_vision_model: a vision-language")),
                 qPrintable(io::importReport(o)));
        for (const auto &[recipe, precision, scaling] : recipes) {
            const QByteArray yaml = QByteArray("mixed_precision: ") + recipe + '\n';
            const io::FileImport f = io::importFile(QStringLiteral("run_config.yaml"), yaml, io::ImportFormat::NeMo);
            const auto valueOf = [&](const char *path) {
                for (const io::ImportedKey &k : f.keys)
                    if (k.path == QLatin1String(path))
                        return k.value.toString();
                return QString();
            };
            QVERIFY2(f.keys.size() == (scaling ? 2u : 1u), recipe);
            QCOMPARE(valueOf("training.precision"), QLatin1String(precision));
            QCOMPARE(valueOf("training.fp8_recipe"), scaling ? QLatin1String(scaling) : QString());
        }
    }

    // A YAML document that is not a mapping (a scalar, a list, a launch script read as YAML), given to the NeMo
    // reader: refused with an error, never yaml-cpp's exception on a scalar's operator[] (the fuzzer's import-bomb
    // seed found the model-card and generation-config checks asking a scalar for its keys).
    void nemoReaderTakesAnyDocument()
    {
        for (const char *doc : {"just a scalar\n", "- a\n- b\n", "A0=--num-layers\nA1=\"$A0 $A0\"\n", "~\n"}) {
            const io::FileImport f = io::importFile(QStringLiteral("x.yaml"), QByteArray(doc), io::ImportFormat::NeMo);
            QVERIFY2(f.keys.empty(), doc); // nothing read from it, and no exception out of the reader
            const io::ImportResult r =
                io::importContents({{QStringLiteral("x.yaml"), QByteArray(doc)}}, {}, io::builtinCatalog());
            QVERIFY2(!r.ok() && !r.errors.empty(), doc);
        }
    }

    void unreadableAndUnknownFiles()
    {
        io::ImportResult r = io::importFiles({QStringLiteral("/nonexistent/config.json")}, {}, io::builtinCatalog());
        QVERIFY(!r.ok() && r.errors.front().text.contains(QStringLiteral("cannot be read")));
        r = io::importContents({{QStringLiteral("notes.txt"), QByteArray("hello")}}, {}, io::builtinCatalog());
        QVERIFY(!r.ok() && r.errors.front().text.contains(QStringLiteral("not a format")));
        r = io::importContents({{QStringLiteral("bad.yaml"), QByteArray("a: [1, 2\n")}}, {}, io::builtinCatalog());
        QVERIFY(!r.ok() && r.errors.front().text.contains(QStringLiteral("YAML")));
        r = io::importContents({{QStringLiteral("bad.toml"), QByteArray("[x\n")}}, {}, io::builtinCatalog());
        QVERIFY(!r.ok() && r.errors.front().text.contains(QStringLiteral("TOML")));
        // A YAML map whose key is itself a list (found by fuzz_import_nemo): read, reported, no exception.
        r = io::importContents({{QStringLiteral("odd.yaml"), QByteArray("trainer:\n  ? [a, b]\n  : 1\n  devices: 8\n")}}, {},
                               io::builtinCatalog());
        QVERIFY(std::any_of(r.warnings.begin(), r.warnings.end(), [](const io::ImportMessage &m) { return m.text.contains(QLatin1String("a list or map as a key")); }));
        // A file that gives no key (an empty recipe, a script whose flags are all elsewhere) is an error, not the
        // example plan.
        r = io::importContents({{QStringLiteral("empty.yaml"), QByteArray()}}, {}, io::builtinCatalog());
        QVERIFY(!r.ok() && r.errors.front().file == QLatin1String("empty.yaml") && r.errors.front().text.contains(QStringLiteral("no setting")));
        r = io::importContents({{QStringLiteral("run.sh"), QByteArray("torchrun pretrain_gpt.py --lr 3e-4 --train-iters 100\n")}}, {}, io::builtinCatalog());
        QVERIFY(!r.ok() && r.errors.front().text.contains(QStringLiteral("no setting")));
        r = io::importFiles({data("llama3-8b-config.json")}, {QStringLiteral("nonsense")}, io::builtinCatalog());
        QVERIFY(!r.ok() && r.errors.front().text.contains(QStringLiteral("KEY=VALUE")));
    }

    void commandLine()
    {
        QTemporaryDir dir;
        const QString plan = dir.filePath(QStringLiteral("plan.json"));
        QString out, err;
        QTextStream o(&out), e(&err);
        // Without the device the script leaves out, exit 1 naming it and how to give it.
        QCOMPARE(cli::runImport({data("llama3-8b-config.json"), data("pretrain_llama3_8b.sh"), QStringLiteral("-o"), plan}, o, e), 1);
        o.flush(), e.flush();
        QVERIFY2(err.contains(QStringLiteral("error: cluster.device: no file gives")), qPrintable(err));
        QVERIFY(!QFile::exists(plan));
        err.clear();
        const int code = cli::runImport({data("llama3-8b-config.json"), data("pretrain_llama3_8b.sh"), QStringLiteral("--assume-example"),
                                         QStringLiteral("-o"), plan},
                                        o, e);
        o.flush(), e.flush();
        QCOMPARE(code, 0);
        QVERIFY(err.contains(QStringLiteral("cluster.device = \"a100-sxm4-80gb\" (the example plan)")));
        QVERIFY(err.contains(QStringLiteral("pretrain_llama3_8b.sh:20")));
        const io::PlanReadResult back = io::readPlanFile(plan, io::builtinCatalog());
        QVERIFY(back.plan);
        QCOMPARE(back.plan->parallel.tensor, 2);
        const Estimate estimate = trainplan::estimate(*back.plan, io::builtinCatalog());
        QVERIFY(estimate.valid);
        // A list key in --set: the pieces after its '=' without one of their own continue it.
        const QString listed = dir.filePath(QStringLiteral("listed.json"));
        QCOMPARE(cli::runImport({data("llama3-8b-config.json"), data("pretrain_llama3_8b.sh"), QStringLiteral("--assume-example"),
                                 QStringLiteral("--set"),
                                 QStringLiteral("parallel.pipeline=4,parallel.stage_layers=9,8,8,7,parallel.tensor=2"),
                                 QStringLiteral("-o"), listed},
                                o, e),
                 0);
        const io::PlanReadResult four = io::readPlanFile(listed, io::builtinCatalog());
        QVERIFY(four.plan);
        QCOMPARE(four.plan->parallel.stageLayers, (std::vector<std::int64_t>{9, 8, 8, 7}));
        QCOMPARE(four.plan->parallel.tensor, 2);
        QString out2, err2;
        QTextStream o2(&out2), e2(&err2);
        QCOMPARE(cli::runImport({}, o2, e2), 2);
        QCOMPARE(cli::runImport({QStringLiteral("/nonexistent.sh")}, o2, e2), 1);
    }
};

TRAINPLAN_TEST_GUILESS_MAIN(TestImport)
#include "tst_import.moc"
