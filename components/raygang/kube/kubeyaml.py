"""Manifests read as kubectl reads them, bounded against hostile input.

kubectl (cli-runtime's StreamVisitor) reads a file with apimachinery's ``YAMLOrJSONDecoder``:
a stream whose first non-space byte (within 4096) is ``{`` is read as JSON values, anything
else is cut into documents at lines starting with ``---`` and each document goes through
``sigs.k8s.io/yaml.YAMLToJSON``: go-yaml v2 decodes it into Go values (YAML 1.1 typing of
plain scalars, merge keys, last duplicate key wins) and ``encoding/json`` prints them. The
API server receives that JSON, so this module returns, per document, the Python value of
that JSON (``json.loads`` of kubectl's bytes), and ``to_json`` gives the bytes back.

What that means for plain (unquoted) scalars, each checked against the Go tool in the tests:

* ``1e3``, ``1.0e+3``, ``2.0``, ``08`` are floats in go-yaml, whole, so JSON prints ``1000``,
  ``1000``, ``2``, ``8``: Python ints here. ``1e-3`` prints ``0.001``, ``1e21`` ``1e+21``:
  Python floats. ``-0.0`` prints ``-0`` and stays the float ``-0.0`` so the bytes round-trip.
* ``y n yes no on off true false`` in three casings are booleans; ``~ null`` and empty are null;
  ``0x10 0o10 010 0b10 +1 1_000`` are ints (Go's ParseInt with base prefixes, underscores
  dropped); 2**63..2**64-1 stay exact; longer integers become floats (``18446744073709552000``)
  and past float64's range the text itself (a string), so no length of digits ever reaches
  Python's int-from-text limit.
* ``.inf``/``.nan`` values are refused (encoding/json refuses them, so does kubectl); as keys
  they read ``.inf``/``.nan``. Timestamps stay the text as written.
* Keys that are not strings become text the way sigs.k8s.io/yaml does it (floats as float32
  ``%g``); null keys and keys of 2**63 or more are refused, as kubectl refuses them.
* ``<<`` merges apply where they stand: a merge after an explicit key overrides it, a key
  after the merge overrides the merge, and in ``<<: [*a, *b]`` the earlier map wins.

Where this module refuses what kubectl accepts, on purpose: duplicate keys (kubectl silently
keeps the last; ``duplicate_keys="last"`` does the same), two keys that become the same JSON
text (``1`` and ``"1"``: kubectl keeps one at random), UTF-16/32 and invalid UTF-8 input,
and anything past ``Limits``. Refusals are ``ManifestError`` (``ManifestLimitError`` for
limits) naming the source, document, line, field path, problem, what would be accepted and
the limit.

Bounds, all linear in the input: the byte size is checked before anything is parsed; nodes
are counted while libyaml's events arrive (nothing is built past the limit); aliases and
merges are counted as go-yaml would decode them (its own "excessive aliasing" rule is applied
too) before any value is copied; nesting is counted with aliases expanded; no step recurses.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import json
import math
import os
import re
import select
import stat
import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from decimal import Decimal, localcontext
from typing import Final, Literal, TypeAlias, cast

import yaml
import yaml.events as ev

__all__ = [
    "MAX_BYTES_ENV",
    "Document",
    "Limits",
    "ManifestError",
    "ManifestLimitError",
    "NotJSONError",
    "default_limits",
    "json_number_text",
    "load_documents",
    "load_json_value",
    "load_stream",
    "read_bounded",
    "to_json",
    "yaml_to_json_value",
]

JSONValue: TypeAlias = "bool | int | float | str | list[JSONValue] | dict[str, JSONValue] | None"

try:  # libyaml's C parser: the same scanner go-yaml v2 was ported from, and fast.
    from yaml._yaml import CParser as _CParser

    HAVE_LIBYAML: Final = True
except ImportError:  # pragma: no cover - only without libyaml
    HAVE_LIBYAML = False  # type: ignore[misc]


# --- limits and errors ------------------------------------------------------------------


@dataclass(frozen=True)
class Limits:
    """How much input one call may read; every limit is refused with its value named.

    Attributes:
        max_bytes: size of the whole stream, checked before parsing (the API server takes at
            most 3 MiB per object; a file may hold many).
        max_nodes: YAML nodes (scalars, collections, aliases) in the stream as written.
        max_expanded: per document, the values go-yaml decodes once aliases and merge keys
            are expanded (a billion-laughs or merge-doubling document is refused here, in time
            linear in its size). At or below 400,000 go-yaml's own alias rule is mirrored
            exactly.
        max_depth: nested collections on any path, aliases expanded.
    """

    max_bytes: int = 16 * 1024 * 1024
    max_nodes: int = 100_000
    max_expanded: int = 400_000
    max_depth: int = 100

    def __post_init__(self) -> None:
        for name in ("max_bytes", "max_nodes", "max_expanded", "max_depth"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"Limits.{name} must be a positive int, not {value!r}")


DEFAULT_LIMITS: Final = Limits()


class ManifestError(ValueError):
    """Input kubectl would not send, or that raygang refuses; says where and what instead."""

    def __init__(
        self,
        source: str,
        problem: str,
        *,
        accepted: str,
        path: str | None = None,
        document: int | None = None,
        line: int | None = None,
        limit: int | None = None,
    ) -> None:
        self.source = source
        self.problem = problem
        self.accepted = accepted
        self.path = path
        self.document = document
        self.line = line
        self.limit = limit
        where = [source]
        if document is not None:
            where.append(f"document {document}")
        if line is not None:
            where.append(f"line {line}")
        if path:
            where.append(path)
        super().__init__(f"{', '.join(where)}: {problem}; expected {accepted}")


class ManifestLimitError(ManifestError):
    """Input past one of ``Limits``; ``limit`` holds the value that was exceeded."""


@dataclass(frozen=True)
class Document:
    """One document as kubectl sends it.

    Attributes:
        value: the JSON value (dict for any object; kubectl skips null documents).
        index: 1-based position among the documents kubectl reads (null ones not counted).
        line: 1-based line of the stream where the document starts.
        from_json: True when kubectl read it as JSON (its numbers keep their text there).
    """

    value: JSONValue
    index: int
    line: int
    from_json: bool


# --- public entry points ----------------------------------------------------------------

#: The environment variable that sets ``Limits.max_bytes`` for every read raygang makes
#: (manifests, stack files, snapshots, embedded YAML and JSON, Pulumi config values).
MAX_BYTES_ENV: Final = "RAYGANG_MAX_INPUT_BYTES"


def default_limits() -> Limits:
    """``Limits()``, with ``max_bytes`` from ``$RAYGANG_MAX_INPUT_BYTES`` when it is set.

    Read at each call, so a test or a wrapper script can change it; other limits are fixed
    (no real manifest comes near them).

    Raises:
        ManifestError: the variable is set to something other than a positive integer.
    """
    text = os.environ.get(MAX_BYTES_ENV, "").strip()
    if not text:
        return DEFAULT_LIMITS
    if not (text.isascii() and text.isdigit() and len(text) <= 15 and int(text) > 0):
        raise ManifestError(
            MAX_BYTES_ENV,
            f"is {text[:40]!r}",
            accepted="a positive number of bytes, e.g. 33554432 for 32 MiB",
        )
    return Limits(max_bytes=int(text))


# How long a pipe (`<(kubectl get ...)`, a FIFO) may stay silent before we give up on it.
PIPE_IDLE_TIMEOUT_S = 30.0


def read_bounded(path: str, limits: Limits | None = None) -> bytes:
    """A file's bytes, reading at most one byte past ``max_bytes`` (``/dev/zero`` stops).

    A named pipe is opened without blocking (a FIFO nobody writes to would otherwise hang
    the open forever; with no writer it reads as empty) and read while its writer sends
    something at least every ``PIPE_IDLE_TIMEOUT_S`` seconds.
    """
    limits = limits or default_limits()
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        raise ManifestError(
            path, f"cannot be read: {exc.strerror or exc}", accepted="a readable file"
        ) from None
    try:
        if stat.S_ISFIFO(os.fstat(fd).st_mode):
            data = _read_pipe(fd, path, limits.max_bytes + 1)
        else:
            os.set_blocking(fd, True)
            with os.fdopen(fd, "rb", closefd=False) as handle:
                data = handle.read(limits.max_bytes + 1)
    except OSError as exc:
        raise ManifestError(
            path, f"cannot be read: {exc.strerror or exc}", accepted="a readable file"
        ) from None
    finally:
        os.close(fd)
    _check_size(len(data), path, limits)
    return data


def _read_pipe(fd: int, path: str, most: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while size < most:
        ready, _, _ = select.select([fd], [], [], PIPE_IDLE_TIMEOUT_S)
        if not ready:
            raise ManifestError(
                path,
                f"the pipe sent nothing for {PIPE_IDLE_TIMEOUT_S:.0f} s",
                accepted="a regular file, or a pipe whose writer finishes",
            )
        try:
            chunk = os.read(fd, min(1 << 20, most - size))
        except BlockingIOError:
            continue
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def load_documents(
    data: bytes | str,
    *,
    source: str,
    limits: Limits | None = None,
    duplicate_keys: Literal["refuse", "last"] = "refuse",
) -> list[JSONValue]:
    """The documents of a stream as kubectl sends them (null documents skipped)."""
    return [
        d.value
        for d in load_stream(data, source=source, limits=limits, duplicate_keys=duplicate_keys)
    ]


def load_stream(
    data: bytes | str,
    *,
    source: str,
    limits: Limits | None = None,
    duplicate_keys: Literal["refuse", "last"] = "refuse",
) -> list[Document]:
    """Like ``load_documents``, with each document's position and how kubectl read it.

    This is the reader every file raygang takes goes through (``kube.yamlfile`` wraps it
    for manifests and stack files, ``kube.snapshot`` for snapshots).

    Args:
        data: the whole stream (bytes from :func:`read_bounded`, or text).
        source: names the input in errors.
        limits: the bounds; :func:`default_limits` when omitted.
        duplicate_keys: ``"refuse"`` (raygang's rule) or ``"last"`` (kubectl's).

    Raises:
        ManifestLimitError: past one of ``limits``.
        ManifestError: anything else kubectl would not send.
    """
    limits = limits or default_limits()
    raw = _as_utf8(data, source, limits)
    state = _Stream(source, limits, duplicate_keys == "refuse")
    # kubectl's sniff: the first non-space byte of the first 4096 is "{" (Go's unicode.IsSpace).
    head = raw[:_SNIFF].decode("utf-8", errors="ignore").lstrip(_GO_SPACE)
    if head.startswith("{"):
        return _json_stream(raw, state)
    return _yaml_stream(raw, 0, 1, state)


def yaml_to_json_value(
    data: bytes | str, *, source: str, limits: Limits | None = None
) -> JSONValue:
    """``sigs.k8s.io/yaml.YAMLToJSON`` of embedded YAML (``spec.runtimeEnvYAML``), as a value.

    Unlike a file read by kubectl there is no JSON sniffing and no ``---`` splitting:
    go-yaml decodes the first document of the text and ignores the rest; duplicate keys
    keep the last value (KubeRay decodes it without strict mode). The same bounds apply.

    Returns:
        The value ``json.loads`` gives for the JSON (None for an empty document).
    """
    limits = limits or default_limits()
    raw = _as_utf8(data, source, limits)
    state = _Stream(source, limits, refuse_duplicates=False)
    # Invalid bytes of a !!binary value stay lone surrogates: the JSON printer then writes
    # the \ufffd escape json.Marshal writes, byte for byte (a real U+FFFD stays as it is).
    state.binary_errors = "surrogateescape"
    value = _Composer(state, 1).document(raw)
    return None if value is _NULL_DOC else value  # type: ignore[return-value]


class NotJSONError(ManifestError):
    """Text that is not one JSON value (raised by :func:`load_json_value`)."""


def load_json_value(data: str, *, source: str, limits: Limits | None = None) -> JSONValue:
    """One JSON value (a Pulumi config value, an annotation holding JSON), bounded.

    Integers of more than 20 digits, nesting past ``max_depth``, more than ``max_nodes``
    values and lone surrogates are refused before or while the value is built.

    Raises:
        NotJSONError: the text is not JSON (callers may take it as a plain string).
        ManifestLimitError, ManifestError: as for :func:`load_stream`.
    """
    limits = limits or default_limits()
    _check_size(len(data), source, limits)
    state = _Stream(source, limits, refuse_duplicates=True)
    _bound_json_text(data, state)
    decoder = _json_decoder(state)
    start = _JSON_WS.match(data, 0).end()  # type: ignore[union-attr]
    try:
        value, end = decoder.raw_decode(data, start)
    except RecursionError:
        raise state.limit(
            "is nested too deeply",
            f"at most {limits.max_depth} levels of nesting (Limits.max_depth)",
            limits.max_depth,
        ) from None
    except (json.JSONDecodeError, _NotGoJSON) as exc:
        reason = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
        raise NotJSONError(source, f"is not JSON: {reason}", accepted="a JSON value") from None
    if _JSON_WS.match(data, end).end() != len(data):  # type: ignore[union-attr]
        raise NotJSONError(source, "is not one JSON value", accepted="a JSON value")
    _check_tree(value, state, 1)
    return value  # type: ignore[no-any-return]


def to_json(value: JSONValue) -> str:
    """The bytes encoding/json prints for ``value`` (sorted keys, Go's escapes and numbers)."""
    out: list[str] = []
    # Iterative: a value may be as deep as Limits allow, or deeper if built by hand.
    stack: list[object] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, _Raw):
            out.append(item.text)
        elif isinstance(item, dict):
            out.append("{")
            parts: list[object] = []
            for i, key in enumerate(sorted(item)):
                parts.append(_Raw(("," if i else "") + _go_string(key) + ":"))
                parts.append(item[key])
            parts.append(_Raw("}"))
            stack.extend(reversed(parts))
        elif isinstance(item, list):
            out.append("[")
            parts = []
            for i, element in enumerate(item):
                if i:
                    parts.append(_Raw(","))
                parts.append(element)
            parts.append(_Raw("]"))
            stack.extend(reversed(parts))
        elif isinstance(item, str):
            out.append(_go_string(item))
        elif item is None:
            out.append("null")
        elif isinstance(item, bool):
            out.append("true" if item else "false")
        elif isinstance(item, (int, float)):
            out.append(json_number_text(item))
        else:
            raise TypeError(f"not a JSON value: {type(item).__name__}")
    return "".join(out)


