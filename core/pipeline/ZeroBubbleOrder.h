#pragma once
// Qi et al.'s handcrafted zero-bubble orders (ICLR 2024, Sec. 3, Figure 3), one stage at a time: the order the
// pipeline simulator times and the memory model reads its peak from.

#include <algorithm>
#include <cstdint>

#include "core/plan/PlanEnums.h"

namespace trainplan {

enum class ZeroBubbleOp : std::uint8_t { Forward, InputGradient, WeightGradient };

/// Stage s runs p - s forwards before its first input gradient B under ZB-H1 (1F1B's warm-up) and
/// 2 (p - s) - 1 under ZB-H2 (Figure 3: the first stage runs F1 to F7 before B1 at p = 4); then each B, the
/// weight gradients W that keep as many pending as its warm-up is short of the first stage's (s under
/// ZB-H1, 2s under ZB-H2), and the next forward; the W's it kept fill its drain. Every stage thus holds at
/// most p (ZB-H1) or 2p - 1 (ZB-H2) micro-batches between their F and their W, the paper's peak memory, and
/// at F, B and W of one unit each the orders leave Table 1's bubbles: (p - 1)(F + B - W) for ZB-H1, and
/// within one step 3m + (p - 1) units for ZB-H2 (its zero is the steady state of the fork's post-validation
/// across steps). `visit(kind, microbatch)` is called for each op in order.
/// The forwards stage s runs before its first B: p - s under ZB-H1, 2 (p - s) - 1 under ZB-H2 (before the step's
/// micro-batches cap them).
constexpr std::int64_t zeroBubbleWarmup(Schedule schedule, std::int64_t p, std::int64_t s)
{
    return schedule == Schedule::ZeroBubbleH2 ? 2 * (p - s) - 1 : p - s;
}

template <class Visit>
void forEachZeroBubbleOp(Schedule schedule, std::int32_t p, std::int32_t m, std::int32_t s, Visit &&visit)
{
    const auto bound = [&](std::int32_t stage) { return std::int32_t(zeroBubbleWarmup(schedule, p, stage)); };
    const std::int32_t warmup = std::min(bound(s), m), keep = bound(0) - bound(s);
    std::int32_t forwards = 0, backwards = 0, weights = 0;
    for (; forwards < warmup; ++forwards)
        visit(ZeroBubbleOp::Forward, forwards);
    while (backwards < m) {
        visit(ZeroBubbleOp::InputGradient, backwards++);
        for (; backwards - weights > keep; ++weights)
            visit(ZeroBubbleOp::WeightGradient, weights);
        if (forwards < m)
            visit(ZeroBubbleOp::Forward, forwards++);
    }
    for (; weights < m; ++weights)
        visit(ZeroBubbleOp::WeightGradient, weights);
}

} // namespace trainplan
