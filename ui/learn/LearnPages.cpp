#include "ui/learn/LearnPages.h"

#include <QLabel>
#include <QVBoxLayout>

#include "ui/learn/pages/Pages.h"

namespace trainplan {

LearnPage::LearnPage(PlanDocument *document, QString title, QWidget *parent)
    : QWidget(parent), m_document(document), m_title(std::move(title))
{
}

void LearnPage::addHeading(QVBoxLayout *layout, const QString &caption)
{
    // Rich text sizes relative to the widget font, so the heading grows with presentation mode.
    auto *heading = new QLabel(
        QStringLiteral("<span style=\"font-size:x-large; font-weight:bold\">%1</span>").arg(m_title.toHtmlEscaped()));
    heading->setObjectName(QStringLiteral("pageTitle"));
    auto *text = new QLabel(caption);
    text->setWordWrap(true);
    layout->addWidget(heading);
    layout->addWidget(text);
}

std::vector<LearnPage *> createLearnPages(PlanDocument *document)
{
    std::vector<LearnPage *> pages{makeDiagnosticMapPage(document), makePersistentStatePage(document),
                                   makeNumberFormatsPage(document),   makeRooflinePage(document),
                                   makeScalingPage(document),         makeParallelismPage(document),
                                   makePrecisionAuditPage(document),  makeAllocatorSegmentsPage(document)};
    for (const Exercise &ex : exercises())
        pages.push_back(makeExercisePage(document, ex));
    return pages;
}

int pageIndexOf(Demo demo)
{
    switch (demo) {
    case Demo::DiagnosticMap: return 0;
    case Demo::PersistentState: return 1;
    case Demo::NumberFormats: return 2;
    case Demo::Roofline: return 3;
    case Demo::Scaling: return 4;
    case Demo::Parallelism: return 5;
    case Demo::PrecisionAudit: return 6;
    case Demo::AllocatorSegments: return 7;
    default: return -1;
    }
}

} // namespace trainplan
