"""Preflight's placement engine: the fast paths give the answers of the plain ones.

Preflight reads a snapshot once per stack, ranks the nodes once per kind of pod, copies
nodes only when a pod lands on them and skips simulations it can prove. Each of those is
checked here against the straightforward computation it replaces: random clusters and
gangs (hypothesis), and whole stacks judged with warm and with cold caches.
"""

from __future__ import annotations

import copy
import dataclasses
import gc
import itertools
import weakref
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from raygang.kube.snapshot import snapshot_from_objects
from raygang.kuberay.jobplan import JobPlan
from raygang.loader import load_documents
from raygang.pipeline import plan_everything
from raygang.settings import StackSettings
from raygang.volcano.actions.allocate import is_roomy, place_gang, place_singly
from raygang.volcano.api import Node, Placement, Task, add_res, to_res
from raygang.volcano.cache import EmptyNodes
from raygang.volcano.plugins.nodeorder import (
    PLAIN_SLACK,
    empty_score,
    node_score,
    plain_slack,
)
from raygang.volcano.plugins.predicates import fit_failure
from raygang.volcano.preflight import preflight_job
from raygang.volcano.ranking import Ranking
from raygang.volcano.siblings import siblings_of

from tests.test_preflight import cluster, job, node, plan_of, pod, podgroup, queue

HERE = Path(__file__).parent
NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
GI = 1 << 30
GPU = "nvidia.com/gpu"
GPU_TAINT = {"key": GPU, "value": "present", "effect": "NoSchedule"}
TOLERATE_GPU = Placement(tolerations=({"key": GPU, "operator": "Exists"},))
ZONE_A = Placement(node_selector={"zone": "a"})


# --- random clusters and gangs --------------------------------------------------------------


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


class TestScoreBounds:
    """The slack ``Order`` adds to a node's empty score never undershoots the score."""

    @settings(max_examples=2000, deadline=None)
    @given(
        cpu_of=st.integers(1, 10**6),
        mem_of=st.integers(1, 10**13),
        data=st.data(),
    )
    def test_a_plain_node_never_scores_above_its_bound(
        self, cpu_of: int, mem_of: int, data: st.DataObject
    ) -> None:
        cpu_idle = data.draw(st.integers(0, cpu_of))
        mem_idle = data.draw(st.integers(0, mem_of))
        cpu = data.draw(st.integers(0, cpu_idle))
        memory = data.draw(st.integers(0, mem_idle))
        node = Node(
            "n",
            {"cpu": cpu_of, "memory": mem_of, "pods": 110},
            {"cpu": cpu_idle, "memory": mem_idle, "pods": 110},
            {},
            {},
            (),
            False,
        )
        task = Task("t", "g", "p", {"cpu": cpu, "memory": memory, "pods": 1}, Placement())
        empty = empty_score(node)
        assert empty is not None
        slack = plain_slack(cpu, memory, cpu_of, mem_of)
        assert slack <= PLAIN_SLACK
        assert node_score(task, node) <= empty + slack

    def test_worked_numbers(self) -> None:
        # 4 of 32 cores and 16 of 128 GiB: both 12.5 %, so the score drops by more than
        # 12.5 - 2.5 = 10 points: at most 11 below the empty score.
        assert plain_slack(4000, 16 * GI, 32000, 128 * GI) == -11
        assert plain_slack(0, 0, 32000, 128 * GI) == 2  # a pod asking nothing


