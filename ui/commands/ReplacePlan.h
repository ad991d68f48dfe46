#pragma once
// Replaces the whole plan in one undo step: a preset, a search result, a cluster-builder edit (adding
// nodes also re-derives parallel.data, so the whole plan is kept before and after). Edits with the same
// merge key (one spin box held down) merge into one step; a merge back to the start is obsolete.

#include <QUndoCommand>

#include <utility>

#include "ui/document/PlanDocument.h"

namespace trainplan {

class ReplacePlan : public QUndoCommand
{
public:
    /// `mergeKey` < 0: never merges.
    ReplacePlan(PlanDocument *document, Plan after, const QString &text, int mergeKey = -1)
        : m_document(document), m_before(document->plan()), m_after(std::move(after)), m_mergeKey(mergeKey)
    {
        setText(text);
    }

    void redo() override { m_document->setPlan(m_after); }
    void undo() override { m_document->setPlan(m_before); }
    int id() const override { return m_mergeKey < 0 ? -1 : kIdBase + m_mergeKey; }
    bool mergeWith(const QUndoCommand *other) override
    {
        const auto *next = dynamic_cast<const ReplacePlan *>(other);
        if (!next || next->m_mergeKey != m_mergeKey || next->m_document != m_document)
            return false;
        m_after = next->m_after;
        setObsolete(m_after == m_before);
        return true;
    }

private:
    static constexpr int kIdBase = 100000; // above ChangePlanValue's ids (one per plan key)
    PlanDocument *m_document;
    Plan m_before;
    Plan m_after;
    int m_mergeKey;
};

} // namespace trainplan
