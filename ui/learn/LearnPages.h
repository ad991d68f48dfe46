#pragma once
// The Learn view's pages: Figures 16.1-16.6 of the reference text as live demonstrations driven by the
// core and the current plan, the precision audit, and the 22 exercises. Each page redraws when the plan
// changes; figures are exportable like any chart.

#include <QWidget>

#include "learn/Exercises.h"

class QLabel;
class QVBoxLayout;

namespace trainplan {

class ExportableChart;
class PlanDocument;

class LearnPage : public QWidget
{
    Q_OBJECT

public:
    LearnPage(PlanDocument *document, QString title, QWidget *parent = nullptr);

    QString title() const { return m_title; }
    /// The page's entry in the page list (an exercise adds the start of its question).
    virtual QString listLabel() const { return m_title; }
    virtual QString listToolTip() const { return {}; }
    /// The page's main figure (for Export), or nullptr.
    virtual ExportableChart *figure() { return nullptr; }
    /// Redraws from the document's plan and estimate.
    virtual void refresh() = 0;
    /// Presentation mode turned on or off (an exercise hides its answer until revealed when on).
    /// Hide every answer and the demonstration results that give one away (a lecturer asks the room first).
    virtual void setAnswersHidden(bool) {}

signals:
    /// The page asks the view to show another page (an exercise's demonstration).
    void openDemo(trainplan::Demo demo);

protected:
    /// A page heading and a one-paragraph caption, added to `layout`'s top.
    void addHeading(QVBoxLayout *layout, const QString &caption);

    PlanDocument *m_document;
    QString m_title;
};

/// All pages in order: six figures, the precision audit, 22 exercises.
std::vector<LearnPage *> createLearnPages(PlanDocument *document);
/// The page index that shows `demo` (-1 when the demo is shown inline on the exercise page).
int pageIndexOf(Demo demo);

} // namespace trainplan
