#pragma once
// The auto-planner: every plan for a model, a global batch and a cluster (factorizations of the GPU count
// into data x tensor x pipeline x context, virtual stages, micro-batch, ZeRO stage, recomputation, sequence
// parallelism, schedule, optimizer offload; optionally a range of node counts), estimated with the
// analytic pipeline, ranked by throughput among the plans that fit, with the Pareto front (throughput vs
// memory headroom vs GPUs) and the rejected plans explained by cause and limiting resource.
//
// Evaluation is split over threads by index; results do not depend on the thread count.

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/estimate/Estimate.h"
#include "core/plan/PlanKeys.h"
#include "core/common/EnumNames.h"

namespace trainplan {

struct SearchConstraints
{
    std::int64_t minNodes = 0; ///< 0: the plan's node count (both bounds)
    std::int64_t maxNodes = 0;
    double minHeadroomBytes = 0;        ///< a plan must leave at least this much memory free on every stage
    /// Reject tight plans too: each must leave its plan's training.memory_margin of capacity free (a plan that
    /// fits only within the model's own error is not a plan to recommend).
    bool keepMemoryMargin = true;
    /// Reject the plans that fit as estimated but not at their memory band's upper edge (mayNotFit, core/estimate:
    /// the model cannot tell them from plans that run out of memory). Off by default: the recipes NVIDIA ran
    /// include such plans.
    bool rejectUncertainMemory = false;
    bool allowTensorAcrossNodes = false; ///< otherwise tensor groups larger than a node are rejected (and explained)
    bool allowOffload = true;
    /// Search dimensions held at a value, by plan key ("parallel.tensor": 8); keys of the plan table marked
    /// as search dimensions (core/plan/PlanKeys).
    std::vector<std::pair<std::string, KeyValue>> fixed;
    std::vector<std::int64_t> microBatches{1, 2, 4, 8, 16};

    /// Holds a search dimension at a value (replacing an earlier one for the same key). Fixing the
    /// micro-batch also narrows the micro-batch list to it.
    void fix(std::string_view path, KeyValue value);
    /// The value a dimension is held at, if any.
    std::optional<KeyValue> fixedValue(std::string_view path) const;
    std::size_t top = 10;
    int threads = 0; ///< 0: every hardware thread
};

/// One point of the search space (applied to the base plan by applyConfig()).
struct SearchConfig
{
    std::int64_t nodes = 1;
    std::int64_t data = 1;
    std::int64_t tensor = 1;
    std::int64_t pipeline = 1;
    std::int64_t virtualStages = 1;
    std::int64_t microBatch = 1;
    Schedule schedule = Schedule::OneFOneB;
    std::int64_t zeroStage = 0;
    Recompute recompute = Recompute::None;
    bool sequenceParallel = false;
    bool offload = false;
    /// An uneven split when the layers do not divide by the stages (0: even): see ParallelConfig.
    std::int64_t firstStageLayers = 0;
    std::int64_t lastStageLayers = 0;
    std::int64_t context = 1; ///< context-parallel size
    std::int64_t expert = 1;       ///< expert-parallel size (mixture of experts)
    std::int64_t expertTensor = 0; ///< expert tensor-parallel size (0: the tensor size)
    /// Software choices (the base plan's unless the search tried another for the fastest layouts): the
    /// mixture of experts' dispatcher and all-to-all overlap, and CUDA graphs.
    ExpertDispatcher dispatcher = ExpertDispatcher::AllToAll;
    bool expertCommOverlap = false;
    CudaGraphs cudaGraphs = CudaGraphs::None;
    /// The base plan's layers per stage (parallel.stage_layers) hold for this layout: its pipeline depth
    /// and chunks they fill (firstStageLayers and lastStageLayers are then 0).
    bool listedStages = false;

