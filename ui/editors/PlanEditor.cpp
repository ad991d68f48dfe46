#include "ui/editors/PlanEditor.h"

#include "ui/FormWidgets.h"

#include <QApplication>

#include "charts/ChartStyle.h"

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QComboBox>
#include <QCoreApplication>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSlider>
#include <QSpinBox>
#include <QVBoxLayout>

#include <climits>
#include <cmath>
#include <utility>

#include "ui/commands/ChangePlanValue.h"
#include "ui/commands/ReplacePlan.h"
#include "ui/document/PlanDocument.h"
#include "core/plan/PlanName.h"
#include "io/plan/ProblemWords.h"

namespace trainplan {

namespace {

QString keyText(const char *text) { return QCoreApplication::translate("PlanKey", text); }

/// What an unset key shows: the words in its default's parentheses ("0 (an even share)", "absent
/// (dropless)"), or the key it follows ("= ffn_hidden").
QString unsetText(const PlanKey &key)
{
    const QString text = io::keyDefaultText(key);
    const qsizetype open = text.indexOf(QLatin1Char('(')), close = text.lastIndexOf(QLatin1Char(')'));
    if (open >= 0 && close > open)
        return text.mid(open + 1, close - open - 1);
    return text == QLatin1String("device") ? QCoreApplication::translate("PlanEditor", "from the device")
                                           : QStringLiteral("= ") + text;
}

/// The tooltip: what the key means, with its rule.
QString tooltipOf(const PlanKey &key)
{
    QString tip = io::keyTooltip(key);
    if (!tip.isEmpty())
        tip[0] = tip[0].toUpper();
    if (const QString rule = io::keyRule(key); !rule.isEmpty())
        tip += (tip.isEmpty() ? QString() : QStringLiteral("; ")) + rule;
    return tip;
}

int clampToInt(double v) { return int(std::clamp(v, double(INT_MIN), double(INT_MAX))); }

} // namespace

PlanEditor::PlanEditor(PlanDocument *document, QWidget *parent)
    : QWidget(parent), m_document(document)
{
    auto *scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    // Fields shrink to the dock's width (long choices elide) instead of scrolling sideways.
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    auto *content = new QWidget;
    auto *column = new QVBoxLayout(content);
    scroll->setWidget(content);
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(scroll);

    addSection(column, tr("Plan"), "");
    addSection(column, tr("Model"), "model");
    addSection(column, tr("Training"), "training");
    addSection(column, tr("Parallelism"), "parallel");
    addSection(column, tr("Cluster"), "cluster");
    addSection(column, tr("Run: time, cost and failures"), "run");
    column->addStretch(1);

    connect(m_document, &PlanDocument::keyChanged, this, [this](const QString &path) { m_changedKeys.insert(path); });
    connect(m_document, &PlanDocument::estimateChanged, this, &PlanEditor::refreshChanged);
    refresh();
    // The dock never gets narrower than its fields: another page's minimum width cannot clip them.
    setMinimumWidth(content->minimumSizeHint().width() + scroll->verticalScrollBar()->sizeHint().width() + 2);
}

void PlanEditor::addSection(QVBoxLayout *column, const QString &title, std::string_view section)
{
    auto *box = new QGroupBox(title);
    auto *form = new QFormLayout(box);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->setRowWrapPolicy(QFormLayout::DontWrapRows);
    column->addWidget(box);
    if (section == "parallel")
        addDataLabel(form);
    for (const PlanKey &key : planKeys())
        if (key.section() == section && key.editor != KeyEditor::None)
            addField(form, key);
    if (section == "cluster") {
        auto *builder = new QPushButton(tr("Cluster Builder…"));
        builder->setObjectName(QStringLiteral("openClusterBuilder"));
        builder->setToolTip(
            tr("Drag nodes, accelerators and networks together; see where each parallel group lands (Ctrl+B)"));
        connect(builder, &QPushButton::clicked, this, &PlanEditor::clusterBuilderRequested);
        form->addRow(builder);
    }
}

void PlanEditor::addField(QFormLayout *form, const PlanKey &key)
{
    switch (key.editor) {
    case KeyEditor::Spin: addSpin(form, key); break;
    case KeyEditor::Check: addCheck(form, key); break;
    case KeyEditor::Choice: addChoice(form, key); break;
    case KeyEditor::PowerOfTwoSlider: addPowerOfTwoSlider(form, key); break;
    case KeyEditor::Preset: addPresetChoice(form, key); break;
    case KeyEditor::Device: addDeviceChoice(form, key); break;
    case KeyEditor::Text: addText(form, key); break;
    case KeyEditor::Number: addNumber(form, key); break;
    case KeyEditor::None: break;
    }
}

/// The warning colour of the palette in force (a fixed red was dim on the dark palette).
void PlanEditor::setWarningColour(QLabel *label)
{
    QPalette p = label->palette();
    p.setColor(QPalette::WindowText, chartstyle::warning(QApplication::palette()));
    label->setPalette(p);
}

void PlanEditor::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::ApplicationPaletteChange || event->type() == QEvent::PaletteChange)
        for (QLabel *label : findChildren<QLabel *>(QStringLiteral("problem")))
            setWarningColour(label);
}

