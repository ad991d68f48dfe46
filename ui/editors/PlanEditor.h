#pragma once
// The plan editor: every field of the plan, grouped (model, training, parallelism, cluster). Two slot
// groups as in LabPlot's docks: widget -> document pushes one undo command per edit (consecutive edits
// of a field merge), document -> widget refreshes every field under a re-entrancy guard. A problem the
// estimator reports for a field is shown in words right under it.

#include <QWidget>

#include <functional>
#include <vector>

class QFormLayout;
class QLabel;
class QComboBox;
class QSlider;

namespace trainplan {

class PlanDocument;
enum class PlanField;
struct Plan;

class PlanEditor : public QWidget
{
    Q_OBJECT

public:
    explicit PlanEditor(PlanDocument *document, QWidget *parent = nullptr);

signals:
    void clusterBuilderRequested();

private:
    struct Binding
    {
        QStringList problemKeys; ///< plan keys whose problems show under this field
        QLabel *problem = nullptr;
        std::function<void()> refresh; ///< document -> widget
    };

    // Widget factories: each binds one plan field both ways and returns the editing widget.
    void addInteger(QFormLayout *form, PlanField field, const QString &label, const QString &tip, QStringList keys,
                    std::function<std::int64_t(const Plan &)> get, std::function<void(Plan &, std::int64_t)> set,
                    int minimum, int maximum);
    void addFlag(QFormLayout *form, PlanField field, const QString &label, const QString &tip, QStringList keys,
                 std::function<bool(const Plan &)> get, std::function<void(Plan &, bool)> set);
    template<typename Enum>
    void addChoice(QFormLayout *form, PlanField field, const QString &label, const QString &tip, QStringList keys,
                   const std::vector<std::pair<QString, Enum>> &choices, std::function<Enum(const Plan &)> get,
                   std::function<void(Plan &, Enum)> set);
    void addPresetChoice(QFormLayout *form);
    void addDeviceChoice(QFormLayout *form);
    void addMicroBatchSlider(QFormLayout *form);
    QLabel *addProblemLabel(QFormLayout *form);

    void refresh();

    PlanDocument *m_document;
    std::vector<Binding> m_bindings;
    QLabel *m_dataLabel = nullptr;
    bool m_updating = false;
};

} // namespace trainplan