    friend bool operator==(const SearchConfig &, const SearchConfig &) = default;
};
/// The configuration a plan is: its layout and its software choices (the inverse of applyConfig for those).
SearchConfig configOf(const Plan &plan);
Plan applyConfig(const Plan &base, const SearchConfig &config);

enum class RejectCause { Invalid, DoesNotFit, Headroom, TensorAcrossNodes };
constexpr auto enumNames(RejectCause)
{
    using N = EnumName<RejectCause>;
    return std::array{N{RejectCause::Invalid, "invalid", "Invalid"},
                      N{RejectCause::DoesNotFit, "does_not_fit", "Does not fit"},
                      N{RejectCause::Headroom, "headroom", "Too little headroom"},
                      N{RejectCause::TensorAcrossNodes, "tensor_across_nodes", "Tensor group across nodes"}};
}
inline const char *toString(RejectCause v) { return spellingOf(v); }

/// What one evaluated plan scored.
struct SearchScore
{
    SearchConfig config;
    bool feasible = false;
    RejectCause cause = RejectCause::Invalid; ///< when not feasible
    double tokensPerSecond = 0;
    double stepSeconds = 0;
    double peakBytes = 0;
    double capacityBytes = 0;
    double headroomBytes = 0;
    /// Fits as estimated but not at its memory band's upper edge (mayNotFit, core/estimate), its band taken at its
    /// own place among the published runs.
    bool mayNotFit = false;
    double mfu = 0;
    std::int64_t gpus = 0;
    Bottleneck bottleneck = Bottleneck::Arithmetic;
    double tensorCommShare = 0; ///< tensor-parallel communication / step
    double expertCommSeconds = 0; ///< exposed dispatch/combine all-to-all per step (mixture of experts)
    double dataCommSeconds = 0;   ///< exposed data-parallel / ZeRO communication per step (the slowdown included)
    /// The traffic floor (core/step/TrafficFloor): the least the step's communication takes on the links'
    /// nominal figures, its dominant kind, and the data-parallel part (parameter gathers and gradient
    /// reduction): its bytes per GPU through the network share and that share's nominal rate.
    double floorSeconds = 0;
    FloorKind floorKind = FloorKind::GradientReduce;
    double dataFloorSeconds = 0;
    double dataFloorNetworkBytes = 0;
    double networkBytesPerSecond = 0;
    double rankParameters = 0; ///< the parameters one GPU of the pace stage holds (before ZeRO's sharding)
    Problem problem;            ///< invalid: the first error, on its key (io/plan/ProblemWords words it)
    std::string component;      ///< does not fit: the dominant component
    double componentBytes = 0;  ///< does not fit: the dominant component's bytes on the peak stage
};

struct RankedPlan
{
    int rank = 0; ///< 1 = fastest
    SearchScore score;
    Plan plan;
    /// Slower than the fastest by less than the fastest's error band (issue 37): the model cannot tell them apart.
    bool tiesBest = false;
};

/// Rejected plans of one cause and key, with their count and the most informative example (the nearest
/// miss); io/output/Evidence words it.
struct RejectionGroup
{
    RejectCause cause = RejectCause::Invalid;
    std::string key; ///< "pipeline 2 / activations", "parallel.virtual_stages", "tensor 16", "headroom"
    std::int64_t count = 0;
    SearchScore example; ///< the nearest miss (the smallest overshoot), or the fastest
};

/// Mixture of experts: the fastest feasible plan of one expert layout, so that the report can say why the
/// other expert sizes lost (io/output/Evidence names the all-to-all when it is what costs the difference).
struct ExpertLayoutResult
{
    std::int64_t expert = 1;
    std::int64_t expertTensor = 0; ///< 0: the tensor size
    std::int64_t evaluated = 0;
    std::int64_t feasible = 0;
    SearchScore best; ///< meaningful when feasible > 0
    Problem commonProblem; ///< none feasible: the rule most of its invalid plans break (empty key: none broke one)
};

/// The fastest feasible plan of one ZeRO stage, so that the report can say why the others lost (io/output/Evidence
/// names the parameter traffic's floor when it is what costs the difference).
struct ZeroStageResult
{
    std::int64_t zeroStage = 0;
    std::int64_t evaluated = 0;
    std::int64_t feasible = 0;
    SearchScore best; ///< meaningful when feasible > 0
    Problem commonProblem; ///< none feasible: the rule most of its invalid plans break (empty key: none broke one)
};

struct SearchOutcome
{
    bool valid = false;          ///< the base plan's model and cluster could be searched
    Problem problem;             ///< why not (io/plan/ProblemWords words it)
    bool cancelled = false;
    std::int64_t evaluated = 0;  ///< plans estimated
    std::int64_t feasible = 0;
    double baseTokensPerSecond =
        0; ///< the searched plan itself, as the listed plans are scored (0 when it does not fit)
    double seconds = 0;
    int threads = 1;
    /// The fastest plans, scored with the simulated schedule (the step the window shows for each once loaded)
    /// and ranked by it; the space was ranked with the analytic bubble.
    std::vector<RankedPlan> top;
    std::vector<RankedPlan> pareto; ///< non-dominated in (tokens/s max, headroom max, GPUs min), by tokens/s
    std::vector<SearchScore> feasiblePoints; ///< every feasible plan (for the Pareto chart), by tokens/s
    std::vector<RejectionGroup> rejected;    ///< by count, largest first
    std::vector<ExpertLayoutResult> expertLayouts; ///< mixture of experts: per expert layout, fastest first
    std::vector<ZeroStageResult> zeroStages;       ///< per ZeRO stage tried, fastest first
    double bestTokensPerSecond = 0;          ///< the fastest feasible plan (0 when none)
    /// The fastest plan's error band (its accuracy.band_80): listed plans within it tie with it.
    Accuracy bestAccuracy;
    double minHeadroomBytes = 0;             ///< the constraint the headroom rejections broke
    bool keepMemoryMargin = false;           ///< ... together with the plans' memory margin
    bool rejectUncertainMemory = false;      ///< ... and their memory band's upper edge
    /// No configuration at all: no layout of the GPUs splits the batch, layers and heads (the numbers).
    bool noLayout = false;
    std::string planName; ///< the searched plan's name
    std::int64_t gpus = 0, globalBatch = 0, layers = 0, heads = 0;
    double parameters = 0; ///< the model's parameters (for the words of the traffic floors)
};

struct SearchProgress
{
    /// Called from worker threads with (done, total); keep it cheap and thread-safe.
    std::function<void(std::int64_t, std::int64_t)> onProgress;
    const std::atomic<bool> *cancel = nullptr;
};

/// Larger spaces are refused with a message (a node range of a million, say): memory and time stay bounded.
inline constexpr std::size_t kMaxSearchConfigs = 2'000'000;
/// So are spaces whose estimated work exceeds this, in seconds on one core (a few seconds on two cores).
inline constexpr double kMaxSearchSeconds = 8.0;

/// The search's work for these configurations, in seconds on one core: one analytic estimate costs about
/// 2.5 us + 0.05 us per pipeline stage + 0.013 us per GPU of a node + 0.0002 us per stage and GPU
/// (bench_estimate searchCost, on the CI machine's kind of core).
double estimatedSearchSeconds(const std::vector<SearchConfig> &configs, std::int64_t gpusPerNode);

/// The configurations the search will evaluate for this base plan (for tests and the progress total);
/// stops after kMaxSearchConfigs + 1.
std::vector<SearchConfig> enumerateConfigs(const Plan &base, const SearchConstraints &constraints);

SearchOutcome searchPlans(const Plan &base, const Catalog &catalog, const SearchConstraints &constraints,
                          const SearchProgress &progress = {});

/// The best plan fits as estimated but not at its memory band's upper edge (mayNotFit, core/estimate): the
/// model cannot tell it from a plan that runs out of memory, and a minimum headroom ranks the ones it can.
bool bestMayNotFit(const SearchOutcome &outcome);

} // namespace trainplan
