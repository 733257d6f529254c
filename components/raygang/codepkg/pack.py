"""Packing a working directory into one deterministic zip, named by its SHA-256.

The same directory gives the same bytes on every machine: entries sorted by path, every
timestamp 1980-01-01 00:00 (the zip format's earliest), every mode ``0644`` on a Unix
host, no directory entries, and the entries *stored*, not deflated: deflate's output
depends on the zlib build (zlib and zlib-ng compress the same bytes differently), which
would give the same code two hashes on two machines. The hash is of the zip as packed,
from the bytes read once (:mod:`.walk`).
"""

from __future__ import annotations

import hashlib
import io
import zipfile
from collections.abc import Sequence
from pathlib import Path

from raygang.codepkg.model import CodePackage
from raygang.codepkg.rules import (
    EXCLUDE_FILE,
    MAX_PACKAGE_BYTES,
    MAX_READ_BYTES,
    PY_MODULES_ANNOTATION,
    PY_MODULES_DIR,
    REMOTE_ALTERNATIVE,
    WORKING_DIR_ANNOTATION,
)
from raygang.codepkg.walk import read_file, read_tree
from raygang.kube.errors import Problem, SpecError

__all__ = ["pack_code", "pack_directory", "zip_files"]

_EPOCH = (1980, 1, 1, 0, 0, 0)
_UNIX = 3
_MODE = 0o100644


def zip_files(files: Sequence[tuple[str, bytes]]) -> bytes:
    """The deterministic zip of ``(path, bytes)`` pairs, in the order given."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_STORED) as archive:
        for path, data in files:
            info = zipfile.ZipInfo(path, date_time=_EPOCH)
            info.create_system = _UNIX
            info.external_attr = _MODE << 16
            info.compress_type = zipfile.ZIP_STORED
            archive.writestr(info, data)
    return out.getvalue()


def _problem(source: str, field: str, what: str, exc: OSError, root: Path) -> SpecError:
    where = exc.filename if exc.filename is not None else root
    return SpecError.one(
        source,
        field,
        f"{what!r}: {where} cannot be read ({exc.strerror or exc})",
        "a directory whose files raygang can read",
    )


def _read_directory(
    directory: str, base: Path, source: str, field: str, allowed: frozenset[str]
) -> list[tuple[str, bytes]]:
    """The files of one named directory, or every problem with them."""
    root = Path(directory)
    root = root if root.is_absolute() else base / root
    if not root.is_dir():
        raise SpecError.one(
            source,
            field,
            f"{directory!r} ({root}) is not a directory",
            "a directory relative to the manifest file's directory",
        )
    try:
        files, refusals = read_tree(root, allowed)
    except OSError as exc:
        raise _problem(source, field, directory, exc, root) from None
    if refusals:
        raise SpecError(
            [
                Problem(source, field, f"{directory!r}: {r.path!r} {r.message}", r.accepted)
                for r in refusals
            ]
        )
    return files


def _read_module(
    index: int, module: str, base: Path, source: str, allowed: frozenset[str]
) -> tuple[str, list[tuple[str, bytes]]]:
    """One ``py_modules`` entry: a package directory or a wheel, under its reserved path."""
    field = f"metadata.annotations[{PY_MODULES_ANNOTATION!r}]"
    path = Path(module)
    path = path if path.is_absolute() else base / path
    prefix = f"{PY_MODULES_DIR}/{index}/"
    if module.endswith(".whl"):
        try:
            data = read_file(path, path.name)
        except OSError as exc:
            raise _problem(source, field, module, exc, path) from None
        except ValueError as exc:
            raise SpecError.one(source, field, f"{module!r} {exc}", "a wheel file") from None
        return prefix + path.name, [(prefix + path.name, data)]
    name = path.resolve().name if path.is_dir() else path.name
    files = _read_directory(module, base, source, field, allowed)
    return prefix + name, [(f"{prefix}{name}/{rel}", data) for rel, data in files]


def pack_code(
    working_dir: str | None,
    py_modules: Sequence[str],
    base: Path,
    source: str,
    allowed: frozenset[str] = frozenset(),
) -> CodePackage:
    """Pack a job's working directory and local ``py_modules`` into one :class:`CodePackage`.

    The working directory's files are at the zip's root; each module (a package directory,
    its name the import name, or a ``.whl``) under ``.raygang-py-modules/<i>/``, a name the
    working directory may not use, so the submitter can tell them apart when it unpacks.

    Args:
        working_dir: the directory as the manifest wrote it (None: modules only).
        py_modules: the modules' paths as the manifest wrote them.
        base: what a relative path is relative to: the manifest file's directory.
        source: the manifest, for messages.
        allowed: secret-looking paths the manifest lists as meant to ship.

    Raises:
        SpecError: a missing directory, an unreadable file, refused files (secret-looking,
            symlinks out, devices, FIFOs, long paths) or a package past a limit, each with
            the manifest, the field and the path.
    """
    field = f"metadata.annotations[{WORKING_DIR_ANNOTATION!r}]"
    files: list[tuple[str, bytes]] = []
    problems: list[Problem] = []
    if working_dir is not None:
        try:
            files = _read_directory(working_dir, base, source, field, allowed)
        except SpecError as exc:
            problems.extend(exc.problems)
        if not problems and not files:
            problems.append(
                Problem(
                    source, field, f"{working_dir!r} holds no file to pack", "a directory with code"
                )
            )
        reserved = [rel for rel, _ in files if rel.split("/", 1)[0] == PY_MODULES_DIR]
        if reserved:
            problems.append(
                Problem(
                    source,
                    field,
                    f"{working_dir!r}: {reserved[0]!r} is under {PY_MODULES_DIR}, a name "
                    "raygang keeps for py_modules",
                    f"another name, or exclude it in {EXCLUDE_FILE}",
                )
            )
    modules: list[str] = []
    for index, module in enumerate(py_modules):
        try:
            path, found = _read_module(index, module, base, source, allowed)
        except SpecError as exc:
            problems.extend(exc.problems)
            continue
        modules.append(path)
        files.extend(found)
    if problems:
        raise SpecError(problems)
    if sum(len(data) for _, data in files) > MAX_READ_BYTES:
        raise SpecError.one(
            source,
            field,
            f"the files read are past {MAX_READ_BYTES:,} bytes, more than a code package may hold",
            REMOTE_ALTERNATIVE,
        )
    files.sort(key=lambda item: item[0])
    data = zip_files(files)
    if len(data) > MAX_PACKAGE_BYTES:
        what = f"{working_dir!r}" if working_dir is not None else "the py_modules"
        raise SpecError.one(
            source,
            field
            if working_dir is not None
            else f"metadata.annotations[{PY_MODULES_ANNOTATION!r}]",
            f"{what} packs to {len(data):,} bytes, more than the {MAX_PACKAGE_BYTES:,} "
            "bytes (8 MiB) a code package may hold in ConfigMaps",
            REMOTE_ALTERNATIVE,
        )
    return CodePackage(
        directory=working_dir or "",
        sha256=hashlib.sha256(data).hexdigest(),
        data=data,
        files=tuple(path for path, _ in files),
        unpacked_bytes=sum(len(d) for _, d in files),
        py_modules=tuple(modules),
    )


def pack_directory(
    directory: str,
    base: Path,
    source: str,
    allowed: frozenset[str] = frozenset(),
) -> CodePackage:
    """Pack one working directory (relative to ``base``, or absolute): :func:`pack_code`
    without ``py_modules``."""
    return pack_code(directory, (), base, source, allowed)
