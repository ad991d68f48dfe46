#include "ui/search/SearchPanel.h"
#include "io/output/Format.h"

#include "io/output/Evidence.h"

#include <QAbstractTableModel>
#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QTreeWidget>
#include <QUndoStack>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <qcustomplot.h>

#include "charts/ChartStyle.h"
#include "ui/commands/ReplacePlan.h"
#include "core/common/Units.h"
#include "ui/document/PlanDocument.h"
#include "io/plan/ProblemWords.h"

namespace trainplan {

namespace {

enum Column {
    Rank,
    TokensPerSecond,
    LayoutColumn,
    StepSeconds,
    Mfu,
    PeakGiB,
    HeadroomGiB,
    Gpus,
    Data,
    Tensor,
    Pipeline,
    Context,
    Expert,
    ExpertTensor,
    Virtual,
    MicroBatch,
    ScheduleColumn,
    Zero,
    RecomputeColumn,
    SequenceParallel,
    Offload,
    Limit,
    ColumnCount
};

} // namespace

/// The ranked results; Qt::UserRole gives numbers for sorting.
class SearchResultsModel : public QAbstractTableModel
{
public:
    using QAbstractTableModel::QAbstractTableModel;

    void setResults(std::vector<RankedPlan> results)
    {
        beginResetModel();
        m_results = std::move(results);
        endResetModel();
    }
    const RankedPlan &result(int row) const { return m_results[std::size_t(row)]; }

    int rowCount(const QModelIndex &parent = {}) const override { return parent.isValid() ? 0 : int(m_results.size()); }
    int columnCount(const QModelIndex &parent = {}) const override { return parent.isValid() ? 0 : ColumnCount; }

    QVariant headerData(int section, Qt::Orientation orientation, int role) const override
    {
        if (orientation != Qt::Horizontal)
            return {};
        if (role == Qt::ToolTipRole && section == LayoutColumn)
            return QCoreApplication::translate("SearchPanel",
                                               "d data, t tensor, p pipeline, c context, e expert, et expert tensor "
                                               "parallel sizes; mb micro-batch; SP sequence parallel. Each has its "
                                               "own column further right.");
        if (role != Qt::DisplayRole)
            return {};
        static const char *names[] = {"#",          "Tokens/s",  "Layout",  "Step (s)",    "MFU",      "Peak (GiB)",
                                      "Free (GiB)", "GPUs",      "Data",    "Tensor",      "Pipeline", "Context",
                                      "Expert",     "Expert TP", "Virtual", "Micro-batch", "Schedule", "ZeRO",
                                      "Recompute",  "SP",        "Offload", "Limited by"};
        return QCoreApplication::translate("SearchPanel", names[section]);
    }

