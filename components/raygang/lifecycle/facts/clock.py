"""Time on the wire: RFC 3339 in, Kubernetes' own rendering out.

Every time the lifecycle reads (a Job condition's ``lastTransitionTime``, a container's
``finishedAt``, the job record's finish time, ``--now``) is an RFC 3339 date-time, and every
time it writes is rendered as apimachinery renders ``metav1.Time``
(``k8s.io/apimachinery/pkg/apis/meta/v1/time.go``: UTC, whole seconds, ``Z``), so a value
written by raygang reads back equal to one written by the API server.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

__all__ = ["format_time", "parse_now"]

# RFC 3339 date-time (section 5.6): a full date, "T" (any case, or a space as RFC 3339
# allows), a full time with optional fraction, and a mandatory offset. A timestamp without
# an offset is ambiguous, and a TTL computed from it would be off by hours.
_RFC3339 = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})"
)


def parse_now(text: str) -> datetime:
    """Parse an RFC 3339 timestamp, such as the value of ``--now`` or ``raygang:now``.

    Args:
        text: e.g. ``2026-11-29T10:15:00Z`` or ``2026-11-29T11:15:00.5+01:00``.

    Returns:
        A timezone-aware datetime in UTC.

    Raises:
        ValueError: the text is not an RFC 3339 date-time with an offset.
    """
    stripped = text.strip() if isinstance(text, str) else ""
    match = _RFC3339.fullmatch(stripped)
    if match is None:
        raise ValueError(
            f"{text!r} is not an RFC 3339 timestamp with a time zone; "
            "expected e.g. 2026-11-29T10:15:00Z or 2026-11-29T11:15:00+01:00"
        )
    year, month, day, hour, minute, second, fraction, offset = match.groups()
    # datetime keeps microseconds; Kubernetes writes whole seconds, and finer digits
    # cannot move a TTL decision, so they are truncated rather than rejected.
    micro = int((fraction or ".0")[1:7].ljust(6, "0"))
    zone = "+00:00" if offset in ("Z", "z") else offset
    try:
        parsed = datetime.fromisoformat(
            f"{year}-{month}-{day}T{hour}:{minute}:{second}.{micro:06d}{zone}"
        )
    except ValueError as exc:
        raise ValueError(f"{text!r} is not a valid RFC 3339 timestamp: {exc}") from None
    return parsed.astimezone(UTC)


def format_time(moment: datetime) -> str:
    """Render a time as Kubernetes does: UTC, whole seconds, ``Z`` suffix."""
    return moment.astimezone(UTC).replace(microsecond=0).strftime("%Y-%m-%dT%H:%M:%SZ")
