#pragma once
// Colours and fonts the charts share, derived from the application palette so the light and dark
// palettes both read well. One place, so a fifth chart looks like the other four.

#include <QColor>
#include <QFont>
#include <QPalette>
#include <QStringList>

class QCustomPlot;

namespace trainplan::chartstyle {

/// Qualitative colours (Okabe-Ito, colour-blind safe), brightened on dark backgrounds.
QColor series(int index, const QPalette &palette);
QColor warning(const QPalette &palette);
bool isDark(const QPalette &palette);
/// The title font of every chart: the widget's font, bold, one point larger.
QFont titleFont(const QFont &base);
/// `text` word-wrapped to `width` pixels in `font` (at most three lines, the last elided): the lines.
QStringList wrapTitle(const QString &text, const QFont &font, double width);
/// Axis, grid, tick and background colours of a QCustomPlot from the palette.
void apply(QCustomPlot *plot, const QPalette &palette);
/// A linear axis's tick labels in one unit for the whole axis (1,250 K ... or 1.25 M, never "1.25·10⁶" beside
/// "750000"): the unit of the range's largest magnitude (K, M, G, T).
void useMagnitudeLabels(QCustomPlot *plot, bool yAxis);

} // namespace trainplan::chartstyle
