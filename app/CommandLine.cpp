#include "app/CommandLine.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "io/CatalogJson.h"
#include "io/PlanJson.h"

namespace trainplan::cli {

CommandLine::CommandLine(QString command, const QString &description, QString usage)
    : m_command(std::move(command)), m_usage(std::move(usage)),
      m_help(QStringList{QStringLiteral("h"), QStringLiteral("help")}, QStringLiteral("Show this help."))
{
    m_parser.setApplicationDescription(description);
    m_parser.addPositionalArgument(QStringLiteral("plan"), QStringLiteral("Plan file (JSON), or - for standard input."));
    m_parser.addOption(m_help);
}

std::optional<int> CommandLine::parse(const QStringList &arguments, QTextStream &out, QTextStream &err)
{
    if (!m_parser.parse(QStringList{QStringLiteral("trainplan ") + m_command} + arguments))
        return usageError(err, m_parser.errorText());
    if (m_parser.isSet(m_help)) {
        // The parser names the executable's path; the user typed "trainplan COMMAND".
        QString help = m_parser.helpText();
        help.replace(0, help.indexOf(QLatin1Char('\n')), QStringLiteral("Usage: trainplan %1 [options] plan").arg(m_command));
        out << help;
        return Ok;
    }
    if (m_parser.positionalArguments().size() != 1)
        return usageError(err, m_parser.positionalArguments().isEmpty() ? QStringLiteral("a plan file is required")
                                                                         : QStringLiteral("expected exactly one plan file"));
    if (planPath().isEmpty())
        return usageError(err, QStringLiteral("the plan path is empty (give a file, or - for standard input)"));
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
        err << path << ": " << QString::fromStdString(toString(p)) << "\n";
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

QString exitCodesHelp(bool outputErrors)
{
    return QStringLiteral("Exit codes: 0 done; 1 the plan is unreadable or invalid (one \"file: key: rule\" line per "
                          "problem on stderr); 2 usage error; 3 the output cannot be written%1.")
        .arg(outputErrors ? QString() : QStringLiteral(" (standard output)"));
}

} // namespace trainplan::cli
