"""``python -m benchmarks --quick`` runs to the end and reports every scenario and target.

No timing is asserted: the numbers depend on the machine. Only the shape of the report is.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.runner import SCENARIOS, TARGETS

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict[str, object]]:
    out = tmp_path_factory.mktemp("bench") / "bench.json"
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--quick", "--json", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert proc.returncode == 0, f"exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout, json.loads(out.read_text(encoding="utf-8"))


def test_prints_machine_and_every_scenario(quick_run: tuple[str, dict[str, object]]) -> None:
    text, _ = quick_run
    assert text.startswith("raygang benchmarks, ")
    assert re.search(r"^machine: \d+ CPUs .* GiB RAM, CPython \d", text, re.M)
    for name in SCENARIOS:
        assert f"[{name}]" in text, name


def test_prints_a_ratio_line_per_target(quick_run: tuple[str, dict[str, object]]) -> None:
    text, _ = quick_run
    for name, (limit, _) in TARGETS.items():
        line = re.search(
            rf"^  ratio {re.escape(name)}: (\S+) \(target <= ([\d.]+)\): (\w+)", text, re.M
        )
        assert line, name
        value, shown_limit, status = line.groups()
        assert float(shown_limit) == pytest.approx(limit)
        assert status in ("met", "MISSED", "skipped")
        assert (value == "n/a") == (status == "skipped")
        assert re.search(rf"^  {re.escape(name)}\s+\S+\s+<= [\d.]+\s+{status}$", text, re.M), name


def test_json_report_matches_the_printed_targets(quick_run: tuple[str, dict[str, object]]) -> None:
    _, data = quick_run
    assert set(data) >= {"machine", "config", "file", "preflight", "growth", "targets"}
    targets = data["targets"]
    assert isinstance(targets, list)
    assert [t["name"] for t in targets] == list(TARGETS)
    file = data["file"]
    assert isinstance(file, dict)
    assert file["jobs"] == 10 and file["plan_peak_rss"] > 0 and file["floor_seconds"] > 0
    growth = data["growth"]
    assert isinstance(growth, list)
    assert [g["varying"] for g in growth] == ["jobs", "nodes"]
    assert all(len(g["sizes"]) == len(g["seconds"]) == 2 for g in growth)
