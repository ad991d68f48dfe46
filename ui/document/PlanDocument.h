#pragma once
// The one document: plan, file path, modified flag and undo stack (Tiled's Document). Undo works without
// any widget. Every change goes through setPlan(), which recomputes the Estimate once and says precisely
// what changed (core/plan/PlanDiff): nodeGroupsRemoved/Inserted and nodeGroupChanged for the node-group
// list, keyChanged for each plan key whose value differs, then estimateChanged() and planChanged(). A view
// redraws only what it shows of those; the charts see the document as a ChartSource (charts/).

#include <QString>
#include <QUndoStack>

#include <optional>

#include "charts/ChartSource.h"
#include "core/advice/Interventions.h"
#include "core/estimate/Estimate.h"
#include "core/hardware/Catalog.h"
#include "core/plan/Plan.h"

namespace trainplan {

class PlanDocument : public ChartSource
{
    Q_OBJECT

public:
    explicit PlanDocument(const Catalog &catalog, QObject *parent = nullptr);

    const Catalog &catalog() const { return m_catalog; }
    const Plan &plan() const override { return m_plan; }
    const Estimate &estimate() const override { return m_estimate; }
    /// The diagnostic map's interventions and the suggested change for the plan (core/advice).
    const Advice &advice() const { return m_advice; }
    /// The estimate's problems in words (validation, the mixed-cluster note, placement flags), made once per
    /// change for every view.
    const Problems &problems() const override { return m_problems; }
    QUndoStack *undoStack() { return &m_undoStack; }

    QString filePath() const { return m_filePath; }
    /// File name, or the plan's name for a document never saved.
    QString displayName() const;
    /// The plan's name, or its automatic name (model, GPUs, layout) when it has none.
    QString planName() const;
    bool isModified() const { return !m_undoStack.isClean(); }

    /// Replaces the whole document (a new file): clears undo history, marks it clean.
    /// Returns false and fills `error` (one line per problem) when the bytes are not a valid plan.
    bool loadFromBytes(const QByteArray &json, const QString &filePath, QString *error);
    bool load(const QString &filePath, QString *error);
    /// Loads recovered bytes as unsaved changes to `filePath` (the document is modified afterwards).
    bool recover(const QByteArray &json, const QString &filePath, QString *error);
    /// Atomic save through QSaveFile; on success the document is clean and takes `filePath`.
    bool save(const QString &filePath, QString *error);

    /// The single mutation entry point; undo commands call it. A plan whose name is automatic (empty or
    /// the automatic name of the plan before the change) gets the automatic name of the new plan, unless
    /// the change sets the name itself. A plan equal to the document's changes nothing: no estimate, no
    /// signal.
    void setPlan(const Plan &plan);
    /// How many estimates the document has made (one per edit that changed the plan): for tests.
    int estimateCount() const { return m_estimateCount; }

    /// Compare plans: a baseline pinned beside the plan. Charts overlay it, the summary shows deltas.
    /// Not part of the plan (no undo, not saved).
    void pinBaseline();
    void setBaseline(const Plan &plan, const QString &label);
    void clearBaseline();
    bool hasBaseline() const override { return m_baseline.has_value(); }
    /// Only while hasBaseline().
    const Plan &baselinePlan() const { return m_baseline->plan; }
    const Estimate &baselineEstimate() const override { return m_baseline->estimate; }
    QString baselineName() const { return m_baseline ? m_baseline->label : QString(); }

    /// The best plan the last search found for a plan, with its estimate (the report compares it).
    struct SearchBest
    {
        Plan searched; ///< the plan that was searched
        Plan plan;
        Estimate estimate;
    };
    /// Records the search's best plan for `searched` (none: forget it).
    void setSearchBest(const Plan &searched, const std::optional<Plan> &best);
    /// The last search's best plan while the document's plan is the one searched; nullptr otherwise.
    const SearchBest *searchBest() const;

signals:
    // planChanged() and baselineChanged() are ChartSource's.
    /// A whole new plan was loaded (a file, an example, a recovered document): views drop what belonged to
    /// the previous one (a search's results, its constraints).
    void loaded();
    /// Node groups [first, last] of the plan before the edit are gone (numbered as before).
    void nodeGroupsRemoved(int first, int last);
    /// Node groups [first, last] of the plan after the edit are new (numbered as after).
    void nodeGroupsInserted(int first, int last);
    /// Node group `index` (the same group before and after) holds other values.
    void nodeGroupChanged(int index);
    /// One plan key's value changed ("parallel.tensor"; "cluster.node_groups" when any group did).
    void keyChanged(const QString &path);
    /// The estimate was made again (once per edit), after the signals above and before planChanged().
    void estimateChanged();
    void filePathChanged(const QString &filePath);
    void modifiedChanged(bool modified);

private:
    void setFilePath(const QString &filePath);

    const Catalog &m_catalog;
    Plan m_plan;
    Estimate m_estimate;
    Advice m_advice;
    int m_estimateCount = 0;
    Problems m_problems;
    std::optional<SearchBest> m_searchBest;
    struct Baseline
    {
        Plan plan;
        Estimate estimate;
        QString label;
    };
    std::optional<Baseline> m_baseline;
    QString m_filePath;
    QUndoStack m_undoStack;
};

} // namespace trainplan
