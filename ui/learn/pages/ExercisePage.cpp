#include "ui/learn/pages/Pages.h"
#include "io/output/Format.h"

#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

#include <cmath>

#include "core/common/Units.h"
#include "core/memory/MemoryTerms.h"
#include "core/search/Search.h"
#include "ui/document/PlanDocument.h"
#include "ui/learn/pages/PageWidgets.h"

namespace trainplan {

namespace {

using namespace learn;

// --- Exercises --------------------------------------------------------------------------------------

class ExercisePage : public LearnPage
{
public:
    ExercisePage(PlanDocument *d, const Exercise &ex) : LearnPage(d, tr("Exercise %1").arg(ex.number)), m_exercise(ex)
    {
        auto *column = new QVBoxLayout(this);
        addHeading(column, qs(ex.prompt));
        auto *form = new QFormLayout;
        for (const ExerciseInput &input : ex.inputs) {
            const double magnitude = std::abs(input.value);
            const int decimals = input.value == std::floor(input.value) ? 0 : magnitude < 0.01 ? 6 : 4;
            // The smallest value the box can show that the exercise accepts: a positive count stops at 1, not at
            // 0 (Page Down from 9 used to reach 0 and an error).
            const double step = std::pow(10.0, -decimals);
            const double lowest = input.min <= 0 ? input.min : std::ceil(input.min / step) * step;
            auto *s = spin(lowest, input.max, input.value, decimals,
                           input.unit.empty() ? QString() : QLatin1Char(' ') + qs(input.unit));
            m_inputs.push_back(s);
            form->addRow(qs(input.label), s);
            connect(s, &QDoubleSpinBox::valueChanged, this, [this] { solve(); });
        }
        column->addLayout(form);
        // Reveal: a lecturer asks the room first; the answer is hidden in presentation mode until revealed.
        m_reveal = new QPushButton;
        m_reveal->setObjectName(QStringLiteral("reveal"));
        m_reveal->setCheckable(true);
        m_reveal->setChecked(true);
        connect(m_reveal, &QPushButton::toggled, this, [this](bool shown) { showAnswer(shown); });
        column->addWidget(m_reveal, 0, Qt::AlignLeft);
        m_answer = new QLabel;
        m_answer->setObjectName(QStringLiteral("answer"));
        m_answer->setWordWrap(true);
        m_answer->setTextInteractionFlags(Qt::TextSelectableByMouse);
        m_answer->setTextFormat(Qt::RichText);
        column->addWidget(m_answer);
        m_demo = new QLabel;
        m_demo->setObjectName(QStringLiteral("demo"));
        m_demo->setWordWrap(true);
        m_demo->setTextFormat(Qt::RichText);
        column->addWidget(m_demo);
        if (pageIndexOf(ex.demo) >= 0) {
            auto *open = new QPushButton(tr("Show the Demonstration"));
            connect(open, &QPushButton::clicked, this, [this] { emit openDemo(m_exercise.demo); });
            column->addWidget(open, 0, Qt::AlignLeft);
        } else if (ex.demo == Demo::Search) {
            auto *run = new QPushButton(tr("Run the Search"));
            run->setObjectName(QStringLiteral("runDemo"));
            connect(run, &QPushButton::clicked, this, [this] { runSearchDemo(); });
            column->addWidget(run, 0, Qt::AlignLeft);
        }
        column->addStretch(1);
        solve();
        showAnswer(true);
    }
    void refresh() override { showInlineDemo(); }
    void setAnswersHidden(bool hidden) override { m_reveal->setChecked(!hidden); }
    QPushButton *revealButton() const { return m_reveal; }
    QString listLabel() const override
    {
        return QStringLiteral("%1. %2").arg(m_exercise.number).arg(qs(m_exercise.title));
    }
    QString listToolTip() const override { return qs(m_exercise.prompt); }
    QString answerText() const { return m_answer->text(); }
    QString demoText() const { return m_demo->text(); }
    void setInput(int i, double v) { m_inputs[std::size_t(i)]->setValue(v); }

    /// Exercise 16: GPT-2 small (fits on one A100) on eight A100s: the search's best plan.
    void runSearchDemo()
    {
        const Catalog &catalog = m_document->catalog();
        const Plan plan = exerciseSixteenPlan(catalog);
        SearchConstraints c;
        c.top = 3;
        const SearchOutcome o = searchPlans(plan, catalog, c);
        QString html = tr("<b>Search:</b> GPT-2 small (124 M parameters, fits on one A100) on 8 A100s, global batch "
                          "512: %1 plans, %2 feasible. ")
                           .arg(o.evaluated)
                           .arg(o.feasible);
        // Every dimension the search varies, so no two lines read alike.
        for (const RankedPlan &r : o.top) {
            const SearchConfig &k = r.score.config;
            const QString graphs = k.cudaGraphs != CudaGraphs::None
                                       ? tr(", CUDA graphs: %1").arg(QString::fromLatin1(toString(k.cudaGraphs)))
                                       : QString();
            html += tr("<br>#%1: data %2 × tensor %3 × pipeline %4, micro-batch %5, ZeRO-%6, recompute %7%8%9%10: %11 "
                       "tokens/s")
                        .arg(r.rank)
                        .arg(k.data)
                        .arg(k.tensor)
                        .arg(k.pipeline)
                        .arg(k.microBatch)
                        .arg(k.zeroStage)
                        .arg(QString::fromLatin1(toString(k.recompute)),
                             k.sequenceParallel ? tr(", sequence parallel") : QString(),
                             k.offload ? tr(", optimizer offloaded") : QString(), graphs,
                             fmt::number(r.score.tokensPerSecond, 0));
        }
        m_demo->setText(html);
        m_searchDemo = o;
    }
    const SearchOutcome &searchDemo() const { return m_searchDemo; }

private:
    void solve()
    {
        std::vector<double> values;
        for (QDoubleSpinBox *s : m_inputs)
            values.push_back(s->value());
        const ExerciseAnswer a = solveExercise(m_exercise.number, values);
        QString html;
        if (!a.answer.empty())
            html += tr("<p><b>Answer:</b> %1</p>").arg(qs(a.answer).toHtmlEscaped());
        if (!a.working.empty()) {
            html += QStringLiteral("<ol>");
            for (const std::string &step : a.working)
                html += QStringLiteral("<li>%1</li>").arg(qs(step).toHtmlEscaped());
            html += QStringLiteral("</ol>");
        }
        if (!a.explanation.empty())
            html += QStringLiteral("<p>%1</p>").arg(qs(a.explanation).toHtmlEscaped());
        m_answer->setText(html);
        showInlineDemo();
    }

