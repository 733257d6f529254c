"""The Pulumi layer: register a plan's objects as ``pulumi_kubernetes`` resources.

Nothing here computes anything. The planning pass decides every object, its order and its
dependencies (a :class:`raygang.plan.PlannedJob` per job: :func:`raygang.plan.plan_job`'s
objects as the lifecycle declares them for this run); these classes turn each declared
object into one resource, add the ownerReferences whose UIDs only exist after creation, and
wire ``depends_on``.

Modules, each importing only those before it: ``resources`` (a planned object as a
``CustomResource``, secret inputs, spec errors as ``RunError``), ``companions`` (any object
of a job's file, with pulumi_kubernetes' class for its kind), ``queue`` (``VolcanoQueue``),
``args`` (``RayJobGangArgs``), ``planning`` (the planned job the args give), ``rayjobgang``
(``RayJobGang``), ``rayclustergang`` (``RayClusterGang`` and its args) and ``package``
(the same components with schema-friendly inputs, for the component provider in
``provider/`` that programs in other languages use).

Internal: users import the components from ``raygang``; the modules here may change
without notice.
"""

from __future__ import annotations

from raygang.component.args import RayJobGangArgs
from raygang.component.companions import create_companion, create_companions
from raygang.component.queue import VolcanoQueue
from raygang.component.rayclustergang import RayClusterGang, RayClusterGangArgs
from raygang.component.rayjobgang import RayJobGang

__all__ = [
    "RayClusterGang",
    "RayClusterGangArgs",
    "RayJobGang",
    "RayJobGangArgs",
    "VolcanoQueue",
    "create_companion",
    "create_companions",
]
