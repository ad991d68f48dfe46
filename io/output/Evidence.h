#pragma once
// The one place the estimators' evidence becomes words: the limiting resource, the placement flags, the
// mixed-cluster note, the search's rejected plans. Core returns ids and numbers; these sentences go
// through QCoreApplication::translate ("Evidence"), so the window can show them translated and the CLI
// prints the English source.

#include <QString>

#include "core/estimate/Estimate.h"
#include "core/search/Search.h"

namespace trainplan::io {

/// "45% of the step is compute-bound kernels; MFU 46%", "stage 3 needs 91.2 GiB of 80.0 GiB device memory".
QString bottleneckEvidence(Bottleneck bottleneck, const BottleneckEvidence &evidence);
/// A placement flag in words, with what to change.
QString placementFlagText(const PlacementFlag &flag);
/// "mixed cluster: A100 (1.2 s), H100 (0.8 s). Every rank waits ..."; empty for a homogeneous cluster.
QString mixedClusterNote(const Estimate &estimate);
/// Every problem of an estimate in words: validation's, then the mixed-cluster note (on
/// cluster.node_groups), then the placement flags (warnings on the key to change).
Problems estimateProblems(const Estimate &estimate);

/// "data 8 x tensor 8 x pipeline 8, micro-batch 1, 1f1b, ZeRO 1, recompute selective, SP".
QString describeConfig(const SearchConfig &config);
/// The same in a table cell's width: "d8 t8 p8 · 2 chunks · mb 1 · ZeRO-1 · selective · SP" (c context,
/// e expert, et expert tensor; first/last stage layers as "7+…+7 layers").
QString describeConfigBriefly(const SearchConfig &config);
/// The limiting resource of a group of rejected plans: "validity", "capacity", "communication".
QString rejectionResource(RejectCause cause);
/// A group of rejected plans with its nearest miss, in words with numbers.
QString rejectionMessage(const RejectionGroup &group, const SearchOutcome &outcome);
/// Mixture of experts: one expert layout's fastest plan against the best, naming the exposed all-to-all when
/// it accounts for most of the difference ("expert 64: 12% below the best plan; its exposed dispatch/combine
/// all-to-all, 33.7 s of a 52.0 s step, is what rules it out").
QString expertLayoutMessage(const ExpertLayoutResult &layout, const SearchOutcome &outcome);
/// A plan's data-parallel traffic and its floor: "over 1024 data-parallel ranks its 671 B parameters are gathered
/// for each micro-batch and their gradients reduce-scattered: 507.9 GiB per GPU through its 50 GB/s network
/// share, at least 10.2 s of the 33.6 s step (6.9 s of it exposed)".
QString trafficFloorText(const SearchScore &score, double parameters);
/// One ZeRO stage's fastest plan against the best, naming the parameter traffic's floor when it is what
/// rules the stage out.
QString zeroStageMessage(const ZeroStageResult &stage, const SearchOutcome &outcome);
/// The step's traffic floor in words: "at least 10.2 s of the 33.6 s step is what its collectives must move
/// over the links' nominal figures (...); most of it parameter gathers: ...".
QString trafficFloorSummary(const StepEstimate &step);
/// The error band in words: "within 6% for 80% of 30 comparable published runs (4 sources)", or why the plan
/// is not validated ("the published runs do not cover its device, framework").
QString accuracySummary(const Accuracy &accuracy);
/// "+-6%", with a mark when the plan is not validated ("+-25% (not validated)").
QString accuracyBandText(const Accuracy &accuracy);
/// The band alone, "±6%" ("" when the estimate has none): the CLI table and the window's captions and titles.
QString accuracyBand(const Accuracy &accuracy);
/// The memory peak's band in words, "within 18% for 80% of 18 comparable published peaks (not validated): up to
/// 97.1 GiB, more than the 80 GiB device" ("" without comparable peaks): what a peak near capacity may need.
QString memoryBandSummary(const MemoryEstimate &memory, const Accuracy &accuracy);
/// The dimensions the plan lies outside, in words: "device, framework".
QString outsideDimensions(const Accuracy &accuracy);
/// An intervention of the diagnostic map by its id ("selective_recomputation" -> "Selective recomputation").
QString interventionLabel(const std::string &id);
/// Why no plan is feasible, in one paragraph; empty when some plan is.
QString noFeasibleReason(const SearchOutcome &outcome);

} // namespace trainplan::io
