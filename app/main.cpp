// trainplan: the planner window by default; subcommands run headless with no display.
//   trainplan [--palette dark|light] [PLAN.json]
//                                          open the planner (the built-in example when no file is given)
//   trainplan estimate PLAN.json [...]    print the estimate as JSON or a table

#include <QApplication>
#include <QCoreApplication>
#include <QIcon>
#include <QSettings>
#include <QTextStream>

#include <cstdio>
#include <cstring>

#include "CatalogJson.h"
#include "DocumentActions.h"
#include "EstimateCommand.h"
#include "MainWindow.h"
#include "document/PlanDocument.h"

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
    return trainplan::cli::runEstimate(arguments, out, err);
}

void printUsage()
{
    std::fputs("usage: trainplan [--palette dark|light] [PLAN.json]\n"
               "       trainplan estimate PLAN.json [--format json|table]\n"
               "       trainplan --version\n",
               stdout);
}

} // namespace

int main(int argc, char **argv)
{
    if (argc >= 2 && std::strcmp(argv[1], "estimate") == 0)
        return runHeadless(argc, argv);
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
    trainplan::PlanDocument document(trainplan::io::builtinCatalog());
    trainplan::MainWindow window(&document);
    QString error;
    if (!document.loadFromBytes(trainplan::io::builtinExamplePlan(), QString(), &error))
        qWarning("built-in example plan: %s", qPrintable(error));
    if (!planFile.isEmpty())
        window.documentActions()->openFile(planFile);
    else
        window.offerRecovery();
    window.show();
    return app.exec();
}
