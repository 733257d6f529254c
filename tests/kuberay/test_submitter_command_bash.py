"""The submit command through the real ``/bin/bash``: its quoting runs nothing.

The tests run the generated command with stub ``ray`` and ``python`` executables, so they
need no Ray cluster and stay fast.
"""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from raygang.kuberay import submitter as sm
from raygang.kuberay.submitter import build_submit_command, submit_shell

from tests.builders import BASH

STUB = """#!{python}
import json, os, sys
with open(os.environ["STUB_LOG"], "a") as log:
    log.write(json.dumps({{"prog": os.path.basename(sys.argv[0]), "argv": sys.argv[1:]}}) + "\\n")
# `ray job status` exits non-zero for an unknown job, so the submit branch runs.
sys.exit(1 if sys.argv[1:3] == ["job", "status"] else 0)
"""


@pytest.fixture
def stub_path(tmp_path: Path) -> Path:
    """A directory with `ray` and `python` stubs that log their argv and exit at once."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("ray", "python"):
        path = bin_dir / name
        path.write_text(STUB.format(python=sys.executable))
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return bin_dir


def run_like_the_pod(shell: str, stub_dir: Path, cwd: Path) -> list[dict[str, Any]]:
    """Run args[0] as the container does (bash -ce --) and return the stubs' calls."""
    log = cwd / "calls.jsonl"
    env = {"PATH": f"{stub_dir}:/usr/bin:/bin", "STUB_LOG": str(log), "HOME": str(cwd)}
    subprocess.run(
        [BASH, "-ce", "--", shell], cwd=cwd, env=env, check=True, timeout=60, capture_output=True
    )
    return [json.loads(line) for line in log.read_text().splitlines()]


MALICIOUS = "a\"; rm -rf / # $(touch pwned) `touch pwned2` ${HOME} $HOME \\ \\\\ ' ! \n\t é"


def test_malicious_runtime_env_survives_bash_and_runs_nothing(
    stub_path: Path, tmp_path: Path
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    runtime_env = "env_vars:\n  X: " + json.dumps(MALICIOUS) + "\n"
    metadata = {"note": "$(touch pwned3) `touch pwned4`", "q": 'x"y'}
    resources = '{"Custom_$(touch pwned5)": 1}\n'  # a YAML block scalar's trailing newline
    tokens = build_submit_command(
        mode="K8sJobMode",
        address="127.0.0.1:8265",
        submission_id="job-1",
        entrypoint="echo no quote 'single quote' \"double quote\"",
        runtime_env_yaml=runtime_env,
        metadata=metadata,
        entrypoint_resources=resources,
    )
    calls = run_like_the_pod(submit_shell(tokens), stub_path, work)
    assert sorted(p.name for p in work.iterdir()) == ["calls.jsonl"]  # nothing was touched
    submit = next(c["argv"] for c in calls if c["argv"][:2] == ["job", "submit"])
    env_json = submit[submit.index("--runtime-env-json") + 1]
    assert env_json == sm.runtime_env_json(runtime_env)
    assert json.loads(env_json) == {"env_vars": {"X": MALICIOUS}}
    meta_json = submit[submit.index("--metadata-json") + 1]
    assert json.loads(meta_json) == metadata
    # KubeRay's Go quoting would hand Ray a literal backslash-n here, which is not JSON.
    assert submit[submit.index("--entrypoint-resources") + 1] == resources
    assert json.loads(resources) == {"Custom_$(touch pwned5)": 1}
    assert submit[submit.index("--") + 1 :] == [
        "echo",
        "no",
        "quote",
        "single quote",
        "double quote",
    ]
    assert [c["argv"][:2] for c in calls if c["prog"] == "ray"] == [
        ["job", "status"],
        ["job", "submit"],
        ["job", "logs"],
    ]
