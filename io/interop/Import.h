#pragma once
// Plans from the files users already have: a Hugging Face config.json (the model), a Megatron-LM launch script or
// argument file, a NeMo / Megatron-Bridge recipe (YAML), a torchtitan job file (TOML) or saved configuration (JSON)
// and a DeepSpeed config (JSON), combined into one plan. Every key read is reported with its file and line; keys not
// understood are warnings with file and line; two files that disagree on a key are an error that names both; a file
// that gives no key is an error. What the plan needs and no file gives (the device, the node count, the global
// batch, the model, its sequence length) is an error naming each key unless the built-in example plan's values are
// asked for (ImportOptions::assumeExample; then listed as assumptions); everything else takes the plan format's
// documented defaults (docs/PLAN_FORMAT.md), not the example's. Exports go the other way (io/interop/Export.h).

#include <QByteArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

#include "core/hardware/Catalog.h"
#include "core/plan/Plan.h"
#include "io/interop/ShellScript.h"

namespace trainplan::io {

enum class ImportFormat { HuggingFace, Megatron, NeMo, Torchtitan, DeepSpeed, LlmFoundry, Unknown };
const char *formatName(ImportFormat format);

/// The format of a file, from its name and content (JSON by its keys).
ImportFormat detectFormat(const QString &path, const QByteArray &bytes);

/// One plan key a file gave: the plan path ("parallel.tensor"), its value in the plan format, where it
/// was read and what the file called it.
struct ImportedKey
{
    QString path;
    QJsonValue value;
    QString file;
    int line = 0;
    QString source; ///< the file's own name for it: "--tensor-model-parallel-size", "num_hidden_layers"
    /// A format's default for what the file leaves out (a Megatron-LM script trains tied embeddings unless
    /// it says --untie...): another file that says otherwise wins without a conflict.
    bool weak = false;
};

struct ImportMessage
{
    QString file;
    int line = 0;
    QString text;
    QString where() const { return line > 0 ? QStringLiteral("%1:%2").arg(file).arg(line) : file; }
};

/// One file read: its keys, and what it said that no plan key holds.
struct FileImport
{
    ImportFormat format = ImportFormat::Unknown;
    std::vector<ImportedKey> keys;
    std::vector<ImportMessage> warnings;
    std::vector<ImportMessage> errors;
    QStringList notPlanned; ///< names read and deliberately not planned: hyperparameters, data, logging
    int missingArguments = 0; ///< a launch script's highest $N run without (shell::Script::missingArguments)
    /// A DeepSpeed config the script writes by sed from a template (shell::HereDocument::source): imported
    /// beside the script, the template is read with the script's substitutions made (importContents).
    struct TemplatedConfig
    {
        QString source;                                       ///< the template's path as the script names it
        std::vector<shell::HereDocument::Substitution> substitutions;
        int line = 0;                                         ///< the sed pipeline's first line in the script
    };
    std::vector<TemplatedConfig> templatedConfigs;
    /// Files a launch script reads with `source FILE` or `. FILE` (a model's settings gathered in another script:
    /// Megatron-LM's examples/rl/model_configs/*.sh source common.sh, which gives the precision): the path as
    /// the script writes it and the line. Imported beside the script they are read as files of their own;
    /// without them the import says what it cannot read (importContents).
    struct SourcedFile
    {
        QString path;
        int line = 0;
    };
    std::vector<SourcedFile> sourcedFiles;
};

/// JSON as Python writes it, made readable: bare Infinity, -Infinity and NaN outside strings become null.
QByteArray relaxedJson(const QByteArray &json);

/// Reads one file of a known format (`name` is how messages name it).
FileImport importFile(const QString &name, const QByteArray &bytes, ImportFormat format,
                      const QStringList &scriptArguments = {});

/// A key the plan needs that no file gave (nor --set): the import fails naming it unless the example plan's
/// value is taken on purpose (ImportOptions::assumeExample, `trainplan import --assume-example`).
struct MissingKey
{
    QString path;         ///< "cluster.device"
    QJsonValue example;   ///< the built-in example plan's value, offered to the user
    QString meaning;      ///< what it is: "the accelerator"
};

struct ImportOptions
{
    /// Take what no file gives from the built-in example plan (listed as assumptions); otherwise each such
    /// key is an error naming it.
    bool assumeExample = false;
    /// The positional parameters a launch script is run with ($1 ..., $#, $@), as `bash SCRIPT ARGS...` gives
    /// them (Pai-Megatron-Patch's run_mcore_*.sh take the model size, batch and layout so); given to every
    /// Megatron-LM script imported. Without them a positional parameter without a default is asked for.
    QStringList scriptArguments;
};

struct ImportResult
{
    std::optional<Plan> plan;              ///< the combined plan, when it reads and validates
    QJsonObject document;                  ///< the combined plan document (as a plan file)
    std::vector<ImportedKey> read;         ///< every key read, in file order
    std::vector<ImportMessage> warnings;   ///< not understood, approximated, or the plan's own warnings
    std::vector<ImportMessage> errors;     ///< unreadable files, conflicts, an invalid plan
    QStringList assumptions;               ///< "training.global_batch = 1536 (the example plan)" (assumeExample only)
    /// The layout and training choices no file gives, at the plan format's defaults ("parallel.tensor = 1"):
    /// a plan that does not fit often owes it to them.
    QStringList defaults;
    std::vector<MissingKey> missing;       ///< needed, given by no file: errors unless assumeExample
    QStringList notPlanned; ///< "run.sh: lr, min_lr, ..." (read, no plan key: hyperparameters, data, logging)
    QStringList overrides;                 ///< "parallel.tensor = 8" for each --set, in the order given
    QStringList scriptArguments;           ///< the positional parameters launch scripts were read with
    /// A launch script expands positional parameters up to $N that it was not given and has no default for
    /// (Pai-Megatron-Patch's run_mcore_*.sh: the model size, batch, layout): ImportOptions::scriptArguments
    /// (`--script-args`, the window's import dialog) gives them. 0: none.
    int missingArguments = 0;
    bool ok() const { return plan.has_value() && errors.empty(); }
};

/// The largest configuration file read (a launch script or a recipe is kilobytes).
inline constexpr qint64 kMaxConfigurationBytes = 16 * 1024 * 1024;

/// Combines the files (paths read from disk) and `sets` ("key=value" overrides, applied last) into a plan.
ImportResult importFiles(const QStringList &paths, const QStringList &sets, const Catalog &catalog,
                         const ImportOptions &options = {});
/// The same from contents already read: (name, bytes) pairs.
ImportResult importContents(const std::vector<std::pair<QString, QByteArray>> &files, const QStringList &sets,
                            const Catalog &catalog, const ImportOptions &options = {});

/// A human-readable account: keys read, assumptions, warnings, errors.
QString importReport(const ImportResult &result);

} // namespace trainplan::io
