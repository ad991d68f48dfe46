#include "core/plan/PlanKeys.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>

#include "core/common/Units.h"
#include "core/plan/Plan.h"

namespace trainplan {

namespace {

// Values <-> fields.
KeyValue toValue(std::int64_t v) { return v; }
KeyValue toValue(double v) { return v; }
KeyValue toValue(bool v) { return v; }
KeyValue toValue(const std::string &v) { return v; }
KeyValue toValue(const std::optional<double> &v) { return v ? KeyValue(*v) : KeyValue(); }
template<NamedEnum E>
KeyValue toValue(E v)
{
    return std::string(toString(v));
}

void fromValue(const KeyValue &v, std::int64_t &out)
{
    if (const auto *i = std::get_if<std::int64_t>(&v))
        out = *i;
}
void fromValue(const KeyValue &v, double &out)
{
    if (const auto *d = std::get_if<double>(&v))
        out = *d;
    else if (const auto *i = std::get_if<std::int64_t>(&v))
        out = double(*i);
}
void fromValue(const KeyValue &v, bool &out)
{
    if (const auto *b = std::get_if<bool>(&v))
        out = *b;
}
void fromValue(const KeyValue &v, std::string &out)
{
    if (const auto *s = std::get_if<std::string>(&v))
        out = *s;
}
void fromValue(const KeyValue &v, std::optional<double> &out)
{
    if (std::holds_alternative<std::monostate>(v)) {
        out.reset();
        return;
    }
    double d = 0;
    fromValue(v, d);
    out = d;
}
template<NamedEnum E>
void fromValue(const KeyValue &v, E &out)
{
    if (const auto *s = std::get_if<std::string>(&v))
        if (const auto e = fromString<E>(*s))
            out = *e;
}

/// A field two levels down: plan.*Section.*Member.
template<auto Section, auto Member>
constexpr KeyAccess field()
{
    return {[](const Plan &p) { return toValue((p.*Section).*Member); },
            [](Plan &p, const KeyValue &v) { fromValue(v, (p.*Section).*Member); }};
}

/// A cluster override: plan.cluster.overrides.*Member.
template<auto Member>
constexpr KeyAccess overrideField()
{
    return {[](const Plan &p) { return toValue(p.cluster.overrides.*Member); },
            [](Plan &p, const KeyValue &v) { fromValue(v, p.cluster.overrides.*Member); }};
}

/// parallel.stage_layers: the list as its text, monostate when not set (the file leaves it out).
constexpr KeyAccess stageLayersField()
{
    return {[](const Plan &p) -> KeyValue {
                if (p.parallel.stageLayers.empty())
                    return {};
                return integerListText(p.parallel.stageLayers);
            },
            [](Plan &p, const KeyValue &v) {
                const auto *text = std::get_if<std::string>(&v);
                if (!text) {
                    p.parallel.stageLayers.clear();
                    return;
                }
                if (const auto list = parseIntegerList(*text))
                    p.parallel.stageLayers = *list;
            }};
}

const std::vector<KeyChoice> &zeroStages()
{
    static const std::vector<KeyChoice> choices{
        {"0", "0: replicated"}, {"1", "1: optimizer"}, {"2", "2: + gradients"}, {"3", "3: + parameters"}};
    return choices;
}

// Physical ranges: wide enough for any machine that exists or is announced, narrow enough that no product
// of them overflows and every estimate stays finite.
constexpr double kTwoTo(int k) { return double(std::int64_t(1) << k); }
constexpr KeyRange kFraction{0, 1, false, true};
constexpr KeyRange kBandwidth{1e6, 1e14};      ///< 1 MB/s to 100 TB/s
constexpr KeyRange kLatency{0, 1, false, true}; ///< under a second per message step

using M = ModelSpec;
using T = TrainingConfig;
using P = ParallelConfig;
using C = ClusterConfig;
using R = RunConfig;

// clang-format off
const std::array kKeys{
    // Root.
    PlanKey{.path = "format", .type = KeyType::String},
    PlanKey{.path = "version", .type = KeyType::Integer},
    PlanKey{.path = "name", .type = KeyType::String, .maxLength = kMaxNameLength, .editor = KeyEditor::Text,
            .access = {[](const Plan &p) { return KeyValue(p.name); },
                       [](Plan &p, const KeyValue &v) { fromValue(v, p.name); }}},

    PlanKey{.path = "description", .type = KeyType::String, .maxLength = kMaxTextLength, .editor = KeyEditor::Text,
            .access = {[](const Plan &p) { return KeyValue(p.description); },
                       [](Plan &p, const KeyValue &v) { fromValue(v, p.description); }}},

    // Model.
    PlanKey{.path = "model.preset", .type = KeyType::String, .editor = KeyEditor::Preset},
    PlanKey{.path = "model.name", .type = KeyType::String, .maxLength = kMaxNameLength,
            .access = field<&Plan::model, &M::name>()},
    PlanKey{.path = "model.layers", .type = KeyType::Integer, .range = {1, 100000}, .editor = KeyEditor::Spin,
            .access = field<&Plan::model, &M::layers>()},
    PlanKey{.path = "model.hidden", .type = KeyType::Integer, .range = {1, kTwoTo(20)}, .editor = KeyEditor::Spin,
            .access = field<&Plan::model, &M::hidden>()},
    PlanKey{.path = "model.heads", .type = KeyType::Integer, .range = {1, 65536}, .editor = KeyEditor::Spin,
            .access = field<&Plan::model, &M::heads>()},
    PlanKey{.path = "model.kv_heads", .type = KeyType::Integer, .range = {1, 65536}, .editor = KeyEditor::Spin,
            .access = field<&Plan::model, &M::kvHeads>()},
    PlanKey{.path = "model.head_dim", .type = KeyType::Integer, .range = {0, 65536}, .zeroMeansUnset = true,
            .editor = KeyEditor::Spin, .access = field<&Plan::model, &M::headDimension>()},
    PlanKey{.path = "model.ffn_hidden", .type = KeyType::Integer, .range = {1, kTwoTo(22)}, .editor = KeyEditor::Spin,
            .access = field<&Plan::model, &M::ffnHidden>()},
    PlanKey{.path = "model.vocab", .type = KeyType::Integer, .range = {1, kTwoTo(24)}, .editor = KeyEditor::Spin,
            .access = field<&Plan::model, &M::vocab>()},
    PlanKey{.path = "model.seq_len", .type = KeyType::Integer, .range = {1, kTwoTo(24)}, .editor = KeyEditor::Spin,
            .access = field<&Plan::model, &M::seqLen>()},
    PlanKey{.path = "model.mlp", .type = KeyType::Enum, .editor = KeyEditor::Choice, .choices = choicesOf<MlpKind>,
            .access = field<&Plan::model, &M::mlp>()},
    PlanKey{.path = "model.tied_embeddings", .type = KeyType::Bool, .editor = KeyEditor::Check,
            .access = field<&Plan::model, &M::tiedEmbeddings>()},
    PlanKey{.path = "model.norm", .type = KeyType::Enum, .editor = KeyEditor::Choice, .choices = choicesOf<NormKind>,
            .access = field<&Plan::model, &M::norm>()},
    PlanKey{.path = "model.linear_bias", .type = KeyType::Bool, .editor = KeyEditor::Check,
            .access = field<&Plan::model, &M::linearBias>()},
    PlanKey{.path = "model.position_embedding", .type = KeyType::Enum, .editor = KeyEditor::Choice,
            .choices = choicesOf<PositionEmbedding>,
            .access = field<&Plan::model, &M::position>()},
    PlanKey{.path = "model.dropout", .type = KeyType::Bool, .editor = KeyEditor::Check,
            .access = field<&Plan::model, &M::dropout>()},

    PlanKey{.path = "model.experts", .type = KeyType::Integer, .range = {0, 65536}, .editor = KeyEditor::Spin,
            .access = field<&Plan::model, &M::experts>()},
    PlanKey{.path = "model.experts_per_token", .type = KeyType::Integer, .range = {0, 65536}, .editor = KeyEditor::Spin,
            .access = field<&Plan::model, &M::expertsPerToken>()},
    PlanKey{.path = "model.shared_experts", .type = KeyType::Integer, .range = {0, 1024}, .editor = KeyEditor::Spin,
            .access = field<&Plan::model, &M::sharedExperts>()},
    PlanKey{.path = "model.expert_ffn_hidden", .type = KeyType::Integer, .range = {0, kTwoTo(22)},
            .zeroMeansUnset = true, .editor = KeyEditor::Spin, .access = field<&Plan::model, &M::expertFfnHidden>()},
    PlanKey{.path = "model.dense_layers", .type = KeyType::Integer, .range = {0, 100000}, .editor = KeyEditor::Spin,
            .access = field<&Plan::model, &M::denseLayers>()},
    PlanKey{.path = "model.moe_layer_interval", .type = KeyType::Integer, .range = {1, 1024}, .editor = KeyEditor::Spin,
            .access = field<&Plan::model, &M::moeLayerInterval>()},
    PlanKey{.path = "model.mtp_layers", .type = KeyType::Integer, .range = {0, 64}, .editor = KeyEditor::Spin,
            .access = field<&Plan::model, &M::mtpLayers>()},
    PlanKey{.path = "model.mtp_repeated", .type = KeyType::Bool, .editor = KeyEditor::Check,
            .access = field<&Plan::model, &M::mtpRepeated>()},
    PlanKey{.path = "model.moe_latent_size", .type = KeyType::Integer, .range = {0, kTwoTo(20)}, .zeroMeansUnset = true,
            .editor = KeyEditor::Spin, .access = field<&Plan::model, &M::moeLatentSize>()},
    PlanKey{.path = "model.router_groups", .type = KeyType::Integer, .range = {0, 65536}, .zeroMeansUnset = true,
            .editor = KeyEditor::Spin, .access = field<&Plan::model, &M::routerGroups>()},
    PlanKey{.path = "model.router_group_topk", .type = KeyType::Integer, .range = {0, 65536}, .zeroMeansUnset = true,
            .editor = KeyEditor::Spin, .access = field<&Plan::model, &M::routerGroupTopk>()},
    PlanKey{.path = "model.attention", .type = KeyType::Enum, .editor = KeyEditor::Choice,
            .choices = choicesOf<AttentionKind>, .access = field<&Plan::model, &M::attention>()},
    PlanKey{.path = "model.q_lora_rank", .type = KeyType::Integer, .range = {0, 65536}, .editor = KeyEditor::Spin,
            .access = field<&Plan::model, &M::qLoraRank>()},
    PlanKey{.path = "model.kv_lora_rank", .type = KeyType::Integer, .range = {0, 65536}, .editor = KeyEditor::Spin,
            .access = field<&Plan::model, &M::kvLoraRank>()},
    PlanKey{.path = "model.qk_nope_head_dim", .type = KeyType::Integer, .range = {0, 65536}, .editor = KeyEditor::Spin,
            .access = field<&Plan::model, &M::qkNopeHeadDim>()},
    PlanKey{.path = "model.qk_rope_head_dim", .type = KeyType::Integer, .range = {0, 65536}, .editor = KeyEditor::Spin,
            .access = field<&Plan::model, &M::qkRopeHeadDim>()},
    PlanKey{.path = "model.v_head_dim", .type = KeyType::Integer, .range = {0, 65536}, .editor = KeyEditor::Spin,
            .access = field<&Plan::model, &M::vHeadDim>()},
    PlanKey{.path = "model.sliding_window", .type = KeyType::Integer, .unit = "tokens", .range = {0, kTwoTo(30)},
            .zeroMeansUnset = true, .editor = KeyEditor::Spin, .access = field<&Plan::model, &M::slidingWindow>()},
    PlanKey{.path = "model.full_attention_interval", .type = KeyType::Integer, .range = {0, 1024},
            .zeroMeansUnset = true, .editor = KeyEditor::Spin,
            .access = field<&Plan::model, &M::fullAttentionInterval>()},
    PlanKey{.path = "model.attention_sinks", .type = KeyType::Bool, .editor = KeyEditor::Check,
            .access = field<&Plan::model, &M::attentionSinks>()},
    PlanKey{.path = "model.activation_clamp", .type = KeyType::Number, .range = {0, 1000}, .editor = KeyEditor::Number,
            .displayDecimals = 2, .access = field<&Plan::model, &M::activationClamp>()},
    PlanKey{.path = "model.hybrid_pattern", .type = KeyType::String, .maxLength = 100000, .editor = KeyEditor::Text,
            .access = field<&Plan::model, &M::hybridPattern>()},
    PlanKey{.path = "model.mamba_state_dim", .type = KeyType::Integer, .range = {1, 65536}, .editor = KeyEditor::Spin,
            .access = field<&Plan::model, &M::mambaStateDim>()},
    PlanKey{.path = "model.mamba_head_dim", .type = KeyType::Integer, .range = {1, 65536}, .editor = KeyEditor::Spin,
            .access = field<&Plan::model, &M::mambaHeadDim>()},
    PlanKey{.path = "model.mamba_heads", .type = KeyType::Integer, .range = {0, 65536}, .zeroMeansUnset = true,
            .editor = KeyEditor::Spin, .access = field<&Plan::model, &M::mambaHeads>()},
    PlanKey{.path = "model.mamba_groups", .type = KeyType::Integer, .range = {1, 65536}, .editor = KeyEditor::Spin,
            .access = field<&Plan::model, &M::mambaGroups>()},

    // Training.
    PlanKey{.path = "training.global_batch", .type = KeyType::Integer, .range = {1, kTwoTo(30)},
            .editor = KeyEditor::Spin, .access = field<&Plan::training, &T::globalBatch>()},
    PlanKey{.path = "training.micro_batch", .type = KeyType::Integer, .range = {1, kTwoTo(20)}, .searchDimension = true,
            .editor = KeyEditor::PowerOfTwoSlider, .access = field<&Plan::training, &T::microBatch>()},
    PlanKey{.path = "training.precision", .type = KeyType::Enum, .editor = KeyEditor::Choice,
            .choices = choicesOf<Precision>, .access = field<&Plan::training, &T::precision>()},
    PlanKey{.path = "training.fp8_recipe", .type = KeyType::Enum, .editor = KeyEditor::Choice,
            .choices = choicesOf<Fp8Recipe>, .access = field<&Plan::training, &T::fp8Recipe>()},
    PlanKey{.path = "training.fp8_param_gather", .type = KeyType::Bool, .editor = KeyEditor::Check,
            .access = field<&Plan::training, &T::fp8ParamGather>()},
    PlanKey{.path = "training.fp8_attention", .type = KeyType::Bool, .editor = KeyEditor::Check,
            .access = field<&Plan::training, &T::fp8Attention>()},
    PlanKey{.path = "training.optimizer", .type = KeyType::Enum, .editor = KeyEditor::Choice,
            .choices = choicesOf<Optimizer>, .access = field<&Plan::training, &T::optimizer>()},
    PlanKey{.path = "training.recompute", .type = KeyType::Enum, .searchDimension = true, .editor = KeyEditor::Choice,
            .choices = choicesOf<Recompute>, .access = field<&Plan::training, &T::recompute>()},
    PlanKey{.path = "training.recompute_mla_up_proj", .type = KeyType::Bool, .editor = KeyEditor::Check,
            .access = field<&Plan::training, &T::recomputeMlaUpProjection>()},
    PlanKey{.path = "training.recompute_moe_act", .type = KeyType::Bool, .editor = KeyEditor::Check,
            .access = field<&Plan::training, &T::recomputeExpertActivation>()},
    PlanKey{.path = "training.recompute_moe", .type = KeyType::Bool, .editor = KeyEditor::Check,
            .access = field<&Plan::training, &T::recomputeMoe>()},
    PlanKey{.path = "training.recompute_mlp", .type = KeyType::Bool, .editor = KeyEditor::Check,
            .access = field<&Plan::training, &T::recomputeDenseMlp>()},
    PlanKey{.path = "training.recompute_attention", .type = KeyType::Bool, .editor = KeyEditor::Check,
            .access = field<&Plan::training, &T::recomputeAttention>()},
    PlanKey{.path = "training.recompute_layers", .type = KeyType::Integer, .range = {0, 100000}, .zeroMeansUnset = true,
            .editor = KeyEditor::Spin, .access = field<&Plan::training, &T::recomputeLayers>()},
    PlanKey{.path = "training.recompute_interval", .type = KeyType::Integer, .range = {0, 100000},
            .zeroMeansUnset = true, .editor = KeyEditor::Spin,
            .access = field<&Plan::training, &T::recomputeInterval>()},
    PlanKey{.path = "training.recompute_chunk", .type = KeyType::Integer, .range = {0, 100000},
            .zeroMeansUnset = true, .editor = KeyEditor::Spin,
            .access = field<&Plan::training, &T::recomputeChunk>()},
    PlanKey{.path = "training.activation_offload_layers", .type = KeyType::Integer, .range = {0, 100000},
            .zeroMeansUnset = true, .editor = KeyEditor::Spin,
            .access = field<&Plan::training, &T::activationOffloadLayers>()},
    PlanKey{.path = "training.sequence_parallel", .type = KeyType::Bool, .searchDimension = true,
            .editor = KeyEditor::Check, .access = field<&Plan::training, &T::sequenceParallel>()},
    PlanKey{.path = "training.flash_attention", .type = KeyType::Bool, .editor = KeyEditor::Check,
            .access = field<&Plan::training, &T::flashAttention>()},
    PlanKey{.path = "training.fp32_gradients", .type = KeyType::Bool, .editor = KeyEditor::Check,
            .access = field<&Plan::training, &T::fp32Gradients>()},
    PlanKey{.path = "training.framework", .type = KeyType::Enum, .editor = KeyEditor::Choice,
            .choices = choicesOf<Framework>, .access = field<&Plan::training, &T::framework>()},
    PlanKey{.path = "training.expandable_segments", .type = KeyType::Bool, .editor = KeyEditor::Check,
            .access = field<&Plan::training, &T::expandableSegments>()},
    PlanKey{.path = "training.allocator_reserve_fraction", .type = KeyType::Number, .range = kFraction,
            .optional = true, .editor = KeyEditor::Number, .displayDecimals = 3,
            .access = field<&Plan::training, &T::allocatorReserveFraction>()},
    PlanKey{.path = "training.memory_margin", .type = KeyType::Number, .range = {0, 0.5}, .editor = KeyEditor::Number,
            .displayDecimals = 3, .access = field<&Plan::training, &T::memoryMargin>()},
    PlanKey{.path = "training.capacity_factor", .type = KeyType::Number, .range = {0.01, 1000}, .optional = true,
            .editor = KeyEditor::Number, .displayDecimals = 2, .access = field<&Plan::training, &T::capacityFactor>()},
    PlanKey{.path = "training.expert_imbalance", .type = KeyType::Number, .range = {1, 1000},
            .editor = KeyEditor::Number, .displayDecimals = 2, .access = field<&Plan::training, &T::expertImbalance>()},
    PlanKey{.path = "training.expert_routing", .type = KeyType::Enum, .editor = KeyEditor::Choice,
            .choices = choicesOf<ExpertRouting>, .access = field<&Plan::training, &T::expertRouting>()},
    PlanKey{.path = "training.fused_kernels", .type = KeyType::Bool, .editor = KeyEditor::Check,
            .access = field<&Plan::training, &T::fusedKernels>()},
    PlanKey{.path = "training.attention_kernel", .type = KeyType::Enum, .editor = KeyEditor::Choice,
            .choices = choicesOf<AttentionKernel>, .access = field<&Plan::training, &T::attentionKernel>()},
    PlanKey{.path = "training.compile", .type = KeyType::Bool, .editor = KeyEditor::Check,
            .access = field<&Plan::training, &T::compile>()},
    PlanKey{.path = "training.fused_norm", .type = KeyType::Bool, .editor = KeyEditor::Check,
            .access = field<&Plan::training, &T::fusedNorm>()},
    PlanKey{.path = "training.separate_qkv", .type = KeyType::Bool, .editor = KeyEditor::Check,
            .access = field<&Plan::training, &T::separateQkv>()},
    PlanKey{.path = "training.repeat_kv_heads", .type = KeyType::Bool, .editor = KeyEditor::Check,
            .access = field<&Plan::training, &T::repeatKvHeads>()},
    PlanKey{.path = "training.fused_rope", .type = KeyType::Bool, .editor = KeyEditor::Check,
            .access = field<&Plan::training, &T::fusedRope>()},
    PlanKey{.path = "training.bf16_layers_at_start", .type = KeyType::Integer, .range = {0, 100000},
            .editor = KeyEditor::Spin, .access = field<&Plan::training, &T::bf16LayersAtStart>()},
    PlanKey{.path = "training.bf16_layers_at_end", .type = KeyType::Integer, .range = {0, 100000},
            .editor = KeyEditor::Spin, .access = field<&Plan::training, &T::bf16LayersAtEnd>()},
    PlanKey{.path = "training.bf16_attention_projections", .type = KeyType::Bool, .editor = KeyEditor::Check,
            .access = field<&Plan::training, &T::bf16AttentionProjections>()},
    PlanKey{.path = "training.bf16_latent_projections", .type = KeyType::Bool, .editor = KeyEditor::Check,
            .access = field<&Plan::training, &T::bf16LatentProjections>()},
    PlanKey{.path = "training.bf16_mtp_modules", .type = KeyType::Bool, .editor = KeyEditor::Check,
            .access = field<&Plan::training, &T::bf16MtpModules>()},
    PlanKey{.path = "training.optimizer_kernel", .type = KeyType::Enum, .editor = KeyEditor::Choice,
            .choices = choicesOf<OptimizerKernel>, .access = field<&Plan::training, &T::optimizerKernel>()},
    PlanKey{.path = "training.optimizer_moments", .type = KeyType::Enum, .editor = KeyEditor::Choice,
            .choices = choicesOf<MomentFormat>, .access = field<&Plan::training, &T::optimizerMoments>()},
    PlanKey{.path = "training.muon_steps", .type = KeyType::Integer, .range = {1, 20}, .editor = KeyEditor::Spin,
            .access = field<&Plan::training, &T::muonSteps>()},
    PlanKey{.path = "training.muon_tp_mode", .type = KeyType::Enum, .editor = KeyEditor::Choice,
            .choices = choicesOf<MuonTpMode>, .access = field<&Plan::training, &T::muonTpMode>()},
    PlanKey{.path = "training.muon_scalar_optimizer", .type = KeyType::Enum, .editor = KeyEditor::Choice,
            .choices = choicesOf<MuonScalarOptimizer>, .access = field<&Plan::training, &T::muonScalarOptimizer>()},
    PlanKey{.path = "training.master_weights", .type = KeyType::Enum, .editor = KeyEditor::Choice,
            .choices = choicesOf<MasterFormat>, .access = field<&Plan::training, &T::masterWeights>()},
    PlanKey{.path = "training.loss_kernel", .type = KeyType::Enum, .editor = KeyEditor::Choice,
            .choices = choicesOf<LossKernel>, .access = field<&Plan::training, &T::lossKernel>()},
    PlanKey{.path = "training.schedule_microbatches", .type = KeyType::Integer, .range = {0, kTwoTo(24)},
            .zeroMeansUnset = true, .editor = KeyEditor::Spin,
            .access = field<&Plan::training, &T::scheduleMicrobatches>()},
    PlanKey{.path = "training.keep_pipeline_outputs", .type = KeyType::Bool, .editor = KeyEditor::Check,
            .access = field<&Plan::training, &T::keepPipelineOutputs>()},
    PlanKey{.path = "training.defer_embedding_wgrad", .type = KeyType::Bool, .editor = KeyEditor::Check,
            .access = field<&Plan::training, &T::deferEmbeddingWgrad>()},
    PlanKey{.path = "training.wgrad_deferral_limit", .type = KeyType::Integer, .range = {0, kTwoTo(24)},
            .zeroMeansUnset = true, .editor = KeyEditor::Spin,
            .access = field<&Plan::training, &T::wgradDeferralLimit>()},
    PlanKey{.path = "training.cuda_graphs", .type = KeyType::Enum, .searchDimension = true, .editor = KeyEditor::Choice,
            .choices = choicesOf<CudaGraphs>, .access = field<&Plan::training, &T::cudaGraphs>()},
    PlanKey{.path = "training.fused_expert_mlp", .type = KeyType::Bool, .editor = KeyEditor::Check,
            .access = field<&Plan::training, &T::fusedExpertMlp>()},
    PlanKey{.path = "training.moe_paged_stash", .type = KeyType::Bool, .editor = KeyEditor::Check,
            .access = field<&Plan::training, &T::moePagedStash>()},
    PlanKey{.path = "training.moe_router_fusion", .type = KeyType::Bool, .editor = KeyEditor::Check,
            .access = field<&Plan::training, &T::moeRouterFusion>()},
    PlanKey{.path = "training.moe_permute_fusion", .type = KeyType::Bool, .editor = KeyEditor::Check,
            .access = field<&Plan::training, &T::moePermuteFusion>()},
    PlanKey{.path = "training.padding_fraction", .type = KeyType::Number, .range = kFraction,
            .editor = KeyEditor::Number, .displayDecimals = 3,
            .access = field<&Plan::training, &T::paddingFraction>()},
    PlanKey{.path = "training.document_length", .type = KeyType::Integer, .unit = "tokens", .range = {0, kTwoTo(30)},
            .zeroMeansUnset = true, .editor = KeyEditor::Spin, .access = field<&Plan::training, &T::documentLength>()},

    // Parallel layout.
    PlanKey{.path = "parallel.data", .type = KeyType::Integer, .range = {1, kTwoTo(24)}, .searchDimension = true,
            .access = field<&Plan::parallel, &P::data>()},
    PlanKey{.path = "parallel.tensor", .type = KeyType::Integer, .range = {1, 65536}, .searchDimension = true,
            .editor = KeyEditor::Spin, .rebalancesData = true, .access = field<&Plan::parallel, &P::tensor>()},
    PlanKey{.path = "parallel.pipeline", .type = KeyType::Integer, .range = {1, double(kMaxPipelineStages)},
            .searchDimension = true, .editor = KeyEditor::Spin, .rebalancesData = true,
            .access = field<&Plan::parallel, &P::pipeline>()},
    PlanKey{.path = "parallel.context", .type = KeyType::Integer, .range = {1, 65536}, .searchDimension = true,
            .editor = KeyEditor::Spin, .rebalancesData = true, .access = field<&Plan::parallel, &P::context>()},
    PlanKey{.path = "parallel.context_comm", .type = KeyType::Enum, .editor = KeyEditor::Choice,
            .choices = choicesOf<ContextComm>, .access = field<&Plan::parallel, &P::contextComm>()},
    PlanKey{.path = "parallel.rank_order", .type = KeyType::Enum, .editor = KeyEditor::Choice,
            .choices = choicesOf<RankOrder>, .access = field<&Plan::parallel, &P::rankOrder>()},
    PlanKey{.path = "parallel.virtual_stages", .type = KeyType::Integer, .range = {1, 1024}, .searchDimension = true,
            .editor = KeyEditor::Spin, .access = field<&Plan::parallel, &P::virtualStages>()},
    PlanKey{.path = "parallel.first_stage_layers", .type = KeyType::Integer, .range = {0, 100000},
            .zeroMeansUnset = true, .editor = KeyEditor::Spin,
            .access = field<&Plan::parallel, &P::firstStageLayers>()},
    PlanKey{.path = "parallel.last_stage_layers", .type = KeyType::Integer, .range = {0, 100000},
            .zeroMeansUnset = true, .editor = KeyEditor::Spin, .access = field<&Plan::parallel, &P::lastStageLayers>()},
    PlanKey{.path = "parallel.stage_layers", .type = KeyType::IntegerList, .range = {1, 100000}, .maxLength = 8192,
            .optional = true, .editor = KeyEditor::Text, .access = stageLayersField()},
    PlanKey{.path = "parallel.expert", .type = KeyType::Integer, .range = {1, 65536}, .searchDimension = true,
            .editor = KeyEditor::Spin, .access = field<&Plan::parallel, &P::expert>()},
    PlanKey{.path = "parallel.expert_tensor", .type = KeyType::Integer, .range = {0, 65536}, .zeroMeansUnset = true,
            .searchDimension = true, .editor = KeyEditor::Spin, .access = field<&Plan::parallel, &P::expertTensor>()},
    PlanKey{.path = "parallel.expert_dispatcher", .type = KeyType::Enum, .searchDimension = true,
            .editor = KeyEditor::Choice, .choices = choicesOf<ExpertDispatcher>,
            .access = field<&Plan::parallel, &P::expertDispatcher>()},
    PlanKey{.path = "parallel.expert_comm_overlap", .type = KeyType::Bool, .searchDimension = true,
            .editor = KeyEditor::Check, .access = field<&Plan::parallel, &P::expertCommOverlap>()},
    PlanKey{.path = "parallel.reshard_after_forward", .type = KeyType::Bool, .editor = KeyEditor::Check,
            .access = field<&Plan::parallel, &P::reshardAfterForward>()},
    PlanKey{.path = "parallel.shard_group", .type = KeyType::Integer, .range = {0, 1 << 20}, .zeroMeansUnset = true,
            .editor = KeyEditor::Spin, .access = field<&Plan::parallel, &P::shardGroup>()},
    PlanKey{.path = "parallel.zero_quantized_weights", .type = KeyType::Bool, .editor = KeyEditor::Check,
            .access = field<&Plan::parallel, &P::zeroQuantizedWeights>()},
    PlanKey{.path = "parallel.zero_hpz_partition", .type = KeyType::Integer, .range = {1, 1 << 20},
            .editor = KeyEditor::Spin, .access = field<&Plan::parallel, &P::zeroHpzPartition>()},
    PlanKey{.path = "parallel.zero_quantized_gradients", .type = KeyType::Bool, .editor = KeyEditor::Check,
            .access = field<&Plan::parallel, &P::zeroQuantizedGradients>()},
    PlanKey{.path = "parallel.schedule", .type = KeyType::Enum, .searchDimension = true, .editor = KeyEditor::Choice,
            .choices = choicesOf<Schedule>, .access = field<&Plan::parallel, &P::schedule>()},
    PlanKey{.path = "parallel.zero_stage", .type = KeyType::Integer, .range = {0, 3}, .searchDimension = true,
            .editor = KeyEditor::Choice, .choices = zeroStages, .access = field<&Plan::parallel, &P::zeroStage>()},
    PlanKey{.path = "parallel.offload_optimizer", .type = KeyType::Bool, .editor = KeyEditor::Check,
            .access = field<&Plan::parallel, &P::offloadOptimizer>()},
    PlanKey{.path = "parallel.optimizer_offload_fraction", .type = KeyType::Number, .range = {0, 1},
            .editor = KeyEditor::Number, .displayDecimals = 2,
            .access = field<&Plan::parallel, &P::optimizerOffloadFraction>()},
    PlanKey{.path = "parallel.overlap_offload_copies", .type = KeyType::Bool, .editor = KeyEditor::Check,
            .access = field<&Plan::parallel, &P::overlapOffloadCopies>()},
    PlanKey{.path = "parallel.offload_parameters", .type = KeyType::Bool, .editor = KeyEditor::Check,
            .access = field<&Plan::parallel, &P::offloadParameters>()},
    PlanKey{.path = "parallel.bucket_bytes", .type = KeyType::Number, .unit = "bytes", .range = {1e3, 1e11},
            .editor = KeyEditor::Number, .displayScale = 1e6, .displayUnit = "MB", .displayDecimals = 3,
            .access = field<&Plan::parallel, &P::bucketBytes>()},
    PlanKey{.path = "parallel.overlap_grad_reduce", .type = KeyType::Bool, .editor = KeyEditor::Check,
            .access = field<&Plan::parallel, &P::overlapGradReduce>()},

    PlanKey{.path = "parallel.overlap_param_gather", .type = KeyType::Bool, .editor = KeyEditor::Check,
            .access = field<&Plan::parallel, &P::overlapParamGather>()},
    PlanKey{.path = "parallel.tensor_comm_overlap", .type = KeyType::Bool, .editor = KeyEditor::Check,
            .access = field<&Plan::parallel, &P::tensorCommOverlap>()},

    PlanKey{.path = "parallel.overlap_p2p_comm", .type = KeyType::Bool, .editor = KeyEditor::Check,
            .access = field<&Plan::parallel, &P::overlapP2pComm>()},

    // Cluster.
    PlanKey{.path = "cluster.device", .type = KeyType::String, .editor = KeyEditor::Device,
            .access = {[](const Plan &p) { return KeyValue(p.cluster.device); },
                       [](Plan &p, const KeyValue &v) { std::string id; fromValue(v, id); p.cluster.setDevice(id); }}},
    PlanKey{.path = "cluster.gpus_per_node", .type = KeyType::Integer, .range = {1, double(kMaxGpusPerNode)},
            .editor = KeyEditor::Spin, .rebalancesData = true,
            .access = {[](const Plan &p) { return KeyValue(p.cluster.gpusPerNode); },
                       [](Plan &p, const KeyValue &v) {
                           std::int64_t n = 1;
                           fromValue(v, n);
                           p.cluster.setGpusPerNode(n);
                       }}},
    PlanKey{.path = "cluster.nodes", .type = KeyType::Integer, .range = {1, kTwoTo(20)}, .editor = KeyEditor::Spin,
            .rebalancesData = true,
            .access = {[](const Plan &p) { return KeyValue(p.cluster.nodes); },
                       [](Plan &p, const KeyValue &v) { std::int64_t n = 1; fromValue(v, n); p.cluster.setNodes(n); }}},
    PlanKey{.path = "cluster.scale_up_domain", .type = KeyType::Integer, .range = {0, 576}, .zeroMeansUnset = true,
            .editor = KeyEditor::Spin, .access = field<&Plan::cluster, &C::scaleUpDomain>()},
    PlanKey{.path = "cluster.intra_node_link", .type = KeyType::String,
            .access = field<&Plan::cluster, &C::intraNodeLink>()},
    PlanKey{.path = "cluster.network", .type = KeyType::String, .access = field<&Plan::cluster, &C::network>()},
    PlanKey{.path = "cluster.node_groups", .type = KeyType::Array},
    PlanKey{.path = "cluster.custom_devices", .type = KeyType::Array},
    PlanKey{.path = "cluster.intra_node_bandwidth", .type = KeyType::Number, .unit = "bytes/s", .range = kBandwidth,
            .optional = true, .access = overrideField<&ClusterOverrides::intraNodeBandwidthBytesPerSecond>()},
    PlanKey{.path = "cluster.intra_node_latency", .type = KeyType::Number, .unit = "s", .range = kLatency,
            .optional = true, .access = overrideField<&ClusterOverrides::intraNodeLatencySeconds>()},
    PlanKey{.path = "cluster.network_bandwidth", .type = KeyType::Number, .unit = "bytes/s", .range = kBandwidth,
            .optional = true, .access = overrideField<&ClusterOverrides::networkBandwidthBytesPerSecond>()},
    PlanKey{.path = "cluster.network_latency", .type = KeyType::Number, .unit = "s", .range = kLatency,
            .optional = true, .access = overrideField<&ClusterOverrides::networkLatencySeconds>()},
    PlanKey{.path = "cluster.runtime_context_bytes", .type = KeyType::Number, .unit = "bytes", .range = {0, 1e12},
            .optional = true, .access = overrideField<&ClusterOverrides::runtimeContextBytes>()},
    PlanKey{.path = "cluster.host_link_bandwidth", .type = KeyType::Number, .unit = "bytes/s", .range = kBandwidth,
            .optional = true, .access = overrideField<&ClusterOverrides::hostLinkBandwidthBytesPerSecond>()},
    PlanKey{.path = "cluster.host_launch_overhead", .type = KeyType::Number, .unit = "s", .range = {0, 0.01},
            .optional = true, .access = overrideField<&ClusterOverrides::hostLaunchSeconds>()},
    PlanKey{.path = "cluster.host_enqueue_overhead", .type = KeyType::Number, .unit = "s", .range = {0, 0.01},
            .optional = true, .access = overrideField<&ClusterOverrides::hostEnqueueSeconds>()},
    PlanKey{.path = "cluster.flex_dispatch_efficiency", .type = KeyType::Number, .range = {0, 1, true, false},
            .optional = true, .access = overrideField<&ClusterOverrides::flexDispatchEfficiency>()},
    PlanKey{.path = "cluster.network_alltoall_efficiency", .type = KeyType::Number, .range = {0, 1, true, false},
            .optional = true, .access = overrideField<&ClusterOverrides::networkAllToAllEfficiency>()},
    PlanKey{.path = "cluster.intra_node_alltoall_efficiency", .type = KeyType::Number, .range = {0, 1, true, false},
            .optional = true, .access = overrideField<&ClusterOverrides::intraNodeAllToAllEfficiency>()},
    PlanKey{.path = "cluster.host_memory_bandwidth", .type = KeyType::Number, .unit = "bytes/s", .range = kBandwidth,
            .optional = true, .access = overrideField<&ClusterOverrides::hostMemoryBandwidthBytesPerSecond>()},

    // Run.
    PlanKey{.path = "run.token_budget", .type = KeyType::Number, .unit = "tokens", .range = {1, 1e18, false, true},
            .editor = KeyEditor::Number, .displayScale = 1e9, .displayUnit = "B tokens", .displayDecimals = 1,
            .access = field<&Plan::run, &R::tokenBudget>()},
    PlanKey{.path = "run.price_per_gpu_hour", .type = KeyType::Number, .range = {0, 1e6, false, true},
            .editor = KeyEditor::Number, .displayDecimals = 2, .access = field<&Plan::run, &R::pricePerGpuHour>()},
    PlanKey{.path = "run.currency", .type = KeyType::String, .maxLength = 12, .editor = KeyEditor::Text,
            .access = field<&Plan::run, &R::currency>()},
    PlanKey{.path = "run.checkpoint_bandwidth", .type = KeyType::Number, .unit = "bytes/s", .range = kBandwidth,
            .editor = KeyEditor::Number, .displayScale = 1e9, .displayUnit = "GB/s", .displayDecimals = 1,
            .access = field<&Plan::run, &R::checkpointBandwidthBytesPerSecond>()},
    PlanKey{.path = "run.sharded_checkpoint", .type = KeyType::Bool, .editor = KeyEditor::Check,
            .access = field<&Plan::run, &R::shardedCheckpoint>()},
    PlanKey{.path = "run.gpu_mtbf_hours", .type = KeyType::Number, .unit = "hours", .range = {1, 1e7},
            .editor = KeyEditor::Number, .displayUnit = "h", .displayDecimals = 0,
            .access = field<&Plan::run, &R::gpuMtbfHours>()},
    PlanKey{.path = "run.restart_seconds", .type = KeyType::Number, .unit = "s", .range = {0, 1e6},
            .editor = KeyEditor::Number, .displayUnit = "s", .displayDecimals = 0,
            .access = field<&Plan::run, &R::restartSeconds>()},
};
// clang-format on

} // namespace

std::string boundText(double v)
{
    if (v >= 1048576.0 && std::floor(std::log2(v)) == std::log2(v))
        return "2^" + std::to_string(int(std::log2(v)));
    if (std::floor(v) == v && std::fabs(v) < 1e6)
        return std::to_string(std::int64_t(v));
    char buffer[64];
    if (std::fabs(v) >= 1e-3 && std::fabs(v) < 1e6) { // a fraction as the plan file writes it: "0.5", not "5e-01"
        const auto result = std::to_chars(buffer, buffer + sizeof buffer, v, std::chars_format::fixed);
        return std::string(buffer, result.ptr);
    }
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, v, std::chars_format::scientific);
    std::string text(buffer, result.ptr);
    // "1e12", not "1e+12"; "1e6", not "1e+06"; "1e-6", not "1e-06".
    const auto e = text.find('e');
    const bool negative = e + 1 < text.size() && text[e + 1] == '-';
    std::size_t digits = e + 1 + (negative || (e + 1 < text.size() && text[e + 1] == '+') ? 1 : 0);
    while (digits + 1 < text.size() && text[digits] == '0')
        ++digits;
    return text.substr(0, e + 1) + (negative ? "-" : "") + text.substr(digits);
}

