#include "core/profile/TraceProfile.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <unordered_map>

namespace trainplan {

namespace {

bool hasAny(std::string_view name, std::initializer_list<std::string_view> parts)
{
    return std::any_of(parts.begin(), parts.end(),
                       [name](std::string_view p) { return name.find(p) != std::string_view::npos; });
}

/// NCCL's kernel names carry the collective: ncclDevKernel_AllReduce_Sum_bf16_RING_LL,
/// ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t; DeepEP's dispatch and combine are all-to-all.
KernelClass collectiveClass(std::string_view n)
{
    if (hasAny(n, {"allreduce", "all_reduce"}))
        return KernelClass::AllReduce;
    if (hasAny(n, {"allgather", "all_gather"}))
        return KernelClass::AllGather;
    if (hasAny(n, {"reducescatter", "reduce_scatter"}))
        return KernelClass::ReduceScatter;
    if (hasAny(n, {"alltoall", "all_to_all", "deep_ep"}))
        return KernelClass::AllToAll;
    if (hasAny(n, {"sendrecv", "send", "recv"}))
        return KernelClass::SendRecv;
    if (hasAny(n, {"broadcast", "bcast"}))
        return KernelClass::Broadcast;
    return KernelClass::OtherCollective;
}

struct Interval
{
    double start, end;
};

std::vector<Interval> merged(std::vector<Interval> v)
{
    std::sort(v.begin(), v.end(), [](const Interval &a, const Interval &b) { return a.start < b.start; });
    std::vector<Interval> out;
    for (const Interval &i : v) {
        if (!out.empty() && i.start <= out.back().end)
            out.back().end = std::max(out.back().end, i.end);
        else
            out.push_back(i);
    }
    return out;
}

double length(const std::vector<Interval> &v)
{
    double sum = 0;
    for (const Interval &i : v)
        sum += i.end - i.start;
    return sum;
}

/// Total overlap of two merged interval lists.
double overlap(const std::vector<Interval> &a, const std::vector<Interval> &b)
{
    double sum = 0;
    std::size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        sum += std::max(0.0, std::min(a[i].end, b[j].end) - std::max(a[i].start, b[j].start));
        (a[i].end < b[j].end ? i : j)++;
    }
    return sum;
}

/// The device compared: the one asked for, else the first with kernels; a warning names the others.
int chooseDevice(const TraceInput &trace, std::optional<int> asked, Problems &warnings)
{
    std::map<int, std::size_t> counts;
    for (const TraceKernel &k : trace.kernels)
        ++counts[k.device];
    if (counts.empty())
        return asked.value_or(0);
    const int device = asked.value_or(counts.begin()->first);
    if (asked && !counts.count(*asked))
        warnings.push_back(ruleProblem(Severity::Warning, {}, "trace.no_kernels_on_device", {std::to_string(*asked)}));
    // values: the device compared, then each other device and its kernel count.
    std::vector<std::string> others{std::to_string(device)};
    for (const auto &[d, n] : counts)
        if (d != device) {
            others.push_back(std::to_string(d));
            others.push_back(std::to_string(n));
        }
    if (others.size() > 1)
        warnings.push_back(ruleProblem(Severity::Warning, {}, "trace.other_devices", others));
    return device;
}

void listUnknown(const std::map<std::string, double> &unknown, double kernelSeconds, MeasuredProfile &out)
{
    if (unknown.empty())
        return;
    double total = 0;
    for (const auto &[name, seconds] : unknown) {
        out.unknownKernels.emplace_back(name, seconds / out.steps);
        total += seconds;
    }
    std::sort(out.unknownKernels.begin(), out.unknownKernels.end(),
              [](const auto &a, const auto &b) { return a.second > b.second; });
    const double share = kernelSeconds > 0 ? 100.0 * total / kernelSeconds : 0.0;
    std::string names;
    for (std::size_t i = 0; i < std::min<std::size_t>(3, out.unknownKernels.size()); ++i)
        names += (i ? ", " : "") + out.unknownKernels[i].first.substr(0, 60);
    out.warnings.push_back(
        ruleProblem(Severity::Warning, {}, "trace.unclassified_kernels",
                    {std::to_string(unknown.size()), std::to_string(int(std::lround(share))), names}));
}

} // namespace

