#pragma once
// Test classes share one executable per layer (tests/CMakeLists.txt, trainplan_add_test_group): each tst_*.cpp
// ends with TRAINPLAN_TEST_MAIN, TRAINPLAN_TEST_GUILESS_MAIN or TRAINPLAN_TEST_APPLESS_MAIN in place of QTest's
// QTEST_MAIN, QTEST_GUILESS_MAIN or QTEST_APPLESS_MAIN, which registers the class and the application it needs;
// tests/TestGroupMain.cpp runs the one its first argument names (`tst_core TestStepModel -v2`), so CTest still
// runs each class in its own process under its old name. One link and one moc pass per layer instead of one
// per class is most of what a clean build spends on the tests.

#include <QTest>

#include <functional>
#include <map>
#include <string>

namespace trainplan::test {

/// The application object a test class runs under, as QTest's three main macros create it.
enum class TestApplication { None, Core, Widgets };

struct TestClass
{
    TestApplication application = TestApplication::None;
    std::function<int(int, char **)> run; ///< constructs the class and runs QTest::qExec on it
};

/// Every test class linked into this executable, by class name.
inline std::map<std::string, TestClass> &testClasses()
{
    static std::map<std::string, TestClass> classes;
    return classes;
}

template<typename T>
bool registerTestClass(const char *name, TestApplication application)
{
    testClasses()[name] = TestClass{application, [](int argc, char **argv) {
                                        T test;
                                        return QTest::qExec(&test, argc, argv);
                                    }};
    return true;
}

} // namespace trainplan::test

#define TRAINPLAN_REGISTER_TEST(Class, application)                                                                    \
    namespace {                                                                                                        \
    [[maybe_unused]] const bool registered##Class =                                                                    \
        ::trainplan::test::registerTestClass<Class>(#Class, ::trainplan::test::TestApplication::application);          \
    }

#define TRAINPLAN_TEST_MAIN(Class) TRAINPLAN_REGISTER_TEST(Class, Widgets)
#define TRAINPLAN_TEST_GUILESS_MAIN(Class) TRAINPLAN_REGISTER_TEST(Class, Core)
#define TRAINPLAN_TEST_APPLESS_MAIN(Class) TRAINPLAN_REGISTER_TEST(Class, None)
