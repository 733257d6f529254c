"""The submit command through the real ``/bin/bash``: quoting that runs nothing, round trips.

The tests run the generated command with stub ``ray`` and ``python`` executables, so they
need no Ray cluster and stay fast.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from raygang.kube import goquote
from raygang.kube.goquote import go_quote, shell_quote
from raygang.kuberay import submitter as sm
from raygang.kuberay.submitter import build_submit_command, submit_shell

from tests.kuberay.conftest import BASH, shell_text

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


def test_kuberays_go_quoting_alone_would_execute_substitutions(tmp_path: Path) -> None:
    # Why shell_quote deviates from strconv.Quote: bash expands $(...) inside "...".
    value = "$(echo INJECTED)"
    printed = subprocess.run(
        [BASH, "-c", f"printf %s {go_quote(value)}"],
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
        cwd=tmp_path,
    ).stdout
    assert printed == "INJECTED"
    assert shell_quote(value) == '"\\$(echo INJECTED)"'


def bash_words(words: list[str]) -> list[str]:
    """What bash makes of each shell_quote()d word."""
    script = "printf '%s\\0' " + " ".join(shell_quote(w) for w in words)
    out = subprocess.run(
        [BASH, "-ce", "--", script],
        capture_output=True,
        check=True,
        timeout=60,
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": "/nonexistent"},
    ).stdout
    return out.decode("utf-8").split("\0")[:-1]


@settings(max_examples=60, deadline=None)
@given(st.lists(shell_text, min_size=1, max_size=25))
def test_shell_quote_round_trips_through_bash(words: list[str]) -> None:
    assert bash_words(words) == words


@given(shell_text)
def test_shell_quote_equals_go_quote_when_bash_would_agree(text: str) -> None:
    safe = all(goquote._go_is_print(ord(c)) and c not in "$`" for c in text)
    if safe:
        assert shell_quote(text) == go_quote(text)
    else:
        assert shell_quote(text) != go_quote(text)


@settings(max_examples=60, deadline=None)
@given(
    st.dictionaries(
        st.text(min_size=1, max_size=8).filter(lambda k: "\x00" not in k),
        shell_text,
        max_size=4,
    )
)
def test_metadata_json_survives_bash(metadata: dict[str, str]) -> None:
    if not metadata:
        return
    text = sm.go_json_dumps(metadata)
    assert json.loads(text) == metadata
    (word,) = bash_words([text])
    assert json.loads(word) == metadata