class TestRankedPlacement:
    """``place_gang``/``place_singly`` with a ``Ranking`` against a full scan."""

    @ENGINE
    @given(data=st.data())
    def test_same_outcome_as_a_full_scan(self, data: st.DataObject) -> None:
        base = data.draw(nodes())
        tasks = data.draw(kinds())
        others = data.draw(gangs(tasks))
        gang = data.draw(gangs(tasks))
        min_member = data.draw(st.integers(0, len(gang)))
        whole = data.draw(st.booleans())
        # Small clusters: also rank "all at once" after 0, 1 or 3 visits.
        ranking = Ranking(base, eager_after=data.draw(st.sampled_from([None, 0, 1, 3])))
        plain, ranked = list(base), list(base)
        # Another gang first, so the simulation starts from nodes some of which left the
        # ranking's state.
        place_gang(others, plain, len(others), whole_gang=True)
        place_gang(others, ranked, len(others), whole_gang=True, ranking=ranking)
        assert state(ranked) == state(plain)
        expected = place_gang(gang, plain, min_member, whole_gang=whole)
        got = place_gang(gang, ranked, min_member, whole_gang=whole, ranking=ranking)
        assert outcome_of(got) == outcome_of(expected)
        assert state(ranked) == state(plain)

    @ENGINE
    @given(data=st.data())
    def test_nodes_given_are_never_changed(self, data: st.DataObject) -> None:
        base = data.draw(nodes())
        gang = data.draw(gangs(data.draw(kinds())))
        before = copy.deepcopy(state(base))
        place_gang(gang, list(base), len(gang), whole_gang=True, ranking=Ranking(base))
        place_singly(gang, list(base), Ranking(base))
        assert state(base) == before

    @ENGINE
    @given(data=st.data())
    def test_single_pods_as_a_full_scan(self, data: st.DataObject) -> None:
        base = data.draw(nodes())
        pods = data.draw(gangs(data.draw(kinds())))
        ranking = Ranking(base, eager_after=data.draw(st.sampled_from([None, 0, 2])))
        plain, ranked = list(base), list(base)
        expected = place_singly(pods, plain)
        got = place_singly(pods, ranked, ranking)
        assert (got[0], got[1] and got[1].label, got[2]) == (
            expected[0],
            expected[1] and expected[1].label,
            expected[2],
        )
        assert state(ranked) == state(plain)

    @ENGINE
    @given(data=st.data())
    def test_roomy_gangs_place_in_every_order(self, data: st.DataObject) -> None:
        base = data.draw(nodes())
        if data.draw(st.booleans()):
            base = [n.empty() for n in base]  # room everywhere: roomy more often
        # Small gangs on these small clusters: roomy often enough to test the claim.
        gang = data.draw(gangs(data.draw(kinds()), most=2))
        ranking = Ranking(base)
        roomy = is_roomy(gang, base, ranking)
        event(f"roomy with {min(len(gang), 2)}+ pods: {roomy}")
        if not roomy:
            return
        for order in itertools.islice(itertools.permutations(gang), 24):
            outcome = place_gang(list(order), list(base), len(gang), whole_gang=True)
            placed = sum(1 for t in gang if not t.best_effort)
            assert outcome.ready and outcome.allocated == placed

    @ENGINE
    @given(data=st.data())
    def test_empty_nodes_as_a_node_by_node_check(self, data: st.DataObject) -> None:
        empty = [n.empty() for n in data.draw(nodes())]
        fits = EmptyNodes(empty)
        for task in data.draw(kinds()):
            naive = {
                n.name: r for n in empty if (r := fit_failure(task, n, n.allocatable)) is not None
            }
            holds = sum(
                min(n.allocatable.get(k, 0) // v for k, v in task.request.items() if v > 0)
                for n in empty
                if n.name not in naive
            )
            assert fits.reasons(task) == naive
            assert fits.fit(task) == (len(naive) < len(empty), 0 if task.best_effort else holds)

    def test_roomy_is_not_vacuous(self) -> None:
        task = Task("w", "w", "w-*", {"cpu": 1000, "memory": GI, "pods": 1}, Placement())
        free = [
            Node(f"n{i}", {"cpu": 4000, "memory": 8 * GI, "pods": 110}, {}, {}, {}, (), False)
            for i in range(3)
        ]
        for n in free:
            n.idle = dict(n.allocatable)
        assert is_roomy([task] * 3, free, Ranking(free))
        assert not is_roomy([task] * 4, free, Ranking(free))


# --- whole stacks ---------------------------------------------------------------------------


def _stack_docs(count: int) -> list[tuple[str, object]]:
    docs: list[tuple[str, object]] = []
    for index in range(count):
        manifest = job(
            name=f"job-{index}",
            head={"cpu": "1", "memory": "2Gi"},
            workers=[
                ("small", 1 + index % 3, {"cpu": "2", "memory": "4Gi"}),
                ("big", index % 2, {"cpu": f"{3 + index % 4}", "memory": "12Gi"}),
                # Every fifth job asks for more than the nodes can hold at once.
                ("wide", 6 * (index % 5 == 4), {"cpu": "7", "memory": "20Gi"}),
            ],
            queue_name=("batch", "adhoc")[index % 2],
        )
        docs.append((f"jobs.yaml (document {index + 1})", manifest))
    return docs


def _snapshot_objects() -> list[dict[str, Any]]:
    objects: list[dict[str, Any]] = [queue("batch"), queue("adhoc", {"cpu": "40"})]
    objects += [node(f"n{i:02d}", cpu=str(8 + 4 * (i % 3)), memory="48Gi") for i in range(12)]
    objects += [
        pod(f"busy-{i}", f"n{i:02d}", {"cpu": "3", "memory": "8Gi"}) for i in range(0, 12, 2)
    ]
    # Another job's gang, Inqueue with pending pods: placed before every job of the stack.
    objects.append(podgroup("other-pg", "batch", "Inqueue", 2, {"cpu": "10", "memory": "20Gi"}))
    objects += [
        pod(f"other-{i}", None, {"cpu": "5", "memory": "10Gi"}, group="other-pg", phase="Pending")
        for i in range(2)
    ]
    return objects


class TestStackCaches:
    """A stack judged in one pass (caches warm) gives what each job judged alone gives."""

    def test_warm_and_cold_caches_agree(self) -> None:
        docs = load_documents(_stack_docs(12))
        snapshot = snapshot_from_objects(_snapshot_objects(), "test")
        settings = StackSettings()
        warm = plan_everything(docs, settings, base=HERE, snapshot=snapshot, now=NOW)
        verdicts = {j.preflight.verdict for j in warm.jobs if j.preflight}
        assert verdicts == {"admitted", "stuck"}, "the stack should exercise both paths"
        declared = {q.name: q for q in warm.queues}
        for planned in warm.jobs:
            # A snapshot of the same objects but a new identity: nothing cached.
            cold = snapshot_from_objects(copy.deepcopy(_snapshot_objects()), "test")
            alone = preflight_job(
                dataclasses.replace(planned, preflight=None),
                queues=declared,
                snapshot=cold,
                others=list(warm.jobs),
            )
            assert alone == planned.preflight, planned.name

    def test_an_earlier_stack_is_not_kept_alive(self) -> None:
        """The per-pass caches let go of a stack once another is planned (they held four:
        a process planning 1000-job stacks over and over kept 2.4 million objects)."""
        snapshot = snapshot_from_objects(_snapshot_objects(), "test")
        first = plan_everything(
            load_documents(_stack_docs(3)), StackSettings(), base=HERE, snapshot=snapshot, now=NOW
        )
        gone = weakref.ref(first.jobs[0].item)
        del first
        plan_everything(
            load_documents(_stack_docs(2)), StackSettings(), base=HERE, snapshot=snapshot, now=NOW
        )
        gc.collect()
        assert gone() is None

    def test_own_objects_are_left_out(self) -> None:
        """A job whose PodGroup and pods exist is judged as on a cluster without them."""
        manifest = job(
            name="again",
            workers=[("w", 2, {"cpu": "4", "memory": "8Gi"})],
            queue_name="batch",
        )
        plan = plan_of(manifest)
        own = [
            podgroup(plan.podgroup_name, "batch", "Running", 3, {"cpu": "9", "memory": "18Gi"}),
            pod("again-head", "n00", {"cpu": "1", "memory": "2Gi"}, group=plan.podgroup_name),
            pod("again-w-1", "n01", {"cpu": "4", "memory": "8Gi"}, group=plan.podgroup_name),
            pod("again-w-2", "n02", {"cpu": "4", "memory": "8Gi"}, group=plan.podgroup_name),
        ]
        for obj in own:
            obj["metadata"]["namespace"] = plan.namespace
        base = [queue("batch")] + [node(f"n{i:02d}", cpu="6", memory="16Gi") for i in range(3)]
        without = preflight_job(plan, queues={}, snapshot=cluster(base))
        with_own = preflight_job(plan, queues={}, snapshot=cluster(base, own))
        assert with_own.verdict == without.verdict == "admitted"
        assert [c for c in with_own.checks if c.name != "snapshot"] == [
            c for c in without.checks if c.name != "snapshot"
        ]
        snapshot_check = with_own.check("snapshot")
        assert snapshot_check is not None and "already exists" in snapshot_check.message


class TestSiblingIndex:
    def test_matches_filtering_and_summing(self) -> None:
        plans: list[JobPlan] = [
            plan_of(
                job(
                    name=f"j{i}",
                    workers=[("w", i % 3, {"cpu": "1", "memory": "1Gi"})],
                    queue_name=("a", "b", None)[i % 3],
                )
            )
            for i in range(9)
        ]
        stack = tuple(plans)
        for plan in [*plans, plan_of(job(name="outsider", queue_name="a"))]:
            name = plan.queue or "default"
            expected = [
                o
                for o in plans
                if (o.queue or "default") == name
                and (o.namespace, o.name) != (plan.namespace, plan.name)
            ]
            total = add_res(*(to_res(o.gang.min_resources) for o in expected))
            for others in (stack, list(plans)):
                got, minimum = siblings_of(others, plan, name)
                assert got == expected
                assert {k: v for k, v in minimum.items() if v} == {
                    k: v for k, v in total.items() if v
                }
