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

/// How the binary runs: RunOptions().in(dir).maxFileBytes(256).
struct RunOptions
{
    QString stdoutPath;         ///< standard output to this file instead of the pipe
    QString directory;          ///< the working directory
    qint64 fileSizeLimit = -1;  ///< RLIMIT_FSIZE: a write past it fails with EFBIG, as on a full disk
    int timeout = 60000;        ///< milliseconds

    RunOptions stdoutTo(const QString &path) const { return with(&RunOptions::stdoutPath, path); }
    RunOptions in(const QString &path) const { return with(&RunOptions::directory, path); }
    RunOptions maxFileBytes(qint64 bytes) const { return with(&RunOptions::fileSizeLimit, bytes); }
    RunOptions timeoutMilliseconds(int milliseconds) const { return with(&RunOptions::timeout, milliseconds); }

private:
    template<typename T, typename V>
    RunOptions with(T RunOptions::*member, const V &value) const
    {
        RunOptions copy = *this;
        copy.*member = value;
        return copy;
    }
};

inline Run runTrainplan(const QStringList &arguments, const RunOptions &options = RunOptions())
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    p.setProcessEnvironment(env);
    if (!options.stdoutPath.isEmpty())
        p.setStandardOutputFile(options.stdoutPath);
    if (!options.directory.isEmpty())
        p.setWorkingDirectory(options.directory);
    if (options.fileSizeLimit >= 0) {
        const rlim_t limit = rlim_t(options.fileSizeLimit);
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
    if (!p.waitForFinished(options.timeout)) {
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
