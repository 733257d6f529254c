"""What the preflight says first is what Volcano shows on the PodGroup, and the phase it
leaves the gang in (issue 19's cases, with Volcano v1.14.1's own wording)."""

from __future__ import annotations

from tests.volcano.conftest import check, cluster, job, node, queue, run

GANG = "tasks in gang unschedulable: pod group is not ready"


class TestEnqueueOrder:
    """``JobEnqueueable``: overcommit votes before proportion and the first rejection returns."""

    def test_gpu_gang_on_cpu_only_nodes_shows_overcommit_only(self) -> None:
        manifest = job(workers=[("gpu", 2, {"cpu": "1", "memory": "1Gi", "nvidia.com/gpu": "1"})])
        result = run(manifest, cluster(node("n1", "8"), node("n2", "8"), queue("default")))
        assert result.phase == "Pending"
        first = result.reasons[0]
        assert first.startswith("resource in cluster is overused: overused nvidia.com/gpu -- ")
        assert "queue resource quota insufficient" not in first
        later = [r for r in result.reasons[1:] if "queue resource quota insufficient" in r]
        assert later and later[0].startswith(
            "raygang (not shown by Volcano: proportion is not asked once overcommit rejects): "
        )
        # A Pending PodGroup never gets allocate's "Origin reason".
        assert not any("Origin reason" in r for r in result.reasons)

    def test_capability_of_the_whole_node_shows_overcommit_first(self) -> None:
        """Queue capability 8 cpu, one 8-cpu node, a 10-cpu gang: 10 > 1.2 x 8."""
        manifest = job(head={"cpu": "2", "memory": "1Gi"}, workers=[("w", 2, {"cpu": "4"})])
        manifest["metadata"]["labels"] = {"volcano.sh/queue-name": "q8"}
        result = run(manifest, cluster(node("n1", "8"), queue("q8", {"cpu": "8"})))
        assert result.verdict == "stuck" and result.phase == "Pending"
        assert result.reasons[0].startswith("resource in cluster is overused: overused cpu -- ")
        assert result.phase_reason == (
            "enqueue refuses it (overcommit: resource in cluster is overused: overused cpu)"
        )

    def test_proportion_first_when_overcommit_admits(self) -> None:
        manifest = job(head={"cpu": "2", "memory": "1Gi"}, workers=[("w", 1, {"cpu": "4"})])
        manifest["metadata"]["labels"] = {"volcano.sh/queue-name": "q4"}
        result = run(manifest, cluster(node("n1", "16"), queue("q4", {"cpu": "4"})))
        assert result.phase == "Pending"
        assert result.reasons[0].startswith(
            "queue resource quota insufficient: insufficient cpu -- "
        )


class TestInqueueButUnplaceable:
    """Enqueue admits, allocate cannot place: Inqueue, holding the reservation, and the
    gang condition (with its ``Origin reason``) is what the PodGroup shows."""

    def test_fragmentation(self) -> None:
        manifest = job(head={"cpu": "2", "memory": "1Gi"}, workers=[("w", 3, {"cpu": "3"})])
        result = run(manifest, cluster([node(f"n{i}", "4") for i in range(3)], queue("default")))
        assert check(result, "overcommit").status == check(result, "proportion").status == "pass"
        assert result.phase == "Inqueue"
        assert result.phase_reason.startswith("admitted (Inqueue), holding its reservation")
        first = result.reasons[0]
        assert f"/4 {GANG}" in first and ". Origin reason is " in first
        assert "0/3 nodes are unavailable: 3 Insufficient cpu." in first
        assert "fragmentation" in first

    def test_untolerated_taint(self) -> None:
        taint = {"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}
        nodes = [node(f"n{i}", "8", "32Gi", taints=[taint]) for i in range(2)]
        manifest = job(head={"cpu": "1", "memory": "1Gi"}, workers=[("w", 2, {"cpu": "1"})])
        result = run(manifest, cluster(nodes, queue("default")))
        assert result.phase == "Inqueue"
        # Volcano v1.14.1's words, as observed: "2 node(s) had untolerated taint
        # {node.kubernetes.io/not-ready: }".
        assert (
            "0/2 nodes are unavailable: 2 node(s) had untolerated taint "
            "{node.kubernetes.io/not-ready: }." in result.reasons[0]
        )
        assert result.reasons[0].startswith(f"3/3 {GANG}, 3 Pending, 3 minAvailable")

    def test_the_submitter_is_no_task_of_a_gang_volcano_holds(self) -> None:
        # Its Job is created once the RayCluster is ready, which an unplaced gang never is:
        # Volcano v1.14.1 counts the 3 gang pods only (the differential runner's case #9).
        taint = {"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}
        nodes = [node(f"n{i}", "8", "32Gi", taints=[taint]) for i in range(2)]
        manifest = job(
            head={"cpu": "1", "memory": "1Gi"}, workers=[("w", 2, {"cpu": "1"})], mode="K8sJobMode"
        )
        result = run(manifest, cluster(nodes, queue("default")))
        assert result.phase == "Inqueue"
        assert result.reasons[0].startswith(f"3/3 {GANG}, 3 Pending, 3 minAvailable")

    def test_node_selector_that_matches_nothing(self) -> None:
        manifest = job(head={"cpu": "1"})
        spec = manifest["spec"]["rayClusterSpec"]["headGroupSpec"]["template"]["spec"]
        spec["nodeSelector"] = {"pool": "arm"}
        result = run(manifest, cluster(node("n1", "8"), queue("default")))
        assert result.phase == "Inqueue"
        assert (
            "0/1 nodes are unavailable: 1 node(s) didn't match Pod's node affinity/selector."
            in result.reasons[0]
        )


class TestPhase:
    def test_placed_gang_is_running(self) -> None:
        result = run(job(), cluster(node("n1", "8"), queue("default")))
        assert (result.verdict, result.phase) == ("admitted", "Running")
        assert result.reasons == ()

    def test_closed_queue_is_refused_by_the_webhook(self) -> None:
        manifest = job()
        manifest["metadata"]["labels"] = {"volcano.sh/queue-name": "shut"}
        result = run(manifest, cluster(node("n1", "8"), queue("shut", state="Closed")))
        assert result.phase == "Refused"
        assert result.reasons[0].startswith(
            'admission webhook "validatepodgroup.volcano.sh" denied the request: can only '
            "submit PodGroup to queue with state `Open`, queue `shut` status is `Closed`."
        )

    def test_without_a_snapshot_the_phase_is_not_guessed(self) -> None:
        result = run(job())
        assert result.phase is None
        assert result.to_dict()["phase"] is None
