// trainplan: the planner window by default; subcommands run headless with no display.
//   trainplan [--palette dark|light] [PLAN.json]
//                                          open the planner (the built-in example when no file is given)
//   trainplan estimate PLAN.json [...]    print the estimate as JSON or a table
//   trainplan search PLAN.json [...]      every plan, fastest first, as JSON
//   trainplan report PLAN.json -o R.pdf    the efficiency audit (offscreen when there is no display)
//   trainplan compare BASE.json PLAN.json  two plans side by side
//   trainplan import FILE... [-o PLAN]     a plan from HF / Megatron / NeMo / torchtitan / DeepSpeed files
//   trainplan export PLAN --to TARGET      a launch configuration for the plan
//   trainplan calibrate MEASURED.csv --base DEVICE
//                                          a device fitted to measured runs
//   trainplan profile TRACE.json PLAN.json a profiler trace beside the estimate

#include <QApplication>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QIcon>
#include <QSettings>
#include <QTextStream>

#include <cstdio>
#include <cstring>

#include <unistd.h>

#include "core/common/Allocator.h"
#include "io/plan/CatalogJson.h"
#include "ui/DocumentActions.h"
#include "app/CommandLine.h"
#include "app/CompareCommand.h"
#include "app/EstimateCommand.h"
#include "app/CalibrateCommand.h"
#include "app/ExportCommand.h"
#include "app/ImportCommand.h"
#include "app/ProfileCommand.h"
#include "app/ReportCommand.h"
#include "app/SearchCommand.h"
#include "ui/MainWindow.h"
#include "ui/Planner.h"

