"""The preflight on a job with sub-gangs: room for 1.5 replicas above the gang places one
whole replica and no pod of the second, in Volcano's words (its fit error and the text of a
placement taken back, as Volcano v1.14.1 wrote them in tests/e2e/test_sub_gangs.py)."""

from __future__ import annotations

from typing import Any

from raygang.preflight.run import preflight_job

from tests.builders import container, rayjob, worker
from tests.volcano.conftest import check, cluster, node, plan_of, queue


def _job(sub_gangs: bool, replicas: int = 3) -> dict[str, Any]:
    return rayjob(
        name="tpu-job",
        mode="InteractiveMode",
        autoscaling=True,
        head=[container("ray-head", {"cpu": "1", "memory": "1Gi"})],
        annotations={"raygang.dev/sub-gangs": "true"} if sub_gangs else None,
        workers=[
            worker(
                "tpu",
                replicas=replicas,
                min_replicas=1,
                max_replicas=replicas,
                num_of_hosts=2,
                containers=[container("ray-worker", {"cpu": "2", "memory": "1Gi"})],
            )
        ],
    )


# The head (1 cpu, 500m autoscaler) and 5 workers of 2 cpu: the gang's replica, one whole
# replica above it and half of another.
SNAPSHOT = cluster(node("n1", "11500m"), queue("default"))


def _reasons(sub_gangs: bool) -> tuple[str, ...]:
    result = preflight_job(plan_of(_job(sub_gangs)), queues={}, snapshot=SNAPSHOT)
    return result.reasons


def test_a_replica_above_the_gang_is_placed_whole_or_not_at_all() -> None:
    result = preflight_job(plan_of(_job(True)), queues={}, snapshot=SNAPSHOT)
    placement = check(result, "placement")
    assert placement.status == "fail"
    assert placement.message == (
        "the gang fits but 1 replica(s) of worker group tpu above minReplicas do not, and "
        "Volcano places a replica only whole (2 pods, subGroupPolicy): 0/1 nodes are "
        "unavailable: 1 Insufficient cpu.; Pod default/tpu-job-tpu-worker-* can possibly be "
        "assigned to n1, once minAvailable is satisfied"
    )
    (reason,) = [r for r in result.reasons if "taken back" in r]
    assert (
        "the gang (3 pods) is placed; 1 whole replica(s) above minReplicas placed, then 1 "
        "pod(s) of the next replica of worker group tpu fit and are taken back" in reason
    )
    assert "none of the 2 pod(s) of the 1 replica(s) left is bound" in reason
    assert reason.endswith("Fix: reduce worker group tpu replicas from 3 to 2.")


def test_without_sub_gangs_half_a_replica_is_placed() -> None:
    result = preflight_job(plan_of(_job(False)), queues={}, snapshot=SNAPSHOT)
    assert check(result, "placement").message == (
        "the gang fits but 1 worker group tpu pod(s) above minReplicas do not: 0/1 nodes are "
        "unavailable: 1 Insufficient cpu."
    )


def test_whole_replicas_that_fit_pass() -> None:
    roomy = cluster(node("n1", "13500m"), queue("default"))
    result = preflight_job(plan_of(_job(True)), queues={}, snapshot=roomy)
    assert check(result, "placement").status == "pass"
    assert check(result, "placement").message.startswith("all 7 pods fit on n1")


def test_the_fit_check_counts_whole_replicas() -> None:
    small = cluster(node("n1", "7500m"), queue("default"))
    result = preflight_job(plan_of(_job(True, replicas=2)), queues={}, snapshot=small)
    assert check(result, "fit").status == "fail"
    (reason,) = [r for r in result.reasons if "can never be placed" in r]
    assert (
        "hold only 3 of them (cpu 2, memory 1Gi each); Volcano keeps a replica of worker group "
        "tpu only whole (2 pods, the PodGroup's subGroupPolicy), so 1 of its 2 replicas can be "
        "placed and no pod of the others. Fix: reduce worker group tpu replicas from 2 to 1."
        in reason
    )
