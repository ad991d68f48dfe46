// Validation on published runs: predicted vs measured step time for every usable row of the Narayanan
// 2021 table, the Megatron-LM 2020 README, DLPerf and llm-foundry. Fails if the median absolute error
// exceeds 10% or any row exceeds 25%. DLPerf's OneFlow rows (same plans as its Megatron-LM rows, up to
// 37% faster) are printed and summarised but held to no bound: Trainplan models Megatron-style execution.

#include <QTest>

#include <algorithm>
#include <cmath>

#include "CatalogJson.h"
#include "TestSupport.h"
#include "ValidationRows.h"
#include "estimate/Estimate.h"

using namespace trainplan;

class TestValidation : public QObject
{
    Q_OBJECT

private slots:
    void stepTimes();
    void kernelFusionAblation_data();
    void kernelFusionAblation();
};

void TestValidation::stepTimes()
{
    QStringList skipped;
    const std::vector<validation::Row> rows = validation::loadRows(&skipped);
    QVERIFY(rows.size() > 100);
    std::vector<double> errors;
    std::map<QString, std::vector<double>> bySource;
    QString worstId;
    double worst = 0;
    QString report = QStringLiteral("\n%1 %2 %3 %4\n").arg("row", -60).arg("measured s", 11).arg("predicted s", 11).arg("error", 8);
    for (const validation::Row &row : rows) {
        const Estimate e = estimate(row.plan, io::builtinCatalog(), {false});
        if (!e.valid) {
            QStringList problems;
            for (const Problem &p : e.problems)
                problems << QString::fromStdString(toString(p));
            QFAIL(qPrintable(row.source + ' ' + row.id + ": plan invalid: " + problems.join("; ")));
        }
        const double error = (e.step.stepSeconds - row.measuredSeconds) / row.measuredSeconds;
        const QString source = row.modelled ? row.source : row.source + " (not modelled: OneFlow)";
        bySource[source].push_back(std::abs(error));
        report += QStringLiteral("%1 %2 %3 %4%  %5\n")
                      .arg((row.source + ' ' + row.id).left(60), -60)
                      .arg(row.measuredSeconds, 11, 'f', 3)
                      .arg(e.step.stepSeconds, 11, 'f', 3)
                      .arg(100 * error, 7, 'f', 1)
                      .arg(QLatin1String(toString(e.step.bottleneck)));
        if (!row.modelled)
            continue;
        errors.push_back(std::abs(error));
        if (std::abs(error) > worst) {
            worst = std::abs(error);
            worstId = row.source + ' ' + row.id;
        }
    }
    const auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
    };
    for (const auto &[source, e] : bySource)
        report += QStringLiteral("%1: %2 rows, median |error| %3%, max %4%\n")
                      .arg(source)
                      .arg(e.size())
                      .arg(100 * median(e), 0, 'f', 1)
                      .arg(100 * *std::max_element(e.begin(), e.end()), 0, 'f', 1);
    const double med = median(errors);
    report += QStringLiteral("ALL modelled: %1 rows, median |error| %2%, worst %3% (%4)\n")
                  .arg(errors.size())
                  .arg(100 * med, 0, 'f', 1)
                  .arg(100 * worst, 0, 'f', 1)
                  .arg(worstId);
    for (const QString &s : skipped)
        report += "skipped " + s + '\n';
    qInfo().noquote() << report;
    QVERIFY2(med <= 0.10, qPrintable(QStringLiteral("median error %1% > 10%").arg(100 * med)));
    QVERIFY2(worst <= 0.25, qPrintable(QStringLiteral("worst error %1% > 25% (%2)").arg(100 * worst).arg(worstId)));
}

void TestValidation::kernelFusionAblation_data()
{
    // Narayanan et al. 2021 Sec. 5.8: fusing bias+GeLU, bias+dropout+add and scale+mask+softmax raised
    // GPT-3 175B from 113 to 135 TFLOP/s and 530B from 133 to 148 TFLOP/s per GPU.
    QTest::addColumn<QString>("model");
    QTest::newRow("GPT-3 175B") << "GPT-3 175B";
    QTest::newRow("530B") << "530B";
}

void TestValidation::kernelFusionAblation()
{
    QFETCH(QString, model);
    const std::vector<validation::Row> rows = validation::loadRows();
    const validation::Row *with = nullptr, *without = nullptr;
    for (const validation::Row &row : rows) {
        if (!row.id.contains(QLatin1String("fusion ablation")) || !row.id.contains(model))
            continue;
        (row.plan.training.fusedKernels ? with : without) = &row;
    }
    QVERIFY(with && without);
    const double measuredGain = without->measuredSeconds / with->measuredSeconds - 1.0;
    const double predictedGain = estimate(without->plan, io::builtinCatalog(), {false}).step.stepSeconds
                                     / estimate(with->plan, io::builtinCatalog(), {false}).step.stepSeconds
                                 - 1.0;
    qInfo("%s: fusion speeds the step up by %.1f%% (measured %.1f%%)", qPrintable(model), 100 * predictedGain, 100 * measuredGain);
    QVERIFY(predictedGain > 0);
    QVERIFY2(std::abs(predictedGain - measuredGain) <= 0.05,
             qPrintable(QStringLiteral("predicted %1%, measured %2%").arg(100 * predictedGain).arg(100 * measuredGain)));
}

QTEST_APPLESS_MAIN(TestValidation)
#include "tst_validation.moc"
