"""``sigs.k8s.io/yaml.YAMLToJSON`` of a RayJob's ``runtimeEnvYAML``, as KubeRay passes it to Ray.

Follows sigs.k8s.io/yaml (``yaml.go``) over go-yaml v2's typing of plain scalars
(``resolve.go``): the first document, Go map keys as text, sorted keys in the JSON.
"""

from __future__ import annotations

import functools
import math
import re
import struct
from collections.abc import Mapping
from decimal import Decimal
from typing import Any, Final

import yaml

from raygang.kube.goquote import SubmitterError, go_json_dumps
from raygang.kube.tree import copy_tree

__all__ = ["runtime_env_json"]


# --- sigs.k8s.io/yaml.YAMLToJSON -----------------------------------------------------------------
INT64_MIN: Final = -(2**63)
INT64_MAX: Final = 2**63 - 1
UINT64_MAX: Final = 2**64 - 1

_PLAIN_TAG: Final = "tag:raygang,2026:go-yaml-plain"

_GO_YAML_CONSTANTS: Final[dict[str, Any]] = {
    **dict.fromkeys(("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE"), True),
    **dict.fromkeys(("on", "On", "ON"), True),
    **dict.fromkeys(("n", "N", "no", "No", "NO", "false", "False", "FALSE"), False),
    **dict.fromkeys(("off", "Off", "OFF"), False),
    **dict.fromkeys(("", "~", "null", "Null", "NULL"), None),
    **dict.fromkeys((".nan", ".NaN", ".NAN"), math.nan),
    **dict.fromkeys((".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"), math.inf),
    **dict.fromkeys(("-.inf", "-.Inf", "-.INF"), -math.inf),
}

_YAML_STYLE_FLOAT: Final = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")

_DOT_FLOAT: Final = re.compile(r"\.[0-9]+([eE][-+]?[0-9]+)?")

_DIGITS: Final[dict[int, str]] = {
    2: "01",
    8: "01234567",
    10: "0123456789",
    16: "0123456789abcdefABCDEF",
}


def _go_parse_int(text: str, *, signed: bool) -> int | None:
    """Go's ``strconv.ParseInt``/``ParseUint`` with base 0 (prefixes 0x, 0o, 0b, 0), 64 bits."""
    negative = False
    body = text
    if signed and body[:1] in ("+", "-"):
        negative = body[0] == "-"
        body = body[1:]
    prefix = body[:2].lower()
    if prefix in ("0x", "0o", "0b"):
        base = {"0x": 16, "0o": 8, "0b": 2}[prefix]
        body = body[2:]
    elif body[:1] == "0" and len(body) > 1:
        base = 8
        body = body[1:]
    else:
        base = 10
    if not body or any(c not in _DIGITS[base] for c in body):
        return None
    value = -int(body, base) if negative else int(body, base)
    low, high = (INT64_MIN, INT64_MAX) if signed else (0, UINT64_MAX)
    return value if low <= value <= high else None


def _go_parse_float(text: str) -> float | None:
    """``strconv.ParseFloat`` on text already matched as decimal; None on overflow (ErrRange)."""
    value = float(text)
    return value if math.isfinite(value) else None


def _go_yaml_resolve_plain(text: str) -> Any:
    """Type an untagged plain scalar as go-yaml v2.4's ``resolve`` does (YAML 1.1 flavour).

    PyYAML's own resolver differs (``1e3`` stays a string, ``1:20`` is sexagesimal 80,
    timestamps become datetimes), so plain scalars are re-resolved with go-yaml's rules.
    Timestamps stay strings: go-yaml v2 gives their text when decoding into ``interface{}``.
    """
    if text in _GO_YAML_CONSTANTS:
        return _GO_YAML_CONSTANTS[text]
    hint = text[0]
    if hint == ".":
        as_float = _go_parse_float(text) if _DOT_FLOAT.fullmatch(text) else None
        return text if as_float is None else as_float
    if hint in "+-0123456789":
        # Go's ParseInt with base 0 also takes "0b101", "-0b101", "0o17", "0x1F" and "017",
        # which covers go-yaml's separate 0b/-0b attempts.
        plain = text.replace("_", "")
        for signed in (True, False):
            number = _go_parse_int(plain, signed=signed)
            if number is not None:
                return number
        if _YAML_STYLE_FLOAT.fullmatch(plain):
            as_float = _go_parse_float(plain)
            if as_float is not None:
                return as_float
    return text


