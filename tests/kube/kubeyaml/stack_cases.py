"""Stack-file values and the string the Pulumi CLI (v3.274, gopkg.in/yaml.v3 v3.0.1) hands
the program for each, as measured with ``pulumi config --json`` (its ``value``).

The unit tests check ``raygang``'s reader against these; the real-engine test
(``tests/e2e/test_stack_config_typing.py``) checks them, and many generated values, against
the real CLI, so the table cannot go stale.
"""

from __future__ import annotations

# (value as written after "raygang:key: ", the string the program receives)
TOP_LEVEL: list[tuple[str, str]] = [
    # ints: Go's ParseInt(s, 0, 64) with underscores dropped, then ParseUint, then float
    ("0x1F", "31"),
    ("0X1F", "31"),
    ("0o17", "15"),
    ("0b101", "5"),
    ("0B1", "1"),
    ("010", "8"),
    ("08", "8"),  # not octal: a float, 8
    ("1_000", "1000"),
    ("1__0", "10"),
    ("0x_1F", "31"),
    ("+12", "12"),
    ("-0", "0"),
    ("0b-1", "-1"),  # yaml.v3's own fallback lets a sign follow the prefix
    ("0o-7", "-7"),
    ("9223372036854775807", "9223372036854775807"),
    ("9223372036854775808", "9223372036854775808"),  # uint64
    ("18446744073709551615", "18446744073709551615"),
    ("18446744073709551616", "18446744073709552000"),  # past uint64: a float64
    ("-9223372036854775809", "-9223372036854776000"),
    # floats: JSON text of the float64 (Go's encoding/json), after Pulumi's second decode
    ("1e3", "1000"),
    ("1.5", "1.5"),
    ("-0.0", "0"),  # written back as -0, read again as the int 0
    ("1e21", "1e+21"),
    ("1e20", "100000000000000000000"),
    ("1e-7", "1e-7"),
    (".5", "0.5"),
    ("-.5", "-0.5"),
    ("+.5", "0.5"),
    (".5e-3", "0.0005"),
    ("1.", "1"),
    ("2.0", "2"),
    ("1.0e+6", "1000000"),
    ("0.1_0", "0.1"),
    ("1e400", "1e400"),  # past float64: text
    # booleans: true/false in three casings only; YAML 1.1's yes/no/on/off/y/n are text
    ("True", "true"),
    ("TRUE", "true"),
    ("false", "false"),
    ("tRUE", "tRUE"),
    ("y", "y"),
    ("yes", "yes"),
    ("No", "No"),
    ("ON", "ON"),
    ("off", "off"),
    # nulls: the empty string (Pulumi warns it "is currently treated as an empty string")
    ("~", ""),
    ("null", ""),
    ("NULL", ""),
    ("", ""),
    # timestamps: time.Time's String()
    ("2001-12-14", "2001-12-14 00:00:00 +0000 UTC"),
    ("2001-12-14T21:59:43.10Z", "2001-12-14 21:59:43.1 +0000 UTC"),
    ("2001-12-14 21:59:43.10", "2001-12-14 21:59:43.1 +0000 UTC"),
    ("2001-12-14t21:59:43.1+05:00", "2001-12-14 21:59:43.1 +0500 +0500"),
    ("2001-12-14T21:59:43+00:00", "2001-12-14 21:59:43 +0000 UTC"),
    ("2001-12-14T21:59:43.1234567891Z", "2001-12-14 21:59:43.123456789 +0000 UTC"),
    ("2001-02-30", "2001-02-30"),  # no such day: text
    # text
    ("12:30", "12:30"),
    ("_1", "_1"),
    ("0x1p3", "0x1p3"),
    ("0b", "0b"),
    ('"010"', "010"),
    ("!!str 010", "010"),
    ("'{\"a\": 1}'", '{"a": 1}'),
    ('"[1, 2]"', "[1, 2]"),
    ('!!int "12"', "12"),
    ("!!float 1", "1"),
    ('!!bool "true"', "true"),
    ("!foo bar", "bar"),
    ("! 12", "12"),
    ("!!binary aGVsbG8=", "hello"),
    ("|\n    block\n    text", "block\ntext\n"),
    (">-\n    folded\n    text", "folded text"),
]

# (a map or list as written, the JSON text the program receives)
STRUCTURED: list[tuple[str, str]] = [
    (
        "{a: 1e3, b: -0.0, c: 2001-12-14, d: ~, e: 1e21, f: 18446744073709551616, g: 1.5, "
        'h: 0o17, i: "x", j: !!binary aGVsbG8=, k: 1e-7, l: 1e20}',
        '{"a":1000,"b":0,"c":"2001-12-14 00:00:00 +0000 UTC","d":null,"e":1e+21,'
        '"f":18446744073709552000,"g":1.5,"h":15,"i":"x","j":"hello","k":1e-7,'
        '"l":100000000000000000000}',
    ),
    (
        "{1: a, 1.5: b, true: c, ~: d, 1e6: e, -0.0: f, 2001-12-14: g, .inf: h, 2.0: i, "
        "0x10: j, 1e21: k, 123456789.0: l}",
        '{"+Inf":"h","0":"f","1":"a","1.23456789e+08":"l","1.5":"b","16":"j","1e+06":"e",'
        '"1e+21":"k","2":"i","2001-12-14 00:00:00 +0000 UTC":"g","\\u003cnil\\u003e":"d",'
        '"true":"c"}',
    ),
    ("[1, [2, [3]], {x: [yes, off]}]", '[1,[2,[3]],{"x":["yes","off"]}]'),
    ('[! 12, ! "12", !foo 12]', '[12,"12","12"]'),
    # Inside a map or list an integer past int64 reaches the program as a float64: Pulumi
    # re-reads the JSON with UseNumber and takes what Int64() refuses as Float64().
    (
        "[9223372036854775807, 9223372036854775808, 18446744073709551615]",
        "[9223372036854775807,9223372036854776000,18446744073709552000]",
    ),
    ('{b: 1, a: 2, "z": [], y: {}}', '{"a":2,"b":1,"y":{},"z":[]}'),
    ('{"<<": {q: 1}}', '{"q":1}'),  # the string "<<" is written back plain: a merge
    ("{a: 1, secure: b}", '{"a":1,"secure":"b"}'),
    ("{1: a, 01: b}", '{"1":"b"}'),  # two texts, one Go key: the last wins
    ("[]", "[]"),
    ("{}", "{}"),
]

# A block of merges (explicit keys win wherever they stand; in a list the first map wins).
MERGES = (
    "\n    base: &b {x: 1, y: 2}\n    other: &o {y: 20, z: 30}\n"
    "    merged: {<<: *b, x: 10}\n    merged2: {x: 10, <<: [*b, *o]}",
    '{"base":{"x":1,"y":2},"merged":{"x":10,"y":2},"merged2":{"x":10,"y":2,"z":30},'
    '"other":{"y":20,"z":30}}',
)

# Files the Pulumi CLI refuses to load: raygang's reader refuses them too.
REFUSED: list[tuple[str, str]] = [
    ("{a: .inf}", "Pulumi cannot store"),
    ("[.nan]", "Pulumi cannot store"),
    ('{1: a, "1": b}', "twice"),  # same text: "mapping key already defined"
    ("{1: a, 1.0: b}", "both writes as '1'"),  # one text once written back
    ("{<<: {a: 1}, <<: {b: 2}}", "twice"),
]
