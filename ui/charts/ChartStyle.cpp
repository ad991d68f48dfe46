#include "ui/charts/ChartStyle.h"

#include <qcustomplot.h>

namespace trainplan::chartstyle {

bool isDark(const QPalette &palette)
{
    return palette.color(QPalette::Window).lightness() < 128;
}

QColor series(int index, const QPalette &palette)
{
    static const QColor colours[] = {QColor(0, 114, 178), QColor(230, 159, 0), QColor(0, 158, 115), QColor(204, 121, 167),
                                     QColor(86, 180, 233), QColor(213, 94, 0), QColor(240, 228, 66), QColor(120, 120, 120)};
    QColor c = colours[index % 8];
    return isDark(palette) ? c.lighter(125) : c;
}

QColor warning(const QPalette &palette)
{
    return isDark(palette) ? QColor(255, 99, 88) : QColor(192, 57, 43);
}

void apply(QCustomPlot *plot, const QPalette &palette)
{
    const QColor text = palette.color(QPalette::WindowText);
    QColor grid = text;
    grid.setAlpha(40);
    plot->setBackground(palette.color(QPalette::Base));
    // Faster polylines: wide, antialiased strokes dominated the redraw time of an edit.
    plot->setPlottingHint(QCP::phFastPolylines, true);
    // Straight axis lines, grid and legend gain nothing from antialiasing; the data keeps it.
    plot->setNotAntialiasedElements(QCP::aeAxes | QCP::aeGrid | QCP::aeSubGrid | QCP::aeLegend | QCP::aeLegendItems
                                    | QCP::aeZeroLine | QCP::aeOther);
    for (QCPAxisRect *rect : plot->axisRects())
        for (QCPAxis *axis : rect->axes()) {
            axis->setBasePen(QPen(text));
            axis->setTickPen(QPen(text));
            axis->setSubTickPen(QPen(text));
            axis->setTickLabelColor(text);
            axis->setLabelColor(text);
            axis->grid()->setPen(QPen(grid, 0, Qt::DotLine));
            axis->grid()->setSubGridPen(Qt::NoPen);
            axis->grid()->setZeroLinePen(Qt::NoPen);
        }
    if (plot->legend) {
        plot->legend->setBrush(palette.color(QPalette::Base));
        plot->legend->setTextColor(text);
        plot->legend->setBorderPen(QPen(grid));
    }
}

} // namespace trainplan::chartstyle
