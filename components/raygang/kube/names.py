"""Kubernetes' name and label rules, with the API server's own wording.

Follows ``k8s.io/apimachinery/pkg/util/validation/validation.go`` (IsDNS1035Label,
IsDNS1123Label, IsDNS1123Subdomain, IsValidLabelValue, IsQualifiedName).
"""

from __future__ import annotations

import re

__all__ = [
    "DNS1035_LABEL",
    "DNS1123_LABEL",
    "DNS1123_SUBDOMAIN",
    "dns_problem",
    "label_key_problem",
    "label_value_problem",
    "name_rules",
]


DNS1035_LABEL = re.compile(r"[a-z]([-a-z0-9]*[a-z0-9])?")

DNS1123_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")

DNS1123_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")

_LABEL_VALUE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?")

_QUALIFIED_NAME = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")

# Label values are at most 63 characters, and the queue name travels as a label.
MAX_LABEL_VALUE = 63


def dns_problem(value: str, kind: str, max_len: int) -> str | None:
    """Why ``value`` is not a valid name of the given kind, or None when it is.

    Args:
        value: the name.
        kind: ``DNS-1035 label``, ``DNS-1123 label`` or ``DNS-1123 subdomain``.
        max_len: the longest accepted name.
    """
    pattern = {
        "DNS-1035 label": DNS1035_LABEL,
        "DNS-1123 label": DNS1123_LABEL,
        "DNS-1123 subdomain": DNS1123_SUBDOMAIN,
    }[kind]
    if not value:
        return "must not be empty"
    if len(value) > max_len:
        return f"{value!r} is {len(value)} characters long, more than {max_len}"
    if not pattern.fullmatch(value):
        return f"{value!r} is not a valid {kind}"
    return None


def name_rules(kind: str, max_len: int) -> str:
    """What a name of that kind may look like, for the ``accepted`` part of a message."""
    start = "a lowercase letter" if kind == "DNS-1035 label" else "a lowercase letter or digit"
    dots = " and '.'" if kind == "DNS-1123 subdomain" else ""
    return (
        f"a {kind} of at most {max_len} characters: lowercase letters, digits, '-'{dots}, "
        f"starting with {start} and ending with a letter or digit"
    )


LABEL_VALUE_RULES = (
    "at most 63 characters: letters, digits, '-', '_' and '.', starting and ending with a "
    "letter or digit (or empty)"
)

KEY_RULES = (
    "an optional DNS-1123 subdomain prefix and '/', then a name of at most 63 characters: "
    "letters, digits, '-', '_' and '.', starting and ending with a letter or digit"
)


def label_value_problem(value: str) -> str | None:
    """Why ``value`` cannot be a Kubernetes label value, or None when it can."""
    if len(value) > MAX_LABEL_VALUE:
        return f"{value!r} is {len(value)} characters long, more than {MAX_LABEL_VALUE}"
    if not _LABEL_VALUE.fullmatch(value):
        return f"{value!r} is not a valid label value"
    return None


def label_key_problem(key: str) -> str | None:
    """Why ``key`` cannot be a label or annotation key (a qualified name), or None."""
    prefix, _, name = key.rpartition("/")
    if "/" in key and (not prefix or dns_problem(prefix, "DNS-1123 subdomain", 253)):
        return f"the prefix {prefix!r} of {key!r} is not a DNS-1123 subdomain"
    if not name or len(name) > MAX_LABEL_VALUE or not _QUALIFIED_NAME.fullmatch(name):
        return f"{key!r} is not a valid key"
    return None
