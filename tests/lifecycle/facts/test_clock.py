"""Clock: RFC 3339 times in, Kubernetes-style times out."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from raygang.lifecycle.facts.clock import format_time, parse_now


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-11-29T10:15:00Z", datetime(2026, 11, 29, 10, 15, tzinfo=UTC)),
        ("2026-11-29t10:15:00z", datetime(2026, 11, 29, 10, 15, tzinfo=UTC)),
        ("2026-11-29 10:15:00Z", datetime(2026, 11, 29, 10, 15, tzinfo=UTC)),
        ("2026-11-29T11:15:00+01:00", datetime(2026, 11, 29, 10, 15, tzinfo=UTC)),
        ("2026-11-29T10:15:00.5Z", datetime(2026, 11, 29, 10, 15, 0, 500000, tzinfo=UTC)),
        ("2026-11-29T10:15:00.123456789Z", datetime(2026, 11, 29, 10, 15, 0, 123456, tzinfo=UTC)),
        ("  2026-11-29T10:15:00-00:30 ", datetime(2026, 11, 29, 10, 45, tzinfo=UTC)),
    ],
)
def test_parse_now_accepts_rfc3339(text: str, expected: datetime) -> None:
    parsed = parse_now(text)
    assert parsed == expected
    assert parsed.tzinfo is UTC


@pytest.mark.parametrize(
    "text",
    [
        "2026-11-29T10:15:00",  # no offset: ambiguous
        "2026-11-29",
        "now",
        "",
        "2026-13-29T10:15:00Z",  # month 13
        "2026-11-29T25:15:00Z",
        "1764411300",
    ],
)
def test_parse_now_refuses_other_text(text: str) -> None:
    with pytest.raises(ValueError, match="RFC 3339"):
        parse_now(text)


def test_format_time_is_kubernetes_style() -> None:
    assert format_time(parse_now("2026-11-29T11:15:00.7+01:00")) == "2026-11-29T10:15:00Z"
