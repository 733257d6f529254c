"""What a code package may hold: the limits, the secret-looking names, the excludes.

Ray's own packer (``ray/_private/runtime_env/packaging.py``) honours ``.gitignore`` and
``.rayignore`` and refuses a package of 512 MiB; a package that travels through ConfigMaps
(1 MiB each) must stay far smaller, so raygang bounds it at :data:`MAX_PACKAGE_BYTES` and
names the alternative, a remote URI, in every limit's message.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

__all__ = [
    "ALLOW_ANNOTATION",
    "EXCLUDE_FILE",
    "MAX_FILE_COUNT",
    "MAX_PACKAGE_BYTES",
    "MAX_PATH_BYTES",
    "MAX_READ_BYTES",
    "PY_MODULES_ANNOTATION",
    "PY_MODULES_DIR",
    "REMOTE_ALTERNATIVE",
    "SECRET_PATTERNS",
    "WORKING_DIR_ANNOTATION",
    "Excludes",
    "looks_secret",
    "parse_excludes",
]

#: The RayJob annotation naming the local directory to ship, relative to the manifest file's
#: directory (the project directory for a job given inline in stack config).
WORKING_DIR_ANNOTATION: Final = "raygang.dev/working-dir"

#: Comma-separated local ``py_modules`` (package directories or ``.whl`` files), relative to
#: the manifest file's directory like the working directory.
PY_MODULES_ANNOTATION: Final = "raygang.dev/py-modules"

#: Where the modules go in the package (and the name a working directory may not use).
PY_MODULES_DIR: Final = ".raygang-py-modules"

#: Comma-separated paths (relative to the working directory) of secret-looking files the
#: user means to ship all the same.
ALLOW_ANNOTATION: Final = "raygang.dev/working-dir-allow"

#: The working directory's exclude file, ``.gitignore`` syntax (a documented subset).
EXCLUDE_FILE: Final = ".raygangignore"

#: The zip's bound: 8 MiB travels as at most 11 ConfigMaps of 768 KiB.
MAX_PACKAGE_BYTES: Final = 8 * 1024 * 1024

#: What is read from disk at most (the files' sizes together), before compression.
MAX_READ_BYTES: Final = 64 * 1024 * 1024

#: Files in one package.
MAX_FILE_COUNT: Final = 2000

#: A packed path's UTF-8 bytes (the common NAME_MAX-sized limit of tar and many tools).
MAX_PATH_BYTES: Final = 255

REMOTE_ALTERNATIVE: Final = (
    "a remote URI in runtimeEnvYAML's working_dir (https://, s3://, gs:// zip), or "
    f"excludes in {EXCLUDE_FILE}"
)

#: Names that usually hold credentials: refused unless listed in :data:`ALLOW_ANNOTATION`.
SECRET_PATTERNS: Final[tuple[str, ...]] = (
    ".env",
    ".env.*",
    "*.pem",
    "*.key",
    "*.p12",
    "*.pfx",
    "*.jks",
    "*.keystore",
    "id_rsa",
    "id_rsa.*",
    "id_dsa",
    "id_ecdsa",
    "id_ed25519",
    ".netrc",
    ".npmrc",
    ".pypirc",
    ".git-credentials",
    "credentials",
    "credentials.json",
    "*.tfstate",
    "kubeconfig",
)

# Always left out, as Ray's RAY_RUNTIME_ENV_DEFAULT_EXCLUDES leaves them out.
_DEFAULT_EXCLUDES: Final[tuple[str, ...]] = (".git", "__pycache__", ".venv", "venv")


def looks_secret(relpath: str) -> bool:
    """Whether the file's name matches a secret-looking pattern (case-insensitive)."""
    name = relpath.rsplit("/", 1)[-1].lower()
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in SECRET_PATTERNS)


@dataclass(frozen=True, slots=True)
class _Rule:
    pattern: str
    negated: bool
    directory_only: bool
    anchored: bool

    def matches(self, relpath: str, is_dir: bool) -> bool:
        if self.directory_only and not is_dir:
            return False
        if self.anchored:
            return fnmatch.fnmatchcase(relpath, self.pattern)
        return fnmatch.fnmatchcase(relpath.rsplit("/", 1)[-1], self.pattern)


@dataclass(frozen=True, slots=True)
class Excludes:
    """``.gitignore``-style rules: the last matching rule decides; ``!`` re-includes.

    The subset raygang reads: ``#`` comments and blank lines, ``!`` negation, a trailing
    ``/`` for directories only, and a pattern with a ``/`` anchored to the directory's root
    (``*``, ``?`` and ``[...]`` as in :mod:`fnmatch`); a pattern without one matches a name
    at any depth. A directory left out is not descended into (as git does).
    """

    rules: tuple[_Rule, ...] = ()

    def excluded(self, relpath: str, is_dir: bool) -> bool:
        """Whether ``relpath`` (POSIX, relative) is left out of the package."""
        if relpath.rsplit("/", 1)[-1] in _DEFAULT_EXCLUDES:
            return True
        verdict = False
        for rule in self.rules:
            if rule.matches(relpath, is_dir):
                verdict = not rule.negated
        return verdict


def parse_excludes(lines: Sequence[str]) -> Excludes:
    """Read an exclude file's lines (see :class:`Excludes`)."""
    rules = []
    for raw in lines:
        line = raw.rstrip("\n").rstrip()
        if not line or line.startswith("#"):
            continue
        negated = line.startswith("!")
        line = line[1:] if negated else line
        directory_only = line.endswith("/")
        line = line.rstrip("/")
        anchored = "/" in line
        line = line.lstrip("/")
        if line:
            rules.append(_Rule(line, negated, directory_only, anchored))
    return Excludes(tuple(rules))
