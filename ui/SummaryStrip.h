#pragma once
// The answers at a glance, one tile each: does the plan fit (and by how much), step time, tokens/s, MFU,
// days and cost to train the token budget, and what limits the step, in words. Each tile is a value, a
// caption and, with a pinned baseline, the change against it. Each number's tooltip gives its formula and
// inputs.

#include <QFrame>
#include <QStringList>

#include <optional>

class QFontMetrics;
class QLabel;
class QPushButton;

namespace trainplan {

class PlanDocument;
struct Estimate;
struct MemoryEstimate;

/// The first of `forms` (longest first) that is at most `width` pixels in `metrics`; the last one otherwise.
QString firstThatFits(const QStringList &forms, const QFontMetrics &metrics, int width);

/// One tile: a bold value, a caption under it, and a delta line shown while a baseline is pinned. Captions
/// and deltas come in forms from the longest to the shortest; the tile shows the longest that fits its width
/// (never an elided one), and reserves the width its shortest forms need.
class SummaryTile : public QFrame
{
    Q_OBJECT

public:
    explicit SummaryTile(QWidget *parent = nullptr);
    void set(const QString &value, const QStringList &captions, const QString &tooltip);
    /// Empty hides the delta line; `better` colours it (true: better, false: worse, no value: neutral).
    void setDelta(const QStringList &forms, std::optional<bool> better);
    void setWarning(bool on);
    /// The tile's minimum width: wide enough for each of `values` and the shortest form of each caption and
    /// delta it can show. Fixed at construction, so that an edit never changes the window's minimum size.
    void reserveWidth(const QStringList &values, const QStringList &shortest);
    QString value() const;
    QString caption() const; ///< the longest form, whatever is shown
    QString delta() const;   ///< the longest form while shown
    QString shownCaption() const;

protected:
    void changeEvent(QEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    /// The labels' colours from the application palette as it is now (after a switch to the dark palette
    /// too): the value in the text colour or the warning colour, the delta in green, red or the text colour.
    void applyColours();
    void fit();

    QLabel *m_value;
    QLabel *m_caption;
    QLabel *m_delta;
    QStringList m_captions;
    QStringList m_deltas;
    bool m_warning = false;
    std::optional<bool> m_better;
};

class SummaryStrip : public QWidget
{
    Q_OBJECT

public:
    explicit SummaryStrip(PlanDocument *document, QWidget *parent = nullptr);

    /// The fit tile's words ("Fits: peak 23.5 of 80 GiB"), for tests and the status bar.
    QString fitText() const;
    /// The fit tile's tooltip: the peak's terms, its free memory and the memory band's upper edge.
    QString fitToolTip() const;
    /// Days and cost ("34.2 days", "$1,061,321 for 300 B tokens"), or "Does not fit".
    QString runText() const;
    /// Each tile's delta line while a baseline is pinned (empty otherwise): fit, step, tokens/s, MFU, run.
    QStringList deltas() const;
    /// The next step it offers: the suggested intervention ("Try: Selective recomputation"), or the search
    /// when the plan does not fit and no single intervention rescues it; hidden otherwise.
    QPushButton *nextStepButton() const { return m_next; }

signals:
    /// The user asked for the search (a plan that does not fit, no single change rescues it).
    void searchRequested();

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void refresh();
    /// The tiles of a valid estimate: memory, speed (step, tokens, MFU), the run's time and cost.
    void refreshMemory(const Estimate &e);
    void refreshSpeed(const Estimate &e);
    void refreshRun(const Estimate &e);
    void refreshDeltas();
    void showInvalid();
    /// Shows the longest of `forms` that wraps into the bottleneck tile's lines (the whole text in its tooltip).
    void setBottleneck(const QStringList &forms, const QString &tip);
    void fitBottleneck();
    void refreshNextStep();
    void fitNextStep();
    void takeNextStep();

    PlanDocument *m_document;
    SummaryTile *m_fit;
    SummaryTile *m_step;
    SummaryTile *m_tokens;
    SummaryTile *m_mfu;
    SummaryTile *m_run;
    QLabel *m_bottleneck;
    QStringList m_bottleneckForms;
    QString m_bottleneckFitKey; ///< the forms, room and font fitBottleneck last measured
    QPushButton *m_next;
    QString m_nextLabel, m_nextEffect;
};

} // namespace trainplan
