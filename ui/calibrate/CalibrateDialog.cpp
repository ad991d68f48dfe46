#include "ui/calibrate/CalibrateDialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHeaderView>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPromise>
#include <QtConcurrent/QtConcurrentRun>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include "core/common/Units.h"
#include "io/measure/CalibrationReport.h"
#include "io/plan/CatalogJson.h"
#include "io/measure/MeasurementsCsv.h"
#include "io/plan/PlanJson.h"
#include "charts/ChartStyle.h"
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
    m_fitButton = new QPushButton(tr("Fit"));
    m_fitButton->setObjectName(QStringLiteral("calibrateFit"));
    m_progress = new QProgressBar;
    m_progress->setObjectName(QStringLiteral("calibrateProgress"));
    m_progress->setFormat(tr("fit %v of %m"));
    m_progress->setVisible(false);
    m_keep = new QPushButton(tr("Keep as My Device"));
    m_keep->setEnabled(false);
    for (QPushButton *b : {addPlans, loadCsv, m_fitButton, m_keep})
        buttons->addWidget(b);
    buttons->addWidget(m_progress, 1);
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
    connect(m_fitButton, &QPushButton::clicked, this, [this] {
        if (isFitting())
            cancelFit();
        else
            fit();
    });
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
        m_table->horizontalHeaderItem(c)->setToolTip(
            tr("From a profiler trace (trainplan profile --measurements): the traced rank's "
               "pipeline stage and its kernel time per step by class"));
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    for (int c = 1; c < kColumns; ++c)
        m_table->horizontalHeader()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    m_table->setToolTip(
        tr("One measured run per row: its plan file and any of the step time, the throughput, the device memory peak, "
           "and a profiler trace's kernel time per step by class on its pipeline stage (trainplan profile "
           "--measurements)"));
}

void CalibrateDialog::addMeasurement(const QString &planPath, double stepSeconds, double tokensPerSecond,
                                     double peakGib)
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
    const std::optional<double> peakGib =
        run.peakBytes ? std::optional<double>(*run.peakBytes / units::GiB) : std::nullopt;
    const std::optional<double> values[] = {run.stepSeconds, run.tokensPerSecond, peakGib, double(run.stage),
                                            run.kernelSeconds[0], run.kernelSeconds[1], run.kernelSeconds[2]};
    for (int c = 0; c < kColumns - 1; ++c)
        m_table->setItem(row, c + 1,
                         new QTableWidgetItem(values[c] && (*values[c] > 0 || c == 3)
                                                  ? QString::number(*values[c], 'g', 8)
                                                  : QString()));
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

CalibrateDialog::~CalibrateDialog()
{
    cancelFit(); // the worker holds copies only; it stops at its next evaluation
}

std::vector<Measurement> CalibrateDialog::measurements(QStringList &problems) const
{
    std::vector<Measurement> rows;
    const QStringList columns = io::measuredColumns(); // step, tokens/s, peak, then the kernel classes
    for (int r = 0; r < m_table->rowCount(); ++r) {
        const QString path = m_table->item(r, 0) ? m_table->item(r, 0)->text() : QString();
        const io::PlanReadResult read = io::readPlanFile(path, m_document->catalog());
        if (!read.plan) {
            problems << tr("row %1: %2 is not a valid plan").arg(r + 1).arg(path);
            continue;
        }
        const auto number = [&](int c, const QString &column) -> std::optional<double> {
            const QString text = m_table->item(r, c) ? m_table->item(r, c)->text().trimmed() : QString();
            if (text.isEmpty())
                return std::nullopt;
            bool gib = c == 3, ok = false; // the table shows the peak in GiB; the rule is the CSV's, in bytes
            const double shown = text.toDouble(&ok);
            double value = 0;
            if (const auto problem = io::checkMeasuredValue(
                    column, gib && ok ? QString::number(shown * units::GiB, 'g', 17) : text, &value)) {
                problems << tr("row %1, %2: %3").arg(r + 1).arg(m_table->horizontalHeaderItem(c)->text(), *problem);
                return std::nullopt;
            }
            return value;
        };
        Measurement m{QFileInfo(path).fileName().toStdString(), *read.plan, number(1, columns[0]),
                      number(2, columns[1]), number(3, columns[2])};
        for (std::size_t k = 0; k < m.kernelSeconds.size(); ++k)
            m.kernelSeconds[k] = number(5 + int(k), columns[3 + int(k)]);
        bool whole = true;
        const QString stage = m_table->item(r, 4) ? m_table->item(r, 4)->text().trimmed() : QString();
        m.stage = stage.isEmpty() ? 0 : stage.toLongLong(&whole);
        if (const auto problem = whole ? io::checkStage(m.stage, read.plan->parallel.pipeline)
                                       : std::optional<QString>(tr("stage must be a whole number")))
            problems << tr("row %1, Stage: %2").arg(r + 1).arg(*problem);
        else if (!m.stepSeconds && !m.tokensPerSecond && !m.peakBytes && !m.kernelSeconds[0] && !m.kernelSeconds[1] &&
                 !m.kernelSeconds[2])
            problems << tr("row %1: nothing measured; give a step time, throughput, peak or kernel time").arg(r + 1);
        else
            rows.push_back(std::move(m));
    }
    return rows;
}