WrappedLabel *PlanEditor::addProblemLabel(QFormLayout *form)
{
    auto *label = new WrappedLabel;
    label->setWordWrap(true);
    label->setObjectName(QStringLiteral("problem"));
    setWarningColour(label);
    label->setVisible(false);
    form->addRow(label); // across both columns: the field column alone is too narrow for a sentence
    return label;
}

void PlanEditor::bind(QFormLayout *form, const PlanKey &key, std::function<void()> refresh, QStringList alsoWatches)
{
    // The field is the last row added before the problem label.
    QWidget *field =
        form->rowCount() > 0 ? form->itemAt(form->rowCount() - 1, QFormLayout::FieldRole)->widget() : nullptr;
    alsoWatches.prepend(QLatin1String(key.path));
    m_bindings.push_back({{QLatin1String(key.path)}, addProblemLabel(form), std::move(refresh), form, field, &key,
                          std::move(alsoWatches)});
}

bool PlanEditor::Binding::watchesAny(const QSet<QString> &changed) const
{
    for (const QString &w : watches) {
        if (w == QLatin1String("*") ? !changed.isEmpty() : changed.contains(w))
            return true;
        if (w.endsWith(QLatin1Char('.')))
            for (const QString &path : changed)
                if (path.startsWith(w))
                    return true;
    }
    return false;
}

void PlanEditor::pushValue(const PlanKey &key, const KeyValue &value)
{
    if (m_updating || key.get(m_document->plan()) == value)
        return;
    auto *command = new ChangePlanValue(m_document, key, value);
    m_document->undoStack()->push(command); // may merge into the previous edit of the key and be deleted
    // An edit that left the plan as it was (completeEdit kept the key) changes nothing the document would
    // signal: the field shows the plan's value again.
    if (key.get(m_document->plan()) != value) {
        const QSet<QString> self{QLatin1String(key.path)};
        refreshFields(&self);
    }
    const QUndoCommand *top = m_document->undoStack()->command(m_document->undoStack()->index() - 1);
    if (const auto *change = dynamic_cast<const ChangePlanValue *>(top); change && !change->note().isEmpty())
        emit noteEdit(change->note());
}

void PlanEditor::addDataLabel(QFormLayout *form)
{
    m_dataLabel = new QLabel;
    m_dataLabel->setObjectName(QStringLiteral("parallel.data"));
    m_dataLabel->setToolTip(tr("Data-parallel replicas = GPUs / (tensor x pipeline), kept in step as you edit"));
    m_dataLabel->setWordWrap(true); // "64 (GPUs 8192 = 64 x 8 x 16)" wraps rather than widening the dock
    form->addRow(tr("Data parallel"), m_dataLabel);
    m_bindings.push_back({{QStringLiteral("parallel"), QStringLiteral("parallel.data")}, addProblemLabel(form), {}});
}

void PlanEditor::addSpin(QFormLayout *form, const PlanKey &key)
{
    auto *spin = new QSpinBox;
    spin->setRange(clampToInt(key.range.minimum), clampToInt(key.range.maximum));
    spin->setMinimumWidth(spin->fontMetrics().horizontalAdvance(QStringLiteral("0000000")) +
                          30); // not the width of 2^30
    spin->setToolTip(tooltipOf(key));
    spin->setAccelerated(true);
    spin->setObjectName(QLatin1String(key.path));
    // A 0 that means "not set" reads as what applies instead ("= ffn_hidden", "an even share"), not 0.
    if (key.zeroMeansUnset && key.range.minimum <= 0)
        spin->setSpecialValueText(unsetText(key));
    form->addRow(io::keyLabel(key), spin);
    connect(spin, &QSpinBox::valueChanged, this, [this, &key](int value) { pushValue(key, std::int64_t(value)); });
    bind(form, key, [this, spin, &key] {
        const KeyValue value = key.get(m_document->plan());
        const auto *v = std::get_if<std::int64_t>(&value);
        spin->setValue(v ? clampToInt(double(*v)) : spin->minimum());
    });
}

