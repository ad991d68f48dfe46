// How long one estimate takes: it runs on every keystroke in the window and millions of times in the
// search. Rows: the Megatron 1T plan on 3072 A100s (Narayanan et al. 2021 Table 1) and GPT-3 175B on
// 512 GPUs, with and without the scaling curves (which re-run the step model ~26 times).

#include <QTest>

#include "TestSupport.h"
#include "estimate/Estimate.h"

using namespace trainplan;

class BenchEstimate : public QObject
{
    Q_OBJECT

private slots:
    void estimatePlan_data();
    void estimatePlan();
};

void BenchEstimate::estimatePlan_data()
{
    QTest::addColumn<QString>("preset");
    QTest::addColumn<qint64>("tensor");
    QTest::addColumn<qint64>("pipeline");
    QTest::addColumn<qint64>("data");
    QTest::addColumn<qint64>("globalBatch");
    QTest::addColumn<bool>("scaling");
    QTest::newRow("megatron-1t 3072 GPUs") << "megatron-1t" << qint64(8) << qint64(64) << qint64(6) << qint64(3072) << false;
    QTest::newRow("megatron-1t 3072 GPUs + scaling") << "megatron-1t" << qint64(8) << qint64(64) << qint64(6) << qint64(3072) << true;
    QTest::newRow("gpt3-175b 512 GPUs") << "gpt3-175b" << qint64(8) << qint64(8) << qint64(8) << qint64(1536) << false;
}

void BenchEstimate::estimatePlan()
{
    QFETCH(QString, preset);
    QFETCH(qint64, tensor);
    QFETCH(qint64, pipeline);
    QFETCH(qint64, data);
    QFETCH(qint64, globalBatch);
    QFETCH(bool, scaling);
    Plan plan = test::presetPlan(preset.toLatin1().constData(), tensor, pipeline, data, 1, globalBatch);
    plan.training.recompute = Recompute::Full;
    const Catalog &catalog = io::builtinCatalog();
    QVERIFY(estimate(plan, catalog).valid);
    double sink = 0;
    QBENCHMARK {
        sink += estimate(plan, catalog, {scaling}).step.stepSeconds;
    }
    QVERIFY(sink > 0);
}

QTEST_APPLESS_MAIN(BenchEstimate)
#include "bench_estimate.moc"
