#pragma once
// Asks for what imported files do not give (io/interop/Import.h MissingKey: the device, the node count, the global
// batch, the model, its sequence length): one editor per key, prefilled with the built-in example plan's
// value and saying so, so that nothing is taken from the example without the user seeing it. Its answers
// go back to the import as --set overrides; a launch script's positional parameters, when it expands some it
// was not given (Pai-Megatron-Patch's run_mcore_*.sh dsw 8B 1 8 ...), as its arguments.

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
    /// `missingArguments` > 0: a launch script expands $1 ... $N it was not run with (io::ImportResult);
    /// the dialog then asks for the arguments too, prefilled with `arguments`.
    ImportKeysDialog(const std::vector<io::MissingKey> &missing, const QStringList &files, const Catalog &catalog,
                     int missingArguments = 0, const QStringList &arguments = {}, QWidget *parent = nullptr);

    /// "path=value" per key, as edited (empty values left out).
    QStringList sets() const;
    /// The launch script's arguments, split as a shell splits them (empty when not asked).
    QStringList scriptArguments() const;

private:
    std::vector<io::MissingKey> m_missing;
    std::vector<QComboBox *> m_editors; ///< editable choices: catalog ids for the device and preset
    QLineEdit *m_arguments = nullptr;   ///< the launch script's $1 ... $N, when it expands them
};

} // namespace trainplan
