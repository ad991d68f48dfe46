// trainplan_plandoc FILE.md: rewrites the generated key tables of a plan-format document in place
// (io/plan/PlanKeyDoc). Run after adding or changing a plan key: build/tests/trainplan_plandoc docs/PLAN_FORMAT.md
#include <QCoreApplication>
#include <QFile>
#include <QSaveFile>

#include <cstdio>

#include "io/plan/PlanKeyDoc.h"

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    if (argc != 2) {
        std::fputs("usage: trainplan_plandoc docs/PLAN_FORMAT.md\n", stderr);
        return 2;
    }
    QFile in(QString::fromLocal8Bit(argv[1]));
    if (!in.open(QIODevice::ReadOnly)) {
        std::fprintf(stderr, "cannot read %s\n", argv[1]);
        return 1;
    }
    const QString text = trainplan::io::withGeneratedKeyTables(QString::fromUtf8(in.readAll()));
    in.close();
    QSaveFile out(QString::fromLocal8Bit(argv[1]));
    if (!out.open(QIODevice::WriteOnly) || out.write(text.toUtf8()) < 0 || !out.commit()) {
        std::fprintf(stderr, "cannot write %s\n", argv[1]);
        return 1;
    }
    return 0;
}