def _go_float32_key(value: float) -> str:
    """``strconv.FormatFloat(f, 'g', -1, 32)``, as sigs.k8s.io/yaml renders float map keys.

    Shortest float32 digits; exponent form when the exponent is < -4 or >= 6 (Go's %g
    threshold for shortest output, not Python's), ``+Inf`` written as ``.inf`` and so on.
    """
    try:
        as32: float = struct.unpack("<f", struct.pack("<f", value))[0]
    except OverflowError:
        as32 = math.copysign(math.inf, value)
    if math.isnan(as32):
        return ".nan"
    if math.isinf(as32):
        return ".inf" if as32 > 0 else "-.inf"
    if as32 == 0:
        return "-0" if math.copysign(1.0, as32) < 0 else "0"
    for precision in range(9):
        candidate = f"{as32:.{precision}e}"
        if struct.unpack("<f", struct.pack("<f", float(candidate)))[0] == as32:
            break
    mantissa, _, exp_text = candidate.partition("e")
    sign = "-" if mantissa.startswith("-") else ""
    digits = mantissa.lstrip("-").replace(".", "").rstrip("0") or "0"
    exponent = int(exp_text)
    if exponent < -4 or exponent >= 6:
        fraction = f".{digits[1:]}" if len(digits) > 1 else ""
        exp_sign = "-" if exponent < 0 else "+"
        return f"{sign}{digits[0]}{fraction}e{exp_sign}{abs(exponent):02d}"
    return sign + format(Decimal(f"0.{digits}e{exponent + 1}"), "f")


def _go_key_text(key: Any) -> str:
    """sigs.k8s.io/yaml ``convertToJSONableObject``: a go-yaml map key as a JSON key."""
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, str):
        return key
    if isinstance(key, int) and INT64_MIN <= key <= INT64_MAX:
        return str(key)
    if isinstance(key, float):
        return _go_float32_key(key)
    # None, uint64-only integers: unsupported there; lists and maps: go-yaml's "invalid map key".
    raise SubmitterError(f"runtimeEnvYAML has an unsupported map key: {key!r}")


_MERGE_TAG: Final = "tag:yaml.org,2002:merge"


class _UnsupportedKey:
    """A key JSON cannot hold, kept in place: go-yaml only fails on it if it survives.

    sigs.k8s.io/yaml converts keys after decoding, so a bad key inside a mapping that a later
    duplicate key replaces never raises. Identity hashing keeps each one distinct.
    """

    __slots__ = ("key",)

    def __init__(self, key: Any) -> None:
        self.key = key


def _raise_on_unsupported_keys(value: Any) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(key, _UnsupportedKey):
                _go_key_text(key.key)  # raises with the message
            _raise_on_unsupported_keys(item)
    elif isinstance(value, list):
        for item in value:
            _raise_on_unsupported_keys(item)


class _GoYamlLoader(yaml.SafeLoader):
    """A SafeLoader that decodes like go-yaml v2 into ``interface{}``, then JSON-able.

    * Untagged plain scalars are typed by :func:`_go_yaml_resolve_plain`.
    * Mapping keys become JSON keys as they are read (:func:`_go_key_text`). Doing it here,
      not afterwards, keeps keys such as ``1`` and ``true`` apart, which a Python dict would
      merge (``True == 1``); go-yaml keeps them apart until the JSON conversion.
    * Merge keys follow go-yaml v2: entries apply in document order and a later one wins, so
      an explicit key written before ``<<`` is overwritten by the merged value (PyYAML and
      YAML 1.2 let explicit keys win); in a merged list, earlier maps win.
    """

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        """Route untagged plain scalars to the go-yaml resolver; everything else as usual."""
        if kind is yaml.ScalarNode and implicit[0]:
            # "<<" must stay a merge key (go-yaml resolves it to !!merge as well).
            return _MERGE_TAG if value == "<<" else _PLAIN_TAG
        # types-PyYAML leaves BaseResolver.resolve unannotated.
        return super().resolve(kind, value, implicit)  # type: ignore[no-untyped-call]

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        """Build a str-keyed dict in go-yaml v2's order (see the class docstring)."""
        if not isinstance(node, yaml.MappingNode):
            raise SubmitterError("runtimeEnvYAML: expected a mapping")
        out: dict[Any, Any] = {}
        self._fill(node, out, deep)
        return out

    def _fill(self, node: yaml.MappingNode, out: dict[Any, Any], deep: bool) -> None:
        for key_node, value_node in node.value:
            if key_node.tag == _MERGE_TAG:
                self._merge(value_node, out, deep)
                continue
            key = self.construct_object(key_node, deep=True)
            try:
                json_key: Any = _go_key_text(key)
            except SubmitterError:
                json_key = _UnsupportedKey(key)
            out[json_key] = self.construct_object(value_node, deep=deep)

    def _merge(self, node: yaml.Node, out: dict[Any, Any], deep: bool) -> None:
        if isinstance(node, yaml.MappingNode):
            self._fill(node, out, deep)
            return
        if isinstance(node, yaml.SequenceNode) and all(
            isinstance(item, yaml.MappingNode) for item in node.value
        ):
            for item in reversed(node.value):  # earlier maps take precedence
                self._fill(item, out, deep)
            return
        raise SubmitterError(
            "runtimeEnvYAML: map merge requires map or sequence of maps as the value"
        )


