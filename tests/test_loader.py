"""raygang.loader: validation as files are loaded, every document and file reported together.

Also what the loader decides around the checks: companions, unreadable files, YAML details,
duplicate jobs and queues, and queues from files and stack config.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from raygang.kube.errors import SpecError
from raygang.loader import load_documents, load_files

from tests.builders import problems_of, rayjob, worker


def _doc(job: dict[str, Any]) -> str:
    return yaml.safe_dump(job, sort_keys=False)


def test_problems_of_all_documents_are_reported_together(tmp_path: Path) -> None:
    bad_name = rayjob(name="Bad_Name")
    good = rayjob(name="fine")
    bad_replicas = rayjob(name="other", workers=[worker(replicas=-3)])
    path = tmp_path / "jobs.yaml"
    path.write_text("---\n".join(_doc(d) for d in (bad_name, good, bad_replicas)))
    found = problems_of(path)
    sources = [p.source for p in found]
    assert sources == [f"{path} (document 1)", f"{path} (document 3)"]
    assert found[0].path == "metadata.name"
    assert found[1].path == "spec.rayClusterSpec.workerGroupSpecs[0].replicas"


def test_problems_of_several_files_are_reported_together(tmp_path: Path) -> None:
    one, two = tmp_path / "one.yaml", tmp_path / "two.yaml"
    one.write_text(_doc(rayjob(name="one", workers=[worker(min_replicas=3, max_replicas=1)])))
    two.write_text("kind: RayJob\nmetadata: {name: [\n")
    found = problems_of(one, two)
    assert [p.source for p in found] == [str(one), str(two)]


def test_a_queue_declared_nowhere_is_assumed_to_exist() -> None:
    docs = load_documents([("job.yaml", rayjob(labels={"volcano.sh/queue-name": "elsewhere"}))])
    assert docs.jobs and not docs.queues


def test_other_kinds_are_companions_of_the_files_jobs() -> None:
    config_map = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "code"}}
    docs = load_documents([("a.yaml (document 1)", rayjob()), ("a.yaml (document 2)", config_map)])
    assert docs.ignored == ()
    (companion,) = docs.companions
    assert companion.source == "a.yaml (document 2)"
    assert companion.jobs == ("default/rayjob-sample",)
    assert companion.manifest["metadata"] == {"name": "code", "namespace": "default"}


def test_a_kind_the_clusters_discovery_calls_cluster_scoped_gets_no_namespace(
    tmp_path: Path,
) -> None:
    # A CRD's kind raygang's documented list cannot know: namespaced by default, as
    # `kubectl apply` would refuse to guess; cluster-scoped when discovery says so.
    widget = {"apiVersion": "example.com/v1", "kind": "ClusterWidget", "metadata": {"name": "w"}}
    path = tmp_path / "job.yaml"
    path.write_text("---\n".join(_doc(d) for d in (rayjob(), widget)))
    (guessed,) = load_files([path]).companions
    assert guessed.manifest["metadata"] == {"name": "w", "namespace": "default"}
    scoped = frozenset({("example.com", "ClusterWidget")})
    (known,) = load_files([path], cluster_scoped=scoped).companions
    assert known.manifest["metadata"] == {"name": "w"}


def test_a_queue_only_file_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "queues.yaml"
    path.write_text("apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: q}\n")
    assert [q.name for q in load_files([path]).queues] == ["q"]


def test_an_unreadable_file_is_reported(tmp_path: Path) -> None:
    found = problems_of(tmp_path / "missing.yaml")
    assert found[0].path == "<file>"
    assert "cannot be read" in found[0].message


def test_a_directory_is_reported(tmp_path: Path) -> None:
    assert "cannot be read" in problems_of(tmp_path)[0].message


def test_a_file_that_is_not_utf8_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes(b"name: caf\xe9\n")
    assert problems_of(path)[0].message.startswith("is not UTF-8")


def test_yaml_timestamps_stay_text(tmp_path: Path) -> None:
    path = tmp_path / "job.yaml"
    path.write_text(_doc(rayjob(metadata={"day": "x"})).replace("day: x", "day: 2026-11-29"))
    item = load_files([path]).jobs[0]
    assert item.raw["spec"]["metadata"] == {"day": "2026-11-29"}


def test_yaml_merge_keys_may_be_overridden(tmp_path: Path) -> None:
    # An explicit key next to a merge key (<<) overrides it: YAML, not a duplicate.
    path = tmp_path / "job.yaml"
    path.write_text(_doc(rayjob()) + "extra: &d {a: 1}\nmore:\n  <<: *d\n  a: 2\n")
    assert load_files([path]).jobs[0].raw["more"] == {"a": 2}


def test_duplicate_rayjobs_are_reported() -> None:
    with pytest.raises(SpecError, match=r"is also defined in a\.yaml"):
        load_documents([("a.yaml", rayjob()), ("b.yaml", rayjob())])


def test_a_queue_declared_twice_differently_is_reported() -> None:
    one = {"name": "q", "spec": {"weight": 1}}
    two = {"name": "q", "spec": {"weight": 2}}
    with pytest.raises(SpecError, match="declared differently"):
        load_files([], inline_queues=[one, two])


def test_inline_stack_config_problems_name_the_config_key() -> None:
    job = rayjob()
    del job["kind"]
    with pytest.raises(SpecError) as caught:
        load_files([], inline_jobs=[job])
    assert caught.value.problems[0].source == "stack config raygang:jobs[0]"
    assert caught.value.problems[0].path == "kind"


def test_a_short_form_queue_loses_no_field() -> None:
    with pytest.raises(SpecError, match="would be lost"):
        load_files([], inline_queues=[{"name": "q", "labels": {"a": "b"}, "spec": {}}])
