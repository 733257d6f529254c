"""What one pod requests, under each accounting.

Two rules live here:

* :func:`kuberay_pod_requests` is KubeRay's ``CalculatePodResource``: only regular
  containers, requests per container with limits filling the names requests lack.
* :func:`effective_pod_requests` is Kubernetes' own effective request (KEP-753, the
  ``PodRequests`` helper the scheduler uses): regular containers plus native sidecars,
  the init-container peak, pod-level resources and ``spec.overhead``. It also returns one
  line per rule that moved a number, so ``raygang plan`` can say *why* the accountings differ.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from raygang.kube.core import Container, PodSpec, ResourceRequirements
from raygang.kube.quantity import Quantity, max_resource_lists, sum_resource_lists

__all__ = [
    "EffectiveRequests",
    "container_requests",
    "effective_pod_requests",
    "kuberay_pod_requests",
]

ResourceMap = dict[str, Quantity]


def container_requests(resources: ResourceRequirements) -> ResourceMap:
    """Requests, with limits filling the names requests lack.

    This is both KubeRay's per-container rule and the API server's defaulting of requests
    from limits. A request of ``0`` is a key, so its limit is not used.
    """
    out = dict(resources.requests)
    for name, limit in resources.limits.items():
        out.setdefault(name, limit)
    return out


def kuberay_pod_requests(spec: PodSpec, extra: Sequence[Container] = ()) -> ResourceMap:
    """KubeRay's ``CalculatePodResource``: the sum over regular containers only.

    Args:
        spec: the pod spec.
        extra: containers KubeRay appends to the spec before computing (the SidecarMode
            submitter in a live head), summed after the spec's own.
    """
    return sum_resource_lists(container_requests(c.resources) for c in [*spec.containers, *extra])


@dataclass(frozen=True)
class EffectiveRequests:
    """A pod's effective request and the rules that moved it away from the container sum.

    Attributes:
        requests: the effective request per resource name, zero-valued names dropped.
        causes: one human sentence per rule that changed a number, in the order applied.
    """

    requests: ResourceMap
    causes: tuple[str, ...]


def _changes(label: str, pod: str, before: ResourceMap, after: ResourceMap) -> list[str]:
    lines = []
    for name in sorted(set(before) | set(after)):
        old = before.get(name, Quantity.zero())
        new = after.get(name, Quantity.zero())
        if new != old:
            verb = "raises" if new > old else "lowers"
            lines.append(f"{label} {verb} {pod} {name} from {old} to {new}")
    return lines


def effective_pod_requests(
    spec: PodSpec,
    pod: str,
    injected: Iterable[tuple[str, Container]] = (),
) -> EffectiveRequests:
    """Kubernetes' effective pod request (KEP-753), with the reasons it differs.

    Per resource: ``max(regular + restartable sidecars, peak of each init container plus
    the sidecars started before it)``, pod-level requests replacing the container sum for
    the names they set, then ``spec.overhead`` added.

    Args:
        spec: the pod spec as the user wrote it.
        pod: a label for messages (``head``, ``worker group gpu``, ``submitter``).
        injected: regular containers KubeRay adds at pod build time, each with the phrase
            that names it in messages (the autoscaler, the SidecarMode submitter).
    """
    causes: list[str] = []
    total = sum_resource_lists(container_requests(c.resources) for c in spec.containers)
    for label, container in injected:
        after = sum_resource_lists([total, container_requests(container.resources)])
        causes += _changes(label, pod, total, after)
        total = after

    # Sidecars run beside the regular containers for the pod's whole life, so they add.
    # A plain init container runs alone with the sidecars started before it, so the pod
    # needs the largest such peak, but only where it exceeds the steady state.
    sidecars: ResourceMap = {}
    peak: ResourceMap = {}
    peak_owner: dict[str, str] = {}
    for init in spec.init_containers:
        request = container_requests(init.resources)
        if init.restart_policy == "Always":
            after = sum_resource_lists([total, request])
            causes += _changes(f"native sidecar {init.name}", pod, total, after)
            total = after
            sidecars = sum_resource_lists([sidecars, request])
            continue
        candidate = sum_resource_lists([request, sidecars])
        for name, value in candidate.items():
            if name not in peak or value > peak[name]:
                peak[name] = value
                peak_owner[name] = init.name
    after = max_resource_lists(total, peak)
    for name in sorted(peak_owner):
        causes += _changes(
            f"init container {peak_owner[name]}",
            pod,
            {name: total[name]} if name in total else {},
            {name: after[name]},
        )
    total = after

    if spec.resources is not None:
        pod_level = container_requests(spec.resources)
        after = {**total, **pod_level}
        causes += _changes("pod-level resources", pod, total, after)
        total = after

    if spec.overhead:
        after = sum_resource_lists([total, spec.overhead])
        causes += _changes("pod overhead", pod, total, after)
        total = after

    return EffectiveRequests(requests={k: v for k, v in total.items() if v}, causes=tuple(causes))