def json_number_text(number: int | float) -> str:
    """The JSON text kubectl sends for a number read here (``1e3`` -> ``1000``): the text a
    Kubernetes quantity field parses, and the test of "integer" in a CRD schema."""
    if isinstance(number, bool):
        raise TypeError("a bool is not a JSON number")
    if isinstance(number, int):
        if number.bit_length() > 256:  # never produced here; keeps str() far from its limit
            raise ValueError("integer too large for JSON text here")
        return str(number)
    return _go_float64(number)


# --- internals: input -------------------------------------------------------------------

_SNIFF: Final = 4096
# Go's unicode.IsSpace (Python's str.isspace also takes \x1c-\x1f, which Go does not).
_GO_SPACE: Final = (
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)


def _check_size(size: int, source: str, limits: Limits) -> None:
    if size > limits.max_bytes:
        raise ManifestLimitError(
            source,
            f"is larger than {limits.max_bytes} bytes",
            accepted=(
                f"at most {limits.max_bytes} bytes (Limits.max_bytes; ${MAX_BYTES_ENV} sets it)"
            ),
            limit=limits.max_bytes,
        )


def _as_utf8(data: bytes | str, source: str, limits: Limits) -> bytes:
    if isinstance(data, str):
        _check_size(len(data), source, limits)  # every character is at least one byte
        try:
            raw = data.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise ManifestError(
                source,
                f"holds a lone surrogate (U+{ord(data[exc.start]):04X}) at "
                f"character {exc.start}, which no UTF-8 file can",
                accepted="UTF-8 text",
            ) from None
    else:
        raw = bytes(data)
    _check_size(len(raw), source, limits)
    if raw[:2] in (b"\xff\xfe", b"\xfe\xff") or raw[:4] in (b"\x00\x00\xfe\xff",):
        raise ManifestError(
            source,
            "is UTF-16 or UTF-32 text (kubectl's line splitting garbles it)",
            accepted="UTF-8 text",
        )
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise ManifestError(
            source, f"is not UTF-8 (byte {exc.start})", line=line, accepted="UTF-8 text"
        ) from None
    return raw


