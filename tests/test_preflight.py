"""Preflight: Volcano's admission and placement of the gang, predicted offline.

Every vector of research ``volcano.md`` §10 (10.1 upstream unit tests, 10.2 derived
examples) is one test below, named after it; Ray-shaped cases use the snapshot fixtures
in ``tests/fixtures/preflight``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from raygang.kube.errors import SpecError
from raygang.kube.quantity import Quantity
from raygang.kube.snapshot import ClusterSnapshot, load_snapshot, snapshot_from_objects
from raygang.kuberay.gang import Accounting
from raygang.kuberay.jobplan import JobPlan
from raygang.kuberay.settings import JobSettings
from raygang.plan import plan_job
from raygang.rayjob.spec import parse_rayjob
from raygang.volcano.api import inqueue_resource, to_res
from raygang.volcano.plugins.gang import gang_condition
from raygang.volcano.plugins.overcommit import DEFAULT_OVERCOMMIT_FACTOR
from raygang.volcano.preflight import NodeShape, _Preflight, preflight_job
from raygang.volcano.queue import QueueDecl, parse_queue
from raygang.volcano.result import Check, PreflightResult, parse_node_shapes

from tests.builders import container, rayjob, worker

FIXTURES = Path(__file__).parent / "fixtures" / "preflight"
CHECK_NAMES = [
    "snapshot",
    "queue",
    "gang",
    "capability",
    "fit",
    "overcommit",
    "proportion",
    "fair-share",
    "placement",
    "submitter",
    "siblings",
]


# --- builders -----------------------------------------------------------------------------


def fixture(name: str) -> ClusterSnapshot:
    return load_snapshot(FIXTURES / name)


def node(
    name: str,
    cpu: str,
    memory: str = "64Gi",
    pods: str = "110",
    extra: Mapping[str, str] | None = None,
    labels: Mapping[str, str] | None = None,
    taints: list[dict[str, str]] | None = None,
    unschedulable: bool = False,
) -> dict[str, Any]:
    allocatable = {"cpu": cpu, "memory": memory, "pods": pods, **(extra or {})}
    spec: dict[str, Any] = {}
    if taints:
        spec["taints"] = taints
    if unschedulable:
        spec["unschedulable"] = True
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **(labels or {})}},
        "spec": spec,
        "status": {"capacity": allocatable, "allocatable": allocatable},
    }


def pod(
    name: str,
    on: str | None,
    requests: Mapping[str, str],
    group: str | None = None,
    namespace: str = "ns1",
    phase: str = "Running",
    scheduler: str = "volcano",
    created: str = "2026-03-01T00:00:00Z",
) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": namespace, "creationTimestamp": created}
    if group is not None:
        meta["annotations"] = {"scheduling.k8s.io/group-name": group}
    spec: dict[str, Any] = {
        "schedulerName": scheduler,
        "containers": [
            {"name": "main", "image": "busybox", "resources": {"requests": dict(requests)}}
        ],
    }
    if on is not None:
        spec["nodeName"] = on
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": meta,
        "spec": spec,
        "status": {"phase": phase},
    }


def podgroup(
    name: str,
    queue: str,
    phase: str,
    min_member: int,
    min_resources: Mapping[str, str] | None,
    namespace: str = "ns1",
    created: str = "2026-03-01T00:00:00Z",
) -> dict[str, Any]:
    spec: dict[str, Any] = {"minMember": min_member, "queue": queue}
    if min_resources is not None:
        spec["minResources"] = dict(min_resources)
    return {
        "apiVersion": "scheduling.volcano.sh/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": name, "namespace": namespace, "creationTimestamp": created},
        "spec": spec,
        "status": {"phase": phase},
    }


def queue(
    name: str,
    capability: Mapping[str, str] | None = None,
    state: str = "Open",
    guarantee: Mapping[str, str] | None = None,
    weight: int = 1,
) -> dict[str, Any]:
    spec: dict[str, Any] = {"weight": weight, "reclaimable": True}
    if capability:
        spec["capability"] = dict(capability)
    if guarantee:
        spec["guarantee"] = {"resource": dict(guarantee)}
    return {
        "apiVersion": "scheduling.volcano.sh/v1beta1",
        "kind": "Queue",
        "metadata": {"name": name},
        "spec": spec,
        "status": {"state": state},
    }


def cluster(*objects: dict[str, Any] | Iterable[dict[str, Any]]) -> ClusterSnapshot:
    flat: list[dict[str, Any]] = []
    for obj in objects:
        if isinstance(obj, dict):
            flat.append(obj)
        else:
            flat.extend(obj)
    return snapshot_from_objects(flat, "test-cluster")


def declared(name: str, capability: Mapping[str, str] | None = None) -> QueueDecl:
    spec: dict[str, Any] = {"capability": dict(capability)} if capability else {}
    return parse_queue({"metadata": {"name": name}, "spec": spec}, "test")


def job(
    head: Mapping[str, str] | None = None,
    workers: Sequence[tuple[str, int, Mapping[str, str]]] = (),
    queue_name: str | None = None,
    mode: str = "InteractiveMode",
    name: str = "rayjob-sample",
    **extra: Any,
) -> dict[str, Any]:
    """A RayJob: head requests, then ``(group, replicas, requests)`` per worker group.

    ``InteractiveMode`` (no submitter) keeps ``minResources`` equal to the pods' sum, so
    the research vectors' numbers carry over unchanged.
    """
    labels = {"volcano.sh/queue-name": queue_name} if queue_name is not None else None
    return rayjob(
        name=name,
        head=[container("ray-head", dict(head or {"cpu": "1", "memory": "2Gi"}))],
        workers=[
            worker(g, n, containers=[container("ray-worker", dict(r))]) for g, n, r in workers
        ],
        mode=mode,
        labels=labels,
        **extra,
    )


def plan_of(
    manifest: dict[str, Any],
    queues: Sequence[QueueDecl] = (),
    settings: JobSettings | None = None,
) -> JobPlan:
    return plan_job(
        parse_rayjob(manifest, "test.yaml"), settings or JobSettings(), {q.name: q for q in queues}
    )


def run(
    manifest: dict[str, Any],
    snapshot: ClusterSnapshot | None = None,
    queues: Sequence[QueueDecl] = (),
    others: Sequence[dict[str, Any]] = (),
    **kwargs: Any,
) -> PreflightResult:
    plans = [plan_of(m, queues) for m in others]
    return preflight_job(
        plan_of(manifest, queues),
        queues={q.name: q for q in queues},
        snapshot=snapshot,
        others=plans,
        **kwargs,
    )


def statuses(result: PreflightResult) -> dict[str, str]:
    return {c.name: c.status for c in result.checks}


def check(result: PreflightResult, name: str) -> Check:
    found = result.check(name)
    assert found is not None, name
    return found


def session(objects: Sequence[dict[str, Any]], queues: Sequence[QueueDecl] = ()) -> _Preflight:
    """The model of one scheduler session, to ask for enqueue votes of arbitrary PodGroups."""
    plan = plan_of(job(), queues)
    return _Preflight(
        plan,
        {q.name: q for q in queues},
        cluster(*objects),
        (),
        (),
        DEFAULT_OVERCOMMIT_FACTOR,
    )


def quantities(raw: Mapping[str, str]) -> dict[str, Quantity]:
    return {k: Quantity(v) for k, v in raw.items()}


# --- result shape ---------------------------------------------------------------------------


class TestResultShape:
    def test_every_check_in_a_stable_order(self) -> None:
        result = run(job(), fixture("cpu-only.yaml"))
        assert [c.name for c in result.checks] == CHECK_NAMES

    def test_to_dict(self) -> None:
        result = run(job(), fixture("cpu-only.yaml"))
        doc = result.to_dict()
        assert set(doc) == {"verdict", "neverAdmitted", "reasons", "checks"}
        assert doc["verdict"] == "admitted"
        assert doc["neverAdmitted"] is False
        assert doc["checks"][0] == {
            "name": "snapshot",
            "status": "pass",
            "message": check(result, "snapshot").message,
        }

    def test_table_lines(self) -> None:
        result = run(job(head={"cpu": "64"}), fixture("cpu-only.yaml"))
        lines = result.table_lines()
        assert lines[0] == "  preflight     stuck  (never admitted as declared)"
        assert lines[1].startswith("                - ")
        assert any(line.startswith("    fit ") and " fail " in line for line in lines)
        assert all(line.startswith("  ") for line in lines)

    def test_checks_are_frozen(self) -> None:
        result = run(job())
        with pytest.raises(AttributeError):
            result.verdict = "admitted"  # type: ignore[misc]


# --- without a snapshot ---------------------------------------------------------------------


class TestWithoutSnapshot:
    def test_unknown_with_skips_never_a_guess(self) -> None:
        result = run(job(workers=[("w", 2, {"cpu": "2"})]))
        assert result.verdict == "unknown"
        assert result.never_admitted is False
        assert result.reasons == ()
        got = statuses(result)
        for name in ("snapshot", "fit", "overcommit", "proportion", "fair-share", "placement"):
            assert got[name] == "skip", name
        assert got["queue"] == "pass"  # Volcano's default queue always exists
        assert got["gang"] == "pass"

    def test_declared_queue_too_small_is_never_admitted(self) -> None:
        small = declared("ray-batch", {"cpu": "4"})
        result = run(
            job(workers=[("gpu", 4, {"cpu": "2"})], queue_name="ray-batch"), queues=[small]
        )
        assert result.verdict == "stuck"
        assert result.never_admitted is True
        assert check(result, "capability").status == "fail"
        (reason,) = result.reasons
        assert reason.startswith("queue resource quota insufficient: insufficient cpu -- ")
        assert "reduce worker group gpu replicas from 4 to 1" in reason
        assert "raise queue ray-batch capability cpu from 4 to 9" in reason

    def test_declared_queue_large_enough(self) -> None:
        big = declared("ray-batch", {"cpu": "16", "memory": "64Gi"})
        result = run(job(workers=[("w", 2, {"cpu": "2"})], queue_name="ray-batch"), queues=[big])
        assert check(result, "capability").status == "pass"
        assert check(result, "queue").message.endswith(
            "is created by this stack (the queue controller opens it)"
        )
        assert result.verdict == "unknown"

    def test_capability_without_memory_leaves_memory_unbounded(self) -> None:
        q = declared("q", {"cpu": "16"})
        result = run(job(head={"cpu": "1", "memory": "1Ti"}, queue_name="q"), queues=[q])
        assert check(result, "capability").status == "pass"

    def test_undeclared_queue_is_unknown(self) -> None:
        result = run(job(queue_name="elsewhere"))
        assert check(result, "queue").status == "skip"
        assert check(result, "capability").status == "skip"

    def test_node_shapes_reject_a_pod_bigger_than_any_node(self) -> None:
        shapes = parse_node_shapes(
            [{"name": "m6i.4xlarge", "allocatable": {"cpu": "16", "memory": "64Gi"}}]
        )
        result = run(
            job(workers=[("gpu", 1, {"cpu": "4", "nvidia.com/gpu": "1"})]), node_shapes=shapes
        )
        assert result.never_admitted is True
        assert result.verdict == "stuck"
        fit = check(result, "fit")
        assert fit.status == "fail"
        assert "0/1 nodes are unavailable: 1 Insufficient nvidia.com/gpu." in fit.message
        assert "declared node shape" in fit.message

    def test_node_shapes_accept_pods_that_fit(self) -> None:
        shapes = parse_node_shapes(
            [
                {"name": "cpu", "allocatable": {"cpu": "16", "memory": "64Gi"}},
                {
                    "name": "gpu",
                    "allocatable": {"cpu": "32", "memory": "256Gi", "nvidia.com/gpu": "8"},
                    "labels": {"pool": "gpu"},
                    "taints": [
                        {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
                    ],
                },
            ]
        )
        gpu_worker = worker(
            "gpu",
            2,
            containers=[container("w", {"cpu": "8", "nvidia.com/gpu": "8"})],
            tolerations=[{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
            nodeSelector={"pool": "gpu"},
        )
        result = run(rayjob(workers=[gpu_worker], mode="InteractiveMode"), node_shapes=shapes)
        assert check(result, "fit").status == "pass"
        assert result.verdict == "unknown"  # counts of nodes are still unknown
        assert result.never_admitted is False


class TestNodeShapes:
    def test_parse(self) -> None:
        (shape,) = parse_node_shapes(
            [{"name": "a", "allocatable": {"cpu": "2"}, "labels": {"x": "y"}}]
        )
        assert shape == NodeShape(
            "a", {"cpu": Quantity("2"), "pods": Quantity("110")}, {"x": "y"}, ()
        )

    def test_errors_name_the_field(self) -> None:
        with pytest.raises(SpecError) as err:
            parse_node_shapes([{"name": "a", "allocatable": {"cpu": "two"}}, {"name": "b"}, "c"])
        text = str(err.value)
        assert "raygang:nodeShapes: [0].allocatable['cpu']: invalid quantity" in text
        assert "[1].allocatable: is required" in text
        assert "[2]: is a str" in text

    def test_not_a_list(self) -> None:
        with pytest.raises(SpecError):
            parse_node_shapes({"cpu": "2"})
        assert parse_node_shapes(None) == ()


# --- queue state ------------------------------------------------------------------------------


class TestQueue:
    def test_queue_not_found(self) -> None:
        result = run(job(queue_name="ray-typo"), fixture("cpu-only.yaml"))
        assert result.verdict == "stuck"
        assert result.never_admitted is True
        assert check(result, "queue").status == "fail"
        assert result.reasons[0].startswith(
            'admission webhook "validatepodgroup.volcano.sh" denied the request: '
            'unable to find queue: queue.scheduling.volcano.sh "ray-typo" not found -- '
        )
        assert "(default, ray-archive, ray-batch, root)" in result.reasons[0]

    def test_queue_closed(self) -> None:
        result = run(job(queue_name="ray-archive"), fixture("cpu-only.yaml"))
        assert result.verdict == "stuck"
        assert result.never_admitted is True
        assert result.reasons[0].startswith(
            'admission webhook "validatepodgroup.volcano.sh" denied the request: can only submit '
            "PodGroup to queue with state `Open`, queue `ray-archive` status is `Closed`. -- "
        )
        # proportion rejects too, but silently: one reason, not two.
        assert check(result, "proportion").status == "fail"
        assert len(result.reasons) == 1

    def test_declared_queue_observed_closed(self) -> None:
        q = declared("ray-archive", {"cpu": "8"})
        result = run(job(queue_name="ray-archive"), fixture("cpu-only.yaml"), queues=[q])
        assert check(result, "queue").status == "fail"

    def test_declared_queue_without_state_yet(self) -> None:
        # Just created: Volcano's queue controller has not written status.state yet.
        fresh = queue("ray-fresh", {"cpu": "8", "memory": "32Gi"})
        fresh["status"] = {}
        q = declared("ray-fresh", {"cpu": "8", "memory": "32Gi"})
        snapshot = cluster(node("n1", cpu="8", memory="32Gi"), queue("default"), fresh)
        result = run(job(queue_name="ray-fresh"), snapshot, queues=[q])
        assert check(result, "queue").status == "pass", check(result, "queue").message
        assert result.never_admitted is False
        assert result.verdict == "admitted"
        # Not declared by the stack: nothing waits for it to open, so it still fails.
        alone = run(job(queue_name="ray-fresh"), snapshot)
        assert check(alone, "queue").status == "fail"
        assert "not opened yet" in check(alone, "queue").message

    def test_declared_queue_not_yet_created(self) -> None:
        q = declared("ray-new", {"cpu": "8", "memory": "32Gi"})
        result = run(job(queue_name="ray-new"), fixture("cpu-only.yaml"), queues=[q])
        assert check(result, "queue").status == "pass"
        assert result.verdict == "admitted"

    def test_declared_spec_wins_over_observed(self) -> None:
        # The stack applies its spec: the new, smaller capability is what counts.
        q = declared("ray-batch", {"cpu": "1"})
        result = run(
            job(head={"cpu": "2"}, queue_name="ray-batch"), fixture("cpu-only.yaml"), queues=[q]
        )
        assert check(result, "capability").status == "fail"

    def test_default_queue_without_label(self) -> None:
        result = run(job(), fixture("cpu-only.yaml"))
        assert (
            "queue default (no volcano.sh/queue-name label) exists and is Open"
            in check(result, "queue").message
        )


# --- research §10.1: upstream unit tests --------------------------------------------------------


class TestUpstreamVectors:
    """volcano.md §10.1, each mapped onto the default configuration."""

    def test_u1_nil_min_resources_is_admitted_without_a_vote(self) -> None:
        s = session(
            [queue("c1", {"cpu": "4", "memory": "4G"}), queue("c2", {"cpu": "4", "memory": "4G"})]
        )
        # No nodes at all: any vote with minResources would be rejected (realCapability 0).
        assert s.vote("c1", None) == (True, None)
        assert s.vote("c2", None) == (True, None)

    def test_u2_min_resources_above_queue_capability(self) -> None:
        s = session([queue("c1", {"cpu": "1", "memory": "1G"})])
        ok, event = s.vote("c1", quantities({"cpu": "8", "memory": "8G"}))
        assert ok is False
        # overcommit votes first; with no nodes its budget is 0 as well.
        assert event == "resource in cluster is overused: overused cpu, overused memory"
        # The same gang as a RayJob, against the declared queue only: never admitted.
        q = declared("c1", {"cpu": "1", "memory": "1G"})
        result = run(job(head={"cpu": "8", "memory": "8G"}, queue_name="c1"), queues=[q])
        assert result.never_admitted is True
        assert result.reasons[0].startswith(
            "queue resource quota insufficient: insufficient cpu, insufficient memory -- "
        )

    def test_u3_queue_missing_drops_the_job(self) -> None:
        s = session([queue("c2")])
        assert s.vote("c1", quantities({"cpu": "1"})) == (False, None)
        result = run(job(queue_name="c1"), cluster(queue("c2"), node("n1", "4")))
        assert check(result, "queue").status == "fail"

    def test_u4_only_pending_podgroups_are_enqueued(self) -> None:
        s = session(
            [
                node("n1", "8"),
                queue("c1", {"cpu": "4", "memory": "4G"}),
                podgroup("inq", "c1", "Inqueue", 1, {"cpu": "1"}),
                podgroup("run", "c1", "Running", 1, {"cpu": "1"}),
                podgroup("pend", "c1", "Pending", 1, {"cpu": "1"}),
            ]
        )
        assert [a.name for a in s.admitted_before()] == ["ns1/pend"]

    def _proportion_cluster(self, *extra: dict[str, Any]) -> ClusterSnapshot:
        """TestEnqueueAndAllocable: n1, n2 of 2 cpu / 2G / 10 pods; pg1 on n1, pg2 on n2."""
        return cluster(
            node("n1", "2", "2G", "10"),
            node("n2", "2", "2G", "10"),
            pod("pod1", "n1", {"cpu": "1", "memory": "2G"}, "pg1"),
            pod("pod2", "n2", {"cpu": "2", "memory": "1G"}, "pg2"),
            podgroup("pg1", "q1", "Running", 1, {"cpu": "1", "memory": "2G"}),
            podgroup("pg2", "q2", "Running", 1, {"cpu": "2", "memory": "1G"}),
            queue("q1", {"cpu": "2", "memory": "2G"}),
            queue("q2", {"cpu": "3", "memory": "3G"}),
            *extra,
        )

    def test_u5_cpu_only_request_is_enqueued_and_bound_to_n1(self) -> None:
        result = run(
            job(head={"cpu": "1", "memory": "0G"}, queue_name="q1"), self._proportion_cluster()
        )
        assert result.verdict == "admitted", result.reasons
        assert check(result, "placement").message == "the pod fits on n1"

    def test_u6_memory_only_request_is_enqueued_and_bound_to_n2(self) -> None:
        result = run(
            job(head={"cpu": "0", "memory": "1G"}, queue_name="q2"), self._proportion_cluster()
        )
        assert result.verdict == "admitted", result.reasons
        assert check(result, "placement").message == "the pod fits on n2"

    def test_u7_memory_exceeds_queue_capability(self) -> None:
        result = run(
            job(head={"cpu": "1", "memory": "1G"}, queue_name="q1"), self._proportion_cluster()
        )
        assert result.verdict == "stuck"
        assert result.never_admitted is False
        assert check(result, "overcommit").status == "pass"
        proportion = check(result, "proportion")
        assert proportion.status == "fail"
        assert proportion.message.startswith(
            "queue resource quota insufficient: insufficient memory: "
        )
        assert result.reasons[0].startswith(
            "queue resource quota insufficient: insufficient memory -- "
        )
        assert "raise queue q1 capability memory from 2G to 3G" in result.reasons[0]

    def test_u8_allocate_refuses_beyond_deserved(self) -> None:
        # Same cluster as U7: q1 deserves 2 cpu / 2G, holds 1 / 2G, the gang adds 1 / 1G.
        result = run(
            job(head={"cpu": "1", "memory": "1G"}, queue_name="q1"), self._proportion_cluster()
        )
        fair = check(result, "fair-share")
        assert fair.status == "fail"
        assert fair.message.startswith("queue q1 deserves memory 2G (among 2 queues with jobs)")

    def test_u9_closed_queue(self) -> None:
        snap = cluster(
            node("n1", "2", "2G", "10"),
            node("n2", "2", "2G", "10"),
            queue("q3", {"cpu": "3", "memory": "3G"}, "Closed"),
        )
        result = run(job(head={"cpu": "1", "memory": "1G"}, queue_name="q3"), snap)
        assert result.verdict == "stuck"
        assert check(result, "queue").status == "fail"
        assert check(result, "proportion").status == "fail"
        s = session(
            [node("n1", "2", "2G", "10"), queue("q3", {"cpu": "3", "memory": "3G"}, "Closed")]
        )
        assert s.vote("q3", quantities({"cpu": "1", "memory": "1G"})) == (False, None)

    def test_u10_a_rejected_job_consumes_no_queue_capacity(self) -> None:
        # pgA is rejected by overcommit (no node offers a GPU), so it never reserves q1's cpu.
        objects = [
            node("n1", "4", "4G"),
            queue("q1", {"cpu": "1", "memory": "4G"}),
            podgroup(
                "pgA", "q1", "Pending", 1, {"cpu": "1", "memory": "1G", "nvidia.com/gpu": "1"}
            ),
        ]
        s = session(objects)
        assert s.vote("q1", quantities({"cpu": "1", "memory": "1G", "nvidia.com/gpu": "1"})) == (
            False,
            "resource in cluster is overused: overused nvidia.com/gpu",
        )
        assert s.admitted_before() == []
        result = run(job(head={"cpu": "1", "memory": "1G"}, queue_name="q1"), cluster(*objects))
        assert check(result, "proportion").status == "pass"
        assert "committed cpu 0" in check(result, "proportion").message

    def test_u11_binding_tasks_are_not_double_counted_by_proportion(self) -> None:
        binding = [
            pod(f"a{i}", "n1", {"cpu": "1", "memory": "1Gi"}, "pgA", phase="Pending")
            for i in range(3)
        ]
        snap = cluster(
            node("n1", "4", "8Gi"),
            queue("q1", {"cpu": "4", "memory": "8Gi"}),
            podgroup("pgA", "q1", "Inqueue", 3, {"cpu": "3", "memory": "3Gi"}),
            *binding,
        )
        result = run(job(head={"cpu": "1", "memory": "1Gi"}, queue_name="q1"), snap)
        # proportion: 1 + allocated 3 + inqueue max(0, 3 - 3) = 4 <= 4.
        assert check(result, "proportion").status == "pass"
        assert "committed cpu 3" in check(result, "proportion").message
        assert check(result, "placement").status == "pass"
        # overcommit, which the default configuration also runs, counts pgA twice while its
        # pods are binding (node usage + full minResources): a transient rejection (§4.3).
        assert check(result, "overcommit").status == "fail"

    def _overcommit_nodes(self) -> list[dict[str, Any]]:
        return [node("n1", "2", "4Gi"), node("n2", "4", "16Gi")]  # 7.2 cpu / 24Gi of budget

    def test_u12_overcommit_permits_within_1_2x(self) -> None:
        snap = cluster(
            *self._overcommit_nodes(),
            podgroup("x", "default", "Inqueue", 1, {"cpu": "2", "memory": "2G"}),
            podgroup("y", "default", "Pending", 1, {"cpu": "2", "memory": "2G"}),
        )
        result = run(job(head={"cpu": "2", "memory": "2G"}), snap)
        overcommit = check(result, "overcommit")
        assert overcommit.status == "pass"  # 2 + 2 + 2 = 6 <= 7.2
        assert "1 Pending PodGroup(s) are admitted first" in overcommit.message

    def test_u13_factor_below_one_falls_back_to_1_2(self) -> None:
        snap = cluster(
            *self._overcommit_nodes(),
            podgroup("x", "default", "Inqueue", 1, {"cpu": "2", "memory": "2G"}),
            podgroup("y", "default", "Pending", 1, {"cpu": "2", "memory": "2G"}),
        )
        result = run(job(head={"cpu": "2", "memory": "2G"}), snap, overcommit_factor=Fraction(4, 5))
        assert check(result, "overcommit").status == "pass"
        assert "1.2 x allocatable" in check(result, "overcommit").message

    def test_u14_too_large_for_the_overcommit_budget(self) -> None:
        snap = cluster(
            *self._overcommit_nodes(),
            podgroup("x", "default", "Inqueue", 1, {"cpu": "20", "memory": "20G"}),
        )
        result = run(job(head={"cpu": "20", "memory": "20G"}), snap)
        overcommit = check(result, "overcommit")
        assert overcommit.status == "fail"
        assert overcommit.message.startswith(
            "resource in cluster is overused: overused cpu, overused memory: "
        )

    def test_u15_nil_min_resources_is_permitted(self) -> None:
        s = session(
            [*self._overcommit_nodes(), podgroup("x", "default", "Inqueue", 1, {"cpu": "20"})]
        )
        assert s.vote("default", None) == (True, None)


class TestInqueueResource:
    """volcano.md §10.1 U16-U19: ``GetInqueueResource``."""

    def test_u16_nothing_allocated(self) -> None:
        got = inqueue_resource(
            quantities({"cpu": "4", "memory": "4096", "nvidia.com/gpu": "8"}), {}
        )
        assert got == {"cpu": 4000, "memory": 4096, "nvidia.com/gpu": 8000}

    def test_u17_part_allocated(self) -> None:
        allocated = {
            "cpu": Fraction(1000),
            "memory": Fraction(1024),
            "nvidia.com/gpu": Fraction(4000),
        }
        got = inqueue_resource(
            quantities({"cpu": "4", "memory": "4096", "nvidia.com/gpu": "8"}), allocated
        )
        assert got == {"cpu": 3000, "memory": 3072, "nvidia.com/gpu": 4000}

    def test_u18_scalar_fully_allocated(self) -> None:
        assert (
            inqueue_resource(
                quantities({"nvidia.com/gpu": "2"}), {"nvidia.com/gpu": Fraction(2000)}
            )
            == {}
        )

    def test_u19_pods_in_whole_units(self) -> None:
        allocated = {"cpu": Fraction(1000), "pods": Fraction(4)}
        assert inqueue_resource(quantities({"cpu": "4", "pods": "10"}), allocated) == {
            "cpu": 3000,
            "pods": 6,
        }

    def test_ephemeral_storage_is_not_reserved(self) -> None:
        assert inqueue_resource(quantities({"ephemeral-storage": "1Gi"}), {}) == {}


# --- research §10.2: derived examples -------------------------------------------------------------


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


# --- Ray-shaped cases ----------------------------------------------------------------------------


class TestRayJobs:
    def test_job_that_fits_is_admitted(self) -> None:
        manifest = job(
            head={"cpu": "1", "memory": "2Gi"},
            workers=[("workers", 4, {"cpu": "2", "memory": "4Gi"})],
            queue_name="ray-batch",
            mode="K8sJobMode",
        )
        result = run(manifest, fixture("cpu-only.yaml"))
        assert result.verdict == "admitted", result.reasons
        assert result.reasons == ()
        assert result.never_admitted is False
        assert set(statuses(result).values()) == {"pass"}
        assert "after the gang" in check(result, "submitter").message

    def test_gpu_worker_on_cpu_only_nodes(self) -> None:
        manifest = job(workers=[("gpu", 2, {"cpu": "4", "memory": "16Gi", "nvidia.com/gpu": "1"})])
        result = run(manifest, fixture("cpu-only.yaml"))
        assert result.verdict == "stuck"
        assert result.never_admitted is True
        fit = check(result, "fit")
        assert fit.status == "fail"
        assert "0/3 nodes are unavailable: 3 Insufficient nvidia.com/gpu." in fit.message
        assert any("add nodes that offer nvidia.com/gpu" in r for r in result.reasons)
        # One cause, stated once per stage that reports it in Volcano's own words.
        assert len(result.reasons) <= 2

    def test_head_fits_but_workers_fragment(self) -> None:
        manifest = job(
            head={"cpu": "4", "memory": "16Gi"},
            workers=[("gpu", 3, {"cpu": "8", "memory": "64Gi", "nvidia.com/gpu": "4"})],
        )
        result = run(manifest, fixture("gpu-fragmented.yaml"))
        placement = check(result, "placement")
        # 5 GPUs free per node: one 4-GPU worker per node fits, so 3 workers do fit...
        assert placement.status == "pass", result.reasons
        manifest = job(
            head={"cpu": "4", "memory": "16Gi"},
            workers=[("gpu", 3, {"cpu": "8", "memory": "64Gi", "nvidia.com/gpu": "6"})],
        )
        # ...but 6-GPU workers do not, although 20 GPUs are free in total.
        result = run(manifest, fixture("gpu-fragmented.yaml"))
        assert check(result, "placement").status == "fail"
        assert check(result, "fit").status == "pass"  # an empty node would take one
        assert result.never_admitted is False
        assert "fragmentation" in result.reasons[0]

    def test_stale_inqueue_podgroup_eating_the_queue(self) -> None:
        manifest = job(
            workers=[("gpu", 2, {"cpu": "4", "nvidia.com/gpu": "2"})], queue_name="ray-batch"
        )
        result = run(manifest, fixture("stale-inqueue.yaml"))
        assert result.verdict == "stuck"
        assert result.never_admitted is False  # deleting the stale PodGroup fixes it
        assert "ml/ray-finetune-pg (Inqueue with no live pods, likely stale" in result.reasons[0]

    def test_overcommit_budget_exhausted(self) -> None:
        manifest = job(
            head={"cpu": "2", "memory": "4Gi"}, workers=[("w", 3, {"cpu": "2", "memory": "4Gi"})]
        )
        result = run(manifest, fixture("overcommit.yaml"))
        got = statuses(result)
        assert got["overcommit"] == "fail"  # 12 reserved + 8 > 38.4 - 20
        assert got["proportion"] == "pass"
        assert got["placement"] == "pass"  # the nodes themselves have room
        (reason,) = result.reasons
        assert reason.startswith("resource in cluster is overused: overused cpu -- ")
        assert "finish or delete ml/ray-sweep-pg (Inqueue; holds cpu 12)" in reason
        assert "reduce worker group w replicas from 3 to 2" in reason
        assert result.never_admitted is False

    def test_own_podgroup_and_pods_are_left_out(self) -> None:
        own = [
            podgroup(
                "ray-rayjob-sample-pg", "default", "Running", 1, {"cpu": "8"}, namespace="default"
            ),
            pod(
                "rayjob-sample-head-abcde",
                "n1",
                {"cpu": "8"},
                "ray-rayjob-sample-pg",
                namespace="default",
            ),
        ]
        result = run(job(head={"cpu": "8"}), cluster(node("n1", "8"), own))
        assert result.verdict == "admitted", result.reasons
        assert (
            "ray-rayjob-sample-pg already exists (phase Running)"
            in check(result, "snapshot").message
        )

    def test_kuberay_accounting_still_places_effective_requests(self) -> None:
        manifest = job(head={"cpu": "1"})
        manifest["spec"]["rayClusterSpec"]["headGroupSpec"]["template"]["spec"][
            "initContainers"
        ] = [container("warmup", {"cpu": "12"})]
        plan = plan_of(manifest, settings=JobSettings(accounting=Accounting.KUBERAY))
        assert plan.gang.min_resources == {"cpu": Quantity("1")}
        result = preflight_job(plan, queues={}, snapshot=cluster(node("n1", "8")))
        assert check(result, "capability").status == "pass"  # minResources says 1 cpu...
        fit = check(result, "fit")
        assert fit.status == "fail"  # ...but the pod really requests 12
        assert "0/1 nodes are unavailable: 1 Insufficient cpu." in fit.message


class TestClusterState:
    def test_terminating_pods_make_room_through_pipelining(self) -> None:
        leaving = pod("old", "n1", {"cpu": "6"}, scheduler="default-scheduler")
        leaving["metadata"]["deletionTimestamp"] = "2026-03-02T12:00:00Z"
        result = run(job(head={"cpu": "4"}), cluster(node("n1", "8"), leaving))
        placement = check(result, "placement")
        assert placement.status == "pass"
        assert placement.message.endswith("(some wait for terminating pods to release room)")

    def test_pending_pods_of_an_admitted_gang_are_placed_first(self) -> None:
        other = [pod(f"o-{i}", None, {"cpu": "4"}, "other", phase="Pending") for i in range(2)]
        snap = cluster(
            node("n1", "8"),
            node("n2", "8"),
            podgroup("other", "default", "Inqueue", 2, {"cpu": "8"}),
            *other,
        )
        result = run(job(head={"cpu": "2"}, workers=[("w", 1, {"cpu": "8"})]), snap)
        placement = check(result, "placement")
        assert placement.status == "fail"
        assert placement.message.startswith("ns1/other places its gang first; ")
        # Enqueue still admits it (8 reserved + 10 <= 1.2 x 16): the nodes are the limit,
        # once the other gang's pods took 4 cpu on each.
        assert check(result, "overcommit").status == "pass"
        assert "0/2 nodes are unavailable: 2 Insufficient cpu." in placement.message

    def test_a_gang_that_cannot_place_takes_no_node_room(self) -> None:
        stuck = [pod(f"s-{i}", None, {"cpu": "20"}, "stuck", phase="Pending") for i in range(2)]
        snap = cluster(
            node("n1", "16"),
            node("n2", "16"),
            podgroup("stuck", "default", "Inqueue", 2, {"cpu": "1"}),
            *stuck,
        )
        result = run(job(head={"cpu": "2"}, workers=[("w", 1, {"cpu": "8"})]), snap)
        assert check(result, "placement").status == "pass"
        assert result.verdict == "admitted", result.reasons

    def test_very_large_jobs_are_not_simulated_pod_by_pod(self) -> None:
        manifest = job(head={"cpu": "1"}, workers=[("w", 6000, {"cpu": "10m"})])
        result = run(manifest, cluster(node("n1", "64", pods="10000")))
        assert check(result, "placement").status == "skip"
        assert check(result, "placement").message == "6001 pods: too many to simulate"
        assert result.verdict == "unknown"

    def test_result_is_json(self) -> None:
        result = run(job(workers=[("w", 2, {"cpu": "2"})]), fixture("gpu-fragmented.yaml"))
        assert json.loads(json.dumps(result.to_dict())) == result.to_dict()

    def test_kuberay_accounting_under_reservation_is_noted(self) -> None:
        manifest = job(head={"cpu": "1"})
        manifest["spec"]["rayClusterSpec"]["headGroupSpec"]["template"]["spec"][
            "initContainers"
        ] = [container("warmup", {"cpu": "2"})]
        plan = plan_of(manifest, settings=JobSettings(accounting=Accounting.KUBERAY))
        result = preflight_job(plan, queues={}, snapshot=None)
        assert (
            "minResources reserve less than the pods request (cpu 1 < cpu 2; accounting kuberay)"
            in check(result, "gang").message
        )


class TestPredicates:
    def gpu_job(self, replicas: int = 1, **pod_spec: Any) -> dict[str, Any]:
        w = worker(
            "gpu",
            replicas,
            containers=[container("w", {"cpu": "4", "nvidia.com/gpu": "4"})],
            **pod_spec,
        )
        return rayjob(head=[container("h", {"cpu": "1"})], workers=[w], mode="InteractiveMode")

    def test_untolerated_taint(self) -> None:
        result = run(self.gpu_job(), fixture("tainted.yaml"))
        fit = check(result, "fit")
        assert fit.status == "fail"
        assert (
            "0/3 nodes are unavailable: 1 Insufficient nvidia.com/gpu, "
            "2 node(s) had untolerated taint {nvidia.com/gpu: present}." in fit.message
        )
        assert result.never_admitted is True
        assert (
            "add toleration {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}"
            in result.reasons[0]
        )

    def test_tolerated_taint_and_cordoned_node(self) -> None:
        toleration = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
        result = run(self.gpu_job(1, tolerations=toleration), fixture("tainted.yaml"))
        assert result.verdict == "admitted", result.reasons
        assert "on cpu-a, gpu-a " in check(result, "placement").message
        # Two 4-GPU workers: gpu-b is cordoned, so the second finds no node; not forever.
        result = run(self.gpu_job(2, tolerations=toleration), fixture("tainted.yaml"))
        assert check(result, "fit").status == "pass"
        placement = check(result, "placement")
        assert placement.status == "fail"
        assert (
            "0/3 nodes are unavailable: 1 node(s) were unschedulable, "
            "2 Insufficient nvidia.com/gpu." in placement.message
        )
        assert result.never_admitted is False

    def test_toleration_without_key_tolerates_everything(self) -> None:
        result = run(self.gpu_job(1, tolerations=[{"operator": "Exists"}]), fixture("tainted.yaml"))
        assert result.verdict == "admitted", result.reasons

    def test_node_selector(self) -> None:
        manifest = job(head={"cpu": "1"})
        manifest["spec"]["rayClusterSpec"]["headGroupSpec"]["template"]["spec"]["nodeSelector"] = {
            "pool": "arm"
        }
        result = run(manifest, fixture("tainted.yaml"))
        fit = check(result, "fit")
        assert fit.status == "fail"
        assert (
            "0/3 nodes are unavailable: 3 node(s) didn't match Pod's node affinity/selector."
            in fit.message
        )

    def test_required_node_affinity(self) -> None:
        affinity = {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {"matchExpressions": [{"key": "pool", "operator": "In", "values": ["cpu"]}]}
                    ]
                }
            }
        }
        manifest = job(head={"cpu": "1"})
        manifest["spec"]["rayClusterSpec"]["headGroupSpec"]["template"]["spec"]["affinity"] = (
            affinity
        )
        result = run(manifest, fixture("tainted.yaml"))
        assert result.verdict == "admitted", result.reasons
        assert check(result, "placement").message == "the pod fits on cpu-a"
        affinity["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
            "nodeSelectorTerms"
        ] = [{"matchExpressions": [{"key": "pool", "operator": "NotIn", "values": ["cpu", "gpu"]}]}]
        result = run(manifest, fixture("tainted.yaml"))
        assert check(result, "fit").status == "fail"

    def test_unmodelled_constraints_make_the_verdict_unknown(self) -> None:
        anti = {
            "podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [{"topologyKey": "x"}]
            }
        }
        manifest = job(head={"cpu": "1"})
        manifest["spec"]["rayClusterSpec"]["headGroupSpec"]["template"]["spec"]["affinity"] = anti
        result = run(manifest, fixture("cpu-only.yaml"))
        assert check(result, "gang").status == "warn"
        assert "inter-pod affinity (head headgroup)" in check(result, "gang").message
        assert result.verdict == "unknown"


class TestSubmitterAndElasticPods:
    def test_submitter_placed_after_the_gang(self) -> None:
        template = {
            "spec": {
                "restartPolicy": "Never",
                "nodeSelector": {"pool": "tools"},
                "containers": [container("ray-job-submitter", {"cpu": "500m", "memory": "200Mi"})],
            }
        }
        snap = cluster(
            node("ray", "8", labels={"pool": "ray"}),
            node("tools", "4", labels={"pool": "tools"}),
            pod("busy", "tools", {"cpu": "4"}, scheduler="default-scheduler"),
        )
        manifest = job(head={"cpu": "1"}, workers=[("w", 2, {"cpu": "2"})], mode="K8sJobMode")
        manifest["spec"]["submitterPodTemplate"] = template
        result = run(manifest, snap)
        assert check(result, "placement").status == "pass"
        submitter = check(result, "submitter")
        assert submitter.status == "fail"
        assert (
            "0/2 nodes are unavailable: 1 Insufficient cpu, "
            "1 node(s) didn't match Pod's node affinity/selector." in submitter.message
        )
        assert result.verdict == "stuck"
        assert "the Ray job is never submitted" in result.reasons[0]

    def test_sidecar_mode_has_no_submitter_pod(self) -> None:
        result = run(job(mode="SidecarMode"), fixture("cpu-only.yaml"))
        assert check(result, "submitter").message == "SidecarMode: it runs in the head pod"
        assert result.verdict == "admitted"

    def test_pods_above_min_replicas_must_fit_too(self) -> None:
        w = worker("w", 3, 1, 3, containers=[container("w", {"cpu": "4"})])
        manifest = rayjob(
            head=[container("h", {"cpu": "1"})],
            workers=[w],
            mode="InteractiveMode",
            autoscaling=True,
        )
        snap = cluster(
            node("a", "8"),
            node("b", "8"),
            pod("busy", "b", {"cpu": "6"}, scheduler="default-scheduler"),
        )
        result = run(manifest, snap)
        assert check(result, "gang").message.startswith("minMember 2 <= 4 pods created")
        placement = check(result, "placement")
        assert placement.status == "fail"
        assert placement.message == (
            "the gang fits but 2 worker group w pod(s) above minReplicas do not: "
            "0/2 nodes are unavailable: 2 Insufficient cpu."
        )
        assert "Fix: reduce worker group w replicas from 3 to 1." in result.reasons[0]
        assert result.never_admitted is False


class TestOrderAndSiblings:
    def test_outcome_depends_on_pod_order(self) -> None:
        # a: 4 cpu free, b: 6 cpu free. Head first lands on b (least requested) and the
        # 5-cpu worker fits nowhere; worker first takes b and the head fits on a.
        snap = cluster(
            node("a", "8", "32Gi"),
            node("b", "8", "32Gi"),
            pod("x", "a", {"cpu": "4"}, scheduler="default-scheduler"),
            pod("y", "b", {"cpu": "2"}, scheduler="default-scheduler"),
        )
        result = run(job(head={"cpu": "2"}, workers=[("w", 1, {"cpu": "5"})]), snap)
        placement = check(result, "placement")
        assert placement.status == "warn"
        assert placement.message.startswith(
            "head first (KubeRay's creation order): 0/2 nodes are unavailable: "
            "2 Insufficient cpu. but the other order fits"
        )
        assert result.verdict == "unknown"
        assert result.never_admitted is False

    def test_siblings_in_the_same_queue_are_advisory(self) -> None:
        q = declared("ray-batch", {"cpu": "8", "memory": "32Gi"})
        snap = cluster(node("n1", "16"), node("n2", "16"))
        mine = job(head={"cpu": "1"}, workers=[("w", 2, {"cpu": "2"})], queue_name="ray-batch")
        other = job(
            head={"cpu": "1"},
            workers=[("w", 2, {"cpu": "2"})],
            queue_name="ray-batch",
            name="other",
        )
        result = run(mine, snap, queues=[q], others=[other, mine])
        siblings = check(result, "siblings")
        assert siblings.status == "warn"
        assert (
            "with default/other (same stack, same queue ray-batch): "
            "queue resource quota insufficient" in siblings.message
        )
        assert result.verdict == "admitted"  # not counted in the verdict
        assert result.reasons == ()

    def test_siblings_without_snapshot_compare_against_capability(self) -> None:
        q = declared("ray-batch", {"cpu": "8"})
        mine = job(head={"cpu": "5"}, queue_name="ray-batch")
        other = job(head={"cpu": "5"}, queue_name="ray-batch", name="other")
        result = run(mine, queues=[q], others=[other])
        assert check(result, "siblings").status == "warn"
        assert (
            "together they need cpu 10, queue ray-batch capability is cpu 8"
            in check(result, "siblings").message
        )

    def test_siblings_in_other_queues_are_ignored(self) -> None:
        other = job(head={"cpu": "5"}, queue_name="elsewhere", name="other")
        result = run(job(), fixture("cpu-only.yaml"), others=[other])
        assert check(result, "siblings").message == "no other job of this stack uses queue default"


class TestExactUnits:
    def test_milli_cpu_sums_exactly(self) -> None:
        snap = cluster(node("n1", "1", "1Gi"))
        result = run(job(head={"cpu": "300m"}, workers=[("w", 7, {"cpu": "100m"})]), snap)
        assert result.verdict == "admitted", result.reasons  # 300m + 7 x 100m = 1 exactly
        result = run(job(head={"cpu": "301m"}, workers=[("w", 7, {"cpu": "100m"})]), snap)
        assert check(result, "capability").status == "fail"

    def test_decimal_and_binary_memory_differ(self) -> None:
        snap = cluster(node("n1", "4", "1G"))
        assert run(job(head={"cpu": "1", "memory": "1G"}), snap).verdict == "admitted"
        result = run(job(head={"cpu": "1", "memory": "1Gi"}), snap)
        assert "1 Insufficient memory." in check(result, "fit").message

    def test_volcano_units(self) -> None:
        got = to_res(
            quantities(
                {
                    "cpu": "1500m",
                    "memory": "1Ki",
                    "nvidia.com/gpu": "2",
                    "pods": "3",
                    "count/pods": "9",
                    "requests.cpu": "1",
                }
            )
        )
        assert got == {"cpu": 1500, "memory": 1024, "nvidia.com/gpu": 2000, "pods": 3}