std::string_view PlanKey::section() const
{
    const std::string_view p(path);
    const auto dot = p.find('.');
    return dot == std::string_view::npos ? std::string_view() : p.substr(0, dot);
}

std::string_view PlanKey::name() const
{
    const std::string_view p(path);
    const auto dot = p.find('.');
    return dot == std::string_view::npos ? p : p.substr(dot + 1);
}

std::span<const PlanKey> planKeys()
{
    return kKeys;
}

const PlanKey *findPlanKey(std::string_view path)
{
    for (const PlanKey &k : kKeys)
        if (path == k.path)
            return &k;
    return nullptr;
}

int indexOf(const PlanKey &key)
{
    return int(&key - kKeys.data());
}

std::string formatValue(const KeyValue &value)
{
    if (const auto *i = std::get_if<std::int64_t>(&value))
        return std::to_string(*i);
    if (const auto *b = std::get_if<bool>(&value))
        return *b ? "true" : "false";
    if (const auto *s = std::get_if<std::string>(&value))
        return *s;
    if (const auto *d = std::get_if<double>(&value)) {
        if (!std::isfinite(*d))
            return "n/a";
        char buffer[64];
        const auto result = std::to_chars(buffer, buffer + sizeof buffer, *d); // shortest round-trip form
        return std::string(buffer, result.ptr);
    }
    return "";
}

