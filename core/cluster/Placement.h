#pragma once
// The placement report of a plan on its cluster: which links each kind of parallel group's collectives
// use, and the flags a user should see (a tensor-parallel group across nodes, with its cost in step
// time; pipeline stages that do not line up with the nodes).

#include <cstdint>
#include <string>
#include <vector>

#include "core/common/Problem.h"

namespace trainplan {

/// Where the groups of one kind (tensor, data, pipeline neighbours) sit and which link bounds them.
struct GroupLanding
{
    std::int64_t size = 1;         ///< ranks per group (2 for pipeline neighbours)
    std::int64_t groups = 1;       ///< groups of this kind in the job
    std::int64_t nodesSpanned = 1; ///< most nodes one group touches
    bool crossesNodes = false;
    std::string link;              ///< name of the slowest link the group's traffic uses
    double bandwidthBytesPerSecond = 0; ///< of that link, per GPU and direction, efficiency applied
    double nominalBandwidthBytesPerSecond = 0; ///< the link's figure (catalogue or plan override), before efficiency
    double latencySeconds = 0;
};

/// Something about the placement a user should change, with the numbers (io/output/Evidence words it).
struct PlacementFlag
{
    enum class Kind { TensorAcrossNodes, StagesMisaligned };
    Kind kind = Kind::TensorAcrossNodes;
    std::string key; ///< the plan key to change: "parallel.tensor", "parallel.pipeline"
    std::int64_t tensor = 0;
    std::int64_t gpusPerNode = 0;
    std::int64_t nodesSpanned = 0;
    /// TensorAcrossNodes: tensor-parallel communication's share of the step, what spanning nodes costs per
    /// step (and as a share of it), and the links.
    double commShare = 0;
    double costSeconds = 0;
    double costShare = 0;
    std::string network;
    std::string intraNodeLink;
    /// StagesMisaligned: GPUs per stage (tensor x data x context), the node stage 0 ends in, whether data-parallel
    /// groups straddle nodes.
    std::int64_t stageGpus = 0;
    std::int64_t firstStageEndNode = 0;
    bool dataCrossesNodes = false;
};

struct PlacementReport
{
    GroupLanding tensor;
    GroupLanding data;    ///< the gradient-reduction group: data x context ranks
    GroupLanding context; ///< context-parallel groups (size 1 without context parallelism)
    GroupLanding expert;  ///< expert-parallel (all-to-all) groups (size 1 without expert parallelism)
    GroupLanding expertData; ///< the routed experts' gradient reduction (size 1 without a mixture of experts)
    GroupLanding pipeline;
    std::int64_t pipelineBoundariesAcrossNodes = 0; ///< of the p - 1 stage boundaries
    bool stagesMisaligned = false;
    /// Step time lost because tensor-parallel groups span nodes: this step minus the same plan with every
    /// tensor group inside one node's scale-up link. 0 when no tensor group spans nodes.
    double tensorAcrossNodesSeconds = 0;
    std::vector<PlacementFlag> flags; ///< warnings, keyed by the plan field to change
};

} // namespace trainplan
