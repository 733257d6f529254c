"""raygang.kuberay.submitter.script: the entrypoint cannot break the script or its retry guard.

The scripts run through the real ``/bin/bash`` with stub ``ray`` and ``python`` executables,
so they need no Ray cluster and stay fast.
"""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from raygang.kuberay.submitter._bashsyntax import go_trim_space

from tests.builders import BASH, shell_text
from tests.kuberay.conftest import job_spec, template_for

GUARD_STUB = """#!{python}
import json, os, sys
with open(os.environ["STUB_LOG"], "a") as log:
    log.write(json.dumps({{"prog": os.path.basename(sys.argv[0]), "argv": sys.argv[1:]}}) + "\\n")
# STUB_STATUS=0: `ray job status` finds the job (a retried pod); 1: it does not exist yet.
sys.exit(int(os.environ["STUB_STATUS"]) if sys.argv[1:3] == ["job", "status"] else 0)
"""

HOSTILE = [
    "python a.py # note",
    "python 'a.py",
    'python a.py "unbalanced',
    "python a.py ; fi ; echo X ; if true ; then true",
    "python a.py\necho X",
    "python a.py $(echo X) `echo X` ${HOME}",
    "python a.py '\\'' ; fi ; echo X #",
    "python a.py &&",
    "python a.py <<EOF\nX\nEOF",
    "python a.py )",
    "\\",
]


@pytest.fixture
def guard_stubs(tmp_path: Path) -> Path:
    bin_dir = tmp_path / "guard-bin"
    bin_dir.mkdir()
    for name in ("ray", "python"):
        path = bin_dir / name
        path.write_text(GUARD_STUB.format(python=sys.executable))
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return bin_dir


def rendered_args0(entrypoint: str, **kwargs: Any) -> str:
    """The submitter container's script, as the Job carries it."""
    (args0,) = template_for(job_spec(entrypoint=entrypoint), **kwargs)["spec"]["containers"][0][
        "args"
    ]
    return str(args0)


def run_script(
    script: str, stubs: Path, cwd: Path, status: int
) -> tuple[int, str, list[dict[str, Any]]]:
    """Run the script as the pod does; (exit status, stdout, the stubs' calls)."""
    log = cwd / "calls.jsonl"
    log.unlink(missing_ok=True)
    env = {
        "PATH": f"{stubs}:/usr/bin:/bin",
        "STUB_LOG": str(log),
        "STUB_STATUS": str(status),
        "HOME": str(cwd),
    }
    done = subprocess.run(
        [BASH, "-ce", "--", script], cwd=cwd, env=env, timeout=60, capture_output=True, text=True
    )
    calls = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return done.returncode, done.stdout, calls


def bash_argv(entrypoint: str, cwd: Path) -> list[str]:
    """The words bash makes of an entrypoint on its own (what KubeRay's layout intends)."""
    out = subprocess.run(
        [BASH, "-c", "printf '%s\\0' " + entrypoint],
        capture_output=True,
        check=True,
        timeout=30,
        cwd=cwd,
        env={"PATH": "/usr/bin:/bin", "HOME": str(cwd)},
    ).stdout
    return out.decode().split("\0")[:-1]


@pytest.mark.parametrize("entrypoint", HOSTILE)
def test_hostile_entrypoints_leave_the_script_and_the_retry_guard_intact(
    entrypoint: str, guard_stubs: Path, tmp_path: Path
) -> None:
    script = rendered_args0(entrypoint)
    # The script parses whatever the entrypoint is: it is one single-quoted eval word.
    subprocess.run([BASH, "-n", "-c", script], check=True, timeout=30)
    work = tmp_path / "work"
    work.mkdir()
    # A retried pod: `ray job status` finds the job, so nothing is submitted and nothing of
    # the entrypoint runs; the pod only follows the logs.
    code, out, calls = run_script(script, guard_stubs, work, status=0)
    assert code == 0
    assert "X" not in out
    assert [c["argv"][:2] for c in calls if c["prog"] == "ray"] == [
        ["job", "status"],
        ["job", "logs"],
    ]
    assert sorted(p.name for p in work.iterdir()) == ["calls.jsonl"]


@pytest.mark.parametrize(
    "entrypoint",
    ["python a.py # note", "python a.py\necho X", "python a.py $(echo X) `echo X` ${HOME}"],
)
def test_parseable_entrypoints_submit_what_bash_makes_of_them_and_follow_the_logs(
    entrypoint: str, guard_stubs: Path, tmp_path: Path
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    code, out, calls = run_script(rendered_args0(entrypoint), guard_stubs, work, status=1)
    assert code == 0
    ray = [c["argv"] for c in calls if c["prog"] == "ray"]
    assert [argv[:2] for argv in ray] == [["job", "status"], ["job", "submit"], ["job", "logs"]]
    submitted = ray[1][ray[1].index("--") + 1 :]
    first_line = entrypoint.split("\n")[0]
    assert submitted == bash_argv(first_line, work)
    # A second line is a second command, in the submitter, as in KubeRay's layout; it runs
    # inside the guard, never after `fi`.
    assert out == ("X\n" if "\n" in entrypoint else "")


@pytest.mark.parametrize(
    "entrypoint",
    [e for e in HOSTILE if subprocess.run([BASH, "-n", "-c", e], capture_output=True).returncode],
)
def test_unparseable_entrypoints_fail_the_first_pod_without_running_any_of_it(
    entrypoint: str, guard_stubs: Path, tmp_path: Path
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    code, out, calls = run_script(rendered_args0(entrypoint), guard_stubs, work, status=1)
    assert code != 0
    assert "X" not in out
    assert [c["argv"][:2] for c in calls if c["prog"] == "ray"] == [["job", "status"]]


shell_soup = st.lists(
    st.sampled_from(list("ab #;&|()'\"`$\\{}<>\n!*?~=-")) | shell_text, max_size=12
).map("".join)


@settings(max_examples=40, deadline=None)
@given(entrypoint=shell_soup.filter(lambda e: e.strip()))
def test_no_entrypoint_breaks_the_script_or_the_guard(entrypoint: str) -> None:
    script = rendered_args0(entrypoint)
    parsed = subprocess.run([BASH, "-n", "-c", script], capture_output=True, timeout=30)
    assert parsed.returncode == 0, parsed.stderr
    # The eval'd word is KubeRay's `ray job submit ... -- ENTRYPOINT`, byte for byte.
    sealed = script.split(" ; then eval ", 1)[1].rsplit(" ; fi ; ray job logs", 1)[0]
    (word,) = bash_words_raw(sealed)
    assert word.endswith(" -- " + go_trim_space(entrypoint))


def bash_words_raw(text: str) -> list[str]:
    out = subprocess.run(
        [BASH, "-c", "printf '%s\\0' " + text], capture_output=True, check=True, timeout=30
    ).stdout
    return out.decode("utf-8", "surrogateescape").split("\0")[:-1]
