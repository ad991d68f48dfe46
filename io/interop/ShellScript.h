#pragma once
// What a launch script would run, read without running anything (issue 38): the commands of a bash script
// with its variables and arrays expanded as bash expands them: VAR=value and VAR+=value, arrays VAR=(...)
// and VAR+=(...) with quoted elements, ${VAR:-default} and the other default forms, positional parameters
// with their defaults (${1:-x}), unquoted expansions split into words and quoted ones kept whole, "${A[@]}",
// integer arithmetic $((...)), if/elif/else on tests of known values ([ ], [[ ]], -z, -n, =, ==, !=, -eq
// ...), loop bodies read once unless the loop surely never runs (while on a false test), here-documents (text,
// or a script where a shell or sbatch reads one), and eval of a string (Pai-Megatron-Patch's megatron_options="..."
// gathered and eval'ed). What cannot be known without running (command substitution $(...), a positional
// parameter without a default, a test of an unknown value) stays as written: a value with '$' in it, or both
// branches read, in order.

#include <QString>
#include <QStringList>

#include <vector>

namespace trainplan::io::shell {

/// One word of a command after expansion, with the line its text was written on.
struct Field
{
    QString text;
    int line = 0;
};

/// A simple command as bash would run it (assignments before it applied).
struct Command
{
    std::vector<Field> words;
};

/// A here-document (cat <<EOF > FILE ... EOF): its body as the command reads it (expanded unless the delimiter is
/// quoted) and the file the command writes it to, when it says (> FILE, >> FILE, tee FILE); empty otherwise.
struct HereDocument
{
    QString text;
    QString target;
    int line = 0; ///< the body's first line
    /// A file a sed pipeline writes from another (sed "s/GBSIZE/${gbs}/" TEMPLATE | sed "s/ZERO_STAGE/1/" > FILE,
    /// Megatron-DeepSpeed's examples_deepspeed/*.sh): `text` is empty and the file is `source` with these literal
    /// substitutions made in order, each once per line or, with the g flag, everywhere (`global`).
    QString source;
    struct Substitution
    {
        QString from, to;
        bool global = false;
    };
    std::vector<Substitution> substitutions;
};

/// `source`'s text with a sed pipeline's substitutions made as sed makes them.
QString substituted(const QString &source, const std::vector<HereDocument::Substitution> &substitutions);

/// A variable's value at the end of the script, split into words as an unquoted expansion would split it.
struct Variable
{
    QString name;
    std::vector<Field> words;
};

/// What a script gives: its commands, or why it cannot be read.
struct Script
{
    std::vector<Command> commands;
    /// Every variable set at the end of the script, in the order of its value's line (a fragment that gathers
    /// a launcher's flags for another script to run: MODEL_ARGS="--num-layers 36 ..." in Megatron-LM's
    /// examples/post_training/modelopt/conf/*/*.sh).
    std::vector<Variable> variables;
    /// The here-documents of the commands run (not their words), in order, and the files literal sed pipelines
    /// write from another (HereDocument::source): a launch script writes its DeepSpeed config so
    /// (Megatron-DeepSpeed's examples_deepspeed/*.sh: cat <<EOT > $DS_CONFIG, or sed ... TEMPLATE > $config_json).
    std::vector<HereDocument> hereDocuments;
    /// The highest positional parameter ($N) the script expands that it was not run with and gives no default
    /// for: 0 when none (`bash script.sh A B ...` would give them; read() takes them as `arguments`).
    int missingArguments = 0;
    /// Non-empty when an expansion passes a limit (a word or value of more than kMaxWordCharacters, more
    /// than kMaxTotalCharacters in all, expansions nested more than kMaxNesting deep): an expansion bomb
    /// or a script no launcher runs. `errorLine` is where.
    QString error;
    int errorLine = 0;
};

inline constexpr qsizetype kMaxWordCharacters = qsizetype(1) << 20;
inline constexpr qsizetype kMaxTotalCharacters = qsizetype(16) << 20;
inline constexpr int kMaxNesting = 64;

/// The commands the script runs (eval'ed strings in place), in order, and the
/// here-documents they read. `arguments` are the positional
/// parameters it is run with ($1 ..., $#, $@: `bash script.sh dsw 8B 1 8 ...`); without them a positional
/// parameter without a default stays unknown.
Script read(const QString &script, const QStringList &arguments = {});

} // namespace trainplan::io::shell
