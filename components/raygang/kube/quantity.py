"""Exact Kubernetes resource quantities, string for string with apimachinery.

This module reimplements the parts of ``k8s.io/apimachinery/pkg/api/resource``
(``Quantity``, v0.36.0) that KubeRay relies on when it sums pod resources into a
Volcano PodGroup: parsing, ``Add``, ``Mul``, comparison and ``String()``.

The goal is byte-identical output, so a PodGroup planned offline matches the
one the operator writes. Three Go behaviours matter most and are easy to miss:

* Parsing rounds the magnitude *up* to nano (10^-9) precision.
* ``String()`` returns the original text when parsing kept it. Go keeps it only
  when a cheap heuristic says it is already canonical, so ``"+1"``, ``"01"``
  and ``"1.500"`` print back unchanged until they take part in arithmetic.
* A sum takes the format (DecimalSI, BinarySI, DecimalExponent) of its
  receiver, unless the receiver is zero; then it takes the addend's.

The value is held as an integer count of nano units, which is exact because
every quantity that exists after parsing is a multiple of 10^-9.

The module is pure and uses the standard library only.
"""

from __future__ import annotations

import enum
import functools
import json
import re
from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any, Final, NoReturn

__all__ = [
    "CRD_QUANTITY_PATTERN",
    "Format",
    "Quantity",
    "QuantityError",
    "crd_quantity_error",
    "format_resource_list",
    "max_resource_lists",
    "parse_manifest_quantity",
    "parse_resource_list",
    "scale_resource_list",
    "sum_resource_lists",
]

_EXPECTED: Final = (
    "expected a number with an optional suffix (n u m k M G T P E, Ki Mi Gi Ti Pi Ei) "
    "or exponent (e3), e.g. 500m, 1.5, 2Gi, 1e3"
)

_NANO: Final = 1_000_000_000

# Go caps parsed BinarySI magnitudes at the largest int64.
_BINARY_CAP_NANOS: Final = ((1 << 63) - 1) * _NANO

# Go's fast path stores the mantissa in an int64, which holds any 18 digits.
_FAST_DIGITS: Final = 18

# Go would accept larger numbers (it keeps them as unscaled big decimals), but
# nothing real needs them and Python refuses to print integers of more than
# 4300 digits by default. These limits keep every value well below that.
_MAX_DIGITS: Final = 1000
_MAX_EXPONENT: Final = 1000

_INT32_MIN: Final = -(1 << 31)
_INT32_MAX: Final = (1 << 31) - 1
INT64_MAX: Final = (1 << 63) - 1


class QuantityError(ValueError):
    """A text that Kubernetes would not accept as a quantity.

    Attributes:
        text: The rejected input, as given.
    """

    def __init__(self, message: str, text: object = None) -> None:
        super().__init__(message)
        self.text = text


class Format(enum.Enum):
    """How a quantity prints; the values are Go's ``resource.Format`` names."""

    DECIMAL_SI = "DecimalSI"
    BINARY_SI = "BinarySI"
    DECIMAL_EXPONENT = "DecimalExponent"


_DEC: Final = Format.DECIMAL_SI
_BIN: Final = Format.BINARY_SI
_EXP: Final = Format.DECIMAL_EXPONENT

# (base, exponent, format) for every fixed suffix Go knows.
_SUFFIXES: Final[dict[str, tuple[int, int, Format]]] = {
    "": (10, 0, _DEC),
    "n": (10, -9, _DEC),
    "u": (10, -6, _DEC),
    "m": (10, -3, _DEC),
    "k": (10, 3, _DEC),
    "M": (10, 6, _DEC),
    "G": (10, 9, _DEC),
    "T": (10, 12, _DEC),
    "P": (10, 15, _DEC),
    "E": (10, 18, _DEC),
    "Ki": (2, 10, _BIN),
    "Mi": (2, 20, _BIN),
    "Gi": (2, 30, _BIN),
    "Ti": (2, 40, _BIN),
    "Pi": (2, 50, _BIN),
    "Ei": (2, 60, _BIN),
}

