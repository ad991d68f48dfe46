#include "ui/learn/LearnWindow.h"

#include <QAbstractItemView>
#include <QAbstractSlider>
#include <QAbstractSpinBox>
#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QKeyEvent>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QScreen>
#include <QSpinBox>
#include <QSplitter>
#include <QStackedWidget>
#include <QToolBar>
#include <QUndoStack>

#include "charts/ChartExport.h"
#include "charts/ExportableChart.h"
#include "ui/document/PlanDocument.h"
#include "ui/FormWidgets.h"
#include "ui/learn/LearnPages.h"

namespace trainplan {

namespace {

constexpr char kLastValue[] = "trainplan.learn.lastValue";

/// One edit of a Learn page's input (a spin box's value, a check box's state), undone in the Learn window.
class SetLearnInput : public QUndoCommand
{
public:
    SetLearnInput(QWidget *input, const char *property, QVariant before, QVariant after, bool *restoring)
        : QUndoCommand(
              QObject::tr("Change %1").arg(input->objectName().isEmpty() ? QObject::tr("input") : input->objectName()))
        , m_input(input)
        , m_property(property)
        , m_before(std::move(before))
        , m_after(std::move(after))
        , m_restoring(restoring)
    {
    }
    int id() const override { return 0x4c4e; }
    bool mergeWith(const QUndoCommand *other) override
    {
        const auto *o = static_cast<const SetLearnInput *>(other);
        if (o->m_input != m_input)
            return false;
        m_after = o->m_after; // a held arrow key is one step
        return true;
    }
    void undo() override { set(m_before); }
    void redo() override
    {
        if (m_first) { // pushed after the input changed: nothing to do yet
            m_first = false;
            return;
        }
        set(m_after);
    }

private:
    void set(const QVariant &value)
    {
        if (!m_input)
            return;
        *m_restoring = true;
        m_input->setProperty(m_property, value);
        m_input->setProperty(kLastValue, value);
        *m_restoring = false;
    }

    QPointer<QWidget> m_input;
    const char *m_property;
    QVariant m_before, m_after;
    bool *m_restoring;
    bool m_first = true;
};

} // namespace

LearnWindow::LearnWindow(PlanDocument *document, QWidget *parent)
    : QMainWindow(parent), m_document(document), m_list(new QListWidget), m_stack(new QStackedWidget),
      m_inputHistory(new QUndoStack(this))
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

    createToolBar();

    connect(m_list, &QListWidget::currentRowChanged, this, [this](int row) {
        if (row >= 0 && row != m_stack->currentIndex())
            showPage(row);
    });
    connect(m_document, &PlanDocument::planChanged, this, [this] {
        m_dirty.assign(m_pages.size(), true);
        refreshCurrent();
    });
    // Ctrl+Z and Ctrl+Shift+Z undo the inputs' edits here (the plan's undo stays in the main window).
    QAction *undo = m_inputHistory->createUndoAction(this, tr("Undo"));
    undo->setShortcut(QKeySequence::Undo);
    QAction *redo = m_inputHistory->createRedoAction(this, tr("Redo"));
    redo->setShortcut(QKeySequence::Redo);
    addActions({undo, redo});
    trackInputs();
    qApp->installEventFilter(this); // Undo wherever the focus is; presentation keys (eventFilter)
    m_normalFont = font();
    m_normalPalette = palette();
    showPage(0);
    resize(sizeOnScreen(this, QSize(1200, 800)));
}

void LearnWindow::createToolBar()
{
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
    m_hideAnswers = bar->addAction(tr("Hide Answers"));
    m_hideAnswers->setCheckable(true);
    m_hideAnswers->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_H));
    m_hideAnswers->setToolTip(tr("Hide every exercise's answer and the demonstrations that give it away (Ctrl+H); "
                                 "each exercise's Reveal button still shows its own"));
    connect(m_hideAnswers, &QAction::toggled, this, &LearnWindow::setAnswersHidden);
    QAction *present = bar->addAction(tr("Present"));
    present->setShortcut(QKeySequence(Qt::Key_F5));
    present->setCheckable(true);
    present->setToolTip(tr("Full screen with large fonts and high contrast (F5; Esc leaves)"));
    connect(present, &QAction::toggled, this, &LearnWindow::setPresenting);
}

