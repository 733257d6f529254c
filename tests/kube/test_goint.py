"""``strconv.ParseInt(s, 10, 64)`` (``kube/goint.py``), as selectors' Gt and Lt read values."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from raygang.kube.goint import parse_int64


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("8", 8),
        ("+16", 16),
        ("-3", -3),
        ("007", 7),
        ("0", 0),
        ("-0", 0),
        ("9223372036854775807", 2**63 - 1),
        ("-9223372036854775808", -(2**63)),
        ("0000000000000000000000009", 9),  # leading zeros do not count against the range
    ],
)
def test_what_go_reads(text: str, value: int) -> None:
    assert parse_int64(text) == value


@pytest.mark.parametrize(
    "text",
    [
        "",
        "+",
        "-",
        "5_000",  # Python's int() reads it; base 10 in Go does not
        " 8",
        "8 ",
        "0x10",
        "1e3",
        "1.0",
        "++1",
        "٣",  # an Arabic-Indic digit: int() reads it as 3
        "9223372036854775808",
        "-9223372036854775809",
        "1" * 5000,  # past int()'s digit limit: refused, not raised
    ],
)
def test_what_go_refuses(text: str) -> None:
    assert parse_int64(text) is None


@given(st.integers(-(2**63), 2**63 - 1))
def test_every_int64_reads_back(value: int) -> None:
    assert parse_int64(str(value)) == value
    if value >= 0:
        assert parse_int64(f"+{value}") == value
