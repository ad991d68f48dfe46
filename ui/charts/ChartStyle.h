#pragma once
// Colours and fonts the charts share, derived from the application palette so the light and dark
// palettes both read well. One place, so a fifth chart looks like the other four.

#include <QColor>
#include <QPalette>

class QCustomPlot;

namespace trainplan::chartstyle {

/// Qualitative colours (Okabe-Ito, colour-blind safe), brightened on dark backgrounds.
QColor series(int index, const QPalette &palette);
QColor warning(const QPalette &palette);
bool isDark(const QPalette &palette);
/// Axis, grid, tick and background colours of a QCustomPlot from the palette.
void apply(QCustomPlot *plot, const QPalette &palette);

} // namespace trainplan::chartstyle
