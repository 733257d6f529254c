"""Sub-jobs of a ``subGroupPolicy`` (Volcano v1.14 ``allocateForJob``/``allocateForSubJob``,
``SubJobInfo``): each placed whole, or placed in part and taken back."""

from __future__ import annotations

from typing import Any

from raygang.volcano.actions.allocate import place_sub_jobs
from raygang.volcano.actions.others import place_others
from raygang.volcano.api import Node, Placement, SubJob, Task, kept_back_message
from raygang.volcano.conf import open_session
from raygang.volcano.framework import Newest
from raygang.volcano.plugins.gang import sub_job_ready

from tests.volcano.conftest import GI, node, pod, podgroup, queue, session

SESSION = open_session()
ROOM = {"cpu": 8000, "memory": 32 * GI, "pods": 110}


def _node(name: str, cpu_idle: int) -> Node:
    return Node(name, dict(ROOM), {**ROOM, "cpu": cpu_idle}, {}, {}, (), False)


WORKER = Task(
    "worker group tpu",
    "tpu",
    "job-tpu-worker-*",
    {"cpu": 2000, "memory": GI, "pods": 1},
    Placement(),
)


def _replica(index: int, hosts: int = 2) -> SubJob:
    return SubJob("tpu", index, hosts, (WORKER,) * hosts)


def test_gang_says_a_sub_job_is_complete_at_its_size() -> None:
    assert not sub_job_ready(1, 2)
    assert sub_job_ready(2, 2)
    assert SESSION.sub_job_ready(2, 2) and not SESSION.sub_job_ready(1, 2)


def test_a_replica_that_fits_is_kept_whole() -> None:
    nodes = [_node("a", 4000)]
    (turn,) = place_sub_jobs([_replica(1)], nodes, SESSION)
    assert turn.kept and turn.placed == (("job-tpu-worker-*", "a"),) * 2
    assert turn.failed is None and nodes[0].idle["cpu"] == 0


def test_room_for_half_a_replica_places_none_of_it() -> None:
    nodes = [_node("a", 3000), _node("b", 1000)]
    before = [dict(n.idle) for n in nodes]
    (turn,) = place_sub_jobs([_replica(1)], nodes, SESSION)
    assert not turn.kept
    assert turn.placed == (("job-tpu-worker-*", "a"),)  # placed, then taken back
    assert turn.failed == "job-tpu-worker-*"
    assert turn.fit_errors == {"a": "Insufficient cpu", "b": "Insufficient cpu"}
    assert [dict(n.idle) for n in nodes] == before  # Statement.Discard


def test_room_for_one_and_a_half_replicas_keeps_one_whole() -> None:
    nodes = [_node("a", 6000)]
    turns = place_sub_jobs([_replica(1), _replica(2)], nodes, SESSION)
    assert [t.kept for t in turns] == [True, False]
    assert nodes[0].idle["cpu"] == 2000  # the second replica's pod given back


def test_a_replica_that_fails_does_not_stop_the_next() -> None:
    big = SubJob(
        "big",
        1,
        2,
        (Task("worker group big", "big", "big-*", {"cpu": 5000, "pods": 1}, Placement()),) * 2,
    )
    nodes = [_node("a", 6000)]
    turns = place_sub_jobs([big, _replica(1)], nodes, SESSION)
    assert [t.kept for t in turns] == [False, True]


def test_the_words_of_a_placement_taken_back() -> None:
    assert kept_back_message("default/job-tpu-worker-x", "n1") == (
        "Pod default/job-tpu-worker-x can possibly be assigned to n1, once minAvailable is "
        "satisfied"
    )


# --- another job's sub-jobs, read from a snapshot -----------------------------------------
def _replica_pods(name: str, replica: str, on: str | None, count: int = 2) -> list[dict[str, Any]]:
    out = []
    for i in range(count):
        p = pod(
            f"{name}-{replica}-{i}",
            on,
            {"cpu": "2"},
            name,
            phase="Running" if on else "Pending",
        )
        p["metadata"]["labels"] = {
            "ray.io/group": "tpu",
            "ray.io/worker-group-replica-name": f"tpu-{replica}",
        }
        out.append(p)
    return out


def _running_with_policy(pending_replica: bool) -> list[dict[str, Any]]:
    group = podgroup("other", "default", "Running", 2, {"cpu": "4"})
    group["spec"]["subGroupPolicy"] = [
        {
            "name": "tpu",
            "subGroupSize": 2,
            "minSubGroups": 1,
            "labelSelector": {"matchLabels": {"ray.io/group": "tpu"}},
            "matchLabelKeys": ["ray.io/worker-group-replica-name"],
        }
    ]
    objects = [node("n1", "7"), queue("default"), group, *_replica_pods("other", "a", "n1")]
    if pending_replica:
        objects += _replica_pods("other", "b", None)
    return objects


def test_a_snapshot_s_pods_are_grouped_as_volcano_groups_them() -> None:
    c = session(_running_with_policy(True)).cluster
    (group,) = c.groups
    subs, singles = group.pending_sub_jobs()
    assert singles == ()
    (sub,) = subs
    assert (sub.policy, sub.min_available, len(sub.tasks)) == ("tpu", 2, 2)


def test_another_ready_job_s_replica_that_does_not_fit_is_left_whole() -> None:
    # n1 has 7 cpu: replica a holds 4, so 3 are free: room for one pod of replica b, which
    # Volcano places and takes back; the replay leaves the node as it was.
    voter = session(_running_with_policy(True))
    c = voter.cluster
    before = place_others(c, (), None, open_session(c, newest=Newest(None, {})))
    assert before.steps == []
    assert before.nodes[0].idle["cpu"] == 3000


def test_another_ready_job_s_replica_that_fits_is_placed_whole() -> None:
    objects = _running_with_policy(True)
    objects[0] = node("n1", "9")
    c = session(objects).cluster
    before = place_others(c, (), None, open_session(c, newest=Newest(None, {})))
    assert [(s.kind, s.pods) for s in before.steps] == [("pods", 2)]
    assert before.nodes[0].idle["cpu"] == 1000
