#include "core/search/Search.h"

#include "core/estimate/Accuracy.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <thread>
#include <tuple>

#include "core/common/Units.h"
#include "core/plan/PlanValidation.h"

namespace trainplan {

Plan applyConfig(const Plan &base, const SearchConfig &c)
{
    Plan plan = base;
    if (plan.cluster.nodeGroups.size() <= 1)
        plan.cluster.setNodes(c.nodes);
    plan.parallel.data = c.data;
    plan.parallel.tensor = c.tensor;
    plan.parallel.pipeline = c.pipeline;
    plan.parallel.virtualStages = c.virtualStages;
    plan.parallel.schedule = c.schedule;
    plan.parallel.zeroStage = c.zeroStage;
    plan.parallel.offloadOptimizer = c.offload;
    // The base plan's parameter offload and shard group hold where the layout's ZeRO stage has them.
    plan.parallel.offloadParameters = base.parallel.offloadParameters && plan.parameterOffloadAllowed();
    if (!plan.shardGroupAllowed())
        plan.parallel.shardGroup = 0;
    // ZeRO++ holds where the layout is DeepSpeed's ZeRO-3, hpZ where its group still tiles the shard ranks.
    if (!plan.zeroPlusPlusAllowed()) {
        plan.parallel.zeroQuantizedWeights = plan.parallel.zeroQuantizedGradients = false;
        plan.parallel.zeroHpzPartition = 1;
    }
    if (plan.parallel.hpzRanks() == 1)
        plan.parallel.zeroHpzPartition = 1;
    plan.training.microBatch = c.microBatch;
    plan.training.switchRecompute(c.recompute);
    plan.training.sequenceParallel = c.sequenceParallel;
    plan.parallel.firstStageLayers = c.firstStageLayers;
    plan.parallel.lastStageLayers = c.lastStageLayers;
    // The base plan's layers per stage hold for layouts of its pipeline depth whose chunks they still fill
    // (in place of the even or first/last split the layout would take); elsewhere the layout's split.
    const std::vector<std::int64_t> &listed = base.parallel.stageLayers;
    const bool keepList =
        c.listedStages && std::int64_t(listed.size()) == c.pipeline &&
        std::all_of(listed.begin(), listed.end(), [&](std::int64_t l) { return l >= c.virtualStages; });
    if (keepList)
        plan.parallel.firstStageLayers = plan.parallel.lastStageLayers = 0;
    else
        plan.parallel.stageLayers.clear();
    plan.parallel.context = c.context;
    plan.parallel.expert = c.expert;
    plan.parallel.expertTensor = c.expertTensor;
    plan.parallel.expertDispatcher = c.dispatcher;
    plan.parallel.expertCommOverlap = c.expertCommOverlap;
    plan.training.cudaGraphs = c.cudaGraphs;
    // The base plan's deferred output-layer weight gradients hold where the layout allows them.
    plan.training.deferEmbeddingWgrad = base.training.deferEmbeddingWgrad && plan.embeddingWgradDeferralAllowed();
    // So does its paged stash of the experts' saved tensors, which Megatron-Core has only behind HybridEP.
    plan.training.moePagedStash = base.training.moePagedStash && c.dispatcher == ExpertDispatcher::HybridEp;
    return plan;
}

SearchConfig configOf(const Plan &plan)
{
    SearchConfig c;
    c.nodes = plan.cluster.nodes;
    c.data = plan.parallel.data;
    c.tensor = plan.parallel.tensor;
    c.pipeline = plan.parallel.pipeline;
    c.virtualStages = plan.parallel.virtualStages;
    c.microBatch = plan.training.microBatch;
    c.schedule = plan.parallel.schedule;
    c.zeroStage = plan.parallel.zeroStage;
    c.recompute = plan.training.recompute;
    c.sequenceParallel = plan.training.sequenceParallel;
    c.offload = plan.parallel.offloadOptimizer;
    c.firstStageLayers = plan.parallel.firstStageLayers;
    c.lastStageLayers = plan.parallel.lastStageLayers;
    c.context = plan.parallel.context;
    c.expert = plan.parallel.expert;
    c.expertTensor = plan.parallel.expertTensor;
    c.dispatcher = plan.parallel.expertDispatcher;
    c.expertCommOverlap = plan.parallel.expertCommOverlap;
    c.cudaGraphs = plan.training.cudaGraphs;
    c.listedStages = !plan.parallel.stageLayers.empty();
    return c;
}

namespace {

std::vector<std::int64_t> divisors(std::int64_t n, std::int64_t limit)
{
    std::vector<std::int64_t> out;
    for (std::int64_t k = 1; k <= n && k <= limit; ++k)
        if (n % k == 0)
            out.push_back(k);
    return out;
}

/// Context-parallel sizes to try with `ranks` GPUs left per pipeline stage and tensor rank: those that
/// divide them, split the sequence into 2 x c chunks (causal balancing) and leave each rank at least
/// kMinContextTokens tokens, below which the ring's transfers outweigh its attention blocks (Megatron-Core
/// recipes start context parallelism at 8K-token sequences with c = 2). Short sequences try 1 alone.
constexpr std::int64_t kMinContextTokens = 2048;
std::vector<std::int64_t> contextSizes(const Plan &base, std::int64_t ranks)
{
    std::vector<std::int64_t> out;
    for (const std::int64_t c : divisors(ranks, std::max<std::int64_t>(1, base.model.seqLen / kMinContextTokens)))
        if (c == 1 || base.model.seqLen % (2 * c) == 0)
            out.push_back(c);
    return out;
}

/// Node counts to try: every count in the range when there are few, else the 3-smooth ones (2^a 3^b,
/// which factor into the usual parallel sizes) and both ends.
std::vector<std::int64_t> nodeCounts(const Plan &base, const SearchConstraints &c)
{
    if (c.minNodes <= 0 && c.maxNodes <= 0)
        return {base.cluster.nodes};
    if (base.cluster.nodeGroups.size() > 1) // a mixed cluster is searched as it is
        return {base.cluster.nodes};
    const std::int64_t lo = std::max<std::int64_t>(1, c.minNodes > 0 ? c.minNodes : base.cluster.nodes);
    const std::int64_t hi = std::max(lo, c.maxNodes > 0 ? c.maxNodes : base.cluster.nodes);
    std::vector<std::int64_t> out;
    if (hi - lo < 16) {
        for (std::int64_t n = lo; n <= hi; ++n)
            out.push_back(n);
        return out;
    }
    out.push_back(lo);
    for (std::int64_t a = 1; a <= hi; a *= 2)
        for (std::int64_t b = a; b <= hi; b *= 3)
            if (b >= lo && b <= hi)
                out.push_back(b);
    out.push_back(hi);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

/// A dimension's fixed value, resolved once per search (the enumeration's inner loops compare it).
class Fixed
{
public:
    Fixed(const SearchConstraints &c, std::string_view path) : m_value(c.fixedValue(path)) {}
    bool allows(std::int64_t v) const { return !m_value || *m_value == KeyValue(v); }
    /// The integer it is held at, if any.
    std::optional<std::int64_t> integer() const
    {
        const auto *v = m_value ? std::get_if<std::int64_t>(&*m_value) : nullptr;
        return v ? std::optional<std::int64_t>(*v) : std::nullopt;
    }
    bool allows(bool v) const { return !m_value || *m_value == KeyValue(v); }
    bool held() const { return m_value.has_value(); }
    /// The flag it is held at, if any.
    std::optional<bool> boolean() const
    {
        const auto *v = m_value ? std::get_if<bool>(&*m_value) : nullptr;
        return v ? std::optional<bool>(*v) : std::nullopt;
    }
    /// The enum value it is held at, if any.
    template<NamedEnum E>
    std::optional<E> enumValue() const
    {
        const auto *v = m_value ? std::get_if<std::string>(&*m_value) : nullptr;
        return v ? fromString<E>(*v) : std::nullopt;
    }
    template<NamedEnum E>
    bool allows(E v) const
    {
        return !m_value || *m_value == KeyValue(std::string(toString(v)));
    }

private:
    std::optional<KeyValue> m_value;
};

/// The step's traffic floor and its data-parallel part, as the search's explanations word them.
void fillFloor(const StepEstimate &step, SearchScore &s)
{
    const TrafficFloor &f = step.floor;
    s.dataCommSeconds = step.category(TimeCategory::DataComm);
    s.floorSeconds = f.seconds;
    s.floorKind = f.dominant;
    const FloorBytes data =
        f.bytes[std::size_t(FloorKind::ParameterGather)] + f.bytes[std::size_t(FloorKind::GradientReduce)];
    TrafficFloor only = f;
    only.bytes = {};
    only.bytes[std::size_t(FloorKind::GradientReduce)] = data;
    s.dataFloorSeconds = only.secondsOf(FloorKind::GradientReduce);
    s.dataFloorNetworkBytes = data.network;
    s.networkBytesPerSecond = f.networkBytesPerSecond;
}

/// The error bands at a plan's place among the published runs, memoised per thread: a search's plans share a few
/// places (their GPU count, whether ZeRO-3 shards them), and assessing one reads the whole held-out table. Pure (the
/// table is built in), so a memo outlives its search; per thread, so the workers take no lock. The reference holds
/// until the thread's next call.
const Accuracy &accuracyAt(const AccuracyCoordinates &at)
{
    thread_local std::vector<std::pair<AccuracyCoordinates, Accuracy>> memo;
    for (const auto &[key, value] : memo)
        if (key == at)
            return value;
    if (memo.size() >= 256)
        memo.clear();
    return memo.emplace_back(at, assessAccuracy(at, builtinHeldOutRuns())).second;
}

/// One configuration's score: with the analytic pipeline (the whole space), or with the simulated schedule
/// the window shows once the plan is loaded (the listed plans: `simulate`).
SearchScore score(const Plan &base, const Catalog &catalog, const SearchConstraints &constraints,
                  const SearchConfig &config, bool simulate = false)
{
    EstimateOptions fast = EstimateOptions::analytic();
    fast.simulatePipeline = simulate;
    fast.memoryOnlyWhenOverCapacity = true; // a plan that does not fit is explained by its memory alone
    fast.placementReport = false;            // only whether the tensor group crosses nodes is read
    fast.layoutOfValidatedPlan = true;       // searchPlans checked the base plan's other keys (baseProblem)
    const Plan plan = applyConfig(base, config);
    const Estimate e = estimate(plan, catalog, fast);
    SearchScore s;
    s.config = config;
    s.gpus = plan.cluster.gpus();
    if (!e.valid) {
        s.cause = RejectCause::Invalid;
        if (const Problem *p = firstError(e.problems))
            s.problem = *p;
        return s;
    }
    s.tokensPerSecond = e.step.tokensPerSecond;
    s.stepSeconds = e.step.stepSeconds;
    s.peakBytes = e.memory.peakBytes;
    s.capacityBytes = e.memory.capacityBytes;
    s.headroomBytes = e.memory.headroomBytes();
    s.mfu = e.step.mfu;
    s.bottleneck = e.step.bottleneck;
    s.tensorCommShare = e.step.stepSeconds > 0 ? e.step.category(TimeCategory::TensorComm) / e.step.stepSeconds : 0.0;
    s.expertCommSeconds = e.step.category(TimeCategory::ExpertComm);
    fillFloor(e.step, s);
    if (!e.memory.stages.empty())
        s.rankParameters = e.memory.stages[std::size_t(e.step.slowestStage)].parameterCount;
    if (!e.memory.fits) {
        s.cause = RejectCause::DoesNotFit;
        const StageMemory &worst = e.memory.stages[std::size_t(e.memory.peakStage)];
        const std::pair<const char *, double> parts[] = {{"activations", worst.activationsBytes},
                                                         {"optimizer state", worst.optimizerBytes},
                                                         {"parameters", worst.parametersBytes},
                                                         {"gradients", worst.gradientsBytes},
                                                         {"transient buffers", worst.otherBytes}};
        const auto *top = std::max_element(std::begin(parts), std::end(parts),
                                           [](const auto &a, const auto &b) { return a.second < b.second; });
        s.component = top->first;
        s.componentBytes = top->second;
        return s;
    }
    if (e.placement.tensor.crossesNodes && !constraints.allowTensorAcrossNodes) {
        s.cause = RejectCause::TensorAcrossNodes;
        return s;
    }
    s.mayNotFit = mayNotFit(e.memory, accuracyAt(accuracyCoordinates(plan, e)));
    if (s.headroomBytes < constraints.minHeadroomBytes || (constraints.keepMemoryMargin && e.memory.tight) ||
        (constraints.rejectUncertainMemory && s.mayNotFit)) {
        s.cause = RejectCause::Headroom;
        return s;
    }
    s.feasible = true;
    return s;
}

/// Total order for ranking: faster first, then fewer GPUs, more headroom, then the configuration, its
/// software last (at equal speed the one with less of it: no CUDA graphs before graphs, the all-to-all
/// dispatcher before DeepEP and HybridEP, no overlap before overlap).
bool ranksBefore(const SearchScore &a, const SearchScore &b)
{
    if (a.tokensPerSecond != b.tokensPerSecond)
        return a.tokensPerSecond > b.tokensPerSecond;
    if (a.gpus != b.gpus)
        return a.gpus < b.gpus;
    if (a.headroomBytes != b.headroomBytes)
        return a.headroomBytes > b.headroomBytes;
    const auto key = [](const SearchConfig &c) {
        return std::make_tuple(c.nodes, c.data, c.tensor, c.pipeline, c.virtualStages, c.microBatch, int(c.schedule),
                               c.zeroStage, int(c.recompute), c.sequenceParallel, c.offload, c.context, c.expert,
                               c.expertTensor, c.firstStageLayers, c.lastStageLayers, int(c.cudaGraphs),
                               int(c.dispatcher), c.expertCommOverlap);
    };
    return key(a.config) < key(b.config);
}

bool dominates(const SearchScore &a, const SearchScore &b)
{
    const bool noWorse =
        a.tokensPerSecond >= b.tokensPerSecond && a.headroomBytes >= b.headroomBytes && a.gpus <= b.gpus;
    const bool better = a.tokensPerSecond > b.tokensPerSecond || a.headroomBytes > b.headroomBytes || a.gpus < b.gpus;
    return noWorse && better;
}

std::vector<SearchScore> paretoFront(const std::vector<SearchScore> &feasible)
{
    // A point of the 3-D front is on the 2-D (throughput, headroom) front of its own GPU count: take
    // those staircases, then drop what another GPU count dominates.
    std::map<std::int64_t, std::vector<const SearchScore *>> byGpus;
    for (const SearchScore &s : feasible) // already sorted by tokens/s, descending
        byGpus[s.gpus].push_back(&s);
    std::vector<const SearchScore *> candidates;
    for (auto &[gpus, points] : byGpus) {
        double bestHeadroom = -1e300;
        for (const SearchScore *p : points)
            if (p->headroomBytes > bestHeadroom) {
                candidates.push_back(p);
                bestHeadroom = p->headroomBytes;
            }
    }
    std::vector<SearchScore> front;
    for (const SearchScore *c : candidates) {
        bool dominated = false;
        for (const SearchScore *o : candidates)
            if (o != c && dominates(*o, *c)) {
                dominated = true;
                break;
            }
        if (!dominated)
            front.push_back(*c);
    }
    std::sort(front.begin(), front.end(), ranksBefore);
    return front;
}

/// The most informative example of a group: the nearest miss (smallest overshoot), or the fastest.
bool moreInformative(const SearchScore &a, const SearchScore &b)
{
    switch (a.cause) {
    case RejectCause::DoesNotFit: return a.peakBytes / a.capacityBytes < b.peakBytes / b.capacityBytes;
    case RejectCause::Headroom: return a.headroomBytes > b.headroomBytes;
    case RejectCause::TensorAcrossNodes: return a.tokensPerSecond > b.tokensPerSecond;
    case RejectCause::Invalid: return false;
    }
    return false;
}

std::string rejectionKey(const SearchScore &s)
{
    switch (s.cause) {
    case RejectCause::Invalid: return s.problem.key;
    case RejectCause::DoesNotFit: return "pipeline " + std::to_string(s.config.pipeline) + " / " + s.component;
    case RejectCause::TensorAcrossNodes: return "tensor " + std::to_string(s.config.tensor);
    case RejectCause::Headroom: return "headroom";
    }
    return {};
}

std::vector<RejectionGroup> groupRejections(const std::vector<SearchScore> &scores)
{
    std::map<std::pair<int, std::string>, RejectionGroup> groups;
    for (const SearchScore &s : scores) {
        if (s.feasible)
            continue;
        const std::string key = rejectionKey(s);
        RejectionGroup &g = groups[std::make_pair(int(s.cause), key)];
        if (g.count == 0 || moreInformative(s, g.example))
            g.example = s;
        g.cause = s.cause;
        g.key = key;
        ++g.count;
    }
    std::vector<RejectionGroup> out;
    for (auto &[id, g] : groups)
        out.push_back(std::move(g));
    std::sort(out.begin(), out.end(), [](const RejectionGroup &a, const RejectionGroup &b) {
        return a.count != b.count ? a.count > b.count : a.key < b.key;
    });
    return out;
}

} // namespace

void SearchConstraints::fix(std::string_view path, KeyValue value)
{
    if (path == "training.micro_batch")
        if (const auto *b = std::get_if<std::int64_t>(&value))
            microBatches = {*b};
    for (auto &[key, v] : fixed)
        if (key == path) {
            v = std::move(value);
            return;
        }
    fixed.emplace_back(std::string(path), std::move(value));
}

std::optional<KeyValue> SearchConstraints::fixedValue(std::string_view path) const
{
    for (const auto &[key, v] : fixed)
        if (key == path)
            return v;
    return std::nullopt;
}

namespace {

/// The search dimensions held at a value, resolved once per search.
struct FixedDimensions
{
    explicit FixedDimensions(const SearchConstraints &c)
        : tensor(c, "parallel.tensor")
        , pipeline(c, "parallel.pipeline")
        , data(c, "parallel.data")
        , context(c, "parallel.context")
        , microBatch(c, "training.micro_batch")
        , virtualStages(c, "parallel.virtual_stages")
        , schedule(c, "parallel.schedule")
        , zero(c, "parallel.zero_stage")
        , recompute(c, "training.recompute")
        , sequenceParallel(c, "training.sequence_parallel")
        , expert(c, "parallel.expert")
        , expertTensor(c, "parallel.expert_tensor")
        , dispatcher(c, "parallel.expert_dispatcher")
        , expertCommOverlap(c, "parallel.expert_comm_overlap")
        , cudaGraphs(c, "training.cuda_graphs")
    {
    }
    Fixed tensor, pipeline, data, context, microBatch, virtualStages, schedule, zero, recompute, sequenceParallel,
        expert, expertTensor, dispatcher, expertCommOverlap, cudaGraphs;
};

/// The software choices every configuration starts from: held ones at their value, the others at the base
/// plan's.
void softwareChoices(const Plan &base, const FixedDimensions &fixed, SearchConfig &c)
{
    c.dispatcher = fixed.dispatcher.enumValue<ExpertDispatcher>().value_or(base.parallel.expertDispatcher);
    c.expertCommOverlap = fixed.expertCommOverlap.boolean().value_or(base.parallel.expertCommOverlap);
    c.cudaGraphs = fixed.cudaGraphs.enumValue<CudaGraphs>().value_or(base.training.cudaGraphs);
}

/// One placement of the model on the GPUs: the sizes and the pipeline split.
struct Layout
{
    std::int64_t nodes, data, tensor, pipeline, context, first, last, expert = 1, expertTensor = 0;
    /// At the base plan's pipeline depth, its layers per stage: the fewest and the middle entry (0: none).
    std::int64_t fewestListed = 0, medianListed = 0;
    /// The layers divide by the stages, or Megatron-Core's uneven split (first, last) places them.
    bool splits = true;
};

/// The listed layers per stage hold for v chunks per stage when every stage fills its chunks.
bool listKept(const Layout &l, std::int64_t v)
{
    return l.fewestListed > 0 && v <= l.fewestListed;
}

/// Chunks per stage (above 1) the interleaved schedule is tried with: those the even or first/last split
/// fills, and with listed layers per stage the divisors of the middle entry that every stage fills.
std::vector<std::int64_t> interleavedChunks(std::int64_t layers, const Layout &l)
{
    std::vector<std::int64_t> out;
    if (l.splits)
        for (const std::int64_t v : divisors(middleStageLayers(layers, l.pipeline, l.first, l.last), 16))
            if (v > 1 && interleavedChunksFit(layers, l.pipeline, v, l.first, l.last))
                out.push_back(v);
    if (l.medianListed > 0)
        for (const std::int64_t v : divisors(l.medianListed, 16))
            if (v > 1 && listKept(l, v) && std::find(out.begin(), out.end(), v) == out.end())
                out.push_back(v);
    return out;
}

/// Expert layouts of a mixture-of-experts model for a data x context x tensor grid (dense: {1, 0}): expert
/// sizes that divide the experts, each MLP over the tensor ranks (Megatron-Core's default, 0) or whole
/// (expert_tensor 1), the expert shards dividing the grid (the rule core/plan/PlanValidation checks).
std::vector<std::pair<std::int64_t, std::int64_t>> expertLayouts(const Plan &base, const FixedDimensions &fixed,
                                                                 std::int64_t grid, std::int64_t t)
{
    const ModelSpec &m = base.model;
    if (!m.isMoe())
        return {{1, 0}};
    std::vector<std::pair<std::int64_t, std::int64_t>> out;
    // expert_tensor as written: held at a value, that value (0 meaning the tensor size); otherwise 0 for
    // the tensor size when it splits experts, the size itself for 1.
    const std::optional<std::int64_t> held = fixed.expertTensor.integer();
    for (const std::int64_t etp : t > 1 ? std::vector<std::int64_t>{t, 1} : std::vector<std::int64_t>{1}) {
        if (m.expertWidth() % etp != 0 || (held && (*held == 0 ? etp != t : etp != *held)))
            continue;
        const std::int64_t written = held ? *held : (etp == t && t > 1 ? 0 : etp);
        for (const std::int64_t e : divisors(m.experts, m.experts))
            if (fixed.expert.allows(e) && grid % (e * etp) == 0)
                out.push_back({e, written});
    }
    return out;
}

/// Appends every micro-batch, schedule, ZeRO stage, recomputation, sequence parallelism and offload choice
/// of one layout; false once the space's bound is reached.
bool appendChoices(const Plan &base, const SearchConstraints &c, const FixedDimensions &fixed, const Layout &l,
                   std::vector<SearchConfig> &out)
{
    const std::int64_t layers = base.model.layers, global = base.training.globalBatch;
    const std::int64_t d = l.data, t = l.tensor, p = l.pipeline;
    // Selective recomputation that replays nothing is the same plan as none: tried only when the user holds it.
    const bool trySelective = base.training.selectiveRecomputationReplays() || fixed.recompute.held();
    // The zero-bubble schedule where the plan's framework runs it (PyTorch's pipelining; Megatron-Core and
    // DeepSpeed have none), or when the user holds it or plans with it.
    const bool tryZeroBubble = base.training.framework == Framework::Fsdp ||
                               splitsBackward(base.parallel.schedule) || fixed.schedule.held();
    // ZB-H2 runs only in Qi et al.'s fork (core/plan/PlanValidation): tried when the plan or the user asks.
    const bool tryDeepZeroBubble = base.parallel.schedule == Schedule::ZeroBubbleH2 || fixed.schedule.held();
    const auto tried = [&](Schedule s) {
        return s == Schedule::ZeroBubbleH1 ? tryZeroBubble : s == Schedule::ZeroBubbleH2 ? tryDeepZeroBubble : true;
    };
    for (const std::int64_t mb : c.microBatches) {
        if (!fixed.microBatch.allows(mb) || global % (mb * d) != 0)
            continue;
        const std::int64_t m = global / (mb * d);
        // Schedules and virtual stages.
        std::vector<std::pair<Schedule, std::int64_t>> schedules;
        if (p == 1) {
            schedules.push_back({Schedule::OneFOneB, 1});
        } else {
            for (Schedule s : {Schedule::OneFOneB, Schedule::GPipe, Schedule::ZeroBubbleH1, Schedule::ZeroBubbleH2})
                if (tried(s))
                    schedules.push_back({s, 1});
            for (const std::int64_t v : interleavedChunks(layers, l))
                if (m % p == 0)
                    schedules.push_back({Schedule::Interleaved, v});
        }
        for (const auto &[schedule, v] : schedules) {
            if (!fixed.schedule.allows(schedule) || !fixed.virtualStages.allows(v))
                continue;
            // With one replica every ZeRO stage is ZeRO-0; ZeRO-2 and 3 do not combine with Megatron-LM's or
            // DeepSpeed's pipeline stages (core/plan/PlanValidation). FSDP is ZeRO-3 throughout, also inside
            // PyTorch's pipeline stages, and checkpoints as torchtitan does (op-level selective, not
            // Megatron-Core's attention-core recomputation).
            const bool fsdp = base.training.framework == Framework::Fsdp;
            const std::int64_t zeroFirst = fsdp ? 3 : 0, zeroLast = fsdp ? 3 : d > 1 ? (p > 1 ? 1 : 3) : 0;
            const Recompute partial = fsdp ? Recompute::Ops : Recompute::Selective;
            for (std::int64_t zero = zeroFirst; zero <= zeroLast; ++zero) {
                if (!fixed.zero.allows(zero))
                    continue;
                for (Recompute r : {Recompute::None, partial, Recompute::Full}) {
                    if (!fixed.recompute.allows(r) || (r == Recompute::Selective && !trySelective))
                        continue;
                    for (int sp = 0; sp <= (t > 1 ? 1 : 0); ++sp) { // SP needs tensor parallelism
                        if (!fixed.sequenceParallel.allows(bool(sp)))
                            continue;
                        for (int off = 0; off <= (c.allowOffload ? 1 : 0); ++off) {
                            if (out.size() > kMaxSearchConfigs)
                                return false;
                            SearchConfig config{
                                l.nodes, d,        t,         p,       v,      mb,        schedule, zero,
                                r,       bool(sp), bool(off), l.first, l.last, l.context, l.expert, l.expertTensor};
                            config.listedStages = listKept(l, v);
                            if (config.listedStages)
                                config.firstStageLayers = config.lastStageLayers = 0;
                            else if (!l.splits)
                                continue;
                            softwareChoices(base, fixed, config);
                            out.push_back(config);
                        }
                    }
                }
            }
        }
    }
    return true;
}

} // namespace

std::vector<SearchConfig> enumerateConfigs(const Plan &base, const SearchConstraints &c)
{
    const FixedDimensions fixed(c);
    std::vector<SearchConfig> out;
    // Address space, not memory: pages are touched as the configurations are written, and the vector never
    // copies itself while growing (reallocation was a tenth of a mixture-of-experts search).
    out.reserve(std::size_t(1) << 20);
    const std::int64_t G = base.cluster.gpusPerNode;
    const std::int64_t layers = base.model.layers;
    if (G < 1 || layers < 1 || base.training.globalBatch < 1)
        return out;
    // Tensor groups larger than a node are enumerated to explain them, up to 8 nodes' worth.
    const std::int64_t maxTensor = c.allowTensorAcrossNodes ? 1 << 20 : 8 * G;
    for (const std::int64_t nodes : nodeCounts(base, c)) {
        const std::int64_t gpus = nodes * G;
        for (const std::int64_t t : divisors(gpus, std::min(maxTensor, base.model.heads))) {
            if (!fixed.tensor.allows(t) || base.model.heads % t != 0)
                continue;
            for (const std::int64_t p : divisors(gpus / t, layers)) {
                if (!fixed.pipeline.allows(p))
                    continue;
                // Layers that do not divide by the stages: Megatron-Core's uneven split, the middle stages
                // at the rounded-up share and the first and last (embedding, loss) lighter, the last the lighter
                // of the two where it runs the MTP modules too; at the base plan's pipeline depth, the layers per
                // stage it lists.
                const auto [first, last] = layers % p == 0 ? std::pair<std::int64_t, std::int64_t>{0, 0}
                                                           : unevenSplit(layers, p, base.model.mtpLayers > 0);
                std::vector<std::int64_t> listed = p == base.parallel.pipeline ? base.parallel.stageLayers
                                                                               : std::vector<std::int64_t>{};
                std::sort(listed.begin(), listed.end());
                const std::int64_t fewest = listed.empty() ? 0 : listed.front();
                const std::int64_t median = listed.empty() ? 0 : listed[listed.size() / 2];
                const bool splits = layers % p == 0 || first > 0;
                if (!splits && fewest == 0)
                    continue;
                for (const std::int64_t cp : contextSizes(base, gpus / (t * p))) {
                    const std::int64_t d = gpus / (t * p * cp);
                    if (!fixed.context.allows(cp) || !fixed.data.allows(d))
                        continue;
                    for (const auto &[e, etp] : expertLayouts(base, fixed, d * cp * t, t))
                        if (!appendChoices(base, c, fixed,
                                           {nodes, d, t, p, cp, first, last, e, etp, fewest, median, splits}, out))
                            return out;
                }
            }
        }
    }
    return out;
}

namespace {

/// The base plan's model, training and cluster must be sound; its parallel layout is what the search
/// changes. Returns the first error that is not about the layout.
std::optional<Problem> baseProblem(const Plan &base, const Catalog &catalog)
{
    Plan probe = base;
    probe.parallel = ParallelConfig{};
    probe.parallel.zeroStage = base.training.framework == Framework::Fsdp ? 3 : 0; // FSDP is ZeRO-3 in any layout
    probe.parallel.pipeline = 1;
    probe.parallel.tensor = 1;
    probe.training.microBatch = 1;
    probe.training.deferEmbeddingWgrad = false; // needs pipeline stages: a layout's rule (applyConfig)
    probe.parallel.expertDispatcher = base.parallel.expertDispatcher; // the paged stash's rule is about it
    deriveDataParallel(probe);
    const auto layoutRule = [](const std::string &key) {
        return key.rfind("parallel", 0) == 0 || key == "training.global_batch" || key == "training.micro_batch";
    };
    for (const Problem &p : validatePlan(probe, catalog))
        if (p.isError() && !layoutRule(p.key))
            return p;
    return std::nullopt;
}

/// Scores every configuration on worker threads, by index (results do not depend on the thread count).
/// Returns the scores of the configurations evaluated (all of them unless cancelled).
std::vector<SearchScore> scoreAll(const Plan &base, const Catalog &catalog, const SearchConstraints &constraints,
                                  const std::vector<SearchConfig> &configs, const SearchProgress &progress,
                                  SearchOutcome &outcome)
{
    const std::int64_t total = std::int64_t(configs.size());
    std::vector<SearchScore> scores(configs.size());
    unsigned threads =
        constraints.threads > 0 ? unsigned(constraints.threads) : std::max(1u, std::thread::hardware_concurrency());
    threads = std::min<unsigned>(threads, std::max<std::int64_t>(1, total / 64));
    outcome.threads = int(std::max(1u, threads));
    std::atomic<std::int64_t> next{0};
    std::atomic<std::int64_t> done{0};
    constexpr std::int64_t kChunk = 64;
    const auto work = [&] {
        for (;;) {
            if (progress.cancel && progress.cancel->load(std::memory_order_relaxed))
                return;
            const std::int64_t begin = next.fetch_add(kChunk);
            if (begin >= total)
                return;
            const std::int64_t end = std::min(total, begin + kChunk);
            for (std::int64_t i = begin; i < end; ++i)
                scores[std::size_t(i)] = score(base, catalog, constraints, configs[std::size_t(i)]);
            const std::int64_t finished = done.fetch_add(end - begin) + (end - begin);
            if (progress.onProgress)
                progress.onProgress(finished, total);
        }
    };
    std::vector<std::thread> pool;
    for (unsigned k = 1; k < threads; ++k)
        pool.emplace_back(work);
    work();
    for (std::thread &t : pool)
        t.join();
    if (progress.cancel && progress.cancel->load()) {
        outcome.cancelled = true;
        scores.resize(std::size_t(std::min<std::int64_t>(done.load(), total)));
    }
    outcome.evaluated = done.load();
    return scores;
}

/// Groups with a feasible plan first, fastest first; the others keep their order.
template <typename Result>
void rankGroups(std::vector<Result> &groups)
{
    std::stable_sort(groups.begin(), groups.end(), [](const Result &a, const Result &b) {
        if ((a.feasible > 0) != (b.feasible > 0))
            return a.feasible > 0;
        return a.feasible > 0 && ranksBefore(a.best, b.best);
    });
}

/// The plans grouped by `keyOf` (a result made by `make`): how many, how many feasible, the fastest, and for a
/// group with none feasible the rule most of its invalid plans break; groups with a feasible plan first (fastest
/// first), then the others in key order.
template<typename Result, typename Key>
std::vector<Result> bestPerGroup(const std::vector<SearchScore> &scores, Key (*keyOf)(const SearchConfig &),
                                 Result (*make)(const SearchConfig &))
{
    std::map<Key, Result> groups;
    for (const SearchScore &s : scores) {
        auto [it, added] = groups.try_emplace(keyOf(s.config), make(s.config));
        Result &r = it->second;
        ++r.evaluated;
        if (!s.feasible)
            continue;
        if (r.feasible == 0 || ranksBefore(s, r.best))
            r.best = s;
        ++r.feasible;
    }
    // A group with none feasible (rare): the rule most of its plans break, counted by rule id in the scores' own
    // strings, in a second pass that the usual search never makes.
    std::map<Key, std::map<std::string_view, std::pair<std::int64_t, const Problem *>>> broken;
    if (std::any_of(groups.begin(), groups.end(), [](const auto &g) { return g.second.feasible == 0; }))
        for (const SearchScore &s : scores) {
            const Key key = keyOf(s.config);
            if (s.feasible || s.cause != RejectCause::Invalid || s.problem.key.empty() || groups.at(key).feasible > 0)
                continue;
            auto &count = broken[key][s.problem.rule.empty() ? s.problem.key : s.problem.rule];
            if (count.first++ == 0)
                count.second = &s.problem;
        }
    const auto fewer = [](const auto &a, const auto &b) { return a.second.first < b.second.first; };
    std::vector<Result> out;
    for (auto &[key, r] : groups) {
        if (const auto rules = broken.find(key); rules != broken.end())
            r.commonProblem = *std::max_element(rules->second.begin(), rules->second.end(), fewer)->second.second;
        out.push_back(r);
    }
    rankGroups(out);
    return out;
}

/// The groups' keys: an expert layout (expert, expert_tensor as written), a ZeRO stage.
std::pair<std::int64_t, std::int64_t> expertLayoutKey(const SearchConfig &c) { return {c.expert, c.expertTensor}; }
std::int64_t zeroStageKey(const SearchConfig &c) { return c.zeroStage; }

/// Per expert layout.
std::vector<ExpertLayoutResult> expertLayoutResults(const std::vector<SearchScore> &scores)
{
    return bestPerGroup<ExpertLayoutResult, std::pair<std::int64_t, std::int64_t>>(
        scores, expertLayoutKey,
        [](const SearchConfig &c) { ExpertLayoutResult r;
            r.expert = c.expert;
            r.expertTensor = c.expertTensor;
            return r; });
}

/// Per ZeRO stage tried.
std::vector<ZeroStageResult> zeroStageResults(const std::vector<SearchScore> &scores)
{
    return bestPerGroup<ZeroStageResult, std::int64_t>(
        scores, zeroStageKey, [](const SearchConfig &c) {
            ZeroStageResult r;
            r.zeroStage = c.zeroStage;
            return r; });
}

/// The listed plans scored again with the simulated schedule, as the window shows them once loaded, and
/// ranked by it (the analytic bubble chose them).
void rescoreListed(const Plan &base, const Catalog &catalog, const SearchConstraints &constraints,
                   SearchOutcome &outcome)
{
    for (RankedPlan &r : outcome.top)
        if (r.plan.parallel.pipeline > 1)
            r.score = score(base, catalog, constraints, r.score.config, true);
    std::stable_sort(outcome.top.begin(), outcome.top.end(),
                     [](const RankedPlan &a, const RankedPlan &b) { return ranksBefore(a.score, b.score); });
    for (std::size_t i = 0; i < outcome.top.size(); ++i)
        outcome.top[i].rank = int(i + 1);
    for (RankedPlan &p : outcome.pareto) {
        const auto listed = std::find_if(outcome.top.begin(), outcome.top.end(),
                                         [&](const RankedPlan &t) { return t.score.config == p.score.config; });
        if (listed != outcome.top.end()) {
            p.rank = listed->rank;
            p.score = listed->score;
        } else if (p.plan.parallel.pipeline > 1) {
            p.score = score(base, catalog, constraints, p.score.config, true);
        }
    }
    if (outcome.top.empty())
        return;
    outcome.bestTokensPerSecond = outcome.top.front().score.tokensPerSecond;
    // The band needs only where the plan sits (its device, framework, scale), not the views' details.
    const Plan &best = outcome.top.front().plan;
    outcome.bestAccuracy = accuracyAt(accuracyCoordinates(best, estimate(best, catalog, EstimateOptions::analytic())));
    const auto ties = [&](RankedPlan &r) {
        r.tiesBest = r.rank != 1 && outcome.bestTokensPerSecond > 0 && outcome.bestAccuracy.assessed &&
                     (outcome.bestTokensPerSecond - r.score.tokensPerSecond) / outcome.bestTokensPerSecond <=
                         outcome.bestAccuracy.band80;
    };
    std::for_each(outcome.top.begin(), outcome.top.end(), ties);
    std::for_each(outcome.pareto.begin(), outcome.pareto.end(), ties);
}

/// The software choices the search tries on the fastest layouts, beyond the base plan's: CUDA graphs of the
/// whole step (not beside host offload, whose copies a captured step cannot interleave), and for a mixture of
/// experts split over ranks the flex dispatcher that suits the fabric (HybridEP in a multi-node NVLink
/// domain, DeepEP otherwise) or Megatron-Core's all-to-all, with and without the all-to-all overlap. Held
/// choices are not varied.
std::vector<SearchConfig> softwareVariants(const Plan &base, const FixedDimensions &fixed, const SearchConfig &c)
{
    std::vector<CudaGraphs> graphs{c.cudaGraphs};
    if (!fixed.cudaGraphs.held() && c.cudaGraphs != CudaGraphs::Step && !c.offload &&
        base.training.activationOffloadLayers == 0)
        graphs.push_back(CudaGraphs::Step);
    std::vector<ExpertDispatcher> dispatchers{c.dispatcher};
    std::vector<bool> overlaps{c.expertCommOverlap};
    if (base.model.isMoe() && c.expert > 1) {
        const ExpertDispatcher flex = base.cluster.fabricGpus() > base.cluster.gpusPerNode ? ExpertDispatcher::HybridEp
                                                                                           : ExpertDispatcher::DeepEp;
        if (!fixed.dispatcher.held())
            for (const ExpertDispatcher d : {ExpertDispatcher::AllToAll, flex})
                if (d != c.dispatcher)
                    dispatchers.push_back(d);
        if (!fixed.expertCommOverlap.held())
            overlaps.push_back(!c.expertCommOverlap);
    }
    std::vector<SearchConfig> out;
    for (const CudaGraphs g : graphs)
        for (const ExpertDispatcher d : dispatchers)
            for (const bool o : overlaps) {
                SearchConfig v = c;
                v.cudaGraphs = g;
                v.dispatcher = d;
                v.expertCommOverlap = o;
                if (!(v == c))
                    out.push_back(v);
            }
    return out;
}

/// The fastest layouts scored again with the other software choices (softwareVariants): a layout's best
/// software is found without multiplying the whole space. A variant is kept only when it is faster than the
/// layout as planned and fits (a choice that changes nothing is not listed twice). Returns the variants
/// evaluated.
std::int64_t refineSoftware(const Plan &base, const Catalog &catalog, const SearchConstraints &constraints,
                            std::vector<SearchScore> &scores)
{
    std::vector<std::size_t> fastest;
    for (std::size_t i = 0; i < scores.size(); ++i)
        if (scores[i].feasible)
            fastest.push_back(i);
    const std::size_t keep = std::min(fastest.size(), std::max<std::size_t>(30, 3 * constraints.top));
    std::partial_sort(fastest.begin(), fastest.begin() + std::ptrdiff_t(keep), fastest.end(),
                      [&](std::size_t a, std::size_t b) { return ranksBefore(scores[a], scores[b]); });
    const FixedDimensions fixed(constraints);
    std::vector<SearchScore> better;
    std::int64_t evaluated = 0;
    for (std::size_t i = 0; i < keep; ++i) {
        const SearchScore &planned = scores[fastest[i]];
        for (const SearchConfig &v : softwareVariants(base, fixed, planned.config)) {
            SearchScore s = score(base, catalog, constraints, v);
            ++evaluated;
            if (s.feasible && s.tokensPerSecond > planned.tokensPerSecond * (1.0 + 1e-9))
                better.push_back(std::move(s));
        }
    }
    scores.insert(scores.end(), better.begin(), better.end());
    return evaluated;
}

/// Each group's fastest plan scored as the listed plans are (rescoreListed), so that the expert layouts and ZeRO
/// stages quote the figure the Results list shows (they had quoted the analytic one beside it): the group's
/// analytic best scored again with the simulated schedule, or a listed plan of the group that the schedule
/// ranks faster. Groups are ranked again by it.
template <typename Result, typename Key>
void scoreBestsAsListed(const Plan &base, const Catalog &catalog, const SearchConstraints &constraints,
                        const std::vector<RankedPlan> &top, std::vector<Result> &groups,
                        Key (*keyOf)(const SearchConfig &))
{
    for (Result &g : groups) {
        if (g.feasible == 0)
            continue;
        if (g.best.config.pipeline > 1)
            g.best = score(base, catalog, constraints, g.best.config, true);
        for (const RankedPlan &t : top)
            if (keyOf(t.score.config) == keyOf(g.best.config) && ranksBefore(t.score, g.best))
                g.best = t.score;
    }
    rankGroups(groups);
}

/// Ranks the feasible plans, takes the top ones and the Pareto front, groups the rejected ones.
void rank(const Plan &base, const Catalog &catalog, const SearchConstraints &constraints,
          const std::vector<SearchScore> &scores, SearchOutcome &outcome)
{
    for (const SearchScore &s : scores)
        if (s.feasible)
            outcome.feasiblePoints.push_back(s);
    std::sort(outcome.feasiblePoints.begin(), outcome.feasiblePoints.end(), ranksBefore);
    outcome.feasible = std::int64_t(outcome.feasiblePoints.size());
    if (!outcome.feasiblePoints.empty())
        outcome.bestTokensPerSecond = outcome.feasiblePoints.front().tokensPerSecond;
    for (std::size_t i = 0; i < outcome.feasiblePoints.size() && i < constraints.top; ++i)
        outcome.top.push_back(
            {int(i + 1), outcome.feasiblePoints[i], applyConfig(base, outcome.feasiblePoints[i].config)});
    for (const SearchScore &s : paretoFront(outcome.feasiblePoints)) {
        const auto it = std::find_if(outcome.feasiblePoints.begin(), outcome.feasiblePoints.end(),
                                     [&](const SearchScore &f) { return f.config == s.config; });
        outcome.pareto.push_back({int(it - outcome.feasiblePoints.begin()) + 1, s, applyConfig(base, s.config)});
    }
    rescoreListed(base, catalog, constraints, outcome);
    outcome.rejected = groupRejections(scores);
    outcome.minHeadroomBytes = constraints.minHeadroomBytes;
    outcome.keepMemoryMargin = constraints.keepMemoryMargin;
    outcome.rejectUncertainMemory = constraints.rejectUncertainMemory;
    if (base.model.isMoe()) {
        outcome.expertLayouts = expertLayoutResults(scores);
        scoreBestsAsListed(base, catalog, constraints, outcome.top, outcome.expertLayouts, expertLayoutKey);
    }
    outcome.zeroStages = zeroStageResults(scores);
    scoreBestsAsListed(base, catalog, constraints, outcome.top, outcome.zeroStages, zeroStageKey);
}

} // namespace

double estimatedSearchSeconds(const std::vector<SearchConfig> &configs, std::int64_t gpusPerNode)
{
    const double g = double(gpusPerNode);
    double micros = 0;
    for (const SearchConfig &c : configs) {
        const double p = double(c.pipeline);
        micros += 2.5 + 0.05 * p + 0.013 * g + 0.0002 * p * g;
    }
    return micros * 1e-6;
}

SearchOutcome searchPlans(const Plan &base, const Catalog &catalog, const SearchConstraints &constraints,
                          const SearchProgress &progress)
{
    const auto start = std::chrono::steady_clock::now();
    SearchOutcome outcome;
    if (const std::optional<Problem> problem = baseProblem(base, catalog)) {
        outcome.problem = *problem;
        return outcome;
    }
    const std::vector<SearchConfig> configs = enumerateConfigs(base, constraints);
    // The dimensions a user can fix to narrow it: with experts, expert parallelism too.
    const bool moe = base.model.isMoe();
    if (configs.size() > kMaxSearchConfigs) {
        outcome.problem = ruleProblem(Severity::Error, {}, moe ? "search.too_many_plans_moe" : "search.too_many_plans",
                                      {std::to_string(kMaxSearchConfigs)});
        return outcome;
    }
    if (const double work = estimatedSearchSeconds(configs, base.cluster.gpusPerNode); work > kMaxSearchSeconds) {
        outcome.problem = ruleProblem(
            Severity::Error, {}, moe ? "search.too_slow_moe" : "search.too_slow",
            {std::to_string(configs.size()), std::to_string(int(work)), std::to_string(int(kMaxSearchSeconds))});
        return outcome;
    }
    outcome.valid = true;
    EstimateOptions asShown = EstimateOptions::analytic();
    asShown.simulatePipeline = true;
    if (const Estimate e = estimate(base, catalog, asShown); e.valid && e.memory.fits)
        outcome.baseTokensPerSecond = e.step.tokensPerSecond;
    std::vector<SearchScore> scores = scoreAll(base, catalog, constraints, configs, progress, outcome);
    if (!outcome.cancelled)
        outcome.evaluated += refineSoftware(base, catalog, constraints, scores);
    rank(base, catalog, constraints, scores, outcome);
    outcome.parameters = totalParameters(base.model);
    outcome.noLayout = configs.empty();
    outcome.planName = base.name;
    outcome.gpus = base.cluster.gpus();
    outcome.globalBatch = base.training.globalBatch;
    outcome.layers = base.model.layers;
    outcome.heads = base.model.heads;
    outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return outcome;
}

bool bestMayNotFit(const SearchOutcome &outcome)
{
    return !outcome.top.empty() && outcome.top.front().score.mayNotFit;
}

} // namespace trainplan
