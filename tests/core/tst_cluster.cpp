// Cluster topology: where Megatron-LM's rank order (tensor, data, pipeline) puts each kind of group on
// nodes, which link each group's collectives use, the placement flags with their cost, node groups and
// mixed devices, and the plan file's cluster keys. Expected spans are worked out by hand from the rank
// order: rank r = tensor + t (data + d stage), node = r / gpus_per_node.

#include <QTest>

#include <map>
#include <vector>

#include "io/output/Evidence.h"
#include "io/plan/CatalogJson.h"
#include "io/plan/PlanJson.h"
#include "TestMain.h"
#include "TestSupport.h"
#include "core/cluster/Topology.h"
#include "core/estimate/Estimate.h"
#include "core/plan/PlanDiff.h"
#include "core/plan/PlanValidation.h"

using namespace trainplan;
using trainplan::test::presetPlan;

class TestCluster : public QObject
{
    Q_OBJECT

private slots:
    // DeepEP's normal kernels join at most 8 ranks over NVLink (NUM_MAX_NVL_PEERS, static-asserted in
    // csrc/deep_ep.hpp at deepseek-ai/DeepEP e02e4d2) and reach the rest over RDMA, Megatron-Core leaving
    // NVSHMEM's multi-node NVLink off; HybridEP spans the rack's NVLink domain. Expert 32 inside one GB200 NVL72
    // rack: HybridEP's group is 32 ranks on NVLink at the dispatchers' measured share (0.56 of 900 GB/s), DeepEP's
    // four "nodes" of 8 with the NIC's nominal 50 GB/s between them, and its step's dispatch is slower.
    void deepEpJoinsEightRanksOverNvlink()
    {
        Plan plan = presetPlan("qwen3-30b-a3b", 1, 1, 32, 1, 256, "gb200");
        plan.cluster.gpusPerNode = 4;
        plan.cluster.nodes = 8;
        plan.cluster.scaleUpDomain = 72;
        plan.training.flashAttention = true;
        plan.parallel.expert = 32;
        plan.parallel.expertTensor = 1;
        const Catalog &catalog = io::builtinCatalog();
        const DeviceSpec *gb200 = catalog.device("gb200");
        QVERIFY(gb200);
        plan.parallel.expertDispatcher = ExpertDispatcher::HybridEp;
        const ClusterLinks hybrid = clusterLinks(plan, *gb200);
        QCOMPARE(hybrid.expertGroup.size, std::int64_t(32));
        QVERIFY(!hybrid.expertGroup.spansNodes());
        QCOMPARE(hybrid.expertGroup.intraNode.bandwidthBytesPerSecond, 0.56 * 900e9);
        const Estimate viaHybrid = estimate(plan, catalog);
        plan.parallel.expertDispatcher = ExpertDispatcher::DeepEp;
        const ClusterLinks deep = clusterLinks(plan, *gb200);
        QCOMPARE(deep.expertGroup.size, std::int64_t(32));
        QCOMPARE(deep.expertGroup.perNode, std::int64_t(8));
        QCOMPARE(deep.expertGroup.nodes(), std::int64_t(4));
        QCOMPARE(deep.expertGroup.network.bandwidthBytesPerSecond, 50e9);
        const Estimate viaDeep = estimate(plan, catalog);
        QVERIFY(viaHybrid.valid && viaDeep.valid);
        QVERIFY(viaDeep.step.category(TimeCategory::ExpertComm) > 2.0 * viaHybrid.step.category(TimeCategory::ExpertComm));
        // The placement the window and report show is the one the estimate costs.
        QVERIFY(!viaHybrid.placement.expert.crossesNodes);
        QVERIFY(viaDeep.placement.expert.crossesNodes);
        QCOMPARE(viaDeep.placement.expert.nodesSpanned, std::int64_t(4));
        // On an 8-GPU node DeepEP's NVLink group is the node, as before.
        Plan node = plan;
        node.cluster.gpusPerNode = 8;
        node.cluster.nodes = 4;
        node.cluster.scaleUpDomain = 0;
        QCOMPARE(clusterLinks(node, *gb200).expertGroup.perNode, std::int64_t(8));
    }

