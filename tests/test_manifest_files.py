"""Manifest files as users have them (issue 17): companions, generateName, List files,
the preflight gate, ``--stack`` with FILE, and ``--out``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from raygang.cli import EXIT_INVALID, EXIT_NEVER_ADMITTED, main
from raygang.kube.errors import SpecError
from raygang.kube.generatename import generated_name
from raygang.loader import load_files
from raygang.render import INDEX, REDACTED

from tests.builders import job_doc, stuck_file, write

ROOT = Path(__file__).resolve().parents[1]
GOOD = ROOT / "tests" / "fixtures" / "good"
SAMPLES = Path(__file__).resolve().parents[2] / "shared" / "samples" / "kuberay"

# KubeRay's samples that KubeRay itself refuses with gang scheduling on, and why.
REFUSED_SAMPLES = {
    # volcano_scheduler.go: "gang scheduling does not support RayJob %s/%s referencing an
    # existing RayCluster"
    "ray-job.use-existing-raycluster.yaml": "spec.clusterSelector: gang scheduling",
}


def plan_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    code = main(["plan", *argv, "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return dict(json.loads(out))


CONFIG_MAP = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "code"}}
SECRET = {
    "apiVersion": "v1",
    "kind": "Secret",
    "metadata": {"name": "creds"},
    "stringData": {"token": "hunter2"},
    "data": {"key": "c2VjcmV0LXZhbHVl"},
}


# --- every KubeRay sample -----------------------------------------------------------------
def _sample_paths() -> list[Any]:
    if not SAMPLES.is_dir():
        return [pytest.param(None, marks=pytest.mark.skip(reason=f"{SAMPLES} is absent"))]
    return [pytest.param(p, id=p.stem.removeprefix("ray-job.")) for p in sorted(SAMPLES.glob("*"))]


@pytest.mark.parametrize("path", _sample_paths())
def test_every_sample_kuberay_accepts_plans_with_its_companions(
    path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["plan", str(path), "--format", "json"])
    out, err = capsys.readouterr()
    if path.name in REFUSED_SAMPLES:
        assert code == EXIT_INVALID
        assert REFUSED_SAMPLES[path.name] in err
        return
    assert code == 0, err
    plan = json.loads(out)
    docs = [d for d in yaml.safe_load_all(path.read_text()) if d]
    others = [d for d in docs if d["kind"] not in ("RayJob", "Queue")]
    planned = {(c["kind"], c["name"]) for c in plan["companions"]}
    assert planned == {(d["kind"], d["metadata"]["name"]) for d in others}
    for job in plan["jobs"]:
        cluster = next(r for r in job["resources"] if r["kind"] == "RayCluster")
        for companion in plan["companions"]:
            assert f"{companion['kind']}/{companion['name']}" in cluster["dependsOn"]


# --- companions -------------------------------------------------------------------------
def test_companions_are_created_in_the_jobs_namespace_before_the_cluster(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path / "a.yaml", job_doc(namespace="team-a"), CONFIG_MAP)
    plan = plan_json(capsys, str(path))
    (companion,) = plan["companions"]
    assert companion["namespace"] == "team-a"
    assert companion["jobs"] == ["team-a/demo"]
    resources = plan["jobs"][0]["resources"]
    assert resources[0] == {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "name": "code",
        "namespace": "team-a",
        "dependsOn": [],
        "companion": True,
    }
    main(["plan", str(path), "--format", "yaml"])
    manifests = list(yaml.safe_load_all(capsys.readouterr().out))
    assert manifests[0] == {**CONFIG_MAP, "metadata": {"name": "code", "namespace": "team-a"}}


def test_an_unmodelled_kind_passes_through_unchanged(tmp_path: Path) -> None:
    custom = {
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {"name": "w", "namespace": "default", "labels": {"a": "b"}},
        "spec": {"size": 3, "nested": [{"x": 1}]},
        "extra": {"kept": True},
    }
    docs = load_files([write(tmp_path / "a.yaml", job_doc(), custom)])
    (companion,) = docs.companions
    assert companion.manifest == custom


def test_cluster_scoped_companions_get_no_namespace(tmp_path: Path) -> None:
    priority = {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": "high"},
        "value": 1000,
    }
    docs = load_files([write(tmp_path / "a.yaml", job_doc(namespace="x"), priority)])
    assert "namespace" not in docs.companions[0].manifest["metadata"]


def test_one_companion_for_every_job_of_its_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path / "a.yaml", job_doc("one"), job_doc("two"), CONFIG_MAP)
    plan = plan_json(capsys, str(path))
    (companion,) = plan["companions"]
    assert companion["jobs"] == ["default/one", "default/two"]
    main(["plan", str(path)])
    table = capsys.readouterr().out
    assert "1. ConfigMap/code  (companion from" in table
    assert "shared with default/two" in table and "shared with default/one" in table
    main(["plan", str(path), "--format", "yaml"])
    kinds = [m["kind"] for m in yaml.safe_load_all(capsys.readouterr().out)]
    assert kinds.count("ConfigMap") == 3  # the companion once, and two job records


def test_the_same_object_in_two_files_is_created_once_for_both(tmp_path: Path) -> None:
    a = write(tmp_path / "a.yaml", job_doc("one"), CONFIG_MAP)
    b = write(tmp_path / "b.yaml", job_doc("two"), CONFIG_MAP)
    (companion,) = load_files([a, b]).companions
    assert companion.jobs == ("default/one", "default/two")


def test_the_same_object_declared_differently_is_refused(tmp_path: Path) -> None:
    a = write(tmp_path / "a.yaml", job_doc("one"), CONFIG_MAP)
    b = write(tmp_path / "b.yaml", job_doc("two"), {**CONFIG_MAP, "data": {"k": "v"}})
    with pytest.raises(SpecError) as caught:
        load_files([a, b])
    (problem,) = caught.value.problems
    assert problem.source == f"{b} (document 2)"
    assert "ConfigMap default/code is also declared differently in" in problem.message


def test_a_companion_without_namespace_beside_jobs_of_several_namespaces_is_refused(
    tmp_path: Path,
) -> None:
    path = write(tmp_path / "a.yaml", job_doc("one", namespace="a"), job_doc("two"), CONFIG_MAP)
    with pytest.raises(SpecError) as caught:
        load_files([path])
    (problem,) = caught.value.problems
    assert problem.path == "metadata.namespace"
    assert "several namespaces (a, default)" in problem.message


def test_a_companion_that_is_one_of_raygangs_objects_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = {**CONFIG_MAP, "metadata": {"name": "demo"}}
    path = write(tmp_path / "a.yaml", job_doc("demo"), record)
    assert main(["plan", str(path)]) == EXIT_INVALID
    assert "ConfigMap default/demo is the record of RayJob default/demo" in capsys.readouterr().err


# A RayCluster is planned now (tests/raycluster/).
@pytest.mark.parametrize("kind", ["RayService", "RayCronJob"])
def test_other_ray_kinds_are_reported_as_not_handled(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = {"apiVersion": "ray.io/v1", "kind": kind, "metadata": {"name": "x"}, "spec": {}}
    path = write(tmp_path / "a.yaml", job_doc(), other)
    assert main(["plan", str(path)]) == EXIT_INVALID
    err = capsys.readouterr().err
    assert f"(document 2): kind: {kind} (ray.io/v1) is not handled" in err


def test_a_secret_is_never_printed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path / "a.yaml", job_doc(), SECRET)
    outputs = []
    for fmt in ("table", "json", "yaml"):
        assert main(["plan", str(path), "--format", fmt]) == 0
        outputs.append(capsys.readouterr().out)
    out_dir = tmp_path / "out"
    assert main(["plan", str(path), "--out", str(out_dir)]) == 0
    capsys.readouterr()
    outputs += [p.read_text() for p in out_dir.iterdir()]
    for text in outputs:
        assert "hunter2" not in text and "c2VjcmV0LXZhbHVl" not in text
    assert "Secret keys key, token, values not shown" in outputs[0]
    assert json.loads(outputs[1])["companions"][0]["secretKeys"] == ["key", "token"]
    secret = next(m for m in yaml.safe_load_all(outputs[2]) if m["kind"] == "Secret")
    assert secret["stringData"] == {"token": REDACTED}


# --- generateName -----------------------------------------------------------------------
def test_generate_name_gives_a_stable_name_within_kuberays_limit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = job_doc("", generateName="sample-")
    path = write(tmp_path / "a.yaml", manifest)
    first = plan_json(capsys, str(path))["jobs"][0]
    assert first["name"] == generated_name(manifest, 47)
    assert first["name"].startswith("sample-") and len(first["name"]) == len("sample-") + 6
    assert first["generateName"] == "sample-"
    assert plan_json(capsys, str(path))["jobs"][0]["name"] == first["name"]
    main(["plan", str(path)])
    assert "name          from generateName 'sample-'" in capsys.readouterr().out
    # Another manifest, another name; a long prefix is cut to fit 47 characters.
    other = job_doc("", generateName="sample-")
    other["spec"]["entrypoint"] = "python other.py"
    assert generated_name(other, 47) != first["name"]
    long = job_doc("", generateName="a" * 60)
    name = generated_name(long, 47)
    assert name is not None and len(name) == 47


def test_generate_name_does_not_depend_on_key_order() -> None:
    manifest = job_doc("", generateName="sample-")
    reordered = dict(reversed(list(manifest.items())))
    assert generated_name(manifest, 47) == generated_name(reordered, 47)


def test_two_identical_generate_name_jobs_are_a_duplicate(tmp_path: Path) -> None:
    manifest = job_doc("", generateName="sample-")
    with pytest.raises(SpecError) as caught:
        load_files([write(tmp_path / "a.yaml", manifest, manifest)])
    assert "is also defined in" in str(caught.value)


# --- List files -------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["List", "RayJobList"])
def test_a_list_file_is_read_as_its_items(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    served = job_doc("demo", namespace="default", uid="1234", resourceVersion="99")
    served["status"] = {"jobStatus": "RUNNING"}
    items: list[Any] = [served]
    if kind == "List":
        items.append({**CONFIG_MAP, "metadata": {"name": "code", "resourceVersion": "7"}})
    path = write(tmp_path / "a.yaml", {"apiVersion": "v1", "kind": kind, "items": items})
    docs = load_files([path])
    (job,) = docs.jobs
    assert job.source == f"{path} (items[0])"
    assert "status" not in job.raw and "uid" not in job.raw["metadata"]
    assert any("dropped status, metadata.uid, metadata.resourceVersion" in n for n in docs.ignored)
    if kind == "List":
        assert docs.companions[0].manifest["metadata"] == {"name": "code", "namespace": "default"}
    assert main(["plan", str(path)]) == 0, capsys.readouterr().err


# --- one gate -----------------------------------------------------------------------------
def test_a_gang_that_can_never_be_admitted_exits_3(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = stuck_file(tmp_path)
    assert main(["plan", str(path)]) == EXIT_NEVER_ADMITTED
    out, err = capsys.readouterr()
    assert "RayJob default/big" in out  # the plan is still printed
    assert "raygang: default/big can never be admitted as declared:" in err
    assert "exit 3" in err
    assert main(["plan", str(path), "--preflight", "warn"]) == 0
    assert "raygang: warning: preflight says default/big is stuck" in capsys.readouterr().err
    assert main(["plan", str(path), "--preflight", "off"]) == 0
    assert capsys.readouterr().err == ""


def test_the_stacks_preflight_setting_applies_to_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = stuck_file(tmp_path)
    stacks = tmp_path / "project" / "stacks"
    stacks.mkdir(parents=True)
    (stacks / "Pulumi.lax.yaml").write_text("config:\n  raygang:preflight: warn\n")
    project = ["--project-dir", str(tmp_path / "project")]
    assert main(["plan", str(path), "--stack", "lax", *project]) == 0
    # Without --stack, FILE arguments get raygang's defaults: preflight error.
    assert main(["plan", str(path), *project]) == EXIT_NEVER_ADMITTED
    # The command line wins over the stack.
    assert main(["plan", str(path), "--stack", "lax", "--preflight", "error", *project]) == 3
    capsys.readouterr()


def test_stack_settings_apply_to_files_but_not_its_jobs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path / "a.yaml", job_doc("solo"))
    stacks = tmp_path / "project" / "stacks"
    stacks.mkdir(parents=True)
    (stacks / "Pulumi.k.yaml").write_text(
        "config:\n  raygang:accounting: kuberay\n"
        f"  raygang:jobs:\n  - {json.dumps(job_doc('stackjob'))}\n"
    )
    project = ["--project-dir", str(tmp_path / "project")]
    with_stack = plan_json(capsys, str(path), "--stack", "k", *project)
    assert [j["name"] for j in with_stack["jobs"]] == ["solo"]
    assert with_stack["jobs"][0]["accounting"] == "kuberay"
    without = plan_json(capsys, str(path), *project)
    assert without["jobs"][0]["accounting"] == "effective"
    assert [j["name"] for j in plan_json(capsys, "--stack", "k", *project)["jobs"]] == ["stackjob"]


# --- --out ------------------------------------------------------------------------------
def test_out_writes_one_file_per_object_and_an_index(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path / "a.yaml", job_doc(), CONFIG_MAP)
    out = tmp_path / "out"
    assert main(["plan", str(path), "--out", str(out)]) == 0
    printed = capsys.readouterr().out.split()
    names = sorted(p.name for p in out.iterdir())
    assert names[0] == "001-configmap-default-code.yaml"
    assert INDEX in names and len(printed) == len(names)
    listed = [n for n in (out / INDEX).read_text().splitlines() if not n.startswith("#")]
    assert sorted([*listed, INDEX]) == names


def test_out_with_format_json_writes_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path / "a.yaml", job_doc())
    out = tmp_path / "out"
    assert main(["plan", str(path), "--out", str(out), "--format", "json"]) == 0
    files = sorted(p for p in out.iterdir() if p.name != INDEX)
    assert files and all(p.suffix == ".json" for p in files)
    assert json.loads(files[0].read_text())["kind"] == "ConfigMap"
    capsys.readouterr()


def test_out_refuses_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path / "a.yaml", job_doc())
    target = tmp_path / "exists.txt"
    target.write_text("mine")
    assert main(["plan", str(path), "--out", str(target)]) == EXIT_INVALID
    out, err = capsys.readouterr()
    assert f"raygang: --out {target}: is a file, not a directory" in err
    assert "Traceback" not in err and out == ""
    assert target.read_text() == "mine"


def test_out_refuses_an_unwritable_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path / "a.yaml", job_doc())
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert main(["plan", str(path), "--out", str(blocker / "sub")]) == EXIT_INVALID
    err = capsys.readouterr().err
    assert "cannot be written: Not a directory" in err


def test_out_refuses_a_directory_with_files_unless_replace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path / "a.yaml", job_doc(), CONFIG_MAP)
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.md").write_text("mine")
    assert main(["plan", str(path), "--out", str(out)]) == EXIT_INVALID
    assert "is not empty: notes.md" in capsys.readouterr().err
    assert main(["plan", str(path), "--out", str(out), "--replace"]) == 0
    assert "kept 1 entries raygang did not write: notes.md" in capsys.readouterr().err
    first = {p.name for p in out.iterdir()}
    # A second run: refused, then --replace removes exactly what the first one wrote.
    assert main(["plan", str(path), "--out", str(out)]) == EXIT_INVALID
    assert "(an earlier raygang plan)" in capsys.readouterr().err
    smaller = write(tmp_path / "b.yaml", job_doc())
    assert main(["plan", str(smaller), "--out", str(out), "--replace"]) == 0
    capsys.readouterr()
    second = {p.name for p in out.iterdir()}
    assert "001-configmap-default-code.yaml" in first
    assert "notes.md" in second and (out / "notes.md").read_text() == "mine"
    assert not any("code" in n for n in second)


def test_out_never_overwrites_a_file_it_did_not_write(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path / "a.yaml", job_doc(), CONFIG_MAP)
    out = tmp_path / "out"
    out.mkdir()
    (out / "001-configmap-default-code.yaml").write_text("mine")
    assert main(["plan", str(path), "--out", str(out), "--replace"]) == EXIT_INVALID
    assert "would be overwritten, but raygang did not write it" in capsys.readouterr().err
    assert (out / "001-configmap-default-code.yaml").read_text() == "mine"


def test_replace_needs_out(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", str(GOOD / "k8sjob.yaml"), "--replace"]) == EXIT_INVALID
    assert "--replace needs --out" in capsys.readouterr().err
