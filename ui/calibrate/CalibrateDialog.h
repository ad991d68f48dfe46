#pragma once
// Tools > Calibrate…: a table of measured runs (plan files with their step time, throughput or memory
// peak), the fit of a catalog device to them (core/calibrate/DeviceFit), a before/after residual chart,
// and the calibrated device kept among the user's devices (CustomCatalog, in the settings).

#include <QDialog>
#include <QFutureWatcher>

#include <memory>
#include <optional>

#include "core/calibrate/DeviceFit.h"
#include "io/measure/MeasurementsCsv.h"

class QComboBox;
class QCustomPlot;
class QLineEdit;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QTableWidget;

namespace trainplan {

class CustomCatalog;
class PlanDocument;

class CalibrateDialog : public QDialog
{
    Q_OBJECT

public:
    CalibrateDialog(PlanDocument *document, CustomCatalog *custom, QWidget *parent = nullptr);

    /// One measured run; empty values (0) are not measured.
    void addMeasurement(const QString &planPath, double stepSeconds, double tokensPerSecond, double peakGib);
    /// A row as the CSV gives it, with a profiler trace's stage and kernel classes.
    void addRun(const io::MeasuredRun &run);
    /// Reads a measurements CSV (as `trainplan calibrate` does); false with a message when it cannot.
    bool loadCsv(const QString &path, QString *error);
    ~CalibrateDialog() override;

    /// Starts fitting the chosen device off the GUI thread (a thousand rows take minutes), with its progress
    /// shown and the Fit button turned into Cancel; false (with the reasons shown, naming row and column)
    /// when a row is unusable or a fit is already running. fitted() follows when it completes.
    bool fit();
    bool isFitting() const;
    /// Stops a running fit; nothing is kept from it.
    void cancelFit();
    /// Keeps the calibrated device among the user's devices.
    void keepDevice();
    const std::optional<DeviceFit> &result() const { return m_fit; }

signals:
    void fitted();

private:
    static constexpr int kColumns = 8; ///< plan, step, tokens/s, peak, stage, and the three kernel classes
    void buildTable();
    void drawResiduals();
    /// The table's rows as measurements, each value checked as the CSV reader checks it; `problems` names
    /// every cell that is not a value the row may hold.
    std::vector<Measurement> measurements(QStringList &problems) const;
    void showFit(const DeviceFit &fit);

    PlanDocument *m_document;
    CustomCatalog *m_custom;
    QComboBox *m_base;
    QLineEdit *m_id;
    QTableWidget *m_table;
    QPlainTextEdit *m_report;
    QCustomPlot *m_plot;
    QPushButton *m_keep;
    QPushButton *m_fitButton;
    QProgressBar *m_progress;
    QFutureWatcher<DeviceFit> *m_watcher = nullptr; ///< the running fit, if any
    std::optional<DeviceFit> m_fit;
};

} // namespace trainplan
