"""Facts: reading one job's objects from a kubectl snapshot (fixtures in fixtures/lifecycle)."""

from __future__ import annotations

import dataclasses
import importlib.util
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml
from raygang.kube.snapshot import ClusterSnapshot, snapshot_from_objects
from raygang.kuberay.manifests import RECORD_LEGACY_DATA_KEYS
from raygang.kuberay.settings import JobSettings
from raygang.lifecycle.facts import (
    RECORD_ATTEMPT,
    RECORD_SUBMISSION_ID,
    ClusterFacts,
    format_time,
    gather_facts,
    live_snapshot,
    parse_now,
)
from raygang.plan import plan_job
from raygang.rayjob.spec import parse_rayjob

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "lifecycle"
SID = plan_job(
    parse_rayjob(yaml.safe_load((FIXTURES / "rayjob.yaml").read_text()), "rayjob.yaml"),
    JobSettings(),
).submission_id
DONE = datetime(2026, 11, 29, 10, 5, tzinfo=UTC)


def snapshot(name: str) -> ClusterSnapshot:
    text = (FIXTURES / name).read_text().replace("__SUBMISSION_ID__", SID)
    return snapshot_from_objects(list(yaml.safe_load_all(text)), name)


def facts(name: str) -> Any:
    return gather_facts(snapshot(name), "ml", "rayjob-sample")


# --- parse_now ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-11-29T10:15:00Z", datetime(2026, 11, 29, 10, 15, tzinfo=UTC)),
        ("2026-11-29t10:15:00z", datetime(2026, 11, 29, 10, 15, tzinfo=UTC)),
        ("2026-11-29 10:15:00Z", datetime(2026, 11, 29, 10, 15, tzinfo=UTC)),
        ("2026-11-29T11:15:00+01:00", datetime(2026, 11, 29, 10, 15, tzinfo=UTC)),
        ("2026-11-29T10:15:00.5Z", datetime(2026, 11, 29, 10, 15, 0, 500000, tzinfo=UTC)),
        ("2026-11-29T10:15:00.123456789Z", datetime(2026, 11, 29, 10, 15, 0, 123456, tzinfo=UTC)),
        ("  2026-11-29T10:15:00-00:30 ", datetime(2026, 11, 29, 10, 45, tzinfo=UTC)),
    ],
)
def test_parse_now_accepts_rfc3339(text: str, expected: datetime) -> None:
    parsed = parse_now(text)
    assert parsed == expected
    assert parsed.tzinfo is UTC


@pytest.mark.parametrize(
    "text",
    [
        "2026-11-29T10:15:00",  # no offset: ambiguous
        "2026-11-29",
        "now",
        "",
        "2026-13-29T10:15:00Z",  # month 13
        "2026-11-29T25:15:00Z",
        "1764411300",
    ],
)
def test_parse_now_refuses_other_text(text: str) -> None:
    with pytest.raises(ValueError, match="RFC 3339"):
        parse_now(text)


def test_format_time_is_kubernetes_style() -> None:
    assert format_time(parse_now("2026-11-29T11:15:00.7+01:00")) == "2026-11-29T10:15:00Z"


# --- gather_facts ----------------------------------------------------------------------


def test_nothing_in_the_snapshot() -> None:
    found = gather_facts(ClusterSnapshot("empty"), "ml", "rayjob-sample")
    assert (found.submitter, found.cluster, found.podgroup, found.record) == (
        None,
        None,
        None,
        None,
    )
    assert not found.anything_exists
    assert found.attempt == 1
    assert found.source == "empty"


def test_running_job() -> None:
    found = facts("running.yaml")
    sub = found.submitter
    assert sub is not None
    assert sub.outcome is None and sub.finished_at is None
    assert sub.active == 1
    assert sub.submission_id == SID
    assert sub.start_time == datetime(2026, 11, 29, 9, 0, 10, tzinfo=UTC)
    assert sub.attempt is None
    cluster = found.cluster
    assert cluster is not None
    assert cluster.state == "ready" and not cluster.deleting
    assert cluster.spec is not None and cluster.spec_problem is None
    assert [g.group_name for g in cluster.spec.worker_group_specs] == ["small-group"]
    assert cluster.worker_groups == ("small-group",)
    assert not cluster.workers_suspended
    assert cluster.submission_id is None  # K8sJobMode: no sidecar
    pg = found.podgroup
    assert pg is not None
    assert (pg.name, pg.phase, pg.min_member) == ("ray-rayjob-sample-pg", "Running", 3)
    assert pg.min_resources == {"cpu": "3500m", "memory": "4296Mi"}
    assert pg.queue == "kuberay-test-queue" and pg.priority_class is None
    record = found.own_record
    assert record is not None
    assert (record.attempt, record.first_attempt) == (1, 1)
    assert record.submission_id == SID == record.base_submission_id
    assert record.finished_at is None and record.result is None
    assert not found.pods_observed
    assert found.notes == ()


