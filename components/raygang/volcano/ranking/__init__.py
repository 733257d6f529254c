"""Nodes ranked per kind of pod, so a gang is placed without scoring every node for every pod.

The order is nodeorder's (:mod:`raygang.volcano.plugins.nodeorder`), as Volcano's
``pkg/scheduler/actions/allocate/allocate.go`` selects nodes; this package only finds the
best node lazily and remembers, per planning pass, what a simulation did not change.

Modules, each importing only those before it at run time: ``rank`` (``Rank``,
``UNBOUNDED``, ``volcano_rank``, ``QueueGate``, the entries' codes), ``fast``
(``FastRank``, the integer fast path), ``order`` (``Order`` and ``View``), ``state``
(``Ranking``, the per-state caches) and ``chooser`` (``Chooser``). Later modules are
named earlier only for type checking.
"""

from __future__ import annotations

from raygang.volcano.ranking.chooser import Chooser
from raygang.volcano.ranking.fast import FastRank
from raygang.volcano.ranking.order import Order, View
from raygang.volcano.ranking.rank import UNBOUNDED, QueueGate, Rank, decode, encode, volcano_rank
from raygang.volcano.ranking.state import Ranking

__all__ = [
    "UNBOUNDED",
    "Chooser",
    "FastRank",
    "Order",
    "QueueGate",
    "Rank",
    "Ranking",
    "View",
    "decode",
    "encode",
    "volcano_rank",
]
