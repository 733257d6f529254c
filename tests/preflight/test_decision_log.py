"""The report words the decision log: the numbers and events of the enqueue action's ballots
(``raygang.volcano.decisions``) are the ones the overcommit and proportion checks print."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from raygang.preflight.jobpods import job_pods
from raygang.volcano.actions.enqueue import enqueue
from raygang.volcano.api import show_res
from raygang.volcano.cache import declared_view
from raygang.volcano.conf import open_session
from raygang.volcano.decisions import (
    EnqueueLog,
    OvercommitBallot,
    ProportionBallot,
    QueueCapability,
)
from raygang.volcano.framework import Newest

from tests.volcano.conftest import (
    check,
    cluster,
    declared,
    job,
    node,
    parse_and_read,
    plan_of,
    podgroup,
    queue,
    run,
    team_a_job,
    two_teams,
)


def logged(manifest: dict[str, Any], objects: list[dict[str, Any]]) -> EnqueueLog:
    """The enqueue action's log for the job, over the session the preflight opens."""
    plan = plan_of(manifest)
    session = open_session(parse_and_read(cluster(*objects)), Fraction(6, 5))
    return enqueue(session, plan.queue or "default", plan.gang.min_resources)


def ballots(log: EnqueueLog) -> tuple[OvercommitBallot, ProportionBallot]:
    overcommit, proportion = log.ballot("overcommit"), log.ballot("proportion")
    assert isinstance(overcommit, OvercommitBallot)
    assert isinstance(proportion, ProportionBallot)
    return overcommit, proportion


NODES = [node("n1", "2", "4Gi"), node("n2", "4", "16Gi")]  # 7.2 cpu / 24Gi of budget


class TestTheReportWordsTheLog:
    def test_a_rejecting_overcommit_ballot_is_what_the_check_prints(self) -> None:
        objects = [
            *NODES,
            queue("team", {"cpu": "100", "memory": "100Gi"}),
            podgroup("x", "team", "Inqueue", 1, {"cpu": "2", "memory": "2Gi"}),
            podgroup("y", "team", "Pending", 1, {"cpu": "1", "memory": "1Gi"}),
        ]
        manifest = job(head={"cpu": "6", "memory": "2Gi"}, queue_name="team")
        log = logged(manifest, objects)
        overcommit, proportion = ballots(log)
        assert [name for name, _ in log.votes] == ["ns1/y"]
        assert [a.name for a in log.admitted] == ["ns1/y"]
        # Volcano stops at overcommit's rejection; proportion's ballot is what it would say.
        assert (log.judged.admitted, log.judged.by) == (False, "overcommit")
        assert log.judged.ballots == (overcommit,)
        assert overcommit.short == ("cpu",)
        assert overcommit.event == "resource in cluster is overused: overused cpu"
        assert overcommit.held == {"cpu": 3000, "memory": 3 << 30}  # x Inqueue, y admitted
        assert overcommit.budget["cpu"] == 7200 and overcommit.idle["cpu"] == 7200
        # realCapability is the cluster (6 cpu): proportion would reject too.
        assert proportion.event == "queue resource quota insufficient: insufficient cpu"

        result = run(manifest, cluster(*objects))
        message = check(result, "overcommit").message
        names = list(overcommit.short)
        assert message == (
            f"{overcommit.event}: needs {show_res(overcommit.ask, names)}; 1.2 x allocatable "
            f"({show_res(overcommit.budget, names)}) - used ({show_res(overcommit.used, names)}) "
            f"leaves {show_res(overcommit.idle, names)}, and admitted gangs reserve "
            f"{show_res(overcommit.held, names)}; 1 Pending PodGroup(s) are admitted first"
        )
        assert result.reasons[0].startswith(f"{overcommit.event} -- ")
        # The gangs the fix names are the ballot's holders (the snapshot's reservations).
        assert overcommit.holders == (("ns1/x", {"cpu": 2000, "memory": 2 << 30}),)
        assert (
            "Fix: finish or delete ns1/x (Inqueue with no live pods, likely stale: delete it "
            "if its job is gone; holds cpu 2)"
        ) in result.reasons[0]
        assert check(result, "proportion").message == (
            f"{proportion.event}: queue team realCapability {show_res(proportion.real, names)}"
            f", committed {show_res(proportion.committed, names)}, this gang "
            f"{show_res(proportion.ask, names)}; 1 Pending PodGroup(s) are admitted first"
        )
        # Volcano shows overcommit's event; proportion's is raygang's note.
        assert any(
            r.startswith(
                "raygang (not shown by Volcano: proportion is not asked once "
                f"overcommit rejects): {proportion.event} -- "
            )
            for r in result.reasons
        )

    def test_a_rejecting_proportion_ballot_is_what_the_check_prints(self) -> None:
        objects = [
            *NODES,
            queue("team", {"cpu": "3", "memory": "100Gi"}),
            podgroup("x", "team", "Inqueue", 1, {"cpu": "2", "memory": "2Gi"}),
        ]
        manifest = job(head={"cpu": "2", "memory": "2Gi"}, queue_name="team")
        log = logged(manifest, objects)
        overcommit, proportion = ballots(log)
        assert overcommit.permits and not proportion.permits
        assert log.judged.by == "proportion" and log.judged.event == proportion.event
        assert proportion.event == "queue resource quota insufficient: insufficient cpu"
        result = run(manifest, cluster(*objects))
        assert check(result, "proportion").message == (
            f"{proportion.event}: queue team realCapability {show_res(proportion.real, ['cpu'])}"
            f", committed {show_res(proportion.committed, ['cpu'])}, this gang "
            f"{show_res(proportion.ask, ['cpu'])}"
        )

    def test_a_queue_not_open_is_proportion_s_silent_rejection(self) -> None:
        objects = [*NODES, queue("team", state="Closed")]
        manifest = job(head={"cpu": "1", "memory": "1Gi"}, queue_name="team")
        _, proportion = ballots(logged(manifest, objects))
        assert (proportion.permits, proportion.open, proportion.event) == (False, False, None)
        result = run(manifest, cluster(*objects))
        assert check(result, "proportion").message.startswith(
            "queue team is not Open: proportion rejects the gang (no event)"
        )

    def test_a_queue_the_session_lacks_has_no_proportion_ballot(self) -> None:
        plan = plan_of(job(queue_name="ghost"))
        session = open_session(parse_and_read(cluster(*NODES, queue("team"))))
        log = enqueue(session, "ghost", plan.gang.min_resources)
        assert (log.judged.admitted, log.judged.by) == (False, "session")
        assert [b.voter for b in log.ballots] == ["overcommit"]


