"""The generated submitter command against a real Ray head on loopback.

One Ray head is started for the module with ``ray start --head`` in a private temp dir and a
new session, so every Ray daemon belongs to the process group of that ``ray start`` and
teardown kills exactly that group. ``ray stop`` is not used: it stops every Ray process of
the machine, including other test sessions' clusters.

Each test renders the submitter Job with :func:`raygang.kuberay.submitter.submitter_job` and runs
its container the way the pod would: ``command + args`` (``/bin/bash -ce -- <script>``) with
the container's env, the test interpreter's bin directory first on ``PATH`` (that is where
``ray`` and ``python`` come from, as in the head image).

Ray itself rewrites ``--node-ip-address=127.0.0.1`` to the host's address and lets the GCS
and raylet listen on all interfaces; the tests only ever connect to 127.0.0.1.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from raygang.kuberay.submitter import sidecar_container, submission_id, submitter_job

from tests.kuberay.conftest import typed_job

pytestmark = pytest.mark.ray

TIMEOUT = 180  # seconds, for every subprocess and wait
KUBERAY_ENTRYPOINT = "echo no quote 'single quote' \"double quote\""
KUBERAY_OUTPUT = "no quote single quote double quote"
# Quotes, spaces, $ and backticks; bash must pass all of it to Ray unchanged. No "$NAME":
# Ray runs os.path.expandvars on env_vars values itself (ray._private.utils.update_envs).
NASTY = "a\"b 'c' $(touch pwned) `touch pwned2` $1 $$ $? \\ \\\\ ; | & ! é"
# Reaches Ray verbatim too (checked in the job's stored runtime env), then Ray expands it.
WITH_VARS = "$HOME ${HOME} $(id)"


@dataclass(frozen=True)
class RayHead:
    """The running head: its dashboard address and the env to run the pod's command with."""

    address: str  # host:port, no scheme, as KubeRay's status.dashboardURL
    env: dict[str, str]
    workdir: Path


def _free_ports(count: int) -> list[int]:
    sockets = []
    try:
        for _ in range(count):
            sock = socket.socket()
            sock.bind(("127.0.0.1", 0))
            sockets.append(sock)
        return [sock.getsockname()[1] for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return b"success" in response.read()
    except OSError:
        return False


def _stop_group(pgid: int) -> None:
    """SIGTERM the Ray process group, then SIGKILL whatever is left (gcs_server and raylet
    ignore SIGTERM for a while, as ``ray stop`` also finds)."""
    try:
        os.killpg(pgid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.2)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, signal.SIGKILL)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)


