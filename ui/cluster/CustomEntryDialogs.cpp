#include "ui/cluster/CustomEntryDialogs.h"

#include "ui/FormWidgets.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QVBoxLayout>

#include "core/common/Units.h"
#include "io/plan/CatalogJson.h"

namespace trainplan {

std::string customId(const QString &name)
{
    QString slug = name.trimmed().toLower();
    slug.replace(QRegularExpression(QStringLiteral("[^a-z0-9]+")), QStringLiteral("-"));
    slug.remove(QRegularExpression(QStringLiteral("^-+|-+$")));
    return ("custom-" + slug).toStdString();
}


CustomDeviceDialog::CustomDeviceDialog(const Catalog &catalog, QWidget *parent) : QDialog(parent), m_catalog(catalog)
{
    setWindowTitle(tr("New Accelerator"));
    const DeviceSpec base = io::customDeviceTemplate();
    auto *form = new QFormLayout;
    m_name = new QLineEdit;
    m_name->setObjectName(QStringLiteral("name"));
    m_name->setPlaceholderText(tr("e.g. My accelerator 96GB"));
    form->addRow(tr("Name"), m_name);
    m_memoryGiB = numberSpinBox(0, 1e5, 96, 1, tr(" GiB"));
    m_memoryGiB->setObjectName(QStringLiteral("memory"));
    form->addRow(tr("HBM capacity"), m_memoryGiB);
    m_bandwidthTBs = numberSpinBox(0, 1e3, 3.0, 2, tr(" TB/s"));
    m_bandwidthTBs->setObjectName(QStringLiteral("bandwidth"));
    form->addRow(tr("HBM bandwidth"), m_bandwidthTBs);
    for (std::size_t i = 0; i < kPrecisionCount; ++i) {
        const QString name = QString::fromLatin1(labelOf(Precision(i)));
        m_peakTflops[i] = numberSpinBox(0, 1e6, base.peakFlopsPerSecond[i] / units::Tera, 1, tr(" TFLOP/s"));
        m_peakTflops[i]->setObjectName(QStringLiteral("peak-") + name.toLower());
        m_peakTflops[i]->setToolTip(tr("Dense peak in %1; 0 if the device has no %1 path").arg(name));
        form->addRow(tr("Peak %1").arg(name), m_peakTflops[i]);
    }
    m_scaleUpGBs = numberSpinBox(0.1, 1e5, base.intraNodeBandwidthBytesPerSecond / units::Giga, 1, tr(" GB/s"));
    m_scaleUpGBs->setToolTip(tr("Scale-up link per GPU and direction; a node template's link replaces it"));
    form->addRow(tr("Scale-up link"), m_scaleUpGBs);
    m_networkGBs = numberSpinBox(0.01, 1e4, base.networkBandwidthBytesPerSecond / units::Giga, 2, tr(" GB/s"));
    m_networkGBs->setToolTip(tr("Network share per GPU and direction; the cluster's network tier replaces it"));
    form->addRow(tr("Network per GPU"), m_networkGBs);
    m_powerW = numberSpinBox(0, 1e5, base.boardPowerWatts, 0, tr(" W"));
    form->addRow(tr("Board power"), m_powerW);

    auto *note =
        new QLabel(tr("Kernel and link efficiencies are the A100's calibrated figures (docs/CALIBRATION.md)."));
    note->setWordWrap(true);
    m_problem = new QLabel;
    m_problem->setObjectName(QStringLiteral("problem"));
    m_problem->setWordWrap(true);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    m_ok = buttons->button(QDialogButtonBox::Ok);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *column = new QVBoxLayout(this);
    column->addLayout(form);
    column->addWidget(note);
    column->addWidget(m_problem);
    column->addWidget(buttons);

    connect(m_name, &QLineEdit::textChanged, this, &CustomDeviceDialog::validate);
    for (QDoubleSpinBox *s : findChildren<QDoubleSpinBox *>())
        connect(s, &QDoubleSpinBox::valueChanged, this, &CustomDeviceDialog::validate);
    validate();
}

DeviceSpec CustomDeviceDialog::device() const
{
    DeviceSpec d = io::customDeviceTemplate();
    d.name = m_name->text().trimmed().toStdString();
    d.id = customId(m_name->text());
    d.memoryBytes = m_memoryGiB->value() * 1073741824.0;
    d.memoryBandwidthBytesPerSecond = m_bandwidthTBs->value() * units::Tera;
    for (std::size_t i = 0; i < kPrecisionCount; ++i)
        d.peakFlopsPerSecond[i] = m_peakTflops[i]->value() * units::Tera;
    d.intraNodeBandwidthBytesPerSecond = m_scaleUpGBs->value() * units::Giga;
    d.networkBandwidthBytesPerSecond = m_networkGBs->value() * units::Giga;
    d.boardPowerWatts = m_powerW->value();
    return d;
}

void CustomDeviceDialog::validate()
{
    QString problem;
    const DeviceSpec d = device();
    bool anyPeak = false;
    for (double peak : d.peakFlopsPerSecond)
        anyPeak = anyPeak || peak > 0;
    if (m_name->text().trimmed().isEmpty())
        problem = tr("Name: must not be empty");
    else if (d.id == "custom-")
        problem = tr("Name: needs at least one letter or digit");
    else if (m_catalog.device(d.id))
        problem = tr("Name: \"%1\" is already a built-in device").arg(QString::fromStdString(d.id));
    else if (!(d.memoryBytes > 0))
        problem = tr("HBM capacity: must be positive");
    else if (!(d.memoryBandwidthBytesPerSecond > 0))
        problem = tr("HBM bandwidth: must be positive");
    else if (!anyPeak)
        problem = tr("Peak: at least one precision needs a positive peak");
    m_problem->setText(problem);
    m_problem->setVisible(!problem.isEmpty());
    m_ok->setEnabled(problem.isEmpty());
}

NodeTemplateDialog::NodeTemplateDialog(const Catalog &catalog, const std::vector<DeviceSpec> &customDevices,
                                       QWidget *parent)
    : QDialog(parent)
{
    setWindowTitle(tr("New Node Template"));
    auto *form = new QFormLayout;
    m_name = new QLineEdit;
    m_name->setPlaceholderText(tr("e.g. 8 x My accelerator"));
    form->addRow(tr("Name"), m_name);
    m_device = new QComboBox;
    for (const DeviceSpec &d : catalog.devices())
        m_device->addItem(QString::fromStdString(d.name), QString::fromStdString(d.id));
    for (const DeviceSpec &d : customDevices)
        m_device->addItem(tr("%1 (custom)").arg(QString::fromStdString(d.name)), QString::fromStdString(d.id));
    form->addRow(tr("Accelerator"), m_device);
    m_gpus = new QSpinBox;
    m_gpus->setRange(1, 1024);
    m_gpus->setValue(8);
    form->addRow(tr("Per node"), m_gpus);
    m_link = new QComboBox;
    m_link->addItem(tr("Device's own scale-up link"), QString());
    for (const LinkSpec &l : catalog.intraNodeLinks())
        m_link->addItem(QString::fromStdString(l.name), QString::fromStdString(l.id));
    form->addRow(tr("Intra-node link"), m_link);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    m_ok = buttons->button(QDialogButtonBox::Ok);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *column = new QVBoxLayout(this);
    column->addLayout(form);
    column->addWidget(buttons);
    const auto validate = [this] { m_ok->setEnabled(!m_name->text().trimmed().isEmpty()); };
    connect(m_name, &QLineEdit::textChanged, this, validate);
    validate();
}

NodeTemplate NodeTemplateDialog::nodeTemplate() const
{
    NodeTemplate t;
    t.name = m_name->text().trimmed().toStdString();
    t.id = customId(m_name->text());
    t.device = m_device->currentData().toString().toStdString();
    t.gpusPerNode = m_gpus->value();
    t.intraNodeLink = m_link->currentData().toString().toStdString();
    t.source = "user-defined";
    return t;
}

} // namespace trainplan
