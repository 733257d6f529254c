"""Objects that reach beyond their namespace: cluster-wide rights, or a hand in admission.

A RayJob's file may carry a ServiceAccount, a Role and a RoleBinding for its pods; it rarely
needs to grant rights over the whole cluster or to see every object the API server admits.
raygang creates companions as they are, so these are named in the plan (a warning; an error
with ``raygang:refusePrivilegedCompanions: true``). What counts, following Kubernetes' RBAC
(``k8s.io/api/rbac/v1``) and admission (``k8s.io/api/admissionregistration/v1``) types:

* a binding of ``cluster-admin`` (a RoleBinding too: all rights in its namespace), a
  ClusterRoleBinding of ``admin`` or ``edit`` (which read Secrets, then in every namespace),
  and any binding naming the ``system:masters`` group;
* a Role or ClusterRole rule with ``*`` in its verbs, resources or non-resource URLs, or
  with the verbs ``escalate``, ``bind`` or ``impersonate`` (a way to more rights);
* a ClusterRole rule that reads ``secrets`` (``get``, ``list`` or ``watch``), and a Role
  that does in ``kube-system``;
* a Mutating or Validating WebhookConfiguration (the webhook sees, and may change or refuse,
  what it matches; an outside ``clientConfig.url`` is named), and a Mutating or Validating
  AdmissionPolicy or its binding.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Final

__all__ = ["privilege_risks"]

_RBAC: Final = "rbac.authorization.k8s.io"
_ADMISSION: Final = "admissionregistration.k8s.io"
_WEBHOOKS: Final = ("MutatingWebhookConfiguration", "ValidatingWebhookConfiguration")
_POLICIES: Final = (
    "MutatingAdmissionPolicy",
    "MutatingAdmissionPolicyBinding",
    "ValidatingAdmissionPolicy",
    "ValidatingAdmissionPolicyBinding",
)
_ESCALATING_VERBS: Final = ("escalate", "bind", "impersonate")
_READ_VERBS: Final = ("get", "list", "watch", "*")


def _strings(value: object) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else []


def _binding(kind: str, manifest: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    ref = manifest.get("roleRef")
    role = ref.get("name") if isinstance(ref, Mapping) else None
    role_kind = ref.get("kind") if isinstance(ref, Mapping) else None
    if role_kind == "ClusterRole" and role == "cluster-admin":
        where = "cluster-wide" if kind == "ClusterRoleBinding" else "in its namespace"
        yield "roleRef", f"binds cluster-admin ({where}: every right)"
    elif kind == "ClusterRoleBinding" and role_kind == "ClusterRole" and role in ("admin", "edit"):
        yield "roleRef", f"binds {role} cluster-wide (Secrets of every namespace included)"
    subjects = manifest.get("subjects")
    for index, subject in enumerate(subjects if isinstance(subjects, list) else []):
        if isinstance(subject, Mapping) and (subject.get("kind"), subject.get("name")) == (
            "Group",
            "system:masters",
        ):
            yield f"subjects[{index}]", "binds the system:masters group (unrestricted)"


def _role(kind: str, manifest: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    rules = manifest.get("rules")
    meta = manifest.get("metadata")
    namespace = meta.get("namespace") if isinstance(meta, Mapping) else None
    for index, rule in enumerate(rules if isinstance(rules, list) else []):
        if not isinstance(rule, Mapping):
            continue
        verbs = _strings(rule.get("verbs"))
        resources = _strings(rule.get("resources"))
        wildcard = [
            name
            for name in ("verbs", "resources", "nonResourceURLs")
            if "*" in _strings(rule.get(name))
        ]
        where = f"rules[{index}]"
        if wildcard:
            yield where, f"grants '*' in {' and '.join(wildcard)}"
        elif escalating := [v for v in verbs if v in _ESCALATING_VERBS]:
            yield where, f"grants {', '.join(escalating)} (a way to more rights)"
        elif "secrets" in resources and any(v in _READ_VERBS for v in verbs):
            if kind == "ClusterRole":
                yield where, "reads Secrets (in every namespace, once bound cluster-wide)"
            elif namespace == "kube-system":
                yield where, "reads Secrets in kube-system"


def _webhooks(manifest: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    hooks = manifest.get("webhooks")
    hooks = hooks if isinstance(hooks, list) else []
    outside = [
        str(hook["clientConfig"]["url"])
        for hook in hooks
        if isinstance(hook, Mapping)
        and isinstance(hook.get("clientConfig"), Mapping)
        and hook["clientConfig"].get("url")
    ]
    what = f"intercepts admission ({len(hooks)} webhook{'' if len(hooks) == 1 else 's'}"
    what += f"; calls {', '.join(outside)} outside the cluster)" if outside else ")"
    yield "webhooks", what


def privilege_risks(manifest: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``(field, what it grants or intercepts)`` for each reach beyond the namespace."""
    api, kind = manifest.get("apiVersion"), manifest.get("kind")
    if not isinstance(api, str) or not isinstance(kind, str):
        return []
    group = api.rpartition("/")[0]
    if group == _RBAC and kind in ("ClusterRoleBinding", "RoleBinding"):
        return list(_binding(kind, manifest))
    if group == _RBAC and kind in ("ClusterRole", "Role"):
        return list(_role(kind, manifest))
    if group == _ADMISSION and kind in _WEBHOOKS:
        return list(_webhooks(manifest))
    if group == _ADMISSION and kind in _POLICIES:
        return [("spec", "takes part in admission of what it matches")]
    return []
