#pragma once
// The plan editor: a field for every key of the plan table (core/plan/PlanKeys) that the window edits,
// grouped by section, with the table's label, tooltip and range. Two slot groups as in LabPlot's docks:
// widget -> document pushes one ChangePlanValue per edit (consecutive edits of a key merge), document ->
// widget refreshes, under a re-entrancy guard, the fields whose keys the edit changed (the document's
// keyChanged signals, gathered until its estimateChanged) and every field's problem. A problem the
// estimator reports for a key is shown in words right under its field.

#include <QSet>
#include <QStringList>
#include <QWidget>

#include <functional>
#include <vector>

#include "core/plan/PlanKeys.h"

class QFormLayout;
class QLabel;
class QVBoxLayout;

namespace trainplan {

class PlanDocument;
class WrappedLabel;

class PlanEditor : public QWidget
{
    Q_OBJECT

public:
    explicit PlanEditor(PlanDocument *document, QWidget *parent = nullptr);

signals:
    void clusterBuilderRequested();
    /// An edit brought another key along with it (core completeEdit): the words for the status bar.
    void noteEdit(const QString &note);

protected:
    void changeEvent(QEvent *event) override;

private:
    static void setWarningColour(QLabel *label);
    struct Binding
    {
        QStringList problemKeys; ///< plan keys whose problems show under this field
        WrappedLabel *problem = nullptr;
        std::function<void()> refresh; ///< document -> widget
        QFormLayout *form = nullptr;   ///< the field's form, to hide its row ...
        QWidget *field = nullptr;      ///< ... when its key does not apply to the plan
        const PlanKey *key = nullptr;
        /// The keys whose change refreshes the field: full paths, prefixes ending in "." ("model."), or
        /// "*" for any (the automatic name follows every key).
        QStringList watches = {};
        bool watchesAny(const QSet<QString> &changed) const;
    };

    void addSection(QVBoxLayout *column, const QString &title, std::string_view section);
    void addField(QFormLayout *form, const PlanKey &key);
    // Widget factories: each binds one key both ways.
    void addSpin(QFormLayout *form, const PlanKey &key);
    void addCheck(QFormLayout *form, const PlanKey &key);
    void addChoice(QFormLayout *form, const PlanKey &key);
    void addPowerOfTwoSlider(QFormLayout *form, const PlanKey &key);
    void addPresetChoice(QFormLayout *form, const PlanKey &key);
    void addDeviceChoice(QFormLayout *form, const PlanKey &key);
    void addText(QFormLayout *form, const PlanKey &key);
    void addNumber(QFormLayout *form, const PlanKey &key);
    void addDataLabel(QFormLayout *form);
    /// Binds the field just added; it refreshes when its own key or one of `alsoWatches` changes.
    void bind(QFormLayout *form, const PlanKey &key, std::function<void()> refresh, QStringList alsoWatches = {});
    WrappedLabel *addProblemLabel(QFormLayout *form);
    /// Pushes the edit of one key (nothing when the value is the plan's already or the editor is refreshing).
    void pushValue(const PlanKey &key, const KeyValue &value);

    /// Every field (at construction).
    void refresh();
    /// The fields the last edit's keys touched, and every problem and row visibility.
    void refreshChanged();
    void refreshFields(const QSet<QString> *changed);

    PlanDocument *m_document;
    std::vector<Binding> m_bindings;
    QLabel *m_dataLabel = nullptr;
    bool m_updating = false;
    QSet<QString> m_changedKeys; ///< keyChanged paths since the last estimateChanged
};

} // namespace trainplan
