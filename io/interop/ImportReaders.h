#pragma once
// What the five readers of io/interop/Import.h share (internal to io/interop): each reader, one file per
// framework (ReadHuggingFace, ReadMegatron, ReadNemo, ReadTorchtitan, ReadDeepSpeed), turns its file into
// leaves (its own dotted names, values and lines), then maps the leaves it understands to plan keys through a
// table of rules. The rules' conversions, the leaf mapping and the JSON helpers are here (ImportReaders.cpp);
// Megatron-Core's names, which the NeMo reader reads too, are ReadMegatron's.

#include <QJsonObject>
#include <QJsonValue>
#include <QString>

#include <functional>
#include <map>
#include <span>
#include <utility>
#include <vector>

#include "io/interop/Import.h"
#include "io/interop/KeyNames.h"

namespace trainplan::io::reading {

/// A value as the file wrote it, with its line (1-based; 0 when unknown).
struct Leaf
{
    QString name;
    QJsonValue value;
    int line = 0;
};

/// Converts a leaf's value to a plan key's value; Undefined: nothing to set (e.g. "bf16": false).
using Convert = std::function<QJsonValue(const QJsonValue &)>;

/// A file's name for a plan key: the key and how its value converts.
struct Rule
{
    const char *path;
    Convert convert;
};

// Pseudo-keys resolved when the files are combined (io/interop/Import.cpp): they need other keys' values.
inline constexpr const char *kLayersPerVirtualStage = "derived.layers_per_virtual_stage";
inline constexpr const char *kAccumulation = "derived.gradient_accumulation";
/// A Hugging Face Hub checkpoint the file trains ("meta-llama/Llama-3.1-8B"): its shape is the catalog preset's
/// that lists it, else its config.json's (Import's resolveCheckpoint).
inline constexpr const char *kCheckpoint = "derived.hf_checkpoint";
/// A DeepSpeed config's "auto" micro-batch and precision: the Hugging Face Trainer's arguments, asked for
/// (Import's neededKeys).
inline constexpr const char *kTrainerMicroBatch = "derived.trainer_micro_batch";
inline constexpr const char *kTrainerPrecision = "derived.trainer_precision";
inline constexpr const char *kDropout = "derived.dropout";
inline constexpr const char *kSharedExpertWidth = "derived.shared_expert_width";
/// Megatron-Core's pipeline_model_parallel_layout (the layers of every model chunk), resolved with the
/// pipeline size into the first and last stages' layers and the virtual stages (Import.cpp).
inline constexpr const char *kPipelineLayout = "derived.pipeline_layout";

// --- Leaves ------------------------------------------------------------------------------------------------

/// The leaf of that dotted name, or leaves.end().
std::vector<Leaf>::const_iterator findLeaf(const std::vector<Leaf> &leaves, const char *name);

/// The leaf whose last dotted sections are `tail` (a recipe nests its keys: "model.tokenizer.type" for
/// "tokenizer.type"), or leaves.end().
std::vector<Leaf>::const_iterator findLeafEnding(const std::vector<Leaf> &leaves, const char *tail);

/// A value as a message quotes it: at most 80 characters (a value of a megabyte never floods the terminal).
QString shortText(const QString &text);

/// The error for a model whose layers are not all transformer layers (Mamba, linear attention, an
/// encoder-decoder): `what` says which ("hybrid_layer_pattern M-M*-: Mamba layers"); a plan's model.layers
/// cannot hold them, so the import refuses it rather than plan them as attention layers.
void refuseLayers(const QString &file, int line, const QString &what, FileImport &out);
/// The error for parameter-efficient tuning (`at` names the method: NeMo's peft_scheme, llm-foundry's
/// peft_config): adapters train beside a frozen model, and a plan trains every parameter.
void refuseAdapters(const QString &file, const Leaf &at, FileImport &out);
/// A leaf's value as a message quotes it (a list as JSON, "[0,0,1]").
QString leafText(const QJsonValue &v);

// --- Conversions -------------------------------------------------------------------------------------------

/// A whole number (from a number or its text); Undefined otherwise.
QJsonValue asInteger(const QJsonValue &v);
/// A number (from a number or its text); Undefined otherwise.
QJsonValue asNumber(const QJsonValue &v);
/// A hybrid model's layer pattern (Megatron-Core's --hybrid-layer-pattern, Nemotron-H's hybrid_override_pattern):
/// the symbols before the first "/" (the MTP modules' patterns follow it) without the "|" stage boundaries, when
/// each is one Trainplan plans (M, *, -, E); Undefined otherwise.
QJsonValue asHybridPattern(const QJsonValue &v);
/// A window's left extent from Megatron-Core's window_size pair ("127,0", "(128, 0)", [128, 0]); -1, the
/// infinite window, as 0 (none). Undefined when it is not a pair of whole numbers.
QJsonValue windowLeft(const QJsonValue &v);
/// What a rule's numeric conversion expects, or nullptr for the others: a value it refuses ("nan", "0x20",
/// "32.5" for a whole number, an empty value) is an error, never the plan's default taken in its place.
const char *expectedNumber(const Convert &convert);
/// Whether a flag's value says yes: true, a number other than 0, or the text "true", "1" or "yes".
bool truthy(const QJsonValue &v);
/// A flag.
QJsonValue asBool(const QJsonValue &v);
/// A flag that turns its key off ("--no-..."): its opposite.
QJsonValue asNotBool(const QJsonValue &v);
/// A flag that, when set, gives a fixed value.
Convert whenTrue(QJsonValue value);
/// One of a few spellings (case-insensitive) to a plan spelling: "true" and "false" as flags, a whole number
/// ("3", a ZeRO stage) as a number. Undefined for a spelling it does not list.
Convert oneOf(const std::vector<std::pair<const char *, const char *>> &spellings);
/// A name table's rules (io/interop/KeyNames): a whole number, a flag, or one of a choice's spellings.
void addTableRules(std::map<QString, Rule> &rules, std::span<const KeyName> table);

// --- Mapping -----------------------------------------------------------------------------------------------

/// Megatron-LM's names read and deliberately not planned: hyperparameters, data, logging, checkpoints, I/O.
bool ignoredName(const QString &name);

/// Maps leaves through a table; dropouts and virtual stages become pseudo-keys; the rest are warnings.
void mapLeaves(const QString &file, const std::vector<Leaf> &leaves, const std::map<QString, Rule> &rules,
               const std::function<QString(const QString &)> &keyOf, FileImport &out,
               const std::function<bool(const QString &)> &notPlanned = ignoredName);

// --- JSON files --------------------------------------------------------------------------------------------

/// The line (1-based) of the quoted key's first appearance at or after byte `from`; 0 when it does not appear.
int lineOfKey(const QByteArray &bytes, const QString &key, qsizetype from = 0);
/// An object's scalars and lists as dotted leaves, each with the line of its key.
void jsonLeaves(const QJsonObject &object, const QString &prefix, const QByteArray &bytes, std::vector<Leaf> &leaves);
/// A JSON key written twice in one object: the file means one of the values, and QJsonDocument would keep
/// whichever came last. True (with the error) when there is one.
bool refuseDuplicateKey(const QString &file, const QByteArray &bytes, FileImport &out);

// --- Megatron-Core's names (ReadMegatron.cpp), which NeMo's recipes use too ----------------------------------

/// Megatron-LM's arguments and Megatron-Core's configuration names, each to its key.
const std::map<QString, Rule> &megatronRules();
/// A number format as Megatron-Core, Apex and NeMo spell an optimizer-state dtype ("bf16", "torch.bfloat16",
/// "fp32").
Convert stateFormat();
/// Megatron-Core's CPU optimizer moves optimizer_offload_fraction of the state to the host, 0.0 unless set
/// (megatron/core/optimizer/optimizer_config.py): --optimizer-cpu-offload alone offloads nothing, and
/// Megatron-LM's own guide gives --optimizer-offload-fraction 1.0 with it
/// (docs/user-guide/features/optimizer_cpu_offload.md). A fraction above 0 is the plan's
/// parallel.optimizer_offload_fraction; none or 0 is read as no offload, with a warning.
void megatronOffloadFraction(const QString &file, const std::vector<Leaf> &leaves, FileImport &out);
/// Full recomputation's method (megatron/training/arguments.py --recompute-method, NeMo 1's
/// activations_checkpoint_method): "block" recomputes the first recompute_num_layers layers of each stage
/// (training.recompute_layers; megatron/core/transformer/transformer_block.py, _checkpointed_forward),
/// "uniform" every layer in chunks of that many (planned per layer, said when the chunks hold more than one).
void megatronRecomputeMethod(const QString &file, const std::vector<Leaf> &leaves, FileImport &out);
/// The cross-entropy (Megatron-Core's cross_entropy_loss_fusion and cross_entropy_fusion_impl,
/// language_module.py compute_language_model_loss): with the fusion and impl "te" Transformer Engine's
/// (training.loss_kernel te); the fusion turned off, Megatron's own in-place kernel (inplace); the native fused
/// kernel, or neither said, the plan's default (auto).
void megatronLossKernel(const QString &file, const std::vector<Leaf> &leaves, FileImport &out);
/// Adaptive Muon's second moment (Megatron-Core optimizer_config.py adaptive_muon_moment2_method, "adamuon" by
/// default; Emerging-Optimizers adaptive_muon.py `_init_group`): "adamuon" keeps one per element, as Adam does,
/// which training.optimizer adaptive_muon plans; "normuon" one per row or column and "namo" one scalar per
/// matrix, next to nothing: those are planned as Muon's one moment, and the import says so.
void adaptiveMuonMoment(const QString &file, const std::vector<Leaf> &leaves, FileImport &out);
/// Megatron-Core's MoE kernels the plan does not hold (megatron/core/transformer/transformer_config.py at
/// d98e8a6: moe_token_dispatcher_type "allgather" and moe_grouped_gemm False by default): the allgather
/// dispatcher and the per-expert SequentialMLP are said, planned as all-to-all and a grouped GEMM. With
/// `launchDefaults` (a Megatron-LM launch, whose arguments default to those) their absence is said too.
void megatronMoeKernels(const QString &file, const std::vector<Leaf> &leaves, bool launchDefaults, FileImport &out);
/// The vocabulary of the tokenizer a file names, when it gives no vocabulary size: the tokenizer's own, which
/// Megatron-LM pads to a multiple of make_vocab_size_divisible_by (128) x the tensor-parallel size
/// (megatron/core/tokenizers/utils/build_tokenizer.py, vocab_size_with_padding; resolved with the layout,
/// io/interop/Import.cpp). Only for a file that gives the model (a tokenizer alone plans nothing).
void addTokenizerVocabulary(const QString &file, const std::vector<Leaf> &leaves, const QString &tokenizer, int line,
                            const QString &source, FileImport &out);

// --- The readers, one per framework -------------------------------------------------------------------------

/// A Hugging Face config.json (ReadHuggingFace.cpp).
FileImport readHuggingFace(const QString &file, const QByteArray &written);
/// A Megatron-LM launch script or argument file (ReadMegatron.cpp).
FileImport readMegatron(const QString &file, const QByteArray &bytes, const QStringList &arguments = {});
/// A NeMo 1 or NeMo 2 / Megatron-Bridge recipe, YAML (ReadNemo.cpp).
/// The line a Megatron-Bridge training log prints before its configuration (setup.py, until 7cf685164).
inline constexpr const char *kBridgeLogConfigurationLine = "------- Task Configuration -------";
/// The configuration a Megatron-Bridge training log prints between kBridgeLogConfigurationLine and closing
/// dashes, the rest of the log blanked (its lines kept); empty when the text has no such block.
QByteArray bridgeLogConfiguration(const QByteArray &bytes);
FileImport readNemo(const QString &file, const QByteArray &bytes);
/// A torchtitan job file, TOML (ReadTorchtitan.cpp).
FileImport readTorchtitan(const QString &file, const QByteArray &bytes);
/// A DeepSpeed config, JSON (ReadDeepSpeed.cpp).
FileImport readDeepSpeed(const QString &file, const QByteArray &bytes);
/// An llm-foundry training YAML (ReadLlmFoundry.cpp).
FileImport readLlmFoundry(const QString &file, const QByteArray &bytes);
/// Whether a YAML document is llm-foundry's training configuration rather than a NeMo recipe: it names an
/// llm-foundry model class or Composer's batch keys (global_train_batch_size, device_train_microbatch_size).
bool isLlmFoundryYaml(const QByteArray &bytes);

/// A YAML document's leaves with OmegaConf interpolations (${variables.max_seq_len}) resolved; false (with the
/// error in `out`) when it is not YAML this reader can walk (ReadNemo.cpp).
bool yamlLeavesOf(const QString &file, const QByteArray &bytes, std::vector<Leaf> &leaves, FileImport &out);

} // namespace trainplan::io::reading
