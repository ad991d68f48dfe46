#include "charts/ChartExport.h"

#include <QAction>
#include <QChart>
#include <QChartView>
#include <QLegend>
#include <QAbstractSeries>
#include <QLegendMarker>
#include <QCoreApplication>
#include <QGraphicsLayout>
#include <QGraphicsScene>
#include <QApplication>
#include <QBuffer>
#include <QClipboard>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QMessageBox>
#include <QMimeData>
#include <QPdfWriter>
#include <QPicture>
#include <QPushButton>
#include <QSaveFile>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QSvgGenerator>

#include <qcustomplot.h>

#include "io/common/SafeFile.h"
#include "charts/ExportableChart.h"

namespace trainplan {

using io::isWritableTarget;
using io::writeAtomically;

namespace {

bool validSize(QSize size, QString *error)
{
    if (size.width() < 16 || size.height() < 16 || size.width() > 20000 || size.height() > 20000) {
        if (error)
            *error = QObject::tr("size: width and height must be between 16 and 20000 pixels (got %1 x %2)")
                         .arg(size.width()).arg(size.height());
        return false;
    }
    return true;
}

} // namespace

void renderPlot(QCustomPlot *plot, QPainter *painter, const QRectF &target, const QSizeF &logicalSize)
{
    // QCustomPlot draws through its own QCPPainter; recording into a QPicture keeps the drawing vector
    // and lets any QPainter (image, SVG, PDF, the report's page) replay it.
    const int width = std::max(16, int(logicalSize.width()));
    const int height = std::max(16, int(logicalSize.height()));
    QPicture picture;
    {
        QCPPainter recorder(&picture);
        recorder.setMode(QCPPainter::pmVectorized);
        recorder.setMode(QCPPainter::pmNoCaching);
        recorder.setRenderHint(QPainter::Antialiasing, painter->testRenderHint(QPainter::Antialiasing));
        plot->toPainter(&recorder, width, height);
    }
    painter->save();
    painter->translate(target.topLeft());
    painter->scale(target.width() / width, target.height() / height);
    painter->setClipRect(QRectF(0, 0, width, height));
    painter->drawPicture(0, 0, picture);
    painter->restore();
}

void renderChartView(QChartView *view, QPainter *painter, const QRectF &target, const QSizeF &logicalSize)
{
    // Lay the chart out at the export size, draw it, then give it back to the view.
    QChart *c = view->chart();
    QGraphicsScene *scene = view->scene();
    const QSizeF oldSize = c->size();
    const QRectF oldScene = scene->sceneRect();
    const QRectF logical(QPointF(0, 0), logicalSize);
    fitChartLegend(c, logicalSize);
    c->resize(logicalSize);
    scene->setSceneRect(logical);
    if (c->layout())
        c->layout()->activate();
    QCoreApplication::sendPostedEvents(c, QEvent::LayoutRequest);
    // A removed axis's graphics go by deleteLater(); headless (report --png) no event loop runs to
    // delete them and they would be drawn over the new axes.
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing);
    painter->fillRect(target, c->backgroundBrush());
    scene->render(painter, target, logical, Qt::IgnoreAspectRatio);
    painter->restore();
    fitChartLegend(c, oldSize);
    c->resize(oldSize);
    scene->setSceneRect(oldScene);
    if (c->layout())
        c->layout()->activate();
}

void fitChartLegend(QChart *chart, QSizeF size)
{
    QLegend *legend = chart->legend();
    const QFontMetricsF metrics(legend->font());
    const QList<QLegendMarker *> markers = legend->markers();
    const auto optional = [](QLegendMarker *m) {
        return m->series() && m->series()->property(kLegendOptional).toBool();
    };
    // A marker is a square of about one line height plus spacing on each side of its label.
    const double perEntry = 2.5 * metrics.height() + 8;
    double needed = 0;
    for (QLegendMarker *marker : markers)
        needed += metrics.horizontalAdvance(marker->label()) + perEntry;
    const Qt::Alignment side = needed <= size.width() - 24 ? Qt::AlignBottom : Qt::AlignRight;
    if (legend->alignment() != side)
        legend->setAlignment(side);
    // At the right, one entry a line: the entries the title already names go when the column would be taller
    // than the room under the title (Qt's legend cuts its last entries off instead).
    const int titleLines = chart->title().isEmpty() ? 0 : int(chart->title().count(QStringLiteral("<br>"))) + 1;
    // Measured on the memory chart: entries 20 px apart in a 12 px font; the column starts under the title's
    // lines and margins and ends above the axis title.
    const double room = size.height() - titleLines * QFontMetricsF(chart->titleFont()).lineSpacing() - 50;
    const double line = metrics.height() + 9;
    qsizetype shown = markers.size();
    for (QLegendMarker *marker : markers) {
        const bool drop = side == Qt::AlignRight && optional(marker) && shown * line > room;
        if (drop)
            --shown;
        if (optional(marker))
            marker->setVisible(!drop);
    }
}

