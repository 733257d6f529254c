"""Tolerant field readers: what cannot be read becomes None and a note, never an error."""

from __future__ import annotations

from raygang.kube.snapshot import snapshot_from_objects
from raygang.lifecycle.facts.gather import gather_facts

from tests.lifecycle.facts.conftest import fixture_objects


def test_unreadable_fields_become_notes() -> None:
    objects = fixture_objects("failed-attempt-2.yaml")
    job = next(o for o in objects if o["kind"] == "Job")
    job["status"]["conditions"][1]["lastTransitionTime"] = "yesterday"
    job["metadata"]["annotations"]["raygang.dev/attempt"] = "two"
    cluster = next(o for o in objects if o["kind"] == "RayCluster")
    del cluster["spec"]["headGroupSpec"]
    cm = next(o for o in objects if o["kind"] == "ConfigMap")
    cm["metadata"]["annotations"]["raygang.dev/attempt"] = "0"
    cm["metadata"]["annotations"]["raygang.dev/result"] = "maybe"
    found = gather_facts(snapshot_from_objects(objects), "ml", "rayjob-sample")
    assert found.submitter is not None
    assert found.submitter.finished_at is None and found.submitter.outcome == "failed"
    assert found.submitter.attempt is None
    assert found.cluster is not None and found.cluster.spec is None
    assert found.cluster.spec_problem is not None and "headGroupSpec" in found.cluster.spec_problem
    assert found.own_record is not None and found.own_record.attempt is None
    assert found.own_record.result is None
    notes = " | ".join(found.notes)
    for fragment in (
        "yesterday",
        "'two'",
        "live spec cannot be read",
        "ConfigMap rayjob-sample annotation raygang.dev/attempt '0'",
        "'maybe'",
    ):
        assert fragment in notes
    assert found.attempt == 2  # the cluster's annotation still says 2
