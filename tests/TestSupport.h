#pragma once
// Shared helpers for tests: the built-in catalog, plan construction and a small CSV reader for the
// published validation tables in tests/data/validation (copied from shared/validation with sources).

#include <QFile>
#include <QString>
#include <QStringList>
#include <QTest>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/plan/CatalogJson.h"
#include "io/plan/PlanJson.h"
#include "io/plan/ProblemWords.h"
#include "core/estimate/Estimate.h"
#include "core/plan/Plan.h"
#include "core/plan/PlanValidation.h"
#include "core/profile/ProfileComparison.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <array>

namespace trainplan::test {

inline QString dataPath(const QString &relative)
{
    return QStringLiteral(TRAINPLAN_TEST_DATA_DIR "/") + relative;
}

/// Rows of a CSV file as lists of fields; handles quoted fields with commas and doubled quotes.
inline std::vector<QStringList> readCsv(const QString &path)
{
    std::vector<QStringList> rows;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return rows;
    const QString text = QString::fromUtf8(file.readAll());
    QStringList row;
    QString field;
    bool quoted = false;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text.at(i);
        if (quoted) {
            if (c == '"' && i + 1 < text.size() && text.at(i + 1) == '"') {
                field += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                field += c;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            row << field;
            field.clear();
        } else if (c == '\n') {
            row << field;
            field.clear();
            rows.push_back(row);
            row.clear();
        } else if (c != '\r') {
            field += c;
        }
    }
    if (!field.isEmpty() || !row.isEmpty()) {
        row << field;
        rows.push_back(row);
    }
    return rows;
}

/// A Megatron-style GPT shape: GELU MLP of 4h, multi-head attention, LayerNorm, biases, learned
/// positions, dropout, tied embeddings.
inline ModelSpec gptModel(std::int64_t layers, std::int64_t hidden, std::int64_t heads, std::int64_t vocab = 51200,
                          std::int64_t seq = 2048)
{
    ModelSpec m;
    m.name = "GPT";
    m.layers = layers;
    m.hidden = hidden;
    m.heads = m.kvHeads = heads;
    m.ffnHidden = 4 * hidden;
    m.vocab = vocab;
    m.seqLen = seq;
    m.mlp = MlpKind::Gelu;
    applyArchitectureDefaults(m);
    m.tiedEmbeddings = true;
    return m;
}

/// A plan from a built-in preset with the given layout; everything else at its documented default.
inline Plan presetPlan(const char *preset, std::int64_t tensor, std::int64_t pipeline, std::int64_t data,
                       std::int64_t microBatch, std::int64_t globalBatch, const char *device = "a100-sxm4-80gb")
{
    Plan plan;
    const ModelSpec *model = io::builtinCatalog().model(preset);
    if (!model)
        qFatal("unknown preset %s", preset);
    plan.model = *model;
    plan.name = model->name;
    plan.training.microBatch = microBatch;
    plan.training.globalBatch = globalBatch;
    plan.parallel.tensor = tensor;
    plan.parallel.pipeline = pipeline;
    plan.parallel.data = data;
    plan.cluster.device = device;
    plan.cluster.gpusPerNode = 8;
    const std::int64_t gpus = tensor * pipeline * data;
    if (gpus < 8) {
        plan.cluster.gpusPerNode = gpus;
        plan.cluster.nodes = 1;
    } else {
        plan.cluster.nodes = gpus / 8;
    }
    return plan;
}

/// Qwen3-30B-A3B on one DGX B200, as Megatron-Bridge's 26.02 recipe ran it at micro-batch 1 (512 sequences,
/// MXFP8, expert 8): eager, with Megatron-Core's all-to-all dispatcher, its router and permutation unfused
/// (Megatron-Core's defaults; the recipe fuses both).
inline Plan qwen3On8B200()
{
    Plan plan = presetPlan("qwen3-30b-a3b", 1, 1, 8, 1, 512, "b200");
    plan.training.precision = Precision::MXFP8;
    plan.training.flashAttention = true;
    plan.parallel.expert = 8;
    plan.parallel.expertTensor = 1;
    plan.parallel.zeroStage = 1;
    return plan;
}

/// DeepSeek-V3 on 1,024 H100s in NVIDIA's DGX Cloud recipe layout (dgxc-benchmarking v25.05
/// deepseek_v3/pretraining): tensor 2 x pipeline 16 x data 32, expert 64 x expert tensor 1, 8,192 sequences of
/// 4,096 tokens; 61 layers on 16 stages split 2 + 14 x 4 + 3 (Megatron-Core's uneven split).
inline Plan deepseekV3On1024H100()
{
    Plan plan = presetPlan("deepseek-v3", 2, 16, 32, 1, 8192, "h100-sxm5-80gb");
    plan.parallel.expert = 64;
    plan.parallel.expertTensor = 1;
    plan.parallel.firstStageLayers = 2;
    plan.parallel.lastStageLayers = 3;
    plan.parallel.zeroStage = 1;
    plan.training.flashAttention = true;
    plan.training.sequenceParallel = true;
    return plan;
}

/// |actual - expected| <= relative * |expected|, with a readable failure message.
#define TP_COMPARE_REL(actual, expected, relative)                                                                   \
    do {                                                                                                              \
        const double tpActual = (actual);                                                                             \
        const double tpExpected = (expected);                                                                         \
        if (!(std::abs(tpActual - tpExpected) <= (relative) * std::abs(tpExpected)))                                  \
            QFAIL(qPrintable(QStringLiteral("%1 = %2, expected %3 (relative tolerance %4)")                           \
                                 .arg(QLatin1String(#actual))                                                         \
                                 .arg(tpActual, 0, 'g', 10)                                                           \
                                 .arg(tpExpected, 0, 'g', 10)                                                         \
                                 .arg(double(relative))));                                                            \
    } while (false)

/// A built-in example plan (resources/examples/NAME.json), read as the window reads it.
inline Plan examplePlan(const char *name)
{
    const io::PlanReadResult r =
        io::readPlanFile(QStringLiteral(TRAINPLAN_SOURCE_DIR "/resources/examples/%1.json").arg(QLatin1String(name)), io::builtinCatalog());
    if (!r.plan)
        qFatal("example %s does not read", name);
    return *r.plan;
}

/// The error an estimate gives on `key`, copied: safe on a temporary estimate (a pointer into one dangled,
/// found by AddressSanitizer); nullopt when there is none.
inline std::optional<Problem> errorOn(const Estimate &e, const std::string &key)
{
    for (const Problem &p : e.problems)
        if (p.isError() && p.key == key)
            return p;
    return std::nullopt;
}

/// Whether a problem names `key` and says `text`.
inline bool hasProblem(const std::vector<Problem> &problems, const char *key, const char *text)
{
    for (const Problem &p : problems)
        if (p.key == key && io::problemMessage(p).find(text) != std::string::npos)
            return true;
    return false;
}

/// A Kineto trace of `steps` steps holding the estimate's own kernels on `stage`: one kernel per class
/// (named as real traces name them), the exposed communication as a reduce-scatter, then idle until the
/// step ends; each part's time scaled by `scale` (GEMM, attention, element-wise, optimizer,
/// communication, idle), which makes a "measured" run that differs from the estimate in known ways.
inline QByteArray traceFromEstimate(const Plan &plan, const Estimate &e, std::int64_t stage, int steps,
                                    std::array<double, 6> scale = {1, 1, 1, 1, 1, 1})
{
    const EstimatedProfile p = estimatedProfile(plan, e, stage);
    const std::pair<KernelClass, const char *> names[] = {
        {KernelClass::Gemm, "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_cublas"},
        {KernelClass::Attention, "flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel"},
        {KernelClass::Elementwise, "void transformer_engine::rmsnorm_fwd_tuned_kernel<bf16>"},
        {KernelClass::Optimizer, "void multi_tensor_apply_kernel<AdamFunctor<float>>"}};
    QJsonArray events;
    const auto event = [&](const char *cat, const QString &name, double start, double seconds) {
        events.append(QJsonObject{{"ph", "X"}, {"cat", cat}, {"name", name}, {"pid", 0}, {"tid", 7}, {"ts", start * 1e6},
                                  {"dur", seconds * 1e6}, {"args", QJsonObject{{"device", 0}}}});
    };
    double kernels = scale[4] * p.exposedCommunicationSeconds + scale[5] * p.idleSeconds;
    for (std::size_t k = 0; k < 4; ++k)
        kernels += scale[k] * p.busy(names[k].first);
    for (int s = 0; s < steps; ++s) {
        double t = 1.0 + s * kernels;
        event("user_annotation", QStringLiteral("ProfilerStep#%1").arg(s), t, kernels);
        for (std::size_t k = 0; k < 4; ++k) {
            event("kernel", QString::fromLatin1(names[k].second), t, scale[k] * p.busy(names[k].first));
            t += scale[k] * p.busy(names[k].first);
        }
        event("kernel", QStringLiteral("ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL"), t, scale[4] * p.exposedCommunicationSeconds);
    }
    return QJsonDocument(QJsonObject{{"traceEvents", events}}).toJson();
}

/// The rules of the errors validation finds on `key`, in their order.
inline std::vector<std::string> errorRules(const Plan &plan, std::string_view key)
{
    std::vector<std::string> out;
    for (const Problem &problem : validatePlan(plan, io::builtinCatalog()))
        if (problem.isError() && problem.key == key)
            out.push_back(problem.rule);
    return out;
}

/// The op of the step named `name` in `pass`, or null.
inline const Op *findOp(const Estimate &e, std::string_view name, OpPass pass)
{
    for (const Op &op : e.step.ops)
        if (std::string_view(op.name) == name && op.pass == pass)
            return &op;
    return nullptr;
}

} // namespace trainplan::test