class TestTheSessionLog:
    def test_the_shares_proportion_recorded_are_what_fair_share_prints(self) -> None:
        # Two queues of weight 1 and 3; the job judged asks 30 cpu in team-a.
        objects = two_teams(b_running=8, b_waiting=4)
        manifest = team_a_job(30)
        plan = plan_of(manifest)
        c = parse_and_read(cluster(*objects))
        view = c.queue_view("team-a")
        pods = job_pods(plan)
        session = open_session(c, Fraction(6, 5), Newest(view, pods.request(extras=True)))
        shares = session.shares
        assert shares is not None
        assert shares.deserved["team-a"]["cpu"] == 30_000
        assert shares.deserved["team-b"]["cpu"] == 110_000
        capability = session.capability
        assert capability is not None and capability.queue == "team-a"
        assert capability.cluster_known and capability.real is not None

        result = run(manifest, cluster(*objects))
        names = ["cpu"]  # what the gang asks (no memory)
        assert check(result, "fair-share").message.startswith(
            f"queue team-a deserves {show_res(shares.deserved['team-a'], names)} (among 2 "
            f"queues with jobs); allocated {show_res(shares.allocated['team-a'], names)} + gang "
        )
        assert check(result, "capability").status == "pass"

    def test_without_a_snapshot_the_capability_alone_bounds_the_queue(self) -> None:
        small = declared("ray-batch", {"cpu": "4"})
        plan = plan_of(job(queue_name="ray-batch"), [small])
        session = open_session(None, Fraction(6, 5), Newest(declared_view(small, None), {}))
        assert session.shares is None
        assert session.capability == QueueCapability("ray-batch", {"cpu": 4000}, False)
        result = run(
            job(workers=[("gpu", 4, {"cpu": "2"})], queue_name="ray-batch"), queues=[small]
        )
        assert check(result, "capability").message.startswith(
            "queue resource quota insufficient: insufficient cpu: minResources (cpu 9, "
        )
        assert "queue ray-batch capability cpu is 4" in check(result, "capability").message
        assert plan.queue == "ray-batch"
