"""Which keys and fields may hold a secret value: the job record's redaction and every error
message ask here, so a value that is redacted in the record is not quoted in a message.

A key is secret-looking when it matches :data:`SECRET_KEY` and is not the name of or a
reference to a secret (:data:`REFERENCE_SUFFIX`: ``secretName``, ``secretKeyRef``,
``tokenPath`` ...) nor a switch (``automountServiceAccountToken``). The pattern,
case-insensitive, anywhere in the key:

* ``password``, ``passwd``, ``passphrase``, ``pass`` (not followed by a letter), ``pwd``;
* ``secret``, ``token``, ``credential``, ``cookie``, ``bearer``, ``authorization``;
* ``api key``, ``private key``, ``access key``, ``session key``, ``client key``,
  ``signing key``, ``encryption key``, ``connection string`` (joined by nothing, ``-``,
  ``_`` or ``.``), and a key ending in ``dsn``;

and as the last word of a key after ``-``, ``_`` or ``.``: ``key``, ``pat`` (a personal
access token), ``pw``, ``auth`` (so ``GITHUB_PAT``, ``MYSQL_PWD``, ``STRIPE_KEY``,
``tls.key``, ``HF_AUTH``; a bare ``key``, as in tolerations and selectors, is not one).

Fields that hold secrets whatever their key (:func:`secret_field`): an ``env`` entry's
``value``, anything under a runtime env's ``env_vars``, ``runtimeEnvYAML`` itself.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

__all__ = ["REFERENCE_SUFFIX", "SECRET_KEY", "secret_field", "secret_key"]

SECRET_KEY: Final = re.compile(
    r"pass(?:word|wd|phrase)?(?![a-z])|pwd|secret|token|api[-_.]?key|credential|"
    r"private[-_.]?key|access[-_.]?key|session[-_.]?key|client[-_.]?key|signing[-_.]?key|"
    r"encryption[-_.]?key|connection[-_.]?string|dsn$|cookie|bearer|authorization|"
    r"[-_.](?:key|pat|pw|auth)$",
    re.IGNORECASE,
)

# Names of and references to secrets, not secrets: secretName, secretKeyRef, tokenPath ...
REFERENCE_SUFFIX: Final = re.compile(
    r"(?:name|names|ref|refs|path|file|mode|type|namespace|enabled|options|policy|seconds)$",
    re.IGNORECASE,
)


# Switches about secrets, not secrets: automountServiceAccountToken.
_SWITCH_PREFIX: Final = re.compile(r"automount", re.IGNORECASE)


def secret_key(key: object) -> bool:
    """True when a value under ``key`` may be a secret (see the module docstring)."""
    return (
        isinstance(key, str)
        and SECRET_KEY.search(key) is not None
        and REFERENCE_SUFFIX.search(key) is None
        and _SWITCH_PREFIX.match(key) is None
    )


def secret_field(loc: Sequence[object]) -> bool:
    """True when the value at ``loc`` (keys and list indices, outermost first) may be a secret."""
    if not loc:
        return False
    if any(part in ("env_vars", "runtimeEnvYAML") for part in loc):
        return True
    if len(loc) >= 3 and loc[-1] == "value" and loc[-3] == "env":
        return True
    return any(secret_key(part) for part in loc)
