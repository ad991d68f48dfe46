#include "app/ReportCommand.h"

#include <QFileInfo>
#include <QRegularExpression>

#include "app/CommandLine.h"
#include "io/plan/CatalogJson.h"
#include "io/common/SafeFile.h"
#include "ui/document/PlanDocument.h"
#include "ui/report/Report.h"

namespace trainplan::cli {

namespace {

const char *kUsage = "usage: trainplan report PLAN.json -o REPORT.pdf [--page a4|letter] [--baseline OTHER.json]\n"
                     "       trainplan report PLAN.json --png DIR [--size WIDTHxHEIGHT] [--dpi N]\n";

struct ReportArguments
{
    QString pdfPath, pngDir;
    QPageSize::PageSizeId page = QPageSize::A4;
    QSize size{1600, 1000};
    int dpi = 192;
};

/// The PDF and the PNGs the arguments ask for; OutputError on the first that fails.
int writeOutputs(PlanDocument &document, const ReportArguments &a, const QStringList &inputs, QTextStream &out,
                 QTextStream &err)
{
    QString error;
    if (!a.pdfPath.isEmpty()) {
        ReportOptions options;
        options.pageSize = a.page;
        if (!writeReportFile(&document, a.pdfPath, options, &error)) {
            err << "trainplan report: " << error << '\n';
            return OutputError;
        }
        out << "wrote " << a.pdfPath << '\n';
    }
    if (!a.pngDir.isEmpty()) {
        QStringList written;
        if (!writeChartPngs(&document, a.pngDir, a.size, a.dpi, inputs, &written, &error)) {
            err << "trainplan report: " << error << '\n';
            return OutputError;
        }
        for (const QString &path : written)
            out << "wrote " << path << '\n';
    }
    return Ok;
}

} // namespace

int runReport(const QStringList &arguments, QTextStream &out, QTextStream &err)
{
    CommandLine line(QStringLiteral("report"),
                     QStringLiteral("Write the efficiency audit (PDF) or the plan's charts (PNG); no display needed.\n")
                         + exitCodesHelp(true) + QStringLiteral(" A failed write leaves no partial file."),
                     QString::fromLatin1(kUsage));
    const QCommandLineOption output(QStringList{QStringLiteral("o"), QStringLiteral("output")},
                                    QStringLiteral("The report PDF to write."), QStringLiteral("file"));
    const QCommandLineOption png(QStringLiteral("png"),
                                 QStringLiteral("Write every chart as a PNG into this directory."),
                                 QStringLiteral("dir"));
    const QCommandLineOption page(QStringLiteral("page"), QStringLiteral("Page size: a4 (default) or letter."),
                                  QStringLiteral("size"));
    const QCommandLineOption size(QStringLiteral("size"),
                                  QStringLiteral("PNG size in pixels, e.g. 1600x1000 (the default)."),
                                  QStringLiteral("WIDTHxHEIGHT"));
    const QCommandLineOption dpi(QStringLiteral("dpi"), QStringLiteral("PNG resolution, 48-1200 (default 192)."),
                                 QStringLiteral("N"));
    const QCommandLineOption baseline(QStringLiteral("baseline"),
                                      QStringLiteral("Compare against this plan: a comparison section in the PDF, the "
                                                     "baseline drawn in the charts."),
                                      QStringLiteral("file"));
    for (const QCommandLineOption *o : {&output, &png, &page, &size, &dpi, &baseline})
        line.addOption(*o);
    if (const std::optional<int> done = line.parse(arguments, out, err))
        return *done;

    ReportArguments a;
    a.pdfPath = line.value(output);
    a.pngDir = line.value(png);
    if (line.isSet(page)) {
        const QString p = line.value(page).toLower();
        if (p != QLatin1String("a4") && p != QLatin1String("letter"))
            return line.usageError(err, QStringLiteral("--page must be a4 or letter (got %1)").arg(p));
        a.page = p == QLatin1String("letter") ? QPageSize::Letter : QPageSize::A4;
    }
    if (line.isSet(size)) {
        const QRegularExpressionMatch m =
            QRegularExpression(QStringLiteral("^(\\d{2,5})x(\\d{2,5})$")).match(line.value(size));
        if (!m.hasMatch())
            return line.usageError(err, QStringLiteral("--size must be WIDTHxHEIGHT in pixels, e.g. 1600x1000"));
        a.size = QSize(m.captured(1).toInt(), m.captured(2).toInt());
    }
    if (line.isSet(dpi)) {
        bool ok = false;
        a.dpi = line.value(dpi).toInt(&ok);
        if (!ok || a.dpi < 48 || a.dpi > 1200)
            return line.usageError(err, QStringLiteral("--dpi must be a whole number from 48 to 1200"));
    }
    if (a.pdfPath.isEmpty() && a.pngDir.isEmpty())
        return line.usageError(err, QStringLiteral("say what to write: -o REPORT.pdf or --png DIR"));

    // The report never replaces its plan or its baseline.
    const QStringList inputs{line.planPath(), line.value(baseline)};
    if (QString error; !a.pdfPath.isEmpty() && !io::isNotAnInput(a.pdfPath, inputs, &error)) {
        err << "trainplan report: " << error << '\n';
        return OutputError;
    }
    const std::optional<Plan> plan = readPlanForCommand(line.planPath(), err);
    if (!plan)
        return InvalidInput;
    PlanDocument document(io::builtinCatalog());
    document.setPlan(*plan); // a plan that read without errors estimates
    if (line.isSet(baseline)) {
        const std::optional<Plan> other = readPlanForCommand(line.value(baseline), err);
        if (!other)
            return InvalidInput;
        document.setBaseline(*other, QFileInfo(line.value(baseline)).fileName());
    }

    return writeOutputs(document, a, inputs, out, err);
}

} // namespace trainplan::cli
