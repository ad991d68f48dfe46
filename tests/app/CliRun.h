#pragma once
// Running the real trainplan binary from a test: its exit code, output and time, with a time limit (a hang is
// exit code -1, a crash -2) and, for the full-disk cases, a limit on the size of any file it writes.

#include <QElapsedTimer>
#include <QProcess>
#include <QString>
#include <QStringList>

#include <csignal>

#include <sys/resource.h>

namespace trainplan::test {

struct Run
{
    int exitCode = -1;
    QByteArray out;
    QString err;
    qint64 milliseconds = 0;
};

struct RunOptions
{
    QString stdoutFile;           ///< standard output to this file instead of the pipe
    QString workingDirectory;
    qint64 maxFileBytes = -1;     ///< RLIMIT_FSIZE: a write past it fails with EFBIG, as on a full disk
    int timeoutMilliseconds = 60000;
};

inline Run runTrainplan(const QStringList &arguments, const RunOptions &options = {})
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    p.setProcessEnvironment(env);
    if (!options.stdoutFile.isEmpty())
        p.setStandardOutputFile(options.stdoutFile);
    if (!options.workingDirectory.isEmpty())
        p.setWorkingDirectory(options.workingDirectory);
    if (options.maxFileBytes >= 0) {
        const rlim_t limit = rlim_t(options.maxFileBytes);
        p.setChildProcessModifier([limit] {
            const rlimit size{limit, limit};
            ::setrlimit(RLIMIT_FSIZE, &size);
            ::signal(SIGXFSZ, SIG_IGN); // the write fails with EFBIG instead of killing the process
        });
    }
    QElapsedTimer timer;
    timer.start();
    p.start(QStringLiteral(TRAINPLAN_BINARY), arguments);
    Run run;
    if (!p.waitForFinished(options.timeoutMilliseconds)) {
        p.kill();
        p.waitForFinished();
        return run; // exitCode -1: it hung
    }
    run.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
    run.out = p.readAllStandardOutput();
    run.err = QString::fromUtf8(p.readAllStandardError());
    run.milliseconds = timer.elapsed();
    return run;
}

} // namespace trainplan::test