KernelClass classifyKernel(std::string_view raw, bool copy)
{
    std::string lower(raw);
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    const std::string_view n = lower;
    if (copy || n.starts_with("memcpy") || n.starts_with("memset"))
        return KernelClass::Memcpy;
    if (hasAny(n, {"nccl", "rccl", "deep_ep"}))
        return collectiveClass(n);
    if (hasAny(n, {"multi_tensor", "adam", "lamb_", "optimizer"}))
        return KernelClass::Optimizer;
    if (hasAny(n, {"log_softmax", "logsoftmax", "cross_entropy", "crossentropy", "nll_loss"}))
        return KernelClass::Elementwise;
    if (hasAny(n, {"flash", "fmha", "attn", "attention", "sdpa", "softmax"}))
        return KernelClass::Attention;
    if (hasAny(n, {"gemm", "cutlass", "xmma", "cublas", "nvjet", "wgmma", "s16816", "s1688", "s884", "h884", "h1688",
                   "matmul", "cijk_", "triton_tem_", "splitkreduce"}))
        return KernelClass::Gemm;
    if (hasAny(n, {"elementwise", "vectorized", "reduce",   "norm",    "gelu",         "silu",
                   "swiglu",      "glu",        "dropout",  "cast",    "copy",         "transpose",
                   "permute",     "fill",       "index",    "gather",  "scatter",      "cat",
                   "embedding",   "amax",       "quantize", "scale",   "topk",         "sort",
                   "rope",        "rotary",     "bias",     "triton_", "at::native::", "transformer_engine",
                   "apex"}))
        return KernelClass::Elementwise;
    return KernelClass::Unknown;
}

MeasuredProfile measureProfile(const TraceInput &trace, std::optional<int> steps, std::optional<int> device)
{
    MeasuredProfile out;
    for (const std::string &w : trace.warnings)
        out.warnings.push_back(wordedProblem(Severity::Warning, {}, w));
    out.device = chooseDevice(trace, device, out.warnings);
    std::vector<Interval> all, comm, other;
    std::map<std::string, double> unknown;
    std::array<double, kKernelClassCount> totals{};
    std::unordered_map<std::string, KernelClass> classes; // a trace repeats a few hundred names millions of times
    double first = INFINITY, last = -INFINITY, kernelSeconds = 0;
    for (const TraceKernel &k : trace.kernels) {
        if (k.device != out.device || !(k.duration >= 0) || !std::isfinite(k.start))
            continue;
        auto known = classes.find(k.name);
        if (known == classes.end())
            known = classes.emplace(k.name, classifyKernel(k.name, false)).first;
        const KernelClass c = k.copy ? KernelClass::Memcpy : known->second;
        totals[std::size_t(c)] += k.duration;
        kernelSeconds += k.duration;
        if (c == KernelClass::Unknown)
            unknown[k.name] += k.duration;
        const Interval i{k.start, k.start + k.duration};
        all.push_back(i);
        (isCollective(c) ? comm : other).push_back(i);
        first = std::min(first, i.start);
        last = std::max(last, i.end);
        ++out.kernelCount;
    }
    if (out.kernelCount == 0) {
        out.warnings.push_back(ruleProblem(Severity::Warning, {}, "trace.no_kernels"));
        return out;
    }
    double spanSeconds = last - first;
    if (!trace.steps.empty()) {
        double from = INFINITY, to = -INFINITY;
        for (const auto &[start, duration] : trace.steps) {
            from = std::min(from, start);
            to = std::max(to, start + duration);
        }
        spanSeconds = to - from;
    }
    out.steps = steps.value_or(trace.steps.empty() ? 1 : int(trace.steps.size()));
    if (!steps && trace.steps.empty())
        out.warnings.push_back(ruleProblem(Severity::Warning, {}, "trace.no_step_markers"));
    out.steps = std::max(1, out.steps);
    const double n = double(out.steps);
    for (std::size_t c = 0; c < kKernelClassCount; ++c)
        out.busySeconds[c] = totals[c] / n;
    out.stepSeconds = spanSeconds / n;
    const std::vector<Interval> busy = merged(std::move(all)), collectives = merged(std::move(comm)),
                                compute = merged(std::move(other));
    out.exposedCommunicationSeconds = (length(collectives) - overlap(collectives, compute)) / n;
    out.idleSeconds = std::max(0.0, out.stepSeconds - length(busy) / n);
    listUnknown(unknown, kernelSeconds, out);
    return out;
}

} // namespace trainplan
