#pragma once
// Published training runs (tests/data/validation, copied from the project's validation set) turned into
// plans, with the measured step time each reports. Conventions (validation README): Narayanan et al.
// 2021 report hardware TFLOP/s with F = 96 B s l h^2 (1 + s/(6h) + V/(16 l h)) (recompute counted), so
// their step time is F / (GPUs x TFLOP/s); llm-foundry reports tokens/s, so its step time is tokens per
// batch / tokens/s; DLPerf and the Megatron-LM 2020 README report iteration times directly.
//
// Where a source leaves a setting unstated, one documented assumption applies to all its rows (never a
// per-row constant): Narayanan Table 1 rows use micro-batch 1 and the interleaved schedule with two
// layers per model chunk where the stage has an even layer count (one chunk otherwise); Megatron-LM of
// 2020-2021 all-reduces FP32 main gradients after the backward pass (no overlap).

#include <QString>

#include <vector>

#include "core/memory/MemoryTerms.h"
#include "core/plan/Plan.h"
#include "core/search/Search.h"

namespace trainplan::validation {

struct Row
{
    QString source;  ///< file stem
    QString id;      ///< row id and label
    Plan plan;
    double measuredSeconds = 0;
    /// False for runs of a framework whose execution Trainplan does not model (OneFlow's compiled
    /// graphs in DLPerf): reported beside the others, not calibrated on, not held to the error bound.
    bool modelled = true;
};

/// Every usable row; `skipped` receives "source row: reason" for the rows that cannot be planned.
std::vector<Row> loadRows(QStringList *skipped = nullptr);

/// A published per-GPU memory peak, with the kind of peak the source prints (MemoryTerms.h, MemoryKind).
struct MemoryRow
{
    QString source;
    QString id;
    Plan plan;
    double measuredBytes = 0;
    MemoryKind kind = MemoryKind::Reserved;
    /// False for a framework whose allocator Trainplan does not model (OneFlow): reported, not held to
    /// the bound.
    bool modelled = true;
};

/// The memory rows: the zero-bubble pipeline runs (Qi et al. 2024; reserved peak, GiB printed as "GB"),
/// DLPerf's OneFlow nvidia-smi readings (device-used, MiB), torchtitan's own tables and torchao's torchtitan
/// runs (reserved, GiB). `skipped` as above.
std::vector<MemoryRow> loadMemoryRows(QStringList *skipped = nullptr);

/// The zero-bubble pipeline runs' step times (Qi et al. 2024, Tables 3-5: 1F1B, interleaved 1F1B, ZB-1p planned
/// as zb-h1 and ZB-2p as zb-h2, on 8-32 A100): never fitted, a check of the schedules.
std::vector<Row> loadZeroBubbleRows();

/// NVIDIA's Megatron-Bridge performance summary as plans (tests/data/validation): not in loadRows(), since
/// the release-specific software is not read yet.
std::vector<Row> loadBridgeRows(QStringList *skipped = nullptr);

/// Held out: the pre-training runs of Megatron-Bridge's model verification cards on H100 (examples/
/// model_verification_cards/*/card.yaml at 067f987df; not in shared/validation, never fitted), each read from the
/// recipe and commit its card names, source "bridge-card". The runs that route freely with no capacity limit are
/// not modelled (`modelled` false): the busiest expert's load they ran at is not stated.
std::vector<Row> loadBridgeCardRows();

/// PyTorch-native runs (issue 35): torchtitan's benchmarks (FSDP2, TP, pipelining, CP, float8, compile) and
/// llm-foundry's benchmark table (H100 and A100-40GB sections): not in loadRows() while their frameworks'
/// mechanisms are being added.
std::vector<Row> loadPytorchRows(QStringList *skipped = nullptr);

/// One configuration NVIDIA's performance teams tuned (a dgxc or Megatron-Bridge recipe: model, system,
/// GPUs, batch, precision and layout), however many releases ran it.
struct RecipeConfig
{
    QString source; ///< dgxc, dgxc-moe, dgxc-heldout, bridge, bridge-moe
    QString id;     ///< the first row's id
    Plan plan;
    int rows = 1;   ///< rows with this configuration
    double measuredSeconds = 0; ///< the fastest measured step of those rows
    /// Why the layout is not one a performance team tuned, with the source that says so (NVIDIA's proxy
    /// configurations, the full model's layout on fewer layers); empty for a tuned recipe.
    QString untunedReason;
};
std::vector<RecipeConfig> recipeConfigs(QStringList *skipped = nullptr);

/// What the Megatron-Core of a recipe's release could run: the search is held to it, as the recipe was (a layout
/// the software could not run is no hole in the model, and no discovery). The dgxc releases name their NeMo
/// container (NVIDIA/dgxc-benchmarking: setup.sh, llama31_utils.py, metadata.yaml per workload): v24.11.1 ran
/// 24.05 and 24.09 (Megatron-Core 0.9), v25.01-v25.04 ran 24.12 to 25.03 (0.10-0.11), v25.05 on 25.04 (0.12);
/// Megatron-Bridge's releases (25.09 on) run current Megatron-Core. Megatron-LM's history: the optimizer's host
/// offload (--optimizer-cpu-offload, MR 2526 of 2025-02-14) and Megatron-FSDP (--use-custom-fsdp, the ZeRO-2 and
/// ZeRO-3 that run beside pipeline and expert parallelism, MR 2071 of 2025-02-26) are first in core_v0.12.0;
/// PyTorch FSDP2 (--use-torch-fsdp2, MR 2150 of 2024-11-13, first in core_r0.10.0) is ZeRO-3 that refuses
/// pipeline and expert parallelism (arguments.py at core_r0.10.0, lines 372-382). MoE parallel folding (the expert
/// group over context and data ranks, an expert tensor size of its own: initialize_model_parallel's
/// expert_tensor_parallel_size) is first in core_r0.10.0; in core_r0.9.0 the expert group is carved from the data
/// ranks alone ("tp-cp-ep-dp-pp", dp // ep; parallel_state.py lines 266-280), its ranks tensor x context apart,
/// which the model places as the folded group only without context parallelism.
struct RecipeSoftware
{
    bool optimizerOffload = true;
    bool megatronFsdp = true;
    bool torchFsdp2 = true;
    bool moeFolding = true;
};
RecipeSoftware recipeSoftware(const RecipeConfig &config);
/// Whether that software runs a searched layout.
bool softwareRuns(const RecipeSoftware &software, const SearchConfig &config);
/// The search a recipe is compared with: the recipe's software settings held (CUDA graphs, the dispatcher, the
/// all-to-all overlap), its release's offload allowed or not, and room in the list for softwareRuns to choose from.
SearchConstraints recipeSearchConstraints(const RecipeConfig &config);

/// A Megatron-style GPT shape (GELU, tied embeddings, learned positions, dropout, biases).
ModelSpec megatronGpt(std::int64_t layers, std::int64_t hidden, std::int64_t heads, std::int64_t vocab, std::int64_t seq);

} // namespace trainplan::validation
