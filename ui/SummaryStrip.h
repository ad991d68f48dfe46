#pragma once
// The answers at a glance, one tile each: does the plan fit (and by how much), step time, tokens/s, MFU,
// days and cost to train the token budget, and what limits the step, in words. Each tile is a value, a
// caption and, with a pinned baseline, the change against it. Each number's tooltip gives its formula and
// inputs.

#include <QFrame>

#include <optional>

class QLabel;
class QPushButton;

namespace trainplan {

class PlanDocument;

/// One tile: a bold value, a caption under it, and a delta line shown while a baseline is pinned.
class SummaryTile : public QFrame
{
    Q_OBJECT

public:
    explicit SummaryTile(QWidget *parent = nullptr);
    void set(const QString &value, const QString &caption, const QString &tooltip);
    /// "" hides the delta line; `better` colours it (true: better, false: worse, no value: neutral).
    void setDelta(const QString &text, std::optional<bool> better);
    void setWarning(bool on);
    QString value() const;
    QString caption() const;
    QString delta() const;

protected:
    void changeEvent(QEvent *event) override;

private:
    /// The labels' colours from the application palette as it is now (after a switch to the dark palette
    /// too): the value in the text colour or the warning colour, the delta in green, red or the text colour.
    void applyColours();

    QLabel *m_value;
    QLabel *m_caption;
    QLabel *m_delta;
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
    QString bottleneckText() const;
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
    void refreshDeltas();
    void showInvalid();
    /// Shows `text` in the bottleneck tile, elided to the lines the tile has (the whole text in its tooltip).
    void setBottleneck(const QString &text, const QString &tip);
    void fitBottleneck();
    void refreshNextStep();
    void takeNextStep();

    PlanDocument *m_document;
    SummaryTile *m_fit;
    SummaryTile *m_step;
    SummaryTile *m_tokens;
    SummaryTile *m_mfu;
    SummaryTile *m_run;
    QLabel *m_bottleneck;
    QString m_bottleneckText;
    QPushButton *m_next;
};

} // namespace trainplan
