#pragma once
// The efficiency audit's sections, each one function: the title page, model and shapes, precision,
// parallelism, memory, throughput, scaling, time and cost, checkpoints, the limiting resource and what to
// change, assumptions and sources, the plan file. They only read the document (the plan, the Estimate,
// its problems in words and the last search's best plan).

#include <QDateTime>

namespace trainplan {

class PageFlow;
class PlanDocument;
struct ReportCharts;

void writeReportSections(PageFlow &flow, const PlanDocument &document, ReportCharts &charts, const QDateTime &date);

} // namespace trainplan