void PlanEditor::addText(QFormLayout *form, const PlanKey &key)
{
    auto *line = new QLineEdit;
    line->setObjectName(QLatin1String(key.path));
    line->setMinimumWidth(80);
    line->setToolTip(tooltipOf(key));
    line->setMaxLength(int(key.maxLength > 0 ? key.maxLength : kMaxIdLength));
    line->setClearButtonEnabled(true);
    form->addRow(io::keyLabel(key), line);
    // One undo step per finished edit (Enter or leaving the field), not per keystroke.
    connect(line, &QLineEdit::editingFinished, this, [this, line, &key] {
        line->setModified(false);
        pushValue(key, line->text().trimmed().toStdString());
    });
    const bool isName = std::string_view(key.path) == "name";
    bind(
        form, key,
        [this, line, &key, isName] {
        const Plan &plan = m_document->plan();
        const KeyValue value = key.get(plan);
        const auto *text = std::get_if<std::string>(&value);
        const QString shown = text ? QString::fromStdString(*text) : QString();
        if (line->text() != shown && !line->isModified()) {
            line->setText(shown);
            line->setCursorPosition(0); // a long description reads from its start
            line->setToolTip(shown.isEmpty() ? tooltipOf(key) : shown + QStringLiteral("\n\n") + tooltipOf(key));
        }
        // The automatic name is the placeholder of an empty name field, whole in the tooltip (the field is narrow).
        if (isName) {
            const QString automatic = QString::fromStdString(automaticPlanName(plan, m_document->catalog()));
            line->setPlaceholderText(automatic);
            if (shown.isEmpty())
                line->setToolTip(tr("Automatic name: %1\n\n%2").arg(automatic, tooltipOf(key)));
        }
        },
        isName ? QStringList{QStringLiteral("*")} : QStringList{}); // the automatic name follows every key
}

void PlanEditor::addNumber(QFormLayout *form, const PlanKey &key)
{
    // A real number in the key's display unit: the token budget in billions, bandwidth in GB/s, the price
    // in the plan's currency.
    auto *spin = new QDoubleSpinBox;
    spin->setObjectName(QLatin1String(key.path));
    spin->setMinimumWidth(spin->fontMetrics().horizontalAdvance(QStringLiteral("0000000")) + 30);
    spin->setToolTip(tooltipOf(key));
    spin->setDecimals(key.displayDecimals);
    spin->setRange(key.range.minimum / key.displayScale, key.range.maximum / key.displayScale);
    // An optional key (absent: its default applies) gets one step below its range that means absent,
    // shown as its default ("absent (dropless)").
    const double absent =
        key.optional ? key.range.minimum / key.displayScale - std::pow(10.0, -key.displayDecimals) : 0.0;
    if (key.optional) {
        spin->setMinimum(absent);
        spin->setSpecialValueText(unsetText(key));
    }
    spin->setKeyboardTracking(false);
    spin->setGroupSeparatorShown(true);
    const bool price = std::string_view(key.path) == "run.price_per_gpu_hour";
    if (*key.displayUnit)
        spin->setSuffix(QLatin1Char(' ') + keyText(key.displayUnit));
    form->addRow(io::keyLabel(key), spin);
    connect(spin, &QDoubleSpinBox::valueChanged, this, [this, spin, &key](double shown) {
        pushValue(key, key.optional && shown <= spin->minimum() ? KeyValue() : KeyValue(shown * key.displayScale));
    });
    bind(form, key, [this, spin, &key, price] {
        const KeyValue value = key.get(m_document->plan());
        const auto *v = std::get_if<double>(&value);
        if (price)
            spin->setSuffix(QLatin1Char(' ') + QString::fromStdString(m_document->plan().run.currency));
        spin->setValue(v ? *v / key.displayScale : spin->minimum());
    }, {QStringLiteral("run.currency")});
}

