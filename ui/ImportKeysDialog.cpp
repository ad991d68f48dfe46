#include "ui/ImportKeysDialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProcess>
#include <QPushButton>
#include <QVBoxLayout>

#include "core/hardware/Catalog.h"
#include "core/plan/PlanKeys.h"

namespace trainplan {

namespace {

QString exampleText(const QJsonValue &v)
{
    if (v.isString())
        return v.toString();
    if (v.isBool())
        return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    return v.isDouble() ? QString::number(v.toDouble(), 'g', 12) : QString();
}

/// The catalog's ids where the key names one (device, model preset), a choice key's spellings (the precision
/// DeepSpeed's "auto" leaves to the Trainer), else just the example's value.
QStringList choicesFor(const QString &path, const Catalog &catalog)
{
    QStringList ids;
    if (path == QLatin1String("cluster.device"))
        for (const DeviceSpec &d : catalog.devices())
            ids << QString::fromStdString(d.id);
    else if (path == QLatin1String("model.preset"))
        for (const ModelSpec &m : catalog.models())
            ids << QString::fromStdString(m.presetId);
    else if (const PlanKey *key = findPlanKey(path.toStdString()); key && key->choices)
        for (const KeyChoice &c : key->choices())
            ids << QString::fromStdString(c.spelling);
    return ids;
}

} // namespace

ImportKeysDialog::ImportKeysDialog(const std::vector<io::MissingKey> &missing, const QStringList &files,
                                   const Catalog &catalog, int missingArguments, const QStringList &arguments,
                                   QWidget *parent)
    : QDialog(parent)
    , m_missing(missing)
{
    setObjectName(QStringLiteral("importKeys"));
    setWindowTitle(tr("Import: what the files do not say"));
    const QString given =
        files.size() == 1
            ? tr("%1 does not give these keys, which the plan needs.").arg(files.front())
            : tr("%1 do not give these keys, which the plan needs.").arg(files.join(QStringLiteral(", ")));
    auto *intro = new QLabel(
        given + QLatin1Char(' ') +
        tr("Each is filled in with the built-in example plan's value (GPT-3 175B on 512 A100): change what does "
           "not match your run.") +
        (missingArguments > 0 ? QLatin1Char(' ') + tr("The script also reads arguments it was not run with: what "
                                                      "they give replaces the values below.")
                              : QString()));
    intro->setWordWrap(true);
    auto *form = new QFormLayout;
    // A fixed label column: a wrapped label measures its height at the width it is given, and one that the
    // form could still narrow clipped its last line ("... config.json with the").
    const int labelWidth = fontMetrics().averageCharWidth() * 30;
    if (missingArguments > 0) {
        QStringList shown;
        for (const QString &a : arguments)
            shown << (a.contains(QLatin1Char(' ')) ? QLatin1Char('"') + a + QLatin1Char('"') : a);
        m_arguments = new QLineEdit(shown.join(QLatin1Char(' ')));
        m_arguments->setObjectName(QStringLiteral("scriptArguments"));
        m_arguments->setPlaceholderText(tr("dsw 8B 1 8 1e-5 ..."));
        m_arguments->setToolTip(tr("The launch script reads $1 ... $%1 and sets no default for them: the "
                                   "arguments you run it with, as on the command line (quote a value with "
                                   "spaces). The import reads the script again with them.")
                                    .arg(missingArguments));
        auto *label = new QLabel(tr("<b>Script arguments</b><br><small>the script's $1 ... $%1, as you run "
                                    "it</small>")
                                     .arg(missingArguments));
        label->setWordWrap(true);
        label->setFixedWidth(labelWidth);
        label->setBuddy(m_arguments);
        form->addRow(label, m_arguments);
    }
    for (const io::MissingKey &m : m_missing) {
        auto *editor = new QComboBox;
        editor->setEditable(true);
        editor->setObjectName(m.path);
        editor->addItems(choicesFor(m.path, catalog));
        editor->setCurrentText(exampleText(m.example));
        editor->setToolTip(tr("%1; the example plan has %2").arg(m.meaning, exampleText(m.example)));
        editor->setMinimumContentsLength(18);
        auto *label = new QLabel(
            QStringLiteral("<b>%1</b><br><small>%2</small>").arg(m.path.toHtmlEscaped(), m.meaning.toHtmlEscaped()));
        label->setWordWrap(true);
        label->setFixedWidth(labelWidth);
        label->setBuddy(editor);
        form->addRow(label, editor);
        m_editors.push_back(editor);
    }
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Import with These"));
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    setMinimumWidth(fontMetrics().averageCharWidth() * 80);
    auto *column = new QVBoxLayout(this);
    column->addWidget(intro);
    column->addLayout(form);
    column->addWidget(buttons);
}

QStringList ImportKeysDialog::scriptArguments() const
{
    return m_arguments ? QProcess::splitCommand(m_arguments->text()) : QStringList();
}

QStringList ImportKeysDialog::sets() const
{
    QStringList out;
    for (std::size_t i = 0; i < m_missing.size(); ++i) {
        const QString value = m_editors[i]->currentText().trimmed();
        if (!value.isEmpty())
            out << m_missing[i].path + QLatin1Char('=') + value;
    }
    return out;
}

} // namespace trainplan
