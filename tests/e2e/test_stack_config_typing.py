"""``raygang plan`` reads a stack file as the real Pulumi CLI does: every value, generated and
hand-picked, is what ``pulumi config --json`` says the program receives (its ``value``),
and both go through the program's JSON-or-string step to the same value.

Only the Pulumi CLI of ``make tools`` is needed (no cluster, no network: a local file
backend). Without it the test fails with the reason, as the rest of the tier does.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
from pathlib import Path

import pytest
from raygang.kube.errors import SpecError
from raygang.settings import config_value, stack_config_strings

from tests.kube.kubeyaml.stack_cases import MERGES, REFUSED, STRUCTURED, TOP_LEVEL

REPO = Path(__file__).resolve().parents[2]
PULUMI = Path(os.environ.get("RAYGANG_TOOLS", REPO / ".tools")) / "bin" / "pulumi"

SIGNS = ("", "+", "-")
INTS = (
    "0", "7", "00", "0_0", "010", "08", "0x1F", "0X1f", "0o17", "0O7", "0b101", "0B11",
    "1_000", "0x_1F", "1__0", "0x", "0o", "0b2", "0o8", "0b-1", "0o+7",
    "9223372036854775807", "9223372036854775808", "18446744073709551615",
    "18446744073709551616", "99999999999999999999",
)  # fmt: skip
FLOATS = (
    "1e3", "1E3", "1.5", "0.0", ".5", "1.", "1e21", "1e20", "1e-7", "1e-6", "1.0e+6", "2.0",
    "1e400", ".5e-3", "1_0.5", "123456789.0", "6.02e23", "1e+", "1.5.5", ".", ".e3",
    "1e3_0", "4.9e-324", "1e-400", "1.7976931348623157e308", "1.7976931348623159e308",
    "12e", "0x1.8p1", "inf", "nan", "Infinity",
)  # fmt: skip
WORDS = ("true", "false", "yes", "no", "on", "off", "y", "n", "null", "nan", "inf")
DATES = ("2001-12-14", "2001-1-2", "2000-02-29", "2001-02-29", "2001-13-01", "0000-01-01")
CLOCKS = (
    "", "T21:59:43Z", "t21:59:43.5Z", " 21:59:43", " 21:59:43.123", "T21:59:43+05:00",
    "T21:59:43-00:30", "T1:2:3Z", "T21:59:43", "T24:00:00Z", "T21:59:60Z",
    "T21:59:43+24:00", "T21:59:43+23:61", " 21:59:43 -5", "T21:59:43.1234567891Z",
    "T21:59:43,5Z", "T21:59:43+00:00",
)  # fmt: skip
TEXTS = ("12:30", "0x1p3", "_1", "-x", "a b", "~a", "True1", "0.", "+", "-.", "...", "<<")
# Keys that stay distinct once Pulumi prints them (%v): a collision fails the whole file.
KEYS = (
    "1", "1.5", "true", "~", "1e6", "-0.0", "2001-12-14", ".inf", "-.inf", "0x10", "1e21",
    "123456789.0", "yes", "off", "010", "1_000", "0b-1", "18446744073709551615",
    "9223372036854775808", "1e-7", "2001-12-14T21:59:43.10Z", '"quoted"', "!!str 7",
    "!!float 3", "False", "0.5", "+99", "12:30",
)  # fmt: skip


def _generated() -> list[str]:
    words = [w for word in WORDS for w in (word, word.capitalize(), word.upper(), word.title())]
    words += [f"{sign}.{w}" for sign in SIGNS for w in ("Inf", "inF", "NaN", "nan")]
    return [
        *(s + i for s, i in itertools.product(SIGNS, INTS)),
        *(s + f for s, f in itertools.product(SIGNS, FLOATS)),
        *words,
        *(d + c for d, c in itertools.product(DATES, CLOCKS)),
        *TEXTS,
    ]


def _finite(text: str) -> bool:
    # .inf/.nan values fail the whole file in Pulumi (json: unsupported value).
    return text.lstrip("+-").lower() not in (".inf", ".nan")


def _pulumi(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PATH": f"{PULUMI.parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "PULUMI_CONFIG_PASSPHRASE": "raygang-test",
        "PULUMI_SKIP_UPDATE_CHECK": "1",
        "PULUMI_HOME": str(project / ".home"),
        "PULUMI_BACKEND_URL": (project / ".state").as_uri(),
        "PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION": "true",
    }
    return subprocess.run(
        [str(PULUMI), *args, "--non-interactive"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    if not (PULUMI.is_file() and os.access(PULUMI, os.X_OK)):
        pytest.fail(f"{PULUMI} is missing: run `make tools`", pytrace=False)
    (tmp_path / ".state").mkdir()
    (tmp_path / "Pulumi.yaml").write_text("name: raygang\nruntime: python\n")
    done = _pulumi(tmp_path, "stack", "init", "t")
    assert done.returncode == 0, done.stderr
    done = _pulumi(tmp_path, "config", "set", "--secret", "raygang:secret", "hush")
    assert done.returncode == 0, done.stderr
    return tmp_path


def _program_value(text: str) -> object:
    try:
        return config_value(text, "raygang:k")
    except SpecError as exc:
        return ("refused", str(exc).split(": ", 1)[-1])


def test_every_value_reaches_the_program_as_pulumi_hands_it(project: Path) -> None:
    stack = project / "Pulumi.t.yaml"
    head = stack.read_text()  # encryptionsalt and the secret Pulumi wrote
    lines = [head.rstrip("\n"), "  preflight: off"]  # no namespace: the project's
    values = [w for w, _ in TOP_LEVEL] + [g for g in _generated() if _finite(g)]
    for i, written in enumerate(values):
        lines.append(f"  raygang:v{i:04d}: {written}")
    one_line = [v for v in values if "\n" not in v]
    lines.append("  raygang:list:")
    lines += [f"    - {v}" for v in one_line]
    lines.append("  raygang:map:")
    lines += [f"    k{i:04d}: {v}" for i, v in enumerate(one_line)]
    lines.append("  raygang:keys:")
    lines += [f"    {k}: {i}" for i, k in enumerate(KEYS)]
    for i, (written, _) in enumerate([*STRUCTURED, MERGES]):
        lines.append(f"  raygang:s{i:02d}: {written}")
    stack.write_text("\n".join(lines) + "\n")

    done = _pulumi(project, "config", "--json")
    assert done.returncode == 0, done.stderr
    theirs = json.loads(done.stdout)
    ours = stack_config_strings(stack)
    assert sorted(ours) == sorted(theirs)
    assert theirs["raygang:secret"]["secret"] is True
    assert json.loads(ours.pop("raygang:secret")).keys() == {"secure"}  # as raygang did before
    wrong = {
        key: (text, theirs[key]["value"])
        for key, text in ours.items()
        if text != theirs[key]["value"]
        or _program_value(text) != _program_value(theirs[key]["value"])
    }
    assert not wrong
    assert ours["raygang:preflight"] == "off"
    assert len(ours) > 400  # and each value again in a list and in a map


@pytest.mark.parametrize(("written", "said"), REFUSED)
def test_what_pulumi_refuses_raygang_refuses(project: Path, written: str, said: str) -> None:
    stack = project / "Pulumi.t.yaml"
    stack.write_text(stack.read_text().rstrip("\n") + f"\n  raygang:k: {written}\n")
    done = _pulumi(project, "config", "--json")
    assert done.returncode != 0, done.stdout
    with pytest.raises(SpecError, match=said):
        stack_config_strings(stack)