    // A GB200 NVL72 rack: 18 trays of 4 GPUs joined by NVLink. Tensor 8 spans two trays: inside the
    // 72-GPU domain it runs over NVLink (no flag), without the domain over the network (flagged, slower).
    void scaleUpDomainKeepsGroupsOnNvlink()
    {
        Plan plan = presetPlan("llama3.1-70b", 8, 1, 9, 1, 144, "gb200");
        plan.cluster.gpusPerNode = 4;
        plan.cluster.nodes = 18;
        plan.training.recompute = Recompute::Selective;
        plan.training.sequenceParallel = true;
        plan.training.flashAttention = true;
        plan.cluster.scaleUpDomain = 72;
        const Catalog &catalog = io::builtinCatalog();
        const DeviceSpec *gb200 = catalog.device("gb200");
        QVERIFY(gb200);
        const Estimate rack = estimate(plan, catalog);
        QVERIFY(rack.valid);
        QVERIFY(!rack.placement.tensor.crossesNodes);
        QCOMPARE(rack.placement.tensor.bandwidthBytesPerSecond, gb200->intraNodeBandwidthBytesPerSecond * gb200->intraNodeEfficiency);
        // The data-parallel groups (9 replicas, 8 ranks apart) stay inside the rack too.
        QVERIFY(!rack.placement.data.crossesNodes);
        plan.cluster.scaleUpDomain = 0;
        const Estimate trays = estimate(plan, catalog);
        QVERIFY(trays.valid);
        QVERIFY(trays.placement.tensor.crossesNodes);
        QCOMPARE(trays.placement.tensor.bandwidthBytesPerSecond, gb200->networkBandwidthBytesPerSecond * gb200->networkEfficiency);
        QVERIFY(trays.step.stepSeconds > 1.5 * rack.step.stepSeconds); // 2 x 400 Gb/s vs NVLink 5 for every layer
        // Memory does not depend on the fabric, but for NCCL's channels: fewer when a group crosses trays.
        const auto nccl = [](const Estimate &e) { return e.memory.stages[0].otherTerm(OtherTerm::NcclBuffers); };
        QVERIFY(nccl(trays) < nccl(rack));
        QCOMPARE(trays.memory.peakBytes - nccl(trays), rack.memory.peakBytes - nccl(rack));
        QCOMPARE(trays.memory.reservedBytes, rack.memory.reservedBytes);
    }

    void scaleUpDomainIsWholeNodes()
    {
        Plan plan = presetPlan("llama3.1-70b", 8, 1, 9, 1, 144, "gb200");
        plan.cluster.gpusPerNode = 4;
        plan.cluster.nodes = 18;
        plan.cluster.scaleUpDomain = 70;
        const std::vector<Problem> problems = validatePlan(plan, io::builtinCatalog());
        const auto it = std::find_if(problems.begin(), problems.end(), [](const Problem &p) { return p.key == "cluster.scale_up_domain"; });
        QVERIFY(it != problems.end());
        QVERIFY2(io::problemMessage(*it).find("must be whole nodes of 4 GPUs; valid values nearby: 64, 68 or 72") != std::string::npos, io::problemMessage(*it).c_str());
        // Written only when set; read back.
        plan.cluster.scaleUpDomain = 72;
        const QByteArray bytes = io::writePlan(plan, io::builtinCatalog());
        QVERIFY(bytes.contains("\"scale_up_domain\": 72"));
        QCOMPARE(io::readPlan(bytes, io::builtinCatalog()).plan->cluster.scaleUpDomain, 72);
        plan.cluster.scaleUpDomain = 0;
        QVERIFY(!io::writePlan(plan, io::builtinCatalog()).contains("scale_up_domain"));
    }

    void rankCoordinates()
    {
        ParallelConfig p;
        p.tensor = 2;
        p.data = 4;
        p.pipeline = 3;
        // rank 13 = 1 + 2 x (2 + 4 x 1)
        const RankCoordinates c = coordinatesOf(p, 13);
        QCOMPARE(c.tensor, 1);
        QCOMPARE(c.data, 2);
        QCOMPARE(c.stage, 1);
        const RankCoordinates last = coordinatesOf(p, 23);
        QCOMPARE(last.tensor, 1);
        QCOMPARE(last.data, 3);
        QCOMPARE(last.stage, 2);
    }

    void groupSpans_data()
    {
        QTest::addColumn<int>("t");
        QTest::addColumn<int>("d");
        QTest::addColumn<int>("p");
        QTest::addColumn<int>("G");
        QTest::addColumn<int>("tensorNodes");
        QTest::addColumn<int>("tensorMinPerNode");
        QTest::addColumn<int>("dataNodes");
        QTest::addColumn<int>("dataMinPerNode");
        QTest::addColumn<int>("boundariesAcross");
        QTest::addColumn<bool>("misaligned");
        // t8 d8 p8 on DGX nodes: a tensor group is one node; data ranks are 8 apart: 8 nodes, 1 each;
        // every stage is 8 whole nodes, so all 7 boundaries cross.
        QTest::newRow("t8 d8 p8 / 8") << 8 << 8 << 8 << 8 << 1 << 8 << 8 << 1 << 7 << false;
        // t16 on 8-GPU nodes: 2 nodes of 8.
        QTest::newRow("t16 d2 p1 / 8") << 16 << 2 << 1 << 8 << 2 << 8 << 2 << 1 << 0 << false;
        // t2 d4 p4 / 8: a stage (8 GPUs) is exactly one node; data ranks 0,2,4,6 in one node.
        QTest::newRow("t2 d4 p4 / 8") << 2 << 4 << 4 << 8 << 1 << 2 << 1 << 4 << 3 << false;
        // t2 d2 p4 / 8: stages of 4, two per node: boundaries 0|1 and 2|3 inside a node, 1|2 across.
        QTest::newRow("t2 d2 p4 / 8") << 2 << 2 << 4 << 8 << 1 << 2 << 1 << 2 << 1 << false;
        // t2 d8 p1 / 8: data ranks 0,2,...,14 over 2 nodes, 4 in each.
        QTest::newRow("t2 d8 p1 / 8") << 2 << 8 << 1 << 8 << 1 << 2 << 2 << 4 << 0 << false;
        // t3 on 8-GPU nodes: group 2 is ranks 6,7 | 8: 2 nodes, 1 rank on the second.
        QTest::newRow("t3 d8 p1 / 8") << 3 << 8 << 1 << 8 << 2 << 1 << 3 << 2 << 0 << false;
        // t4 d3 p2 / 8: stages of 12 GPUs neither fill nodes nor tile one: misaligned.
        QTest::newRow("t4 d3 p2 / 8") << 4 << 3 << 2 << 8 << 1 << 4 << 2 << 1 << 1 << true;
        // t1 d64 p1 / 8: 8 nodes of 8.
        QTest::newRow("t1 d64 p1 / 8") << 1 << 64 << 1 << 8 << 1 << 1 << 8 << 8 << 0 << false;
    }