    /// Demonstrations computed from the current plan, shown on the page.
    void showInlineDemo()
    {
        const Estimate &e = m_document->estimate();
        if (!e.valid || m_exercise.demo == Demo::Search) {
            if (!e.valid && m_exercise.demo != Demo::Search)
                m_demo->setText(tr("<i>The current plan has errors; fix it to see the demonstration.</i>"));
            return;
        }
        QString html;
        switch (m_exercise.demo) {
        case Demo::StageTimes: {
            html = tr("<b>This plan's stages</b> (one micro-batch, forward + backward + communication):");
            for (std::size_t s = 0; s < e.step.stages.size() && s < 16; ++s)
                html += tr("<br>stage %1: %2 ms%3")
                            .arg(s)
                            .arg(fmt::number(e.step.stages[s].microbatchSeconds() / units::Milli, 2))
                            .arg(std::int64_t(s) == e.step.slowestStage ? tr(" ◀ slowest") : QString());
            break;
        }
        case Demo::StepBreakdown:
            html = tr("<b>This plan's step</b> (%1 s):").arg(fmt::number(e.step.stepSeconds, 3));
            for (std::size_t i = 0; i < kTimeCategoryCount; ++i)
                html += tr("<br>%1: %2 s (%3%)")
                            .arg(QString::fromLatin1(labelOf(TimeCategory(i))))
                            .arg(fmt::number(e.step.breakdown[i], 3))
                            .arg(fmt::number(
                                e.step.stepSeconds > 0 ? 100 * e.step.breakdown[i] / e.step.stepSeconds : 0, 1));
            break;
        case Demo::RunCost:
            html = tr("<b>This plan's run:</b> %1 days, %2 GPU-hours, %3 MWh for %4 tokens; checkpoint %5 GiB written "
                      "in %6 s, every %7 h; "
                      "%8 failures expected.")
                       .arg(fmt::number(e.run.days, 1), fmt::number(e.run.gpuHours, 0),
                            fmt::number(e.run.energyJoules / 3.6e9, 1),
                            QString::fromStdString(units::formatCount(m_document->plan().run.tokenBudget)),
                            fmt::number(e.run.checkpointBytes / units::GiB, 0),
                            fmt::number(e.run.checkpointWriteSeconds, 0),
                            fmt::number(e.run.checkpointIntervalSeconds / 3600, 1),
                            fmt::number(e.run.expectedFailures, 1));
            break;
        case Demo::MemoryTerms: {
            const StageMemory &s = e.memory.stages[std::size_t(e.memory.peakStage)];
            html = tr("<b>This plan's peak stage %1:</b> persistent state %2 GiB, activations %3 GiB, and beyond the "
                      "16-byte estimate:")
                       .arg(s.stage)
                       .arg(fmt::number((s.parametersBytes + s.gradientsBytes + s.optimizerBytes) / units::GiB, 2))
                       .arg(fmt::number(s.activationsBytes / units::GiB, 2));
            for (std::size_t i = 0; i < kOtherTermCount; ++i)
                if (s.other[i] > 0)
                    html += tr("<br>%1: %2 GiB")
                                .arg(QString::fromLatin1(termInfo(OtherTerm(i)).label))
                                .arg(fmt::number(s.other[i] / units::GiB, 2));
            break;
        }
        case Demo::Fusion: {
            const FusionTraffic t = fusionTraffic(m_document->plan());
            const double f = t.fusedBytes, u = t.unfusedBytes;
            html = tr("<b>This plan, one micro-batch on one GPU:</b> element-wise kernels move %1 GB unfused and %2 GB "
                      "fused (%3% less).")
                       .arg(fmt::number(u / units::Giga, 2), fmt::number(f / units::Giga, 2),
                            fmt::number(u > 0 ? 100 * (1 - f / u) : 0, 0));
            break;
        }
        default:
            break;
        }
        if (!html.isEmpty())
            m_demo->setText(html);
    }

    Exercise m_exercise;
    std::vector<QDoubleSpinBox *> m_inputs;
    void showAnswer(bool shown)
    {
        m_answer->setVisible(shown);
        m_demo->setVisible(shown); // the demonstration's result is the answer worked on the plan (exercise 16's search)
        m_reveal->setText(shown ? tr("Hide the Answer") : tr("Reveal the Answer"));
    }

    QPushButton *m_reveal;
    QLabel *m_answer;
    QLabel *m_demo;
    SearchOutcome m_searchDemo;
};

} // namespace

LearnPage *makeExercisePage(PlanDocument *document, const Exercise &exercise)
{
    return new ExercisePage(document, exercise);
}

} // namespace trainplan