# For the fast path in Quantity.parse: suffix -> (binary, nanos per unit,
# exponent, most digits Go's binary int64 fast path takes, largest value that
# does not overflow it, format).
_FIXED: Final[dict[str, tuple[bool, int, int, int, int, Format]]] = {
    suffix: (
        base == 2,
        (1 << exp) * _NANO if base == 2 else 10 ** (exp + 9),
        exp,
        14 - exp * 3 // 10 if base == 2 else _FAST_DIGITS,
        INT64_MAX >> exp if base == 2 else INT64_MAX,
        fmt,
    )
    for suffix, (base, exp, fmt) in _SUFFIXES.items()
}

# Go prints no suffix at all for exponents missing from its tables (10^21 in
# DecimalSI prints as "1"); ``dict.get(e, "")`` reproduces that.
_DECIMAL_SUFFIX_BY_EXP: Final = {
    exp: suffix for suffix, (base, exp, _) in _SUFFIXES.items() if base == 10
}
_BINARY_SUFFIX_BY_POWER: Final = ("", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei")

_ONE_LETTER_SUFFIXES: Final = frozenset("numkMGTPE")

_POW10: Final = tuple(10**i for i in range(_FAST_DIGITS + 10))

# The same grammar as Go's hand-written scanner: sign, leading zeros (which Go
# strips before measuring precision), integer digits, optional "." and
# fraction, then a suffix made of suffix letters, an optional sign and digits.
# Whether the suffix means anything is decided afterwards, as Go does.
_QUANTITY_RE: Final = re.compile(r"([+-]?)(0*)([0-9]*)(?:\.([0-9]*))?([eEinumkKMGTP]*[+-]?[0-9]*)")
_EXPONENT_RE: Final = re.compile(r"[eE]([+-]?)0*([0-9]+)")
_fullmatch: Final = _QUANTITY_RE.fullmatch


def _quote(text: object) -> str:
    if isinstance(text, str):
        return json.dumps(text, ensure_ascii=False)
    return repr(text)


def _fail(text: object, reason: str = "") -> NoReturn:
    detail = f"{reason}; " if reason else ""
    raise QuantityError(f"invalid quantity {_quote(text)}: {detail}{_EXPECTED}", text)


def _interpret_exponent(suffix: str) -> int | None:
    """Return the int32 exponent of an ``e<N>`` suffix, or None if it is not one.

    Go parses ``N`` as an int64 and then converts it to int32, which wraps.
    """
    match = _EXPONENT_RE.fullmatch(suffix)
    if match is None:
        return None
    sign, digits = match.groups()
    if len(digits) > 19:
        return None
    exponent = -int(digits) if sign == "-" else int(digits)
    if not -INT64_MAX - 1 <= exponent <= INT64_MAX:
        return None
    return _wrap_int32(exponent)


def _check_exponent(text: str, scale: int) -> None:
    if scale > _MAX_EXPONENT:
        _fail(text, f"exponent out of the supported range (at most {_MAX_EXPONENT})")


def _wrap_int32(value: int) -> int:
    return ((value - _INT32_MIN) & 0xFFFFFFFF) + _INT32_MIN


def _ceil_div(numerator: int, denominator: int) -> int:
    return -(-numerator // denominator)


def _int_to_str(value: int) -> str:
    """``str`` for non-negative ints, including those above Python's digit limit."""
    try:
        return str(value)
    except ValueError:
        chunk = 10**1000
        parts: list[str] = []
        while value >= chunk:
            value, low = divmod(value, chunk)
            parts.append(format(low, "01000d"))
        parts.append(str(value))
        return "".join(reversed(parts))


def _canonical(nanos: int, fmt: Format) -> str:
    """Go's ``CanonicalizeBytes``: the shortest exact form in ``fmt``."""
    if nanos == 0:
        return "0"
    sign = "-" if nanos < 0 else ""
    magnitude = -nanos if nanos < 0 else nanos
    if fmt is _BIN and magnitude >= 1024 * _NANO and magnitude % _NANO == 0:
        mantissa = magnitude // _NANO
        power = 0
        while mantissa % 1024 == 0:
            mantissa //= 1024
            power += 1
        suffix = _BINARY_SUFFIX_BY_POWER[power] if power < len(_BINARY_SUFFIX_BY_POWER) else ""
        return f"{sign}{mantissa}{suffix}"
    # BinarySI values below 1024 or with a fraction print as DecimalSI in Go.
    digits = _int_to_str(magnitude)
    mantissa_digits = digits.rstrip("0")
    exponent = len(digits) - len(mantissa_digits) - 9
    pad = exponent % 3
    if pad:
        mantissa_digits += "0" * pad
        exponent -= pad
    if fmt is _EXP:
        suffix = f"e{exponent}" if exponent else ""
    else:
        suffix = _DECIMAL_SUFFIX_BY_EXP.get(exponent, "")
    return f"{sign}{mantissa_digits}{suffix}"


class Quantity:
    """An exact Kubernetes quantity: a value, a format and Go's cached text.

    Instances are immutable in the way ``fractions.Fraction`` is: the state
    lives in private slots behind read-only properties. They are hashable.
    Equality and ordering compare the numeric value only, as Go's ``Cmp``
    does; the format and the cached text do not take part.

    ``Quantity("500m")`` is the same as ``Quantity.parse("500m")``.
    """

    # No __setattr__ guard: it would force object.__setattr__ on every
    # construction, which more than doubles the cost of parse (a hot path).
    __slots__ = ("_canon", "_format", "_nanos", "_text")

    _nanos: int
    _format: Format
    _text: str | None
    _canon: str | None

    def __init__(self, text: str | int | float) -> None:
        parsed = Quantity.parse(text)
        self._nanos = parsed._nanos
        self._format = parsed._format
        self._text = parsed._text
        self._canon = parsed._canon

    def __reduce__(self) -> tuple[Any, tuple[int, Format, str | None]]:
        return (_make, (self._nanos, self._format, self._text))

    def __copy__(self) -> Quantity:
        return self

    def __deepcopy__(self, memo: object) -> Quantity:
        return self

    # Construction -----------------------------------------------------------

    @classmethod
    def parse(cls, text: str | int | float) -> Quantity:
        """Parse a quantity exactly as Go's ``resource.ParseQuantity`` does.

        Ints and floats are what YAML loaders produce for ``cpu: 1`` or
        ``cpu: 0.5``; they are read as the text they were written as (``str``
        for ints, the shortest ``repr`` for floats).

        Args:
            text: The quantity, e.g. ``"500m"``, ``"1.5Gi"``, ``"1e3"``, ``2``.

        Returns:
            The quantity, keeping ``text`` as its printed form when Go would.

        Raises:
            QuantityError: If Kubernetes would reject the text, if it is a bool,
                NaN or infinite float, or another type, or if it has more than
                1000 significant digits or a decimal exponent above 1000.
        """
        if type(text) is not str:
            text = _coerce(text)
        if text == "0":
            return _ZERO
        if not text:
            _fail(text, "empty")
        # Fast path for the common forms, an unsigned number with a fixed
        # suffix ("500m", "0.5", "2Gi", "1.5Gi"), without the regular expression.
        last = text[-1]
        if last == "i":
            number, suffix = text[:-2], text[-2:]
        elif last in _ONE_LETTER_SUFFIXES:
            number, suffix = text[:-1], last
        else:
            number, suffix = text, ""
        fixed = _FIXED.get(suffix)
        if fixed is not None and number.isascii():
            whole, _, fraction = number.partition(".")
            if (whole + fraction).isdigit():
                binary, multiplier, exponent, max_digits, max_value, fmt = fixed
                # Go strips leading zeros before it counts digits.
                shifted = (whole.lstrip("0") or "0") + fraction
                if len(shifted) <= _FAST_DIGITS:
                    if not binary:
                        scale = exponent - len(fraction)
                        if scale >= -9:
                            # Go reuses the input as the printed form only when
                            # a heuristic calls it canonical ("01" passes).
                            keep = (
                                scale % 3 == 0 and shifted[0] != "0" and not shifted.endswith("000")
                            )
                            nanos = int(shifted) * _POW10[scale + 9]
                            return _make(nanos, fmt, text if keep else None)
                    elif not fraction and len(shifted) <= max_digits:
                        value = int(shifted)
                        if value <= max_value:
                            return _make(value * multiplier, fmt, text if value & 7 else None)
                    else:
                        # Go's exact path: round up to nano, cap, and no text.
                        nanos = _ceil_div(int(shifted) * multiplier, _POW10[len(fraction)])
                        nanos = min(nanos, _BINARY_CAP_NANOS)
                        return _make(nanos, _DEC if 0 < nanos < _NANO else fmt, None)
        return _parse_general(text)

    @classmethod
    def zero(cls) -> Quantity:
        """Return ``0`` in DecimalSI, the same as ``Quantity.parse("0")``."""
        return _ZERO

    @classmethod
    def from_value(cls, value: Fraction | int, fmt: Format = Format.DECIMAL_SI) -> Quantity:
        """Build a quantity from an exact number, like Go's ``NewQuantity``.

        Args:
            value: The number. Digits beyond nano precision are rounded away
                from zero, as parsing does.
            fmt: The format to print in.

        Returns:
            A quantity without cached text, so it prints canonically.

        Raises:
            TypeError: If ``value`` is not an int or Fraction, or ``fmt`` is not
                a Format.
        """
        if not isinstance(fmt, Format):
            raise TypeError(f"fmt must be a Format, not {type(fmt).__name__}")
        if isinstance(value, bool) or not isinstance(value, int | Fraction):
            raise TypeError(f"value must be an int or Fraction, not {type(value).__name__}")
        if isinstance(value, int):
            return _make(value * _NANO, fmt, None)
        scaled = value.numerator * _NANO
        magnitude = _ceil_div(abs(scaled), value.denominator)
        return _make(-magnitude if scaled < 0 else magnitude, fmt, None)

    # Accessors --------------------------------------------------------------

    @property
    def value(self) -> Fraction:
        """The exact numeric value (already at nano precision)."""
        return Fraction(self._nanos, _NANO)

    @property
    def format(self) -> Format:
        """The format this quantity prints in."""
        return self._format

    def canonical(self) -> str:
        """Return the canonical form, ignoring any text kept from parsing.

        This is what Go's ``String()`` returns once the quantity has been
        through ``Add`` or ``Mul``.
        """
        canon = self._canon
        if canon is None:
            canon = _canonical(self._nanos, self._format)
            self._canon = canon
        return canon

    def milli_value(self) -> int:
        """Return the value in thousandths, rounded away from zero (Go ``MilliValue``)."""
        return _round_away(self._nanos, 1_000_000)

    def int_value_ceil(self) -> int:
        """Return the value as an integer, rounded away from zero (Go ``Value``)."""
        return _round_away(self._nanos, _NANO)

    def __str__(self) -> str:
        text = self._text
        return text if text is not None else self.canonical()

    def __repr__(self) -> str:
        return f"Quantity({str(self)!r})"

    # Arithmetic -------------------------------------------------------------

    def __add__(self, other: Quantity) -> Quantity:
        """Go's ``Add``: exact sum, in the receiver's format unless it is zero."""
        if not isinstance(other, Quantity):
            return NotImplemented
        fmt = self._format if self._nanos else other._format
        return _make(self._nanos + other._nanos, fmt, None)

    def __mul__(self, k: int) -> Quantity:
        """Go's ``Mul`` by a non-negative integer; the format is kept.

        Raises:
            TypeError: If ``k`` is not an int (bools are refused too).
            ValueError: If ``k`` is negative.
        """
        if not isinstance(k, int):
            return NotImplemented
        if isinstance(k, bool):
            raise TypeError("cannot multiply a Quantity by a bool")
        if k < 0:
            raise ValueError(f"cannot multiply a Quantity by a negative number ({k})")
        return _make(self._nanos * k, self._format, None)

    __rmul__ = __mul__

    # Comparison (numeric only) ----------------------------------------------

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self._nanos == other._nanos

    def __ne__(self, other: object) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self._nanos != other._nanos

    def __lt__(self, other: Quantity) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self._nanos < other._nanos

    def __le__(self, other: Quantity) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self._nanos <= other._nanos

    def __gt__(self, other: Quantity) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self._nanos > other._nanos

    def __ge__(self, other: Quantity) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self._nanos >= other._nanos

    def __hash__(self) -> int:
        return hash(self._nanos)

    def __bool__(self) -> bool:
        return self._nanos != 0


def _coerce(text: object) -> str:
    """Turn a YAML scalar into the text it was written as."""
    if isinstance(text, str):
        return str(text)
    if isinstance(text, bool):
        _fail(text, "a bool is not a quantity")
    if isinstance(text, int):
        try:
            return str(text)
        except ValueError:
            _fail(text, f"more than {_MAX_DIGITS} significant digits")
    if isinstance(text, float):
        if text != text or text in (float("inf"), float("-inf")):
            _fail(text, "not a finite number")
        return repr(text)
    _fail(text, f"a {type(text).__name__} is not a quantity")


def _scale_up(mantissa: int, digit_bound: int, power: int) -> int:
    """Return ``ceil(mantissa * 10**power)`` for ``0 <= mantissa < 10**digit_bound``."""
    if power >= 0:
        scaled: int = mantissa * 10**power
        return scaled
    if -power >= digit_bound:
        # Below one nano: Go rounds any non-zero amount up to 1n.
        return 1 if mantissa else 0
    return _ceil_div(mantissa, 10**-power)


def _round_away(nanos: int, unit: int) -> int:
    if nanos >= 0:
        return _ceil_div(nanos, unit)
    return -_ceil_div(-nanos, unit)


def _make(nanos: int, fmt: Format, text: str | None) -> Quantity:
    """Build a quantity from its parts, without parsing."""
    quantity = _new(Quantity)
    quantity._nanos = nanos
    quantity._format = fmt
    quantity._text = text
    quantity._canon = None
    return quantity


_new = object.__new__


def _parse_general(text: str) -> Quantity:
    """Parse every form that the fast path in ``Quantity.parse`` does not take."""
    match = _fullmatch(text)
    if match is None:
        _fail(text)
    # digits has no leading zeros: Go strips them before it counts digits.
    sign, zeros, digits, fraction, suffix = match.groups()
    fraction = fraction or ""
    entry = _SUFFIXES.get(suffix)
    if entry is None:
        exponent = _interpret_exponent(suffix)
        if exponent is None:
            _fail(text, f"unknown suffix {_quote(suffix)}")
        base, fmt = 10, _EXP
    else:
        base, exponent, fmt = entry
    shifted = (digits or "0") + fraction

    if base == 10:
        # Go keeps the scale in an int32, so it wraps too.
        scale = _wrap_int32(exponent - len(fraction))
        if len(shifted) <= _FAST_DIGITS and scale >= -9:
            if scale < _FAST_DIGITS:
                nanos = int(shifted) * _POW10[scale + 9]
            else:
                nanos = int(shifted)
                if nanos:
                    _check_exponent(text, scale)
                    nanos *= 10 ** (scale + 9)
            keep = scale % 3 == 0 and shifted[0] != "0" and not shifted.endswith("000")
            return _make(-nanos if sign == "-" else nanos, fmt, text if keep else None)
    elif not fraction:
        value = int(shifted)
        # Go's fast path for binary suffixes needs an estimated number of
        # spare int64 digits and no int64 overflow; only it keeps the text.
        if len(shifted) <= 14 - exponent * 3 // 10 and value << exponent <= INT64_MAX:
            nanos = (value << exponent) * _NANO
            return _make(-nanos if sign == "-" else nanos, fmt, text if value & 7 else None)

    # Go's slow path: exact big decimal, then round the magnitude up to nano.
    if not (zeros or digits or fraction):
        _fail(text, "no digits")
    significant = shifted.lstrip("0")
    if not significant:
        return _make(0, fmt, None)
    if len(significant) > _MAX_DIGITS:
        _fail(text, f"more than {_MAX_DIGITS} significant digits")
    mantissa = int(significant)
    if base == 10:
        # Go's slow path negates the exponent in int32: -2**31 stays
        # negative and means a huge value, not a tiny one.
        _check_exponent(text, _INT32_MAX if exponent == _INT32_MIN else scale)
        magnitude = _scale_up(mantissa, len(significant), scale + 9)
    else:
        magnitude = _scale_up(mantissa << exponent, len(significant) + 19, 9 - len(fraction))
        magnitude = min(magnitude, _BINARY_CAP_NANOS)
        if 0 < magnitude < _NANO:
            # Go switches sub-unit binary values to DecimalSI while parsing,
            # which then decides the format of sums that start with them.
            fmt = _DEC
    return _make(-magnitude if sign == "-" else magnitude, fmt, None)


_ZERO: Final = _make(0, _DEC, "0")


# Resource lists ---------------------------------------------------------------


def sum_resource_lists(lists: Iterable[Mapping[str, Quantity]]) -> dict[str, Quantity]:
    """KubeRay's ``SumResourceList``.

    The first quantity seen for a name is taken as is, so it keeps its parsed
    text (Go deep-copies it, cached string included); later ones are added
    with ``+``. Names with a zero total are kept.

    Args:
        lists: Resource lists, in summation order.

    Returns:
        The totals, keyed in first-seen order.
    """
    total: dict[str, Quantity] = {}
    for resources in lists:
        for name, quantity in resources.items():
            current = total.get(name)
            total[name] = quantity if current is None else current + quantity
    return total


def scale_resource_list(resources: Mapping[str, Quantity], k: int) -> dict[str, Quantity]:
    """Multiply every quantity by ``k`` with Go's ``Mul``; ``k = 0`` keeps the names."""
    return {name: quantity * k for name, quantity in resources.items()}


# The pattern every CRD generated by controller-gen gives a resource.Quantity field (the
# RayJob's and RayCluster's resources, the Volcano Queue's capability), beside
# ``anyOf: [integer, string]`` and ``x-kubernetes-int-or-string: true``.
CRD_QUANTITY_PATTERN: Final = (
    r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|"
    r"([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$"
)
_CRD_QUANTITY: Final = re.compile(CRD_QUANTITY_PATTERN)


def crd_quantity_error(value: object) -> str | None:
    """What the API server says of a value in a CRD's quantity field; None if it takes it.

    The value is the JSON kubectl sends (see ``kube.kubeyaml``). A JSON number counts as an
    integer only when it is whole and fits an int64 (the server decodes anything else as a
    float64): ``1e3`` arrives as ``1000`` and is taken, ``1e-3`` as ``0.001`` and ``1e20``
    as a number past int64 are refused, though ``Quantity.UnmarshalJSON`` would read both.
    A string must match :data:`CRD_QUANTITY_PATTERN` (``"."`` and ``""`` do not, though
    ``ParseQuantity(".")`` is 0). Checked with kube-apiserver v1.35.4 and KubeRay's CRDs.
    """
    if isinstance(value, bool):
        return 'must be of type integer,string: "boolean"'
    if isinstance(value, int):
        fits = -(1 << 63) <= value < (1 << 63)
        return None if fits else 'must be of type integer,string: "number"'
    if isinstance(value, float):
        return 'must be of type integer,string: "number"'
    if isinstance(value, str):
        return None if _CRD_QUANTITY.match(value) else f"should match '{CRD_QUANTITY_PATTERN}'"
    if value is None:
        return None
    kind = "array" if isinstance(value, list) else "object" if isinstance(value, Mapping) else "?"
    return f'must be of type integer,string: "{kind}"'


@functools.lru_cache(maxsize=4096)
def _parse_remembered(kind: str, text: str | int) -> Quantity:
    del kind  # in the key only: 1 and "1" are parsed alike, but kept apart
    return Quantity.parse(text)


def parse_manifest_quantity(text: str | int) -> Quantity:
    """``Quantity.parse`` for readers of many manifests, remembering recent texts.

    A stack repeats a handful of quantities (``"1"``, ``"4Gi"``) thousands of times, and
    each is read twice (validation, then the typed model). Quantities are immutable, so
    one parsed object serves every occurrence. Errors are raised anew each time.
    """
    return _parse_remembered(type(text).__name__, text)


def parse_resource_list(raw: Mapping[str, object]) -> dict[str, Quantity]:
    """Parse a ``{name: quantity}`` mapping such as a container's ``requests``.

    Raises:
        QuantityError: Naming the resource, e.g.
            ``resource "cpu": invalid quantity "2 cores": expected ...``.
    """
    parsed: dict[str, Quantity] = {}
    for name, text in raw.items():
        try:
            parsed[name] = Quantity.parse(text)  # type: ignore[arg-type]
        except QuantityError as err:
            raise QuantityError(f"resource {_quote(name)}: {err}", err.text) from err
    return parsed


def format_resource_list(resources: Mapping[str, Quantity]) -> dict[str, str]:
    """Print every quantity as Go would, keys sorted like Go's JSON encoding of maps."""
    return {name: str(resources[name]) for name in sorted(resources)}


def max_resource_lists(a: Mapping[str, Quantity], b: Mapping[str, Quantity]) -> dict[str, Quantity]:
    """Per-name numeric maximum, as used for effective pod requests.

    On a tie the quantity from ``a`` is kept (with its text and format).

    Returns:
        ``a``'s names in order, then the names only ``b`` has.
    """
    result = dict(a)
    for name, quantity in b.items():
        current = result.get(name)
        if current is None or quantity > current:
            result[name] = quantity
    return result