    void groupSpans()
    {
        QFETCH(int, t);
        QFETCH(int, d);
        QFETCH(int, p);
        QFETCH(int, G);
        ParallelConfig par;
        par.tensor = t;
        par.data = d;
        par.pipeline = p;
        const GroupSpan tensor = tensorGroupSpan(par, G);
        const GroupSpan data = dataGroupSpan(par, G);
        const PipelineSpan pipe = pipelineSpan(par, G);
        QTEST(int(tensor.nodesSpanned), "tensorNodes");
        QTEST(int(tensor.minPerNode), "tensorMinPerNode");
        QTEST(int(data.nodesSpanned), "dataNodes");
        QTEST(int(data.minPerNode), "dataMinPerNode");
        QTEST(int(pipe.boundariesAcrossNodes), "boundariesAcross");
        QTEST(pipe.stagesMisaligned, "misaligned");
        QCOMPARE(pipe.boundaries, p - 1);
        // The stage group (all t x d ranks of a stage) is contiguous: stage s holds ranks [s t d, (s + 1) t d),
        // and the worst stage touches the most nodes.
        const GroupSpan stage = stageGroupSpan(par, G);
        QCOMPARE(int(stage.size), t * d);
        int worstNodes = 0;
        for (int s = 0; s < p; ++s)
            worstNodes = std::max(worstNodes, ((s + 1) * t * d - 1) / G - s * t * d / G + 1);
        QCOMPARE(int(stage.nodesSpanned), worstNodes);
    }

