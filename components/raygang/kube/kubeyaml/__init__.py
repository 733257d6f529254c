"""Manifests read as kubectl reads them, bounded against hostile input.

kubectl (cli-runtime's StreamVisitor) reads a file with apimachinery's ``YAMLOrJSONDecoder``:
a stream whose first non-space byte (within 4096) is ``{`` is read as JSON values, anything
else is cut into documents at lines starting with ``---`` and each document goes through
``sigs.k8s.io/yaml.YAMLToJSON``: go-yaml v2 decodes it into Go values (YAML 1.1 typing of
plain scalars, merge keys, last duplicate key wins) and ``encoding/json`` prints them. The
API server receives that JSON, so this package returns, per document, the Python value of
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

Where this package refuses what kubectl accepts, on purpose: duplicate keys (kubectl silently
keeps the last; ``duplicate_keys="last"`` does the same), two keys that become the same JSON
text (``1`` and ``"1"``: kubectl keeps one at random), UTF-16/32 and invalid UTF-8 input,
and anything past ``Limits``. Refusals are ``ManifestError`` (``ManifestLimitError`` for
limits) naming the source, document, line, field path, problem, what would be accepted and
the limit.

Bounds, all linear in the input: the byte size is checked before anything is parsed; nodes
are counted while libyaml's events arrive (nothing is built past the limit); aliases and
merges are counted as go-yaml would decode them (its own "excessive aliasing" rule is applied
too) before any value is copied; nesting is counted with aliases expanded; no step recurses.

Pulumi stack files are the one exception: the Pulumi CLI reads them with gopkg.in/yaml.v3
(YAML 1.2-like typing: ``yes``/``off`` are text, timestamps become ``time.Time``), so
``load_stack_stream`` types them that way and ``pulumi_config_text`` gives the string each
config value reaches the program as.

One module per job: ``limits`` (bounds, errors), ``read`` (a file's bytes), ``stream``
(kubectl's document cutting and JSON sniffing), ``jsondecode`` (Go's JSON decoding),
``events`` (the YAML parser), ``resolve`` (go-yaml v2's scalar typing), ``resolve3``
(yaml.v3's), ``compose`` (a document from events), ``compose3`` (its mappings as Pulumi reads
them), ``nodes``, ``keys`` and ``aliasing`` (its parts), ``encode`` (Go's JSON text),
``load`` and ``stackfile`` (the entry points). This ``__init__`` re-exports the public names
only.
"""

from __future__ import annotations

from raygang.kube.kubeyaml.encode import json_number_text, to_json
from raygang.kube.kubeyaml.limits import (
    MAX_BYTES_ENV,
    Limits,
    ManifestError,
    ManifestLimitError,
    NotJSONError,
    default_limits,
)
from raygang.kube.kubeyaml.load import (
    load_documents,
    load_json_value,
    load_stream,
    yaml_to_json_value,
)
from raygang.kube.kubeyaml.read import read_bounded
from raygang.kube.kubeyaml.stackfile import load_stack_stream, pulumi_config_text
from raygang.kube.kubeyaml.state import Document

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
    "load_stack_stream",
    "load_stream",
    "pulumi_config_text",
    "read_bounded",
    "to_json",
    "yaml_to_json_value",
]