@pytest.fixture(scope="module")
def ray_head(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RayHead]:
    bin_dir = str(Path(sys.executable).parent)
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("RAY_ADDRESS", "RAY_API_SERVER_ADDRESS", "RAY_JOB_HEADERS")
    }
    env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "/usr/bin:/bin")
    env["RAY_USAGE_STATS_ENABLED"] = "0"
    ray = shutil.which("ray", path=env["PATH"])
    if ray is None:
        pytest.fail(f"the `ray` CLI is not installed next to {sys.executable} (ray[default])")
    # Short: Ray's Unix socket paths live under it and must stay below ~107 bytes.
    temp_dir = Path(f"/tmp/rg-{os.getpid()}")
    shutil.rmtree(temp_dir, ignore_errors=True)
    gcs, dash, client, agent_http, agent_grpc, runtime_env, metrics, node_mgr, obj_mgr = (
        _free_ports(9)
    )
    command = [
        ray,
        "start",
        "--head",
        f"--port={gcs}",
        "--dashboard-host=127.0.0.1",
        f"--dashboard-port={dash}",
        "--node-ip-address=127.0.0.1",
        "--num-cpus=2",
        '--resources={"Custom_1": 2}',
        "--include-dashboard=true",
        "--disable-usage-stats",
        f"--temp-dir={temp_dir}",
        "--object-store-memory=100000000",
        # Every listening port explicit, so a parallel session's Ray cannot collide.
        f"--ray-client-server-port={client}",
        f"--dashboard-agent-listen-port={agent_http}",
        f"--dashboard-agent-grpc-port={agent_grpc}",
        f"--runtime-env-agent-port={runtime_env}",
        f"--metrics-export-port={metrics}",
        f"--node-manager-port={node_mgr}",
        f"--object-manager-port={obj_mgr}",
    ]
    # A new session: `ray start` leads its own process group and the daemons inherit it.
    starter = subprocess.Popen(
        command,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    pgid = starter.pid
    try:
        output, _ = starter.communicate(timeout=TIMEOUT)
        if starter.returncode != 0:
            pytest.fail(f"ray start failed ({starter.returncode}):\n{output}")
        health = f"http://127.0.0.1:{dash}/api/gcs_healthz"
        deadline = time.monotonic() + TIMEOUT
        while not _healthy(health):
            if time.monotonic() > deadline:
                pytest.fail(f"{health} did not report success within {TIMEOUT} s")
            time.sleep(0.5)
        yield RayHead(address=f"127.0.0.1:{dash}", env=env, workdir=tmp_path_factory.mktemp("pod"))
    finally:
        if starter.poll() is None:
            starter.kill()
        _stop_group(pgid)
        shutil.rmtree(temp_dir, ignore_errors=True)


def _client(head: RayHead) -> Any:
    from ray.job_submission import JobSubmissionClient

    return JobSubmissionClient(f"http://{head.address}")


def _spec(entrypoint: str, **extra: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "entrypoint": entrypoint,
        "rayClusterSpec": {
            "rayVersion": "2.60.0",
            "headGroupSpec": {
                "template": {"spec": {"containers": [{"name": "head", "image": "unused"}]}}
            },
        },
    }
    spec.update(extra)
    return spec


def _pod_command(
    head: RayHead, job_name: str, spec: dict[str, Any], *, fail_on_job_failure: bool = False
) -> tuple[str, list[str], dict[str, str]]:
    """Render the submitter Job: its submission ID, its container's command line and env."""
    rayjob = typed_job(spec, name=job_name, namespace="default")
    sid = submission_id(rayjob)
    job = submitter_job(
        job=rayjob,
        submission_id=sid,
        dashboard_address=head.address,
        labels={},
        fail_on_job_failure=fail_on_job_failure,
    )
    container = job["spec"]["template"]["spec"]["containers"][0]
    env = dict(head.env)
    env.update({e["name"]: e["value"] for e in container["env"]})
    return sid, container["command"] + container["args"], env


def _run_pod(
    head: RayHead,
    job_name: str,
    spec: dict[str, Any],
    *,
    fail_on_job_failure: bool = False,
    expect_exit: int = 0,
) -> tuple[str, str]:
    """Render the submitter Job and run its container's command as the pod would.

    Returns:
        The submission ID and the container's combined output.
    """
    sid, argv, env = _pod_command(head, job_name, spec, fail_on_job_failure=fail_on_job_failure)
    result = subprocess.run(
        argv,
        env=env,
        cwd=head.workdir,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=TIMEOUT,
    )
    assert result.returncode == expect_exit, result.stdout
    return sid, result.stdout


def _jobs_with_id(head: RayHead, sid: str) -> list[Any]:
    return [job for job in _client(head).list_jobs() if job.submission_id == sid]


def _status(head: RayHead, sid: str) -> str:
    """The job's status, and its message when it is not SUCCEEDED (for assertion output)."""
    info = _client(head).get_job_info(sid)
    status = str(info.status.value)
    return status if status == "SUCCEEDED" else f"{status}: {info.message}"


def test_job_runs_to_success_and_logs_are_followed(ray_head: RayHead) -> None:
    sid, output = _run_pod(ray_head, "echo", _spec(KUBERAY_ENTRYPOINT))
    assert _status(ray_head, sid) == "SUCCEEDED"
    # The followed logs carry the entrypoint's output: KubeRay's quoting test, for real.
    assert KUBERAY_OUTPUT in output.splitlines()


def _evicted_after_submit(head: RayHead, job_name: str, spec: dict[str, Any]) -> tuple[str, str]:
    """Run the pod's command until its ``ray job submit`` has succeeded, then stop it as the
    kubelet stops an evicted pod: SIGTERM to every process, SIGKILL after a grace period.

    Returns:
        The submission ID and what the command printed before it was stopped.
    """
    sid, argv, env = _pod_command(head, job_name, spec)
    run = subprocess.Popen(
        argv,
        env=env,
        cwd=head.workdir,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + TIMEOUT
        while not _jobs_with_id(head, sid):
            assert run.poll() is None and time.monotonic() < deadline, "no job was submitted"
            time.sleep(0.5)
        # Evicted: the submit went through, `ray job logs --follow` is following the job.
        _stop_group(run.pid)  # SIGTERM to the pod's processes, SIGKILL after a grace period
        output, _ = run.communicate(timeout=TIMEOUT)
    finally:
        if run.poll() is None:
            _stop_group(run.pid)
            run.wait(timeout=TIMEOUT)
    return sid, output


def test_an_evicted_pods_retry_follows_the_job_it_submitted(ray_head: RayHead) -> None:
    # The fault suite's case f (its control-plane half: tests/e2e/faults/
    # test_submitter_evicted.py): the submitter pod evicted after `ray job submit` succeeded.
    # The Job controller's retry pod runs the identical command with the identical env: the
    # guard's `ray job status` finds the job, so it never submits twice.
    spec = _spec("python -c \"import time; time.sleep(10); print('run-once')\"")
    sid, evicted = _evicted_after_submit(ray_head, "evicted", spec)
    assert "submitted successfully" in evicted, evicted  # the evicted pod did submit
    assert _status(ray_head, sid).split(":")[0] in ("PENDING", "RUNNING")  # and it runs on
    retry_sid, retry = _run_pod(ray_head, "evicted", spec)
    assert retry_sid == sid
    assert len(_jobs_with_id(ray_head, sid)) == 1  # `ray job list`: one job of that ID
    assert "submitted successfully" not in retry, retry
    assert "run-once" in retry.splitlines()  # the retry followed the job to its end
    assert _status(ray_head, sid) == "SUCCEEDED"
    # A later retry (the job long finished) follows its logs again and submits nothing.
    again_sid, again = _run_pod(ray_head, "evicted", spec)
    assert again_sid == sid and len(_jobs_with_id(ray_head, sid)) == 1
    assert "submitted successfully" not in again and "run-once" in again.splitlines()


def test_changed_spec_gets_a_new_submission_id_and_a_second_job(ray_head: RayHead) -> None:
    sid_a, out_a = _run_pod(ray_head, "change", _spec("python -c \"print('version-a')\""))
    sid_b, out_b = _run_pod(ray_head, "change", _spec("python -c \"print('version-b')\""))
    assert sid_a != sid_b
    assert sid_a.startswith("change-") and sid_b.startswith("change-")
    assert "version-a" in out_a.splitlines() and "version-b" in out_b.splitlines()
    assert [len(_jobs_with_id(ray_head, s)) for s in (sid_a, sid_b)] == [1, 1]
    assert _status(ray_head, sid_a) == _status(ray_head, sid_b) == "SUCCEEDED"


def test_runtime_env_values_survive_the_shell_verbatim(ray_head: RayHead) -> None:
    # Key names matter: go-yaml v2 (so KubeRay too) reads a key "Y" or "N" as a boolean.
    runtime_env = (
        "env_vars:\n"
        f"  NASTY: {json.dumps(NASTY)}\n"
        "  TICKS: '`id` $(id)'\n"
        f"  WITH_VARS: {json.dumps(WITH_VARS)}\n"
    )
    spec = _spec(
        "python -c \"import os; print(os.environ['NASTY']); print(os.environ['TICKS'])\"",
        runtimeEnvYAML=runtime_env,
    )
    sid, output = _run_pod(ray_head, "nasty", spec)
    assert _status(ray_head, sid) == "SUCCEEDED"
    lines = output.splitlines()
    assert NASTY in lines
    assert "`id` $(id)" in lines
    assert [p.name for p in ray_head.workdir.iterdir() if "pwned" in p.name] == []
    info = _client(ray_head).get_job_info(sid)
    assert info.runtime_env["env_vars"] == {
        "NASTY": NASTY,
        "TICKS": "`id` $(id)",
        "WITH_VARS": WITH_VARS,
    }


def test_entrypoint_flags_and_metadata_are_accepted_by_ray(ray_head: RayHead) -> None:
    metadata = {"team": "ml", "note": "a b $HOME `x`"}
    spec = _spec(
        "python -c \"print('with-flags')\"",
        metadata=metadata,
        entrypointNumCpus=1,
        entrypointResources='{"Custom_1": 1}\n',  # as a YAML block scalar would end
    )
    sid, output = _run_pod(ray_head, "flags", spec)
    assert "with-flags" in output.splitlines()
    info = _client(ray_head).get_job_info(sid)
    assert str(info.status.value) == "SUCCEEDED"
    assert info.metadata == metadata
    # JobDetails does not echo the reservation back; the job's supervisor actor carries it.
    from ray.util.state import list_actors

    (supervisor,) = list_actors(
        address=f"http://{ray_head.address}",
        filters=[("name", "=", f"_ray_internal_job_actor_{sid}")],
        detail=True,
        timeout=60,
    )
    assert supervisor.required_resources == {"CPU": 1.0, "Custom_1": 1.0}


def test_a_failed_ray_job_still_exits_zero_like_kuberay(ray_head: RayHead) -> None:
    # KubeRay parity (kuberay#3211): `ray job logs --follow` exits 0 whatever the job's end,
    # so the submitter Job succeeds for a failed Ray job, on the first run and on a retry.
    spec = _spec("python -c \"import sys; print('about-to-fail'); sys.exit(3)\"")
    sid, output = _run_pod(ray_head, "fails", spec)
    assert "about-to-fail" in output.splitlines()
    assert _status(ray_head, sid).startswith("FAILED")
    _run_pod(ray_head, "fails", spec)
    assert len(_jobs_with_id(ray_head, sid)) == 1


def test_fail_on_job_failure_makes_the_pod_fail_and_retries_do_not_resubmit(
    ray_head: RayHead,
) -> None:
    # With raygang:failOnJobFailure the pod exits non-zero for a failed Ray job, so the Job
    # retries the pod (backoffLimit) and finally reports Failed; every retry follows the
    # same Ray job instead of submitting it again.
    spec = _spec("python -c \"import sys; print('about-to-fail'); sys.exit(3)\"")
    sid, output = _run_pod(ray_head, "strict-fails", spec, fail_on_job_failure=True, expect_exit=1)
    assert "about-to-fail" in output.splitlines()
    _run_pod(ray_head, "strict-fails", spec, fail_on_job_failure=True, expect_exit=1)
    assert len(_jobs_with_id(ray_head, sid)) == 1
    ok = _spec("python -c \"print('fine')\"")
    sid_ok, _ = _run_pod(ray_head, "strict-ok", ok, fail_on_job_failure=True, expect_exit=0)
    assert _status(ray_head, sid_ok) == "SUCCEEDED"


def test_sidecar_mode_command_submits_and_waits(ray_head: RayHead) -> None:
    # SidecarMode: no status guard, `ray job submit` without --no-wait follows the job and
    # exits non-zero if it fails. The probe uses localhost:<dashboard port>.
    port = int(ray_head.address.rsplit(":", 1)[1])
    spec = _spec("python -c \"print('from-sidecar')\"", submissionMode="SidecarMode")
    head = spec["rayClusterSpec"]["headGroupSpec"]["template"]["spec"]["containers"][0]
    head["ports"] = [{"name": "dashboard", "containerPort": port}]
    rayjob = typed_job(spec, name="sidecar", namespace="default")
    sid = submission_id(rayjob)
    container = sidecar_container(job=rayjob, submission_id=sid)
    env = dict(ray_head.env)
    env.update({e["name"]: e["value"] for e in container["env"]})
    result = subprocess.run(
        container["command"] + container["args"],
        env=env,
        cwd=ray_head.workdir,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=TIMEOUT,
    )
    assert result.returncode == 0, result.stdout
    assert "from-sidecar" in result.stdout.splitlines()
    assert _status(ray_head, sid) == "SUCCEEDED"


# --- issue 28: a code package shipped in ConfigMaps, mounted in the submitter only --------


def _project_code(job: dict[str, Any], config_maps: list[dict[str, Any]], root: Path) -> str:
    """Write the package's pieces as the kubelet projects the ConfigMaps, and return the
    container's script with the mount paths pointing there.

    The projected volume's sources are read from the rendered Job (each ConfigMap, its key,
    the file it becomes), the bytes from the ConfigMaps' ``binaryData``: exactly the files the
    pod would see. The emptyDir becomes a fresh directory.
    """
    import base64

    from raygang.kuberay.submitter import CODE_DIR, CODE_PIECES_DIR

    pod = job["spec"]["template"]["spec"]
    container = pod["containers"][0]
    mounts = {m["name"]: m["mountPath"] for m in container["volumeMounts"]}
    by_name = {cm["metadata"]["name"]: cm for cm in config_maps}
    pieces, target = root / "code-package", root / "code"
    pieces.mkdir(parents=True)
    target.mkdir(parents=True)
    for volume in pod["volumes"]:
        if "projected" in volume:
            assert mounts[volume["name"]] == CODE_PIECES_DIR
            for source in volume["projected"]["sources"]:
                cm = by_name[source["configMap"]["name"]]
                for item in source["configMap"]["items"]:
                    data = base64.b64decode(cm["binaryData"][item["key"]])
                    (pieces / item["path"]).write_bytes(data)
        else:
            assert "emptyDir" in volume and mounts[volume["name"]] == CODE_DIR
    script: str = container["args"][0]
    return script.replace(CODE_PIECES_DIR, str(pieces)).replace(CODE_DIR, str(target))


def _run_code_pod(
    head: RayHead,
    job_name: str,
    code_dir: Path,
    tmp: Path,
    expect_exit: int = 0,
    py_modules: tuple[str, ...] = (),
    entrypoint: str = "python main.py",
) -> tuple[str, str, Any]:
    from raygang.codepkg import pack_code
    from raygang.kuberay.codepackage import code_config_maps, code_mount

    package = pack_code(".", py_modules, code_dir, "job.yaml")
    spec = _spec(entrypoint)
    rayjob = typed_job(spec, name=job_name, namespace="default")
    sid = submission_id(rayjob, package.sha256)
    job = submitter_job(
        job=rayjob,
        submission_id=sid,
        dashboard_address=head.address,
        labels={},
        fail_on_job_failure=True,
        code=code_mount(job_name, package),
    )
    script = _project_code(job, code_config_maps(job_name, "default", package), tmp)
    container = job["spec"]["template"]["spec"]["containers"][0]
    env = dict(head.env)
    env.update({e["name"]: e["value"] for e in container["env"]})
    result = subprocess.run(
        [*container["command"], script],
        env=env,
        cwd=head.workdir,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=TIMEOUT,
    )
    assert result.returncode == expect_exit, result.stdout
    return sid, result.stdout, package


def _code_tree(root: Path, version: str, blob: bytes = b"") -> Path:
    (root / "mypkg").mkdir(parents=True, exist_ok=True)
    (root / "mypkg" / "__init__.py").write_text(f'__version__ = "{version}"\n')
    (root / "main.py").write_text("import mypkg\nprint('mypkg version', mypkg.__version__)\n")
    if blob:
        (root / "data.bin").write_bytes(blob)
    return root


def test_code_package_runs_from_the_configmaps_pieces(ray_head: RayHead, tmp_path: Path) -> None:
    """The entrypoint imports a module of the package and prints its version; the package
    is over 768 KiB, so it travels in three ConfigMaps the script joins again."""
    code = _code_tree(tmp_path / "src", "1.0.0", os.urandom(1_700_000))
    sid, output, package = _run_code_pod(ray_head, "code", code, tmp_path / "pod1")
    assert len(code_pieces := package.data) > 2 * 768 * 1024, len(code_pieces)
    assert "mypkg version 1.0.0" in output.splitlines()
    assert _status(ray_head, sid) == "SUCCEEDED"
    runtime_env = _client(ray_head).get_job_info(sid).runtime_env
    # Ray uploaded the unpacked directory into the head's own store.
    assert str(runtime_env["working_dir"]).startswith("gcs://_ray_pkg_")


def test_changed_code_is_a_new_submission_that_runs_the_new_version(
    ray_head: RayHead, tmp_path: Path
) -> None:
    code = _code_tree(tmp_path / "src", "2.0.0")
    first, output, before = _run_code_pod(ray_head, "codever", code, tmp_path / "pod1")
    assert "mypkg version 2.0.0" in output.splitlines()
    _code_tree(code, "2.0.1")
    second, output, after = _run_code_pod(ray_head, "codever", code, tmp_path / "pod2")
    assert before.sha256 != after.sha256 and first != second
    assert "mypkg version 2.0.1" in output.splitlines()
    assert _status(ray_head, second) == "SUCCEEDED"


def test_a_piece_of_another_version_is_refused_before_submitting(
    ray_head: RayHead, tmp_path: Path
) -> None:
    from raygang.codepkg import pack_directory
    from raygang.kuberay.codepackage import code_config_maps, code_mount

    code = _code_tree(tmp_path / "src", "3.0.0")
    package = pack_directory(".", code, "job.yaml")
    spec = _spec("python main.py")
    rayjob = typed_job(spec, name="codebad", namespace="default")
    sid = submission_id(rayjob, package.sha256)
    job = submitter_job(
        job=rayjob,
        submission_id=sid,
        dashboard_address=ray_head.address,
        labels={},
        code=code_mount("codebad", package),
    )
    script = _project_code(job, code_config_maps("codebad", "default", package), tmp_path)
    (tmp_path / "code-package" / "part-000").write_bytes(b"PK not this version")
    container = job["spec"]["template"]["spec"]["containers"][0]
    result = subprocess.run(
        [*container["command"], script],
        env=ray_head.env,
        cwd=ray_head.workdir,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=TIMEOUT,
    )
    assert result.returncode != 0
    assert f"expected {package.sha256}" in result.stdout
    assert _jobs_with_id(ray_head, sid) == []


def test_a_local_py_module_is_importable_by_the_job(ray_head: RayHead, tmp_path: Path) -> None:
    """``raygang.dev/py-modules``: a package directory outside the working directory, shipped
    in the same package and handed to Ray as a local ``py_modules`` path."""
    code = _code_tree(tmp_path / "src", "4.0.0")
    lib = tmp_path / "src" / "libs" / "helperlib"
    lib.mkdir(parents=True)
    (lib / "__init__.py").write_text('NAME = "helperlib 0.1"\n')
    (code / "use.py").write_text("import helperlib\nprint('helper', helperlib.NAME)\n")
    (code / ".raygangignore").write_text("libs/\n")  # the module is not in the working dir
    sid, output, package = _run_code_pod(
        ray_head,
        "codemod",
        code,
        tmp_path / "pod",
        py_modules=("libs/helperlib",),
        entrypoint="python use.py",
    )
    assert package.py_modules == (".raygang-py-modules/0/helperlib",)
    assert "helper helperlib 0.1" in output.splitlines()
    runtime_env = _client(ray_head).get_job_info(sid).runtime_env
    assert [str(m).startswith("gcs://_ray_pkg_") for m in runtime_env["py_modules"]] == [True]
