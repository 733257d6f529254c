"""Scalars typed as go-yaml v2 types them (``kubeyaml.resolve``), each against kubectl's own
decoder: as values, as keys, and generated."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from raygang.kube.kubeyaml import load_documents

from tests.kube.kubeyaml.conftest import SCALAR_TEXT, SCALARS, SETTINGS, check_against, same


@pytest.mark.parametrize("scalar", SCALARS)
def test_scalar_value_as_kubectl(yamlref: Path, scalar: str) -> None:
    check_against(yamlref, f"k: {scalar}\n".encode())


@pytest.mark.parametrize("scalar", SCALARS)
def test_scalar_key_as_kubectl(yamlref: Path, scalar: str) -> None:
    if "\n" in scalar:
        pytest.xfail("a multi-line key is not a YAML key")
    check_against(yamlref, f"{scalar}: v\n".encode())


@pytest.mark.parametrize(
    ("scalar", "value"),
    [
        ("yes", True),
        ("y", True),
        ("off", False),
        ("~", None),
        ('"."', "."),
        (".", "."),
        ("2001-12-14t21:59:43.10-05:00", "2001-12-14t21:59:43.10-05:00"),
        ("1e400", "1e400"),
    ],
)
def test_other_scalars(scalar: str, value: object) -> None:
    (doc,) = load_documents(f"k: {scalar}\n", source="t")
    assert isinstance(doc, dict)
    assert same(doc["k"], value)


def test_long_integers_never_reach_int_limits(yamlref: Path) -> None:
    for digits in (4300, 4301, 100_000):
        text = f"k: {'7' * digits}\nj: [{'-' + '1' * digits}]\n"
        check_against(yamlref, text.encode())


@SETTINGS
@given(SCALAR_TEXT)
def test_property_scalars(yamlref: Path, scalar: str) -> None:
    check_against(yamlref, f"k: {scalar}\n{scalar}: v\nl: [{scalar}]\n".encode())
