#pragma once
// The one "set a field of the plan" undo command (Tiled's ChangeValue, Qt's undoframework): it holds the
// old and new value of one field and a setter. Consecutive edits of the same field merge (a slider drag
// or a spin box held down is one undo step) and a merge back to the start value makes it obsolete.

#include <QUndoCommand>

#include <functional>
#include <utility>

#include "ui/document/PlanDocument.h"
#include "ui/document/PlanField.h"

namespace trainplan {

template<typename T>
class ChangePlanValue : public QUndoCommand
{
public:
    using Setter = std::function<void(Plan &, const T &)>;

    ChangePlanValue(PlanDocument *document, PlanField field, T oldValue, T newValue, Setter setter)
        : m_document(document), m_field(field), m_old(std::move(oldValue)), m_new(std::move(newValue)),
          m_setter(std::move(setter))
    {
        setText(QObject::tr("Change %1").arg(labelOf(field)));
    }

    void redo() override { apply(m_new); }
    void undo() override { apply(m_old); }
    int id() const override { return int(m_field); }

    bool mergeWith(const QUndoCommand *other) override
    {
        const auto *next = dynamic_cast<const ChangePlanValue<T> *>(other);
        if (!next || next->m_field != m_field || next->m_document != m_document)
            return false;
        m_new = next->m_new;
        setObsolete(m_new == m_old);
        return true;
    }

private:
    void apply(const T &value)
    {
        Plan plan = m_document->plan();
        m_setter(plan, value);
        m_document->setPlan(plan);
    }

    PlanDocument *m_document;
    PlanField m_field;
    T m_old;
    T m_new;
    Setter m_setter;
};

/// Replaces the whole plan in one step (a preset choice, a search result): the text says what.
class SetPlan : public QUndoCommand
{
public:
    SetPlan(PlanDocument *document, Plan plan, const QString &text)
        : m_document(document), m_old(document->plan()), m_new(std::move(plan))
    {
        setText(text);
    }
    void redo() override { m_document->setPlan(m_new); }
    void undo() override { m_document->setPlan(m_old); }

private:
    PlanDocument *m_document;
    Plan m_old;
    Plan m_new;
};

} // namespace trainplan
