"""``python -m benchmarks.real_engine --sizes 1`` runs to the end on the tier's cluster.

No timing is asserted (the numbers are the machine's); only that every variant ran, left the
cluster as it found it, and that the report and its JSON have their shape.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from raygang_localcluster import LocalCluster

from benchmarks.real_engine import NAMESPACE, QUEUE, TARGETS, VARIANTS, main

pytestmark = pytest.mark.e2e


def test_one_job_through_every_variant(cluster: LocalCluster, tmp_path: Path) -> None:
    out, report = io.StringIO(), tmp_path / "bench.json"
    argv = ["--sizes", "1", "--previews", "2", "--skip-checkpoints", "--json", str(report),
            "--workdir", str(tmp_path / "work")]  # fmt: skip
    assert main(argv, cluster=cluster, stdout=out) == 0
    text = out.getvalue()
    assert text.startswith("raygang real-engine benchmark, "), text
    assert "up raygang/bare" in text and "up raygang/kubectl" in text, text

    data = json.loads(report.read_text(encoding="utf-8"))
    assert {"machine", "versions", "previews", "waits", "sizes"} <= set(data)
    (size,) = data["sizes"]
    assert size["jobs"] == 1
    assert size["kinds"] == {"Queue": 1, "ConfigMap": 1, "PodGroup": 1, "RayCluster": 1, "Job": 1}
    assert set(size["variants"]) == set(VARIANTS)
    for variant in size["variants"].values():
        assert variant["preview_seconds"] > 0 and variant["up_seconds"] > 0
    # Each Pulumi variant's preview timed twice, interleaved; the median (of two: their mean)
    # counts. kubectl's dry run once.
    for name in ("raygang", "component", "bare"):
        taken = size["variants"][name]["preview_samples"]
        assert len(taken) == 2 and size["variants"][name]["preview_seconds"] == sum(taken) / 2
    assert size["variants"]["kubectl"]["preview_samples"] == []
    assert "preview x 2, interleaved: raygang, component, bare" in text, text
    # Each Pulumi up's state file was found in the file backend (kubectl keeps none).
    states = {name: v["state_bytes"] for name, v in size["variants"].items()}
    assert states["kubectl"] is None and states["raygang"] > 0 and states["bare"] > 0, states
    pulumi_pairs = (("raygang", "bare"), ("raygang", "component"), ("component", "bare"))
    assert set(size["ratios"]) == {
        f"{phase}_{a}_over_{b}"
        for phase in ("preview", "up")
        for a, b in (*pulumi_pairs, ("raygang", "kubectl"))
    } | {f"unchanged_{a}_over_{b}" for a, b in pulumi_pairs}
    assert all(r is not None and r > 0 for r in size["ratios"].values()), size["ratios"]
    # After each Pulumi up, two previews of the deployed stack; each found nothing to change
    # (pulumi preview --expect-no-changes fails otherwise, and the run with it).
    for name in ("raygang", "component", "bare"):
        again = size["variants"][name]["unchanged_samples"]
        assert len(again) == 2 and size["variants"][name]["unchanged_seconds"] > 0, again
    assert size["variants"]["kubectl"]["unchanged_samples"] == []
    assert "[unchanged stack] pulumi preview --expect-no-changes after each up" in text, text
    # The component variant registers one plain component per job and one for the Queue, of
    # raygang's types; bare none: its state holds those two resources more.
    assert states["component"] > states["bare"], states
    # The engine's event log says where up's time went: one RayCluster create step.
    timeline = size["variants"]["raygang"]["timeline"]
    kinds = {k["kind"].rsplit(":", 1)[-1]: k["count"] for k in timeline["kinds"]}
    assert kinds.get("RayCluster") == 1, timeline
    # --skip-checkpoints: raygang's up again, and bare's, each with the setting.
    skipped = [size["raygang_up_skip_checkpoints"]["0"], size["bare_up_skip_checkpoints"]]
    assert all(v["up_seconds"] > 0 and v["state_bytes"] > 0 for v in skipped), skipped
    assert "[PULUMI_SKIP_CHECKPOINTS=true] up raygang/bare " in text, text
    assert [t["name"] for t in data["targets"]] == list(TARGETS)
    assert data["preflight_plan"]["jobs"] == 100 and data["preflight_plan"]["seconds"] > 0
    assert "plan-preflight/preview" in text

    # Cleaned up after itself: nothing of the benchmark's left for the next test.
    left = cluster.kubectl(
        "get", "rayclusters.ray.io,podgroups.scheduling.volcano.sh,jobs.batch,pods",
        "-n", NAMESPACE, "-o", "name",
    ).stdout.split()  # fmt: skip
    assert not left, left
    assert cluster.kubectl("get", "queues.scheduling.volcano.sh", QUEUE, check=False).returncode
