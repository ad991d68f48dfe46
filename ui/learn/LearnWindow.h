#pragma once
// The Learn view: the reference text's figures and exercises as live demonstrations of the current plan.
// A page list and the page; Previous/Next (arrow keys, Page Up/Down, Space); Export Figure; presentation
// mode (F5: full screen, large fonts, high-contrast colours; Esc leaves it).

#include <QMainWindow>
#include <QPointer>

#include <vector>

class QListWidget;
class QStackedWidget;

namespace trainplan {

class LearnPage;
class PlanDocument;

class LearnWindow : public QMainWindow
{
    Q_OBJECT

public:
    explicit LearnWindow(PlanDocument *document, QWidget *parent = nullptr);

    int pageCount() const { return int(m_pages.size()); }
    int currentPage() const;
    void showPage(int index);
    LearnPage *page(int index) const { return m_pages[std::size_t(index)]; }
    void next();
    void previous();

    bool isPresenting() const { return m_presenting; }
    void setPresenting(bool on);

protected:
    void keyPressEvent(QKeyEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    static bool isNavigationKey(int key);
    void navigate(int key);
    void refreshCurrent();

    PlanDocument *m_document;
    QListWidget *m_list;
    QStackedWidget *m_stack;
    std::vector<LearnPage *> m_pages;
    std::vector<bool> m_dirty; ///< pages to refresh when next shown
    bool m_presenting = false;
    QPointer<QWidget> m_keyboardOwner; ///< presentation mode: the input clicked last (it takes the keyboard)
    QFont m_normalFont;
    QPalette m_normalPalette;
};

} // namespace trainplan
