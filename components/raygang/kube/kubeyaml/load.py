"""The reader's entry points, all under the same ``Limits``.

A stream is read as kubectl reads it: cli-runtime's StreamVisitor
(``pkg/resource/visitor.go``) over apimachinery's ``YAMLOrJSONDecoder``. Embedded YAML is
read as ``sigs.k8s.io/yaml.YAMLToJSON`` (``yaml.go``) reads it. A single JSON value is read
as Go's ``encoding/json`` reads it.
"""

from __future__ import annotations

import json
from typing import Literal

from raygang.kube.kubeyaml.compose import Composer
from raygang.kube.kubeyaml.jsondecode import (
    JSON_WS,
    NotGoJSON,
    bound_json_text,
    check_tree,
    json_decoder,
)
from raygang.kube.kubeyaml.limits import Limits, NotJSONError, check_size, default_limits
from raygang.kube.kubeyaml.nodes import NULL_DOC
from raygang.kube.kubeyaml.state import Document, JSONValue, Stream
from raygang.kube.kubeyaml.stream import GO_SPACE, SNIFF, as_utf8, json_stream, yaml_stream

__all__ = [
    "load_documents",
    "load_json_value",
    "load_stream",
    "yaml_to_json_value",
]


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
    raw = as_utf8(data, source, limits)
    state = Stream(source, limits, duplicate_keys == "refuse")
    # kubectl's sniff: the first non-space byte of the first 4096 is "{" (Go's unicode.IsSpace).
    head = raw[:SNIFF].decode("utf-8", errors="ignore").lstrip(GO_SPACE)
    if head.startswith("{"):
        return json_stream(raw, state)
    return yaml_stream(raw, 0, 1, state)


def yaml_to_json_value(
    data: bytes | str,
    *,
    source: str,
    limits: Limits | None = None,
    duplicate_keys: Literal["refuse", "last"] = "last",
) -> JSONValue:
    """``sigs.k8s.io/yaml.YAMLToJSON`` of embedded YAML (``spec.runtimeEnvYAML``), as a value.

    Unlike a file read by kubectl there is no JSON sniffing and no ``---`` splitting:
    go-yaml decodes the first document of the text and ignores the rest; duplicate keys
    keep the last value (KubeRay decodes it without strict mode) unless ``duplicate_keys``
    is ``"refuse"`` (raygang's rule, for checking the input). The same bounds apply.

    Returns:
        The value ``json.loads`` gives for the JSON (None for an empty document).
    """
    limits = limits or default_limits()
    raw = as_utf8(data, source, limits)
    state = Stream(source, limits, refuse_duplicates=duplicate_keys == "refuse")
    # Invalid bytes of a !!binary value stay lone surrogates: the JSON printer then writes
    # the \ufffd escape json.Marshal writes, byte for byte (a real U+FFFD stays as it is).
    state.binary_errors = "surrogateescape"
    value = Composer(state, 1).document(raw)
    return None if value is NULL_DOC else value  # type: ignore[return-value]


def load_json_value(data: str, *, source: str, limits: Limits | None = None) -> JSONValue:
    """One JSON value (a Pulumi config value, an annotation holding JSON), bounded.

    Integers of more than 20 digits, nesting past ``max_depth``, more than ``max_nodes``
    values and lone surrogates are refused before or while the value is built.

    Raises:
        NotJSONError: the text is not JSON (callers may take it as a plain string).
        ManifestLimitError, ManifestError: as for :func:`load_stream`.
    """
    limits = limits or default_limits()
    check_size(len(data), source, limits)
    state = Stream(source, limits, refuse_duplicates=True)
    bound_json_text(data, state)
    decoder = json_decoder(state)
    start = JSON_WS.match(data, 0).end()  # type: ignore[union-attr]
    try:
        value, end = decoder.raw_decode(data, start)
    except RecursionError:
        raise state.limit(
            "is nested too deeply",
            f"at most {limits.max_depth} levels of nesting (Limits.max_depth)",
            limits.max_depth,
        ) from None
    except (json.JSONDecodeError, NotGoJSON) as exc:
        reason = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
        raise NotJSONError(source, f"is not JSON: {reason}", accepted="a JSON value") from None
    if JSON_WS.match(data, end).end() != len(data):  # type: ignore[union-attr]
        raise NotJSONError(source, "is not one JSON value", accepted="a JSON value")
    check_tree(value, state, 1)
    return value  # type: ignore[no-any-return]
