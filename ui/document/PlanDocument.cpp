#include "ui/document/PlanDocument.h"

#include <QFile>
#include <QFileInfo>
#include <QSaveFile>

#include "io/output/Evidence.h"
#include "io/plan/PlanJson.h"
#include "io/common/SafeFile.h"
#include "core/plan/PlanDiff.h"
#include "core/plan/PlanName.h"
#include "io/plan/ProblemWords.h"

namespace trainplan {

PlanDocument::PlanDocument(const Catalog &catalog, QObject *parent)
    : ChartSource(parent), m_catalog(catalog)
{
    m_estimate = trainplan::estimate(m_plan, m_catalog);
    m_advice = advise(m_plan, m_catalog, m_estimate);
    m_estimateCount = 1;
    m_problems = io::estimateProblems(m_estimate);
    connect(&m_undoStack, &QUndoStack::cleanChanged, this, [this](bool clean) { emit modifiedChanged(!clean); });
}

QString PlanDocument::displayName() const
{
    if (!m_filePath.isEmpty())
        return QFileInfo(m_filePath).fileName();
    return planName();
}

QString PlanDocument::planName() const
{
    return QString::fromStdString(planDisplayName(m_plan, m_catalog));
}

bool PlanDocument::loadFromBytes(const QByteArray &json, const QString &filePath, QString *error)
{
    const io::PlanReadResult result = io::readPlan(json, m_catalog);
    if (!result.plan) {
        if (error) {
            QStringList lines;
            for (const Problem &p : result.problems)
                if (p.isError())
                    lines << io::problemLine(p);
            *error = lines.join('\n');
        }
        return false;
    }
    m_undoStack.clear();
    setPlan(*result.plan);
    setFilePath(filePath);
    m_undoStack.setClean();
    emit loaded();
    return true;
}

bool PlanDocument::load(const QString &filePath, QString *error)
{
    Problems problems;
    const std::optional<QByteArray> bytes = io::readPlanBytes(filePath, problems);
    if (!bytes) {
        if (error)
            *error = io::problemLine(problems.front());
        return false;
    }
    return loadFromBytes(*bytes, filePath, error);
}

bool PlanDocument::recover(const QByteArray &json, const QString &filePath, QString *error)
{
    if (!loadFromBytes(json, filePath, error))
        return false;
    m_undoStack.resetClean(); // recovered work is not saved work
    emit modifiedChanged(true);
    return true;
}

bool PlanDocument::save(const QString &filePath, QString *error)
{
    QString why;
    if (!io::writeAtomically(filePath, io::writePlan(m_plan, m_catalog), &why)) {
        if (error)
            *error = tr("Cannot save: %1").arg(why);
        return false;
    }
    setFilePath(filePath);
    m_undoStack.setClean();
    return true;
}

void PlanDocument::setPlan(const Plan &plan)
{
    const bool follow = plan.name == m_plan.name && !plan.name.empty() && hasAutomaticName(m_plan, m_catalog);
    Plan next = plan;
    if (follow)
        next.name = automaticPlanName(next, m_catalog);
    if (next == m_plan)
        return;
    const PlanDiff diff = diffPlans(m_plan, next);
    m_plan = std::move(next);
    m_estimate = trainplan::estimate(m_plan, m_catalog);
    m_advice = advise(m_plan, m_catalog, m_estimate);
    ++m_estimateCount;
    m_problems = io::estimateProblems(m_estimate);
    // Structure first (views keep one item per group), then values, then what depends on the estimate.
    const NodeGroupDiff &groups = diff.groups;
    if (!groups.removed.empty())
        emit nodeGroupsRemoved(groups.removed.first, groups.removed.last);
    if (!groups.inserted.empty())
        emit nodeGroupsInserted(groups.inserted.first, groups.inserted.last);
    for (int index : groups.changed)
        emit nodeGroupChanged(index);
    for (const std::string &path : diff.keys)
        emit keyChanged(QString::fromStdString(path));
    emit estimateChanged();
    emit planChanged();
}

void PlanDocument::pinBaseline()
{
    setBaseline(m_plan, planName());
}

void PlanDocument::setBaseline(const Plan &plan, const QString &label)
{
    m_baseline = Baseline{plan, trainplan::estimate(plan, m_catalog), label};
    emit baselineChanged();
}

void PlanDocument::clearBaseline()
{
    if (!m_baseline)
        return;
    m_baseline.reset();
    emit baselineChanged();
}

void PlanDocument::setSearchBest(const Plan &searched, const std::optional<Plan> &best)
{
    m_searchBest.reset();
    if (best)
        m_searchBest = SearchBest{searched, *best, trainplan::estimate(*best, m_catalog)};
}

const PlanDocument::SearchBest *PlanDocument::searchBest() const
{
    return m_searchBest && m_searchBest->searched == m_plan && m_searchBest->estimate.valid ? &*m_searchBest : nullptr;
}

void PlanDocument::setFilePath(const QString &filePath)
{
    if (filePath == m_filePath)
        return;
    m_filePath = filePath;
    emit filePathChanged(m_filePath);
}

} // namespace trainplan