    QVariant data(const QModelIndex &index, int role) const override
    {
        if (!index.isValid())
            return {};
        const RankedPlan &r = m_results[std::size_t(index.row())];
        const SearchScore &s = r.score;
        const SearchConfig &c = s.config;
        if (role == Qt::TextAlignmentRole)
            return index.column() >= ScheduleColumn || index.column() == LayoutColumn
                       ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                       : QVariant(Qt::AlignRight | Qt::AlignVCenter);
        if (role == Qt::UserRole) { // sort key: the number where the display rounds it; else the display
            switch (index.column()) {
            case TokensPerSecond: return s.tokensPerSecond;
            case StepSeconds: return s.stepSeconds;
            case Mfu: return s.mfu;
            case PeakGiB: return s.peakBytes;
            case HeadroomGiB: return s.headroomBytes;
            default: break;
            }
        }
        if (role == Qt::ToolTipRole && index.column() == LayoutColumn)
            return io::describeConfig(c);
        if (role == Qt::ToolTipRole && index.column() == HeadroomGiB && s.mayNotFit)
            return QCoreApplication::translate(
                "SearchPanel", "Less free than this plan's memory estimate's error band may take: it may not fit");
        if (role == Qt::ToolTipRole && index.column() == Rank && r.tiesBest)
            return QCoreApplication::translate(
                "SearchPanel", "A tie with #1: slower by less than the fastest plan's error band, so the "
                               "model cannot tell which of them is faster");
        if (role != Qt::DisplayRole && role != Qt::UserRole)
            return {};
        switch (index.column()) {
        case Rank:
            return role == Qt::DisplayRole && r.tiesBest ? QVariant(QStringLiteral("%1 \u2248").arg(r.rank))
                                                         : QVariant(r.rank);
        case TokensPerSecond: return fmt::number(s.tokensPerSecond, 0);
        case LayoutColumn: return io::describeConfigBriefly(c);
        case StepSeconds: return fmt::number(s.stepSeconds, 3);
        case Mfu: return fmt::number(100 * s.mfu, 1) + QStringLiteral("%");
        case PeakGiB: return fmt::number(s.peakBytes / units::GiB, 1);
        case HeadroomGiB: // a mark where the band may take more than is free (issue 36)
            return fmt::number(s.headroomBytes / units::GiB, 1) + (s.mayNotFit ? QStringLiteral(" \u26a0") : QString());
        case Gpus: return qlonglong(s.gpus);
        case Data: return qlonglong(c.data);
        case Tensor: return qlonglong(c.tensor);
        case Pipeline: return qlonglong(c.pipeline);
        case Context: return qlonglong(c.context);
        case Expert: return qlonglong(c.expert);
        case ExpertTensor: return qlonglong(c.expertTensor > 0 ? c.expertTensor : c.tensor);
        case Virtual: return qlonglong(c.virtualStages);
        case MicroBatch: return qlonglong(c.microBatch);
        case ScheduleColumn: return QString::fromLatin1(toString(c.schedule));
        case Zero: return qlonglong(c.zeroStage);
        case RecomputeColumn: return QString::fromLatin1(toString(c.recompute));
        case SequenceParallel: return c.sequenceParallel ? QStringLiteral("yes") : QStringLiteral("no");
        case Offload: return c.offload ? QStringLiteral("yes") : QStringLiteral("no");
        case Limit: return QString::fromLatin1(toString(s.bottleneck)).replace(QLatin1Char('_'), QLatin1Char(' '));
        }
        return {};
    }

private:
    std::vector<RankedPlan> m_results;
};

SearchPanel::SearchPanel(PlanDocument *document, QWidget *parent)
    : QWidget(parent)
    , m_document(document)
    , m_watcher(new QFutureWatcher<SearchOutcome>(this))
    , m_poll(new QTimer(this))
{
    auto *left = new QWidget;
    auto *leftColumn = new QVBoxLayout(left);
    leftColumn->setContentsMargins(0, 0, 0, 0);
    leftColumn->addLayout(createConstraints());
    leftColumn->addLayout(createControls());
    leftColumn->addWidget(m_summary);
    leftColumn->addStretch(1);
    createResults();
    auto *splitter = new QSplitter(Qt::Horizontal);
    splitter->addWidget(left);
    splitter->addWidget(m_tabs);
    splitter->setStretchFactor(1, 1);
    splitter->setSizes({300, 900});
    splitter->setChildrenCollapsible(false);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(splitter);

    connect(m_searchButton, &QPushButton::clicked, this, &SearchPanel::startSearch);
    connect(m_cancelButton, &QPushButton::clicked, this, &SearchPanel::cancelSearch);
    connect(m_table, &QTableView::doubleClicked, this, [this](const QModelIndex &index) { loadResult(index.row()); });
    connect(m_poll, &QTimer::timeout, this, [this] {
        const std::int64_t total = m_total.load();
        m_progress->setValue(total > 0 ? int(1000 * m_done.load() / total) : 0);
    });
    connect(m_watcher, &QFutureWatcher<SearchOutcome>::finished, this, [this] {
        m_poll->stop();
        m_searchButton->setEnabled(true);
        m_cancelButton->setEnabled(false);
        if (m_searchGeneration != m_generation) { // another document was loaded meanwhile
            m_progress->setValue(0);
            return;
        }
        m_outcome = m_watcher->result();
        m_progress->setValue(m_outcome.cancelled ? 0 : 1000);
        m_stale = !(m_document->plan() == m_searchedPlan);
        m_document->setSearchBest(
            m_searchedPlan, m_outcome.top.empty() ? std::nullopt : std::optional<Plan>(m_outcome.top.front().plan));
        showOutcome();
        emit finished();
    });
    connect(m_document, &PlanDocument::planChanged, this, [this] {
        syncConstraintDefaults();
        markStale();
    });
    connect(m_document, &PlanDocument::loaded, this, &SearchPanel::resetForNewDocument);
    for (QSpinBox *box : {m_minNodes, m_maxNodes})
        connect(box, &QSpinBox::valueChanged, this, [this] {
            if (!m_syncing)
                m_rangeEdited = true;
        });
    connectPareto();
    syncConstraintDefaults();
    chartstyle::apply(m_pareto, palette());
}

QFormLayout *SearchPanel::createConstraints()
{
    auto *form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    m_minNodes = new QSpinBox;
    m_minNodes->setRange(1, 1 << 20);
    m_maxNodes = new QSpinBox;
    m_maxNodes->setRange(1, 1 << 20);
    auto *nodes = new QHBoxLayout;
    nodes->addWidget(m_minNodes);
    nodes->addWidget(new QLabel(tr("to")));
    nodes->addWidget(m_maxNodes);
    form->addRow(tr("Nodes"), nodes);
    m_headroom = new QDoubleSpinBox;
    m_headroom->setRange(0, 10000);
    m_headroom->setDecimals(1);
    m_headroom->setSuffix(tr(" GiB"));
    m_headroom->setObjectName(QStringLiteral("search.min_headroom"));
    m_headroom->setToolTip(tr("Every stage must leave at least this much device memory free"));
    m_keepMargin = new QCheckBox(tr("Reject tight plans"));
    m_keepMargin->setObjectName(QStringLiteral("search.keep_margin"));
    m_keepMargin->setChecked(true);
    m_keepMargin->setToolTip(tr("Every plan must also keep its memory margin (Training > Memory margin, a share of "
                                "capacity) free: plans that fit only within it are rejected as tight"));
    auto *free = new QHBoxLayout;
    free->addWidget(m_headroom);
    free->addWidget(m_keepMargin);
    free->addStretch(1);
    form->addRow(tr("Min. free memory"), free);
    m_rejectUncertain = new QCheckBox(tr("Reject plans that may not fit (memory band)"));
    m_rejectUncertain->setObjectName(QStringLiteral("search.reject_uncertain"));
    m_rejectUncertain->setToolTip(
        tr("Every plan must also fit at its memory estimate's upper edge: its peak over (1 - the band within which 80% "
           "of the comparable published peaks were estimated). Off: a plan is kept if it fits as estimated"));
    form->addRow(m_rejectUncertain);
    m_fixTensor = new QCheckBox;
    m_fixPipeline = new QCheckBox;
    m_fixMicroBatch = new QCheckBox;
    auto *fixed = new QHBoxLayout;
    fixed->addWidget(m_fixTensor);
    fixed->addWidget(m_fixPipeline);
    fixed->addWidget(m_fixMicroBatch);
    fixed->addStretch(1);
    form->addRow(tr("Keep"), fixed);
    m_acrossNodes = new QCheckBox(tr("Allow tensor groups across nodes"));
    m_offload = new QCheckBox(tr("Allow optimizer offload"));
    m_offload->setChecked(true);
    form->addRow(m_acrossNodes);
    form->addRow(m_offload);

    return form;
}

QHBoxLayout *SearchPanel::createControls()
{
    m_searchButton = new QPushButton(tr("Search"));
    m_searchButton->setObjectName(QStringLiteral("search"));
    m_searchButton->setDefault(true);
    m_cancelButton = new QPushButton(tr("Cancel"));
    m_cancelButton->setEnabled(false);
    m_progress = new QProgressBar;
    m_progress->setRange(0, 1000);
    m_progress->setValue(0);
    m_progress->setTextVisible(false);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_searchButton);
    buttons->addWidget(m_cancelButton);
    buttons->addWidget(m_progress, 1);

