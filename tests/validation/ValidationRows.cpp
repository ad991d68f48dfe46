#include "ValidationRows.h"

#include <QRegularExpression>

#include <map>
#include <tuple>

#include "TestSupport.h"
#include "core/common/Units.h"
#include "core/compute/LayerOps.h"
#include "core/estimate/Estimate.h"
#include "core/plan/PlanValidation.h"
#include "io/plan/CatalogJson.h"

namespace trainplan::validation {

namespace {

/// Column lookup by header name.
class Table
{
public:
    explicit Table(const QString &file) : m_rows(test::readCsv(test::dataPath("validation/" + file)))
    {
        if (!m_rows.empty())
            m_header = m_rows.front();
    }
    std::size_t size() const { return m_rows.size(); }
    QString at(std::size_t row, const char *column) const
    {
        const qsizetype c = m_header.indexOf(QLatin1String(column));
        return c >= 0 && c < m_rows[row].size() ? m_rows[row][c].trimmed() : QString();
    }
    double number(std::size_t row, const char *column) const
    {
        // Leading number of the cell ("50257 (padded ...)" -> 50257).
        static const QRegularExpression leading(QStringLiteral("^[-+]?[0-9]*\\.?[0-9]+([eE][-+]?[0-9]+)?"));
        const auto match = leading.match(at(row, column));
        return match.hasMatch() ? match.captured(0).toDouble() : 0.0;
    }

private:
    std::vector<QStringList> m_rows;
    QStringList m_header;
};

void setCluster(Plan &plan, const char *device, std::int64_t gpus, std::int64_t gpusPerNode)
{
    plan.cluster.device = device;
    if (gpus <= gpusPerNode) {
        plan.cluster.gpusPerNode = gpus;
        plan.cluster.nodes = 1;
    } else {
        plan.cluster.gpusPerNode = gpusPerNode;
        plan.cluster.nodes = gpus / gpusPerNode;
    }
}

/// Megatron-LM as run in 2020-2021: FP16 (gradients all-reduced in FP16: FP32 accumulation became an
/// option later, and a requirement only with BF16), all-reduce after the backward pass, fused kernels,
/// full recomputation.
void megatron2021Training(Plan &plan)
{
    plan.training.precision = Precision::FP16;
    plan.training.recompute = Recompute::Full;
    plan.training.fp32Gradients = false;
    plan.parallel.overlapGradReduce = false;
}

void narayanan(std::vector<Row> &rows, QStringList *skipped)
{
    const Table t(QStringLiteral("narayanan2021_megatron_weak_scaling_A100.csv"));
    for (std::size_t r = 1; r < t.size(); ++r) {
        const QString id = t.at(r, "row_id") + ' ' + t.at(r, "model_size_label") + " (" + t.at(r, "variant") + ')';
        // GPT-3 175B (Sec. 5.1 text and the Sec. 5.8 fusion ablation) ran on 1024 GPUs with batch 1536; the
        // paper does not give its split, assumed (t, p) = (8, 8) as for the neighbouring Table 1 sizes.
        // The 530B ablation used the Table 1 530B configuration (row 9).
        const QString label = t.at(r, "model_size_label");
        std::int64_t gpus = std::int64_t(t.number(r, "num_gpus")), tensor = std::int64_t(t.number(r, "tensor_parallel")),
                     pipeline = std::int64_t(t.number(r, "pipeline_parallel")),
                     batch = std::int64_t(t.number(r, "global_batch_size_seqs"));
        if (label.startsWith(QLatin1String("GPT-3 175B"))) {
            gpus = 1024, tensor = 8, pipeline = 8, batch = 1536;
        } else if (label.startsWith(QLatin1String("530B ")) && tensor == 0) {
            gpus = 2520, tensor = 8, pipeline = 35, batch = 2520;
        }
        if (tensor == 0 || gpus == 0) {
            if (skipped)
                *skipped << "narayanan2021 " + id + ": tensor/pipeline split or GPU count not stated";
            continue;
        }
        Plan plan;
        plan.name = id.toStdString();
        const auto L = std::int64_t(t.number(r, "num_layers")), h = std::int64_t(t.number(r, "hidden_size"));
        plan.model = megatronGpt(L, h, std::int64_t(t.number(r, "attention_heads")), std::int64_t(t.number(r, "vocab_size")),
                                 std::int64_t(t.number(r, "seq_len")));
        megatron2021Training(plan);
        plan.training.fusedKernels = !label.contains(QLatin1String("without fusion"));
        plan.parallel.tensor = tensor;
        plan.parallel.pipeline = pipeline;
        plan.parallel.data = gpus / (tensor * pipeline);
        plan.training.microBatch = 1;
        plan.training.globalBatch = batch;
        const std::int64_t layersPerStage = L / plan.parallel.pipeline;
        if (plan.parallel.pipeline > 1 && layersPerStage % 2 == 0 && layersPerStage > 2) {
            plan.parallel.schedule = Schedule::Interleaved;
            plan.parallel.virtualStages = layersPerStage / 2;
        }
        if (plan.parallel.virtualStages > 1 && plan.microbatches() % plan.parallel.pipeline != 0) {
            plan.parallel.virtualStages = 1;
            plan.parallel.schedule = Schedule::OneFOneB;
        }
        setCluster(plan, "a100-sxm4-80gb", gpus, 8);
        // Narayanan Eq. 3: hardware FLOPs per iteration, recompute counted.
        const double B = double(plan.training.globalBatch), s = double(plan.model.seqLen), l = double(L), hh = double(h),
                     V = double(plan.model.vocab);
        const double flops = 96.0 * B * s * l * hh * hh * (1.0 + s / (6.0 * hh) + V / (16.0 * l * hh));
        rows.push_back({"narayanan2021", id, plan, flops / (double(gpus) * t.number(r, "achieved_tflops_per_gpu") * 1e12)});
    }
}

void megatron2020(std::vector<Row> &rows)
{
    const Table t(QStringLiteral("megatron_readme_2020_scaling_V100_A100.csv"));
    for (std::size_t r = 1; r < t.size(); ++r) {
        Plan plan;
        const QString id = t.at(r, "row_id") + ' ' + t.at(r, "case") + ' ' + t.at(r, "system");
        plan.name = id.toStdString();
        plan.model = megatronGpt(std::int64_t(t.number(r, "num_layers")), std::int64_t(t.number(r, "hidden_size")),
                                 std::int64_t(t.number(r, "attention_heads")), std::int64_t(t.number(r, "vocab_size")),
                                 std::int64_t(t.number(r, "seq_len")));
        megatron2021Training(plan);
        // The 128-way data-parallel rows are only 3-7% slower than the single-node rows: a 2.2 GB
        // all-reduce over 200 Gb/s per GPU cannot be that cheap unless it overlaps the backward pass
        // (PyTorch DDP), so these runs overlap it.
        plan.parallel.overlapGradReduce = true;
        plan.parallel.tensor = std::int64_t(t.number(r, "tensor_parallel"));
        plan.parallel.data = std::int64_t(t.number(r, "data_parallel"));
        plan.training.globalBatch = std::int64_t(t.number(r, "global_batch_size_seqs"));
        plan.training.microBatch = plan.training.globalBatch / plan.parallel.data;
        const bool v100 = t.at(r, "gpu").startsWith(QLatin1String("V100"));
        // DGX-2: 16 V100 on NVSwitch; DGX A100: 8 A100 40GB per node.
        setCluster(plan, v100 ? "v100-sxm2-32gb" : "a100-sxm4-40gb", std::int64_t(t.number(r, "num_gpus")), v100 ? 16 : 8);
        rows.push_back({"megatron_readme_2020", id, plan, t.number(r, "iteration_time_ms") / 1000.0});
    }
}

void dlperf(std::vector<Row> &rows)
{
    const Table t(QStringLiteral("dlperf_gpt_V100_megatron_oneflow.csv"));
    for (std::size_t r = 1; r < t.size(); ++r) {
        Plan plan;
        const QString framework = t.at(r, "framework").section(' ', 0, 0);
        const QString id = t.at(r, "row_id") + ' ' + t.at(r, "case") + ' ' + framework;
        plan.name = id.toStdString();
        const auto tensor = std::int64_t(t.number(r, "tp"));
        // Vocabulary 50257 padded to a multiple of 128 x t (Megatron-LM's make-vocab-size-divisible-by).
        const std::int64_t pad = 128 * tensor;
        const std::int64_t vocab = (50257 + pad - 1) / pad * pad;
        plan.model = megatronGpt(std::int64_t(t.number(r, "layers")), std::int64_t(t.number(r, "hidden")),
                                 std::int64_t(t.number(r, "heads")), vocab, std::int64_t(t.number(r, "seq_len")));
        megatron2021Training(plan);
        // OneFlow's compiled graph overlaps the gradient all-reduce with the backward pass; Megatron-LM's
        // DDP runs it after.
        plan.parallel.overlapGradReduce = framework == QLatin1String("OneFlow-GPT");
        plan.parallel.tensor = tensor;
        plan.parallel.pipeline = std::int64_t(t.number(r, "pp"));
        plan.parallel.data = std::int64_t(t.number(r, "dp"));
        plan.training.microBatch = std::int64_t(t.number(r, "micro_batch_size"));
        plan.training.globalBatch = std::int64_t(t.number(r, "global_batch_size"));
        const auto perNode = std::int64_t(t.number(r, "gpus_per_node"));
        setCluster(plan, "v100-sxm2-16gb", std::int64_t(t.number(r, "num_nodes")) * perNode, 8);
        // 100 Gb/s EDR InfiniBand per 8-GPU node (the cluster column).
        plan.cluster.overrides.networkBandwidthBytesPerSecond = 100e9 / 8.0 / 8.0;
        rows.push_back({"dlperf", id, plan, t.number(r, "iteration_latency_ms") / 1000.0, framework != QLatin1String("OneFlow-GPT")});
    }
}

/// The attention kernel an llm-foundry benchmark row ran, from the scripts that produced its table (not the
/// yamls' attn_impl, which submit_benchmarks.py overrides with its --attn_impl): "triton", llm-foundry's copy
/// of flash-attn's flash_attn_triton.py, is that script's default at every commit that published a table
/// (300cc5c58, May 2023, the A100 sections: line 119; b2a43a147, October 2023, the H100 BF16 and FP8
/// sections: line 144, with sweep.sh passing no --attn_impl); the large-scale H100 section's sweep.py
/// (5e85bd62d, January 2024) passes "--attn_impl flash" (flash-attn 2.4.2, the gpu-flash2 extra) for 1b, 3b,
/// 7b and 70b and "--attn_impl triton" for 13b and 30b.
AttentionKernel mptAttentionKernel(const Table &t, std::size_t r)
{
    if (!t.at(r, "section").contains(QLatin1String("Large Scale")))
        return AttentionKernel::Triton;
    const QString model = t.at(r, "model");
    return model == QLatin1String("13b") || model == QLatin1String("30b") ? AttentionKernel::Triton : AttentionKernel::Flash2;
}

/// An llm-foundry MPT run as a plan (both benchmark tables share the columns): the yaml's shape, MPT's
/// architecture as MPTConfig builds it where the yamls are silent (learned positions, biases, no dropout, tied
/// embeddings), PyTorch FSDP as ZeRO-3 with eager
/// element-wise ops and the attention kernel its benchmark script ran (mptAttentionKernel), BF16 unless
/// `precision` says otherwise.
Plan mptPlan(const Table &t, std::size_t r, const QString &id)
{
    Plan plan;
    plan.name = id.toStdString();
    ModelSpec m;
    m.name = "MPT-" + t.at(r, "model").toStdString();
    m.layers = std::int64_t(t.number(r, "n_layers_yaml"));
    m.hidden = std::int64_t(t.number(r, "d_model_yaml"));
    m.heads = m.kvHeads = std::int64_t(t.number(r, "n_heads_yaml"));
    m.ffnHidden = std::int64_t(t.number(r, "ffn_expansion_yaml")) * m.hidden;
    m.vocab = std::int64_t(t.number(r, "vocab_size_yaml"));
    m.seqLen = std::int64_t(t.number(r, "seq_len"));
    m.mlp = MlpKind::Gelu;
    applyArchitectureDefaults(m);
    // The benchmark yamls set neither alibi nor no_bias, and MPTConfig's defaults are learned_pos_emb True,
    // no_bias False, attn_config alibi False at every commit that published a table (mosaic_gpt's
    // configuration at 300cc5c58, configuration_mpt.py and config_defaults at b2a43a147 and 5e85bd62d). The
    // tables' own n_params say so: every row's count is the shape's with a max_seq_len x d_model position
    // table and biases (MPT-7B at 2,048: 6,658,859,008; 6,649,290,752 with ALiBi and none), growing with the
    // sequence as a learned table does. (Read as ALiBi without biases until this was checked.)
    m.linearBias = true;
    m.position = PositionEmbedding::Learned;
    m.dropout = false;
    m.tiedEmbeddings = true;
    plan.model = m;
    plan.training.precision = Precision::BF16;
    plan.training.flashAttention = true;
    plan.training.attentionKernel = mptAttentionKernel(t, r);
    plan.training.fusedKernels = false; // PyTorch eager element-wise ops (no bias, no dropout)
    plan.training.recompute = t.at(r, "activation_checkpointing") == QLatin1String("True") ? Recompute::Full : Recompute::None;
    plan.training.microBatch = std::int64_t(t.number(r, "micro_batch_size"));
    plan.training.globalBatch = std::int64_t(t.number(r, "global_batch_size_seqs"));
    plan.parallel.data = std::int64_t(t.number(r, "num_gpus"));
    plan.parallel.zeroStage = 3;
    plan.training.framework = Framework::Fsdp;
    // The table's "MP Mode", as the Composer its section ran read it (get_mixed_precision): from v0.16 on,
    // DEFAULT sets reduce_dtype to torch.float32 (composer/trainer/mosaic_fsdp_utils.py lines 87-90 at
    // v0.16.4), so FSDP reduce-scatters FP32 gradients; the H100 sections were published from llm-foundry
    // b2a43a147 and 5e85bd62d, whose setup.py pins Composer >=0.16.4 and >=0.17.2. The A100 sections
    // (300cc5c58, mosaicml==0.13.4) ran a DEFAULT that leaves reduce_dtype unset (mosaic_fsdp.py lines 86-88
    // at v0.13.4), and FSDP then reduces in param_dtype, BF16 (MixedPrecision's reduce_dtype, torch/distributed/
    // fsdp/api.py); PURE reduces in BF16 throughout.
    plan.training.fp32Gradients = t.at(r, "mp_mode") == QLatin1String("DEFAULT") &&
                                  t.at(r, "section").startsWith(QLatin1String("H100"));
    // MPT's loss: ComposerMPTCausalLM's loss_fn defaults to "fused_crossentropy", flash-attn's fused
    // cross-entropy on the 16-bit logits (llmfoundry/models/mpt/modeling_mpt.py).
    plan.training.lossKernel = LossKernel::Fused;
    // The yamls' optimizer, decoupled_adamw, is Composer's DecoupledAdamW: a loop over the parameters
    // (composer/optim/decoupled_weight_decay.py), not torch's foreach path.
    plan.training.optimizerKernel = OptimizerKernel::Loop;
    return plan;
}

void llmFoundry(std::vector<Row> &rows, QStringList *skipped)
{
    const Table t(QStringLiteral("llmfoundry_mpt_fsdp_A100_80GB.csv"));
    for (std::size_t r = 1; r < t.size(); ++r) {
        const QString id = t.at(r, "row_id") + " MPT-" + t.at(r, "model") + " seq " + t.at(r, "seq_len") + " x" + t.at(r, "num_gpus");
        const double tokensPerSecond = t.number(r, "throughput_tok_per_s");
        if (tokensPerSecond <= 0) {
            if (skipped)
                *skipped << "llmfoundry " + id + ": no throughput";
            continue;
        }
        Plan plan = mptPlan(t, r, id);
        setCluster(plan, "a100-sxm4-80gb", plan.parallel.data, 8);
        // 1600 Gb/s RoCE per 8-GPU node (the section title).
        plan.cluster.overrides.networkBandwidthBytesPerSecond = 1600e9 / 8.0 / 8.0;
        const double tokens = double(plan.training.globalBatch) * double(plan.model.seqLen);
        rows.push_back({"llmfoundry", id, plan, tokens / tokensPerSecond});
    }
}

/// torchtitan's published runs (torchtitan_llama_benchmarks.csv; `file` and `source` name another table in its
/// columns: torchtitan_async_tp_h100_2025-06.csv, the project's reading of torchtitan's async-TP benchmark page),
/// each read from its benchmark page and the
/// train_configs of the commit it names (docs/CALIBRATION.md, "PyTorch-native training"): FSDP2 over the
/// data-parallel ranks (and the context ranks), TP with sequence parallelism (async TP where the row says),
/// PyTorch's pipelining with as many micro-batches as stages (pipeline_parallel_microbatches' default,
/// config_manager.py at 9dec370) and two stages per rank for the interleaved schedule
/// (pipelining_utils.py), layers split as generate_split_points does; SDPA (flash) attention; float8 as
/// torchao's tensorwise Float8Linear, all-gathered in float8 where the toml enables it; eager or compiled.
/// What every torchtitan run of a Llama model here shares: FSDP2 over the data-parallel ranks; FP32 gradient
/// reduce-scatters at every commit read (MixedPrecisionPolicy's reduce_dtype=torch.float32, parallelize_llama.py
/// line 221 at 0413364, then training.mixed_precision_reduce, whose one choice and default is "float32",
/// config_manager.py lines 389-396 at 9dec370, config/job_config.py line 227 at e7c0cae and 820504e); SDPA's
/// flash backend; Attention's wq, wk and wv as three nn.Linear modules (models/llama/model.py at 9dec370,
/// 0413364, e7c0cae and 820504e; fused QKV came with ad7a86533, April 2026); element-wise chains eager unless
/// compiled.
void torchtitanLlamaSoftware(Plan &plan)
{
    plan.training.framework = Framework::Fsdp;
    plan.parallel.zeroStage = 3;
    plan.training.fp32Gradients = true;
    plan.training.flashAttention = true;
    plan.training.attentionKernel = AttentionKernel::Flash2;
    plan.training.separateQkv = true;
    plan.training.fusedKernels = false;
    // Attention.forward repeats K and V to the query heads (repeat_kv) before F.scaled_dot_product_attention
    // (models/llama/model.py lines 199-201 at 9dec370, the same at 0413364, e7c0cae and 820504e), and PyTorch's
    // context parallelism wraps that SDPA call; "GQA without kv repeats" came with ff0829c10 (January 2026).
    plan.training.repeatKvHeads = true;
}

void torchtitan(std::vector<Row> &rows, QStringList *skipped, std::vector<MemoryRow> *memory = nullptr,
                const QString &file = QStringLiteral("torchtitan_llama_benchmarks.csv"),
                const QString &source = QStringLiteral("torchtitan"))
{
    const Table t(file);
    const std::map<QString, const char *> presets{{"Llama 3.1 8B", "llama3.1-8b"}, {"Llama 3.1 70B", "llama3.1-70b"},
                                                  {"Llama 3.1 405B", "llama3.1-405b"}, {"Llama 3 8B", "llama3-8b"},
                                                  {"Llama 3 70B", "llama3-70b"}, {"Llama 2 13B", "llama2-13b"},
                                                  {"Llama 2 70B", "llama2-70b"}};
    for (std::size_t r = 1; r < t.size(); ++r) {
        const QString gpu = t.at(r, "gpu");
        const QString id = t.at(r, "row_id") + ' ' + t.at(r, "model") + ' ' + gpu.section(' ', 0, 0) + " x" + t.at(r, "num_gpus") + ' '
                           + t.at(r, "table");
        const auto preset = presets.find(t.at(r, "model"));
        const double tokensPerGpu = t.number(r, "measured_tokens_per_s_per_gpu");
        if (preset == presets.end() || tokensPerGpu <= 0) {
            if (skipped)
                *skipped << source + ' ' + id + ": no preset or no throughput";
            continue;
        }
        const auto gpus = std::int64_t(t.number(r, "num_gpus"));
        const auto tp = std::max<std::int64_t>(1, std::int64_t(t.number(r, "tp"))), pp = std::max<std::int64_t>(1, std::int64_t(t.number(r, "pp")));
        const auto cp = std::max<std::int64_t>(1, std::int64_t(t.number(r, "cp")));
        const std::int64_t dp = gpus / (tp * pp * cp);
        // The H200 rows state no sequence length; the llama3_8b.toml of their commit (e7c0cae) sets 8192.
        const auto seq = t.number(r, "seq_len") > 0 ? std::int64_t(t.number(r, "seq_len")) : std::int64_t(8192);
        const auto local = std::int64_t(t.number(r, "local_batch_size"));
        Plan plan = test::presetPlan(preset->second, tp, pp, dp, local, local * dp);
        plan.name = id.toStdString();
        plan.model.seqLen = seq;
        plan.parallel.context = cp;
        // context_parallel_rotate_method's default, "allgather" (config_manager.py at 9dec370, lines 364-377:
        // "all-gather all kv shards on ranks after the first sub-SDPA computation"); no row sets another.
        if (cp > 1)
            plan.parallel.contextComm = ContextComm::AllGather;
        torchtitanLlamaSoftware(plan);
        plan.training.sequenceParallel = tp > 1;
        plan.parallel.tensorCommOverlap = t.at(r, "async_tp") == QLatin1String("yes");
        plan.training.compile = t.at(r, "torch_compile") == QLatin1String("yes");
        // The H100 tables ran 9dec370, whose train.py computes the loss eagerly on pred.float() whatever
        // training.compile says ("TODO: compiling loss function causes CUDA errors, turning off for now",
        // train.py lines 131-138); the H200 rows' e7c0cae compiles it with the model
        // (components/loss.py, build_cross_entropy_loss), as auto does.
        if (t.at(r, "table").startsWith(QLatin1String("H100-2412")))
            plan.training.lossKernel = LossKernel::Eager;
        // The launch script sets PYTORCH_CUDA_ALLOC_CONF="expandable_segments:True" at 9dec370
        // (run_llama_train.sh line 22), e7c0cae and 820504e (run_train.sh line 24); 0413364's, which the A100
        // rows ran, sets no allocator configuration.
        plan.training.expandableSegments = !t.at(r, "table").startsWith(QLatin1String("A100 perf.md"));
        // The A100 rows' commit (0413364) sets norm_type "fused_rmsnorm" in llama3_8b.toml and llama2_13b.toml,
        // "rmsnorm" in the 70B ones; 9dec370 and e7c0cae set "rmsnorm" throughout.
        plan.training.fusedNorm = t.at(r, "table").startsWith(QLatin1String("A100 perf.md"))
                                  && (preset->second == std::string("llama3-8b") || preset->second == std::string("llama2-13b"));
        const QString precision = t.at(r, "precision");
        plan.training.precision = precision.contains(QLatin1String("Float8")) ? Precision::FP8 : Precision::BF16;
        plan.training.fp8Recipe = Fp8Recipe::Tensorwise; // torchao's dynamic tensorwise scaling: no amax history
        // float8 all-gather: the 405B toml (enable_fsdp_float8_all_gather) and the H200 rows' command line.
        plan.training.fp8ParamGather = plan.training.precision == Precision::FP8
                                       && (preset->second == std::string("llama3.1-405b") || precision.contains(QLatin1String("all-gather")));
        // "toml default" (the H200 rows): their commit's llama3_8b.toml (e7c0cae) sets mode "selective",
        // selective_ac_option "op".
        const QString ac = t.at(r, "activation_checkpointing") == QLatin1String("toml default") ? QStringLiteral("selective (op)")
                                                                                                 : t.at(r, "activation_checkpointing");
        if (ac == QLatin1String("full"))
            plan.training.recompute = Recompute::Full;
        else if (ac.contains(QLatin1String("op")))
            plan.training.recompute = Recompute::Ops;
        else if (ac.contains(QLatin1String("layer"))) { // selective_ac_option "2", the default of the time
            plan.training.recompute = Recompute::Full;
            plan.training.recomputeInterval = 2;
        } else
            plan.training.recompute = Recompute::None;
        // Every commit these rows ran (0413364, 9dec370, e7c0cae) is before torchtitan's e5ef99aa (October 2025,
        // "Update PP to release memory earlier"), which first passed return_outputs=False: the last stage kept
        // each micro-batch's logits until the step's end.
        plan.training.keepPipelineOutputs = true;
        if (pp > 1) {
            // As many micro-batches as stages, of local / pp sequences; two stages per rank when interleaved.
            plan.training.microBatch = std::max<std::int64_t>(1, local / pp);
            const bool interleaved = t.at(r, "pp_schedule").startsWith(QLatin1String("Interleaved"));
            plan.parallel.schedule = interleaved ? Schedule::Interleaved : Schedule::OneFOneB;
            plan.parallel.virtualStages = interleaved ? 2 : 1;
            // generate_split_points: the first and last model chunk get layers / chunks, the middle ones one
            // more while the remainder lasts; rank r runs chunks r, r + pp, ... (style "loop").
            const std::int64_t v = plan.parallel.virtualStages, chunks = pp * v, base = plan.model.layers / chunks;
            std::int64_t extra = plan.model.layers % chunks;
            std::vector<std::int64_t> perRank(std::size_t(pp), 0);
            for (std::int64_t c = 0; c < chunks; ++c) {
                std::int64_t n = base;
                if (c > 0 && c < chunks - 1 && extra > 0) {
                    ++n;
                    --extra;
                }
                perRank[std::size_t(c % pp)] += n;
            }
            if (perRank.front() != perRank[1] || perRank.back() != perRank[1]) {
                plan.parallel.firstStageLayers = perRank.front();
                plan.parallel.lastStageLayers = perRank.back();
            }
            plan.parallel.reshardAfterForward = false; // parallelize_llama.py apply_fsdp: not with pipeline parallelism
        }
        plan.cluster.device = gpu.startsWith(QLatin1String("H200")) ? "h200-sxm-141gb"
                              : gpu.startsWith(QLatin1String("A100")) ? "a100-sxm4-80gb"
                                                                       : "h100-sxm5-96gb-500w";
        plan.cluster.gpusPerNode = std::min<std::int64_t>(8, gpus);
        plan.cluster.nodes = std::max<std::int64_t>(1, gpus / 8);
        const double tokens = double(plan.training.globalBatch) * double(seq);
        rows.push_back({source, id, plan, tokens / (tokensPerGpu * double(gpus))});
        // "Memory(GiB)": torchtitan's reported peak, reserved (the validation README), the maximum over GPUs.
        if (memory && t.number(r, "measured_peak_memory_gib") > 0)
            memory->push_back({source, id, plan, t.number(r, "measured_peak_memory_gib") * units::GiB, MemoryKind::Reserved});
    }
}

/// NeMo Automodel's pre-training table on DGX-H100 (automodel_performance_h100.csv, the project's reading of its
/// docs/performance-summary.md with each row's benchmark config, docs/CALIBRATION.md "NeMo Automodel"): FSDP2
/// over the data-parallel ranks, the mixtures of experts with expert parallelism through DeepEP and the fake
/// balanced gate (contiguous routing) of their configs, PyTorch's interleaved 1F1B across pipeline stages with
/// parameters kept gathered (moe/parallelizer.py apply_fsdp, `reshard_after_forward=not pp_enabled`, line 132 at
/// 89e3a9fdd), every decoder layer checkpointed whole (apply_ac's checkpoint_wrapper, line 109 there), Transformer
/// Engine's linears, RMSNorm and attention where the config names them.
void automodel(std::vector<Row> &rows, QStringList *skipped)
{
    const Table t(QStringLiteral("automodel_performance_h100.csv"));
    const std::map<QString, const char *> presets{{"DeepSeek V3 671B", "deepseek-v3"}, {"Kimi K2", "kimi-k2"},
                                                  {"Qwen3 MoE 30B", "qwen3-30b-a3b"}, {"Llama3 70B", "llama3.1-70b"}};
    for (std::size_t r = 1; r < t.size(); ++r) {
        const auto gpus = std::int64_t(t.number(r, "num_gpus"));
        const QString id = t.at(r, "row_id") + ' ' + t.at(r, "model") + " H100 x" + t.at(r, "num_gpus");
        const auto preset = presets.find(t.at(r, "model"));
        if (preset == presets.end() || !(t.number(r, "measured_step_s") > 0)) {
            if (skipped)
                *skipped << QStringLiteral("automodel ") + id + ": no preset or no step time";
            continue;
        }
        const auto count = [&](const char *column) { return std::max<std::int64_t>(1, std::int64_t(t.number(r, column))); };
        const std::int64_t tp = count("tp"), pp = count("pp"), cp = count("cp"), ep = count("ep");
        const std::int64_t dp = gpus / (tp * pp * cp);
        Plan plan = test::presetPlan(preset->second, tp, pp, dp, count("micro_batch_size"), count("global_batch_size"),
                                     "h100-sxm5-80gb");
        plan.name = id.toStdString();
        plan.model.seqLen = count("seq_len");
        plan.model.mtpLayers = 0; // Automodel's DeepseekV3ForCausalLM has no multi-token-prediction module
        plan.parallel.context = cp;
        plan.parallel.contextComm = ContextComm::AllGather; // PyTorch's context_parallel default rotate method
        plan.cluster.gpusPerNode = std::min<std::int64_t>(8, gpus);
        plan.cluster.nodes = std::max<std::int64_t>(1, gpus / 8);
        plan.training.framework = Framework::Fsdp;
        plan.parallel.zeroStage = 3;
        plan.parallel.reshardAfterForward = pp == 1;
        plan.parallel.expert = ep;
        if (ep > 1) {
            plan.parallel.expertDispatcher = ExpertDispatcher::DeepEp; // enable_deepep: true
            plan.training.expertRouting = t.at(r, "expert_routing") == QLatin1String("contiguous")
                                              ? ExpertRouting::Contiguous
                                              : ExpertRouting::Uniform;
        }
        plan.training.recompute = Recompute::Full;
        plan.training.flashAttention = true;
        // TE's DotProductAttention (cuDNN's fused kernel on Hopper), or SDPA's flash backend.
        plan.training.attentionKernel =
            t.at(r, "attention") == QLatin1String("te") ? AttentionKernel::Fused : AttentionKernel::Flash2;
        plan.training.fusedNorm = t.at(r, "rms_norm") == QLatin1String("te");
        plan.training.compile = t.at(r, "torch_compile") == QLatin1String("yes");
        plan.training.fusedKernels = false;
        plan.training.separateQkv = true; // q_proj, k_proj and v_proj, three linears
        plan.training.fp32Gradients = t.at(r, "reduce_dtype") == QLatin1String("float32");
        // MaskedCrossEntropy: F.cross_entropy on the logits, not compiled with the model.
        plan.training.lossKernel = LossKernel::Eager;
        // Every parameter is BF16, with no FP32 master: the MoE models cast themselves after sharding
        // (initialize_weights' default dtype torch.bfloat16 and self.to(dtype): qwen3_moe/model.py lines 255 and
        // 271, deepseek_v3/model.py lines 283 and 299, called from checkpoint/checkpointing.py line 233 at
        // 89e3a9fdd), the Llama config loads torch_dtype bf16. FSDP2 steps the sharded parameter in its own dtype.
        plan.training.masterWeights = MasterFormat::Bf16;
        // torch.optim.Adam (foreach) in the MoE configs keeps its moments in the parameter's dtype
        // (zeros_like); Transformer Engine's FusedAdam in the Llama one keeps them in FP32 (exp_avg_dtype).
        if (ep == 1)
            plan.training.optimizerKernel = OptimizerKernel::Fused;
        else
            plan.training.optimizerMoments = MomentFormat::Bf16;
        if (pp > 1) {
            plan.parallel.schedule = Schedule::Interleaved; // pp_schedule: interleaved1f1b
            // The train loop runs the schedule once per local batch and accumulates over GA runs (the table's
            // GA column; recipes/llm/train_ft.py's gradient accumulation around the pipeline step).
            plan.training.scheduleMicrobatches = count("local_batch_size") / count("micro_batch_size");
            plan.parallel.virtualStages = count("vp");
            for (const QString &n : t.at(r, "stage_layers").split(u' ', Qt::SkipEmptyParts))
                plan.parallel.stageLayers.push_back(n.toLongLong());
        }
        rows.push_back({QStringLiteral("automodel"), id, plan, t.number(r, "measured_step_s")});
    }
}

/// llm-foundry's benchmark table (llmfoundry_mpt_fsdp_benchmarks.csv): MPT with PyTorch FSDP (FULL_SHARD as
/// ZeRO-3, SHARD_GRAD_OP as ZeRO-2), BF16 under amp or Transformer Engine's FP8 (amp_fp8), flash attention,
/// learned positions (mptPlan), on the H100 and A100-40GB sections; the A100-80GB section is the older table read by llmFoundry.
void llmFoundryBenchmarks(std::vector<Row> &rows, QStringList *skipped)
{
    const Table t(QStringLiteral("llmfoundry_mpt_fsdp_benchmarks.csv"));
    for (std::size_t r = 1; r < t.size(); ++r) {
        const QString gpu = t.at(r, "gpu");
        if (gpu == QLatin1String("a100_80gb"))
            continue;
        const QString id = t.at(r, "row_id") + " MPT-" + t.at(r, "model") + ' ' + gpu + ' ' + t.at(r, "precision") + " seq "
                           + t.at(r, "seq_len") + " x" + t.at(r, "num_gpus");
        const double tokensPerSecond = t.number(r, "throughput_tok_per_s");
        if (tokensPerSecond <= 0) {
            if (skipped)
                *skipped << "llmfoundry-bench " + id + ": no throughput";
            continue;
        }
        Plan plan = mptPlan(t, r, id);
        if (t.at(r, "precision") == QLatin1String("amp_fp8"))
            plan.training.precision = Precision::FP8;
        const auto gpus = plan.parallel.data;
        // FULL_SHARD frees each unit after its forward; SHARD_GRAD_OP keeps it gathered until its backward
        // (FSDP2's reshard_after_forward false).
        plan.parallel.reshardAfterForward = t.at(r, "sharding_strategy") == QLatin1String("FULL_SHARD");
        const bool h100 = gpu == QLatin1String("h100_80gb");
        setCluster(plan, h100 ? "h100-sxm5-80gb" : "a100-sxm4-40gb", gpus, 8);
        if (!h100) // 1600 Gb/s RoCE per 8-GPU node (the section title)
            plan.cluster.overrides.networkBandwidthBytesPerSecond = 1600e9 / 8.0 / 8.0;
        const double tokens = double(plan.training.globalBatch) * double(plan.model.seqLen);
        rows.push_back({h100 ? "llmfoundry-h100" : "llmfoundry-a100-40", id, plan, tokens / tokensPerSecond});
    }
}

/// NeMo / Megatron-Core as the DGX Cloud recipes and the NeMo performance tables run it (validation
/// README): BF16 or FP8 (Transformer Engine, per-tensor scaling), flash attention (cuDNN), fused kernels,
/// sequence parallelism with tensor parallelism, the distributed optimizer (ZeRO-1 over data x context)
/// with gradients reduced in BF16 (the recipes' grad_sync_dtype: bf16 in NeMo 1.0's hydra configs,
/// grad_reduce_in_fp32 = False in NeMo 2.0's performance recipes; dgxc-benchmarking
/// nemo_megatron/gpt3_175b_hydra.yaml and nemotron/nemotron4-340b-synth.yaml), FP8 parameters all-gathered in
/// FP8 under FP8 (fp8_params: true there and in NeMo 2.0's bf16_with_fp8_mixed), overlapped gradient
/// reduction and parameter gather, tensor-parallel
/// communication overlapped with the GEMMs when TP > 1 (the performance recipes' MegatronCommOverlapCallback
/// and DistributedDataParallelConfig in NeMo 2.0's llm/recipes), interleaved pipeline when VP > 1 with its
/// transfers overlapped (overlap_p2p_comm, which NeMo sets with virtual stages), no
/// recomputation. One assumption for the whole source, never per row.
void nemoTraining(Plan &plan, const QString &precision)
{
    plan.training.precision = precision.startsWith(QLatin1String("FP8")) ? Precision::FP8 : Precision::BF16;
    plan.training.flashAttention = true;
    plan.training.fusedKernels = true;
    plan.training.recompute = Recompute::None;
    plan.training.sequenceParallel = plan.parallel.tensor > 1;
    plan.training.fp32Gradients = false;
    plan.training.fp8ParamGather = plan.training.precision == Precision::FP8;
    plan.parallel.zeroStage = 1;
    plan.parallel.overlapGradReduce = true;
    plan.parallel.overlapParamGather = true;
    plan.parallel.tensorCommOverlap = plan.parallel.tensor > 1;
    plan.parallel.overlapP2pComm = plan.parallel.virtualStages > 1;
    // Megatron-Core's DDP bucket: max(40M, 1M x data-parallel size) parameters of FP32 main gradients
    // (megatron/core/distributed/distributed_data_parallel.py).
    plan.parallel.bucketBytes = 4.0 * std::max(40e6, 1e6 * double(plan.parallel.data * plan.parallel.context));
    plan.parallel.schedule = plan.parallel.virtualStages > 1 ? Schedule::Interleaved : Schedule::OneFOneB;
}

/// The preset a dgxc/NeMo model name stands for (Llama 3 and 3.1 share their shapes at 8B and 70B).
const char *nemoPreset(const QString &model)
{
    static const std::pair<const char *, const char *> presets[] = {
        {"GPT-3 175B", "gpt3-175b"},         {"Llama 3.1 8B", "llama3.1-8b"},     {"Llama 3.1 70B", "llama3.1-70b"},
        {"Llama 3.1 405B", "llama3.1-405b"}, {"Nemotron-4 15B", "nemotron4-15b"}, {"Nemotron-4 340B", "nemotron4-340b"},
        {"Llama 3 8B", "llama3-8b"},         {"Llama 3 70B", "llama3-70b"},       {"LLAMA3-8B", "llama3-8b"},
        {"LLAMA2-7B", "llama2-7b"},          {"Llama 2 70B", "llama2-70b"},       {"DeepSeek-V3", "deepseek-v3"},
        {"Grok-1", "grok-1"},                {"Llama 4 Maverick", "llama4-maverick"},
        {"Nemotron-H 56B", "nemotron-h-56b"}};
    for (const auto &[name, id] : presets)
        if (model.startsWith(QLatin1String(name)))
            return id;
    return nullptr;
}

/// A layout count: "NA", "n/a" and empty mean 1.
std::int64_t layoutCount(const Table &t, std::size_t r, const char *column)
{
    const double v = t.number(r, column);
    return v >= 1 ? std::int64_t(v) : 1;
}

/// NeMo's DeepSeek-V3 pipeline split (61 layers): 64 / p on the middle stages, one fewer on the first, two
/// fewer on the last.
std::pair<std::int64_t, std::int64_t> deepSeekNemoSplit(std::int64_t pipeline)
{
    const std::int64_t middle = 64 / pipeline;
    return {middle - 1, middle - 2};
}

/// NeMo's pipeline split. Layers that do not split into pipeline x virtual chunks (Llama 3.1 405B's 126 on
/// 8 x 8): NeMo counts the embedding and the loss as a layer each in the split
/// (account_for_embedding_in_pipeline_split, account_for_loss_in_pipeline_split), so the first and last
/// stages hold one layer fewer. DeepSeek-V3's 61 layers: NeMo's performance script gives the middle stages
/// 64 / p layers, the first one fewer and the last (loss and MTP) two fewer
/// (scripts/performance/llm/pretrain_deepseek_v3.py, NeMo v2.3.1). Otherwise Megatron-Core's uneven split as
/// the search makes it.
void nemoStageSplit(Plan &plan)
{
    const std::int64_t chunks = plan.parallel.pipeline * plan.parallel.virtualStages;
    if (plan.model.isMla() && plan.model.layers == 61 && plan.parallel.pipeline > 2 && 64 % plan.parallel.pipeline == 0)
        std::tie(plan.parallel.firstStageLayers, plan.parallel.lastStageLayers) = deepSeekNemoSplit(plan.parallel.pipeline);
    else if (plan.parallel.pipeline > 2 && plan.model.layers % chunks != 0 && (plan.model.layers + 2) % chunks == 0)
        plan.parallel.firstStageLayers = plan.parallel.lastStageLayers = (plan.model.layers + 2) / plan.parallel.pipeline - 1;
    else if (plan.model.layers % chunks != 0)
        std::tie(plan.parallel.firstStageLayers, plan.parallel.lastStageLayers) = unevenSplit(plan.model.layers, plan.parallel.pipeline);
}

/// NVIDIA DGX Cloud benchmarking recipes, NeMo / Megatron-Core rows. DP, where printed, is not trusted: it
/// is GPUs / (TP x PP x CP) (several rows print the per-node or a missing DP). Mixture-of-experts rows: the
/// v24.11.1-v25.02 Grok-1 rows print DP = that data-parallel size / EP (TP x PP x CP x DP x EP is their GPU
/// count, and GBS / (MBS x GA) their data-parallel size), the v25.05 rows print it whole; both read as
/// GPUs / (TP x PP x CP), experts split over EP ranks and each over ETP (unprinted: TP, Megatron-Core's
/// default). JAX rows (MaxText, Paxml) run another execution engine and are reported, not modelled.
/// Nemotron-H 56B (hybrid Mamba-2, attention and dense MLP blocks) is a group of its own, never fitted.
void dgxc(std::vector<Row> &rows, QStringList *skipped)
{
    const Table t(QStringLiteral("nvidia_dgxc_benchmarking_recipes.csv"));
    for (std::size_t r = 1; r < t.size(); ++r) {
        const QString model = t.at(r, "model"), framework = t.at(r, "framework"), gpu = t.at(r, "gpu");
        const QString id = QString::number(r) + ' ' + model + ' ' + t.at(r, "precision") + ' ' + gpu + " x" + t.at(r, "num_gpus")
                           + ' ' + t.at(r, "first_tag");
        // GPT-3 5B is NeMo's own size, not a published model: 24 layers, hidden 4,096, 32 heads, GeLU
        // MLP of 4h (NeMo's gpt3 5B config); its stated 6.69e13 FLOPs per 2,048-token sequence is
        // Narayanan's 72 s l h^2 (1 + s/6h + V/12lh) for exactly this shape. It borrows GPT-3 175B's
        // vocabulary and is then reshaped.
        const bool gpt3Small = model.startsWith(QLatin1String("GPT-3 5B"));
        const char *preset = gpt3Small ? "gpt3-175b" : nemoPreset(model);
        if (t.at(r, "task") == QLatin1String("LORA")) {
            if (skipped)
                *skipped << "dgxc " + id + ": LoRA fine-tuning (frozen weights: no weight gradients or optimizer state)";
            continue;
        }
        if (!preset) {
            if (skipped)
                *skipped << "dgxc " + id + ": no preset with this model's shapes";
            continue;
        }
        // A pipelined layout printed with VP "NA" (Nemotron-4 340B in v25.04 and v25.04.01, where the same
        // recipe prints VP 12 in v24.11.1 and v25.05 and its MFU is out of reach without interleaving): the
        // schedule is not stated.
        if (layoutCount(t, r, "pp") > 1 && t.at(r, "vp").compare(QLatin1String("NA"), Qt::CaseInsensitive) == 0) {
            if (skipped)
                *skipped << "dgxc " + id + ": pipelined, but virtual stages printed as NA (schedule not stated)";
            continue;
        }
        const double measured = t.number(r, "step_time_s");
        const auto gpus = std::int64_t(t.number(r, "num_gpus"));
        Plan plan = test::presetPlan(preset, layoutCount(t, r, "tp"), layoutCount(t, r, "pp"), 1, layoutCount(t, r, "mbs"),
                                     std::int64_t(t.number(r, "gbs")), gpu == QLatin1String("GB200") ? "gb200" : "h100-sxm5-80gb");
        plan.name = id.toStdString();
        if (gpt3Small)
            plan.model = megatronGpt(24, 4096, 32, plan.model.vocab, 2048);
        if (t.number(r, "layers") >= 1)
            plan.model.layers = std::int64_t(t.number(r, "layers")); // PROXY rows run fewer layers
        plan.model.seqLen = std::int64_t(t.number(r, "seq_len"));
        plan.parallel.context = layoutCount(t, r, "cp");
        plan.parallel.virtualStages = layoutCount(t, r, "vp");
        plan.parallel.data = gpus / (plan.parallel.tensor * plan.parallel.pipeline * plan.parallel.context);
        plan.parallel.expert = layoutCount(t, r, "ep");
        plan.parallel.expertTensor = t.number(r, "etp") >= 1 ? std::int64_t(t.number(r, "etp")) : 0;
        nemoTraining(plan, t.at(r, "precision"));
        // Fine-tuning rows: NeMo's performance recipe (scripts/performance/llm/finetune_llama3_8b.py with
        // llm/recipes/llama3_8b.finetune_recipe(performance_mode=True)) trains on SQuAD packed into 4,096-token
        // sequences, attention kept within each example. A SQuAD example is ~117 words of paragraph, ~10 of
        // question and ~3 of answer (Rajpurkar et al. 2016; the averages CoQA's Table 3 lists), ~180 Llama 3
        // tokens with the prompt template; NVIDIA's own FLOP count for these rows (1.84e14 per sequence) has
        // no 4,096-token attention term either. The time changes by < 1% from 128 to 512 tokens.
        if (t.at(r, "task") == QLatin1String("SFT"))
            plan.training.documentLength = 180;
        // DeepSeek-V3's recipe recomputes MLA's up projections on H100 and the attention core on GB200
        // (RM='mla_up_proj' / 'core_attn' in dgxc-benchmarking v25.05 deepseek_v3/pretraining/launch.sh).
        // On GB200 that release ran MLA's attention unfused: Transformer Engine's fused (cuDNN) attention
        // trains MLA's head sizes (192 for Q and K, 128 for V) on Blackwell only from cuDNN 9.11
        // (transformer_engine/common/fused_attn/fused_attn.cpp, nvte_get_fused_attn_backend), flash-attn
        // has no Blackwell kernel, and the recipe's NeMo 25.04 container predates cuDNN 9.11; so the score
        // matrices are materialised, which is why the recipe recomputes the attention core there.
        // Its tensor-parallel collectives are not overlapped: the script's MegatronCommOverlapCallback sets
        // tp_comm_overlap=False (NeMo scripts/performance/llm/pretrain_deepseek_v3.py line 89 at 7a8f1cc7, the
        // llmb-nemo-r2.3.0 commit every v25.05 release's setup.sh checks out).
        // Its gradients are reduced in FP32. Every v25.05 release's DeepSeek-V3 setup.sh checks out NeMo 7a8f1cc7
        // (deepseek_v3/pretraining/setup.sh line 54, v25.05 to v25.05.04) and launch.sh runs it in BF16 (line 55,
        // "fp8 not supported currently"). There scripts/performance/llm/pretrain_deepseek_v3.py builds
        // pretrain_recipe() with no performance mode (line 65; the recipe has none at that commit), whose trainer
        // keeps bf16_mixed() (recipes/deepseek.py line 95; mixed_precision.py line 35: grad_reduce_in_fp32=True),
        // and set_primary_perf_configs turns grad_reduce_in_fp32 off only for FP8 (utils.py lines 426-437).
        // MegatronStrategy copies the plugin's value into the DDP config (megatron_strategy.py line 423). The
        // other NeMo 2 BF16 recipes of the table turn it off: the performance modes of the Llama 3.1, Llama 4 and
        // Nemotron-4 recipes (recipes/llama31_405b.py line 253 at d2b21556, llama4_e128.py line 251 at 7a8f1cc7,
        // nemotron4_340b.py line 226 at d2b21556) and Grok-1's script (pretrain_grok1_314b.py line 221).
        if (plan.model.isMla() && plan.training.precision == Precision::BF16)
            plan.training.fp32Gradients = true;
        if (plan.model.isMla()) {
            plan.training.recompute = Recompute::Selective;
            plan.training.recomputeMlaUpProjection = gpu != QLatin1String("GB200");
            plan.training.flashAttention = gpu != QLatin1String("GB200");
            plan.parallel.tensorCommOverlap = false;
        }
        // Nemotron-4 340B in the NeMo 1 releases (v24.11.1 to v25.03; v25.04 moved it to NeMo 2's performance
        // scripts): nemotron/nemotron4-340b-synth.yaml runs Apex's DistributedFusedAdam with `optim: dtype: bf16`
        // (lines 182-186 at dgxc-benchmarking v24.11.1), which keeps the moments and its parameter shard in BF16
        // (apex/contrib/optimizers/distributed_fused_adam.py, StateBucket).
        static const QRegularExpression nemo1Release(QStringLiteral("^v2(4\\.11|5\\.0[123])"));
        const QString tag = t.at(r, "first_tag");
        const bool nemo1 = nemo1Release.match(tag).hasMatch();
        if (model.startsWith(QLatin1String("Nemotron-4 340B")) && nemo1) {
            plan.training.optimizerMoments = MomentFormat::Bf16;
            plan.training.masterWeights = MasterFormat::Bf16;
        }
        // The attention backend of the NeMo 1 launches: Transformer Engine runs cuDNN's fused attention unless
        // NVTE_FUSED_ATTN=0, and then its FlashAttention backend (flash-attn 2). Nemotron-4 340B's configure.sh
        // exports NVTE_FUSED_ATTN=0 for 340B (line 65 at v24.11.1, line 70/71 at v25.01 to v25.03; 15B sets 1),
        // Grok-1's for every run (grok1/configure.sh line 29 at v24.11.1 to v25.03, line 38 at v25.04), GPT-3 175B's
        // launch.sh in v24.11.1 (nemo_megatron/launch.sh line 55; v25.02's configure.sh line 33 sets 1). NeMo 2's
        // performance scripts set NVTE_FUSED_ATTN=1 (scripts/performance/utils.py lines 76-77 at 7a8f1cc7), as
        // Llama 3.1's configure.sh does in NeMo 1 (lines 47-48). Nemotron-4 340B's yaml also recomputes the
        // attention core (activations_checkpoint_granularity: selective, nemotron4-340b-synth.yaml line 138 at
        // v24.11.1 to v25.03).
        static const QRegularExpression grokConfigure(QStringLiteral("^v2(4\\.11|5\\.0[1-4])"));
        const bool flashBackend = (model.startsWith(QLatin1String("Nemotron-4 340B")) && nemo1) ||
                                  (model.startsWith(QLatin1String("Grok-1")) && grokConfigure.match(tag).hasMatch()) ||
                                  (model.startsWith(QLatin1String("GPT-3 175B")) && tag.startsWith(QLatin1String("v24.11")));
        if (flashBackend && gpu == QLatin1String("H100"))
            plan.training.attentionKernel = AttentionKernel::Flash2;
        if (model.startsWith(QLatin1String("Nemotron-4 340B")) && nemo1)
            plan.training.recompute = Recompute::Selective;
        // Nemotron-4 15B in v25.02 and v25.03 (NeMo 24.12): nemotron/nemotron4-15b-synth.yaml switched to
        // `optim: name: mcore_distributed_optim` without a grad_sync_dtype (lines 178-193 at v25.02; v24.11.1's
        // distributed_fused_adam had `grad_sync_dtype: bf16`, line 193), and NeMo 1's MegatronGPTModel then reduces
        // in FP32: DistributedDataParallelConfig(grad_reduce_in_fp32=(cfg.optim.get('grad_sync_dtype', 'fp32') ==
        // 'fp32')) (nemo/collections/nlp/models/language_modeling/megatron_gpt_model.py line 588 at v2.1.0). The
        // other NeMo 1 yamls state bf16 (grok1_314b.yaml line 168, llama3.1_*.yaml, gpt3_175b_hydra.yaml,
        // nemotron4-340b-synth.yaml at v24.11.1 to v25.03).
        static const QRegularExpression nemo24_12(QStringLiteral("^v25\\.0[23]"));
        if (model.startsWith(QLatin1String("Nemotron-4 15B")) && nemo24_12.match(tag).hasMatch())
            plan.training.fp32Gradients = true;
        nemoStageSplit(plan);
        // Deferred output-layer weight gradients (Megatron-Core --defer-embedding-wgrad-compute): every release's
        // Llama 3.1 70B and 405B and Nemotron-4 340B recipe and the Llama 3 70B SFT recipe turn them on, at
        // wgrad_deferral_limit 50 for 405B and 22 for the others. NeMo 1 (v24.11.1-v25.02): llama3.1/llama3.1_70b.yaml
        // lines 118-119, llama3.1_405b.yaml lines 124-125, nemotron/nemotron4-340b-synth.yaml lines 214-215 at
        // dgxc-benchmarking v24.11.1 (configure.sh turns them off for its one pipeline-free 405B layout). NeMo 2
        // (v25.04 on): the performance optimizations of recipes/llama3_70b.py (lines 234-235), llama31_405b.py
        // (241-242) and nemotron4_340b.py (214-215) at the commits the setup scripts check out (d2b21556,
        // 7a8f1cc7, 6f2c6fda, b4148d21), which llama3.1/pretrain_llama31.py and scripts/performance/llm use with
        // performance_mode=True; the SFT branch of llama3_70b.finetune_performance_optimizations at 25ec4e98
        // (v25.02). GPT-3 175B's nemo_megatron/gpt3_175b_hydra.yaml (v24.11.1, v25.02) leaves NeMo 1's default,
        // off; no MoE recipe sets them. Without pipeline stages Megatron-Core refuses them.
        const bool defers = model.startsWith(QLatin1String("Llama 3.1 70B")) ||
                            model.startsWith(QLatin1String("Llama 3.1 405B")) ||
                            model.startsWith(QLatin1String("Nemotron-4 340B")) ||
                            (model.startsWith(QLatin1String("Llama 3 70B")) && t.at(r, "task") == QLatin1String("SFT"));
        if (defers && plan.parallel.pipeline > 1) {
            plan.training.deferEmbeddingWgrad = true;
            plan.training.wgradDeferralLimit = model.startsWith(QLatin1String("Llama 3.1 405B")) ? 50 : 22;
        }
        // MoE routing kernels: NeMo 2's performance scripts fuse the token permutation for DeepSeek-V3 and
        // Llama 4 (recipe.model.config.moe_permute_fusion = True: scripts/performance/llm/pretrain_deepseek_v3.py
        // line 66 and pretrain_llama4_e128.py line 99 at 7a8f1cc7, the v25.05 setup.sh commit, which DeepSeek-V3's
        // setup.sh keeps to v25.05.04), not for Grok-1 (pretrain_grok1_314b.py sets neither), and
        // the NeMo 1 releases (v24.11.1, v25.02) predate the key. No NeMo release sets moe_router_fusion.
        plan.training.moePermuteFusion = plan.model.isMoe() && !model.startsWith(QLatin1String("Grok-1"));
        // Token drop at capacity 1 with padding to it (NeMo's MegatronTokenDropCallback: capacity factor 1.0,
        // moe_pad_expert_input_to_capacity True, nemo/lightning/pytorch/callbacks/moe_token_drop.py lines 38-39 at
        // 7a8f1cc7): every Grok-1 run (grok1/grok1_314b.yaml lines 53-54 at v24.11.1 and v25.02;
        // pretrain_grok1_314b.py line 212 at 7a8f1cc7 and 6f2c6fda) and DeepSeek-V3 in v25.05-v25.05.04
        // (pretrain_deepseek_v3.py: USE_TOKEN_DROP = True, lines 40 and 80 at 7a8f1cc7, the NeMo commit of its
        // setup.sh in every v25.05 release; 6f2c6fda is the Grok-1 and Llama 3.1 setups' from v25.05.01).
        // Padded to capacity, the experts' shapes are static: no layer waits for its token counts.
        if (model.startsWith(QLatin1String("Grok-1")) || plan.model.isMla())
            plan.training.capacityFactor = 1.0;
        // Per-layer CUDA graphs (`--cuda_graphs true`: Megatron-Core's enable_cuda_graph, NeMo's
        // pretrain_grok1_314b.py line 352 at 7a8f1cc7) where the v25.05 launch scripts default them on: Grok-1 on
        // GB200 (grok1/launch.sh line 90, CUDA_GRAPH=true; false on H100, line 118, in every v25.05 release) and
        // Llama 4 Maverick in FP8 on H100 (llama4/launch.sh line 106; false in BF16 and on GB200), and Nemotron-4 on
        // GB200 (nemotron/launch.sh line 162, "--cuda_graphs true" for gb200). DeepSeek-V3's launch.sh passes none
        // (the script's default, false).
        const bool graphed = (model.startsWith(QLatin1String("Grok-1")) && gpu == QLatin1String("GB200")) ||
                             (model.startsWith(QLatin1String("Nemotron-4")) && gpu == QLatin1String("GB200")) ||
                             (model.startsWith(QLatin1String("Llama 4")) && gpu == QLatin1String("H100") &&
                              t.at(r, "precision") == QLatin1String("FP8"));
        if (graphed && tag.startsWith(QLatin1String("v25.05")))
            plan.training.cudaGraphs = CudaGraphs::Layers;
        // Nemotron-H 56B (v25.05: nemotronh/launch.sh runs NeMo's scripts/performance/llm/pretrain_nemotronh_56b.py
        // at TP 8, PP 1, MBS 1 and GBS 3 x GPUs, NeMo 7a8f1cc7 per setup.sh) is read as the other NeMo 2 rows:
        // pretrain_recipe(performance_mode=True) adds MegatronCommOverlapCallback(tp_comm_overlap=True)
        // (recipes/nemotronh_56b.py), and set_primary_perf_configs replaces the recipe's current-scaling plugin by
        // its FP8 default, "ds", bf16_with_fp8_mixed(): delayed scaling, whose plugin leaves first_last_layers_bf16
        // at False (scripts/performance/helpers.py), so no layer stays in BF16 (NemotronHConfigBase's True is the
        // plugin's to override, and Megatron-Core keeps none under delayed scaling).
        if (gpu == QLatin1String("GB200")) {
            // NVL72 racks of 18 trays of 4 GPUs; the recipes run 128-512 GPUs, which NVIDIA places as 64 GPUs
            // (16 trays) per rack so that power-of-two groups never straddle racks (the other 2 trays are
            // spares): one NVLink domain per 64 GPUs.
            setCluster(plan, "gb200", gpus, 4);
            plan.cluster.scaleUpDomain = gpus % 64 == 0 ? 64 : std::min<std::int64_t>(72, gpus);
        } else {
            setCluster(plan, "h100-sxm5-80gb", gpus, 8);
        }
        const bool jax = !framework.startsWith(QLatin1String("NeMo"));
        // The JAX rows shard parameters, gradients and optimizer state over their FSDP axis (Paxml's
        // "FSDP+DP", MaxText's ici_fsdp size): ZeRO-3.
        const QString fsdp = t.at(r, "fsdp");
        if (jax && !fsdp.isEmpty() && fsdp != QLatin1String("0"))
            plan.parallel.zeroStage = 3;
        if (measured <= 0 || plan.parallel.data < 1) {
            if (skipped)
                *skipped << "dgxc " + id + ": no step time or no whole data-parallel size";
            continue;
        }
        // Proxy layer counts that do not split over the stages and chunks (30 layers on 4 x 8) ran with a
        // layout the source does not print.
        const Problems problems = validatePlan(plan, io::builtinCatalog());
        if (const Problem *p = firstError(problems)) {
            if (skipped)
                *skipped << "dgxc " + id + ": " + QString::fromStdString(p->key + ": " + io::problemMessage(*p));
            continue;
        }
        rows.push_back({plan.model.isHybrid() ? "dgxc-hybrid" : plan.model.experts > 0 ? "dgxc-moe" : "dgxc", id, plan,
                        measured, !jax});
    }
}

/// Held out: DeepSeek-V3 runs that later dgxc-benchmarking releases print (not in shared/validation; never
/// calibrated on). Each row's layout is its release's launch.sh and README table; the framework settings are
/// NeMo's of that container.
///  - v25.08 (NeMo 25.07.01 = v2.4.0), 1,024 H100: TP 1, PP 8, VP 2, EP 64, GBS 8,192; recompute modules
///    mla_up_proj, mlp and moe; DeepEP (DeepEPCallback turns on the flex dispatcher on SM80/SM90); token drop
///    at capacity 1 (balanced). "training step time = 36.189 s" (deepseek_v3/pretrain/README.md).
///  - v25.10 (25.09.00), 256 GB200: TP 1, PP 4, VP 4, EP 64, GBS 2,048; recompute mla_up_proj (Megatron-Bridge's
///    GB200 BF16 base config). Its README prints 769.50 TFLOP/s per GPU and 757,641 tokens/s for this run:
///    4,096 x 2,048 / 757,641 = 11.072 s.
/// Dense-MLP recomputation ("mlp", the first three layers) is not a plan key; it is small beside the rest.
void dgxcHeldOut(std::vector<Row> &rows)
{
    struct Run { const char *id, *device; std::int64_t gpus, tensor, pipeline, virtualStages, expert, globalBatch; double seconds; };
    static const Run runs[] = {{"DeepSeek-V3 BF16 H100 x1024 v25.08", "h100-sxm5-80gb", 1024, 1, 8, 2, 64, 8192, 36.189},
                               {"DeepSeek-V3 BF16 GB200 x256 v25.10", "gb200", 256, 1, 4, 4, 64, 2048, 4096.0 * 2048.0 / 757641.0}};
    for (const Run &run : runs) {
        const bool gb200 = QLatin1String(run.device) == QLatin1String("gb200");
        Plan plan = test::presetPlan("deepseek-v3", run.tensor, run.pipeline, 1, 1, run.globalBatch, run.device);
        plan.name = run.id;
        plan.parallel.virtualStages = run.virtualStages;
        plan.parallel.data = run.gpus / (run.tensor * run.pipeline);
        plan.parallel.expert = run.expert;
        plan.parallel.expertTensor = 1;
        nemoTraining(plan, QStringLiteral("BF16"));
        plan.training.recompute = Recompute::Selective;
        plan.training.recomputeMlaUpProjection = true;
        plan.training.recomputeMoe = !gb200;
        plan.parallel.expertDispatcher = gb200 ? ExpertDispatcher::AllToAll : ExpertDispatcher::DeepEp;
        // Both fuse the permutation (NeMo's pretrain_deepseek_v3.py line 94 at 9244b1ec, v25.08; the
        // DeepSeek provider's default from Transformer Engine 2.1, Megatron-Bridge deepseek_provider.py at
        // r0.1.0); the 25.09 container's Megatron-Bridge recipe also fuses the router
        // (scripts/performance/configs/deepseek/deepseek_v3_llm_pretrain.yaml line 21 at r0.1.0).
        plan.training.moePermuteFusion = true;
        plan.training.moeRouterFusion = gb200;
        std::tie(plan.parallel.firstStageLayers, plan.parallel.lastStageLayers) = deepSeekNemoSplit(run.pipeline);
        setCluster(plan, run.device, run.gpus, gb200 ? 4 : 8);
        if (gb200)
            plan.cluster.scaleUpDomain = 64;
        rows.push_back({"dgxc-heldout", run.id, plan, run.seconds, true});
    }
}

/// A Megatron-Core plan on H100 nodes as Megatron-Bridge's recipes leave the shared settings: BF16, Transformer
/// Engine's fused attention, gradients reduced in FP32 (bf16_mixed's grad_reduce_in_fp32), the distributed
/// optimizer with both overlaps, NDR InfiniBand between nodes.
Plan bridgeH100Plan(const char *preset, std::int64_t tensor, std::int64_t pipeline, std::int64_t data,
                    std::int64_t globalBatch)
{
    Plan plan = test::presetPlan(preset, tensor, pipeline, data, 1, globalBatch, "h100-sxm5-80gb");
    plan.training.precision = Precision::BF16;
    plan.training.recompute = Recompute::None;
    plan.training.flashAttention = true;
    plan.training.fp32Gradients = true;
    plan.parallel.zeroStage = 1;
    plan.parallel.overlapGradReduce = true;
    plan.parallel.overlapParamGather = true;
    setCluster(plan, "h100-sxm5-80gb", tensor * pipeline * data, 8);
    plan.cluster.network = "ib-ndr";
    plan.cluster.intraNodeLink = "nvlink4-nvswitch";
    return plan;
}

/// GPT-OSS as gpt_oss_{20b,120b}_pretrain_*_h100_bf16_config runs it (recipes/gpt_oss/h100/gpt_oss.py at 6799f099
/// and a8038f6d): TP 2 with sequence parallelism, PP 4, ETP 1, global batch 512 of micro-batch 1, the all-to-all
/// dispatcher, the router unfused and the permutation fused, YaRN positions (the rotary fusion off), no
/// recomputation, no graphs. The cards' RedPajama-2 SentencePiece tokenizer sizes the vocabulary
/// (_pretrain_common's use_tokenizer_vocab_size): their model TFLOP/s are Bridge's formula at 32,000 entries.
Plan gptOssCardPlan(const char *preset, std::int64_t data, std::int64_t expert)
{
    Plan plan = bridgeH100Plan(preset, 2, 4, data, 512);
    plan.model.vocab = 32000;
    plan.training.sequenceParallel = true;
    plan.training.fusedRope = false;
    plan.training.moeRouterFusion = false;
    plan.training.moePermuteFusion = true;
    plan.parallel.expert = expert;
    plan.parallel.expertTensor = 1;
    plan.parallel.expertDispatcher = ExpertDispatcher::AllToAll;
    return plan;
}

/// The precision a Megatron-Bridge row names. "FP8" and "FP8-CS" are per-tensor scaling (delayed and current
/// scaling share the model's per-tensor FP8), "MXFP8"/"FP8-MX" the 32-element block scales, NVFP4 its own;
/// release 25.09 prints no precision: "FP8 family" is read as per-tensor FP8 and the "alternate block-scaled
/// granularity" variant as the page note says (H100: 128 x 128 weight and 1 x 128 activation blocks, FP8
/// blockwise; Blackwell: 32-element blocks, MXFP8).
Precision bridgePrecision(const QString &text, bool hopper)
{
    if (text == QLatin1String("BF16"))
        return Precision::BF16;
    if (text == QLatin1String("NVFP4"))
        return Precision::NVFP4;
    if (text == QLatin1String("MXFP8") || text == QLatin1String("FP8-MX"))
        return Precision::MXFP8;
    if (text.contains(QLatin1String("block-scaled")))
        return hopper ? Precision::FP8Blockwise : Precision::MXFP8;
    return Precision::FP8;
}

/// Megatron-Bridge's DeepSeek-V3 recipe lays out its pipeline from (pipeline, virtual stages) when no layout is given:
/// chunks of decoder layers with the embedding on the first and the MTP modules and loss on the last, which holds
/// fewer layers (src/megatron/bridge/recipes/deepseek/deepseek_v3.py `map_pp_vp_to_layout` from r0.1.0, lines
/// 117-131; `_get_deepseek_v3_pipeline_layout` in recipes/deepseek/h100/deepseek_v3.py at v0.6.0, which the
/// performance recipes call after setting the layout, perf_recipes/deepseek/common.py). The first and last pipeline
/// ranks' layers, their chunks summed; {0, 0} for a pair the map lacks (the recipe then sets none).
std::pair<std::int64_t, std::int64_t> bridgeDeepSeekLayout(std::int64_t pipeline, std::int64_t virtualStages)
{
    struct Layout { std::int64_t p, v, first, middle, last; }; // decoder layers per chunk
    static constexpr Layout layouts[] = {{4, 1, 16, 16, 13}, {8, 1, 8, 8, 5}, {4, 2, 8, 8, 5},
                                         {16, 1, 4, 4, 1},  {8, 2, 4, 4, 1}, {4, 4, 4, 4, 1}};
    for (const Layout &l : layouts)
        if (l.p == pipeline && l.v == std::max<std::int64_t>(1, virtualStages)) {
            // Rank 0 holds chunks 0, p, 2p, ...: the first chunk and v - 1 middle ones; the last rank the last chunk.
            return {l.first + (l.v - 1) * l.middle, l.last + (l.v - 1) * l.middle};
        }
    return {0, 0};
}

/// The preset a Megatron-Bridge model name stands for (its own spellings); null for models without one
/// (Nemotron 3 is a hybrid Mamba-Transformer, DeepSeek-V4 Flash has no published shape here).
const char *bridgePreset(const QString &model)
{
    static const std::pair<const char *, const char *> presets[] = {
        {"LLAMA3_8B", "llama3-8b"},     {"LLAMA3_70B", "llama3-70b"},         {"LLAMA3.1_405B", "llama3.1-405b"},
        {"DeepSeekV3", "deepseek-v3"},  {"Qwen3_235B_a22B", "qwen3-235b-a22b"}, {"Qwen3_30B_a3B", "qwen3-30b-a3b"},
        {"GPT OSS 120B", "gpt-oss-120b"}, {"Kimi_K2", "kimi-k2"}, {"Nemotron_3_Nano", "nemotron-3-nano-30b-a3b"},
        {"Nemotron_3_Super", "nemotron-3-super-120b-a12b"}};
    for (const auto &[name, id] : presets)
        if (model.startsWith(QLatin1String(name)))
            return id;
    return nullptr;
}

/// The software each Megatron-Bridge row ran with, as its release's performance recipe sets it
/// (megatron_bridge_recipe_settings.csv, read by tools/bridge_recipe_settings.py from the release branch:
/// the recipe of the row's layout where there is one, else the release's recipe for the same model, system
/// and precision). What becomes plan keys: the token dispatcher (flex with DeepEP or HybridEP, else
/// Megatron-Core's all-to-all), the recomputed modules and full recomputation. The module without a plan key
/// (layernorm: a norm's replay) is small beside the rest and left out.
void applyRecipeSettings(Plan &plan, const Table &settings, std::size_t s)
{
    const QString dispatcher = settings.at(s, "dispatcher");
    if (plan.model.isMoe() && dispatcher == QLatin1String("deepep"))
        plan.parallel.expertDispatcher = ExpertDispatcher::DeepEp;
    if (plan.model.isMoe() && dispatcher == QLatin1String("hybridep"))
        plan.parallel.expertDispatcher = ExpertDispatcher::HybridEp;
    // CUDA graphs: the whole iteration (full_iteration as the implementation or the scope), per layer
    // (local, or Transformer Engine's scopes with attn, mlp or mamba: Nemotron 3 Nano's H100 FP8 recipe graphs its
    // Mamba blocks alone, read as per-layer graphs though its six attention blocks launch eagerly), the MoE router alone (moe_router,
    // moe_preprocess), or none (impl "none" clears the scope; unset is Megatron-Core's default, none).
    const QString impl = settings.at(s, "cuda_graph_impl"), scope = settings.at(s, "cuda_graph_scope");
    if (impl == QLatin1String("full_iteration") || (impl == QLatin1String("local") && scope.contains(QLatin1String("full_iteration"))))
        plan.training.cudaGraphs = CudaGraphs::Step;
    else if (impl == QLatin1String("local") || impl.startsWith(QLatin1String("cuda_graphs"))
             || (impl == QLatin1String("transformer_engine") && (scope.contains(QLatin1String("attn")) || scope.contains(QLatin1String("mlp"))
                                                                 || scope.contains(QLatin1String("mamba")))))
        plan.training.cudaGraphs = CudaGraphs::Layers;
    else if (impl == QLatin1String("transformer_engine") && scope.contains(QLatin1String("moe_router")))
        plan.training.cudaGraphs = CudaGraphs::Router;
    // Paged stashing of the routed experts' saved tensors comes with every MoE recipe's full-iteration graphs: at
    // v0.5.0 and v0.5.1 set_full_iter_cg_configs sets moe_paged_stash (with moe_expert_rank_capacity_factor 1.5) and
    // each config function calls it when is_full_iteration_cuda_graph (scripts/performance/configs/qwen/
    // qwen3_llm_pretrain.py lines 48-55 and 81-82, there only in fp8_mx, which every Qwen3 full-iteration row is;
    // deepseek/deepseek_llm_pretrain.py lines 53-65 and 100-101 at v0.5.1; gpt_oss/gpt_oss_llm_pretrain.py lines
    // 39-52 and 422-423); at v0.6.0 the helpers that set the full-iteration graph set it too
    // (src/megatron/bridge/perf_recipes/qwen/common.py lines 36-47, deepseek/common.py lines 49-68,
    // gpt_oss/common.py lines 23-38). No earlier release's MoE recipe captures the whole iteration.
    if (plan.model.isMoe() && plan.training.cudaGraphs == CudaGraphs::Step)
        plan.training.moePagedStash = true;
    // Recomputation as Megatron-Bridge's overrides apply it (scripts/performance/utils/overrides.py
    // _set_recompute_overrides): recompute_num_layers sets full recomputation of that many layers per chunk
    // (method "block"), recompute_modules then selective recomputation of those modules, which wins.
    const QStringList modules = settings.at(s, "recompute_modules").split(QLatin1Char(' '), Qt::SkipEmptyParts);
    const auto recomputeLayers = std::int64_t(settings.number(s, "recompute_num_layers"));
    if (!modules.isEmpty()) {
        plan.training.recompute = Recompute::Selective;
        plan.training.recomputeMlaUpProjection = plan.model.isMla() && modules.contains(QLatin1String("mla_up_proj"));
        plan.training.recomputeExpertActivation = plan.model.isMoe() && modules.contains(QLatin1String("moe_act"));
        plan.training.recomputeMoe = plan.model.isMoe() && modules.contains(QLatin1String("moe"));
        plan.training.recomputeDenseMlp = modules.contains(QLatin1String("mlp"));
    } else if (settings.at(s, "recompute_granularity") == QLatin1String("full") || recomputeLayers > 0) {
        plan.training.recompute = Recompute::Full;
        plan.training.recomputeLayers = std::max<std::int64_t>(0, recomputeLayers);
    }
    // Activation offload of whole layers (cpu_offloading_num_layers; cpu_offloading_weights off).
    plan.training.activationOffloadLayers = std::max<std::int64_t>(0, std::int64_t(settings.number(s, "cpu_offloading_num_layers")));
    const auto yes = [&](const char *column) { return settings.at(s, column) == QLatin1String("True"); };
    // The expert all-to-all beside another micro-batch's compute (moe_a2a_overlap: Megatron-Core
    // overlap_moe_expert_parallel_comm with delay_wgrad_compute), the CuTe DSL fused grouped expert MLP
    // (cutedsl_fused_grouped_mlp), FP8 dot-product attention (fp8_dot_product_attention).
    plan.parallel.expertCommOverlap = plan.model.isMoe() && yes("a2a_overlap");
    // The release's config function turns the tensor-parallel overlap off: CommOverlapConfig(tp_comm_overlap=
    // False) for Qwen3-235B-A22B on H100 (scripts/performance/configs/qwen/qwen3_llm_pretrain.py, v0.2.0 to
    // v0.5.1), and in NVFP4 for Llama 3 and 3.1 (configs/llama/llama3_llm_pretrain.py line 80 at v0.4.1).
    if (settings.at(s, "tp_comm_overlap") == QLatin1String("False"))
        plan.parallel.tensorCommOverlap = false;
    plan.training.fusedExpertMlp = plan.model.isMoe() && yes("fused_grouped_mlp");
    plan.training.fp8Attention = isLowPrecisionMatmul(plan.training.precision) && yes("fp8_attention");
    // The recipe's pipeline layout (pp_layout: Megatron-Core's pipeline_model_parallel_layout), read by the
    // script as the layers of its first and last stage.
    if (const auto first = std::int64_t(settings.number(s, "first_stage_layers")), last = std::int64_t(settings.number(s, "last_stage_layers"));
        first > 0 && last > 0) {
        plan.parallel.firstStageLayers = first;
        plan.parallel.lastStageLayers = last;
    }
}

/// The settings row of a performance row, by row_id (the table's row index, or 0).
std::size_t settingsRow(const Table &settings, const QString &rowId)
{
    for (std::size_t s = 1; s < settings.size(); ++s)
        if (settings.at(s, "row_id") == rowId)
            return s;
    return 0;
}

/// NVIDIA Megatron-Bridge performance summary (releases 25.09-26.08): tokens/s per GPU of NVIDIA's
/// performance recipes, read with the recipes' common settings (nemoTraining: Megatron-Core, flash
/// attention, overlapped communication, the distributed optimizer); `fsdp` set is Megatron-FSDP over the
/// data-parallel ranks (ZeRO-3). Experts are not split over tensor ranks (expert_tensor_parallel_size 1 in
/// the MoE recipes). GB200 and GB300 jobs run in NVL72 racks, read as 64-GPU NVLink domains as in the
/// dgxc rows. "(tokendrop)" is capacity factor 1, "(w/o MTP)" no multi-token prediction. Step time = tokens
/// per step / (tokens/s per GPU x GPUs). Release-specific software (CUDA graphs, dispatchers, recomputed
/// modules) is not read here yet: these rows serve the search comparison, not the calibration.
void megatronBridge(std::vector<Row> &rows, QStringList *skipped)
{
    const Table t(QStringLiteral("nemo_megatron_bridge_performance.csv"));
    const Table settings(QStringLiteral("megatron_bridge_recipe_settings.csv"));
    for (std::size_t r = 1; r < t.size(); ++r) {
        const QString model = t.at(r, "model"), system = t.at(r, "system"), release = t.at(r, "release");
        // Supervised fine-tuning (task "SFT") trains every weight as pre-training does; LoRA trains adapters,
        // which no plan key expresses.
        const bool sft = t.at(r, "task") == QLatin1String("SFT");
        const QString id = t.at(r, "row_id") + ' ' + model + (sft ? " SFT " : " ") + t.at(r, "precision").left(12) + ' '
                           + system + " x" + t.at(r, "num_gpus") + " v" + release;
        const char *preset = bridgePreset(model);
        if ((t.at(r, "task") != QLatin1String("Pre-Training") && !sft) || !preset) {
            if (skipped)
                *skipped << "bridge " + id
                                + (preset ? ": LoRA (adapters: no plan key)" : ": no preset with this model's shapes");
            continue;
        }
        const bool hopper = system == QLatin1String("DGX-H100");
        const bool rack = system == QLatin1String("DGX-GB200") || system == QLatin1String("DGX-GB300");
        const char *device = hopper ? "h100-sxm5-80gb"
                             : system == QLatin1String("DGX-B200") ? "b200"
                             : system == QLatin1String("DGX-B300") ? "b300"
                             : system == QLatin1String("DGX-GB200") ? "gb200" : "gb300";
        const auto gpus = std::int64_t(t.number(r, "num_gpus"));
        const std::size_t s = settingsRow(settings, t.at(r, "row_id"));
        // The row's plan with the layout (tensor, pipeline, context, virtual stages, experts, micro-batch) of
        // `layout`'s row `lr`: the summary's own, or its release's recipe's.
        const auto build = [&](const Table &layout, std::size_t lr) {
            Plan plan = test::presetPlan(preset, layoutCount(layout, lr, "tp"), layoutCount(layout, lr, "pp"), 1,
                                         layoutCount(layout, lr, "mbs"), std::int64_t(t.number(r, "gbs")), device);
            plan.name = id.toStdString();
            plan.model.seqLen = std::int64_t(t.number(r, "seq_len"));
            if (model.contains(QLatin1String("w/o MTP")))
                plan.model.mtpLayers = 0;
            plan.parallel.context = layoutCount(layout, lr, "cp");
            plan.parallel.virtualStages = layoutCount(layout, lr, "vp");
            plan.parallel.data = gpus / (plan.parallel.tensor * plan.parallel.pipeline * plan.parallel.context);
            if (plan.model.isMoe()) {
                plan.parallel.expert = layoutCount(layout, lr, "ep");
                plan.parallel.expertTensor = 1;
            }
            nemoTraining(plan, QStringLiteral("BF16"));
            // Transformer Engine's fused cross-entropy in every release: GPTModelProvider's cross_entropy_loss_fusion
            // True (src/megatron/bridge/models/gpt_provider.py line 152 at r0.1.0, 180-204 to v0.6.0) with
            // cross_entropy_fusion_impl "te", the Llama providers' own from r0.1.0 (llama_provider.py line 186) and
            // every model's from the performance scripts' overrides (utils/helpers.py line 108 at v0.2.0,
            // utils/overrides.py lines 64-84 at v0.3.0-v0.6.0).
            plan.training.lossKernel = LossKernel::TransformerEngine;
            plan.training.precision = bridgePrecision(t.at(r, "precision"), hopper);
            // Per-tensor FP8 is current scaling: the performance scripts' compute dtypes are bf16, fp8_cs, fp8_mx,
            // fp8_sc and nvfp4 in every release of the table (scripts/performance/argument_parser.py; fp8_ds came
            // in August 2026), fp8_cs bf16_with_fp8_current_scaling_mixed (utils/precision.py; fp8_recipe
            // "tensorwise", its BF16 first and last layers turned off there).
            plan.training.fp8Recipe = Fp8Recipe::Tensorwise;
            // Parameters gathered in the low format with FP8 current scaling and MXFP8, not with blockwise FP8
            // or NVFP4 (Megatron-Bridge src/megatron/bridge/training/mixed_precision.py: fp8_param_gather in
            // bf16_with_fp8_current_scaling_mixed and bf16_with_mxfp8_mixed, off in the subchannel and NVFP4
            // recipes; the summary's footnote: "NVFP4 param gather" not yet supported).
            plan.training.fp8ParamGather = plan.training.precision == Precision::FP8 || plan.training.precision == Precision::MXFP8;
            if (model.contains(QLatin1String("tokendrop")))
                plan.training.capacityFactor = 1.0;
            if (t.number(r, "fsdp") > 1)
                plan.parallel.zeroStage = 3;
            // DeepSeek-V3's recipe keeps Adam's moments in BF16 and the main parameters in FP32 (Megatron-Core's
            // precision-aware optimizer) in every release read here: the performance scripts build on the library
            // recipe (r0.1.0 src/megatron/bridge/recipes/deepseek/deepseek_v3.py pretrain_config, lines 241-244;
            // v0.4.0 deepseek_v3_pretrain_config, lines 161-165; v0.6.0 recipes/deepseek/deepseek_v3.py aliases
            // h100/deepseek_v3.py deepseek_v3_pretrain_1024gpu_h100_bf16_config, lines 206-210).
            if (plan.model.isMla())
                plan.training.optimizerMoments = MomentFormat::Bf16;
            // Kimi K2's rows trained with Muon: the performance scripts' --optimizer_type "Defaults to muon" (v0.3.1 to
            // v0.5.0 scripts/performance/argument_parser.py; configs/kimi/kimi_llm_pretrain.py passes it on), and the
            // library recipe then takes distributed_muon_with_cosine_annealing (recipes/utils/optimizer_utils.py:
            // optimizer "dist_muon", the layer-wise distributed optimizer; muon_tp_mode "blockwise"; 5 Newton-Schulz
            // steps) with overlap_param_gather off, "Muon requires both off" (recipes/kimi/kimi_k2.py, v0.4.0 line 193).
            if (model == QLatin1String("Kimi_K2")) {
                plan.training.optimizer = Optimizer::Muon;
                plan.training.muonTpMode = MuonTpMode::Blockwise;
                plan.parallel.zeroStage = 1;
                plan.parallel.overlapParamGather = false;
                // With Muon, MXFP8 gathers the parameters in BF16: "WAR: MXFP8's fp8_param_gather and
                // reuse_grad_buf_for_mxfp8_param_ag require DistributedOptimizer infrastructure, incompatible with
                // Muon's LayerWiseDistributedOptimizer" (set_kimi_k2_common_configs, configs/kimi/kimi_llm_pretrain.py
                // lines 35-44, v0.3.1 to v0.5.1: every Kimi K2 row's release).
                if (plan.training.precision == Precision::MXFP8)
                    plan.training.fp8ParamGather = false;
            }
            if (s)
                applyRecipeSettings(plan, settings, s);
            // Every modelled MoE recipe fuses the router and the permutation: moe_router_fusion in the performance
            // configs of DeepSeek-V3 and Qwen3 from r0.1.0 (deepseek_v3_llm_pretrain.yaml line 21,
            // qwen3_*_llm_pretrain.yaml line 22), GPT-OSS 120B from v0.2.0 and Kimi-K2 from v0.3.1
            // (scripts/performance/configs/<model>/<model>_llm_pretrain.py; perf_recipes/ at v0.6.0; only GPT-OSS 20B,
            // not modelled, turns both off); moe_permute_fusion in the models' providers or bridges (qwen_provider.py,
            // gpt_oss_provider.py, deepseek_provider.py from Transformer Engine 2.1, kimi_bridge.py).
            // Nemotron 3 Nano's library recipe, on which its performance configs build, turns the router fusion off
            // (src/megatron/bridge/recipes/nemotronh/nemotron_3_nano.py: cfg.model.moe_router_fusion = False, line 86
            // at v0.3.1, 126 at v0.4.0-v0.5.1; recipes/nemotronh/gb200/nemotron_3_nano.py line 94 at v0.6.0) and
            // keeps the permutation fusion (lines 87 and 127).
            plan.training.moeRouterFusion = plan.model.isMoe() && !plan.model.isHybrid();
            plan.training.moePermuteFusion = plan.model.isMoe();
            // GPT-OSS's rotary embedding runs unfused: its provider sets position_embedding_type "yarn"
            // (models/gpt_oss/gpt_oss_provider.py line 59 at v0.2.0 and v0.3.0, gpt_oss_bridge.py line 65 from
            // v0.4.0), and GPTModelProvider.provide turns apply_rope_fusion off for any type but "rope"
            // (utils/fusions.py validate_rope_fusion_compatibility, called at gpt_provider.py line 199 at v0.2.0,
            // 229 at v0.6.0), after the performance overrides have set it (utils/overrides.py: apply_rope_fusion =
            // True for every recipe).
            plan.training.fusedRope = model != QLatin1String("GPT OSS 120B");
            // Nemotron 3 Super's NVFP4 recipe keeps its last 14 layers in BF16 (first_last_layers_bf16 with
            // num_layers_at_end_in_bf16 14, num_layers_at_start_in_bf16 the MixedPrecisionConfig's 0):
            // scripts/performance/configs/nemotronh/nemotron_3_llm_pretrain.py lines 48-50 at v0.4.0;
            // nemotron_3_super_bf16_with_nvfp4_mixed (training/mixed_precision.py lines 413-421 at v0.4.0, 421-429 at
            // v0.5.0), which nemotron_3_llm_pretrain.py line 43 takes at v0.5.0 and perf_recipes/nemotronh/common.py
            // line 67 at v0.6.0. Its MXFP8 recipe keeps none (bf16_with_mxfp8_mixed).
            // The same recipe loads a per-module quantization file that keeps every layer's attention projections
            // ("*.linear_qkv", "*.linear_proj"), the latent projections ("*mlp.fc[12]_latent_proj") and the MTP
            // module ("mtp.*") in BF16 (te_quant.cfg beside nemotron_3_llm_pretrain.py, loaded at its line 51 at
            // v0.4.0 and 46 at v0.5.0; perf_recipes/nemotronh/<system>/nemotronh.py at v0.6.0, the same file). Its
            // Mamba out-projections in MXFP8 are not modelled (they run at the plan's NVFP4 here).
            if (model == QLatin1String("Nemotron_3_Super") && plan.training.precision == Precision::NVFP4) {
                plan.training.bf16LayersAtEnd = 14;
                plan.training.bf16AttentionProjections = true;
                plan.training.bf16LatentProjections = true;
                plan.training.bf16MtpModules = true;
            }
            // Deferred output-layer weight gradients: only 25.09's (r0.1.0) dense pretraining recipes keep them, the
            // library's CommOverlapConfig default when the performance script passes none (run_script.py lines 50-54;
            // recipes/llama/llama3_70b.py lines 219-225, limit 22; llama31_405b.py lines 239-240, limit 50), and
            // not under Megatron-FSDP (utils/helpers.py lines 80-85). From v0.2.0 the pretraining recipes'
            // CommOverlapConfig sets neither (recipes/llama/llama3.py; only the 405B SFT recipe defers).
            if (t.at(r, "release") == QLatin1String("25.09") && !plan.model.isMoe() && plan.parallel.pipeline > 1 &&
                plan.parallel.zeroStage < 3) {
                plan.training.deferEmbeddingWgrad = true;
                plan.training.wgradDeferralLimit = model.startsWith(QLatin1String("LLAMA3.1_405B")) ? 50 : 22;
            }
            // The SFT rows (26.06, v0.5.0): llama3_70b_sft_config_<system> builds on the library's
            // llama3_70b_sft_config and sets CommOverlapConfig(tp_comm_overlap=TP > 1,
            // defer_embedding_wgrad_compute=True, wgrad_deferral_limit=22) (scripts/performance/configs/llama/
            // llama3_llm_finetune.py lines 187-191 for H100, the same in the GB200 and GB300 functions). The data
            // are the harness's default, `--data mock` (argument_parser.py lines 322-328; README: "Default
            // mock"), which overrides.py replaces the recipe's dataset with for an LLM: whole 4,096-token
            // sequences, not packed SQuAD examples, so no document length is set.
            if (sft && plan.parallel.pipeline > 1) {
                plan.training.deferEmbeddingWgrad = true;
                plan.training.wgradDeferralLimit = 22;
            }
            const auto [first, last] = plan.model.isMla() && plan.model.layers == 61
                                           ? bridgeDeepSeekLayout(plan.parallel.pipeline, plan.parallel.virtualStages)
                                           : std::pair<std::int64_t, std::int64_t>{0, 0};
            if ((!s || settings.number(s, "first_stage_layers") <= 0) && first > 0) {
                plan.parallel.firstStageLayers = first;
                plan.parallel.lastStageLayers = last;
            } else if (!s || settings.number(s, "first_stage_layers") <= 0) {
                nemoStageSplit(plan);
            }
            setCluster(plan, device, gpus, rack ? 4 : 8);
            if (rack)
                plan.cluster.scaleUpDomain = gpus % 64 == 0 ? 64 : std::min<std::int64_t>(72, gpus);
            return plan;
        };
        // Cells carried over from the previous release while the throughput was measured anew on the release's
        // container (tools/bridge_recipe_settings.py, carried_over): the recipe its tag ships is read. 26.02.01's
        // H100 Qwen3-30B-A3B line prints 26.02's PP 2, VP 12, EP 8 at 1.77x 26.02's throughput (every other line
        // both print alike moves 0.98-1.08x), and v0.3.1's recipe is EP 16 over HybridEP (4a6450755, 23 February
        // 2026, "Update Qwen3 30B H100 Base Configs with HybridEP"), the recipe 26.04 to 26.06 print and run at
        // the same rate (docs/CALIBRATION.md, "Cells carried over").
        const bool shipped = s && settings.at(s, "match").startsWith(QLatin1String("the release's recipe"));
        Plan plan = shipped ? build(settings, s) : build(t, r);
        // A printed layout that cannot run is a table error: where the summary's layout differs from its
        // release's recipe for the model, system and precision (match "settings") and its memory peak is above
        // the device's capacity even at the low end of the estimate's 80% memory band, while the recipe's
        // layout fits, the recipe's layout is read. 26.02.01's GB300 NVFP4 and MXFP8 Llama 3 70B lines repeat
        // the FP8 line's MBS 2 and VP n/a (and NVFP4 its PP 1: 70B parameters' states unsharded on one 288 GB
        // GPU), while LLAMA3_70B_PRETRAIN_CONFIG_GB300_{NVFP4,FP8_MX}_V2 at that release's branch (v0.3.1,
        // configs/llama/llama3_workload_base_configs.py lines 219-231) and the 26.02 and 26.04 summaries have
        // PP 4, VP 5, MBS 1 (docs/CALIBRATION.md, "Every row read from its release").
        // A printed layout Megatron-Core refuses cannot have run either: 25.11's GB300 DeepSeek-V3 lines print
        // PP 2, VP 4 for 61 layers, a split deepseek_v3.py's layout_map has no entry for at v0.2.0 (lines 235-250)
        // with uneven stages off (lines 252-255), which transformer_block.py's get_num_layers_to_build refuses;
        // 25.09's GB200 FP8-MX line prints EP 64 over the 32 ranks of a PP 8 stage, which parallel_state.py's
        // initialize_model_parallel refuses. Their release's recipe (PP 4, VP 4, EP 64, the settings row) is read
        // when it runs and fits.
        if (s && settings.at(s, "match").startsWith(QLatin1String("settings"))) {
            const Estimate printed = estimate(plan, io::builtinCatalog());
            const double low = printed.memory.peakBytes * (1.0 - detailsOf(printed).accuracy.memoryBand80);
            if (!printed.valid || low > printed.memory.capacityBytes) { // refused, or cannot fit
                Plan recipe = build(settings, s);
                const Estimate read = estimate(recipe, io::builtinCatalog());
                if (read.valid && read.memory.fits)
                    plan = std::move(recipe);
            }
        }
        const double tokensPerSecond = t.number(r, "tokens_per_s_per_gpu") * double(gpus);
        const Problems problems = validatePlan(plan, io::builtinCatalog());
        if (const Problem *p = firstError(problems); p || tokensPerSecond <= 0 || plan.parallel.data < 1) {
            if (skipped)
                *skipped << "bridge " + id + ": " + (p ? QString::fromStdString(p->key + ": " + io::problemMessage(*p)) : QStringLiteral("no layout"));
            continue;
        }
        // Rows the summary itself footnotes as a software regression are reported, not modelled: the
        // archive's [^gpt-oss-note], "Performance regression in GPT-OSS 120B pre-training is a known issue
        // (NVIDIA/cudnn-frontend issue 256). It will be resolved with the next container release."
        static const QStringList regressions{QStringLiteral("gpt-oss-note")};
        const bool regression = regressions.contains(t.at(r, "footnotes"));
        // Hybrid Mamba-Transformer models (Nemotron 3 Nano) are a group of their own: their Mamba-2 blocks are
        // modelled from their kernels' work and never fitted (docs/CALIBRATION.md, "Hybrid Mamba-Transformer models").
        // The SFT rows are a group of their own, never fitted (calibrate.cpp), as the hybrid models' are.
        const char *group = sft                      ? "bridge-sft"
                            : plan.model.isHybrid() ? "bridge-hybrid"
                            : plan.model.isMoe()    ? "bridge-moe"
                                                    : "bridge";
        const double seconds = double(plan.training.globalBatch) * double(plan.model.seqLen) / tokensPerSecond;
        rows.push_back({group, id, plan, seconds, !regression});
    }
}

/// NeMo long-context table: model TFLOP/s per GPU with context parallelism at the given layout (Llama 3 8B
/// FP8 on B200, Llama 2 7B FP8 on H100), one sequence per micro-batch. The layout is read as printed
/// (TP x PP x DP x CP GPUs): on the H100 rows it equals the GPU column; on the B200 rows it is a quarter of
/// it, and only the printed DP divides the global batch (GPUs / (TP x PP x CP) would not at 512K and 1M),
/// so the GPU column is taken to be the error. TFLOP/s per GPU does not depend on which it is except
/// through the data-parallel reduction. Step time = model FLOPs per step (NVIDIA's formula: the s^2 term
/// in full) / (GPUs x TFLOP/s).
void nemoLongContext(std::vector<Row> &rows)
{
    const Table t(QStringLiteral("nemo_long_sequence_context_parallel.csv"));
    for (std::size_t r = 1; r < t.size(); ++r) {
        const QString name = t.at(r, "model_precision_system");
        const bool b200 = name.contains(QLatin1String("B200"));
        const QString id = t.at(r, "row_id") + ' ' + name + ' ' + t.at(r, "seq_len_k") + "K";
        Plan plan = test::presetPlan(nemoPreset(name), layoutCount(t, r, "tp"), layoutCount(t, r, "pp"), 1, 1,
                                     std::int64_t(t.number(r, "global_batch_size")), b200 ? "b200" : "h100-sxm5-80gb");
        plan.name = id.toStdString();
        plan.model.seqLen = std::int64_t(t.number(r, "seq_len_k")) * 1024;
        plan.parallel.context = layoutCount(t, r, "cp");
        plan.parallel.data = layoutCount(t, r, "dp");
        const std::int64_t gpus = plan.parallel.tensor * plan.parallel.pipeline * plan.parallel.context * plan.parallel.data;
        nemoTraining(plan, QStringLiteral("FP8"));
        setCluster(plan, b200 ? "b200" : "h100-sxm5-80gb", gpus, 8);
        const double modelFlops = 3.0 * modelForwardFlopsPerSequence(plan.model) * double(plan.training.globalBatch);
        rows.push_back({"nemo-long-context", id, plan, modelFlops / (double(gpus) * t.number(r, "tflops_per_gpu_with_cp") * 1e12)});
    }
}

/// Qi et al. 2024 (Zero Bubble Pipeline Parallelism), Tables 3-5, on Megatron-LM (their fork) as the
/// paper's launch script ran it: examples/pretrain_zero_bubble.sh on the fork's "arxiv" branch (commit
/// f68d3879, "for arxiv paper", 2023-11-29): --fp16, --seq-length 1024, no --use-flash-attn (the peaks are
/// those of stored score matrices), no --sequence-parallel, no distributed optimizer, no recomputation,
/// t = d = 1, LAYERS = 4p - 2 with --allow-padding-num-layers (the first and last stage one layer short);
/// vocabulary 32000 (the fork's sentencepiece tokenizer). The main branch's script of the same name, which
/// passes --use-flash-attn, was added on 2024-08-19 (fa0c4399), after the history was squashed, for later runs
/// (sequence 4096, grouped-query attention, t = 2).
/// 1F1B-I runs one layer per model chunk; ZB-1p keeps at most p micro-batches in flight, as 1F1B and
/// ZB-H1 do (its memory limit, Sec. 3.1), so it is planned as zb-h1; ZB-2p, the fork's automatic schedule
/// at twice that limit (--zero-bubble-max-pending-backward 2p, the fork's README), as zb-h2, the handcrafted
/// schedule with the same limit (Sec. 3.2: "2p - 1" forwards in flight on the first stage).
/// The printed "GB" is GiB: the arxiv branch's report_memory (megatron/utils.py) prints torch's allocated,
/// max allocated, reserved and max reserved over 1024^2 ("MB"); read as the reserved peak,
/// docs/CALIBRATION.md says why.
/// Row r of the zero-bubble table as a plan, its id in `id`.
Plan zeroBubblePlan(const Table &t, std::size_t r, QString &id)
{
    const QString schedule = t.at(r, "schedule");
    id = t.at(r, "row_id") + ' ' + t.at(r, "model") + ' ' + schedule + " m=" + t.at(r, "num_microbatches");
    Plan plan;
    plan.name = id.toStdString();
    const auto layers = std::int64_t(t.number(r, "num_layers")), p = std::int64_t(t.number(r, "pipeline_parallel"));
    plan.model = megatronGpt(layers, std::int64_t(t.number(r, "hidden_size")), std::int64_t(t.number(r, "attention_heads")),
                             32000, std::int64_t(t.number(r, "seq_len")));
    plan.training.precision = Precision::FP16;
    plan.training.microBatch = std::int64_t(t.number(r, "microbatch_size"));
    plan.training.globalBatch = std::int64_t(t.number(r, "global_batch_size_seqs"));
    plan.parallel.pipeline = p;
    const std::int64_t perStage = (layers + 2) / p;
    plan.parallel.firstStageLayers = perStage - 1;
    plan.parallel.lastStageLayers = perStage - 1;
    plan.parallel.schedule = schedule == QLatin1String("1F1B-I")  ? Schedule::Interleaved
                             : schedule == QLatin1String("ZB-1p") ? Schedule::ZeroBubbleH1
                             : schedule == QLatin1String("ZB-2p") ? Schedule::ZeroBubbleH2
                                                                  : Schedule::OneFOneB;
    if (plan.parallel.schedule == Schedule::Interleaved)
        plan.parallel.virtualStages = perStage;
    setCluster(plan, "a100-sxm4-80gb", p, 8);
    return plan;
}

void zeroBubbleMemory(std::vector<MemoryRow> &rows)
{
    const Table t(QStringLiteral("zero_bubble_pipeline_A100.csv"));
    for (std::size_t r = 1; r < t.size(); ++r) {
        if (t.at(r, "measured_peak_memory_gb").isEmpty())
            continue;
        QString id;
        const Plan plan = zeroBubblePlan(t, r, id);
        rows.push_back({"zero_bubble", id, plan, t.number(r, "measured_peak_memory_gb") * units::GiB, MemoryKind::Reserved});
    }
}

/// DLPerf's OneFlow GPT rows print nvidia-smi's MiB (the validation README): device-used, of OneFlow's own
/// allocator, so reported beside the others.
void dlperfMemory(std::vector<MemoryRow> &rows)
{
    std::vector<Row> steps;
    dlperf(steps);
    const Table t(QStringLiteral("dlperf_gpt_V100_megatron_oneflow.csv"));
    for (std::size_t r = 1; r < t.size(); ++r) {
        const double mib = t.number(r, "gpu_memory_mib");
        if (mib > 0)
            rows.push_back({"dlperf", steps[r - 1].id, steps[r - 1].plan, mib * 1024.0 * 1024.0, MemoryKind::Device, false});
    }
}

/// torchao's float8 and MX training benchmarks of Llama 3 8B with torchtitan on one node of 8 GPUs
/// (torchao_torchtitan_llama3_8b.csv, each row's launch script and torchtitan commit in its notes): FSDP2 over
/// 8, one sequence of 8,192 tokens, torch.compile, per-op selective checkpointing, expandable segments on
/// CUDA (torchtitan's run_train.sh), torchtitan's logged "memory: ... GiB", the reserved peak (the scripts'
/// parse_torchtitan_logs.py). The H100 rows ran before torchtitan compiled its loss (bbb1b616e, 2025-04-02;
/// until then "TODO: compiling loss function causes CUDA errors, turning off for now"), the later ones compile
/// it with the model. Memory only: the B200 parts were power limited by an unstated amount, the H100 part is
/// not named.
void torchaoMemory(std::vector<MemoryRow> &rows)
{
    const Table t(QStringLiteral("torchao_torchtitan_llama3_8b.csv"));
    for (std::size_t r = 1; r < t.size(); ++r) {
        const QString recipe = t.at(r, "recipe");
        const QString id = t.at(r, "row_id") + " Llama 3 8B " + t.at(r, "gpu") + ' ' + recipe;
        const auto local = std::int64_t(t.number(r, "local_batch_size"));
        const std::string device = t.at(r, "device").toStdString();
        Plan plan = test::presetPlan("llama3-8b", 1, 1, 8, local, 8 * local, device.c_str());
        plan.name = id.toStdString();
        plan.model.seqLen = std::int64_t(t.number(r, "seq_len"));
        torchtitanLlamaSoftware(plan);
        plan.training.compile = true;
        plan.training.lossKernel = t.at(r, "loss") == QLatin1String("eager") ? LossKernel::Eager : LossKernel::Auto;
        // run_train.sh sets expandable_segments:True; PyTorch's ROCm builds took no expandable segments until
        // pytorch/pytorch#173330 (relanded as #177974, March 2026), so the MI300X runs of August 2025 ran without.
        plan.training.expandableSegments = device != "mi300x";
        plan.training.recompute = Recompute::Ops;
        if (device == "b200") {
            // torchtitan put cuDNN's SDPA kernel first on compute capability 10 (models/attention.py,
            // ScaledDotProductAttention._init_backend at 6fc499f6f, since 3b85aa31f "Use cudnn backend on B200"),
            // and its op-level policy's save list held the flash and memory-efficient kernels but not cuDNN's
            // (models/llama3/infra/parallelize.py, _save_list at 6fc499f6f; added by b39377f9f, 2025-12-01): the
            // kernel's output was dropped and the kernel rerun in backward.
            plan.training.attentionKernel = AttentionKernel::Fused;
            plan.training.recomputeAttention = true;
        }
        plan.training.precision = recipe.startsWith(QLatin1String("mxfp8")) ? Precision::MXFP8
                                  : recipe.startsWith(QLatin1String("float8"))  ? Precision::FP8
                                                                                : Precision::BF16;
        plan.training.fp8Recipe = recipe.contains(QLatin1String("rowwise")) ? Fp8Recipe::Rowwise : Fp8Recipe::Tensorwise;
        plan.training.fp8ParamGather = recipe.contains(QLatin1String("all-gather"));
        setCluster(plan, device.c_str(), 8, 8);
        rows.push_back({"torchao", id, plan, t.number(r, "measured_peak_memory_gib") * units::GiB, MemoryKind::Reserved});
    }
}

} // namespace

/// The cards' step is the mean of the last ten of 100 logged steps (last_10_steps_step_time_ms_avg); the
/// sequence is 4,096 on every one (the command's --seq_length or the recipe's, and tokens/s per GPU x GPUs x step
/// over the global batch says the same). Each run's vocabulary is read back from its logged model TFLOP/s through
/// Bridge's FLOP formula (training/utils/flop_utils.py), since the cards' tokenizer can resize it.
///  - qwen3-8b (bridge 619cc20bd, qwen3_8b_pretrain_16gpu_h100_bf16_config): TP 1 DP 16, global batch 1,024,
///    Transformer Engine's cross-entropy; 25.070 s; vocabulary 151,936 by its TFLOP/s.
///  - nemotron-3-nano-4b (nemotron_3_nano_4b_pretrain_8gpu_h100_bf16_config): TP 1 DP 8, global batch 1,024,
///    Megatron-Core's native fused cross-entropy, gradients reduced in BF16; 26.775 s; vocabulary 131,072.
///  - nemotron-3-super-120b-a12b (bridge ffeb5a7a, nemotron_3_super_pretrain_config, recipes/nemotronh/h100/
///    nemotron_3_super.py _nemotron_3_super_pretrain_64gpu_h100_bf16_config): TP 1, PP 2, EP 32, global batch
///    1,280, HybridEP, expert capacity 1.10 with the inputs padded to it (so the busiest expert's load is 1.10,
///    whatever the free routing did), selective recomputation of layernorm, moe_act, moe and core_attn, eager,
///    the precision-aware optimizer with BF16 moments and gradients and FP16 main parameters, neither overlap;
///    29.369 s; vocabulary 131,072 (use_tokenizer_vocab_size off). The card's performance run of the same commit
///    (nemotron_3_super_pretrain_64gpu_h100_bf16_config, "forced routing ... 1.10x fixed expert capacity"):
///    27.589 s.
///  - deepseek-v3 (the card's pretrain_performance on H100, bridge 79308d0d, perf_recipes/deepseek/h100/
///    deepseek_v3.py deepseek_v3_pretrain_1024gpu_h100_bf16_config over the library's 1024-GPU recipe and
///    perf_recipes/deepseek/common.py): TP 2 with sequence parallelism, PP 8 with 4 virtual stages laid out
///    "Et|(tt|)*30mL" (7, 8 x 6 and 6 decoder layers a rank, the MTP module and loss last), EP 64, global batch
///    16,384, forced balance, recomputation of mla_up_proj and mlp, the router and permutation fused, HybridEP
///    (apply_flex_dispatcher_backend turns the recipe's backend on for Hopper), BF16 moments and main gradients,
///    Transformer Engine's cross-entropy, the gradient reduction not overlapped, expandable segments; 61.756 s.
///  - qwen3-30b-a3b (bridge 5b9d9cf5, qwen3_30b_a3b_pretrain_16gpu_h100_bf16_config in recipes/qwen/h100/
///    qwen3_moe.py): TP 1, EP 16, DP 16, global batch 1,024, HybridEP, Transformer Engine graphs of moe_router and
///    moe_preprocess, router and permutation fused, gradients reduced in BF16, Transformer Engine's cross-entropy;
///    30.290 s; vocabulary 151,936. Free routing (the card sets moe_router_force_load_balancing false) with
///    Qwen3's auxiliary loss at 1e-3 (models/qwen/qwen3_moe_bridge.py): not modelled.
///  - gpt-oss-20b and gpt-oss-120b (gptOssCardPlan): EP 4 on 16 GPUs and EP 16 on 64; 22.401 s and 16.665 s. Free
///    routing with no balancing loss at all (the GPT-OSS bridge sets moe_router_load_balancing_type "none"), 100
///    steps from a random start: not modelled, the busiest expert's load is unknown.
std::vector<Row> loadBridgeCardRows()
{
    std::vector<Row> rows;
    Plan qwen = bridgeH100Plan("qwen3-8b", 1, 1, 16, 1024);
    qwen.model.seqLen = 4096;
    qwen.training.lossKernel = LossKernel::TransformerEngine;
    rows.push_back({"bridge-card", "qwen3-8b H100 x16", qwen, 25.070});

    Plan nano = bridgeH100Plan("nemotron-3-nano-4b", 1, 1, 8, 1024);
    nano.training.fp32Gradients = false; // the recipe's grad_reduce_in_fp32=False
    rows.push_back({"bridge-card", "nemotron-3-nano-4b H100 x8", nano, 26.775});

    Plan superCard = bridgeH100Plan("nemotron-3-super-120b-a12b", 1, 2, 32, 1280);
    superCard.model.seqLen = 4096;
    superCard.training.recompute = Recompute::Selective;
    superCard.training.recomputeMoe = true;
    superCard.training.recomputeExpertActivation = true;
    superCard.training.capacityFactor = 1.10;
    superCard.training.expertImbalance = 1.10;
    superCard.training.moePermuteFusion = true;
    superCard.training.optimizerMoments = MomentFormat::Bf16;
    superCard.training.masterWeights = MasterFormat::Fp16;
    superCard.training.fp32Gradients = false;
    superCard.parallel.expert = 32;
    superCard.parallel.expertTensor = 1;
    superCard.parallel.expertDispatcher = ExpertDispatcher::HybridEp;
    superCard.parallel.overlapGradReduce = false;
    superCard.parallel.overlapParamGather = false;
    rows.push_back({"bridge-card", "nemotron-3-super H100 x64", superCard, 29.369});
    // Its performance twin (nemotron_3_super_pretrain_64gpu_h100_bf16_config at the same commit): the same
    // settings with forced routing; the 1.10 capacity pads every expert's input either way.
    rows.push_back({"bridge-card", "nemotron-3-super H100 x64 forced routing", superCard, 27.589});

    Plan deepSeek = bridgeH100Plan("deepseek-v3", 2, 8, 64, 16384);
    deepSeek.model.seqLen = 4096;
    deepSeek.training.recompute = Recompute::Selective;
    deepSeek.training.recomputeMlaUpProjection = true;
    deepSeek.training.recomputeDenseMlp = true;
    deepSeek.training.sequenceParallel = true;
    deepSeek.training.moeRouterFusion = true;
    deepSeek.training.moePermuteFusion = true;
    deepSeek.training.optimizerMoments = MomentFormat::Bf16;
    deepSeek.training.fp32Gradients = false;
    deepSeek.training.lossKernel = LossKernel::TransformerEngine;
    deepSeek.training.expandableSegments = true;
    deepSeek.parallel.schedule = Schedule::Interleaved;
    deepSeek.parallel.virtualStages = 4;
    deepSeek.parallel.stageLayers = {7, 8, 8, 8, 8, 8, 8, 6};
    deepSeek.parallel.expert = 64;
    deepSeek.parallel.expertTensor = 1;
    deepSeek.parallel.expertDispatcher = ExpertDispatcher::HybridEp;
    deepSeek.parallel.overlapGradReduce = false;
    rows.push_back({"bridge-card", "deepseek-v3 H100 x1024", deepSeek, 61.756});

    Plan qwenMoe = bridgeH100Plan("qwen3-30b-a3b", 1, 1, 16, 1024);
    qwenMoe.model.seqLen = 4096;
    qwenMoe.training.fp32Gradients = false;
    qwenMoe.training.lossKernel = LossKernel::TransformerEngine;
    qwenMoe.training.moeRouterFusion = true;
    qwenMoe.training.moePermuteFusion = true;
    qwenMoe.training.cudaGraphs = CudaGraphs::Router;
    qwenMoe.parallel.expert = 16;
    qwenMoe.parallel.expertTensor = 1;
    qwenMoe.parallel.expertDispatcher = ExpertDispatcher::HybridEp;
    rows.push_back({"bridge-card", "qwen3-30b-a3b H100 x16 free routing", qwenMoe, 30.290, false});

    rows.push_back({"bridge-card", "gpt-oss-20b H100 x16 free routing", gptOssCardPlan("gpt-oss-20b", 2, 4), 22.401, false});
    rows.push_back({"bridge-card", "gpt-oss-120b H100 x64 free routing", gptOssCardPlan("gpt-oss-120b", 8, 16), 16.665, false});
    return rows;
}

std::vector<MemoryRow> loadMemoryRows(QStringList *skipped)
{
    std::vector<MemoryRow> rows;
    zeroBubbleMemory(rows);
    dlperfMemory(rows);
    // torchtitan's reserved peaks (metrics.py: reserved_bytes.all.peak, in GiB).
    std::vector<Row> steps;
    torchtitan(steps, skipped, &rows);
    torchaoMemory(rows);
    return rows;
}

ModelSpec megatronGpt(std::int64_t layers, std::int64_t hidden, std::int64_t heads, std::int64_t vocab, std::int64_t seq)
{
    return test::gptModel(layers, hidden, heads, vocab, seq);
}

std::vector<Row> loadRows(QStringList *skipped)
{
    std::vector<Row> rows;
    narayanan(rows, skipped);
    megatron2020(rows);
    dlperf(rows);
    llmFoundry(rows, skipped);
    dgxc(rows, skipped);
    dgxcHeldOut(rows);
    nemoLongContext(rows);
    return rows;
}

std::vector<Row> loadPytorchRows(QStringList *skipped)
{
    std::vector<Row> rows;
    torchtitan(rows, skipped);
    // torchtitan's async-TP benchmark (June 2025): the same layouts with and without async TP
    torchtitan(rows, skipped, nullptr, QStringLiteral("torchtitan_async_tp_h100_2025-06.csv"),
               QStringLiteral("torchtitan-asynctp"));
    llmFoundryBenchmarks(rows, skipped);
    automodel(rows, skipped);
    return rows;
}

std::vector<Row> loadZeroBubbleRows()
{
    // The same runs' throughput, "samples per GPU per second" (Tables 3-5): the step is the global batch over
    // that rate times the GPUs.
    std::vector<Row> rows;
    const Table t(QStringLiteral("zero_bubble_pipeline_A100.csv"));
    for (std::size_t r = 1; r < t.size(); ++r) {
        const double rate = t.number(r, "measured_samples_per_gpu_per_s");
        if (!(rate > 0))
            continue;
        QString id;
        const Plan plan = zeroBubblePlan(t, r, id);
        const double gpus = double(plan.cluster.gpus());
        rows.push_back({"zero_bubble", id, plan, double(plan.training.globalBatch) / (rate * gpus)});
    }
    return rows;
}

std::vector<Row> loadBridgeRows(QStringList *skipped)
{
    std::vector<Row> rows;
    megatronBridge(rows, skipped);
    return rows;
}

/// NVIDIA's proxy configurations run the full model's layout on fewer layers than its preset, and their READMEs
/// say they are no tuned layout: "Proxy configs are not realistic and were created to allow fit of Grok model to
/// smaller number of GPUs than intended" (dgxc-benchmarking grok1/README_314b.md line 78 at v24.11.1 and v25.02,
/// below 512 GPUs; llama3.1/README_405b.md line 74 the same of Llama 3.1 405B below 576 GPUs; v25.04's
/// llama3.1/README.md labels the same rows "405b-Proxy"). Empty for any other layout.
static QString untunedReason(const Plan &plan)
{
    static const std::map<std::string, const char *> readmes{
        {"grok-1", "grok1/README_314b.md line 78"}, {"llama3.1-405b", "llama3.1/README_405b.md line 74"}};
    const auto readme = readmes.find(plan.model.presetId);
    const ModelSpec *full = io::builtinCatalog().model(plan.model.presetId);
    if (readme == readmes.end() || !full || plan.model.layers >= full->layers)
        return {};
    return QStringLiteral("a proxy configuration (%1 of %2 layers): \"Proxy configs are not realistic\" "
                          "(dgxc-benchmarking %3)")
        .arg(plan.model.layers)
        .arg(full->layers)
        .arg(QLatin1String(readme->second));
}

std::vector<RecipeConfig> recipeConfigs(QStringList *skipped)
{
    std::vector<Row> rows;
    dgxc(rows, skipped);
    dgxcHeldOut(rows);
    megatronBridge(rows, skipped);
    std::vector<RecipeConfig> out;
    for (const Row &row : rows) {
        if (!row.modelled)
            continue;
        Plan key = row.plan;
        key.name.clear();
        const auto same = [&key](const RecipeConfig &c) {
            Plan other = c.plan;
            other.name.clear();
            return other == key;
        };
        if (auto it = std::find_if(out.begin(), out.end(), same); it != out.end()) {
            ++it->rows;
            it->measuredSeconds = std::min(it->measuredSeconds, row.measuredSeconds);
            continue;
        }
        out.push_back({row.source, row.id, row.plan, 1, row.measuredSeconds,
                       row.source.startsWith(QLatin1String("dgxc")) ? untunedReason(row.plan) : QString()});
    }
    return out;
}

RecipeSoftware recipeSoftware(const RecipeConfig &config)
{
    static const QRegularExpression tag(QStringLiteral("\\bv(\\d\\d)\\.(\\d\\d)"));
    const QRegularExpressionMatch m = tag.match(config.id);
    if (!config.source.startsWith(QLatin1String("dgxc")) || !m.hasMatch())
        return {};
    const int release = m.captured(1).toInt() * 100 + m.captured(2).toInt();
    if (release >= 2505)
        return {};
    return {false, false, release >= 2501, release >= 2501};
}

bool softwareRuns(const RecipeSoftware &software, const SearchConfig &config)
{
    if (config.offload && !software.optimizerOffload)
        return false;
    if (!software.moeFolding && config.expert > 1 &&
        (config.context > 1 || (config.expertTensor > 0 && config.expertTensor != config.tensor)))
        return false;
    if (config.zeroStage >= 2 && !software.megatronFsdp)
        return software.torchFsdp2 && config.zeroStage == 3 && config.pipeline == 1 && config.expert == 1;
    return true;
}

SearchConstraints recipeSearchConstraints(const RecipeConfig &config)
{
    SearchConstraints constraints;
    constraints.threads = 2;
    // Room to choose from where the release could not run every layout (the listed plans are re-scored with the
    // simulated schedule, so the list is kept short elsewhere).
    const RecipeSoftware software = recipeSoftware(config);
    constraints.top = software.optimizerOffload && software.megatronFsdp && software.moeFolding ? 3 : 400;
    constraints.fix("training.cuda_graphs", std::string(toString(config.plan.training.cudaGraphs)));
    constraints.fix("parallel.expert_dispatcher", std::string(toString(config.plan.parallel.expertDispatcher)));
    constraints.fix("parallel.expert_comm_overlap", config.plan.parallel.expertCommOverlap);
    constraints.allowOffload = software.optimizerOffload;
    return constraints;
}

} // namespace trainplan::validation