    // groupOf() groups the ranks as the span functions place them: for each kind and layout, every group
    // has the span's size, there are groupCount() of them, and the worst group's nodes and fewest ranks in
    // a node are the span's, on nodes of 4, 8 and 72 GPUs, in both of Megatron-LM's rank orders (the stages
    // outermost, and inside the data replicas: --use-tp-pp-dp-mapping). Megatron-Core's orders by hand for one
    // layout.
    void groupsOfRanksMatchTheirSpans()
    {
        struct Layout { int t, c, d, p, e, et; };
        const Layout layouts[] = {{8, 1, 4, 2, 1, 0}, {2, 2, 4, 3, 1, 0}, {4, 1, 16, 2, 8, 1}, {1, 4, 8, 1, 4, 2},
                                  {2, 1, 12, 1, 6, 0}, {1, 1, 64, 1, 64, 1}, {4, 2, 2, 2, 2, 2}, {2, 1, 6, 4, 1, 0},
                                  {4, 1, 2, 8, 1, 0}, {1, 2, 3, 5, 2, 1}};
        for (const RankOrder order : {RankOrder::DataInside, RankOrder::StagesInside})
        for (const Layout &l : layouts) {
            ParallelConfig par;
            par.rankOrder = order;
            par.tensor = l.t;
            par.context = l.c;
            par.data = l.d;
            par.pipeline = l.p;
            par.expert = l.e;
            par.expertTensor = l.et;
            const std::int64_t ranks = std::int64_t(l.t) * l.c * l.d * l.p;
            const std::pair<GroupKind, GroupSpan (*)(const ParallelConfig &, std::int64_t)> kinds[] = {
                {GroupKind::Tensor, tensorGroupSpan},   {GroupKind::Context, contextGroupSpan},
                {GroupKind::Gradient, dataGroupSpan},   {GroupKind::Stage, stageGroupSpan},
                {GroupKind::Expert, expertGroupSpan}};
            for (const auto &[kind, span] : kinds)
                for (const std::int64_t G : {4, 8, 72}) {
                    std::map<std::int64_t, std::vector<std::int64_t>> groups;
                    for (std::int64_t r = 0; r < ranks; ++r)
                        groups[groupOf(kind, par, r)].push_back(r);
                    const QString what = QStringLiteral("kind %1, t%2 c%3 d%4 p%5 e%6 et%7, nodes of %8, %9")
                                             .arg(int(kind)).arg(l.t).arg(l.c).arg(l.d).arg(l.p).arg(l.e).arg(l.et).arg(G)
                                             .arg(QLatin1String(toString(order)));
                    QVERIFY2(std::int64_t(groups.size()) == groupCount(kind, par), qPrintable(what));
                    QVERIFY2(groups.begin()->first == 0 && groups.rbegin()->first == groupCount(kind, par) - 1, qPrintable(what));
                    const GroupSpan expected = span(par, G);
                    std::int64_t worstNodes = 0, fewest = ranks;
                    for (const auto &[index, members] : groups) {
                        QVERIFY2(std::int64_t(members.size()) == expected.size, qPrintable(what));
                        std::map<std::int64_t, std::int64_t> perNode;
                        for (const std::int64_t r : members)
                            ++perNode[r / G];
                        const auto nodes = std::int64_t(perNode.size());
                        std::int64_t least = ranks;
                        for (const auto &[node, n] : perNode)
                            least = std::min(least, n);
                        if (nodes > worstNodes || (nodes == worstNodes && least < fewest)) {
                            worstNodes = nodes;
                            fewest = least;
                        }
                    }
                    QVERIFY2(worstNodes == expected.nodesSpanned, qPrintable(what + QStringLiteral(": %1 nodes, span %2").arg(worstNodes).arg(expected.nodesSpanned)));
                    QVERIFY2(fewest == expected.minPerNode, qPrintable(what + QStringLiteral(": %1 in a node, span %2").arg(fewest).arg(expected.minPerNode)));
                }
        }
        // By hand, tensor 2 x context 2 x data 2 x pipeline 2 (ranks t fastest, then c, d, p): rank 5 is
        // tensor 1, context 0, data 1, stage 0; its tensor group {4, 5} is the third, its context group
        // {5, 7} the fourth, its replica the second, its gradient group {1, 3, 5, 7} the second.
        ParallelConfig par;
        par.tensor = 2;
        par.context = 2;
        par.data = 2;
        par.pipeline = 2;
        QCOMPARE(groupOf(GroupKind::Tensor, par, 5), std::int64_t(2));
        QCOMPARE(groupOf(GroupKind::Tensor, par, 4), std::int64_t(2));
        QCOMPARE(groupOf(GroupKind::Context, par, 5), groupOf(GroupKind::Context, par, 7));
        QCOMPARE(groupOf(GroupKind::Context, par, 5), std::int64_t(3));
        QCOMPARE(groupOf(GroupKind::Replica, par, 5), std::int64_t(1));
        QCOMPARE(groupOf(GroupKind::Gradient, par, 5), std::int64_t(1));
        QCOMPARE(groupOf(GroupKind::Gradient, par, 1), groupOf(GroupKind::Gradient, par, 7));
        QCOMPARE(groupOf(GroupKind::Stage, par, 9), std::int64_t(1));
    }