std::vector<std::string> rangeValues(const PlanKey &key)
{
    const KeyRange &r = key.range;
    if (!r.bounded() || (key.type != KeyType::Integer && key.type != KeyType::Number))
        return {};
    const std::string lo = boundText(r.minimum), hi = boundText(r.maximum);
    if (std::isinf(r.maximum))
        return {r.minimumExclusive ? "greater_than" : "at_least", lo};
    if (key.type == KeyType::Integer)
        return {"whole_number", lo, hi};
    return {std::string(r.minimumExclusive ? "(" : "[") + (r.maximumExclusive ? ")" : "]"), lo, hi};
}

std::size_t characters(std::string_view utf8)
{
    std::size_t n = 0;
    for (const char c : utf8)
        n += (static_cast<unsigned char>(c) & 0xC0) != 0x80; // continuation bytes do not start a character
    return n;
}

/// Whether a key about the kernels the framework runs applies (nullopt: the path is not one of them).
std::optional<bool> kernelKeyApplies(std::string_view path, const Plan &plan)
{
    const TrainingConfig &t = plan.training;
    if (path == "training.compile" || path == "training.separate_qkv")
        return t.framework != Framework::Megatron;
    if (path == "training.repeat_kv_heads")
        return kvRepeatApplies(plan.model, t);
    if (path == "training.fused_rope")
        return ropeFusionApplies(plan.model, t);
    if (path == "training.bf16_layers_at_start" || path == "training.bf16_layers_at_end")
        return plan.bf16LayersApply();
    if (path == "training.bf16_attention_projections")
        return isLowPrecisionMatmul(t.precision);
    if (path == "training.bf16_latent_projections")
        return bf16LatentProjectionsApply(plan.model, t);
    if (path == "training.bf16_mtp_modules")
        return bf16MtpModulesApply(plan.model, t);
    if (path == "training.fused_norm")
        return t.framework != Framework::Megatron && !t.fusesElementwise();
    if (path == "training.attention_kernel")
        return t.flashAttention;
    if (path == "training.fused_kernels")
        return t.framework != Framework::Fsdp;
    return std::nullopt;
}

