"""Code packages in the plan (issue 28): the ConfigMaps, the submitter, the submission ID,
the record's history and the resubmit counter, from manifest files on disk."""

from __future__ import annotations

import base64
import copy
import io
import json
import zipfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml
from raygang.kube.errors import SpecError
from raygang.kube.snapshot import snapshot_from_objects
from raygang.loader import load_documents, load_files
from raygang.pipeline import plan_everything
from raygang.plan import PlannedJob
from raygang.settings import StackSettings

FIXTURE = Path(__file__).parent / "fixtures" / "lifecycle" / "rayjob.yaml"
NOW = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)


def _write_job(root: Path, annotations: dict[str, str] | None = None, **spec: Any) -> Path:
    doc = yaml.safe_load(FIXTURE.read_text())
    doc["metadata"]["annotations"] = {"raygang.dev/working-dir": "./code", **(annotations or {})}
    doc["spec"]["entrypoint"] = "python main.py"
    doc["spec"].update(spec)
    root.mkdir(parents=True, exist_ok=True)
    path = root / "job.yaml"
    path.write_text(yaml.safe_dump(doc))
    code = root / "code" / "mypkg"
    if not code.exists():
        code.mkdir(parents=True)
        (code / "__init__.py").write_text('__version__ = "1.0.0"\n')
        (root / "code" / "main.py").write_text("import mypkg\nprint(mypkg.__version__)\n")
    return path


def _plan(path: Path, snapshot: Any = None, now: datetime = NOW) -> PlannedJob:
    docs = load_files([path])
    (job,) = plan_everything(
        docs, StackSettings(), base=path.parent, snapshot=snapshot, now=now
    ).jobs
    return job


def _manifest(job: PlannedJob, role: str) -> dict[str, Any]:
    found = job.resource(role)
    assert found is not None, role
    return dict(found.manifest)


def test_configmaps_hold_the_package_and_only_the_submitter_mounts_them(tmp_path: Path) -> None:
    job = _plan(_write_job(tmp_path))
    code = job.plan.code
    assert code is not None and code.files == ("main.py", "mypkg/__init__.py")
    roles = [r.role for r in job.resources]
    assert roles == ["record", "code-0", "podgroup", "raycluster", "submitter"]
    piece = _manifest(job, "code-0")
    assert piece["metadata"]["name"] == f"ray-rayjob-sample-code-{code.sha256[:12]}-0"
    assert piece["immutable"] is True
    assert base64.b64decode(piece["binaryData"]["part-000"]) == code.data
    with zipfile.ZipFile(io.BytesIO(code.data)) as archive:
        assert archive.read("mypkg/__init__.py") == b'__version__ = "1.0.0"\n'
    submitter = job.resource("submitter")
    assert submitter is not None
    assert "ConfigMap/" + piece["metadata"]["name"] in submitter.depends_on
    assert submitter.manifest["metadata"]["annotations"]["raygang.dev/code-package"] == code.sha256
    pod = submitter.manifest["spec"]["template"]["spec"]
    (projected,) = [v for v in pod["volumes"] if "projected" in v]
    assert projected["projected"]["sources"] == [
        {
            "configMap": {
                "name": piece["metadata"]["name"],
                "items": [{"key": "part-000", "path": "part-000"}],
            }
        }
    ]
    script = pod["containers"][0]["args"][0]
    assert script.startswith('python -c "import glob')
    assert code.sha256 in script and "--working-dir /var/run/raygang/code/working_dir " in script
    # Heads and workers are untouched.
    cluster = json.dumps(_manifest(job, "raycluster")["spec"])
    assert "raygang-code" not in cluster and "code-package" not in cluster
    record = _manifest(job, "record")["metadata"]["annotations"]
    assert record["raygang.dev/code-package"] == code.sha256


def test_a_large_package_is_split_in_order(tmp_path: Path) -> None:
    path = _write_job(tmp_path)
    (tmp_path / "code" / "blob.bin").write_bytes(bytes(range(256)) * 8000)  # 2,048,000 bytes
    job = _plan(path)
    pieces = [r for r in job.resources if r.role.startswith("code-")]
    assert len(pieces) == 3
    data = b"".join(
        base64.b64decode(r.manifest["binaryData"][f"part-{i:03d}"]) for i, r in enumerate(pieces)
    )
    assert job.plan.code is not None and data == job.plan.code.data
    for r in pieces:
        encoded = sum(len(v) for v in r.manifest["binaryData"].values())
        assert encoded <= 1024 * 1024


