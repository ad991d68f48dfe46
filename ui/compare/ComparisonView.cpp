#include "ui/compare/ComparisonView.h"

#include <QApplication>
#include <QCoreApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QStackedWidget>
#include <QTableWidget>
#include <QVBoxLayout>

#include "core/estimate/Comparison.h"
#include "core/plan/PlanKeys.h"
#include "io/plan/KeyWords.h"
#include "io/output/ComparisonJson.h"
#include "charts/ChartStyle.h"
#include "ui/document/PlanDocument.h"

namespace trainplan {

namespace {

QTableWidget *table(const QStringList &headers)
{
    auto *t = new QTableWidget(0, int(headers.size()));
    t->setHorizontalHeaderLabels(headers);
    t->verticalHeader()->setVisible(false);
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    t->horizontalHeader()->setStretchLastSection(true);
    t->setWordWrap(false);
    return t;
}

QTableWidgetItem *item(const QString &text)
{
    auto *i = new QTableWidgetItem(text);
    i->setToolTip(text);
    return i;
}

/// The editor's label of a key ("Tensor parallel"), with the key itself.
QString keyWords(const std::string &path)
{
    const PlanKey *key = findPlanKey(path);
    const QString label = key ? io::keyLabel(*key) : QString();
    return label.isEmpty() ? QString::fromStdString(path)
                           : QStringLiteral("%1 (%2)").arg(label, QString::fromStdString(path));
}

} // namespace

ComparisonView::ComparisonView(PlanDocument *document, QWidget *parent)
    : QWidget(parent), m_document(document), m_pages(new QStackedWidget(this)), m_heading(new QLabel),
      m_metrics(table({tr("Metric"), tr("Baseline"), tr("This plan"), tr("Change")})),
      m_differences(table({tr("Key"), tr("Baseline"), tr("This plan")}))
{
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(m_pages);

    auto *empty = new QWidget;
    auto *emptyColumn = new QVBoxLayout(empty);
    auto *explain =
        new QLabel(tr("No baseline pinned. Pin the current plan as a baseline, then edit: every chart overlays "
                      "the baseline (dashed outlines, ghost curves, a second timeline), the summary shows the "
                      "changes, and this page lists the keys that differ."));
    explain->setWordWrap(true);
    auto *pin = new QPushButton(tr("Pin Current Plan as Baseline"));
    pin->setObjectName(QStringLiteral("pinBaseline"));
    auto *open = new QPushButton(tr("Open a Plan File as Baseline…"));
    connect(pin, &QPushButton::clicked, this, &ComparisonView::pinRequested);
    connect(open, &QPushButton::clicked, this, &ComparisonView::openBaselineRequested);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(pin);
    buttons->addWidget(open);
    buttons->addStretch(1);
    emptyColumn->addWidget(explain);
    emptyColumn->addLayout(buttons);
    emptyColumn->addStretch(1);
    m_pages->addWidget(empty);

    auto *full = new QWidget;
    auto *column = new QVBoxLayout(full);
    auto *headingRow = new QHBoxLayout;
    m_heading->setWordWrap(true);
    m_heading->setTextFormat(Qt::PlainText);
    auto *clear = new QPushButton(tr("Clear Baseline"));
    connect(clear, &QPushButton::clicked, m_document, &PlanDocument::clearBaseline);
    headingRow->addWidget(m_heading, 1);
    headingRow->addWidget(clear);
    column->addLayout(headingRow);
    // Every metric row shown at once; the keys that differ take the rest of the page.
    m_metrics->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
    m_metrics->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Maximum);
    column->addWidget(m_metrics);
    column->addWidget(new QLabel(tr("Keys that differ")));
    column->addWidget(m_differences, 1);
    m_pages->addWidget(full);

    connect(m_document, &PlanDocument::planChanged, this, &ComparisonView::refresh);
    connect(m_document, &PlanDocument::baselineChanged, this, &ComparisonView::refresh);
    refresh();
}

void ComparisonView::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    if (m_stale)
        refresh();
}

void ComparisonView::refresh()
{
    m_stale = window()->isVisible() && !isVisible();
    if (m_stale)
        return;
    if (!m_document->hasBaseline()) {
        m_pages->setCurrentIndex(0);
        return;
    }
    m_pages->setCurrentIndex(1);
    const PlanComparison c = comparePlans(m_document->baselinePlan(), m_document->baselineEstimate(),
                                          m_document->plan(), m_document->estimate());
    m_heading->setText(tr("Baseline: %1\nThis plan: %2").arg(m_document->baselineName(), m_document->planName()));
    const QColor good = chartstyle::isDark(palette()) ? QColor(120, 200, 140) : QColor(30, 130, 60);
    m_metrics->setRowCount(int(c.metrics.size()));
    for (int row = 0; row < int(c.metrics.size()); ++row) {
        const MetricComparison &m = c.metrics[std::size_t(row)];
        m_metrics->setItem(row, 0, item(QLatin1String(labelOf(m.metric))));
        m_metrics->setItem(row, 1, item(io::metricText(m.metric, m.before, m_document->baselinePlan().run.currency)));
        m_metrics->setItem(row, 2, item(io::metricText(m.metric, m.after, m_document->plan().run.currency)));
        auto *change = item(io::changeText(m));
        if (m.better)
            change->setForeground(*m.better ? good : chartstyle::warning(palette()));
        m_metrics->setItem(row, 3, change);
    }
    // Whether each fits, as the CLI's table says it ("yes, uncertain": not at the memory band's upper edge).
    const int fits = m_metrics->rowCount();
    m_metrics->setRowCount(fits + 1);
    m_metrics->setItem(fits, 0, item(tr("Fits")));
    m_metrics->setItem(fits, 1, item(io::fitText(c.beforeFits, c.beforeMayNotFit)));
    m_metrics->setItem(fits, 2, item(io::fitText(c.afterFits, c.afterMayNotFit)));
    m_metrics->setItem(fits, 3, item(QString()));
    m_differences->setRowCount(int(c.differences.size()));
    for (int row = 0; row < int(c.differences.size()); ++row) {
        const KeyDifference &d = c.differences[std::size_t(row)];
        m_differences->setItem(row, 0, item(keyWords(d.path)));
        m_differences->setItem(row, 1, item(QString::fromStdString(d.before)));
        m_differences->setItem(row, 2, item(QString::fromStdString(d.after)));
    }
}

} // namespace trainplan
