"""Read a snapshot from the live cluster, for a run that has no ``kubectl`` file.

The kinds are those :func:`raygang.lifecycle.facts.gather.gather_facts` reads: the
objects KubeRay's RayJob controller watches for a job (``rayjob_controller.go`` v1.7.0,
``SetupWithManager``: the RayJob's RayCluster and submitter Job) plus the Volcano PodGroup,
the job record, the RayClusters' pods (the head's submitter sidecar; which pods still hold
nodes) and the operator's refusals of a RayCluster spec (Events of
reason ``InvalidRayClusterSpec``: an operator before v1.7 refuses suspended worker groups).

They are read with the optional ``kubernetes`` client's ``ApiClient`` (the kubeconfig, its
credentials and their refresh are the client's), one ``GET`` per kind and namespace on the
kind's own path, as ``kubectl get`` sends it; the cluster-scoped kinds from the aggregated
discovery, as kubectl asks for it. Not through the client's ``DynamicClient``: that one
discovers every API group first and writes what it found to a file of the system's
temporary directory (``osrcp-<hash>.json``, shared by every user of the machine and read back
by the next run), a file the user never asked for. Nothing is written: refreshed tokens stay
in memory (``persist_config=False``), not in the user's kubeconfig. A program run connects
once (:class:`LiveCluster`): the kubeconfig is loaded, and a credential plugin such as
``aws eks get-token`` run, once for all its reads.
"""

from __future__ import annotations

import importlib
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from raygang.kube.snapshot import ClusterSnapshot, snapshot_from_objects
from raygang.kuberay.manifests import MANAGED_BY_LABEL
from raygang.lifecycle.facts.fields import as_list, as_mapping
from raygang.lifecycle.facts.gather import REFUSED_REASON

__all__ = [
    "LIVE_KINDS",
    "PODGROUP_CRD",
    "LiveCluster",
    "LiveKind",
    "live_cluster_scoped",
    "live_podgroup_fields",
    "live_snapshot",
    "podgroup_spec_fields",
]

#: The CustomResourceDefinition of Volcano's PodGroup.
PODGROUP_CRD = "podgroups.scheduling.volcano.sh"

#: Seconds to connect to the API server, and to wait for its answer, per request: an
#: unreachable server fails the run in bounded time instead of holding it.
TIMEOUT = (10, 60)


@dataclass(frozen=True)
class LiveKind:
    """One kind the facts need, and how it is listed.

    Attributes:
        api_version: ``group/version``, or ``v1`` for the core group.
        kind: the kind the listed items are given (list items carry none).
        plural: the resource name in the kind's path.
        label_selector: the listing's label selector, or "".
        field_selector: the listing's field selector, or "".
    """

    api_version: str
    kind: str
    plural: str
    label_selector: str = ""
    field_selector: str = ""

    def path(self, namespace: str) -> str:
        """The kind's path in a namespace (``/api/v1/...`` for the core group)."""
        root = "/api/v1" if self.api_version == "v1" else f"/apis/{self.api_version}"
        return f"{root}/namespaces/{namespace}/{self.plural}"


#: The kinds lifecycle facts need. ConfigMaps and Pods are listed by label (records,
#: KubeRay's pods) and Events by reason, so a busy namespace stays a small read.
LIVE_KINDS: tuple[LiveKind, ...] = (
    LiveKind("batch/v1", "Job", "jobs"),
    LiveKind("ray.io/v1", "RayCluster", "rayclusters"),
    LiveKind("scheduling.volcano.sh/v1beta1", "PodGroup", "podgroups"),
    LiveKind("v1", "ConfigMap", "configmaps", label_selector=f"{MANAGED_BY_LABEL}=raygang"),
    LiveKind("v1", "Pod", "pods", label_selector="ray.io/cluster"),
    LiveKind(
        "v1",
        "Event",
        "events",
        field_selector=f"involvedObject.kind=RayCluster,reason={REFUSED_REASON}",
    ),
)


