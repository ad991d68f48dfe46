#include "ui/learn/pages/PageWidgets.h"

#include <QDoubleSpinBox>
#include <QHeaderView>
#include <QTableWidget>

#include <cmath>

#include "core/common/Units.h"
#include "ui/FormWidgets.h"

namespace trainplan::learn {

QString qs(const std::string &s) { return QString::fromStdString(s); }

QDoubleSpinBox *spin(double min, double max, double value, int decimals, const QString &suffix)
{
    return numberSpinBox(min, max, value, decimals, suffix);
}

QTableWidget *makeTable(const QStringList &header)
{
    auto *t = new QTableWidget(0, int(header.size()));
    t->setHorizontalHeaderLabels(header);
    t->verticalHeader()->hide();
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setSelectionMode(QAbstractItemView::NoSelection);
    t->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    t->horizontalHeader()->setStretchLastSection(true);
    t->setAlternatingRowColors(true);
    t->setWordWrap(true);
    return t;
}

QColor textOn(const QColor &background)
{
    const auto channel = [](double c) { return c <= 0.03928 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4); };
    const double l = 0.2126 * channel(background.redF()) + 0.7152 * channel(background.greenF()) +
                     0.0722 * channel(background.blueF());
    // The higher of the two WCAG contrast ratios, (L1 + 0.05) / (L2 + 0.05): black from L = 0.179 up. (A
    // threshold of 0.4 put white on the light boxes of 16.1 at 2.4-3.6:1.)
    return (l + 0.05) / 0.05 >= 1.05 / (l + 0.05) ? QColor(Qt::black) : QColor(Qt::white);
}

QColor over(QColor colour, double alpha, const QColor &base)
{
    return QColor::fromRgbF(colour.redF() * alpha + base.redF() * (1 - alpha),
                            colour.greenF() * alpha + base.greenF() * (1 - alpha),
                            colour.blueF() * alpha + base.blueF() * (1 - alpha));
}

void setRow(QTableWidget *t, int row, const QStringList &cells)
{
    if (t->rowCount() <= row)
        t->setRowCount(row + 1);
    for (int c = 0; c < cells.size(); ++c)
        t->setItem(row, c, new QTableWidgetItem(cells[c]));
}

} // namespace trainplan::learn
