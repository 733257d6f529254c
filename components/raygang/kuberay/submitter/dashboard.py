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

from raygang.kuberay.submitter._errors import SubmitterError
from raygang.kuberay.submitter.fields import get_mapping, pod_containers

DEFAULT_DASHBOARD_PORT: Final = 8265


DASHBOARD_PORT_NAME: Final = "dashboard"


DEFAULT_CLUSTER_DOMAIN: Final = "cluster.local"


def dashboard_port(head_pod_spec: Mapping[str, Any]) -> int:
    """The dashboard port of the head container, as the head Service exposes it.

    KubeRay's head Service copies the named ports of ``containers[0]``; if none are declared
    it uses defaults, dashboard 8265. If ports are declared but none is named ``dashboard``,
    the Service has no dashboard port and KubeRay's ``FetchHeadServiceURL`` fails with
    ``dashboard port is not found``, leaving the RayJob requeueing forever.

    Args:
        head_pod_spec: ``rayClusterSpec.headGroupSpec.template.spec``.

    Returns:
        The port number.

    Raises:
        SubmitterError: no port is named ``dashboard`` although ports are declared, the port
            is not a valid number, or the pod spec has no container.
    """
    where = "spec.rayClusterSpec.headGroupSpec.template.spec"
    head = pod_containers(head_pod_spec, where)[0]
    ports = head.get("ports") or []
    if not isinstance(ports, list):
        raise SubmitterError(f"{where}.containers[0].ports must be a list")
    if not ports:
        return DEFAULT_DASHBOARD_PORT
    for port in ports:
        if isinstance(port, Mapping) and port.get("name") == DASHBOARD_PORT_NAME:
            number = port.get("containerPort")
            if isinstance(number, bool) or not isinstance(number, int) or not 0 < number < 65536:
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


def dashboard_url(
    job_name: str,
    namespace: str,
    head_group_spec: Mapping[str, Any],
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
        head_group_spec: ``rayClusterSpec.headGroupSpec``.
        cluster_domain: the cluster's DNS domain (KubeRay's ``CLUSTER_DOMAIN``).

    Returns:
        For example ``job-head-svc.ns.svc.cluster.local:8265``.

    Raises:
        SubmitterError: see :func:`dashboard_port`.
    """
    where = "spec.rayClusterSpec.headGroupSpec"
    service = get_mapping(head_group_spec, "headService", where)
    service_name = get_mapping(service, "metadata", f"{where}.headService").get("name")
    name = (
        service_name if isinstance(service_name, str) and service_name else f"{job_name}-head-svc"
    )
    port: int | None = None
    for item in get_mapping(service, "spec", f"{where}.headService").get("ports") or []:
        if isinstance(item, Mapping) and item.get("name") == DASHBOARD_PORT_NAME:
            candidate = item.get("port")
            if isinstance(candidate, int) and not isinstance(candidate, bool):
                port = candidate
                break
    if port is None:
        template = get_mapping(head_group_spec, "template", where)
        port = dashboard_port(get_mapping(template, "spec", f"{where}.template"))
    return f"{name}.{namespace}.svc.{cluster_domain}:{port}"
