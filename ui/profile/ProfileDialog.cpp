#include "ui/profile/ProfileDialog.h"

#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include "io/measure/KinetoTrace.h"
#include "io/measure/ProfileReport.h"
#include "charts/ChartStyle.h"
#include "ui/document/PlanDocument.h"
#include "io/plan/ProblemWords.h"

namespace trainplan {

namespace {

/// The parts of the step each bar stacks, in order from the left.
struct Segment
{
    const char *label;
    int colour;
    double (*measured)(const MeasuredProfile &);
    double (*estimated)(const EstimatedProfile &);
};

const Segment kSegments[] = {
    {"GEMM", 0, [](const MeasuredProfile &m) { return m.busy(KernelClass::Gemm); },
     [](const EstimatedProfile &e) { return e.busy(KernelClass::Gemm); }},
    {"Attention", 1, [](const MeasuredProfile &m) { return m.busy(KernelClass::Attention); },
     [](const EstimatedProfile &e) { return e.busy(KernelClass::Attention); }},
    {"Element-wise, norms, loss", 2, [](const MeasuredProfile &m) { return m.busy(KernelClass::Elementwise); },
     [](const EstimatedProfile &e) { return e.busy(KernelClass::Elementwise); }},
    {"Optimizer", 3, [](const MeasuredProfile &m) { return m.busy(KernelClass::Optimizer); },
     [](const EstimatedProfile &e) { return e.busy(KernelClass::Optimizer); }},
    {"Copies, unclassified", 6,
     [](const MeasuredProfile &m) { return m.busy(KernelClass::Memcpy) + m.busy(KernelClass::Unknown); },
     [](const EstimatedProfile &) { return 0.0; }},
    {"Communication (exposed)", 4, [](const MeasuredProfile &m) { return m.exposedCommunicationSeconds; },
     [](const EstimatedProfile &e) { return e.exposedCommunicationSeconds; }},
    {"Idle (bubble, waits)", 7, [](const MeasuredProfile &m) { return m.idleSeconds; },
     [](const EstimatedProfile &e) { return e.idleSeconds; }},
};

/// How each row is measured and estimated (the table's tooltips).
QString rowExplanation(const std::string &key)
{
    if (key == "step")
        return ProfileDialog::tr("Measured: the mean ProfilerStep span (else the kernels' span over the steps). "
                                 "Estimated: the plan's step time.");
    if (key == "communication_exposed")
        return ProfileDialog::tr(
            "Measured: time when a collective runs and no other kernel does. Estimated: the stage's tensor, context, "
            "expert and pipeline exchanges not hidden, and the exposed data-parallel synchronisation.");
    if (key == "idle")
        return ProfileDialog::tr(
            "Measured: time with no kernel at all. Estimated: the step less the stage's kernels and exposed "
            "communication (pipeline bubble, waits for slower stages).");
    if (key == "gemm" || key == "attention" || key == "elementwise" || key == "optimizer")
        return ProfileDialog::tr(
            "Measured: the kernels of this class by name, summed per step. Estimated: the plan's ops of this class, "
            "each counted as often as this pipeline stage runs it.");
    return ProfileDialog::tr("Busy time per step, overlapped or not; the estimate has no separate term for it.");
}

} // namespace

ProfileDialog::ProfileDialog(PlanDocument *document, QWidget *parent) : QDialog(parent), m_document(document)
{
    setWindowTitle(tr("Compare with a Profiler Trace"));
    setObjectName(QStringLiteral("profileDialog"));
    auto *column = new QVBoxLayout(this);
    auto *top = new QHBoxLayout;
    auto *open = new QPushButton(tr("Open Trace…"));
    m_traceLabel =
        new QLabel(tr("No trace: open a PyTorch profiler trace (torch.profiler's Chrome trace, .json or .json.gz)."));
    m_traceLabel->setWordWrap(true);
    top->addWidget(open);
    top->addWidget(m_traceLabel, 1);
    column->addLayout(top);
    auto *form = new QFormLayout;
    m_stage = new QSpinBox;
    m_stage->setToolTip(
        tr("The traced rank's pipeline stage (Megatron-LM profiles rank 0, the first stage, by default)"));
    m_steps = new QSpinBox;
    m_steps->setRange(0, 100000);
    m_steps->setSpecialValueText(tr("from the ProfilerStep markers"));
    m_steps->setToolTip(tr("How many training steps the trace holds"));
    form->addRow(tr("Pipeline stage of the traced rank"), m_stage);
    form->addRow(tr("Steps in the trace"), m_steps);
    column->addLayout(form);
    m_plot = new QCustomPlot;
    m_plot->setObjectName(QStringLiteral("profileChart"));
    m_plot->setMinimumSize(480, 180);
    // The legend below the plot, in rows of four, so the bars keep the width.
    m_plot->plotLayout()->addElement(1, 0, m_plot->legend);
    m_plot->legend->setFillOrder(QCPLegend::foColumnsFirst);
    m_plot->legend->setWrap(4);
    m_plot->plotLayout()->setRowStretchFactor(1, 0.001);
    column->addWidget(m_plot, 2);
    m_table = new QTableWidget(0, 4);
    m_table->setObjectName(QStringLiteral("profileRows"));
    m_table->setHorizontalHeaderLabels({tr("Per step"), tr("Measured"), tr("Estimated"), tr("Difference")});
    m_table->horizontalHeaderItem(3)->setToolTip(tr("Estimated / measured - 1"));
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    for (int c = 1; c < 4; ++c)
        m_table->horizontalHeader()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    m_table->verticalHeader()->setVisible(false);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    column->addWidget(m_table, 2);
    m_warnings = new QLabel;
    m_warnings->setWordWrap(true);
    m_warnings->setTextInteractionFlags(Qt::TextSelectableByMouse);
    column->addWidget(m_warnings);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    m_addToCsv = buttons->addButton(tr("Add to Measurements CSV…"), QDialogButtonBox::ActionRole);
    m_addToCsv->setToolTip(tr("Append the measured step and kernel classes as a row that Tools > Calibrate and "
                              "trainplan calibrate fit a device to"));
    m_addToCsv->setEnabled(false);
    column->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_addToCsv, &QPushButton::clicked, this, &ProfileDialog::addToCsv);
    connect(open, &QPushButton::clicked, this, [this, open] { chooseTrace(open); });
    connect(m_stage, &QSpinBox::valueChanged, this, &ProfileDialog::compare);
    connect(m_steps, &QSpinBox::valueChanged, this, &ProfileDialog::compare);
    connect(m_document, &PlanDocument::planChanged, this, &ProfileDialog::compare);
    compare();
    resize(860, 680);
}

