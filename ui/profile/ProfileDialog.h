#pragma once
// Tools > Compare with a Profiler Trace: a PyTorch profiler trace set beside the open plan's estimate, as
// two stacked bars of the step (measured and estimated: GEMM, attention, element-wise, optimizer, exposed
// communication, idle) and a table, the largest disagreement first. It follows the plan as it is edited;
// "Add to Measurements CSV" writes the row trainplan calibrate and Tools > Calibrate fit a device to.

#include <QDialog>

#include <optional>

#include "core/profile/ProfileComparison.h"
#include "core/profile/TraceProfile.h"
#include "io/measure/KinetoTrace.h"

class QCustomPlot;
class QLabel;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace trainplan {

class PlanDocument;

class ProfileDialog : public QDialog
{
    Q_OBJECT

public:
    explicit ProfileDialog(PlanDocument *document, QWidget *parent = nullptr);

    /// Reads a trace; false with `error` (the file and what is wrong) when it cannot.
    bool loadTrace(const QString &path, QString *error);
    const std::optional<ProfileComparison> &comparison() const { return m_comparison; }
    const std::optional<MeasuredProfile> &measured() const { return m_measured; }

private:
    /// The file dialog, then the trace read on a worker thread (`open` is disabled meanwhile).
    void chooseTrace(QPushButton *open);
    bool takeTrace(io::TraceReadResult read, const QString &path, QString *error);
    void compare();
    void drawChart();
    void fillTable();
    void addToCsv();

    PlanDocument *m_document;
    std::optional<TraceInput> m_trace;
    std::optional<MeasuredProfile> m_measured;
    std::optional<ProfileComparison> m_comparison;
    QString m_tracePath;
    QLabel *m_traceLabel = nullptr;
    QSpinBox *m_stage = nullptr;
    QSpinBox *m_steps = nullptr;
    QCustomPlot *m_plot = nullptr;
    QTableWidget *m_table = nullptr;
    QLabel *m_warnings = nullptr;
    QPushButton *m_addToCsv = nullptr;
};

} // namespace trainplan
