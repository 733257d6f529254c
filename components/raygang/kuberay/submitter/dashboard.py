"""Where the submitter finds the Ray dashboard: the head Service's ``dashboard`` port.

Follows KubeRay's head Service (``BuildServiceForHeadPod`` in
``ray-operator/controllers/ray/common/service.go``, which copies the head container's named
ports) and ``FetchHeadServiceURL`` (``ray-operator/controllers/ray/utils/util.go``), which
gives ``status.dashboardURL``. Declared ports without a ``dashboard`` one are an error here,
where KubeRay would requeue the RayJob forever.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from raygang.kube.core import PodSpec
from raygang.kuberay.submitter._errors import SubmitterError
from raygang.rayjob.spec import HeadGroupSpec

DEFAULT_DASHBOARD_PORT: Final = 8265


DASHBOARD_PORT_NAME: Final = "dashboard"


DEFAULT_CLUSTER_DOMAIN: Final = "cluster.local"


def dashboard_port(head_pod_spec: PodSpec) -> int:
    """The dashboard port of the head container, as the head Service exposes it.

    KubeRay's head Service copies the named ports of ``containers[0]``; if none are declared
    it uses defaults, dashboard 8265. If ports are declared but none is named ``dashboard``,
    the Service has no dashboard port and KubeRay's ``FetchHeadServiceURL`` fails with
    ``dashboard port is not found``, leaving the RayJob requeueing forever.

    Args:
        head_pod_spec: ``rayClusterSpec.headGroupSpec.template.spec``, typed (its model
            holds at least one container, each port a whole ``containerPort``).

    Returns:
        The port number.

    Raises:
        SubmitterError: no port is named ``dashboard`` although ports are declared, or the
            port is not in 1-65535.
    """
    where = "spec.rayClusterSpec.headGroupSpec.template.spec"
    ports = head_pod_spec.containers[0].ports or []
    if not ports:
        return DEFAULT_DASHBOARD_PORT
    for port in ports:
        if port.name == DASHBOARD_PORT_NAME:
            number = port.container_port
            if not 0 < number < 65536:
                raise SubmitterError(
                    f"{where}.containers[0].ports[name=dashboard].containerPort must be 1-65535, "
                    f"got {number!r}"
                )
            return number
    raise SubmitterError(
        "dashboard port is not found: the head container declares ports but none is named "
        f"'dashboard' ({where}.containers[0].ports); add one (containerPort 8265) or remove "
        "the port list so KubeRay's defaults apply"
    )


def _mapping(value: object, where: str) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise SubmitterError(f"{where} must be a mapping, got {type(value).__name__}")
    return value


def dashboard_url(
    job_name: str,
    namespace: str,
    head_group_spec: HeadGroupSpec,
    head_service: object = None,
    *,
    cluster_domain: str = DEFAULT_CLUSTER_DOMAIN,
) -> str:
    """The dashboard address KubeRay stores in ``status.dashboardURL`` (no scheme).

    ``<head service>.<namespace>.svc.<cluster domain>:<port>``. The head Service is
    ``headGroupSpec.headService.metadata.name`` when set, else ``<cluster>-head-svc``; the
    RayCluster is named exactly ``job_name`` in raygang. A custom ``headService`` keeps its own
    ports first, so a port named ``dashboard`` there wins over the container's.

    Args:
        job_name: the RayJob name (= RayCluster name).
        namespace: the RayJob namespace.
        head_group_spec: ``rayClusterSpec.headGroupSpec``, typed.
        head_service: ``rayClusterSpec.headGroupSpec.headService`` as written. The typed
            model does not hold it, and typing it there would refuse at load time, with
            pydantic's words, a ``headService`` of the wrong shape that is reported here
            today (nothing else validates it); so it is read from the raw manifest, and its
            shape is checked here.
        cluster_domain: the cluster's DNS domain (KubeRay's ``CLUSTER_DOMAIN``).

    Returns:
        For example ``job-head-svc.ns.svc.cluster.local:8265``.

    Raises:
        SubmitterError: ``headService`` or its ``metadata``/``spec`` is not a mapping, or
            see :func:`dashboard_port`.
    """
    where = "spec.rayClusterSpec.headGroupSpec.headService"
    service = _mapping(head_service, where)
    service_name = _mapping(service.get("metadata"), f"{where}.metadata").get("name")
    name = (
        service_name if isinstance(service_name, str) and service_name else f"{job_name}-head-svc"
    )
    port: int | None = None
    for item in _mapping(service.get("spec"), f"{where}.spec").get("ports") or []:
        if isinstance(item, Mapping) and item.get("name") == DASHBOARD_PORT_NAME:
            candidate = item.get("port")
            if isinstance(candidate, int) and not isinstance(candidate, bool):
                port = candidate
                break
    if port is None:
        port = dashboard_port(head_group_spec.template.spec)
    return f"{name}.{namespace}.svc.{cluster_domain}:{port}"
