#include "app/CommandLine.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "io/plan/CatalogJson.h"
#include "io/plan/PlanJson.h"
#include "io/common/SafeFile.h"
#include "io/plan/ProblemWords.h"

namespace trainplan::cli {

CommandLine::CommandLine(QString command, const QString &description, QString usage, int plans)
    : m_command(std::move(command))
    , m_usage(std::move(usage))
    , m_help(QStringList{QStringLiteral("h"), QStringLiteral("help")}, QStringLiteral("Show this help."))
    , m_plans(plans)
{
    m_parser.setApplicationDescription(description);
    if (plans == 0) {
        m_parser.addPositionalArgument(QStringLiteral("files"), QStringLiteral("Configuration files, one or more."),
                                       QStringLiteral("FILE..."));
    } else if (plans == 1) {
        m_parser.addPositionalArgument(QStringLiteral("plan"),
                                       QStringLiteral("Plan file (JSON), or - for standard input."));
    } else {
        m_parser.addPositionalArgument(QStringLiteral("baseline"),
                                       QStringLiteral("The plan compared against (JSON), or - for standard input."));
        m_parser.addPositionalArgument(QStringLiteral("plan"), QStringLiteral("The plan compared (JSON)."));
    }
    m_parser.addOption(m_help);
}

CommandLine::CommandLine(QString command, const QString &description, QString usage,
                         const std::vector<std::pair<QString, QString>> &files)
    : m_command(std::move(command))
    , m_usage(std::move(usage))
    , m_help(QStringList{QStringLiteral("h"), QStringLiteral("help")}, QStringLiteral("Show this help."))
    , m_plans(int(files.size()))
{
    m_parser.setApplicationDescription(description);
    for (const auto &[name, what] : files) {
        m_parser.addPositionalArgument(name, what);
        m_fileNames << name;
    }
    m_parser.addOption(m_help);
}

std::optional<int> CommandLine::parse(const QStringList &arguments, QTextStream &out, QTextStream &err)
{
    if (!m_parser.parse(QStringList{QStringLiteral("trainplan ") + m_command} + arguments))
        return usageError(err, m_parser.errorText());
    if (m_parser.isSet(m_help)) {
        // The parser names the executable's path; the user typed "trainplan COMMAND".
        QString help = m_parser.helpText();
        help.replace(0, help.indexOf(QLatin1Char('\n')),
                     QStringLiteral("Usage: trainplan %1 [options] %2")
                         .arg(m_command, !m_fileNames.isEmpty() ? m_fileNames.join(' ')
                                         : m_plans == 0         ? QStringLiteral("FILE...")
                                         : m_plans == 1         ? QStringLiteral("plan")
                                                                : QStringLiteral("baseline plan")));
        out << help;
        return Ok;
    }
    const QStringList paths = m_parser.positionalArguments();
    if (m_plans == 0) {
        if (paths.isEmpty())
            return usageError(err, QStringLiteral("give at least one configuration file"));
        return std::nullopt;
    }
    if (!m_fileNames.isEmpty() && paths.size() != m_plans)
        return usageError(err, QStringLiteral("expected %1 (got %2 files)")
                                   .arg(m_fileNames.join(QStringLiteral(" and ")))
                                   .arg(paths.size()));
    if (paths.size() != m_plans) {
        if (m_plans == 1)
            return usageError(err, paths.isEmpty() ? QStringLiteral("a plan file is required")
                                                   : QStringLiteral("expected exactly one plan file"));
        return usageError(
            err, QStringLiteral("expected two plan files, the baseline and the plan (got %1)").arg(paths.size()));
    }
    for (const QString &path : paths)
        if (path.isEmpty())
            return usageError(err, QStringLiteral("%1 plan path is empty (give a file, or - for standard input)")
                                       .arg(m_plans == 1 ? QStringLiteral("the") : QStringLiteral("a")));
    if (paths.count(QStringLiteral("-")) > 1)
        return usageError(err, QStringLiteral("only one plan can come from standard input"));
    return std::nullopt;
}

int CommandLine::usageError(QTextStream &err, const QString &message) const
{
    err << "trainplan " << m_command << ": " << message << '\n' << m_usage;
    return UsageError;
}

std::optional<Plan> readPlanForCommand(const QString &path, QTextStream &err)
{
    io::PlanReadResult read = io::readPlanFile(path, io::builtinCatalog());
    for (const Problem &p : read.problems)
        err << path << ": " << io::problemLine(p) << "\n";
    return std::move(read.plan);
}

int finishOutput(QTextStream &out, QTextStream &err, int status)
{
    out.flush();
    const bool failed = out.status() != QTextStream::Ok || std::fflush(stdout) != 0 || std::ferror(stdout);
    if (!failed)
        return status;
    err << "trainplan: cannot write to standard output: " << std::strerror(errno) << '\n';
    err.flush();
    return OutputError;
}

int writeOutputFile(const QString &path, const QByteArray &bytes, const QStringList &inputs, const QString &command,
                    QTextStream &err)
{
    QString error;
    if (!io::isNotAnInput(path, inputs, &error) || !io::writeAtomically(path, bytes, &error)) {
        err << QStringLiteral("trainplan %1: %2\n").arg(command, error);
        return OutputError;
    }
    err << QStringLiteral("wrote %1\n").arg(path);
    return Ok;
}

QString exitCodesHelp(bool outputErrors)
{
    return QStringLiteral("Exit codes: 0 done; 1 the plan is unreadable or invalid (one \"file: key: rule\" line per "
                          "problem on stderr); 2 usage error; 3 the output cannot be written%1.")
        .arg(outputErrors ? QString() : QStringLiteral(" (standard output)"));
}

} // namespace trainplan::cli