bool keyApplies(const PlanKey &key, const Plan &plan)
{
    static constexpr std::string_view moeKeys[] = {"model.experts_per_token",      "model.shared_experts",
                                                   "model.expert_ffn_hidden",      "model.dense_layers",
                                                   "model.moe_layer_interval",     "training.capacity_factor",
                                                   "training.expert_imbalance",    "parallel.expert",
                                                   "parallel.expert_tensor",       "training.recompute_moe_act",
                                                   "training.recompute_moe",       "model.router_groups",
                                                   "model.router_group_topk",      "parallel.expert_dispatcher",
                                                   "training.fused_expert_mlp",    "training.expert_routing"};
    static constexpr std::string_view mlaKeys[] = {"model.q_lora_rank",      "model.kv_lora_rank",
                                                   "model.qk_nope_head_dim", "model.qk_rope_head_dim",
                                                   "model.v_head_dim",       "training.recompute_mla_up_proj"};
    const std::string_view path = key.path;
    if (const std::optional<bool> applies = kernelKeyApplies(path, plan))
        return *applies;
    // Selective recomputation's modules (an edit that leaves one set elsewhere shows it, in error, to be unset).
    static constexpr std::string_view modules[] = {"training.recompute_mla_up_proj", "training.recompute_moe_act",
                                                   "training.recompute_moe", "training.recompute_mlp"};
    if (std::find(std::begin(modules), std::end(modules), path) != std::end(modules) &&
        plan.training.recompute != Recompute::Selective)
        return false;
    if (path == "parallel.expert_comm_overlap" || path == "training.moe_router_fusion" ||
        path == "training.moe_permute_fusion" || path == "training.moe_paged_stash" || path == "model.moe_latent_size")
        return plan.model.isMoe() && plan.training.framework == Framework::Megatron;
    if (path == "model.mtp_repeated")
        return plan.model.mtpLayers > 1;
    if (path == "training.cuda_graphs")
        return plan.training.framework != Framework::DeepSpeed;
    if (path == "model.dense_layers" || path == "model.moe_layer_interval") // a hybrid pattern places the experts
        return plan.model.isMoe() && !plan.model.isHybrid();
    if (std::find(std::begin(moeKeys), std::end(moeKeys), path) != std::end(moeKeys))
        return plan.model.isMoe();
    if (std::find(std::begin(mlaKeys), std::end(mlaKeys), path) != std::end(mlaKeys))
        return plan.model.isMla();
    if (path == "parallel.reshard_after_forward")
        return plan.training.framework == Framework::Fsdp;
    if (path == "training.muon_steps" || path == "training.muon_tp_mode" || path == "training.muon_scalar_optimizer")
        return plan.training.usesMuon();
    if (path == "parallel.offload_parameters")
        return plan.parameterOffloadAllowed();
    if (path == "parallel.optimizer_offload_fraction" || path == "parallel.overlap_offload_copies")
        return plan.parallel.offloadOptimizer && plan.training.framework == Framework::Megatron;
    if (path == "parallel.shard_group")
        return plan.shardGroupAllowed();
    if (path == "parallel.zero_quantized_weights" || path == "parallel.zero_hpz_partition" ||
        path == "parallel.zero_quantized_gradients")
        return plan.zeroPlusPlusAllowed();
    if (path == "training.recompute_layers" || path == "training.recompute_interval" ||
        path == "training.recompute_chunk")
        return plan.training.recompute == Recompute::Full;
    if (path == "training.recompute_attention")
        return plan.training.recompute == Recompute::Ops;
    if (path == "training.defer_embedding_wgrad")
        return plan.embeddingWgradDeferralAllowed();
    if (path == "training.wgrad_deferral_limit")
        return plan.deferredWgradMicrobatches() > 0;
    if (path == "training.keep_pipeline_outputs" || path == "training.schedule_microbatches")
        return plan.training.framework == Framework::Fsdp && plan.parallel.pipeline > 1;
    if (path == "model.activation_clamp")
        return plan.model.mlp == MlpKind::SwiGlu;
    if (path == "model.full_attention_interval")
        return plan.model.slidingWindow > 0;
    if (path == "model.mamba_state_dim" || path == "model.mamba_head_dim" || path == "model.mamba_heads" ||
        path == "model.mamba_groups")
        return plan.model.isHybrid();
    if (path == "training.fp8_recipe")
        return plan.training.precision == Precision::FP8;
    if (path == "parallel.stage_layers")
        return plan.parallel.pipeline > 1;
    return true;
}

