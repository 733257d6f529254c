"""The gang plugin: a PodGroup is valid only with at least minMember tasks, and ready when
minMember of them are placed.

Follows Volcano's ``pkg/scheduler/plugins/gang/gang.go`` (JobValid, JobReady, SubJobReady
and the unschedulable condition it records).
"""

from __future__ import annotations

from raygang.volcano.api import Res, Task
from raygang.volcano.framework import Session


def gang_condition(
    min_member: int, pods: int, placed: int, failed: Task | None, fit_message: str
) -> str:
    """The PodGroup condition gang writes when a gang cannot be placed (``OnSessionClose``).

    ``<minMember - placed>/<pods> tasks in gang unschedulable: pod group is not ready,
    <status histogram>; Pending: <reasons>. Origin reason is <pod>: <fit errors>``; Go
    sorts both histograms as strings. After a discarded attempt every pod is Pending:
    the ones that were placed show ``Schedulable``, the others ``Unschedulable``.
    """
    statuses = sorted(([f"{pods} Pending"] if pods else []) + [f"{min_member} minAvailable"])
    reasons = sorted(
        ([f"{placed} Schedulable"] if placed else [])
        + ([f"{pods - placed} Unschedulable"] if pods > placed else [])
    )
    text = (
        f"{min_member - placed}/{pods} tasks in gang unschedulable: pod group is not ready, "
        + ", ".join(statuses)
    )
    if reasons:
        text += f"; Pending: {', '.join(reasons)}"
    if failed is not None:
        text += f". Origin reason is {failed.pod_name}: {fit_message}"
    return text


def sub_job_ready(ready: int, min_available: int) -> bool:
    """``SubJobReadyFn``: a sub-job is complete once ``subGroupSize`` of its pods are placed
    (``SubJobInfo.IsReady``); allocate keeps none of them before (v1.14)."""
    return ready >= min_available


def on_session_open(session: Session) -> Session:
    """The plugin's ``OnSessionOpen``: its job order, gangs not yet ready first, the
    condition its ``OnSessionClose`` writes on a gang that is not ready, and whether a
    sub-job of a ``subGroupPolicy`` is complete."""

    def order(ready: bool, held: Res) -> int:
        return int(ready)

    return (
        session.add_job_order(order)
        .add_job_condition(gang_condition)
        .add_sub_job_ready(sub_job_ready)
    )
