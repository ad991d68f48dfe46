// Helper for tst_nolostwork: planner windows that edit their plans, autosave, and then the process dies
// (abort), as a crash would.
//   recoverycrash one PLAN DIR          one window on PLAN, micro-batch edited to 4, autosaved to DIR
//   recoverycrash two PLAN DIR SAVED    two windows; the second saves its plan to SAVED before the crash
#include <QApplication>

#include <cstdlib>

#include "core/plan/PlanKeys.h"
#include "io/plan/CatalogJson.h"
#include "ui/DocumentActions.h"
#include "ui/MainWindow.h"
#include "ui/Planner.h"
#include "ui/commands/ChangePlanValue.h"
#include "ui/document/PlanDocument.h"

using namespace trainplan;

namespace {

MainWindow *editedWindow(Planner &planner, const QString &plan, std::int64_t microBatch)
{
    MainWindow *window = planner.newWindow();
    if (!window->documentActions()->openFile(plan))
        std::exit(3);
    PlanDocument *document = window->document();
    document->undoStack()->push(new ChangePlanValue(document, *findPlanKey("training.micro_batch"), microBatch));
    if (!window->autosave()->writeNow())
        std::exit(4);
    return window;
}

} // namespace

int main(int argc, char **argv)
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    const QStringList args = app.arguments();
    if (args.size() < 4)
        return 2;
    Planner planner(io::builtinCatalog(), args[3]);
    editedWindow(planner, args[2], 4);
    if (args[1] == QLatin1String("two")) {
        MainWindow *second = editedWindow(planner, args[2], 2);
        QString error;
        if (args.size() < 5 || !second->document()->save(args[4], &error))
            return 5;
    }
    std::abort();
}
