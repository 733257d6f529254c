"""Go's string quoting and ``encoding/json``, byte for byte, for values KubeRay hands to bash.

``go_quote`` is Go's ``strconv.Quote`` (``src/strconv/quote.go``); ``shell_quote`` is the
same with ``$`` and backtick escaped, so ``bash -c`` yields the original bytes;
``go_json_dumps`` is ``json.Marshal`` (``src/encoding/json/encode.go``) with sorted map keys.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any, Final

from raygang.kuberay.submitter._errors import SubmitterError

__all__ = ["go_json_dumps", "go_quote", "shell_quote"]


# --- Go string quoting -----------------------------------------------------------------------
def _utf8_bytes(s: str) -> bytes:
    """Encode like a Go string would hold ``s``: lone surrogates become invalid UTF-8 bytes.

    ``surrogateescape`` code points (U+DC80..U+DCFF) map back to the raw byte they stand for;
    any other lone surrogate is written as its 3-byte (invalid in UTF-8) form.
    """
    out = bytearray()
    for ch in s:
        cp = ord(ch)
        if 0xDC80 <= cp <= 0xDCFF:
            out.append(cp - 0xDC00)
        elif 0xD800 <= cp <= 0xDFFF:
            out += ch.encode("utf-8", "surrogatepass")
        else:
            out += ch.encode("utf-8")
    return bytes(out)


def _go_runes(data: bytes) -> list[tuple[int, int]]:
    """Decode UTF-8 the way Go's ``utf8.DecodeRune`` does.

    Returns:
        ``(rune, width)`` pairs; an invalid byte is ``(0xFFFD, 1)``, like Go's ``RuneError``.
    """
    runes: list[tuple[int, int]] = []
    i = 0
    while i < len(data):
        lead = data[i]
        width = 1 if lead < 0x80 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4
        chunk = data[i : i + width]
        try:
            # Python's strict decoder rejects overlongs, surrogates and >U+10FFFF, like Go.
            text = chunk.decode("utf-8") if lead < 0x80 or 0xC2 <= lead <= 0xF4 else ""
        except UnicodeDecodeError:
            text = ""
        if len(text) == 1:
            runes.append((ord(text), width))
            i += width
        else:
            runes.append((0xFFFD, 1))
            i += 1
    return runes


def _go_is_print(cp: int) -> bool:
    """Go's ``strconv.IsPrint``: letters, marks, numbers, punctuation, symbols and ASCII space.

    Categories come from Python's ``unicodedata`` (Unicode 14.0 on Python 3.11; Go 1.26 uses
    15.0), so only characters assigned between those versions can be judged differently.
    """
    if cp == 0x20:
        return True
    return unicodedata.category(chr(cp))[0] in "LMNPS"


_GO_SIMPLE_ESCAPES: Final[dict[int, str]] = {
    0x07: r"\a",
    0x08: r"\b",
    0x0C: r"\f",
    0x0A: r"\n",
    0x0D: r"\r",
    0x09: r"\t",
    0x0B: r"\v",
}


def go_quote(s: str) -> str:
    r"""Quote ``s`` exactly as Go's ``strconv.Quote`` does.

    Printable characters (per :func:`_go_is_print`) are kept, including non-ASCII ones; ``"``
    and ``\`` get a backslash; other characters become ``\a``-style, ``\xNN``, ``\uNNNN`` or
    ``\UNNNNNNNN`` escapes; bytes that are not valid UTF-8 become ``\xNN``.

    Args:
        s: the text; lone surrogates stand for the invalid UTF-8 a Go string could hold.

    Returns:
        The double-quoted Go string literal.

    Example:
        >>> go_quote('a"b\\c\n\t\x00é')
        '"a\\"b\\\\c\\n\\t\\x00é"'
    """
    data = _utf8_bytes(s)
    out = ['"']
    pos = 0
    for rune, width in _go_runes(data):
        if width == 1 and rune == 0xFFFD:
            out.append(f"\\x{data[pos]:02x}")
        elif rune in (0x22, 0x5C):
            out.append("\\" + chr(rune))
        elif _go_is_print(rune):
            out.append(chr(rune))
        elif rune in _GO_SIMPLE_ESCAPES:
            out.append(_GO_SIMPLE_ESCAPES[rune])
        elif rune < 0x20 or rune == 0x7F:
            out.append(f"\\x{rune:02x}")
        elif rune < 0x10000:
            out.append(f"\\u{rune:04x}")
        else:
            out.append(f"\\U{rune:08x}")
        pos += width
    out.append('"')
    return "".join(out)


def shell_quote(s: str) -> str:
    r"""Double-quote ``s`` for bash so that bash yields exactly ``s``, looking like Go's Quote.

    KubeRay puts ``strconv.Quote`` output into the ``bash -c`` script. Bash agrees with Go on
    ``\"`` and ``\\`` only; it expands ``$`` and backticks inside double quotes and keeps
    ``\n``, ``\x7f`` or ``\u00a0`` as two or more literal characters. So this function:

    * escapes ``"``, ``\``, ``$`` and backtick with a backslash (bash removes exactly those);
    * keeps Go-printable characters as they are (as Go does);
    * writes every other character raw: bash keeps anything between double quotes literally,
      newlines included, where Go's escape would reach Ray undecoded.

    The result equals :func:`go_quote` for any string of printable characters without ``$``
    or backtick (all KubeRay test vectors). ``!`` is not escaped: history expansion is off in
    a non-interactive ``bash -c``, and bash would keep a backslash written before it.

    Args:
        s: the value; it must not contain NUL (no argv string can).

    Returns:
        A double-quoted bash word.

    Raises:
        SubmitterError: ``s`` contains NUL or a lone surrogate (not representable in argv).
    """
    if "\x00" in s:
        raise SubmitterError("a value passed to `ray job submit` cannot contain a NUL character")
    if any(0xD800 <= ord(ch) <= 0xDFFF for ch in s):
        raise SubmitterError(
            "a value passed to `ray job submit` is not valid Unicode (lone surrogate)"
        )
    out = ['"']
    for ch in s:
        if ch in '"\\$`':
            out.append("\\" + ch)
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


# --- Go encoding/json --------------------------------------------------------------------------
_JSON_SHORT_ESCAPES: Final[dict[str, str]] = {
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\b": "\\b",
    "\f": "\\f",
}


def _go_json_string(s: str) -> str:
    """A JSON string as Go's ``encoding/json`` writes it (HTML escaping on, Go >= 1.22)."""
    out = ['"']
    for rune, width in _go_runes(_utf8_bytes(s)):
        ch = chr(rune)
        if width == 1 and rune == 0xFFFD:
            # A byte that is not UTF-8 (here: a lone surrogate) is written as this escape.
            out.append("\\ufffd")
        elif ch in '"\\':
            out.append("\\" + ch)
        elif ch in _JSON_SHORT_ESCAPES:
            out.append(_JSON_SHORT_ESCAPES[ch])
        elif rune < 0x20 or ch in "<>&" or rune in (0x2028, 0x2029):
            # json.Marshal escapes <, > and & so the output is safe inside HTML <script>.
            out.append(f"\\u{rune:04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _go_json_float(value: float) -> str:
    """A float64 as ``json.Marshal`` writes it: shortest digits, ES6-style exponent rules."""
    if not math.isfinite(value):
        raise SubmitterError(f"json: unsupported value: {value!r} (YAML .inf/.nan cannot be JSON)")
    shortest = repr(value)  # Python's repr is also the shortest round-tripping form.
    magnitude = abs(value)
    if magnitude != 0 and (magnitude < 1e-6 or magnitude >= 1e21):
        # Go's 'e' format; repr uses e-notation throughout this range with the same mantissa
        # and a 2+ digit exponent. json.Marshal then shortens "e-07" to "e-7" (not "e+21").
        mantissa, _, exponent = shortest.partition("e")
        if len(exponent) == 3 and exponent.startswith("-0"):
            exponent = "-" + exponent[2]
        return f"{mantissa}e{exponent}"
    text = format(Decimal(shortest), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def go_json_dumps(value: Any) -> str:
    """Serialize like Go's ``json.Marshal`` of the decoded value: sorted keys, no spaces.

    Map keys are sorted by their UTF-8 bytes (Go sorts map keys), ``<``, ``>``, ``&``,
    U+2028 and U+2029 are escaped as ``\\u003c`` and so on, and floats use Go's formatting
    (``1.0`` is ``1``, ``1e-7`` is ``1e-7``).

    Args:
        value: None, bool, int, float, str, or lists and string-keyed mappings of them.

    Returns:
        Compact JSON text.

    Raises:
        SubmitterError: a NaN or infinite float, or a type JSON cannot hold.
    """
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _go_json_float(value)
    if isinstance(value, str):
        return _go_json_string(value)
    if isinstance(value, Mapping):
        keys = sorted(value, key=lambda k: _utf8_bytes(str(k)))
        items = (f"{_go_json_string(str(k))}:{go_json_dumps(value[k])}" for k in keys)
        return "{" + ",".join(items) + "}"
    if isinstance(value, Sequence) and not isinstance(value, bytes | bytearray):
        return "[" + ",".join(go_json_dumps(v) for v in value) + "]"
    raise SubmitterError(f"json: unsupported type: {type(value).__name__}")
