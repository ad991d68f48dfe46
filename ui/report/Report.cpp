#include "ui/report/Report.h"

#include <QApplication>
#include <QBuffer>
#include <QDir>
#include <QFileInfo>
#include <QPdfWriter>
#include <QSaveFile>
#include <QSettings>
#include <QStyle>

#include "io/common/SafeFile.h"
#include "charts/ChartExport.h"
#include "ui/document/PlanDocument.h"
#include "ui/report/PageFlow.h"
#include "ui/report/ReportCharts.h"
#include "ui/report/ReportSections.h"
#include "io/plan/ProblemWords.h"

namespace trainplan {

namespace {

constexpr const char *kPageSizeKey = "report/pageSize";

} // namespace

ReportCharts::ReportCharts(PlanDocument *document)
    : memory(document), roofline(document), scaling(document), pipeline(document), step(document)
{
    const QPalette light = QApplication::style()->standardPalette();
    for (QWidget *w :
         {static_cast<QWidget *>(&memory), static_cast<QWidget *>(&roofline), static_cast<QWidget *>(&scaling),
          static_cast<QWidget *>(&pipeline), static_cast<QWidget *>(&step)}) {
        w->setAttribute(Qt::WA_DontShowOnScreen);
        w->setPalette(light);
        w->resize(1000, 600);
    }
}

QPageSize::PageSizeId reportPageSizeFromSettings()
{
    return QSettings().value(kPageSizeKey).toString() == QLatin1String("letter") ? QPageSize::Letter : QPageSize::A4;
}

void setReportPageSizeInSettings(QPageSize::PageSizeId size)
{
    QSettings().setValue(kPageSizeKey, size == QPageSize::Letter ? QStringLiteral("letter") : QStringLiteral("a4"));
}

int writeReport(PlanDocument *document, QIODevice *device, const ReportOptions &options, QString *error)
{
    const Estimate &e = document->estimate();
    if (!e.valid) {
        if (error) {
            QStringList lines;
            for (const Problem &p : document->problems())
                if (p.isError())
                    lines << io::problemLine(p);
            *error = QObject::tr("the plan has errors:\n%1").arg(lines.join(QLatin1Char('\n')));
        }
        return 0;
    }
    ReportCharts charts(document);
    // Two passes: the first counts the pages for the "page k of N" footers.
    int pages = 0;
    for (int pass = 0; pass < 2; ++pass) {
        QBuffer scratch;
        scratch.open(QIODevice::WriteOnly);
        QPdfWriter pdf(pass == 0 ? static_cast<QIODevice *>(&scratch) : device);
        pdf.setResolution(96);
        pdf.setCreator(QStringLiteral("Trainplan %1").arg(QCoreApplication::applicationVersion()));
        pdf.setTitle(QObject::tr("Efficiency audit: %1").arg(document->planName()));
        pdf.setPageSize(QPageSize(options.pageSize));
        pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
        PageFlow flow(pdf, QObject::tr("Trainplan efficiency audit · %1").arg(document->planName()), pages);
        if (!flow.isActive()) {
            if (error)
                *error = QObject::tr("cannot start the PDF");
            return 0;
        }
        writeReportSections(flow, *document, charts, options.date);
        pages = flow.pages();
    }
    return pages;
}

bool writeReportFile(PlanDocument *document, const QString &path, const ReportOptions &options, QString *error)
{
    if (!io::isWritableTarget(path, error))
        return false; // before the work: a device or a pipe is never replaced by the report
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    if (writeReport(document, &buffer, options, error) == 0)
        return false;
    buffer.close();
    return io::writeAtomically(path, bytes, error);
}

bool writeChartPngs(PlanDocument *document, const QString &dir, QSize pixels, int dpi, const QStringList &inputs,
                    QStringList *written, QString *error)
{
    if (!document->estimate().valid) {
        QString reason;
        writeReport(document, nullptr, {}, &reason);
        if (error)
            *error = reason;
        return false;
    }
    if (QFileInfo(dir).exists() && !QFileInfo(dir).isDir()) {
        if (error)
            *error = QObject::tr("%1 exists and is not a directory; nothing was written").arg(dir);
        return false;
    }
    if (!QDir().mkpath(dir)) {
        if (error)
            *error = QObject::tr("cannot create the directory %1").arg(dir);
        return false;
    }
    // Every PNG encoded, then all written or none (a full disk leaves the folder as it was); a link planted in
    // the folder under a chart's name is replaced, never followed to the file it points at.
    ReportCharts charts(document);
    std::vector<std::pair<QString, QByteArray>> files;
    for (ExportableChart *chart : charts.all()) {
        const std::optional<QByteArray> bytes = chartPngBytes(*chart, pixels, dpi, error);
        if (!bytes)
            return false;
        files.emplace_back(QDir(dir).filePath(chart->exportName() + QStringLiteral(".png")), *bytes);
    }
    for (const auto &[path, bytes] : files)
        if (!io::isNotAnInput(path, inputs, error))
            return false;
    if (!io::writeAllAtomically(files, error, io::Links::Replace))
        return false;
    for (const auto &file : files)
        if (written)
            *written << file.first;
    return true;
}

} // namespace trainplan
