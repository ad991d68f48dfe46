#pragma once
// The Learn view: the reference text's figures and exercises as live demonstrations of the current plan.
// A page list and the page; Previous/Next (arrow keys, Page Up/Down, Space); Export Figure; presentation
// mode (F5: full screen, large fonts, high-contrast colours; Esc leaves it).

#include <QMainWindow>
#include <QPointer>

#include <vector>

class QAction;
class QListWidget;
class QUndoStack;
class QStackedWidget;

namespace trainplan {

class LearnPage;
class PlanDocument;

class LearnWindow : public QMainWindow
{
    Q_OBJECT

public:
    explicit LearnWindow(PlanDocument *document, QWidget *parent = nullptr);
    ~LearnWindow() override;

    int pageCount() const { return int(m_pages.size()); }
    int currentPage() const;
    void showPage(int index);
    LearnPage *page(int index) const { return m_pages[std::size_t(index)]; }
    void next();
    void previous();

    bool isPresenting() const { return m_presenting; }
    void setPresenting(bool on);
    /// One switch for every exercise: answers (and the demonstrations that give them away) hidden. Present
    /// mode turns it on and puts it back as it was when it ends.
    bool answersHidden() const { return m_answersHidden; }
    void setAnswersHidden(bool hidden);
    /// The inputs' edits, undone with Ctrl+Z in the Learn window (one step per input, a held key merges).
    QUndoStack *inputHistory() const { return m_inputHistory; }

protected:
    void keyPressEvent(QKeyEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    static bool isNavigationKey(int key);
    static bool takesKeyboard(const QWidget *widget);
    void createToolBar();
    void trackInputs();
    void setPresentationLook(bool on);
    void navigate(int key);
    void refreshCurrent();

    PlanDocument *m_document;
    QListWidget *m_list;
    QStackedWidget *m_stack;
    std::vector<LearnPage *> m_pages;
    std::vector<bool> m_dirty; ///< pages to refresh when next shown
    bool m_presenting = false;
    bool m_answersHidden = false;
    bool m_answersHiddenBeforePresenting = false;
    QAction *m_hideAnswers = nullptr;
    QUndoStack *m_inputHistory;
    bool m_restoringInput = false;
    QPointer<QWidget> m_keyboardOwner; ///< presentation mode: the input clicked last (it takes the keyboard)
    QFont m_normalFont;
    QPalette m_normalPalette;
};

} // namespace trainplan
