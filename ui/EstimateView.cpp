#include "EstimateView.h"

#include <QFontDatabase>

#include "EstimateTable.h"
#include "document/PlanDocument.h"

namespace trainplan {

EstimateView::EstimateView(PlanDocument *document, QWidget *parent)
    : QPlainTextEdit(parent), m_document(document)
{
    setReadOnly(true);
    setLineWrapMode(QPlainTextEdit::NoWrap);
    setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    connect(m_document, &PlanDocument::planChanged, this, &EstimateView::refresh);
    refresh();
}

void EstimateView::refresh()
{
    setPlainText(io::estimateToTable(m_document->plan(), m_document->estimate()));
}

} // namespace trainplan
