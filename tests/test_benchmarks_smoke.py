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
import yaml

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


def test_timeline_of_an_event_log(tmp_path: Path) -> None:
    from benchmarks.real_engine_timeline import read_timeline

    def step(name: str, kind: str, stamp: int, op: str = "create") -> str:
        event, resource = name.split("/")
        meta = {"op": op, "urn": f"urn:pulumi:s::p::{kind}::{resource}", "type": kind}
        return json.dumps({"sequence": stamp, "timestamp": stamp, event: {"metadata": meta}})

    cluster = "kubernetes:ray.io/v1:RayCluster"
    events = [
        step("resourcePreEvent/stack", "pulumi:pulumi:Stack", 100),
        step("resourcePreEvent/a", cluster, 101),
        step("resourcePreEvent/b", cluster, 102),
        step("resOutputsEvent/a", cluster, 111),
        step("resourcePreEvent/c", "kubernetes:batch/v1:Job", 111),
        step("resOutputsEvent/c", "kubernetes:batch/v1:Job", 112),
        step("resOutputsEvent/b", cluster, 120),
        step("resOutputsEvent/stack", "pulumi:pulumi:Stack", 121),
    ]
    log = tmp_path / "events.jsonl"
    log.write_text("\n".join(events) + "\n")
    timeline = read_timeline(log)
    assert timeline.seconds == 21 and timeline.max_in_flight == 2
    (clusters, jobs) = timeline.kinds
    assert (clusters.count, clusters.median_seconds, clusters.max_seconds) == (2, 18.0, 18.0)
    assert (clusters.first_start, clusters.last_end) == (1.0, 20.0)
    assert (jobs.kind, jobs.count, jobs.max_seconds) == ("kubernetes:batch/v1:Job", 1, 1.0)


def test_state_file_of_a_file_backend(tmp_path: Path) -> None:
    from benchmarks.real_engine import state_file_bytes

    url = f"file://{tmp_path}"
    stacks = tmp_path / ".pulumi" / "stacks"
    assert state_file_bytes(url, "raygang", "bench-n1") is None
    (stacks / "raygang").mkdir(parents=True)
    (stacks / "raygang" / "bench-n1.json").write_text("x" * 123)
    (stacks / "other").mkdir()
    (stacks / "other" / "bench-n10.json.gz").write_bytes(b"y" * 45)
    (stacks / "bench-n100.json").write_text("z" * 6)  # a legacy (project-less) backend
    assert state_file_bytes(url, "raygang", "bench-n1") == 123
    assert state_file_bytes(url, "other", "bench-n1") is None  # another project's stack
    assert state_file_bytes(url, "other", "bench-n10") == 45
    assert state_file_bytes(url, "raygang", "bench-n100") == 6
    assert state_file_bytes("s3://bucket", "raygang", "bench-n1") is None


def test_report_of_the_reruns() -> None:
    from benchmarks.real_engine import (
        SKIP_CHECKPOINTS_TEXT,
        SizeResult,
        VariantResult,
        _parser,
        report,
    )
    from benchmarks.real_engine_timeline import KindTimes, Timeline

    def variant(name: str, up: float, flight: int = 0, state: int | None = None) -> VariantResult:
        kinds = (KindTimes("kubernetes:batch/v1:Job", 2, 1.0, 2.0, 0.0, 3.0),)
        timeline = Timeline(kinds, flight, up) if flight else None
        return VariantResult(name, 1.0, up, 1.0, "p", "w", timeline, state)

    size = SizeResult(jobs=2, objects=9, kinds={"Job": 2})
    size.variants = {
        "raygang": variant("raygang", 90.0, 8, 3_100_000),
        "kubectl": variant("kubectl", 30.0),
    }
    size.parallel = {32: variant("raygang", 60.0, 30, 3_000_000)}
    size.skip_checkpoints = {
        0: variant("raygang", 45.0, 8, 2_900_000),
        32: variant("raygang", 15.0, 31),
    }
    lines: list[str] = []
    report([size], lines.append)
    text = "\n".join(lines)
    assert "[--parallel, --skip-checkpoints] raygang pulumi up of 2 jobs" in text, text
    # parallel, state written, up, ratio to kubectl, steps in flight: the default run first.
    rows = [line.split() for line in lines if line.startswith(("  default", "  32"))]
    assert [(r[0], r[1], r[-2], r[-1]) for r in rows] == [
        ("default", "before", "3.00", "8"),
        ("32", "before", "2.00", "30"),
        ("default", "once,", "1.50", "8"),
        ("32", "once,", "0.50", "31"),
    ], rows
    assert "  raygang: " in text and "state file 3.10 MB after up" in text, text
    assert f"  {SKIP_CHECKPOINTS_TEXT}: " in text and "state file 2.90 MB after up" in text
    assert f"  {SKIP_CHECKPOINTS_TEXT} --parallel 32: " in text, text
    data = size.as_dict()
    assert set(data["raygang_up_skip_checkpoints"]) == {"0", "32"}
    assert data["raygang_up_skip_checkpoints"]["0"]["state_bytes"] == 2_900_000
    assert _parser().parse_args(["--skip-checkpoints"]).skip_checkpoints is True
    assert _parser().parse_args([]).skip_checkpoints is False


