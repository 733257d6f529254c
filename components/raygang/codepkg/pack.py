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
from raygang.codepkg.rules import MAX_PACKAGE_BYTES, REMOTE_ALTERNATIVE, WORKING_DIR_ANNOTATION
from raygang.codepkg.walk import read_tree
from raygang.kube.errors import Problem, SpecError

__all__ = ["pack_directory", "zip_files"]

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


def pack_directory(
    directory: str,
    base: Path,
    source: str,
    field: str = f"metadata.annotations[{WORKING_DIR_ANNOTATION!r}]",
    allowed: frozenset[str] = frozenset(),
) -> CodePackage:
    """Pack ``directory`` (relative to ``base``, or absolute) into a :class:`CodePackage`.

    Args:
        directory: the path as the manifest wrote it.
        base: what a relative path is relative to: the manifest file's directory.
        source: the manifest, for messages.
        field: the manifest field that named the directory, for messages.
        allowed: secret-looking paths the manifest lists as meant to ship.

    Raises:
        SpecError: a missing directory, an unreadable file, refused files (secret-looking,
            symlinks out, devices, FIFOs, long paths) or a package past a limit, each with
            the manifest, the field and the path.
    """
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
        where = exc.filename if exc.filename is not None else root
        raise SpecError.one(
            source,
            field,
            f"{directory!r}: {where} cannot be read ({exc.strerror or exc})",
            "a directory whose files raygang can read",
        ) from None
    if refusals:
        raise SpecError(
            [
                Problem(source, field, f"{directory!r}: {r.path!r} {r.message}", r.accepted)
                for r in refusals
            ]
        )
    if not files:
        raise SpecError.one(
            source, field, f"{directory!r} holds no file to pack", "a directory with code"
        )
    data = zip_files(files)
    if len(data) > MAX_PACKAGE_BYTES:
        raise SpecError.one(
            source,
            field,
            f"{directory!r} packs to {len(data):,} bytes, more than the {MAX_PACKAGE_BYTES:,} "
            "bytes (8 MiB) a code package may hold in ConfigMaps",
            REMOTE_ALTERNATIVE,
        )
    return CodePackage(
        directory=directory,
        sha256=hashlib.sha256(data).hexdigest(),
        data=data,
        files=tuple(path for path, _ in files),
        unpacked_bytes=sum(len(d) for _, d in files),
    )