std::optional<Problem> checkLength(std::string_view text, std::size_t maximum)
{
    const std::size_t n = characters(text);
    if (n <= maximum)
        return std::nullopt;
    return ruleProblem(Severity::Error, {}, "text.too_long", {std::to_string(maximum), std::to_string(n)});
}

std::optional<Problem> checkValue(const PlanKey &key, const KeyValue &value)
{
    if (std::holds_alternative<std::monostate>(value))
        return std::nullopt;
    if (key.type == KeyType::IntegerList) {
        const auto *text = std::get_if<std::string>(&value);
        const auto list = text ? parseIntegerList(*text) : std::nullopt;
        if (text && !list)
            return ruleProblem(Severity::Error, key.path, "value.integer_list", {*text});
        for (const std::int64_t v : list.value_or(std::vector<std::int64_t>{}))
            if (key.range.bounded() && (double(v) < key.range.minimum || double(v) > key.range.maximum))
                return ruleProblem(Severity::Error, key.path, "list.range",
                                   {std::to_string(v), formatValue(KeyValue(std::int64_t(key.range.minimum))),
                                    formatValue(KeyValue(std::int64_t(key.range.maximum)))});
        return std::nullopt;
    }
    if (key.type == KeyType::String)
        if (const auto *s = std::get_if<std::string>(&value)) {
            std::optional<Problem> problem = checkLength(*s, key.maxLength > 0 ? key.maxLength : kMaxIdLength);
            if (problem)
                problem->key = key.path;
            return problem;
        }
    if (key.choices && key.type == KeyType::Enum) {
        const std::string *s = std::get_if<std::string>(&value);
        for (const KeyChoice &c : key.choices())
            if (s && *s == c.spelling)
                return std::nullopt;
        std::string list;
        for (const KeyChoice &c : key.choices())
            list += (list.empty() ? "\"" : ", \"") + c.spelling + "\"";
        return ruleProblem(Severity::Error, key.path, "choice.unknown", {s ? *s : formatValue(value), list});
    }
    if (!key.range.bounded())
        return std::nullopt;
    double v = 0;
    if (const auto *i = std::get_if<std::int64_t>(&value))
        v = double(*i);
    else if (const auto *d = std::get_if<double>(&value))
        v = *d;
    else
        return std::nullopt;
    const KeyRange &r = key.range;
    const bool low = r.minimumExclusive ? !(v > r.minimum) : !(v >= r.minimum);
    const bool high = r.maximumExclusive ? !(v < r.maximum) : !(v <= r.maximum);
    if (!low && !high)
        return std::nullopt;
    // values: the value, its unit, then the range (rangeValues: its kind and bounds).
    std::vector<std::string> values{formatValue(value), key.unit};
    for (std::string &bound : rangeValues(key))
        values.push_back(std::move(bound));
    return ruleProblem(Severity::Error, key.path, "range", std::move(values));
}

