#pragma once
// Tools > Calibrate…: a table of measured runs (plan files with their step time, throughput or memory
// peak), the fit of a catalog device to them (core/calibrate/DeviceFit), a before/after residual chart,
// and the calibrated device kept among the user's devices (CustomCatalog, in the settings).

#include <QDialog>

#include <memory>
#include <optional>

#include "core/calibrate/DeviceFit.h"
#include "io/MeasurementsCsv.h"

class QComboBox;
class QCustomPlot;
class QLineEdit;
class QPlainTextEdit;
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
    /// Fits the chosen device; false (with the reason shown) when no row is usable.
    bool fit();
    /// Keeps the calibrated device among the user's devices.
    void keepDevice();
    const std::optional<DeviceFit> &result() const { return m_fit; }

private:
    static constexpr int kColumns = 8; ///< plan, step, tokens/s, peak, stage, and the three kernel classes
    void buildTable();
    void drawResiduals();

    PlanDocument *m_document;
    CustomCatalog *m_custom;
    QComboBox *m_base;
    QLineEdit *m_id;
    QTableWidget *m_table;
    QPlainTextEdit *m_report;
    QCustomPlot *m_plot;
    QPushButton *m_keep;
    std::optional<DeviceFit> m_fit;
};

} // namespace trainplan
