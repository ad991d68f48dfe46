#include "ui/report/PageFlow.h"

#include <QPdfWriter>
#include <QTextDocument>

#include <algorithm>

#include "charts/ExportableChart.h"

namespace trainplan {

PageFlow::PageFlow(QPdfWriter &pdf, const QString &footer, int totalPages)
    : m_pdf(pdf), m_painter(&pdf), m_footer(footer), m_totalPages(totalPages)
{
    m_painter.setRenderHint(QPainter::Antialiasing);
    m_painter.setRenderHint(QPainter::TextAntialiasing);
    const QRectF full(QPointF(0, 0), QSizeF(pdf.width(), pdf.height()));
    m_content = full.adjusted(64, 56, -64, -64);
    m_y = m_content.top();
    m_base = QFont(QStringLiteral("DejaVu Sans"));
    m_base.setPointSizeF(9.0);
    drawFooter();
}

PageFlow::~PageFlow()
{
    m_painter.end();
}

void PageFlow::newPage()
{
    m_pdf.newPage();
    ++m_page;
    m_y = m_content.top();
    drawFooter();
}

void PageFlow::html(const QString &body, double keepWithNext)
{
    // A pending heading travels with the block after it: never alone at the foot of a page.
    const QString html = m_pendingHeading + body;
    m_pendingHeading.clear();
    QTextDocument doc;
    doc.setDefaultFont(m_base);
    doc.setDocumentMargin(0);
    doc.setDefaultStyleSheet(styleSheet());
    doc.setTextWidth(width());
    doc.setHtml(html);
    const double height = doc.size().height();
    if (height + keepWithNext > remaining() && m_y > m_content.top() + 1)
        newPage();
    // Taller than a page (never for the blocks this report makes): drawn in page-sized slices.
    double drawn = 0;
    while (drawn < height) {
        const double slice = std::min(height - drawn, remaining());
        m_painter.save();
        m_painter.translate(m_content.left(), m_y - drawn);
        doc.drawContents(&m_painter, QRectF(0, drawn, width(), slice));
        m_painter.restore();
        drawn += slice;
        m_y += slice;
        if (drawn < height)
            newPage();
    }
    m_y += 6;
}

void PageFlow::heading(const QString &title, int level)
{
    const QString tag = level == 1 ? QStringLiteral("h1") : QStringLiteral("h2");
    if (m_y > m_content.top() + 1)
        space(level == 1 ? 10 : 4);
    m_pendingHeading += QStringLiteral("<%1>%2</%1>").arg(tag, title.toHtmlEscaped());
}

void PageFlow::chart(ExportableChart &chart, double height, const QString &caption)
{
    if (!m_pendingHeading.isEmpty())
        html(QString(), height + 24);
    if (height + 24 > remaining())
        newPage();
    const QRectF target(m_content.left(), m_y, width(), height);
    chart.renderChart(&m_painter, target, target.size());
    m_painter.setPen(QColor(200, 200, 200));
    m_painter.setBrush(Qt::NoBrush);
    m_painter.drawRect(target);
    m_y += height + 4;
    html(QStringLiteral("<p class=\"caption\">%1</p>").arg(caption.toHtmlEscaped()));
}

QString PageFlow::styleSheet()
{
    return QStringLiteral(
        "h1 { font-size: 15pt; font-weight: bold; color: #1f3a5f; margin-top: 6px; margin-bottom: 4px; }"
        "h2 { font-size: 11pt; font-weight: bold; color: #1f3a5f; margin-top: 4px; margin-bottom: 2px; }"
        "p { margin-top: 0px; margin-bottom: 4px; }"
        "p.caption { font-size: 8pt; color: #555555; }"
        "p.note { font-size: 8pt; color: #555555; }"
        "table { border-collapse: collapse; }"
        "th { background-color: #e8edf3; font-weight: bold; padding: 2px 5px; text-align: left; }"
        "td { padding: 2px 5px; }"
        "td.n { text-align: right; }"
        "th.n { text-align: right; }"
        "pre { font-family: 'DejaVu Sans Mono'; font-size: 7.5pt; }");
}

void PageFlow::drawFooter()
{
    QFont small = m_base;
    small.setPointSizeF(7.5);
    m_painter.save();
    m_painter.setFont(small);
    m_painter.setPen(QColor(120, 120, 120));
    const QRectF band(m_content.left(), m_content.bottom() + 20, m_content.width(), 16);
    m_painter.drawText(band, Qt::AlignLeft | Qt::AlignVCenter, m_footer);
    m_painter.drawText(band, Qt::AlignRight | Qt::AlignVCenter,
                       m_totalPages > 0 ? QObject::tr("page %1 of %2").arg(m_page).arg(m_totalPages)
                                        : QObject::tr("page %1").arg(m_page));
    m_painter.setPen(QColor(210, 210, 210));
    m_painter.drawLine(QPointF(m_content.left(), band.top() - 4), QPointF(m_content.right(), band.top() - 4));
    m_painter.restore();
}

/// A table: header cells (a trailing '#' marks a numeric, right-aligned column) and rows.
QString htmlTable(const QStringList &header, const QList<QStringList> &rows, const QString &width)
{
    QString html = QStringLiteral("<table width=\"%1\" cellspacing=\"0\" border=\"0\"><tr>").arg(width);
    QList<bool> numeric;
    for (QString h : header) {
        const bool n = h.endsWith(QLatin1Char('#'));
        numeric << n;
        if (n)
            h.chop(1);
        html += QStringLiteral("<th%1>%2</th>").arg(n ? QStringLiteral(" class=\"n\"") : QString(), h.toHtmlEscaped());
    }
    html += QStringLiteral("</tr>");
    for (qsizetype r = 0; r < rows.size(); ++r) {
        html += r % 2 ? QStringLiteral("<tr style=\"background-color:#f6f8fa\">") : QStringLiteral("<tr>");
        for (qsizetype c = 0; c < rows[r].size(); ++c)
            html += QStringLiteral("<td%1>%2</td>")
                        .arg(c < numeric.size() && numeric[c] ? QStringLiteral(" class=\"n\"") : QString(),
                             rows[r][c].isEmpty() ? QStringLiteral("—") : rows[r][c]);
        html += QStringLiteral("</tr>");
    }
    return html + QStringLiteral("</table>");
}

/// Key-value rows as a two-column table.
QString htmlFacts(const QList<QPair<QString, QString>> &rows)
{
    QString html = QStringLiteral("<table width=\"100%\" cellspacing=\"0\" border=\"0\">");
    for (qsizetype r = 0; r < rows.size(); ++r)
        html += QStringLiteral("<tr%1><td width=\"27%\"><b>%2</b></td><td>%3</td></tr>")
                    .arg(r % 2 ? QStringLiteral(" style=\"background-color:#f6f8fa\"") : QString(),
                         rows[r].first.toHtmlEscaped(), rows[r].second);
    return html + QStringLiteral("</table>");
}

void chunkedTable(PageFlow &flow, const QStringList &header, const QList<QStringList> &rows, int perBlock)
{
    for (qsizetype i = 0; i < rows.size() || i == 0; i += perBlock) {
        flow.html(htmlTable(header, rows.mid(i, perBlock)));
        if (rows.isEmpty())
            break;
    }
}

} // namespace trainplan
