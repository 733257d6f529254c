"""Derived vectors: cases worked out from Volcano's source, one test each."""

from __future__ import annotations

from raygang.volcano.plugins.gang import gang_condition

from tests.volcano.conftest import (
    check,
    cluster,
    declared,
    fixture,
    job,
    node,
    pod,
    podgroup,
    quantities,
    queue,
    run,
    session,
    statuses,
)


class TestDerivedVectors:
    """volcano.md §10.2, single queue unless noted, pods request what minResources says."""

    def test_d1_non_volcano_usage_is_invisible_to_proportion(self) -> None:
        snap = cluster(
            node("n1", "8"), pod("web", "n1", {"cpu": "7"}, scheduler="default-scheduler")
        )
        result = run(job(head={"cpu": "2"}), snap)
        got = statuses(result)
        assert got["overcommit"] == "pass"  # 2 <= 9.6 - 7
        assert got["proportion"] == "pass"  # 2 <= 8
        assert got["placement"] == "fail"
        assert result.verdict == "stuck"
        assert result.never_admitted is False
        assert (
            "0/1 nodes are unavailable: 1 Insufficient cpu." in check(result, "placement").message
        )
        (reason,) = result.reasons
        assert reason.startswith(
            "1/1 tasks in gang unschedulable: pod group is not ready, 1 Pending, 1 minAvailable; "
            "Pending: 1 Unschedulable. Origin reason is rayjob-sample-head-*: "
            "0/1 nodes are unavailable: 1 Insufficient cpu. -- "
        )
        assert "The PodGroup is admitted (Inqueue) and keeps its reservation" in reason

    def test_d2_running_gang_fills_the_queue(self) -> None:
        snap = cluster(
            node("n1", "8"),
            podgroup("j", "default", "Running", 1, {"cpu": "7"}),
            pod("j-0", "n1", {"cpu": "7"}, "j"),
        )
        result = run(job(head={"cpu": "2"}), snap)
        assert check(result, "overcommit").status == "pass"
        assert check(result, "proportion").message.startswith(
            "queue resource quota insufficient: insufficient cpu: "
        )
        assert result.reasons[0].startswith(
            "queue resource quota insufficient: insufficient cpu -- "
        )

    def test_d3_older_pending_gang_is_admitted_first(self) -> None:
        snap = cluster(node("n1", "10"), podgroup("a", "default", "Pending", 1, {"cpu": "6"}))
        result = run(job(head={"cpu": "6"}), snap)
        assert check(result, "overcommit").status == "pass"  # 12 <= 12: strict comparison
        assert check(result, "proportion").status == "fail"  # 6 + 6 > 10
        assert "1 Pending PodGroup(s) are admitted first" in check(result, "proportion").message

    def test_d4_fragmentation_inqueue_then_stuck(self) -> None:
        manifest = job(
            head={"cpu": "1", "memory": "2Gi"},
            workers=[("gpu", 2, {"cpu": "8", "memory": "32Gi", "nvidia.com/gpu": "8"})],
        )
        result = run(manifest, fixture("gpu-fragmented.yaml"))
        got = statuses(result)
        assert got["overcommit"] == "pass"  # 16 <= 38.4 - 12
        assert got["proportion"] == "pass"  # 16 + 12 <= 32
        assert got["placement"] == "fail"
        assert result.verdict == "stuck"
        assert result.never_admitted is False
        (reason,) = result.reasons
        assert reason.startswith(
            "2/3 tasks in gang unschedulable: pod group is not ready, 3 Pending, 3 minAvailable; "
            "Pending: 1 Schedulable, 2 Unschedulable. Origin reason is rayjob-sample-gpu-worker-*: "
            "0/4 nodes are unavailable: 4 Insufficient nvidia.com/gpu. -- "
        )
        assert "the most free nvidia.com/gpu on a node it may use is 5" in reason
        assert "the nodes together have nvidia.com/gpu 20 free: fragmentation" in reason

    def test_d5_stale_inqueue_podgroup_blocks_the_queue(self) -> None:
        manifest = job(
            head={"cpu": "1", "memory": "2Gi"},
            workers=[("gpu", 1, {"cpu": "4", "memory": "16Gi", "nvidia.com/gpu": "1"})],
            queue_name="ray-batch",
        )
        result = run(manifest, fixture("stale-inqueue.yaml"))
        assert check(result, "overcommit").status == "pass"  # 8 + 1 <= 9.6
        proportion = check(result, "proportion")
        assert proportion.status == "fail"  # 1 + 8 > 8
        assert proportion.message.startswith(
            "queue resource quota insufficient: insufficient nvidia.com/gpu: "
        )
        (reason,) = result.reasons
        assert (
            "finish or delete ml/ray-finetune-pg (Inqueue with no live pods, likely stale: delete "
            "it if its job is gone; holds nvidia.com/gpu 8)" in reason
        )
        assert result.never_admitted is False

    def test_d6_resource_no_node_offers(self) -> None:
        manifest = job(workers=[("gpu", 1, {"cpu": "2", "nvidia.com/gpu": "1"})])
        result = run(manifest, fixture("cpu-only.yaml"))
        assert check(result, "overcommit").message.startswith(
            "resource in cluster is overused: overused nvidia.com/gpu: "
        )
        assert result.never_admitted is True

    def test_d7_memory_without_queue_cap_is_bounded_by_the_cluster(self) -> None:
        q = declared("q", {"cpu": "16", "nvidia.com/gpu": "4"})
        snap = cluster(node("big", "64", "1Ti"))
        result = run(job(head={"cpu": "8", "memory": "256Gi"}, queue_name="q"), snap, queues=[q])
        assert result.verdict == "admitted", result.reasons

    def test_d8_gpu_above_queue_capability(self) -> None:
        q = declared("q", {"cpu": "16", "nvidia.com/gpu": "4"})
        snap = cluster(node("big", "64", "1Ti", extra={"nvidia.com/gpu": "8"}))
        result = run(
            job(head={"cpu": "1", "nvidia.com/gpu": "5"}, queue_name="q"), snap, queues=[q]
        )
        assert result.never_admitted is True
        assert check(result, "proportion").status == "fail"
        (reason,) = result.reasons
        assert reason.startswith(
            "queue resource quota insufficient: insufficient nvidia.com/gpu -- "
        )
        assert "raise queue q capability nvidia.com/gpu from 4 to 5" in reason

    def test_d9_other_queues_guarantee_shrinks_real_capability(self) -> None:
        snap = cluster(node("n1", "100", "400Gi"), queue("a"), queue("b", guarantee={"cpu": "40"}))
        result = run(job(head={"cpu": "70"}, queue_name="a"), snap)
        assert result.never_admitted is True
        capability = check(result, "capability")
        assert capability.status == "fail"
        assert (
            "the cluster has cpu 100 of which other queues are guaranteed 40" in capability.message
        )

    def test_d10_over_declared_running_gang_counts_its_full_min(self) -> None:
        snap = cluster(
            node("n1", "16"),
            queue("q", {"cpu": "8"}),
            podgroup("j", "q", "Running", 2, {"cpu": "6"}),
            pod("j-0", "n1", {"cpu": "2"}, "j"),
            pod("j-1", "n1", {"cpu": "2"}, "j"),
        )
        result = run(job(head={"cpu": "3"}, queue_name="q"), snap)
        proportion = check(result, "proportion")
        assert proportion.status == "fail"  # 3 + 6 > 8
        assert "committed cpu 6" in proportion.message

    def test_d11_running_gang_below_min_member_reserves_only_its_allocation(self) -> None:
        snap = cluster(
            node("n1", "16"),
            queue("q", {"cpu": "8"}),
            podgroup("j", "q", "Running", 3, {"cpu": "6"}),
            pod("j-0", "n1", {"cpu": "2"}, "j"),
            pod("j-1", "n1", {"cpu": "2"}, "j", phase="Succeeded"),
            pod("j-2", "n1", {"cpu": "2"}, "j", phase="Succeeded"),
        )
        result = run(job(head={"cpu": "6"}, queue_name="q"), snap)
        assert check(result, "proportion").status == "pass"  # 6 + min(2, 6) <= 8
        assert "committed cpu 2" in check(result, "proportion").message
        assert check(result, "overcommit").status == "pass"

    def test_d12_fewer_pods_than_min_member(self) -> None:
        assert gang_condition(5, 4, 0, None, "") == (
            "5/4 tasks in gang unschedulable: pod group is not ready, 4 Pending, 5 minAvailable; "
            "Pending: 4 Unschedulable"
        )

    def test_d13_nil_min_resources_skips_voting_even_in_a_closed_queue(self) -> None:
        s = session([node("n1", "1"), queue("closed", state="Closed")])
        assert s.vote("closed", None) == (True, None)
        assert s.vote("closed", quantities({"cpu": "1"})) == (False, None)

    def test_d14_fair_share_passes_but_nodes_run_out(self) -> None:
        nodes = [node(f"n{i}", "10", "40Gi") for i in range(10)]
        running = [pod(f"b-{i}", f"n{i}", {"cpu": "10"}, "b-run") for i in range(8)]
        waiting = [pod(f"w-{i}", None, {"cpu": "10"}, "b-wait", phase="Pending") for i in range(10)]
        snap = cluster(
            nodes,
            running,
            waiting,
            queue("qa"),
            queue("qb"),
            podgroup("b-run", "qb", "Running", 8, {"cpu": "80"}),
            podgroup("b-wait", "qb", "Pending", 10, {"cpu": "100"}),
        )
        manifest = job(head={"cpu": "1"}, workers=[("w", 29, {"cpu": "1"})], queue_name="qa")
        result = run(manifest, snap)
        got = statuses(result)
        assert got["overcommit"] == "pass"  # 30 <= 120 - 80
        assert got["proportion"] == "pass"  # 30 <= 100
        assert got["fair-share"] == "pass"
        assert check(result, "fair-share").message.startswith(
            "queue qa deserves cpu 30 (among 2 queues"
        )
        assert got["placement"] == "fail"
        (reason,) = result.reasons
        assert reason.startswith(
            "10/30 tasks in gang unschedulable: pod group is not ready, 30 Pending, "
            "30 minAvailable; "
            # Go sorts the histogram as strings: "10 Unschedulable" < "20 Schedulable".
            "Pending: 10 Unschedulable, 20 Schedulable. Origin reason is rayjob-sample-w-worker-*: "
            "0/10 nodes are unavailable: 10 Insufficient cpu. -- "
        )
        assert "reduce worker group w replicas from 29 to 19" in reason

    def test_d15_pods_dimension_is_checked_at_placement_only(self) -> None:
        crowd = [
            pod(f"p{n}-{i}", f"n{n}", {"cpu": "1m"}, scheduler="default-scheduler")
            for n in range(2)
            for i in range(110)
        ]
        snap = cluster(node("n0", "64"), node("n1", "64"), crowd)
        result = run(job(head={"cpu": "10m"}), snap)
        assert check(result, "overcommit").status == "pass"
        assert (
            "0/2 nodes are unavailable: 2 Insufficient pods." in check(result, "placement").message
        )
