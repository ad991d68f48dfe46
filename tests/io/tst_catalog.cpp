// The built-in device catalog and model presets: required ids, sourced entries, and agreement with the
// published specifications in tests/data/validation/gpu_specs.csv.

#include <QTest>

#include <utility>

#include "TestMain.h"
#include "TestSupport.h"

using namespace trainplan;

class TestCatalog : public QObject
{
    Q_OBJECT

private slots:
    void requiredIds();
    void devicesMatchPublishedSpecs_data();
    void devicesMatchPublishedSpecs();
    void blackwellCapacitiesAreNvidiaSmiTotals();
    void rejectsBadDeviceDocument();
    void fuzzFindingNegativeLatency();
};

void TestCatalog::requiredIds()
{
    const Catalog &c = io::builtinCatalog();
    for (const char *id : {"v100-sxm2-32gb", "a100-sxm4-40gb", "a100-sxm4-80gb", "h100-sxm5-80gb", "h200-sxm-141gb", "b200", "b300",
                           "gb200", "gb300", "mi300x"}) {
        const DeviceSpec *d = c.device(id);
        QVERIFY2(d, id);
        QVERIFY2(!d->source.empty(), id);
        QVERIFY(d->memoryBytes > 0 && d->memoryBandwidthBytesPerSecond > 0);
        QVERIFY(d->intraNodeBandwidthBytesPerSecond > 0 && d->networkBandwidthBytesPerSecond > 0);
    }
    for (const char *id : {"gpt2-small", "gpt3-175b", "megatron-1t", "llama2-7b", "llama2-13b", "llama2-70b", "llama3-8b", "llama3-70b",
                           "llama3.1-8b", "llama3.1-70b", "llama3.1-405b", "nemotron4-15b", "nemotron4-340b"}) {
        const ModelSpec *m = c.model(id);
        QVERIFY2(m, id);
        QVERIFY2(!m->source.empty(), id);
    }
}

void TestCatalog::devicesMatchPublishedSpecs_data()
{
    QTest::addColumn<QString>("id");
    QTest::addColumn<double>("bf16Tflops");
    QTest::addColumn<double>("fp8Tflops");
    QTest::addColumn<double>("hbmTBps");
    QTest::addColumn<double>("capacityGB");
    // Rows of gpu_specs.csv (dense peaks; "not supported" as 0).
    const auto rows = test::readCsv(test::dataPath("validation/gpu_specs.csv"));
    const QStringList header = rows.front();
    const auto col = [&](const char *n) { return header.indexOf(QLatin1String(n)); };
    const std::map<QString, QString> ids{{"NVIDIA A100 SXM4 40GB", "a100-sxm4-40gb"}, {"NVIDIA A100 SXM4 80GB", "a100-sxm4-80gb"},
                                         {"NVIDIA H100 SXM5 80GB", "h100-sxm5-80gb"}, {"NVIDIA H200 SXM 141GB", "h200-sxm-141gb"},
                                         {"NVIDIA B200 SXM", "b200"}, {"AMD MI300X", "mi300x"}};
    for (const QStringList &row : rows) {
        const auto it = ids.find(row[0]);
        if (it == ids.end())
            continue;
        QTest::newRow(qPrintable(it->second)) << it->second << row[col("dense_bf16_tflops")].toDouble()
                                              << row[col("dense_fp8_tflops")].toDouble()
                                              << row[col("hbm_bandwidth_tbps")].toDouble()
                                              << row[col("hbm_capacity_gb")].toDouble();
    }
}

