#include "ui/EstimateView.h"

#include <QFontDatabase>

#include "io/output/EstimateTable.h"
#include "ui/document/PlanDocument.h"

namespace trainplan {

EstimateView::EstimateView(PlanDocument *document, QWidget *parent)
    : QPlainTextEdit(parent), m_document(document)
{
    setReadOnly(true);
    setLineWrapMode(QPlainTextEdit::NoWrap);
    setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    connect(m_document, &PlanDocument::planChanged, this, [this] {
        m_stale = true;
        refresh();
    });
}

void EstimateView::showEvent(QShowEvent *event)
{
    QPlainTextEdit::showEvent(event);
    if (m_stale)
        refresh();
}

void EstimateView::refresh()
{
    // A hidden dock costs nothing per edit: the table is written when it is shown.
    m_stale = !isVisible();
    if (m_stale)
        return;
    Plan named = m_document->plan(); // named as the window names it
    named.name = m_document->planName().toStdString();
    setPlainText(io::estimateToTable(named, m_document->estimate()));
}

} // namespace trainplan