LearnWindow::~LearnWindow()
{
    qApp->removeEventFilter(this);
}

void LearnWindow::trackInputs()
{
    const auto track = [this](auto *input, const char *property, auto changed) {
        input->setProperty(kLastValue, input->property(property));
        connect(input, changed, this, [this, input, property] {
            const QVariant now = input->property(property);
            if (!m_restoringInput && now != input->property(kLastValue))
                m_inputHistory->push(
                    new SetLearnInput(input, property, input->property(kLastValue), now, &m_restoringInput));
            input->setProperty(kLastValue, now);
        });
    };
    for (LearnPage *page : m_pages) {
        for (QDoubleSpinBox *spin : page->findChildren<QDoubleSpinBox *>())
            track(spin, "value", &QDoubleSpinBox::valueChanged);
        for (QSpinBox *spin : page->findChildren<QSpinBox *>())
            track(spin, "value", &QSpinBox::valueChanged);
        for (QCheckBox *box : page->findChildren<QCheckBox *>())
            track(box, "checked", &QCheckBox::toggled);
    }
}

void LearnWindow::setAnswersHidden(bool hidden)
{
    m_answersHidden = hidden;
    for (LearnPage *page : m_pages)
        page->setAnswersHidden(hidden);
    if (m_hideAnswers->isChecked() != hidden)
        m_hideAnswers->setChecked(hidden);
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
        // Large enough to read from the back of a room: 1.6 times the desktop's size, and at least a 44th of
        // the screen's height (24 pixels at 1080p).
        QFont big = m_normalFont;
        const QScreen *s = screen();
        const double screenPoints = s ? s->geometry().height() / 44.0 * 72.0 / s->logicalDotsPerInchY() : 0;
        big.setPointSizeF(std::max(m_normalFont.pointSizeF() * 1.6, screenPoints));
        setFont(big);
        // High contrast: white on black, yellow highlight (WCAG contrast well above 7:1).
        QPalette p;
        p.setColor(QPalette::Window, Qt::black);
        p.setColor(QPalette::Base,
                   QColor(40, 40, 40)); // fields and check boxes stand out from the black (13:1 with white)
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
    if (on) {
        m_answersHiddenBeforePresenting = m_answersHidden;
        setAnswersHidden(true);
    } else {
        setAnswersHidden(m_answersHiddenBeforePresenting);
    }
    m_dirty.assign(m_pages.size(), true);
    refreshCurrent();
    m_keyboardOwner = nullptr;
    if (on)
        setFocus(); // no input has the keyboard until it is clicked
    for (QAction *a : findChildren<QAction *>())
        if (a->isCheckable() && a->shortcut() == QKeySequence(Qt::Key_F5) && a->isChecked() != on)
            a->setChecked(on);
}

bool LearnWindow::eventFilter(QObject *watched, QEvent *event)
{
    auto *widget = qobject_cast<QWidget *>(watched);
    if (!widget || widget->window() != this)
        return QMainWindow::eventFilter(watched, event);
    // Undo and Redo are the window's, whatever has the focus (a spin box would take Ctrl+Z for its text).
    if (event->type() == QEvent::ShortcutOverride) {
        const auto *key = static_cast<QKeyEvent *>(event);
        if (key->matches(QKeySequence::Undo) || key->matches(QKeySequence::Redo)) {
            event->ignore();
            return true;
        }
    }
    if (!m_presenting)
        return false;
    // In presentation mode an input takes the keyboard only after a click on it; until then the
    // navigation keys turn pages, whatever has the focus. A button clicked (Reveal) never keeps it.
    if (event->type() == QEvent::MouseButtonPress) {
        m_keyboardOwner = takesKeyboard(widget) ? widget : nullptr;
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

bool LearnWindow::takesKeyboard(const QWidget *widget)
{
    for (const QWidget *w = widget; w && !w->isWindow(); w = w->parentWidget())
        if (qobject_cast<const QAbstractSpinBox *>(w) || qobject_cast<const QLineEdit *>(w) ||
            qobject_cast<const QComboBox *>(w) || qobject_cast<const QAbstractItemView *>(w) ||
            qobject_cast<const QAbstractSlider *>(w))
            return true;
    return false;
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