QSizeF logicalExportSize(QSize pixels, int dpi)
{
    const double scale = std::clamp(dpi, 48, 1200) / 96.0;
    return {pixels.width() / scale, pixels.height() / scale};
}

void paintChart(ExportableChart &chart, QPainter &painter, QSize pixels, int dpi)
{
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setRenderHint(QPainter::TextAntialiasing);
    chart.renderChart(&painter, QRectF(QPointF(0, 0), QSizeF(pixels)), logicalExportSize(pixels, dpi));
}

QImage renderChartImage(ExportableChart &chart, QSize pixels, int dpi)
{
    dpi = std::clamp(dpi, 48, 1200);
    QImage image(pixels, QImage::Format_ARGB32_Premultiplied);
    image.fill(chart.chartWidget()->palette().color(QPalette::Base));
    {
        // Painted at 96 dpi: the painter's scale alone makes text, lines and margins grow with the DPI.
        // Saying the DPI first would make every point-size font grow twice and overflow its layout.
        QPainter painter(&image);
        paintChart(chart, painter, pixels, dpi);
    }
    image.setDotsPerMeterX(int(dpi / 0.0254 + 0.5));
    image.setDotsPerMeterY(int(dpi / 0.0254 + 0.5));
    return image;
}

std::optional<QByteArray> chartPngBytes(ExportableChart &chart, QSize pixels, int dpi, QString *error)
{
    if (!validSize(pixels, error))
        return std::nullopt;
    if (dpi < 48 || dpi > 1200) {
        if (error)
            *error = QObject::tr("dpi: must be between 48 and 1200 (got %1)").arg(dpi);
        return std::nullopt;
    }
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    if (!renderChartImage(chart, pixels, dpi).save(&buffer, "PNG")) {
        if (error)
            *error = QObject::tr("cannot encode the PNG");
        return std::nullopt;
    }
    return bytes;
}

bool saveChartPng(ExportableChart &chart, const QString &path, QSize pixels, int dpi, QString *error)
{
    const std::optional<QByteArray> bytes = chartPngBytes(chart, pixels, dpi, error);
    return bytes && writeAtomically(path, *bytes, error);
}

bool saveChartSvg(ExportableChart &chart, const QString &path, QSize size, int dpi, QString *error)
{
    if (!validSize(size, error))
        return false;
    const QSize logical = logicalExportSize(size, dpi).toSize();
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    QSvgGenerator svg;
    svg.setOutputDevice(&buffer);
    svg.setSize(logical);
    svg.setViewBox(QRect(QPoint(0, 0), logical));
    svg.setResolution(96);
    svg.setTitle(chart.exportName());
    svg.setDescription(QStringLiteral("Trainplan chart"));
    QPainter painter(&svg);
    painter.setRenderHint(QPainter::Antialiasing);
    chart.renderChart(&painter, QRectF(QPointF(0, 0), QSizeF(logical)), QSizeF(logical));
    painter.end();
    return writeAtomically(path, bytes, error);
}

bool saveChartPdf(ExportableChart &chart, const QString &path, QSize size, int dpi, QString *error)
{
    if (!validSize(size, error))
        return false;
    // The page is the chart as the window lays it out at this size and DPI: 1600 x 1000 pixels at 192 dpi
    // is an 800 x 500 layout on a 600 x 375 pt page, its text as large next to the plot as on screen.
    const QSizeF logical = logicalExportSize(size, dpi);
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    {
        QPdfWriter pdf(&buffer);
        pdf.setResolution(96);
        pdf.setCreator(QStringLiteral("Trainplan"));
        pdf.setTitle(chart.exportName());
        pdf.setPageSize(QPageSize(QSizeF(logical.width() * 0.75, logical.height() * 0.75), QPageSize::Point, QString(),
                                  QPageSize::ExactMatch));
        pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
        QPainter painter(&pdf);
        painter.setRenderHint(QPainter::Antialiasing);
        chart.renderChart(&painter, QRectF(QPointF(0, 0), logical), logical);
        painter.end();
    }
    return writeAtomically(path, bytes, error);
}

bool saveChart(ExportableChart &chart, const QString &path, QSize size, int dpi, QString *error)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == QLatin1String("png"))
        return saveChartPng(chart, path, size, dpi, error);
    if (suffix == QLatin1String("svg"))
        return saveChartSvg(chart, path, size, dpi, error);
    if (suffix == QLatin1String("pdf"))
        return saveChartPdf(chart, path, size, dpi, error);
    if (error)
        *error = QObject::tr("%1: the file name must end in .png, .svg or .pdf").arg(path);
    return false;
}

bool saveChartCsv(ExportableChart &chart, const QString &path, QString *error)
{
    return writeAtomically(path, chart.exportCsv().toUtf8(), error);
}

void copyChartToClipboard(ExportableChart &chart, QSize logicalSize)
{
    const QImage image = renderChartImage(chart, logicalSize * 2, 192);
    auto *mime = new QMimeData;
    mime->setImageData(image);
    mime->setText(chart.exportCsv()); // pasting into a spreadsheet gets the numbers
    QApplication::clipboard()->setMimeData(mime);
}

