#include "app/ReportCommand.h"

#include <QFileInfo>
#include <QRegularExpression>

#include "io/CatalogJson.h"
#include "app/EstimateCommand.h"
#include "io/PlanJson.h"
#include "ui/document/PlanDocument.h"
#include "ui/report/Report.h"

namespace trainplan::cli {

namespace {

constexpr int kOutputError = 3;

const char *kUsage = "usage: trainplan report PLAN.json -o REPORT.pdf [--page a4|letter]\n"
                     "       trainplan report PLAN.json --png DIR [--size WIDTHxHEIGHT] [--dpi N]\n";

} // namespace

int runReport(const QStringList &arguments, QTextStream &out, QTextStream &err)
{
    QString planPath, pdfPath, pngDir;
    QPageSize::PageSizeId page = QPageSize::A4;
    QSize size(1600, 1000);
    int dpi = 192;
    for (qsizetype i = 0; i < arguments.size(); ++i) {
        const QString &a = arguments[i];
        const bool hasValue = i + 1 < arguments.size();
        if ((a == QLatin1String("-o") || a == QLatin1String("--output")) && hasValue) {
            pdfPath = arguments[++i];
        } else if (a == QLatin1String("--png") && hasValue) {
            pngDir = arguments[++i];
        } else if (a == QLatin1String("--page") && hasValue) {
            const QString p = arguments[++i].toLower();
            if (p != QLatin1String("a4") && p != QLatin1String("letter")) {
                err << "trainplan report: --page must be a4 or letter (got " << p << ")\n" << kUsage;
                return UsageError;
            }
            page = p == QLatin1String("letter") ? QPageSize::Letter : QPageSize::A4;
        } else if (a == QLatin1String("--size") && hasValue) {
            const QRegularExpressionMatch m = QRegularExpression(QStringLiteral("^(\\d{2,5})x(\\d{2,5})$")).match(arguments[++i]);
            if (!m.hasMatch()) {
                err << "trainplan report: --size must be WIDTHxHEIGHT in pixels, e.g. 1600x1000\n";
                return UsageError;
            }
            size = QSize(m.captured(1).toInt(), m.captured(2).toInt());
        } else if (a == QLatin1String("--dpi") && hasValue) {
            bool ok = false;
            dpi = arguments[++i].toInt(&ok);
            if (!ok || dpi < 48 || dpi > 1200) {
                err << "trainplan report: --dpi must be a whole number from 48 to 1200\n";
                return UsageError;
            }
        } else if (!a.startsWith(QLatin1Char('-')) && planPath.isEmpty()) {
            planPath = a;
        } else {
            err << "trainplan report: unknown or incomplete argument '" << a << "'\n" << kUsage;
            return UsageError;
        }
    }
    if (planPath.isEmpty() || (pdfPath.isEmpty() && pngDir.isEmpty())) {
        err << kUsage;
        return UsageError;
    }

    const std::optional<Plan> plan = readPlanForCommand(planPath, err);
    if (!plan)
        return InvalidInput;
    PlanDocument document(io::builtinCatalog());
    document.setPlan(*plan); // a plan that read without errors estimates

    if (!pdfPath.isEmpty()) {
        ReportOptions options;
        options.pageSize = page;
        QString error;
        if (!writeReportFile(&document, pdfPath, options, &error)) {
            err << "trainplan report: " << error << '\n';
            return kOutputError;
        }
        out << "wrote " << pdfPath << '\n';
    }
    if (!pngDir.isEmpty()) {
        QStringList written;
        QString error;
        if (!writeChartPngs(&document, pngDir, size, dpi, &written, &error)) {
            err << "trainplan report: " << error << '\n';
            return kOutputError;
        }
        for (const QString &path : written)
            out << "wrote " << path << '\n';
    }
    return Ok;
}

} // namespace trainplan::cli