def test_changed_file_new_hash_and_submission_unchanged_same(tmp_path: Path) -> None:
    path = _write_job(tmp_path)
    first = _plan(path)
    assert _plan(path).submission_id == first.submission_id
    (tmp_path / "code" / "mypkg" / "__init__.py").write_text('__version__ = "1.0.1"\n')
    second = _plan(path)
    assert first.plan.code is not None and second.plan.code is not None
    assert second.plan.code.sha256 != first.plan.code.sha256
    assert second.submission_id != first.submission_id


def test_without_a_package_the_submission_id_is_unchanged(tmp_path: Path) -> None:
    plain = load_files([FIXTURE])
    (job,) = plan_everything(plain, StackSettings(), base=tmp_path, now=NOW).jobs
    assert job.plan.code is None and job.lifecycle.history == ()
    assert "raygang.dev/history" not in _manifest(job, "record")["metadata"]["annotations"]


def test_resubmit_counter_mints_a_new_id_with_the_same_package(tmp_path: Path) -> None:
    first = _plan(_write_job(tmp_path))
    again = _plan(_write_job(tmp_path, {"raygang.dev/resubmit": "1"}))
    assert again.submission_id != first.submission_id
    assert again.plan.code is not None and first.plan.code is not None
    assert again.plan.code.sha256 == first.plan.code.sha256
    with pytest.raises(SpecError, match="raise it by one"):
        _plan(_write_job(tmp_path, {"raygang.dev/resubmit": "-1"}))


def test_refused_with_job_id_sidecar_mode_or_a_second_working_dir(tmp_path: Path) -> None:
    with pytest.raises(SpecError, match=r"spec\.jobId"):
        _plan(_write_job(tmp_path / "a", jobId="fixed"))
    with pytest.raises(SpecError, match="K8sJobMode"):
        _plan(_write_job(tmp_path / "b", submissionMode="SidecarMode"))
    with pytest.raises(SpecError, match="sets working_dir"):
        _plan(_write_job(tmp_path / "c", runtimeEnvYAML="working_dir: s3://b/c.zip\n"))


def test_only_the_file_loader_packs(tmp_path: Path) -> None:
    doc = yaml.safe_load(_write_job(tmp_path).read_text())
    docs = load_documents([("inline", doc)])
    with pytest.raises(SpecError, match="only raygang's file loader packs"):
        plan_everything(docs, StackSettings(), base=tmp_path, now=NOW)


def test_inline_stack_job_is_relative_to_the_project(tmp_path: Path) -> None:
    doc = yaml.safe_load(_write_job(tmp_path).read_text())
    docs = load_files([], inline_jobs=[doc], base=tmp_path)
    (job,) = plan_everything(docs, StackSettings(), base=tmp_path, now=NOW).jobs
    assert job.plan.code is not None and job.plan.code.files[0] == "main.py"


def test_a_missing_directory_names_the_manifest_and_the_field(tmp_path: Path) -> None:
    path = _write_job(tmp_path, {"raygang.dev/working-dir": "./gone"})
    with pytest.raises(SpecError) as exc:
        load_files([path])
    (problem,) = exc.value.problems
    assert problem.source == str(path)
    assert problem.path == "metadata.annotations['raygang.dev/working-dir']"
    assert "'./gone'" in problem.message


_COMPLETE = {
    "completionTime": "2026-12-01T10:30:00Z",
    "conditions": [
        {
            "lastTransitionTime": "2026-12-01T10:30:00Z",
            "status": "True",
            "type": condition,
        }
        for condition in ("SuccessCriteriaMet", "Complete")
    ],
    "succeeded": 1,
}


def _cluster_from(job: PlannedJob, finished: bool = False) -> Any:
    """The cluster after `pulumi up` declared ``job``; its submitter Job complete when
    ``finished``."""
    objects = [copy.deepcopy(dict(r.manifest)) for r in job.resources]
    for obj in objects:
        obj["metadata"]["uid"] = f"uid-{obj['kind']}"
        obj["metadata"]["creationTimestamp"] = "2026-12-01T10:00:00Z"
        if finished and obj["kind"] == "Job":
            obj["status"] = copy.deepcopy(_COMPLETE)
    return snapshot_from_objects(objects, "test")