    // Megatron-LM's --use-tp-pp-dp-mapping (parallel.rank_order "tp-cp-ep-pp-dp"): rank = tensor + t (context +
    // c (stage + p data)). Tensor 4 x pipeline 8 x data 2 on 8-GPU nodes: stages s and s + 1 of a replica share a
    // node for even s, so 3 of the 7 boundaries cross (all 7 when each stage is a node); a data group's ranks are
    // t x p = 32 apart, two nodes (one node before); rank 36 is tensor 0, stage 1, data 1.
    void stagesInsideTheReplicas()
    {
        ParallelConfig par;
        par.tensor = 4;
        par.pipeline = 8;
        par.data = 2;
        QCOMPARE(int(pipelineSpan(par, 8).boundariesAcrossNodes), 7);
        QCOMPARE(int(dataGroupSpan(par, 8).nodesSpanned), 1);
        par.rankOrder = RankOrder::StagesInside;
        QCOMPARE(int(pipelineSpan(par, 8).boundariesAcrossNodes), 3);
        QCOMPARE(int(dataGroupSpan(par, 8).nodesSpanned), 2);
        QCOMPARE(int(dataGroupSpan(par, 8).minPerNode), 1);
        const RankCoordinates c = coordinatesOf(par, 36);
        QCOMPARE(c.tensor, std::int64_t(0));
        QCOMPARE(c.stage, std::int64_t(1));
        QCOMPARE(c.data, std::int64_t(1));
        // Experts (expert 2 x expert tensor 1 = tensor 2, as Megatron-Core requires with this order): tensor 2,
        // pipeline 2, data 4 on 8-GPU nodes. An expert shard's data ranks of one stage are expert x pipeline = 4
        // apart, 0 4 8 12: two nodes; 2 apart (0 2 4 6, one node) with the stages outermost.
        par.tensor = 2;
        par.pipeline = 2;
        par.data = 4;
        par.expert = 2;
        par.expertTensor = 1;
        QCOMPARE(int(expertDataGroupSpan(par, 8).nodesSpanned), 2);
        QCOMPARE(int(expertDataGroupSpan(par, 8).minPerNode), 2);
        par.rankOrder = RankOrder::DataInside;
        QCOMPARE(int(expertDataGroupSpan(par, 8).nodesSpanned), 1);

        // The rules: Megatron-LM's order alone, not with Megatron-FSDP, and with stages the experts' data ranks
        // the attention's.
        const auto problem = [](const Plan &plan) {
            for (const Problem &p : validatePlan(plan, io::builtinCatalog()))
                if (p.key == "parallel.rank_order")
                    return io::problemMessage(p);
            return std::string();
        };
        Plan plan = presetPlan("llama3.1-70b", 4, 8, 2, 1, 64, "h100-sxm5-80gb");
        plan.parallel.rankOrder = RankOrder::StagesInside;
        QCOMPARE(problem(plan), std::string());
        plan.training.framework = Framework::DeepSpeed;
        QVERIFY2(problem(plan).find("framework \"deepspeed\" puts the pipeline stages outermost") != std::string::npos,
                 problem(plan).c_str());
        plan.training.framework = Framework::Megatron;
        plan.parallel.zeroStage = 3;
        QVERIFY2(problem(plan).find("Megatron-FSDP") != std::string::npos, problem(plan).c_str());
        Plan moe = presetPlan("mixtral-8x7b", 2, 4, 8, 1, 64, "h100-sxm5-80gb");
        moe.parallel.expert = 8;
        moe.parallel.expertTensor = 1;
        moe.parallel.rankOrder = RankOrder::StagesInside;
        QVERIFY2(problem(moe).find("parallel.expert x parallel.expert_tensor (8 x 1) must equal parallel.tensor x "
                                   "parallel.context (2 x 1)") != std::string::npos,
                 problem(moe).c_str());
        moe.parallel.expert = 2;
        QCOMPARE(problem(moe), std::string());

        // The estimate places the groups so: the 70B layout's data-parallel reduction crosses nodes, its pipeline
        // sends cross fewer node boundaries.
        plan.parallel.zeroStage = 1;
        const Estimate inside = estimate(plan, io::builtinCatalog());
        plan.parallel.rankOrder = RankOrder::DataInside;
        const Estimate outside = estimate(plan, io::builtinCatalog());
        QVERIFY(inside.valid && outside.valid);
        QCOMPARE(inside.placement.pipelineBoundariesAcrossNodes, std::int64_t(3));
        QCOMPARE(outside.placement.pipelineBoundariesAcrossNodes, std::int64_t(7));
        QVERIFY(inside.placement.data.crossesNodes && !outside.placement.data.crossesNodes);
    }

    // GPT-3 175B as NVIDIA runs it (TP 4, DP 32, PP 8): a stage's 128 ranks fill 16 DGX nodes, or two
    // 64-GPU NVLink domains of a GB200 rack.
    void stageGroupOfALargeLayout()
    {
        ParallelConfig par;
        par.tensor = 4;
        par.data = 32;
        par.pipeline = 8;
        QCOMPARE(int(stageGroupSpan(par, 8).nodesSpanned), 16);
        QCOMPARE(int(stageGroupSpan(par, 8).minPerNode), 8);
        QCOMPARE(int(stageGroupSpan(par, 64).nodesSpanned), 2);
    }

    // The link tier each collective uses, with the device's calibrated efficiency applied.
    void linkTierPerCollective()
    {
        const Catalog &catalog = io::builtinCatalog();
        Plan plan = presetPlan("gpt3-175b", 8, 8, 8, 1, 512);
        plan.cluster.network = "ib-ndr";
        plan.cluster.intraNodeLink = "nvlink3-nvswitch";
        const Estimate e = estimate(plan, catalog);
        QVERIFY(e.valid);
        const DeviceSpec &a100 = *catalog.device("a100-sxm4-80gb");
        QCOMPARE(e.placement.tensor.link, std::string("NVLink 3 + NVSwitch (A100)"));
        QVERIFY(!e.placement.tensor.crossesNodes);
        QCOMPARE(e.placement.tensor.bandwidthBytesPerSecond, 300e9 * a100.intraNodeEfficiency);
        QCOMPARE(e.placement.data.link, std::string("InfiniBand NDR (400 Gb/s per GPU)"));
        QVERIFY(e.placement.data.crossesNodes);
        QCOMPARE(e.placement.data.bandwidthBytesPerSecond, 50e9 * a100.networkEfficiency);
        // The link figures themselves (what the cluster fields show): NVLink 3's 300 GB/s, NDR's 400 Gb/s.
        QCOMPARE(e.placement.tensor.nominalBandwidthBytesPerSecond, 300e9);
        QCOMPARE(e.placement.data.nominalBandwidthBytesPerSecond, 50e9);
        QCOMPARE(e.placement.pipeline.nominalBandwidthBytesPerSecond, 50e9);
        QCOMPARE(e.placement.pipeline.link, std::string("InfiniBand NDR (400 Gb/s per GPU)"));
        QCOMPARE(e.placement.pipelineBoundariesAcrossNodes, 7);
        QVERIFY(e.placement.flags.empty());

        // A plan override of the network's figure is the nominal figure the placement reports.
        Plan overridden = plan;
        overridden.cluster.overrides.networkBandwidthBytesPerSecond = 12.5e9;
        const Estimate o = estimate(overridden, catalog);
        QCOMPARE(o.placement.data.nominalBandwidthBytesPerSecond, 12.5e9);
        QCOMPARE(o.placement.data.bandwidthBytesPerSecond, 12.5e9 * a100.networkEfficiency);

        // A slower network tier: data-parallel traffic slows, the tensor groups on NVLink do not.
        plan.cluster.network = "ethernet-100-node";
        const Estimate slow = estimate(plan, catalog);
        QVERIFY(slow.step.category(TimeCategory::DataComm) > e.step.category(TimeCategory::DataComm));
        QCOMPARE(slow.step.category(TimeCategory::TensorComm), e.step.category(TimeCategory::TensorComm));
        // PCIe inside the node: tensor traffic slows by the bandwidth ratio (bandwidth-bound 25 MB messages).
        plan.cluster.network = "ib-ndr";
        plan.cluster.intraNodeLink = "pcie4-x16";
        const Estimate pcie = estimate(plan, catalog);
        QVERIFY(pcie.step.category(TimeCategory::TensorComm) > 5.0 * e.step.category(TimeCategory::TensorComm));
    }