    m_summary = new QLabel(tr("Search every plan for this model, global batch and cluster, fastest first."));
    m_summary->setObjectName(QStringLiteral("searchSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);


    return buttons;
}

void SearchPanel::createResults()
{
    m_model = new SearchResultsModel(this);
    m_proxy = new QSortFilterProxyModel(this);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(Qt::UserRole);
    m_table = new QTableView;
    m_table->setObjectName(QStringLiteral("searchResults"));
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(Rank, Qt::AscendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setAlternatingRowColors(true);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->setToolTip(tr("Double-click a plan to load it (Edit > Undo goes back)"));
    m_pareto = new QCustomPlot;
    m_pareto->setObjectName(QStringLiteral("pareto"));
    chartstyle::useMagnitudeLabels(m_pareto, true); // "750 K ... 1,250 K", never "1.25·10⁶" beside "750000"
    m_rejected = new QTreeWidget;
    m_rejected->setObjectName(QStringLiteral("rejected"));
    m_rejected->setColumnCount(3);
    m_rejected->setHeaderLabels({tr("Plans"), tr("Limited by"), tr("Why")});
    m_rejected->setRootIsDecorated(false);
    m_rejected->setWordWrap(true);
    m_rejected->header()->setSectionResizeMode(2, QHeaderView::Stretch);
    m_tabs = new QTabWidget;
    m_tabs->addTab(m_table, tr("Results"));
    m_tabs->addTab(m_pareto, tr("Pareto Front"));
    m_tabs->addTab(m_rejected, tr("Rejected"));

}

/// The Pareto chart: hover names a plan, double-click loads it (one undo step).
void SearchPanel::connectPareto()
{
    m_pareto->setMouseTracking(true);
    connect(m_pareto, &QCustomPlot::mouseMove, this, [this](QMouseEvent *event) {
        const SearchScore *s = scoreAt(event->position().toPoint());
        m_pareto->setToolTip(
            s ? tr("%1 tokens/s, %2 GiB free, %3 GPUs\n%4\nDouble-click to load")
                    .arg(fmt::number(s->tokensPerSecond, 0), fmt::number(s->headroomBytes / units::GiB, 1))
                    .arg(s->gpus)
                    .arg(io::describeConfig(s->config))
              : QString());
    });
    connect(m_pareto, &QCustomPlot::mouseDoubleClick, this, [this](QMouseEvent *event) {
        if (const SearchScore *s = scoreAt(event->position().toPoint()))
            loadPlan(applyConfig(m_searchedPlan, s->config), tr("Load plan from the Pareto chart"));
    });
}

SearchPanel::~SearchPanel()
{
    cancelSearch();
    m_watcher->waitForFinished();
}

void SearchPanel::syncConstraintDefaults()
{
    const Plan &plan = m_document->plan();
    if (!isRunning() && !m_rangeEdited) { // until the user sets a range, it is the plan's node count
        m_syncing = true;
        m_minNodes->setValue(int(std::min<std::int64_t>(plan.cluster.nodes, 1 << 20)));
        m_maxNodes->setValue(int(std::min<std::int64_t>(plan.cluster.nodes, 1 << 20)));
        m_syncing = false;
    }
    m_fixTensor->setText(tr("tensor %1").arg(plan.parallel.tensor));
    m_fixPipeline->setText(tr("pipeline %1").arg(plan.parallel.pipeline));
    m_fixMicroBatch->setText(tr("micro-batch %1").arg(plan.training.microBatch));
}

/// Another plan was loaded: the last search's results and node range belonged to the one before.
void SearchPanel::resetForNewDocument()
{
    if (isRunning())
        cancelSearch();
    ++m_generation;
    m_rangeEdited = false;
    m_outcome = SearchOutcome{};
    m_stale = false;
    syncConstraintDefaults();
    m_model->setResults({});
    m_rejected->clear();
    m_progress->setValue(0);
    m_summary->setText(tr("Search every plan for this model, global batch and cluster, fastest first."));
    drawPareto();
}

void SearchPanel::markStale()
{
    if (m_outcome.evaluated == 0 || isRunning())
        return;
    const bool stale = !(m_document->plan() == m_searchedPlan);
    if (stale != m_stale) {
        m_stale = stale;
        showOutcome();
    }
}

SearchConstraints SearchPanel::constraints() const
{
    const Plan &plan = m_document->plan();
    SearchConstraints c;
    c.minNodes = std::min(m_minNodes->value(), m_maxNodes->value());
    c.maxNodes = std::max(m_minNodes->value(), m_maxNodes->value());
    c.minHeadroomBytes = m_headroom->value() * units::GiB;
    for (const auto &[box, path] :
         {std::pair{m_fixTensor, "parallel.tensor"}, std::pair{m_fixPipeline, "parallel.pipeline"},
          std::pair{m_fixMicroBatch, "training.micro_batch"}})
        if (box->isChecked())
            c.fix(path, findPlanKey(path)->get(plan));
    c.keepMemoryMargin = m_keepMargin->isChecked();
    c.rejectUncertainMemory = m_rejectUncertain->isChecked();
    c.allowTensorAcrossNodes = m_acrossNodes->isChecked();
    c.allowOffload = m_offload->isChecked();
    c.top = 200;
    return c;
}

bool SearchPanel::isRunning() const { return m_watcher->isRunning(); }

void SearchPanel::startSearch()
{
    if (isRunning())
        return;
    m_searchedPlan = m_document->plan();
    m_searchGeneration = m_generation;
    const SearchConstraints c = constraints();
    m_cancel = false;
    m_done = 0;
    m_total = std::int64_t(enumerateConfigs(m_searchedPlan, c).size());
    m_progress->setValue(0);
    m_searchButton->setEnabled(false);
    m_cancelButton->setEnabled(true);
    m_summary->setText(tr("Searching %1 plans…").arg(m_total.load()));
    const Catalog *catalog = &m_document->catalog();
    const Plan base = m_searchedPlan;
    m_watcher->setFuture(QtConcurrent::run([this, catalog, base, c] {
        SearchProgress progress;
        progress.cancel = &m_cancel;
        progress.onProgress = [this](std::int64_t done, std::int64_t) { m_done = done; };
        return searchPlans(base, *catalog, c, progress);
    }));
    m_poll->start(50);
}

void SearchPanel::cancelSearch()
{
    m_cancel = true;
}

void SearchPanel::showOutcome()
{
    const SearchOutcome &o = m_outcome;
    QString text;
    if (!o.valid) {
        text = tr("The plan cannot be searched: %1").arg(io::problemLine(o.problem));
    } else {
        // The rate only when the search took long enough to time it (a few plans in microseconds read "0 plans/s").
        const QString rate =
            o.seconds >= 0.01 ? tr("%1 plans/s").arg(fmt::number(double(o.evaluated) / o.seconds, 0)) : QString();
        const QString threads = o.threads == 1 ? tr("1 thread") : tr("%1 threads").arg(o.threads);
        text = tr("%1 plans in %2 s (%3)%4: %5 feasible.")
                   .arg(o.evaluated)
                   .arg(fmt::number(o.seconds, 2),
                        rate.isEmpty() ? tr("on %1").arg(threads) : tr("%1 on %2").arg(rate, threads))
                   .arg(o.cancelled ? tr(", cancelled") : QString())
                   .arg(o.feasible);
        if (!o.top.empty()) {
            const double current = o.baseTokensPerSecond;
            text += tr(" Best: %1 tokens/s").arg(fmt::number(o.top.front().score.tokensPerSecond, 0));
            if (current > 0)
                text +=
                    tr(" (%1× the searched plan)").arg(fmt::number(o.top.front().score.tokensPerSecond / current, 2));
            text += QLatin1Char('.');
            const auto ties = std::count_if(o.top.begin(), o.top.end(), [](const RankedPlan &r) { return r.tiesBest; });
            if (ties > 0)
                text +=
                    (ties == 1
                         ? tr(" One plan marked \u2248 ties with it: slower by less than its error band (%1), so the "
                              "ranking cannot tell them apart.")
                         : tr(" %1 plans marked \u2248 tie with it: slower by less than its error band (%2), so the "
                              "ranking cannot tell them apart.")
                               .arg(ties))
                        .arg(io::accuracyBand(o.bestAccuracy)); // whether it is validated: the next sentence
            // A best plan unlike every published run (a ZeRO-3 mixture of experts) says so, as its estimate does.
            if (o.bestAccuracy.assessed && !o.bestAccuracy.validated)
                text += tr(" Its estimate is %1.").arg(io::accuracySummary(o.bestAccuracy));
            // A best plan whose peak the memory band takes past the device says so (issues 33 and 36).
            if (bestMayNotFit(o))
                text += tr(" It leaves %1 free of %2, less than its memory estimate's error may take (\u00b1%3%): it "
                           "may not fit; \"Reject plans that may not fit\" ranks the plans that keep enough.")
                            .arg(fmt::gib(o.top.front().score.headroomBytes, 1),
                                 fmt::gib(o.top.front().score.capacityBytes, 0),
                                 fmt::number(100 * o.bestAccuracy.memoryBand80, 0));
        } else if (const QString reason = io::noFeasibleReason(o); !reason.isEmpty()) {
            text += QLatin1Char(' ') + reason;
        }
        if (m_stale)
            text += tr("\nThe plan has changed since: these results are for the plan as it was.");
    }
    m_summary->setText(text);
    m_model->setResults(o.top);
    // The expert columns only for a mixture of experts.
    for (const int column : {Expert, ExpertTensor})
        m_table->setColumnHidden(column, !m_searchedPlan.model.isMoe());
    m_rejected->clear();
    const auto add = [this](std::int64_t count, const QString &resource, const QString &message) {
        auto *item = new QTreeWidgetItem(m_rejected, {QString::number(count), resource, message});
        item->setToolTip(2, message);
        item->setTextAlignment(0, Qt::AlignRight | Qt::AlignVCenter);
    };
    for (const RejectionGroup &g : o.rejected)
        add(g.count, io::rejectionResource(g.cause), io::rejectionMessage(g, o));
    // Mixture of experts: why the other expert sizes lost (the all-to-all, when it is the reason).
    for (std::size_t i = 1; i < o.expertLayouts.size(); ++i)
        add(o.expertLayouts[i].evaluated, tr("expert layout"), io::expertLayoutMessage(o.expertLayouts[i], o));
    // Why the other ZeRO stages lost (the parameter traffic's floor, when it is the reason).
    for (std::size_t i = 1; i < o.zeroStages.size(); ++i)
        add(o.zeroStages[i].evaluated, tr("ZeRO stage"), io::zeroStageMessage(o.zeroStages[i], o));
    drawPareto();
}

void SearchPanel::drawPareto()
{
    QCustomPlot *plot = m_pareto;
    plot->clearGraphs();
    plot->clearPlottables();
    chartstyle::apply(plot, palette());
    const SearchOutcome &o = m_outcome;
    plot->xAxis->setLabel(tr("Free memory on the fullest stage (GiB)"));
    plot->yAxis->setLabel(tr("Tokens/s"));
    // Every feasible plan in grey, the front coloured by GPU count.
    QCPGraph *all = plot->addGraph();
    all->setName(tr("feasible plans"));
    all->setLineStyle(QCPGraph::lsNone);
    all->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, palette().color(QPalette::Mid), 3));
    // Those that fit only as estimated, not at their memory band's upper edge, hollow in the warning colour.
    QCPGraph *uncertain = plot->addGraph();
    uncertain->setName(tr("may not fit (memory band)"));
    uncertain->setLineStyle(QCPGraph::lsNone);
    uncertain->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, chartstyle::warning(palette()), 5));
    QVector<double> x, y, ux, uy;
    for (const SearchScore &s : o.feasiblePoints) {
        (s.mayNotFit ? ux : x) << s.headroomBytes / units::GiB;
        (s.mayNotFit ? uy : y) << s.tokensPerSecond;
    }
    all->setData(x, y);
    uncertain->setData(ux, uy);
    if (ux.isEmpty())
        uncertain->removeFromLegend();
    std::map<std::int64_t, QCPGraph *> byGpus;
    for (const RankedPlan &r : o.pareto) {
        QCPGraph *&g = byGpus[r.score.gpus];
        if (!g) {
            g = plot->addGraph();
            g->setName(tr("front, %1 GPUs").arg(r.score.gpus));
            g->setLineStyle(QCPGraph::lsNone);
            g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDiamond,
                                               chartstyle::series(int(byGpus.size()) - 1, palette()),
                                               chartstyle::series(int(byGpus.size()) - 1, palette()), 9));
        }
        g->addData(r.score.headroomBytes / units::GiB, r.score.tokensPerSecond);
    }
    plot->legend->setVisible(!o.feasiblePoints.empty());
    plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignBottom | Qt::AlignLeft);
    plot->rescaleAxes();
    plot->xAxis->scaleRange(1.08, plot->xAxis->range().center());
    plot->yAxis->scaleRange(1.08, plot->yAxis->range().center());
    plot->replot(QCustomPlot::rpQueuedReplot);
}