def test_history_is_kept_from_the_facts_and_idempotent(tmp_path: Path) -> None:
    path = _write_job(tmp_path)
    first = _plan(path)
    (entry,) = first.lifecycle.history
    assert entry["submissionId"] == first.submission_id
    assert entry["codePackage"] == first.plan.code.sha256  # type: ignore[union-attr]
    assert entry["submittedAt"] == "2026-12-01T10:00:00Z"
    cluster = _cluster_from(first)
    later = datetime(2026, 12, 1, 11, 0, tzinfo=UTC)
    again = _plan(path, cluster, later)
    assert again.lifecycle.history == first.lifecycle.history
    assert _manifest(again, "record") == _manifest(first, "record")
    # The run finished: its entry gets the result.
    done = _plan(path, _cluster_from(again, finished=True), later)
    (entry,) = done.lifecycle.history
    assert entry["result"] == "succeeded" and entry["finishedAt"] == "2026-12-01T10:30:00Z"
    # A new version after it: a second entry, the first kept as it was.
    finished = _cluster_from(done, finished=True)
    (tmp_path / "code" / "main.py").write_text("print('v2')\n")
    changed = _plan(path, finished, later)
    old, new = changed.lifecycle.history
    assert old == entry
    assert new["submissionId"] == changed.submission_id != first.submission_id
    assert new["submittedAt"] == "2026-12-01T11:00:00Z"
    assert any("history:" in line for line in changed.lifecycle.table_lines())


def test_the_script_parses_and_unpacks_nothing_but_the_package(tmp_path: Path) -> None:
    import subprocess

    job = _plan(_write_job(tmp_path))
    script = _manifest(job, "submitter")["spec"]["template"]["spec"]["containers"][0]["args"][0]
    checked = subprocess.run(["bash", "-n", "-c", script], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr


def test_a_template_volume_of_the_same_name_is_refused(tmp_path: Path) -> None:
    template = {
        "spec": {
            "restartPolicy": "Never",
            "volumes": [{"name": "raygang-code", "emptyDir": {}}],
            "containers": [{"name": "ray-job-submitter", "image": "rayproject/ray:2.52.0"}],
        }
    }
    with pytest.raises(SpecError, match="raygang-code"):
        _plan(_write_job(tmp_path, submitterPodTemplate=template))


def test_history_reader_tolerates_what_is_not_a_history() -> None:
    from raygang.lifecycle.history import history_json, next_history, read_history

    assert read_history(None) == read_history("{") == read_history('{"a": 1}') == []
    assert read_history('[{"submissionId": 3}, 7]') == []
    entries = next_history(
        [],
        attempt=1,
        submission_id="j-1",
        code=None,
        now="2026-12-01T10:00:00Z",
        finished_at=None,
        result=None,
    )
    assert read_history(history_json(entries)) == [dict(e) for e in entries]
    assert "codePackage" not in entries[0]


def test_py_modules_reach_the_runtime_env_as_unpacked_paths(tmp_path: Path) -> None:
    path = _write_job(
        tmp_path,
        {"raygang.dev/py-modules": "./libs/helper"},
        runtimeEnvYAML="env_vars:\n  A: b\n",
    )
    (tmp_path / "libs" / "helper").mkdir(parents=True)
    (tmp_path / "libs" / "helper" / "__init__.py").write_text("H = 1\n")
    job = _plan(path)
    script = _manifest(job, "submitter")["spec"]["template"]["spec"]["containers"][0]["args"][0]
    expected = json.dumps(
        {
            "env_vars": {"A": "b"},
            "py_modules": ["/var/run/raygang/code/.raygang-py-modules/0/helper"],
        },
        separators=(",", ":"),
    )
    assert "--runtime-env-json " + json.dumps(expected) in script
    assert "--working-dir /var/run/raygang/code/working_dir" in script
    # One package holds both: the history names it.
    assert job.lifecycle.history[0]["codePackage"] == job.plan.code.sha256  # type: ignore[union-attr]


def test_py_modules_alone_and_twice(tmp_path: Path) -> None:
    path = _write_job(tmp_path, {"raygang.dev/py-modules": "./code/mypkg"})
    doc = yaml.safe_load(path.read_text())
    del doc["metadata"]["annotations"]["raygang.dev/working-dir"]
    path.write_text(yaml.safe_dump(doc))
    job = _plan(path)
    script = _manifest(job, "submitter")["spec"]["template"]["spec"]["containers"][0]["args"][0]
    assert "--working-dir" not in script and ".raygang-py-modules/0/mypkg" in script
    doc["spec"]["runtimeEnvYAML"] = "py_modules: [s3://b/m.zip]\n"
    path.write_text(yaml.safe_dump(doc))
    with pytest.raises(SpecError, match="give them in one place"):
        _plan(path)
