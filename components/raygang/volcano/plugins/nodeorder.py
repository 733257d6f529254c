"""The nodeorder plugin: which node a pod goes to (least requested plus balanced allocation).

Follows Volcano's ``pkg/scheduler/plugins/nodeorder/nodeorder.go`` with the kube-scheduler
scores it wraps (``noderesources/least_allocated.go``, ``balanced_allocation.go``), weight 1 each.
"""

from __future__ import annotations

from raygang.volcano.api import ZERO, Node, Num, Task


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


def empty_score(node: Node) -> int | None:
    """``node_score`` of a pod that asks nothing; None for a node without cpu or memory."""
    scored = node.scored
    if scored is not None and scored[0] == node.version:
        return scored[1]
    allocatable, idle = node.allocatable, node.idle
    cpu_of, mem_of = allocatable.get("cpu", ZERO), allocatable.get("memory", ZERO)
    value = (
        score_of(cpu_of, idle.get("cpu", ZERO), 0, mem_of, idle.get("memory", ZERO), 0)
        if cpu_of > 0 and mem_of > 0
        else None
    )
    node.scored = (node.version, value)
    return value


# How far above a plain node's empty score a pod that fits its idle room can score.
PLAIN_SLACK = 2

# More node sizes than this: one lane with the general slack (see Order).
MAX_SIZE_LANES = 64


def plain_slack(cpu: Num, memory: Num, cpu_of: Num, mem_of: Num) -> int:
    """How far above a plain node's empty score a pod that fits its idle room can score.

    With ``d = 100 * ask / allocatable`` per resource: leastrequested (half the sum of the
    two floored terms) drops by more than ``(d_cpu + d_memory - 3) / 2``, and
    balancedresource (``100 - ceil(50 * gap)``) rises by less than ``|d_cpu - d_memory|
    / 2 + 1``, so the score rises by less than ``2.5 - min(d_cpu, d_memory)``: at most
    ``ceil(2.5 - d) - 1`` for the larger of the two bounds, in integers.
    """
    cpu_bound = -((200 * cpu - 5 * cpu_of) // (2 * cpu_of)) - 1
    memory_bound = -((200 * memory - 5 * mem_of) // (2 * mem_of)) - 1
    return int(max(cpu_bound, memory_bound))


def plain_score(c_of: Num, m_of: Num, c_idle: Num, m_idle: Num, cpu: Num, memory: Num) -> int:
    """``score_of`` where no clamp can apply: allocatable cpu and memory above zero, and
    idle room within the allocatable and at least the pod's ask."""
    least = (c_idle - cpu) * 100 // c_of + (m_idle - memory) * 100 // m_of
    gap = (c_of - c_idle + cpu) * m_of - (m_of - m_idle + memory) * c_of
    gap = gap if gap >= 0 else -gap
    return least // 2 + 100 + (-50 * gap // (c_of * m_of))