void TestCatalog::devicesMatchPublishedSpecs()
{
    QFETCH(QString, id);
    QFETCH(double, bf16Tflops);
    QFETCH(double, fp8Tflops);
    QFETCH(double, hbmTBps);
    QFETCH(double, capacityGB);
    const DeviceSpec *d = io::builtinCatalog().device(id.toStdString());
    QVERIFY(d);
    QCOMPARE(d->peakFlops(Precision::BF16), bf16Tflops * 1e12);
    QCOMPARE(d->peakFlops(Precision::FP8), fp8Tflops * 1e12);
    QCOMPARE(d->memoryBandwidthBytesPerSecond, hbmTBps * 1e12);
    // Vendor "GB" of HBM is GiB (an A100 80GB reports 81920 MiB), except where the part reports less
    // (blackwellCapacitiesAreNvidiaSmiTotals).
    if (id != QLatin1String("b200"))
        QCOMPARE(d->memoryBytes, capacityGB * 1024.0 * 1024.0 * 1024.0);
    else
        QVERIFY(d->memoryBytes < capacityGB * 1024.0 * 1024.0 * 1024.0);
}

// On Blackwell's larger parts the vendor's "GB" is not GiB: nvidia-smi reports 275,040 MiB on a B300 (its "288 GB"
// is 288.4e9 bytes; NVIDIA's dgxc-benchmarking README lists "8x B300 270 GB HBM3e"), 284,208 MiB on a GB300 and
// 189,471 MiB on a GB200 (ai-dynamo/aiconfigurator, aic-core/src/aiconfigurator_core/systems/b300_sxm.yaml,
// gb300.yaml and gb200.yaml, mem_capacity with the nvidia-smi reading), and 183,359 MiB on a B200 (AWS Deep
// Learning AMI Developer Guide, "Software requirements for P6 instances": the p6-b200 example nvidia-smi output),
// 0.94 GiB under its datasheet's 180 GB read as GiB. A plan is held to what the device reports.
void TestCatalog::blackwellCapacitiesAreNvidiaSmiTotals()
{
    for (const auto &[id, mib] : {std::pair{"b300", 275040.0}, std::pair{"gb300", 284208.0}, std::pair{"gb200", 189471.0},
                                  std::pair{"b200", 183359.0}}) {
        const DeviceSpec *d = io::builtinCatalog().device(id);
        QVERIFY(d);
        QCOMPARE(d->memoryBytes, mib * 1024.0 * 1024.0);
    }
    QVERIFY(io::builtinCatalog().device("b300")->memoryBytes < 288e9 * 1.002); // 288.4e9 bytes, not 288 GiB
}

void TestCatalog::rejectsBadDeviceDocument()
{
    Catalog c;
    const Problems problems = io::readDevices(
        R"({"format": "trainplan-devices", "devices": [{"id": "x", "name": "X", "peak_flops": {"bf16": -1},
            "memory_bytes": 0, "memory_bandwidth": 1e12, "colour": "red"}]})",
        c);
    QStringList keys;
    for (const Problem &p : problems)
        keys << QString::fromStdString(p.key);
    QVERIFY2(keys.contains("devices[0].peak_flops.bf16"), qPrintable(keys.join(',')));
    QVERIFY(keys.contains("devices[0].memory_bytes"));
    QVERIFY(keys.contains("devices[0].colour"));
    QVERIFY(hasErrors(io::readDevices("{not json", c)));
    QVERIFY(c.devices().empty()); // a device with errors never enters the catalog
}

void TestCatalog::fuzzFindingNegativeLatency()
{
    // fuzz_devices found a catalog whose negative network latency made a valid plan's step time
    // negative (build-fuzz/findings/devices/crash-f55f267c...): the reader must refuse it.
    QFile file(test::dataPath("fuzz-regressions/devices-negative-latency.json"));
    QVERIFY(file.open(QIODevice::ReadOnly));
    Catalog c;
    const Problems problems = io::readDevices(file.readAll(), c);
    bool named = false;
    for (const Problem &p : problems)
        named |= p.isError() && p.key == "devices[1].network_latency" && io::problemMessage(p) == "must not be negative";
    QVERIFY(named);
    QVERIFY(!c.device("v100-sxm2-16gb"));
}

TRAINPLAN_TEST_APPLESS_MAIN(TestCatalog)
#include "tst_catalog.moc"