bool CalibrateDialog::fit()
{
    if (isFitting())
        return false;
    QStringList problems;
    std::vector<Measurement> rows = measurements(problems);
    if (const std::optional<QString> problem = io::checkNewDeviceId(m_id->text().trimmed(), io::builtinCatalog()))
        problems.prepend(tr("Calibrated device id: %1").arg(*problem));
    if (rows.empty() || !problems.isEmpty()) {
        m_report->setPlainText((rows.empty() ? tr("No usable rows.\n") : tr("Correct these cells to fit:\n")) +
                               problems.join('\n'));
        return false;
    }
    m_fit.reset();
    m_keep->setEnabled(false);
    m_plot->clearPlottables(); // the last fit's residuals belong to other rows
    m_plot->legend->setVisible(false);
    m_plot->replot();
    m_report->setPlainText(tr("Fitting %n measured run(s)…", nullptr, int(rows.size())));
    m_fitButton->setText(tr("Cancel Fit"));
    m_progress->setRange(0, 0);
    m_progress->setVisible(true);
    m_watcher = new QFutureWatcher<DeviceFit>(this);
    connect(m_watcher, &QFutureWatcher<DeviceFit>::progressRangeChanged, m_progress, &QProgressBar::setRange);
    connect(m_watcher, &QFutureWatcher<DeviceFit>::progressValueChanged, m_progress, &QProgressBar::setValue);
    connect(m_watcher, &QFutureWatcher<DeviceFit>::finished, this, [this] {
        QFutureWatcher<DeviceFit> *watcher = std::exchange(m_watcher, nullptr);
        watcher->deleteLater();
        m_fitButton->setText(tr("Fit"));
        m_progress->setVisible(false);
        if (watcher->isCanceled() || watcher->future().resultCount() == 0) {
            m_report->setPlainText(tr("Fit cancelled; nothing kept."));
            return;
        }
        showFit(watcher->result());
    });
    // Everything the worker reads is its own copy: the dialog may close or the plan change meanwhile.
    const Catalog catalog = m_document->catalog();
    const std::string base = m_base->currentData().toString().toStdString(), id = m_id->text().trimmed().toStdString();
    m_watcher->setFuture(QtConcurrent::run([rows = std::move(rows), catalog, base, id](QPromise<DeviceFit> &promise) {
        int told = -1; // told before every evaluation of the rows: the watcher hears of each completed fit once
        DeviceFit fit = calibrateDevice(rows, catalog, base, id, true, [&promise, &told](int done, int total) {
            if (done != told) {
                told = done;
                promise.setProgressRange(0, total);
                promise.setProgressValue(done);
            }
            return !promise.isCanceled();
        });
        if (!fit.cancelled)
            promise.addResult(std::move(fit));
    }));
    return true;
}

bool CalibrateDialog::isFitting() const
{
    return m_watcher != nullptr;
}

void CalibrateDialog::cancelFit()
{
    if (!m_watcher)
        return;
    m_watcher->cancel();
    m_watcher->waitForFinished(); // at most one evaluation of the rows
}

void CalibrateDialog::showFit(const DeviceFit &fit)
{
    m_fit = fit;
    m_report->setPlainText(io::calibrationReport(*m_fit));
    m_keep->setEnabled(!m_fit->device.id.empty());
    drawResiduals();
    emit fitted();
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
    m_report->appendPlainText(
        tr("\nKept as %1 among your devices (Cluster Builder palette; plans may use it as cluster.device).")
            .arg(QString::fromStdString(m_fit->device.id)));
}

} // namespace trainplan