class _Stream:
    """What one call shares across documents: the source, limits and the node budget."""

    def __init__(self, source: str, limits: Limits, refuse_duplicates: bool) -> None:
        self.source = source
        self.limits = limits
        self.refuse_duplicates = refuse_duplicates
        self.binary_errors = "kubeyaml-go-replace"
        self.nodes = 0
        self.docs: list[Document] = []
        # go-yaml's reading of short scalars, which repeat (resolution is context-free).
        self.resolved: dict[tuple[str, bool, str], object] = {}

    def error(
        self, problem: str, accepted: str, *, line: int | None = None, path: str | None = None
    ) -> ManifestError:
        return ManifestError(
            self.source,
            problem,
            accepted=accepted,
            document=len(self.docs) + 1,
            line=line,
            path=path,
        )

    def limit(
        self,
        problem: str,
        accepted: str,
        limit: int,
        *,
        line: int | None = None,
        path: str | None = None,
    ) -> ManifestError:
        return ManifestLimitError(
            self.source,
            problem,
            accepted=accepted,
            limit=limit,
            document=len(self.docs) + 1,
            line=line,
            path=path,
        )


# --- internals: kubectl's YAML document splitting ------------------------------------------


_SEPARATOR: Final = re.compile(rb"^---[^\n]*", re.MULTILINE)


def _yaml_chunks(
    raw: bytes, start: int, first_line: int, st: _Stream
) -> Iterator[tuple[bytes, int]]:
    """apimachinery's YAMLReader: lines (CRLF read as LF, every line ending in LF) gathered
    until a line that starts with ``---``, which must hold nothing else but a comment.

    Found with one regular expression rather than line by line: a file of millions of lines
    costs no Python work per line."""
    if raw.count(b"\n---", start) > st.limits.max_nodes:  # each document is a node or more
        raise st.limit(
            f"holds more than {st.limits.max_nodes} document separators",
            f"at most {st.limits.max_nodes} nodes (Limits.max_nodes)",
            st.limits.max_nodes,
        )
    pos = start
    line = first_line
    for match in _SEPARATOR.finditer(raw, start):
        # The separator line's own CR (of a CRLF) is not part of what follows "---".
        rest = match.group()[3:].decode("utf-8").strip(_GO_SPACE)
        separator_line = line + raw.count(b"\n", pos, match.start())
        if rest and not rest.startswith("#"):
            text = match.group().decode("utf-8", errors="replace")[:60]
            raise st.error(
                f"has an invalid document separator {text!r}",
                "'---' alone on its line (kubectl refuses anything after it but a comment)",
                line=separator_line,
            )
        if match.start() > pos:
            yield _lines(raw[pos : match.start()]), line
        pos = match.end() + 1  # past the newline, if any
        line = separator_line + 1
    if pos < len(raw):
        yield _lines(raw[pos:]), line


