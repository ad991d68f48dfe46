#include "ui/learn/LearnWindow.h"

#include <QAction>
#include <QApplication>
#include <QKeyEvent>
#include <QListWidget>
#include <QMessageBox>
#include <QSplitter>
#include <QStackedWidget>
#include <QToolBar>

#include "ui/charts/ChartExport.h"
#include "ui/charts/ExportableChart.h"
#include "ui/document/PlanDocument.h"
#include "ui/learn/LearnPages.h"

namespace trainplan {

LearnWindow::LearnWindow(PlanDocument *document, QWidget *parent)
    : QMainWindow(parent), m_document(document), m_list(new QListWidget), m_stack(new QStackedWidget)
{
    setWindowTitle(tr("Learn — Trainplan"));
    setObjectName(QStringLiteral("learnWindow"));
    m_pages = createLearnPages(document);
    m_dirty.assign(m_pages.size(), true);
    for (LearnPage *page : m_pages) {
        m_list->addItem(page->listLabel());
        m_list->item(m_list->count() - 1)->setToolTip(page->listToolTip());
        m_stack->addWidget(page);
        connect(page, &LearnPage::openDemo, this, [this](Demo demo) {
            const int index = pageIndexOf(demo);
            if (index >= 0)
                showPage(index);
        });
    }
    m_list->setObjectName(QStringLiteral("learnPages"));
    m_list->setMinimumWidth(180);
    m_list->setMaximumWidth(280);
    // Page titles wrap within the list instead of ending in an ellipsis.
    m_list->setTextElideMode(Qt::ElideNone);
    m_list->setWordWrap(true);
    m_list->setResizeMode(QListView::Adjust); // rows wrap again at the width the splitter gives
    m_list->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    auto *splitter = new QSplitter(Qt::Horizontal);
    splitter->addWidget(m_list);
    splitter->addWidget(m_stack);
    splitter->setStretchFactor(1, 1);
    splitter->setSizes({260, 1000});
    setCentralWidget(splitter);

    QToolBar *bar = addToolBar(tr("Learn"));
    bar->setObjectName(QStringLiteral("learnToolBar"));
    bar->setMovable(false);
    QAction *prev = bar->addAction(tr("◀ Previous"), this, &LearnWindow::previous);
    prev->setToolTip(tr("Previous page (Left, Page Up)"));
    QAction *nxt = bar->addAction(tr("Next ▶"), this, &LearnWindow::next);
    nxt->setToolTip(tr("Next page (Right, Page Down, Space)"));
    bar->addSeparator();
    QAction *exportFigure = bar->addAction(tr("Export Figure…"));
    connect(exportFigure, &QAction::triggered, this, [this] {
        ExportableChart *figure = m_pages[std::size_t(currentPage())]->figure();
        if (!figure) {
            QMessageBox::information(this, tr("Export Figure"), tr("This page has no figure to export."));
            return;
        }
        exportChartInteractively(figure, this);
    });
    QAction *present = bar->addAction(tr("Present"));
    present->setShortcut(QKeySequence(Qt::Key_F5));
    present->setCheckable(true);
    present->setToolTip(tr("Full screen with large fonts and high contrast (F5; Esc leaves)"));
    connect(present, &QAction::toggled, this, &LearnWindow::setPresenting);

    connect(m_list, &QListWidget::currentRowChanged, this, [this](int row) {
        if (row >= 0 && row != m_stack->currentIndex())
            showPage(row);
    });
    connect(m_document, &PlanDocument::planChanged, this, [this] {
        m_dirty.assign(m_pages.size(), true);
        refreshCurrent();
    });
    m_normalFont = font();
    m_normalPalette = palette();
    showPage(0);
    resize(1200, 800);
}

int LearnWindow::currentPage() const { return m_stack->currentIndex(); }

void LearnWindow::showPage(int index)
{
    index = std::clamp(index, 0, pageCount() - 1);
    m_stack->setCurrentIndex(index);
    if (m_list->currentRow() != index)
        m_list->setCurrentRow(index);
    refreshCurrent();
    if (m_presenting) { // a new page: its inputs wait for a click
        m_keyboardOwner = nullptr;
        setFocus();
    }
}

void LearnWindow::refreshCurrent()
{
    const int index = currentPage();
    if (index < 0 || !m_dirty[std::size_t(index)] || !isVisible())
        return;
    m_dirty[std::size_t(index)] = false;
    m_pages[std::size_t(index)]->refresh();
}

void LearnWindow::next() { showPage(currentPage() + 1); }
void LearnWindow::previous() { showPage(currentPage() - 1); }

void LearnWindow::setPresenting(bool on)
{
    if (on == m_presenting)
        return;
    m_presenting = on;
    if (on) {
        m_normalFont = font();
        m_normalPalette = palette();
        QFont big = m_normalFont;
        big.setPointSizeF(m_normalFont.pointSizeF() * 1.6);
        setFont(big);
        // High contrast: white on black, yellow highlight (WCAG contrast well above 7:1).
        QPalette p;
        p.setColor(QPalette::Window, Qt::black);
        p.setColor(QPalette::Base, Qt::black);
        p.setColor(QPalette::AlternateBase, QColor(30, 30, 30));
        p.setColor(QPalette::WindowText, Qt::white);
        p.setColor(QPalette::Text, Qt::white);
        p.setColor(QPalette::Button, QColor(20, 20, 20));
        p.setColor(QPalette::ButtonText, Qt::white);
        p.setColor(QPalette::Highlight, QColor(255, 214, 0));
        p.setColor(QPalette::HighlightedText, Qt::black);
        p.setColor(QPalette::PlaceholderText, QColor(210, 210, 210));
        p.setColor(QPalette::Mid, QColor(170, 170, 170));
        p.setColor(QPalette::Link, QColor(255, 214, 0));
        setPalette(p);
        m_list->hide();
        showFullScreen();
    } else {
        setFont(m_normalFont);
        setPalette(m_normalPalette);
        m_list->show();
        showNormal();
    }
    for (LearnPage *page : m_pages)
        page->setPresenting(on);
    m_dirty.assign(m_pages.size(), true);
    refreshCurrent();
    m_keyboardOwner = nullptr;
    if (on) {
        qApp->installEventFilter(this);
        setFocus(); // no input has the keyboard until it is clicked
    } else {
        qApp->removeEventFilter(this);
    }
    for (QAction *a : findChildren<QAction *>())
        if (a->isCheckable() && a->shortcut() == QKeySequence(Qt::Key_F5) && a->isChecked() != on)
            a->setChecked(on);
}

bool LearnWindow::eventFilter(QObject *watched, QEvent *event)
{
    auto *widget = qobject_cast<QWidget *>(watched);
    if (!m_presenting || !widget || widget->window() != this)
        return QMainWindow::eventFilter(watched, event);
    // In presentation mode an input takes the keyboard only after a click on it; until then the
    // navigation keys turn pages, whatever has the focus.
    if (event->type() == QEvent::MouseButtonPress) {
        m_keyboardOwner = widget;
        return false;
    }
    if (event->type() != QEvent::KeyPress && event->type() != QEvent::ShortcutOverride)
        return false;
    auto *key = static_cast<QKeyEvent *>(event);
    const QWidget *focus = QApplication::focusWidget();
    const bool owned = m_keyboardOwner && focus && (focus == m_keyboardOwner || m_keyboardOwner->isAncestorOf(focus)
                                                    || focus->isAncestorOf(m_keyboardOwner));
    if (owned || !isNavigationKey(key->key()))
        return false;
    if (event->type() == QEvent::ShortcutOverride) {
        event->accept(); // the key comes to us as a key press, not to a shortcut of the input
        return true;
    }
    navigate(key->key());
    return true;
}

bool LearnWindow::isNavigationKey(int key)
{
    switch (key) {
    case Qt::Key_Right:
    case Qt::Key_Left:
    case Qt::Key_Up:
    case Qt::Key_Down:
    case Qt::Key_PageDown:
    case Qt::Key_PageUp:
    case Qt::Key_Space:
    case Qt::Key_Home:
    case Qt::Key_End:
        return true;
    default:
        return false;
    }
}

void LearnWindow::navigate(int key)
{
    switch (key) {
    case Qt::Key_Right:
    case Qt::Key_Down:
    case Qt::Key_PageDown:
    case Qt::Key_Space:
        next();
        break;
    case Qt::Key_Left:
    case Qt::Key_Up:
    case Qt::Key_PageUp:
        previous();
        break;
    case Qt::Key_Home:
        showPage(0);
        break;
    case Qt::Key_End:
        showPage(pageCount() - 1);
        break;
    default:
        break;
    }
}

void LearnWindow::keyPressEvent(QKeyEvent *event)
{
    switch (event->key()) {
    case Qt::Key_Right:
    case Qt::Key_PageDown:
    case Qt::Key_Space:
        next();
        return;
    case Qt::Key_Left:
    case Qt::Key_PageUp:
        previous();
        return;
    case Qt::Key_Home:
        showPage(0);
        return;
    case Qt::Key_End:
        showPage(pageCount() - 1);
        return;
    case Qt::Key_Escape:
        if (m_presenting) {
            setPresenting(false);
            return;
        }
        break;
    default:
        break;
    }
    QMainWindow::keyPressEvent(event);
}

} // namespace trainplan
