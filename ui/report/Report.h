#pragma once
// The efficiency audit as a multi-page PDF (the sections the reference text asks an audit to report,
// the four charts as vector graphics, the plan JSON in an appendix), and the charts as PNG files. Used by
// File > Export and by `trainplan report` (offscreen). Output goes through QSaveFile: a failure leaves no
// half-written file. The page flow is ui/report/PageFlow, the sections ui/report/ReportSections; the
// best plan of the last search comes from the document (PlanDocument::searchBest()).

#include <QDateTime>
#include <QPageSize>
#include <QSize>
#include <QString>
#include <QStringList>

class QIODevice;

namespace trainplan {

class PlanDocument;

struct ReportOptions
{
    QPageSize::PageSizeId pageSize = QPageSize::A4;
    QDateTime date = QDateTime::currentDateTime();
};

/// A4 or Letter, from QSettings ("report/pageSize": "a4" | "letter").
QPageSize::PageSizeId reportPageSizeFromSettings();
void setReportPageSizeInSettings(QPageSize::PageSizeId size);

/// Writes the report; returns the number of pages, or 0 with `error` set (an invalid plan, say).
int writeReport(PlanDocument *document, QIODevice *device, const ReportOptions &options, QString *error);
bool writeReportFile(PlanDocument *document, const QString &path, const ReportOptions &options, QString *error);

/// memory.png, roofline.png, scaling.png, pipeline.png in `dir` (created if needed) at `pixels` and `dpi`:
/// all or none (io::writeAllAtomically), a link in `dir` replaced rather than followed, none over one of `inputs`.
bool writeChartPngs(PlanDocument *document, const QString &dir, QSize pixels, int dpi, const QStringList &inputs,
                    QStringList *written, QString *error);

} // namespace trainplan