def live_snapshot(
    namespaces: Sequence[str],
    *,
    context: str | None = None,
    kubeconfig: str | None = None,
    kinds: Iterable[LiveKind] = LIVE_KINDS,
) -> ClusterSnapshot:
    """Read the lifecycle kinds from the current cluster with the ``kubernetes`` client.

    The client is optional (it is not a dependency of raygang): without it, write a
    snapshot with ``kubectl get jobs.batch,rayclusters.ray.io,podgroups.scheduling.volcano.sh,
    configmaps,pods,events -n NS -o yaml`` and pass the file instead.

    Args:
        namespaces: the namespaces of the stack's jobs.
        context: the kubeconfig context; None for the current one.
        kubeconfig: the kubeconfig's path or its contents, as the kubernetes provider's
            ``kubernetes:kubeconfig`` takes it; None for ``$KUBECONFIG`` (else
            ``~/.kube/config``), as ``kubectl`` reads it.
        kinds: what to list (:data:`LIVE_KINDS`).

    Returns:
        A snapshot whose source is ``live``. A kind the API server does not serve (its CRD
        is not installed) is skipped: nothing of that kind exists.

    Raises:
        RuntimeError: the ``kubernetes`` package is not installed, the kubeconfig cannot
            be loaded, or the API server cannot be reached or refuses a list (the request
            and the server's answer are in the message).
    """
    return LiveCluster.connect(context=context, kubeconfig=kubeconfig).snapshot(namespaces, kinds)


def live_cluster_scoped(
    *, context: str | None = None, kubeconfig: str | None = None
) -> frozenset[tuple[str, str]]:
    """The (API group, kind) pairs the cluster's discovery reports cluster-scoped
    (:meth:`LiveCluster.cluster_scoped`).

    Args:
        context, kubeconfig: which cluster, as :func:`live_snapshot`.

    Raises:
        RuntimeError: as :func:`live_snapshot`.
    """
    return LiveCluster.connect(context=context, kubeconfig=kubeconfig).cluster_scoped()


def live_podgroup_fields(
    *, context: str | None = None, kubeconfig: str | None = None
) -> frozenset[str] | None:
    """The ``spec`` fields the installed PodGroup CRD's ``v1beta1`` schema declares
    (:meth:`LiveCluster.podgroup_fields`).

    Args:
        context, kubeconfig: which cluster, as :func:`live_snapshot`.

    Raises:
        RuntimeError: as :func:`live_snapshot`.
    """
    return LiveCluster.connect(context=context, kubeconfig=kubeconfig).podgroup_fields()