void ProfileDialog::chooseTrace(QPushButton *open)
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Open Profiler Trace"), QString(),
                                                      tr("Chrome traces (*.json *.json.gz);;All files (*)"));
    if (path.isEmpty())
        return;
    // A trace of many steps holds millions of kernels (about 2 s per million): read it off the GUI thread.
    open->setEnabled(false);
    m_traceLabel->setText(tr("Reading %1…").arg(QFileInfo(path).fileName()));
    auto *watcher = new QFutureWatcher<io::TraceReadResult>(this);
    connect(watcher, &QFutureWatcher<io::TraceReadResult>::finished, this, [this, watcher, open, path] {
        watcher->deleteLater();
        open->setEnabled(true);
        QString error;
        if (!takeTrace(watcher->result(), path, &error)) {
            m_traceLabel->setText(tr("No trace."));
            QMessageBox::warning(this, windowTitle(), error);
        }
    });
    watcher->setFuture(QtConcurrent::run([path] { return io::readKinetoTrace(path); }));
}

bool ProfileDialog::loadTrace(const QString &path, QString *error)
{
    return takeTrace(io::readKinetoTrace(path), path, error);
}

bool ProfileDialog::takeTrace(io::TraceReadResult read, const QString &path, QString *error)
{
    if (!read.trace) {
        *error = read.error;
        return false;
    }
    m_trace = std::move(read.trace);
    m_tracePath = path;
    compare();
    return true;
}

