#pragma once
// Dialogs that define a custom accelerator (peak per precision, HBM capacity and bandwidth, links) and a
// custom node template. Every field is checked as it is typed; OK stays disabled until all hold, and the
// rule that fails is shown under the form with the field's name.

#include <QDialog>

#include "core/hardware/Catalog.h"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace trainplan {

class CustomDeviceDialog : public QDialog
{
    Q_OBJECT

public:
    CustomDeviceDialog(const Catalog &catalog, QWidget *parent = nullptr);
    /// The device as entered (valid once the dialog was accepted).
    DeviceSpec device() const;

private:
    void validate();

    const Catalog &m_catalog;
    QLineEdit *m_name;
    QDoubleSpinBox *m_memoryGiB;
    QDoubleSpinBox *m_bandwidthTBs;
    QDoubleSpinBox *m_peakTflops[kPrecisionCount];
    QDoubleSpinBox *m_scaleUpGBs;
    QDoubleSpinBox *m_networkGBs;
    QDoubleSpinBox *m_powerW;
    QLabel *m_problem;
    QPushButton *m_ok;
};

class NodeTemplateDialog : public QDialog
{
    Q_OBJECT

public:
    NodeTemplateDialog(const Catalog &catalog, const std::vector<DeviceSpec> &customDevices, QWidget *parent = nullptr);
    NodeTemplate nodeTemplate() const;

private:
    QLineEdit *m_name;
    QComboBox *m_device;
    QSpinBox *m_gpus;
    QComboBox *m_link;
    QPushButton *m_ok;
};

/// "custom-my-accelerator" from "My accelerator".
std::string customId(const QString &name);

} // namespace trainplan
