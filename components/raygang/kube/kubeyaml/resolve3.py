"""Scalars typed as gopkg.in/yaml.v3 (v3.0.1) types them when it decodes into ``interface{}``:
how the Pulumi CLI reads a stack file (``Pulumi.<stack>.yaml``).

This follows v3's ``resolve.go`` (``resolve``, ``parseTimestamp``) and the scalar case of
``decode.go``, in our own words:

* booleans are ``true``/``false`` in three casings only (``yes``, ``on``, ``y`` stay text);
  nulls are empty, ``~`` and ``null`` in three casings;
* ints go through Go's ``strconv.ParseInt(s, 0, 64)`` then ``ParseUint`` with underscores
  dropped, so ``010`` is 8, ``0B1``, ``0o17``, ``0x_1F`` are ints, and v3's own fallbacks
  let a sign follow the prefix (``0b-1`` is -1, ``0o-7`` is -7);
* floats are ``ParseFloat`` of text matching YAML's float pattern (``1.``, ``-.5``, ``1e3``;
  ``08`` is a float, 8), or of text starting with ``.``; past float64's range the text stays
  a string (``1e400``);
* an unquoted timestamp in one of four ``time.Parse`` layouts is a ``time.Time`` (v2 kept the
  text), which Pulumi turns into its ``String()`` text: :class:`GoTime`;
* quoted and block scalars, ``!!str`` and unknown tags (``!foo``) are text; ``! 12`` is
  plain 12 (the non-specific tag is no tag), ``! "12"`` text;
  ``!!binary`` is its decoded bytes; ``!!float 1`` is a float; ``!!int x`` is an error.

Ints are never handed to Python's int-from-text past the digits a uint64 can have.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
import time
from typing import Final, TypeAlias

from raygang.kube.kubeyaml.resolve import (
    INT64,
    GoFloat,
    _go_parse_float,
    _go_parse_int,
    _go_parse_uint,
)

__all__ = [
    "GoTime",
    "V3Scalar",
    "go_time_string",
    "scalar3",
]


_PREFIX: Final = "tag:yaml.org,2002:"

_RESOLVABLE: Final = frozenset({"", "str", "bool", "int", "float", "null", "timestamp"})


class GoTime(str):
    """A ``time.Time`` from a timestamp, held as the text of its ``String()`` method
    (``2001-12-14 21:59:43.1 +0000 UTC``): what Pulumi makes of it, as a value or a key."""


# A scalar as yaml.v3 decodes it into interface{}: str, GoTime, bool, None, int (int64 and
# uint64 ranges) or GoFloat.
V3Scalar: TypeAlias = "str | bool | int | float | None"


_CONSTANTS: Final[dict[str, V3Scalar]] = {
    **dict.fromkeys(("true", "True", "TRUE"), True),
    **dict.fromkeys(("false", "False", "FALSE"), False),
    **dict.fromkeys(("", "~", "null", "Null", "NULL"), None),
    **dict.fromkeys((".nan", ".NaN", ".NAN"), GoFloat(math.nan)),
    **dict.fromkeys((".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"), GoFloat(math.inf)),
    **dict.fromkeys(("-.inf", "-.Inf", "-.INF"), GoFloat(-math.inf)),
}

_YAML_FLOAT: Final = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")

# strconv.ParseFloat of text that starts with "." (no underscores without a base prefix).
_DOT_FLOAT: Final = re.compile(r"\.[0-9]+([eE][-+]?[0-9]+)?")

_BASE_DIGITS: Final = {2: re.compile("[-+]?[01]+"), 8: re.compile("[-+]?[0-7]+")}

_MAX_DIGITS: Final = {2: 64, 8: 22}


def _short(tag: str) -> str:
    return tag[len(_PREFIX) :] if tag.startswith(_PREFIX) else tag


def _parse_base(text: str, base: int, signed: bool) -> int | None:
    """strconv.ParseInt(text, base, 64) (or ParseUint when not ``signed``) for base 2 or 8."""
    if not _BASE_DIGITS[base].fullmatch(text) or (not signed and text[0] in "+-"):
        return None
    negative = text[0] == "-"
    body = text.lstrip("+-").lstrip("0")
    if len(body) > _MAX_DIGITS[base]:
        return None
    magnitude = int(body or "0", base)
    if not signed:
        return magnitude if magnitude < 2**64 else None
    if negative:
        return -magnitude if magnitude <= INT64 else None
    return magnitude if magnitude < INT64 else None


def _fallback(plain: str) -> int | None:
    """v3's own 0b/-0b/0o/-0o tries after ParseInt(s, 0, 64) failed: a sign may follow the
    prefix (``0b-1``), which base 0 refuses."""
    for prefix, base in (("0b", 2), ("0o", 8)):
        if plain.startswith(prefix):
            rest = plain[2:]
            if not rest:
                return None
            value = _parse_base(rest, base, signed=True)
            return value if value is not None else _parse_base(rest, base, signed=False)
        if plain.startswith("-" + prefix):
            rest = plain[3:]
            if not rest or rest[0] in "+-":
                return None
            return _parse_base("-" + rest, base, signed=True)
    return None


def _resolve(tag: str, value: str) -> tuple[str, V3Scalar]:
    """v3's resolve(): the short tag and value of a scalar."""
    if tag not in _RESOLVABLE:
        return tag, value
    first = value[:1]
    hinted = not first or first in "+-0123456789yYnNtTfFoO~."
    if hinted and tag not in ("str", "binary"):
        if value in _CONSTANTS:
            constant = _CONSTANTS[value]
            kind = "null" if constant is None else "bool" if isinstance(constant, bool) else "float"
            return kind, constant
        if first == ".":
            if _DOT_FLOAT.fullmatch(value):
                number = _go_parse_float(value)
                if number is not None:
                    return "float", number
        elif first in "+-0123456789":
            if tag in ("", "timestamp"):
                moment = go_time_string(value)
                if moment is not None:
                    return "timestamp", moment
            plain = value.replace("_", "")
            integer = _go_parse_int(plain)
            if integer is None and plain[:1] != "+" and plain[:1] != "-":
                integer = _go_parse_uint(plain)
            if integer is not None:
                return "int", integer
            if _YAML_FLOAT.fullmatch(plain):
                number = _go_parse_float(plain)
                if number is not None:
                    return "float", number
            integer = _fallback(plain)
            if integer is not None:
                return "int", integer
    return "str", value


