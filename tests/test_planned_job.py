"""One record per job (``raygang.plan.PlannedJob``): the plan as planning made it, the
lifecycle's decision and the preflight's result side by side, made once by the planning pass.
Nothing is written back into the plan, and nothing below the lifecycle names the layers
above it, not even for type checking."""

from __future__ import annotations

import ast
import dataclasses
from datetime import datetime
from pathlib import Path

import pytest
from raygang.kube.snapshot import ClusterSnapshot
from raygang.kuberay.jobplan import JobPlan
from raygang.pipeline import finish_job
from raygang.plan import PlannedJob

from tests.lifecycle.conftest import (
    AFTER_TTL,
    BASE_SID,
    BEFORE_TTL,
    DONE,
    FULL,
    NO_SUBMITTER,
    converge,
    plan_of,
    rayjob,
    snapshot,
)

PACKAGE = Path(__file__).resolve().parents[1] / "components" / "raygang"


def _finish(plan: JobPlan, snap: ClusterSnapshot | None, now: datetime) -> PlannedJob:
    return finish_job(plan, queues={}, snapshot=snap, now=now)


def test_a_finished_job_declares_less_than_its_plan() -> None:
    plan = plan_of(rayjob())
    job = _finish(plan, snapshot("succeeded.yaml"), AFTER_TTL)
    assert job.plan is plan
    assert job.lifecycle.phase == "finished"
    # The plan keeps every object of a new job; the record declares what this run keeps.
    assert [r.role for r in job.plan.resources] == ["record", "podgroup", "raycluster", "submitter"]
    assert [r.role for r in job.resources] == ["record", "podgroup", "submitter"]
    assert job.resources == job.lifecycle.resources
    assert job.resource("raycluster") is None
    assert plan.resource("raycluster") is not None
    # The PodGroup as declared now holds the finished cluster's gang until the cluster is
    # gone (this run deletes it); the gang is the plan's, unchanged.
    assert (job.declared_min_member, job.declared_min_resources) == (3, NO_SUBMITTER)
    # Once it is gone, the PodGroup as declared is zeroed.
    gone = _finish(plan, converge(snapshot("succeeded.yaml"), job.lifecycle), AFTER_TTL)
    assert (gone.declared_min_member, gone.declared_min_resources) == (0, {})
    assert (plan.gang.min_member, plan.gang.min_resources_strings()) == (3, FULL)
    # A finished job is not judged by the preflight.
    assert job.preflight.verdict == "unknown"
    assert [c.name for c in job.preflight.checks] == ["lifecycle"]


def test_a_retry_runs_under_the_lifecycles_submission_id() -> None:
    plan = plan_of(rayjob(backoffLimit=2))
    job = _finish(plan, snapshot("failed.yaml"), BEFORE_TTL)
    assert job.lifecycle.phase == "retrying"
    assert job.submission_id == job.lifecycle.submission_id == f"{BASE_SID}-a2"
    assert plan.submission_id == BASE_SID
    assert (job.declared_min_member, job.declared_min_resources) == (3, FULL)


def test_a_new_job_declares_its_plans_objects_and_is_judged() -> None:
    plan = plan_of(rayjob())
    job = _finish(plan, None, DONE)
    assert job.lifecycle.phase == "new"
    assert [r.ref for r in job.resources] == [r.ref for r in plan.resources]
    assert job.submission_id == plan.submission_id
    # Judged on its plan: every check ran, none skipped for the lifecycle.
    assert "lifecycle" not in [c.name for c in job.preflight.checks]
    assert job.preflight.checks
    assert job.resource("raycluster") == plan.resource("raycluster")


def test_the_record_is_made_once() -> None:
    job = _finish(plan_of(rayjob()), None, DONE)
    with pytest.raises(dataclasses.FrozenInstanceError):
        job.preflight = job.preflight  # type: ignore[misc]
    # The plan holds what planning knows, nothing the layers above decide.
    assert {f.name for f in dataclasses.fields(JobPlan)}.isdisjoint(
        {"lifecycle", "preflight", "declared", "phase"}
    )


ABOVE = ("lifecycle", "preflight", "settings", "plan", "pipeline", "loader", "render", "cli")
BELOW = ("kube", "rayjob", "kuberay", "volcano")


def _imported(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


@pytest.mark.parametrize("package", BELOW)
def test_nothing_below_the_lifecycle_names_the_layers_above(package: str) -> None:
    """import-linter leaves imports under ``TYPE_CHECKING`` out of its layers contract; this
    test does not, so no arrow climbs back up the layers, not even for a type."""
    above = {f"raygang.{name}" for name in ABOVE} | {"raygang.component", "raygang.testing"}
    climbing = {
        f"{path.relative_to(PACKAGE)}: {module}"
        for path in sorted((PACKAGE / package).rglob("*.py"))
        for module in _imported(path)
        if any(module == a or module.startswith(f"{a}.") for a in above)
    }
    assert not climbing
