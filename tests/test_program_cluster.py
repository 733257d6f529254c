"""Which cluster a Pulumi program's live facts come from (``plan_program``, ``provider_cluster``).

What is read from a real API server is tested in ``tests/e2e/test_live_facts.py``; here, the
choices made before any request."""

from __future__ import annotations

from pathlib import Path

import pytest
from raygang.kube.errors import SpecError
from raygang.loader import Documents, load_documents
from raygang.pipeline import plan_program, provider_cluster
from raygang.settings import StackSettings

from tests.builders import rayjob


def test_the_provider_s_context_and_kubeconfig_choose_the_cluster() -> None:
    config = {"context": "prod", "kubeconfig": "~/.kube/prod"}
    assert provider_cluster(config.get) == ("prod", "~/.kube/prod")
    assert provider_cluster({}.get) == (None, None)


def test_a_cluster_override_is_refused_with_its_key() -> None:
    with pytest.raises(SpecError) as caught:
        provider_cluster({"context": "prod", "cluster": "other"}.get)
    assert str(caught.value).startswith(
        "the kubernetes provider's config: kubernetes:cluster: live facts are read from the "
        "cluster of kubernetes:context, and cannot follow a kubernetes:cluster override"
    )


def test_without_live_facts_no_cluster_is_asked() -> None:
    # The kubernetes:* config is not even read (a cluster override is no error then), and
    # load is told there is no discovery.
    asked: list[str] = []
    handed: list[object] = []

    def kube(key: str) -> str | None:
        asked.append(key)
        return "other"

    def load(settings: StackSettings, cluster_scoped: object) -> Documents:
        handed.append(cluster_scoped)
        return load_documents([("job.yaml", rayjob())])

    planned = plan_program(lambda key: None, "stack t config", load, base=Path("."), kube=kube)
    assert [job.plan.name for job in planned.plan.jobs] == ["rayjob-sample"]
    assert asked == [] and handed == [None]


def test_with_live_facts_a_cluster_override_is_refused_before_any_request() -> None:
    def load(settings: StackSettings, cluster_scoped: object) -> Documents:
        raise AssertionError("the documents are read after the cluster is chosen")

    with pytest.raises(SpecError, match="kubernetes:cluster"):
        plan_program(
            lambda key: True if key == "liveFacts" else None,
            "stack t config",
            load,
            base=Path("."),
            kube={"cluster": "other"}.get,
        )
