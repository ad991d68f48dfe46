#pragma once
// The reference text's 22 exercises. Numeric ones are computed here with the working shown step by step;
// the others carry a short answer and name the live demonstration that shows it.

#include <string>
#include <vector>

#include "core/hardware/Catalog.h"
#include "core/plan/Plan.h"

namespace trainplan {

struct ExerciseInput
{
    std::string label;
    double value = 0; ///< default, from the exercise text
    std::string unit;
    double min = 1e-12; ///< inputs are positive unless stated
    double max = 1e15;
};

/// The live demonstration an exercise points to (the Learn view opens it).
enum class Demo { None, DiagnosticMap, PersistentState, NumberFormats, Roofline, Scaling, Parallelism, PrecisionAudit,
                  StageTimes, Search, StepBreakdown, RunCost, MemoryTerms, Fusion, AllocatorSegments };

struct Exercise
{
    int number = 0;
    std::string prompt; ///< as the reference text words it
    bool numeric = false;
    std::vector<ExerciseInput> inputs;
    Demo demo = Demo::None;
    std::string title; ///< a short name for lists (ours; the prompt is the reference text's)
};

struct ExerciseAnswer
{
    std::string answer;               ///< one line with the result and its unit
    double value = 0;                 ///< the main number (numeric exercises)
    std::vector<std::string> working; ///< each step, in words with numbers
    std::string explanation;
};

const std::vector<Exercise> &exercises();

/// Exercise 8's demonstration: bytes the element-wise kernels of one micro-batch move (one layer's ops
/// once, plus embedding and output) with the plan's chains unfused and fused.
struct FusionTraffic
{
    double unfusedBytes = 0;
    double fusedBytes = 0;
};
FusionTraffic fusionTraffic(const Plan &plan);

/// Exercise 16's demonstration: GPT-2 small (fits on one A100) on one node of eight A100s, global batch
/// 512, micro-batch 8; searching it shows that pure data parallelism wins.
Plan exerciseSixteenPlan(const Catalog &catalog);
/// Solves exercise `number` for `inputs` (the exercise's own defaults when empty or short). An input
/// outside its range gives no result: the answer names the input and its range.
ExerciseAnswer solveExercise(int number, std::vector<double> inputs = {});

} // namespace trainplan
