// Classroom: number-format properties against IEEE 754-2019 and the OCP 8-bit floating point
// specification, rounding and loss scaling worked by hand, the illustrative models, and every numeric
// exercise of the reference text against a hand-derived answer.

#include <QTest>

#include "TestMain.h"

#include <cmath>
#include <limits>

#include "io/plan/CatalogJson.h"
#include "learn/Exercises.h"
#include "learn/NumberFormat.h"
#include "learn/Teaching.h"
#include "core/memory/ModelState.h"

using namespace trainplan;

class TestLearn : public QObject
{
    Q_OBJECT

private slots:
    void formatProperties_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<double>("maxFinite");
        QTest::addColumn<double>("minNormal");
        QTest::addColumn<double>("minSubnormal");
        QTest::addColumn<double>("epsilon");
        // IEEE 754 binary32: FLT_MAX, FLT_MIN, FLT_TRUE_MIN, FLT_EPSILON.
        QTest::newRow("FP32") << "FP32" << double(std::numeric_limits<float>::max()) << double(std::numeric_limits<float>::min())
                              << double(std::numeric_limits<float>::denorm_min()) << double(std::numeric_limits<float>::epsilon());
        // TF32: 8-bit exponent, 10-bit significand: (2 - 2^-10) 2^127, 2^-126, 2^-136, 2^-10.
        QTest::newRow("TF32") << "TF32" << 3.4011621342146535e38 << 1.1754943508222875e-38 << 1.1479437019748901e-41 << 0.0009765625;
        // IEEE binary16: 65504, 2^-14 = 6.103515625e-05, 2^-24 = 5.960464477539063e-08, 2^-10.
        QTest::newRow("FP16") << "FP16" << 65504.0 << 6.103515625e-05 << 5.960464477539063e-08 << 0.0009765625;
        // bfloat16: (2 - 2^-7) 2^127 = 3.3895313892515355e38, 2^-126, 2^-133, 2^-7.
        QTest::newRow("BF16") << "BF16" << 3.3895313892515355e38 << 1.1754943508222875e-38 << 9.183549615799121e-41 << 0.0078125;
        // OCP OFP8 E4M3: max 448 (S.1111.110), min normal 2^-6, min subnormal 2^-9, epsilon 2^-3.
        QTest::newRow("FP8 E4M3") << "FP8 E4M3" << 448.0 << 0.015625 << 0.001953125 << 0.125;
        // OCP OFP8 E5M2: max 57344, min normal 2^-14, min subnormal 2^-16, epsilon 2^-2.
        QTest::newRow("FP8 E5M2") << "FP8 E5M2" << 57344.0 << 6.103515625e-05 << 1.52587890625e-05 << 0.25;
        // OCP MX v1.0: MXFP8's elements are E4M3 (max 448); FP4 E2M1 has no NaN or infinity, so its top code
        // 0.11.1 = 1.5 x 2^2 = 6 is finite; min normal 2^0 = 1, min subnormal 0.5, epsilon 2^-1.
        QTest::newRow("MXFP8") << "MXFP8 (E4M3)" << 448.0 << 0.015625 << 0.001953125 << 0.125;
        QTest::newRow("NVFP4") << "NVFP4 (E2M1)" << 6.0 << 1.0 << 0.5 << 0.5;
    }

    void formatProperties()
    {
        QFETCH(QString, name);
        const NumberFormat *f = numberFormat(name.toStdString());
        QVERIFY(f);
        const FormatProperties p = properties(*f);
        QTEST(p.maxFinite, "maxFinite");
        QTEST(p.minNormal, "minNormal");
        QTEST(p.minSubnormal, "minSubnormal");
        QTEST(p.epsilon, "epsilon");
    }

    // Figure 16.3's decimal digits: (mantissa + 1) log10 2 = 7.22, 3.31, 2.41.
    void decimalDigits()
    {
        QVERIFY(std::abs(properties(*numberFormat("FP32")).decimalDigits - 7.2247) < 1e-3);
        QVERIFY(std::abs(properties(*numberFormat("FP16")).decimalDigits - 3.3113) < 1e-3);
        QVERIFY(std::abs(properties(*numberFormat("BF16")).decimalDigits - 2.4082) < 1e-3);
    }

    // Block scales: MXFP8 shares one E8M0 scale per 32 elements, NVFP4 one E4M3 scale per 16; FP4 saturates
    // at 6 instead of overflowing to a NaN it does not have, and its grid is 0, 0.5, 1, 1.5, 2, 3, 4, 6.
    void blockScaledFormats()
    {
        const NumberFormat &mx = *numberFormat("MXFP8 (E4M3)");
        const NumberFormat &fp4 = *numberFormat("NVFP4 (E2M1)");
        QCOMPARE(mx.blockSize, 32);
        QCOMPARE(mx.scaleFormat, std::string("E8M0"));
        QCOMPARE(fp4.blockSize, 16);
        const Rounded big = roundTo(fp4, 7.0);
        QCOMPARE(big.outcome, RoundingOutcome::Overflow);
        QCOMPARE(big.value, 6.0);
        QCOMPARE(roundTo(fp4, 2.6).value, 3.0);
        QCOMPARE(roundTo(fp4, 2.4).value, 2.0);
        QCOMPARE(roundTo(fp4, 0.3).value, 0.5);
        QCOMPARE(roundTo(fp4, 0.25).value, 0.0); // a tie between 0 and 0.5 goes to even (0)
    }

    void rounding()
    {
        const NumberFormat &fp16 = *numberFormat("FP16");
        const NumberFormat &bf16 = *numberFormat("BF16");
        const NumberFormat &e4m3 = *numberFormat("FP8 E4M3");
        QCOMPARE(roundTo(fp16, 1.0).outcome, RoundingOutcome::Exact);
        // 1 + 2^-11 is halfway between 1 and 1 + 2^-10 in FP16: ties to even gives 1.
        QCOMPARE(roundTo(fp16, 1.0 + std::ldexp(1.0, -11)).value, 1.0);
        // 1 + 3 x 2^-11 is halfway between 1 + 2^-10 (odd) and 1 + 2^-9 (even): rounds up to 1 + 2^-9.
        QCOMPARE(roundTo(fp16, 1.0 + 3 * std::ldexp(1.0, -11)).value, 1.0 + std::ldexp(1.0, -9));
        // Overflow: 65520 = 65504 + half of the top spacing 32 rounds to infinity; 65519 to 65504.
        QVERIFY(std::isinf(roundTo(fp16, 65520.0).value));
        QCOMPARE(roundTo(fp16, 65519.0).value, 65504.0);
        QCOMPARE(roundTo(fp16, 65519.0).outcome, RoundingOutcome::Rounded);
        // Subnormal and underflow: 2^-24 is the smallest subnormal; 2^-26 flushes to zero.
        QCOMPARE(roundTo(fp16, std::ldexp(1.0, -24)).outcome, RoundingOutcome::Subnormal);
        QCOMPARE(roundTo(fp16, std::ldexp(1.0, -26)).outcome, RoundingOutcome::Underflow);
        QCOMPARE(roundTo(fp16, -std::ldexp(1.0, -26)).value, 0.0);
        // BF16 of pi: 3.140625 (7 significand bits).
        QCOMPARE(roundTo(bf16, 3.14159265358979).value, 3.140625);
        // E4M3 has no infinity: overflow is NaN; 448 is exact.
        QCOMPARE(roundTo(e4m3, 448.0).outcome, RoundingOutcome::Exact);
        QVERIFY(std::isnan(roundTo(e4m3, 500.0).value));
        QCOMPARE(roundTo(e4m3, 500.0).outcome, RoundingOutcome::Overflow);
        QCOMPARE(roundTo(e4m3, 0.3).value, 0.3125); // spacing 2^-5 in [0.25, 0.5)
    }

    // A 1e-8 gradient underflows in FP16 (below 2^-24 / 2); scaled by 65536 it becomes 6.5536e-4, kept to
    // FP16's resolution, and divides back within 2^-11.
    void lossScaling()
    {
        const LossScalingDemo d = trainplan::lossScaling(*numberFormat("FP16"), 1e-8, 65536.0);
        QCOMPARE(d.unscaled.outcome, RoundingOutcome::Underflow);
        QCOMPARE(d.scaled.outcome, RoundingOutcome::Rounded);
        QVERIFY(d.recoveredRelativeError < std::ldexp(1.0, -11));
    }

    void illustrativeModels()
    {
        // The text's Level 3 output: 16.00, 5.50, 3.75, 2.00 GB per worker for 1e9 parameters on 8 workers.
        for (const auto &[stage, gb] : {std::pair{0, 16.0}, {1, 5.5}, {2, 3.75}, {3, 2.0}})
            QCOMPARE(shardedModelState(1e9, StateBytesPerParameter::mixedPrecisionAdam(), 8, stage).total() / 1e9, gb);
        const ScalingCurve c = illustrativeScaling();
        QCOMPARE(int(c.workers.size()), 8); // 1, 2, ..., 128
        QCOMPARE(c.speedup.front(), 1.0);
        // W = 2: 1 / (0.5 + 0.012 + 0.0008) = 1.95008
        QVERIFY(std::abs(c.speedup[1] - 1.0 / 0.5128) < 1e-12);
        QCOMPARE(pipelineUtilisation(4, 1), 0.25);
    }

    void numericExercises_data()
    {
        QTest::addColumn<int>("number");
        QTest::addColumn<double>("expected");
        QTest::addColumn<double>("tolerance");
        QTest::newRow("1: 500e6 x 16 B = 8 GB") << 1 << 8.0 << 1e-12;
        QTest::newRow("2: ZeRO-3 over 4: 16 x 500e6 / 4 = 2 GB") << 2 << 2.0 << 1e-12;
        QTest::newRow("4: 8 x 2048 x 4096 x 2 = 134217728 B") << 4 << 134217728.0 << 0.0;
        QTest::newRow("6: 200 / 2 = 100 FLOP/B") << 6 << 100.0 << 1e-12;
        // 1e8 = 190.73 x 2^19: BF16 keeps 191 x 524288 = 100139008.
        QTest::newRow("9: BF16(1e8) = 100139008") << 9 << 100139008.0 << 0.0;
        // 0.001 < 2^-8: every BF16 sum rounds back to 1.
        QTest::newRow("10: BF16 accumulation stays at 1") << 10 << 1.0 << 0.0;
        QTest::newRow("11: 8 / 1.25 = 6.4") << 11 << 6.4 << 1e-12;
        // 1 / (1/128 + 0.012 x 7 + 0.0008 x 127) = 1 / 0.1934125
        QTest::newRow("12: S(128) no overlap = 5.1703") << 12 << 1.0 / 0.1934125 << 1e-9;
        QTest::newRow("14: 32 / 39 = 0.8205") << 14 << 32.0 / 39.0 << 1e-15;
        QTest::newRow("19: 100000 x 0.75") << 19 << 75000.0 << 1e-9;
    }

    void numericExercises()
    {
        QFETCH(int, number);
        QFETCH(double, expected);
        QFETCH(double, tolerance);
        const ExerciseAnswer a = solveExercise(number);
        QVERIFY2(std::abs(a.value - expected) <= tolerance * std::max(1.0, std::abs(expected)),
                 qPrintable(QStringLiteral("%1 != %2").arg(a.value, 0, 'g', 17).arg(expected, 0, 'g', 17)));
        QVERIFY(!a.working.empty());
        QVERIFY(!a.answer.empty());
    }

    void everyExerciseIsAnswered()
    {
        const std::vector<Exercise> &all = exercises();
        QCOMPARE(int(all.size()), 22);
        for (const Exercise &ex : all) {
            const ExerciseAnswer a = solveExercise(ex.number);
            QVERIFY2(!a.answer.empty() || !a.explanation.empty(), qPrintable(QString::number(ex.number)));
            QCOMPARE(ex.numeric, !a.working.empty());
            // Its list name: short enough for the Learn view's list in two lines, and its own.
            QVERIFY2(!ex.title.empty() && ex.title.size() <= 50, qPrintable(QString::number(ex.number)));
            QCOMPARE(std::count_if(all.begin(), all.end(), [&](const Exercise &o) { return o.title == ex.title; }), 1);
        }
        // Exercise 10's FP32 accumulator: 1000 additions of fl32(0.001) within 1000 half-spacings of 2.
        const double fp32 = accumulate(*numberFormat("FP32"), 1.0, 0.001, 1000);
        QVERIFY(std::abs(fp32 - 2.0) < 1000 * std::ldexp(1.0, -24) + 1e-6);
        // Exercise 10 with an increment above half the BF16 spacing at 1 (2^-8): every addition of
        // bf16(0.01) = 0.010009765625 lands one spacing (2^-7) higher, so 100 of them give 1 + 100/128.
        QCOMPARE(solveExercise(10, {1.0, 0.01, 100}).value, 1.78125);
        QVERIFY(solveExercise(10, {1.0, 0.01, 100}).working.front().find("does not exceed") != std::string::npos);
        // Out-of-range inputs name the input and give no number (no inf or NaN on screen).
        // Exercise 12 at a W that is not a power of two (the curve used to stop at 64 for W = 100): compute 0.01,
        // communication 0.012 log2 100 + 0.0008 x 99 = 0.15893; without overlap T = 0.16893, S = 5.92, E = 0.059;
        // with it T = 0.15893, S = 6.29, E = 0.063.
        const ExerciseAnswer hundred = solveExercise(12, {0.012, 0.0008, 100});
        QVERIFY(std::abs(hundred.value - 1.0 / 0.168931) < 0.01);
        QVERIFY2(hundred.answer.find("at 100 workers: S = 5.92 without overlap, 6.29 with it") == 0, hundred.answer.c_str());
        QVERIFY2(hundred.working[1].find("E = 0.059") != std::string::npos, hundred.working[1].c_str());
        QVERIFY2(hundred.working[2].find("E = 0.063") != std::string::npos, hundred.working[2].c_str());
        const ExerciseAnswer zero = solveExercise(11, {8.0, 0.0});
        QVERIFY2(zero.answer.find("T(8): must be positive") == 0, zero.answer.c_str());
        // Exercise 4's batch at 0: its bound as a reader writes it (was "1000000000000000.000000").
        const ExerciseAnswer noBatch = solveExercise(4, {0.0});
        QCOMPARE(noBatch.answer, std::string("Batch B: must be positive and at most 1e+15"));
        QVERIFY(zero.working.empty());
        QVERIFY(solveExercise(19, {1000, 1.0}).answer.find("Padding fraction: must be at least 0") == 0);
        // Exercise 8 says what fusion cannot remove: the pre-activation saved for the activation's backward.
        QVERIFY(solveExercise(8).explanation.find("pre-activation") != std::string::npos);
        // Exercise 8's demonstration: unfused chains write and read their intermediates, so they move more.
        Plan gpt;
        gpt.model = *io::builtinCatalog().model("gpt3-175b");
        gpt.training.globalBatch = 8;
        const FusionTraffic t = fusionTraffic(gpt);
        QVERIFY(t.fusedBytes > 0 && t.unfusedBytes > t.fusedBytes);
        QCOMPARE(exerciseSixteenPlan(io::builtinCatalog()).parallel.data, 8);
        // Exercise 2's stages 1 and 2 on four workers: 3.50 and 2.75 GB.
        QVERIFY(solveExercise(2).answer.find("ZeRO-1 3.50 GB, ZeRO-2 2.75 GB") == 0);
    }
};

TRAINPLAN_TEST_GUILESS_MAIN(TestLearn)
#include "tst_learn.moc"
