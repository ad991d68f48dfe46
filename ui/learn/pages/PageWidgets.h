#pragma once
// What the Learn pages share: a spin box for a figure's input, a read-only table, readable text colours
// on coloured boxes (numbers go through io/output/Format).

#include <QColor>
#include <QString>
#include <QStringList>

#include <string>

class QDoubleSpinBox;
class QTableWidget;

namespace trainplan::learn {

QString qs(const std::string &s);
QDoubleSpinBox *spin(double min, double max, double value, int decimals, const QString &suffix = {});
QTableWidget *makeTable(const QStringList &header);
/// Black or white, whichever reads better on `background` (relative luminance, WCAG 2.x).
QColor textOn(const QColor &background);
/// `colour` at `alpha` over `base`, as an opaque colour.
QColor over(QColor colour, double alpha, const QColor &base);
void setRow(QTableWidget *t, int row, const QStringList &cells);

} // namespace trainplan::learn