class LiveCluster:
    """One connection to a cluster, for all the reads of one run: the kubeconfig is loaded,
    and its credential plugin run, once. Every failure is a RuntimeError."""

    def __init__(self, client: Any, host: str) -> None:
        self._client, self._host = client, host

    @classmethod
    def connect(cls, *, context: str | None = None, kubeconfig: str | None = None) -> LiveCluster:
        """Load the kubeconfig (``context`` and ``kubeconfig`` as :func:`live_snapshot`
        takes them); nothing is requested yet."""
        module = _client()
        where = f" (context {context})" if context else ""
        try:
            # Refreshed tokens are kept in memory, never written back into the kubeconfig.
            if kubeconfig is None:
                client = module.config.new_client_from_config(context=context, persist_config=False)
            elif (path := _kubeconfig_file(kubeconfig)) is not None:
                client = module.config.new_client_from_config(
                    config_file=str(path), context=context, persist_config=False
                )
            else:
                client = module.config.new_client_from_config_dict(
                    _kubeconfig_document(kubeconfig), context=context, persist_config=False
                )
        except yaml.YAMLError as exc:
            # Worded without the parser's excerpt of the text: it may hold credentials.
            mark = getattr(exc, "problem_mark", None)
            at = f" (line {mark.line + 1})" if mark is not None else ""
            raise RuntimeError(f"cannot load the kubeconfig{where}: not valid YAML{at}") from None
        except Exception as exc:  # the kubeconfig is the user's input: say what is wrong
            raise RuntimeError(f"cannot load the kubeconfig{where}: {exc}") from None
        return cls(client, str(client.configuration.host))

    def snapshot(
        self, namespaces: Sequence[str], kinds: Iterable[LiveKind] = LIVE_KINDS
    ) -> ClusterSnapshot:
        """The lifecycle kinds in ``namespaces``, as :func:`live_snapshot` reads them."""
        objects: list[Mapping[str, Any]] = []
        for kind in kinds:
            for namespace in sorted(set(namespaces)):
                query = [
                    ("labelSelector", kind.label_selector),
                    ("fieldSelector", kind.field_selector),
                ]
                listing = self.get(kind.path(namespace), [(k, v) for k, v in query if v])
                if listing is None:
                    break  # not served in any namespace: Volcano or KubeRay not installed
                for item in as_list(listing.get("items")):
                    # List items carry no kind or apiVersion; the snapshot index needs both.
                    objects.append(
                        {**as_mapping(item), "apiVersion": kind.api_version, "kind": kind.kind}
                    )
        return snapshot_from_objects(objects, "live")

    def cluster_scoped(self) -> frozenset[tuple[str, str]]:
        """The (API group, kind) pairs the cluster's discovery reports cluster-scoped.

        A companion of such a kind gets no namespace (``metadata.namespace`` on a
        cluster-scoped object is an error for ``kubectl apply`` and the Pulumi provider);
        without live facts raygang knows only its documented list
        (:data:`raygang.plan.CLUSTER_SCOPED_KINDS`). Every version of every group is read,
        as ``kubectl api-resources`` reads them: in two requests where the server offers
        aggregated discovery (``apidiscovery.k8s.io/v2``, Kubernetes 1.30 and later, as
        kubectl asks for it), else one per group version (:func:`_scoped_by_group_version`),
        where a group version whose server is unavailable (an aggregated API that is down
        answers 503) is skipped, as kubectl skips it. Subresources (``nodes/proxy``) are
        left out.
        """
        scoped = _scoped_aggregated(self)
        return scoped if scoped is not None else _scoped_by_group_version(self)

    def podgroup_fields(self) -> frozenset[str] | None:
        """The ``spec`` fields the installed PodGroup CRD's ``v1beta1`` schema declares.

        The API server prunes a field its CRD's structural schema lacks, silently: a
        ``subGroupPolicy`` sent to Volcano v1.13's CRD is dropped (KubeRay PR #5249's test),
        and the gang would be scheduled without it. Read from the CRD itself, as
        ``kubectl get crd podgroups.scheduling.volcano.sh`` shows it.

        Returns:
            The field names; None when the CRD is not installed (no PodGroup can be created
            then, whatever its fields) or the credentials may not read CRDs.
        """
        path = f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{PODGROUP_CRD}"
        crd = self.get(path, forbidden_is_absent=True)
        return None if crd is None else podgroup_spec_fields(crd)

    def get(
        self,
        path: str,
        query: Sequence[tuple[str, str]] = (),
        *,
        unavailable_is_absent: bool = False,
        forbidden_is_absent: bool = False,
        accept: str = "application/json",
    ) -> Mapping[str, Any] | None:
        """The JSON object at ``path``; None when the server answers 404 (not served), or
        503 and 403 when the flags say those mean absent too."""
        absent = (
            {404}
            | ({503} if unavailable_is_absent else set())
            | ({403} if forbidden_is_absent else set())
        )
        request = self._client.param_serialize(
            "GET",
            path,
            query_params=list(query),
            header_params={"Accept": accept},
            auth_settings=["BearerToken"],
        )
        where = f"GET {self._host}{path}"
        try:
            response = self._client.call_api(*request, _request_timeout=TIMEOUT)
            body = response.read()
        except Exception as exc:  # unreachable, TLS, timeout: the transport's own words
            raise RuntimeError(f"{where}: {getattr(exc, 'reason', None) or exc}") from None
        if response.status in absent:
            return None
        if not 200 <= response.status <= 299:
            raise RuntimeError(f"{where}: {response.status} {_message(body, response.reason)}")
        try:
            found = json.loads(body)
        except ValueError:
            raise RuntimeError(f"{where}: the answer is not JSON") from None
        return as_mapping(found)


