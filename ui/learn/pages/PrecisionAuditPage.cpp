#include "ui/learn/pages/Pages.h"

#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

#include "learn/NumberFormat.h"
#include "io/output/PrecisionPolicy.h"
#include "ui/document/PlanDocument.h"
#include "ui/learn/pages/PageWidgets.h"

namespace trainplan {

namespace {

using namespace learn;

// --- Precision audit --------------------------------------------------------------------------------

class PrecisionAuditPage : public LearnPage
{
public:
    explicit PrecisionAuditPage(PlanDocument *d) : LearnPage(d, tr("Precision audit of the plan"))
    {
        auto *column = new QVBoxLayout(this);
        addHeading(
            column,
            tr("Which tensors the current plan holds, computes and communicates in which format (reference text: "
               "precision is an end-to-end contract)."));
        m_table = makeTable({tr("Tensor"), tr("Held"), tr("Computed"), tr("Communicated"), tr("Note")});
        m_table->setObjectName(QStringLiteral("precisionAudit"));
        column->addWidget(m_table, 1);
        m_scaling = new QLabel;
        m_scaling->setWordWrap(true);
        column->addWidget(m_scaling);
    }
    void refresh() override
    {
        const io::PrecisionPolicy policy = io::precisionPolicy(m_document->plan());
        m_table->setRowCount(0);
        int row = 0;
        for (const io::PrecisionRow &r : policy.rows)
            setRow(m_table, row++, {qs(r.tensor), qs(r.held), qs(r.computed), qs(r.communicated), qs(r.note)});
        m_scaling->setText(tr("Loss scaling: %1.").arg(qs(policy.lossScaling)));
    }

private:
    QTableWidget *m_table;
    QLabel *m_scaling;
};

} // namespace

LearnPage *makePrecisionAuditPage(PlanDocument *document)
{
    return new PrecisionAuditPage(document);
}

} // namespace trainplan
