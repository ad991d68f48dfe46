// The main of a test group (tests/TestMain.h): `<group> <TestClass> [QTest arguments]` runs one registered
// class under the application QTest's own main would create for it; `<group>` alone lists the classes.
#include "TestMain.h"

#include <QCoreApplication>
#include <QFile>
#include <QTemporaryDir>
#ifdef TRAINPLAN_TEST_WIDGETS
#include <QApplication>
#endif

#include <cstdio>
#include <vector>

int main(int argc, char **argv)
{
    using trainplan::test::TestApplication;
    const auto &classes = trainplan::test::testClasses();
    const auto found = argc > 1 ? classes.find(argv[1]) : classes.end();
    if (found == classes.end()) {
        std::fprintf(stderr, "usage: %s TestClass [QTest arguments]\ntest classes:\n", argv[0]);
        for (const auto &[name, test] : classes)
            std::fprintf(stderr, "  %s\n", name.c_str());
        return 2;
    }
    // Each run starts from an empty home (QSettings, the autosave, recent files, custom devices; QTest's
    // test mode keeps them under $HOME/.qttest), which the processes it starts inherit: no class reads what
    // another class or an earlier run left behind (the window restores its saved size), and none writes
    // into the user's own.
    QTemporaryDir home;
    if (!home.isValid()) {
        std::fprintf(stderr, "cannot make a temporary folder for the test's settings\n");
        return 2;
    }
    for (const char *variable : {"HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"})
        qputenv(variable, QFile::encodeName(home.filePath(QString::fromLatin1(variable))));
    // QTest reads its options after the class name; argv[0] stays the program.
    std::vector<char *> arguments{argv[0]};
    arguments.insert(arguments.end(), argv + 2, argv + argc);
    arguments.push_back(nullptr);
    int count = int(arguments.size()) - 1;
    char **values = arguments.data();
    switch (found->second.application) {
    case TestApplication::None:
        return found->second.run(count, values);
    case TestApplication::Core: {
        QCoreApplication app(count, values);
        app.setAttribute(Qt::AA_Use96Dpi, true);
        return found->second.run(count, values);
    }
    case TestApplication::Widgets: {
#ifdef TRAINPLAN_TEST_WIDGETS
        QApplication app(count, values);
        app.setAttribute(Qt::AA_Use96Dpi, true);
        return found->second.run(count, values);
#else
        std::fprintf(stderr, "%s needs a QApplication: put it in a group linked with Qt Widgets\n", argv[1]);
        return 2;
#endif
    }
    }
    return 2;
}