def _lines(piece: bytes) -> bytes:
    """A document as YAMLReader hands it on: CRLF as LF, and a final LF."""
    piece = piece.replace(b"\r\n", b"\n")
    return piece if piece.endswith(b"\n") else piece + b"\n"


def _yaml_stream(raw: bytes, start: int, first_line: int, st: _Stream) -> list[Document]:
    for chunk, line in _yaml_chunks(raw, start, first_line, st):
        value = _Composer(st, line).document(chunk)
        if value is not _NULL_DOC:
            st.docs.append(Document(value, len(st.docs) + 1, line, False))  # type: ignore[arg-type]
    return st.docs


# --- internals: kubectl's JSON stream -------------------------------------------------------

_JSON_WS: Final = re.compile(r"[ \t\n\r]*")
_STRING_LITERAL: Final = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)


def _json_stream(raw: bytes, st: _Stream) -> list[Document]:
    """Go's json.Decoder over the stream, falling back to YAML as YAMLOrJSONDecoder does:
    if the first or second value fails, YAML takes over after the last good value."""
    text = raw.decode("utf-8")
    lims = st.limits
    _bound_json_text(text, st)
    decoder = _json_decoder(st)
    pos = 0
    good_end = 0
    count = 0
    while True:
        pos = _JSON_WS.match(text, pos).end()  # type: ignore[union-attr]
        if pos >= len(text):
            return st.docs
        line = text.count("\n", 0, pos) + 1
        try:
            value, end = decoder.raw_decode(text, pos)
        except RecursionError:
            raise st.limit(
                "is nested too deeply",
                f"at most {lims.max_depth} levels of nesting (Limits.max_depth)",
                lims.max_depth,
                line=line,
            ) from None
        except (json.JSONDecodeError, _NotGoJSON) as exc:
            if count > 1:
                reason = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
                raise st.error(
                    f"is not valid JSON: {reason}", "a stream of JSON values", line=line
                ) from None
            # The YAML decoder starts after the last good value and its whitespace up to
            # the first newline (consumeWhitespace), at the character where Go resumes.
            resume = good_end
            while resume < len(text) and text[resume] in _GO_SPACE:
                resume += 1
                if text[resume - 1] == "\n":
                    break
            start = len(text[:resume].encode("utf-8"))
            return _yaml_stream(raw, start, text.count("\n", 0, resume) + 1, st)
        count += 1
        good_end = pos = end
        _check_tree(value, st, line)
        if value is not None:
            st.docs.append(Document(value, len(st.docs) + 1, line, True))


def _bound_json_text(text: str, st: _Stream) -> None:
    """Python's json builds everything at once: bound the work first, cheaply (an upper
    bound counting structure characters, exact once strings are taken out)."""
    lims = st.limits
    rough = sum(text.count(c) for c in "[{,:")
    if (
        rough > lims.max_nodes
        and sum(_STRING_LITERAL.sub("", text).count(c) for c in "[{,:") > lims.max_nodes
    ):
        raise st.limit(
            f"holds more than {lims.max_nodes} values",
            f"at most {lims.max_nodes} values (Limits.max_nodes)",
            lims.max_nodes,
        )


def _json_decoder(st: _Stream) -> json.JSONDecoder:
    return json.JSONDecoder(
        object_pairs_hook=_json_object(st),
        parse_int=_json_int(st),
        parse_float=_json_float(st),
        parse_constant=_json_constant,
    )


def _json_object(st: _Stream) -> Callable[[list[tuple[str, JSONValue]]], dict[str, JSONValue]]:
    def build(pairs: list[tuple[str, JSONValue]]) -> dict[str, JSONValue]:
        out = dict(pairs)
        if st.refuse_duplicates and len(out) != len(pairs):
            seen: set[str] = set()
            for key, _ in pairs:
                if key in seen:
                    raise st.error(
                        f"has the key {key!r} twice in one object",
                        "each key once (kubectl would keep the last)",
                    )
                seen.add(key)
        return out

    return build


def _json_int(st: _Stream) -> Callable[[str], int]:
    def parse(text: str) -> int:
        if len(text.lstrip("-")) > 20:
            raise st.error(
                f"has the integer {text[:30]}... ({len(text)} digits)",
                "an integer the API server can read (int64; at most 20 digits)",
            )
        return int(text)

    return parse


def _json_float(st: _Stream) -> Callable[[str], float]:
    def parse(text: str) -> float:
        number = float(text)
        if math.isinf(number):
            raise st.error(f"has the number {text[:30]} past float64's range", "a finite number")
        return number

    return parse


class _NotGoJSON(Exception):
    """Text Python's json takes and Go's does not (NaN, Infinity): Go then tries YAML."""


def _json_constant(text: str) -> float:
    raise _NotGoJSON(text)


def _check_tree(value: object, st: _Stream, line: int) -> None:
    """Depth, node count and lone surrogates of a JSON value, without recursion."""
    lims = st.limits
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        st.nodes += 1
        if st.nodes > lims.max_nodes:
            raise st.limit(
                f"holds more than {lims.max_nodes} values",
                f"at most {lims.max_nodes} values (Limits.max_nodes)",
                lims.max_nodes,
                line=line,
            )
        if isinstance(item, (dict, list)):
            if depth + 1 > lims.max_depth:
                raise st.limit(
                    f"is nested more than {lims.max_depth} levels deep",
                    f"at most {lims.max_depth} levels (Limits.max_depth)",
                    lims.max_depth,
                    line=line,
                )
            if isinstance(item, dict):
                for key, element in item.items():
                    _check_text(key, st, line)
                    stack.append((element, depth + 1))
            else:
                stack.extend((element, depth + 1) for element in item)
        elif isinstance(item, str):
            _check_text(item, st, line)


_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def _check_text(text: str, st: _Stream, line: int | None, path: str | None = None) -> None:
    found = _SURROGATE.search(text)
    if found:
        raise st.error(
            f"holds a lone surrogate \\u{ord(found.group()):04x}, which cannot be sent as UTF-8",
            "text of Unicode characters",
            line=line,
            path=path,
        )


