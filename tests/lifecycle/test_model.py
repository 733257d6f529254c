"""Lifecycle: the decision a run reports, as JSON and as ``raygang plan``'s table."""

from __future__ import annotations

from raygang.lifecycle.decide import decide

from tests.lifecycle.conftest import (
    BASE_SID,
    BEFORE_TTL,
    DONE,
    facts,
    plan_of,
    rayjob,
    snapshot,
)


def test_lifecycle_renders() -> None:
    decided = decide(plan_of(rayjob()), facts(snapshot("succeeded.yaml")), BEFORE_TTL)
    out = decided.to_dict()
    assert out["phase"] == "finished"
    assert out["actions"] == list(decided.actions)
    assert out["finishedAt"] == "2026-11-29T10:05:00Z"
    assert out["nextChangeAt"] == "2026-11-29T10:15:00Z"
    assert out["result"] == "succeeded" and out["attempt"] == 1
    assert out["submissionId"] == BASE_SID
    lines = decided.table_lines()
    assert lines[0] == (
        f"lifecycle: finished (succeeded at 2026-11-29T10:05:00Z, attempt 1, submission {BASE_SID})"
    )
    assert any(line.startswith("  why: ") for line in lines)
    assert lines[-1].startswith("  - later: delete RayCluster/")
    quiet = decide(plan_of(rayjob()), facts(snapshot("running.yaml")), DONE)
    assert quiet.table_lines()[-1] == "  - nothing to change"
    assert "removed" not in quiet.to_dict()
