#include "ui/editors/PlanEditor.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QSlider>
#include <QSpinBox>
#include <QVBoxLayout>

#include "ui/commands/ChangePlanValue.h"
#include "ui/document/PlanDocument.h"

namespace trainplan {

namespace {

/// Keeps the GPU count when tensor or pipeline size changes, and follows a new node count (otherwise the
/// editor shows the rule).
void rebalanceData(Plan &plan)
{
    deriveDataParallel(plan);
}

QGroupBox *group(QVBoxLayout *column, const QString &title, QFormLayout *&form)
{
    auto *box = new QGroupBox(title);
    form = new QFormLayout(box);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->setRowWrapPolicy(QFormLayout::DontWrapRows);
    column->addWidget(box);
    return box;
}

} // namespace

PlanEditor::PlanEditor(PlanDocument *document, QWidget *parent)
    : QWidget(parent), m_document(document)
{
    auto *scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    auto *content = new QWidget;
    auto *column = new QVBoxLayout(content);
    scroll->setWidget(content);
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(scroll);

    QFormLayout *form = nullptr;
    group(column, tr("Model"), form);
    addPresetChoice(form);
    addInteger(form, PlanField::Layers, tr("Layers"), tr("Transformer layers"), {"model.layers"},
               [](const Plan &p) { return p.model.layers; }, [](Plan &p, std::int64_t v) { p.model.layers = v; }, 1, 100000);
    addInteger(form, PlanField::Hidden, tr("Hidden size"), tr("Model width h"), {"model.hidden"},
               [](const Plan &p) { return p.model.hidden; }, [](Plan &p, std::int64_t v) { p.model.hidden = v; }, 1, 1 << 20);
    addInteger(form, PlanField::Heads, tr("Attention heads"), tr("Query heads a; must divide h and be divisible by t"),
               {"model.heads"}, [](const Plan &p) { return p.model.heads; }, [](Plan &p, std::int64_t v) { p.model.heads = v; }, 1, 65536);
    addInteger(form, PlanField::KvHeads, tr("Key/value heads"), tr("Grouped-query attention: key/value heads"),
               {"model.kv_heads"}, [](const Plan &p) { return p.model.kvHeads; },
               [](Plan &p, std::int64_t v) { p.model.kvHeads = v; }, 1, 65536);
    addInteger(form, PlanField::FfnHidden, tr("MLP width"), tr("Inner width of the MLP"), {"model.ffn_hidden"},
               [](const Plan &p) { return p.model.ffnHidden; }, [](Plan &p, std::int64_t v) { p.model.ffnHidden = v; }, 1, 1 << 22);
    addInteger(form, PlanField::SeqLen, tr("Sequence length"), tr("Tokens per sequence s"), {"model.seq_len"},
               [](const Plan &p) { return p.model.seqLen; }, [](Plan &p, std::int64_t v) { p.model.seqLen = v; }, 1, 1 << 22);
    addInteger(form, PlanField::Vocab, tr("Vocabulary"), tr("Vocabulary size V"), {"model.vocab"},
               [](const Plan &p) { return p.model.vocab; }, [](Plan &p, std::int64_t v) { p.model.vocab = v; }, 1, 1 << 24);

    group(column, tr("Training"), form);
    addInteger(form, PlanField::GlobalBatch, tr("Global batch"), tr("Sequences per optimizer step"), {"training.global_batch"},
               [](const Plan &p) { return p.training.globalBatch; },
               [](Plan &p, std::int64_t v) { p.training.globalBatch = v; }, 1, 1 << 24);
    addMicroBatchSlider(form);
    addChoice<Precision>(form, PlanField::Precision, tr("Precision"), tr("Storage and arithmetic format"), {"training.precision"},
                         {{"BF16", Precision::BF16}, {"FP16", Precision::FP16}, {"FP8", Precision::FP8},
                          {"TF32", Precision::TF32}, {"FP32", Precision::FP32}},
                         [](const Plan &p) { return p.training.precision; }, [](Plan &p, Precision v) { p.training.precision = v; });
    addChoice<Optimizer>(form, PlanField::Optimizer, tr("Optimizer"), tr("Adam keeps two moments; SGD one"), {"training.optimizer"},
                         {{"Adam", Optimizer::Adam}, {"SGD (momentum)", Optimizer::Sgd}},
                         [](const Plan &p) { return p.training.optimizer; }, [](Plan &p, Optimizer v) { p.training.optimizer = v; });
    addChoice<Recompute>(form, PlanField::Recompute, tr("Recomputation"), tr("Activation recomputation (Korthikanti et al. 2022)"),
                         {"training.recompute"},
                         {{tr("None"), Recompute::None}, {tr("Selective (attention)"), Recompute::Selective}, {tr("Full"), Recompute::Full}},
                         [](const Plan &p) { return p.training.recompute; }, [](Plan &p, Recompute v) { p.training.recompute = v; });
    addFlag(form, PlanField::SequenceParallel, tr("Sequence parallel"), tr("Shard norms and dropout over the tensor group"),
            {"training.sequence_parallel"}, [](const Plan &p) { return p.training.sequenceParallel; },
            [](Plan &p, bool v) { p.training.sequenceParallel = v; });
    addFlag(form, PlanField::FlashAttention, tr("Flash attention"), tr("Fused attention: no s x s scores stored"),
            {"training.flash_attention"}, [](const Plan &p) { return p.training.flashAttention; },
            [](Plan &p, bool v) { p.training.flashAttention = v; });
    addFlag(form, PlanField::FusedKernels, tr("Fused kernels"), tr("Fused element-wise chains read and write once"),
            {"training.fused_kernels"}, [](const Plan &p) { return p.training.fusedKernels; },
            [](Plan &p, bool v) { p.training.fusedKernels = v; });

    group(column, tr("Parallelism"), form);
    m_dataLabel = new QLabel;
    m_dataLabel->setToolTip(tr("Data-parallel replicas = GPUs / (tensor x pipeline), kept in step as you edit"));
    form->addRow(tr("Data parallel"), m_dataLabel);
    m_bindings.push_back({{"parallel", "parallel.data"}, addProblemLabel(form), {}});
    addInteger(form, PlanField::Tensor, tr("Tensor parallel"), tr("Tensor-parallel group size t"), {"parallel.tensor"},
               [](const Plan &p) { return p.parallel.tensor; },
               [](Plan &p, std::int64_t v) { p.parallel.tensor = v; rebalanceData(p); }, 1, 4096);
    addInteger(form, PlanField::Pipeline, tr("Pipeline stages"), tr("Pipeline-parallel stages p"), {"parallel.pipeline"},
               [](const Plan &p) { return p.parallel.pipeline; },
               [](Plan &p, std::int64_t v) { p.parallel.pipeline = v; rebalanceData(p); }, 1, 4096);
    addInteger(form, PlanField::VirtualStages, tr("Virtual stages"), tr("Model chunks per stage (interleaved schedule)"),
               {"parallel.virtual_stages"}, [](const Plan &p) { return p.parallel.virtualStages; },
               [](Plan &p, std::int64_t v) { p.parallel.virtualStages = v; }, 1, 64);
    addChoice<Schedule>(form, PlanField::Schedule, tr("Schedule"), tr("Pipeline schedule"), {"parallel.schedule"},
                        {{"1F1B", Schedule::OneFOneB}, {tr("Interleaved 1F1B"), Schedule::Interleaved},
                         {"GPipe", Schedule::GPipe}, {tr("Zero bubble (ZB-H1)"), Schedule::ZeroBubbleH1}},
                        [](const Plan &p) { return p.parallel.schedule; }, [](Plan &p, Schedule v) { p.parallel.schedule = v; });
    addChoice<int>(form, PlanField::ZeroStage, tr("ZeRO stage"), tr("Shard optimizer (1), + gradients (2), + parameters (3)"),
                   {"parallel.zero_stage"},
                   {{tr("0: replicated"), 0}, {tr("1: optimizer"), 1}, {tr("2: + gradients"), 2}, {tr("3: + parameters"), 3}},
                   [](const Plan &p) { return p.parallel.zeroStage; }, [](Plan &p, int v) { p.parallel.zeroStage = v; });
    addFlag(form, PlanField::OffloadOptimizer, tr("Offload optimizer"), tr("Optimizer state in host memory (ZeRO-Offload)"),
            {"parallel.offload_optimizer"}, [](const Plan &p) { return p.parallel.offloadOptimizer; },
            [](Plan &p, bool v) { p.parallel.offloadOptimizer = v; });

    group(column, tr("Cluster"), form);
    addDeviceChoice(form);
    addInteger(form, PlanField::GpusPerNode, tr("GPUs per node"), tr("Accelerators sharing the scale-up link"),
               {"cluster.gpus_per_node"}, [](const Plan &p) { return p.cluster.gpusPerNode; },
               [](Plan &p, std::int64_t v) { p.cluster.setGpusPerNode(v); rebalanceData(p); }, 1, 1024);
    addInteger(form, PlanField::Nodes, tr("Nodes"), tr("Nodes in the cluster"), {"cluster.nodes"},
               [](const Plan &p) { return p.cluster.nodes; }, [](Plan &p, std::int64_t v) { p.cluster.setNodes(v); rebalanceData(p); },
               1, 1 << 20);
    auto *builder = new QPushButton(tr("Cluster Builder…"));
    builder->setObjectName(QStringLiteral("openClusterBuilder"));
    builder->setToolTip(tr("Drag nodes, accelerators and networks together; see where each parallel group lands (Ctrl+B)"));
    connect(builder, &QPushButton::clicked, this, &PlanEditor::clusterBuilderRequested);
    form->addRow(builder);
    column->addStretch(1);

    connect(m_document, &PlanDocument::planChanged, this, &PlanEditor::refresh);
    refresh();
}

QLabel *PlanEditor::addProblemLabel(QFormLayout *form)
{
    auto *label = new QLabel;
    label->setWordWrap(true);
    label->setStyleSheet(QStringLiteral("color: #c0392b;"));
    label->setVisible(false);
    form->addRow(QString(), label);
    return label;
}

void PlanEditor::addInteger(QFormLayout *form, PlanField field, const QString &label, const QString &tip, QStringList keys,
                            std::function<std::int64_t(const Plan &)> get, std::function<void(Plan &, std::int64_t)> set,
                            int minimum, int maximum)
{
    auto *spin = new QSpinBox;
    spin->setRange(minimum, maximum);
    spin->setToolTip(tip);
    spin->setAccelerated(true);
    spin->setObjectName(labelOf(field));
    form->addRow(label, spin);
    connect(spin, &QSpinBox::valueChanged, this, [this, field, get, set](int value) {
        if (m_updating)
            return;
        const std::int64_t old = get(m_document->plan());
        if (old == value)
            return;
        m_document->undoStack()->push(new ChangePlanValue<std::int64_t>(m_document, field, old, value, set));
    });
    m_bindings.push_back({std::move(keys), addProblemLabel(form), [this, spin, get] {
                              const std::int64_t v = get(m_document->plan());
                              spin->setValue(int(std::clamp<std::int64_t>(v, spin->minimum(), spin->maximum())));
                          }});
}

void PlanEditor::addFlag(QFormLayout *form, PlanField field, const QString &label, const QString &tip, QStringList keys,
                         std::function<bool(const Plan &)> get, std::function<void(Plan &, bool)> set)
{
    auto *box = new QCheckBox;
    box->setToolTip(tip);
    box->setObjectName(labelOf(field));
    form->addRow(label, box);
    connect(box, &QCheckBox::toggled, this, [this, field, get, set](bool value) {
        if (m_updating || get(m_document->plan()) == value)
            return;
        m_document->undoStack()->push(new ChangePlanValue<bool>(m_document, field, !value, value, set));
    });
    m_bindings.push_back({std::move(keys), addProblemLabel(form), [this, box, get] { box->setChecked(get(m_document->plan())); }});
}

template<typename Enum>
void PlanEditor::addChoice(QFormLayout *form, PlanField field, const QString &label, const QString &tip, QStringList keys,
                           const std::vector<std::pair<QString, Enum>> &choices, std::function<Enum(const Plan &)> get,
                           std::function<void(Plan &, Enum)> set)
{
    auto *combo = new QComboBox;
    combo->setToolTip(tip);
    combo->setObjectName(labelOf(field));
    for (const auto &[text, value] : choices)
        combo->addItem(text);
    form->addRow(label, combo);
    connect(combo, &QComboBox::currentIndexChanged, this, [this, field, choices, get, set](int index) {
        if (m_updating || index < 0)
            return;
        const Enum value = choices[std::size_t(index)].second;
        const Enum old = get(m_document->plan());
        if (old == value)
            return;
        m_document->undoStack()->push(new ChangePlanValue<Enum>(m_document, field, old, value, set));
    });
    m_bindings.push_back({std::move(keys), addProblemLabel(form), [this, combo, choices, get] {
                              const Enum v = get(m_document->plan());
                              for (std::size_t i = 0; i < choices.size(); ++i)
                                  if (choices[i].second == v)
                                      combo->setCurrentIndex(int(i));
                          }});
}

void PlanEditor::addPresetChoice(QFormLayout *form)
{
    auto *combo = new QComboBox;
    combo->setObjectName(QStringLiteral("preset"));
    combo->setToolTip(tr("Published model shapes (resources/models.json); editing a size makes the model custom"));
    const Catalog &catalog = m_document->catalog();
    for (const ModelSpec &m : catalog.models())
        combo->addItem(QString::fromStdString(m.name), QString::fromStdString(m.presetId));
    combo->addItem(tr("Custom"), QString());
    form->addRow(tr("Preset"), combo);
    connect(combo, &QComboBox::activated, this, [this, combo](int index) {
        const std::string id = combo->itemData(index).toString().toStdString();
        const ModelSpec *preset = m_document->catalog().model(id);
        if (m_updating || !preset || m_document->plan().model == *preset)
            return;
        Plan plan = m_document->plan();
        plan.model = *preset;
        m_document->undoStack()->push(new SetPlan(m_document, plan, tr("Choose model %1").arg(QString::fromStdString(preset->name))));
    });
    m_bindings.push_back({{"model.preset"}, addProblemLabel(form), [this, combo] {
                              const ModelSpec &m = m_document->plan().model;
                              const ModelSpec *preset = m_document->catalog().model(m.presetId);
                              const int index = preset && *preset == m ? combo->findData(QString::fromStdString(m.presetId))
                                                                       : combo->count() - 1;
                              combo->setCurrentIndex(index);
                          }});
}

void PlanEditor::addDeviceChoice(QFormLayout *form)
{
    auto *combo = new QComboBox;
    combo->setObjectName(QStringLiteral("device"));
    combo->setToolTip(tr("Accelerator from the device catalog (resources/devices.json)"));
    const auto fill = [this, combo] {
        combo->clear();
        for (const DeviceSpec &d : m_document->catalog().devices())
            combo->addItem(QString::fromStdString(d.name), QString::fromStdString(d.id));
        for (const DeviceSpec &d : m_document->plan().cluster.customDevices)
            combo->addItem(tr("%1 (custom)").arg(QString::fromStdString(d.name)), QString::fromStdString(d.id));
    };
    fill();
    form->addRow(tr("Device"), combo);
    connect(combo, &QComboBox::currentIndexChanged, this, [this, combo](int index) {
        if (m_updating || index < 0)
            return;
        const std::string id = combo->itemData(index).toString().toStdString();
        const std::string old = m_document->plan().cluster.device;
        if (id == old)
            return;
        m_document->undoStack()->push(new ChangePlanValue<std::string>(m_document, PlanField::Device, old, id,
                                                                       [](Plan &p, const std::string &v) { p.cluster.setDevice(v); }));
    });
    m_bindings.push_back({{"cluster.device"}, addProblemLabel(form), [this, combo, fill] {
                              if (combo->count() != int(m_document->catalog().devices().size()
                                                        + m_document->plan().cluster.customDevices.size()))
                                  fill();
                              combo->setToolTip(m_document->plan().cluster.isMixed()
                                                    ? tr("Mixed cluster: choosing a device here makes every node group use it")
                                                    : tr("Accelerator from the device catalog (resources/devices.json)"));
                              combo->setCurrentIndex(combo->findData(QString::fromStdString(m_document->plan().cluster.device)));
                          }});
}

void PlanEditor::addMicroBatchSlider(QFormLayout *form)
{
    // Powers of two from 1 to 128: drag to watch activation memory and throughput follow; a drag is one
    // undo step (the commands merge).
    auto *slider = new QSlider(Qt::Horizontal);
    slider->setObjectName(QStringLiteral("micro-batch"));
    slider->setRange(0, 7);
    slider->setPageStep(1);
    slider->setTickPosition(QSlider::TicksBelow);
    slider->setToolTip(tr("Sequences per GPU per micro-batch"));
    auto *value = new QLabel;
    value->setMinimumWidth(value->fontMetrics().horizontalAdvance(QStringLiteral("128")));
    auto *row = new QWidget;
    auto *layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(slider, 1);
    layout->addWidget(value);
    form->addRow(tr("Micro-batch"), row);
    connect(slider, &QSlider::valueChanged, this, [this, value](int exponent) {
        value->setText(QString::number(1 << exponent));
        if (m_updating)
            return;
        const std::int64_t old = m_document->plan().training.microBatch;
        const std::int64_t next = std::int64_t(1) << exponent;
        if (old != next)
            m_document->undoStack()->push(new ChangePlanValue<std::int64_t>(
                m_document, PlanField::MicroBatch, old, next, [](Plan &p, std::int64_t v) { p.training.microBatch = v; }));
    });
    m_bindings.push_back({{"training.micro_batch"}, addProblemLabel(form), [this, slider, value] {
                              const std::int64_t b = m_document->plan().training.microBatch;
                              int exponent = 0;
                              while ((std::int64_t(1) << (exponent + 1)) <= b && exponent < 7)
                                  ++exponent;
                              slider->setValue(exponent);
                              value->setText(QString::number(b));
                          }});
}

void PlanEditor::refresh()
{
    m_updating = true;
    const Plan &plan = m_document->plan();
    const Estimate &estimate = m_document->estimate();
    m_dataLabel->setText(tr("%1 (GPUs %2 = %1 x %3 x %4)")
                             .arg(plan.parallel.data)
                             .arg(plan.cluster.gpus())
                             .arg(plan.parallel.tensor)
                             .arg(plan.parallel.pipeline));
    for (Binding &b : m_bindings) {
        if (b.refresh)
            b.refresh();
        QStringList messages;
        for (const Problem &p : estimate.problems)
            if (b.problemKeys.contains(QString::fromStdString(p.key)))
                messages << QString::fromStdString(p.message);
        b.problem->setText(messages.join('\n'));
        b.problem->setVisible(!messages.isEmpty());
    }
    m_updating = false;
}

} // namespace trainplan
