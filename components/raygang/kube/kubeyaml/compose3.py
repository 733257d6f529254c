"""Mappings and scalars of a Pulumi stack file, as the Pulumi CLI builds its config values.

Pulumi (``sdk/go/common/workspace/loaders.go``, ``LoadProjectStackBytes``) decodes the file
with gopkg.in/yaml.v3 into ``interface{}``, encodes it back to YAML and decodes that again;
each config value then becomes ``config.Value`` through ``resource/config/object.go``
(``unmarshalObject``, ``MarshalString``): a map or list is handed to the program as
``encoding/json`` text, with every non-string key printed by ``fmt.Sprintf("%v")``.

What that means, in our own words (each case measured with the real CLI in the tests):

* a key written twice (same kind, same text: ``1`` and ``"1"`` too) is an error; two keys of
  different text that decode to the same Go key (``1`` and ``01``) keep the last one;
* ``<<`` merges: the map's own keys win wherever they stand, and in ``<<: [*a, *b]`` the
  earlier map wins. A key that is the *string* ``<<`` (``"<<"``, ``!!str <<``) is written
  back plain by the encoder, so the second decode merges it the same way;
* a float that prints like an int (``2.0``, ``-0.0``, ``1e3``) comes back an int from the
  second decode (``-0.0`` is ``0``); ``.inf``/``.nan`` values make json.Marshal fail;
* keys print as ``%v``: ``true``, ``1.5``, ``1e+06`` (``%g`` style), ``+Inf``, ``<nil>``,
  a timestamp's ``String()``. Two keys that print the same are refused (Pulumi refuses them
  or keeps one at random); a NaN key is refused (Pulumi writes it with a null value).
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Final

from raygang.kube.kubeyaml.encode import _digits, fixed
from raygang.kube.kubeyaml.keys import GoKey
from raygang.kube.kubeyaml.nodes import Node, json_scalar, path_segment
from raygang.kube.kubeyaml.resolve import GoFloat, GoScalar
from raygang.kube.kubeyaml.resolve3 import GoTime

if TYPE_CHECKING:
    from raygang.kube.kubeyaml.compose import Composer

__all__ = [
    "finish_map3",
    "go_g",
    "is_merge3",
    "json_scalar3",
]


_INTEGRAL: Final = re.compile(r"-?[0-9]+")


def go_g(number: float) -> str:
    """strconv.FormatFloat(number, 'g', -1, 64): how yaml.v3 writes a float, and ``%v``."""
    if math.isnan(number):
        return "NaN"
    if math.isinf(number):
        return "+Inf" if number > 0 else "-Inf"
    if number == 0:
        return "-0" if math.copysign(1, number) < 0 else "0"
    sign = "-" if number < 0 else ""
    digits, point = _digits(number)
    exp = point - 1
    if exp < -4 or exp >= 6:  # shortest 'g' decides with precision 6
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{mantissa}e{'-' if exp < 0 else '+'}{abs(exp):02d}"
    return sign + fixed(digits, point)


def json_scalar3(go: GoScalar) -> object:
    """A scalar's value in the JSON the program parses (after Pulumi's second decode)."""
    if isinstance(go, GoFloat):
        return 0 if float(go) == 0 else json_scalar(go)  # "-0" is read back as the int 0
    if isinstance(go, GoTime):
        return str(go)
    return go


def is_merge3(key: Node) -> bool:
    """``<<`` as a key, merged by the first decode or (as a string) by the second."""
    node = key.target if key.kind == "alias" else key
    return node is not None and node.kind == "scalar" and node.go == "<<"


def _key3(c: Composer, key: Node) -> tuple[GoKey, str]:
    """The Go map key of the first decode and the text Pulumi gives it in the end."""
    node = key.target if key.kind == "alias" else key
    assert node is not None
    if node.kind != "scalar":
        raise c._err("has a map or list as a key (invalid map key)", "scalar keys", key.line)
    go = node.go
    if isinstance(go, GoTime):
        return ("t", str(go)), str(go)
    if isinstance(go, str):
        return ("s", go), go
    if isinstance(go, bool):
        return ("b", go), "true" if go else "false"
    if go is None:
        return ("n",), "<nil>"
    if isinstance(go, GoFloat):
        if math.isnan(go):
            raise c._err(
                f"has the key {node.text}, a NaN (Pulumi writes it with a null value)",
                "a key that is not .nan (quote it)",
                key.line,
            )
        text = go_g(go)
        if _INTEGRAL.fullmatch(text):
            text = str(int(text))  # read back as an int by the second decode ("-0" is 0)
        return ("f", float(go)), text
    assert isinstance(go, int)
    return ("i", go), str(go)


def finish_map3(c: Composer, node: Node) -> None:
    """A mapping as Pulumi's two decodes leave it (see the module docstring)."""
    pairs = c.measure_map(node, is_merge3)
    written: dict[tuple[str, str], int] = {}
    for key, _ in pairs:
        ident = ("alias", key.name) if key.kind == "alias" else (key.kind, key.text)
        if ident in written:
            shown = ("*" + key.name) if key.kind == "alias" else key.text
            raise c._err(
                f"has the key {shown[:80]!r} twice (first at line {written[ident]})",
                "each key once in a mapping (Pulumi refuses a repeated key)",
                key.line,
                c._path(path_segment(shown)),
            )
        written[ident] = key.line
    explicit: dict[GoKey, tuple[str, object]] = {}
    merge: Node | None = None
    for key, value in pairs:
        if is_merge3(key):
            merge = value
            continue
        gokey, text = _key3(c, key)
        segment = path_segment(text)
        explicit.pop(gokey, None)  # the last of two keys with the same Go key wins
        explicit[gokey] = (text, c._value_of(value, value.line, segment))
    gomap: dict[GoKey, tuple[str, object]] = {}
    if merge is not None:
        c.merge_into(gomap, merge)
    gomap.update(explicit)
    c.set_map(
        node,
        gomap,
        lambda text: f"has two keys that Pulumi both writes as {text[:80]!r}",
        "keys that stay distinct as text (Pulumi refuses them or keeps one at random)",
    )