def test_completed_submitter() -> None:
    sub = facts("succeeded.yaml").submitter
    assert sub is not None
    assert sub.outcome == "succeeded"
    assert sub.finished_at == DONE
    assert sub.completion_time == DONE
    cond = sub.finished_condition
    assert cond is not None and (cond.type, cond.reason) == ("Complete", "CompletionsReached")
    # SuccessCriteriaMet (Kubernetes >= 1.31) comes first but does not finish the Job.
    assert sub.conditions[0].type == "SuccessCriteriaMet"
    assert sub.condition("Complete") is cond


def test_failed_submitter() -> None:
    sub = facts("failed.yaml").submitter
    assert sub is not None
    assert sub.outcome == "failed"
    assert sub.finished_at == DONE  # Failed Jobs have no completionTime; the condition time counts
    assert sub.completion_time is None
    assert sub.failed == 3
    cond = sub.finished_condition
    assert cond is not None and cond.reason == "BackoffLimitExceeded"


def test_second_attempt_is_read_from_annotations_and_record() -> None:
    found = facts("failed-attempt-2.yaml")
    assert found.submitter is not None and found.submitter.attempt == 2
    assert found.cluster is not None and found.cluster.attempt == 2
    assert found.own_record is not None and found.own_record.attempt == 2
    assert found.attempt == 2
    assert found.submitter.submission_id == f"{SID}-a2"


def test_record_remembers_the_finish() -> None:
    found = facts("cleaned-up.yaml")
    record = found.own_record
    assert record is not None
    assert record.finished_at == DONE and record.result == "succeeded"
    assert found.cluster is None
    assert found.podgroup is not None and found.podgroup.min_member == 0
    assert found.podgroup.min_resources == {}


def test_sidecar_submitter_in_the_head_pod() -> None:
    found = facts("sidecar-succeeded.yaml")
    assert found.pods_observed
    cluster = found.cluster
    assert cluster is not None
    assert cluster.submission_id == SID  # the sidecar container's env
    side = cluster.head_submitter
    assert side is not None
    assert (side.pod, side.terminated, side.exit_code, side.reason) == (
        "rayjob-sample-head-7xk2p",
        True,
        0,
        "Completed",
    )
    assert side.outcome == "succeeded" and side.finished_at == DONE


def _objects(name: str) -> list[dict[str, Any]]:
    text = (FIXTURES / name).read_text().replace("__SUBMISSION_ID__", SID)
    return list(yaml.safe_load(text)["items"])


def test_sidecar_still_running_and_failed() -> None:
    objects = _objects("sidecar-succeeded.yaml")
    pod = next(o for o in objects if o["kind"] == "Pod")
    status = pod["status"]["containerStatuses"][1]
    status["state"] = {"running": {"startedAt": "2026-11-29T08:59:31Z"}}
    side = gather_facts(snapshot_from_objects(objects), "ml", "rayjob-sample").cluster
    assert side is not None and side.head_submitter is not None
    assert side.head_submitter.outcome is None
    status["state"] = {
        "terminated": {"exitCode": 1, "reason": "Error", "finishedAt": "2026-11-29T10:05:00Z"}
    }
    side = gather_facts(snapshot_from_objects(objects), "ml", "rayjob-sample").cluster
    assert side is not None and side.head_submitter is not None
    assert side.head_submitter.outcome == "failed"


def test_foreign_configmap_is_not_a_record() -> None:
    objects = _objects("cleaned-up.yaml")
    cm = next(o for o in objects if o["kind"] == "ConfigMap")
    del cm["metadata"]["labels"]["app.kubernetes.io/managed-by"]
    found = gather_facts(snapshot_from_objects(objects), "ml", "rayjob-sample")
    assert found.record is not None and not found.record.managed
    assert found.own_record is None
    assert any("not a raygang job record" in n for n in found.notes)


def test_volcano_job_of_the_same_name_is_not_the_submitter() -> None:
    vcjob = {
        "apiVersion": "batch.volcano.sh/v1alpha1",
        "kind": "Job",
        "metadata": {"name": "rayjob-sample", "namespace": "ml"},
    }
    found = gather_facts(snapshot_from_objects([vcjob]), "ml", "rayjob-sample")
    assert found.submitter is None
    assert any("batch.volcano.sh/v1alpha1" in n for n in found.notes)


def test_unreadable_fields_become_notes() -> None:
    objects = _objects("failed-attempt-2.yaml")
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


def _as_old_record(objects: list[dict[str, Any]]) -> None:
    """Move the record's values back to the data keys earlier raygang versions wrote."""
    cm = next(o for o in objects if o["kind"] == "ConfigMap")
    annotations = cm["metadata"].pop("annotations")
    cm["data"] = {RECORD_LEGACY_DATA_KEYS[k]: v for k, v in annotations.items()}


