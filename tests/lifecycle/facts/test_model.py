"""The facts' derived properties: a Job's or a sidecar's finish, the attempt, deletion and
suspended workers (read from the fixtures in fixtures/lifecycle)."""

from __future__ import annotations

from raygang.kube.snapshot import snapshot_from_objects
from raygang.lifecycle.facts.gather import gather_facts
from raygang.lifecycle.facts.model import ClusterFacts

from tests.lifecycle.facts.conftest import DONE, SID, facts, fixture_objects


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


def test_sidecar_still_running_and_failed() -> None:
    objects = fixture_objects("sidecar-succeeded.yaml")
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


def test_deleting_objects_and_suspended_workers() -> None:
    objects = fixture_objects("succeeded.yaml")
    cluster = next(o for o in objects if o["kind"] == "RayCluster")
    cluster["metadata"]["deletionTimestamp"] = "2026-11-29T10:16:00Z"
    cluster["spec"]["workerGroupSpecs"][0]["suspend"] = True
    found = gather_facts(snapshot_from_objects(objects), "ml", "rayjob-sample")
    assert found.cluster is not None
    assert found.cluster.deleting and found.cluster.workers_suspended
    assert ClusterFacts(name="x").workers_suspended  # no groups: nothing left to delete
