#pragma once
// Replaces the whole plan in one undo step: a preset, a search result, an import. The cluster builder's
// typed commands (ClusterCommands.h) are ReplacePlans too (adding nodes also re-derives parallel.data, so
// the whole plan is kept before and after). Consecutive edits of the same value (one spin box held down)
// merge into one step; a merge back to the start is obsolete.

#include <QUndoCommand>

#include <optional>
#include <string>
#include <utility>

#include "ui/commands/CommandId.h"
#include "ui/document/PlanDocument.h"

namespace trainplan {

/// The value a merging whole-plan edit changes: its plan key's path and, for a field of one node group,
/// the group's index. Two edits merge only when both are equal, so no two values can share a step (a key
/// built as field x 100 + group index let group 100's accelerator merge with group 0's GPUs per node).
struct EditedValue
{
    std::string path;
    int group = -1;
    bool operator==(const EditedValue &) const = default;
};

class ReplacePlan : public QUndoCommand
{
public:
    /// Without `merged`, the edit never merges.
    ReplacePlan(PlanDocument *document, Plan after, const QString &text,
                std::optional<EditedValue> merged = std::nullopt, CommandId id = CommandId::ReplacePlan)
        : m_document(document)
        , m_before(document->plan())
        , m_after(std::move(after))
        , m_merged(std::move(merged))
        , m_id(id)
    {
        setText(text);
    }

    void redo() override { m_document->setPlan(m_after); }
    void undo() override { m_document->setPlan(m_before); }
    int id() const override { return int(m_id); }
    bool mergeWith(const QUndoCommand *other) override
    {
        const auto *next = dynamic_cast<const ReplacePlan *>(other);
        if (!next || !m_merged || next->m_merged != m_merged || next->m_document != m_document)
            return false;
        m_after = next->m_after;
        setObsolete(m_after == m_before);
        return true;
    }

private:
    PlanDocument *m_document;
    Plan m_before;
    Plan m_after;
    std::optional<EditedValue> m_merged;
    CommandId m_id;
};

} // namespace trainplan
