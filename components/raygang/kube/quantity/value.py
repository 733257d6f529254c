"""The ``Quantity`` class: parsing into it, its accessors, ``Add``, ``Mul`` and ``Cmp``.

Follows the ``Quantity`` type of k8s.io/apimachinery ``pkg/api/resource/quantity.go``
(``ParseQuantity`` with its fast and slow paths, ``NewQuantity``, ``Add``, ``Mul``, ``Cmp``,
``MilliValue``, ``Value``, ``String``) and the exact arithmetic of ``amount.go``, held here as an
integer count of nano units.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Final

from raygang.kube.quantity.canonical import canonicalize
from raygang.kube.quantity.errors import fail, quote
from raygang.kube.quantity.parse import (
    INT32_MAX,
    INT32_MIN,
    MAX_DIGITS,
    ceil_div,
    check_exponent,
    coerce,
    fullmatch,
    interpret_exponent,
    scale_up,
    wrap_int32,
)
from raygang.kube.quantity.suffixes import (
    BINARY_CAP_NANOS,
    DEC,
    EXP,
    FAST_DIGITS,
    INT64_MAX,
    NANO,
    SUFFIXES,
    Format,
)

__all__ = ["Quantity"]


class Quantity:
    """An exact Kubernetes quantity: a value, a format and Go's cached text.

    Instances are immutable in the way ``fractions.Fraction`` is: the state
    lives in private slots behind read-only properties. They are hashable.
    Equality and ordering compare the numeric value only, as Go's ``Cmp``
    does; the format and the cached text do not take part.

    ``Quantity("500m")`` is the same as ``Quantity.parse("500m")``.
    """

    # Set only by ``_make`` (and ``__init__``), as ``fractions.Fraction`` sets its own.
    __slots__ = ("_format", "_nanos", "_text")

    _nanos: int
    _format: Format
    _text: str | None

    def __init__(self, text: str | int | float) -> None:
        parsed = Quantity.parse(text)
        self._nanos = parsed._nanos
        self._format = parsed._format
        self._text = parsed._text

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
        text = coerce(text)
        if text == "0":  # Go returns it as it is, before parsing
            return _ZERO
        if not text:
            fail(text, "empty")
        return _parse(text)

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
            return _make(value * NANO, fmt, None)
        scaled = value.numerator * NANO
        magnitude = ceil_div(abs(scaled), value.denominator)
        return _make(-magnitude if scaled < 0 else magnitude, fmt, None)

    # Accessors --------------------------------------------------------------

    @property
    def value(self) -> Fraction:
        """The exact numeric value (already at nano precision)."""
        return Fraction(self._nanos, NANO)

    @property
    def format(self) -> Format:
        """The format this quantity prints in."""
        return self._format

    def canonical(self) -> str:
        """Return the canonical form, ignoring any text kept from parsing.

        This is what Go's ``String()`` returns once the quantity has been
        through ``Add`` or ``Mul``.
        """
        return canonicalize(self._nanos, self._format)

    def milli_value(self) -> int:
        """Return the value in thousandths, rounded away from zero (Go ``MilliValue``)."""
        return _round_away(self._nanos, 1_000_000)

    def int_value_ceil(self) -> int:
        """Return the value as an integer, rounded away from zero (Go ``Value``)."""
        return _round_away(self._nanos, NANO)

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


def _round_away(nanos: int, unit: int) -> int:
    if nanos >= 0:
        return ceil_div(nanos, unit)
    return -ceil_div(-nanos, unit)


def _make(nanos: int, fmt: Format, text: str | None) -> Quantity:
    """Build a quantity from its parts, without parsing."""
    quantity = object.__new__(Quantity)
    quantity._nanos = nanos
    quantity._format = fmt
    quantity._text = text
    return quantity


def _parse(text: str) -> Quantity:
    """``ParseQuantity`` after its checks for ``"0"`` and ``""``: Go's int64 path where it
    applies (which decides whether the text is kept), else its exact big-decimal path."""
    match = fullmatch(text)
    if match is None:
        fail(text)
    # digits has no leading zeros: Go strips them before it counts digits.
    sign, zeros, digits, fraction, suffix = match.groups()
    fraction = fraction or ""
    entry = SUFFIXES.get(suffix)
    if entry is None:
        exponent = interpret_exponent(suffix)
        if exponent is None:
            fail(text, f"unknown suffix {quote(suffix)}")
        base, fmt = 10, EXP
    else:
        base, exponent, fmt = entry
    shifted = (digits or "0") + fraction

    if base == 10:
        # Go keeps the scale in an int32, so it wraps too.
        scale = wrap_int32(exponent - len(fraction))
        if len(shifted) <= FAST_DIGITS and scale >= -9:
            nanos = int(shifted)
            if nanos:  # zero stays zero, whatever its exponent ("0e99999")
                check_exponent(text, scale)
                nanos *= 10 ** (scale + 9)
            keep = scale % 3 == 0 and shifted[0] != "0" and not shifted.endswith("000")
            return _make(-nanos if sign == "-" else nanos, fmt, text if keep else None)
    elif not fraction:
        value = int(shifted)
        # Go's fast path for binary suffixes needs an estimated number of
        # spare int64 digits and no int64 overflow; only it keeps the text.
        if len(shifted) <= 14 - exponent * 3 // 10 and value << exponent <= INT64_MAX:
            nanos = (value << exponent) * NANO
            return _make(-nanos if sign == "-" else nanos, fmt, text if value & 7 else None)

    # Go's slow path: exact big decimal, then round the magnitude up to nano.
    if not (zeros or digits or fraction):
        fail(text, "no digits")
    significant = shifted.lstrip("0")
    if not significant:
        return _make(0, fmt, None)
    if len(significant) > MAX_DIGITS:
        fail(text, f"more than {MAX_DIGITS} significant digits")
    mantissa = int(significant)
    if base == 10:
        # Go's slow path negates the exponent in int32: -2**31 stays
        # negative and means a huge value, not a tiny one.
        check_exponent(text, INT32_MAX if exponent == INT32_MIN else scale)
        magnitude = scale_up(mantissa, len(significant), scale + 9)
    else:
        magnitude = scale_up(mantissa << exponent, len(significant) + 19, 9 - len(fraction))
        magnitude = min(magnitude, BINARY_CAP_NANOS)
        if 0 < magnitude < NANO:
            # Go switches sub-unit binary values to DecimalSI while parsing,
            # which then decides the format of sums that start with them.
            fmt = DEC
    return _make(-magnitude if sign == "-" else magnitude, fmt, None)


_ZERO: Final = _make(0, DEC, "0")
