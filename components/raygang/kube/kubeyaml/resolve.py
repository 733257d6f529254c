"""Scalars typed as go-yaml v2 types them when it decodes into ``interface{}``.

This follows ``resolve.go``: its resolve table (YAML 1.1 booleans in three casings, nulls,
``.inf`` and ``.nan``), ints through Go's ``strconv.ParseInt``/``ParseUint`` (base prefixes,
underscores dropped), floats through ``ParseFloat``, and ``parseTimestamp``'s four layouts.
It also follows the scalar case of ``decode.go`` (explicit tags, ``!!binary``, a timestamp
kept as its text).
"""

from __future__ import annotations

import base64
import binascii
import codecs
import math
import re
from typing import Final, TypeAlias

__all__ = [
    "INT64",
    "MERGE",
    "GoFloat",
    "GoScalar",
    "scalar",
]


_STR: Final = "tag:yaml.org,2002:str"

_BOOL: Final = "tag:yaml.org,2002:bool"

_INT: Final = "tag:yaml.org,2002:int"

_FLOAT: Final = "tag:yaml.org,2002:float"

_NULL: Final = "tag:yaml.org,2002:null"

_TIMESTAMP: Final = "tag:yaml.org,2002:timestamp"

_BINARY: Final = "tag:yaml.org,2002:binary"

MERGE: Final = "tag:yaml.org,2002:merge"

_RESOLVABLE: Final = frozenset({"", _STR, _BOOL, _INT, _FLOAT, _NULL, _TIMESTAMP})


class GoFloat(float):
    """A float64 from go-yaml, told apart from ints while keys and merges are built."""


# A scalar as go-yaml v2 decodes it into interface{}: str, bool, None, int (int64 and
# uint64 ranges) or GoFloat.
GoScalar: TypeAlias = "str | bool | int | float | None"


_CONSTANTS: Final[dict[str, GoScalar]] = {
    **dict.fromkeys(
        ("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"), True
    ),
    **dict.fromkeys(
        ("n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"), False
    ),
    **dict.fromkeys(("", "~", "null", "Null", "NULL"), None),
    **dict.fromkeys((".nan", ".NaN", ".NAN"), GoFloat(math.nan)),
    **dict.fromkeys((".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"), GoFloat(math.inf)),
    **dict.fromkeys(("-.inf", "-.Inf", "-.INF"), GoFloat(-math.inf)),
}


def _constant_tag(constant: GoScalar) -> str:
    return _NULL if constant is None else _BOOL if isinstance(constant, bool) else _FLOAT


_YAML_FLOAT: Final = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")

_DOT_FLOAT: Final = re.compile(r"\.[0-9]+([eE][-+]?[0-9]+)?")


_BASE_DIGITS: Final = {
    2: re.compile("[01]+"),
    8: re.compile("[0-7]+"),
    10: re.compile("[0-9]+"),
    16: re.compile("[0-9a-fA-F]+"),
}


# Digits a uint64 can need in each base, leading zeros aside.
_MAX_DIGITS: Final = {2: 64, 8: 22, 10: 20, 16: 16}


INT64: Final = 2**63

_UINT64: Final = 2**64


def _go_parse_uint(text: str) -> int | None:
    """strconv.ParseUint(text, 0, 64), or None where Go returns an error."""
    base = 10
    body = text
    if body[:1] == "0":
        prefix = body[1:2].lower()
        if len(body) >= 3 and prefix in ("b", "o", "x"):
            base = {"b": 2, "o": 8, "x": 16}[prefix]
            body = body[2:]
        else:
            base, body = 8, body[1:]
            if not body:
                return 0
    if not body or not _BASE_DIGITS[base].fullmatch(body):
        return None
    significant = body.lstrip("0")
    if len(significant) > _MAX_DIGITS[base]:
        return None  # out of range, and never handed to int() (its 4300-digit limit)
    value = int(significant or "0", base)
    return value if value < _UINT64 else None


def _go_parse_int(text: str) -> int | None:
    """strconv.ParseInt(text, 0, 64): one sign, then ParseUint, then the int64 range."""
    negative = text[:1] == "-"
    magnitude = _go_parse_uint(text[1:] if text[:1] in ("+", "-") else text)
    if magnitude is None:
        return None
    if negative:
        return -magnitude if magnitude <= INT64 else None
    return magnitude if magnitude < INT64 else None