    // A tensor group across nodes is flagged with its cost: the step minus the same plan with the
    // tensor groups on NVLink.
    void tensorAcrossNodesIsFlaggedWithCost()
    {
        const Catalog &catalog = io::builtinCatalog();
        Plan plan = presetPlan("gpt3-175b", 16, 4, 8, 1, 512);
        QCOMPARE(plan.cluster.gpus(), 512);
        const Estimate e = estimate(plan, catalog);
        QVERIFY(e.valid);
        QVERIFY(e.placement.tensor.crossesNodes);
        QCOMPARE(e.placement.tensor.nodesSpanned, 2);
        const StepEstimate within = estimateStep(plan, *e.device, e.memory, true, true);
        QVERIFY(within.stepSeconds < e.step.stepSeconds);
        QCOMPARE(e.placement.tensorAcrossNodesSeconds, e.step.stepSeconds - within.stepSeconds);
        bool flagged = false;
        for (const Problem &p : io::estimateProblems(e))
            if (p.key == "parallel.tensor" && p.severity == Severity::Warning
                && io::problemMessage(p).find("span 2 nodes") != std::string::npos && io::problemMessage(p).find(" per step (") != std::string::npos)
                flagged = true;
        QVERIFY(flagged);
        // The cost is the exposed extra tensor traffic: at most the whole tensor-parallel time.
        QVERIFY(e.placement.tensorAcrossNodesSeconds <= e.step.category(TimeCategory::TensorComm));
    }

    void misalignedStagesAreFlagged()
    {
        Plan plan = presetPlan("gpt2-small", 4, 2, 3, 1, 48);
        plan.cluster.gpusPerNode = 8;
        plan.cluster.nodes = 3;
        const Estimate e = estimate(plan, io::builtinCatalog());
        QVERIFY2(e.valid, e.problems.empty() ? "" : qPrintable(io::problemLine(e.problems.front())));
        QVERIFY(e.placement.stagesMisaligned);
        bool flagged = false;
        for (const Problem &p : io::estimateProblems(e))
            flagged = flagged || (p.key == "parallel.pipeline" && io::problemMessage(p).find("do not line up") != std::string::npos);
        QVERIFY(flagged);
    }

