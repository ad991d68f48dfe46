#include "ui/calibrate/CalibrateDialog.h"

#include <QApplication>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHeaderView>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include "core/common/Units.h"
#include "io/CalibrationReport.h"
#include "io/MeasurementsCsv.h"
#include "io/PlanJson.h"
#include "ui/charts/ChartStyle.h"
#include "ui/cluster/CustomCatalog.h"
#include "ui/document/PlanDocument.h"

namespace trainplan {

CalibrateDialog::CalibrateDialog(PlanDocument *document, CustomCatalog *custom, QWidget *parent)
    : QDialog(parent), m_document(document), m_custom(custom)
{
    setWindowTitle(tr("Calibrate a Device"));
    setObjectName(QStringLiteral("calibrateDialog"));
    auto *column = new QVBoxLayout(this);
    auto *form = new QFormLayout;
    m_base = new QComboBox;
    for (const DeviceSpec &d : document->catalog().devices())
        m_base->addItem(QString::fromStdString(d.name), QString::fromStdString(d.id));
    m_base->setCurrentIndex(m_base->findData(QString::fromStdString(document->plan().cluster.device)));
    m_id = new QLineEdit(QString::fromStdString(document->plan().cluster.device) + QStringLiteral("-calibrated"));
    form->addRow(tr("Device the runs used"), m_base);
    form->addRow(tr("Calibrated device id"), m_id);
    column->addLayout(form);
    buildTable();
    column->addWidget(m_table, 1);
    auto *buttons = new QHBoxLayout;
    auto *addPlans = new QPushButton(tr("Add Plans…"));
    auto *loadCsv = new QPushButton(tr("Load Measurements CSV…"));
    auto *fitButton = new QPushButton(tr("Fit"));
    fitButton->setObjectName(QStringLiteral("calibrateFit"));
    m_keep = new QPushButton(tr("Keep as My Device"));
    m_keep->setEnabled(false);
    for (QPushButton *b : {addPlans, loadCsv, fitButton, m_keep})
        buttons->addWidget(b);
    buttons->addStretch(1);
    column->addLayout(buttons);
    auto *split = new QSplitter(Qt::Horizontal);
    m_report = new QPlainTextEdit;
    m_report->setReadOnly(true);
    m_report->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_report->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_plot = new QCustomPlot;
    m_plot->setMinimumSize(320, 200);
    split->addWidget(m_report);
    split->addWidget(m_plot);
    column->addWidget(split, 2);
    auto *close = new QDialogButtonBox(QDialogButtonBox::Close);
    column->addWidget(close);
    connect(close, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(addPlans, &QPushButton::clicked, this, [this] {
        for (const QString &p : QFileDialog::getOpenFileNames(this, tr("Add Plans"), QString(), tr("Plans (*.json)")))
            addMeasurement(p, 0, 0, 0);
    });
    connect(loadCsv, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Load Measurements"), QString(), tr("CSV (*.csv)"));
        QString error;
        if (!path.isEmpty() && !this->loadCsv(path, &error))
            QMessageBox::warning(this, windowTitle(), error);
    });
    connect(fitButton, &QPushButton::clicked, this, &CalibrateDialog::fit);
    connect(m_keep, &QPushButton::clicked, this, &CalibrateDialog::keepDevice);
    resize(900, 640);
}

void CalibrateDialog::buildTable()
{
    m_table = new QTableWidget(0, kColumns);
    m_table->setObjectName(QStringLiteral("calibrateRows"));
    m_table->setHorizontalHeaderLabels({tr("Plan file"), tr("Step (s)"), tr("Tokens/s"), tr("Peak (GiB)"), tr("Stage"),
                                        tr("GEMM (s)"), tr("Attention (s)"), tr("Element-wise (s)")});
    m_table->horizontalHeaderItem(3)->setToolTip(tr("Device memory in use, as nvidia-smi reports it"));
    for (int c = 4; c < kColumns; ++c)
        m_table->horizontalHeaderItem(c)->setToolTip(tr("From a profiler trace (trainplan profile --measurements): the traced rank's "
                                                        "pipeline stage and its kernel time per step by class"));
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    for (int c = 1; c < kColumns; ++c)
        m_table->horizontalHeader()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    m_table->setToolTip(tr("One measured run per row: its plan file and any of the step time, the throughput, the device memory peak, "
                           "and a profiler trace's kernel time per step by class on its pipeline stage (trainplan profile --measurements)"));
}

void CalibrateDialog::addMeasurement(const QString &planPath, double stepSeconds, double tokensPerSecond, double peakGib)
{
    io::MeasuredRun run;
    run.planPath = planPath;
    const auto positive = [](double v) { return v > 0 ? std::optional<double>(v) : std::nullopt; };
    run.stepSeconds = positive(stepSeconds);
    run.tokensPerSecond = positive(tokensPerSecond);
    run.peakBytes = positive(peakGib * units::GiB);
    addRun(run);
}

void CalibrateDialog::addRun(const io::MeasuredRun &run)
{
    const int row = m_table->rowCount();
    m_table->insertRow(row);
    m_table->setItem(row, 0, new QTableWidgetItem(run.planPath));
    const std::optional<double> peakGib = run.peakBytes ? std::optional<double>(*run.peakBytes / units::GiB) : std::nullopt;
    const std::optional<double> values[] = {run.stepSeconds, run.tokensPerSecond, peakGib, double(run.stage),
                                            run.kernelSeconds[0], run.kernelSeconds[1], run.kernelSeconds[2]};
    for (int c = 0; c < kColumns - 1; ++c)
        m_table->setItem(row, c + 1, new QTableWidgetItem(values[c] && (*values[c] > 0 || c == 3) ? QString::number(*values[c], 'g', 8) : QString()));
}

bool CalibrateDialog::loadCsv(const QString &path, QString *error)
{
    const io::MeasuredRuns csv = io::readMeasuredRuns(path);
    if (!csv.errors.isEmpty()) {
        *error = csv.errors.join('\n');
        return false;
    }
    for (const io::MeasuredRun &run : csv.runs)
        addRun(run);
    return true;
}

bool CalibrateDialog::fit()
{
    std::vector<Measurement> rows;
    QStringList problems;
    for (int r = 0; r < m_table->rowCount(); ++r) {
        const QString path = m_table->item(r, 0)->text();
        const io::PlanReadResult read = io::readPlanFile(path, m_document->catalog());
        const auto number = [&](int c) -> std::optional<double> {
            const double v = m_table->item(r, c) ? m_table->item(r, c)->text().toDouble() : 0.0;
            return v > 0 ? std::optional<double>(v) : std::nullopt;
        };
        if (!read.plan) {
            problems << tr("row %1: %2 is not a valid plan").arg(r + 1).arg(path);
            continue;
        }
        std::optional<double> peak = number(3);
        if (peak)
            *peak *= units::GiB;
        Measurement m{QFileInfo(path).fileName().toStdString(), *read.plan, number(1), number(2), peak};
        for (std::size_t k = 0; k < m.kernelSeconds.size(); ++k)
            m.kernelSeconds[k] = number(5 + int(k));
        m.stage = m_table->item(r, 4) ? m_table->item(r, 4)->text().toLongLong() : 0;
        if (!m.stepSeconds && !m.tokensPerSecond && !m.peakBytes && !m.kernelSeconds[0] && !m.kernelSeconds[1] && !m.kernelSeconds[2]) {
            problems << tr("row %1: nothing measured").arg(r + 1);
            continue;
        }
        rows.push_back(std::move(m));
    }
    if (rows.empty()) {
        m_report->setPlainText(tr("No usable rows.\n") + problems.join('\n'));
        return false;
    }
    QApplication::setOverrideCursor(Qt::WaitCursor);
    m_fit = calibrateDevice(rows, m_document->catalog(), m_base->currentData().toString().toStdString(), m_id->text().trimmed().toStdString());
    QApplication::restoreOverrideCursor();
    m_report->setPlainText(io::calibrationReport(*m_fit) + (problems.isEmpty() ? QString() : QStringLiteral("\nSkipped:\n") + problems.join('\n')));
    m_keep->setEnabled(!m_id->text().trimmed().isEmpty());
    drawResiduals();
    return true;
}

void CalibrateDialog::drawResiduals()
{
    m_plot->clearPlottables();
    chartstyle::apply(m_plot, palette());
    const std::vector<double> *series[] = {&m_fit->errorsBefore, &m_fit->errorsAfter};
    const QString names[] = {tr("before (catalog device)"), tr("after (calibrated)")};
    for (int s = 0; s < 2; ++s) {
        auto *bars = new QCPBars(m_plot->xAxis, m_plot->yAxis);
        bars->setName(names[s]);
        bars->setBrush(chartstyle::series(s == 0 ? 7 : 0, palette()));
        bars->setPen(Qt::NoPen);
        bars->setWidth(0.38);
        for (std::size_t k = 0; k < series[s]->size(); ++k)
            bars->addData(double(k) + (s == 0 ? -0.2 : 0.2), 100.0 * (*series[s])[k]);
    }
    QSharedPointer<QCPAxisTickerFixed> ticker(new QCPAxisTickerFixed);
    ticker->setTickStep(1.0);
    ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    m_plot->xAxis->setTicker(ticker);
    m_plot->xAxis->setLabel(tr("Measured row (0 = first)"));
    m_plot->yAxis->setLabel(tr("Predicted / measured - 1 (%)"));
    m_plot->xAxis->setRange(-0.8, double(m_fit->errorsBefore.size()) - 0.2);
    m_plot->rescaleAxes(true);
    m_plot->xAxis->setRange(-0.8, double(m_fit->errorsBefore.size()) - 0.2);
    m_plot->yAxis->scaleRange(1.2);
    m_plot->legend->setVisible(true);
    m_plot->replot();
}

void CalibrateDialog::keepDevice()
{
    if (!m_fit || m_fit->device.id.empty())
        return;
    m_custom->addDevice(m_fit->device);
    m_keep->setEnabled(false);
    m_report->appendPlainText(tr("\nKept as %1 among your devices (Cluster Builder palette; plans may use it as cluster.device).")
                                  .arg(QString::fromStdString(m_fit->device.id)));
}

} // namespace trainplan