namespace {

void setApplicationInfo()
{
    QCoreApplication::setOrganizationName(QStringLiteral("Trainplan"));
    QCoreApplication::setApplicationName(QStringLiteral("Trainplan"));
    QCoreApplication::setApplicationVersion(QStringLiteral(TRAINPLAN_VERSION));
}

int runHeadless(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    setApplicationInfo();
    QTextStream out(stdout);
    QTextStream err(stderr);
    QStringList arguments = app.arguments().mid(2);
    const int status = std::strcmp(argv[1], "search") == 0    ? trainplan::cli::runSearch(arguments, out, err)
                       : std::strcmp(argv[1], "compare") == 0 ? trainplan::cli::runCompare(arguments, out, err)
                       : std::strcmp(argv[1], "import") == 0  ? trainplan::cli::runImport(arguments, out, err)
                       : std::strcmp(argv[1], "export") == 0  ? trainplan::cli::runExport(arguments, out, err)
                       : std::strcmp(argv[1], "calibrate") == 0 ? trainplan::cli::runCalibrate(arguments, out, err)
                       : std::strcmp(argv[1], "profile") == 0 ? trainplan::cli::runProfile(arguments, out, err)
                                                              : trainplan::cli::runEstimate(arguments, out, err);
    return trainplan::cli::finishOutput(out, err, status);
}

/// Charts and PDFs need a QApplication; with no display it runs on the offscreen platform.
int runRender(int argc, char **argv)
{
    if (qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY")
        && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    if (qEnvironmentVariableIsEmpty("XDG_RUNTIME_DIR")) { // what Qt would pick, without its warning
        const QByteArray dir = QDir::tempPath().toLocal8Bit() + "/runtime-" + QByteArray::number(qulonglong(getuid()));
        QDir().mkpath(QString::fromLocal8Bit(dir));
        QFile::setPermissions(QString::fromLocal8Bit(dir),
                              QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
        qputenv("XDG_RUNTIME_DIR", dir);
    }
    QApplication app(argc, argv);
    setApplicationInfo();
    QTextStream out(stdout);
    QTextStream err(stderr);
    return trainplan::cli::finishOutput(out, err, trainplan::cli::runReport(app.arguments().mid(2), out, err));
}

void printUsage()
{
    std::fputs("usage: trainplan [--palette dark|light] [PLAN.json]\n"
               "       trainplan estimate PLAN.json [--format json|table]\n"
               "       trainplan search PLAN.json [--top N] [--nodes MIN-MAX] [--min-headroom GIB] [--allow-tight] "
               "[--fix KEY=VALUE,...]\n"
               "       trainplan report PLAN.json -o REPORT.pdf [--page a4|letter]\n"
               "       trainplan report PLAN.json --png DIR [--size WIDTHxHEIGHT] [--dpi N]\n"
               "       trainplan compare BASELINE.json PLAN.json [--format json|table]\n"
               "       trainplan import FILE... [--set KEY=VALUE,...] [-o PLAN.json]\n"
               "       trainplan export PLAN.json --to megatron|nemo|torchtitan|deepspeed [-o FILE]\n"
               "       trainplan calibrate MEASURED.csv --base DEVICE [--id NAME] [-o DEVICE.json]\n"
               "       trainplan profile TRACE.json PLAN.json [--stage N] [--steps N] [--format table|json] "
               "[--measurements CSV]\n"
               "       trainplan --version\n",
               stdout);
}

} // namespace

int main(int argc, char **argv)
{
    trainplan::keepFreedMemoryForReuse();
    if (argc >= 2 && (std::strcmp(argv[1], "estimate") == 0 || std::strcmp(argv[1], "search") == 0 ||
                      std::strcmp(argv[1], "compare") == 0 || std::strcmp(argv[1], "import") == 0 ||
                      std::strcmp(argv[1], "export") == 0 || std::strcmp(argv[1], "calibrate") == 0 ||
                      std::strcmp(argv[1], "profile") == 0))
        return runHeadless(argc, argv);
    if (argc >= 2 && std::strcmp(argv[1], "report") == 0)
        return runRender(argc, argv);
    if (argc >= 2 && (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0)) {
        printUsage();
        return 0;
    }
    if (argc >= 2 && std::strcmp(argv[1], "--version") == 0) {
        std::printf("trainplan %s\n", TRAINPLAN_VERSION);
        return 0;
    }
    if (qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY")
        && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
        std::fputs("trainplan: no display to open the planner on (DISPLAY and WAYLAND_DISPLAY are unset).\n"
                   "Run `trainplan estimate PLAN.json` for the headless estimate, or set QT_QPA_PLATFORM.\n",
                   stderr);
        return 1;
    }
    // QApplication takes its own options (-style, -qwindowgeometry, ...) out of argv; then come ours: an
    // optional --palette and an optional plan file.
    QApplication app(argc, argv);
    setApplicationInfo();
    QString paletteChoice, planFile;
    const QStringList arguments = app.arguments().mid(1);
    for (qsizetype i = 0; i < arguments.size(); ++i) {
        const QString &a = arguments[i];
        if (a == QLatin1String("--palette") && i + 1 < arguments.size()
            && (arguments[i + 1] == QLatin1String("dark") || arguments[i + 1] == QLatin1String("light"))) {
            paletteChoice = arguments[++i];
        } else if (!a.startsWith('-') && planFile.isEmpty()) {
            planFile = a;
        } else {
            std::fprintf(stderr, "trainplan: unknown argument '%s'\n", qPrintable(a));
            printUsage();
            return 2;
        }
    }
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/trainplan/icons/trainplan.svg")));
    const bool dark = paletteChoice.isEmpty() ? QSettings().value("view/darkPalette", false).toBool()
                                              : paletteChoice == QLatin1String("dark");
    if (!paletteChoice.isEmpty())
        QSettings().setValue("view/darkPalette", dark);
    trainplan::applyPalette(dark);
    // Every start offers what a crash left behind, whether or not a file was named (the desktop entry
    // starts `trainplan %f`).
    trainplan::Planner planner(trainplan::io::builtinCatalog());
    planner.start(planFile);
    return app.exec();
}
