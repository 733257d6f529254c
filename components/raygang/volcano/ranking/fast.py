"""The rank of a changed node, read from its ranking's columns instead of its objects.

The integer fast path of ``volcano_rank`` (Volcano's ``pkg/scheduler/plugins/nodeorder``
scores behind the ``pkg/scheduler/plugins/predicates`` resource check), for a node a
simulation changed since its ranking was made.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from raygang.volcano.api import Node, Task
from raygang.volcano.plugins.nodeorder import plain_score, score_of
from raygang.volcano.ranking.rank import Rank, volcano_rank

if TYPE_CHECKING:
    from raygang.volcano.ranking.state import Ranking


class FastRank:
    """``volcano_rank`` of a changed copy of a ranking's node, from the ranking's columns.

    The static predicates and the allocatable are those of the ranking's node (copies keep
    them); the resource check and the score read the copy's idle room. Only for integer
    quantities (always, for what ``unit_of`` yields) and nodes with no room pending.
    """

    def __init__(self, ranking: Ranking, task: Task) -> None:
        self.task = task
        self.cpu = task.request.get("cpu", 0)
        self.memory = task.request.get("memory", 0)
        self.others = [(n, v) for n, v in task.request.items() if n not in ("cpu", "memory")]
        self.allowed = ranking.allowed(task)
        self.rows = ranking.rows

    def rank(self, index: int, node: Node) -> Rank | None:
        """The rank of ``node`` (a copy of the ranking's node ``index``); None: it cannot."""
        if not self.allowed[index]:
            return None
        if node.releasing or node.pipelined:
            return volcano_rank(self.task, node)
        idle = node.idle
        c_idle, m_idle = idle.get("cpu", 0), idle.get("memory", 0)
        cpu, memory = self.cpu, self.memory
        # fits_in(request, idle) for integers: an absent cpu or memory asks 0, which still
        # refuses a node over its allocatable (idle below 0).
        if c_idle < cpu or m_idle < memory:
            return None
        for name, value in self.others:
            if value > idle.get(name, 0):
                return None
        c_of, m_of = self.rows[index][0], self.rows[index][1]
        if c_of > 0 and m_of > 0 and c_idle <= c_of and m_idle <= m_of:
            return (0, -plain_score(c_of, m_of, c_idle, m_idle, cpu, memory))
        return (0, -score_of(c_of, c_idle, cpu, m_of, m_idle, memory))
