"""Issue 18: no traceback on an unexpected failure, and no secret in clear text.

* The command line and the Pulumi program each end an exception nobody expected with a short
  error naming the input and a "please report" line (a failure is injected to prove it).
* The job record ConfigMap keeps the RayJob without secret values.
* Jobs from secret Pulumi config register every input of their resources as a secret, under
  the SDK's mocks (``raygang.testing.KubernetesMocks``).
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pulumi
import pytest
from pulumi.runtime import rpc
from raygang import cli
from raygang.kuberay.redact import REDACTED, redact_rayjob

from tests.builders import container, rayjob
from tests.pulumi_harness import CM_T, JOB_T, PG_T, RC_T, ROOT, install, run_program, stack_config

GOOD = ROOT / "tests" / "fixtures" / "good"


def _boom(*args: Any, **kwargs: Any) -> Any:
    raise RecursionError("maximum recursion depth exceeded while calling a Python object")


# --- item 3: one guard in the command line and in the program ----------------------------------


def test_the_command_line_turns_an_unexpected_failure_into_a_short_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(cli, "plan_with_settings", _boom)
    path = next(iter(sorted(GOOD.glob("*.yaml"))))
    assert cli.main(["plan", str(path)]) == cli.EXIT_INTERNAL == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.splitlines() == [
        f"raygang: internal error while planning {path}: RecursionError: maximum recursion "
        "depth exceeded while calling a Python object",
        "raygang: this is a bug in raygang, not a problem it found in the input; please "
        "report it, with the input above (or the smallest part of it that still fails), to "
        "the raygang maintainers",
    ]


def test_a_stack_plan_names_the_stack_file(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(cli, "plan_with_settings", _boom)
    assert cli.main(["plan", "--stack", "dev"]) == 1
    assert "while planning stack dev (stacks/Pulumi.dev.yaml): RecursionError" in (
        capsys.readouterr().err
    )


def test_a_real_process_prints_no_traceback() -> None:
    script = (
        "import sys\n"
        "from raygang import cli\n"
        "def boom(*a, **k):\n"
        "    raise KeyError('spec')\n"
        "cli.plan_with_settings = boom\n"
        "sys.exit(cli.main(['plan', 'jobs/x.yaml']))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith("raygang: internal error while planning jobs/x.yaml: KeyError")
    assert "please report it" in done.stderr


def test_the_program_turns_an_unexpected_failure_into_a_run_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import raygang.pipeline

    monkeypatch.setattr(raygang.pipeline, "plan_everything", _boom)
    monitor = install(stack_config("dev"), preview=True)
    with pytest.raises(pulumi.RunError) as info:
        run_program(monitor)
    message = str(info.value)
    assert message.startswith(
        "raygang: internal error while planning stack dev's raygang:* config "
        "(stacks/Pulumi.dev.yaml) and its files: RecursionError: maximum recursion depth"
    )
    assert "please report it" in message
    assert monitor.of_type(CM_T) == []  # nothing registered


def test_recursion_is_not_reported_as_the_clusters_state(monkeypatch: pytest.MonkeyPatch) -> None:
    # RecursionError is a RuntimeError, which the program reads as "live facts failed".
    import raygang.pipeline

    monkeypatch.setattr(raygang.pipeline, "plan_everything", _boom)
    monitor = install(stack_config("dev"), preview=True)
    with pytest.raises(pulumi.RunError) as info:
        run_program(monitor)
    assert "cannot read the cluster's state" not in str(info.value)


# --- item 8: the job record keeps no secret value ----------------------------------------------


def test_the_record_keeps_no_env_value_runtime_env_var_or_secret_looking_value() -> None:
    env = [
        {"name": "DB_PASSWORD", "value": "hunter2"},
        {"name": "FROM_SECRET", "valueFrom": {"secretKeyRef": {"name": "db", "key": "pw"}}},
    ]
    head = [dict(container("head", {"cpu": "1"}), env=env)]
    manifest = rayjob(head=head)
    manifest["spec"]["runtimeEnvYAML"] = (
        "pip:\n  - git+https://deploy:ghp_abc123@github.com/org/repo\n"
        "env_vars:\n  API_TOKEN: tok-123\n  MODE: train\n"
    )
    manifest["spec"]["metadata"] = {"wandbApiKey": "k-456", "team": "ml"}
    head_group = manifest["spec"]["rayClusterSpec"]["headGroupSpec"]
    head_group["rayStartParams"] = {"redis-password": "r-789", "num-cpus": "1"}
    text = json.dumps(redact_rayjob(manifest))
    for secret in ("hunter2", "ghp_abc123", "tok-123", "train", "k-456", "r-789"):
        assert secret not in text
    kept = json.loads(text)
    assert kept["spec"]["metadata"] == {"wandbApiKey": REDACTED, "team": "ml"}
    assert kept["spec"]["rayClusterSpec"]["headGroupSpec"]["rayStartParams"] == {
        "redis-password": REDACTED,
        "num-cpus": "1",
    }
    containers = kept["spec"]["rayClusterSpec"]["headGroupSpec"]["template"]["spec"]["containers"]
    assert containers[0]["env"] == [
        {"name": "DB_PASSWORD", "value": REDACTED},
        env[1],  # a reference, not a secret
    ]
    assert json.loads(kept["spec"]["runtimeEnvYAML"]) == {
        "env_vars": {"API_TOKEN": REDACTED, "MODE": REDACTED},
        "pip": [f"git+https://{REDACTED}@github.com/org/repo"],
    }
    assert manifest["spec"]["metadata"]["wandbApiKey"] == "k-456"  # the input is untouched


def test_a_manifest_without_secrets_is_kept_as_it_is() -> None:
    manifest = rayjob()
    manifest["spec"]["runtimeEnvYAML"] = "pip: [requests]  # comment kept\n"
    assert redact_rayjob(manifest) is manifest


# --- item 8: secret config stays secret in the state and in previews ---------------------------


def _is_secret(value: Any) -> bool:
    return isinstance(value, dict) and value.get(rpc._special_sig_key) == rpc._special_secret_sig


@pytest.mark.parametrize("preview", [False, True], ids=["up", "preview"])
def test_jobs_from_secret_config_register_secret_inputs(preview: bool) -> None:
    config = stack_config("dev")
    monitor = install(config, preview, secret_keys=["raygang:jobs"])
    run_program(monitor)
    for typ, fields in (
        (CM_T, ("metadata",)),  # the record keeps everything in metadata.annotations
        (PG_T, ("metadata", "spec")),
        (RC_T, ("metadata", "spec")),
        (JOB_T, ("metadata", "spec")),
    ):
        (registration,) = monitor.of_type(typ)
        for name in fields:
            assert _is_secret(registration.inputs[name]), f"{typ} {name} is not secret"
    (record,) = monitor.of_type(CM_T)
    assert "data" not in record.inputs
    # The Queue comes from raygang:queues, which is not secret here.
    (queue,) = [r for r in monitor.registrations if r.type.endswith(":Queue")]
    assert not _is_secret(queue.inputs["spec"])


def test_queues_from_secret_config_register_secret_inputs() -> None:
    monitor = install(stack_config("dev"), preview=True, secret_keys=["raygang:queues"])
    run_program(monitor)
    (queue,) = [r for r in monitor.registrations if r.type.endswith(":Queue")]
    assert _is_secret(queue.inputs["metadata"])
    assert _is_secret(queue.inputs["spec"])
    # The jobs come from raygang:jobs, which is not secret here.
    (cluster,) = monitor.of_type(RC_T)
    assert not _is_secret(cluster.inputs["spec"])


def test_jobs_from_plain_config_register_plain_inputs() -> None:
    monitor = install(stack_config("dev"), preview=True)
    run_program(monitor)
    for typ in (CM_T, PG_T, RC_T, JOB_T):
        (registration,) = monitor.of_type(typ)
        assert not any(_is_secret(v) for v in registration.inputs.values())


def test_secret_manifests_config_makes_file_jobs_secret() -> None:
    config = stack_config("ml-platform")
    monitor = install(config, preview=True, stack="ml-platform", secret_keys=["raygang:manifests"])
    run_program(monitor)
    clusters = monitor.of_type(RC_T)
    assert clusters
    assert all(_is_secret(r.inputs["spec"]) for r in clusters)
