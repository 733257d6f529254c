"""Issue 29: hostile input, round two.

* Item 1: every name that becomes a path is checked as Kubernetes checks it, and ``--out``
  writes inside DIR only, through no link, removing only regular files, without waiting on
  a FIFO or reading an index of any size.
* Item 2: one test of "this is a Secret" for every output; the job record's redaction on
  the parsed runtime env and every env; no message quotes a value that may be a secret.
* Item 4: what cannot run is refused at plan time, wrong values exit 2 naming the file and
  the field, duplicates are refused, and input at fault is no internal error.
* Item 5: secure defaults: ``drop: [ALL]`` beside what a submitter template adds; companions
  granting cluster-wide rights or intercepting admission named (an error with
  ``raygang:refusePrivilegedCompanions``); cluster-scoped kinds get no namespace.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
import yaml
from raygang.cli import EXIT_INVALID, main
from raygang.kube.errors import SpecError
from raygang.kube.secretkind import is_core_secret
from raygang.kuberay.argsize import MAX_ARG_STRLEN
from raygang.kuberay.redact import REDACTED, redact_rayjob
from raygang.loader import load_files
from raygang.render import INDEX
from raygang.render.outdir import MAX_INDEX_BYTES

from tests.builders import container, job_doc, rayjob, write


def companion(kind: str = "ConfigMap", name: str = "code", **meta: Any) -> dict[str, Any]:
    api = meta.pop("apiVersion", "v1")
    return {"apiVersion": api, "kind": kind, "metadata": {"name": name, **meta}}


def problems_of(path: Path) -> list[str]:
    with pytest.raises(SpecError) as caught:
        load_files([path])
    return [str(p) for p in caught.value.problems]


# --- item 1: names that become paths ------------------------------------------------------------


@pytest.mark.parametrize(
    ("doc", "field", "said"),
    [
        (companion(kind="X/../../pwn"), "kind", "'X/../../pwn' is not a valid kind"),
        (companion(kind="Config Map"), "kind", "'Config Map' is not a valid kind"),
        (companion(kind="Secret "), "kind", "'Secret ' is not a valid kind"),
        (companion(name="../../etc"), "metadata.name", "'../../etc' is not a valid DNS-1123"),
        (companion(name="a\nb"), "metadata.name", "'a\\nb' is not a valid DNS-1123 subdomain"),
        (companion(name="a\x1b[2Jb"), "metadata.name", "'a\\x1b[2Jb' is not a valid DNS-1123"),
        (companion(namespace="../x"), "metadata.namespace", "'../x' is not a valid DNS-1123"),
        (companion(namespace="a.b"), "metadata.namespace", "'a.b' is not a valid DNS-1123 label"),
        (companion(apiVersion="v1/../x"), "apiVersion", "'v1/../x' has more than one '/'"),
        (companion(apiVersion="Apps/v1"), "apiVersion", "the group 'Apps' of 'Apps/v1' is not"),
        (companion(apiVersion="apps/V1"), "apiVersion", "the version 'V1' of 'apps/V1' is not"),
        (
            companion("ClusterRole", "a/b", apiVersion="rbac.authorization.k8s.io/v1"),
            "metadata.name",
            "'a/b' is not a valid path segment name",
        ),
        (
            companion("Role", "..", apiVersion="rbac.authorization.k8s.io/v1"),
            "metadata.name",
            "'..' is not a valid path segment name",
        ),
    ],
)
def test_a_companion_named_as_kubernetes_would_refuse_is_refused(
    tmp_path: Path, doc: dict[str, Any], field: str, said: str
) -> None:
    path = write(tmp_path / "a.yaml", job_doc(), doc)
    (problem,) = problems_of(path)
    assert f"a.yaml (document 2): {field}: {said}" in problem
    assert "\n" not in problem and "\x1b" not in problem


def test_names_kubernetes_accepts_are_accepted(tmp_path: Path) -> None:
    rbac = "rbac.authorization.k8s.io/v1"
    path = write(
        tmp_path / "a.yaml",
        job_doc(),
        companion("ClusterRole", "system:aggregate-to-view", apiVersion=rbac),
        companion("ConfigMap", "my.config-1"),
        companion("Secret", "s", apiVersion="/v1"),  # ParseGroupVersion: the core group
        companion("Widget", "w", apiVersion="example.com/v1alpha1", namespace="team-a"),
    )
    kinds = [c.kind for c in load_files([path]).companions]
    assert kinds == ["ClusterRole", "ConfigMap", "Secret", "Widget"]


def test_a_kind_with_a_path_writes_nothing_outside_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path / "a.yaml", job_doc(), companion(kind="X/../../pwn"))
    out = tmp_path / "deep" / "out"
    assert main(["plan", str(path), "--out", str(out)]) == EXIT_INVALID
    assert "kind: 'X/../../pwn' is not a valid kind" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["a.yaml"]


# --- item 1: --out through no link, regular files only ------------------------------------------


def _plan_into(out: Path, tmp_path: Path) -> int:
    path = write(tmp_path / "a.yaml", job_doc(), companion())
    return main(["plan", str(path), "--out", str(out), "--replace"])


def test_a_link_where_a_manifest_goes_is_not_followed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, victim = tmp_path / "out", tmp_path / "victim"
    out.mkdir()
    victim.write_text("mine")
    (out / "001-configmap-default-code.yaml").symlink_to(victim)
    assert _plan_into(out, tmp_path) == EXIT_INVALID
    assert "would be overwritten, but raygang did not write it" in capsys.readouterr().err
    assert victim.read_text() == "mine"


def test_a_link_listed_in_the_index_is_neither_removed_nor_followed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, victim = tmp_path / "out", tmp_path / "victim"
    out.mkdir()
    victim.write_text("mine")
    link = out / "001-configmap-default-code.yaml"
    link.symlink_to(victim)
    (out / INDEX).write_text(f"{link.name}\n../victim\n")
    assert _plan_into(out, tmp_path) == EXIT_INVALID
    assert "would be overwritten, but raygang did not write it" in capsys.readouterr().err
    assert link.is_symlink() and victim.read_text() == "mine"


def test_a_directory_listed_in_the_index_is_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    (out / "data").mkdir(parents=True)
    (out / "data" / "f").write_text("mine")
    (out / INDEX).write_text("data\n")
    assert _plan_into(out, tmp_path) == 0
    assert "kept 1 entries raygang did not write: data" in capsys.readouterr().err
    assert (out / "data" / "f").read_text() == "mine"


def _finishes(run: Any, seconds: float = 60) -> Any:
    done: list[Any] = []
    worker = threading.Thread(target=lambda: done.append(run()), daemon=True)
    worker.start()
    worker.join(seconds)
    assert done, f"still running after {seconds} s"
    return done[0]


def test_a_fifo_listed_in_the_index_does_not_hang(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    fifo = out / "001-configmap-default-code.yaml"
    os.mkfifo(fifo)
    (out / INDEX).write_text(f"{fifo.name}\n")
    assert _finishes(lambda: _plan_into(out, tmp_path)) == EXIT_INVALID
    assert "would be overwritten, but raygang did not write it" in capsys.readouterr().err
    assert fifo.exists()


def test_a_fifo_as_the_index_does_not_hang(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    os.mkfifo(out / INDEX)
    assert _finishes(lambda: _plan_into(out, tmp_path)) == EXIT_INVALID
    assert f"{out / INDEX}: is not a regular file" in capsys.readouterr().err


def test_a_huge_index_is_refused_without_reading_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    with (out / INDEX).open("wb") as index:
        index.truncate(64 * 1024 * 1024)  # sparse: 64 MiB of zeros on no disk
    assert _plan_into(out, tmp_path) == EXIT_INVALID
    err = capsys.readouterr().err
    assert f"is {64 * 1024 * 1024} bytes, more than the {MAX_INDEX_BYTES}" in err


def test_an_index_naming_paths_removes_only_plain_entries_of_dir(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, outside = tmp_path / "out", tmp_path / "outside.yaml"
    out.mkdir()
    outside.write_text("mine")
    (out / "old.yaml").write_text("written before")
    (out / INDEX).write_text(f"old.yaml\n../outside.yaml\n{outside}\n..\n.\n")
    assert _plan_into(out, tmp_path) == 0
    capsys.readouterr()
    assert outside.read_text() == "mine" and not (out / "old.yaml").exists()


# --- item 2: one definition of a Secret, for every output ---------------------------------------

CANARY = "canary-5ecret-value"


def _secret(name: str, api: str = "v1", kind: str = "Secret") -> dict[str, Any]:
    return {
        "apiVersion": api,
        "kind": kind,
        "metadata": {"name": name},
        "data": {"pw": CANARY},
        "stringData": {"token": CANARY},
    }


@pytest.mark.parametrize(
    ("api", "kind", "secret"),
    [
        ("v1", "Secret", True),
        ("/v1", "Secret", True),
        (" v1 ", " Secret ", True),
        ("v1", "secret", True),
        ("v1", "SECRET", True),
        ("example.com/v1", "Secret", False),
        ("v1", "ConfigMap", False),
        ("v1", "SecretList", False),
    ],
)
def test_one_definition_of_a_secret(api: str, kind: str, secret: bool) -> None:
    assert is_core_secret({"apiVersion": api, "kind": kind}) is secret


def _outputs(path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    texts = []
    for fmt in ("table", "json", "yaml"):
        assert main(["plan", str(path), "--format", fmt]) == 0
        out, err = capsys.readouterr()
        texts += [out, err]
    out_dir = tmp_path / "out"
    assert main(["plan", str(path), "--out", str(out_dir)]) == 0
    capsys.readouterr()
    texts += [p.read_text() for p in sorted(out_dir.iterdir())]
    return "\n".join(texts)


def test_no_spelling_of_a_secret_prints_its_values(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    nested = {
        "apiVersion": "v1",
        "kind": "List",
        "items": [
            {"apiVersion": "v1", "kind": "SecretList", "items": [_secret("in-a-list")]},
            _secret("lower", kind="secret"),
        ],
    }
    path = write(tmp_path / "a.yaml", job_doc(), _secret("slash", api="/v1"), nested)
    text = _outputs(path, tmp_path, capsys)
    assert CANARY not in text
    for name in ("slash", "in-a-list", "lower"):
        assert name in text
    assert text.count("Secret keys pw, token, values not shown") == 3


def test_a_secret_in_a_nested_list_is_its_own_companion(tmp_path: Path) -> None:
    nested = {
        "apiVersion": "v1",
        "kind": "List",
        "items": [
            {"apiVersion": "v1", "kind": "SecretList", "items": [_secret("a"), _secret("b")]},
            companion(),
        ],
    }
    path = write(tmp_path / "a.yaml", job_doc(), nested)
    found = load_files([path]).companions
    # Breadth first, as kubectl's FlattenListVisitor queues them.
    assert [(c.kind, c.name, c.source.rpartition("(")[2]) for c in found] == [
        ("ConfigMap", "code", "document 2, items[1])"),
        ("Secret", "a", "document 2, items[0].items[0])"),
        ("Secret", "b", "document 2, items[0].items[1])"),
    ]
    assert all(c.is_secret for c in found[1:])


@pytest.mark.parametrize(
    ("field", "value", "said"),
    [
        ("data", CANARY, "data: a string of 19 characters (value not shown) is not a map"),
        ("stringData", [CANARY], "stringData: a list of 1 items (value not shown) is not a map"),
        ("data", {"pw": 12345678}, "data['pw']: a number (value not shown) is not a string"),
    ],
)
def test_secret_values_that_are_not_maps_of_strings_are_refused_unquoted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], field: str, value: Any, said: str
) -> None:
    secret = {**_secret("s"), field: value}
    if field == "stringData":
        secret.pop("data")
    path = write(tmp_path / "a.yaml", job_doc(), secret)
    assert main(["plan", str(path), "--format", "yaml"]) == EXIT_INVALID
    out, err = capsys.readouterr()
    assert said in err
    assert "12345678" not in err and CANARY not in err and out == ""


def test_a_list_whose_items_is_a_map_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    listed = {"apiVersion": "v1", "kind": "List", "items": {"a": companion()}}
    path = write(tmp_path / "a.yaml", job_doc(), listed)
    assert main(["plan", str(path)]) == EXIT_INVALID
    assert "a.yaml (document 2): items: a map (value not shown) is not a list" in (
        capsys.readouterr().err
    )


# --- item 2: the job record's redaction ---------------------------------------------------------


def _record(runtime_env: str | None = None, env: list[Any] | None = None, **spec: Any) -> str:
    head = [dict(container("head", {"cpu": "1"}), env=env or [])]
    manifest = rayjob(head=head)
    if runtime_env is not None:
        manifest["spec"]["runtimeEnvYAML"] = runtime_env
    manifest["spec"].update(spec)
    return json.dumps(redact_rayjob(manifest))


@pytest.mark.parametrize(
    "runtime_env",
    [
        "pip: ['git+https://deploy:p@ss:w0rd@github.com/org/repo']\n",
        "working_dir: 'https://u:a@b@c@example.com/x.zip'\n",
        "env_vars: 'API_TOKEN=s3cr3t'\n",
        "env_vars: &e {A: s3cr3t}\nconfig: {copy: *e}\n",
        "env_vars: {A: 12345678}\n",
        "config: {GITHUB_PAT: s3cr3t, MYSQL_PWD: s3cr3t, STRIPE_KEY: s3cr3t, HF_AUTH: s3cr3t}\n",
        "config: {pin_token: 12345678, db_password: 1.5}\n",
    ],
)
def test_the_record_redacts_the_runtime_env_as_ray_reads_it(runtime_env: str) -> None:
    text = _record(runtime_env)
    for secret in ("s3cr3t", "p@ss", "w0rd", "a@b", "12345678", "1.5"):
        assert secret not in text, secret


def test_the_record_keeps_what_is_not_a_secret() -> None:
    # A pip VCS revision is no user info; a bare "key" (tolerations, selectors) is no secret.
    runtime_env = "pip: ['git+https://github.com/org/repo@v1.2']\nconfig: {key: zone, monkey: 3}\n"
    assert json.loads(_record(runtime_env))["spec"]["runtimeEnvYAML"] == runtime_env


def test_the_record_redacts_env_values_of_any_type() -> None:
    env = [{"name": "PIN", "value": 12345678}, {"name": "CFG", "value": {"a": "s3cr3t"}}]
    text = _record(env=env)
    assert "12345678" not in text and "s3cr3t" not in text
    assert text.count(REDACTED) == 2


# --- item 2: no message quotes a value that may be a secret -------------------------------------


def test_an_env_value_of_the_wrong_type_is_not_quoted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    job = job_doc()
    head = job["spec"]["rayClusterSpec"]["headGroupSpec"]["template"]["spec"]["containers"][0]
    head["env"] = [{"name": "DB_PASSWORD", "value": 12345678}]
    path = write(tmp_path / "a.yaml", job)
    assert main(["plan", str(path)]) == EXIT_INVALID
    err = capsys.readouterr().err
    assert "env[0].value: a number (value not shown) is not a string" in err
    assert "12345678" not in err


def test_a_runtime_env_that_is_not_a_map_is_not_quoted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    job = job_doc()
    job["spec"]["runtimeEnvYAML"] = "API_TOKEN=s3cr3t"
    path = write(tmp_path / "a.yaml", job)
    assert main(["plan", str(path)]) == EXIT_INVALID
    err = capsys.readouterr().err
    assert "runtimeEnvYAML must be a YAML mapping, not str (16 characters, not shown)" in err
    assert "s3cr3t" not in err


def test_a_dotenv_file_given_as_a_manifest_or_a_snapshot_is_not_quoted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dotenv = tmp_path / ".env"
    dotenv.write_text("API_TOKEN=s3cr3t\nB=2\n")
    good = write(tmp_path / "a.yaml", job_doc())
    for argv in ([str(dotenv)], [str(good), "--cluster", str(dotenv)]):
        assert main(["plan", *argv]) == EXIT_INVALID
        err = capsys.readouterr().err
        assert "<document>: a string of 20 characters (value not shown) is not a" in err
        assert "s3cr3t" not in err


def test_a_snapshot_env_value_of_the_wrong_type_is_not_quoted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    container = {"name": "c", "env": [{"name": "DB_PASSWORD", "value": 12345678}]}
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "namespace": "default"},
        "spec": {"containers": [container]},
    }
    snapshot = write(tmp_path / "cluster.yaml", pod)
    good = write(tmp_path / "a.yaml", job_doc())
    assert main(["plan", str(good), "--cluster", str(snapshot)]) == EXIT_INVALID
    err = capsys.readouterr().err
    assert "spec.containers[0].env[0].value: Pod default/p: is a number (value not shown)" in err
    assert "12345678" not in err


# --- item 4: refused at plan time what cannot run -----------------------------------------------


def _k8s_job(entrypoint: str = "python main.py") -> dict[str, Any]:
    job = job_doc()
    job["spec"]["submissionMode"] = "K8sJobMode"
    job["spec"]["entrypoint"] = entrypoint
    return job


def _invalid(tmp_path: Path, capsys: pytest.CaptureFixture[str], *docs: Any) -> str:
    path = write(tmp_path / "a.yaml", *docs)
    assert main(["plan", str(path)]) == EXIT_INVALID
    out, err = capsys.readouterr()
    assert out == "" and "internal error" not in err
    return err


def test_a_submitter_script_past_the_kernels_argument_limit_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The script is the entrypoint plus ~725 bytes of KubeRay's command around it.
    fits = write(tmp_path / "fits.yaml", _k8s_job("python -c 'pass' # " + "x" * 130_000))
    assert main(["plan", str(fits), "--format", "yaml"]) == 0
    (job,) = [d for d in yaml.safe_load_all(capsys.readouterr().out) if d["kind"] == "Job"]
    script = job["spec"]["template"]["spec"]["containers"][0]["args"][0]
    assert len(script.encode()) + 1 < MAX_ARG_STRLEN
    err = _invalid(tmp_path, capsys, _k8s_job("python -c 'pass' # " + "x" * 131_000))
    assert (
        "a.yaml: spec.entrypoint: the submitter Job's container ray-job-submitter args[0] would "
        f"be {len(script.encode()) + 1 + 1000:,} bytes, more than the 131,072 Linux passes in "
        "one argument" in err
    )


def test_a_long_env_value_is_refused_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    job = job_doc()
    head = job["spec"]["rayClusterSpec"]["headGroupSpec"]["template"]["spec"]["containers"][0]
    head["env"] = [{"name": "BLOB", "value": "x" * MAX_ARG_STRLEN}]
    err = _invalid(tmp_path, capsys, job)
    assert "a.yaml: spec: the head's container ray-head env[0] would be 131,078 bytes" in err


@pytest.mark.parametrize(
    "resources",
    ['{"Custom": ' + "9" * 5000 + "}", "[" * 100_000 + "]" * 100_000, '{"a": 1, "a": 2}'],
)
def test_entrypoint_resources_ray_could_not_read_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], resources: str
) -> None:
    job = _k8s_job()
    job["spec"]["entrypointResources"] = resources
    err = _invalid(tmp_path, capsys, job)
    assert "spec.entrypointResources:" in err and "is not a JSON object" in err


def test_runtime_env_integers_past_float64_reach_ray_as_text_as_go_yaml_reads_them() -> None:
    from raygang.kuberay.submitter import runtime_env_json

    # go-yaml v2 resolves an integer it cannot hold as a string: Ray never parses 5000 digits.
    assert runtime_env_json("a: " + "1" * 5000) == '{"a":"' + "1" * 5000 + '"}'


# --- item 4: wrong values exit 2 with file, field and what is accepted --------------------------


def _stack(tmp_path: Path, text: str) -> list[str]:
    (tmp_path / "stacks").mkdir(exist_ok=True)
    (tmp_path / "stacks" / "Pulumi.t.yaml").write_text("config:\n" + text)
    good = write(tmp_path / "a.yaml", job_doc())
    return ["plan", str(good), "--stack", "t", "--project-dir", str(tmp_path)]


@pytest.mark.parametrize(
    ("setting", "said"),
    [
        (
            "raygang:clusterReadyTimeoutSeconds: true",
            "raygang:clusterReadyTimeoutSeconds: the boolean true is not a whole number",
        ),
        (
            "raygang:completionTimeoutSeconds: false",
            "raygang:completionTimeoutSeconds: the boolean false is not a whole number",
        ),
        ("raygang:snapshotMaxMiB: true", "raygang:snapshotMaxMiB: the boolean true is not a"),
        (
            "raygang:clusterDomain: " + "a" * 64 + ".local",
            "raygang:clusterDomain: a label: '" + "a" * 64 + "' is 64 characters long",
        ),
        ("raygang:clusterDomain: a..local", "raygang:clusterDomain: 'a..local' has an empty label"),
        (
            "raygang:nodeShapes: [{name: n, allocatable: {cpu: '-4'}}]",
            "raygang:nodeShapes: [0].allocatable['cpu']: '-4' is negative",
        ),
    ],
)
def test_wrong_settings_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], setting: str, said: str
) -> None:
    assert main(_stack(tmp_path, f"  {setting}\n")) == EXIT_INVALID
    assert said in capsys.readouterr().err


@pytest.mark.parametrize("stack", ["", "../../etc/x", "a b", "x" * 101])
def test_a_stack_name_pulumi_would_refuse_exits_2(
    capsys: pytest.CaptureFixture[str], stack: str
) -> None:
    assert main(["plan", "--stack", stack]) == EXIT_INVALID
    assert f"--stack: <value>: {stack!r} is not a stack name" in capsys.readouterr().err


SNAPSHOT_NODE = {
    "apiVersion": "v1",
    "kind": "Node",
    "metadata": {"name": "n1"},
    "status": {"allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110"}},
}


@pytest.mark.parametrize(
    ("objects", "said"),
    [
        (
            [{**SNAPSHOT_NODE, "spec": {"taints": [{"key": "a", "effect": "Explode"}]}}],
            "items[0].spec.taints[0].effect: Node n1: is the string 'Explode' (accepted: "
            "'NoSchedule' or 'PreferNoSchedule' or 'NoExecute')",
        ),
        (
            [{**SNAPSHOT_NODE, "status": {"allocatable": {"cpu": "-8"}}}],
            "items[0].status.allocatable: Node n1: is a map with keys cpu (accepted: a map of "
            "quantities of 0 or more (entry 'cpu' is '-8'))",
        ),
        (
            [
                {
                    "apiVersion": "scheduling.volcano.sh/v1beta1",
                    "kind": "Queue",
                    "metadata": {"name": "q"},
                    "spec": {"capability": {"cpu": "-1"}},
                }
            ],
            "items[0].spec.capability: Queue q: is a map with keys cpu (accepted: a map of "
            "quantities of 0 or more",
        ),
        (
            [SNAPSHOT_NODE, SNAPSHOT_NODE],
            "items[1].metadata.name: Node n1: is also at {snapshot}: items[0]; the snapshot would "
            "keep one of them silently",
        ),
        (
            [
                {
                    "apiVersion": "v1",
                    "kind": "ConfigMap",
                    "metadata": {"name": "r", "namespace": "a"},
                },
                {
                    "apiVersion": "v1",
                    "kind": "ConfigMap",
                    "metadata": {"name": "r", "namespace": "b"},
                },
                {
                    "apiVersion": "v1",
                    "kind": "ConfigMap",
                    "metadata": {"name": "r", "namespace": "a"},
                },
            ],
            "items[2].metadata.name: ConfigMap a/r: is also at {snapshot}: items[0]",
        ),
    ],
)
def test_snapshots_the_api_server_could_not_have_given_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], objects: list[Any], said: str
) -> None:
    snapshot = write(
        tmp_path / "cluster.yaml", {"apiVersion": "v1", "kind": "List", "items": objects}
    )
    good = write(tmp_path / "a.yaml", job_doc())
    assert main(["plan", str(good), "--cluster", str(snapshot)]) == EXIT_INVALID
    assert said.format(snapshot=snapshot) in capsys.readouterr().err


def test_automount_service_account_token_as_a_string_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    job = job_doc()
    job["spec"]["rayClusterSpec"]["headGroupSpec"]["template"]["spec"][
        "automountServiceAccountToken"
    ] = "false"
    err = _invalid(tmp_path, capsys, job)
    assert (
        "headGroupSpec.template.spec.automountServiceAccountToken: the string 'false' is not a "
        "boolean (accepted: true or false, without quotes)" in err
    )


def test_a_duplicate_env_vars_key_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    job = job_doc()
    job["spec"]["runtimeEnvYAML"] = "env_vars:\n  A: x\n  A: y\n"
    err = _invalid(tmp_path, capsys, job)
    assert (
        "spec.runtimeEnvYAML: runtimeEnvYAML is not valid YAML: line 3, env_vars.A: has the " in err
    )
    assert "key 'A' twice (first at line 2)" in err


def test_yaml_with_non_ascii_text_under_an_ascii_stdout(tmp_path: Path) -> None:
    job = job_doc()
    job["metadata"]["annotations"] = {"note": "caf\u00e9 \u4e2d"}
    path = write(tmp_path / "a.yaml", job)
    env = {**os.environ, "PYTHONIOENCODING": "ascii", "PYTHONPATH": os.pathsep.join(sys.path)}
    for fmt in ("yaml", "table", "json"):
        done = subprocess.run(
            [sys.executable, "-m", "raygang", "plan", str(path), "--format", fmt],
            capture_output=True,
            env=env,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        if fmt == "yaml":
            docs = list(yaml.safe_load_all(done.stdout.decode("ascii")))
            annotations = docs[0]["metadata"]["annotations"]
            assert json.loads(annotations["raygang.dev/rayjob"])["metadata"]["annotations"] == {
                "note": "caf\u00e9 \u4e2d"
            }


# --- item 5: secure defaults ---------------------------------------------------------------------

RBAC = "rbac.authorization.k8s.io/v1"


def test_a_capability_the_submitter_template_adds_stays_added_and_all_else_is_dropped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    job = _k8s_job()
    context = {"capabilities": {"add": ["NET_BIND_SERVICE"]}}
    job["spec"]["submitterPodTemplate"] = {
        "spec": {
            "restartPolicy": "Never",
            "containers": [
                {"name": "s", "image": "rayproject/ray:2.52.0", "securityContext": context}
            ],
        }
    }
    path = write(tmp_path / "a.yaml", job)
    assert main(["plan", str(path), "--format", "yaml"]) == 0
    (submitter,) = [d for d in yaml.safe_load_all(capsys.readouterr().out) if d["kind"] == "Job"]
    container = submitter["spec"]["template"]["spec"]["containers"][0]
    assert container["securityContext"]["capabilities"] == {
        "add": ["NET_BIND_SERVICE"],
        "drop": ["ALL"],
    }


def _binding(kind: str, role: str, **meta: Any) -> dict[str, Any]:
    return {
        "apiVersion": RBAC,
        "kind": kind,
        "metadata": {"name": "b", **meta},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role},
        "subjects": [{"kind": "ServiceAccount", "name": "ray", "namespace": "default"}],
    }


def _role(kind: str, rules: list[Any], **meta: Any) -> dict[str, Any]:
    return {"apiVersion": RBAC, "kind": kind, "metadata": {"name": "r", **meta}, "rules": rules}


WEBHOOK = {
    "apiVersion": "admissionregistration.k8s.io/v1",
    "kind": "MutatingWebhookConfiguration",
    "metadata": {"name": "m"},
    "webhooks": [
        {
            "name": "m.example.com",
            "clientConfig": {"url": "https://hooks.example.com/mutate"},
            "sideEffects": "None",
            "admissionReviewVersions": ["v1"],
        }
    ],
}


@pytest.mark.parametrize(
    ("doc", "said"),
    [
        (
            _binding("ClusterRoleBinding", "cluster-admin"),
            "roleRef: ClusterRoleBinding b binds cluster-admin (cluster-wide: every right)",
        ),
        (
            _binding("RoleBinding", "cluster-admin"),
            "roleRef: RoleBinding default/b binds cluster-admin (in its namespace: every right)",
        ),
        (
            _binding("ClusterRoleBinding", "edit"),
            "roleRef: ClusterRoleBinding b binds edit cluster-wide (Secrets of every namespace",
        ),
        (
            {
                **_binding("RoleBinding", "view"),
                "subjects": [{"kind": "Group", "name": "system:masters"}],
            },
            "subjects[0]: RoleBinding default/b binds the system:masters group",
        ),
        (
            _role("ClusterRole", [{"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]}]),
            "rules[0]: ClusterRole r grants '*' in verbs and resources",
        ),
        (
            _role("Role", [{"apiGroups": [""], "resources": ["pods"], "verbs": ["*"]}]),
            "rules[0]: Role default/r grants '*' in verbs",
        ),
        (
            _role("ClusterRole", [{"apiGroups": [""], "resources": ["secrets"], "verbs": ["get"]}]),
            "rules[0]: ClusterRole r reads Secrets (in every namespace",
        ),
        (
            _role(
                "Role",
                [{"apiGroups": [""], "resources": ["secrets"], "verbs": ["list"]}],
                namespace="kube-system",
            ),
            "rules[0]: Role kube-system/r reads Secrets in kube-system",
        ),
        (
            _role(
                "ClusterRole", [{"apiGroups": [RBAC], "resources": ["roles"], "verbs": ["bind"]}]
            ),
            "rules[0]: ClusterRole r grants bind (a way to more rights)",
        ),
        (
            WEBHOOK,
            "webhooks: MutatingWebhookConfiguration m intercepts admission (1 webhook; calls "
            "https://hooks.example.com/mutate outside the cluster)",
        ),
    ],
)
def test_privileged_companions_are_a_warning_or_with_the_setting_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], doc: dict[str, Any], said: str
) -> None:
    path = write(tmp_path / "p.yaml", job_doc(), doc)
    assert main(["plan", str(path), "--preflight", "off"]) == 0
    err = capsys.readouterr().err
    assert f"raygang: warning: {path} (document 2): {said}" in err
    assert "(raygang:refusePrivilegedCompanions: true refuses it)" in err
    argv = _stack(tmp_path, "  raygang:refusePrivilegedCompanions: true\n")
    argv[1] = str(path)
    assert main(argv) == EXIT_INVALID
    err = capsys.readouterr().err
    assert f"{path} (document 2): {said}" in err
    assert "or set raygang:refusePrivilegedCompanions: false" in err


def test_rights_in_the_jobs_namespace_are_no_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    role = _role("Role", [{"apiGroups": [""], "resources": ["pods", "secrets"], "verbs": ["get"]}])
    binding = {**_binding("RoleBinding", "r"), "roleRef": {"kind": "Role", "name": "r"}}
    path = write(tmp_path / "a.yaml", job_doc(), role, binding)
    assert main(["plan", str(path)]) == 0
    assert "warning" not in capsys.readouterr().err


@pytest.mark.parametrize(
    ("api", "kind"),
    [
        ("apiregistration.k8s.io/v1", "APIService"),
        ("cert-manager.io/v1", "ClusterIssuer"),
        ("certificates.k8s.io/v1", "CertificateSigningRequest"),
        ("karpenter.sh/v1", "NodePool"),
    ],
)
def test_cluster_scoped_kinds_get_no_namespace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], api: str, kind: str
) -> None:
    doc = {"apiVersion": api, "kind": kind, "metadata": {"name": "x.example.com"}, "spec": {}}
    path = write(tmp_path / "a.yaml", job_doc(), doc)
    (found,) = load_files([path]).companions
    assert found.namespace is None and "namespace" not in found.manifest["metadata"]
    assert main(["plan", str(path)]) == 0
    assert f"1. {kind}/x.example.com  (companion from" in capsys.readouterr().out