namespace {

/// Path, format, size and DPI of a chart export; remembers the last choices.
class ExportChartDialog : public QDialog
{
public:
    ExportChartDialog(const QString &name, QWidget *parent) : QDialog(parent)
    {
        setWindowTitle(tr("Export Chart"));
        QSettings settings;
        const QString dir = settings
                                .value(QStringLiteral("export/dir"),
                                       QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation))
                                .toString();
        const QString format = settings.value(QStringLiteral("export/format"), QStringLiteral("png")).toString();
        m_path = new QLineEdit(dir + QLatin1Char('/') + name + QLatin1Char('.') + format);
        auto *browse = new QPushButton(tr("Browse…"));
        auto *pathRow = new QHBoxLayout;
        pathRow->addWidget(m_path, 1);
        pathRow->addWidget(browse);
        m_width = new QSpinBox;
        m_width->setRange(16, 20000);
        m_width->setValue(settings.value(QStringLiteral("export/width"), 1600).toInt());
        m_height = new QSpinBox;
        m_height->setRange(16, 20000);
        m_height->setValue(settings.value(QStringLiteral("export/height"), 1000).toInt());
        m_dpi = new QSpinBox;
        m_dpi->setRange(48, 1200);
        m_dpi->setValue(settings.value(QStringLiteral("export/dpi"), 192).toInt());
        m_dpi->setToolTip(tr("PNG only: 192 dpi draws the chart at twice the on-screen scale"));
        auto *form = new QFormLayout;
        form->addRow(tr("File"), pathRow);
        form->addRow(tr("Width (px)"), m_width);
        form->addRow(tr("Height (px)"), m_height);
        form->addRow(tr("Resolution (dpi)"), m_dpi);
        auto *buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel);
        connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
        connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
        auto *column = new QVBoxLayout(this);
        column->addLayout(form);
        column->addWidget(buttons);
        connect(browse, &QPushButton::clicked, this, [this] {
            const QString path =
                QFileDialog::getSaveFileName(this, tr("Export Chart"), m_path->text(),
                                             tr("PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)"));
            if (!path.isEmpty())
                m_path->setText(path);
        });
        const auto updateDpi = [this] {
            m_dpi->setEnabled(QFileInfo(m_path->text()).suffix().toLower() == QLatin1String("png"));
        };
        connect(m_path, &QLineEdit::textChanged, this, updateDpi);
        updateDpi();
    }
    QString path() const { return m_path->text(); }
    QSize size() const { return {m_width->value(), m_height->value()}; }
    int dpi() const { return m_dpi->value(); }
    void remember() const
    {
        QSettings settings;
        const QFileInfo info(path());
        settings.setValue(QStringLiteral("export/dir"), info.absolutePath());
        settings.setValue(QStringLiteral("export/format"), info.suffix().toLower());
        settings.setValue(QStringLiteral("export/width"), m_width->value());
        settings.setValue(QStringLiteral("export/height"), m_height->value());
        settings.setValue(QStringLiteral("export/dpi"), m_dpi->value());
    }

private:
    QLineEdit *m_path;
    QSpinBox *m_width;
    QSpinBox *m_height;
    QSpinBox *m_dpi;
};

} // namespace

void exportChartInteractively(ExportableChart *chart, QWidget *parent)
{
    ExportChartDialog dialog(chart->exportName(), parent->window());
    if (dialog.exec() != QDialog::Accepted)
        return;
    QString error;
    if (saveChart(*chart, dialog.path(), dialog.size(), dialog.dpi(), &error))
        dialog.remember();
    else
        QMessageBox::warning(parent->window(), QObject::tr("Export Chart"), error);
}

void installChartExportActions(ExportableChart *chart, QWidget *target)
{
    target->setContextMenuPolicy(Qt::ActionsContextMenu);
    auto *copy = new QAction(QObject::tr("Copy Chart"), target);
    QObject::connect(copy, &QAction::triggered, target, [chart] {
        copyChartToClipboard(*chart, chart->chartWidget()->size().expandedTo(QSize(640, 400)));
    });
    auto *exportImage = new QAction(QObject::tr("Export Chart…"), target);
    QObject::connect(exportImage, &QAction::triggered, target,
                     [chart, target] { exportChartInteractively(chart, target); });
    auto *exportData = new QAction(QObject::tr("Export Data (CSV)…"), target);
    QObject::connect(exportData, &QAction::triggered, target, [chart, target] {
        const QString dir = QSettings()
                                .value(QStringLiteral("export/dir"),
                                       QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation))
                                .toString();
        const QString path = QFileDialog::getSaveFileName(
            target->window(), QObject::tr("Export Chart Data"),
            dir + QLatin1Char('/') + chart->exportName() + QStringLiteral(".csv"), QObject::tr("CSV (*.csv)"));
        QString error;
        if (!path.isEmpty() && !saveChartCsv(*chart, path, &error))
            QMessageBox::warning(target->window(), QObject::tr("Export Chart Data"), error);
    });
    target->addAction(copy);
    target->addAction(exportImage);
    target->addAction(exportData);
}

} // namespace trainplan
