"""A stream cut into documents as kubectl cuts it: apimachinery's
``pkg/util/yaml/decoder.go``.

Only UTF-8 is read. A stream whose first non-space byte within 4096 is ``{`` is read as JSON
values (``YAMLOrJSONDecoder``), falling back to YAML after the last good value. Any other
stream is cut into ``YAMLReader``'s documents at lines starting with ``---``, and each
document is built by the composer.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Final

from raygang.kube.kubeyaml.compose import Composer
from raygang.kube.kubeyaml.jsondecode import (
    JSON_WS,
    NotGoJSON,
    bound_json_text,
    check_tree,
    json_decoder,
    object_label,
)
from raygang.kube.kubeyaml.limits import SIZED_BY, Limits, ManifestError, check_size
from raygang.kube.kubeyaml.nodes import NULL_DOC
from raygang.kube.kubeyaml.state import Document, Stream

__all__ = [
    "GO_SPACE",
    "SNIFF",
    "as_utf8",
    "json_stream",
    "yaml_stream",
]


SNIFF: Final = 4096


# Go's unicode.IsSpace (Python's str.isspace also takes \x1c-\x1f, which Go does not).
GO_SPACE: Final = (
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)


def as_utf8(data: bytes | str, source: str, limits: Limits) -> bytes:
    if isinstance(data, str):
        check_size(len(data), source, limits)  # every character is at least one byte
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
    check_size(len(raw), source, limits)
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


_SEPARATOR: Final = re.compile(rb"^---[^\n]*", re.MULTILINE)


def _yaml_chunks(
    raw: bytes, start: int, first_line: int, st: Stream
) -> Iterator[tuple[bytes, int]]:
    """apimachinery's YAMLReader: lines (CRLF read as LF, every line ending in LF) gathered
    until a line that starts with ``---``, which must hold nothing else but a comment.

    Found with one regular expression rather than line by line: a file of millions of lines
    costs no Python work per line."""
    lims = st.limits
    if raw.count(b"\n---", start) > lims.max_values:  # each document is a value or more
        raise st.limit(
            f"holds more than {lims.max_values} document separators",
            f"at most {lims.max_values} values per file (Limits.max_values; {SIZED_BY})",
            lims.max_values,
        )
    pos = start
    line = first_line
    for match in _SEPARATOR.finditer(raw, start):
        # The separator line's own CR (of a CRLF) is not part of what follows "---".
        rest = match.group()[3:].decode("utf-8").strip(GO_SPACE)
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


def yaml_stream(raw: bytes, start: int, first_line: int, st: Stream) -> list[Document]:
    for chunk, line in _yaml_chunks(raw, start, first_line, st):
        value = Composer(st, line).document(chunk)
        if value is not NULL_DOC:
            st.docs.append(Document(value, len(st.docs) + 1, line, False))  # type: ignore[arg-type]
    return st.docs


def json_stream(raw: bytes, st: Stream) -> list[Document]:
    """Go's json.Decoder over the stream, falling back to YAML as YAMLOrJSONDecoder does:
    if the first or second value fails, YAML takes over after the last good value."""
    text = raw.decode("utf-8")
    lims = st.limits
    bound_json_text(text, st)
    decoder = json_decoder(st)
    pos = 0
    good_end = 0
    count = 0
    while True:
        pos = JSON_WS.match(text, pos).end()  # type: ignore[union-attr]
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
        except (json.JSONDecodeError, NotGoJSON) as exc:
            if count > 1:
                reason = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
                raise st.error(
                    f"is not valid JSON: {reason}", "a stream of JSON values", line=line
                ) from None
            # The YAML decoder starts after the last good value and its whitespace up to
            # the first newline (consumeWhitespace), at the character where Go resumes.
            resume = good_end
            while resume < len(text) and text[resume] in GO_SPACE:
                resume += 1
                if text[resume - 1] == "\n":
                    break
            start = len(text[:resume].encode("utf-8"))
            return yaml_stream(raw, start, text.count("\n", 0, resume) + 1, st)
        count += 1
        good_end = pos = end
        check_tree(value, st, line)
        st.count_values(st.nodes, line, object_label(value))
        if value is not None:
            st.docs.append(Document(value, len(st.docs) + 1, line, True))