@pytest.mark.parametrize("name", ["running.yaml", "failed-attempt-2.yaml", "cleaned-up.yaml"])
def test_records_of_earlier_versions_read_the_same(name: str) -> None:
    # Records created before the values moved to annotations hold them in data.
    objects = _objects(name)
    new = gather_facts(snapshot_from_objects(objects), "ml", "rayjob-sample")
    _as_old_record(objects)
    old = gather_facts(snapshot_from_objects(objects), "ml", "rayjob-sample")
    assert new.own_record is not None and old.own_record is not None
    assert old.own_record.values == new.own_record.values
    assert old.own_record.legacy_data and not new.own_record.legacy_data
    assert old.own_record == dataclasses.replace(
        new.own_record, legacy_data=old.own_record.legacy_data
    )
    assert old.notes == new.notes and old.attempt == new.attempt


def test_old_record_fixture_and_annotations_win_over_data() -> None:
    found = facts("failed.yaml")  # an old-style record (data keys)
    record = found.own_record
    assert record is not None and record.legacy_data["attempt"] == "1"
    assert (record.attempt, record.first_attempt, record.submission_id) == (1, 1, SID)
    assert record.values[RECORD_SUBMISSION_ID] == SID
    objects = _objects("failed.yaml")
    cm = next(o for o in objects if o["kind"] == "ConfigMap")
    cm["metadata"]["annotations"] = {RECORD_ATTEMPT: "2", RECORD_SUBMISSION_ID: f"{SID}-a2"}
    cm["data"]["attempt"] = "zero"  # not read: the annotation holds the attempt
    found = gather_facts(snapshot_from_objects(objects), "ml", "rayjob-sample")
    record = found.own_record
    assert record is not None
    assert (record.attempt, record.submission_id, record.first_attempt) == (2, f"{SID}-a2", 1)
    assert not found.notes
    cm["data"]["firstAttempt"] = "-1"
    found = gather_facts(snapshot_from_objects(objects), "ml", "rayjob-sample")
    assert any("ConfigMap rayjob-sample data.firstAttempt '-1'" in n for n in found.notes)


def test_deleting_objects_and_suspended_workers() -> None:
    objects = _objects("succeeded.yaml")
    cluster = next(o for o in objects if o["kind"] == "RayCluster")
    cluster["metadata"]["deletionTimestamp"] = "2026-11-29T10:16:00Z"
    cluster["spec"]["workerGroupSpecs"][0]["suspend"] = True
    found = gather_facts(snapshot_from_objects(objects), "ml", "rayjob-sample")
    assert found.cluster is not None
    assert found.cluster.deleting and found.cluster.workers_suspended
    assert ClusterFacts(name="x").workers_suspended  # no groups: nothing left to delete


def test_objects_of_other_namespaces_are_not_facts() -> None:
    found = gather_facts(snapshot("running.yaml"), "other", "rayjob-sample")
    assert not found.anything_exists


# --- live_snapshot ---------------------------------------------------------------------


class _Listing:
    def __init__(self, items: list[dict[str, Any]]) -> None:
        self.items = items

    def to_dict(self) -> dict[str, Any]:
        return {"items": self.items}


class ResourceNotFoundError(Exception):
    """Named like the kubernetes client's, which live_snapshot recognizes by name."""


class _FakeKubernetes:
    """The slice of the kubernetes client live_snapshot uses, over fixture objects."""

    def __init__(self, objects: list[dict[str, Any]], missing: tuple[str, ...] = ()) -> None:
        self.calls: list[tuple[str, str, str]] = []
        fake = self

        class Resource:
            def __init__(self, api_version: str, kind: str) -> None:
                self.api_version, self.kind = api_version, kind

            def get(self, namespace: str, label_selector: str) -> _Listing:
                fake.calls.append((self.kind, namespace, label_selector))
                items = []
                for obj in objects:
                    meta = obj["metadata"]
                    if obj["kind"] != self.kind or meta.get("namespace") != namespace:
                        continue
                    if label_selector:
                        key, value = label_selector.split("=")
                        if (meta.get("labels") or {}).get(key) != value:
                            continue
                    items.append({k: v for k, v in obj.items() if k not in ("kind", "apiVersion")})
                return _Listing(items)

        class Resources:
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
    objects = _objects("sidecar-succeeded.yaml") + _objects("failed.yaml")[3:]
    fake = _FakeKubernetes(objects, missing=("PodGroup",))
    snap = live_snapshot(["ml"], context="prod", kubernetes=fake)
    assert snap.source == "live" and fake.context == "prod"
    found = gather_facts(snap, "ml", "rayjob-sample")
    assert found.submitter is not None and found.submitter.outcome == "failed"
    assert found.cluster is not None and found.cluster.head_submitter is not None
    assert found.own_record is not None
    assert found.podgroup is None  # the CRD is "not installed"
    assert ("ConfigMap", "ml", "app.kubernetes.io/managed-by=raygang") in fake.calls
    assert ("Pod", "ml", "ray.io/node-type=head") in fake.calls


@pytest.mark.skipif(
    importlib.util.find_spec("kubernetes") is not None, reason="kubernetes is installed"
)
def test_live_snapshot_without_the_client_says_what_to_do() -> None:
    with pytest.raises(RuntimeError, match="pip install kubernetes"):
        live_snapshot(["ml"])
