#include "io/interop/Export.h"
#include "io/plan/KeyWords.h"
#include "io/interop/DeepSpeedNames.h"
#include "io/interop/LlmFoundryNames.h"
#include "io/interop/MegatronArguments.h"
#include "io/interop/TorchtitanNames.h"

#include <QJsonDocument>
#include <QJsonObject>

#include "core/common/Units.h"
#include "core/estimate/Estimate.h"
#include "core/plan/PlanKeys.h"

namespace trainplan::io {

const char *spellingOf(ExportTarget target)
{
    switch (target) {
    case ExportTarget::Megatron: return "megatron";
    case ExportTarget::NeMo: return "nemo";
    case ExportTarget::Torchtitan: return "torchtitan";
    case ExportTarget::DeepSpeed: return "deepspeed";
    case ExportTarget::LlmFoundry: return "llmfoundry";
    }
    return "";
}

std::optional<ExportTarget> exportTargetFrom(const QString &spelling)
{
    for (ExportTarget t :
         {ExportTarget::Megatron, ExportTarget::NeMo, ExportTarget::Torchtitan, ExportTarget::DeepSpeed,
          ExportTarget::LlmFoundry})
        if (spelling == QLatin1String(spellingOf(t)))
            return t;
    return std::nullopt;
}

const char *fileSuffixOf(ExportTarget target)
{
    switch (target) {
    case ExportTarget::Megatron: return "sh";
    case ExportTarget::NeMo: return "yaml";
    case ExportTarget::Torchtitan: return "toml";
    case ExportTarget::DeepSpeed: return "json";
    case ExportTarget::LlmFoundry: return "yaml";
    }
    return "";
}

namespace {

const QStringList kMegatronKeys{"training.loss_kernel",
                                "model.layers",
                                "model.hidden",
                                "model.ffn_hidden",
                                "model.heads",
                                "model.kv_heads",
                                "model.head_dim",
                                "model.seq_len",
                                "model.vocab",
                                "model.mlp",
                                "model.tied_embeddings",
                                "model.norm",
                                "model.linear_bias",
                                "model.position_embedding",
                                "model.dropout",
                                "model.experts",
                                "model.experts_per_token",
                                "model.expert_ffn_hidden",
                                "model.moe_layer_interval",
                                "model.shared_experts",
                                "model.dense_layers",
                                "model.router_groups",
                                "model.router_group_topk",
                                "model.mtp_layers",
                                "model.mtp_repeated",
                                "model.moe_latent_size",
                                "training.capacity_factor",
                                "model.attention",
                                "model.q_lora_rank",
                                "model.kv_lora_rank",
                                "model.qk_nope_head_dim",
                                "model.qk_rope_head_dim",
                                "model.v_head_dim",
                                "training.global_batch",
                                "training.micro_batch",
                                "training.precision",
                                "training.fp32_gradients",
                                "training.fp8_param_gather",
                                "training.fp8_recipe",
                                "training.recompute",
                                "training.recompute_mla_up_proj",
                                "training.recompute_moe_act",
                                "training.recompute_mlp",
                                "training.recompute_moe",
                                "training.sequence_parallel",
                                "training.flash_attention",
                                "training.recompute_layers",
                                "training.recompute_chunk",
                                "training.activation_offload_layers",
                                "training.fp8_attention",
                                "training.cuda_graphs",
                                "training.fused_expert_mlp",
                                "training.moe_paged_stash",
                                "training.moe_router_fusion",
                                "training.moe_permute_fusion",
                                "training.defer_embedding_wgrad",
                                "training.wgrad_deferral_limit",
                                "model.sliding_window",
                                "model.full_attention_interval",
                                "model.attention_sinks",
                                "training.fused_rope",
                                "training.bf16_layers_at_start",
                                "training.bf16_layers_at_end",
                                "model.hybrid_pattern",
                                "model.mamba_state_dim",
                                "model.mamba_head_dim",
                                "model.mamba_heads",
                                "model.mamba_groups",
                                "parallel.expert_comm_overlap",
                                "training.optimizer",
                                "training.muon_steps",
                                "training.muon_tp_mode",
                                "parallel.offload_optimizer",
                                "parallel.zero_stage",
                                "training.optimizer_moments",
                                "training.master_weights",
                                "parallel.tensor",
                                "parallel.pipeline",
                                "parallel.context",
                                "parallel.expert",
                                "parallel.expert_tensor",
                                "parallel.expert_dispatcher",
                                "parallel.virtual_stages",
                                "parallel.stage_layers",
                                "parallel.first_stage_layers",
                                "parallel.last_stage_layers",
                                "parallel.overlap_grad_reduce",
                                "parallel.overlap_param_gather",
                                "parallel.tensor_comm_overlap",
                                "parallel.overlap_p2p_comm",
                                "parallel.context_comm",
                                "parallel.rank_order",
                                "parallel.shard_group",
                                "cluster.nodes",
                                "cluster.gpus_per_node"};

QString num(std::int64_t v)
{
    return QString::number(v);
}

/// Megatron-Core shards within a part of the data ranks only with its distributed optimizer
/// (num_distributed_optimizer_instances); FSDP2's hybrid sharding has no Megatron-LM or NeMo flag.
QString partialShardingNote(const ParallelConfig &p)
{
    return QStringLiteral("parallel.shard_group = %1: Megatron-Core shards within a part of the data ranks only "
                          "with its distributed optimizer (ZeRO 1, --num-distributed-optimizer-instances)")
        .arg(p.shardGroup);
}

/// The keys of one target that the plan sets away from their defaults but the target cannot write.
void listNotExpressed(const Plan &plan, const QStringList &expressed, const QStringList &alsoHandled, ExportResult &out)
{
    static const Plan defaults;
    for (const PlanKey &key : planKeys()) {
        const QString path = QLatin1String(key.path);
        if (!key.access.get || !path.contains('.') || expressed.contains(path) || alsoHandled.contains(path) ||
            path.startsWith(QLatin1String("run.")))
            continue;
        if (path == QLatin1String("parallel.data") || path == QLatin1String("model.name") ||
            path == QLatin1String("model.preset"))
            continue; // derived from the GPUs; names
        const KeyValue v = key.get(plan);
        if (!(v == key.get(defaults)) && !std::holds_alternative<std::monostate>(v))
            out.notExpressed << QStringLiteral("%1: no %2 setting; set it in Trainplan")
                                    .arg(path, QString::fromLatin1(keyWords(key.path).label).toLower());
    }
}

/// parallel.stage_layers as Megatron-Core's --pipeline-model-parallel-layout: chunk c runs on stage c mod p in
/// round c / p (megatron/core/transformer/pipeline_parallel_layer_layout.py); a stage's layers spread over its
/// v chunks, the first rounds taking one more where they do not divide; the embedding opens the first chunk,
/// the MTP layers and the loss close the last: "Et*10|t*10|...|t*9L".
QString megatronLayout(const Plan &plan)
{
    const ParallelConfig &p = plan.parallel;
    const std::int64_t v = std::max<std::int64_t>(1, p.virtualStages);
    QStringList chunks;
    for (std::int64_t round = 0; round < v; ++round)
        for (std::int64_t stage = 0; stage < p.pipeline; ++stage) {
            const std::int64_t layers = plan.layersOnStage(stage);
            const std::int64_t here = layers / v + (round < layers % v ? 1 : 0);
            QString chunk = here == 1 ? QStringLiteral("t") : here > 1 ? QStringLiteral("t*%1").arg(here) : QString();
            if (round == 0 && stage == 0)
                chunk.prepend(QLatin1Char('E'));
            if (round == v - 1 && stage == p.pipeline - 1)
                chunk += QString(QLatin1Char('m')).repeated(qsizetype(plan.model.mtpLayers)) + QLatin1Char('L');
            chunks << chunk;
        }
    return chunks.join(QLatin1Char('|'));
}

/// Megatron-Core's per-layer pattern as the Python list expression it evaluates: the dense first layers,
/// then every n-th layer routed ("([0]*3+[1]*58)" for DeepSeek-V3).
QString moeLayerPattern(const ModelSpec &m)
{
    const std::int64_t n = std::max<std::int64_t>(1, m.moeLayerInterval),
                       rest = std::max<std::int64_t>(0, m.layers - m.denseLayers);
    QStringList terms;
    if (m.denseLayers > 0)
        terms << QStringLiteral("[0]*%1").arg(m.denseLayers);
    if (rest / n > 0)
        terms << (n == 1 ? QStringLiteral("[1]*%1").arg(rest)
                         : QStringLiteral("([0]*%1+[1])*%2").arg(n - 1).arg(rest / n));
    if (rest % n > 0)
        terms << QStringLiteral("[0]*%1").arg(rest % n);
    return QStringLiteral("\"(%1)\"").arg(terms.join(QLatin1Char('+')));
}


/// A whole-step graph captures dropped experts only padded to their capacity (Megatron-Core moe/README.md,
/// "CUDA Graph"): the launch file asks for the padding.
bool padsToCapacity(const Plan &plan)
{
    return plan.training.capacityFactor && plan.training.cudaGraphs == CudaGraphs::Step;
}

/// HybridEP under a whole-step graph, and the paged stash, need the rank's capacity; Trainplan does not plan its
/// factor and writes Megatron-Bridge's full-iteration recipes' (set_full_iter_cg_configs): 1.5, else none.
std::optional<double> rankCapacityFactor(const Plan &plan)
{
    const TrainingConfig &t = plan.training;
    if (plan.parallel.expertDispatcher != ExpertDispatcher::HybridEp || t.capacityFactor ||
        !(t.cudaGraphs == CudaGraphs::Step || t.moePagedStash))
        return std::nullopt;
    return 1.5;
}

/// Mixture-of-experts arguments: experts, top-k, widths, layer pattern, group-limited routing, dispatcher.
QStringList megatronMoeFlags(const Plan &plan)
{
    const ModelSpec &m = plan.model;
    using megatron::flag;
    QStringList f{flag("model.experts", m.experts), flag("model.experts_per_token", m.expertsPerToken)};
    if (m.expertFfnHidden > 0)
        f << flag("model.expert_ffn_hidden", m.expertFfnHidden);
    if (m.sharedExperts > 0)
        f << "--moe-shared-expert-intermediate-size " + num(m.sharedExperts * m.expertWidth());
    if (!m.isHybrid() && (m.moeLayerInterval != 1 || m.denseLayers > 0))
        f << "--moe-layer-freq " + moeLayerPattern(m);
    if (m.routerGroups > 0)
        f << flag("model.router_groups", m.routerGroups) << flag("model.router_group_topk", m.routerGroupTopk);
    if (m.moeLatentSize > 0)
        f << flag("model.moe_latent_size", m.moeLatentSize);
    // The routed experts as grouped GEMMs, as the plan times them (Megatron-Core's default is SequentialMLP, a
    // GEMM per local expert from Python).
    f << QStringLiteral("--moe-grouped-gemm");
    if (plan.training.capacityFactor) // token dropping (Megatron-Core's default drop policy, by probability)
        f << "--moe-expert-capacity-factor " + QString::number(*plan.training.capacityFactor);
    if (padsToCapacity(plan))
        f << QStringLiteral("--moe-pad-expert-input-to-capacity");
    f << (plan.parallel.expertDispatcher == ExpertDispatcher::DeepEp
              ? QStringLiteral("--moe-token-dispatcher-type flex --moe-enable-deepep")
          : plan.parallel.expertDispatcher == ExpertDispatcher::HybridEp
              ? QStringLiteral("--moe-token-dispatcher-type flex --moe-flex-dispatcher-backend hybridep")
              : QStringLiteral("--moe-token-dispatcher-type alltoall"));
    if (const auto rank = rankCapacityFactor(plan))
        f << "--moe-expert-rank-capacity-factor " + QString::number(*rank);
    return f;
}

/// Selective recomputation's modules (Megatron-Core's --recompute-modules names): the attention core, its
/// default, and the plan's others.
QStringList recomputeModules(const TrainingConfig &t)
{
    QStringList modules{QStringLiteral("core_attn")};
    if (t.recomputeMlaUpProjection)
        modules << QStringLiteral("mla_up_proj");
    if (t.recomputeMoe)
        modules << QStringLiteral("moe");
    else if (t.recomputeExpertActivation)
        modules << QStringLiteral("moe_act");
    if (t.recomputeDenseMlp)
        modules << QStringLiteral("mlp");
    return modules;
}

/// The model's shape: sizes, attention, MLP, norm, positions, embeddings, dropout, experts, MTP, MLA.
QStringList megatronModelFlags(const Plan &plan)
{
    const ModelSpec &m = plan.model;
    using megatron::flag;
    QStringList f{flag("model.layers", m.layers),        flag("model.hidden", m.hidden),
                  flag("model.ffn_hidden", m.ffnHidden), flag("model.heads", m.heads),
                  flag("model.seq_len", m.seqLen),       "--max-position-embeddings " + num(m.seqLen),
                  flag("model.vocab", m.vocab)};
    if (m.kvHeads != m.heads)
        f << "--group-query-attention" << flag("model.kv_heads", m.kvHeads);
    if (m.headDimension > 0)
        f << flag("model.head_dim", m.headDimension);
    f << (m.mlp == MlpKind::SwiGlu        ? QStringLiteral("--swiglu")
          : m.mlp == MlpKind::SquaredRelu ? QStringLiteral("--squared-relu")
                                          : QString());
    f << (m.norm == NormKind::RmsNorm ? QStringLiteral("--normalization RMSNorm")
                                      : QStringLiteral("--normalization LayerNorm"));
    f << (m.position == PositionEmbedding::Rotary ? QStringLiteral("--position-embedding-type rope")
          : m.position == PositionEmbedding::None ? QStringLiteral("--position-embedding-type none")
                                                  : QStringLiteral("--position-embedding-type learned_absolute"));
    if (!m.tiedEmbeddings)
        f << "--untie-embeddings-and-output-weights";
    if (!m.linearBias)
        f << "--disable-bias-linear";
    f << (m.dropout ? QStringLiteral("--attention-dropout 0.1 --hidden-dropout 0.1")
                    : QStringLiteral("--attention-dropout 0.0 --hidden-dropout 0.0"));
    if (m.isHybrid()) {
        // Megatron-Core's hybrid model: the pattern (quoted: '*' is a shell glob) and the Mamba-2 mixer's sizes; the
        // pattern's MoE layers take the experts. --hybrid-override-pattern is read from core_v0.16.0 on
        // (forwarded to --hybrid-layer-pattern since core_v0.18.0).
        f << QStringLiteral("--hybrid-override-pattern \"%1\"").arg(QString::fromStdString(m.hybridPattern))
          << flag("model.mamba_state_dim", m.mambaStateDim) << flag("model.mamba_head_dim", m.mambaHeadDim)
          << flag("model.mamba_groups", m.mambaGroups);
        if (m.mambaHeads > 0)
            f << flag("model.mamba_heads", m.mambaHeads);
    }
    if (m.isMoe())
        f << megatronMoeFlags(plan);
    if (m.mtpLayers > 0)
        f << flag("model.mtp_layers", m.mtpLayers);
    if (m.mtpLayers > 0 && m.mtpRepeated)
        f << QStringLiteral("--mtp-use-repeated-layer");
    if (m.isMla())
        f << "--multi-latent-attention" << flag("model.q_lora_rank", m.qLoraRank)
          << flag("model.kv_lora_rank", m.kvLoraRank) << flag("model.qk_nope_head_dim", m.qkNopeHeadDim)
          << flag("model.qk_rope_head_dim", m.qkRopeHeadDim) << flag("model.v_head_dim", m.vHeadDim);
    return f;
}

/// The batch and the number formats.
/// torchao's rowwise float8 in a Transformer Engine run (Megatron-LM, NeMo): written as current scaling.
QString rowwiseNote()
{
    return QStringLiteral("training.fp8_recipe = rowwise: torchao's recipe; Transformer Engine scales per tensor, per "
                          "block or per MX group (written as tensorwise current scaling)");
}

QStringList megatronPrecisionFlags(const Plan &plan, ExportResult &out)
{
    const TrainingConfig &t = plan.training;
    using megatron::flag;
    QStringList f;
    f << flag("training.micro_batch", t.microBatch) << flag("training.global_batch", t.globalBatch);
    switch (t.precision) {
    case Precision::BF16:
        f << "--bf16";
        break;
    case Precision::FP16:
        f << "--fp16";
        break;
    case Precision::FP8:
        f << "--bf16"
          << "--fp8-format hybrid";
        // delayed is Megatron-LM's default --fp8-recipe; torchao's rowwise has no Transformer Engine recipe and is
        // written as its nearest, per-tensor current scaling.
        if (t.fp8Recipe != Fp8Recipe::Delayed)
            f << "--fp8-recipe tensorwise";
        if (t.fp8Recipe == Fp8Recipe::Rowwise)
            out.notExpressed << rowwiseNote();
        break;
    case Precision::FP8Blockwise:
        f << "--bf16"
          << "--fp8-format e4m3"
          << "--fp8-recipe blockwise";
        break;
    case Precision::MXFP8:
        f << "--bf16"
          << "--fp8-format e4m3"
          << "--fp8-recipe mxfp8";
        break;
    case Precision::NVFP4: // TransformerConfig.fp4 (--fp4-format), its recipe nvfp4 by default (d98e8a64d)
        f << "--bf16"
          << "--fp4-format e2m1";
        break;
    default:
        break;
    }
    // Both counts written: a count left out is TransformerConfig's default, 1.
    if (plan.keepsBf16Layers())
        f << "--first-last-layers-bf16" << QStringLiteral("--num-layers-at-start-in-bf16 %1").arg(t.bf16LayersAtStart)
          << QStringLiteral("--num-layers-at-end-in-bf16 %1").arg(t.bf16LayersAtEnd);
    // Megatron-LM keeps and reduces BF16 training's gradients in FP32 unless told otherwise (arguments.py).
    const bool bf16Parameters = t.precision == Precision::BF16 || isLowPrecisionMatmul(t.precision);
    if (bf16Parameters && !t.fp32Gradients)
        f << "--grad-reduce-in-bf16";
    else if (t.precision == Precision::FP16 && t.fp32Gradients)
        f << "--accumulate-allreduce-grads-in-fp32";
    if (t.fp8ParamGather)
        f << megatron::flagOf("training.fp8_param_gather");
    return f;
}

/// Recomputation, as Megatron-LM's granularity, method and modules.
QStringList megatronRecomputeFlags(const TrainingConfig &t, ExportResult &out)
{
    QStringList f;
    if (t.recompute == Recompute::Ops)
        out.notExpressed << QStringLiteral(
            "training.recompute = ops: torchtitan's op-level selective checkpointing has no "
            "Megatron-LM argument (its nearest is --recompute-granularity selective)");
    if (t.recompute == Recompute::Full && t.recomputeInterval > 1)
        out.notExpressed << QStringLiteral(
                                "training.recompute_interval = %1: Megatron-LM recomputes blocks of layers, not every "
                                "k-th (--recompute-method block --recompute-num-layers is the nearest)")
                                .arg(t.recomputeInterval);
    if (t.recompute == Recompute::Full && t.recomputeLayers > 0)
        f << "--recompute-granularity full --recompute-method block --recompute-num-layers " + num(t.recomputeLayers);
    else if (t.recompute == Recompute::Full)
        f << "--recompute-granularity full --recompute-method uniform --recompute-num-layers " +
                 num(std::max<std::int64_t>(1, t.recomputeChunk));
    else if (t.recompute == Recompute::Selective)
        f << "--recompute-granularity selective"
          << "--recompute-modules " + recomputeModules(t).join(QLatin1Char(' '));
    return f;
}

/// A loss kernel Megatron-Core does not run (eager PyTorch, torch.compile's or flash-attn's) is said.
void noteForeignLossKernel(const TrainingConfig &t, ExportResult &out)
{
    if (t.lossKernel == LossKernel::Eager || t.lossKernel == LossKernel::Fused)
        out.notExpressed << QStringLiteral("training.loss_kernel = %1: Megatron-Core runs its own vocab-parallel "
                                           "cross-entropy or Transformer Engine's (te)")
                                .arg(QLatin1String(toString(t.lossKernel)));
}

/// The cross-entropy (training.loss_kernel): Megatron-LM's default is its unfused vocab-parallel kernel
/// (inplace); --cross-entropy-loss-fusion with --cross-entropy-fusion-impl te runs Transformer Engine's
/// (megatron/core/models/common/language_module/language_module.py, compute_language_model_loss).
QStringList megatronLossFlags(const TrainingConfig &t, ExportResult &out)
{
    noteForeignLossKernel(t, out);
    if (t.lossKernel == LossKernel::TransformerEngine)
        return {QStringLiteral("--cross-entropy-loss-fusion"), QStringLiteral("--cross-entropy-fusion-impl te")};
    return {};
}

QStringList megatronFlags(const Plan &plan, ExportResult &out)
{
    const ModelSpec &m = plan.model;
    const TrainingConfig &t = plan.training;
    using megatron::flag;
    QStringList f = megatronModelFlags(plan);
    f << megatronPrecisionFlags(plan, out) << megatronRecomputeFlags(t, out);
    if (t.activationOffloadLayers > 0)
        f << flag("training.activation_offload_layers", t.activationOffloadLayers);
    if (t.sequenceParallel)
        f << megatron::flagOf("training.sequence_parallel");
    if (t.flashAttention)
        f << megatron::flagOf("training.flash_attention");
    else // Megatron-Core's default backend (auto) lets Transformer Engine pick a fused kernel
        f << QStringLiteral("--attention-backend unfused");
    if (t.fp8Attention && isLowPrecisionMatmul(t.precision))
        f << megatron::flagOf("training.fp8_attention");
    // Megatron-Core's TransformerConfig: cuda_graph_impl local (per layer, cuda_graph_modules the default) or
    // full_iteration; the router alone through Transformer Engine's scopes.
    switch (t.cudaGraphs) {
    case CudaGraphs::None:
        break;
    case CudaGraphs::Router:
        f << "--cuda-graph-impl transformer_engine --cuda-graph-modules moe_router moe_preprocess";
        break;
    case CudaGraphs::Layers:
        f << "--cuda-graph-impl local";
        break;
    case CudaGraphs::Step:
        f << "--cuda-graph-impl full_iteration";
        break;
    }
    if (m.slidingWindow > 0)
        f << QStringLiteral("--window-size %1,0").arg(m.slidingWindow - 1) // keys before the query (windowLeft)
          << (m.fullAttentionInterval > 0 ? flag("model.full_attention_interval", m.fullAttentionInterval) : QString());
    if (m.attentionSinks)
        f << "--softmax-type learnable";
    if (runsUnfusedRotary(m, t))
        f << megatron::flagOf("training.fused_rope");
    if (m.isMoe() && t.fusedExpertMlp)
        f << megatron::flagOf("training.fused_expert_mlp");
    if (m.isMoe() && t.moePagedStash)
        f << megatron::flagOf("training.moe_paged_stash");
    if (m.isMoe() && t.moeRouterFusion)
        f << megatron::flagOf("training.moe_router_fusion");
    if (m.isMoe() && t.moePermuteFusion)
        f << megatron::flagOf("training.moe_permute_fusion");
    f << megatronLossFlags(t, out);
    f << QStringLiteral("--optimizer %1").arg(QLatin1String(toString(t.optimizer)));
    if (t.usesMuon())
        f << flag("training.muon_steps", t.muonSteps)
          << QStringLiteral("--muon-tp-mode %1").arg(QLatin1String(toString(t.muonTpMode)))
          << QStringLiteral("--muon-scalar-optimizer %1").arg(QLatin1String(toString(t.muonScalarOptimizer)));
    return f;
}

/// A plan's optimizer offload fraction as Megatron-Core's optimizer_offload_fraction: "1.0", "0.25".
QString offloadFractionText(double fraction)
{
    QString text = QString::number(fraction, 'g', 6);
    return text.contains(u'.') || text.contains(u'e') ? text : text + QStringLiteral(".0");
}

/// Megatron-Core's precision-aware optimizer for state kept below FP32 (megatron/training/arguments.py:
/// --exp-avg-dtype and --exp-avg-sq-dtype fp32|fp16|bf16|fp8, --main-params-dtype fp32|fp16).
QStringList precisionAwareOptimizerFlags(const TrainingConfig &t, ExportResult &out)
{
    if (t.optimizerMoments == MomentFormat::Fp32 && t.masterWeights == MasterFormat::Fp32)
        return {};
    QStringList f{QStringLiteral("--use-precision-aware-optimizer")};
    if (t.optimizerMoments != MomentFormat::Fp32)
        f << QStringLiteral("--exp-avg-dtype %1 --exp-avg-sq-dtype %1")
                 .arg(QLatin1String(toString(t.optimizerMoments)));
    if (t.masterWeights == MasterFormat::Fp16)
        f << QStringLiteral("--main-params-dtype fp16");
    else if (t.masterWeights == MasterFormat::Bf16)
        out.notExpressed << QStringLiteral(
            "training.master_weights = bf16: Megatron-Core keeps its master weights in fp32 or "
            "fp16 (Apex's DistributedFusedAdam with dtype bf16, NeMo 1's optim.dtype, keeps them in bf16)");
    return f;
}

QStringList megatronParallelFlags(const Plan &plan, ExportResult &out)
{
    using megatron::flag, megatron::flagOf;
    const ParallelConfig &p = plan.parallel;
    QStringList f{flag("parallel.tensor", p.tensor), flag("parallel.pipeline", p.pipeline),
                  flag("parallel.context", p.context)};
    if (plan.model.isMoe())
        f << flag("parallel.expert", p.expert);
    if (p.expertTensor > 0)
        f << flag("parallel.expert_tensor", p.expertTensor);
    if (p.context > 1)
        f << QStringLiteral("--cp-comm-type ") + (p.contextComm == ContextComm::AllGather  ? "all_gather"
                                                  : p.contextComm == ContextComm::AllToAll ? "a2a"
                                                                                           : "p2p");
    if (p.rankOrder == RankOrder::StagesInside)
        f << QStringLiteral("--use-tp-pp-dp-mapping");
    if (plan.listedStages())
        f << QStringLiteral("--pipeline-model-parallel-layout \"%1\"").arg(megatronLayout(plan));
    else if (p.virtualStages > 1) // a layout gives the chunks per rank itself (arguments.py: one of the three)
        f << flag("parallel.virtual_stages", p.virtualStages);
    if (p.firstStageLayers > 0)
        f << flag("parallel.first_stage_layers", p.firstStageLayers);
    if (p.lastStageLayers > 0)
        f << flag("parallel.last_stage_layers", p.lastStageLayers);
    // ZeRO 2 and 3: Megatron-FSDP's sharding strategies (--data-parallel-sharding-strategy optim_grads,
    // optim_grads_params); under framework fsdp, PyTorch's FSDP2 (--use-torch-fsdp2).
    if (p.zeroStage == 1)
        f << "--use-distributed-optimizer";
    // The partial distributed optimizer: one instance per shard group.
    if (p.zeroStage == 1 && plan.training.framework == Framework::Megatron && p.shardReplicas() > 1)
        f << QStringLiteral("--num-distributed-optimizer-instances %1").arg(p.shardReplicas());
    else if (p.shardReplicas() > 1)
        out.notExpressed << partialShardingNote(p);
    else if (p.zeroStage > 1 && plan.training.framework == Framework::Fsdp)
        f << "--use-torch-fsdp2";
    else if (p.zeroStage > 1)
        f << QStringLiteral("--use-megatron-fsdp --data-parallel-sharding-strategy %1")
                 .arg(p.zeroStage == 2 ? "optim_grads" : "optim_grads_params");
    const QStringList precisionAware = precisionAwareOptimizerFlags(plan.training, out);
    f << precisionAware;
    // The CPU optimizer needs the precision-aware optimizer (arguments.py asserts it) and offloads only the
    // fraction it is given, 0.0 by default (optimizer_config.py): the plan's, written always.
    if (p.offloadOptimizer)
        f << (precisionAware.isEmpty() ? QStringLiteral("--use-precision-aware-optimizer ") : QString()) +
                 flagOf("parallel.offload_optimizer") +
                 QStringLiteral(" --optimizer-offload-fraction ") + offloadFractionText(p.optimizerOffloadFraction) +
                 (p.overlapOffloadCopies ? QLatin1Char(' ') + flagOf("parallel.overlap_offload_copies") : QString());
    if (plan.model.isMoe() && p.expertCommOverlap)
        f << flagOf("parallel.expert_comm_overlap") + QStringLiteral(" --delay-wgrad-compute");
    for (const auto &[on, path] : {std::pair{p.overlapGradReduce, "parallel.overlap_grad_reduce"},
                                   std::pair{p.overlapParamGather, "parallel.overlap_param_gather"},
                                   std::pair{p.tensorCommOverlap, "parallel.tensor_comm_overlap"}})
        if (on)
            f << flagOf(path);
    // The interleaved schedule overlaps its transfers by default; without interleaving Megatron-LM turns the
    // overlap off (MegatronArguments.cpp).
    if (p.virtualStages > 1 && !p.overlapP2pComm)
        f << flagOf("parallel.overlap_p2p_comm");
    else if (p.virtualStages <= 1 && p.overlapP2pComm && p.pipeline > 1)
        out.notExpressed << QStringLiteral("parallel.overlap_p2p_comm = true: Megatron-LM overlaps pipeline "
                                           "transfers only under the interleaved schedule");
    if (plan.deferredWgradMicrobatches() > 0) {
        f << flagOf("training.defer_embedding_wgrad");
        if (plan.training.wgradDeferralLimit > 0)
            f << flag("training.wgrad_deferral_limit", plan.training.wgradDeferralLimit);
    }
    if (p.schedule == Schedule::GPipe || splitsBackward(p.schedule))
        out.notExpressed << QStringLiteral("parallel.schedule = %1: Megatron-LM runs 1F1B or interleaved 1F1B")
                                .arg(QLatin1String(toString(p.schedule)));
    return f;
}

QByteArray megatronScript(const Plan &plan, ExportResult &out)
{
    QStringList flags = megatronFlags(plan, out);
    flags << megatronParallelFlags(plan, out);
    flags.removeAll(QString());
    if (plan.training.framework != Framework::Megatron &&
        !(plan.training.framework == Framework::Fsdp && plan.parallel.zeroStage > 1))
        out.notExpressed << QStringLiteral("training.framework = %1: this is a Megatron-LM launch")
                                .arg(QLatin1String(toString(plan.training.framework)));
    // A hybrid model trains from pretrain_mamba.py (core_v0.16.0; from core_v0.18.0 a wrapper of pretrain_hybrid.py).
    QString s =
        QStringLiteral(
            "#!/bin/bash\n# Megatron-LM launch for: %1\n# Written by trainplan export; hardware: %2 x %3 GPUs of %4.\n"
            "# Add your data, tokenizer, learning-rate and checkpoint arguments.\n\n"
            "torchrun --nnodes %2 --nproc_per_node %3 %5 \\\n")
            .arg(QString::fromStdString(plan.name.empty() ? plan.model.name : plan.name))
            .arg(plan.cluster.nodes)
            .arg(plan.cluster.gpusPerNode)
            .arg(QString::fromStdString(plan.cluster.device),
                 plan.model.isHybrid() ? QStringLiteral("pretrain_mamba.py") : QStringLiteral("pretrain_gpt.py"));
    for (qsizetype i = 0; i < flags.size(); ++i)
        s +=
            QStringLiteral("    ") + flags[i] + (i + 1 < flags.size() ? QStringLiteral(" \\\n") : QStringLiteral("\n"));
    return s.toUtf8();
}

QByteArray deepSpeedConfig(const Plan &plan, ExportResult &out)
{
    const TrainingConfig &t = plan.training;
    const ParallelConfig &p = plan.parallel;
    QJsonObject o{{"gradient_accumulation_steps", double(plan.microbatches())},
                  {"bf16", QJsonObject{{"enabled", t.precision == Precision::BF16}}},
                  {"fp16", QJsonObject{{"enabled", t.precision == Precision::FP16}}},
                  {"optimizer", QJsonObject{{"type", t.optimizer == Optimizer::Sgd ? "SGD"
                                                     : t.usesMuon()                ? "Muon"
                                                                                   : "AdamW"}}},
                  {"zero_optimization", QJsonObject{{"contiguous_gradients", true},
                                                    {"reduce_bucket_size", p.bucketBytes / 2.0}}}};
    if (t.optimizer == Optimizer::AdaptiveMuon)
        out.notExpressed << QStringLiteral("training.optimizer = adaptive_muon: DeepSpeed's optimizers have Muon, "
                                           "not its adaptive form; written as Muon");
    deepspeed::set(o, "training.global_batch", double(t.globalBatch));
    deepspeed::set(o, "training.micro_batch", double(t.microBatch));
    deepspeed::set(o, "parallel.zero_stage", double(p.zeroStage));
    deepspeed::set(o, "parallel.overlap_grad_reduce", p.overlapGradReduce);
    deepspeed::set(o, "parallel.offload_optimizer", p.offloadOptimizer);
    if (p.offloadParameters)
        deepspeed::set(o, "parallel.offload_parameters", true);
    if (p.zeroStage == 3 && t.framework == Framework::DeepSpeed && p.shardReplicas() > 1) { // MiCS
        QJsonObject zero = o[QLatin1String("zero_optimization")].toObject();
        zero[QLatin1String("mics_shard_size")] = double(p.shardGroup);
        o[QLatin1String("zero_optimization")] = zero;
    } else if (p.shardReplicas() > 1) {
        out.notExpressed << QStringLiteral("parallel.shard_group = %1: DeepSpeed shards within a group only under "
                                           "ZeRO-3 (MiCS, mics_shard_size)")
                                .arg(p.shardGroup);
    }
    if (plan.zeroPlusPlusAllowed()) { // ZeRO++, written only when set
        if (p.zeroQuantizedWeights)
            deepspeed::set(o, "parallel.zero_quantized_weights", true);
        if (plan.secondaryGroupRanks() > 1)
            deepspeed::set(o, "parallel.zero_hpz_partition", double(p.zeroHpzPartition));
        if (p.zeroQuantizedGradients)
            deepspeed::set(o, "parallel.zero_quantized_gradients", true);
    }
    if (t.precision != Precision::BF16 && t.precision != Precision::FP16 && t.precision != Precision::FP32)
        out.notExpressed << QStringLiteral("training.precision = %1: DeepSpeed's config enables bf16 or fp16")
                                .arg(QLatin1String(toString(t.precision)));
    out.notExpressed << QStringLiteral(
        "the model (model.*): a DeepSpeed config has none; give its config.json with the import");
    if (p.tensor > 1 || p.pipeline > 1 || p.context > 1)
        out.notExpressed << QStringLiteral(
            "parallel.tensor / pipeline / context: set in the model code or launcher, not the DeepSpeed config");
    return QJsonDocument(o).toJson(QJsonDocument::Indented);
}

QString yamlBool(bool v)
{
    return v ? QStringLiteral("true") : QStringLiteral("false");
}

/// One line of a NeMo / Megatron-Bridge recipe at `indent` spaces: the key's Megatron-Core field
/// (io/interop/MegatronArguments) and its value.
QString nemoLine(int indent, std::string_view path, const QString &value)
{
    return QString(indent, QLatin1Char(' ')) + megatron::fieldOf(path) + QStringLiteral(": ") + value +
           QLatin1Char('\n');
}
QString nemoLine(int indent, std::string_view path, std::int64_t value)
{
    return nemoLine(indent, path, QString::number(value));
}
QString nemoSwitch(int indent, std::string_view path, bool value)
{
    return nemoLine(indent, path, yamlBool(value));
}

/// NeMo's model-config fields for a mixture of experts (experts, routing, dispatcher) and for selective
/// recomputation's modules.
QString nemoMoeAndRecomputeFields(const Plan &plan)
{
    const ModelSpec &m = plan.model;
    const TrainingConfig &t = plan.training;
    QString s;
    if (m.isMoe()) {
        s += nemoLine(4, "model.experts", m.experts) + nemoLine(4, "model.experts_per_token", m.expertsPerToken);
        if (m.expertFfnHidden > 0)
            s += nemoLine(4, "model.expert_ffn_hidden", m.expertFfnHidden);
        if (m.routerGroups > 0)
            s += nemoLine(4, "model.router_groups", m.routerGroups) +
                 nemoLine(4, "model.router_group_topk", m.routerGroupTopk);
        if (t.capacityFactor)
            s += QStringLiteral("    moe_expert_capacity_factor: %1\n").arg(*t.capacityFactor);
        if (padsToCapacity(plan))
            s += QStringLiteral("    moe_pad_expert_input_to_capacity: true\n");
        s += QStringLiteral("    moe_grouped_gemm: true\n");
        s += plan.parallel.expertDispatcher == ExpertDispatcher::DeepEp
                 ? QStringLiteral("    moe_token_dispatcher_type: flex\n    moe_enable_deepep: true\n")
             : plan.parallel.expertDispatcher == ExpertDispatcher::HybridEp
                 ? QStringLiteral("    moe_token_dispatcher_type: flex\n    moe_flex_dispatcher_backend: hybridep\n")
                 : QStringLiteral("    moe_token_dispatcher_type: alltoall\n");
        if (const auto rank = rankCapacityFactor(plan))
            s += QStringLiteral("    moe_expert_rank_capacity_factor: %1\n").arg(*rank);
    }
    if (t.recompute == Recompute::Selective)
        s += QStringLiteral("    recompute_modules: [%1]\n").arg(recomputeModules(t).join(QStringLiteral(", ")));
    return s;
}

/// Megatron-Bridge's OptimizerConfig: an optimizer other than Adam (Muon with its settings, named as Megatron-Core's
/// optimizer_config.py names them), and state kept below FP32 (Megatron-Core's precision-aware optimizer).
QString nemoOptimizerFields(const Plan &plan, ExportResult &out)
{
    const TrainingConfig &t = plan.training;
    const ParallelConfig &p = plan.parallel;
    QString fields;
    if (t.optimizer != Optimizer::Adam)
        fields += QStringLiteral("  optimizer: %1\n").arg(QLatin1String(toString(t.optimizer)));
    if (t.usesMuon())
        fields += QStringLiteral("  muon_num_ns_steps: %1\n  muon_tp_mode: %2\n  muon_scalar_optimizer: %3\n")
                      .arg(t.muonSteps)
                      .arg(QLatin1String(toString(t.muonTpMode)))
                      .arg(QLatin1String(toString(t.muonScalarOptimizer)));
    // Megatron-Core's OptimizerConfig takes the CPU optimizer without the precision-aware one (only Megatron-LM's
    // arguments.py asserts the pair); without it the distributed optimizer keeps its FP32 main parameters on the
    // GPU, as the estimate does.
    if (p.offloadOptimizer) // the fraction is 0.0 unless set (optimizer_config.py): the plan's, written always
        fields += nemoSwitch(2, "parallel.offload_optimizer", true) +
                  QStringLiteral("  optimizer_offload_fraction: %1\n")
                      .arg(offloadFractionText(p.optimizerOffloadFraction)) +
                  (p.overlapOffloadCopies ? nemoSwitch(2, "parallel.overlap_offload_copies", true) : QString());
    if (t.optimizerMoments != MomentFormat::Fp32 || t.masterWeights == MasterFormat::Fp16) {
        fields += QStringLiteral("  use_precision_aware_optimizer: true\n");
        if (t.optimizerMoments != MomentFormat::Fp32)
            fields += QStringLiteral("  exp_avg_dtype: %1\n  exp_avg_sq_dtype: %1\n")
                          .arg(QLatin1String(toString(t.optimizerMoments)));
        if (t.masterWeights == MasterFormat::Fp16)
            fields += QStringLiteral("  main_params_dtype: fp16\n");
    }
    QString s = fields.isEmpty() ? QString() : QStringLiteral("optimizer:\n") + fields;
    if (t.masterWeights == MasterFormat::Bf16)
        out.notExpressed << QStringLiteral(
            "training.master_weights = bf16: Megatron-Core keeps its master weights in fp32 or "
            "fp16 (NeMo 1's distributed_fused_adam with optim.dtype bf16 keeps them in bf16)");
    return s;
}

/// NeMo's trainer: the nodes, the MegatronStrategy's layout and ddp, and the precision plugin.
QString nemoTrainerFields(const Plan &plan, ExportResult &out)
{
    const TrainingConfig &t = plan.training;
    const ParallelConfig &p = plan.parallel;
    const ModelSpec &m = plan.model;
    QString s;
    s += QStringLiteral("trainer:\n  num_nodes: %1\n  devices: %2\n  strategy:\n")
             .arg(plan.cluster.nodes)
             .arg(plan.cluster.gpusPerNode);
    s += nemoLine(4, "parallel.tensor", p.tensor) + nemoLine(4, "parallel.pipeline", p.pipeline) +
         nemoLine(4, "parallel.context", p.context) + nemoSwitch(4, "training.sequence_parallel", t.sequenceParallel);
    if (p.virtualStages > 1)
        s += nemoLine(4, "parallel.virtual_stages", p.virtualStages);
    if (m.isMoe())
        s += nemoLine(4, "parallel.expert", p.expert);
    if (p.expertTensor > 0)
        s += nemoLine(4, "parallel.expert_tensor", p.expertTensor);
    if (p.rankOrder == RankOrder::StagesInside) // MegatronStrategy's use_tp_pp_dp_mapping
        s += QStringLiteral("    use_tp_pp_dp_mapping: true\n");
    // MegatronStrategy's ddp (Megatron-Core DistributedDataParallelConfig) and the model-parallel overlaps
    // (ModelParallelConfig tp_comm_overlap, overlap_p2p_comm): what the import reads back.
    s += QStringLiteral("    ddp:\n") + nemoSwitch(6, "parallel.overlap_grad_reduce", p.overlapGradReduce) +
         nemoSwitch(6, "parallel.overlap_param_gather", p.overlapParamGather) +
         QStringLiteral("      grad_reduce_in_fp32: %1\n").arg(t.fp32Gradients ? "true" : "false");
    if (p.zeroStage == 1 && t.framework == Framework::Megatron && p.shardReplicas() > 1)
        s += QStringLiteral("      num_distributed_optimizer_instances: %1\n").arg(p.shardReplicas());
    else if (p.shardReplicas() > 1)
        out.notExpressed << partialShardingNote(p);
    // ZeRO 2 and 3 as Megatron-FSDP's sharding strategies (DistributedDataParallelConfig).
    if (p.zeroStage > 1)
        s += QStringLiteral("      use_megatron_fsdp: true\n      data_parallel_sharding_strategy: %1\n")
                 .arg(p.zeroStage == 2 ? "optim_grads" : "optim_grads_params");
    const QString precision = t.precision == Precision::FP16   ? QStringLiteral("16-mixed")
                              : t.precision == Precision::FP32 ? QStringLiteral("32")
                                                               : QStringLiteral("bf16-mixed");
    s += QStringLiteral("  plugins:\n    precision: %1\n").arg(precision);
    return s;
}

/// The model config's shape (Megatron-Core's TransformerConfig names).
QString nemoModelShapeFields(const Plan &plan)
{
    const ModelSpec &m = plan.model;
    const TrainingConfig &t = plan.training;
    const ParallelConfig &p = plan.parallel;
    const auto b = yamlBool;
    QString s;
    s += QStringLiteral("model:\n  config:\n") + nemoLine(4, "model.layers", m.layers) +
         nemoLine(4, "model.hidden", m.hidden) + nemoLine(4, "model.ffn_hidden", m.ffnHidden) +
         nemoLine(4, "model.heads", m.heads) + nemoLine(4, "model.kv_heads", m.kvHeads) +
         nemoLine(4, "model.vocab", m.vocab);
    s +=
        QStringLiteral("    normalization: %1\n    gated_linear_unit: %2\n    position_embedding_type: %3\n")
            .arg(m.norm == NormKind::RmsNorm ? QStringLiteral("RMSNorm") : QStringLiteral("LayerNorm"),
                 b(m.mlp == MlpKind::SwiGlu),
                 m.position == PositionEmbedding::Rotary ? QStringLiteral("rope")
                 : m.position == PositionEmbedding::None ? QStringLiteral("none")
                                                         : QStringLiteral("learned_absolute"));
    s += QStringLiteral("    share_embeddings_and_output_weights: %1\n    add_bias_linear: %2\n    attention_dropout: "
                        "%3\n    hidden_dropout: %3\n"
                        "    attention_backend: %4\n    use_distributed_optimizer: %5\n")
             .arg(b(m.tiedEmbeddings), b(m.linearBias), m.dropout ? QStringLiteral("0.1") : QStringLiteral("0.0"),
                  t.flashAttention ? QStringLiteral("flash") : QStringLiteral("unfused"), b(p.zeroStage == 1));
    return s;
}

/// The model config's software settings: recomputation, offload, CUDA graphs, windows, overlaps, FP8, MoE, MLA.
/// NeMo's model-config fields for the attention's window and sinks, the rotary fusion and the activation clamp.
QString nemoShapeFields(const ModelSpec &m, const TrainingConfig &t)
{
    QString s;
    if (m.slidingWindow > 0)
        s += QStringLiteral("    window_size: [%1, 0]\n").arg(m.slidingWindow - 1) + // keys before the query
             (m.fullAttentionInterval > 0 ? nemoLine(4, "model.full_attention_interval", m.fullAttentionInterval)
                                          : QString());
    if (m.attentionSinks)
        s += QStringLiteral("    softmax_type: learnable\n");
    if (runsUnfusedRotary(m, t))
        s += nemoSwitch(4, "training.fused_rope", false);
    if (m.activationClamp > 0)
        s += QStringLiteral("    activation_func_clamp_value: %1\n").arg(m.activationClamp);
    return s;
}

QString nemoModelRuntimeFields(const Plan &plan, ExportResult &out)
{
    const ModelSpec &m = plan.model;
    const TrainingConfig &t = plan.training;
    const ParallelConfig &p = plan.parallel;
    QString s;
    if (m.headDimension > 0)
        s += nemoLine(4, "model.head_dim", m.headDimension);
    if (m.mlp == MlpKind::SquaredRelu)
        s += QStringLiteral("    activation_func: squared_relu\n");
    if (t.recompute == Recompute::Ops) {
        s += QStringLiteral("    recompute_granularity: null\n");
        out.notExpressed << QStringLiteral(
            "training.recompute = ops: torchtitan's op-level selective checkpointing has no "
            "Megatron-Core setting (its nearest is recompute_granularity: selective)");
    } else
        s += QStringLiteral("    recompute_granularity: %1\n")
                 .arg(t.recompute == Recompute::None ? "null" : toString(t.recompute));
    if (t.recompute == Recompute::Full && t.recomputeInterval > 1)
        out.notExpressed
            << QStringLiteral("training.recompute_interval = %1: Megatron-Core recomputes blocks of layers, not every "
                              "k-th (recompute_method block with recompute_num_layers is the nearest)")
                   .arg(t.recomputeInterval);
    if (t.recompute == Recompute::Full && t.recomputeLayers > 0)
        s += QStringLiteral("    recompute_method: block\n    recompute_num_layers: %1\n").arg(t.recomputeLayers);
    else if (t.recompute == Recompute::Full && t.recomputeChunk > 1)
        s += QStringLiteral("    recompute_method: uniform\n    recompute_num_layers: %1\n").arg(t.recomputeChunk);
    if (t.activationOffloadLayers > 0)
        s += QStringLiteral("    cpu_offloading: true\n    cpu_offloading_weights: false\n") +
             nemoLine(4, "training.activation_offload_layers", t.activationOffloadLayers);
    if (t.cudaGraphs != CudaGraphs::None)
        s += t.cudaGraphs == CudaGraphs::Step ? QStringLiteral("    cuda_graph_impl: full_iteration\n")
             : t.cudaGraphs == CudaGraphs::Layers
                 ? QStringLiteral("    cuda_graph_impl: local\n")
                 : QStringLiteral(
                       "    cuda_graph_impl: transformer_engine\n    cuda_graph_scope: [moe_router, moe_preprocess]\n");
    s += nemoShapeFields(m, t);
    s += nemoSwitch(4, "parallel.tensor_comm_overlap", p.tensorCommOverlap) +
         nemoSwitch(4, "parallel.overlap_p2p_comm", p.overlapP2pComm);
    if (m.isMoe() && p.expertCommOverlap)
        s += nemoSwitch(4, "parallel.expert_comm_overlap", true) + QStringLiteral("    delay_wgrad_compute: true\n");
    if (m.isMoe() && t.fusedExpertMlp)
        s += nemoSwitch(4, "training.fused_expert_mlp", true);
    if (m.isMoe() && t.moePagedStash)
        s += nemoSwitch(4, "training.moe_paged_stash", true);
    if (m.isMoe() && t.moeRouterFusion)
        s += nemoSwitch(4, "training.moe_router_fusion", true);
    if (m.isMoe() && t.moePermuteFusion)
        s += nemoSwitch(4, "training.moe_permute_fusion", true);
    // Megatron-Core's config: the fusion and its implementation (NeMo's GPTConfig fuses by default).
    noteForeignLossKernel(t, out);
    if (t.lossKernel == LossKernel::TransformerEngine)
        s += QStringLiteral("    cross_entropy_loss_fusion: true\n    cross_entropy_fusion_impl: te\n");
    else if (t.lossKernel == LossKernel::InPlace)
        s += QStringLiteral("    cross_entropy_loss_fusion: false\n");
    if (plan.deferredWgradMicrobatches() > 0)
        s += nemoSwitch(4, "training.defer_embedding_wgrad", true) +
             (t.wgradDeferralLimit > 0 ? nemoLine(4, "training.wgrad_deferral_limit", t.wgradDeferralLimit)
                                       : QString());
    if (t.precision == Precision::FP8 && t.fp8Recipe == Fp8Recipe::Rowwise)
        out.notExpressed << rowwiseNote();
    if (t.precision == Precision::NVFP4)
        s += QStringLiteral("    fp4: e2m1\n    fp4_recipe: nvfp4\n");
    else if (isLowPrecisionMatmul(t.precision))
        s += t.precision == Precision::FP8 ? QStringLiteral("    fp8: hybrid\n    fp8_recipe: %1\n")
                                                 .arg(t.fp8Recipe == Fp8Recipe::Delayed ? "delayed" : "tensorwise")
                                           : QStringLiteral("    fp8: e4m3\n    fp8_recipe: %1\n")
                                                 .arg(t.precision == Precision::MXFP8 ? "mxfp8" : "blockwise");
    if (plan.keepsBf16Layers())
        s += QStringLiteral("    first_last_layers_bf16: true\n    num_layers_at_start_in_bf16: %1\n"
                            "    num_layers_at_end_in_bf16: %2\n")
                 .arg(t.bf16LayersAtStart)
                 .arg(t.bf16LayersAtEnd);
    s += nemoMoeAndRecomputeFields(plan);
    if (m.isMla())
        s += QStringLiteral("    multi_latent_attention: true\n") + nemoLine(4, "model.q_lora_rank", m.qLoraRank) +
             nemoLine(4, "model.kv_lora_rank", m.kvLoraRank) + nemoLine(4, "model.qk_nope_head_dim", m.qkNopeHeadDim) +
             nemoLine(4, "model.qk_rope_head_dim", m.qkRopeHeadDim) + nemoLine(4, "model.v_head_dim", m.vHeadDim);
    return s;
}

QByteArray nemoRecipe(const Plan &plan, ExportResult &out)
{
    QString s = QStringLiteral("# NeMo / Megatron-Bridge recipe fields for: %1 (written by trainplan export)\n")
                    .arg(QString::fromStdString(plan.name));
    s += nemoTrainerFields(plan, out);
    s += QStringLiteral("data:\n") + nemoLine(2, "model.seq_len", plan.model.seqLen) +
         nemoLine(2, "training.micro_batch", plan.training.microBatch) +
         nemoLine(2, "training.global_batch", plan.training.globalBatch);
    s += nemoModelShapeFields(plan) + nemoModelRuntimeFields(plan, out);
    s += nemoOptimizerFields(plan, out);
    return s.toUtf8();
}

std::pair<QString, QString> torchtitanModel(const ModelSpec &m)
{
    if (m.presetId == "llama3-8b" || m.presetId == "llama3.1-8b")
        return {QStringLiteral("llama3"), QStringLiteral("8B")};
    if (m.presetId == "llama3-70b" || m.presetId == "llama3.1-70b")
        return {QStringLiteral("llama3"), QStringLiteral("70B")};
    if (m.presetId == "llama3.1-405b")
        return {QStringLiteral("llama3"), QStringLiteral("405B")};
    if (m.presetId == "deepseek-v3")
        return {QStringLiteral("deepseek_v3"), QStringLiteral("671B")};
    return {};
}

/// torchtitan's checkpointing: op-level selective ("ops"), every k-th layer (full with an interval), full,
/// none; Megatron-Core's selective recomputation (attention core, modules) has no torchtitan word.
QString torchtitanCheckpointing(const TrainingConfig &t, ExportResult &out)
{
    if (t.recompute == Recompute::Ops)
        return QStringLiteral("\n[activation_checkpoint]\nmode = \"selective\"\nselective_ac_option = \"op\"\n");
    if (t.recompute == Recompute::Full && t.recomputeInterval > 1)
        return QStringLiteral("\n[activation_checkpoint]\nmode = \"selective\"\nselective_ac_option = \"%1\"\n")
            .arg(t.recomputeInterval);
    if (t.recompute == Recompute::Full && t.recomputeChunk > 1)
        out.notExpressed << QStringLiteral("training.recompute_chunk = %1: torchtitan checkpoints each layer, not "
                                           "chunks of layers")
                                .arg(t.recomputeChunk);
    if (t.recompute == Recompute::Selective) {
        out.notExpressed << QStringLiteral(
            "training.recompute = selective: Megatron-Core's attention-core recomputation has no "
            "torchtitan setting (its selective is \"op\" or a layer interval)");
        return QStringLiteral("\n[activation_checkpoint]\nmode = \"none\"\n");
    }
    return QStringLiteral("\n[activation_checkpoint]\nmode = \"%1\"\n").arg(QLatin1String(toString(t.recompute)));
}

/// torchtitan's [compile] (the loss compiled with the model or eager) and torchao's float8 settings under
/// [quantize.linear.float8] (job_config.py at 238fa9953, Float8Linear; [float8] before 2025): rowwise scaling
/// and the FSDP all-gather in float8. `float8`: the job's linears are float8 converters.
QString torchtitanCompileAndFloat8(const TrainingConfig &t, bool float8, ExportResult &out)
{
    QString s;
    if (t.precision == Precision::FP8Blockwise)
        out.notExpressed << QStringLiteral("training.precision = fp8-blockwise: torchtitan's float8 linears scale "
                                           "per tensor or per row (training.fp8_recipe rowwise), not per 128-block");
    if (t.compile)
        s += t.lossKernelInEffect() == LossKernel::Eager
                 ? QStringLiteral("\n[compile]\nenable = true\ncomponents = [\"model\"]\n")
                 : QStringLiteral("\n[compile]\nenable = true\ncomponents = [\"model\", \"loss\"]\n");
    // torchtitan's loss is compiled with the model or eager: another kernel has no setting there.
    if (const LossKernel loss = t.lossKernelInEffect(); loss == LossKernel::InPlace ||
                                                        loss == LossKernel::TransformerEngine ||
                                                        (loss == LossKernel::Fused && !t.compile))
        out.notExpressed
            << QStringLiteral(
                   "training.loss_kernel = %1: torchtitan compiles its loss with the model or runs it eagerly")
                   .arg(QLatin1String(toString(loss)));
    if (float8 && t.precision == Precision::FP8 && t.fp8Recipe == Fp8Recipe::Delayed)
        out.notExpressed << QStringLiteral("training.fp8_recipe = delayed: torchao's float8 linears scale each tensor "
                                           "from its own amax (tensorwise)");
    const bool rowwise = t.precision == Precision::FP8 && t.fp8Recipe == Fp8Recipe::Rowwise;
    if (float8 && (rowwise || t.fp8ParamGather))
        s += QStringLiteral("\n[quantize.linear.float8]\n") +
             (rowwise ? QStringLiteral("recipe_name = \"rowwise\"\n") : QString()) +
             (t.fp8ParamGather ? QStringLiteral("enable_fsdp_float8_all_gather = true\n") : QString());
    else if (t.fp8ParamGather)
        out.notExpressed << QStringLiteral("training.fp8_param_gather = true: torchtitan all-gathers in float8 only "
                                           "with its float8 linears");
    return s;
}

/// torchtitan's trainer captures a step's forward and backward as one CUDA graph from f84224af0 (August 2026,
/// torchtitan/trainer.py; training.disable_cuda_graphs), whose configuration is Python (9810191b, February 2026):
/// the job file's releases have no capture, which is what a plan without graphs runs. Nor fused QKV.
void torchtitanPythonOnlyNotes(const TrainingConfig &t, ExportResult &out)
{
    if (t.cudaGraphs != CudaGraphs::None)
        out.notExpressed << QStringLiteral("training.cuda_graphs = %1: torchtitan captures CUDA graphs from "
                                           "f84224af0 (August 2026), configured in Python, not in a job file "
                                           "(training.disable_cuda_graphs = false there)")
                                .arg(QLatin1String(toString(t.cudaGraphs)));
    if (!t.separateQkv)
        out.notExpressed << QStringLiteral("training.separate_qkv = false: the job file's releases run Llama's wq, "
                                           "wk and wv as three GEMMs (fused QKV came with ad7a86533, April 2026, "
                                           "whose configurations are Python)");
    if (!t.repeatKvHeads)
        out.notExpressed << QStringLiteral("training.repeat_kv_heads = false: the job file's releases repeat K and V "
                                           "to the query heads before the attention (GQA without repeats came with "
                                           "ff0829c10, January 2026)");
}

QByteArray torchtitanJob(const Plan &plan, ExportResult &out)
{
    const TrainingConfig &t = plan.training;
    const ParallelConfig &p = plan.parallel;
    const auto [name, flavor] = torchtitanModel(plan.model);
    QString s = QStringLiteral("# torchtitan job for: %1 (written by trainplan export)\n# Launch with torchrun "
                               "--nnodes %2 --nproc_per_node %3.\n\n")
                    .arg(QString::fromStdString(plan.name))
                    .arg(plan.cluster.nodes)
                    .arg(plan.cluster.gpusPerNode);
    if (name.isEmpty())
        out.notExpressed << QStringLiteral(
            "the model (model.*): torchtitan names models by flavor (Llama 3 8B/70B/405B, DeepSeek-V3)");
    // torchtitan's low-precision matmuls are model converters (float8: tensorwise, or rowwise under [float8];
    // mx: MXFP8), beside 16-bit parameters. torchao's float8 linears have no 128-block scaling.
    const bool float8 = t.precision == Precision::FP8;
    const QString converters = float8                            ? QStringLiteral("converters = [\"float8\"]\n")
                               : t.precision == Precision::MXFP8 ? QStringLiteral("converters = [\"mx\"]\n")
                                                                 : QString();
    if (!name.isEmpty())
        s += QStringLiteral("[model]\nname = \"%1\"\nflavor = \"%2\"\n%3\n").arg(name, flavor, converters);
    using torchtitan::line, torchtitan::spelling;
    // The parameters' format beside the converters: 16-bit unless the plan trains in FP32 or FP16.
    const char *param =
        t.precision == Precision::FP32 || t.precision == Precision::FP16 ? toString(t.precision) : "bf16";
    // Under a pipeline torchtitan splits the local batch into micro-batches of pipeline_parallel_microbatch_size
    // (job_config.py at 238fa9953): the local batch is one schedule run's micro-batches together, and the
    // global batch accumulates over the runs.
    const std::int64_t local = p.pipeline > 1 ? t.microBatch * plan.microbatchesPerRun() : t.microBatch;
    // FSDP2's CPU offload moves the parameters and the optimizer together (training.enable_cpu_offload).
    const bool cpuOffload =
        t.framework == Framework::Fsdp && p.zeroStage == 3 && p.offloadParameters && p.offloadOptimizer;
    const bool fsdpReduce = t.framework == Framework::Fsdp && t.fp32Gradients;
    s += QStringLiteral("[training]\n") + line("training.micro_batch", local) +
         line("training.global_batch", t.globalBatch) + line("model.seq_len", plan.model.seqLen) +
         QStringLiteral("mixed_precision_param = \"%1\"\n").arg(spelling("training.precision", param)) +
         (fsdpReduce ? torchtitan::choiceLine("training.fp32_gradients", "true") : QString()) +
         (cpuOffload ? QStringLiteral("enable_cpu_offload = true\n\n") : QStringLiteral("\n"));
    if (t.framework == Framework::Fsdp && !t.fp32Gradients)
        out.notExpressed << QStringLiteral("training.fp32_gradients = false: torchtitan's FSDP reduce-scatters in "
                                           "float32, its one mixed_precision_reduce");
    if ((!converters.isEmpty() && name.isEmpty()) || t.precision == Precision::NVFP4 || t.precision == Precision::TF32)
        out.notExpressed << QStringLiteral("training.precision = %1: no torchtitan setting for it here")
                                .arg(QLatin1String(toString(t.precision)));
    const bool fsdp = t.framework == Framework::Fsdp;
    s += QStringLiteral("[parallelism]\ndata_parallel_replicate_degree = %1\ndata_parallel_shard_degree = %2\n")
             .arg(fsdp ? p.shardReplicas() : p.data)
             .arg(fsdp ? p.data / p.shardReplicas() : 1) +
         line("parallel.tensor", p.tensor) + line("parallel.pipeline", p.pipeline) +
         line("parallel.context", p.context);
    if (p.context > 1 || p.contextComm != ContextComm::Ring) { // the importer's default: ring at context 1
        if (!spelling("parallel.context_comm", toString(p.contextComm)).isEmpty())
            s += torchtitan::choiceLine("parallel.context_comm", toString(p.contextComm));
        else
            out.notExpressed << QStringLiteral("parallel.context_comm = %1: torchtitan's context parallelism "
                                               "all-gathers or rotates K and V shards, it has no head all-to-all")
                                    .arg(QLatin1String(toString(p.contextComm)));
    }
    if (plan.model.isMoe())
        s += line("parallel.expert", p.expert);
    if (p.pipeline > 1)
        s += torchtitan::choiceLine("parallel.schedule", toString(p.schedule)) +
             QStringLiteral("pipeline_parallel_microbatch_size = %1\n").arg(t.microBatch);
    if (fsdp)
        s += torchtitan::choiceLine("parallel.reshard_after_forward", p.reshardAfterForward ? "true" : "false");
    if (p.tensorCommOverlap)
        s += torchtitan::boolLine("parallel.tensor_comm_overlap", true);
    for (const auto &[on, path] : {std::pair{p.offloadParameters, "parallel.offload_parameters"},
                                   std::pair{p.offloadOptimizer, "parallel.offload_optimizer"}})
        if (on && !cpuOffload)
            out.notExpressed << QStringLiteral("%1 = true: torchtitan offloads FSDP's parameters and optimizer "
                                               "together (training.enable_cpu_offload)")
                                    .arg(QLatin1String(path));
    torchtitanPythonOnlyNotes(t, out);
    s += torchtitanCheckpointing(t, out) + torchtitanCompileAndFloat8(t, float8 && !name.isEmpty(), out);
    return s.toUtf8();
}

/// The model as llm-foundry's mpt_causal_lm builds it, when MPTConfig can: multi-head or grouped-query
/// attention, MPT's MLP or its gated one, no experts, windows, sinks or MTP layers (ReadLlmFoundry reads it back).
bool mptExpressible(const ModelSpec &m)
{
    return m.attention == AttentionKind::Mha && !m.isMoe() && m.mlp != MlpKind::SquaredRelu && m.slidingWindow == 0 &&
           !m.attentionSinks && m.mtpLayers == 0 && m.heads > 0;
}

QString mptModel(const Plan &plan)
{
    namespace lf = llmfoundry;
    const ModelSpec &m = plan.model;
    const TrainingConfig &t = plan.training;
    const bool gqa = m.kvHeads != m.heads;
    const std::string_view kernel = !t.flashAttention                               ? "false"
                                    : t.attentionKernel == AttentionKernel::Triton ? "triton"
                                                                                   : "flash2";
    const QString impl = kernel == "false" ? lf::spelling("training.flash_attention", "false")
                                           : lf::spelling("training.attention_kernel", kernel);
    const auto number = [](std::int64_t n) { return QString::number(n); };
    QString s = QStringLiteral("model:\n  name: mpt_causal_lm\n") + lf::entry("model.hidden", number(m.hidden)) +
                lf::entry("model.heads", number(m.heads)) + lf::entry("model.layers", number(m.layers)) +
                QStringLiteral("  max_seq_len: %1\n").arg(m.seqLen) + lf::entry("model.vocab", number(m.vocab)) +
                lf::entry("model.linear_bias", lf::spelling("model.linear_bias", m.linearBias ? "true" : "false")) +
                lf::entry("model.norm",
                          lf::spelling("model.norm", m.norm == NormKind::RmsNorm ? "rmsnorm" : "layernorm")) +
                lf::entry("model.tied_embeddings", yamlBool(m.tiedEmbeddings)) +
                QStringLiteral("  learned_pos_emb: %1\n").arg(yamlBool(m.position == PositionEmbedding::Learned));
    if (m.headDimension > 0 && m.headDimension * m.heads != m.hidden)
        s += lf::entry("model.head_dim", QString::number(m.headDimension));
    s += QStringLiteral("  attn_config:\n") + lf::entry("training.flash_attention", impl) +
         QStringLiteral("    attn_type: %1\n")
             .arg(gqa ? QStringLiteral("grouped_query_attention") : QStringLiteral("multihead_attention"));
    if (gqa)
        s += lf::entry("model.kv_heads", QString::number(m.kvHeads));
    if (m.position == PositionEmbedding::Alibi)
        s += QStringLiteral("    alibi: true\n");
    else if (m.position == PositionEmbedding::Rotary)
        s += QStringLiteral("    rope: true\n");
    s += QStringLiteral("  ffn_config:\n") +
         lf::entry("model.mlp", lf::spelling("model.mlp", m.mlp == MlpKind::SwiGlu ? "swiglu" : "gelu")) +
         lf::entry("model.ffn_hidden", QString::number(m.ffnHidden));
    if (m.mlp == MlpKind::SwiGlu)
        s += QStringLiteral("    ffn_act_fn:\n      name: silu\n");
    s += lf::entry("training.loss_kernel",
                   lf::spelling("training.loss_kernel", t.lossKernel == LossKernel::Eager ? "eager" : "fused"));
    return s;
}

/// An llm-foundry training YAML (scripts/train/train.py's configuration): the MPT model when MPTConfig can
/// build it, the batch, Composer's precision and FSDP (sharding, mixed precision as the reduce dtype,
/// activation checkpointing). What it has no setting for (tensor, pipeline, context and expert parallelism) is
/// listed.
QByteArray llmFoundryYaml(const Plan &plan, ExportResult &out)
{
    const TrainingConfig &t = plan.training;
    const ParallelConfig &p = plan.parallel;
    const std::string &title = plan.name.empty() ? plan.model.name : plan.name;
    QString s = QStringLiteral("# llm-foundry training YAML for: %1 (written by trainplan export)\n# Launch with "
                               "composer scripts/train/train.py THIS_FILE on %2 x %3 GPUs.\n\n")
                    .arg(QString::fromStdString(title))
                    .arg(plan.cluster.nodes)
                    .arg(plan.cluster.gpusPerNode) +
                llmfoundry::entry("model.seq_len", QString::number(plan.model.seqLen));
    if (mptExpressible(plan.model)) {
        s += mptModel(plan);
        if (t.flashAttention && t.attentionKernel == AttentionKernel::Fused)
            out.notExpressed << QStringLiteral(
                "training.attention_kernel = fused: MPT's attn_impl runs "
                "FlashAttention-2 (flash), its Triton kernel or torch's; written as flash");
    } else {
        out.notExpressed << QStringLiteral(
            "the model (model.*), its attention kernel and loss: llm-foundry's mpt_causal_lm builds dense multi-head "
            "or grouped-query models; give a Hugging Face model as hf_causal_lm with its checkpoint");
    }
    const QString precision = llmfoundry::spelling("training.precision", toString(t.precision));
    if (precision.isEmpty())
        out.notExpressed << QStringLiteral("training.precision = %1: Composer trains in amp_bf16, amp_fp16, amp_fp8 "
                                           "(Transformer Engine's delayed scaling) or fp32")
                                .arg(QLatin1String(toString(t.precision)));
    if (t.precision == Precision::FP8 && t.fp8Recipe != Fp8Recipe::Delayed)
        out.notExpressed << QStringLiteral("training.fp8_recipe = %1: Composer's amp_fp8 runs Transformer Engine's "
                                           "DelayedScaling")
                                .arg(QLatin1String(toString(t.fp8Recipe)));
    s += llmfoundry::entry("training.global_batch", QString::number(t.globalBatch)) +
         llmfoundry::entry("training.micro_batch", QString::number(t.microBatch)) +
         llmfoundry::entry("training.precision", precision.isEmpty() ? QStringLiteral("amp_bf16") : precision);
    if (t.optimizer == Optimizer::Adam)
        s += QStringLiteral("optimizer:\n") +
             llmfoundry::entry("training.optimizer", llmfoundry::spelling("training.optimizer", "adam"));
    else
        out.notExpressed << QStringLiteral("training.optimizer = %1: the yamls train with decoupled_adamw")
                                .arg(QLatin1String(toString(t.optimizer)));
    // Composer's FSDP: FULL_SHARD is ZeRO-3, SHARD_GRAD_OP keeps the parameters gathered to the backward, NO_SHARD
    // replicates (ZeRO 0); it has no ZeRO-1 or ZeRO-2 of the optimizer alone.
    const QString strategy = p.zeroStage == 3 ? llmfoundry::spelling("parallel.reshard_after_forward",
                                                                     p.reshardAfterForward ? "true" : "false")
                                              : llmfoundry::spelling("parallel.zero_stage", "0");
    if (p.zeroStage == 1 || p.zeroStage == 2)
        out.notExpressed << QStringLiteral("parallel.zero_stage = %1: Composer's FSDP shards everything "
                                           "(FULL_SHARD, SHARD_GRAD_OP) or nothing (NO_SHARD)")
                                .arg(p.zeroStage);
    const bool full = t.recompute == Recompute::Full && t.recomputeLayers == 0 && t.recomputeInterval == 0;
    if (t.recompute != Recompute::None && !full)
        out.notExpressed << QStringLiteral("training.recompute = %1: FSDP's activation checkpointing replays "
                                           "whole blocks")
                                .arg(QLatin1String(toString(t.recompute)));
    s += QStringLiteral("fsdp_config:\n") + llmfoundry::entry("parallel.zero_stage", strategy) +
         llmfoundry::entry("training.fp32_gradients",
                           llmfoundry::spelling("training.fp32_gradients", t.fp32Gradients ? "true" : "false")) +
         llmfoundry::entry("training.recompute", llmfoundry::spelling("training.recompute", full ? "full" : "none"));
    return s.toUtf8();
}

} // namespace

const QStringList &expressedKeys(ExportTarget target)
{
    static const QStringList nemo = [] {
        QStringList k = kMegatronKeys;
        for (const char *drop :
             {"model.moe_layer_interval", "model.shared_experts", "model.dense_layers", "model.mtp_layers",
              "model.mtp_repeated", "model.moe_latent_size", "model.hybrid_pattern", "model.mamba_state_dim",
              "model.mamba_head_dim", "model.mamba_heads", "model.mamba_groups", "training.fp8_param_gather",
              "parallel.context_comm", "training.fp8_attention", "parallel.first_stage_layers",
              "parallel.last_stage_layers", "parallel.stage_layers"})
            k.removeAll(QLatin1String(drop));
        k << QStringLiteral("model.activation_clamp"); // a recipe's field; Megatron-LM has no flag for it
        return k;
    }();
    static const QStringList torchtitan{
        "training.global_batch", "training.micro_batch",        "model.seq_len",    "training.recompute",
        "parallel.shard_group",  "training.recompute_interval", "training.compile", "training.loss_kernel",
        "parallel.tensor",       "parallel.pipeline",           "parallel.context", "parallel.reshard_after_forward",
        "parallel.context_comm", "training.separate_qkv", "training.repeat_kv_heads",
        "training.precision",    "parallel.tensor_comm_overlap", "training.fp8_param_gather", "training.fp8_recipe",
        "parallel.offload_parameters", "parallel.offload_optimizer"};
    static const QStringList deepspeed{"training.global_batch",        "training.micro_batch",
                                       "parallel.zero_stage",          "parallel.offload_optimizer",
                                       "parallel.offload_parameters", "parallel.shard_group",
                                       "parallel.overlap_grad_reduce", "parallel.bucket_bytes",
                                       "parallel.zero_quantized_weights", "parallel.zero_hpz_partition",
                                       "parallel.zero_quantized_gradients"};
    static const QStringList llmFoundry{"training.global_batch", "training.micro_batch", "model.seq_len",
                                        "training.recompute", "training.fp32_gradients"};
    switch (target) {
    case ExportTarget::Megatron: return kMegatronKeys;
    case ExportTarget::NeMo: return nemo;
    case ExportTarget::Torchtitan: return torchtitan;
    case ExportTarget::DeepSpeed: return deepspeed;
    case ExportTarget::LlmFoundry: return llmFoundry;
    }
    return kMegatronKeys;
}

ExportResult exportPlan(const Plan &plan, ExportTarget target, const Catalog &catalog)
{
    ExportResult out;
    // A launch written for a plan that cannot run says so: it would fail at its first step.
    const Estimate e = estimate(plan, catalog, EstimateOptions::analytic());
    if (!e.valid)
        out.warnings << QStringLiteral(
            "the plan has errors; the launch is written as the plan says, but it will not run as planned");
    else if (!e.memory.fits)
        out.warnings
            << QStringLiteral(
                   "the plan does not fit: %1 GiB on stage %2 of %3 GiB per GPU; this launch runs out of memory")
                   .arg(e.memory.peakBytes / units::GiB, 0, 'f', 1)
                   .arg(e.memory.peakStage)
                   .arg(e.memory.capacityBytes / units::GiB, 0, 'f', 0);
    switch (target) {
    case ExportTarget::Megatron: out.text = megatronScript(plan, out); break;
    case ExportTarget::NeMo: out.text = nemoRecipe(plan, out); break;
    case ExportTarget::Torchtitan: out.text = torchtitanJob(plan, out); break;
    case ExportTarget::DeepSpeed: out.text = deepSpeedConfig(plan, out); break;
    case ExportTarget::LlmFoundry: out.text = llmFoundryYaml(plan, out); break;
    }
    static const QStringList hardware{"cluster.device",          "cluster.intra_node_link", "cluster.network",
                                      "cluster.scale_up_domain", "cluster.nodes",           "cluster.gpus_per_node"};
    QStringList handled = hardware;
    handled << QStringLiteral("training.precision") << QStringLiteral("parallel.zero_stage")
            << QStringLiteral("parallel.schedule") << QStringLiteral("training.framework");
    if (target == ExportTarget::LlmFoundry) // written with the model, or said by llmFoundryYaml
        for (const char *path : {"training.flash_attention", "training.attention_kernel", "training.loss_kernel",
                                 "training.optimizer", "training.optimizer_kernel", "training.fp8_recipe"})
            handled << QLatin1String(path);
    if (target == ExportTarget::Torchtitan) // said by torchtitanJob
        handled << QStringLiteral("training.cuda_graphs");
    if (target != ExportTarget::Megatron && target != ExportTarget::NeMo)
        for (const PlanKey &k : planKeys())
            if (QLatin1String(k.path).startsWith(QLatin1String("model.")))
                handled << QLatin1String(k.path);
    listNotExpressed(plan, expressedKeys(target), handled, out);
    if (!plan.cluster.device.empty())
        out.notExpressed
            << QStringLiteral("cluster.device = %1 and the links: the hardware is where you launch it, not in the file")
                   .arg(QString::fromStdString(plan.cluster.device));
    return out;
}

} // namespace trainplan::io