void PlanEditor::addCheck(QFormLayout *form, const PlanKey &key)
{
    auto *box = new QCheckBox;
    box->setToolTip(tooltipOf(key));
    box->setObjectName(QLatin1String(key.path));
    form->addRow(io::keyLabel(key), box);
    connect(box, &QCheckBox::toggled, this, [this, &key](bool value) { pushValue(key, value); });
    bind(form, key, [this, box, &key] { box->setChecked(key.get(m_document->plan()) == KeyValue(true)); });
}

namespace {
QComboBox *narrowCombo()
{
    auto *combo = new ChoiceBox; // a narrow box shows a choice's short form, the list every one whole
    combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    combo->setMinimumContentsLength(8);
    return combo;
}

} // namespace

void PlanEditor::addChoice(QFormLayout *form, const PlanKey &key)
{
    auto *combo = narrowCombo();
    combo->setToolTip(tooltipOf(key));
    combo->setObjectName(QLatin1String(key.path));
    // An enum key's value is its spelling; an integer key edited as a choice (ZeRO stage) its number.
    const auto valueOf = [&key](const KeyChoice &choice) -> KeyValue {
        if (key.type == KeyType::Integer)
            return std::int64_t(std::stoll(choice.spelling));
        return choice.spelling;
    };
    for (const KeyChoice &choice : key.choices())
        combo->addItem(keyText(choice.label.c_str()));
    form->addRow(io::keyLabel(key), combo);
    connect(combo, &QComboBox::currentIndexChanged, this, [this, &key, valueOf](int index) {
        if (index >= 0 && std::size_t(index) < key.choices().size())
            pushValue(key, valueOf(key.choices()[std::size_t(index)]));
    });
    bind(form, key, [this, combo, &key, valueOf] {
        const KeyValue v = key.get(m_document->plan());
        for (std::size_t i = 0; i < key.choices().size(); ++i)
            if (valueOf(key.choices()[i]) == v)
                combo->setCurrentIndex(int(i));
    });
}

void PlanEditor::addPowerOfTwoSlider(QFormLayout *form, const PlanKey &key)
{
    // Powers of two from 1 to 128: drag to watch activation memory and throughput follow; a drag is one
    // undo step (the commands merge).
    auto *slider = new QSlider(Qt::Horizontal);
    slider->setObjectName(QLatin1String(key.path));
    slider->setRange(0, 7);
    slider->setPageStep(1);
    slider->setTickPosition(QSlider::TicksBelow);
    slider->setToolTip(tooltipOf(key));
    auto *value = new QLabel;
    value->setMinimumWidth(value->fontMetrics().horizontalAdvance(QStringLiteral("128")));
    auto *row = new QWidget;
    auto *layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(slider, 1);
    layout->addWidget(value);
    form->addRow(io::keyLabel(key), row);
    connect(slider, &QSlider::valueChanged, this, [this, value, &key](int exponent) {
        value->setText(QString::number(1 << exponent));
        pushValue(key, std::int64_t(1) << exponent);
    });
    bind(form, key, [this, slider, value, &key] {
        const KeyValue v = key.get(m_document->plan());
        const auto *b = std::get_if<std::int64_t>(&v);
        const std::int64_t current = b ? *b : 1;
        int exponent = 0;
        while ((std::int64_t(1) << (exponent + 1)) <= current && exponent < 7)
            ++exponent;
        slider->setValue(exponent);
        value->setText(QString::number(current));
    });
}

void PlanEditor::addPresetChoice(QFormLayout *form, const PlanKey &key)
{
    auto *combo = narrowCombo();
    combo->setObjectName(QLatin1String(key.path));
    combo->setToolTip(tooltipOf(key));
    for (const ModelSpec &m : m_document->catalog().models())
        combo->addItem(QString::fromStdString(m.name), QString::fromStdString(m.presetId));
    combo->addItem(tr("Custom"), QString());
    form->addRow(io::keyLabel(key), combo);
    connect(combo, &QComboBox::activated, this, [this, combo](int index) {
        const std::string id = combo->itemData(index).toString().toStdString();
        const ModelSpec *preset = m_document->catalog().model(id);
        if (m_updating || !preset || m_document->plan().model == *preset)
            return;
        Plan plan = m_document->plan();
        plan.model = *preset;
        m_document->undoStack()->push(
            new ReplacePlan(m_document, plan, tr("Choose model %1").arg(QString::fromStdString(preset->name))));
    });
    bind(form, key, [this, combo] {
        const ModelSpec &m = m_document->plan().model;
        const ModelSpec *preset = m_document->catalog().model(m.presetId);
        combo->setCurrentIndex(preset && *preset == m ? combo->findData(QString::fromStdString(m.presetId))
                                                      : combo->count() - 1);
    }, {QStringLiteral("model.")}); // "Custom" once any shape key leaves the preset's
}