const SearchScore *SearchPanel::scoreAt(const QPoint &position) const
{
    // The nearest plan within 8 pixels, front points first (they are what the chart is for).
    const SearchScore *front = nullptr, *any = nullptr;
    double frontDistance = 64.0, anyDistance = 64.0;
    const auto consider = [&](const SearchScore &s, const SearchScore *&best, double &bestDistance) {
        const double dx = m_pareto->xAxis->coordToPixel(s.headroomBytes / units::GiB) - position.x();
        const double dy = m_pareto->yAxis->coordToPixel(s.tokensPerSecond) - position.y();
        if (dx * dx + dy * dy <= bestDistance) {
            bestDistance = dx * dx + dy * dy;
            best = &s;
        }
    };
    for (const RankedPlan &r : m_outcome.pareto)
        consider(r.score, front, frontDistance);
    if (front)
        return front;
    for (const SearchScore &s : m_outcome.feasiblePoints)
        consider(s, any, anyDistance);
    return any;
}

QPoint SearchPanel::paretoPixel(int index) const
{
    const SearchScore &s = m_outcome.pareto[std::size_t(index)].score;
    return QPoint(int(std::lround(m_pareto->xAxis->coordToPixel(s.headroomBytes / units::GiB))),
                  int(std::lround(m_pareto->yAxis->coordToPixel(s.tokensPerSecond))));
}

void SearchPanel::loadPlan(const Plan &plan, const QString &text)
{
    if (plan == m_document->plan())
        return;
    m_document->undoStack()->push(new ReplacePlan(m_document, plan, text));
}

void SearchPanel::loadResult(int row)
{
    if (row < 0 || row >= m_proxy->rowCount())
        return;
    const RankedPlan &r = m_model->result(m_proxy->mapToSource(m_proxy->index(row, 0)).row());
    loadPlan(r.plan, tr("Load search result #%1").arg(r.rank));
}

} // namespace trainplan
