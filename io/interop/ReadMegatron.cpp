// Megatron-LM launch scripts and argument files (io/interop/ImportReaders.h), and Megatron-Core's names,
// which the NeMo reader reads too.

#include "io/interop/ImportReaders.h"
#include "io/interop/MegatronArguments.h"
#include "io/interop/ShellScript.h"

#include <QRegularExpression>

namespace trainplan::io::reading {

namespace {

/// The model's shape: Megatron-Core's configuration names of it.
std::map<QString, Rule> megatronModelRules()
{
    return {
        {"swiglu", {"model.mlp", whenTrue(QStringLiteral("swiglu"))}},
        {"gated_linear_unit", {"model.mlp", whenTrue(QStringLiteral("swiglu"))}},
        {"normalization", {"model.norm", oneOf({{"rmsnorm", "rmsnorm"}, {"layernorm", "layernorm"}})}},
        {"position_embedding_type",
         {"model.position_embedding", oneOf({{"rope", "rotary"}, {"learned_absolute", "learned"}, {"none", "none"}})}},
        // Megatron-Core's hybrid models (--hybrid-override-pattern, core_v0.16.0; --hybrid-layer-pattern from
        // core_v0.18.0, arguments.py line 3485 at core_v0.19.0): the layers' symbols; "|" marks pipeline stage
        // boundaries and "/" starts the multi-token-prediction modules' patterns, which --mtp-num-layers counts.
        {"hybrid_override_pattern", {"model.hybrid_pattern", asHybridPattern}},
        {"hybrid_layer_pattern", {"model.hybrid_pattern", asHybridPattern}},
        // The legacy spelling (arguments.py at d98e8a6, line 1626: "if args.use_rotary_position_embeddings:
        // args.position_embedding_type = 'rope'").
        {"use_rotary_position_embeddings", {"model.position_embedding", whenTrue(QStringLiteral("rotary"))}},
        {"untie_embeddings_and_output_weights", {"model.tied_embeddings", asNotBool}},
        {"share_embeddings_and_output_weights", {"model.tied_embeddings", asBool}},
        {"disable_bias_linear", {"model.linear_bias", whenTrue(false)}},
        {"add_bias_linear", {"model.linear_bias", asBool}},
        {"moe_layer_freq", {"model.moe_layer_interval", asInteger}},
        // Token dropping: an expert takes at most this multiple of its balanced share (Megatron-Core's
        // --moe-expert-capacity-factor, TransformerConfig.moe_expert_capacity_factor; unset: dropless).
        {"moe_expert_capacity_factor", {"training.capacity_factor", asNumber}},
        {"moe_enable_deepep", {"parallel.expert_dispatcher", whenTrue(QStringLiteral("deepep"))}},
        {"moe_flex_dispatcher_backend",
         {"parallel.expert_dispatcher", oneOf({{"deepep", "deepep"}, {"hybridep", "hybridep"}})}},
        {"cuda_graph_impl",
         {"training.cuda_graphs",
          oneOf(
              {{"none", "none"}, {"local", "layers"}, {"transformer_engine", "layers"}, {"full_iteration", "step"}})}},
        {"softmax_type", {"model.attention_sinks", oneOf({{"learnable", "true"}, {"vanilla", "false"}})}},
        // GPT-OSS as Megatron-LM's arguments give it (arguments.py at d98e8a6): --quick-geglu is a gated MLP
        // (argument_utils.py line 323: gated_linear_unit True, activation quick_gelu), --window-size L,R the
        // window's left extent, --window-attn-skip-freq N one full-attention layer in N.
        {"quick_geglu", {"model.mlp", whenTrue(QStringLiteral("swiglu"))}},
        {"window_size", {"model.sliding_window", windowLeft}},
        {"window_attn_skip_freq", {"model.full_attention_interval", asInteger}},
        // Megatron-Core's activation_func_clamp_value (a recipe's field; Megatron-LM has no flag for it).
        {"activation_func_clamp_value", {"model.activation_clamp", asNumber}},
        {"multi_latent_attention", {"model.attention", whenTrue(QStringLiteral("mla"))}},
    };
}

/// Qi et al.'s zero-bubble fork of Megatron-LM (sail-sg/zero-bubble-pipeline-parallelism, its README):
/// --enable-zero-bubble with --zero-bubble-max-pending-backward, "1 x number of pipelines ... ZB1P ... 2x number
/// of pipelines ... ZB2P" (default "auto"), and --zero-bubble-v-schedule; resolved with the pipeline size
/// (io/interop/Import.cpp, resolveZeroBubble).
std::map<QString, Rule> zeroBubbleForkRules()
{
    return {{"enable_zero_bubble", {"derived.zero_bubble", asBool}},
            {"zero_bubble_max_pending_backward",
             {"derived.zero_bubble_pending",
              [](const QJsonValue &v) { return v.isDouble() ? QJsonValue(QString::number(v.toDouble())) : v; }}},
            {"zero_bubble_v_schedule", {"derived.zero_bubble_v", asBool}}};
}

/// Megatron-Core's configuration names (its arguments with '-' as '_', and NeMo's recipe fields): the model's
/// (megatronModelRules) and the training's, parallelism's and cluster's.
/// The launch and runtime names beside the layout: the optimizer's state, FSDP, the CPU optimizer, the
/// launcher's node counts, and NeMo 1's and Megatron-Bridge's spellings of names megatronRules also reads.
std::map<QString, Rule> megatronRuntimeRules()
{
    return {
        // Megatron-Core's precision-aware optimizer (--exp-avg-dtype, --exp-avg-sq-dtype, --main-params-dtype;
        // megatron/training/arguments.py), the same names in Megatron-Bridge's OptimizerConfig.
        {"exp_avg_dtype", {"training.optimizer_moments", stateFormat()}},
        {"exp_avg_sq_dtype", {"training.optimizer_moments", stateFormat()}},
        {"main_params_dtype", {"training.master_weights", stateFormat()}},
        // Megatron-FSDP (--use-megatron-fsdp with --data-parallel-sharding-strategy, default
        // optim_grads_params) and PyTorch FSDP2 inside Megatron-LM (--use-torch-fsdp2): resolved
        // together (io/interop/Import.cpp, resolveFsdp).
        {"use_megatron_fsdp", {"derived.megatron_fsdp", asBool}},
        {"data_parallel_sharding_strategy",
         {"derived.fsdp_sharding", oneOf({{"no_shard", "no_shard"},
                                          {"optim", "optim"},
                                          {"optim_grads", "optim_grads"},
                                          {"optim_grads_params", "optim_grads_params"}})}},
        {"use_torch_fsdp2", {"derived.torch_fsdp2", asBool}},
        // Gradients kept and reduced in FP32 (main_grad): Megatron-LM's --accumulate-allreduce-grads-in-fp32
        // (implied by --bf16 unless --grad-reduce-in-bf16, arguments.py), Megatron-Core's and Megatron-Bridge's
        // DistributedDataParallelConfig.grad_reduce_in_fp32.
        {"accumulate_allreduce_grads_in_fp32", {"training.fp32_gradients", asBool}},
        {"grad_reduce_in_bf16", {"training.fp32_gradients", asNotBool}},
        {"grad_reduce_in_fp32", {"training.fp32_gradients", asBool}},
        // NeMo 1's PyTorch FSDP (megatron_gpt_config.yaml: "fsdp: Enable training with torch FSDP"), its
        // strategy read in ReadNemo (nemoTorchFsdp).
        {"fsdp", {"derived.torch_fsdp2", asBool}},
        // The partial distributed optimizer: its state sharded within each of this many instances of the
        // data x context ranks (DistributedDataParallelConfig; parallel_state.py, the intra-partial groups):
        // the plan's shard group, resolved with the layout (io/interop/Import.cpp).
        {"num_distributed_optimizer_instances", {"derived.optimizer_instances", asInteger}},
        // Megatron-Core's CPU optimizer (--optimizer-cpu-offload; arguments.py), Megatron-Bridge's
        // OptimizerConfig.optimizer_cpu_offload.
        {"nnodes", {"cluster.nodes", asInteger}},
        {"num_nodes", {"cluster.nodes", asInteger}},
        {"nproc_per_node", {"cluster.gpus_per_node", asInteger}},
        {"squared_relu", {"model.mlp", whenTrue(QStringLiteral("relu2"))}},
        {"activation_func", {"model.mlp", oneOf({{"squared_relu", "relu2"}})}},
        // Muon (arguments.py at d98e8a6: --optimizer muon; dist_muon, deprecated, is muon with the distributed
        // optimizer), its Newton-Schulz iterations and tensor-parallel mode; the same names in Megatron-Core's
        // OptimizerConfig (optimizer_config.py: muon_num_ns_steps, muon_tp_mode), which Megatron-Bridge reads.
        {"optimizer",
         {"training.optimizer", oneOf({{"adam", "adam"},
                                       {"sgd", "sgd"},
                                       {"muon", "muon"},
                                       {"dist_muon", "muon"},
                                       {"adaptive_muon", "adaptive_muon"}})}},
        {"muon_num_ns_steps", {"training.muon_steps", asInteger}},
        {"muon_tp_mode",
         {"training.muon_tp_mode",
          oneOf({{"duplicated", "duplicated"}, {"blockwise", "blockwise"}, {"distributed", "distributed"}})}},
        {"muon_scalar_optimizer", {"training.muon_scalar_optimizer", oneOf({{"adam", "adam"}, {"lion", "lion"}})}},
        // Megatron-LM's --use-tp-pp-dp-mapping (initialize.py line 395 at d98e8a6), NeMo 1's model.use_tp_pp_dp_mapping
        // (megatron_init.py), NeMo 2's strategy and Megatron-Bridge's dist.use_tp_pp_dp_mapping: the stages inside
        // the data replicas.
        {"use_tp_pp_dp_mapping",
         {"parallel.rank_order", oneOf({{"true", "tp-cp-ep-pp-dp"}, {"false", "tp-cp-ep-dp-pp"}})}},
        {"cp_comm_type",
         {"parallel.context_comm", oneOf({{"p2p", "ring"}, {"all_gather", "all-gather"}, {"a2a", "all-to-all"}})}},
        // NeMo 1's names (NeMo-Framework-Launcher conf/training, megatron_gpt_config.yaml): the gated
        // activations, fused ("fast-") or not, are the gated MLP's shape.
        {"activation",
         {"model.mlp", oneOf({{"fast-swiglu", "swiglu"},
                              {"swiglu", "swiglu"},
                              {"fast-geglu", "swiglu"},
                              {"geglu", "swiglu"},
                              {"fast-reglu", "swiglu"},
                              {"reglu", "swiglu"},
                              {"gelu", "gelu"},
                              {"squared-relu", "relu2"}})}},
        {"activations_checkpoint_granularity",
         {"training.recompute", oneOf({{"null", "none"}, {"selective", "selective"}, {"full", "full"}})}},
        {"use_flash_attention", {"training.flash_attention", asBool}},
        {"overlap_grad_sync", {"parallel.overlap_grad_reduce", asBool}},
        {"overlap_param_sync", {"parallel.overlap_param_gather", asBool}},
        {"encoder_seq_length", {"model.seq_len", asInteger}}, // weak: the model's longest (readNemo)
        {"ub_tp_comm_overlap", {"parallel.tensor_comm_overlap", asBool}},
        {"bias", {"model.linear_bias", asBool}},
    };
}

/// The names of io/interop/MegatronArguments' table: each argument's destination, read as its form says (a
/// switch's "no-" spelling as its key's opposite), and its configuration field where that differs.
std::map<QString, Rule> megatronArgumentRules()
{
    std::map<QString, Rule> rules;
    for (const megatron::Argument &a : megatron::arguments()) {
        const Convert convert = a.form == megatron::Form::Integer  ? Convert(asInteger)
                                : a.form == megatron::Form::Switch ? Convert(asBool)
                                                                   : Convert(asNotBool); // Form::Off
        rules.insert({megatron::configName(a), {a.path, convert}});
        if (a.field) // the configuration's field: the positive sense, a number or a flag
            rules.insert({QLatin1String(a.field), {a.path, a.form == megatron::Form::Integer ? Convert(asInteger)
                                                                                              : Convert(asBool)}});
    }
    return rules;
}

/// A flag: "--name" or "--name=value".
bool isFlag(const QString &word)
{
    return word.startsWith(QLatin1String("--")) && word.size() > 2;
}

/// The words a script passes to Megatron-LM: the command that runs a Python entry point with the most flags
/// (torchrun ... pretrain_gpt.py ..., its launcher's own flags with it), as bash would expand it
/// (io/interop/ShellScript.h); an argument file (no such command) is all its words.
std::vector<shell::Field> megatronArguments(const shell::Script &script)
{
    const std::vector<shell::Command> &commands = script.commands;
    const auto flags = [](const shell::Command &c) {
        return std::count_if(c.words.begin(), c.words.end(),
                             [](const shell::Field &f) { return isFlag(f.text); });
    };
    const shell::Command *best = nullptr;
    for (const shell::Command &c : commands) {
        // "echo $cmd" before "eval $cmd" (Pai-Megatron-Patch's run_mcore_*.sh) prints the command, unparsed:
        // its escapes ('Et\|\(tt\|\)*30L') are the eval'ed command's to remove.
        if (!c.words.empty() && (c.words.front().text == QLatin1String("echo") ||
                                 c.words.front().text == QLatin1String("printf")))
            continue;
        const bool runsPython = std::any_of(c.words.begin(), c.words.end(), [](const shell::Field &f) {
            return f.text.endsWith(QLatin1String(".py"));
        });
        if (runsPython && (!best || flags(c) > flags(*best)))
            best = &c;
    }
    if (best && flags(*best) > 0)
        return best->words;
    std::vector<shell::Field> all;
    for (const shell::Command &c : commands)
        all.insert(all.end(), c.words.begin(), c.words.end());
    return all;
}

/// The files the script reads with `source FILE` or `. FILE`, as written, with their lines (Import.cpp says
/// which of them were not imported). A command substitution the reader cannot run stays as written, split at
/// its spaces: rejoined.
std::vector<FileImport::SourcedFile> sourcedFiles(const shell::Script &script)
{
    std::vector<FileImport::SourcedFile> files;
    for (const shell::Command &c : script.commands) {
        if (c.words.size() < 2 || (c.words[0].text != QLatin1String("source") && c.words[0].text != QLatin1String(".")))
            continue;
        QString path = c.words[1].text;
        for (std::size_t k = 2; k < c.words.size() && path.count(QLatin1Char('(')) > path.count(QLatin1Char(')')); ++k)
            path += QLatin1Char(' ') + c.words[k].text;
        files.push_back({path, c.words[1].line});
    }
    return files;
}

/// A fragment that runs no command with flags but gathers them in variables for the script that sources it
/// (MODEL_ARGS="--num-layers 36 ..." in Megatron-LM's examples/post_training/modelopt/conf and examples/rl/
/// model_configs): the words of the variables that hold a flag, a variable that another one contains
/// ("$MODEL_ARGS $TRAIN_ARGS") read once, through the composite. `names` says which were read, with their
/// lines. Those fragments name the tokenizer in TOKENIZER_MODEL, which the sourcing script passes as
/// --tokenizer-model (examples/post_training/modelopt/finetune.sh line 94 at Megatron-LM d98e8a6): read so.
std::vector<shell::Field> flagsGatheredInVariables(const shell::Script &script, QStringList &names)
{
    const auto joined = [](const shell::Variable &v) {
        QStringList words;
        for (const shell::Field &f : v.words)
            words << f.text;
        return QLatin1Char(' ') + words.join(QLatin1Char(' ')) + QLatin1Char(' ');
    };
    std::vector<const shell::Variable *> withFlags;
    for (const shell::Variable &v : script.variables)
        if (std::any_of(v.words.begin(), v.words.end(), [](const shell::Field &f) { return isFlag(f.text); }))
            withFlags.push_back(&v);
    std::vector<shell::Field> out;
    for (const shell::Variable *v : withFlags) {
        const QString text = joined(*v);
        if (std::any_of(withFlags.begin(), withFlags.end(), [&](const shell::Variable *other) {
                const QString o = joined(*other);
                return other != v && o.size() > text.size() && o.contains(text);
            }))
            continue;
        names << QStringLiteral("%1 (line %2)").arg(v->name).arg(v->words.front().line);
        out.insert(out.end(), v->words.begin(), v->words.end());
    }
    const auto tokenizer = std::find_if(script.variables.begin(), script.variables.end(), [](const shell::Variable &v) {
        return v.name == QLatin1String("TOKENIZER_MODEL") && v.words.size() == 1;
    });
    const bool named = std::any_of(out.begin(), out.end(), [](const shell::Field &f) {
        return f.text == QLatin1String("--tokenizer-model") || f.text.startsWith(QLatin1String("--tokenizer-model="));
    });
    if (!out.empty() && tokenizer != script.variables.end() && !named) {
        names << QStringLiteral("TOKENIZER_MODEL (line %1) as --tokenizer-model").arg(tokenizer->words.front().line);
        out.push_back({QStringLiteral("--tokenizer-model"), tokenizer->words.front().line});
        out.push_back(tokenizer->words.front());
    }
    return out;
}

/// The words Megatron-LM is run with (megatronArguments), or for a fragment that runs no command with flags,
/// the flags it gathers in variables, with a warning that says so.
std::vector<shell::Field> launchWords(const QString &file, const shell::Script &script, FileImport &out)
{
    std::vector<shell::Field> words = megatronArguments(script);
    if (std::any_of(words.begin(), words.end(), [](const shell::Field &f) { return isFlag(f.text); }))
        return words;
    QStringList names;
    words = flagsGatheredInVariables(script, names);
    if (!words.empty())
        out.warnings.push_back({file, words.front().line,
                                QStringLiteral("no command here runs Megatron-LM: the flags gathered in %1 were read "
                                               "as its arguments (a fragment that the launching script sources; "
                                               "import that script for what it adds)")
                                    .arg(names.join(QStringLiteral(", ")))});
    return words;
}

/// A script that gives the model's shape trains Megatron-LM's defaults where it says nothing: tied
/// embeddings, biases, LayerNorm, GELU, learned positions, dropout 0.1, FP32, no recomputation, no
/// sequence parallelism or distributed optimizer, no overlapped gradient reduction. Attention is Transformer
/// Engine's fused or flash kernel: transformer_impl "transformer_engine" and attention_backend auto ("let
/// transformer engine decide the best backend") are the defaults (megatron/core/transformer/
/// transformer_config.py at d98e8a6); only --transformer-impl local without --use-flash-attn keeps the
/// unfused attention. They are weak: a file that says otherwise wins without a conflict.
/// --optimizer dist_muon: Muon with the distributed optimizer (arguments.py at d98e8a6, "emerging optimizer check").
bool isDistributedMuon(const std::vector<Leaf> &leaves)
{
    const auto optimizer = findLeaf(leaves, "optimizer");
    return optimizer != leaves.end() && optimizer->value.toString() == QLatin1String("dist_muon");
}

void addMegatronDefaults(const QString &file, const std::vector<Leaf> &leaves, FileImport &out)
{
    const auto has = [&](const char *names) {
        const QStringList any = QString::fromLatin1(names).split('|');
        return std::any_of(leaves.begin(), leaves.end(), [&](const Leaf &l) { return any.contains(l.name); });
    };
    if (!has("num_layers"))
        return;
    const QString source = QStringLiteral("(Megatron-LM's default)");
    const std::pair<const char *, std::pair<const char *, QJsonValue>> defaults[] = {
        {"untie_embeddings_and_output_weights", {"model.tied_embeddings", true}},
        {"disable_bias_linear", {"model.linear_bias", true}},
        {"normalization", {"model.norm", QStringLiteral("layernorm")}},
        {"swiglu|squared_relu", {"model.mlp", QStringLiteral("gelu")}},
        {"position_embedding_type", {"model.position_embedding", QStringLiteral("learned")}},
        {"hidden_dropout|attention_dropout", {"model.dropout", true}},
        {"bf16|fp16|fp8_format|fp4_format|fp4", {"training.precision", QStringLiteral("fp32")}},
        {"recompute_granularity|recompute_activations", {"training.recompute", QStringLiteral("none")}},
        {"sequence_parallel", {"training.sequence_parallel", false}},
        {"use_flash_attn|attention_backend",
         {"training.flash_attention", !std::any_of(leaves.begin(), leaves.end(),
                                                   [](const Leaf &l) {
                                                       return l.name == QLatin1String("transformer_impl") &&
                                                              l.value.toString() == QLatin1String("local");
                                                   })}},
        {"use_distributed_optimizer", {"parallel.zero_stage", 0}},
        // --bf16 accumulates and all-reduces gradients in FP32 unless --grad-reduce-in-bf16 (arguments.py at
        // d98e8a6: "bfloat16 requires gradient accumulation and all-reduce to be done in fp32").
        {"grad_reduce_in_bf16|accumulate_allreduce_grads_in_fp32|main_grads_dtype",
         {"training.fp32_gradients", has("bf16")}},
        {"overlap_grad_reduce", {"parallel.overlap_grad_reduce", false}}};
    // --optimizer dist_muon says the distributed optimizer itself (distributedMuon).
    const bool distMuon = isDistributedMuon(leaves);
    for (const auto &[flags, key] : defaults)
        if (!has(flags) && !(distMuon && QLatin1String(key.first) == QLatin1String("parallel.zero_stage")))
            out.keys.push_back({QLatin1String(key.first), key.second, file, 0, source, true});
    // Experts routed per token when a script does not say: Megatron-Core's moe_router_topk 2
    // (transformer_config.py line 760 at d98e8a6); under --deepspeed (Megatron-DeepSpeed) --topk 1, experts in
    // every second layer (--expert-interval 2; its megatron/arguments.py lines 612-615 at 4efb479).
    if (has("num_experts")) {
        const bool deepSpeed = has("deepspeed");
        const QString which = deepSpeed ? QStringLiteral("(Megatron-DeepSpeed's default)") : source;
        if (!has("moe_router_topk|topk"))
            out.keys.push_back({QStringLiteral("model.experts_per_token"), deepSpeed ? 1 : 2, file, 0, which, true});
        if (deepSpeed && !has("expert_interval|moe_layer_freq"))
            out.keys.push_back({QStringLiteral("model.moe_layer_interval"), 2, file, 0, which, true});
        // DeepSpeed-MoE drops tokens beyond --moe-train-capacity-factor x the balanced share (Megatron-DeepSpeed
        // arguments.py lines 910-918: 1.0 by default; --disable-moe-token-dropping turns dropping off, whatever the
        // factor; the evaluation's factor and the minimum capacity are not the training step's).
        if (deepSpeed && !has("disable_moe_token_dropping")) {
            if (const auto factor = findLeaf(leaves, "moe_train_capacity_factor"); factor != leaves.end())
                out.keys.push_back({QStringLiteral("training.capacity_factor"), asNumber(factor->value), file,
                                    factor->line, factor->name});
            else
                out.keys.push_back({QStringLiteral("training.capacity_factor"), 1.0, file, 0, which, true});
        }
    }
    // Multi-latent attention's sizes that a script leaves out take arguments.py's defaults (lines 3548-3557
    // at d98e8a6: --kv-lora-rank 32, --qk-head-dim 128, --qk-pos-emb-head-dim 64, --v-head-dim 128, no query
    // compression); Pai-Megatron-Patch's DeepSeek-V3 scripts give only --v-head-dim and the ranks.
    if (has("multi_latent_attention")) {
        const std::pair<const char *, std::pair<const char *, int>> mla[] = {
            {"kv_lora_rank", {"model.kv_lora_rank", 32}},
            {"qk_head_dim", {"model.qk_nope_head_dim", 128}},
            {"qk_pos_emb_head_dim", {"model.qk_rope_head_dim", 64}},
            {"v_head_dim", {"model.v_head_dim", 128}}};
        for (const auto &[flag, key] : mla)
            if (!has(flag))
                out.keys.push_back({QLatin1String(key.first), key.second, file, 0, source, true});
    }
    // The interleaved schedule overlaps its transfers unless --no-overlap-p2p-communication says otherwise
    // (arguments.py since Megatron-LM 4eeff55; without interleaving Megatron turns the overlap off).
    if (has("num_virtual_stages_per_pipeline_rank|num_layers_per_virtual_pipeline_stage") &&
        !has("no_overlap_p2p_communication|overlap_p2p_communication|overlap_p2p_comm"))
        out.keys.push_back({QStringLiteral("parallel.overlap_p2p_comm"), true, file, 0, source, true});
}

/// A tokenizer's own vocabulary by its name: Megatron-LM's tokenizer types, Hugging Face model names and
/// SentencePiece model files. The first pattern that matches gives the size; 0: not known.
/// - GPT-2's BPE: 50,257 tokens (its encoder.json).
/// - Megatron-Core's TikTokenizer without --vocab-size: 131,072 (tiktoken_tokenizer.py at Megatron-LM d98e8a6:
///   vocab_size defaults to DEFAULT_TIKTOKEN_MAX_VOCAB = 2**17, line 86, the special tokens included, and every
///   id below it is a token, line 156).
/// - LLaMA's SentencePiece model (llama_tokenizer.model, Llama2Tokenizer), shared by Llama 2: 32,000 (Touvron
///   et al. 2023, 'LLaMA', Sec. 2.1, "32k tokens"; 'Llama 2', Sec. 2.1, "the same tokenizer as Llama 1").
/// - Nemotron-4's nemotron_2_256k.model: 256,000 (Parmar et al. 2024, 'Nemotron-4 15B', Sec. 2).
/// - The others are each model's config.json vocab_size (padded_vocab_size for ChatGLM): Llama 3 / 3.1
///   128,256; Mistral 7B v0.1 and Mixtral 8x7B 32,000; Mixtral 8x22B 32,768 as mistralai publishes it, 32,000
///   in mistral-community's conversion (the NeMo recipe's); Mistral Large 2407 32,768; Mistral NeMo 131,072;
///   StarCoder2 49,152; ChatGLM2/3-6B 65,024; Falcon 7B/40B 65,024; DeepSeek-V3 129,280 (its embedding's rows).
/// - Qwen's byte-level BPE is len(tokenizer), which Megatron's HuggingFaceTokenizer takes as its vocabulary:
///   151,643 regular tokens and the added ones numbered after them in tokenizer_config.json's
///   added_tokens_decoder, to 151,664 ("<|file_sep|>") in Qwen2.5 (151,665) and 151,668 ("</think>") in Qwen3
///   (151,669); --make-vocab-size-divisible-by 1187 pads either to the checkpoints' 151,936 (1,187 x 128).
int tokenizerVocabularySize(const QString &name)
{
    static const std::vector<std::pair<QRegularExpression, int>> sizes{
        {QRegularExpression(QStringLiteral("^GPT2BPETokenizer$")), 50257},
        {QRegularExpression(QStringLiteral("^TikTokenizer$")), 131072},
        {QRegularExpression(QStringLiteral("^Llama2Tokenizer$|Llama-2|(^|/)llama_tokenizer\\.model$|"
                                           "Mistral-7B-v0\\.1|Mixtral-8x7B|mistral-community/Mixtral-8x22B")),
         32000},
        {QRegularExpression(QStringLiteral("Llama-3|Meta-Llama-3")), 128256},
        {QRegularExpression(QStringLiteral("Mixtral-8x22B|Mistral-Large-Instruct-2407")), 32768},
        {QRegularExpression(QStringLiteral("starcoder2")), 49152},
        {QRegularExpression(QStringLiteral("Mistral-Nemo")), 131072},
        {QRegularExpression(QStringLiteral("(^|/)nemotron_2_256k\\.model$")), 256000},
        {QRegularExpression(QStringLiteral("THUDM/chatglm[23]-6b|tiiuae/falcon-(7|40)b")), 65024},
        {QRegularExpression(QStringLiteral("deepseek-ai/DeepSeek-V3")), 129280},
        {QRegularExpression(QStringLiteral("Qwen/Qwen3-")), 151669},
        {QRegularExpression(QStringLiteral("Qwen/Qwen2\\.5-")), 151665}};
    for (const auto &[pattern, size] : sizes)
        if (pattern.match(name).hasMatch())
            return size;
    return 0;
}

/// Pai-Megatron-Patch's --patch-tokenizer-type (megatron_patch/tokenizer/__init__.py at a098ca5): the
/// vocabulary is the tokenizer's own plus --extra-vocab-size, unpadded, for the types that fix the tokenizer:
/// LLama3Tokenizer, the Hugging Face tokenizer's vocab_size (128,000 ranks, lines 618-692) + extra (256 in
/// run_mcore_llama3_1.sh: 128,256); Qwen2Tokenizer and Qwen3Tokenizer, len(encoder), Qwen's 151,643 regular
/// tokens (lines 177-318) + extra (293: 151,936; 421: 152,064, Qwen2.5-7B's); LLama2Tokenizer, 32,000
/// (lines 557-616). The others load whichever checkpoint --load names: asked for. True when it is a Pai script.
bool paiTokenizer(const QString &file, const std::vector<Leaf> &leaves, FileImport &out)
{
    const auto patch = findLeaf(leaves, "patch_tokenizer_type");
    if (patch == leaves.end())
        return false;
    static const std::map<QString, int> base{{"LLama3Tokenizer", 128000},
                                             {"Qwen2Tokenizer", 151643},
                                             {"Qwen3Tokenizer", 151643},
                                             {"LLama2Tokenizer", 32000}};
    const auto known = base.find(patch->value.toString());
    if (known == base.end() || findLeafEnding(leaves, "num_layers") == leaves.end() ||
        findLeafEnding(leaves, "padded_vocab_size") != leaves.end() ||
        findLeafEnding(leaves, "vocab_size") != leaves.end())
        return true;
    const auto extra = findLeaf(leaves, "extra_vocab_size");
    const double size = known->second + (extra != leaves.end() ? asNumber(extra->value).toDouble() : 0.0);
    out.keys.push_back({QStringLiteral("model.vocab"), size, file, patch->line,
                        QStringLiteral("patch_tokenizer_type %1 + extra_vocab_size").arg(known->first)});
    return true;
}

/// A tokenizer's vocabulary, which the import pads to make_vocab_size_divisible_by (128 unless said) x tensor
/// (io/interop/Import.cpp), as Megatron-LM's vocab_size_with_padding does.
void addVocabularyToPad(const QString &file, const std::vector<Leaf> &leaves, const QJsonValue &size, int line,
                        const QString &source, FileImport &out)
{
    const auto multiple = findLeafEnding(leaves, "make_vocab_size_divisible_by");
    out.keys.push_back({QStringLiteral("derived.tokenizer_vocab"), size, file, line, source});
    out.keys.push_back({QStringLiteral("derived.vocab_multiple"),
                        multiple != leaves.end() ? asNumber(multiple->value) : QJsonValue(128.0), file,
                        multiple != leaves.end() ? multiple->line : line,
                        QStringLiteral("make_vocab_size_divisible_by")});
}

/// The tokenizers whose size is --vocab-size itself (NullTokenizer; TikTokenizer when given one): Megatron-LM
/// pads that to a multiple of make_vocab_size_divisible_by x tensor for the embedding (build_tokenizer.py at
/// d98e8a6: kwargs['vocab_size'] = args.vocab_size, lines 96-110; args.padded_vocab_size =
/// vocab_size_with_padding(tokenizer.vocab_size, args), line 152), so the plan's vocabulary is the padded size.
/// True when the vocabulary was so given.
bool paddedVocabularySize(const QString &file, const std::vector<Leaf> &leaves, FileImport &out)
{
    const auto type = findLeaf(leaves, "tokenizer_type");
    const auto size = findLeaf(leaves, "vocab_size");
    if (type == leaves.end() || size == leaves.end() || findLeafEnding(leaves, "padded_vocab_size") != leaves.end() ||
        (type->value.toString() != QLatin1String("NullTokenizer") &&
         type->value.toString() != QLatin1String("TikTokenizer")))
        return false;
    const auto given = std::find_if(out.keys.begin(), out.keys.end(), [](const ImportedKey &k) {
        return k.path == QLatin1String("model.vocab") && k.source == QLatin1String("vocab_size");
    });
    if (given == out.keys.end())
        return false;
    const ImportedKey read = *given;
    out.keys.erase(given);
    addVocabularyToPad(file, leaves, read.value, read.line,
                       QStringLiteral("vocab_size (%1)").arg(type->value.toString()), out);
    return true;
}

/// --optimizer dist_muon is Muon with the distributed optimizer (arguments.py at d98e8a6, "emerging optimizer check":
/// it sets use_layer_wise_distributed_optimizer), which shards the optimizer's state: ZeRO 1.
void distributedMuon(const QString &file, const std::vector<Leaf> &leaves, FileImport &out)
{
    if (!isDistributedMuon(leaves) || findLeaf(leaves, "use_distributed_optimizer") != leaves.end())
        return;
    const auto optimizer = findLeaf(leaves, "optimizer");
    out.keys.push_back({QStringLiteral("parallel.zero_stage"), 1.0, file, optimizer->line,
                        QStringLiteral("optimizer dist_muon (the layer-wise distributed optimizer)")});
}

/// Megatron-LM's tokenizer: --tokenizer-type, or pretrain_gpt.py's default, GPT-2's (its args_defaults,
/// pretrain_gpt.py line 527 at Megatron-LM d98e8a6).
void megatronTokenizer(const QString &file, const std::vector<Leaf> &leaves, const std::vector<shell::Field> &words,
                       FileImport &out)
{
    if (paiTokenizer(file, leaves, out) || paddedVocabularySize(file, leaves, out))
        return;
    if (const auto type = findLeaf(leaves, "tokenizer_type"); type != leaves.end()) {
        // A Hugging Face or SentencePiece tokenizer is named by --tokenizer-model (a model id or a file).
        if (const auto model = findLeaf(leaves, "tokenizer_model");
            model != leaves.end() && tokenizerVocabularySize(model->value.toString()) > 0) {
            addTokenizerVocabulary(file, leaves, model->value.toString(), model->line,
                                   QStringLiteral("tokenizer_model ") + model->value.toString(), out);
            return;
        }
        addTokenizerVocabulary(file, leaves, type->value.toString(), type->line,
                               QStringLiteral("tokenizer_type ") + type->value.toString(), out);
        return;
    }
    const auto gpt = std::find_if(words.begin(), words.end(), [](const shell::Field &f) {
        return f.text.endsWith(QLatin1String("pretrain_gpt.py"));
    });
    if (gpt != words.end())
        addTokenizerVocabulary(file, leaves, QStringLiteral("GPT2BPETokenizer"), std::max(gpt->line, 1),
                               QStringLiteral("pretrain_gpt.py's default tokenizer_type GPT2BPETokenizer"), out);
}

} // namespace

void adaptiveMuonMoment(const QString &file, const std::vector<Leaf> &leaves, FileImport &out)
{
    const auto method = findLeafEnding(leaves, "adaptive_muon_moment2_method");
    if (method == leaves.end())
        return;
    const QString name = method->value.toString();
    if (name != QLatin1String("normuon") && name != QLatin1String("namo"))
        return;
    for (ImportedKey &key : out.keys)
        if (key.path == QLatin1String("training.optimizer") && key.value.toString() == QLatin1String("adaptive_muon")) {
            key.value = QStringLiteral("muon");
            out.warnings.push_back(
                {file, method->line,
                 QStringLiteral("adaptive_muon_moment2_method %1 keeps its second moment per %2, next to nothing "
                                "beside the momentum: planned as training.optimizer \"muon\" (one moment per "
                                "matrix parameter)")
                     .arg(name, name == QLatin1String("normuon") ? QStringLiteral("row") : QStringLiteral("matrix"))});
        }
}

Convert stateFormat()
{
    return oneOf({{"fp32", "fp32"},
                  {"float32", "fp32"},
                  {"float", "fp32"},
                  {"torch.float32", "fp32"},
                  {"bf16", "bf16"},
                  {"bfloat16", "bf16"},
                  {"torch.bfloat16", "bf16"},
                  {"fp16", "fp16"},
                  {"float16", "fp16"},
                  {"half", "fp16"},
                  {"torch.float16", "fp16"},
                  {"fp8", "fp8"},
                  {"uint8", "fp8"},
                  {"torch.uint8", "fp8"}});
}

const std::map<QString, Rule> &megatronRules()
{
    static const std::map<QString, Rule> rules = [] {
        std::map<QString, Rule> r = megatronArgumentRules();
        r.merge(megatronModelRules());
        r.insert({
            {"bf16", {"training.precision", whenTrue(QStringLiteral("bf16"))}},
            {"fp16", {"training.precision", whenTrue(QStringLiteral("fp16"))}},
            {"fp8_format", {"training.precision", oneOf({{"hybrid", "fp8"}, {"e4m3", "fp8"}})}},
            {"fp8", {"training.precision", oneOf({{"hybrid", "fp8"}, {"e4m3", "fp8"}, {"true", "fp8"}})}},
            // NVFP4 (TransformerConfig.fp4, --fp4-format e2m1, at d98e8a64d).
            {"fp4_format", {"training.precision", oneOf({{"e2m1", "nvfp4"}})}},
            {"fp4", {"training.precision", oneOf({{"e2m1", "nvfp4"}})}},
            {"attention_backend",
             {"training.flash_attention",
              oneOf(
                  {{"flash", "true"}, {"fused", "true"}, {"auto", "true"}, {"unfused", "false"}, {"local", "false"}})}},
            {"recompute_granularity",
             {"training.recompute",
              oneOf({{"full", "full"}, {"selective", "selective"}, {"null", "none"}, {"none", "none"}})}},
            {"recompute_activations", {"training.recompute", whenTrue(QStringLiteral("selective"))}},
            {"use_distributed_optimizer", {"parallel.zero_stage", whenTrue(1)}},
            // Megatron-DeepSpeed (megatron/arguments.py at 4efb479): --deepspeed runs the DeepSpeed engine,
            // --zero-stage (line 1487) the ZeRO stage its scripts also write into the generated DeepSpeed
            // config, --checkpoint-activations (line 864) full recomputation of every layer (transformer.py
            // line 2082: _checkpointed_forward, as recompute_granularity "full"), --use-flash-attn-v2 and
            // -triton (lines 930, 933) fused attention, --ds-sequence-parallel-size (line 974)
            // DeepSpeed-Ulysses: the sequence split over that many ranks with all-to-all exchanges (the plan's
            // context group).
            {"deepspeed", {"training.framework", whenTrue(QStringLiteral("deepspeed"))}},
            {"zero_stage", {"parallel.zero_stage", asInteger}},
            {"checkpoint_activations", {"training.recompute", whenTrue(QStringLiteral("full"))}},
            {"use_flash_attn_v2", {"training.flash_attention", asBool}},
            {"use_flash_attn_triton", {"training.flash_attention", asBool}},
            {"ds_sequence_parallel_size", {"parallel.context", asInteger}},
            // DeepSpeed-MoE inside it (lines 608-615, 1159): top-k gating, experts every expert_interval-th
            // layer (transformer.py line 1658: layer_num % expert_interval == 0), the expert-parallel degree.
            {"topk", {"model.experts_per_token", asInteger}},
            {"expert_interval", {"model.moe_layer_interval", asInteger}},
            {"moe_expert_parallel_size", {"parallel.expert", asInteger}},
            // Its zero-bubble pipeline (line 856: "Activate zero bubble pipeline parallelism schedule method").
            {"enable_zbh1_pipeline", {"parallel.schedule", whenTrue(QStringLiteral("zb-h1"))}},
            // Grouped-query attention (line 623: --num-key-value-heads, "Number of key_value heads that should be
            // used to implement Grouped Query Attention"), and the optimizer on the host (line 948: --cpu-optimizer,
            // "Run optimizer on CPU": DeepSpeedCPUAdam over the parameters, megatron/optimizer/__init__.py line 83).
            {"num_key_value_heads", {"model.kv_heads", asInteger}},
            {"cpu_optimizer", {"parallel.offload_optimizer", asBool}},
            // The DeepSpeed launcher's GPUs per node (deepspeed/launcher/runner.py: --num_gpus, alias
            // --num_accelerators, "Max number of GPUs to use on each node").
            {"num_gpus", {"cluster.gpus_per_node", asInteger}},
            {"num_accelerators", {"cluster.gpus_per_node", asInteger}},
        });
        r.merge(megatronRuntimeRules()); // keeps r's rule for a name both have, as one insert of both would
        r.merge(zeroBubbleForkRules());
        return r;
    }();
    return rules;
}

bool ignoredName(const QString &name)
{
    static const QRegularExpression ignored(
        QStringLiteral("^(lr|min_lr|lr_.*|weight_decay|clip_grad|adam_.*|init_method_std|log.*|tensorboard.*|wandb.*|"
                       "muon_momentum|muon_nesterov|muon_scale_mode|muon_extra_scale_factor|muon_coefficient_type|"
                       "adaptive_muon_beta2|adaptive_muon_eps|adaptive_muon_moment2_method|"
                       "eval.*|save.*|load|data.*|"
                       "tokenizer.*|patch_tokenizer_type|extra_vocab_size|vocab_file|merge_file|split|train_iters|"
                       "deepspeed_config|enable_zbh1_exact_semantics|enable_optimizer_post_validation|"
                       "zero_bubble_pipeline_timers_.*|train_samples|seed|exit.*|profile.*|timing."
                       "*|max_position_embeddings|"
                       "use_mcore_models|transformer_impl|ckpt.*|dist_ckpt.*|distributed_timeout.*|manual_gc.*|num_"
                       "workers|group_query_attention|"
                       "make_vocab_size_divisible_by|no_.*|bias_.*_fusion|masked_softmax_fusion|rotary_.*|norm_epsilon|"
                       "moe_router_.*|moe_aux_.*|"
                       "moe_token_dispatcher_type|moe_grouped_gemm|moe_z_loss_coeff|moe_permute_fusion|"
                       "moe_token_drop_policy|"
                       "moe_pad_expert_input_to_capacity|moe_eval_capacity_factor|moe_min_capacity|"
                       "disable_moe_token_dropping|moe_train_capacity_factor|"
                       // HybridEP's rank capacity: what a whole-step graph and the paged stash need of it (the plan's
                       // dispatcher and graphs carry it); its size moves no estimate
                       "moe_expert_rank_capacity_factor|moe_paged_stash_.*|"
                       // Megatron-Core's --delay-wgrad-compute: what the expert all-to-all overlap needs beside it
                       // (parallel.expert_comm_overlap, whose export writes both); alone it moves no estimate
                       "delay_wgrad_compute|"
                       "master_addr|master_port|node_rank|rdzv_.*|standalone|mock_data|"
                       // read together (megatronLossKernel)
                       "cross_entropy_loss_fusion|cross_entropy_fusion_impl|"
                       "distributed_backend|ddp_.*|calculate_per_token_loss|spec|micro_batch_size_"
                       "per_gpu|recompute_method|recompute_num_layers|activations_checkpoint_method|"
                       "activations_checkpoint_num_layers|use_precision_aware_optimizer|optimizer_offload_fraction|"
                       "fsdp_sharding_strategy|fsdp_grad_reduce_dtype|fsdp_sharded_checkpoint|"
                       // the schedule, loss scaling, data and checkpoint I/O of Megatron-DeepSpeed and the RL recipes
                       "override_opt_param_scheduler|hysteresis|train_tokens|epochs|finetune|valid_data|train_data.*|"
                       // the DeepSpeed launcher's --force_multi; DeepSpeed's implementation of the recomputation
                       // --checkpoint-activations asks for (--deepspeed-activation-checkpointing)
                       "force_multi|deepspeed_activation_checkpointing|"
                       "pretrained_checkpoint|loss_scale.*|initial_loss_scale|min_loss_scale|auto_detect_ckpt_format|"
                       "reset_iteration|use_checkpoint_args|hostfile|grpo_.*|inference_.*|analyzing_.*|"
                       "return_data_index|te_rng_tracker|moe_loss_coeff|create_moe_param_group|langrl_env_config|"
                       "rampup_batch_size|step_batch_size_schedule)$"));
    return ignored.match(name).hasMatch();
}

void megatronMoeKernels(const QString &file, const std::vector<Leaf> &leaves, bool launchDefaults, FileImport &out)
{
    auto experts = findLeafEnding(leaves, "num_experts");
    if (experts == leaves.end())
        experts = findLeafEnding(leaves, "num_moe_experts");
    if (experts == leaves.end() || experts->value.toVariant().toDouble() <= 0)
        return;
    const auto dispatcher = findLeafEnding(leaves, "moe_token_dispatcher_type");
    const bool allgather = dispatcher != leaves.end() ? dispatcher->value.toString().compare(QLatin1String("allgather"),
                                                                                             Qt::CaseInsensitive) == 0
                                                      : launchDefaults;
    if (allgather)
        out.warnings.push_back(
            {file, dispatcher != leaves.end() ? dispatcher->line : experts->line,
             QStringLiteral("moe_token_dispatcher_type allgather%1: every expert rank gathers all tokens of its group; "
                            "planned as the all-to-all dispatcher (parallel.expert_dispatcher), which moves a token "
                            "only to its experts' ranks")
                 .arg(dispatcher != leaves.end() ? QString() : QStringLiteral(" (Megatron-Core's default)"))});
    // --moe-pad-expert-input-to-capacity: every expert computes its full capacity, padded (Megatron-Core's
    // token_dispatcher.py, drop_and_pad): the grouped GEMMs run as if each expert were the busiest at the factor.
    const auto pad = findLeafEnding(leaves, "moe_pad_expert_input_to_capacity");
    const auto factor = findLeafEnding(leaves, "moe_expert_capacity_factor");
    if (pad != leaves.end() && truthy(pad->value) && factor != leaves.end() && !asNumber(factor->value).isUndefined())
        out.keys.push_back({QStringLiteral("training.expert_imbalance"), asNumber(factor->value), file, pad->line,
                            QStringLiteral("moe_pad_expert_input_to_capacity with moe_expert_capacity_factor")});
    const auto grouped = findLeafEnding(leaves, "moe_grouped_gemm");
    if (grouped != leaves.end() ? !truthy(grouped->value) : launchDefaults)
        out.warnings.push_back(
            {file, grouped != leaves.end() ? grouped->line : experts->line,
             QStringLiteral("moe_grouped_gemm off%1: Megatron-Core's SequentialMLP runs one GEMM per local expert; "
                            "planned as a grouped GEMM (faster for many small experts)")
                 .arg(grouped != leaves.end() ? QString() : QStringLiteral(" (Megatron-Core's default)"))});
}

void megatronLossKernel(const QString &file, const std::vector<Leaf> &leaves, FileImport &out)
{
    const auto fusion = findLeafEnding(leaves, "cross_entropy_loss_fusion");
    const auto impl = findLeafEnding(leaves, "cross_entropy_fusion_impl");
    if (fusion == leaves.end())
        return;
    if (!truthy(fusion->value))
        out.keys.push_back({QStringLiteral("training.loss_kernel"), QStringLiteral("inplace"), file, fusion->line,
                            QStringLiteral("cross_entropy_loss_fusion false")});
    else if (impl != leaves.end() && impl->value.toString() == QLatin1String("te"))
        out.keys.push_back({QStringLiteral("training.loss_kernel"), QStringLiteral("te"), file, impl->line,
                            QStringLiteral("cross_entropy_loss_fusion with cross_entropy_fusion_impl te")});
}

void megatronRecomputeMethod(const QString &file, const std::vector<Leaf> &leaves, FileImport &out)
{
    auto method = findLeafEnding(leaves, "recompute_method");
    if (method == leaves.end())
        method = findLeafEnding(leaves, "activations_checkpoint_method");
    auto count = findLeafEnding(leaves, "recompute_num_layers");
    if (count == leaves.end())
        count = findLeafEnding(leaves, "activations_checkpoint_num_layers");
    const bool full = std::any_of(out.keys.begin(), out.keys.end(), [](const ImportedKey &k) {
        return k.path == QLatin1String("training.recompute") && k.value.toString() == QLatin1String("full") && !k.weak;
    });
    if (!full || method == leaves.end())
        return;
    const QString how = method->value.toString().toLower();
    out.notPlanned.removeAll(method->name); // planned here
    if (count != leaves.end())
        out.notPlanned.removeAll(count->name);
    const double n = count != leaves.end() ? count->value.toVariant().toDouble() : 1.0;
    const QString said = QStringLiteral("%1 %2 with %3 %4")
                             .arg(method->name, how, count != leaves.end() ? count->name : QStringLiteral("num_layers"))
                             .arg(n);
    if (how == QLatin1String("block") && n >= 1) {
        out.keys.push_back({QStringLiteral("training.recompute_layers"), n, file, method->line, said});
    } else if (how == QLatin1String("block")) {
        out.errors.push_back(
            {file, method->line,
             QStringLiteral("%1: full recomputation of no layer; give the layers to recompute "
                            "(training.recompute_layers) or turn recomputation off (training.recompute)")
                 .arg(said)});
    } else if (how == QLatin1String("uniform") && n > 1) {
        out.keys.push_back({QStringLiteral("training.recompute_chunk"), n, file, method->line, said});
    }
}

void megatronOffloadFraction(const QString &file, const std::vector<Leaf> &leaves, FileImport &out)
{
    const auto offload = findLeafEnding(leaves, "optimizer_cpu_offload");
    if (offload == leaves.end() || !truthy(offload->value))
        return;
    const auto given = findLeafEnding(leaves, "optimizer_offload_fraction");
    const double fraction = given == leaves.end() ? 0.0 : asNumber(given->value).toDouble();
    if (fraction > 0.0) { // the share the plan steps on the host (parallel.optimizer_offload_fraction)
        out.keys.push_back({QStringLiteral("parallel.optimizer_offload_fraction"), std::min(fraction, 1.0), file,
                            given->line, given->name});
        return;
    }
    for (ImportedKey &k : out.keys)
        if (k.path == QLatin1String("parallel.offload_optimizer"))
            k.value = false;
    out.warnings.push_back(
        {file, given == leaves.end() ? offload->line : given->line,
         QStringLiteral("%1 with an optimizer_offload_fraction of 0%2: Megatron-Core's CPU optimizer then steps "
                        "nothing on the host; read as no offload")
             .arg(offload->name)
             .arg(given == leaves.end() ? QStringLiteral(" (its default)") : QString())});
}

void addTokenizerVocabulary(const QString &file, const std::vector<Leaf> &leaves, const QString &tokenizer, int line,
                            const QString &source, FileImport &out)
{
    const int size = tokenizerVocabularySize(tokenizer);
    if (size == 0 || findLeafEnding(leaves, "num_layers") == leaves.end() ||
        findLeafEnding(leaves, "vocab_size") != leaves.end() ||
        findLeafEnding(leaves, "padded_vocab_size") != leaves.end())
        return;
    addVocabularyToPad(file, leaves, QJsonValue(double(size)), line, source, out);
}

/// Layers that are not dense attention: Megatron-Core's Mamba hybrids and its experimental attention variants.
/// True when refused.
bool refuseOtherLayers(const QString &file, const std::vector<Leaf> &leaves, FileImport &out)
{
    // Megatron-Core's hybrid models (pretrain_hybrid.py, pretrain_mamba.py) are planned block by block
    // (model.hybrid_pattern) where their layers are Mamba-2, attention, dense MLP and MoE blocks; Gated DeltaNet
    // (G) and DeepSeek Sparse Attention (D) layers are not (megatron/core/ssm/mamba_hybrid_layer_allocation.py).
    if (const auto hybrid = std::find_if(leaves.begin(), leaves.end(),
                                         [](const Leaf &l) {
                                             return l.name == QLatin1String("hybrid_layer_pattern") ||
                                                    l.name == QLatin1String("hybrid_override_pattern");
                                         });
        hybrid != leaves.end() && asHybridPattern(hybrid->value).isUndefined()) {
        const QString text = hybrid->value.toString().section(QLatin1Char('/'), 0, 0);
        QStringList kinds;
        if (text.contains(QLatin1Char('G')))
            kinds << QStringLiteral("Gated DeltaNet (G)");
        if (text.contains(QLatin1Char('D')))
            kinds << QStringLiteral("DeepSeek Sparse Attention (D)");
        refuseLayers(file, hybrid->line,
                     QStringLiteral("%1 %2: %3 layers").arg(hybrid->name, shortText(hybrid->value.toString()),
                                                            kinds.isEmpty() ? QStringLiteral("unknown")
                                                                            : kinds.join(QStringLiteral(", "))),
                     out);
        return true;
    }
    // Megatron-Core's experimental attention variants (--experimental-attention-variant, arguments.py at d98e8a6):
    // gated_delta_net makes all but every --linear-attention-freq-th layer Gated DeltaNet linear attention
    // (Qwen3-Next's), dsa is DeepSeek Sparse Attention (an indexer choosing --dsa-indexer-topk keys per query,
    // DeepSeek-V3.2's); a plan's layers attend densely.
    if (const auto variant = findLeaf(leaves, "experimental_attention_variant"); variant != leaves.end()) {
        const QString name = variant->value.toString();
        if (name == QLatin1String("dsa"))
            out.errors.push_back({file, variant->line,
                                  QStringLiteral("experimental_attention_variant dsa: DeepSeek Sparse Attention (an "
                                                 "indexer picks the keys each query attends to), which a plan's "
                                                 "dense attention does not hold, so it is not planned")});
        else
            refuseLayers(file, variant->line,
                         QStringLiteral("experimental_attention_variant %1: linear-attention (Gated DeltaNet) layers")
                             .arg(shortText(name)),
                         out);
        return true;
    }
    return false;
}

/// What the flags say is not one decoder-only language model trained: Mamba layers, a generation or evaluation
/// task, an encoder-decoder, knowledge distillation, a pyramid of expert counts, an image input. True when refused.
bool refuseOtherModels(const QString &file, const std::vector<Leaf> &leaves, FileImport &out)
{
    if (refuseOtherLayers(file, leaves, out))
        return true;
    // tasks/main.py and tasks/msdp/main.py run a task: prompting and evaluation are generation.
    static const QRegularExpression generationTask(QStringLiteral("PROMPT|EVAL|GENERAT"),
                                                   QRegularExpression::CaseInsensitiveOption);
    if (const auto task = findLeaf(leaves, "task");
        task != leaves.end() && generationTask.match(task->value.toString()).hasMatch()) {
        out.errors.push_back({file, task->line,
                              QStringLiteral("--task %1 runs the model, not training: Trainplan plans a training run")
                                  .arg(shortText(task->value.toString()))});
        return true;
    }
    // An encoder-decoder (pretrain_t5.py: --encoder-num-layers, --decoder-num-layers) is not a decoder stack.
    if (const auto encoder = findLeaf(leaves, "encoder_num_layers"); encoder != leaves.end()) {
        refuseLayers(file, encoder->line, QStringLiteral("encoder_num_layers: encoder-decoder models (T5)"), out);
        return true;
    }
    // DeepSpeed-MoE's pyramid (PR-MoE: --num-experts "64 64 ... 128 128", one count per MoE layer): the layers'
    // expert counts differ, and model.experts is one count. One count in a list is that count.
    if (const auto experts = findLeaf(leaves, "num_experts");
        experts != leaves.end() && experts->value.toString().contains(QLatin1Char(' '))) {
        QStringList counts = experts->value.toString().split(QLatin1Char(' '), Qt::SkipEmptyParts);
        counts.removeDuplicates();
        if (counts.size() > 1) {
            out.errors.push_back({file, experts->line,
                                  QStringLiteral("num_experts %1: MoE layers with different expert counts (a "
                                                 "pyramid), which model.experts, one count, does not hold")
                                      .arg(shortText(experts->value.toString()))});
            return true;
        }
    }
    // Megatron-DeepSpeed's knowledge distillation (--kd, megatron/arguments.py at 4efb479): a teacher model's
    // forward runs beside the student's, and the plan holds one model.
    if (const auto kd = findLeaf(leaves, "kd"); kd != leaves.end() && truthy(kd->value)) {
        out.errors.push_back({file, kd->line,
                              QStringLiteral("kd: knowledge distillation runs a teacher model's forward beside the "
                                             "student's, which one plan (one model) does not hold")});
        return true;
    }
    // An image input or a vision encoder (Megatron-LM's --img-h, --patch-dim, --vision-*; the multimodal
    // examples' --vision-model-type, --disable-vision-class-token; Pai-Megatron-Patch's Qwen-VL entry points, run
    // as a bare pretrain_qwen.py).
    static const QRegularExpression visionFlag(QStringLiteral("vision|^img_[hw]$|^patch_dim$|^image_"));
    if (const auto vision = std::find_if(leaves.begin(), leaves.end(),
                                         [](const Leaf &l) { return visionFlag.match(l.name).hasMatch(); });
        vision != leaves.end()) {
        out.errors.push_back({file, vision->line,
                              QStringLiteral("%1: a vision or vision-language model, whose image encoder is not "
                                             "planned (model.layers counts a language model's layers); to plan the "
                                             "language model alone, import its Hugging Face config.json")
                                  .arg(vision->name)});
        return true;
    }
    return false;
}

/// A script that runs Megatron-LM for something else than training a decoder-only language model is refused
/// naming what it runs, never planned as training: generation, inference and evaluation entry points
/// (examples/multimodal/run_text_generation.py, tools/run_text_generation_server.py, tasks/msdp/main.py
/// --task MSDP-PROMPT), and vision-language training (examples/multimodal/train.py --vision-model-type), whose
/// vision encoder no plan key holds. True when refused.
bool refuseNonTraining(const QString &file, const std::vector<shell::Field> &words, const std::vector<Leaf> &leaves,
                       FileImport &out)
{
    static const QRegularExpression notTraining(
        QStringLiteral("(generat|inference|server|evaluat|_eval|export|convert|quantiz|prune|mmlu|analyze|preprocess)"
                       "[^/]*\\.py$"),
        QRegularExpression::CaseInsensitiveOption);
    // Megatron-LM's entry points that train something else than a decoder-only language model.
    static const std::pair<QRegularExpression, const char *> otherModels[] = {
        {QRegularExpression(QStringLiteral("pretrain_bert\\.py$")), "BERT's bidirectional encoder layers"},
        {QRegularExpression(QStringLiteral("pretrain_t5\\.py$")), "encoder-decoder models (T5)"},
        {QRegularExpression(QStringLiteral("pretrain_retro\\.py$")),
         "RETRO's retrieval encoder and cross-attention layers"},
        {QRegularExpression(QStringLiteral("pretrain_ict\\.py$")), "a retriever's two encoders (ICT)"},
        {QRegularExpression(QStringLiteral("pretrain_vision_[^/]*\\.py$")), "vision transformers"},
        {QRegularExpression(QStringLiteral("(^|/)(multimodal|mimo)/[^/]*\\.py$|pretrain_vlm\\.py$")),
         "vision-language models (their vision encoder and projector)"}};
    for (const shell::Field &w : words) {
        if (!w.text.endsWith(QLatin1String(".py")))
            continue;
        const QString name = w.text.section(QLatin1Char('/'), -1);
        if (notTraining.match(w.text).hasMatch()) {
            out.errors.push_back({file, w.line,
                                  QStringLiteral("runs %1, not training: Trainplan plans a training run (import the "
                                                 "script that trains the model)")
                                      .arg(name)});
            return true;
        }
        for (const auto &[pattern, what] : otherModels)
            if (pattern.match(w.text).hasMatch()) {
                refuseLayers(
                    file, w.line,
                    QStringLiteral("runs %1: %2").arg(w.text.section(QLatin1Char('/'), -2), QLatin1String(what)), out);
                return true;
            }
    }
    return refuseOtherModels(file, leaves, out);
}

/// The words of a command's output the script does not know, split as its text ("_g$(($(ds_ssh nvidia-smi
/// --query-gpu=name ... | wc -l)-2))" in Megatron-DeepSpeed's job names): never flags.
std::vector<bool> substitutedWords(const std::vector<shell::Field> &words)
{
    std::vector<bool> substituted(words.size(), false);
    for (std::size_t i = 0, depth = 0; i < words.size(); ++i) {
        substituted[i] = depth > 0;
        const qsizetype opened = words[i].text.count(QLatin1String("$("));
        const qsizetype closed = words[i].text.count(QLatin1Char(')'));
        depth = std::size_t(std::max<qsizetype>(qsizetype(depth) + opened - closed, 0));
    }
    return substituted;
}

/// The flags of the words Megatron-LM is run with, as leaves (--name value, --name=value, a switch as true);
/// a value the script does not set is said (or, for what the plan does not hold, left as not planned).
std::vector<Leaf> megatronLeaves(const QString &file, const std::vector<shell::Field> &words, FileImport &out)
{
    std::vector<Leaf> leaves;
    const std::vector<bool> substituted = substitutedWords(words);
    for (std::size_t i = 0; i < words.size(); ++i) {
        if (substituted[i] || !isFlag(words[i].text))
            continue;
        const int line = words[i].line;
        QString name = words[i].text.mid(2), value;
        bool hasValue = false;
        if (const qsizetype eq = name.indexOf('='); eq > 0) {
            value = name.mid(eq + 1), name = name.left(eq), hasValue = true;
        } else if (i + 1 < words.size() && !isFlag(words[i + 1].text) &&
                   !words[i + 1].text.endsWith(QLatin1String(".py"))) {
            value = words[++i].text, hasValue = true;
            // A list-valued argument (--recompute-modules core_attn mla_up_proj moe; Megatron-DeepSpeed's
            // --num-experts, nargs='+'): every word up to the next flag.
            while ((name == QLatin1String("recompute-modules") || name == QLatin1String("num-experts") ||
                    name == QLatin1String("rampup-batch-size")) &&
                   i + 1 < words.size() && !isFlag(words[i + 1].text) &&
                   !words[i + 1].text.contains(QLatin1Char('=')) && !words[i + 1].text.endsWith(QLatin1String(".py")))
                value += QLatin1Char(' ') + words[++i].text;
            if (QStringList counts = value.split(QLatin1Char(' ')); name == QLatin1String("num-experts")) {
                counts.removeDuplicates();
                if (counts.size() == 1)
                    value = counts.front();
            }
        }
        name.replace('-', '_');
        // A tokenizer file under a directory the script does not set (${DATA_PATH}/utils/nemotron_2_256k.model):
        // its name is known, and names the vocabulary (tokenizerVocabularySize).
        if (name == QLatin1String("tokenizer_model") && value.contains(QLatin1Char('$')) &&
            !value.section(QLatin1Char('/'), -1).contains(QLatin1Char('$'))) {
            out.notPlanned << name;
            leaves.push_back({name, QJsonValue(value), line});
        } else if (name == QLatin1String("deepspeed_config")) { // its path, known or not: a file the script may write
            out.notPlanned << name;
            leaves.push_back({name, QJsonValue(value), line});
        } else if (value.contains(QLatin1Char('$')) && !megatronRules().count(name))
            out.notPlanned << name; // --data-path $3, --save $1: nothing the plan holds
        else if (value.contains(QLatin1Char('$')))
            out.warnings.push_back({file, line,
                                    QStringLiteral("--%1 %2: a value the script does not set (a variable, a positional "
                                                   "parameter without a default, or a command's output)")
                                        .arg(name, shortText(value))});
        else
            leaves.push_back({name, hasValue ? QJsonValue(value) : QJsonValue(true), line});
    }
    return leaves;
}

namespace {

/// The DeepSpeed config a Megatron-DeepSpeed script writes itself and passes as --deepspeed_config (its
/// examples_deepspeed/*.sh: cat <<EOT > $DS_CONFIG { ... "zero_optimization": {...}, "bf16": {...} } EOT): read as
/// a DeepSpeed config, its keys with the flags' (a value the two give differently is the import's error naming
/// both), its lines the script's. A config file the script only names is not here to read: said.
void readWrittenDeepSpeedConfig(const QString &file, const shell::Script &script, const std::vector<Leaf> &leaves,
                                FileImport &out)
{
    const auto config = findLeaf(leaves, "deepspeed_config");
    if (config == leaves.end())
        return;
    // The same path, or the same file name where a directory is a command's output ($script_dir/ds_config.json).
    const auto plain = [](QString path) { return path.startsWith(QLatin1String("./")) ? path.mid(2) : path; };
    const QString path = plain(leafText(config->value)), name = path.section(QLatin1Char('/'), -1);
    const auto written =
        std::find_if(script.hereDocuments.rbegin(), script.hereDocuments.rend(), [&](const shell::HereDocument &d) {
            return plain(d.target) == path || (!name.isEmpty() && !name.contains(QLatin1Char('$')) &&
                                               d.target.section(QLatin1Char('/'), -1) == name);
        });
    if (written == script.hereDocuments.rend()) {
        out.warnings.push_back({file, config->line,
                                QStringLiteral("deepspeed_config %1: a file this script does not write; import it "
                                               "with the script to plan what it says (ZeRO, offload, precision)")
                                    .arg(leafText(config->value))});
        return;
    }
    if (!written->source.isEmpty()) { // sed ... TEMPLATE > FILE: read when the template is imported beside it
        out.templatedConfigs.push_back({written->source, written->substitutions, written->line});
        return;
    }
    FileImport ds = readDeepSpeed(file, written->text.toUtf8());
    // The config's lines as the script's: its body's first line on; a default (line 0) at the flag.
    const auto moved = [&](auto &from, auto &to) {
        for (auto &item : from) {
            item.line = item.line > 0 ? item.line + written->line - 1 : config->line;
            to.push_back(std::move(item));
        }
    };
    moved(ds.keys, out.keys);
    moved(ds.warnings, out.warnings);
    moved(ds.errors, out.errors);
    out.notPlanned << ds.notPlanned;
}

} // namespace

FileImport readMegatron(const QString &file, const QByteArray &bytes, const QStringList &arguments)
{
    FileImport out;
    out.format = ImportFormat::Megatron;
    const shell::Script script = shell::read(QString::fromUtf8(bytes), arguments);
    if (!script.error.isEmpty()) {
        out.errors.push_back({file, script.errorLine, script.error});
        return out;
    }
    out.missingArguments = script.missingArguments;
    out.sourcedFiles = sourcedFiles(script);
    const std::vector<shell::Field> words = launchWords(file, script, out);
    const std::vector<Leaf> leaves = megatronLeaves(file, words, out);
    if (refuseNonTraining(file, words, leaves, out))
        return out;
    mapLeaves(
        file, leaves, megatronRules(), [](const QString &n) { return n; }, out);
    megatronOffloadFraction(file, leaves, out);
    megatronRecomputeMethod(file, leaves, out);
    megatronMoeKernels(file, leaves, true, out);
    // --rampup-batch-size START INCREMENT SAMPLES: the first steps run smaller batches; the plan is the step at
    // --global-batch-size, where the ramp ends (arguments.py, "--rampup-batch-size").
    if (const auto rampup = findLeaf(leaves, "rampup_batch_size"); rampup != leaves.end())
        out.warnings.push_back({file, rampup->line,
                                QStringLiteral("rampup_batch_size %1: the batch ramps up over the first samples; "
                                               "planned at the global batch it ends at")
                                    .arg(leafText(rampup->value))});
    // --step-batch-size-schedule "THRESHOLD:BS ...": the batch steps up at token (or sample) thresholds
    // (num_microbatches_calculator.py at d98e8a6), in place of --global-batch-size (arguments.py refuses both):
    // a plan has one batch, so the schedule's are named and the plan's is asked for.
    if (const auto schedule = findLeaf(leaves, "step_batch_size_schedule"); schedule != leaves.end())
        out.warnings.push_back({file, schedule->line,
                                QStringLiteral("step_batch_size_schedule %1: the global batch steps up during the "
                                               "run; give the one to plan with --set training.global_batch")
                                    .arg(leafText(schedule->value))});
    if (const auto ulysses = findLeaf(leaves, "ds_sequence_parallel_size");
        ulysses != leaves.end() && asNumber(ulysses->value).toDouble() > 1)
        out.keys.push_back({QStringLiteral("parallel.context_comm"), QStringLiteral("all-to-all"), file,
                            ulysses->line, QStringLiteral("ds_sequence_parallel_size (DeepSpeed-Ulysses)")});
    readWrittenDeepSpeedConfig(file, script, leaves, out);
    distributedMuon(file, leaves, out);
    megatronLossKernel(file, leaves, out);
    adaptiveMuonMoment(file, leaves, out);
    addMegatronDefaults(file, leaves, out);
    megatronTokenizer(file, leaves, words, out);
    return out;
}

} // namespace trainplan::io::reading
