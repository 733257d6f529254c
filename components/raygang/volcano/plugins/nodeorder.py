"""The nodeorder plugin: which node a pod goes to (least requested plus balanced allocation).

Follows Volcano's ``pkg/scheduler/plugins/nodeorder/nodeorder.go`` with the kube-scheduler
scores it wraps (``noderesources/least_allocated.go``, ``balanced_allocation.go``), weight 1 each.
"""

from __future__ import annotations

from raygang.volcano.api import ZERO, Node, Num, Task
from raygang.volcano.framework import Session


def node_score(task: Task, node: Node) -> int:
    """nodeorder's default scores: leastrequested (weight 1) + balancedresource (weight 1).

    Kubernetes' formulas over cpu and memory with the node's requests after placing the
    task, in integer arithmetic: ``sum((alloc - req) * 100 // alloc) // 2`` and
    ``floor((1 - |cpu fraction - memory fraction| / 2) * 100)``.
    """
    allocatable, idle, request = node.allocatable, node.idle, task.request
    return score_of(
        allocatable.get("cpu", ZERO),
        idle.get("cpu", ZERO),
        request.get("cpu", ZERO),
        allocatable.get("memory", ZERO),
        idle.get("memory", ZERO),
        request.get("memory", ZERO),
    )


def score_of(
    cpu_of: Num, cpu_idle: Num, cpu_ask: Num, mem_of: Num, mem_idle: Num, mem_ask: Num
) -> int:
    """``node_score`` from the six numbers it reads (cpu, then memory: allocatable, idle, ask)."""
    cpu_least, cpu, cpu_of = least_and_share(cpu_of, cpu_idle, cpu_ask)
    mem_least, memory, mem_of = least_and_share(mem_of, mem_idle, mem_ask)
    gap = cpu * mem_of - memory * cpu_of
    gap = gap if gap >= 0 else -gap
    return (cpu_least + mem_least) // 2 + 100 + (-50 * gap // (cpu_of * mem_of))


def least_and_share(of: Num, idle: Num, ask: Num) -> tuple[int, Num, Num]:
    """One resource: its leastrequested points and its share ``requested / allocatable``
    (as a pair) once the pod is placed; a resource the node lacks scores nothing and
    counts as fully used (1/1)."""
    if of <= 0:
        return 0, 1, 1
    requested = of - idle + ask
    return max(0, (of - requested) * 100 // of), min(max(requested, 0), of), of


def on_session_open(session: Session) -> Session:
    """The plugin's ``OnSessionOpen``: its score as a node order function."""
    return session.add_node_order(node_score)
