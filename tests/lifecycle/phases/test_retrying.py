"""The ``retrying`` phase: a fresh attempt on fresh objects, with a new submission ID."""

from __future__ import annotations

import copy

from raygang.kube.snapshot import snapshot_from_objects
from raygang.lifecycle.decide import decide
from raygang.lifecycle.declared import ATTEMPT_REPLACE_PATH

from tests.lifecycle.conftest import (
    BASE_SID,
    BEFORE_TTL,
    FULL,
    NAME,
    assert_idempotent,
    facts,
    pg_gang,
    plan_of,
    rayjob,
    rec,
    res,
    roles,
    sid_of,
    snapshot,
)


def test_failed_with_retries_left_starts_a_fresh_attempt() -> None:
    plan = plan_of(rayjob(backoffLimit=2))
    before = snapshot("failed.yaml")
    decided = decide(plan, facts(before), BEFORE_TTL)
    sid = f"{BASE_SID}-a2"
    assert decided.phase == "retrying"
    assert (decided.attempt, decided.submission_id, decided.submission_id) == (2, sid, sid)
    assert roles(decided) == ["record", "podgroup", "raycluster", "submitter"]
    for role in ("raycluster", "submitter"):
        resource = decided.resource(role)
        assert resource is not None
        assert resource.manifest["metadata"]["annotations"]["raygang.dev/attempt"] == "2"
        assert ATTEMPT_REPLACE_PATH in resource.replace_on_changes
    assert ATTEMPT_REPLACE_PATH == 'metadata.annotations["raygang.dev/attempt"]'
    job = res(decided, "submitter")
    assert sid_of(job) == sid and sid in job["spec"]["template"]["spec"]["containers"][0]["args"][0]
    assert pg_gang(decided) == (3, FULL)  # the new attempt needs the whole gang again
    data = rec(decided)
    assert (
        data["raygang.dev/attempt"],
        data["raygang.dev/submission-id"],
        data["raygang.dev/first-attempt"],
    ) == ("2", sid, "1")
    assert "raygang.dev/finished-at" not in data
    assert decided.changes == (
        f"update job record ConfigMap/{NAME}: submission-id {BASE_SID} -> {sid}, attempt 1 -> 2",
        f"replace RayCluster/{NAME} for attempt 2 (fresh pods)",
        f"replace Job/{NAME} (submits {sid}, attempt 2)",
    )
    assert any("spec.backoffLimit 2" in r for r in decided.reasons)
    again = assert_idempotent(plan, before, BEFORE_TTL)
    assert again.phase == "running" and again.attempt == 2


def test_sidecar_mode_retry_rebuilds_the_head_with_the_new_submission_id() -> None:
    plan = plan_of(rayjob(submissionMode="SidecarMode", backoffLimit=1))
    objects = [copy.deepcopy(o) for o in snapshot("sidecar-succeeded.yaml").objects.values()]
    pod = next(o for o in objects if o["kind"] == "Pod")
    pod["status"]["containerStatuses"][1]["state"]["terminated"].update(exitCode=1, reason="Error")
    before = snapshot_from_objects(objects)
    decided = decide(plan, facts(before), BEFORE_TTL)
    assert decided.phase == "retrying"
    head = res(decided, "raycluster")["spec"]["headGroupSpec"]["template"]["spec"]
    sidecar = next(c for c in head["containers"] if c["name"] == "ray-job-submitter")
    env = {e["name"]: e["value"] for e in sidecar["env"]}
    assert env["RAY_JOB_SUBMISSION_ID"] == f"{BASE_SID}-a2"
    assert "submitter" not in roles(decided)
    again = assert_idempotent(plan, before, BEFORE_TTL)
    assert again.phase == "running"