void ProfileDialog::compare()
{
    const Plan &plan = m_document->plan();
    m_stage->setRange(0, int(std::max<std::int64_t>(0, plan.parallel.pipeline - 1)));
    if (!m_trace || !m_document->estimate().valid) {
        m_measured.reset();
        m_comparison.reset();
        if (m_trace)
            m_warnings->setText(tr("The plan has errors: fix them to compare it with the trace."));
    } else {
        m_measured =
            measureProfile(*m_trace, m_steps->value() > 0 ? std::optional<int>(m_steps->value()) : std::nullopt);
        m_comparison = compareProfile(*m_measured, plan, m_document->estimate(), m_stage->value());
        m_traceLabel->setText(tr("%1: device %2, %3 step(s), %4 kernels")
                                  .arg(QFileInfo(m_tracePath).fileName())
                                  .arg(m_measured->device)
                                  .arg(m_measured->steps)
                                  .arg(m_measured->kernelCount));
        QStringList warnings;
        for (const Problem &w : m_measured->warnings)
            warnings << io::problemText(w);
        m_warnings->setText(warnings.isEmpty() ? QString()
                                               : tr("Warnings: %1").arg(warnings.join(QStringLiteral("; "))));
    }
    m_addToCsv->setEnabled(m_measured.has_value());
    fillTable();
    drawChart();
}

void ProfileDialog::fillTable()
{
    m_table->setRowCount(0);
    if (!m_comparison)
        return;
    for (const ProfileRow &row : m_comparison->rows) {
        const int r = m_table->rowCount();
        m_table->insertRow(r);
        const QString cells[] = {QString::fromStdString(row.label), io::stepTimeText(row.measuredSeconds),
                                 row.estimatedSeconds ? io::stepTimeText(*row.estimatedSeconds) : tr("not separate"),
                                 io::profileErrorText(row.error())};
        for (int c = 0; c < 4; ++c) {
            auto *item = new QTableWidgetItem(cells[c]);
            item->setTextAlignment(c == 0 ? Qt::AlignLeft | Qt::AlignVCenter : Qt::AlignRight | Qt::AlignVCenter);
            item->setToolTip(rowExplanation(row.key));
            m_table->setItem(r, c, item);
        }
    }
}

void ProfileDialog::drawChart()
{
    m_plot->clearPlottables();
    chartstyle::apply(m_plot, palette());
    m_plot->legend->setVisible(m_comparison.has_value());
    if (!m_comparison) {
        m_plot->replot();
        return;
    }
    const EstimatedProfile &estimated = m_comparison->estimated;
    const bool seconds = std::max(m_measured->stepSeconds, estimated.stepSeconds) >= 10.0;
    const double unit = seconds ? 1.0 : 1e3;
    QCPBars *below = nullptr;
    for (const Segment &s : kSegments) {
        auto *bars = new QCPBars(m_plot->yAxis, m_plot->xAxis); // horizontal: the key runs up the left axis
        bars->setName(tr(s.label));
        bars->setBrush(chartstyle::series(s.colour, palette()));
        bars->setPen(Qt::NoPen);
        bars->setWidth(0.6);
        bars->addData(1.0, unit * s.estimated(estimated));
        bars->addData(2.0, unit * s.measured(*m_measured));
        if (below)
            bars->moveAbove(below);
        below = bars;
    }
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    ticker->addTick(1.0, tr("Estimated"));
    ticker->addTick(2.0, tr("Measured"));
    m_plot->yAxis->setTicker(ticker);
    m_plot->yAxis->setRange(0.4, 2.6);
    m_plot->xAxis->setLabel((seconds ? tr("Seconds per step, pipeline stage %1's rank")
                                     : tr("Milliseconds per step, pipeline stage %1's rank"))
                                .arg(m_comparison->stage));
    m_plot->xAxis->setRange(0, 1.08 * unit * std::max(m_measured->stepSeconds, estimated.stepSeconds));
    m_plot->replot();
}

void ProfileDialog::addToCsv()
{
    if (!m_measured)
        return;
    if (m_document->filePath().isEmpty()) {
        QMessageBox::information(this, windowTitle(),
                                 tr("Save the plan first: the measurements row names its plan file."));
        return;
    }
    const QString csv = QFileDialog::getSaveFileName(this, tr("Add to Measurements CSV"), QString(), tr("CSV (*.csv)"),
                                                     nullptr, QFileDialog::DontConfirmOverwrite);
    QString error;
    if (!csv.isEmpty() &&
        !io::appendMeasurementRow(csv, m_document->filePath(), *m_measured, m_comparison->stage, &error))
        QMessageBox::warning(this, windowTitle(), tr("%1: %2").arg(csv, error));
}

} // namespace trainplan
