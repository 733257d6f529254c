"""The pulumi_policy wrapper wires each rule: run with the pack's own interpreter, because
pulumi_policy (protobuf 5.29) cannot share the project's virtualenv (protobuf 6)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from raygang_policy.catalogue import POLICIES

REPO = Path(__file__).resolve().parents[2]
PACK_PYTHON = REPO / "policy" / ".venv" / "bin" / "python"


@pytest.fixture(scope="module")
def outcome() -> dict[str, Any]:
    if not PACK_PYTHON.exists():
        pytest.skip(
            "the policy pack's virtualenv is missing: `make test` creates it, or "
            "`cd policy && pulumi install`"
        )
    env = {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{REPO / 'policy'}"}
    env.pop("PULUMI_CONFIG", None)
    run = subprocess.run(
        [str(PACK_PYTHON), "-m", "tests.policy.wiring_check"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    result: dict[str, Any] = json.loads(run.stdout)
    return result


def test_every_policy_at_its_default_level(outcome: dict[str, Any]) -> None:
    assert outcome["policies"] == {p.name: p.level for p in POLICIES}
    assert outcome["initial"] == {}
    assert outcome["per_stack"] == ["advisory"]


def test_shipped_stack_reports_nothing(outcome: dict[str, Any]) -> None:
    assert outcome["dev"] == {"reported": [], "advisory": None}


def test_violation_reported_on_the_podgroup(outcome: dict[str, Any]) -> None:
    [[message, urn]] = outcome["wrong"]["reported"]
    assert message.startswith("PodGroup default/ray-demo-job-pg does not match the gang of")
    assert "minMember 5 (want 3)" in message
    assert urn.endswith("PodGroup::default/demo-job-podgroup")
    assert outcome["wrong"]["advisory"] is None


def test_unknown_value_is_advisory(outcome: dict[str, Any]) -> None:
    assert "cannot judge PodGroup default/ray-demo-job-pg yet" in outcome["unknown"]["advisory"]
    assert "spec.workerGroupSpecs[0].replicas" in outcome["unknown"]["advisory"]
    assert outcome["unknown"]["reported"] == []


def test_a_crashing_rule_never_crashes_the_pack(outcome: dict[str, Any]) -> None:
    crash = outcome["crash"]
    assert crash["reported"] == []
    assert "raygang's policy boom failed on this stack" in crash["advisory"]
    assert "KeyError: 'spec'" in crash["advisory"]


def test_resource_policy_reports_on_its_resource(outcome: dict[str, Any]) -> None:
    [[message, urn]] = outcome["binding"]["reported"]
    assert "binds ClusterRole cluster-admin to ServiceAccount ray" in message
    assert urn == "urn:binding"


def test_unusable_stack_levels_are_reported_not_dropped(outcome: dict[str, Any]) -> None:
    assert outcome["bad_levels"]["reported"] == []
    assert (
        "raygang-policy settings: raygang-policy:enforcement: 'gang-admisible' is not a "
        "policy of this pack" in outcome["bad_levels"]["advisory"]
    )