def test_report_of_the_unchanged_stack_previews() -> None:
    from benchmarks.real_engine import SizeResult, VariantResult, report

    def variant(name: str, again: tuple[float, ...]) -> VariantResult:
        return VariantResult(name, 1.0, 2.0, 1.0, "p", "w", unchanged_samples=again)

    size = SizeResult(jobs=100, objects=401, kinds={})
    size.variants = {
        "raygang": variant("raygang", (9.0, 20.0, 10.0)),  # median 10, the slow one ignored
        "bare": variant("bare", (8.0, 8.0, 9.5)),
        "kubectl": variant("kubectl", ()),
    }
    lines: list[str] = []
    report([size], lines.append)
    at = lines.index(next(line for line in lines if line.startswith("[unchanged stack]")))
    # jobs, raygang, bare, then raygang/bare 10/8; the component did not run.
    assert lines[at + 1].split() == ["jobs", "raygang", "bare", "raygang/bare",
                                     "raygang/component", "component/bare"]  # fmt: skip
    assert lines[at + 2].split() == ["100", "10", "s", "8", "s", "1.25", "n/a", "n/a"]
    data = size.as_dict()
    assert data["variants"]["raygang"]["unchanged_seconds"] == 10.0
    assert data["variants"]["kubectl"]["unchanged_seconds"] is None
    assert data["ratios"]["unchanged_raygang_over_bare"] == 1.25
    assert data["ratios"]["unchanged_raygang_over_component"] is None
    assert "unchanged_raygang_over_kubectl" not in data["ratios"]
    # Without any unchanged preview (kubectl only) there is no table.
    size.variants = {"kubectl": variant("kubectl", ())}
    lines.clear()
    report([size], lines.append)
    assert not [line for line in lines if line.startswith("[unchanged stack]")]


def test_the_bare_and_kubectl_objects_carry_the_components_owner_references_and_order() -> None:
    # "The same objects": bare and kubectl give each job's PodGroup, RayCluster and submitter
    # Job the ownerReference raygang's component gives them, and create them in its order;
    # read off the sample stack's plan.
    from benchmarks.real_engine import Rendered, owner_reference

    def plan(form: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "raygang", "plan", "--format", form, "--stack", "dev"],
            cwd=ROOT, capture_output=True, text=True, timeout=300, check=True,
        )  # fmt: skip
        return done.stdout

    objects = [d for d in yaml.safe_load_all(plan("yaml")) if d]
    rendered = Rendered.of(objects, json.loads(plan("json")))
    ns = "default"
    assert rendered.owned == {
        ("PodGroup", ns, "ray-demo-job-pg"): "demo-job",
        ("RayCluster", ns, "demo-job"): "demo-job",
        ("Job", ns, "demo-job"): "demo-job",
    }

    def kinds(text: str) -> list[tuple[str, object]]:
        return [(d["kind"], d["metadata"].get("ownerReferences")) for d in yaml.safe_load_all(text)]

    owner = [owner_reference("demo-job", "u-1")]
    assert kinds(rendered.first()) == [("Queue", None), ("ConfigMap", None)]
    assert kinds(rendered.others({"demo-job": "u-1"})) == [
        ("PodGroup", owner),
        ("RayCluster", owner),
    ]
    assert kinds(rendered.jobs({"demo-job": "u-1"})) == [("Job", owner)]
    assert kinds(rendered.others()) == [("PodGroup", None), ("RayCluster", None)]
    # The dry run leaves out the PodGroup of the queue still to be created, as Pulumi's does.
    assert [k for k, _ in kinds(rendered.dry_run())] == ["Queue", "ConfigMap", "RayCluster", "Job"]
    bare = {e["object"]["kind"]: e for e in rendered.for_bare()}
    owners = {kind: e["object"]["metadata"].get("ownerReferences") for kind, e in bare.items()}
    assert owners["Job"] == [owner_reference("demo-job", None)] and owners["ConfigMap"] is None
    # Bare registers each object after those raygang's component makes it wait for, read off
    # the plan's dependsOn: the submitter after the RayCluster, as raygang (and KubeRay) order it.
    assert {kind: e["dependsOn"] for kind, e in bare.items()} == {
        "Queue": (),
        "ConfigMap": (("Queue", None, "ray-batch"),),
        "PodGroup": (("ConfigMap", ns, "demo-job"),),
        "RayCluster": (("PodGroup", ns, "ray-demo-job-pg"),),
        "Job": (("RayCluster", ns, "demo-job"),),
    }
    # The component variant registers each under raygang's component for it, as the program.
    job = ("raygang:index:RayJobGang", f"{ns}/demo-job")
    assert {kind: e["component"] for kind, e in bare.items()} == {
        "Queue": ("raygang:index:VolcanoQueue", "ray-batch"),
        "ConfigMap": job,
        "PodGroup": job,
        "RayCluster": job,
        "Job": job,
    }
    # What the plan renders is left as it was.
    assert all("ownerReferences" not in d["metadata"] for d in rendered.objects)
