#include "ui/FormWidgets.h"

#include <QStyleOptionComboBox>
#include <QStylePainter>

#include <QDoubleSpinBox>
#include <QGuiApplication>
#include <QScreen>
#include <QWidget>

namespace trainplan {

QSize sizeOnScreen(const QWidget *window, QSize wanted)
{
    const QScreen *screen = window->screen() ? window->screen() : QGuiApplication::primaryScreen();
    if (!screen)
        return wanted;
    // The frame the window manager adds: measured once the window is shown, assumed before.
    const QSize frame = window->isVisible() ? window->frameGeometry().size() - window->geometry().size() : QSize(8, 40);
    return wanted.boundedTo(screen->availableGeometry().size() - frame.expandedTo(QSize(8, 40)));
}

QDoubleSpinBox *numberSpinBox(double min, double max, double value, int decimals, const QString &suffix)
{
    auto *s = new QDoubleSpinBox;
    s->setRange(min, max);
    s->setDecimals(decimals);
    s->setValue(value);
    s->setSuffix(suffix);
    s->setAccelerated(true);
    return s;
}

QStringList ChoiceBox::formsOf(const QString &text)
{
    QStringList forms{text};
    const qsizetype open = text.indexOf(QStringLiteral(" ("));
    if (open > 0 && text.endsWith(QLatin1Char(')'))) {
        const QString before = text.left(open), inside = text.mid(open + 2, text.size() - open - 3);
        forms << before;
        if (inside.size() < before.size() && !inside.contains(QLatin1Char(',')))
            forms << inside;
    }
    return forms;
}

void ChoiceBox::paintEvent(QPaintEvent *)
{
    QStylePainter painter(this);
    painter.setPen(palette().color(QPalette::Text));
    QStyleOptionComboBox option;
    initStyleOption(&option);
    painter.drawComplexControl(QStyle::CC_ComboBox, option);
    const QRect field = style()->subControlRect(QStyle::CC_ComboBox, &option, QStyle::SC_ComboBoxEditField, this);
    QStringList forms = formsOf(option.currentText);
    if (const QString shortText = currentData(kShortTextRole).toString(); !shortText.isEmpty())
        forms << shortText;
    option.currentText = forms.back();
    for (const QString &form : forms)
        if (fontMetrics().horizontalAdvance(form) <= field.width() - 2) {
            option.currentText = form;
            break;
        }
    painter.drawControl(QStyle::CE_ComboBoxLabel, option);
}

void WrappedLabel::fitHeight()
{
    if (!wordWrap() || width() <= 0)
        return;
    const int needed = heightForWidth(width());
    if (needed > 0 && needed != minimumHeight())
        setMinimumHeight(needed);
}

void WrappedLabel::resizeEvent(QResizeEvent *event)
{
    QLabel::resizeEvent(event);
    fitHeight();
}

int WrappedLabel::heightForWidth(int width) const
{
    if (width != m_width || text() != m_text || font() != m_font) {
        m_width = width;
        m_text = text();
        m_font = font();
        m_height = QLabel::heightForWidth(width);
    }
    return m_height;
}

} // namespace trainplan
