#pragma once
// What every subcommand shares: its command line (QCommandLineParser with --help and one plan argument,
// a file or - for standard input), the exit codes, and reading the plan with every problem reported.

#include <QCommandLineParser>
#include <QStringList>
#include <QTextStream>

#include <optional>
#include <utility>
#include <vector>

#include "core/plan/Plan.h"

namespace trainplan::cli {

/// Exit codes of every subcommand (README and `trainplan SUBCOMMAND --help` list them).
enum ExitCode {
    Ok = 0,           ///< done (for estimate and search also when the plan does not fit or nothing is feasible)
    InvalidInput = 1, ///< the plan is unreadable or invalid: one "file: key: rule" line per problem on stderr
    UsageError = 2,   ///< the command line is wrong
    OutputError = 3,  ///< the output cannot be written
};

/// One subcommand's command line.
class CommandLine
{
public:
    /// `command` as typed ("estimate"), its one-line description and its usage lines; `plans`: how many plan
    /// files it takes (compare takes two; 0: one or more configuration files, for import).
    CommandLine(QString command, const QString &description, QString usage, int plans = 1);
    /// A command whose positional files are not plans: each (name as the usage spells it, description).
    CommandLine(QString command, const QString &description, QString usage,
                const std::vector<std::pair<QString, QString>> &files);

    void addOption(const QCommandLineOption &option) { m_parser.addOption(option); }

    /// Parses `arguments` (those after the subcommand's name). Returns the exit code when the command is
    /// done already: Ok after --help, UsageError after a problem (said on `err` with the usage).
    std::optional<int> parse(const QStringList &arguments, QTextStream &out, QTextStream &err);

    bool isSet(const QCommandLineOption &option) const { return m_parser.isSet(option); }
    QString value(const QCommandLineOption &option) const { return m_parser.value(option); }
    QStringList values(const QCommandLineOption &option) const { return m_parser.values(option); }
    /// The plan file ("-" for standard input).
    QString planPath() const { return m_parser.positionalArguments().value(0); }
    QStringList planPaths() const { return m_parser.positionalArguments(); }

    /// "trainplan COMMAND: MESSAGE" and the usage on `err`; returns UsageError.
    int usageError(QTextStream &err, const QString &message) const;

private:
    QString m_command;
    QString m_usage;
    QCommandLineParser m_parser;
    QCommandLineOption m_help;
    int m_plans;
    QStringList m_fileNames; ///< the second constructor's names ("TRACE", "PLAN")
};

/// Reads a plan file (or standard input for "-") for a subcommand: every problem goes to `err` as
/// "path: key: rule"; empty when the plan has errors (exit with InvalidInput).
std::optional<Plan> readPlanForCommand(const QString &path, QTextStream &err);

/// Flushes what a subcommand wrote to standard output: OutputError (with the reason on `err`) when it could
/// not be written (a full disk, a closed pipe), else `status`.
int finishOutput(QTextStream &out, QTextStream &err, int status);

/// Writes a subcommand's -o file through io::writeAtomically, never over one of its `inputs`: "wrote PATH"
/// on `err` and Ok, or the reason ("trainplan COMMAND: PATH: ...") and OutputError; the old file stays whole.
int writeOutputFile(const QString &path, const QByteArray &bytes, const QStringList &inputs, const QString &command,
                    QTextStream &err);

/// The exit codes as the help texts list them (`outputErrors`: the command writes files, not only stdout).
QString exitCodesHelp(bool outputErrors);

} // namespace trainplan::cli
