"""Gathering: one job's objects read from a kubectl snapshot (fixtures in fixtures/lifecycle)."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime
from typing import Any

import pytest
from raygang.kube.snapshot import ClusterSnapshot, snapshot_from_objects
from raygang.kuberay.manifests import RECORD_ATTEMPT, RECORD_LEGACY_DATA_KEYS, RECORD_SUBMISSION_ID
from raygang.lifecycle.facts.gather import gather_facts

from tests.lifecycle.facts.conftest import DONE, SID, facts, fixture_objects, snapshot


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


def test_foreign_configmap_is_not_a_record() -> None:
    objects = fixture_objects("cleaned-up.yaml")
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


def _as_old_record(objects: list[dict[str, Any]]) -> None:
    """Move the record's values back to the data keys earlier raygang versions wrote."""
    cm = next(o for o in objects if o["kind"] == "ConfigMap")
    annotations = cm["metadata"].pop("annotations")
    cm["data"] = {RECORD_LEGACY_DATA_KEYS[k]: v for k, v in annotations.items()}


@pytest.mark.parametrize("name", ["running.yaml", "failed-attempt-2.yaml", "cleaned-up.yaml"])
def test_records_of_earlier_versions_read_the_same(name: str) -> None:
    # Records created before the values moved to annotations hold them in data.
    objects = fixture_objects(name)
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
    objects = fixture_objects("failed.yaml")
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


def test_objects_of_other_namespaces_are_not_facts() -> None:
    found = gather_facts(snapshot("running.yaml"), "other", "rayjob-sample")
    assert not found.anything_exists


def test_the_pods_of_the_cluster_that_hold_a_node_and_only_those() -> None:
    # Until they are gone bound pods hold their nodes: the PodGroup is not zeroed while any
    # is left (raygang.lifecycle.release), even once the RayCluster itself is gone.
    def pod(
        name: str, cluster: str, node: str | None = "n1", phase: str = "Running", **meta: Any
    ) -> dict[str, Any]:
        node_type = "head" if "-head-" in name else "worker"
        return {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {
                "name": name,
                "namespace": meta.pop("namespace", "ml"),
                "labels": {"ray.io/cluster": cluster, "ray.io/node-type": node_type},
                **meta,
            },
            "spec": {"nodeName": node} if node else {},
            "status": {"phase": phase},
        }

    snap = snapshot_from_objects(
        [
            pod("rayjob-sample-worker-b", "rayjob-sample", deletionTimestamp=DONE.isoformat()),
            pod("rayjob-sample-head-a", "rayjob-sample"),
            pod("rayjob-sample-worker-pending", "rayjob-sample", node=None, phase="Pending"),
            pod("rayjob-sample-worker-done", "rayjob-sample", phase="Succeeded"),
            pod("rayjob-sample-worker-failed", "rayjob-sample", phase="Failed"),
            pod("other-head", "other"),
            pod("rayjob-sample-head-z", "rayjob-sample", namespace="elsewhere"),
        ]
    )
    found = gather_facts(snap, "ml", "rayjob-sample")
    assert found.cluster is None
    assert found.cluster_pods == ("rayjob-sample-head-a", "rayjob-sample-worker-b")
    assert found.cluster_holds
    # DeleteWorkers waits for the workers among them (the same test of holding a node).
    assert found.worker_pods == ("rayjob-sample-worker-b",)
    assert found.workers_hold
    assert facts("sidecar-succeeded.yaml").cluster_pods == ("rayjob-sample-head-7xk2p",)
    assert not facts("sidecar-succeeded.yaml").workers_hold  # the head alone holds
    assert not facts("cleaned-up.yaml").cluster_holds
    # The RayCluster itself, with no Pods in the snapshot to tell.
    running = facts("running.yaml")
    assert running.cluster_holds and not running.pods_observed
    assert running.workers_hold  # its worker groups not suspended nor scaled to zero
    # Its pods listed, none placed: nothing is held.
    unplaced = snapshot_from_objects(
        [
            *fixture_objects("running.yaml"),
            pod("rayjob-sample-head-a", "rayjob-sample", node=None, phase="Pending"),
        ]
    )
    assert not gather_facts(unplaced, "ml", "rayjob-sample").cluster_holds
