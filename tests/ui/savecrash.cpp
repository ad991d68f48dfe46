// Helper for tst_nolostwork: saves a plan through QSaveFile as PlanDocument::save does, and dies
// (abort) after writing half of it and before commit, as a crash or a kill mid-save would.
#include <QCoreApplication>
#include <QSaveFile>

#include <cstdlib>

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    if (argc < 2)
        return 2;
    QSaveFile file(QString::fromLocal8Bit(argv[1]));
    if (!file.open(QIODevice::WriteOnly))
        return 3;
    file.write("{\"format\": \"trainplan-plan\", \"version\": 1, \"name\": \"half a plan");
    file.flush();
    std::abort();
}