    // Mixed devices: the slowest sets the pace; each stage's memory is checked on the devices holding it.
    void mixedClusterSlowestSetsThePace()
    {
        const Catalog &catalog = io::builtinCatalog();
        Plan plan = presetPlan("gpt3-175b", 8, 8, 2, 1, 64);
        plan.cluster.setGroups({{"DGX H100", "h100-sxm5-80gb", 8, 8, "nvlink4-nvswitch"},
                                {"DGX A100", "a100-sxm4-40gb", 8, 8, "nvlink3-nvswitch"}});
        QCOMPARE(plan.cluster.nodes, 16);
        QCOMPARE(plan.cluster.device, std::string("h100-sxm5-80gb"));
        const Estimate mixed = estimate(plan, catalog);
        QVERIFY(mixed.valid);
        QCOMPARE(int(mixed.nodeGroups.size()), 2);

        Plan allA100 = plan;
        allA100.cluster.setGroups({{"", "a100-sxm4-40gb", 8, 16, "nvlink3-nvswitch"}});
        Plan allH100 = plan;
        allH100.cluster.setGroups({{"", "h100-sxm5-80gb", 8, 16, "nvlink4-nvswitch"}});
        const Estimate a = estimate(allA100, catalog);
        const Estimate h = estimate(allH100, catalog);
        QVERIFY(h.step.stepSeconds < a.step.stepSeconds);
        QCOMPARE(mixed.step.stepSeconds, a.step.stepSeconds);
        QVERIFY(mixed.nodeGroups[1].paces);
        QVERIFY(!mixed.nodeGroups[0].paces);
        QCOMPARE(mixed.nodeGroups[1].firstNode, 8);
        // Stages 0-3 (nodes 0-7) are on H100 80GB, stages 4-7 on A100 40GB.
        QCOMPARE(mixed.memory.stages[0].capacityBytes, catalog.device("h100-sxm5-80gb")->memoryBytes);
        QCOMPARE(mixed.memory.stages[7].capacityBytes, catalog.device("a100-sxm4-40gb")->memoryBytes);
        QCOMPARE(mixed.memory.stages[7].peakBytes, a.memory.stages[7].peakBytes);
        QCOMPARE(mixed.memory.fits, a.memory.stages[7].peakBytes <= 40.0 * (1 << 30) && h.memory.stages[0].peakBytes <= 80.0 * (1 << 30));
        bool explained = false;
        for (const Problem &p : io::estimateProblems(mixed))
            explained = explained || (p.key == "cluster.node_groups" && io::problemMessage(p).find("sets the step time") != std::string::npos);
        QVERIFY(explained);

        // MFU counts the peak of every GPU: half the GPUs are H100s (989 TFLOP/s dense BF16, NVIDIA's H100
        // datasheet) and half A100s (312 TFLOP/s): the A100-paced step delivers the all-A100 plan's model
        // FLOPs on a cluster with (312 + 989) / 2 TFLOP/s of peak per GPU.
        QCOMPARE(catalog.device("a100-sxm4-40gb")->peakFlops(Precision::BF16), 312e12);
        QCOMPARE(catalog.device("h100-sxm5-80gb")->peakFlops(Precision::BF16), 989e12);
        QCOMPARE(mixed.step.mfu, a.step.mfu * 312.0 / ((312.0 + 989.0) / 2.0));
        // The H100s wait for the A100s for the rest of each step; the A100s never wait.
        QCOMPARE(mixed.nodeGroups[0].idleShare, 1.0 - h.step.stepSeconds / a.step.stepSeconds);
        QCOMPARE(mixed.nodeGroups[1].idleShare, 0.0);
        QCOMPARE(mixed.idleShare, 0.5 * mixed.nodeGroups[0].idleShare);
        QCOMPARE(a.idleShare, 0.0);
    }

    void nodeGroupRules()
    {
        const Catalog &catalog = io::builtinCatalog();
        Plan plan = presetPlan("gpt2-small", 1, 1, 12, 1, 48);
        plan.cluster.setGroups({{"", "a100-sxm4-80gb", 8, 1, ""}, {"", "mi300x", 4, 1, ""}});
        const Problems problems = validatePlan(plan, catalog);
        bool named = false;
        for (const Problem &p : problems)
            named = named || (p.key == "cluster.node_groups[1].gpus_per_node" && p.isError());
        QVERIFY(named);

        std::vector<NodeGroup> many(257, NodeGroup{"", "a100-sxm4-80gb", 8, 1, ""});
        plan.cluster.setGroups(many);
        bool tooMany = false;
        for (const Problem &p : validatePlan(plan, catalog))
            tooMany = tooMany || (p.key == "cluster.node_groups" && io::problemMessage(p).find("at most 256") == 0);
        QVERIFY(tooMany);

        plan.cluster.setGroups({{"", "a100-sxm4-80gb", 8, 1, "warp-drive"}});
        plan.parallel.data = 8;
        bool unknownLink = false;
        for (const Problem &p : validatePlan(plan, catalog))
            unknownLink = unknownLink || p.key == "cluster.intra_node_link";
        QVERIFY(unknownLink);
    }

    void builtinClusterCatalog()
    {
        const Catalog &c = io::builtinCatalog();
        QCOMPARE(int(c.intraNodeLinks().size()), 7);
        QCOMPARE(int(c.networks().size()), 7);
        QVERIFY(c.nodeTemplates().size() >= 8);
        const NodeTemplate *dgx = c.nodeTemplate("dgx-h100");
        QVERIFY(dgx);
        QCOMPARE(dgx->gpusPerNode, 8);
        QCOMPARE(c.intraNodeLink(dgx->intraNodeLink)->bandwidthBytesPerSecond, 450e9);
        // The device figures and their matching link entries agree, so a template gives the calibrated result.
        QCOMPARE(c.device("a100-sxm4-80gb")->intraNodeBandwidthBytesPerSecond, c.intraNodeLink("nvlink3-nvswitch")->bandwidthBytesPerSecond);
        QCOMPARE(c.device("a100-sxm4-80gb")->networkBandwidthBytesPerSecond, c.network("ib-hdr")->bandwidthBytesPerSecond);
        QCOMPARE(c.device("h100-sxm5-80gb")->networkBandwidthBytesPerSecond, c.network("ib-ndr")->bandwidthBytesPerSecond);
    }

