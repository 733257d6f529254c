"""raygang.kuberay.submitter._goyaml: a ``runtimeEnvYAML`` as ``sigs.k8s.io/yaml.YAMLToJSON``
makes it JSON.

Expected values were produced by ``sigs.k8s.io/yaml`` v1.6.0 ``YAMLToJSON`` (go-yaml v2.4.3)
on the same text.
"""

from __future__ import annotations

import pytest
from raygang.kuberay.submitter import SubmitterError
from raygang.kuberay.submitter import _goyaml as goyaml


@pytest.mark.parametrize(
    ("yaml_text", "json_text"),
    [
        ("test: test", '{"test":"test"}'),
        # go-yaml v2 is YAML 1.1: y/n/yes/on are booleans, also as keys.
        ("y: 1\nn: 2\n", '{"false":2,"true":1}'),
        (
            "a: 1e3\nb: 1.0\nc: 017\nd: 08\ne: 0x1F\nf: 0b101\ng: 1_000\nh: .5\n",
            '{"a":1000,"b":1,"c":15,"d":8,"e":31,"f":5,"g":1000,"h":0.5}',
        ),
        ("a: 2024-01-01\nb: 12:30\nc: 1:20\n", '{"a":"2024-01-01","b":"12:30","c":"1:20"}'),
        ("a: [on, off, yes, no, ~, null, '']\n", '{"a":[true,false,true,false,null,null,""]}'),
        ('a: "<&>"\nb: "\\u2028"\n', '{"a":"\\u003c\\u0026\\u003e","b":"\\u2028"}'),
        (
            "1: a\n1.5: b\ntrue: c\n1e6: d\n1e5: e\n0.0001: f\n0.00001: g\n",
            '{"0.0001":"f","1":"a","1.5":"b","100000":"e","1e+06":"d","1e-05":"g","true":"c"}',
        ),
        (
            "k: 99999999999999999999\nj: 18446744073709551615\n",
            '{"j":18446744073709551615,"k":100000000000000000000}',
        ),
        ("k: -0.0\nj: 1e21\ni: 1e-7\n", '{"i":1e-7,"j":1e+21,"k":-0}'),
        # go-yaml v2 applies "<<" in order: it overwrites the x written before it.
        (
            "base: &b {x: 1, z: 2}\nd:\n  x: 3\n  <<: *b\n",
            '{"base":{"x":1,"z":2},"d":{"x":1,"z":2}}',
        ),
        ("d:\n  <<: [{x: 1}, {x: 2, w: 0}]\n", '{"d":{"w":0,"x":1}}'),
        ("# only a comment\n", "null"),
        ("k: !!binary /w==\n", '{"k":"\\ufffd"}'),
    ],
)
def test_runtime_env_json_matches_sigs_yaml(yaml_text: str, json_text: str) -> None:
    # Go: sigs.k8s.io/yaml v1.6.0 YAMLToJSON (go-yaml v2.4.3) on the same text.
    assert goyaml.runtime_env_json(yaml_text) == json_text


@pytest.mark.parametrize(
    ("yaml_text", "message"),
    [
        ("- 1\n- 2\n", "must be a YAML mapping"),
        ("just text\n", "must be a YAML mapping"),
        ("a: [unclosed\n", "not valid YAML"),
        ("a: .inf\n", "unsupported value"),
        ("~: 1\n", "unsupported map key"),
        ("? [1]\n: 1\n", "unsupported map key"),
    ],
)
def test_runtime_env_errors(yaml_text: str, message: str) -> None:
    with pytest.raises(SubmitterError, match=message):
        goyaml.runtime_env_json(yaml_text)


def test_bad_key_inside_a_replaced_duplicate_is_ignored_like_go() -> None:
    # sigs.k8s.io/yaml converts keys after decoding; the first "a" value is gone by then.
    assert goyaml.runtime_env_json("a:\n  ~: 1\na: 2\n") == '{"a":2}'
