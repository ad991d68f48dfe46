#pragma once
// Small widget factories and helpers the window's forms share.

#include <QComboBox>
#include <QLabel>
#include <QSize>
#include <QString>

class QDoubleSpinBox;
class QWidget;

namespace trainplan {

/// A spin box for a number with a range, a number of decimals and a unit suffix; held-down arrows accelerate.
QDoubleSpinBox *numberSpinBox(double min, double max, double value, int decimals, const QString &suffix = {});

/// `wanted`, or less where the screen `window` is on is smaller: its available area less a title bar and
/// frame (about 40 and 8 pixels), so a 1280x800 window on a 1280x800 screen shows its bottom edge.
QSize sizeOnScreen(const QWidget *window, QSize wanted);

/// A combo box whose closed box shows the longest form of the current item that fits its width: the whole
/// label ("Ring (KV blocks passed, overlapped)"), then the label without its parenthesis ("Ring"), then the
/// parenthesis alone ("MLA" of "Multi-head latent (MLA)") when it is the shorter name. The list shows every
/// item whole. Never elided, so a narrow editor dock stays narrow and readable.
class ChoiceBox : public QComboBox
{
public:
    using QComboBox::QComboBox;
    /// The forms of `text`, longest first.
    static QStringList formsOf(const QString &text);
    /// A last, shortest form of item `index` for when no form of its text fits ("Tensor group" for
    /// "Tensor-parallel group"); the list shows the whole text.
    void setShortText(int index, const QString &text) { setItemData(index, text, kShortTextRole); }

    static constexpr int kShortTextRole = Qt::UserRole + 64;

protected:
    void paintEvent(QPaintEvent *event) override;
};

/// A word-wrapped label that remembers its height for the last width and text: a layout asks a rich-text
/// label's heightForWidth several times per pass, and QLabel lays its document out again each time. It also keeps
/// its minimum height at what its text needs at its width (fitHeight), for layouts that size it by its size hint:
/// a form in a group box in a scroll area gave a three-line sentence the height of two, cutting it off.
class WrappedLabel : public QLabel
{
public:
    using QLabel::QLabel;
    int heightForWidth(int width) const override;
    /// The minimum height the text needs at the label's width (after its text changes; resizes call it).
    void fitHeight();

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    mutable int m_width = -1, m_height = 0;
    mutable QString m_text;
    mutable QFont m_font;
};

} // namespace trainplan
