"""A Pulumi stack file (``Pulumi.<stack>.yaml``) read as the Pulumi CLI reads it, bounded.

The document is typed as gopkg.in/yaml.v3 types it (``resolve3``, ``compose3``), not as
kubectl types manifests, under the same ``Limits`` as every other file. Each config value
then becomes the string Pulumi hands the program (``resource/config/object.go``,
``MarshalString``): a string as it is, a bool, number or timestamp as its JSON or
``String()`` text, null as the empty string (Pulumi warns it "is currently treated as an
empty string"), a map or list as ``encoding/json`` text. Pulumi re-reads that JSON before
handing it over (``UnmarshalJSON`` with ``UseNumber``: what ``Int64()`` refuses becomes a
float64), so inside a map or list an integer past int64 arrives as a float64
(``9223372036854775808`` as ``9223372036854776000``); a top-level one stays exact text. The
program parses the string as JSON when it is JSON, so callers pass it through the same step
(``raygang.settings``).
"""

from __future__ import annotations

from typing import cast

from raygang.kube.kubeyaml.encode import json_number_text, to_json
from raygang.kube.kubeyaml.limits import Limits, default_limits
from raygang.kube.kubeyaml.nodes import copy_json, json_scalar
from raygang.kube.kubeyaml.resolve import INT64, GoFloat
from raygang.kube.kubeyaml.state import Document, JSONValue, Stream
from raygang.kube.kubeyaml.stream import as_utf8, yaml_stream

__all__ = [
    "load_stack_stream",
    "pulumi_config_text",
]


def load_stack_stream(
    data: bytes | str, *, source: str, limits: Limits | None = None
) -> list[Document]:
    """The documents of a stack file, typed as the Pulumi CLI types them (null ones skipped).

    Raises:
        ManifestLimitError: past one of ``limits``.
        ManifestError: a repeated key, a key Pulumi would write twice, ``.inf``/``.nan``
            values, or anything else Pulumi refuses or would read at random.
    """
    limits = limits or default_limits()
    raw = as_utf8(data, source, limits)
    state = Stream(source, limits, refuse_duplicates=True)
    state.v3 = True
    return yaml_stream(raw, 0, 1, state)


def pulumi_config_text(value: JSONValue) -> str:
    """The string the program receives for one config value read by ``load_stack_stream``."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return json_number_text(value)
    return to_json(_reread(value))


def _reread(value: JSONValue) -> JSONValue:
    """A copy of ``value`` as Pulumi's UseNumber re-read leaves it: integers past int64 as
    float64s."""
    return cast(JSONValue, copy_json(value, _number))  # type: ignore[arg-type]


def _number(value: JSONValue) -> JSONValue:
    if isinstance(value, int) and not isinstance(value, bool) and not -INT64 <= value < INT64:
        return json_scalar(GoFloat(value))  # type: ignore[return-value]
    return value
