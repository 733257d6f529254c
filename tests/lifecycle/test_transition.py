"""The phase the facts put a job in: retries, an interrupted retry, suspend on a finished job,
a spec change after the finish, and the attempts' submission IDs."""

from __future__ import annotations

import copy

import yaml
from raygang.kube.snapshot import snapshot_from_objects
from raygang.lifecycle.decide import decide
from raygang.lifecycle.transition import attempt_submission_id

from tests.lifecycle.conftest import (
    AFTER_TTL,
    BASE_SID,
    BEFORE_TTL,
    FIXTURES,
    FULL,
    NAME,
    assert_idempotent,
    converge,
    facts,
    pg_gang,
    plan_of,
    rayjob,
    rec,
    res,
    roles,
    snapshot,
    with_job_status,
)


def test_suspend_is_ignored_once_finished() -> None:
    plan = plan_of(rayjob(suspend=True))
    decided = decide(plan, facts(snapshot("succeeded.yaml")), BEFORE_TTL)
    assert decided.phase == "finished"
    assert "raycluster" in roles(decided)
    assert any("spec.suspend is ignored" in r for r in decided.reasons)


def test_interrupted_retry_carries_on() -> None:
    # The record was updated to attempt 2 but the RayCluster and Job are still attempt 1's.
    plan = plan_of(rayjob(backoffLimit=2))
    retry = decide(plan, facts(snapshot("failed.yaml")), BEFORE_TTL)
    objects = [copy.deepcopy(o) for o in snapshot("failed.yaml").objects.values()]
    cm = next(o for o in objects if o["kind"] == "ConfigMap")
    # failed.yaml's record is of an earlier raygang (values in data); the annotations win.
    cm["metadata"]["annotations"] = {
        "raygang.dev/attempt": "2",
        "raygang.dev/submission-id": f"{BASE_SID}-a2",
    }
    decided = decide(plan, facts(snapshot_from_objects(objects)), BEFORE_TTL)
    assert decided.phase == "retrying"
    assert decided.resources == retry.resources
    assert any("belong to an earlier one" in r for r in decided.reasons)


def test_failed_without_backoff_limit_is_failed() -> None:
    plan = plan_of(rayjob())
    decided = decide(plan, facts(snapshot("failed.yaml")), AFTER_TTL)
    assert decided.phase == "failed"
    assert roles(decided) == ["record", "podgroup", "submitter"]


def test_a_user_set_job_id_is_kept_on_retry() -> None:
    raw = rayjob(backoffLimit=2, jobId="nightly-train")
    plan = plan_of(raw)
    assert plan.submission_id == "nightly-train"
    objects = yaml.safe_load(
        (FIXTURES / "failed.yaml").read_text().replace("__SUBMISSION_ID__", "nightly-train")
    )
    decided = decide(plan, facts(snapshot_from_objects([objects])), BEFORE_TTL)
    assert decided.phase == "retrying"
    assert decided.submission_id == "nightly-train"
    assert res(decided, "submitter")["metadata"]["annotations"]["raygang.dev/attempt"] == "2"
    assert attempt_submission_id("nightly-train", 3, user_set=True) == "nightly-train"
    assert attempt_submission_id("job-1a2b3c4d", 3) == "job-1a2b3c4d-a3"
    assert attempt_submission_id("job-1a2b3c4d", 1) == "job-1a2b3c4d"


def test_spec_change_after_the_finish_starts_a_new_run_on_fresh_objects() -> None:
    plan = plan_of(rayjob(entrypoint="python /home/ray/samples/sample_code.py --epochs 2"))
    before = snapshot("succeeded.yaml")
    decided = decide(plan, facts(before), BEFORE_TTL)
    assert decided.phase == "new"
    assert decided.submission_id == plan.submission_id != BASE_SID
    assert res(decided, "raycluster")["metadata"]["annotations"]["raygang.dev/attempt"] == "2"
    data = rec(decided)
    assert (data["raygang.dev/attempt"], data["raygang.dev/first-attempt"]) == ("2", "2")
    assert "raygang.dev/finished-at" not in data
    assert f"replace RayCluster/{NAME} for attempt 2 (fresh pods)" in decided.changes
    assert pg_gang(decided) == (3, FULL)
    again = assert_idempotent(plan, before, BEFORE_TTL)
    assert again.phase == "running"
    assert again.submission_id == plan.submission_id
    # The new run has its own retry budget: its first failure is its attempt 1 of 2.
    retrying = plan_of(
        rayjob(entrypoint="python /home/ray/samples/sample_code.py --epochs 2", backoffLimit=1)
    )
    state = with_job_status(converge(before, decided), "failed.yaml")
    retry = decide(retrying, facts(state), BEFORE_TTL)
    assert retry.phase == "retrying" and retry.attempt == 3
    assert retry.submission_id == f"{plan.submission_id}-a2"
    assert rec(retry)["raygang.dev/first-attempt"] == "2"
