"""``RayJobGangArgs``: the inputs of :class:`~raygang.component.rayjobgang.RayJobGang`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import pulumi

from raygang.component.queue import VolcanoQueue
from raygang.kube.snapshot import ClusterSnapshot
from raygang.kuberay.settings import JobSettings
from raygang.plan import PlannedJob


@dataclass
class RayJobGangArgs:
    """Inputs of :class:`RayJobGang`.

    Attributes:
        manifest: the RayJob, exactly as in a YAML file (ignored when ``job`` is given).
        settings: accounting, waits and timeouts; the job's ``raygang.dev/*`` annotations
            override them.
        queue: the :class:`VolcanoQueue` the job's ``volcano.sh/queue-name`` label names,
            when this program creates it; the job then waits for it to be Open. A queue
            whose name is not the label's is an error: the PodGroup goes to the label's
            queue, so the dependency would be on the wrong object.
        companions: resources the RayCluster needs first (the objects of the job's file:
            :func:`create_companion`); its ``depends_on`` includes them.
        job: a job planned beforehand, one of the ``jobs`` of :func:`raygang.plan_everything`
            (``__main__`` plans the whole stack first, so errors in every job are reported
            together).
        source: names the manifest in error messages.
        snapshot: what the cluster reports, for the lifecycle decision and the preflight.
        now: the clock for lifecycle decisions (default: the current time).
        secret: the manifest comes from secret config (``pulumi config set --secret``):
            every input of the job's resources is registered as a secret.
    """

    manifest: Mapping[str, Any] | None = None
    settings: JobSettings = field(default_factory=JobSettings)
    queue: VolcanoQueue | None = None
    companions: Sequence[pulumi.Resource] = ()
    job: PlannedJob | None = None
    source: str = "RayJobGangArgs.manifest"
    snapshot: ClusterSnapshot | None = None
    now: datetime | None = None
    secret: bool = False
