#pragma once
// Asks for what imported files do not give (io/interop/Import.h MissingKey: the device, the node count, the global
// batch, the model, its sequence length): one editor per key, prefilled with the built-in example plan's
// value and saying so, so that nothing is taken from the example without the user seeing it. Its answers
// go back to the import as --set overrides.

#include <QDialog>
#include <QStringList>

#include <vector>

#include "io/interop/Import.h"

class QComboBox;
class QLineEdit;

namespace trainplan {

class Catalog;

class ImportKeysDialog : public QDialog
{
    Q_OBJECT

public:
    ImportKeysDialog(const std::vector<io::MissingKey> &missing, const QStringList &files, const Catalog &catalog,
                     QWidget *parent = nullptr);

    /// "path=value" per key, as edited (empty values left out).
    QStringList sets() const;

private:
    std::vector<io::MissingKey> m_missing;
    std::vector<QComboBox *> m_editors; ///< editable choices: catalog ids for the device and preset
};

} // namespace trainplan
