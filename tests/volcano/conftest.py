"""Shared builders for the volcano layer's tests: snapshot objects, RayJobs, plans, the
preflight run, random clusters and gangs."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from raygang.kube.core import Toleration
from raygang.kube.quantity import Quantity
from raygang.kube.snapshot import ClusterSnapshot, load_snapshot, snapshot_from_objects
from raygang.kuberay.jobplan import JobPlan
from raygang.kuberay.settings import JobSettings
from raygang.plan import plan_job
from raygang.preflight.result import Check, PreflightResult
from raygang.preflight.run import preflight_job
from raygang.rayjob.spec import parse_rayjob
from raygang.volcano.actions.enqueue import admitted_before, vote
from raygang.volcano.api import Node, Placement, Task
from raygang.volcano.cache import Cluster, parse_snapshot, read_cluster
from raygang.volcano.conf import open_session
from raygang.volcano.framework import Admitted
from raygang.volcano.plugins.overcommit import DEFAULT_OVERCOMMIT_FACTOR
from raygang.volcano.queue import QueueDecl, parse_queue

from tests.builders import container, rayjob, worker

FIXTURES = Path(__file__).parents[1] / "fixtures" / "preflight"


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


HERE = Path(__file__).parent


NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


GI = 1 << 30


GPU = "nvidia.com/gpu"


GPU_TAINT = {"key": GPU, "value": "present", "effect": "NoSchedule"}


TOLERATE_GPU = Placement(tolerations=(Toleration(key=GPU, operator="Exists"),))


ZONE_A = Placement(node_selector={"zone": "a"})


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
    priority: int = 0,
) -> dict[str, Any]:
    spec: dict[str, Any] = {"weight": weight, "reclaimable": True}
    if priority:
        spec["priority"] = priority
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


def two_teams(
    b_running: int = 8,
    b_waiting: int = 4,
    a_running: int = 0,
    busy: int = 0,
    b_priority: int = 0,
) -> list[dict[str, Any]]:
    """Fourteen nodes of 10 cpu (140 in all) and two queues, team-a of weight 1 and team-b of
    weight 3; every pod asks 10 cpu and no memory.

    team-b's b-run is Running on the first ``b_running`` nodes, its b-wait Inqueue with
    ``b_waiting`` pods pending; team-a's a-run is Running on the last ``a_running`` nodes;
    ``busy`` pods of another scheduler fill the nodes before those (node room no queue
    counts).
    """
    objects = [node(f"n{i:02d}", "10", "40Gi") for i in range(14)]
    objects += [queue("team-a", weight=1), queue("team-b", weight=3, priority=b_priority)]
    objects += [pod(f"b-{i}", f"n{i:02d}", {"cpu": "10"}, "b-run") for i in range(b_running)]
    objects.append(podgroup("b-run", "team-b", "Running", b_running, {"cpu": f"{10 * b_running}"}))
    objects += [
        pod(f"w-{i}", None, {"cpu": "10"}, "b-wait", phase="Pending") for i in range(b_waiting)
    ]
    objects.append(podgroup("b-wait", "team-b", "Inqueue", b_waiting, {"cpu": f"{10 * b_waiting}"}))
    if a_running:
        objects += [
            pod(f"a-{i}", f"n{13 - i:02d}", {"cpu": "10"}, "a-run") for i in range(a_running)
        ]
        objects.append(
            podgroup("a-run", "team-a", "Running", a_running, {"cpu": f"{10 * a_running}"})
        )
    first_busy = 13 - a_running - busy + 1
    objects += [
        pod(f"web-{i}", f"n{first_busy + i:02d}", {"cpu": "10"}, scheduler="default-scheduler")
        for i in range(busy)
    ]
    return objects


def team_a_job(cpu: int) -> dict[str, Any]:
    """A gang of ``cpu`` one-cpu pods (a head and ``cpu - 1`` workers) in queue team-a."""
    return job(head={"cpu": "1"}, workers=[("w", cpu - 1, {"cpu": "1"})], queue_name="team-a")


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


def quantities(raw: Mapping[str, str]) -> dict[str, Quantity]:
    return {k: Quantity(v) for k, v in raw.items()}


@st.composite
def nodes(draw: st.DrawFn) -> list[Node]:
    count = draw(st.integers(1, 14))
    # Plain clusters (nothing over-full or terminating) take Order's per-size bounds.
    plain = draw(st.booleans())
    out = []
    for index in range(count):
        cpu = draw(st.sampled_from([2000, 4000, 8000, 16000]))
        memory = draw(st.sampled_from([4, 8, 16, 32])) * GI
        allocatable = {"cpu": cpu, "memory": memory, "pods": 110}
        gpu = draw(st.booleans())
        if gpu:
            allocatable[GPU] = 4000
        # What other pods use; now and then more than the node has (an over-full node).
        used_cpu = draw(st.integers(0, cpu if plain else cpu + 500))
        used_memory = draw(st.integers(0, memory // GI + (0 if plain else 1))) * GI
        idle = {**allocatable, "cpu": cpu - used_cpu, "memory": memory - used_memory}
        releasing = (
            {"cpu": draw(st.integers(0, used_cpu)), "memory": 0, "pods": 1}
            if not plain and draw(st.integers(0, 4)) == 0
            else {}
        )
        out.append(
            Node(
                name=f"node-{index:02d}",
                allocatable=allocatable,
                idle=idle,
                releasing=releasing,
                labels={"zone": draw(st.sampled_from("ab"))},
                taints=(GPU_TAINT,) if gpu else (),
                unschedulable=draw(st.integers(0, 9)) == 0,
            )
        )
    return out


@st.composite
def kinds(draw: st.DrawFn) -> list[Task]:
    out = []
    for index in range(draw(st.integers(1, 4))):
        request = {
            "cpu": draw(st.sampled_from([0, 250, 500, 1000, 2000, 3000])),
            "memory": draw(st.sampled_from([0, 1, 2, 4, 8])) * GI,
            "pods": 1,
        }
        placement = draw(st.sampled_from([Placement(), TOLERATE_GPU, ZONE_A]))
        if placement is TOLERATE_GPU and draw(st.booleans()):
            request[GPU] = draw(st.sampled_from([1000, 2000]))
        out.append(Task(f"group {index}", f"g{index}", f"pod-{index}-*", request, placement))
    return out


@st.composite
def gangs(draw: st.DrawFn, tasks: Sequence[Task], most: int = 5) -> list[Task]:
    counts = [draw(st.integers(0, most)) for _ in tasks]
    return [t for t, n in zip(tasks, counts, strict=True) for _ in range(n)]


def outcome_of(outcome: Any) -> dict[str, Any]:
    """Everything a placement tells its caller, with tasks by label."""
    fields = dataclasses.asdict(outcome)
    fields["placed"] = [(t.label, n) for t, n in outcome.placed]
    fields["failed"] = outcome.failed.label if outcome.failed else None
    fields["queue_blocked"] = outcome.queue_blocked.label if outcome.queue_blocked else None
    return fields


def state(nodes: Sequence[Node]) -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    return [(n.name, dict(n.idle), dict(n.pipelined)) for n in nodes]


ENGINE = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


class Voter:
    """The enqueue vote of one scheduler session, for arbitrary PodGroups."""

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster

    def vote(self, queue: str, min_raw: Mapping[str, Quantity] | None) -> tuple[bool, str | None]:
        """``(admitted, event)``: the event Volcano records when it rejects."""
        answer = vote(open_session(self.cluster, DEFAULT_OVERCOMMIT_FACTOR), queue, min_raw)
        return answer.admitted, answer.event

    def admitted_before(self) -> list[Admitted]:
        """The Pending PodGroups the enqueue action admits, oldest first."""
        return admitted_before(open_session(self.cluster, DEFAULT_OVERCOMMIT_FACTOR))


def session(objects: Sequence[dict[str, Any]], queues: Sequence[QueueDecl] = ()) -> Voter:
    """The model of one scheduler session, to ask for enqueue votes of arbitrary PodGroups."""
    parsed = parse_snapshot(cluster(*objects))
    return Voter(read_cluster(parsed, {q.name: q for q in queues}))


def parse_and_read(snapshot: ClusterSnapshot, queues: Sequence[QueueDecl] = ()) -> Cluster:
    """The snapshot as the scheduler's cache reads it, with ``queues`` declared."""
    return read_cluster(parse_snapshot(snapshot), {q.name: q for q in queues})
