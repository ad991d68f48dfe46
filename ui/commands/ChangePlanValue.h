#pragma once
// The one "set a key of the plan" undo command (Tiled's ChangeValue, Qt's undoframework), for any key of
// the plan table (core/plan/PlanKeys). Consecutive edits of the same key merge (a slider drag or a spin
// box held down is one undo step) and a merge back to the start value makes it obsolete.

#include <QCoreApplication>
#include <QUndoCommand>

#include "core/plan/PlanKeys.h"
#include "io/plan/KeyWords.h"
#include "io/plan/ProblemWords.h"
#include "ui/commands/CommandId.h"
#include "ui/document/PlanDocument.h"

namespace trainplan {

class ChangePlanValue : public QUndoCommand
{
public:
    ChangePlanValue(PlanDocument *document, const PlanKey &key, KeyValue newValue)
        : m_document(document)
        , m_key(key)
        , m_before(document->plan())
        , m_old(key.get(document->plan()))
        , m_new(std::move(newValue))
    {
        setText(QCoreApplication::translate("ChangePlanValue", "Change %1")
                    .arg(io::keyNoun(key)));
    }

    void redo() override { apply(m_new); }
    /// Undo gives back the plan as it was, with whatever the edit brought along (completeEdit).
    void undo() override
    {
        m_note.clear();
        m_document->setPlan(m_before);
    }
    /// What the last redo or undo brought along with the key (completeEdit), for the status bar.
    const QString &note() const { return m_note; }
    int id() const override { return int(CommandId::SetPlanValue); } // merges only with the same key

    bool mergeWith(const QUndoCommand *other) override
    {
        const auto *next = dynamic_cast<const ChangePlanValue *>(other);
        if (!next || &next->m_key != &m_key || next->m_document != m_document)
            return false;
        m_new = next->m_new;
        m_note = next->m_note;
        setObsolete(m_new == m_old && m_document->plan() == m_before);
        return true;
    }

private:
    void apply(const KeyValue &value)
    {
        Plan plan = m_document->plan();
        m_key.set(plan, value);
        if (m_key.rebalancesData)
            deriveDataParallel(plan);
        const std::optional<Problem> note = completeEdit(plan, m_key.path);
        m_note = note ? io::problemText(*note) : QString();
        m_document->setPlan(plan);
    }

    PlanDocument *m_document;
    const PlanKey &m_key;
    Plan m_before;
    KeyValue m_old;
    KeyValue m_new;
    QString m_note;
};

} // namespace trainplan
