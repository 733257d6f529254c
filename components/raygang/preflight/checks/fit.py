"""The static fit check: every kind of pod fits some node when the node is empty, and the
cluster, even empty, holds every pod of each worker group (the predicates and allocate's
resource check over empty nodes)."""

from __future__ import annotations

from collections.abc import Sequence

from raygang.preflight.emptynodes import empty_holds, empty_reasons, fits_empty
from raygang.preflight.evaluation import Evaluation
from raygang.preflight.fixes import group_fix, replica_cut, static_fix
from raygang.preflight.result import NodeShape
from raygang.volcano.api import Node, Task, asked_names, fit_error_message, show_res, to_res


def check_fit(ev: Evaluation) -> None:
    if ev.cluster is not None and ev.cluster.has_nodes:
        nodes = ev.cluster.empty_nodes
        what = "node"
    elif ev.shapes:
        nodes = shape_nodes(ev.shapes)
        what = "declared node shape"
    else:
        where = (
            "no cluster snapshot" if ev.cluster is None else "the snapshot holds no Node objects"
        )
        ev.add("fit", "skip", f"{where} and no declared node shapes (raygang:nodeShapes)")
        return
    for task in ev.distinct_tasks():
        if fits_empty(task, nodes, ev.session):
            continue
        reasons = empty_reasons(task, nodes, ev.session)
        message = fit_error_message(reasons, len(nodes))
        ev.add(
            "fit",
            "fail",
            f"the {task.label} pod fits no {what}, even empty: {message}",
            f"{message} -- the {task.label} pod "
            f"({show_res(task.request, asked_names(task.request))}) fits no {what} even when "
            f"the {what} is empty. Fix: {static_fix(ev, task, nodes, reasons)}.",
            never=True,
        )
        return
    bound = capacity_bound(ev, nodes) if what == "node" else None
    if bound is not None:
        task, holds, want = bound
        members = ev.pods.counts.get(task.group, 0)
        fix = (
            group_fix(ev, task, holds)
            if holds < members
            else replica_cut(ev, task, want - holds) or "add nodes"
        )
        hosts = ev.pods.sub_gangs.get(task.group)
        whole = (
            f"; Volcano keeps a replica of {task.label} only whole ({hosts} pods, the "
            f"PodGroup's subGroupPolicy), so {holds // hosts} of its {want // hosts} replicas "
            "can be placed and no pod of the others"
            if hosts
            else ""
        )
        ev.add(
            "fit",
            "fail",
            f"even with every node empty only {holds} {task.label} pods fit; the {ev.noun} "
            f"starts {want}",
            f"{want - holds} of the {want} {task.label} pods can never be placed: all "
            f"nodes together, even empty, hold only {holds} of them "
            f"({show_res(task.request, asked_names(task.request))} each){whole}. Fix: {fix}.",
            never=True,
        )
        return
    ev.add("fit", "pass", f"every pod of the {ev.noun} fits some {what} when it is empty")


def capacity_bound(ev: Evaluation, empty: Sequence[Node]) -> tuple[Task, int, int] | None:
    """A proof that the job cannot fit even an empty cluster.

    A group whose pods outnumber what all nodes together can hold, each node holding
    ``min over resource names of allocatable // request`` of them.
    """
    for task, members, extras in ev.pods.roles:
        want = members + extras
        if task.best_effort or want == 0:
            continue
        holds = empty_holds(task, empty, ev.session, want)
        if holds < want:
            return task, holds, want
    return None


def shape_nodes(shapes: Sequence[NodeShape]) -> list[Node]:
    """The declared node shapes (``raygang:nodeShapes``) as empty nodes."""
    nodes = []
    for shape in shapes:
        allocatable = to_res(shape.allocatable)
        nodes.append(
            Node(
                name=shape.name,
                allocatable=allocatable,
                idle=dict(allocatable),
                releasing={},
                labels=dict(shape.labels),
                taints=shape.taints,
                unschedulable=False,
            )
        )
    return nodes
