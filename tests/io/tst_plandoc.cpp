// docs/PLAN_FORMAT.md's key tables are the plan key table (core/plan/PlanKeys): a key added, renamed or
// changed there fails this test until the doc is regenerated (build/tests/trainplan_plandoc).

#include <QFile>
#include <QTest>

#include "TestMain.h"

#include "core/plan/PlanKeys.h"
#include "io/plan/KeyWords.h"
#include "io/plan/PlanKeyDoc.h"

using namespace trainplan;

class TestPlanDoc : public QObject
{
    Q_OBJECT

private slots:
    void docTablesAreTheKeyTable()
    {
        QFile file(QStringLiteral(TRAINPLAN_SOURCE_DIR "/docs/PLAN_FORMAT.md"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString doc = QString::fromUtf8(file.readAll());
        QCOMPARE(doc.count(QStringLiteral("<!-- plan-keys:")), 6); // root, model, training, parallel, cluster, run
        QCOMPARE(doc.count(QStringLiteral("<!-- presets -->")), 1);
        QVERIFY(io::presetList().contains(QLatin1String("`qwen3-32b` (Qwen3 32B)")));
        const QString generated = io::withGeneratedKeyTables(doc);
        if (generated != doc)
            qWarning("docs/PLAN_FORMAT.md is stale; run build/tests/trainplan_plandoc docs/PLAN_FORMAT.md");
        QCOMPARE(doc, generated);
    }

    // Every key of the table is in the doc, and the doc names no key the table lacks.
    void everyKeyIsDocumented()
    {
        QFile file(QStringLiteral(TRAINPLAN_SOURCE_DIR "/docs/PLAN_FORMAT.md"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString doc = QString::fromUtf8(file.readAll());
        for (const PlanKey &key : planKeys()) {
            const QString row = QStringLiteral("| `%1` |").arg(QLatin1String(key.name().data(), qsizetype(key.name().size())));
            QVERIFY2(doc.contains(row), key.path);
        }
    }

    // The words live outside core (io/plan/KeyWords): each key has its row there, in the key table's order,
    // with a default as the docs say it and, for every key the window edits, a label and an Undo noun; no
    // row names a key the table lacks.
    void everyKeyHasItsWords()
    {
        const std::span<const PlanKey> keys = planKeys();
        const std::span<const io::KeyWords> words = io::allKeyWords();
        QCOMPARE(words.size(), keys.size());
        for (std::size_t i = 0; i < keys.size(); ++i) {
            const PlanKey &key = keys[i];
            QCOMPARE(QLatin1String(words[i].path), QLatin1String(key.path));
            QVERIFY2(*words[i].defaultText, key.path);
            if (key.editor != KeyEditor::None) {
                QVERIFY2(!io::keyLabel(key).isEmpty(), key.path);
                QVERIFY2(!io::keyNoun(key).isEmpty(), key.path);
            }
        }
        QCOMPARE(io::keyLabel(*findPlanKey("parallel.tensor")), QStringLiteral("Tensor parallel"));
        QCOMPARE(io::keyNoun(*findPlanKey("parallel.tensor")), QStringLiteral("tensor parallelism"));
        QCOMPARE(QLatin1String(io::keyWords("no.such_key").label), QLatin1String(""));
    }

    void generatedRowSaysTypeDefaultAndRule()
    {
        const QString parallel = io::planKeyTable("parallel");
        QVERIFY(parallel.contains(QStringLiteral("| `zero_stage` | integer | `0` | a whole number from 0 to 3;")));
        QVERIFY(parallel.contains(
            QStringLiteral("| `schedule` | `\"gpipe\"` \\| `\"1f1b\"` \\| `\"interleaved\"` \\| `\"zb-h1\"` \\| `\"zb-h2\"` | `\"1f1b\"` |")));
        const QString cluster = io::planKeyTable("cluster");
        QVERIFY(cluster.contains(QStringLiteral("| `network_bandwidth` | number | device | bytes/s; in [1e6, 1e14];")));
    }
};

TRAINPLAN_TEST_GUILESS_MAIN(TestPlanDoc)
#include "tst_plandoc.moc"
