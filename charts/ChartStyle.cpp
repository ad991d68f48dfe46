#include "charts/ChartStyle.h"

#include <algorithm>
#include <cmath>
#include <iterator>

#include <qcustomplot.h>

namespace trainplan::chartstyle {

bool isDark(const QPalette &palette)
{
    return palette.color(QPalette::Window).lightness() < 128;
}

QColor series(int index, const QPalette &palette)
{
    static const QColor colours[] = {QColor(0, 114, 178),   QColor(230, 159, 0),   QColor(0, 158, 115),
                                     QColor(204, 121, 167), QColor(86, 180, 233),  QColor(213, 94, 0),
                                     QColor(240, 228, 66),  QColor(120, 120, 120), QColor(117, 84, 160),
                                     QColor(140, 86, 75),   QColor(51, 34, 136),   QColor(153, 153, 51)};
    QColor c = colours[index % int(std::size(colours))];
    return isDark(palette) ? c.lighter(125) : c;
}

QColor warning(const QPalette &palette)
{
    return isDark(palette) ? QColor(255, 99, 88) : QColor(192, 57, 43);
}

QFont titleFont(const QFont &base)
{
    QFont f = base;
    f.setPointSizeF(f.pointSizeF() + 1);
    f.setBold(true);
    return f;
}

QStringList wrapTitle(const QString &text, const QFont &font, double width)
{
    const QFontMetricsF metrics(font);
    const double room = std::max(40.0, width - 12.0);
    QStringList lines;
    QString line;
    for (const QString &word : text.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        const QString candidate = line.isEmpty() ? word : line + QLatin1Char(' ') + word;
        if (!line.isEmpty() && metrics.horizontalAdvance(candidate) > room) {
            lines << line;
            line = word;
        } else {
            line = candidate;
        }
    }
    if (!line.isEmpty())
        lines << line;
    if (lines.size() > 3) {
        const QString rest = lines.mid(2).join(QLatin1Char(' '));
        lines = lines.mid(0, 2);
        lines << metrics.elidedText(rest, Qt::ElideRight, room);
    }
    return lines;
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

namespace {

/// Tick labels scaled to one unit chosen from the axis range each time the ticks are made.
class MagnitudeTicker : public QCPAxisTicker
{
protected:
    void generate(const QCPRange &range, const QLocale &locale, QChar formatChar, int precision, QVector<double> &ticks,
                  QVector<double> *subTicks, QVector<QString> *tickLabels) override
    {
        const double largest = std::max(std::abs(range.lower), std::abs(range.upper));
        static const std::pair<double, const char *> units[] = {{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "K"}};
        m_scale = 1;
        m_suffix.clear();
        for (const auto &[scale, suffix] : units)
            if (largest >= scale) {
                m_scale = scale;
                m_suffix = QString::fromLatin1(suffix);
                break;
            }
        m_step = 0;
        QCPAxisTicker::generate(range, locale, formatChar, precision, ticks, subTicks, tickLabels);
    }
    double getTickStep(const QCPRange &range) override
    {
        m_step = QCPAxisTicker::getTickStep(range);
        return m_step;
    }
    QString getTickLabel(double tick, const QLocale &locale, QChar, int) override
    {
        // As many decimals as the step needs in the chosen unit, the same for every label.
        const double step = m_step > 0 ? m_step / m_scale : 1.0;
        const int decimals = std::clamp(int(std::ceil(-std::log10(step) - 1e-9)), 0, 6);
        const QString number = locale.toString(tick / m_scale, 'f', decimals);
        return m_suffix.isEmpty() || tick == 0 ? number : number + QStringLiteral(" ") + m_suffix;
    }

private:
    double m_scale = 1, m_step = 0;
    QString m_suffix;
};

} // namespace

void useMagnitudeLabels(QCustomPlot *plot, bool yAxis)
{
    (yAxis ? plot->yAxis : plot->xAxis)->setTicker(QSharedPointer<QCPAxisTicker>(new MagnitudeTicker));
}

} // namespace trainplan::chartstyle
