"""A packed code package: the zip's bytes and what names it."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CodePackage"]


@dataclass(frozen=True, slots=True)
class CodePackage:
    """One job's working directory, packed.

    Attributes:
        directory: the directory as the manifest named it (for messages and the plan).
        sha256: the hex SHA-256 of ``data``: the package's identity.
        data: the zip, exactly as packed.
        files: the paths packed, sorted (POSIX, relative to the directory).
        unpacked_bytes: the sum of the files' sizes.
        py_modules: the local ``py_modules`` in the package, as paths inside it
            (``.raygang-py-modules/<i>/<name>``), in the manifest's order.
    """

    directory: str
    sha256: str
    data: bytes
    files: tuple[str, ...]
    unpacked_bytes: int
    py_modules: tuple[str, ...] = ()

    @property
    def has_working_dir(self) -> bool:
        """Whether the package carries a working directory (not only ``py_modules``)."""
        return bool(self.directory)

    @property
    def short_hash(self) -> str:
        """The first 12 hex digits: the ConfigMaps' names and the plan's column."""
        return self.sha256[:12]

    @property
    def size(self) -> int:
        """The zip's size in bytes."""
        return len(self.data)
