#pragma once
// The Learn view's pages, one file each: Figures 16.1-16.6 of the reference text, the precision audit and
// the exercise page (one class for all 22 exercises). Each derives from LearnPage, the scaffold every page
// shares (heading, caption, refresh on plan change, an exportable figure).

#include "learn/Exercises.h"
#include "ui/learn/LearnPages.h"

namespace trainplan {

class PlanDocument;

LearnPage *makeDiagnosticMapPage(PlanDocument *document);
LearnPage *makePersistentStatePage(PlanDocument *document);
LearnPage *makeNumberFormatsPage(PlanDocument *document);
LearnPage *makeRooflinePage(PlanDocument *document);
LearnPage *makeScalingPage(PlanDocument *document);
LearnPage *makeParallelismPage(PlanDocument *document);
LearnPage *makePrecisionAuditPage(PlanDocument *document);
LearnPage *makeAllocatorSegmentsPage(PlanDocument *document);
LearnPage *makeExercisePage(PlanDocument *document, const Exercise &exercise);

} // namespace trainplan