    // node_groups, network and custom_devices survive save -> load byte for byte.
    void planFileRoundTrip()
    {
        const Catalog &catalog = io::builtinCatalog();
        Plan plan = presetPlan("gpt3-175b", 8, 8, 2, 1, 64);
        DeviceSpec custom = io::customDeviceTemplate();
        custom.id = "my-accelerator";
        custom.name = "My accelerator";
        custom.memoryBytes = 96e9;
        custom.peakFlopsPerSecond[std::size_t(Precision::BF16)] = 500e12;
        plan.cluster.customDevices.push_back(custom);
        plan.cluster.network = "roce-400";
        plan.cluster.setGroups({{"DGX H100", "h100-sxm5-80gb", 8, 8, "nvlink4-nvswitch"}, {"Mine", "my-accelerator", 8, 8, ""}});
        const QByteArray bytes = io::writePlan(plan, catalog);
        const io::PlanReadResult read = io::readPlan(bytes, catalog);
        QVERIFY2(read.plan, read.problems.empty() ? "" : qPrintable(io::problemLine(read.problems.front())));
        QCOMPARE(read.plan->cluster, plan.cluster);
        QCOMPARE(io::writePlan(*read.plan, catalog), bytes);
        const Estimate e = estimate(*read.plan, catalog);
        QVERIFY(e.valid);
        QCOMPARE(int(e.nodeGroups.size()), 2);
        QCOMPARE(e.nodeGroups[1].deviceName, std::string("My accelerator"));
    }

    void customDeviceMayNotShadowBuiltin()
    {
        Plan plan = presetPlan("gpt2-small", 1, 1, 8, 1, 32);
        DeviceSpec custom = io::customDeviceTemplate();
        custom.id = "a100-sxm4-80gb";
        custom.name = "fake";
        plan.cluster.customDevices.push_back(custom);
        bool refused = false;
        for (const Problem &p : validatePlan(plan, io::builtinCatalog()))
            refused = refused || (p.key == "cluster.custom_devices[0].id" && p.isError());
        QVERIFY(refused);
    }

    /// What an edit changed, as the window's document signals it (issue 41): node groups changed in place,
    /// inserted (numbered as after) or removed (numbered as before), worked out by hand for each case.
    void nodeGroupDiffs()
    {
        const NodeGroup h{"", "h100-sxm5-80gb", 8, 1, ""}, a{"", "a100-sxm4-80gb", 8, 1, ""},
            b{"", "b200", 8, 1, ""};
        NodeGroup h2 = h;
        h2.nodes = 2;
        const auto check = [](const NodeGroupDiff &d, std::vector<int> changed, GroupRange removed,
                              GroupRange inserted) {
            QCOMPARE(d.changed, changed);
            QCOMPARE(d.removed, removed);
            QCOMPARE(d.inserted, inserted);
        };
        check(diffNodeGroups({h, a, b}, {h, a, b}), {}, {}, {});
        check(diffNodeGroups({h, a, b}, {h, a, b, h}), {}, {}, {3, 3});       // appended
        check(diffNodeGroups({h, a, b}, {h, h, a, b}), {}, {}, {1, 1});       // inserted after the first
        check(diffNodeGroups({h, a, b}, {h, b}), {}, {1, 1}, {});             // the middle one removed
        check(diffNodeGroups({h, a, b}, {h2, a, b}), {0}, {}, {});            // first group's node count
        check(diffNodeGroups({h, a, b}, {h, b, b}), {1}, {}, {});             // a device swapped
        check(diffNodeGroups({h, a, b}, {a, h2}), {0, 1}, {2, 2}, {});        // two changed, one gone
        check(diffNodeGroups({h}, {a, b, h2}), {0}, {}, {1, 2});              // one changed, two new
        check(diffNodeGroups({}, {h, a}), {}, {}, {0, 1});
    }

    /// The keys an edit changed: a tensor edit that re-derives data parallelism names both; a node
    /// group's count names the node groups and the summary keys that follow the first group.
    void planDiffNamesTheChangedKeys()
    {
        const Plan plan = presetPlan("llama3-8b", 1, 1, 16, 1, 64, "h100-sxm5-80gb");
        Plan next = plan;
        next.parallel.tensor = 2;
        deriveDataParallel(next);
        PlanDiff d = diffPlans(plan, next);
        QCOMPARE(d.keys, (std::vector<std::string>{"parallel.data", "parallel.tensor"})); // the table's order
        QCOMPARE(next.parallel.data, 8);
        QVERIFY(d.groups.empty());
        next = plan;
        std::vector<NodeGroup> groups = plan.cluster.groups();
        groups[0].nodes = 3;
        next.cluster.setGroups(groups);
        d = diffPlans(plan, next);
        QVERIFY(d.changed("cluster.nodes"));
        QVERIFY(d.changed("cluster.node_groups"));
        QVERIFY(!d.changed("parallel.tensor"));
        QCOMPARE(d.groups.changed, std::vector<int>{0});
        QVERIFY(diffPlans(plan, plan).empty());
    }
};

TRAINPLAN_TEST_GUILESS_MAIN(TestCluster)
#include "tst_cluster.moc"
