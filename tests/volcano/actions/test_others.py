"""allocate's loop over queues and jobs (``actions/allocate/allocate.go``
``allocateResources``): who is served before our gang, worked by hand."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from raygang.volcano.actions.others import Own, place_others
from raygang.volcano.conf import open_session
from raygang.volcano.decisions import Ahead, Before, Later, Step
from raygang.volcano.framework import Newest

from tests.volcano.conftest import node, pod, podgroup, queue, session, state, two_teams

OURS = "ns1/ray-rayjob-sample-pg"


def before_of(
    objects: Sequence[dict[str, Any]],
    own_queue: str | None,
    cpu: int = 0,
    *,
    replay_ours: bool = True,
) -> tuple[Before, Any]:
    """allocate's turns up to ours (this job in ``own_queue`` asking ``cpu`` cores); with
    ``replay_ours`` False the shares still count our job but every turn is replayed."""
    voter = session(objects)
    c = voter.cluster
    view = c.queue_view(own_queue) if own_queue is not None else None
    newest = Newest(view, {"cpu": 1000 * cpu, "pods": cpu} if cpu else {})
    own = Own(own_queue, OURS) if own_queue is not None and replay_ours else None
    return place_others(c, (), own, open_session(c, newest=newest)), c


def one_pod_gang(name: str, q: str, created: str) -> list[dict[str, Any]]:
    return [
        podgroup(name, q, "Inqueue", 1, {"cpu": "10"}, created=created),
        pod(f"{name}-0", None, {"cpu": "10"}, name, phase="Pending", created=created),
    ]


class TestQueueOrder:
    def test_weights_1_and_3_our_queue_goes_first(self) -> None:
        # team-a: this gang's 30 cpu, deserved 30, share 0; team-b: deserved 110 (see
        # plugins/test_proportion), allocated 80, share 8/11.
        before, c = before_of(two_teams(b_running=8, b_waiting=4), "team-a", 30)
        a, b = c.queues["team-a"], c.queues["team-b"]
        assert before.own_turn
        assert before.steps == []
        assert before.later == [
            Later("ns1/b-wait", "team-b", "queue", Ahead(a, 0, b, Fraction(8, 11)))
        ]
        assert state(before.nodes) == state(c.nodes)  # nothing placed before ours
        assert before.own_allocated == {}

    def test_b_wait_is_capped_by_its_deserved_share(self) -> None:
        # The same session replayed past our turn: b-wait's 40 on top of team-b's 80 is
        # more than its 110, so the third 10-cpu pod is refused and the gang discarded,
        # though 6 nodes are empty.
        before, c = before_of(two_teams(b_running=8, b_waiting=4), "team-a", 30, replay_ours=False)
        (step,) = before.steps
        assert (step.job, step.kind, step.ahead) == ("ns1/b-wait", "capped", None)
        assert step.cap is not None
        names, deserved, allocated, ask = step.cap
        assert (names, deserved["cpu"], allocated, ask) == (
            ("cpu",),
            110_000,
            {"cpu": 80_000, "pods": 8},
            {"cpu": 40_000, "pods": 4},
        )
        assert state(before.nodes) == state(c.nodes)

    def test_a_capped_gang_served_first_takes_no_room(self) -> None:
        # team-a: a-run 20 + this gang 10, deserved 30, share 2/3; team-b: 60 + 60 asked,
        # deserved 105 + 5 = 110, share 6/11 < 2/3: team-b's turn first. b-wait fits the
        # six empty nodes exactly but 60 + 60 > 110: refused at its sixth pod.
        before, c = before_of(two_teams(b_running=6, b_waiting=6, a_running=2), "team-a", 10)
        a, b = c.queues["team-a"], c.queues["team-b"]
        (step,) = before.steps
        assert step.kind == "capped"
        assert step.ahead == Ahead(b, Fraction(6, 11), a, Fraction(2, 3))
        assert step.cap is not None and step.cap[3] == {"cpu": 60_000, "pods": 6}
        assert state(before.nodes) == state(c.nodes)
        assert before.own_turn and before.own_allocated == {"cpu": 20_000, "pods": 2}

    def test_queue_priority_comes_before_share(self) -> None:
        # team-b deserves all it asks (80 of 105) and has share 1/2 > 0, but priority 1:
        # b-wait's gang is placed on four of the five empty nodes before our turn.
        objects = two_teams(b_running=4, b_waiting=4, busy=5, b_priority=1)
        before, c = before_of(objects, "team-a", 30)
        a, b = c.queues["team-a"], c.queues["team-b"]
        assert before.steps == [
            Step("ns1/b-wait", "team-b", "gang", ahead=Ahead(b, Fraction(1, 2), a, 0))
        ]
        assert sum(n.idle["cpu"] for n in before.nodes) == 10_000
        assert before.later == []

    def test_shares_are_compared_again_after_each_job(self) -> None:
        # Two queues of weight 1 deserving 20 cpu each; qb's gangs are older. Both shares
        # 0: qa first by name; a-1 takes qa to 1/2, so qb's b-1 comes next; tied at 1/2,
        # qa again, then qb. Oldest first would be b-1, b-2, a-1, a-2.
        objects = [
            *[node(f"n{i}", "10") for i in range(8)],
            queue("qa"),
            queue("qb"),
            *one_pod_gang("b-1", "qb", "2026-03-01T00:00:01Z"),
            *one_pod_gang("b-2", "qb", "2026-03-01T00:00:02Z"),
            *one_pod_gang("a-1", "qa", "2026-03-01T00:00:03Z"),
            *one_pod_gang("a-2", "qa", "2026-03-01T00:00:04Z"),
        ]
        before, _ = before_of(objects, None)
        assert [(s.job, s.kind) for s in before.steps] == [
            ("ns1/a-1", "gang"),
            ("ns1/b-1", "gang"),
            ("ns1/a-2", "gang"),
            ("ns1/b-2", "gang"),
        ]


class TestOverusedAndReady:
    def overused_cluster(self, b_priority: int) -> list[dict[str, Any]]:
        """80 cpu; queue qa of weight 3, qb of weight 1 holding 40 with b-wait asking 10
        more."""
        return [
            *[node(f"n{i}", "10") for i in range(8)],
            queue("qa", weight=3),
            queue("qb", weight=1, priority=b_priority),
            podgroup("b-run", "qb", "Running", 4, {"cpu": "40"}),
            *[pod(f"b-{i}", f"n{i}", {"cpu": "10"}, "b-run") for i in range(4)],
            podgroup("b-wait", "qb", "Inqueue", 1, {"cpu": "10"}),
            pod("w-0", None, {"cpu": "10"}, "b-wait", phase="Pending"),
        ]

    def test_an_overused_queue_is_dropped(self) -> None:
        # qa asks this gang's 60: min(3 x 80/4, 60) = 60; qb min(80/4, 50) = 20 <= its 40
        # allocated: overused. Its priority gives it the first turn, where it is dropped.
        before, _ = before_of(self.overused_cluster(b_priority=1), "qa", 60)
        (skipped,) = before.skipped
        assert (skipped.queue, skipped.jobs) == ("qb", ("ns1/b-wait",))
        assert skipped.deserved["cpu"] == 20_000
        assert skipped.allocated == {"cpu": 40_000, "pods": 4}
        assert before.steps == [] and before.own_turn

    def test_our_queue_dropped_before_our_turn(self) -> None:
        # This gang (10) in qb: qb asks 60, deserves 20, holds 40: dropped at its first
        # turn with b-wait and this gang still waiting.
        objects = [
            *self.overused_cluster(b_priority=1),
            podgroup("a-wait", "qa", "Inqueue", 6, {"cpu": "60"}),
            *[pod(f"a-{i}", None, {"cpu": "10"}, "a-wait", phase="Pending") for i in range(6)],
        ]
        before, _ = before_of(objects, "qb", 10)
        assert [s.jobs for s in before.skipped] == [("ns1/b-wait", OURS)]
        assert not before.own_turn
        assert before.own_allocated == {"cpu": 40_000, "pods": 4}

    def test_a_ready_job_places_its_pending_pods_after_gangs_not_yet_ready(self) -> None:
        objects = [
            node("n1", "10"),
            podgroup("elastic", "default", "Running", 1, {"cpu": "1"}),
            pod("e-0", "n1", {"cpu": "1"}, "elastic"),
            *[pod(f"e-{i}", None, {"cpu": "1"}, "elastic", phase="Pending") for i in (1, 2)],
        ]
        alone, _ = before_of(objects, None)
        assert alone.steps == [Step("ns1/elastic", "default", "pods", pods=2)]
        with_ours, c = before_of(objects, "default", 2)
        assert with_ours.steps == []
        assert with_ours.later == [Later("ns1/elastic", "default", "ready")]
        assert state(with_ours.nodes) == state(c.nodes)


class TestAQueueNotOpen:
    """allocate's loop serves the jobs of a queue that is not Open like any other's;
    proportion's ``queueAllocatable`` then refuses every pod of theirs."""

    def running(self, name: str, q: str) -> list[dict[str, Any]]:
        """A Running job of one pod on n1 with two more pending (1 cpu each)."""
        return [
            podgroup(name, q, "Running", 1, {"cpu": "1"}),
            pod(f"{name}-0", "n1", {"cpu": "1"}, name),
            *[pod(f"{name}-{i}", None, {"cpu": "1"}, name, phase="Pending") for i in (1, 2)],
        ]

    def test_a_running_job_of_a_closed_queue_places_no_pending_pod(self) -> None:
        objects = [
            node("n1", "10"),
            queue("open-q"),
            queue("shut-q", state="Closed"),
            *self.running("o-run", "open-q"),
            *self.running("s-run", "shut-q"),
        ]
        before, c = before_of(objects, None)
        assert before.steps == [Step("ns1/o-run", "open-q", "pods", pods=2)]
        (n1,) = before.nodes
        (was,) = c.nodes
        # o-run's two pending pods land; none of s-run's.
        assert was.idle["cpu"] - n1.idle["cpu"] == 2_000

    def test_a_gang_of_a_closed_queue_served_first_is_no_capped_gang(self) -> None:
        # shut-q is the older queue at share 0: its gangs' turns come before ours and take
        # nothing: no step, the nodes as they were. Open, it would have had the small
        # gang placed and the big one capped by its deserved share.
        objects = [
            node("n1", "10"),
            queue("shut-q", state="Closed"),
            queue("open-q"),
            *one_pod_gang("s-gang", "shut-q", "2026-03-01T00:00:00Z"),
            podgroup("s-small", "shut-q", "Inqueue", 1, {"cpu": "1"}),
            pod("s-small-0", None, {"cpu": "1"}, "s-small", phase="Pending"),
        ]
        objects[1]["metadata"]["creationTimestamp"] = "2026-01-01T00:00:00Z"
        objects[2]["metadata"]["creationTimestamp"] = "2026-02-01T00:00:00Z"
        before, c = before_of(objects, "open-q", 1)
        assert before.own_turn
        assert before.steps == [] and before.later == []
        assert state(before.nodes) == state(c.nodes)

    def test_its_jobs_after_ours_wait_as_closed(self) -> None:
        objects = [
            node("n1", "10"),
            queue("open-q"),
            queue("shut-q", state="Closed"),
            *self.running("s-run", "shut-q"),
        ]
        before, _ = before_of(objects, "open-q", 1)
        assert before.own_turn
        assert before.later == [Later("ns1/s-run", "shut-q", "closed")]
