"""raygang.kube.names: Kubernetes' DNS names, label keys and label values."""

from __future__ import annotations

import pytest
from raygang.kube.names import dns_problem, label_key_problem, label_value_problem


@pytest.mark.parametrize(
    ("value", "kind", "limit", "why"),
    [
        ("ok-name", "DNS-1035 label", 47, None),
        ("", "DNS-1035 label", 47, "must not be empty"),
        ("9lives", "DNS-1035 label", 47, "is not a valid DNS-1035 label"),
        ("9lives", "DNS-1123 label", 63, None),
        ("a.b", "DNS-1123 label", 63, "is not a valid DNS-1123 label"),
        ("a.b", "DNS-1123 subdomain", 253, None),
        ("x" * 64, "DNS-1123 label", 63, "64 characters long, more than 63"),
    ],
)
def test_dns_problem(value: str, kind: str, limit: int, why: str | None) -> None:
    found = dns_problem(value, kind, limit)
    assert (found is None) if why is None else (found is not None and why in found)


@pytest.mark.parametrize(
    ("key", "ok"),
    [
        ("app", True),
        ("app.kubernetes.io/name", True),
        ("a/b/c", False),
        ("/x", False),
        ("Bad_Prefix/x", False),
        ("x" * 64, False),
        ("-x", False),
    ],
)
def test_label_keys(key: str, ok: bool) -> None:
    assert (label_key_problem(key) is None) is ok


@pytest.mark.parametrize(
    ("value", "ok"), [("", True), ("a_B.c-1", True), ("-a", False), ("a" * 64, False)]
)
def test_label_values(value: str, ok: bool) -> None:
    assert (label_value_problem(value) is None) is ok