def _go_parse_float(text: str) -> GoFloat | None:
    """strconv.ParseFloat(text, 64) for decimal text already matched by a float pattern:
    None where Go reports ErrRange (past float64's range; underflow reads as 0)."""
    number = float(text)  # correctly rounded, as Go's; no digit limit for floats
    return None if math.isinf(number) else GoFloat(number)


def _resolve(tag: str, value: str) -> tuple[str, GoScalar]:
    """go-yaml v2's resolve(): the tag and value of a scalar that may be resolved."""
    if tag not in _RESOLVABLE:
        return tag, value
    first = value[:1]
    if tag != _STR and (not first or first in "yYnNtTfFoO~.+-0123456789"):
        if value in _CONSTANTS:
            constant = _CONSTANTS[value]
            return _constant_tag(constant), constant
        if first == ".":
            if _DOT_FLOAT.fullmatch(value):
                number = _go_parse_float(value)
                if number is not None:
                    return _FLOAT, number
        elif first in "+-0123456789":
            if (tag in ("", _TIMESTAMP)) and _is_timestamp(value):
                return _TIMESTAMP, value
            plain = value.replace("_", "")
            integer = _go_parse_int(plain)
            if integer is None:
                integer = _go_parse_uint(plain)
            if integer is not None:
                return _INT, integer
            if _YAML_FLOAT.fullmatch(plain):
                number = _go_parse_float(plain)
                if number is not None:
                    return _FLOAT, number
            # go-yaml's own 0b/-0b fallbacks accept nothing ParseInt's base 0 refuses.
    return _STR, value


def scalar(
    tag: str, implicit: bool, value: str, binary_errors: str = "kubeyaml-go-replace"
) -> GoScalar:
    """decoder.scalar() into interface{}; raises ValueError with go-yaml's reason."""
    if not tag and not implicit:
        return value  # quoted, untagged
    rtag, resolved = _resolve(tag, value)
    if rtag == _BINARY:
        try:
            data = base64.b64decode(value.replace("\n", "").replace("\r", ""), validate=True)
        except binascii.Error:
            raise ValueError("!!binary value contains invalid base64 data") from None
        # Go keeps the bytes; encoding/json writes each invalid byte as U+FFFD.
        return data.decode("utf-8", errors=binary_errors)
    if tag not in ("", rtag, _STR, _BINARY):
        if (
            tag == _FLOAT
            and rtag == _INT
            and isinstance(resolved, int)
            and -INT64 <= resolved < INT64
        ):
            return GoFloat(resolved)
        raise ValueError(f"cannot decode {_short(rtag)} `{value[:40]}` as a {_short(tag)}")
    if rtag == _TIMESTAMP:
        return value  # into interface{} go-yaml v2 keeps a timestamp as its text
    return resolved


def _short(tag: str) -> str:
    return "!!" + tag[18:] if tag.startswith("tag:yaml.org,2002:") else tag


def _go_replace(exc: UnicodeError) -> tuple[str, int]:
    # One U+FFFD per invalid byte, as Go's utf8.DecodeRune (Python's "replace" may take
    # several bytes of a broken sequence at once).
    assert isinstance(exc, UnicodeDecodeError)
    return "\ufffd", exc.start + 1


codecs.register_error("kubeyaml-go-replace", _go_replace)

_DATE: Final = re.compile(r"([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})")

_CLOCK: Final = re.compile(r"([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})([.,][0-9]+)?")

_ZONE: Final = re.compile(r"Z|[+-][0-9]{2}:[0-9]{2}")


def _is_timestamp(text: str) -> bool:
    """go-yaml v2's parseTimestamp: time.Parse with one of its four layouts."""
    date = _DATE.match(text)
    if not date:
        return False
    year, month, day = (int(g) for g in date.groups())
    if not 1 <= month <= 12 or not 1 <= day <= _days_in(month, year):
        return False
    rest = text[date.end() :]
    if not rest:
        return True
    separator, rest = rest[:1], rest[1:]
    clock = _CLOCK.match(rest)
    if separator not in ("T", "t", " ") or not clock:
        return False
    hour, minute, second = (int(g) for g in clock.groups()[:3])
    if hour > 23 or minute > 59 or second > 59:
        return False
    zone = rest[clock.end() :]
    if separator == " ":
        return not zone
    if not _ZONE.fullmatch(zone):
        return False
    return zone == "Z" or (int(zone[1:3]) <= 24 and int(zone[4:6]) <= 60)


def _days_in(month: int, year: int) -> int:
    if month == 2:
        leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
        return 29 if leap else 28
    return 30 if month in (4, 6, 9, 11) else 31