def scalar3(
    tag: str, implicit: bool, value: str, binary_errors: str = "kubeyaml-go-replace"
) -> V3Scalar:
    """decoder.scalar() into interface{}; raises ValueError with yaml.v3's reason.

    ``tag`` and ``implicit`` are libyaml's: an untagged quoted or block scalar (not
    implicit) is text, as v3's ``indicatedString``. With the non-specific tag ``!``,
    ``implicit`` must say whether the scalar is plain (libyaml says False either way)."""
    short = _short(tag)
    if short == "!":
        short = ""  # the non-specific tag is no tag: a plain scalar still resolves
    if not short and not implicit:
        return value
    rtag, resolved = _resolve(short, value)
    if rtag == "binary":
        try:
            data = base64.b64decode(value.replace("\n", "").replace("\r", ""), validate=True)
        except binascii.Error:
            raise ValueError("!!binary value contains invalid base64 data") from None
        return data.decode("utf-8", errors=binary_errors)
    if short not in ("", rtag, "str", "binary"):
        # An int or int64 is taken as a !!float; a uint64 is refused.
        as_float = short == "float" and rtag == "int" and isinstance(resolved, int)
        if as_float and -INT64 <= resolved < INT64:  # type: ignore[operator]
            return GoFloat(resolved)  # type: ignore[arg-type]
        raise ValueError(f"cannot decode !!{rtag} `{value[:40]}` as a !!{short}")
    return resolved