def _construct_plain(loader: yaml.SafeLoader, node: yaml.Node) -> Any:
    value = loader.construct_scalar(node)  # type: ignore[arg-type]
    return _go_yaml_resolve_plain(str(value))


def _construct_as_text(loader: yaml.SafeLoader, node: yaml.Node) -> Any:
    # An explicit !!timestamp decodes to its text in go-yaml v2 (into interface{}).
    return str(loader.construct_scalar(node))  # type: ignore[arg-type]


def _construct_binary(loader: yaml.SafeLoader, node: yaml.Node) -> Any:
    # go-yaml hands !!binary to interface{} as a Go string of the bytes. surrogateescape
    # keeps each invalid byte as a lone surrogate, which go_json_dumps writes as \ufffd,
    # as json.Marshal does per invalid byte.
    data = yaml.SafeLoader.construct_yaml_binary(loader, node)  # type: ignore[arg-type]
    return bytes(data).decode("utf-8", "surrogateescape")


_GoYamlLoader.add_constructor(_PLAIN_TAG, _construct_plain)

_GoYamlLoader.add_constructor("tag:yaml.org,2002:timestamp", _construct_as_text)

_GoYamlLoader.add_constructor("tag:yaml.org,2002:binary", _construct_binary)


def runtime_env_data(runtime_env_yaml: str) -> Any:
    """Parse ``runtimeEnvYAML`` like sigs.k8s.io/yaml: first document, go-yaml typing.

    Validation, the submission ID and the command each need it: parsed once per text, a
    fresh copy for each caller.
    """
    return copy_tree(_parse_runtime_env(runtime_env_yaml))


# Each job's text is read in three passes over the whole stack (validation, submission ID,
# command): a cache smaller than the stack's distinct texts misses every time.
@functools.lru_cache(maxsize=4096)
def _parse_runtime_env(runtime_env_yaml: str) -> Any:
    try:
        documents = yaml.load_all(runtime_env_yaml, Loader=_GoYamlLoader)
        data = next(iter(documents), None)
    except yaml.YAMLError as exc:
        raise SubmitterError(f"runtimeEnvYAML is not valid YAML: {exc}") from None
    if data is not None and not isinstance(data, Mapping):
        # KubeRay's validation unmarshals it into a map and rejects anything else.
        raise SubmitterError(
            f"runtimeEnvYAML must be a YAML mapping, not {type(data).__name__}: "
            f"{runtime_env_yaml!r}"
        )
    _raise_on_unsupported_keys(data)
    return data


def runtime_env_json(runtime_env_yaml: str) -> str:
    """``sigs.k8s.io/yaml.YAMLToJSON`` of ``runtimeEnvYAML``, as KubeRay passes it to Ray.

    go-yaml v2 decodes mappings into Go maps and ``json.Marshal`` sorts map keys, so the
    JSON has sorted keys at every level, whatever order the YAML had.

    Args:
        runtime_env_yaml: the RayJob's ``spec.runtimeEnvYAML``.

    Returns:
        Compact JSON (``null`` for a document with no content).

    Raises:
        SubmitterError: invalid YAML, a non-mapping document, or values JSON cannot hold.
    """
    return go_json_dumps(runtime_env_data(runtime_env_yaml))