std::optional<std::vector<std::int64_t>> parseIntegerList(std::string_view text)
{
    std::vector<std::int64_t> out;
    std::size_t i = 0;
    const auto skipSpaces = [&] {
        while (i < text.size() && (text[i] == ' ' || text[i] == '\t'))
            ++i;
    };
    skipSpaces();
    if (i == text.size())
        return out;
    while (true) {
        skipSpaces();
        std::int64_t v = 0;
        const auto r = std::from_chars(text.data() + i, text.data() + text.size(), v);
        if (r.ec != std::errc() || out.size() >= 100000)
            return std::nullopt;
        out.push_back(v);
        i = std::size_t(r.ptr - text.data());
        skipSpaces();
        if (i == text.size())
            return out;
        if (text[i] != ',')
            return std::nullopt;
        ++i;
    }
}

std::string integerListText(const std::vector<std::int64_t> &values)
{
    std::string out;
    for (const std::int64_t v : values)
        out += (out.empty() ? "" : ", ") + std::to_string(v);
    return out;
}

std::optional<KeyValue> parseValue(const PlanKey &key, std::string_view text, Problem *problem)
{
    const auto fail = [&](const char *rule) -> std::optional<KeyValue> {
        if (problem)
            *problem = ruleProblem(Severity::Error, key.path, rule);
        return std::nullopt;
    };
    KeyValue value;
    switch (key.type) {
    case KeyType::Integer: {
        std::int64_t i = 0;
        const auto r = std::from_chars(text.data(), text.data() + text.size(), i);
        if (r.ec != std::errc() || r.ptr != text.data() + text.size())
            return fail("value.whole_number");
        value = i;
        break;
    }
    case KeyType::Number: {
        double d = 0;
        const auto r = std::from_chars(text.data(), text.data() + text.size(), d);
        if (r.ec != std::errc() || r.ptr != text.data() + text.size() || !std::isfinite(d))
            return fail("value.finite_number");
        value = d;
        break;
    }
    case KeyType::Bool:
        if (text != "true" && text != "false")
            return fail("value.true_or_false");
        value = text == "true";
        break;
    case KeyType::Enum:
    case KeyType::String:
    case KeyType::IntegerList:
        value = std::string(text);
        break;
    case KeyType::Array:
        return fail("value.array");
    }
    if (std::optional<Problem> broken = checkValue(key, value)) {
        if (problem)
            *problem = std::move(*broken);
        return std::nullopt;
    }
    return value;
}

} // namespace trainplan
