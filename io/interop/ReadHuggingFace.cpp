// Hugging Face config.json files (io/interop/ImportReaders.h).

#include "io/interop/ImportReaders.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>

#include <cstring>

namespace trainplan::io {

QByteArray relaxedJson(const QByteArray &json)
{
    // Python's json.dump writes float("inf") and NaN as bare Infinity / NaN (Nemotron-H's time_step_limit):
    // outside strings they become null, which no plan key takes.
    QByteArray out;
    out.reserve(json.size());
    bool inString = false;
    for (qsizetype i = 0; i < json.size(); ++i) {
        const char c = json.at(i);
        if (inString) {
            out += c;
            if (c == '\\' && i + 1 < json.size())
                out += json.at(++i);
            else if (c == '"')
                inString = false;
            continue;
        }
        inString = c == '"';
        qsizetype matched = 0;
        for (const char *word : {"-Infinity", "Infinity", "NaN"})
            if (matched == 0 && json.mid(i, qsizetype(std::strlen(word))) == word)
                matched = qsizetype(std::strlen(word));
        if (matched > 0) {
            out += "null";
            i += matched - 1;
        } else {
            out += c;
        }
    }
    return out;
}

} // namespace trainplan::io

namespace trainplan::io::reading {

namespace {

const std::map<QString, Rule> &huggingFaceRules()
{
    static const std::map<QString, Rule> rules{
        {"hidden_size", {"model.hidden", asInteger}},
        {"n_embd", {"model.hidden", asInteger}},
        {"num_hidden_layers", {"model.layers", asInteger}},
        {"n_layer", {"model.layers", asInteger}},
        {"num_attention_heads", {"model.heads", asInteger}},
        {"n_head", {"model.heads", asInteger}},
        {"num_key_value_heads", {"model.kv_heads", asInteger}},
        {"head_dim", {"model.head_dim", asInteger}},
        {"intermediate_size", {"model.ffn_hidden", asInteger}},
        {"n_inner", {"model.ffn_hidden", asInteger}},
        {"vocab_size", {"model.vocab", asInteger}},
        {"tie_word_embeddings", {"model.tied_embeddings", asBool}},
        {"hidden_act",
         {"model.mlp", oneOf({{"silu", "swiglu"},
                              {"swish", "swiglu"},
                              {"gelu", "gelu"},
                              {"gelu_new", "gelu"},
                              {"gelu_pytorch_tanh", "swiglu"},
                              {"relu2", "relu2"}})}},
        {"hidden_activation", {"model.mlp", oneOf({{"gelu_pytorch_tanh", "swiglu"}, {"silu", "swiglu"}})}},
        {"activation_function",
         {"model.mlp", oneOf({{"gelu_new", "gelu"}, {"gelu", "gelu"}, {"gelu_pytorch_tanh", "gelu"}})}},
        {"rms_norm_eps", {"model.norm", [](const QJsonValue &) { return QJsonValue(QStringLiteral("rmsnorm")); }}},
        {"layer_norm_eps", {"model.norm", [](const QJsonValue &) { return QJsonValue(QStringLiteral("layernorm")); }}},
        {"layer_norm_epsilon",
         {"model.norm", [](const QJsonValue &) { return QJsonValue(QStringLiteral("layernorm")); }}},
        {"rope_theta",
         {"model.position_embedding", [](const QJsonValue &) { return QJsonValue(QStringLiteral("rotary")); }}},
        // GPT-NeoX (Pythia) and GPT-J name their rotary embedding's base and share differently.
        {"rotary_emb_base",
         {"model.position_embedding", [](const QJsonValue &) { return QJsonValue(QStringLiteral("rotary")); }}},
        {"rotary_dim",
         {"model.position_embedding", [](const QJsonValue &) { return QJsonValue(QStringLiteral("rotary")); }}},
        {"attention_bias", {"model.linear_bias", asBool}},
        {"use_bias", {"model.linear_bias", asBool}}, // Nemotron-H's
        {"mlp_bias", {"model.linear_bias", asBool}},
        {"num_local_experts", {"model.experts", asInteger}},
        {"num_experts", {"model.experts", asInteger}},
        {"n_routed_experts", {"model.experts", asInteger}},
        {"num_experts_per_tok", {"model.experts_per_token", asInteger}},
        {"experts_per_token", {"model.experts_per_token", asInteger}},
        {"top_k_experts", {"model.experts_per_token", asInteger}}, // Gemma 4's
        {"moe_intermediate_size", {"model.expert_ffn_hidden", asInteger}},
        {"n_shared_experts", {"model.shared_experts", asInteger}},
        {"first_k_dense_replace", {"model.dense_layers", asInteger}},
        {"moe_layer_freq", {"model.moe_layer_interval", asInteger}},
        {"decoder_sparse_step", {"model.moe_layer_interval", asInteger}},
        {"num_nextn_predict_layers", {"model.mtp_layers", asInteger}},
        {"n_group", {"model.router_groups", asInteger}},
        {"topk_group", {"model.router_group_topk", asInteger}},
        {"q_lora_rank", {"model.q_lora_rank", asInteger}},
        {"kv_lora_rank", {"model.kv_lora_rank", asInteger}},
        {"qk_nope_head_dim", {"model.qk_nope_head_dim", asInteger}},
        {"qk_rope_head_dim", {"model.qk_rope_head_dim", asInteger}},
        {"v_head_dim", {"model.v_head_dim", asInteger}},
        // Nemotron-H and Nemotron 3 (model_type nemotron_h, NemotronHConfig): the hybrid layer pattern and the
        // Mamba-2 mixer's sizes as the config saves them (ssm_state_size, mamba_num_heads, mamba_head_dim, n_groups).
        {"hybrid_override_pattern", {"model.hybrid_pattern", asHybridPattern}},
        {"ssm_state_size", {"model.mamba_state_dim", asInteger}},
        {"mamba_num_heads", {"model.mamba_heads", asInteger}},
        {"mamba_head_dim", {"model.mamba_head_dim", asInteger}},
        {"n_groups", {"model.mamba_groups", asInteger}},
        {"moe_latent_size", {"model.moe_latent_size", asInteger}}, // Nemotron 3 Super's latent MoE
        {"mlp_hidden_act", {"model.mlp", oneOf({{"relu2", "relu2"}, {"silu", "swiglu"}, {"gelu", "gelu"}})}},
    };
    return rules;
}

/// Keys of a config.json read and deliberately not planned (tokens, initialisation, inference settings).
bool ignoredHuggingFace(const QString &name)
{
    static const QRegularExpression ignored(QStringLiteral(
        "^(architectures|model_type|torch_dtype|dtype|transformers_version|bos_token_id|eos_token_id|pad_token_id|"
        "initializer_range|use_cache|rope_scaling.*|rope_parameters.*|max_position_embeddings|n_positions|n_ctx|"
        "sliding_window|use_"
        "sliding_window|"
        "max_window_layers|pretraining_tp|_name_or_path|auto_map.*|quantization_config.*|layer_types|router_aux_loss_"
        "coef|"
        "output_router_logits|norm_topk_prob|scoring_func|topk_method|routed_scaling_factor|ep_size|"
        "aux_loss_alpha|seq_aux|query_pre_attn_scalar|final_logit_softcapping|attn_logit_softcapping|cache_"
        "implementation|"
        "partial_rotary_factor|embd_pdrop|resid_pdrop|attn_pdrop|summary_.*|task_specific_params.*|n_ctx|scale_attn_"
        "weights|"
        "original_max_position_embeddings|bias|swiglu_limit|initial_context_length|router_jitter_noise|qkv_bias|"
        "mlp_only_layers|rope_type|tie_encoder_decoder|is_encoder_decoder|"
        // Nemotron-H's Mamba-2 settings that do not change the work (the convolution is 4 wide, its expand the
        // heads' product), and its inference and initialisation settings.
        "expand|mamba_hidden_act|time_step_.*|use_conv_bias|mamba_proj_bias|chunk_size|rescale_prenorm_residual|"
        "residual_in_fp32|use_mamba_kernels|num_logits_to_keep|layers_block_type|mtp_hybrid_override_pattern|norm_eps|"
        "mamba_ssm_cache_dtype)$"));
    return ignored.match(name).hasMatch();
}

/// The model's own keys: a multimodal config (Llama 4, Gemma 3) nests the language model in text_config;
/// the top level's architectures and names stay.
QJsonObject languageModelConfig(const QJsonObject &top)
{
    if (top.contains(QLatin1String("num_hidden_layers")) || !top.value(QLatin1String("text_config")).isObject())
        return top;
    QJsonObject text = top.value(QLatin1String("text_config")).toObject();
    for (const char *key : {"architectures", "_name_or_path", "tie_word_embeddings"})
        if (top.contains(QLatin1String(key)) && !text.contains(QLatin1String(key)))
            text.insert(QLatin1String(key), top.value(QLatin1String(key)));
    return text;
}

/// Attention that is not a plan's dense causal attention, by a config's own keys. True when refused.
bool refuseOtherAttention(const QString &file, const QByteArray &bytes, const QJsonObject &root,
                          const QJsonObject &text, FileImport &out)
{
    // Kimi Linear's Kimi Delta Attention layers between its MLA layers (model_type kimi_linear: linear_attn_config
    // with kda_layers and full_attn_layers; moonshotai's Kimi-K3 config.json as ai-dynamo/aiconfigurator keeps it).
    for (const QJsonObject *config : {&root, &text})
        if (config->value(QLatin1String("linear_attn_config")).isObject()) {
            refuseLayers(file, lineOfKey(bytes, QStringLiteral("linear_attn_config")),
                         QStringLiteral("linear_attn_config: linear-attention (Kimi Delta Attention) layers"), out);
            return true;
        }
    // DeepSeek Sparse Attention (DeepSeek-V3.2, V4, GLM-5: an indexer of index_n_heads picks the index_topk keys each
    // query attends to; DeepSeek-V3.2-Exp's report, section 2.1): a plan's attention scores every earlier key, as
    // the Megatron-LM reader's experimental_attention_variant dsa says too.
    for (const QJsonObject *config : {&root, &text})
        if (const QJsonValue topk = config->value(QLatin1String("index_topk"));
            topk.isDouble() && topk.toDouble() > 0) {
            out.errors.push_back(
                {file, lineOfKey(bytes, QStringLiteral("index_topk")),
                 QStringLiteral("index_topk %1: DeepSeek Sparse Attention (an indexer picks the %1 keys each query "
                                "attends to) is not planned; a plan's attention scores every earlier key, so its "
                                "attention time and memory would be those of dense attention")
                     .arg(qint64(topk.toDouble()))});
            return true;
        }
    return false;
}

/// What a config.json cannot say to this reader: a key written twice (the file means one of them), layers of
/// different shapes (block_configs: Llama-3.3-Nemotron-Super's per-layer attention and MLP widths).
bool refuseHuggingFace(const QString &file, const QByteArray &bytes, const QJsonObject &root, FileImport &out)
{
    if (refuseDuplicateKey(file, bytes, out))
        return true;
    // Layers that are not attention (Nemotron-H's Mamba layers in hybrid_override_pattern, Jamba's
    // layers_block_type, Qwen3-Next's linear_attention layer_types): a plan's layers are transformer layers.
    const QJsonObject text = root.value(QLatin1String("text_config")).toObject();
    // Nemotron-H's pattern of Mamba-2, attention, MLP and MoE layers is planned (model.hybrid_pattern); its
    // layer_types then only repeat it, and its mixer's keys come with it.
    const bool plannedHybrid = !asHybridPattern(root.value(QLatin1String("hybrid_override_pattern"))).isUndefined();
    for (const char *key : {"hybrid_override_pattern", "hybrid_layer_pattern", "layers_block_type", "layer_types"}) {
        const QJsonValue v =
            root.contains(QLatin1String(key)) ? root.value(QLatin1String(key)) : text.value(QLatin1String(key));
        const QString written =
            v.isArray() ? QString::fromUtf8(QJsonDocument(v.toArray()).toJson(QJsonDocument::Compact)) : v.toString();
        const bool other =
            QLatin1String(key) == QLatin1String("layer_types")
                ? !plannedHybrid &&
                      (written.contains(QLatin1String("linear_attention")) || written.contains(QLatin1String("mamba")))
            : QLatin1String(key) == QLatin1String("hybrid_override_pattern") ? !written.isEmpty() && !plannedHybrid
                                                                              : !written.isEmpty();
        if (!other)
            continue;
        refuseLayers(file, lineOfKey(bytes, QLatin1String(key)),
                     QLatin1String(key) + QStringLiteral(": layers other than attention (Mamba, linear attention)"),
                     out);
        return true;
    }
    // Models without attention layers at all, by their model_type.
    static const QStringList recurrent{"mamba", "mamba2", "falcon_mamba", "rwkv", "rwkv7", "recurrent_gemma", "xlstm"};
    if (const QString type = root.value(QLatin1String("model_type")).toString(); recurrent.contains(type)) {
        refuseLayers(file, lineOfKey(bytes, QStringLiteral("model_type")),
                     QStringLiteral("model_type \"%1\": recurrent or state-space layers").arg(type), out);
        return true;
    }
    // A state-space mixer's own keys (mamba_d_state, mamba_n_heads, ssm_state_size: Jamba, Zamba, Falcon-H1,
    // Granite 4) say the same without a layer pattern; Nemotron-H's come with its planned pattern.
    for (const QJsonObject *config : {&root, &text})
        for (auto it = config->begin(); it != config->end() && !plannedHybrid; ++it)
            if (it.key().startsWith(QLatin1String("mamba_")) || it.key() == QLatin1String("ssm_state_size")) {
                refuseLayers(file, lineOfKey(bytes, it.key()),
                             it.key() + QStringLiteral(": Mamba (state-space) layers"), out);
                return true;
            }
    // A linear-attention mixer's own keys (Qwen3-Next's and Qwen3.5's Gated DeltaNet: linear_num_key_heads,
    // linear_num_value_heads, linear_key_head_dim, linear_value_head_dim, linear_conv_kernel_dim; transformers'
    // Qwen3NextConfig), for the configs that give its layers by full_attention_interval and no layer_types.
    for (const QJsonObject *config : {&root, &text})
        for (auto it = config->begin(); it != config->end(); ++it)
            if (it.key().startsWith(QLatin1String("linear_num_")) ||
                it.key() == QLatin1String("linear_conv_kernel_dim")) {
                refuseLayers(file, lineOfKey(bytes, it.key()),
                             it.key() + QStringLiteral(": linear-attention (Gated DeltaNet) layers"), out);
                return true;
            }
    if (refuseOtherAttention(file, bytes, root, text, out))
        return true;
    if (root.value(QLatin1String("block_configs")).isArray()) {
        out.errors.push_back(
            {file, lineOfKey(bytes, QStringLiteral("block_configs")),
             QStringLiteral("block_configs: layers of different shapes (each its own attention and MLP width) are not "
                            "planned; a plan has one layer shape")});
        return true;
    }
    return false;
}

/// Sliding-window attention: sliding_window unless use_sliding_window is false (Qwen2/3 carry a window they
/// do not use); layer_types (GPT-OSS, Gemma 3) gives which layers attend to the whole prefix, read as every
/// n-th when they repeat with a period of n.
void huggingFaceWindows(const QString &file, const QByteArray &bytes, const QJsonObject &root, FileImport &out)
{
    const QJsonValue window = root.value(QStringLiteral("sliding_window"));
    if (window.isDouble() && window.toDouble() > 0 && root.value(QStringLiteral("use_sliding_window")).toBool(true)) {
        out.keys.push_back({QStringLiteral("model.sliding_window"), QJsonValue(qint64(window.toDouble())), file,
                            lineOfKey(bytes, QStringLiteral("sliding_window")), QStringLiteral("sliding_window")});
        const QJsonArray types = root.value(QStringLiteral("layer_types")).toArray();
        std::vector<int> full;
        for (qsizetype i = 0; i < types.size(); ++i)
            if (types[i].toString() == QLatin1String("full_attention"))
                full.push_back(int(i));
        // The period: the distance between full-attention layers, or a list of one period ending with one.
        const int period = full.size() >= 2 ? full[1] - full[0] : full.size() == 1 ? full[0] + 1 : 0;
        bool periodic = period > 0 && full.front() == period - 1 && types.size() % period == 0;
        for (std::size_t k = 1; k < full.size(); ++k)
            periodic = periodic && full[k] - full[k - 1] == period;
        if (periodic && qsizetype(full.size()) == types.size() / period)
            out.keys.push_back({QStringLiteral("model.full_attention_interval"), QJsonValue(period), file,
                                lineOfKey(bytes, QStringLiteral("layer_types")), QStringLiteral("layer_types")});
        else if (!full.empty())
            out.warnings.push_back(
                {file, lineOfKey(bytes, QStringLiteral("layer_types")),
                 QStringLiteral(
                     "layer_types: full-attention layers without a period are planned as every layer windowed")});
    }
}

/// Attention sinks, the model's name, and what the model type tells about how far the config is read.
void huggingFaceModelType(const QString &file, const QByteArray &bytes, const QJsonObject &root, FileImport &out)
{
    if (root.contains(QStringLiteral("sinks")) ||
        root.value(QStringLiteral("model_type")).toString() == QLatin1String("gpt_oss"))
        out.keys.push_back({QStringLiteral("model.attention_sinks"), true, file,
                            lineOfKey(bytes, QStringLiteral("model_type")), QStringLiteral("model_type")});
    // GPT-OSS's clamped activation (transformers' GptOssExperts: gate clamped above, up both ways, at swiglu_limit).
    if (const QJsonValue limit = root.value(QStringLiteral("swiglu_limit")); limit.isDouble() && limit.toDouble() > 0)
        out.keys.push_back({QStringLiteral("model.activation_clamp"), limit.toDouble(), file,
                            lineOfKey(bytes, QStringLiteral("swiglu_limit")), QStringLiteral("swiglu_limit")});
    // Nemotron-H's attention layers have no position embedding and its norms are RMSNorm (NemotronHRMSNorm), though
    // the config names their epsilon layer_norm_epsilon.
    if (root.value(QStringLiteral("model_type")).toString() == QLatin1String("nemotron_h")) {
        const int line = lineOfKey(bytes, QStringLiteral("model_type"));
        out.keys.push_back({QStringLiteral("model.position_embedding"), QStringLiteral("none"), file, line,
                            QStringLiteral("model_type nemotron_h")});
        out.keys.push_back({QStringLiteral("model.norm"), QStringLiteral("rmsnorm"), file, line,
                            QStringLiteral("model_type nemotron_h")});
    }
    // BLOOM's positions are ALiBi (BloomModel: build_alibi_tensor), which its config does not say.
    if (root.value(QStringLiteral("model_type")).toString() == QLatin1String("bloom"))
        out.keys.push_back({QStringLiteral("model.position_embedding"), QStringLiteral("alibi"), file,
                            lineOfKey(bytes, QStringLiteral("model_type")), QStringLiteral("model_type bloom")});
    const QString arch = root.value(QStringLiteral("architectures")).toArray().first().toString();
    const QString name = root.value(QStringLiteral("_name_or_path")).toString();
    out.keys.push_back(
        {QStringLiteral("model.name"),
         name.isEmpty() ? (arch.isEmpty() ? root.value(QStringLiteral("model_type")).toString() : arch) : name, file,
         lineOfKey(bytes, name.isEmpty() ? QStringLiteral("architectures") : QStringLiteral("_name_or_path")),
         name.isEmpty() ? QStringLiteral("architectures") : QStringLiteral("_name_or_path")});
    if (out.keys.back().value.toString().isEmpty())
        out.keys.pop_back();
    static const QStringList known{"llama",       "mistral",     "mixtral",     "qwen2",   "qwen3",
                                   "qwen3_moe",   "qwen2_moe",   "deepseek_v3", "gpt_oss", "gemma2",
                                   "gemma3",      "gemma3_text", "phi3",        "gpt2",    "llama4_text",
                                   "deepseek_v2", "falcon",      "bloom",       "gemma",  "nemotron_h"};
    const QString type = root.value(QStringLiteral("model_type")).toString();
    if (!known.contains(type))
        out.warnings.push_back({file, lineOfKey(bytes, QStringLiteral("model_type")),
                                QStringLiteral("model_type \"%1\" is read by the common keys only").arg(type)});
    if (type.startsWith(QLatin1String("gemma")))
        out.warnings.push_back(
            {file, lineOfKey(bytes, QStringLiteral("hidden_activation")),
             QStringLiteral("Gemma's GeGLU MLP is planned as a gated MLP (swiglu): the same shapes and FLOPs")});
}

/// Nemotron-H's and Nemotron 3's own leaves (model_type nemotron_h, NemotronHConfig). True when the leaf is one of
/// them and was read (or deliberately passed over).
bool nemotronHLeaf(const QString &file, const QJsonObject &root, const Leaf &leaf, FileImport &out)
{
    if (root.value(QLatin1String("model_type")).toString() != QLatin1String("nemotron_h"))
        return false;
    // Its RMSNorm's epsilon, and a rotary base its attention layers do not use (Megatron-Core's recipes:
    // position_embedding_type "none"); huggingFaceModelType reads the norm and the positions.
    if (leaf.name == QLatin1String("layer_norm_epsilon") || leaf.name == QLatin1String("rope_theta"))
        return true;
    if (leaf.name == QLatin1String("conv_kernel")) {
        if (leaf.value.toDouble() != double(kMambaConvKernel))
            out.warnings.push_back({file, leaf.line,
                                    QStringLiteral("conv_kernel = %1: planned with Megatron-Core's convolution of %2")
                                        .arg(leafText(leaf.value))
                                        .arg(kMambaConvKernel)});
        return true;
    }
    // Its shared experts (n_shared_experts of moe_shared_expert_intermediate_size together): as many of the routed
    // width as they are wide.
    if (leaf.name == QLatin1String("moe_shared_expert_intermediate_size")) {
        if (leaf.value.toDouble() > 0 && root.value(QLatin1String("n_shared_experts")).toDouble() > 0)
            out.keys.push_back(
                {QString::fromLatin1(kSharedExpertWidth), asInteger(leaf.value), file, leaf.line, leaf.name});
        return true;
    }
    return leaf.name == QLatin1String("n_shared_experts") &&
           root.contains(QLatin1String("moe_shared_expert_intermediate_size"));
}

/// Llama 4 (transformers' Llama4TextConfig): intermediate_size is each expert's width and the shared
/// expert's (Llama4TextMoe: shared_expert = Llama4TextMLP(config)), intermediate_size_mlp the dense layers',
/// and every interleave_moe_layer_step-th layer is MoE (moe_layers = range(step - 1, layers, step)). True when
/// the leaf is one of these and was read.
bool llama4Leaf(const QString &file, const QJsonObject &root, const Leaf &leaf, FileImport &out)
{
    if (!root.value(QLatin1String("model_type")).toString().startsWith(QLatin1String("llama4")) ||
        root.value(QLatin1String("num_local_experts")).toDouble() <= 0)
        return false;
    if (leaf.name == QLatin1String("intermediate_size")) {
        out.keys.push_back(
            {QStringLiteral("model.expert_ffn_hidden"), asInteger(leaf.value), file, leaf.line, leaf.name});
        out.keys.push_back({QStringLiteral("model.shared_experts"), 1, file, leaf.line,
                            QStringLiteral("Llama 4's shared expert (Llama4TextMoe)")});
        if (!root.contains(QLatin1String("intermediate_size_mlp")))
            out.keys.push_back({QStringLiteral("model.ffn_hidden"), asInteger(leaf.value), file, leaf.line, leaf.name});
        return true;
    }
    if (leaf.name == QLatin1String("intermediate_size_mlp")) {
        out.keys.push_back({QStringLiteral("model.ffn_hidden"), asInteger(leaf.value), file, leaf.line, leaf.name});
        return true;
    }
    if (leaf.name == QLatin1String("interleave_moe_layer_step")) {
        out.keys.push_back(
            {QStringLiteral("model.moe_layer_interval"), asInteger(leaf.value), file, leaf.line, leaf.name});
        return true;
    }
    return false;
}

/// Falcon (transformers' FalconConfig; the RW model before it): `bias` is every linear layer's bias, `alibi`
/// the positions (rotary without it); with new_decoder_architecture the keys and values have num_kv_heads
/// heads (else multi_query gives them one, read for every model type). True when the leaf is one of these and
/// was read.
bool falconLeaf(const QString &file, const QJsonObject &root, const Leaf &leaf, FileImport &out)
{
    static const QStringList types{"falcon", "RefinedWeb", "RefinedWebModel"};
    if (!types.contains(root.value(QLatin1String("model_type")).toString()))
        return false;
    const bool newArchitecture = root.value(QLatin1String("new_decoder_architecture")).toBool(false);
    if (leaf.name == QLatin1String("bias")) {
        out.keys.push_back({QStringLiteral("model.linear_bias"), leaf.value.toBool(), file, leaf.line, leaf.name});
        return true;
    }
    if (leaf.name == QLatin1String("alibi")) { // rotary positions unless ALiBi (FalconModel)
        out.keys.push_back({QStringLiteral("model.position_embedding"),
                            leaf.value.toBool() ? QStringLiteral("alibi") : QStringLiteral("rotary"), file, leaf.line,
                            leaf.name});
        return true;
    }
    if (leaf.name == QLatin1String("num_kv_heads")) {
        if (newArchitecture)
            out.keys.push_back({QStringLiteral("model.kv_heads"), asInteger(leaf.value), file, leaf.line, leaf.name});
        return true;
    }
    return leaf.name == QLatin1String("new_decoder_architecture");
}

} // namespace

/// A multimodal config's other encoders (vision_config: Llama 4's, Gemma 3's SigLIP; audio_config): the plan is
/// the language model alone, said with the encoder's size, layers x (4 h^2 + 2 h ffn) (attention's four
/// projections and a two-matrix MLP), where the config gives them.
void huggingFaceOtherEncoders(const QString &file, const QByteArray &bytes, const QJsonObject &top, FileImport &out)
{
    for (const char *key : {"vision_config", "audio_config"}) {
        const QJsonObject encoder = top.value(QLatin1String(key)).toObject();
        if (encoder.isEmpty())
            continue;
        const auto first = [&](std::initializer_list<const char *> names) {
            for (const char *n : names)
                if (encoder.value(QLatin1String(n)).toDouble() > 0)
                    return encoder.value(QLatin1String(n)).toDouble();
            return 0.0;
        };
        const double layers = first({"num_hidden_layers", "depth", "num_layers", "encoder_layers"});
        const double h = first({"hidden_size", "embed_dim", "width", "d_model"});
        const double ffn = first({"intermediate_size", "mlp_dim", "encoder_ffn_dim"});
        const QString size = layers > 0 && h > 0 && ffn > 0
                                 ? QStringLiteral(" (%1 layers of width %2: about %3 B parameters)")
                                       .arg(layers)
                                       .arg(h)
                                       .arg(layers * (4 * h * h + 2 * h * ffn) / 1e9, 0, 'f', 2)
                                 : QString();
        out.warnings.push_back(
            {file, lineOfKey(bytes, QLatin1String(key)),
             QStringLiteral("%1: the %2 encoder%3 is not planned; the plan is the language model "
                            "(text_config) alone")
                 .arg(QLatin1String(key), QString::fromLatin1(key).section(QLatin1Char('_'), 0, 0), size)});
    }
}

FileImport readHuggingFace(const QString &file, const QByteArray &written)
{
    FileImport out;
    out.format = ImportFormat::HuggingFace;
    const QByteArray bytes = relaxedJson(written);
    const QJsonObject top = QJsonDocument::fromJson(bytes).object();
    if (refuseHuggingFace(file, bytes, top, out))
        return out;
    const QJsonObject root = languageModelConfig(top);
    // transformers writes a config's keys that differ from PretrainedConfig's defaults or the model class's
    // (configuration_utils.py, PretrainedConfig.to_diff_dict): an omitted tie_word_embeddings is both
    // defaults' True (Gemma 2 ties without saying so).
    if (!root.contains(QLatin1String("tie_word_embeddings")))
        out.keys.push_back({QStringLiteral("model.tied_embeddings"), true, file, 0,
                            QStringLiteral("tie_word_embeddings omitted: transformers' default"), true});
    std::vector<Leaf> leaves;
    jsonLeaves(root, QString(), bytes, leaves);
    std::vector<Leaf> planned;
    for (const Leaf &leaf : leaves) {
        if (llama4Leaf(file, root, leaf, out) || falconLeaf(file, root, leaf, out) ||
            nemotronHLeaf(file, root, leaf, out))
            continue;
        // null is the config class's default (GPT-J's n_inner: 4 x n_embd), the plan format's own for these keys.
        if (leaf.value.isNull() && leaf.name != QLatin1String("q_lora_rank") &&
            leaf.name != QLatin1String("kv_lora_rank"))
            continue;
        // Gemma's MLP is gated whatever its activation (GemmaMLP: gate_proj, up_proj, down_proj; Gemma 1 says
        // hidden_act "gelu"): planned as a gated MLP, the same shapes and FLOPs (the warning below).
        if ((leaf.name == QLatin1String("hidden_act") || leaf.name == QLatin1String("hidden_activation")) &&
            root.value(QLatin1String("model_type")).toString().startsWith(QLatin1String("gemma"))) {
            out.keys.push_back({QStringLiteral("model.mlp"), QStringLiteral("swiglu"), file, leaf.line, leaf.name});
            continue;
        }
        // Multi-query attention, one key/value head (Falcon's FalconAttention, StarCoder's GPTBigCodeAttention),
        // unless the config counts its key/value heads.
        if (leaf.name == QLatin1String("multi_query")) {
            if (leaf.value.toBool() && !root.contains(QLatin1String("num_key_value_heads")) &&
                !root.value(QLatin1String("new_decoder_architecture")).toBool(false))
                out.keys.push_back({QStringLiteral("model.kv_heads"), 1, file, leaf.line, leaf.name});
            continue;
        }
        if (leaf.name == QLatin1String("attention_dropout") || leaf.name == QLatin1String("hidden_dropout")) {
            out.keys.push_back({QString::fromLatin1(kDropout), asNumber(leaf.value), file, leaf.line, leaf.name});
        } else if (leaf.name == QLatin1String("enable_moe_block")) {
            // Gemma 4's MoE layers run the routed experts beside the layer's dense MLP, both on the same input
            // and their outputs summed (Gemma4TextDecoderLayer: mlp, then router and experts on the residual,
            // each output normed; the ports of it agree): the dense MLP is a shared expert of intermediate_size.
            const QJsonValue dense = root.value(QLatin1String("intermediate_size"));
            if (leaf.value.toBool() && dense.toDouble() > 0)
                out.keys.push_back({QString::fromLatin1(kSharedExpertWidth), asInteger(dense), file,
                                    lineOfKey(bytes, QStringLiteral("intermediate_size")),
                                    QStringLiteral("intermediate_size (enable_moe_block: the dense MLP beside the "
                                                   "experts)")});
        } else if (leaf.name == QLatin1String("shared_expert_intermediate_size")) {
            // Qwen2-MoE's shared expert: one MLP of this width (transformers' Qwen2MoeSparseMoeBlock), i.e. as
            // many shared experts of the routed width as it is wider.
            if (leaf.value.toDouble() > 0)
                out.keys.push_back(
                    {QString::fromLatin1(kSharedExpertWidth), asInteger(leaf.value), file, leaf.line, leaf.name});
        } else if (leaf.name == QLatin1String("q_lora_rank") || leaf.name == QLatin1String("kv_lora_rank")) {
            if (!leaf.value.isNull()) {
                planned.push_back(leaf);
                out.keys.push_back(
                    {QStringLiteral("model.attention"), QStringLiteral("mla"), file, leaf.line, leaf.name});
            } else {
                planned.push_back({leaf.name, 0, leaf.line});
            }
        } else if (huggingFaceRules().count(leaf.name) || !ignoredHuggingFace(leaf.name)) {
            planned.push_back(leaf);
        }
    }
    mapLeaves(
        file, planned, huggingFaceRules(), [](const QString &n) { return n; }, out);
    huggingFaceWindows(file, bytes, root, out);
    huggingFaceModelType(file, bytes, root, out);
    huggingFaceOtherEncoders(file, bytes, top, out);
    return out;
}

} // namespace trainplan::io::reading
