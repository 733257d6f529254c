"""An object's apiVersion, kind, namespace and name, checked as the API server checks them.

raygang turns these into Pulumi resource names, printed lines and, with ``--out``, file
names; an object the API server would refuse must not get that far. The rules follow
``k8s.io/apimachinery``: ``pkg/runtime/schema/group_version.go`` (``ParseGroupVersion``:
``group/version``, or ``version`` alone for the core group), ``pkg/api/validation``
(``ValidateObjectMeta``: a namespace is a DNS-1123 label, a name a DNS-1123 subdomain for
nearly every kind, custom resources included) and ``k8s.io/kubernetes``
``pkg/apis/rbac/validation`` (``ValidateRBACName``: RBAC objects take any path segment
name, so ``system:aggregate-to-view`` is a ClusterRole name). A kind follows the
apiextensions rule for a CustomResourceDefinition's ``names.kind``
(``IsDNS1035Label(strings.ToLower(kind))``), which every built-in kind meets too.
"""

from __future__ import annotations

from typing import Final

from raygang.kube.names import dns_problem, name_rules

__all__ = [
    "API_VERSION_RULES",
    "KIND_RULES",
    "api_version_problem",
    "kind_problem",
    "object_name_problem",
    "object_name_rules",
]

KIND_RULES: Final = (
    "a kind such as ConfigMap: at most 63 letters, digits and '-', starting with a letter "
    "and ending with a letter or digit"
)

API_VERSION_RULES: Final = (
    "version (core objects, e.g. v1) or group/version (e.g. apps/v1): the group a DNS-1123 "
    "subdomain, the version a DNS-1035 label"
)

_RBAC_GROUP: Final = "rbac.authorization.k8s.io"
_RBAC_KINDS: Final = frozenset({"Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding"})

_PATH_SEGMENT_RULES: Final = (
    "any name that is not '.' or '..' and holds no '/', '%' or control character"
)


def _control(value: str) -> bool:
    # Newline, ESC and the like would reach a terminal or a file name as they are.
    return any(not ch.isprintable() for ch in value)


def kind_problem(kind: str) -> str | None:
    """Why ``kind`` is not a kind the API server could serve, or None."""
    why = dns_problem(kind.lower(), "DNS-1035 label", 63)
    return None if why is None else f"{kind!r} is not a valid kind"


def api_version_problem(api_version: str) -> str | None:
    """Why ``api_version`` is not ``[group/]version`` as ``ParseGroupVersion`` reads it."""
    if api_version.count("/") > 1:
        return f"{api_version!r} has more than one '/'"
    group, _, version = api_version.rpartition("/")
    if group and dns_problem(group, "DNS-1123 subdomain", 253):
        return f"the group {group!r} of {api_version!r} is not a DNS-1123 subdomain"
    if dns_problem(version, "DNS-1035 label", 63):
        return f"the version {version!r} of {api_version!r} is not a DNS-1035 label"
    return None


def _rbac(group: str, kind: str) -> bool:
    return group == _RBAC_GROUP and kind in _RBAC_KINDS


def object_name_problem(group: str, kind: str, name: str) -> str | None:
    """Why ``name`` cannot name an object of that kind, or None."""
    if not _rbac(group, kind):
        return dns_problem(name, "DNS-1123 subdomain", 253)
    if name in (".", "..") or "/" in name or "%" in name or _control(name):
        return f"{name!r} is not a valid path segment name"
    return None


def object_name_rules(group: str, kind: str) -> str:
    """What a name of that kind may look like, for the ``accepted`` part of a message."""
    if _rbac(group, kind):
        return _PATH_SEGMENT_RULES
    return name_rules("DNS-1123 subdomain", 253)
