"""Stack files typed as the Pulumi CLI types them (``kubeyaml.resolve3``, ``compose3``,
``stackfile``): each worked case is what the real CLI hands the program (``stack_cases``,
checked against the CLI itself by ``tests/e2e/test_stack_config_typing.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from raygang.kube.errors import SpecError
from raygang.kube.kubeyaml import Limits, ManifestLimitError, load_stack_stream
from raygang.kube.kubeyaml.compose3 import go_g
from raygang.kube.kubeyaml.resolve import GoFloat
from raygang.kube.kubeyaml.resolve3 import GoTime, go_time_string, scalar3
from raygang.settings import config_value, read_stack_file, stack_config_strings

from tests.kube.kubeyaml.stack_cases import MERGES, REFUSED, STRUCTURED, TOP_LEVEL


def _strings(tmp_path: Path, body: str) -> dict[str, str]:
    path = tmp_path / "Pulumi.t.yaml"
    path.write_text("config:\n" + body)
    return stack_config_strings(path)


@pytest.mark.parametrize(("written", "received"), TOP_LEVEL)
def test_top_level_value_as_pulumi_hands_it(tmp_path: Path, written: str, received: str) -> None:
    assert _strings(tmp_path, f"  raygang:k: {written}\n") == {"raygang:k": received}


@pytest.mark.parametrize(("written", "received"), [*STRUCTURED, MERGES])
def test_structured_value_as_pulumi_hands_it(tmp_path: Path, written: str, received: str) -> None:
    assert _strings(tmp_path, f"  raygang:k: {written}\n") == {"raygang:k": received}


@pytest.mark.parametrize(("written", "said"), REFUSED)
def test_what_pulumi_refuses_is_refused(tmp_path: Path, written: str, said: str) -> None:
    with pytest.raises(SpecError, match=said):
        _strings(tmp_path, f"  raygang:k: {written}\n")


@pytest.mark.parametrize(
    ("tag", "implicit", "text", "value"),
    [
        ("", True, "yes", "yes"),
        ("", True, "True", True),
        ("", True, "010", 8),
        ("", True, "0b-1", -1),
        ("", True, "-0b-1", "-0b-1"),  # ParseInt("--1") fails: text
        ("", True, "0b+1", 1),
        ("", True, "08", GoFloat(8)),
        ("", True, "1e3", GoFloat(1000)),
        ("", True, "+.inf", GoFloat(float("inf"))),
        ("", True, "1e400", "1e400"),
        ("", True, "18446744073709551615", 2**64 - 1),
        ("", True, "9" * 5000, "9" * 5000),  # never handed to int()
        ("", True, "<<", "<<"),
        ("", False, "010", "010"),  # quoted
        ("tag:yaml.org,2002:str", True, "1", "1"),
        ("tag:yaml.org,2002:float", True, "1", GoFloat(1)),
        ("tag:yaml.org,2002:int", False, "12", 12),
        ("!", True, "12", 12),  # plain: the non-specific tag is no tag
        ("!", False, "12", "12"),  # quoted
        ("!local", True, "12", "12"),
        ("tag:yaml.org,2002:binary", True, "aGk=", "hi"),
    ],
)
def test_scalar3(tag: str, implicit: bool, text: str, value: object) -> None:
    got = scalar3(tag, implicit, text)
    assert got == value and type(got) is type(value)


@pytest.mark.parametrize(
    ("tag", "text"),
    [
        ("tag:yaml.org,2002:int", "x"),
        ("tag:yaml.org,2002:float", "18446744073709551615"),  # a uint64 is not a !!float
        ("tag:yaml.org,2002:bool", "yes"),
        ("tag:yaml.org,2002:timestamp", "2001-02-30"),
        ("tag:yaml.org,2002:binary", "!!!"),
    ],
)
def test_scalar3_refuses_a_tag_it_cannot_decode(tag: str, text: str) -> None:
    with pytest.raises(ValueError, match=r"cannot decode|base64"):
        scalar3(tag, True, text)


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("2000-02-29", "2000-02-29 00:00:00 +0000 UTC"),
        ("2001-1-2", "2001-01-02 00:00:00 +0000 UTC"),
        ("2001-12-14T21:59:43,5Z", "2001-12-14 21:59:43.5 +0000 UTC"),
        ("2001-12-14T21:59:43.000Z", "2001-12-14 21:59:43 +0000 UTC"),
        ("2001-12-14T21:59:43-05:30", "2001-12-14 21:59:43 -0530 -0530"),
        ("2001-02-29", None),
        ("2001-12-14T21:59:43", None),  # T needs a zone
        ("2001-12-14 21:59:43Z", None),  # a space takes none
        ("2001-12-14T24:00:00Z", None),
        ("2001-12-14T21:59:43+25:00", None),
        ("20011-12-14", None),
    ],
)
def test_go_time_string(text: str, shown: str | None) -> None:
    got = go_time_string(text)
    assert got == shown and (got is None or isinstance(got, GoTime))


@pytest.mark.parametrize(
    ("number", "text"),
    [(1e6, "1e+06"), (123456.0, "123456"), (1.5, "1.5"), (1e-5, "1e-05"), (-0.0, "-0")],
)
def test_go_g(number: float, text: str) -> None:
    assert go_g(number) == text


def test_limits_hold_for_stack_files() -> None:
    with pytest.raises(ManifestLimitError):
        load_stack_stream("config: " + "[" * 10 + "]" * 10, source="t", limits=Limits(max_depth=5))
    with pytest.raises(ManifestLimitError):
        load_stack_stream("config: [" + "1, " * 50 + "]", source="t", limits=Limits(max_nodes=20))


def test_a_key_without_namespace_is_the_projects(tmp_path: Path) -> None:
    assert _strings(tmp_path, "  preflight: off\n  other:x: 1\n") == {
        "raygang:preflight": "off",
        "other:x": "1",
    }
    with pytest.raises(SpecError, match="again"):
        _strings(tmp_path, "  preflight: off\n  raygang:preflight: warn\n")


@pytest.mark.parametrize(
    ("written", "value"),
    [
        ("off", "off"),  # go-yaml v2 read this as false, which settings refuse
        ('"true"', True),  # the program parses the string as JSON
        ("~", ""),
        ("[1, yes]", [1, "yes"]),
        ("'{\"a\": 010}'", '{"a": 010}'),  # not JSON: the string
    ],
)
def test_the_programs_step_follows(tmp_path: Path, written: str, value: object) -> None:
    text = _strings(tmp_path, f"  raygang:k: {written}\n")["raygang:k"]
    assert config_value(text, "raygang:k") == value


def test_preflight_off_is_read_as_the_program_reads_it(tmp_path: Path) -> None:
    path = tmp_path / "Pulumi.t.yaml"
    path.write_text("config:\n  raygang:preflight: off\n")
    assert read_stack_file(path).preflight == "off"
    path.write_text("config:\n  raygang:now: 2026-01-02T03:04:05Z\n")
    # The program gets time.Time's String(), not the text: quote an RFC 3339 timestamp.
    assert read_stack_file(path).now == "2026-01-02 03:04:05 +0000 UTC"
