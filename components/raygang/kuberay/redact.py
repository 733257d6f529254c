"""The RayJob as the job record keeps it: structure and settings, no secret values.

The record is a ConfigMap, readable by Kubernetes' ``view`` role, which cannot read Secrets.
It keeps the input for people (``kubectl get cm <job>``: what was submitted) and for
``pulumi preview --diff``; the lifecycle reads none of it. So every value that may be a
secret is replaced by :data:`REDACTED`, and nothing else changes:

* ``env`` entries' ``value``, of any type, in every container (``valueFrom`` references
  are kept);
* every ``env_vars`` value of ``spec.runtimeEnvYAML``, read as Ray reads it (the text is
  then the runtime env as JSON, keys sorted, which is also YAML), whatever its type, and
  every copy of that map elsewhere in the runtime env (a YAML anchor under another key);
* string and number values under secret-looking keys (``password``, ``secret``, ``token``,
  ``apiKey``, ``GITHUB_PAT``, ``MYSQL_PWD``, ``*_KEY`` ...: the documented pattern of
  :mod:`raygang.kube.secretkeys`; not names or references of Secrets such as
  ``secretName`` or ``secretKeyRef``), e.g. ``rayStartParams['redis-password']``;
* the user info of URLs (``https://user:token@host/...``, up to the last ``@`` before the
  host, so a password with ``@`` or ``:`` in it too), e.g. in ``pip`` or ``working_dir``;
* ``kubectl.kubernetes.io/last-applied-configuration``, a copy of a whole object.

A fixed marker rather than a digest: a digest of a short password can be guessed by trying
candidates, and a change of value is still visible where it matters (the RayCluster or the
Job in the diff, and the submission ID, which covers the cluster spec and the runtime env).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, Final

from raygang.kube.secretkeys import secret_key
from raygang.kuberay.submitter import runtime_env_data

__all__ = ["REDACTED", "redact_rayjob"]

REDACTED: Final = "<redacted>"

# The user info runs to the last '@' before the host (as urlsplit and git read it), so a
# password holding '@' or ':' is hidden whole.
_USERINFO: Final = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)[^/?#\s]*@")

_LAST_APPLIED: Final = "kubectl.kubernetes.io/last-applied-configuration"


def _text(value: str) -> str:
    if "@" in value and "://" in value:
        return _USERINFO.sub(lambda m: f"{m['scheme']}{REDACTED}@", value)
    return value


def _walk(value: Any, secret: bool = False) -> Any:
    """``value`` with secret values replaced; the same object when nothing changed."""
    if isinstance(value, str):
        return REDACTED if secret else _text(value)
    if secret and isinstance(value, int | float) and not isinstance(value, bool):
        return REDACTED  # a PIN or a numeric password is a secret too
    if isinstance(value, Mapping):
        out: dict[str, Any] | None = None
        for key, item in value.items():
            if key == "valueFrom":  # a reference (secretKeyRef, configMapKeyRef ...): kept
                new = item
            elif key == "env" and isinstance(item, list):
                new = _env(item, secret)
            elif key == "env_vars":
                new = _env_vars(item)
            else:
                new = _walk(item, secret or secret_key(key))
            if new is not item and out is None:
                out = dict(value)
            if out is not None:
                out[key] = new
        return value if out is None else out
    if isinstance(value, list):
        items = [_walk(item, secret) for item in value]
        return value if all(a is b for a, b in zip(items, value, strict=True)) else items
    return value


def _env_vars(value: Any) -> Any:
    """A runtime env's ``env_vars``: every value redacted, whatever its type (a string in
    place of the map too); an empty or absent one as it is."""
    if isinstance(value, Mapping):
        return dict.fromkeys(value, REDACTED) if value else value
    return value if value is None else REDACTED


def _env(entries: list[Any], secret: bool) -> list[Any]:
    """An ``env`` list: every entry's ``value`` redacted, the rest walked."""
    out: list[Any] = []
    changed = False
    for entry in entries:
        new = _walk(entry, secret)
        if isinstance(new, Mapping) and new.get("value", None) is not None:
            new = {**new, "value": REDACTED}  # a number or a map too: never kept
        changed = changed or new is not entry
        out.append(new)
    return out if changed else entries


def _runtime_env(text: str) -> str:
    """``runtimeEnvYAML`` with its env_vars values (and any secret-looking value) redacted."""
    try:
        data = runtime_env_data(text)
    except Exception:  # validated before planning; a text that does not parse is kept out
        return REDACTED
    if not isinstance(data, Mapping):
        return text
    env_vars = data.get("env_vars")
    redacted = _copies(_walk(data), env_vars)
    if redacted is data:
        return text
    return json.dumps(redacted, sort_keys=True, ensure_ascii=False, indent=2) + "\n"


def _copies(value: Any, env_vars: Any) -> Any:
    """``value`` with every copy of the env_vars map (a YAML anchor under another key, say)
    redacted as env_vars is; the same object when there is none."""
    if not isinstance(env_vars, Mapping) or not env_vars:
        return value
    if isinstance(value, Mapping):
        if value == env_vars:
            return _env_vars(value)
        items = {key: _copies(item, env_vars) for key, item in value.items()}
        changed = any(items[key] is not item for key, item in value.items())
        return items if changed else value
    if isinstance(value, list):
        listed = [_copies(item, env_vars) for item in value]
        return value if all(a is b for a, b in zip(listed, value, strict=True)) else listed
    return value


def redact_rayjob(raw: Mapping[str, Any]) -> Mapping[str, Any]:
    """The RayJob manifest without secret values (see the module docstring).

    Returns ``raw`` itself when it holds nothing to redact; the input is never modified.
    """
    out: Mapping[str, Any] = _walk(raw)
    raw_spec, spec = raw.get("spec"), out.get("spec")
    text = raw_spec.get("runtimeEnvYAML") if isinstance(raw_spec, Mapping) else None
    if isinstance(text, str) and isinstance(spec, Mapping):
        # From the input's text: the walk above may have edited it as a plain string.
        new = _runtime_env(text)
        if new != spec["runtimeEnvYAML"]:
            out = {**out, "spec": {**spec, "runtimeEnvYAML": new}}
    meta = out.get("metadata")
    annotations = meta.get("annotations") if isinstance(meta, Mapping) else None
    if isinstance(annotations, Mapping) and _LAST_APPLIED in annotations:
        assert isinstance(meta, Mapping)
        annotations = {**annotations, _LAST_APPLIED: REDACTED}
        out = {**out, "metadata": {**meta, "annotations": annotations}}
    return out
