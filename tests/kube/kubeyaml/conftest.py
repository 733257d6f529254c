"""The Go reference every kubeyaml test compares against, and the vectors several share.

Every vector is decoded by tools/yamlref (apimachinery's YAMLOrJSONDecoder and
sigs.k8s.io/yaml, as kubectl v1.35 builds them) and must match.

The reference binary comes from ``RAYGANG_YAMLREF`` or the repository's ``.tools/bin/yamlref``
(``tools/build yamlref``). Without it these tests fail: they are the evidence that the
loader reads YAML as kubectl does, so a silent skip would hide exactly what they check.
"""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from raygang.kube import kubeyaml
from raygang.kube.kubeyaml import (
    Limits,
    ManifestError,
    ManifestLimitError,
    load_documents,
    load_stream,
)


def _oracle_path() -> Path:
    configured = os.environ.get("RAYGANG_YAMLREF")
    if configured:
        return Path(configured)
    return Path(__file__).resolve().parents[3] / ".tools" / "bin" / "yamlref"


@pytest.fixture(scope="session")
def yamlref() -> Path:
    path = _oracle_path()
    if not (path.is_file() and os.access(path, os.X_OK)):
        pytest.fail(
            f"the kubectl reference {path} is missing: run `tools/build yamlref` (needs Go) "
            "or point RAYGANG_YAMLREF at the binary. These tests compare against kubectl's "
            "own decoder and must not be skipped."
        )
    return path


Outcome = list[str] | str  # the documents' JSON lines, or the error kubectl reports


def run_ref(binary: Path, data: bytes) -> Outcome:
    done = subprocess.run([binary], input=data, capture_output=True, timeout=30, check=False)
    assert done.returncode in (0, 1), done.stderr.decode(errors="replace")
    docs: list[str] = []
    for line in done.stdout.decode().splitlines():
        kind, _, rest = line.partition(" ")
        if kind == "error":
            return rest
        assert kind == "doc", line
        docs.append(rest)
    return docs


def _go_json(text: str) -> object:
    # "-0" is the float -0.0 that kubeyaml keeps so its bytes round-trip.
    return json.loads(text, parse_int=lambda s: -0.0 if s == "-0" else int(s))


def same(a: object, b: object) -> bool:
    """Equal with types (True is not 1, 2 is not 2.0, -0.0 is not 0.0)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        assert isinstance(b, dict)
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        assert isinstance(b, list)
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float):
        assert isinstance(b, float)
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    return a == b


def check_against(binary: Path, data: bytes) -> Outcome:
    """Asserts kubeyaml reads ``data`` as kubectl does; returns kubectl's outcome."""
    expected = run_ref(binary, data)
    try:
        docs = load_stream(data, source="vector", duplicate_keys="last")
    except ManifestError as exc:
        if exc.problem == "is not valid YAML: found unexpected ':'" and re.search(
            rb":[,\]}]", data
        ):
            return expected  # known: libyaml refuses `[a:]`, go-yaml reads "a:" (documented)
        assert isinstance(expected, str), f"kubectl accepts it ({expected}); we refused: {exc}"
        return expected
    assert not isinstance(expected, str), f"kubectl refuses it ({expected}); we read {docs}"
    assert len(docs) == len(expected), (docs, expected)
    for doc, line in zip(docs, expected, strict=True):
        assert same(doc.value, _go_json(line)), (doc.value, line)
        if not doc.from_json and "\\ufffd" not in line:
            assert kubeyaml.to_json(doc.value) == line
    return expected


# Plain scalars, each as the value of `k:` (and below, as a key).
SCALARS = [
    "1e3",
    "2.0",
    "1.0e+3",
    "1e-3",
    "1E3",
    "1e+3",
    "1.",
    ".5",
    "-.5",
    "+.5",
    "1e21",
    "1e20",
    "1e-7",
    "1e-6",
    "123456789012345678901234",
    "1e400",
    "-1e400",
    "1e-400",
    "4.9e-324",
    "1.7976931348623157e308",
    "1.7976931348623159e308",
    "0.1",
    "-0.0",
    "0.0",
    "3.14159",
    "0x10",
    "0X1f",
    "0x_1F",
    "-0x10",
    "+0x10",
    "010",
    "08",
    "0o10",
    "0O17",
    "0b101",
    "-0b101",
    "0B1",
    "0o",
    "0x",
    "0b",
    "+1",
    "-1",
    "1_000",
    "1__0",
    "_1",
    "1_0.5",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "-9223372036854775809",
    "+9223372036854775808",
    "18446744073709551615",
    "18446744073709551616",
    "0xFFFFFFFFFFFFFFFF",
    "0x10000000000000000",
    "y",
    "Y",
    "yes",
    "Yes",
    "YES",
    "yEs",
    "n",
    "N",
    "no",
    "on",
    "On",
    "ON",
    "oN",
    "off",
    "true",
    "True",
    "TRUE",
    "tRUE",
    "false",
    "FALSE",
    "~",
    "null",
    "Null",
    "NULL",
    "nULL",
    "",
    ".inf",
    "-.inf",
    "+.inf",
    ".Inf",
    ".INF",
    ".iNf",
    ".nan",
    ".NaN",
    ".NAN",
    "+.nan",
    "nan",
    "inf",
    "Infinity",
    "2001-12-14t21:59:43.10-05:00",
    "2001-12-14T21:59:43Z",
    "2001-12-14 21:59:43.10",
    "2001-12-14",
    "2001-12-14 21:59:43.10 -5",
    "2002-02-30",
    "1234-5",
    '"."',
    ".",
    "'1e3'",
    '"yes"',
    "<<",
    "!!str 1e3",
    "!!int '0x10'",
    "!!float 1",
    "!!float 1.5",
    "!!int 1.5",
    "!!bool yes",
    "!!bool 1",
    "!!null ~",
    "!!null x",
    "!!timestamp 2001-01-01",
    "!!timestamp x",
    "!!binary aGk=",
    "!!binary /w==",
    "!!binary aGk",
    "! 12",
    "!foo 12",
    '"\\x00"',
    '"\\b\\f\\x01<>&\\u2028"',
    '"\\ud800"',
    "1:2",
    "12:30:00",
    "1,5",
    "0.1.2",
    "'multi\n  line'",
]