# -- time.Parse with v3's four layouts, and time.Time.String() -----------------------------

_DATE: Final = re.compile(r"([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})")

_CLOCK: Final = re.compile(r"([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})(?:[.,]([0-9]+))?")

_ZONE: Final = re.compile(r"Z|([+-])([0-9]{2}):([0-9]{2})")


def go_time_string(text: str) -> GoTime | None:
    """The ``String()`` of the time v3's parseTimestamp reads from ``text``, or None.

    Layouts: ``2006-1-2T15:4:5.999999999Z07:00`` (also with ``t``), ``2006-1-2
    15:4:5.999999999`` (UTC) and ``2006-1-2`` (UTC). A zone offset is printed with the local
    zone's name when the local zone has that offset at that instant (Go's ``time.Parse``),
    else as ``+0500 +0500``; offset zero is always ``+0000 UTC`` (Pulumi re-reads the
    time after printing it as RFC 3339, where it becomes ``Z``)."""
    date = _DATE.match(text)
    if not date:
        return None
    year, month, day = (int(g) for g in date.groups())
    if not 1 <= month <= 12 or not 1 <= day <= _days_in(month, year):
        return None
    rest = text[date.end() :]
    clock_text, offset = "00:00:00", 0
    hour = minute = second = 0
    nanos = 0
    if rest:
        separator, rest = rest[:1], rest[1:]
        clock = _CLOCK.match(rest)
        if separator not in ("T", "t", " ") or not clock:
            return None
        hour, minute, second = (int(g) for g in clock.groups()[:3])
        if hour > 23 or minute > 59 or second > 59:
            return None
        fraction = clock.group(4) or ""
        nanos = int((fraction[:9] or "0").ljust(9, "0"))
        zone = rest[clock.end() :]
        if separator == " ":
            if zone:
                return None
        else:
            zmatch = _ZONE.fullmatch(zone)
            if not zmatch:
                return None
            if zone != "Z":
                hours, minutes = int(zmatch.group(2)), int(zmatch.group(3))
                if hours > 24 or minutes > 60:
                    return None
                offset = (hours * 60 + minutes) * 60 * (-1 if zmatch.group(1) == "-" else 1)
        clock_text = f"{hour:02d}:{minute:02d}:{second:02d}"
        if nanos:
            clock_text += "." + f"{nanos:09d}".rstrip("0")
    return GoTime(f"{year:04d}-{month:02d}-{day:02d} {clock_text} {_zone_text(offset, text)}")


def _zone_text(offset: int, text: str) -> str:
    sign = "-" if offset < 0 else "+"
    numeric = f"{sign}{abs(offset) // 3600:02d}{abs(offset) // 60 % 60:02d}"
    if offset == 0:
        return f"{numeric} UTC"
    name = _local_zone_name(offset, text)
    return f"{numeric} {name or numeric}"


def _local_zone_name(offset: int, text: str) -> str | None:
    """The local zone's abbreviation if it has ``offset`` at the instant ``text`` names."""
    date = _DATE.match(text)
    assert date is not None
    year, month, day = (int(g) for g in date.groups())
    clock = _CLOCK.match(text[date.end() + 1 :])
    assert clock is not None
    hour, minute, second = (int(g) for g in clock.groups()[:3])
    days = _days_from_civil(year, month, day)
    instant = days * 86400 + hour * 3600 + minute * 60 + second - offset
    try:
        local = time.localtime(instant)
    except (OverflowError, OSError, ValueError):
        return None
    return local.tm_zone if local.tm_gmtoff == offset and local.tm_zone else None


def _days_from_civil(year: int, month: int, day: int) -> int:
    year -= month <= 2
    era = year // 400
    yoe = year - era * 400
    doy = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def _days_in(month: int, year: int) -> int:
    if month == 2:
        leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
        return 29 if leap else 28
    return 30 if month in (4, 6, 9, 11) else 31
