"""What one RayJob becomes, as data: the objects to create, in creation order.

The objects are those KubeRay's RayJob controller would create (the RayCluster, the submitter
Job; ``ray-operator/controllers/ray/rayjob_controller.go``), the PodGroup its Volcano adapter
would create (``batchscheduler/volcano/volcano_scheduler.go``), raygang's job record and the
queue the stack declares.

A :class:`JobPlan` holds only what planning the job knows: the objects a new job needs. What
the cluster's facts make of them (:mod:`raygang.lifecycle`) and whether Volcano admits the
gang (:mod:`raygang.preflight`) sit beside it in the planning pass's record of the job
(:class:`raygang.plan.PlannedJob`), so nothing here refers to the layers above.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from raygang.codepkg import CodePackage
from raygang.kube.objects import ObjectIdentity
from raygang.kuberay import manifests
from raygang.kuberay.gang import Gang
from raygang.kuberay.settings import JobSettings
from raygang.kuberay.subgangs import SubGang
from raygang.rayjob.spec import RayJobInput

__all__ = ["JobPlan", "PlannedResource"]


@dataclass(frozen=True, slots=True)
class PlannedResource(ObjectIdentity):
    """One object to create.

    Attributes:
        role: ``queue``, ``record``, ``code-<i>`` (piece ``i`` of a code package),
            ``podgroup``, ``raycluster`` or ``submitter``.
        manifest: the object, without ownerReferences.
        depends_on: ``Kind/name`` of the objects that must exist (and be ready) first.
        owned: True when the object carries an ownerReference to the job record.
        replace_on_changes: field paths (Pulumi syntax, e.g. ``metadata.annotations``)
            whose change must replace the object instead of updating it.
    """

    role: str
    manifest: Mapping[str, Any]
    depends_on: tuple[str, ...] = ()
    owned: bool = False
    replace_on_changes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class JobPlan:
    """Everything raygang creates for one RayJob as a new job, in creation order.

    Attributes:
        item: the input.
        settings: the effective job settings (stack defaults plus annotations).
        gang: the gang under the chosen accounting.
        kuberay_gang: the gang KubeRay's adapter would compute, for comparison.
        submission_id: the Ray job submission ID of the first attempt (the base one).
        dashboard_address: ``<svc>.<ns>.svc.<domain>:<port>`` of the head.
        queue: the PodGroup's queue (None: Volcano's ``default``).
        queue_declared: True when the stack creates that queue.
        resources: the objects to create, in creation order.
        sub_gangs: the worker groups whose replicas Volcano places whole (the PodGroup's
            ``subGroupPolicy``); empty unless the job's settings ask for sub-gangs.
        code: the job's code package (``raygang.dev/working-dir``), if it ships one.
        resubmit: the ``raygang.dev/resubmit`` counter (0 when unset).
        kind: the kind of the user's object whose gang this is: ``RayJob``, or
            ``RayCluster`` for a RayCluster of its own's gang
            (:attr:`raygang.kuberay.clusterplan.ClusterPlan.gang_job`), which the preflight
            judges as an InteractiveMode RayJob's numbers but names as what the user wrote.
    """

    item: RayJobInput
    settings: JobSettings
    gang: Gang
    kuberay_gang: Gang
    submission_id: str
    dashboard_address: str
    queue: str | None
    queue_declared: bool
    resources: tuple[PlannedResource, ...]
    sub_gangs: tuple[SubGang, ...] = ()
    code: CodePackage | None = None
    resubmit: int = 0
    kind: Literal["RayJob", "RayCluster"] = "RayJob"

    @property
    def name(self) -> str:
        """The RayJob's name."""
        return self.item.name

    @property
    def namespace(self) -> str:
        """The RayJob's namespace."""
        return self.item.namespace

    @property
    def mode(self) -> str:
        """The submission mode."""
        return self.item.job.spec.submission_mode

    @property
    def podgroup_name(self) -> str:
        """``ray-<job>-pg``."""
        return manifests.podgroup_name(self.name)

    @property
    def priority_class(self) -> str | None:
        """The PodGroup's priorityClassName, if the job sets one."""
        return self.item.job.metadata.labels.get(manifests.PRIORITY_LABEL)

    @property
    def dashboard_url(self) -> str:
        """The head's dashboard URL, with scheme."""
        return f"http://{self.dashboard_address}"

    def resource(self, role: str) -> PlannedResource | None:
        """The planned object with that role, if the plan has one."""
        return next((r for r in self.resources if r.role == role), None)
