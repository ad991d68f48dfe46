// `trainplan search` in-process: the memory band's options and keys (issues 33 and 36). llm-foundry's MPT-7B
// on 64 H100 (the gallery plan): its fastest layout leaves less free than its memory band may take, and
// --reject-uncertain keeps only the layouts that fit at the band's upper edge.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include "app/SearchCommand.h"
#include "TestMain.h"

using namespace trainplan;

namespace {

const QString kFoundry = QStringLiteral(TRAINPLAN_SOURCE_DIR "/resources/examples/mpt-7b-llmfoundry-64-h100.json");

QJsonObject search(const QStringList &options)
{
    QString out, err;
    QTextStream o(&out), e(&err);
    const int code = cli::runSearch(QStringList{kFoundry, QStringLiteral("--top"), QStringLiteral("5"),
                                                QStringLiteral("--threads"), QStringLiteral("2")} + options,
                                    o, e);
    o.flush();
    e.flush();
    if (code != 0)
        qWarning("%s", qPrintable(err));
    return code == 0 ? QJsonDocument::fromJson(out.toUtf8()).object() : QJsonObject{};
}

/// The first rejection group whose message names the memory band, or "".
QString bandRejection(const QJsonObject &result)
{
    for (const QJsonValue &g : result["rejected"].toArray()) {
        const QString message = g.toObject()["message"].toString();
        if (message.contains(QStringLiteral("error band may take")))
            return message;
    }
    return {};
}

} // namespace

class TestSearchCommand : public QObject
{
    Q_OBJECT

private slots:
    void rejectUncertainKeepsPlansThatFitAtTheBandsEdge();
};

void TestSearchCommand::rejectUncertainKeepsPlansThatFitAtTheBandsEdge()
{
    const QJsonObject loose = search({});
    QVERIFY(!loose.isEmpty());
    QCOMPARE(loose["reject_uncertain_memory"].toBool(), false);
    const QJsonObject band = loose["accuracy"].toObject();
    QVERIFY(band["memory_band_80"].toDouble() > 0 && band["memory_band_80"].toDouble() < 0.5);
    QCOMPARE(band["best_may_not_fit"].toBool(), true);
    QVERIFY(bandRejection(loose).isEmpty());

    const QJsonObject strict = search({QStringLiteral("--reject-uncertain")});
    QVERIFY(!strict.isEmpty());
    QCOMPARE(strict["reject_uncertain_memory"].toBool(), true);
    QCOMPARE(strict["accuracy"].toObject()["best_may_not_fit"].toBool(), false);
    const double looseBest = loose["top"].toArray().first().toObject()["tokens_per_second"].toDouble();
    const double strictBest = strict["top"].toArray().first().toObject()["tokens_per_second"].toDouble();
    QVERIFY2(strictBest > 0 && strictBest < looseBest, qPrintable(QStringLiteral("%1 %2").arg(strictBest).arg(looseBest)));
    // The layouts it turned away are grouped and said: "... fit but leave less free than their memory margin or
    // what their memory estimate's error band may take: they may not fit".
    const QString message = bandRejection(strict);
    QVERIFY2(message.contains(QStringLiteral("they may not fit")), qPrintable(message));
}

TRAINPLAN_TEST_GUILESS_MAIN(TestSearchCommand)
#include "tst_searchcommand.moc"
