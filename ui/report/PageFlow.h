#pragma once
// The report's page flow: headings, HTML blocks and charts flowed down A4/Letter pages (device units:
// pixels at 96 dpi), with "page k of N" footers; and the HTML helpers its sections use (tables, key-value
// rows).

#include <QFont>
#include <QList>
#include <QPainter>
#include <QPair>
#include <QRectF>
#include <QString>
#include <QStringList>

class QPdfWriter;

namespace trainplan {

class ExportableChart;

/// Flows headings, HTML blocks and charts down the pages of a PDF.
class PageFlow
{
public:
    /// `totalPages` > 0 prints "page k of N" (known from a first pass).
    PageFlow(QPdfWriter &pdf, const QString &footer, int totalPages = 0);
    ~PageFlow();

    bool isActive() const { return m_painter.isActive(); }
    QPainter &painter() { return m_painter; }
    int pages() const { return m_page; }
    double width() const { return m_content.width(); }
    double remaining() const { return m_content.bottom() - m_y; }

    void newPage();
    void space(double pixels) { m_y += pixels; }
    /// A rich-text block; moved to a new page when it does not fit the rest of this one. `keepWithNext`
    /// reserves that much more room (a heading stays with the start of its section).
    void html(const QString &body, double keepWithNext = 0);
    void heading(const QString &title, int level = 1);
    void chart(ExportableChart &chart, double height, const QString &caption);

private:
    static QString styleSheet();
    void drawFooter();

    QPdfWriter &m_pdf;
    QPainter m_painter;
    QString m_footer;
    int m_totalPages = 0;
    QRectF m_content;
    QFont m_base;
    QString m_pendingHeading;
    double m_y = 0;
    int m_page = 1;
};

/// A table: header cells (a trailing '#' marks a numeric, right-aligned column) and rows.
QString htmlTable(const QStringList &header, const QList<QStringList> &rows,
                  const QString &width = QStringLiteral("100%"));
/// Key-value rows as a two-column table.
QString htmlFacts(const QList<QPair<QString, QString>> &rows);
/// Tables longer than `perBlock` rows become several blocks (each one fits a page).
void chunkedTable(PageFlow &flow, const QStringList &header, const QList<QStringList> &rows, int perBlock = 28);

} // namespace trainplan
