#pragma once
// The placement report of a plan on its cluster: which links each kind of parallel group's collectives
// use, and the flags a user should see (a tensor-parallel group across nodes, with its cost in step
// time; pipeline stages that do not line up with the nodes).

#include <cstdint>
#include <string>

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
    double latencySeconds = 0;
};

struct PlacementReport
{
    GroupLanding tensor;
    GroupLanding data;
    GroupLanding pipeline;
    std::int64_t pipelineBoundariesAcrossNodes = 0; ///< of the p - 1 stage boundaries
    bool stagesMisaligned = false;
    /// Step time lost because tensor-parallel groups span nodes: this step minus the same plan with every
    /// tensor group inside one node's scale-up link. 0 when no tensor group spans nodes.
    double tensorAcrossNodesSeconds = 0;
    Problems flags; ///< warnings, keyed by the plan field to change
};

} // namespace trainplan
