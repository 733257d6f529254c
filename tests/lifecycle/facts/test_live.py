"""The live snapshot, read through a stand-in for the kubernetes client."""

from __future__ import annotations

import importlib.util
import types
from typing import Any

import pytest
from raygang.lifecycle.facts.gather import gather_facts
from raygang.lifecycle.facts.live import live_cluster_scoped, live_snapshot

from tests.lifecycle.facts.conftest import fixture_objects


class _Listing:
    def __init__(self, items: list[dict[str, Any]]) -> None:
        self.items = items

    def to_dict(self) -> dict[str, Any]:
        return {"items": self.items}


def _field(obj: dict[str, Any], path: str) -> Any:
    for key in path.split("."):
        obj = obj.get(key) or {}
    return obj


class ResourceNotFoundError(Exception):
    """Named like the kubernetes client's, which live_snapshot recognizes by name."""


class _FakeKubernetes:
    """The slice of the kubernetes client live_snapshot uses, over fixture objects."""

    def __init__(
        self,
        objects: list[dict[str, Any]],
        missing: tuple[str, ...] = (),
        discovered: tuple[Any, ...] = (),
    ) -> None:
        self.calls: list[tuple[str, str, str, str]] = []
        fake = self

        class Resource:
            def __init__(self, api_version: str, kind: str) -> None:
                self.api_version, self.kind = api_version, kind

            def get(self, namespace: str, label_selector: str, field_selector: str) -> _Listing:
                fake.calls.append((self.kind, namespace, label_selector, field_selector))
                items = []
                for obj in objects:
                    meta = obj["metadata"]
                    if obj["kind"] != self.kind or meta.get("namespace") != namespace:
                        continue
                    if label_selector:
                        # `key=value`, or `key` alone: the label exists (any value).
                        key, _, value = label_selector.partition("=")
                        found = (meta.get("labels") or {}).get(key)
                        if found is None or (value and found != value):
                            continue
                    if field_selector and not all(
                        _field(obj, path) == value
                        for path, value in (f.split("=") for f in field_selector.split(","))
                    ):
                        continue
                    items.append({k: v for k, v in obj.items() if k not in ("kind", "apiVersion")})
                return _Listing(items)

        class Resources:
            def search(self) -> list[Any]:
                return list(discovered)

            def get(self, api_version: str, kind: str) -> Resource:
                if kind in missing:
                    raise ResourceNotFoundError(kind)
                return Resource(api_version, kind)

        class DynamicClient:
            def __init__(self, client: object) -> None:
                self.resources = Resources()

        class Config:
            @staticmethod
            def new_client_from_config(context: str | None = None) -> object:
                fake.context = context
                return object()

        class Dynamic:
            pass

        Dynamic.DynamicClient = DynamicClient  # type: ignore[attr-defined]
        self.dynamic = Dynamic
        self.config = Config
        self.context: str | None = None


def test_live_snapshot_reads_the_lifecycle_kinds() -> None:
    objects = fixture_objects("sidecar-succeeded.yaml") + fixture_objects("failed.yaml")[3:]
    fake = _FakeKubernetes(objects, missing=("PodGroup",))
    snap = live_snapshot(["ml"], context="prod", kubernetes=fake)
    assert snap.source == "live" and fake.context == "prod"
    found = gather_facts(snap, "ml", "rayjob-sample")
    assert found.submitter is not None and found.submitter.outcome == "failed"
    assert found.cluster is not None and found.cluster.head_submitter is not None
    assert found.own_record is not None
    assert found.podgroup is None  # the CRD is "not installed"
    assert ("ConfigMap", "ml", "app.kubernetes.io/managed-by=raygang", "") in fake.calls
    assert ("Pod", "ml", "ray.io/cluster", "") in fake.calls


def _event(reason: str, kind: str, message: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": f"rayjob-sample.{reason}.{kind}", "namespace": "ml"},
        "involvedObject": {"kind": kind, "name": "rayjob-sample"},
        "reason": reason,
        "type": "Warning",
        "message": message,
    }


def test_live_snapshot_reads_only_the_operators_refusals_of_a_raycluster() -> None:
    refusal = (
        "The RayCluster spec is invalid ml/rayjob-sample: worker group small-group can be "
        "suspended only when the RayJobDeletionPolicy feature gate is enabled"
    )
    objects = [
        *fixture_objects("sidecar-succeeded.yaml"),
        _event("InvalidRayClusterSpec", "RayCluster", refusal),
        # Not read: another reason, another kind (the listing's field selector drops them).
        _event("Created", "RayCluster", "Created service"),
        _event("InvalidRayClusterSpec", "RayJob", refusal),
    ]
    fake = _FakeKubernetes(objects)
    snap = live_snapshot(["ml"], kubernetes=fake)
    assert [e["reason"] for e in snap.of_kind("Event")] == ["InvalidRayClusterSpec"]
    assert ("Event", "ml", "", "involvedObject.kind=RayCluster,reason=InvalidRayClusterSpec") in (
        fake.calls
    )
    found = gather_facts(snap, "ml", "rayjob-sample")
    assert found.cluster is not None and found.cluster.suspend_refused == refusal


@pytest.mark.skipif(
    importlib.util.find_spec("kubernetes") is not None, reason="kubernetes is installed"
)
def test_live_snapshot_without_the_client_says_what_to_do() -> None:
    with pytest.raises(RuntimeError, match="pip install kubernetes"):
        live_snapshot(["ml"])


def _discovered(group: str, kind: str, name: str, namespaced: bool) -> Any:
    return types.SimpleNamespace(group=group, kind=kind, name=name, namespaced=namespaced)


def test_live_cluster_scoped_reads_the_discovery_s_cluster_scoped_kinds() -> None:
    fake = _FakeKubernetes(
        [],
        discovered=(
            _discovered("", "Node", "nodes", False),
            _discovered("cert-manager.io", "ClusterIssuer", "clusterissuers", False),
            _discovered("", "Pod", "pods", True),
            # A subresource of a cluster-scoped kind is not a kind of its own.
            _discovered("", "Node", "nodes/status", False),
            _discovered("example.com", "Widget", "widgets", True),
        ),
    )
    assert live_cluster_scoped(context="prod", kubernetes=fake) == {
        ("", "Node"),
        ("cert-manager.io", "ClusterIssuer"),
    }
    assert fake.context == "prod"
