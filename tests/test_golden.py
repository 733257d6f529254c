"""Golden files: the manifests ``raygang plan --format yaml`` prints, byte for byte.

Each case plans one input and compares stdout with ``tests/golden/<case>.yaml``. A change
to any rendered object shows up here as a diff to review.

To accept a deliberate change, regenerate the files and review the diff::

    RAYGANG_UPDATE_GOLDEN=1 python -m pytest tests/test_golden.py
    git diff tests/golden/
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from raygang.cli import main

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "golden"
GOOD = ROOT / "tests" / "fixtures" / "good"
UPDATE = os.environ.get("RAYGANG_UPDATE_GOLDEN") == "1"
# A fixed clock: nothing should depend on it for a fresh plan, but a golden file must
# never change with the day it was generated.
NOW = "2026-11-29T12:00:00Z"

CASES = {
    "stack-dev": ["plan", "--stack", "dev"],
    "k8sjob": ["plan", str(GOOD / "k8sjob.yaml")],
    "sidecar": ["plan", str(GOOD / "sidecar.yaml")],
    "interactive": ["plan", str(GOOD / "interactive.yaml")],
    "autoscaling-init": ["plan", str(GOOD / "autoscaling-init.yaml")],
    "raycluster": ["plan", str(GOOD / "raycluster.yaml")],
}


def rendered(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    code = main([*argv, "--format", "yaml", "--project-dir", str(ROOT), "--now", NOW])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


@pytest.mark.parametrize("case", sorted(CASES))
def test_rendered_manifests_match_the_golden_file(
    case: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Sources are named as given; run from the project so they read the same everywhere.
    monkeypatch.chdir(ROOT)
    argv = [a.replace(f"{ROOT}/", "") for a in CASES[case]]
    text = rendered(argv, capsys)
    golden = GOLDEN / f"{case}.yaml"
    if UPDATE:
        GOLDEN.mkdir(exist_ok=True)
        golden.write_text(text, encoding="utf-8")
    if not golden.is_file():
        pytest.fail(f"{golden} is missing; run with RAYGANG_UPDATE_GOLDEN=1 to create it")
    assert text == golden.read_text(encoding="utf-8"), (
        f"{case}: rendered manifests differ from {golden.name}; if the change is intended, "
        "regenerate with RAYGANG_UPDATE_GOLDEN=1 and review the diff"
    )


def test_the_clock_does_not_change_a_fresh_plan(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    argv = ["plan", "tests/fixtures/good/k8sjob.yaml", "--format", "yaml"]
    assert main([*argv, "--now", NOW]) == 0
    fixed = capsys.readouterr().out
    assert main(argv) == 0
    assert capsys.readouterr().out == fixed


def test_every_golden_file_has_a_case() -> None:
    assert {p.stem for p in GOLDEN.glob("*.yaml")} <= set(CASES)
