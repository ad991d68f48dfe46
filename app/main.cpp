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
    // Window arguments: an optional --palette, then an optional plan file.
    const char *paletteChoice = nullptr;
    const char *planFile = nullptr;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--palette") == 0 && i + 1 < argc
            && (std::strcmp(argv[i + 1], "dark") == 0 || std::strcmp(argv[i + 1], "light") == 0)) {
            paletteChoice = argv[++i];
        } else if (argv[i][0] != '-' && !planFile) {
            planFile = argv[i];
        } else {
            std::fprintf(stderr, "trainplan: unknown argument '%s'\n", argv[i]);
            printUsage();
            return 2;
        }
    }

    QApplication app(argc, argv);
    setApplicationInfo();
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/trainplan/icons/trainplan.svg")));
    const bool dark = paletteChoice ? std::strcmp(paletteChoice, "dark") == 0 : QSettings().value("view/darkPalette", false).toBool();
    if (paletteChoice)
        QSettings().setValue("view/darkPalette", dark);
    trainplan::applyPalette(dark);
    trainplan::PlanDocument document(trainplan::io::builtinCatalog());
    trainplan::MainWindow window(&document);
    QString error;
    if (!document.loadFromBytes(trainplan::io::builtinExamplePlan(), QString(), &error))
        qWarning("built-in example plan: %s", qPrintable(error));
    if (planFile)
        window.documentActions()->openFile(QString::fromLocal8Bit(planFile));
    window.show();
    return app.exec();
}