# --- internals: go-yaml v2 documents ----------------------------------------------------------

_STR: Final = "tag:yaml.org,2002:str"
_BOOL: Final = "tag:yaml.org,2002:bool"
_INT: Final = "tag:yaml.org,2002:int"
_FLOAT: Final = "tag:yaml.org,2002:float"
_NULL: Final = "tag:yaml.org,2002:null"
_TIMESTAMP: Final = "tag:yaml.org,2002:timestamp"
_BINARY: Final = "tag:yaml.org,2002:binary"
_MERGE: Final = "tag:yaml.org,2002:merge"
_RESOLVABLE: Final = frozenset({"", _STR, _BOOL, _INT, _FLOAT, _NULL, _TIMESTAMP})


class _GoFloat(float):
    """A float64 from go-yaml, told apart from ints while keys and merges are built."""


# A scalar as go-yaml v2 decodes it into interface{}: str, bool, None, int (int64 and
# uint64 ranges) or _GoFloat.
GoScalar: TypeAlias = "str | bool | int | float | None"

_CONSTANTS: Final[dict[str, GoScalar]] = {
    **dict.fromkeys(
        ("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"), True
    ),
    **dict.fromkeys(
        ("n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"), False
    ),
    **dict.fromkeys(("", "~", "null", "Null", "NULL"), None),
    **dict.fromkeys((".nan", ".NaN", ".NAN"), _GoFloat(math.nan)),
    **dict.fromkeys((".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"), _GoFloat(math.inf)),
    **dict.fromkeys(("-.inf", "-.Inf", "-.INF"), _GoFloat(-math.inf)),
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
_INT64: Final = 2**63
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
        return -magnitude if magnitude <= _INT64 else None
    return magnitude if magnitude < _INT64 else None


def _go_parse_float(text: str) -> _GoFloat | None:
    """strconv.ParseFloat(text, 64) for decimal text already matched by a float pattern:
    None where Go reports ErrRange (past float64's range; underflow reads as 0)."""
    number = float(text)  # correctly rounded, as Go's; no digit limit for floats
    return None if math.isinf(number) else _GoFloat(number)


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


def _scalar(
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
            and -_INT64 <= resolved < _INT64
        ):
            return _GoFloat(resolved)
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


# --- internals: composing a document from libyaml events ---------------------------------------

_NULL_DOC: Final = object()
_MISSING: Final = object()


class _Node:
    """One node as written. ``json`` is its value as kubectl sends it; ``gomap`` a mapping's
    Go map (typed keys) kept for merges; ``ops`` go-yaml's decode count with aliases.

    Defaults live on the class: most nodes are scalars that set three attributes, and this
    runs once per node of the input."""

    tag = ""
    implicit = False
    text = ""
    name = ""
    target: _Node | None = None
    json: object = None
    gomap: dict[tuple[object, ...], tuple[str, object]] | None = None
    ops = 1
    height = 0
    go: GoScalar = None
    children: list[_Node]

    def __init__(self, kind: str, line: int) -> None:
        self.kind = kind  # "scalar", "seq", "map", "alias"
        self.line = line


_GoKey: TypeAlias = "tuple[object, ...]"


class _Composer:
    """Builds one document bottom-up as events arrive, so nothing recurses and every limit
    is checked before the work it bounds."""

    def __init__(self, st: _Stream, first_line: int) -> None:
        self.st = st
        self.first_line = first_line
        self.anchors: dict[str, _Node] = {}
        self.nan_keys = 0
        self.bad_keys = 0
        # Open collections: (node, path segment of the node, pending key node).
        self.stack: list[list[object]] = []

    # -- where ---------------------------------------------------------------------------

    def _path(self, extra: str | None = None) -> str:
        """The field path of the next child of the open collections; with ``extra``, of
        that segment under the innermost one."""
        parts: list[str] = []
        frames = self.stack[:-1] if extra is not None and self.stack else self.stack
        for frame in frames:
            node = frame[0]
            assert isinstance(node, _Node)
            if node.kind == "seq":
                parts.append(f"[{len(node.children)}]")
            elif frame[1] is not None:
                key = frame[1]
                assert isinstance(key, _Node)
                parts.append(_path_segment(key.text if key.kind == "scalar" else "<key>"))
        if extra is not None:
            parts.append(extra)
        path = "".join(parts)
        return path[1:] if path.startswith(".") else path or "<document>"

    def _err(
        self, problem: str, accepted: str, line: int | None, path: str | None = None
    ) -> ManifestError:
        return self.st.error(problem, accepted, line=line, path=path or self._path())

    def _limit(self, problem: str, accepted: str, limit: int, line: int | None) -> ManifestError:
        return self.st.limit(problem, accepted, limit, line=line, path=self._path())

    # -- events --------------------------------------------------------------------------

    def document(self, chunk: bytes) -> object:
        parser = _PARSER(chunk)
        root: _Node | None = None
        try:
            while True:
                try:
                    event = parser.get_event()  # type: ignore[no-untyped-call]
                except yaml.YAMLError as exc:
                    mark = getattr(exc, "problem_mark", None)
                    line = self.first_line + mark.line if mark is not None else None
                    reason = getattr(exc, "problem", None) or str(exc)
                    if "nesting depth" in reason:  # libyaml's own cap (1000), met first
                        lims = self.st.limits
                        raise self._limit(
                            f"is nested too deeply ({reason})",
                            f"at most {lims.max_depth} levels (Limits.max_depth)",
                            lims.max_depth,
                            line,
                        ) from None
                    accepted = "a YAML document"
                    if reason == "found unexpected ':'":
                        # libyaml 0.2.5 refuses a plain value ending in ':' before , ] } in
                        # flow style; kubectl's go-yaml reads it as text ending in ':'.
                        accepted += " (quote a value ending in ':' inside [ ] or { })"
                    raise self._err(f"is not valid YAML: {reason}", accepted, line) from None
                kind = type(event)
                if kind is ev.StreamEndEvent or kind is ev.DocumentEndEvent:
                    break  # go-yaml reads the first document of each piece only
                if kind is ev.StreamStartEvent or kind is ev.DocumentStartEvent:
                    continue
                done = self._event(event)
                if done is not None and not self.stack:
                    root = done
        finally:
            parser.dispose()
        if root is None:
            return _NULL_DOC
        lims = self.st.limits
        if root.ops + 1 > lims.max_expanded:  # +1: go-yaml counts the document itself
            raise self._limit(
                f"expands to more than {lims.max_expanded} values through aliases and merge keys",
                f"at most {lims.max_expanded} values (Limits.max_expanded)",
                lims.max_expanded,
                root.line,
            )
        if self.anchors:
            self._go_alias_ratio(root)
        value = self._value_of(root, root.line, None)
        if self.bad_keys:
            self._raise_surviving_bad_key(value)
        return _NULL_DOC if value is None else value

    def _line(self, event: ev.Event) -> int:
        mark = event.start_mark
        return self.first_line + (mark.line if mark is not None else 0)

    def _count(self, line: int) -> None:
        st = self.st
        st.nodes += 1
        if st.nodes > st.limits.max_nodes:
            raise self._limit(
                f"holds more than {st.limits.max_nodes} YAML nodes",
                f"at most {st.limits.max_nodes} nodes (Limits.max_nodes)",
                st.limits.max_nodes,
                line,
            )

    def _event(self, event: ev.Event) -> _Node | None:
        mark = event.start_mark
        line = self.first_line + (mark.line if mark is not None else 0)
        kind = type(event)
        if kind is ev.ScalarEvent:  # most events: kept short
            st = self.st
            st.nodes += 1
            if st.nodes > st.limits.max_nodes:
                self._count(line)
            assert isinstance(event, ev.ScalarEvent)
            node = _Node("scalar", line)
            text = node.text = event.value
            tag = event.tag or ""
            implicit = bool(event.implicit[0])
            if tag:
                node.tag = tag
            if implicit:
                node.implicit = True
            # Only escapes in double quotes can make a surrogate (libyaml refuses them,
            # PyYAML's pure parser does not).
            if event.style == '"' and _SURROGATE.search(text):
                _check_text(text, st, line, self._path())
            cache_key = (tag, implicit, text)
            go = st.resolved.get(cache_key, _MISSING)
            if go is _MISSING:
                try:
                    go = _scalar(tag, implicit, text, st.binary_errors)
                except ValueError as exc:
                    raise self._err(str(exc), "a value of the tag's type", line) from None
                if len(text) <= 64 and len(st.resolved) < 10_000:
                    st.resolved[cache_key] = go
            node.go = go  # type: ignore[assignment]
            if event.anchor is not None:
                self._anchor(event.anchor, node)
            return self._place(node)
        if kind is ev.SequenceEndEvent or kind is ev.MappingEndEvent:
            open_node = self.stack[-1][0]
            assert isinstance(open_node, _Node)
            node = open_node
            if node.kind == "map":  # finished while still open, so errors name its path
                self._finish_map(node)
            else:
                self._finish_seq(node)
            self.stack.pop()
            return self._place(node)
        self._count(line)
        if isinstance(event, ev.AliasEvent):
            node = _Node("alias", line)
            node.name = event.anchor or ""
            target = self.anchors.get(node.name)
            if target is None:
                raise self._err(
                    f"refers to the unknown anchor *{node.name}",
                    "an alias to an anchor defined before it",
                    line,
                )
            if target.kind in ("seq", "map") and not target.height:  # still open
                raise self._err(
                    f"the anchor &{node.name} contains itself",
                    "an alias outside the anchored value",
                    line,
                )
            node.target = target
            node.ops = 1 + target.ops
            node.height = target.height
            return self._place(node)
        assert isinstance(event, (ev.SequenceStartEvent, ev.MappingStartEvent))
        node = _Node("seq" if isinstance(event, ev.SequenceStartEvent) else "map", line)
        node.children = []
        lims = self.st.limits
        if len(self.stack) + 1 > lims.max_depth:
            raise self._limit(
                f"is nested more than {lims.max_depth} levels deep",
                f"at most {lims.max_depth} levels (Limits.max_depth)",
                lims.max_depth,
                line,
            )
        node.height = 0  # 0 until finished: how an alias to an open collection shows
        self._anchor(event.anchor, node)
        self.stack.append([node, None])
        return None

    def _anchor(self, anchor: str | None, node: _Node) -> None:
        if anchor is not None:
            self.anchors[anchor] = node  # a later anchor of the same name replaces it

    def _place(self, node: _Node) -> _Node:
        """Hands a finished node to the open collection, checking depth with aliases."""
        lims = self.st.limits
        if len(self.stack) + node.height > lims.max_depth:
            raise self._limit(
                f"is nested more than {lims.max_depth} levels deep once aliases are expanded",
                f"at most {lims.max_depth} levels (Limits.max_depth)",
                lims.max_depth,
                node.line,
            )
        if not self.stack:
            return node
        frame = self.stack[-1]
        parent = frame[0]
        assert isinstance(parent, _Node)
        parent.children.append(node)
        if parent.kind == "map":
            frame[1] = node if frame[1] is None else None
        return node

    # -- values ---------------------------------------------------------------------------

    def _expanded(self, node: _Node, ops: int) -> None:
        lims = self.st.limits
        node.ops = min(ops, lims.max_expanded + 2)  # keeps the count small in a bomb
        if node.ops > lims.max_expanded:
            raise self._limit(
                f"expands to more than {lims.max_expanded} values through aliases and merge keys",
                f"at most {lims.max_expanded} values (Limits.max_expanded)",
                lims.max_expanded,
                node.line,
            )

    def _value_of(self, node: _Node, line: int, segment: str | None) -> object:
        """The JSON-side value of a child, copied when it is an alias (callers may edit)."""
        if node.kind == "alias":
            assert node.target is not None
            return _copy(self._value_of(node.target, line, segment))
        if node.kind == "scalar":
            go = node.go
            if isinstance(go, _GoFloat) and not math.isfinite(go):
                raise self._err(
                    f"has the value {node.text}, which JSON cannot hold "
                    "(kubectl refuses it: unsupported value)",
                    "a finite number, or a quoted string",
                    line,
                    self._path(segment) if segment else "<document>",
                )
            return _json_scalar(go)
        return node.json

    def _finish_seq(self, node: _Node) -> None:
        self._expanded(node, 1 + sum(c.ops for c in node.children))
        node.height = 1 + max((c.height for c in node.children), default=0)
        node.json = [self._value_of(c, c.line, f"[{i}]") for i, c in enumerate(node.children)]

    def _finish_map(self, node: _Node) -> None:
        pairs = list(zip(node.children[::2], node.children[1::2], strict=True))
        ops = 1
        height = 1
        for key, value in pairs:
            if _is_merge(key):
                # go-yaml decodes each merged map (an alias counting itself too); a list of
                # them is not decoded as a list.
                sources = self._merge_sources(value)
                ops += sum(s.ops for s in sources)
                height = max([height, *(s.height for s in sources)])
            else:
                ops += key.ops + value.ops
                height = max(height, 1 + value.height)
        self._expanded(node, ops)
        node.height = height
        gomap: dict[_GoKey, tuple[str, object]] = {}
        explicit: dict[_GoKey, int] = {}
        for key, value in pairs:
            if _is_merge(key):
                # go-yaml decodes the merged maps into this one where the key stands; in a
                # list, from the last to the first, so that the first wins.
                for source in reversed(self._merge_sources(value)):
                    target = source.target if source.kind == "alias" else source
                    assert target is not None and target.gomap is not None
                    if source.kind == "alias":
                        gomap.update((k, (s, _copy(v))) for k, (s, v) in target.gomap.items())
                    else:
                        gomap.update(target.gomap)
                continue
            gokey, text = self._key(key)
            segment = _path_segment(text)
            if self.st.refuse_duplicates and gokey in explicit:
                raise self._err(
                    f"has the key {text!r} twice (first at line {explicit[gokey]})",
                    "each key once in a mapping (kubectl would keep the last one silently)",
                    key.line,
                    self._path(segment),
                )
            explicit[gokey] = key.line
            gomap[gokey] = (text, self._value_of(value, value.line, segment))
        node.gomap = gomap
        out: dict[str, object] = {}
        for text, element in gomap.values():
            if text in out:
                raise self._err(
                    f"has two keys that kubectl both sends as {text!r}",
                    "keys that stay distinct as JSON text (kubectl keeps one of them at random)",
                    node.line,
                    self._path(_path_segment(text)),
                )
            out[text] = element
        node.json = out

    def _merge_sources(self, value: _Node) -> list[_Node]:
        """The maps a ``<<`` value names, as go-yaml accepts them (map, alias to a map, or a
        list of those)."""
        items = value.children if value.kind == "seq" else [value]
        for item in items:
            target = item.target if item.kind == "alias" else item
            if target is None or target.kind != "map":
                raise self._err(
                    "has a merge key (<<) whose value is not a map",
                    "a map, an alias to one, or a list of those",
                    value.line,
                )
        return items

    def _key(self, key: _Node) -> tuple[_GoKey, str]:
        """The Go map key (type and value) and its JSON text, as sigs.k8s.io/yaml makes it."""
        node = key.target if key.kind == "alias" else key
        assert node is not None
        if node.kind != "scalar":
            raise self._err(
                "has a map or list as a key (unsupported map key)", "scalar keys", key.line
            )
        go = node.go
        if isinstance(go, bool):
            return ("b", go), "true" if go else "false"
        if isinstance(go, _GoFloat):
            if math.isnan(go):
                self.nan_keys += 1  # NaN is never equal to itself, in a Go map either
                return ("nan", self.nan_keys), ".nan"
            return ("f", float(go)), _go_float32_key(go)
        if isinstance(go, int):
            if go >= _INT64:
                return self._bad_key(
                    f"has the key {node.text}, which kubectl cannot convert "
                    "(unsupported map key: uint64)",
                    "keys below 2**63",
                    key.line,
                )
            return ("i", go), str(go)
        if go is None:
            return self._bad_key(
                "has a null key (unsupported map key)", 'a non-null key (quote it: "~")', key.line
            )
        assert isinstance(go, str)
        return ("s", go), go

    def _bad_key(self, problem: str, accepted: str, line: int) -> tuple[_GoKey, str]:
        """A key sigs.k8s.io/yaml cannot convert: an error only if it survives decoding.

        The conversion to JSON runs after go-yaml has decoded the document, so such a key
        inside a value that a later duplicate key replaces is never seen (kubectl accepts
        ``a: {~: 1}`` followed by ``a: 2``). It is kept as a unique key carrying its error,
        and the finished document is searched for it."""
        self.bad_keys += 1
        error = self._err(problem, accepted, line)
        return ("bad", self.bad_keys), _BadKey(error, self.bad_keys)

    def _raise_surviving_bad_key(self, value: object) -> None:
        stack = [value]
        while stack:
            item = stack.pop()
            if isinstance(item, dict):
                for key, element in item.items():
                    if isinstance(key, _BadKey):
                        raise key.error
                    stack.append(element)
            elif isinstance(item, list):
                stack.extend(item)

    def _go_alias_ratio(self, root: _Node) -> None:
        """go-yaml's "document contains excessive aliasing": its counters at the end of each
        alias expansion (where the ratio peaks), walking the document as go-yaml does."""
        decodes, aliased = 1, 0  # the document node
        stack = [root]
        while stack:
            node = stack.pop()
            decodes += 1
            if node.kind == "alias":
                assert node.target is not None
                decodes += node.target.ops
                aliased += node.target.ops
            elif node.kind == "seq":
                stack.extend(reversed(node.children))
            elif node.kind == "map":
                order: list[_Node] = []
                for key, value in zip(node.children[::2], node.children[1::2], strict=True):
                    if _is_merge(key):
                        order.extend(reversed(value.children) if value.kind == "seq" else [value])
                    else:
                        order += [key, value]
                stack.extend(reversed(order))
            if aliased > 100 and decodes > 1000 and aliased / decodes > _allowed_ratio(decodes):
                raise self.st.limit(
                    "is mostly aliases (kubectl refuses it: document contains excessive aliasing)",
                    "aliases making up at most 99% of a document's values "
                    "(go-yaml's rule; Limits.max_expanded bounds the rest)",
                    self.st.limits.max_expanded,
                    line=node.line,
                )


class _BadKey(str):
    """A key kubectl cannot convert, held in place with its error (see ``_bad_key``)."""

    error: ManifestError

    def __new__(cls, error: ManifestError, serial: int) -> _BadKey:
        made = super().__new__(cls, f"\x00<unconvertible key {serial}>")
        made.error = error
        return made


def _allowed_ratio(decodes: int) -> float:
    if decodes <= 400_000:
        return 0.99
    if decodes >= 4_000_000:
        return 0.10
    return 0.99 - 0.89 * ((decodes - 400_000) / 3_600_000)


def _is_merge(key: _Node) -> bool:
    return key.kind == "scalar" and key.text == "<<" and (key.implicit or key.tag == _MERGE)


def _json_scalar(go: GoScalar) -> object:
    if isinstance(go, _GoFloat):
        text = _go_float64(go)
        if text.lstrip("-").isdigit() and text != "-0":
            return int(text)  # what json.loads makes of encoding/json's text
        return float(go)
    return go


def _copy(value: object) -> object:
    """A deep copy of a JSON tree, iteratively (aliases are copied so edits stay local)."""
    if not isinstance(value, (dict, list)):
        return value
    root: dict[str, object] | list[object] = {} if isinstance(value, dict) else []
    stack: list[tuple[object, dict[str, object] | list[object]]] = [(value, root)]
    while stack:
        source, target = stack.pop()
        assert isinstance(source, (dict, list))
        items = source.items() if isinstance(source, dict) else enumerate(source)
        for key, element in items:
            if isinstance(element, (dict, list)):
                child: dict[str, object] | list[object] = {} if isinstance(element, dict) else []
                stack.append((element, child))
                element = child
            if isinstance(target, dict):
                target[cast(str, key)] = element
            else:
                target.append(element)
    return root


_IDENT: Final = re.compile(r"[A-Za-z0-9_-]+")


def _path_segment(key: str) -> str:
    return "." + key if _IDENT.fullmatch(key) else f"[{json.dumps(key[:80])}]"


class _PyParser(yaml.reader.Reader, yaml.scanner.Scanner, yaml.parser.Parser):
    """PyYAML's pure parser, where libyaml is missing: the same events, slower."""

    def __init__(self, stream: bytes) -> None:
        yaml.reader.Reader.__init__(self, stream)
        yaml.scanner.Scanner.__init__(self)
        yaml.parser.Parser.__init__(self)

    def dispose(self) -> None:
        """Nothing to free (CParser's counterpart)."""


# Which parser reads documents; tests set it to _PyParser to check the fallback.
_PARSER: Callable[[bytes], yaml.parser.Parser | _PyParser] = (
    _CParser if HAVE_LIBYAML else _PyParser  # type: ignore[assignment]
)


# --- internals: Go's number and string text ----------------------------------------------------


class _Raw:
    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def _digits(number: float) -> tuple[str, int]:
    """Shortest round-trip digits and the decimal point: number = 0.DIGITS * 10**point
    (Python's repr and Go's shortest formatting both give the shortest digits that read back,
    the closest on a tie)."""
    mantissa, _, exponent = repr(abs(number)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = whole + fraction
    significant = digits.lstrip("0")
    point = len(whole) + int(exponent or 0) - (len(digits) - len(significant))
    return significant.rstrip("0") or "0", point


def _go_float64(number: float) -> str:
    """encoding/json's text for a finite float64 (ES6 style: %f, %e outside [1e-6, 1e21))."""
    if not math.isfinite(number):
        raise ValueError(f"JSON has no {number}")
    if number == 0:
        return "-0" if math.copysign(1, number) < 0 else "0"
    sign = "-" if number < 0 else ""
    digits, point = _digits(number)
    if abs(number) < 1e-6 or abs(number) >= 1e21:
        exp = point - 1
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{mantissa}e{'-' if exp < 0 else '+'}{abs(exp)}"
    return sign + _fixed(digits, point)


def _fixed(digits: str, point: int) -> str:
    if point <= 0:
        return "0." + "0" * -point + digits
    if point >= len(digits):
        return digits + "0" * (point - len(digits))
    return digits[:point] + "." + digits[point:]


def _float32(number: float) -> float:
    try:
        return struct.unpack("<f", struct.pack("<f", number))[0]  # type: ignore[no-any-return]
    except OverflowError:
        return math.copysign(math.inf, number)


def _float32_digits(value: float) -> tuple[str, int]:
    """Shortest digits that read back as the float32 ``value`` (> 0), closest on a tie."""
    bits = struct.unpack("<I", struct.pack("<f", value))[0]
    below = struct.unpack("<f", struct.pack("<I", bits - 1))[0] if bits > 1 else 0.0
    above = struct.unpack("<f", struct.pack("<I", bits + 1))[0]
    with localcontext() as ctx:
        ctx.prec = 200
        exact = Decimal(value)
        low = (Decimal(below) + exact) / 2
        # Past the largest float32 the next step up has the same width as the one below.
        high = (
            (exact + Decimal(above)) / 2
            if math.isfinite(above)
            else exact + (exact - Decimal(below)) / 2
        )
        even = bits % 2 == 0
        for precision in range(1, 10):
            quantum = Decimal(1).scaleb(exact.adjusted() - precision + 1)
            down = (exact / quantum).to_integral_value(rounding="ROUND_FLOOR") * quantum
            candidates = [
                c for c in (down, down + quantum) if low < c < high or (even and c in (low, high))
            ]
            if candidates:
                best = min(candidates, key=lambda c: abs(c - exact))
                _, digit_tuple, exponent = best.normalize().as_tuple()
                digits = "".join(map(str, digit_tuple))
                assert isinstance(exponent, int)
                return digits, len(digits) + exponent
    raise AssertionError("a float32 always has a 9-digit form")  # pragma: no cover


def _go_float32_key(number: float) -> str:
    """strconv.FormatFloat(key, 'g', -1, 32) as sigs.k8s.io/yaml writes float keys."""
    value = _float32(number)
    if math.isnan(value):
        return ".nan"
    if math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    if value == 0:
        return "-0" if math.copysign(1, value) < 0 else "0"
    sign = "-" if value < 0 else ""
    digits, point = _float32_digits(abs(value))
    exp = point - 1
    if exp < -4 or exp >= 6:  # shortest %g decides with precision 6
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{mantissa}e{'-' if exp < 0 else '+'}{abs(exp):02d}"
    return sign + _fixed(digits, point)


_GO_ESCAPE: Final = re.compile('[\x00-\x1f"\\\\<>&\u2028\u2029]')
_ESCAPES: Final = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
}


def _go_string(text: str) -> str:
    """encoding/json's string: <, >, & and U+2028/2029 escaped, as Marshal does."""
    return (
        '"'
        + _GO_ESCAPE.sub(lambda m: _ESCAPES.get(m.group(), f"\\u{ord(m.group()):04x}"), text)
        + '"'
    )
