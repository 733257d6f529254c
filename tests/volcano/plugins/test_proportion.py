"""The proportion plugin (``plugins/proportion/proportion.go``): upstream vectors, the
water-filled deserved shares, share, Overused and the queue order."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from raygang.kube.snapshot import ClusterSnapshot
from raygang.volcano.api import Num, Res, add_res
from raygang.volcano.cache import QueueView
from raygang.volcano.conf import open_session
from raygang.volcano.decisions import QueueShares
from raygang.volcano.framework import Newest
from raygang.volcano.plugins.proportion import (
    deserved_shares,
    overused,
    queue_order_key,
    share_of,
)

from tests.volcano.conftest import (
    GI,
    GPU,
    check,
    cluster,
    declared,
    job,
    node,
    pod,
    podgroup,
    quantities,
    queue,
    run,
    session,
    two_teams,
)


class TestProportionVectors:
    """Volcano's own proportion unit tests, as vectors."""

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


def share(shares: QueueShares, name: str) -> Num:
    """A queue's share at the session's opening (the queue order's key)."""
    return share_of(shares.allocated[name], shares.deserved[name])


def is_overused(shares: QueueShares, name: str, placed: Res | None = None) -> bool:
    """Whether a queue is overused once ``placed`` more is allocated to it."""
    return overused(shares.deserved[name], add_res(shares.allocated[name], placed or {}))


class TestDeservedShares:
    """``OnSessionOpen``'s water-filling, worked by hand."""

    def test_weights_1_and_3(self) -> None:
        # 140 cpu. team-a asks 30 (this gang), team-b 120 (80 Running + 40 pending).
        # Round 1, weights 1 + 3: team-a min(140/4, 30) = 30, met; team-b
        # min(3 x 140/4, 120) = 105. Round 2, team-b alone: + the 5 left = 110.
        voter = session(two_teams(b_running=8, b_waiting=4))
        team_a = voter.cluster.queues["team-a"]
        shares = deserved_shares(voter.cluster, team_a, {"cpu": 30_000, "pods": 30})
        assert shares.deserved["team-a"]["cpu"] == 30_000
        assert shares.deserved["team-b"]["cpu"] == 110_000
        assert shares.allocated == {"team-a": {}, "team-b": {"cpu": 80_000, "pods": 8}}
        assert share(shares, "team-a") == 0
        assert share(shares, "team-b") == Fraction(8, 11)
        assert round(float(share(shares, "team-b")), 2) == 0.73
        # b-wait's 40 would take team-b to 120 > 110; 30 more reach its deserved share.
        assert not is_overused(shares, "team-b")
        assert is_overused(shares, "team-b", {"cpu": 30_000})
        assert not is_overused(shares, "team-b", {"cpu": 29_000})

    def test_a_queue_asking_less_than_its_weight_leaves_the_rest_to_others(self) -> None:
        # team-a already holds 20 and this gang asks 10: 30 <= 35, met in round 1; team-b
        # gets 105, then the 5 team-a did not take: 110.
        voter = session(two_teams(b_running=6, b_waiting=6, a_running=2))
        shares = deserved_shares(voter.cluster, voter.cluster.queues["team-a"], {"cpu": 10_000})
        assert shares.deserved["team-a"]["cpu"] == 30_000
        assert shares.deserved["team-b"]["cpu"] == 110_000
        assert share(shares, "team-a") == Fraction(2, 3)
        assert share(shares, "team-b") == Fraction(6, 11)


class TestShareAndOverused:
    def test_share_reads_deserved_resource_names_only(self) -> None:
        # pods is no resource name; a name deserved below minResource is left out too.
        deserved = {"cpu": 10_000, "memory": 0, "pods": 2}
        assert share_of({"cpu": 5_000, "memory": GI, "pods": 9}, deserved) == Fraction(1, 2)
        assert share_of({"cpu": 5_000}, {"cpu": 10_000, "memory": 4 * GI}) == Fraction(1, 2)
        assert share_of({"memory": 3 * GI}, {"cpu": 10_000, "memory": 4 * GI}) == Fraction(3, 4)
        assert share_of({}, {}) == 0

    def test_overused_when_deserved_fits_in_allocated(self) -> None:
        assert overused({"cpu": 10_000, "pods": 5}, {"cpu": 10_000, "pods": 1})
        assert not overused({"cpu": 10_000}, {"cpu": 9_000})
        assert not overused({"cpu": 10_000, GPU: 2000}, {"cpu": 12_000})
        assert overused({"cpu": 10_000, GPU: 2000}, {"cpu": 12_000, GPU: 2000})


def view(name: str, priority: int = 0, created: str = "2026-01-01T00:00:00Z") -> QueueView:
    return QueueView(name, "Open", {}, {}, 1, False, True, priority, created)


class TestQueueOrder:
    def test_priority_then_share_then_age_then_name(self) -> None:
        entries = [
            (view("low-share"), Fraction(1, 10)),
            (view("high-priority", priority=5), Fraction(9, 10)),
            (view("b-tie"), Fraction(1, 2)),
            (view("a-tie"), Fraction(1, 2)),
            (view("old-tie", created="2025-01-01T00:00:00Z"), Fraction(1, 2)),
            (view("created-by-the-stack", created="~"), 0),
        ]
        got = [v.name for v, share in sorted(entries, key=lambda e: queue_order_key(*e))]
        assert got == [
            "high-priority",
            "created-by-the-stack",
            "low-share",
            "old-tie",
            "a-tie",
            "b-tie",
        ]


class TestQueueAllocatableOfAQueueNotOpen:
    def test_the_session_refuses_every_task_of_a_closed_queue_whatever_its_share(self) -> None:
        # Both queues deserve far more than one 1-cpu pod; only the Open one takes it.
        objects = [
            node("n1", "8", "8G", "10"),
            queue("open-q"),
            queue("shut-q", state="Closed"),
            podgroup("o", "open-q", "Running", 1, {"cpu": "1"}),
            pod("o-0", None, {"cpu": "1"}, "o", phase="Pending"),
            podgroup("s", "shut-q", "Running", 1, {"cpu": "1"}),
            pod("s-0", None, {"cpu": "1"}, "s", phase="Pending"),
        ]
        c = session(objects).cluster
        s = open_session(c, newest=Newest(c.queue_view("open-q"), {}))
        assert s.shares is not None and s.shares.closed == {"shut-q"}
        tasks = {g.queue: g.pending_pods[0].task() for g in c.groups}
        assert s.allocatable("open-q", {})(tasks["open-q"], {})
        assert not s.allocatable("shut-q", {})(tasks["shut-q"], {})
        assert s.shares.deserved["shut-q"]["cpu"] >= 1_000