#: What kubectl accepts for discovery: the aggregated list, else the plain answer.
_AGGREGATED = (
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"
)


def _scoped_aggregated(api: LiveCluster) -> frozenset[tuple[str, str]] | None:
    """Cluster-scoped kinds from the aggregated discovery of ``/api`` and ``/apis``; None
    when the server answers without it (then every group version is asked)."""
    scoped: set[tuple[str, str]] = set()
    for root in ("/api", "/apis"):
        found = api.get(root, accept=_AGGREGATED) or {}
        if found.get("kind") != "APIGroupDiscoveryList":
            return None
        for group in as_list(found.get("items")):
            name = str(as_mapping(as_mapping(group).get("metadata")).get("name") or "")
            for version in as_list(as_mapping(group).get("versions")):
                # Subresources are listed under their resource, never as resources.
                for resource in as_list(as_mapping(version).get("resources")):
                    resource = as_mapping(resource)
                    if resource.get("scope") == "Cluster":
                        kind = as_mapping(resource.get("responseKind")).get("kind")
                        scoped.add((name, str(kind)))
    return frozenset(scoped)


def _scoped_by_group_version(api: LiveCluster) -> frozenset[tuple[str, str]]:
    """Cluster-scoped kinds from ``/api/v1`` and every ``/apis/<group>/<version>``: the
    discovery every server answers, one request per group version."""
    versions = [("", "/api/v1")]
    groups = api.get("/apis") or {}
    for group in as_list(groups.get("groups")):
        name = str(as_mapping(group).get("name", ""))
        for version in as_list(as_mapping(group).get("versions")):
            group_version = as_mapping(version).get("groupVersion")
            versions.append((name, f"/apis/{group_version}"))
    scoped: set[tuple[str, str]] = set()
    for group_name, path in versions:
        found = api.get(path, unavailable_is_absent=True) or {}
        for resource in as_list(found.get("resources")):
            resource = as_mapping(resource)
            if resource.get("namespaced") is False and "/" not in str(resource.get("name", "")):
                scoped.add((group_name, str(resource.get("kind"))))
    return frozenset(scoped)


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


def _kubeconfig_file(value: str) -> Path | None:
    """The file ``value`` names, as the provider tells a path from contents: one that exists
    (``~`` expanded); None when it names none."""
    if "\n" in value:
        return None
    path = Path(os.path.expanduser(value))
    try:
        return path if path.exists() else None
    except OSError:  # a name too long to be a path: contents
        return None


def _kubeconfig_document(text: str) -> dict[str, Any]:
    """Kubeconfig contents (YAML or JSON) as a mapping."""
    found = yaml.safe_load(text)
    if not isinstance(found, dict):
        raise ValueError(
            "it names no file and is not a kubeconfig document (a YAML or JSON mapping)"
        )
    return found


def _message(body: bytes, reason: str) -> str:
    """The API server's ``Status.message`` of a refusal, else the HTTP reason."""
    try:
        status = json.loads(body)
    except ValueError:
        return str(reason)
    message = as_mapping(status).get("message")
    return f"{reason}: {message}" if isinstance(message, str) and message else str(reason)


def _client() -> Any:
    """The ``kubernetes`` module, imported when first needed (it is not a dependency of
    raygang)."""
    try:
        return importlib.import_module("kubernetes")
    except ImportError:
        raise RuntimeError(
            "reading the cluster needs the kubernetes package (pip install kubernetes); "
            "or pass a snapshot file written by kubectl get ... -o yaml"
        ) from None