void PlanEditor::addDeviceChoice(QFormLayout *form, const PlanKey &key)
{
    auto *combo = narrowCombo();
    combo->setObjectName(QLatin1String(key.path));
    const QString tip = tooltipOf(key);
    const auto fill = [this, combo] {
        combo->clear();
        for (const DeviceSpec &d : m_document->catalog().devices())
            combo->addItem(QString::fromStdString(d.name), QString::fromStdString(d.id));
        for (const DeviceSpec &d : m_document->plan().cluster.customDevices)
            combo->addItem(tr("%1 (custom)").arg(QString::fromStdString(d.name)), QString::fromStdString(d.id));
    };
    fill();
    form->addRow(io::keyLabel(key), combo);
    connect(combo, &QComboBox::currentIndexChanged, this, [this, combo, &key](int index) {
        if (index >= 0)
            pushValue(key, combo->itemData(index).toString().toStdString());
    });
    bind(form, key, [this, combo, fill, tip] {
        const Plan &plan = m_document->plan();
        if (combo->count() != int(m_document->catalog().devices().size() + plan.cluster.customDevices.size()))
            fill();
        combo->setToolTip(
            plan.cluster.isMixed() ? tr("Mixed cluster: choosing a device here makes every node group use it") : tip);
        combo->setCurrentIndex(combo->findData(QString::fromStdString(plan.cluster.device)));
    }, {QStringLiteral("cluster.")}); // the custom devices listed, the mixed cluster's tooltip
}

void PlanEditor::refresh() { refreshFields(nullptr); }

void PlanEditor::refreshChanged()
{
    const QSet<QString> changed = std::exchange(m_changedKeys, {});
    refreshFields(&changed);
}

void PlanEditor::refreshFields(const QSet<QString> *changed)
{
    m_updating = true;
    const Plan &plan = m_document->plan();
    // "=" only when the layout multiplies out to the cluster's GPUs; an invalid layout (a node dropped on a
    // cluster the model-parallel groups no longer divide) reads "≠", its problem under the field.
    const ParallelConfig &par = plan.parallel;
    const bool whole = par.data * par.tensor * par.pipeline * par.context == plan.cluster.gpus();
    const QString relation = whole ? QStringLiteral("=") : QStringLiteral("\u2260");
    m_dataLabel->setText(par.context > 1 ? tr("%1 (GPUs %2 %6 %1 x %3 x %4 x %5)")
                                               .arg(par.data)
                                               .arg(plan.cluster.gpus())
                                               .arg(par.tensor)
                                               .arg(par.pipeline)
                                               .arg(par.context)
                                               .arg(relation)
                                         : tr("%1 (GPUs %2 %5 %1 x %3 x %4)")
                                               .arg(par.data)
                                               .arg(plan.cluster.gpus())
                                               .arg(par.tensor)
                                               .arg(par.pipeline)
                                               .arg(relation));
    for (Binding &b : m_bindings) {
        if (b.refresh && (!changed || b.watchesAny(*changed)))
            b.refresh();
        QStringList messages;
        for (const Problem &p : m_document->problems())
            if (b.problemKeys.contains(QString::fromStdString(p.key)))
                messages << io::problemText(p);
        b.problem->setText(messages.join('\n'));
        // Keys that do not apply (expert keys of a dense model, MLA sizes under MHA) hide their row, unless
        // they carry a problem to fix.
        const bool applies = !b.key || keyApplies(*b.key, plan) || !messages.isEmpty();
        if (b.form && b.field)
            b.form->setRowVisible(b.field, applies);
        b.problem->setVisible(applies && !messages.isEmpty());
        b.problem->fitHeight();
    }
    m_updating = false;
}

} // namespace trainplan
