"""Read a snapshot from the live cluster, for a run that has no ``kubectl`` file.

The kinds are those :func:`raygang.lifecycle.facts.gather.gather_facts` reads: the
objects KubeRay's RayJob controller watches for a job (``rayjob_controller.go`` v1.7.0,
``SetupWithManager``: the RayJob's RayCluster and submitter Job) plus the Volcano PodGroup,
the job record, the RayClusters' pods (the head's submitter sidecar; which pods still hold
nodes) and the operator's refusals of a RayCluster spec (Events of
reason ``InvalidRayClusterSpec``: an operator before v1.7 refuses suspended worker groups).
They are listed with the optional ``kubernetes`` client's dynamic client, one list per kind
and namespace.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from typing import Any

from raygang.kube.snapshot import ClusterSnapshot, snapshot_from_objects
from raygang.kuberay.manifests import MANAGED_BY_LABEL
from raygang.lifecycle.facts.fields import as_list, as_mapping
from raygang.lifecycle.facts.gather import REFUSED_REASON

__all__ = [
    "LIVE_KINDS",
    "PODGROUP_CRD",
    "live_cluster_scoped",
    "live_podgroup_fields",
    "live_snapshot",
    "podgroup_spec_fields",
]

#: The CustomResourceDefinition of Volcano's PodGroup.
PODGROUP_CRD = "podgroups.scheduling.volcano.sh"

#: The kinds lifecycle facts need, as (apiVersion, kind, label selector, field selector).
#: ConfigMaps and Pods are listed by label (records, KubeRay's pods) and Events by reason, so
#: a busy namespace stays a small read.
LIVE_KINDS: tuple[tuple[str, str, str, str], ...] = (
    ("batch/v1", "Job", "", ""),
    ("ray.io/v1", "RayCluster", "", ""),
    ("scheduling.volcano.sh/v1beta1", "PodGroup", "", ""),
    ("v1", "ConfigMap", f"{MANAGED_BY_LABEL}=raygang", ""),
    ("v1", "Pod", "ray.io/cluster", ""),
    ("v1", "Event", "", f"involvedObject.kind=RayCluster,reason={REFUSED_REASON}"),
)


def live_snapshot(
    namespaces: Sequence[str], *, context: str | None = None, kubernetes: Any = None
) -> ClusterSnapshot:
    """Read the lifecycle kinds from the current cluster with the ``kubernetes`` client.

    The client is optional (it is not a dependency of raygang): without it, write a
    snapshot with ``kubectl get jobs.batch,rayclusters.ray.io,podgroups.scheduling.volcano.sh,
    configmaps,pods,events -n NS -o yaml`` and pass the file instead.

    Args:
        namespaces: the namespaces of the stack's jobs.
        context: the kubeconfig context; None for the current one.
        kubernetes: the ``kubernetes`` module to use (tests pass a stand-in); imported
            when None.

    Returns:
        A snapshot whose source is ``live``. A kind whose CRD is not installed is skipped.

    Raises:
        RuntimeError: the ``kubernetes`` package is not installed.
    """
    kubernetes = _client(kubernetes)
    api_client = kubernetes.config.new_client_from_config(context=context)
    dynamic = kubernetes.dynamic.DynamicClient(api_client)
    objects: list[Mapping[str, Any]] = []
    for api_version, kind, selector, fields in LIVE_KINDS:
        try:
            resource = dynamic.resources.get(api_version=api_version, kind=kind)
        except Exception as exc:
            if type(exc).__name__ == "ResourceNotFoundError":
                continue  # Volcano or KubeRay not installed: nothing of that kind exists
            raise
        for namespace in sorted(set(namespaces)):
            listing = resource.get(
                namespace=namespace, label_selector=selector, field_selector=fields
            )
            data = listing.to_dict() if hasattr(listing, "to_dict") else dict(listing)
            for item in as_list(data.get("items")):
                # List items carry no kind or apiVersion; the snapshot index needs both.
                objects.append({**as_mapping(item), "apiVersion": api_version, "kind": kind})
    return snapshot_from_objects(objects, "live")


def live_cluster_scoped(
    *, context: str | None = None, kubernetes: Any = None
) -> frozenset[tuple[str, str]]:
    """The (API group, kind) pairs the cluster's discovery reports cluster-scoped.

    A companion of such a kind gets no namespace (``metadata.namespace`` on a
    cluster-scoped object is an error for ``kubectl apply`` and the Pulumi provider); without
    live facts raygang knows only its documented list
    (:data:`raygang.plan.CLUSTER_SCOPED_KINDS`). Subresources (``pods/status``) are left out.

    Args:
        context: the kubeconfig context; None for the current one.
        kubernetes: the ``kubernetes`` module to use (tests pass a stand-in); imported
            when None.

    Raises:
        RuntimeError: the ``kubernetes`` package is not installed.
    """
    client = _client(kubernetes)
    dynamic = client.dynamic.DynamicClient(client.config.new_client_from_config(context=context))
    return frozenset(
        (str(r.group or ""), str(r.kind))
        for r in dynamic.resources.search()
        if getattr(r, "namespaced", True) is False and "/" not in str(getattr(r, "name", ""))
    )


def live_podgroup_fields(
    *, context: str | None = None, kubernetes: Any = None
) -> frozenset[str] | None:
    """The ``spec`` fields the installed PodGroup CRD's ``v1beta1`` schema declares.

    The API server prunes a field its CRD's structural schema lacks, silently: a
    ``subGroupPolicy`` sent to Volcano v1.13's CRD is dropped (KubeRay PR #5249's test), and
    the gang would be scheduled without it. Read from the CRD itself, as
    ``kubectl get crd podgroups.scheduling.volcano.sh`` shows it.

    Args:
        context: the kubeconfig context; None for the current one.
        kubernetes: the ``kubernetes`` module to use (tests pass a stand-in); imported
            when None.

    Returns:
        The field names; None when the CRD is not installed (no PodGroup can be created
        then, whatever its fields) or cannot be read.

    Raises:
        RuntimeError: the ``kubernetes`` package is not installed.
    """
    client = _client(kubernetes)
    dynamic = client.dynamic.DynamicClient(client.config.new_client_from_config(context=context))
    try:
        crds = dynamic.resources.get(
            api_version="apiextensions.k8s.io/v1", kind="CustomResourceDefinition"
        )
        crd = crds.get(name=PODGROUP_CRD)
    except Exception as exc:
        if type(exc).__name__ in ("NotFoundError", "ForbiddenError", "ResourceNotFoundError"):
            return None
        raise
    return podgroup_spec_fields(crd.to_dict() if hasattr(crd, "to_dict") else dict(crd))


def podgroup_spec_fields(crd: Mapping[str, Any]) -> frozenset[str] | None:
    """The ``spec`` properties of a PodGroup CRD's ``v1beta1`` schema; None without one."""
    for version in as_list(as_mapping(crd.get("spec")).get("versions")):
        version = as_mapping(version)
        if version.get("name") != "v1beta1":
            continue
        schema = as_mapping(as_mapping(version.get("schema")).get("openAPIV3Schema"))
        spec = as_mapping(as_mapping(schema.get("properties")).get("spec"))
        return frozenset(str(k) for k in as_mapping(spec.get("properties")))
    return None


def _client(kubernetes: Any) -> Any:
    """The ``kubernetes`` module given, else imported (it is not a dependency of raygang)."""
    if kubernetes is not None:
        return kubernetes
    try:
        module = importlib.import_module("kubernetes")
        importlib.import_module("kubernetes.dynamic")
    except ImportError:
        raise RuntimeError(
            "reading the cluster needs the kubernetes package (pip install kubernetes); "
            "or pass a snapshot file written by kubectl get ... -o yaml"
        ) from None
    return module