DOCUMENTS = {
    "merge-override-order": "a: 1\n<<: {a: 2, b: 3}\nb: 4\n",
    "merge-list-first-wins": "x: &x {a: 1, b: 1}\ny: &y {a: 2, c: 2}\nz:\n  <<: [*x, *y]\n",
    "merge-two-keys": "x: &x {a: 1}\ny: &y {a: 2}\nz:\n  <<: *x\n  <<: *y\n",
    "merge-nested": "b: &b {p: 1}\nm: &m {<<: *b, q: 2}\nn: {<<: *m, p: 3}\n",
    "merge-inline-list": "z: {<<: [{a: 1}, {a: 2, b: 2}]}\n",
    "merge-quoted-key": "z: {'<<': {a: 1}}\n",
    "merge-tagged-key": "z: {!!merge <<: {a: 1}}\n",
    "merge-scalar": "z: {<<: 1}\n",
    "merge-alias-to-list": "l: &l [{a: 1}]\nz: {<<: *l}\n",
    "anchor-reuse": "a: &x [1, 2]\nb: *x\nc: &x {k: v}\nd: *x\n",
    "alias-key": "k: &k name\nm: {*k : 1}\n",
    "alias-unknown": "a: *nope\n",
    "alias-recursive": "a: &x [*x]\n",
    "duplicate-last-wins": "a: 1\na: 2\n",
    "int-float-key-collision-free": "1: a\n2.5: b\ntrue: c\n",
    "null-key": "~: 1\n",
    "uint-key": "9223372036854775808: 1\n",
    "map-key": "? {a: 1}\n: 2\n",
    "float32-keys": "0.1: a\n3.14159265: b\n1e6: c\n123456789.0: d\n16777217.0: e\n1e-5: f\n",
    "inf-keys": ".inf: a\n-.inf: b\n.nan: c\n",
    "float32-overflow-key": "1e300: d\n",
    "zero-keys": "0.0: a\n-0.0: b\n",
    "multi-doc": "a: 1\n---\nb: 2\n--- # comment\nc: 3\n",
    "empty-docs-skipped": "---\n---\n# only a comment\n---\n~\n---\nnull\n---\na: 1\n",
    "bad-separator": "a: 1\n--- {b: 2}\n",
    "dashes-line": "a: 1\n----\n",
    "crlf": "a: 1\r\nb: yes\r\n---\r\nc: 2\r\n",
    "document-end-marker": "a: 1\n...\nb: [\n",
    "scalar-doc": "hello\n",
    "list-doc": "- 1\n- 2.0\n",
    "json-doc": '{"a": 1.0, "b": 1e3, "c": [true, null]}\n',
    "json-stream": '{"a": 1}\n{"b": 2}\n',
    "json-then-yaml": '{"a": 1}\n---\nb: yes\n',
    "flow-yaml-looking-like-json": "{a: 1e3, b: yes}\n",
    "json-nan-is-yaml": '{"a": NaN}\n',
    "tabs-and-comments": "a:\t1 # c\nb: 'x' # d\n",
    "flow-colon-before-indicator": "l: [a:, b]\n",
    "block-scalars": "a: |\n  x\n  y\nb: >-\n  p\n  q\n",
    "bom": "\ufeffa: 1\n",
    "nested-quantities": "spec:\n  resources: {limits: {cpu: 1e3, memory: 2.0}, "
    "requests: {cpu: 1e-3}}\n",
    "long-int": "k: " + "1" * 5000 + "\n",
    "300-digit-int": "k: " + "9" * 300 + "\n",
    "hex-long-zeros": "k: 0x" + "0" * 5000 + "1\n",
    "yaml-directive": "%YAML 1.1\n---\na: 1\n",
    "set": "s: !!set {a, b}\n",
    "complex-tags": "a: !!map {b: 1}\nc: !!seq [1]\n",
}


DEFAULT = Limits()


def refused(
    data: bytes | str, limits: Limits = DEFAULT, megabytes: float = 200
) -> ManifestLimitError:
    # Bounded work shows as a bounded peak of memory (deterministic) and the limit's own error;
    # a wall-clock bound would only measure how busy the machine is.
    tracemalloc.start()
    try:
        with pytest.raises(ManifestLimitError) as caught:
            load_documents(data, source="hostile.yaml", limits=limits)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < megabytes * 2**20, f"peak {peak / 2**20:.0f} MiB"
    error = caught.value
    assert error.source == "hostile.yaml" and error.limit is not None
    assert "Limits." in error.accepted
    return error


_ATOMS = st.sampled_from(
    [
        "0",
        "1",
        "-",
        "+",
        ".",
        "_",
        "e",
        "E",
        "x",
        "o",
        "b",
        "B",
        "a",
        "f",
        "n",
        "y",
        "Y",
        "N",
        "o",
        "on",
        "ff",
        "ull",
        "~",
        "9",
        "7",
        "inf",
        "nan",
        "Inf",
        ":",
        "t",
        "T",
        "2001-",
        "12",
        "-3",
        "Z",
        " ",
        "<<",
        "0x",
        "0o",
        "1e",
        "e-",
        "E+",
    ]
)
SCALAR_TEXT = st.lists(_ATOMS, max_size=6).map("".join)

SETTINGS = settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
